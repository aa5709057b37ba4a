"""White balance a card from its own paper and measure ink against the local paper.

A card's paper is the one thing on it whose colour we know (white to off-white), so it is
the reference: its colour sets the white balance, and its brightness field (light falling
off, a soft shadow, a glare spot) is estimated on a coarse grid and divided out. What is
left is a card whose paper is 1.0 in every channel wherever it lies; ink is whatever is
darker than that in some channel.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["BalancedCard", "balance_card", "estimate_paper_bgr"]

# Coarse grid cell, in working pixels; the paper field is smooth at this scale.
_CELL_PX = 10
# A pixel is paper-like when its channels agree (neutral) within this spread.
_NEUTRAL_SPREAD = 0.22


@dataclass(frozen=True)
class BalancedCard:
    """A card divided by its own paper field.

    Attributes
    ----------
    balanced_bgr : ndarray (H, W, 3) float32
        The card with the local paper colour mapped to 1.0 in every channel.
    ink : ndarray (H, W) float32
        Ink strength: 1 - min over channels of ``balanced_bgr``; ~0 on paper, 0.4-1 on ink,
        negative under glare.
    paper_bgr : ndarray (3,) float32
        The card's typical paper colour in the input (median of the field), 0-255.
    paper_mask : ndarray (H, W) bool
        The pixels used as paper for the field.
    noise : float
        Standard deviation of ``ink`` over the paper pixels.
    """

    balanced_bgr: NDArray[np.float32]
    ink: NDArray[np.float32]
    paper_bgr: NDArray[np.float32]
    paper_mask: NDArray[np.bool_]
    noise: float


def estimate_paper_bgr(card_bgr: NDArray[np.uint8], margin: int = 0) -> NDArray[np.float32]:
    """A robust estimate of a card's paper colour.

    The paper covers most of a face and is its brightest large region, so take the pixels
    whose grey level lies between the 55th and 97th percentile (above the ink, below glare
    and specular highlights) and average their colour.

    Parameters
    ----------
    card_bgr : ndarray (H, W, 3) uint8
    margin : int
        Pixels to ignore at each edge (table showing past an imperfect quad).

    Returns
    -------
    ndarray (3,) float32
        B, G, R of the paper, 0-255.
    """
    inner = card_bgr[margin : card_bgr.shape[0] - margin, margin : card_bgr.shape[1] - margin]
    gray = cv2.cvtColor(inner, cv2.COLOR_BGR2GRAY)
    hist = cv2.calcHist([gray], [0], None, [256], [0, 256]).ravel()
    cum = np.cumsum(hist) / max(hist.sum(), 1.0)
    lo = int(np.searchsorted(cum, 0.55))
    hi = int(np.searchsorted(cum, 0.97))
    mask = cv2.inRange(gray, lo, max(hi, lo))
    mean = cv2.mean(inner, mask=mask)
    return np.array(mean[:3], dtype=np.float32)


def _field_from_weights(card_f: NDArray[np.float32], weight: NDArray[np.float32],
                        fallback: NDArray[np.float32]) -> NDArray[np.float32]:
    """Normalised convolution on a coarse grid: the weighted mean colour of each cell,
    holes filled from the neighbours, upsampled smoothly to the card's size."""
    h, w = weight.shape
    gw, gh = max(2, round(w / _CELL_PX)), max(2, round(h / _CELL_PX))
    stack = np.concatenate([card_f * weight[..., None], weight[..., None]], axis=2)
    grid = cv2.resize(stack, (gw, gh), interpolation=cv2.INTER_AREA)
    near = cv2.GaussianBlur(grid, (3, 3), 0.8, borderType=cv2.BORDER_REPLICATE)
    far = cv2.GaussianBlur(grid, (0, 0), 2.5, borderType=cv2.BORDER_REPLICATE)
    wn, wf = near[..., 3:4], far[..., 3:4]
    field = np.where(wn > 0.15, near[..., :3] / np.maximum(wn, 1e-6),
                     np.where(wf > 0.02, far[..., :3] / np.maximum(wf, 1e-6), fallback))
    field = np.maximum(field.astype(np.float32), 1.0)
    return cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)


def balance_card(card_bgr: NDArray[np.uint8]) -> BalancedCard:
    """White-balance a card from its own paper and divide out the light field.

    Parameters
    ----------
    card_bgr : ndarray (H, W, 3) uint8
        A rectified card at working size.

    Returns
    -------
    BalancedCard
    """
    h, w = card_bgr.shape[:2]
    margin = max(1, round(0.05 * min(h, w)))
    paper0 = estimate_paper_bgr(card_bgr, margin)
    card_f = card_bgr.astype(np.float32)

    # Pass 1: neutral (relative to the paper) and not very dark: paper, also in a shadow.
    rel = card_f * (1.0 / np.maximum(paper0, 1.0))
    lo = rel.min(axis=2)
    hi = rel.max(axis=2)
    mid = rel.mean(axis=2)
    neutral = (hi - lo) < _NEUTRAL_SPREAD * np.maximum(mid, 0.05)
    weight = (neutral & (mid > 0.3)).astype(np.float32)
    field = _field_from_weights(card_f, weight, paper0)

    # Pass 2: paper is what is neutral and close to the local field (drops dark ink in shadows).
    balanced = card_f / field
    bmin = balanced.min(axis=2)
    bmax = balanced.max(axis=2)
    paper_mask = ((bmax - bmin) < _NEUTRAL_SPREAD * 0.7) & (bmin > 0.82)
    field = _field_from_weights(card_f, paper_mask.astype(np.float32), paper0)
    balanced = card_f / field
    ink = 1.0 - balanced.min(axis=2)

    paper_u8 = paper_mask.astype(np.uint8)
    if paper_u8.any():
        _, std = cv2.meanStdDev(ink, mask=paper_u8)
        noise = float(std[0, 0])
    else:
        noise = 1.0
    paper_bgr = np.median(field.reshape(-1, 3)[:: 7], axis=0).astype(np.float32)
    return BalancedCard(balanced.astype(np.float32), ink.astype(np.float32), paper_bgr, paper_mask, noise)
