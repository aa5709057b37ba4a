"""Table top and pool: found on synthetic frames, and keeping cards out of rows."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.areas import TableAreas, depth_in_table, find_pool_area, find_table_area, inside, inward_from_edge, row_candidates
from referee.cli.table import referee_frame
from vision.find import find_cards
from tests.calibration.photos import face_up, photo, true_seats

TABLE = np.array([[150, 100], [850, 120], [830, 700], [170, 690]], np.float64)


def room_with_table(seed: int = 0) -> np.ndarray:
    """A dark, noisy room with a brighter striped table top (1000x800)."""
    rng = np.random.default_rng(seed)
    frame = np.full((800, 1000, 3), (40, 50, 60), np.uint8)
    cv2.fillPoly(frame, [TABLE.astype(np.int32)], (90, 150, 170))
    for y in range(100, 700, 40):
        cv2.line(frame, (0, y), (999, y), (60, 190, 90), 12)
    frame[(cv2.fillPoly(np.zeros((800, 1000), np.uint8), [TABLE.astype(np.int32)], 255) == 0)] = (40, 50, 60)
    return cv2.add(frame, rng.integers(0, 12, frame.shape, dtype=np.uint8))


def iou(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return inter / (cv2.contourArea(a.astype(np.float32)) + cv2.contourArea(b.astype(np.float32)) - inter)


def test_the_table_top_is_the_bright_region_in_the_darker_room() -> None:
    found = find_table_area(room_with_table())
    assert found is not None and iou(found, TABLE) > 0.93


def test_a_felt_between_the_room_and_the_cards_in_brightness_is_the_top() -> None:
    # The committed clip's first frame: green felt, a darker room in every corner, white cards.
    # The threshold must part the felt from the room, not the cards from the felt.
    clip = cv2.VideoCapture(str(Path(__file__).resolve().parents[2] / "fixtures" / "video" / "round-medium.mp4"))
    ok, frame = clip.read()
    clip.release()
    assert ok
    corners = [quad.corners_xy for quad in find_cards(frame)]
    found = find_table_area(frame, corners)
    assert found is not None
    height, width = frame.shape[:2]
    assert 0.55 < cv2.contourArea(found.astype(np.float32)) / (width * height) < 0.92
    assert all(inside(found, quad.mean(axis=0)) for quad in np.asarray(corners))
    assert inside(found, (width / 2, height / 2))  # the pool of face-down cards
    assert not any(inside(found, xy) for xy in ((8, 8), (width - 8, height - 8)))  # the room


def test_an_arm_across_a_corner_of_the_table_leaves_the_corner_on_the_top() -> None:
    # An arm from the frame's side across the table (as on a medium render, dev seed 95119)
    # cuts a corner of the top off from the rest: that corner is still the table, where a
    # row's next card may lie hidden under the arm.
    frame = room_with_table()
    cv2.line(frame, (0, 330), (700, 40), (45, 60, 90), 70)
    found = find_table_area(frame)
    assert found is not None and inside(found, (200, 140)) and iou(found, TABLE) > 0.9


def test_an_arm_across_the_table_leaves_the_far_side_in_a_dimmer_light_on_the_top() -> None:
    # An arm from the bottom of the frame to past the table's middle parts the top in two,
    # the half beyond it in a fifth less light (as on a hard render, dev seed 95020, where
    # the place past Anna's last card, under the hand, counted as off the table).
    frame = room_with_table()
    frame[:, 560:] = (frame[:, 560:] * 0.78).astype(np.uint8)
    cv2.line(frame, (540, 799), (540, 60), (45, 60, 90), 80)
    found = find_table_area(frame)
    assert found is not None and inside(found, (750, 400)) and iou(found, TABLE) > 0.9


def test_an_arm_across_the_table_leaves_the_far_side_on_the_top_when_the_near_side_is_covered_in_cards() -> None:
    # The cards on the near side pull its mean colour towards their paper's grey, away from the
    # bare pink cloth beyond the arm; the cloth's own colour, its median off the cards, is the
    # same on both sides (as on the hard tier's dev render 197, where the room
    # past Frieda's last card, under a hand, counted as off the table).
    frame = np.full((800, 1000, 3), (40, 50, 60), np.uint8)
    cv2.fillPoly(frame, [TABLE.astype(np.int32)], (150, 80, 200))
    cards = []
    for k in range(12):
        x, y = 190 + (k % 4) * 85, 150 + (k // 4) * 170
        cards.append(np.array([[x, y], [x + 70, y], [x + 70, y + 100], [x, y + 100]], np.float64))
        cv2.fillPoly(frame, [cards[-1].astype(np.int32)], (235, 240, 245))
    cv2.line(frame, (560, 799), (560, 60), (45, 60, 90), 80)
    frame = cv2.add(frame, np.random.default_rng(0).integers(0, 12, frame.shape, dtype=np.uint8))
    found = find_table_area(frame, cards)
    assert found is not None and inside(found, (750, 400)) and iou(found, TABLE) > 0.9


def test_a_frame_that_is_all_table_or_all_room_has_no_top() -> None:
    assert find_table_area(np.full((400, 600, 3), 120, np.uint8)) is None


def test_depth_runs_from_the_middle_to_the_edge() -> None:
    square = np.array([[0, 0], [100, 0], [100, 100], [0, 100]], np.float64)
    assert depth_in_table((50, 50), (50, 50), square) == 0.0
    assert abs(depth_in_table((75, 50), (50, 50), square) - 0.5) < 1e-9
    assert abs(depth_in_table((100, 100), (50, 50), square) - 1.0) < 1e-9


def test_the_pool_never_swallows_a_row_card() -> None:
    square = np.array([[0, 0], [1000, 0], [1000, 1000], [0, 1000]], np.float64)
    card = lambda x, y: np.array([[x - 30, y - 45], [x + 30, y - 45], [x + 30, y + 45], [x - 30, y + 45]], np.float64)  # noqa: E731
    loose = [card(450, 450), card(560, 520), card(500, 600), card(700, 500)]
    pool = find_pool_area(loose, [(690, 420)], (500, 500), square)
    assert pool is not None and inside(pool, (500, 520)) and not inside(pool, (690, 420))
    # A card out near the edge is never pool.
    assert not inside(find_pool_area(loose + [card(950, 500)], [], (500, 500), square), (930, 500))


def test_row_candidates_leave_out_the_pool_and_the_floor() -> None:
    areas = TableAreas(TABLE, np.array([[400, 300], [600, 300], [600, 500], [400, 500]], np.float64))
    assert row_candidates([(500, 400), (200, 650), (950, 50), (300, 200)], areas) == [1, 3]
    assert row_candidates([(1, 1), (2, 2)], None) == [0, 1]


def test_a_pool_card_near_a_row_stays_out_of_it_with_the_areas() -> None:
    # On the committed photo, with its true seats: a pool drawn around one row card keeps it out.
    frame, truth = photo("easy/test-003")
    seats = true_seats(truth)
    plain = referee_frame(frame, seats)
    row = plain.rows[0]
    centre = np.array(plain.cards[row.cards[-1]].center_xy)
    pool = np.array([centre + d for d in ((-5, -5), (5, -5), (5, 5), (-5, 5))])
    fenced = referee_frame(frame, seats, TableAreas(None, pool))
    assert [r.cards for r in fenced.rows if r.player == row.player] == [row.cards[:-1]]
    assert len(fenced.cards) == len(plain.cards)  # still listed, only out of the row
    assert face_up("easy/test-003")


def test_the_search_box_holds_the_table_top_with_a_margin_and_stays_in_the_frame() -> None:
    from calibration.areas import search_box

    assert search_box(TableAreas(TABLE, None), (1000, 800)) == (120, 70, 881, 731)
    assert search_box(TableAreas(np.array([[0, 0], [999, 0], [999, 799], [0, 799]], np.float64)), (1000, 800)) is None
    assert search_box(TableAreas(None, TABLE), (1000, 800)) is None and search_box(None, (1000, 800)) is None


def test_a_heap_of_face_down_cards_alone_makes_the_pool() -> None:
    square = np.array([[0, 0], [1000, 0], [1000, 1000], [0, 1000]], np.float64)
    heap = np.array([[420, 430], [560, 410], [600, 520], [470, 590], [400, 520]], np.float64)
    assert find_pool_area([], [], (500, 500), square) is None
    pool = find_pool_area([], [(500, 850)], (500, 500), square, [heap])
    assert pool is not None and inside(pool, (500, 500)) and not inside(pool, (500, 850))


def test_a_cloth_as_bright_as_the_room_is_told_from_it_by_its_colour() -> None:
    # A green felt on a grey floor of the same brightness (as on medium renders, dev seeds
    # 95009 and 95015, where the room past a row's end, off the table, was taken for a hand
    # over a card): the top is what lies nearer the cloth's colour around the cards than the
    # room's along the frame's border.
    rng = np.random.default_rng(1)
    frame = np.full((800, 1000, 3), (135, 140, 138), np.uint8)
    cv2.fillPoly(frame, [TABLE.astype(np.int32)], (60, 145, 50))
    corners = []
    for k in range(6):
        for y in (160, 560):
            quad = np.array([[220 + 100 * k, y], [290 + 100 * k, y], [290 + 100 * k, y + 100], [220 + 100 * k, y + 100]], np.float64)
            cv2.fillPoly(frame, [quad.astype(np.int32)], (235, 238, 240))
            corners.append(quad)
    frame = cv2.add(frame, rng.integers(0, 12, frame.shape, dtype=np.uint8))
    found = find_table_area(frame, corners)
    assert found is not None and iou(found, TABLE) > 0.93
    # (with no room in view, no top: the same cloth filling the frame)
    felt = np.full((800, 1000, 3), (60, 145, 50), np.uint8)
    for quad in corners:
        cv2.fillPoly(felt, [quad.astype(np.int32)], (235, 238, 240))
    assert find_table_area(cv2.add(felt, rng.integers(0, 12, felt.shape, dtype=np.uint8)), corners) is None


def test_a_dark_cloth_under_a_bright_arm_is_the_top_not_the_arm_and_the_cards() -> None:
    # A dark maroon cloth in a darker room, two rows of cards and a bare arm reaching from one
    # row to the other (as on the hard tier's dev renders 086 and 050): the brightest region
    # holding the cards is the arm and the cards, filling little of its hull, where the rooms
    # beyond the rows' ends would lie off the top; the cloth, brighter than the room, is the top.
    frame = np.full((800, 1000, 3), (25, 15, 30), np.uint8)
    cv2.fillPoly(frame, [TABLE.astype(np.int32)], (40, 28, 78))
    cards = []
    for k in range(5):
        for y in (150, 560):
            cards.append(np.array([[230 + 115 * k, y], [310 + 115 * k, y], [310 + 115 * k, y + 110], [230 + 115 * k, y + 110]], np.float64))
            cv2.fillPoly(frame, [cards[-1].astype(np.int32)], (225, 232, 238))
    cv2.line(frame, (500, 240), (520, 580), (120, 165, 215), 100)
    frame = cv2.add(frame, np.random.default_rng(2).integers(0, 12, frame.shape, dtype=np.uint8))
    found = find_table_area(frame, cards)
    assert found is not None and iou(found, TABLE) > 0.9


@pytest.mark.parametrize("seat, inward", [((50.0, 105.0), (0.0, -1.0)), ((50.0, -4.0), (0.0, 1.0)), ((-3.0, 40.0), (1.0, 0.0)),
                                          ((203.0, 70.0), (-1.0, 0.0))], ids=["bottom", "top", "left", "right"])
def test_from_a_seat_at_the_tables_edge_straight_in_is_square_to_that_edge(seat, inward) -> None:
    # Not towards the table's middle: a seat near a corner sees that at a slant, its row lies along the edge.
    top = np.array([[0.0, 0.0], [200.0, 0.0], [200.0, 100.0], [0.0, 100.0]])
    assert np.allclose(inward_from_edge(top, seat), inward)
    assert np.allclose(inward_from_edge(top[::-1], seat), inward)  # (either way round)
