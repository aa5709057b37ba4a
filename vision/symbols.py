"""Find the symbols on a balanced card: ink segmentation, clean-up and one blob per symbol.

Ink is segmented with hysteresis on the ink-strength map, with thresholds set by the
card's own paper noise; each blob is then re-cut at half of its own ink strength (so a
pale yellow and a deep black symbol get the same outline), upsampled when small, and
measured. What can never be a symbol is dropped here: table pixels and rounded corners at
the edge, a printed border line, a shadow edge, noise specks and glare.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.shapes import ShapeFeatures, measure_shape
from vision.whitebalance import BalancedCard

__all__ = ["Blob", "Segmentation", "find_blobs"]

# Sizes as fractions of the card's short side (the spec: symbols span 15% to 70%).
_MIN_EXTENT, _DOUBT_EXTENT = 0.085, 0.125
_MAX_EXTENT, _DOUBT_MAX_EXTENT = 0.82, 0.74
_EDGE_MARGIN = 0.04
# Silhouettes are measured with at least this many pixels across.
_MEASURE_PX = 40.0


@dataclass(frozen=True)
class Blob:
    """One symbol candidate.

    Attributes
    ----------
    center_xy : (x, y) centroid in working pixels.
    features : its shape measurements.
    mean_bgr : ndarray (3,) float32, mean balanced colour of its core.
    extent : longest side relative to the card's short side.
    doubt : reasons to doubt that this is exactly one symbol, empty when none.
    """

    center_xy: tuple[float, float]
    features: ShapeFeatures
    mean_bgr: NDArray[np.float32]
    extent: float
    doubt: tuple[str, ...] = ()


@dataclass(frozen=True)
class Segmentation:
    """All blobs of a card plus what was seen and dropped."""

    blobs: tuple[Blob, ...]
    ink_fraction: float
    dropped: tuple[str, ...] = field(default=())
    doubt: tuple[str, ...] = field(default=())


def _thresholds(noise: float) -> tuple[float, float]:
    low = max(0.16, 4.0 * noise)
    return low, max(0.32, 2.0 * low)


def _touches_edge(x: int, y: int, w: int, h: int, width: int, height: int, band: int) -> bool:
    return x <= band or y <= band or x + w >= width - band or y + h >= height - band


def find_blobs(card: BalancedCard) -> Segmentation:
    """Segment the symbols of a balanced card.

    Parameters
    ----------
    card : BalancedCard
        From :func:`vision.whitebalance.balance_card` at working size.

    Returns
    -------
    Segmentation
    """
    ink = card.ink
    height, width = ink.shape
    short = min(height, width)
    low_t, high_t = _thresholds(card.noise)
    low = (ink > low_t).astype(np.uint8)
    band = max(2, round(_EDGE_MARGIN * short))
    low[:band] = 0
    low[-band:] = 0
    low[:, :band] = 0
    low[:, -band:] = 0
    count, labels, stats, _ = cv2.connectedComponentsWithStats(low, connectivity=8)
    if count <= 1:
        return Segmentation((), 0.0)
    strong = np.bincount(labels[ink > high_t], minlength=count) > 0
    ink_fraction = float(stats[1:, cv2.CC_STAT_AREA].sum()) / (height * width)

    blobs: list[Blob] = []
    dropped: list[str] = []
    doubt: list[str] = []
    for k in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[k])
        if not strong[k]:
            if max(w, h) >= _DOUBT_EXTENT * short and area > 0.4 * w * h and ink[labels == k].max() > 0.8 * high_t:
                doubt.append("faint blob near the ink threshold")
            continue
        if max(w, h) < _MIN_EXTENT * short * 0.8:
            continue
        thin = min(w, h) < 0.06 * short
        if _touches_edge(x, y, w, h, width, height, band) and (thin or max(w, h) > 0.5 * short):
            dropped.append("edge")
            continue
        blobs.extend(_measure_component(card, labels, k, (x, y, w, h), short, low_t, dropped, doubt))
    return Segmentation(tuple(blobs), ink_fraction, tuple(dropped), tuple(doubt))


def _measure_component(card: BalancedCard, labels: NDArray[np.int32], k: int,
                       box: tuple[int, int, int, int], short: int, low_t: float,
                       dropped: list[str], doubt: list[str]) -> list[Blob]:
    ink = card.ink
    height, width = ink.shape
    x, y, w, h = box
    pad = 2
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(width, x + w + pad), min(height, y + h + pad)
    own = labels[y0:y1, x0:x1] == k
    ink_roi = ink[y0:y1, x0:x1]
    values = ink_roi[own]
    level = float(np.partition(values, int(0.9 * (len(values) - 1)))[int(0.9 * (len(values) - 1))])
    cut = max(0.5 * level, low_t)
    near = cv2.dilate(own.astype(np.uint8), None) > 0
    soft = np.where(near, ink_roi, 0.0).astype(np.float32)

    scale = max(1.0, _MEASURE_PX / max(w, h))
    scale = min(scale, 6.0)
    if scale > 1.0:
        soft_big = cv2.resize(soft, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
    else:
        soft_big = soft
    binary = (soft_big > cut).astype(np.uint8)
    contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return []
    areas = [cv2.contourArea(c) for c in contours]
    total = sum(areas)
    parts = [c for c, a in zip(contours, areas) if a >= 0.12 * total and a > 4.0 * scale * scale]
    blobs: list[Blob] = []
    core_mask = own & (ink_roi > max(0.7 * level, low_t))
    bal_roi = card.balanced_bgr[y0:y1, x0:x1]
    for part in parts:
        features = measure_shape(part)
        if features is None:
            continue
        extent = features.long_side / scale / short
        if extent < _MIN_EXTENT:
            continue
        if extent > _MAX_EXTENT:
            dropped.append("too long for a symbol")
            continue
        if features.short_side / scale < 0.022 * short:
            dropped.append("thin line")
            continue
        reasons: list[str] = []
        if extent < _DOUBT_EXTENT:
            reasons.append("small blob near the size limit")
        if extent > _DOUBT_MAX_EXTENT:
            reasons.append("large blob near the size limit")
        if len(parts) > 1:
            reasons.append("blob split at its own ink level")
        moments = cv2.moments(part)
        if moments["m00"] <= 0:
            continue
        cx = x0 + (moments["m10"] / moments["m00"] + 0.5) / scale - 0.5
        cy = y0 + (moments["m01"] / moments["m00"] + 0.5) / scale - 0.5
        if len(parts) > 1:
            part_mask = np.zeros(binary.shape, np.uint8)
            cv2.drawContours(part_mask, [part], -1, 1, -1)
            if scale > 1.0:
                part_mask = cv2.resize(part_mask, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST)
            mask = core_mask & (part_mask > 0)
        else:
            mask = core_mask
        if not mask.any():
            mask = own
        mean_bgr = bal_roi[mask].mean(axis=0).astype(np.float32)
        blobs.append(Blob((float(cx), float(cy)), features, mean_bgr, float(extent), tuple(reasons)))
    return blobs
