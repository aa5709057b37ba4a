"""Name a symbol's print colour from its mean colour on the white-balanced card.

Classification happens in CIE Lab after the card has been balanced on its own paper, so
the paper is L=100, a=b=0 and a warm or cold cast is gone. Cameras compress ink contrast
and saturation differently, so the test leans on what survives them: the hue angle for
the four chromatic inks (red 38, yellow 90, green 145, blue 282 degrees), lightness to
keep yellow apart from red and dark blue apart from black, and chroma to tell black from
the rest.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.cards import Colour

__all__ = ["NOMINAL_BGR", "bgr_to_lab", "classify_colour", "classify_colours", "colour_scores", "COLOUR_ORDER",
           "label_pixels"]

COLOUR_ORDER = (Colour.BLACK, Colour.RED, Colour.YELLOW, Colour.BLUE, Colour.GREEN)

NOMINAL_BGR: dict[Colour, tuple[int, int, int]] = {
    Colour.BLACK: (0x1E, 0x1E, 0x1E),
    Colour.RED: (0x1E, 0x2B, 0xD5),
    Colour.YELLOW: (0x00, 0xD4, 0xFF),
    Colour.BLUE: (0xA6, 0x5A, 0x1F),
    Colour.GREEN: (0x47, 0x9A, 0x2D),
}

# Chromatic inks: hue in degrees and its spread, lightness and its spread, the chroma an
# ink shows at least and the spread below it. Centred on the inks of rendered dev cards
# and real photos (balanced on their paper), spreads wide enough for the 12-unit print
# drift, camera tone curves and SET's purple (hue ~315, read as blue).
_CHROMATIC = {
    Colour.RED: (36.0, 12.0, 51.0, 16.0, 55.0, 16.0),
    Colour.YELLOW: (94.0, 12.0, 89.0, 12.0, 70.0, 14.0),
    Colour.GREEN: (146.0, 14.0, 61.0, 16.0, 40.0, 14.0),
    Colour.BLUE: (285.0, 22.0, 44.0, 12.0, 28.0, 12.0),
}
# Chroma a chromatic ink shows at least, and black at most, on a balanced card.
_CHROMA_SPLIT = 20.0
_CHROMA_SPREAD = 5.0


def bgr_to_lab(bgr: NDArray[np.floating]) -> NDArray[np.float32]:
    """Convert balanced colours (paper = 1.0) to CIE Lab.

    Parameters
    ----------
    bgr : ndarray (N, 3) float, B, G, R with the paper at 1.0

    Returns
    -------
    ndarray (N, 3) float32, L in [0, 100], a and b about [-127, 127]
    """
    # Through the 8-bit table: OpenCV's float Lab path rebuilds its tables on
    # every call on one thread (50-80 us for a handful of colours, against 2 us). The 8-bit
    # output steps (0.4 in L, 1 in a and b) are far below the colour model's spreads.
    scaled = np.asarray(bgr, dtype=np.float32) * 255.0 + 0.5
    rows = np.minimum(np.maximum(scaled, 0.0), 255.0).astype(np.uint8).reshape(1, -1, 3)
    lab = cv2.cvtColor(rows, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
    return lab * _LAB8_SCALE - _LAB8_OFFSET


_LAB8_SCALE = np.array([100.0 / 255.0, 1.0, 1.0], np.float32)
_LAB8_OFFSET = np.array([0.0, 128.0, 128.0], np.float32)


# Columns in COLOUR_ORDER; black's column is replaced below.
_HUE, _HUE_SPREAD, _LIGHT, _LIGHT_SPREAD, _CHROMA_MIN, _CHROMA_MIN_SPREAD = (
    np.array([1.0] + [_CHROMATIC[c][i] for c in COLOUR_ORDER[1:]]) for i in range(6)
)
_BLACK_MAX_LIGHTNESS, _BLACK_LIGHTNESS_SPREAD = 30.0, 9.0


Inks = Mapping[Colour, Sequence[float]]


def _model(inks: Inks | None) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """Hue and lightness per colour, and black's lightness limit: the nominal model,
    recentred on learned ink centres (balanced Lab, from a calibration) where ``inks`` gives
    them. Spreads and chroma floors stay, so a washed-out mark fits no learned ink any
    better than a nominal one."""
    if not inks:
        return _HUE, _LIGHT, _BLACK_MAX_LIGHTNESS
    hue, light = _HUE.copy(), _LIGHT.copy()
    black_max = _BLACK_MAX_LIGHTNESS
    for k, colour in enumerate(COLOUR_ORDER):
        if colour not in inks:
            continue
        lightness, a, b = (float(v) for v in inks[colour])
        if colour is Colour.BLACK:
            black_max = max(black_max, lightness + _BLACK_LIGHTNESS_SPREAD)
            continue
        hue[k] = math.degrees(math.atan2(b, a)) % 360.0
        light[k] = lightness
    return hue, light, black_max


def _chromatic_model(inks: Inks | None) -> tuple[tuple[tuple[float, ...], ...], float]:
    """:func:`_model` as, per chromatic colour, (hue, hue spread, lightness, lightness
    spread, chroma floor, chroma spread) in plain floats, and black's lightness limit."""
    hue_centre, light_centre, black_max = _model(inks)
    columns = (hue_centre, _HUE_SPREAD, light_centre, _LIGHT_SPREAD, _CHROMA_MIN, _CHROMA_MIN_SPREAD)
    return tuple(zip(*(column[1:].tolist() for column in columns))), float(black_max)


