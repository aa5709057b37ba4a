"""What the live referee reads from each frame: searched when the table changed and the change has come to rest."""

import numpy as np

from calibration.areas import TableAreas
from referee.cli.live_read import sight_cards
from referee.cli.live_synth import CARDS, MOVE_S, POOL, Laying, Script, place_xy, render_frame

FPS = 30


def searches(script: Script, seconds: float, areas=None) -> list[tuple[int, int]]:
    """(frame index, cards seen) of every frame that was searched."""
    sighting, out = None, []
    for index in range(int(seconds * FPS)):
        t = index / FPS
        sighting = sight_cards(render_frame(script, t), t, index, sighting, (), areas=areas)
        if sighting.searched:
            out.append((index, len(sighting.cards)))
    return out


def test_a_card_sliding_in_is_searched_a_few_times_a_second_and_at_once_when_it_comes_to_rest() -> None:
    lay = Laying("Anna", 0, CARDS["two"], 0.3)
    found = dict(searches(Script((lay,), duration=1.5), 1.5))
    appear = int(lay.t * FPS)
    rest = int(np.ceil(lay.settle_t * FPS)) + 1  # the frame where it stops still differs from the one before
    # The first frame; the card appearing; the first frame after it lies still (where it is
    # found); the once-a-second search; nothing else while the table lies still.
    assert {0, appear, rest, FPS} <= set(found) and found[rest] == 1
    assert not set(found) & (set(range(1, appear)) | set(range(rest + 1, FPS)))
    # While it slides, a search every 0.25 s or where a change has come to rest, not on
    # every frame the table changed (up to 15 a second).
    sliding = [index for index in found if appear < index < rest]
    assert 1 <= len(sliding) <= 2 < (rest - appear) // 2, sliding
    assert MOVE_S * FPS > 0.25 * FPS


def test_cards_off_the_table_top_or_in_the_pool_are_left_out() -> None:
    script = Script((Laying("Anna", 0, CARDS["two"], -1.0), Laying(POOL, 1, CARDS["one"], -1.0),
                     Laying(POOL, 0, CARDS["three"], -1.0, (36.0, 300.0))))
    (x, y) = place_xy(POOL, 1)
    pool = np.array([[x - 20, y - 20], [x + 20, y - 20], [x + 20, y + 20], [x - 20, y + 20]], np.float64)
    table = np.array([[74, 0], [639, 0], [639, 359], [74, 359]], np.float64)
    assert searches(script, 0.1)[0][1] == 3
    sighting = sight_cards(render_frame(script, 0.0), 0.0, 0, None, (), areas=TableAreas(table, pool))
    assert [tuple(np.round(card.corners_xy.mean(axis=0) / 10)) for card in sighting.cards] == [(11, 30)]


def test_a_card_with_another_laid_over_its_corner_is_read_with_doubt() -> None:
    # The card beneath may show the top card's symbols as its own: its reading of this frame is
    # doubted (the tracker keeps its sure readings from before), the card on top's is not.
    from tests.vision.test_stacked import LOWER, UPPER, table

    sighting = sight_cards(table(LOWER, UPPER), 0.0, 0, None, ())
    assert len(sighting.cards) == 2

    def reading_at(corners):
        return min(sighting.cards, key=lambda card: np.linalg.norm(card.center_xy - corners.mean(axis=0))).reading

    assert "another card lies over part of the card" in reading_at(LOWER).reason and reading_at(LOWER).confidence < 0.5
    assert reading_at(UPPER).confidence == 1.0


def test_cards_too_small_to_find_are_searched_for_in_the_frame_enlarged_from_then_on(monkeypatch) -> None:
    import referee.cli.live_read as live_read
    from tests.vision.test_find import small_cards_scene

    frame, cards = small_cards_scene(45)
    first = sight_cards(frame, 0.0, 0, None, ())
    assert first.enlarged > 1.5 and len(first.cards) == len(cards)
    assert max(x for card in first.cards for x, _ in card.corners_xy) < frame.shape[1]  # (in the frame's own pixels)
    probed = []
    monkeypatch.setattr(live_read, "cards_seen_small", lambda *args: probed.append(args))
    again = sight_cards(frame, 1.5, 45, first, ())  # (the once-a-second search)
    assert again.searched and again.enlarged == first.enlarged and len(again.cards) == len(cards) and not probed


