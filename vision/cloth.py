"""Cards found on a dotted cloth that may be a patch of the cloth itself.

A stretch of a pale cloth printed with dots, cut out by the table's edge, a shadow and the
cards beside it, can look like a card with a circle or two on it: white-balanced from its
own colour, the cloth reads as paper and its dots as round solid marks of a print colour.
A card's symbols are printed on the card alone; a cloth's dots go on beyond the patch, of
the same colour and size, all round it. So a card read as circles of one colour, with more
marks like them on the table around it, may be the cloth, and is read with doubt.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.quads import sides

__all__ = ["like_cloth_dots"]

# The table around a card: out to this many times its size about its centre, from just beyond
# its outline and beyond every other card found (both grown _CLEAR times about their centres).
_AROUND, _CLEAR = 3.0, 1.03
# A mark like a circle: of its colour (within this distance in OpenCV's 8-bit Lab; the circle's
# colour is the median over a square _COLOUR_SHARE short sides wide about its centre), this many
# times its area, and round (filling _ROUND of its enclosing circle).
_LIKE_LAB, _COLOUR_SHARE = 18.0, 0.06
_AREAS = (0.4, 2.5)
_ROUND = 0.6
# This many such marks around a card's circle are a cloth's dots going on. On dev renders
# (hard and medium 4000-4199, measured at full size) 7 of 3,150 circles on true cards had two
# or more; the patches of dotted cloth read surely as cards had 3 to 19 (out to twice a card's
# size about it, one had one: a hand and the floor took the rest). The renders' deck has no card
# of circles of one colour alone, the only cards looked at: such a card on a cloth dotted in
# its colour and size would be doubted too.
_DOTS = 2
# Looked at with the card's short side at most this many pixels (a circle some 15 across).
_WORK_SHORT_PX = 60.0


def like_cloth_dots(frame_bgr: NDArray[np.uint8], cards_xy: Sequence[NDArray], circles_xy: Sequence[NDArray]) -> NDArray[np.bool_]:
    """Whether marks like a card's circles lie on the table around it, ``_DOTS`` of them or more.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    cards_xy : sequence of ndarray (4, 2), every card found, its corners in frame pixels in order round it
    circles_xy : sequence of ndarray (K, 2), the centres of each card's circles to look at (K may be 0)

    Returns
    -------
    like : ndarray (N,) bool
    """
    quads = [np.asarray(c, np.float32).reshape(4, 2) for c in cards_xy]
    like = np.zeros(len(quads), bool)
    for k, (quad, circles) in enumerate(zip(quads, circles_xy)):
        circles = np.asarray(circles, np.float32).reshape(-1, 2)
        if len(circles):
            like[k] = _dots_around(frame_bgr, quad, circles, quads)
    return like


def _dots_around(frame_bgr: NDArray[np.uint8], quad: NDArray[np.float32], circles: NDArray[np.float32],
                 cards: list[NDArray[np.float32]]) -> bool:
    """Whether ``_DOTS`` marks or more like one of the circles lie around the card ``quad`` (one
    of ``cards``, every card found)."""
    h, w = frame_bgr.shape[:2]
    centre = quad.mean(axis=0)
    around = centre + _AROUND * (quad - centre)
    x0, y0 = np.maximum(np.floor(around.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(around.max(axis=0)).astype(int) + 1, (w, h))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return False
    short = min(sides(quad))
    scale = min(1.0, _WORK_SHORT_PX / max(short, 1.0))
    patch = frame_bgr[y0:y1, x0:x1]
    if scale < 1.0:
        patch = cv2.resize(patch, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(patch, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)

    def local(points: NDArray[np.float32]) -> NDArray[np.int32]:
        return np.round((points - (x0, y0)) * scale).astype(np.int32)

    inside = np.zeros(lab.shape[:2], np.uint8)
    cv2.fillConvexPoly(inside, local(quad), 1)
    table = np.zeros_like(inside)
    cv2.fillConvexPoly(table, local(around), 1)
    for card in cards:
        middle = card.mean(axis=0)
        cv2.fillConvexPoly(table, local(middle + _CLEAR * (card - middle)), 0)
    half = max(1, round(_COLOUR_SHARE / 2 * short * scale))
    for x, y in local(circles):
        if not (0 <= x < lab.shape[1] and 0 <= y < lab.shape[0]):
            continue
        colour = np.median(lab[max(0, y - half):y + half + 1, max(0, x - half):x + half + 1].reshape(-1, 3), axis=0)
        alike = (np.linalg.norm(lab - colour, axis=2) < _LIKE_LAB).astype(np.uint8)
        _, labels, stats, _ = cv2.connectedComponentsWithStats(alike & inside, connectivity=8)
        if labels[y, x] == 0:
            continue
        area = float(stats[labels[y, x], cv2.CC_STAT_AREA])
        marks, _ = cv2.findContours(alike & table, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        dots = 0
        for mark in marks:
            mark_area = cv2.contourArea(mark)
            if _AREAS[0] * area < mark_area < _AREAS[1] * area:
                _, radius = cv2.minEnclosingCircle(mark)
                dots += mark_area >= _ROUND * np.pi * radius * radius
        if dots >= _DOTS:
            return True
    return False
