"""Room for a hidden card at a row's ends: a hand over it, the bare table, a card seen, the floor."""

import cv2
import numpy as np
import pytest

from calibration.gaps import table_look
from vision.find import order_corners
from vision.hidden import covered_rooms, end_rooms, look_at_table

SHORT, LONG = 60, 90
PITCH = 70  # centre to centre: cards 10 px apart
ROW = [order_corners(cv2.boxPoints(((200 + k * PITCH, 200), (SHORT, LONG), 0)).astype(np.float32)) for k in range(3)]
AFTER = (200 + 3 * PITCH, 200)  # where a 4th card would lie
BEFORE = (200 - PITCH, 200)
TOP = np.array([(20, 20), (620, 20), (620, 380), (20, 380)], np.float64)  # the table top
SKIN = (120, 160, 210)


def table(stripes: bool = False) -> np.ndarray:
    """A table with some grain (in stripes of two colours across the row, or plain) and the row's cards."""
    rng = np.random.default_rng(3)
    plain = np.array((60, 110, 70), np.float64)
    frame = np.broadcast_to(plain, (400, 640, 3)).copy()
    if stripes:
        frame[:, (np.arange(640) // 25) % 2 == 0] = (200, 200, 215)
    frame += rng.normal(0, 3, frame.shape)
    for corners in ROW:
        cv2.fillConvexPoly(frame, np.round(corners).astype(np.int32), (235, 242, 245))
    return np.clip(frame, 0, 255).astype(np.uint8)


def hand(frame: np.ndarray, centre_xy: tuple[int, int]) -> np.ndarray:
    """A skin-coloured hand over the place, its arm reaching to the player's side (below)."""
    out = frame.copy()
    cv2.ellipse(out, centre_xy, (45, 55), 0, 0, 360, SKIN, -1)
    cv2.rectangle(out, (centre_xy[0] - 30, centre_xy[1]), (centre_xy[0] + 30, 399), SKIN, -1)
    return out


def test_the_rooms_lie_one_pitch_beyond_the_row_ends() -> None:
    rooms = dict(end_rooms(ROW, up_to=3))
    assert sorted(rooms) == [0, 3]
    assert np.allclose(rooms[0].mean(axis=0), BEFORE) and np.allclose(rooms[3].mean(axis=0), AFTER)
    assert sorted(dict(end_rooms(ROW, up_to=2))) == [0]  # after the last card decides only a clean row
    lone = dict(end_rooms(ROW[:1], up_to=1))
    assert sorted(lone) == [0, 1] and np.allclose(lone[1].mean(axis=0), (200 + 1.3 * SHORT, 200))


def test_a_nearly_square_lone_cards_rooms_lie_its_players_way() -> None:
    # A card far off in a tilted view shows its long side shortened: its quad is 64 wide and 60
    # high, so its first edge (a short side) runs up the image. Its player sits above, facing down:
    # their left to right runs leftward on the image, and so do the rooms, a pitch of its width apart.
    squat = order_corners(cv2.boxPoints(((300, 200), (64, 60), 0)).astype(np.float32))
    way = np.array([-1.0, 0.0])
    rooms = dict(end_rooms([squat], up_to=1, along=way))
    assert np.allclose(rooms[0].mean(axis=0), (300 + 1.3 * 64, 200)) and np.allclose(rooms[1].mean(axis=0), (300 - 1.3 * 64, 200))
    # A card whose short side shows plainly keeps to it, whichever way its player sits.
    lone = dict(end_rooms(ROW[:1], up_to=1, along=np.array([0.0, 1.0])))
    assert {tuple(np.round(room.mean(axis=0))) for room in lone.values()} == {(200 - 1.3 * SHORT, 200), (200 + 1.3 * SHORT, 200)}


def test_a_hand_on_a_nearly_square_lone_cards_players_right_covers_that_end() -> None:
    squat = order_corners(cv2.boxPoints(((300, 200), (64, 60), 0)).astype(np.float32))
    rng = np.random.default_rng(3)
    frame = np.clip(np.broadcast_to(np.array((60.0, 110.0, 70.0)), (400, 640, 3)) + rng.normal(0, 3, (400, 640, 3)), 0, 255)
    frame = frame.astype(np.uint8)
    cv2.fillConvexPoly(frame, np.round(squat).astype(np.int32), (235, 242, 245))
    frame = hand(frame, (217, 200))  # (the player sits above: their right is the image's left)
    assert covered_rooms(table_look(frame), [squat], [squat], 1, TOP, along=np.array([-1.0, 0.0])) == (1,)


@pytest.mark.parametrize(
    "stripes, cover, up_to, expected",
    [
        (False, None, 3, ()),
        (True, None, 3, ()),
        (False, AFTER, 3, (3,)),
        (True, AFTER, 3, (3,)),
        (False, BEFORE, 3, (0,)),
        (False, AFTER, 2, ()),
    ],
    ids=["bare table", "bare striped table", "a hand after the last card", "a hand on a striped table",
         "a hand before the first card", "after the last card of a row with an error"],
)
def test_a_room_is_covered_only_by_what_is_neither_table_nor_card(stripes, cover, up_to, expected) -> None:
    frame = table(stripes) if cover is None else hand(table(stripes), cover)
    assert covered_rooms(table_look(frame), ROW, ROW, up_to, TOP) == expected


@pytest.mark.parametrize("cover, expected", [(0.75, (3,)), (0.5, ())], ids=["three quarters", "half"])
def test_a_hand_over_most_of_the_room_covers_it_with_the_table_beside_it(cover, expected) -> None:
    # A hand over a card beyond the row's end mostly leaves some of the table in view beside it
    # (on dev renders a quarter of the room or more); over half of the room, it leaves room for no card.
    frame = table()
    cv2.rectangle(frame, (round(AFTER[0] + 0.4 * SHORT - 0.8 * SHORT * cover), 100), (AFTER[0] + SHORT, 399), SKIN, -1)
    assert covered_rooms(table_look(frame), ROW, ROW, 3, TOP) == expected


def test_a_card_seen_in_the_room_is_no_cover() -> None:
    other = order_corners(cv2.boxPoints((AFTER, (SHORT, LONG), 0)).astype(np.float32))
    frame = table()
    cv2.fillConvexPoly(frame, np.round(other).astype(np.int32), (235, 242, 245))
    assert covered_rooms(table_look(frame), ROW, ROW, 3, TOP) == (3,)  # an unseen card is something, though
    assert covered_rooms(table_look(frame), ROW, [*ROW, other], 3, TOP) == ()


@pytest.mark.parametrize("card, expected", [(True, (3,)), (False, ())], ids=["a card's sliver beside the hand", "the table beside it"])
def test_a_room_partly_covered_is_covered_where_a_cards_paper_shows_beside_the_cover(card, expected) -> None:
    # A hand over most of a card beyond the row's end, a sliver of its paper showing beside
    # the hand and some table before it: a card lies there (val31 hard dev seed 96128). The
    # same hand with the table beside it hides nothing.
    frame = table()
    if card:
        hidden = order_corners(cv2.boxPoints(((AFTER[0] + 20, AFTER[1]), (SHORT, LONG), 0)).astype(np.float32))
        cv2.fillConvexPoly(frame, np.round(hidden).astype(np.int32), (235, 242, 245))
    cv2.rectangle(frame, (AFTER[0] - 10, 140), (AFTER[0] + 15, 399), SKIN, -1)
    assert covered_rooms(table_look(frame), ROW, ROW, 3, TOP) == expected

def test_a_room_off_the_table_top_is_no_cover() -> None:
    frame = table()
    frame[:, 380:] = (25, 25, 30)  # the dark floor beyond the table's edge, just after the last card
    top = np.array([(20, 20), (379, 20), (379, 380), (20, 380)], np.float64)
    assert covered_rooms(table_look(frame), ROW, ROW, 3, None) == (3,)
    assert covered_rooms(table_look(frame), ROW, ROW, 3, top) == ()


def test_a_room_across_the_table_tops_edge_is_no_cover() -> None:
    # The row's last card near the table's edge: the room after it lies across the edge, less
    # than 0.85 of it on the top found (whose outline runs a little outside the edge, as hulls
    # do), and what of it lies on the top is mostly the floor (as on medium renders, dev seeds
    # 97007, 97041 and 97058). A card there would hang over the edge: none is hidden there.
    frame = table()
    frame[:, 395:] = (25, 25, 30)
    top = np.array([(20, 20), (420, 20), (420, 380), (20, 380)], np.float64)
    assert covered_rooms(table_look(frame), ROW, ROW, 3, top) == ()


@pytest.mark.parametrize("times", [1, 2], ids=["1080p: halved once", "4K: twice"])
def test_the_table_look_from_a_copy_already_halved_is_the_frames(times) -> None:
    # referee_frame hands look_at_table find_cards' working copy: at 1080p and 4K the frame
    # halved by 2x2 means, as look_at_table halves it.
    frame = cv2.resize(hand(table(stripes=True), AFTER), None, fx=3 * times, fy=3 * times, interpolation=cv2.INTER_LINEAR)
    halved = frame
    for _ in range(times):
        halved = cv2.resize(halved, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_LINEAR)
    cards = [corners * 3 * times for corners in ROW]
    look, top = look_at_table(frame, cards)
    shared, shared_top = look_at_table(frame, cards, halved_bgr=halved)
    assert halved.shape[1] == 960  # (1920 and 3840 wide frames)
    assert shared.scale == look.scale and np.array_equal(shared.blurred_bgr, look.blurred_bgr)
    assert (top is None and shared_top is None) or np.array_equal(top, shared_top)


@pytest.mark.parametrize(
    "frame_hw, small_hw, expected",
    [((1080, 1920), (540, 960), True), ((2160, 3840), (540, 960), True), ((2160, 3840), (1080, 1920), True),
     ((4320, 7680), (540, 960), False), ((1081, 1920), (540, 960), False), ((1440, 2560), (540, 960), False),
     ((720, 1280), (360, 640), False)],
    ids=["1080p", "4K", "4K once", "8K: three halvings", "odd height", "not a power of two", "no wider than the look"],
)
def test_only_a_copy_the_halving_makes_is_taken(frame_hw, small_hw, expected) -> None:
    frame = np.zeros((*frame_hw, 3), np.uint8)
    small = np.full((*small_hw, 3), 255, np.uint8)  # were it taken, the look would be white
    look, _ = look_at_table(frame, [], TOP, halved_bgr=small)
    assert bool(look.blurred_bgr.any()) == expected


def test_a_hand_of_the_woods_colour_covers_the_room_though_each_of_its_pixels_is_like_the_wood() -> None:
    # A fine grain of eight browns; the hand is one of them: every pixel of it is like an eighth of
    # the table, but it shows few of the table's colours, where the bare grain shows them all.
    shades = np.array([(30 + 18 * k, 60 + 20 * k, 90 + 20 * k) for k in range(8)], np.float64)
    frame = shades[(np.arange(640) // 6) * 5 % 8][None, :, :].repeat(400, axis=0)
    for corners in ROW:
        cv2.fillConvexPoly(frame, np.round(corners).astype(np.int32), (235, 242, 245))
    frame = frame.astype(np.uint8)
    assert covered_rooms(table_look(frame), ROW, ROW, 3, TOP) == ()
    cv2.ellipse(frame, AFTER, (45, 55), 0, 0, 360, tuple(shades[4].tolist()), -1)  # the hand (its arm aside)
    assert covered_rooms(table_look(frame), ROW, ROW, 3, TOP) == (3,)


@pytest.mark.parametrize("cover, expected", [(AFTER, (3,)), (None, ())], ids=["a hand over the room", "the bare table"])
def test_a_hand_is_a_cover_though_fingertips_beside_the_row_make_it_look_like_the_table(cover, expected) -> None:
    # Fingertips of another hand reach over the table beside the row's last two cards: a fair share of
    # the table sampled there is skin, so the hand over the room is like that table and shows its
    # colours. It is still plainly more skin than that table (dev hard3 417: the floor beyond the
    # table's edge beside the row, as skin-coloured as the hand).
    frame = table()
    for k, x in enumerate(range(AFTER[0] - 2 * PITCH - 30, AFTER[0] - PITCH + 30, 12)):
        cv2.ellipse(frame, (x, 200 - LONG // 2 - 20 - 2 * (k % 5)), (5, 30), 0, 0, 360, SKIN, -1)
    if cover is not None:
        frame = hand(frame, cover)
    look = table_look(frame)
    assert covered_rooms(look, ROW, ROW, 3, TOP) == expected