def test_far_cards_too_small_to_find_beside_near_ones_found_are_searched_for_enlarged() -> None:
    # A near row found as it is, a far one of cards too small to find: the frame is looked at for
    # them too, and searched enlarged from then on (a 640x360 camera over a table).
    import cv2

    from tests.vision.test_find import small_cards_scene

    small, cards = small_cards_scene(45)
    frame = np.concatenate([small, np.broadcast_to(small[:1, :1], (small.shape[0], 220, 3))], axis=1).copy()
    for x in (small.shape[1] + 30, small.shape[1] + 120):  # (near cards of 70 px: half as large again)
        corners = np.array([[x, 140], [x + 70, 140], [x + 70, 242], [x, 242]], np.int32)
        cv2.fillConvexPoly(frame, corners, (235, 242, 245), lineType=cv2.LINE_AA)
        for dy in (-30, 0, 30):
            cv2.circle(frame, (x + 35, 191 + dy), 8, (40, 40, 160), -1, cv2.LINE_AA)
    first = sight_cards(frame, 0.0, 0, None, ())
    assert first.enlarged > 1.5 and len(first.cards) == len(cards) + 2


def test_small_patches_a_look_enlarged_found_no_cards_in_are_not_looked_at_enlarged_every_second(monkeypatch) -> None:
    # Two cards of 70 px found as they are, and patches too small to find beside them (pieces of
    # cards, say) that the frame enlarged shows to be no more cards: the once-a-second search does
    # not look at the frame enlarged again (twice the work) until more such patches show.
    import cv2

    import referee.cli.live_read as live_read
    from vision.find import SmallCards

    frame = np.full((360, 640, 3), (60, 110, 70), np.uint8)
    for x in (200, 330):
        cv2.fillConvexPoly(frame, np.array([[x, 130], [x + 70, 130], [x + 70, 232], [x, 232]], np.int32), (235, 242, 245),
                           lineType=cv2.LINE_AA)
        for dy in (-30, 0, 30):
            cv2.circle(frame, (x + 35, 181 + dy), 8, (40, 40, 160), -1, cv2.LINE_AA)
    patches = [3]
    monkeypatch.setattr(live_read, "cards_too_small", lambda *args, **kwargs: SmallCards(patches[0], 45.0))
    factors: list[float] = []
    search = live_read._search
    monkeypatch.setattr(live_read, "_search", lambda image, factor, *args: factors.append(factor) or search(image, factor, *args))
    first = sight_cards(frame, 0.0, 0, None, ())
    assert len(first.cards) == 2 and first.enlarged == 1.0 and len(factors) == 2 and factors[1] > 1.5
    again = sight_cards(frame, 1.5, 45, first, ())  # (the once-a-second search)
    assert again.searched and len(again.cards) == 2 and len(factors) == 3
    patches[0] = 4  # (one more patch: a card too small to find may lie there)
    third = sight_cards(frame, 3.0, 90, again, ())
    assert third.searched and len(factors) == 5 and factors[4] > 1.5


def test_a_card_the_sweeps_missed_is_found_by_its_outlines_loop_in_live_too(monkeypatch) -> None:
    import referee.cli.live_read
    from tests.vision.test_find import iou
    from tests.vision.test_looped import CARDS as ROW, missing_the_fourth, table

    image = table(1)  # (five cards in a row, the fourth half in an arm's shadow)
    monkeypatch.setattr(referee.cli.live_read, "find_cards", missing_the_fourth(referee.cli.live_read.find_cards, image.shape[:2]))
    cards = sight_cards(image, 0.0, 0, None, ()).cards
    assert len(cards) == 5
    assert max(iou(card.corners_xy, ROW[3], image.shape[:2]) for card in cards) > 0.9


def test_the_thumbnail_is_the_grey_mean_of_each_whole_square_of_the_frame() -> None:
    # 1080 rows are 67 squares of 16 and 8 rows left over: those are cut off, not spread over the squares.
    import cv2

    from referee.cli.live_read import _thumb

    frame = np.random.default_rng(1).integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
    thumb = _thumb(frame)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float64)
    means = grey[: 67 * 16].reshape(67, 16, 120, 16).mean(axis=(1, 3))
    assert thumb.shape == (67, 120) and np.abs(thumb - means).max() <= 0.5


