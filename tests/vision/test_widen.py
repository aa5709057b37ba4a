"""Quads cut short across their card, parallel to its sides, widened to the size its neighbours
show; quads unlike a card on their neighbours' table plane refitted at one of their corners."""

import cv2
import numpy as np
import pytest

from vision.quads import order_corners
from vision.widen import like_a_card_beside, measure_in_neighbours, refit_off_cards, widen_cut_quads

PAPER, TABLE = (170, 215, 245), (90, 60, 40)  # BGR: warm-lit paper on a coloured table


def _card(centre_xy, angle=8.0):
    return order_corners(cv2.boxPoints((centre_xy, (100, 150), angle)).astype(np.float32))


CARDS = [_card((110, 110)), _card((250, 110)), _card((390, 110)), _card((250, 300))]


def _table_of_cards(soft_shadow_over=None):
    """Four cards on a table; a deep shadow, its soft edge parallel to the long sides of card
    ``soft_shadow_over``, over the right 40% of that card and all the frame beyond."""
    frame = np.zeros((420, 520, 3), np.float32) + np.float32(TABLE)
    mask = np.zeros(frame.shape[:2], np.uint8)
    for corners in CARDS:
        cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 255)
    paper = cv2.GaussianBlur(mask, (3, 3), 0)[..., None] / 255.0
    frame = paper * np.float32(PAPER) + (1 - paper) * frame
    if soft_shadow_over is not None:
        # The shade falls across the card parallel to its long sides, over 20 px.
        card = CARDS[soft_shadow_over]
        x_along = card[1] - card[0]
        x_along /= np.linalg.norm(x_along)
        ys, xs = np.mgrid[: frame.shape[0], : frame.shape[1]]
        depth = (xs - card[0][0]) * x_along[0] + (ys - card[0][1]) * x_along[1]  # across the card, from its left side
        shade = 1 - 0.45 * np.clip((depth - 50) / 20, 0, 1)
        frame *= shade[..., None].astype(np.float32)
    return np.clip(frame, 0, 255).astype(np.uint8)


def _cut_at(corners, share):
    """The quad of the card's left ``share`` across its short sides (the cut parallel to its long sides)."""
    cut = corners.copy()
    cut[1] = corners[0] + share * (corners[1] - corners[0])
    cut[2] = corners[3] + share * (corners[2] - corners[3])
    return cut


def test_neighbours_measure_a_quad_cut_lengthwise_as_narrow() -> None:
    quads = np.array(CARDS[:3] + [_cut_at(CARDS[3], 0.6)])
    short, long = measure_in_neighbours(quads)
    assert np.allclose(short[:3], 1, atol=0.03) and np.allclose(long, 1, atol=0.03)
    assert abs(short[3] - 0.6) < 0.03


def _grown(corners, by):
    return (corners - corners.mean(axis=0)) * by + corners.mean(axis=0)


def test_a_card_between_quads_off_their_cards_is_like_a_card_on_its_good_neighbours_plane() -> None:
    # Two of the middle card's three neighbours are quads round two cards each: by the median
    # of their planes it measures small, yet it is a card on the plane of the card below it.
    quads = np.array([_grown(CARDS[0], 1.6), CARDS[1], _grown(CARDS[2], 1.6), CARDS[3]])
    short, long = measure_in_neighbours(quads)
    assert short[1] * long[1] < 0.55
    assert like_a_card_beside(quads)[1]


def test_only_the_quads_chosen_measure_and_one_with_fewer_than_two_of_them_beside_it_measures_one() -> None:
    # Two quads round two cards each measure the card between them small; measured by the card
    # below it alone it is a card, where it has two such quads to measure it.
    quads = np.array([_grown(CARDS[0], 1.6), CARDS[1], _grown(CARDS[2], 1.6), CARDS[3], _card((110, 300)), _card((390, 300))])
    by = np.array([False, True, False, True, True, True])
    short, long = measure_in_neighbours(quads, by)
    assert abs(short[1] - 1) < 0.05 and abs(long[1] - 1) < 0.05
    short, long = measure_in_neighbours(quads[:4], by[:4])
    assert (short[1], long[1]) == (1.0, 1.0)


