"""Card quadrilaterals: snapping rough corners onto the outline, reaching out past a shadow."""

import cv2
import numpy as np

from vision.outline import reach_outlines
from vision.quads import frame_level, order_corners, snap_corners, square_up


def card_on_table(corners, table=90, paper=235, size_wh=(400, 300)):
    image = np.full((size_wh[1], size_wh[0]), table, np.uint8)
    cv2.fillConvexPoly(image, np.round((corners - 0.5) * 16).astype(np.int32), paper, lineType=cv2.LINE_AA, shift=4)
    return cv2.GaussianBlur(image, (3, 3), 0)


TRUE = order_corners(cv2.boxPoints(((200, 150), (100, 150), 12)).astype(np.float32))


def test_rough_corners_snap_onto_the_outline() -> None:
    gray = card_on_table(TRUE)
    rough = TRUE + np.array([[3, -2], [-2, 3], [3, 2], [-3, -3]], np.float32)
    snapped = snap_corners(gray, rough, search_px=5)
    assert np.abs(snapped - TRUE).max() < 1.5
    assert np.abs(rough - TRUE).max() >= 3


def test_a_side_found_short_of_the_outline_reaches_out_to_it() -> None:
    gray = card_on_table(TRUE)
    # Only the upper part of the card was found: its lowest tenth lay in a shadow, say.
    partial = TRUE.copy()
    partial[2] = TRUE[1] + 0.9 * (TRUE[2] - TRUE[1])
    partial[3] = TRUE[0] + 0.9 * (TRUE[3] - TRUE[0])
    reached = reach_outlines(cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR), snap_corners(gray, partial, search_px=5)[None])[0]
    assert np.abs(partial - TRUE).max() > 14
    assert np.abs(reached - TRUE).max() < 2


def test_a_plain_table_leaves_the_corners_as_they_are() -> None:
    gray = np.full((300, 400), 120, np.uint8)
    assert np.array_equal(snap_corners(gray, TRUE, search_px=5), TRUE)


def _cut_across(corners, keep_corner, fraction):
    """The quad a straight edge across the card leaves: corner ``keep_corner + 1`` moved
    along the side towards ``keep_corner + 2`` by ``fraction`` of it, so that the side from
    ``keep_corner`` runs diagonally across the card."""
    cut = corners.copy()
    a, b = (keep_corner + 1) % 4, (keep_corner + 2) % 4
    cut[a] = corners[a] + fraction * (corners[b] - corners[a])
    return cut


def _warm_card(table_bgr, shadow_half=False):
    """A warm-lit card on a coloured table (BGR), optionally with its far half in shadow."""
    gray = card_on_table(TRUE, table=0, paper=255)
    paper = np.array([170, 215, 245], np.float32)
    frame = (gray[..., None] / 255.0) * paper + (1 - gray[..., None] / 255.0) * np.float32(table_bgr)
    if shadow_half:
        shade = np.ones(gray.shape, np.float32)
        shade[:, 200:] = 0.55
        frame *= cv2.GaussianBlur(shade, (5, 5), 0)[..., None]
    return np.clip(frame, 0, 255).astype(np.uint8)


def test_a_side_cut_across_the_card_is_squared_up_to_the_card() -> None:
    # A shadow's edge across the card stood in for its side: the side is moved out
    # parallel to its opposite, to the card's true outline.
    frame = _warm_card((90, 60, 40), shadow_half=True)
    for keep in range(4):
        cut = _cut_across(TRUE, keep, 0.45)
        squared = square_up(frame, cut, frame_level(frame))
        assert np.abs(order_corners(cut) - TRUE).max() > 20
        assert _corner_error(squared, TRUE) < 4, keep


def test_a_side_on_a_neighbour_or_the_table_is_left_alone() -> None:
    frame = _warm_card((90, 60, 40))
    assert np.array_equal(square_up(frame, TRUE, frame_level(frame)), TRUE)  # a card found whole
    # A quad whose skewed sides both have the table beyond them: nothing says which is wrong.
    table = np.full_like(frame, (90, 60, 40))
    cut = _cut_across(TRUE, 0, 0.45)
    assert np.array_equal(square_up(table, cut, frame_level(table)), cut)


