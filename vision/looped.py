"""Cards found by the loop their outline closes, anywhere in the frame.

A card half in an arm's shadow, or lying in a deep one, stands out at no level of the
whiteness whole: its lit part is a piece, its shaded part as dull as the table. Its outline
still steps all round it in lightness. The steps of the whole frame are traced; a loop they
close of a card's size and shape there, over no card found and lighter than what lies
around it, is read, and kept where it is read as a face.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.card_sizes import sizes_in_view
from vision.quads import CardQuad, order_corners, sides, snap_all_corners
from vision.regions import points_inside
from vision.second_look import enclosed_loops, stands_out

if TYPE_CHECKING:  # (the pipeline reads the cards this module finds)
    from vision.pipeline import DetectedCard

__all__ = ["looped_cards"]

_EDGES = (20, 60)  # Canny's thresholds on the working copy's lightness (blurred 3x3)
_SMALLEST = 0.25  # loops smaller than this share of the cards' median area are not looked at (far cards show smaller)
_AREAS = (0.8, 1.4)  # a loop's area over the area a card shows there
_ASPECT = (1.15, 1.9)  # its long side over its short side
# Its middle is lighter than the ring around it (``stands_out``) by this much at least (Lab L,
# 0-255). On dev renders (1,000 photos, hard and medium) the cards so found stood out by 18 to
# 140 (a card in a deep shadow 23), or by 0.5 and 7 where they lay over other cards; the loops
# read as faces that were none (a mug's shadow on a dotted cloth, a checked cloth, the table
# between cards, coffee) by -47 to 3.
_STANDS = 10.0


def looped_cards(frame_bgr: NDArray[np.uint8], small_bgr: NDArray[np.uint8], faces: Sequence[CardQuad],
                 seen_xy: Sequence[NDArray], read: Callable[[CardQuad], DetectedCard | None],
                 within: tuple[int, int, int, int] | None = None) -> list[DetectedCard]:
    """The cards whose outline's steps close a loop over no quad found, read as faces.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8, the frame
    small_bgr : ndarray (h, w, 3) uint8, its working copy (``vision.find.working_copy``)
    faces : the faces found, frame pixels: they tell the size a card shows where
    seen_xy : (4, 2) each, every quad found (faces, backs, point cards), frame pixels
    read : reads a quad of the frame: a ``DetectedCard``, or None where it is no face
    within : (x0, y0, x1, y1) the box to look in, frame pixels (a calibration's table top); None: the whole frame

    Returns
    -------
    cards : the cards read, in the order of their loops
    """
    if len(faces) < 2:
        return []
    scale = small_bgr.shape[1] / frame_bgr.shape[1]
    height, width = small_bgr.shape[:2]
    x0, y0, x1, y1 = (0, 0, width, height) if within is None else (
        max(0, int(within[0] * scale)), max(0, int(within[1] * scale)), min(width, int(np.ceil(within[2] * scale))),
        min(height, int(np.ceil(within[3] * scale))))
    if x1 - x0 < 3 or y1 - y0 < 3:
        return []
    origin = np.array([x0, y0], np.float32)
    lightness = cv2.extractChannel(cv2.cvtColor(small_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2LAB), 0)
    stepped = cv2.dilate(cv2.Canny(cv2.GaussianBlur(lightness, (3, 3), 0), *_EDGES), np.ones((3, 3), np.uint8))
    taken = np.array([np.asarray(q, np.float32) for q in seen_xy], np.float32).reshape(-1, 4, 2)
    # (the quads found close no loop: they are steps all over)
    cv2.fillPoly(stepped, list(np.round(taken * scale - origin).astype(np.int32)), 255)
    short, long = np.median([q.size_wh for q in faces], axis=0)
    loops = np.array(enclosed_loops(stepped, (0, 0, x1 - x0, y1 - y0), _SMALLEST * short * long * scale * scale),
                     np.float32).reshape(-1, 4, 2)
    loops = (loops + origin) / scale
    if not len(loops):
        return []
    centres = loops.mean(axis=1)
    apart = ~points_inside(taken, centres).any(axis=0) & ~points_inside(loops, taken.mean(axis=1)).any(axis=1)
    sizes = np.array([sides(quad) for quad in loops], np.float64)
    views = sizes_in_view(list(faces), centres.astype(np.float64))
    area = sizes.prod(axis=1) / views.prod(axis=1)
    aspect = sizes[:, 1] / sizes[:, 0]
    shaped = (_AREAS[0] < area) & (area < _AREAS[1]) & (_ASPECT[0] < aspect) & (aspect < _ASPECT[1])
    light = lightness.astype(np.float32)
    cards = []
    for quad in loops[apart & shaped]:
        if len(cards) and points_inside(np.array([c.corners_xy for c in cards], np.float32), quad.mean(axis=0)[None]).any():
            continue  # (the loop as found and thickened: one card)
        if stands_out(light, quad * scale - origin) < _STANDS:
            continue
        # (the loop lies a pixel or two off the outline, in working pixels: snapped onto it in the frame's)
        card = read(CardQuad(_snapped(frame_bgr, order_corners(quad), 1.0 / scale + 2.0), 1.0))
        if card is not None and card.reading.criteria is not None:
            cards.append(card)
    return cards


def _snapped(frame_bgr: NDArray[np.uint8], quad: NDArray[np.float32], search_px: float) -> NDArray[np.float32]:
    """A quad (4, 2) snapped onto its outline (``snap_all_corners``), looked at in its box alone."""
    height, width = frame_bgr.shape[:2]
    x0, y0 = np.maximum(np.floor(quad.min(axis=0) - search_px - 2), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(quad.max(axis=0) + search_px + 3), (width, height)).astype(int)
    gray = cv2.cvtColor(frame_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    offset = np.array([x0, y0], np.float32)
    return snap_all_corners(gray, [quad - offset], search_px)[0] + offset