def test_a_half_card_is_like_a_card_on_no_neighbours_plane() -> None:
    quads = np.array(CARDS[:3] + [_cut_at(CARDS[3], 0.5)])
    assert like_a_card_beside(quads).tolist() == [True, True, True, False]


def test_a_quad_cut_at_a_soft_shadow_edge_is_widened_to_the_card() -> None:
    frame = _table_of_cards(soft_shadow_over=3)
    cut = _cut_at(CARDS[3], 0.6)
    widened = widen_cut_quads(frame, CARDS[:3] + [cut])
    assert np.abs(cut - CARDS[3]).max() > 30
    assert np.abs(widened[3] - CARDS[3]).max() < 4
    assert all(np.array_equal(a, b) for a, b in zip(widened[:3], CARDS[:3]))


def test_a_quad_cut_at_a_sharp_edge_like_the_table_is_left_alone() -> None:
    # The card ends at a sharp edge with the table beyond: it is a narrow object, not a cut card.
    frame = _table_of_cards()
    cut = _cut_at(CARDS[3], 0.6)
    cv2.fillConvexPoly(frame, np.round(CARDS[3]).astype(np.int32), TABLE)
    cv2.fillConvexPoly(frame, np.round(cut).astype(np.int32), PAPER)
    assert np.array_equal(widen_cut_quads(frame, CARDS[:3] + [cut])[3], cut)


def _cut_along(corners, share):
    """The quad of the card's top ``share`` along its long sides (the cut parallel to its short sides)."""
    cut = corners.copy()
    cut[2] = corners[1] + share * (corners[2] - corners[1])
    cut[3] = corners[0] + share * (corners[3] - corners[0])
    return cut


def _covered_below(frame, corners, share):
    """``frame`` with a dark card back lying over the card's part below its top ``share``, and beyond."""
    top = _cut_along(corners, share)
    out = (corners - corners.mean(axis=0)) * 1.3 + corners.mean(axis=0)  # past the card's sides and bottom
    across = 0.2 * (corners[1] - corners[0])
    back = np.float32([top[3] - across, top[2] + across, out[2], out[3]])
    cv2.fillConvexPoly(frame, np.round(back).astype(np.int32), (90, 40, 20))
    return frame


def test_a_quad_cut_at_a_soft_shadow_edge_and_covered_below_is_widened_across() -> None:
    # Both side pairs short: across, the cut side is a shadow's soft edge (the card goes on in
    # the shade); along, something lies over the card, and the quad keeps to what is in view.
    frame = _covered_below(_table_of_cards(soft_shadow_over=3), CARDS[3], 0.8)
    cut = _cut_along(_cut_at(CARDS[3], 0.6), 0.8)
    widened = widen_cut_quads(frame, CARDS[:3] + [cut])
    assert np.abs(widened[3] - _cut_along(CARDS[3], 0.8)).max() < 4


def test_a_quad_short_on_both_pairs_with_sharp_cuts_is_left_alone() -> None:
    # Something lying over the card at both cut sides: which way the card goes on is not seen.
    frame = _covered_below(_table_of_cards(), CARDS[3], 0.8)
    cut = _cut_along(_cut_at(CARDS[3], 0.6), 0.8)
    right = np.float32([cut[1], CARDS[3][1], CARDS[3][2], cut[2]])
    cv2.fillConvexPoly(frame, np.round(right).astype(np.int32), (40, 40, 150))  # a red mug
    assert np.array_equal(widen_cut_quads(frame, CARDS[:3] + [cut])[3], cut)


