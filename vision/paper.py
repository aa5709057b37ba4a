"""Where a frame shows card paper: bright and grey against smooth fields of the table's and the paper's light."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["paper_mask", "whiteness", "lab_whiteness", "lab_whiteness_in_shade", "light_cast", "second_cast", "faces_cast", "levels", "paper_where", "shade", "SHADE_CONTRAST", "pixel_runs"]

CHROMA_WEIGHT = 2.5  # skin, wood and felt are bright but coloured; paper is grey under the light's cast
_PATTERN_SPREAD = 12.0  # whiteness between a cell's 20th and 65th percentile on a patterned cloth
SHADE_CONTRAST = 0.45  # a shaded card keeps at least this share of its contrast with the table
_BYTES = np.arange(256, dtype=np.float32)  # each byte's value, as a float
_RUN, _RUN_ON = 32768, 64  # pixels worked on at a time, and how far each run runs on into the next
# second_cast: colours counted in steps of 2 (a, b) from -40 to 40; the second is held by a twentieth of the brightest at least
_CAST_STEP, _CAST_BINS, _SECOND_SHARE = 2.0, 40, 0.05


def paper_mask(frame_bgr: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Where the frame shows card paper: bright and nearly grey for the light around it.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8

    Returns
    -------
    mask : ndarray (H, W) uint8, 255 on paper
    """
    white, _ = whiteness(frame_bgr)
    table, paper = levels(white)
    return paper_where(white, table, paper)


def whiteness(frame_bgr: NDArray[np.uint8], cast_ab: tuple[float, float] | None = None) -> tuple[NDArray[np.float32], tuple[float, float]]:
    """Lightness less chroma, after taking out the light's cast: high on paper only."""
    return lab_whiteness(cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2LAB), cast_ab)


def lab_whiteness(lab: NDArray[np.uint8],
                  cast_ab: tuple[float, float] | None = None) -> tuple[NDArray[np.float32], tuple[float, float]]:
    """:func:`whiteness` of a frame already converted to Lab (``cv2.COLOR_BGR2LAB``, (H, W, 3) uint8)."""
    if cast_ab is None:
        cast_ab = _cast_of_brightest(lab[::3, ::3])  # (as light_cast, on the Lab image at hand)
    light, a, b = cv2.split(lab)  # contiguous planes: numpy converts a strided one at a third of the speed
    # Bytes to floats through tables of their 256 values: one pass each, no temporaries. (All
    # OpenCV's own arrays: its magnitude rounds the last bit by where its arrays lie in memory.)
    a = cv2.LUT(a, _BYTES - np.float32(128 + cast_ab[0]))
    b = cv2.LUT(b, _BYTES - np.float32(128 + cast_ab[1]))
    return cv2.addWeighted(cv2.LUT(light, _BYTES), 1.0, cv2.magnitude(a, b, a), -CHROMA_WEIGHT, 0.0, b), cast_ab


def lab_whiteness_in_shade(lab: NDArray[np.uint8], cast_ab: tuple[float, float]) -> NDArray[np.float32]:
    """:func:`lab_whiteness` with the light's cast taken in proportion to each pixel's lightness,
    that of the frame's brightest tenth (lit paper) taking all of it.

    Paper in an arm's shadow under a warm lamp is lit by the room, not the lamp: it shows
    little of the lamp's colour, and the lamp's full cast taken off makes it look coloured,
    as dull as the table. A cast in proportion to lightness leaves such paper grey.
    ``lab``: (H, W, 3) uint8 (``cv2.COLOR_BGR2LAB``); returns (H, W) float32.
    """
    light, a, b = cv2.split(lab)
    sample = lab[::3, ::3, 0].ravel()
    lit = max(float(np.median(sample[_brightest(sample, 0.1)])), 1.0)
    lightness = cv2.LUT(light, _BYTES)
    a = cv2.LUT(a, _BYTES - np.float32(128)) - lightness * np.float32(cast_ab[0] / lit)
    b = cv2.LUT(b, _BYTES - np.float32(128)) - lightness * np.float32(cast_ab[1] / lit)
    return cv2.addWeighted(lightness, 1.0, cv2.magnitude(a, b), -CHROMA_WEIGHT, 0.0)


