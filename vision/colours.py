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

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.cards import Colour

__all__ = ["NOMINAL_BGR", "bgr_to_lab", "classify_colour", "COLOUR_ORDER"]

COLOUR_ORDER = (Colour.BLACK, Colour.RED, Colour.YELLOW, Colour.BLUE, Colour.GREEN)

NOMINAL_BGR: dict[Colour, tuple[int, int, int]] = {
    Colour.BLACK: (0x1E, 0x1E, 0x1E),
    Colour.RED: (0x1E, 0x2B, 0xD5),
    Colour.YELLOW: (0x00, 0xD4, 0xFF),
    Colour.BLUE: (0xA6, 0x5A, 0x1F),
    Colour.GREEN: (0x47, 0x9A, 0x2D),
}

# Chromatic inks: (hue in degrees, hue spread, lightness, lightness spread).
_CHROMATIC = {
    Colour.RED: (36.0, 20.0, 47.0, 22.0),
    Colour.YELLOW: (88.0, 16.0, 84.0, 16.0),
    Colour.GREEN: (148.0, 28.0, 55.0, 24.0),
    Colour.BLUE: (285.0, 32.0, 38.0, 24.0),
}
# Chroma a chromatic ink shows at least, and black at most, on a balanced card.
_CHROMA_SPLIT = 16.0
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
    rows = np.clip(np.asarray(bgr, dtype=np.float32), 0.0, 1.0).reshape(1, -1, 3)
    return cv2.cvtColor(rows, cv2.COLOR_BGR2Lab).reshape(-1, 3)


def _hue_gap(a: float, b: float) -> float:
    d = abs(a - b) % 360.0
    return min(d, 360.0 - d)


def colour_scores(lab: NDArray[np.floating]) -> NDArray[np.float64]:
    """Log-likelihood-like score of each colour in ``COLOUR_ORDER`` for one Lab value."""
    lightness, a, b = (float(v) for v in lab)
    chroma = math.hypot(a, b)
    hue = math.degrees(math.atan2(b, a)) % 360.0
    # Probability-like weight of "this ink has colour" from chroma (logistic).
    z = (chroma - _CHROMA_SPLIT) / _CHROMA_SPREAD
    log_chromatic = -math.log1p(math.exp(-z)) if z > -30 else z
    log_neutral = -math.log1p(math.exp(z)) if z < 30 else -z
    scores = np.empty(len(COLOUR_ORDER))
    for i, colour in enumerate(COLOUR_ORDER):
        if colour is Colour.BLACK:
            dark = max(0.0, lightness - 45.0) / 12.0
            scores[i] = log_neutral - 0.5 * dark * dark
        else:
            h0, hs, l0, ls = _CHROMATIC[colour]
            dh = _hue_gap(hue, h0) / hs
            dl = (lightness - l0) / ls
            scores[i] = log_chromatic - 0.5 * (dh * dh + dl * dl)
    return scores


def classify_colour(lab: NDArray[np.floating]) -> tuple[Colour, float, float]:
    """The print colour of one symbol from its mean balanced Lab.

    Parameters
    ----------
    lab : ndarray (3,) float, L, a, b

    Returns
    -------
    colour : Colour
    confidence : float in [0, 1], softmax weight of the best colour
    fit : float in [0, 1], how well the best colour fits at all
    """
    scores = colour_scores(lab)
    best = int(np.argmax(scores))
    weights = np.exp(scores - scores[best])
    return COLOUR_ORDER[best], float(1.0 / weights.sum()), float(math.exp(max(scores[best], -50.0) / 4.0))