def test_a_nearly_whole_card_short_on_both_pairs_is_widened_to_its_outline_not_the_neighbours_measure() -> None:
    # The neighbours' quads took in a rim of the table: they measure the card at 1.15 times
    # its size, and the quad cut at the soft shadow edge far short. Its cut side moves out onto
    # the card's outline, the paper ending there, not past it onto the table in the shade.
    frame = _covered_below(_table_of_cards(soft_shadow_over=3), CARDS[3], 0.8)
    cut = _cut_along(_cut_at(CARDS[3], 0.6), 0.8)
    rims = [(c - c.mean(axis=0)) * 1.15 + c.mean(axis=0) for c in CARDS[:3]]
    short, long = measure_in_neighbours(np.array(rims + [cut]))
    assert 0.5 < short[3] < long[3] < 0.88
    widened = widen_cut_quads(frame, rims + [cut])
    assert np.abs(widened[3] - _cut_along(CARDS[3], 0.8)).max() < 4


def _pulled(corners, k, by_xy):
    pulled = corners.copy()
    pulled[k] += np.float32(by_xy)
    return pulled


def test_a_skewed_quad_with_a_corner_pulled_off_its_card_is_completed_from_the_other_three() -> None:
    # A corner dragged out over the table (by something touching the card, say): the two
    # sides at it cross the table, the two opposite are the card's outline.
    frame = _table_of_cards()
    pulled = _pulled(CARDS[3], 2, (30, 25))
    fixed = widen_cut_quads(frame, CARDS[:3] + [pulled])
    assert np.abs(order_corners(pulled) - CARDS[3]).max() >= 30
    assert np.abs(fixed[3] - CARDS[3]).max() < 3


def test_a_sliver_of_a_quad_two_pixels_wide_is_measured_not_failed_on() -> None:
    # A skewed sliver over a card (as a live hard frame gave): its short side, 2.4 px, left no room
    # to look for a step across its sides, and the whole frame was skipped.
    frame = _table_of_cards()
    sliver = order_corners(np.float32([[236, 246], [248, 249], [232, 354], [229.5, 353.4]]))
    fixed = widen_cut_quads(frame, CARDS[:3] + [sliver])
    assert len(fixed) == 4 and np.isfinite(fixed[3]).all()


def test_a_skewed_paper_outlined_all_round_is_left_alone() -> None:
    # Paper of that skewed shape: every side is an outline, nothing says which corner is off.
    frame = _table_of_cards()
    pulled = _pulled(CARDS[3], 2, (30, 25))
    cv2.fillConvexPoly(frame, np.round(pulled).astype(np.int32), PAPER)
    assert np.array_equal(widen_cut_quads(frame, CARDS[:3] + [pulled])[3], pulled)


BESIDE = _card((349, 314))  # touching the right long side of CARDS[3]


def _two_cards_touching(seam=True, paper=PAPER):
    """The table of cards with a second card touching CARDS[3] along its right long side;
    where they touch, a thin shadow (``seam``) or nothing. Both cards of ``paper``."""
    frame = _table_of_cards()
    for corners in (CARDS[3], BESIDE):
        cv2.fillConvexPoly(frame, np.round(corners).astype(np.int32), paper)
    if seam:
        cv2.line(frame, tuple(np.round(CARDS[3][1]).astype(int)), tuple(np.round(CARDS[3][2]).astype(int)), (60, 70, 80), 2)
    return frame


def _merged():
    """One quad round both touching cards: twice a card's short side wide."""
    return order_corners(np.array([CARDS[3][0], BESIDE[1], BESIDE[2], CARDS[3][3]], np.float32))


def test_a_quad_round_two_touching_cards_is_refitted_as_one_of_them() -> None:
    frame = _two_cards_touching()
    refitted = refit_off_cards(frame, CARDS[:3] + [_merged()])
    assert np.array_equal(widen_cut_quads(frame, CARDS[:3] + [_merged()])[3], _merged())  # nothing else mends it
    assert min(np.abs(refitted[3] - card).max() for card in (CARDS[3], BESIDE)) < 3
    assert all(np.array_equal(a, b) for a, b in zip(refitted[:3], CARDS[:3]))


@pytest.mark.parametrize("found", ["beside", "card"])
def test_a_quad_round_two_touching_cards_is_refitted_as_the_one_not_found_already(found) -> None:
    # One of the two cards is found on its own too: the quad round both is the other one. Refitted
    # onto the card found, it was its twin, dropped, and the other card lost (dev medium3 367).
    frame = _two_cards_touching()
    other, card = (BESIDE, CARDS[3]) if found == "beside" else (CARDS[3], BESIDE)
    refitted = refit_off_cards(frame, CARDS[:3] + [other, _merged()])
    assert np.abs(refitted[4] - card).max() < 3


