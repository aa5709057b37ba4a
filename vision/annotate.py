"""Drawing what was read over the frame, so a person sees at a glance what the referee saw."""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.cards import Colour, Shape
from vision.pipeline import DetectedCard

__all__ = ["draw_cards", "draw_label", "COLOUR_BGR"]

COLOUR_BGR = {
    Colour.BLACK: (30, 30, 30),
    Colour.RED: (30, 43, 213),
    Colour.YELLOW: (0, 212, 255),
    Colour.BLUE: (166, 90, 31),
    Colour.GREEN: (71, 154, 45),
}
_SHAPE_CODE = {Shape.CIRCLE: "O", Shape.TRIANGLE: "T", Shape.SQUARE: "Q", Shape.STAR: "*", Shape.BAR: "B"}
_OK_BGR = (60, 200, 60)
_DOUBT_BGR = (0, 140, 255)


def draw_label(image: NDArray[np.uint8], text: str, origin_xy: tuple[int, int], scale: float,
               colour_bgr: tuple[int, int, int] = (255, 255, 255), background_bgr: tuple[int, int, int] = (0, 0, 0)) -> None:
    """Text on a filled box, centred on ``origin_xy``; draws into ``image``."""
    thickness = max(1, round(scale * 2))
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
    x, y = int(origin_xy[0] - w / 2), int(origin_xy[1] + h / 2)
    pad = max(2, round(4 * scale))
    cv2.rectangle(image, (x - pad, y - h - pad), (x + w + pad, y + base + pad // 2), background_bgr, -1)
    cv2.putText(image, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour_bgr, thickness, cv2.LINE_AA)


def draw_cards(frame_bgr: NDArray[np.uint8], cards: Sequence[DetectedCard], ids: Sequence[int] | None = None) -> NDArray[np.uint8]:
    """A copy of the frame with every card's outline, its three numbers and its symbols.

    Cards read with low confidence are outlined in orange and marked ``?``.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    cards : the cards read from this frame
    ids : a number to show per card (default: its index)

    Returns
    -------
    annotated_bgr : ndarray (H, W, 3) uint8
    """
    out = frame_bgr.copy()
    ids = list(range(len(cards))) if ids is None else list(ids)
    for card, card_id in zip(cards, ids):
        short = float(np.linalg.norm(card.corners_xy[0] - card.corners_xy[1]))
        doubtful = card.reading.confidence < 0.5
        outline = _DOUBT_BGR if doubtful else _OK_BGR
        thickness = max(2, round(short / 40))
        cv2.polylines(out, [np.round(card.corners_xy).astype(np.int32)], True, outline, thickness, cv2.LINE_AA)
        scale = max(0.35, short / 160)
        for symbol in card.reading.symbols:
            x, y = (int(round(v)) for v in symbol.center_xy)
            draw_label(out, _SHAPE_CODE[symbol.shape], (x, y), scale * 0.6,
                       colour_bgr=(255, 255, 255), background_bgr=COLOUR_BGR[symbol.colour])
        criteria = card.reading.criteria
        numbers = "?" if criteria is None else f"{criteria.colours} {criteria.shapes} {criteria.symbols}"
        text = f"#{card_id}: {numbers}{' ?' if doubtful else ''}"
        top = card.corners_xy[np.argmin(card.corners_xy[:, 1])]
        cx = float(card.corners_xy[:, 0].mean())
        draw_label(out, text, (int(cx), int(top[1] - 14 * scale)), scale, background_bgr=(20, 20, 20) if not doubtful else (0, 90, 170))
    return out