def pixel_runs(count: int) -> list[tuple[int, int]]:
    """(start, stop) of runs of ``count`` pixels (a frame's, in order) worked on in turn.

    Each run but the last runs ``_RUN_ON`` pixels on into the next: OpenCV ends each call
    with its last few pixels in a slower loop whose sums round otherwise, and the next run
    writes them again, so that the pixels come out as from one call over the whole frame, to the bit.
    """
    runs = []
    for start in range(0, count, _RUN):
        runs.append((start, min(count, start + _RUN + _RUN_ON)))
        if runs[-1][1] == count:
            break
    return runs


def light_cast(frame_bgr: NDArray[np.uint8], share: float = 0.1, lab: NDArray[np.uint8] | None = None) -> tuple[float, float]:
    """The light's cast that :func:`whiteness` takes out of ``frame_bgr`` (from every third
    pixel); with a smaller ``share``, read off that share of the brightest pixels instead of a tenth.
    ``lab``: the frame in Lab, when at hand (Lab is per pixel: the same values)."""
    if lab is None:
        return _cast_of_brightest(cv2.cvtColor(np.ascontiguousarray(frame_bgr[::3, ::3]), cv2.COLOR_BGR2LAB), share)
    return _cast_of_brightest(lab[::3, ::3], share)


def second_cast(lab: NDArray[np.uint8], cast_ab: tuple[float, float], apart: float) -> tuple[float, float] | None:
    """The cast of the second most common colour among the brightest tenth of the pixels (every
    third): on a pale table that tenth is mostly table, its median the table's colour (``cast_ab``),
    and the card paper, of another tint, is the next colour there. The densest colour (a, b in
    steps of ``_CAST_STEP``, each counted with its neighbours) at least ``apart`` from ``cast_ab``,
    held by at least ``_SECOND_SHARE`` of those pixels; the mean over them; None where none is."""
    sample = lab[::3, ::3].reshape(-1, 3)
    ab = sample[_brightest(sample[:, 0], 0.1), 1:].astype(np.float32) - 128
    bins = np.floor(ab / _CAST_STEP).astype(np.int32) + _CAST_BINS // 2
    inside = ((bins >= 0) & (bins < _CAST_BINS)).all(axis=1)
    counts = np.bincount(bins[inside, 0] * _CAST_BINS + bins[inside, 1], minlength=_CAST_BINS**2)
    dense = cv2.boxFilter(counts.reshape(_CAST_BINS, _CAST_BINS).astype(np.float32), -1, (3, 3), normalize=False,
                          borderType=cv2.BORDER_CONSTANT)
    centres = (np.arange(_CAST_BINS, dtype=np.float32) - _CAST_BINS // 2 + 0.5) * _CAST_STEP
    far = np.hypot(centres[:, None] - cast_ab[0], centres[None, :] - cast_ab[1]) >= apart
    dense[~far] = 0
    peak = np.unravel_index(int(np.argmax(dense)), dense.shape)
    if dense[peak] < _SECOND_SHARE * len(ab):
        return None
    near = np.hypot(ab[:, 0] - centres[peak[0]], ab[:, 1] - centres[peak[1]]) <= 1.5 * _CAST_STEP
    return float(ab[near, 0].mean()), float(ab[near, 1].mean())


def faces_cast(frame_bgr: NDArray[np.uint8], corners_xy: NDArray[np.float32]) -> tuple[float, float]:
    """The light's cast on the card paper of the faces found: the median a, b (less neutral
    grey) of the lighter part of their middles (paper, not symbols), from every fourth pixel.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    corners_xy : ndarray (N, 4, 2) float, N >= 1, the faces' corners in pixels of ``frame_bgr``

    Returns
    -------
    cast_ab : (a, b), as :func:`light_cast` gives it
    """
    mask = np.zeros(frame_bgr.shape[:2], np.uint8)
    for corners in corners_xy:
        centre = corners.mean(axis=0)
        cv2.fillConvexPoly(mask, np.round(centre + 0.8 * (corners - centre)).astype(np.int32), 255)
    pixels = frame_bgr[::4, ::4][mask[::4, ::4] > 0]
    lab = cv2.cvtColor(pixels.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3)
    paper = lab[lab[:, 0] >= np.percentile(lab[:, 0], 60)]
    return float(np.median(paper[:, 1])) - 128, float(np.median(paper[:, 2])) - 128


def _cast_of_brightest(lab: NDArray[np.uint8], share: float = 0.1) -> tuple[float, float]:
    """The light's cast (a, b less neutral grey), the median over the brightest ``share``
    of the pixels (a tenth: mostly paper): those at or above that percentile of lightness."""
    bright = _brightest(lab[..., 0].ravel(), share)
    return float(np.median(lab[..., 1].ravel()[bright])) - 128, float(np.median(lab[..., 2].ravel()[bright])) - 128


def _brightest(light: NDArray[np.uint8], share: float) -> NDArray[np.bool_]:
    """Which of the lightnesses (N,) are at or above the percentile of the brightest ``share``."""
    # The percentile (linear interpolation) from the histogram; lightness is whole, so
    # ``light >= percentile`` is ``light >= ceil(percentile)``.
    ranked = np.cumsum(np.bincount(light, minlength=256))
    position = (1 - share) * (light.size - 1)
    below = int(np.searchsorted(ranked, int(position), side="right"))
    above = int(np.searchsorted(ranked, min(int(position) + 1, light.size - 1), side="right"))
    return light >= (below if position == int(position) else above)


def paper_where(white: NDArray[np.float32], table: NDArray[np.float32], paper: NDArray[np.float32]) -> NDArray[np.uint8]:
    # Paper lies nearer the paper level than the table level; both are smooth fields, so
    # light falling off across the table and dark objects on it do not move the cut.
    mask = np.where(white > table + 0.5 * (paper - table), 255, 0).astype(np.uint8)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def levels(white: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Smooth fields of the table's and of the paper's brightness over the frame.

    Each is a quadratic surface fitted to statistics of small cells: the cells' medians
    (mostly table) for the table, and the upper envelope of the cells' bright ends
    (paper wherever there are cards) for the paper. The table level is also never
    below the cells' local median.
    """
    h, w = white.shape
    cell = 8
    gh, gw = max(2, h // (4 * cell)), max(2, w // (4 * cell))
    small = cv2.resize(white, (gw * cell, gh * cell), interpolation=cv2.INTER_AREA)
    blocks = small.reshape(gh, cell, gw, cell).transpose(0, 2, 1, 3).reshape(gh * gw, cell * cell)
    low, median, bright, high = np.percentile(blocks, [20, 50, 65, 92], axis=1)
    # On a striped or checked cloth the brighter part of each cell is table too: its cells
    # spread widely even where no card lies.
    patterned = float(np.median(bright - low)) > _PATTERN_SPREAD
    middle = bright if patterned else median
    ys, xs = np.mgrid[0:gh, 0:gw]
    u, v = (xs.ravel() + 0.5) / gw - 0.5, (ys.ravel() + 0.5) / gh - 0.5
    basis = np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=1)
    paper_fit = (basis @ _robust_fit(basis, high, upper=True)).reshape(gh, gw)
    table_fit = (basis @ _robust_fit(basis, middle, upper=False)).reshape(gh, gw)
    # Where the table meets a darker floor at the frame's edge the smooth fit sags:
    # the local median of the cells follows the step. Cells that are mostly paper (a
    # dense row of big cards) say nothing of the table and count as the fit there.
    cells = middle.reshape(gh, gw)
    papery = cells > table_fit + 0.5 * (paper_fit - table_fit)
    cells = np.where(papery, table_fit, cells).astype(np.float32)
    local = cv2.blur(cv2.medianBlur(cells, 5), (3, 3))
    table = np.maximum(table_fit, local)
    paper = np.maximum(paper_fit, table + 20.0)
    # A card in a shadow is darker than the paper level but still well above the table:
    # where the cells nearby hold something that bright, take that as the paper level.
    near = cv2.dilate(high.reshape(gh, gw).astype(np.float32), np.ones((3, 3), np.uint8))
    shaded = (near < paper) & (near > table + SHADE_CONTRAST * (paper - table))
    paper = np.where(shaded, near, paper)
    # The fields are smooth: computed per cell, then spread over the pixels.
    table = cv2.resize(table.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    paper = cv2.resize(paper.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    return table.astype(np.float32), paper.astype(np.float32)


def _robust_fit(basis: NDArray[np.float64], values: NDArray[np.float64], upper: bool,
                keep: NDArray[np.bool_] | None = None) -> NDArray[np.float64]:
    """Least squares that drops outliers; with ``upper`` it climbs to the upper envelope.
    ``keep`` chooses the values to start from (default: all, or the top 30% with ``upper``)."""
    if keep is None:
        keep = values >= np.percentile(values, 70) if upper else np.ones(len(values), bool)
    coef = np.zeros(basis.shape[1])
    for _ in range(4):
        if keep.sum() < basis.shape[1]:
            break
        coef, *_ = np.linalg.lstsq(basis[keep], values[keep], rcond=None)
        fit = basis @ coef
        spread = max(4.0, float(np.median(np.abs(values[keep] - fit[keep]))) * 3)
        if upper:
            keep = (values > fit - np.maximum(spread, 0.08 * np.abs(fit))) & (values < fit + 3 * spread)
        else:
            keep = np.abs(values - fit) < spread
    return coef


def shade(frame_bgr: NDArray[np.uint8], lab: NDArray[np.uint8] | None = None) -> NDArray[np.float32] | None:
    """How much light reaches each pixel, from the table's own colour: 1 where the table
    is lit, less in a shadow (a hand, an arm, a mug); None on a grey table.

    A shadow darkens the cloth but keeps its colour, so the pixels of the table's hue and
    saturation, whatever their lightness, show the light falling on the table.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    lab : ndarray (H, W, 3) uint8, the frame in Lab when at hand, or None

    Returns
    -------
    shade : ndarray (H, W) float32 in [0.3, 1], or None
    """
    h, w = frame_bgr.shape[:2]
    if lab is None:
        lab = cv2.cvtColor(np.ascontiguousarray(frame_bgr[::4, ::4]), cv2.COLOR_BGR2LAB).astype(np.float32)
    else:
        lab = lab[::4, ::4].astype(np.float32)
    light, a, b = lab[..., 0], lab[..., 1] - 128, lab[..., 2] - 128
    chroma = np.hypot(a, b)
    coloured = (chroma > 10) & (light > 20)
    if coloured.mean() < 0.25:
        return None
    hue = np.degrees(np.arctan2(b, a)) % 360
    counts, edges = np.histogram(hue[coloured], bins=36, range=(0, 360))
    top = int(np.argmax(counts))
    table_hue = (edges[top] + edges[top + 1]) / 2
    near_hue = coloured & (np.abs((hue - table_hue + 180) % 360 - 180) < 15)
    saturation = chroma / np.maximum(light, 1)
    usual = float(np.median(saturation[near_hue]))
    table = near_hue & (np.abs(saturation - usual) < 0.35 * usual)
    if table.mean() < 0.15:
        return None
    cell = 6
    gh, gw = max(1, table.shape[0] // cell), max(1, table.shape[1] // cell)
    valid = cv2.resize(table[: gh * cell, : gw * cell].astype(np.float32), (gw, gh), interpolation=cv2.INTER_AREA)
    value = cv2.resize((light * table)[: gh * cell, : gw * cell], (gw, gh), interpolation=cv2.INTER_AREA)
    kernel = (5, 5)
    level = cv2.blur(value, kernel) / np.maximum(cv2.blur(valid, kernel), 1e-3)
    known = cv2.blur(valid, kernel) > 0.05
    if known.sum() < 4:
        return None
    lit = float(np.percentile(level[known], 90))
    level = np.where(known, level, lit)
    field = np.clip(level / max(lit, 1.0), 0.3, 1.0).astype(np.float32)
    return cv2.resize(cv2.blur(field, (3, 3)), (w, h), interpolation=cv2.INTER_LINEAR)