def _table_with_cards(xs: list[int], width: int = 640, height: int = 360) -> np.ndarray:
    import cv2

    frame = np.full((height, width, 3), (60, 110, 70), np.uint8)
    for x in xs:
        cv2.fillConvexPoly(frame, np.array([[x, 130], [x + 70, 130], [x + 70, 232], [x, 232]], np.int32), (235, 242, 245),
                           lineType=cv2.LINE_AA)
        for dy in (-30, 0, 30):
            cv2.circle(frame, (x + 35, 181 + dy), 8, (40, 40, 160), -1, cv2.LINE_AA)
    return frame


def _settled(cards) -> list:
    """The cards of a sighting as the tracker holds them once they lie still."""
    from vision.track import TrackedCard

    return [TrackedCard(k, card.corners_xy, card.reading.criteria, 1.0, 0.0, 0, False, card.reading) for k, card in enumerate(cards)]


def _boxes_searched(monkeypatch) -> list:
    import referee.cli.live_read as live_read

    boxes: list = []
    find = live_read.find_cards
    monkeypatch.setattr(live_read, "find_cards", lambda frame, within=None, small=None: boxes.append(within) or find(frame, within, small))
    return boxes


def test_a_search_after_a_change_looks_only_round_it_and_keeps_the_cards_elsewhere(monkeypatch) -> None:
    # Two cards on the left, then a third laid on the right: once it lies still the frame is searched
    # round it only (a card's length beyond what changed), and the two cards on the left are the last
    # search's, kept as they were (the very same: the tracker counts no new reading of them).
    from vision.track import TrackedCard

    boxes = _boxes_searched(monkeypatch)
    first = sight_cards(_table_with_cards([20, 500], 1280, 480), 0.0, 0, None, ())
    assert len(first.cards) == 2 and boxes == [None]
    laid = _table_with_cards([20, 500, 1000], 1280, 480)
    appeared = sight_cards(laid, 0.1, 3, first, ())
    assert not appeared.searched  # (it just appeared: it may still be moving)
    settled = _settled(first.cards)
    second = sight_cards(laid, 0.2, 6, appeared, settled)
    assert second.searched and len(second.cards) == 3 and len(boxes) == 2
    x0, _, x1, _ = boxes[1]
    assert 600 < x0 < 1000 and x1 > 1070  # (round the new card, clear of the two on the left)
    assert any(card is first.cards[0] for card in second.cards) and any(card is first.cards[1] for card in second.cards)
    assert min(abs(card.center_xy[0] - 1035) for card in second.cards) < 3
    # A card not settled yet (still being laid) is looked at again in every search, wherever the
    # change; the settled cards away from both are kept.
    unsettled = [settled[0], TrackedCard(1, first.cards[1].corners_xy, None, 0.0, None, None, False)]
    third = sight_cards(laid, 0.2, 6, appeared, unsettled)
    assert third.searched and len(third.cards) == 3 and len(boxes) == 4 and boxes[2] is not None
    assert any(card is first.cards[0] for card in third.cards) and not any(card is first.cards[1] for card in third.cards)


def test_a_change_over_half_the_frame_is_searched_whole(monkeypatch) -> None:
    boxes = _boxes_searched(monkeypatch)
    first = sight_cards(_table_with_cards([60]), 0.0, 0, None, ())
    changed = _table_with_cards([60, 200, 340, 480])  # (three cards laid at once across the table)
    second = sight_cards(changed, 0.2, 6, sight_cards(changed, 0.1, 3, first, ()), ())
    assert second.searched and len(second.cards) == 4 and boxes[-1] is None


def test_a_box_round_a_change_that_shows_none_of_the_cards_it_held_is_searched_whole(monkeypatch) -> None:
    # (a box is swept at its own levels: on a pale cloth it may show no card where the whole frame shows them)
    import referee.cli.live_read as live_read

    first = sight_cards(_table_with_cards([20, 500, 1000], 1280, 480), 0.0, 0, None, ())
    settled = _settled(first.cards)
    moved = _table_with_cards([20, 500, 980], 1280, 480)  # (the right card nudged)
    find, calls = live_read.find_cards, []
    monkeypatch.setattr(live_read, "find_cards", lambda frame, within=None, small=None: calls.append(within) or (
        [] if within is not None else find(frame, within, small)))
    second = sight_cards(moved, 0.2, 6, sight_cards(moved, 0.1, 3, first, settled), settled)
    assert second.searched and len(calls) == 2 and calls[0] is not None and calls[1] is None and len(second.cards) == 3