def test_a_quad_round_paper_with_no_outline_inside_is_left_alone() -> None:
    # Seamless paper of that shape: no card's outline is seen across it.
    frame = _two_cards_touching(seam=False)
    assert np.array_equal(refit_off_cards(frame, CARDS[:3] + [_merged()])[3], _merged())


def test_a_quad_round_something_unlike_the_cards_paper_is_left_alone() -> None:
    # A pale green patch (a tablecloth's) with card-like edges in it: not a card's paper.
    frame = _two_cards_touching(paper=(150, 190, 160))
    assert np.array_equal(refit_off_cards(frame, CARDS[:3] + [_merged()])[3], _merged())


UNDER = order_corners(CARDS[3] + np.float32(CARDS[3][0] - CARDS[3][3]) * 0.4)  # CARDS[3] moved up 0.4 of its long side


def _card_over_another(shadow=8):
    """The table of cards with CARDS[3] lying over a card beneath it that shows beyond its top
    short side; CARDS[3]'s outline over the paper beneath is a thin shadow ``shadow`` darker."""
    frame = _table_of_cards()
    for corners in (UNDER, CARDS[3]):
        cv2.fillConvexPoly(frame, np.round(corners).astype(np.int32), PAPER)
    top = tuple(np.round(CARDS[3][0]).astype(int)), tuple(np.round(CARDS[3][1]).astype(int))
    cv2.line(frame, *top, tuple(int(v) - shadow for v in PAPER), 2)
    return frame


def _over_both():
    """One quad round both cards: the card beneath's top side, CARDS[3]'s bottom one (1.4 cards long)."""
    return order_corners(np.array([UNDER[0], UNDER[1], CARDS[3][2], CARDS[3][3]], np.float32))


def test_a_quad_round_a_card_and_the_one_beneath_it_is_refitted_as_the_card_on_top() -> None:
    frame = _card_over_another()
    refitted = refit_off_cards(frame, CARDS[:3] + [_over_both()])
    assert np.array_equal(widen_cut_quads(frame, CARDS[:3] + [_over_both()])[3], _over_both())  # nothing else mends it
    assert np.abs(refitted[3] - CARDS[3]).max() < 3
    assert all(np.array_equal(a, b) for a, b in zip(refitted[:3], CARDS[:3]))


def test_a_quad_round_a_card_over_another_with_no_outline_seen_is_left_alone() -> None:
    frame = _card_over_another(shadow=0)
    assert np.array_equal(refit_off_cards(frame, CARDS[:3] + [_over_both()])[3], _over_both())



def test_a_card_covering_less_than_half_of_the_quad_round_it_is_not_taken_for_the_card_on_top() -> None:
    # Paper 2.2 cards long with CARDS[3]'s thin shadow across it: what lies beyond the shadow
    # is more than a card, no card beneath in part view (the quad is not a card over another).
    frame = np.zeros((680, 520, 3), np.uint8) + np.uint8(TABLE)
    beyond = order_corners(CARDS[3] + np.float32(CARDS[3][3] - CARDS[3][0]) * 1.2)
    long_quad = order_corners(np.array([CARDS[3][0], CARDS[3][1], beyond[2], beyond[3]], np.float32))
    for corners in CARDS[:3] + [long_quad]:
        cv2.fillConvexPoly(frame, np.round(corners).astype(np.int32), PAPER)
    cv2.line(frame, tuple(np.round(CARDS[3][2]).astype(int)), tuple(np.round(CARDS[3][3]).astype(int)),
             tuple(int(v) - 8 for v in PAPER), 2)
    assert np.array_equal(refit_off_cards(frame, CARDS[:3] + [long_quad])[3], long_quad)


def _overlap(a, b):
    shared = cv2.intersectConvexConvex(np.float32(a), np.float32(b))[0]
    return shared / (cv2.contourArea(np.float32(a)) + cv2.contourArea(np.float32(b)) - shared)


