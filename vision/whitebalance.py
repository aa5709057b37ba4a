"""White balance a card from its own paper and measure ink against the local paper.

A card's paper is the one thing on it whose colour we know (white to off-white), so it is
the reference: its colour sets the white balance, and its brightness field (light falling
off, a soft shadow) is estimated on a grid of 5-pixel cells from the pixels that look like
paper (neutral next to the paper colour, and close to the local paper level) and divided
out. What is left is a card whose paper is ``PAPER_LEVEL`` in every channel wherever it
lies; ink is whatever is darker than that in some channel, which keeps yellow (dark only
in blue) as strong as black. Glare adds light rather than scaling it: where the paper rises
above a plane through the card's paper level, the added light is taken off the ink map in
linear light so that ink under it keeps its darkness; where glare clipped a channel the
card is marked as possibly blind there.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["BalancedCard", "balance_card", "shade_balanced", "rebalanced", "paper_noise", "estimate_paper_bgr", "PAPER_LEVEL", "CELL_PX",
           "CLIPPED_LEVEL"]

# Coarse grid cell, in working pixels; the paper field is smooth at this scale.
# Working sizes are multiples of it.
CELL_PX = 10
_CELL_PX = CELL_PX
# A pixel is paper-like when its channels agree (neutral) within this spread.
_NEUTRAL_SPREAD = 0.3
# Glare: paper this much brighter than the card's typical paper (wash capped at _MAX_WASH).
_MAX_WASH = 4.0
_GLARE_WASH = 1.3
_GLARE_CLIPPED = 0.15
# A channel this bright (0-255) is one the camera clipped: glare, no ink, shows there.
CLIPPED_LEVEL = 250
_BLIND_WASH = 1.1
# Weight (in share-of-cell * 255 units) of the paper-colour prior in cells without paper.
_PRIOR = 3.0
# Balanced paper sits at this level; the range above it is headroom for glare.
PAPER_LEVEL = 200
# Cameras encode light with about this gamma; glare is taken off in linear light on cards
# whose paper somewhere is this much brighter than typical.
_GAMMA = 2.2
_UNGLARE_FROM = 1.05
# Glare's colour is read from at least _COLOUR_CELLS field cells it brightens (above
# _UNGLARE_FROM), none of whose channels passes _COLOUR_CLIPPED (0-255).
_COLOUR_CLIPPED, _COLOUR_CELLS = 239.0, 2
_TO_LINEAR = ((np.arange(256, dtype=np.float32) / PAPER_LEVEL) ** _GAMMA).reshape(1, 256).astype(np.float32)


@dataclass(frozen=True)
class BalancedCard:
    """A card divided by its own paper field.

    Attributes
    ----------
    balanced_bgr : ndarray (H, W, 3) uint8
        The card with the local paper colour mapped to ``PAPER_LEVEL`` in every channel
        (the rest of the range is headroom for glare).
    ink : ndarray (H, W) uint8
        Ink strength, ``PAPER_LEVEL`` - min over channels of ``balanced_bgr`` with glare's
        added light taken off, clipped at 0: ~0 on paper, about 0.4-1.0 times
        ``PAPER_LEVEL`` on ink (glare's light is taken off here only: taking it off the
        colours too over-corrects a warm lamp's glare into yellow and black on dev cards).
    paper_bgr : ndarray (3,) float32
        The card's typical paper colour in the input (mean of the field), 0-255.
    paper_mask : ndarray (H // 2, W // 2) uint8
        255 on the pixels used as paper for the field, at half resolution.
    noise : float
        Noise (a standard deviation) of ``ink`` over the paper pixels, as a share of
        ``PAPER_LEVEL``.
    glare : float
        Share of the paper washed out by glare: clipped to white, or much brighter than the
        card's typical paper (0 when none).
    wash : ndarray (H // 5, W // 5) float32, optional
        Per field cell, how much brighter the paper is than the card's typical paper (>= 1).
    blind : float
        Share of the field cells brightened by glare where the camera clipped a channel:
        a symbol there may be invisible.
    clipped : float
        Share of the card inside its edge band where the camera clipped some channel
        (0 when none): only there can glare have hidden a symbol altogether.
    source : ndarray (H, W, 3) uint8, optional
        The input card, kept on cards whose paper glare brightens (None otherwise): a
        symbol's colour under glare is read from it against the paper around the symbol.
    typical_bgr : ndarray (3,) float32, optional
        The card's typical paper colour in the input (its median field cell), 0-255: the
        paper's colour without glare.
    diffuse : ndarray (H // 5, W // 5) float32, optional
        Per field cell, the paper's brightness without glare relative to the typical paper
        (the plane under ``wash``, in encoded values; None where no glare brightens the card).
    glare_bgr : ndarray (3,) float32, optional
        The colour of glare's added light relative to the typical paper, in linear light,
        its largest channel 1: read where glare brightens the paper and the camera clipped
        no channel, or else where it clipped one channel alone (see ``_glare_colour``; None
        where there is no such paper). Where glare clipped a channel of
        the paper around a symbol, this restores it.
    """

    balanced_bgr: NDArray[np.uint8]
    ink: NDArray[np.uint8]
    paper_bgr: NDArray[np.float32]
    paper_mask: NDArray[np.uint8]
    noise: float
    glare: float = 0.0
    wash: NDArray[np.float32] | None = None
    blind: float = 0.0
    clipped: float = 0.0
    source: NDArray[np.uint8] | None = None
    typical_bgr: NDArray[np.float32] | None = None
    diffuse: NDArray[np.float32] | None = None
    glare_bgr: NDArray[np.float32] | None = None


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
    n = gray.size
    # Order statistics of 8-bit values from their cumulative histogram (faster than a partition).
    counts = np.cumsum(np.bincount(gray.ravel(), minlength=256))
    lo, hi = np.searchsorted(counts, (int(0.55 * (n - 1)) + 1, int(0.97 * (n - 1)) + 1))
    mask = cv2.inRange(gray, int(lo), int(max(hi, lo)))
    mean = cv2.mean(inner, mask=mask)
    return np.array(mean[:3], dtype=np.float32)


def _grid_field(card_bgr: NDArray[np.uint8], mask: NDArray[np.uint8], grid_wh: tuple[int, int],
                fallback: NDArray[np.float32]) -> NDArray[np.float32]:
    """Normalised convolution on a coarse grid: the mean colour of the masked pixels of
    each cell, blurred over the neighbouring cells to fill holes (a large symbol), with a
    weak prior towards the card's paper colour where no paper is near.

    Returns the grid (gh, gw, 3) float32."""
    # Exact multiples of the cell take OpenCV's fast integer INTER_AREA path.
    # The masked colour and the mask as four channels: one resize and one blur.
    b, g, r = cv2.split(card_bgr)
    stacked = cv2.merge((cv2.bitwise_and(b, mask), cv2.bitwise_and(g, mask), cv2.bitwise_and(r, mask), mask))
    cells = cv2.resize(stacked, grid_wh, interpolation=cv2.INTER_AREA)
    blurred = cv2.GaussianBlur(cells.astype(np.float32), (5, 5), 1.0, borderType=cv2.BORDER_REPLICATE)
    return (blurred[..., :3] * 255.0 + _PRIOR * fallback) / (blurred[..., 3:] + _PRIOR)


def _channels_min(image: NDArray[np.float32]) -> NDArray[np.float32]:
    """``image.min(axis=2)`` of an (h, w, 3) image, several times faster: numpy reduces a
    last axis of three in small buffered steps."""
    return np.minimum(np.minimum(image[..., 0], image[..., 1]), image[..., 2])


def _channels_max(image: NDArray[np.float32]) -> NDArray[np.float32]:
    """``image.max(axis=2)`` of an (h, w, 3) image (see ``_channels_min``)."""
    return np.maximum(np.maximum(image[..., 0], image[..., 1]), image[..., 2])


def _bump(level: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.float32] | None]:
    """How far each cell's paper rises above a plane through the card's paper level (in
    logs, fitted on the darker 60% of the cells): a glare spot is a bump, light falling off
    across the card is a slope and no glare. Also the plane itself, the paper's level
    without glare (None when no cell rises above ``_UNGLARE_FROM``)."""
    if float(level.max()) <= _UNGLARE_FROM:
        return np.maximum(level, 1.0).astype(np.float32), None
    rows, cols = level.shape
    log_level = np.log(np.maximum(level, 1e-3)).ravel()
    design = _plane_design(rows, cols)
    keep = log_level <= np.partition(log_level, int(0.6 * (log_level.size - 1)))[int(0.6 * (log_level.size - 1))]
    fit = design[keep]
    coef = _solve3((fit.T @ fit).tolist(), (fit.T @ log_level[keep]).tolist())
    plane = design @ coef
    wash = np.minimum(np.maximum(np.exp(log_level - plane), 1.0), _MAX_WASH).reshape(rows, cols).astype(np.float32)
    return wash, np.exp(plane).reshape(rows, cols).astype(np.float32)


def _glare_colour(relative: NDArray[np.float32], plane: NDArray[np.float32], wash: NDArray[np.float32],
                  fine: NDArray[np.float32]) -> NDArray[np.float32] | None:
    """The colour of glare's added light relative to the card's typical paper, B, G, R in
    linear light with its largest channel 1, from the field cells glare brightens
    where the camera clipped no channel; None where there are too few.

    Where glare clips a channel of every cell it brightens (bright paper under a warm lamp
    clips red at once), the cells where it clipped that channel alone show the other two:
    the channel it clipped first is taken as the glare's largest."""
    # (OpenCV: numpy's reductions over channels cost several times more on grids this small)
    brightened = cv2.compare(wash, _UNGLARE_FROM, cv2.CMP_GE)
    bright = cv2.bitwise_and(brightened, cv2.inRange(fine, (0.0, 0.0, 0.0), (_COLOUR_CLIPPED,) * 3))
    first_clipped = None
    if cv2.countNonZero(bright) < _COLOUR_CELLS:
        over = (fine >= _COLOUR_CLIPPED) & (brightened > 0)[:, :, None]
        alone = over & (over.sum(axis=2) == 1)[:, :, None]
        counts = alone.reshape(-1, 3).sum(axis=0)
        first_clipped = int(np.argmax(counts))
        if counts[first_clipped] < _COLOUR_CELLS:
            return None
        bright = alone[:, :, first_clipped].astype(np.uint8)
    diffuse = cv2.mean(cv2.pow(plane, _GAMMA), bright)[0]
    # A warm lamp's glare adds next to no blue: noise may take it below zero.
    added = [max(v - diffuse, 0.0) for v in cv2.mean(cv2.pow(relative, _GAMMA), bright)[:3]]
    if first_clipped is not None:
        added[first_clipped] = max(added)
    top = max(added)
    if top <= 0.0:
        return None
    return np.array([v / top for v in added], np.float32)


@functools.lru_cache(maxsize=8)
def _plane_design(rows: int, cols: int) -> NDArray[np.float64]:
    """(rows * cols, 3) float64: 1, x and y of each cell (row-major), x and y from -0.5
    to 0.5; read-only, shared by every card of this grid size."""
    v, u = np.divmod(np.arange(rows * cols), cols)
    design = np.column_stack([np.ones(rows * cols), u / cols - 0.5, v / rows - 0.5])
    design.flags.writeable = False
    return design


def _solve3(a: list[list[float]], b: list[float]) -> NDArray[np.float64]:
    """Solve the 3x3 system ``(a + 1e-9 I) x = b`` by Cramer's rule (numpy's solver costs
    about 90 us a call at this size)."""
    (a00, a01, a02), (a10, a11, a12), (a20, a21, a22) = a
    a00, a11, a22 = a00 + 1e-9, a11 + 1e-9, a22 + 1e-9
    c0, c1, c2 = a11 * a22 - a12 * a21, a12 * a20 - a10 * a22, a10 * a21 - a11 * a20
    det = a00 * c0 + a01 * c1 + a02 * c2
    x0 = (b[0] * c0 + a01 * (a12 * b[2] - b[1] * a22) + a02 * (b[1] * a21 - a11 * b[2])) / det
    x1 = (a00 * (b[1] * a22 - a12 * b[2]) + b[0] * c1 + a02 * (a10 * b[2] - b[1] * a20)) / det
    x2 = (a00 * (a11 * b[2] - b[1] * a21) + a01 * (b[1] * a20 - a10 * b[2]) + b[0] * c2) / det
    return np.array([x0, x1, x2])


def _remove_glare(darkest: NDArray[np.uint8], wash: NDArray[np.float32]) -> NDArray[np.uint8]:
    """Take the glare's added light off the darkest channel of a balanced card (the
    correction rises with the value, so it commutes with the minimum over channels).

    Glare adds light (in linear units) rather than scaling it: where the paper is ``w``
    times its typical brightness, dividing by the paper leaves ink ``w`` times too pale.
    In linear light an ink of reflectance ``r`` under a glare that brightens the paper
    ``w`` times divides to ``b = 1 - (1 - r) / w``, so ``r = 1 - w (1 - b)``.
    """
    h, w = darkest.shape
    gain = cv2.resize(cv2.pow(wash, _GAMMA), (w, h), interpolation=cv2.INTER_LINEAR)
    linear = cv2.LUT(darkest, _TO_LINEAR)
    restored = np.maximum(1.0 - (1.0 - linear) * gain, 0.0)
    return cv2.convertScaleAbs(cv2.pow(restored, 1.0 / _GAMMA), alpha=PAPER_LEVEL)


def paper_noise(ink: NDArray[np.uint8], paper_mask: NDArray[np.uint8]) -> float:
    """The paper's noise in an ink map (``ink``: ``PAPER_LEVEL`` less the darkest balanced channel),
    away from ink edges (``paper_mask``, eroded: 255 on paper, of the ink's size), 0-1. Ink is
    clipped at zero on paper, so for Gaussian noise of sigma s the clipped values have E[ink^2] = s^2 / 2."""
    mean, std = cv2.meanStdDev(ink, mask=cv2.erode(paper_mask, None))
    return math.sqrt(2.0 * (float(mean[0, 0]) ** 2 + float(std[0, 0]) ** 2)) / PAPER_LEVEL


def rebalanced(balanced_bgr: NDArray[np.uint8], closed_bgr: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """A balanced card divided again by its own paper closed (``closed_bgr``: closed over more than a
    symbol's width, the marks filled, a shadow's edge kept in place), and that card's ink map."""
    local = cv2.divide(balanced_bgr, cv2.max(closed_bgr, 1), scale=PAPER_LEVEL)
    b, g, r = cv2.split(local)
    return local, cv2.subtract(PAPER_LEVEL, cv2.min(cv2.min(b, g), r))


def shade_balanced(card: BalancedCard, closed_bgr: NDArray[np.uint8]) -> BalancedCard:
    """The card balanced again against its own paper closed (``rebalanced``): paper a shadow's sharp
    edge crosses, which the light field does not follow, is paper again. The noise is measured
    anew; fine texture (wood, cloth) stays as noisy as it was."""
    local, ink = rebalanced(card.balanced_bgr, closed_bgr)
    h, w = ink.shape
    paper = cv2.resize(card.paper_mask, (w, h), interpolation=cv2.INTER_NEAREST)
    return replace(card, balanced_bgr=local, ink=ink, noise=paper_noise(ink, paper))


def balance_card(card_bgr: NDArray[np.uint8], min_paper: float = 0.0) -> BalancedCard | None:
    """White-balance a card from its own paper and divide out the light field.

    The paper is found on a half-resolution copy (the field is smooth, and this is the
    costly part); the division and the ink map are at full resolution.

    Parameters
    ----------
    card_bgr : ndarray (H, W, 3) uint8
        A rectified card at working size; sides that are multiples of ``CELL_PX`` are
        fastest.
    min_paper : float
        Stop early and return None when less than this share of the card looks like paper
        (a card back, a phone): the full-resolution work is then skipped.

    Returns
    -------
    BalancedCard, or None when the card shows less paper than ``min_paper``.
    """
    h, w = card_bgr.shape[:2]
    half = cv2.resize(card_bgr, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    grid_wh = (max(2, w // _CELL_PX), max(2, h // _CELL_PX))
    margin = max(1, round(0.03 * min(h, w)))
    paper0 = estimate_paper_bgr(half, margin)

    # Pass 1: neutral relative to the paper and not very dark: paper, also in a shadow.
    gains = tuple(float(PAPER_LEVEL / max(p, 1.0)) for p in paper0) + (0.0,)
    gained = cv2.multiply(half, gains, dtype=cv2.CV_8U)
    hsv = cv2.cvtColor(gained, cv2.COLOR_BGR2HSV)
    mask = cv2.inRange(hsv, (0, 0, int(0.3 * PAPER_LEVEL)), (255, int(255 * _NEUTRAL_SPREAD), 255))
    # The edge band may show table, a rounded corner or a border line: never paper.
    mask[:margin] = 0
    mask[-margin:] = 0
    mask[:, :margin] = 0
    mask[:, -margin:] = 0
    grid = _grid_field(half, mask, grid_wh, paper0)

    # Pass 2: of those, only what is close to the local field (drops dark ink in shadows),
    # on a grid twice as fine so that the field follows a glare spot or a shadow edge.
    grid_val = _channels_min(grid * np.float32(gains[:3]))
    local = cv2.resize(np.minimum(np.maximum(grid_val * 0.8, 0), 255).astype(np.uint8), half.shape[1::-1],
                       interpolation=cv2.INTER_LINEAR)
    # The darkest channel, not the brightest: a symbol washed out by glare stays darker
    # than the paper around it in some channel, and must not become part of the field.
    # (split: channel slices would each be copied to pass them to OpenCV)
    gained_b, gained_g, gained_r = cv2.split(gained)
    darkest = cv2.min(cv2.min(gained_b, gained_g), gained_r)
    paper_mask = cv2.bitwise_and(mask, cv2.compare(darkest, local, cv2.CMP_GT))
    if cv2.countNonZero(paper_mask) < min_paper * paper_mask.size:
        return None
    fine_mask = cv2.resize(paper_mask, (w, h), interpolation=cv2.INTER_NEAREST)
    fine = _grid_field(card_bgr, fine_mask, (grid_wh[0] * 2, grid_wh[1] * 2), paper0)

    field = cv2.resize(np.minimum(np.maximum(fine, 1), 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
    balanced = cv2.divide(card_bgr, field, scale=PAPER_LEVEL)

    # How much brighter than the card's typical paper each field cell is: glare adds light
    # and washes ink out, so reading there is less sure.
    # Per channel, as the brightest channel may clip under glare while the others rise.
    cells = fine.reshape(-1, 3)
    typical = np.partition(cells, cells.shape[0] // 2, axis=0)[cells.shape[0] // 2]
    relative = fine * (1.0 / np.maximum(typical, 1.0))
    wash, plane = _bump(_channels_max(relative))
    glare_colour = None if plane is None else _glare_colour(relative, plane, wash, fine)
    b, g, r = cv2.split(balanced)
    ink_base = cv2.min(cv2.min(b, g), r)
    if float(wash.max()) > _UNGLARE_FROM:
        ink_base = _remove_glare(ink_base, wash)
    ink = cv2.subtract(PAPER_LEVEL, ink_base)

    noise = paper_noise(ink, fine_mask)
    # Glare: a good share of the paper clipped to white (a spot washing symbols out), or
    # paper much brighter than typical. A few clipped pixels only mean a bright exposure.
    hot = np.count_nonzero(wash > _GLARE_WASH) / wash.size
    glare, blind, clipped_any = hot, 0.0, 0.0
    if int(half.max()) >= CLIPPED_LEVEL:
        clipped = cv2.countNonZero(cv2.inRange(half, (CLIPPED_LEVEL,) * 3, (255,) * 3)) / max(cv2.countNonZero(paper_mask), 1)
        glare = max(min(clipped, 1.0) if clipped >= _GLARE_CLIPPED else 0.0, hot)
        # Where glare clipped a channel, an ink dark only in that channel is gone for good.
        half_b, half_g, half_r = cv2.split(half)
        brightest = cv2.max(cv2.max(half_b, half_g), half_r)
        clipped_cells = cv2.resize(cv2.inRange(brightest, CLIPPED_LEVEL, 255), wash.shape[::-1], interpolation=cv2.INTER_AREA)
        blind = np.count_nonzero((wash > _BLIND_WASH) & (clipped_cells > 0)) / wash.size
        inner = brightest[margin:-margin, margin:-margin]
        clipped_any = cv2.countNonZero(cv2.inRange(inner, CLIPPED_LEVEL, 255)) / max(inner.size, 1)
    paper_bgr = np.array(cv2.mean(fine)[:3], np.float32)
    source = card_bgr if float(wash.max()) > _UNGLARE_FROM else None
    return BalancedCard(balanced, ink, paper_bgr, paper_mask, noise, float(glare), wash, float(blind), float(clipped_any),
                        source, typical.astype(np.float32), plane, glare_colour)
