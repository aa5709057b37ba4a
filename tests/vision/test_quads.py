"""Card quadrilaterals: snapping rough corners onto the outline, reaching out past a shadow."""

import cv2
import numpy as np

from vision.outline import reach_outlines
from vision.quads import order_corners, snap_corners


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
