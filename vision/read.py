"""Read one rectified card: its symbols, their shapes and colours, and the card's criteria.

The flow is ``balance_card`` (white balance and light field from the card's own paper),
``find_blobs`` (ink segmentation, one blob per symbol), then a shape and a colour for
each blob and the criteria for the card. Every step reports its doubts, and the card's
confidence is the weakest of them, so that a person can be asked to look at exactly the
cards that may be misread.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.cards import Criteria, InvalidCardError
from vision.colours import bgr_to_lab, classify_colour
from vision.records import CardReading, SymbolReading
from vision.shapes import classify_shape
from vision.symbols import Segmentation, find_blobs
from vision.whitebalance import BalancedCard, balance_card

__all__ = ["read_card", "WORK_SHORT_SIDE", "to_working_size"]

# Cards are read at this short side (pixels); the smallest symbol then spans 12 pixels.
WORK_SHORT_SIDE = 80
_MIN_INPUT_SIDE = 16

# Confidence of a reading flagged for each kind of doubt.
_DOUBT_CONFIDENCE = {
    "small blob near the size limit": 0.35,
    "large blob near the size limit": 0.5,
    "blob split at its own ink level": 0.3,
    "faint blob near the ink threshold": 0.35,
}


def to_working_size(card_bgr: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], float]:
    """Resize a card so that its short side is ``WORK_SHORT_SIDE``.

    Parameters
    ----------
    card_bgr : ndarray (H, W, 3) uint8

    Returns
    -------
    work_bgr : ndarray (h, w, 3) uint8
    scale : float, working pixels per input pixel
    """
    height, width = card_bgr.shape[:2]
    scale = WORK_SHORT_SIDE / min(height, width)
    size_wh = (max(1, round(width * scale)), max(1, round(height * scale)))
    interpolation = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
    return cv2.resize(card_bgr, size_wh, interpolation=interpolation), scale


def _check_input(card_bgr: object) -> None:
    if not isinstance(card_bgr, np.ndarray):
        raise ValueError(f"card_bgr must be a numpy array, got {type(card_bgr).__name__}")
    if card_bgr.dtype != np.uint8 or card_bgr.ndim != 3 or card_bgr.shape[2] != 3:
        raise ValueError(f"card_bgr must be (H, W, 3) uint8, got {card_bgr.shape} {card_bgr.dtype}")
    if min(card_bgr.shape[:2]) < _MIN_INPUT_SIDE:
        raise ValueError(
            f"card_bgr is too small to read: expected a short side >= {_MIN_INPUT_SIDE} px, "
            f"got {card_bgr.shape[1]}x{card_bgr.shape[0]}"
        )


def _not_face(reason: str, confidence: float = 0.9) -> CardReading:
    return CardReading(symbols=(), criteria=None, confidence=confidence, is_face=False, reason=reason)


def _face_problem(card: BalancedCard, seg: Segmentation) -> str:
    """Why this is not a symbol card's face, or '' when it looks like one."""
    b, g, r = (float(v) for v in card.paper_bgr)
    brightest = max(b, g, r)
    saturation = (brightest - min(b, g, r)) / max(brightest, 1.0)
    paper_fraction = float(card.paper_mask.mean())
    if brightest < 25.0:
        return "too dark to be a card face"
    if saturation > 0.62:
        return f"background is strongly coloured (saturation {saturation:.2f}), not white paper"
    if paper_fraction < 0.35:
        return f"too little plain paper ({paper_fraction:.0%}) for a card face"
    if card.noise > 0.09:
        return f"background is textured (noise {card.noise:.2f}), not a card face"
    if not seg.blobs:
        return "no symbols found"
    if len(seg.blobs) > 9:
        return f"{len(seg.blobs)} marks found, a card has at most 9 symbols"
    return ""


def read_card(card_bgr: NDArray[np.uint8]) -> CardReading:
    """Read a rectified card image.

    Parameters
    ----------
    card_bgr : ndarray (H, W, 3) uint8
        One card warped to an upright rectangle (portrait or landscape, any rotation by
        multiples of 90 degrees), short side preferably >= 80 px. A few pixels of table may
        show at the edges. Not modified.

    Returns
    -------
    CardReading
        ``is_face=False`` with a reason for a card back or a non-card; otherwise the symbols
        (centres in ``card_bgr`` pixels), the criteria (None when the reading is impossible
        under the rules) and a confidence that is low whenever the reading may be wrong.

    Raises
    ------
    ValueError
        When ``card_bgr`` is not a (H, W, 3) uint8 array or is smaller than 16 px.
    """
    _check_input(card_bgr)
    work_bgr, scale = to_working_size(card_bgr)
    card = balance_card(work_bgr)
    seg = find_blobs(card)
    problem = _face_problem(card, seg)
    if problem:
        return _not_face(problem)

    labs = bgr_to_lab(np.stack([blob.mean_bgr for blob in seg.blobs]))
    symbols: list[SymbolReading] = []
    reasons: list[str] = list(seg.doubt)
    confidence = 1.0
    fits: list[float] = []
    for blob, lab in zip(seg.blobs, labs):
        shape, shape_conf, shape_fit = classify_shape(blob.features)
        colour, colour_conf, _ = classify_colour(lab)
        fits.append(shape_fit)
        symbol_conf = min(shape_conf, colour_conf)
        if shape_conf < 0.8:
            reasons.append(f"shape of a symbol is ambiguous ({shape.value}?)")
        if colour_conf < 0.8:
            reasons.append(f"colour of a symbol is ambiguous ({colour.value}?)")
        if shape_fit < 0.2:
            reasons.append("a mark fits no shape well")
            symbol_conf = min(symbol_conf, 0.2 + shape_fit)
        for doubt in blob.doubt:
            reasons.append(doubt)
            symbol_conf = min(symbol_conf, _DOUBT_CONFIDENCE.get(doubt, 0.5))
        confidence = min(confidence, symbol_conf)
        cx, cy = blob.center_xy
        center_xy = ((cx + 0.5) / scale - 0.5, (cy + 0.5) / scale - 0.5)
        symbols.append(SymbolReading(shape, colour, center_xy, float(np.clip(symbol_conf, 0.0, 1.0))))
    for doubt in seg.doubt:
        confidence = min(confidence, _DOUBT_CONFIDENCE.get(doubt, 0.5))

    if float(np.median(fits)) < 1e-4:
        return _not_face("marks on it are not symbol shapes (a number or a picture?)", 0.7)

    symbols.sort(key=lambda s: (round(s.center_xy[1] / max(1.0, 0.08 * min(card_bgr.shape[:2]))), s.center_xy[0]))
    try:
        criteria = Criteria.from_symbols((s.shape, s.colour) for s in symbols)
    except InvalidCardError as error:
        return CardReading(tuple(symbols), None, 0.0, True, f"impossible reading: {error}")
    if min(card_bgr.shape[:2]) < WORK_SHORT_SIDE:
        reasons.append("card image smaller than 80 px")
        confidence = min(confidence, 0.6)
    unique = list(dict.fromkeys(reasons))
    return CardReading(tuple(symbols), criteria, float(np.clip(confidence, 0.0, 1.0)), True, "; ".join(unique))