def _corner_error(quad, truth):
    """The largest corner distance, whichever corner of ``quad`` comes first."""
    return min(float(np.abs(np.roll(quad, k, axis=0) - truth).max()) for k in range(4))


def _cover_beyond(frame, cut, side):
    """Paint a card back (dark blue) over the frame beyond side ``side`` of the quad ``cut``."""
    a, b = cut[side], cut[(side + 1) % 4]
    away = a - cut.mean(axis=0)
    normal = np.array([b[1] - a[1], a[0] - b[0]], np.float32)
    normal *= np.sign(normal @ away) / np.linalg.norm(normal)
    along = (b - a) / np.linalg.norm(b - a)
    cover = np.array([a - 40 * along, b + 40 * along, b + 40 * along + 80 * normal, a - 40 * along + 80 * normal])
    cv2.fillConvexPoly(frame, np.round(cover).astype(np.int32), (110, 40, 30))


def test_a_side_cut_by_something_lying_over_the_card_is_squared_up_to_the_card() -> None:
    # A card back (dark blue) lies across a corner: no paper beyond the cut, and what lies
    # beyond it is unlike the table beyond the card's other sides.
    for keep in range(4):
        frame = _warm_card((90, 60, 40))
        cut = _cut_across(TRUE, keep, 0.45)
        _cover_beyond(frame, cut, keep)
        squared = square_up(frame, cut, frame_level(frame))
        assert _corner_error(squared, TRUE) < 4, keep


def test_a_side_cut_by_something_like_the_table_is_left_alone() -> None:
    # What lies beyond the cut looks like the table: nothing says the card goes on under it.
    frame = _warm_card((90, 60, 40))
    cut = _cut_across(TRUE, 0, 0.45)
    frame_cut = frame.copy()
    cv2.fillConvexPoly(frame_cut, np.round(TRUE).astype(np.int32), (90, 60, 40))
    cv2.fillConvexPoly(frame_cut, np.round(cut).astype(np.int32), (170, 215, 245))
    assert np.array_equal(square_up(frame_cut, cut, frame_level(frame_cut)), cut)


def test_a_quad_cut_across_and_found_short_is_squared_up_once_it_reaches_the_outline() -> None:
    # A card back lies across one corner, and the far short side was found short at a slant
    # (in a shadow, say): both pairs of sides are skewed, so squaring first refuses; once
    # the short side has reached the outline, the cut side squares up to the card.
    from vision.find import _onto_outlines

    frame = _warm_card((90, 60, 40))
    cut = _cut_across(TRUE, 0, 0.45)
    _cover_beyond(frame, cut, 0)
    short = cut.copy()
    short[2] = cut[1] + 0.8 * (cut[2] - cut[1])
    short[3] = cut[0] + 0.92 * (cut[3] - cut[0])
    assert np.array_equal(square_up(frame, short, frame_level(frame)), short)
    assert _corner_error(_onto_outlines(frame, [short])[0], TRUE) < 4


def test_the_skew_told_in_plain_floats_is_the_angle_between_opposite_sides() -> None:
    # square_up measures how far opposite sides are off parallel in plain floats (math.atan2):
    # the same angles as numpy's, to well below any limit it is compared with.
    from vision.quads import _skew_pairs

    rng = np.random.default_rng(7)
    for _ in range(500):
        corners = (np.array([[0, 0], [60, 0], [60, 90], [0, 90]]) + rng.normal(0, 6, (4, 2)) + rng.uniform(0, 1900, 2)).astype(np.float32)
        c = corners.astype(np.float64)
        edges = np.roll(c, -1, axis=0) - c
        heading = np.degrees(np.arctan2(edges[:, 1], edges[:, 0]))
        expected = [abs((heading[k] - heading[k + 2]) % 360 - 180) for k in (0, 1)]
        assert np.allclose(_skew_pairs(corners), expected, rtol=0, atol=1e-9)
