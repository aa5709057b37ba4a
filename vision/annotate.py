"""Drawing what was read over the frame, so a person sees at a glance what the referee saw."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.cards import Colour, Shape
from vision.pipeline import DetectedCard

__all__ = ["draw_cards", "draw_label", "draw_rows", "draw_panel", "RowOverlay", "COLOUR_BGR", "PLAYER_BGR"]

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
               colour_bgr: tuple[int, int, int] = (255, 255, 255), background_bgr: tuple[int, int, int] = (0, 0, 0),
               taken: list[tuple[int, int, int, int]] | None = None) -> tuple[int, int, int, int]:
    """Text on a filled box, centred on ``origin_xy`` but kept inside the image (a row's
    reason under a card at the edge is read whole); draws into ``image``. With ``taken``
    (the boxes of labels drawn before), the label moves up or down by its own height, a
    step at a time, to the nearest place where it covers none of them, and its box is
    added. Returns its box (x0, y0, x1, y1)."""
    thickness = max(1, round(scale * 2))
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
    pad = max(2, round(4 * scale))
    height, width = image.shape[:2]
    x = int(min(max(origin_xy[0] - w / 2, pad), max(pad, width - 1 - w - pad)))

    def box_at(y_wanted: float) -> tuple[int, int, int, int]:
        y = int(min(max(y_wanted + h / 2, h + pad), max(h + pad, height - 1 - base - pad // 2)))
        return x - pad, y - h - pad, x + w + pad, y + base + pad // 2

    box = box_at(origin_xy[1])
    if taken:
        step = box[3] - box[1] + 1
        tries = [box_at(origin_xy[1] + k * step) for k in (0, 1, -1, 2, -2, 3, -3, 4, -4)]
        box = next((b for b in tries if not any(_overlap(b, other) for other in taken)), box)
    if taken is not None:
        taken.append(box)
    cv2.rectangle(image, box[:2], box[2:], background_bgr, -1)
    cv2.putText(image, text, (box[0] + pad, box[3] - base - pad // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, colour_bgr,
                thickness, cv2.LINE_AA)
    return box


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


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


PLAYER_BGR = ((255, 170, 30), (60, 200, 255), (200, 90, 255), (90, 230, 90), (255, 110, 200), (80, 150, 255))
_ERROR_BGR = (30, 30, 235)


@dataclass(frozen=True)
class RowOverlay:
    """What to draw for one row: its cards' corners left to right and its verdict in words."""

    player: str
    corners: tuple[NDArray[np.float32], ...]
    valid_length: int
    error_index: int | None
    error_text: str
    uncertain: bool
    colour: int | None = None  # the player's colour: their seat's number (default: the row's)
    hidden: tuple[NDArray[np.float64], ...] = ()  # places (4, 2) where a card of the row may lie hidden
    doubtful: tuple[int, ...] = ()  # positions whose card a person should look at (read with doubt, or perhaps a neighbour's)


