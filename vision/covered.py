"""The shape of a symbol a cover hides in part, read from the piece left in view.

A piece of a symbol joined to something over the card (a hand, a sleeve, a mug, another
card) is cut along the cover's edge, and the shape features measure the cut as much as the
symbol. Each shape is laid over the piece instead, at about the size the card's other
symbols are printed (their circumradius) and at every rotation and place: the shape whose
whole outline best explains the piece covers its ink and lies, beyond it, under the cover
rather than on paper.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.cards import Shape
from vision.shapes import SHAPE_ORDER

__all__ = ["VIEW_INK", "VIEW_COVER", "VIEW_PAPER", "explained_shares", "CIRCUMRADIUS_PER_EXTENT"]

# What a view of a piece holds at each pixel: the piece's ink, the cover (or what is not
# known: the piece's blurred rim, beyond the card), paper (or another symbol's ink).
VIEW_INK, VIEW_COVER, VIEW_PAPER = 1, 0, -1
# A shape's circumradius per its extent (long side of its minimum-area rectangle) as the
# marks are measured: 2R across a circle, a square's side is sqrt(2) R, a triangle's sqrt(3) R,
# a star spans 2R sin 72 tip to tip, a bar about its diagonal.
CIRCUMRADIUS_PER_EXTENT = {Shape.CIRCLE: 0.5, Shape.SQUARE: 1 / math.sqrt(2), Shape.TRIANGLE: 1 / math.sqrt(3),
                           Shape.STAR: 1 / (2 * math.sin(math.radians(72))), Shape.BAR: 0.51}
# The symbols of a card differ in size (each fills its cell by 72-95%): the shapes are laid
# at these shares of the others' circumradius, every _STEP_DEG degrees (a vertex then lies
# within a pixel of its place at the working size), a bar at these elongations (2.5-5 printed).
_SCALES = (0.9, 1.1)
_STEP_DEG = 20
_BAR_ELONGATIONS = (3.5,)
_PERIOD_DEG = {Shape.CIRCLE: _STEP_DEG, Shape.TRIANGLE: 120, Shape.SQUARE: 90, Shape.STAR: 72, Shape.BAR: 180}
_STAR_INNER = 0.382
_RADIUS_STEP = 0.25
_SUBPIXEL_BITS = 3


@lru_cache(maxsize=4096)
def _template(shape: Shape, radius: float, angle_deg: float, elongation: float) -> NDArray[np.float32]:
    """A shape of circumradius ``radius`` (pixels) turned ``angle_deg``, as a mask (1 inside;
    cached: radii are rounded to _RADIUS_STEP, so cards of one size share them)."""
    side = 2 * math.ceil(radius) + 3
    mask = np.zeros((side, side), np.uint8)
    centre = (side - 1) / 2.0
    if shape is Shape.CIRCLE:
        points = [(radius * math.cos(a), radius * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 32, endpoint=False)]
    elif shape is Shape.SQUARE:
        points = [(radius * math.cos(math.radians(45 + 90 * k)), radius * math.sin(math.radians(45 + 90 * k)))
                  for k in range(4)]
    elif shape is Shape.TRIANGLE:
        points = [(radius * math.sin(math.radians(120 * k)), -radius * math.cos(math.radians(120 * k))) for k in range(3)]
    elif shape is Shape.STAR:
        points = [((radius if k % 2 == 0 else _STAR_INNER * radius) * math.sin(math.radians(36 * k)),
                   -(radius if k % 2 == 0 else _STAR_INNER * radius) * math.cos(math.radians(36 * k))) for k in range(10)]
    else:
        half_angle = math.atan(1.0 / elongation)
        half_long, half_short = radius * math.cos(half_angle), radius * math.sin(half_angle)
        points = [(-half_long, -half_short), (half_long, -half_short), (half_long, half_short), (-half_long, half_short)]
    turn = math.radians(angle_deg)
    cos_t, sin_t = math.cos(turn), math.sin(turn)
    placed = np.array([(centre + x * cos_t - y * sin_t, centre + x * sin_t + y * cos_t) for x, y in points])
    cv2.fillPoly(mask, [np.round(placed * (1 << _SUBPIXEL_BITS)).astype(np.int32)], 1, cv2.LINE_8, _SUBPIXEL_BITS)
    return mask.astype(np.float32)


def explained_shares(view: NDArray[np.int8], radius: float) -> NDArray[np.float64]:
    """How well each shape explains a piece of a symbol partly under a cover.

    Parameters
    ----------
    view : ndarray (H, W) int8, around the piece: ``VIEW_INK`` on its ink, ``VIEW_COVER``
        under the cover (and where unknown), ``VIEW_PAPER`` on paper
    radius : float, the circumradius (pixels) the card's symbols are printed at

    Returns
    -------
    shares : ndarray (5,) float, one per ``SHAPE_ORDER``: over every place, rotation and
        size tried, the most of (ink inside - paper inside) / ink; 1 when the shape
        covers all the ink and nothing of the paper.
    """
    ink = int(np.count_nonzero(view == VIEW_INK))
    shares = np.full(len(SHAPE_ORDER), -np.inf)
    if ink == 0 or radius <= 1.0:
        return shares
    rows, cols = np.nonzero(view == VIEW_INK)
    reach = math.ceil(radius * max(_SCALES)) * 2 + 2
    y0, y1 = max(0, int(rows.min()) - reach), min(view.shape[0], int(rows.max()) + reach + 1)
    x0, x1 = max(0, int(cols.min()) - reach), min(view.shape[1], int(cols.max()) + reach + 1)
    weights = view[y0:y1, x0:x1].astype(np.float32)
    pad = reach
    # (beyond the view nothing is known)
    weights = cv2.copyMakeBorder(weights, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=float(VIEW_COVER))
    for k, shape in enumerate(SHAPE_ORDER):
        elongations = _BAR_ELONGATIONS if shape is Shape.BAR else (1.0,)
        poses = [(round(radius * scale / _RADIUS_STEP) * _RADIUS_STEP, angle, elongation) for scale in _SCALES
                 for angle in range(0, _PERIOD_DEG[shape], _STEP_DEG) for elongation in elongations]
        for size, angle, elongation in poses:
            best = cv2.minMaxLoc(cv2.matchTemplate(weights, _template(shape, size, angle, elongation), cv2.TM_CCORR))[1]
            shares[k] = max(shares[k], best / ink)
            if shares[k] >= 1.0:
                break  # (nothing explains it better)
    return shares