def test_a_card_turned_over_another_is_refitted_by_its_own_outline_not_the_quads_corners() -> None:
    # The card on top is turned 25 degrees over the middle of the one beneath, whose corners
    # show all round it: no card at a corner of the quad round both is the card on top.
    beneath, top, other = _card((255, 320), 8.0), _card((255, 320), 33.0), _card((440, 320))
    frame = np.zeros((480, 520, 3), np.uint8) + np.uint8(TABLE)
    for corners in CARDS[:3] + [other, beneath]:
        cv2.fillConvexPoly(frame, np.round(corners).astype(np.int32), PAPER)
    cv2.polylines(frame, [np.round(top).astype(np.int32)], True, tuple(int(v) - 8 for v in PAPER), 5)  # its thin shadow
    cv2.fillConvexPoly(frame, np.round(top).astype(np.int32), PAPER)
    around = order_corners(cv2.boxPoints(cv2.minAreaRect(np.concatenate([beneath, top]))).astype(np.float32))
    refitted = refit_off_cards(frame, CARDS[:3] + [other, around])
    assert _overlap(refitted[4], top) > 0.8  # the quad round both: 0.69; snapped onto a faint outline, a few pixels off
    assert all(np.array_equal(a, b) for a, b in zip(refitted[:4], CARDS[:3] + [other]))


def test_a_card_outlined_all_round_is_not_refitted_to_a_part_of_it_among_squares_of_cloth() -> None:
    # Pale squares of a checked cloth, found as quads, outnumber the cards: on their planes a
    # card is unlike a card, and a broken line of symbols across it outlines a part of it
    # nearly as well as its own outline does. The card's outline, seen all round, is kept.
    squares = [order_corners(cv2.boxPoints(((80 + 130 * (k % 3), 80 + 130 * (k // 3)), (90, 90), 3.0)).astype(np.float32))
               for k in range(6)]
    card = order_corners(cv2.boxPoints(((530, 150), (120, 165), 3.0)).astype(np.float32))
    frame = np.zeros((400, 640, 3), np.uint8) + np.uint8(TABLE)
    for corners in squares + [card]:
        cv2.fillConvexPoly(frame, np.round(corners).astype(np.int32), PAPER)
    left, right = card[0] + 0.4 * (card[3] - card[0]), card[1] + 0.4 * (card[2] - card[1])
    for start, end in ((0.0, 0.2), (0.34, 1.0)):
        cv2.line(frame, tuple(np.round(left + start * (right - left)).astype(int)),
                 tuple(np.round(left + end * (right - left)).astype(int)), (60, 60, 170), 5)
    assert np.array_equal(refit_off_cards(frame, squares + [card])[-1], card)


def test_a_card_among_pieces_of_cards_is_not_refitted_to_a_piece_of_it() -> None:
    # The quads beside it are pieces of cards (a quarter of one each): on their planes a whole
    # card is unlike a card, and a card of their size at its corner, outlined by a shadow's edge
    # and a printed line across it, would be a quarter of it. A card refitted is half the quad
    # at least (dev hard 5066: a card half in a shadow, widened to the whole card, was refitted
    # to a piece and lost).
    pieces = [order_corners(cv2.boxPoints((c, (50, 75), 8.0)).astype(np.float32)) for c in ((80, 80), (180, 80), (280, 80), (380, 80))]
    card = _card((250, 300))
    frame = np.zeros((480, 520, 3), np.uint8) + np.uint8(TABLE)
    for corners in pieces + [card]:
        cv2.fillConvexPoly(frame, np.round(corners).astype(np.int32), PAPER)
    a, b, c, d = card
    for start, end in ((a + 0.5 * (b - a), d + 0.5 * (c - d)), (a + 0.5 * (d - a), b + 0.5 * (c - b))):
        cv2.line(frame, tuple(np.round(start).astype(int)), tuple(np.round(end).astype(int)), tuple(int(v) - 60 for v in PAPER), 3)
    assert np.array_equal(refit_off_cards(frame, pieces + [card])[-1], card)
