"""Cards found lying partly over one another: which lies beneath, its printed area covered.

A card laid over the corner of another hides part of it, and the part in view may show the
top card's symbols where the card beneath has its own: the card beneath is found whole
(its hidden corner completed) and reads the top card's symbols as its own, surely. Which of
two overlapping cards lies on top is told by their outlines: the top card's outline runs
across the card beneath as a step in colour (its edge, its shadow), the outline of the card
beneath runs under the top card's paper and shows none.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.quads import at_card_uv, sides_outwards
from vision.read import PRINT_MARGIN
from vision.regions import points_inside

__all__ = ["lying_beneath"]

# A card lies on top when the step across its outline over the other card is at least this
# many times the other's across its outline over it. On two fresh dev sets (dev medium 300-449,
# dev hard 600-799) the cards the truth puts on top showed 2.1 to 62 times the step of the card
# beneath (10 pairs); two pairs of cards barely overlapping showed 1.1 and 1.4: either may lie on top.
_ON_TOP = 1.5
# The step is the colour difference (BGR, a 3x3 mean) this share of the short side either side
# of the outline (at least _STEP_PX), its median along the outline inside the other card.
_STEP_SHARE, _STEP_PX = 0.03, 2.0
_SHRINK = 0.97  # (the other card's outline itself is left out: its own step)
_FEWEST = 5  # points along an outline inside the other card to judge it by


def lying_beneath(frame_bgr: NDArray[np.uint8], cards_xy: Sequence[NDArray]) -> NDArray[np.bool_]:
    """Whether each card found lies partly beneath another card found, that card over its
    printed area (``vision.read.PRINT_MARGIN`` in from its edges: over the margin alone it hides
    no symbol), or may (neither outline shows plainly on top).

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    cards_xy : sequence of ndarray (4, 2), the cards' corners in frame pixels, in order round the card

    Returns
    -------
    beneath : ndarray (N,) bool
    """
    quads = [np.asarray(c, np.float32).reshape(4, 2) for c in cards_xy]
    beneath = np.zeros(len(quads), bool)
    if len(quads) < 2:
        return beneath
    corners = np.array(quads)
    centres = corners.mean(axis=1)
    reach = np.linalg.norm(corners[:, 0] - corners[:, 2], axis=1)  # (a diagonal: cards farther apart cannot overlap)
    apart = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    printed = _printed_areas(corners)
    for a, b in zip(*np.nonzero(np.triu(apart < np.maximum(reach[:, None], reach[None]), 1))):
        over_a = cv2.intersectConvexConvex(printed[a], quads[b])[0] > 0  # b over a's printed area
        over_b = cv2.intersectConvexConvex(printed[b], quads[a])[0] > 0
        if over_a or over_b:
            step_a = _step_inside(frame_bgr, quads[a], quads[b])
            step_b = _step_inside(frame_bgr, quads[b], quads[a])
            beneath[a] |= over_a and not step_a >= _ON_TOP * step_b
            beneath[b] |= over_b and not step_b >= _ON_TOP * step_a
    return beneath


def _printed_areas(quads: NDArray[np.float32]) -> NDArray[np.float32]:
    """The part of each card (N, 4, 2) its symbols are printed in: ``PRINT_MARGIN`` short sides
    in from every edge (N, 4, 2)."""
    sides = np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=2).astype(np.float64)
    first, second = (sides[:, 0] + sides[:, 2]) / 2, (sides[:, 1] + sides[:, 3]) / 2
    short = np.minimum(first, second)
    u = (PRINT_MARGIN * short / np.maximum(first, 1e-9))[:, None]  # along the first and third sides
    v = (PRINT_MARGIN * short / np.maximum(second, 1e-9))[:, None]
    uv = np.stack([np.hstack([u, v]), np.hstack([1 - u, v]), np.hstack([1 - u, 1 - v]), np.hstack([u, 1 - v])], axis=1)
    return at_card_uv(quads, uv).astype(np.float32)


def _step_inside(frame_bgr: NDArray[np.uint8], quad: NDArray[np.float32], other: NDArray[np.float32]) -> float:
    """The median colour step across ``quad``'s outline where it runs inside ``other`` (0 where it hardly does)."""
    middle = other.mean(axis=0)
    shrunk = (other - middle) * _SHRINK + middle
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    away = max(_STEP_PX, _STEP_SHARE * float(min(sides)))
    starts, ends, _, outward = (a[0].astype(np.float64) for a in sides_outwards(quad[None]))
    points, normals = [], []
    for start, end, normal, length in zip(starts, ends, outward, sides):
        count = max(1, int(length))
        along = start + (end - start) * ((np.arange(count) + 0.5) / count)[:, None]
        kept = along[points_inside(shrunk[None], along)[0]]
        points.append(kept)
        normals.append(np.repeat(normal[None], len(kept), axis=0))
    points_xy, normals_xy = np.concatenate(points), np.concatenate(normals)
    if len(points_xy) < _FEWEST:
        return 0.0
    return float(np.median(np.linalg.norm(_mean_at(frame_bgr, points_xy + away * normals_xy)
                                          - _mean_at(frame_bgr, points_xy - away * normals_xy), axis=1)))


def _mean_at(frame_bgr: NDArray[np.uint8], points_xy: NDArray[np.float64]) -> NDArray[np.float64]:
    """The frame's mean colour over the 3x3 pixels about each point (P, 2): (P, 3), clipped to the frame."""
    height, width = frame_bgr.shape[:2]
    x = np.clip(np.round(points_xy[:, 0]).astype(np.intp), 1, width - 2)
    y = np.clip(np.round(points_xy[:, 1]).astype(np.intp), 1, height - 2)
    total = np.zeros((len(x), 3))
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            total += frame_bgr[y + dy, x + dx]
    return total / 9.0