_NOMINAL = _chromatic_model(None)


def colour_scores(lab: NDArray[np.floating], inks: Inks | None = None) -> NDArray[np.float64]:
    """Log-likelihood-like scores (N, 5) of each colour in ``COLOUR_ORDER``.

    Parameters
    ----------
    lab : ndarray (N, 3) float, L, a, b
    inks : learned ink centres (balanced Lab) by colour, from a calibration; None: the nominal inks
    """
    chromatic, black_max = _NOMINAL if not inks else _chromatic_model(inks)
    # One symbol at a time in plain floats: a card has a handful of symbols, and numpy's
    # per-call cost on such small arrays is several times the arithmetic.
    rows = []
    for lightness, a, b in np.asarray(lab, dtype=np.float64).reshape(-1, 3).tolist():
        chroma = math.hypot(a, b)
        hue = math.degrees(math.atan2(b, a))
        # log P(chromatic) and log P(neutral) from chroma, a logistic in log form.
        z = min(max((chroma - _CHROMA_SPLIT) / _CHROMA_SPREAD, -30.0), 30.0)
        log_chromatic = -math.log1p(math.exp(-z))
        dark = max(0.0, lightness - black_max) / _BLACK_LIGHTNESS_SPREAD
        row = [(log_chromatic - z) - 0.5 * dark * dark]
        for centre, hue_spread, light, light_spread, chroma_min, chroma_spread in chromatic:
            gap = abs((hue - centre + 180.0) % 360.0 - 180.0) / hue_spread
            dl = (lightness - light) / light_spread
            # A washed-out ink (glare) keeps its hue but loses chroma: it fits its colour badly.
            dc = max(chroma_min - chroma, 0.0) / chroma_spread
            row.append(log_chromatic - 0.5 * (gap * gap + dl * dl + dc * dc))
        rows.append(row)
    return np.array(rows, dtype=np.float64).reshape(-1, len(COLOUR_ORDER))


def classify_colours(
    lab: NDArray[np.floating], inks: Inks | None = None
) -> tuple[list[Colour], NDArray[np.float64], NDArray[np.float64]]:
    """The print colour of each symbol from its mean balanced Lab.

    Parameters
    ----------
    lab : ndarray (N, 3) float, L, a, b
    inks : learned ink centres (balanced Lab) by colour, from a calibration; None: the nominal inks

    Returns
    -------
    colours : list of N Colour
    confidence : ndarray (N,) float in [0, 1], softmax weight of the best colour
    fit : ndarray (N,) float in [0, 1], how well the best colour fits at all
    """
    scores = colour_scores(lab, inks)
    best = scores.argmax(axis=1)
    top = scores.max(axis=1, keepdims=True)
    confidence = 1.0 / np.exp(scores - top).sum(axis=1)
    fit = np.exp(np.maximum(top[:, 0], -50.0) / 4.0)
    return [COLOUR_ORDER[i] for i in best], confidence, fit


def classify_colour(lab: NDArray[np.floating]) -> tuple[Colour, float, float]:
    """:func:`classify_colours` for one Lab value (3,)."""
    colours, confidence, fit = classify_colours(np.asarray(lab)[None])
    return colours[0], float(confidence[0]), float(fit[0])


def label_pixels(lab: NDArray[np.floating]) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """The nominal print colour of each of many pixels and how well it fits: the scores of
    :func:`colour_scores`, computed array-wise (a region's pixels rather than a symbol's mean).

    Parameters
    ----------
    lab : ndarray (N, 3) float, L, a, b

    Returns
    -------
    best : ndarray (N,) int, index in ``COLOUR_ORDER``
    fit : ndarray (N,) float in [0, 1], as in :func:`classify_colours`
    """
    chromatic, black_max = _NOMINAL
    lightness, a, b = (np.ascontiguousarray(np.asarray(lab, dtype=np.float32).reshape(-1, 3)[:, k]) for k in range(3))
    chroma, hue = (v.reshape(-1) for v in cv2.cartToPolar(a, b, angleInDegrees=True))
    z = np.clip((chroma - _CHROMA_SPLIT) * (1.0 / _CHROMA_SPREAD), -30.0, 30.0)
    log_chromatic = -np.log1p(np.exp(-z))
    dark = np.maximum(lightness - black_max, 0.0) * (1.0 / _BLACK_LIGHTNESS_SPREAD)
    best_score = (log_chromatic - z) - 0.5 * dark * dark
    best = np.zeros(best_score.shape, np.intp)
    for k, (centre, hue_spread, light, light_spread, chroma_min, chroma_spread) in enumerate(chromatic, start=1):
        gap = np.abs((hue - centre + 180.0) % 360.0 - 180.0) * (1.0 / hue_spread)
        dl = (lightness - light) * (1.0 / light_spread)
        dc = np.maximum(chroma_min - chroma, 0.0) * (1.0 / chroma_spread)
        score = log_chromatic - 0.5 * (gap * gap + dl * dl + dc * dc)
        better = score > best_score
        best[better] = k
        best_score = np.maximum(best_score, score)
    return best, np.exp(np.maximum(best_score.astype(np.float64), -50.0) / 4.0)
