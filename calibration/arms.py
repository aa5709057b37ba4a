"""Arms reaching in over the table's edge: where players sit whose rows no card shows.

A player's hand over their own row may hide all of it, but their arm still reaches in from
their side of the table. An arm is a skin-coloured region, long and about a card's length
wide (a forearm, a hand), unlike the table around it, that runs out to the table's edge; its
line crosses that edge where its player sits. Skin is told by its colour against the cards'
white paper (the light's cast taken out): reddish yellow, pale to dark brown. On a table of
that colour (wood) it is not told at all: pixels like the bare table are never skin.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.areas import ray_exit
from vision.paper import light_cast

__all__ = ["arm_entries", "skin_coloured"]

_WORK_WIDTH = 320  # arms are looked for on a small copy of the frame
_SKIN_A, _SKIN_B, _SKIN_L = (3.0, 26.0), (-6.0, 36.0), 25.0  # Lab, a and b less the light's cast
_ALIKE, _COMMON = 8.0, 0.05  # a pixel is like a region when within _ALIKE (Lab) of _COMMON of its pixels
_BARE = (4.0, 14.0)  # the bare table is sampled this far from the cards (work pixels)
_SAMPLES = 600
# In the cards' long sides: an arm at least this long, this wide, reaching this near the edge.
_LENGTH, _WIDTH, _NEAR_EDGE = 1.5, (0.65, 1.6), 0.8
_ELONGATED = 1.6  # its spread along its axis over the spread across
_SOLID = 0.5  # at least this share of its convex hull (a mug's rim is a ring)
_LIKE_AROUND = 0.3  # at most this share of it like the table just around it (a patch of the table's pattern)


def _like(pixels: NDArray[np.float32], region: NDArray[np.float32]) -> NDArray[np.bool_]:
    """For each pixel (N, 3), whether it is alike to a fair share of the region's pixels (M, 3)."""
    region = region[:: max(1, len(region) // _SAMPLES)].astype(np.float64)
    # Each colour once (a Lab copy of 8-bit pixels has few): a large skin-coloured table is many pixels.
    colours, back = np.unique(pixels, axis=0, return_inverse=True)
    p = colours.astype(np.float64)
    squared = (p * p).sum(axis=1)[:, None] + (region * region).sum(axis=1)[None, :] - 2.0 * (p @ region.T)
    return ((squared < _ALIKE**2).mean(axis=1) >= _COMMON)[back.reshape(-1)]


def _skin(frame_bgr: NDArray[np.uint8], scale: float) -> tuple[NDArray[np.float32], NDArray[np.bool_]]:
    """The small Lab copy (the light's cast taken out of a and b) and its skin-coloured pixels."""
    small = cv2.resize(frame_bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), 1.0), cv2.COLOR_BGR2LAB).astype(np.float32)
    cast_a, cast_b = light_cast(frame_bgr)
    skin = skin_coloured(lab, (cast_a, cast_b))
    lab[..., 1] -= 128.0 + cast_a
    lab[..., 2] -= 128.0 + cast_b
    return lab, skin


def skin_coloured(lab: NDArray[np.float32], cast_ab: tuple[float, float]) -> NDArray[np.bool_]:
    """Whether each Lab pixel (..., 3), 0-255, is skin-coloured under a light of cast ``cast_ab``
    (a and b less neutral grey, as ``vision.paper.light_cast`` gives it)."""
    a, b = lab[..., 1] - 128.0 - cast_ab[0], lab[..., 2] - 128.0 - cast_ab[1]
    return (a >= _SKIN_A[0]) & (a <= _SKIN_A[1]) & (b >= _SKIN_B[0]) & (b <= _SKIN_B[1]) & (lab[..., 0] > _SKIN_L)


def arm_entries(frame_bgr: NDArray[np.uint8], card_corners: Sequence[NDArray], table_xy: NDArray[np.float64] | None
                ) -> NDArray[np.float64]:
    """Where each arm in view reaches in over the table's edge.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    card_corners : sequence of ndarray (4, 2), the cards found, in frame pixels (their size
        sets the scale; an arm lies off them)
    table_xy : the table top (N, 2), or None (then the image's border stands for its edge)

    Returns
    -------
    entries_xy : ndarray (K, 2) float64, one point on the table's edge per arm, in frame pixels
    """
    if len(card_corners) == 0:
        return np.empty((0, 2))
    scale = _WORK_WIDTH / frame_bgr.shape[1]
    lab, skin = _skin(frame_bgr, scale)
    height, width = skin.shape
    quads = [np.asarray(c, np.float64).reshape(4, 2) * scale for c in card_corners]
    long = float(np.mean([max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[1])) for q in quads]))
    cards = np.zeros((height, width), np.uint8)
    cv2.fillPoly(cards, [np.round(q).astype(np.int32) for q in quads], 255)
    outline = table_xy * scale if table_xy is not None else np.array(
        [(0, 0), (width - 1, 0), (width - 1, height - 1), (0, height - 1)], np.float64)
    table = np.zeros((height, width), np.uint8)
    cv2.fillPoly(table, [np.round(outline).astype(np.int32)], 255)
    off_cards = cv2.distanceTransform(255 - cards, cv2.DIST_L2, 3)
    bare = (off_cards > _BARE[0]) & (off_cards <= _BARE[1]) & (table > 0)
    if bare.sum() >= 20:
        rows, cols = np.nonzero(skin)
        alike = _like(lab[rows, cols], lab[bare])
        skin[rows[alike], cols[alike]] = False
    skin &= off_cards > 1
    skin = cv2.morphologyEx(skin.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(skin)
    # How far in from the table's edge (or the image's border, where the view ends).
    inner = table.copy()
    inner[[0, -1], :] = inner[:, [0, -1]] = 0
    depth = cv2.distanceTransform(inner, cv2.DIST_L2, 3)
    entries = []
    for k in range(1, count):
        if stats[k, cv2.CC_STAT_AREA] < _LENGTH * _WIDTH[0] * long**2:
            continue
        ys, xs = np.nonzero(labels == k)
        points = np.stack([xs, ys], axis=1).astype(np.float64)
        middle = points.mean(axis=0)
        _, spread, axes = np.linalg.svd(points - middle, full_matrices=False)
        along = (points - middle) @ axes[0]
        length = float(along.max() - along.min())
        hull = cv2.contourArea(cv2.convexHull(points.astype(np.int32)))
        if (spread[0] < _ELONGATED * spread[1] or length < _LENGTH * long or len(xs) < _SOLID * hull
                or not _WIDTH[0] <= len(xs) / max(length, 1.0) / long <= _WIDTH[1] or depth[ys, xs].min() > _NEAR_EDGE * long):
            continue
        blob = (labels == k).astype(np.uint8)
        around = ((cv2.dilate(blob, np.ones((11, 11), np.uint8)) > 0) & (cv2.dilate(blob, np.ones((5, 5), np.uint8)) == 0)
                  & (table > 0) & (cards == 0))
        if around.sum() >= 20 and _like(lab[ys, xs][:: max(1, len(xs) // _SAMPLES)], lab[around]).mean() > _LIKE_AROUND:
            continue
        # Out along its axis, towards the end that lies nearer the table's edge.
        ends = depth[ys, xs]
        ahead, behind = ends[along >= np.percentile(along, 90)].mean(), ends[along <= np.percentile(along, 10)].mean()
        outwards = axes[0] if ahead <= behind else -axes[0]
        reach = ray_exit(middle, outwards, outline)
        if np.isfinite(reach):
            entries.append((middle + outwards * reach) / scale)
    return np.array(entries, np.float64).reshape(-1, 2)
