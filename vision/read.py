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
from vision.colours import bgr_to_lab, classify_colours
from vision.records import CardReading, SymbolReading
from vision.shapes import classify_shapes
from vision.symbols import Segmentation, find_blobs
from vision.whitebalance import CELL_PX, BalancedCard, balance_card

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


def to_working_size(card_bgr: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], tuple[float, float]]:
    """Resize a card so that its short side is ``WORK_SHORT_SIDE``.

    The long side is rounded to a multiple of the white-balance grid cell (an aspect
    change of at most 4%, harmless to the shape features).

    Parameters
    ----------
    card_bgr : ndarray (H, W, 3) uint8

    Returns
    -------
    work_bgr : ndarray (h, w, 3) uint8
    scale_xy : (float, float), working pixels per input pixel along x and y
    """
    height, width = card_bgr.shape[:2]
    short = min(height, width)
    long_work = max(CELL_PX, round(max(height, width) * WORK_SHORT_SIDE / short / CELL_PX) * CELL_PX)
    size_wh = (WORK_SHORT_SIDE, long_work) if width <= height else (long_work, WORK_SHORT_SIDE)
    image = card_bgr
    factor = short // WORK_SHORT_SIDE
    if factor >= 2:
        # Integer-factor area averaging is fast and keeps the noise down; the rest is linear.
        image = image[: height - height % factor, : width - width % factor]
        image = cv2.resize(image, None, fx=1.0 / factor, fy=1.0 / factor, interpolation=cv2.INTER_AREA)
    if image.shape[:2] != (size_wh[1], size_wh[0]):
        image = cv2.resize(image, size_wh, interpolation=cv2.INTER_LINEAR)
    return image, (size_wh[0] / width, size_wh[1] / height)


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
    paper_fraction = cv2.countNonZero(card.paper_mask) / card.paper_mask.size
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
    work_bgr, (scale_x, scale_y) = to_working_size(card_bgr)
    card = balance_card(work_bgr)
    seg = find_blobs(card)
    problem = _face_problem(card, seg)
    if problem:
        return _not_face(problem)

    labs = bgr_to_lab(np.stack([blob.mean_bgr for blob in seg.blobs]))
    shapes, shape_conf, shape_fit = classify_shapes(
        np.stack([blob.features.as_array() for blob in seg.blobs]), np.array([blob.extent for blob in seg.blobs]))
    colours, colour_conf, _ = classify_colours(labs)
    symbols: list[SymbolReading] = []
    reasons: list[str] = list(seg.doubt)
    confidence = 1.0
    fits = shape_fit
    for i, blob in enumerate(seg.blobs):
        symbol_conf = min(float(shape_conf[i]), float(colour_conf[i]))
        if shape_conf[i] < 0.8:
            reasons.append(f"shape of a symbol is ambiguous ({shapes[i].value}?)")
        if colour_conf[i] < 0.8:
            reasons.append(f"colour of a symbol is ambiguous ({colours[i].value}?)")
        if shape_fit[i] < 0.2:
            reasons.append("a mark fits no shape well")
            symbol_conf = min(symbol_conf, 0.2 + float(shape_fit[i]))
        for doubt in blob.doubt:
            reasons.append(doubt)
            symbol_conf = min(symbol_conf, _DOUBT_CONFIDENCE.get(doubt, 0.5))
        confidence = min(confidence, symbol_conf)
        cx, cy = blob.center_xy
        center_xy = ((cx + 0.5) / scale_x - 0.5, (cy + 0.5) / scale_y - 0.5)
        symbols.append(SymbolReading(shapes[i], colours[i], center_xy, float(np.clip(symbol_conf, 0.0, 1.0))))
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