def draw_rows(image_bgr: NDArray[np.uint8], rows: Sequence[RowOverlay],
              labels: list[tuple[int, int, int, int]] | None = None) -> NDArray[np.uint8]:
    """A copy with each row in its player's colour, positions numbered, the first error boxed.

    Removed cards (from the first error on) are dimmed; a row whose verdict rests on a
    doubtful reading is marked "check!", and each card to look at "?" after its number; a place where a card of the row may lie hidden
    (under a hand at its end, in a gap) is outlined and asked about: "card?". A row's
    title and its error's reason keep clear of the labels drawn before them. The boxes
    (x0, y0, x1, y1) of all labels drawn are added to ``labels`` when given (a panel
    drawn next can keep off them).
    """
    labels = [] if labels is None else labels
    out = image_bgr.copy()
    dim = np.zeros(out.shape[:2], np.uint8)
    for row in rows:
        for corners in row.corners[row.valid_length:]:
            cv2.fillConvexPoly(dim, np.round(corners).astype(np.int32), 255)
    out[dim > 0] = (out[dim > 0] * 0.35).astype(np.uint8)
    for index, row in enumerate(rows):
        colour = PLAYER_BGR[(index if row.colour is None else row.colour) % len(PLAYER_BGR)]
        short = float(np.median([np.linalg.norm(c[0] - c[1]) for c in row.corners]))
        scale = max(0.5, short / 110)
        thickness = max(2, round(short / 25))
        for position, corners in enumerate(row.corners):
            pts = np.round(corners).astype(np.int32)
            is_error = position == row.error_index
            cv2.polylines(out, [pts], True, _ERROR_BGR if is_error else colour, thickness * (2 if is_error else 1), cv2.LINE_AA)
            centre = corners.mean(axis=0)
            number = f"{position + 1}?" if position in row.doubtful else str(position + 1)
            labels.append(draw_label(out, number, (int(centre[0]), int(centre[1])), scale * 1.2,
                                     background_bgr=_ERROR_BGR if is_error else colour,
                                     colour_bgr=(0, 0, 0) if not is_error else (255, 255, 255)))
        for place in row.hidden:
            cv2.polylines(out, [np.round(place).astype(np.int32)], True, colour, max(1, thickness // 2), cv2.LINE_AA)
            centre = place.mean(axis=0)
            labels.append(draw_label(out, "card?", (int(centre[0]), int(centre[1])), scale * 0.9, colour_bgr=(0, 0, 0),
                                     background_bgr=colour))
        middle = np.mean([c.mean(axis=0) for c in row.corners], axis=0)
        top = min(float(c[:, 1].min()) for c in row.corners)
        bottom = max(float(c[:, 1].max()) for c in row.corners)
        title = f"{row.player}: {row.valid_length}" + (" - check!" if row.uncertain else "")
        # Above the row, or below it for a row along the image's top edge (where it would be cut off).
        above = top - 30 * scale - 20 * scale >= 0
        title_y = top - 30 * scale if above else bottom + 30 * scale
        draw_label(out, title, (int(middle[0]), int(title_y)), scale * 1.1, colour_bgr=(0, 0, 0), background_bgr=colour,
                   taken=labels)
        if row.error_index is not None and row.error_text:
            err = row.corners[row.error_index]
            err_y = float(err[:, 1].max()) + 28 * scale + (0 if above else 45 * scale)
            draw_label(out, row.error_text, (int(err[:, 0].mean()), int(err_y)), scale * 0.9, background_bgr=_ERROR_BGR,
                       taken=labels)
    return out


def draw_panel(image_bgr: NDArray[np.uint8], title: str, lines: Sequence[str],
               avoid: Sequence[NDArray] = ()) -> NDArray[np.uint8]:
    """A copy with a readable panel of text (the ranking, the round): in the top-left corner, or
    where it covers the fewest of the outlines in ``avoid`` (cards and their labels): a corner
    when one covers as few as anywhere, else along an edge or over the middle (the pool's
    face-down cards), on a grid of eighths of the image."""
    out = image_bgr.copy()
    scale = max(0.6, out.shape[0] / 1100)
    thickness = max(1, round(scale * 2))
    line_h = int(38 * scale)
    width = max(cv2.getTextSize(t, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)[0][0] for t in [title, *lines]) + int(30 * scale)
    height = line_h * (len(lines) + 1) + int(20 * scale)
    rows, cols = out.shape[:2]
    width, height = min(width, cols), min(height, rows)
    corners = [(0, 0), (cols - width, 0), (0, rows - height), (cols - width, rows - height)]
    steps = np.linspace(0.0, 1.0, 9)
    places = corners + [(round(fx * (cols - width)), round(fy * (rows - height))) for fy in steps for fx in steps]

    def covered(corner: tuple[int, int]) -> int:
        x0, y0 = corner
        count = 0
        for outline in avoid:
            points = np.asarray(outline, np.float64).reshape(-1, 2)
            (left, top), (right, bottom) = points.min(axis=0), points.max(axis=0)
            top -= 2 * line_h  # the label above a card or row
            count += left < x0 + width and right > x0 and top < y0 + height and bottom > y0
        return count

    x0, y0 = min(places, key=covered)  # the first place wins a tie: a corner
    panel = out[y0:y0 + height, x0:x0 + width]
    panel[:] = (panel * 0.25).astype(np.uint8)
    x, y = x0 + int(12 * scale), y0 + int(line_h * 0.9)
    cv2.putText(out, title, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), thickness + 1, cv2.LINE_AA)
    for text in lines:
        y += line_h
        cv2.putText(out, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (230, 230, 230), thickness, cv2.LINE_AA)
    return out
