"""Finding card faces in a camera frame: bright paper quadrilaterals on a darker table."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.paper import SHADE_CONTRAST, levels, paper_mask, paper_where, shade, whiteness
from vision.quads import CardQuad, fit_quad, grow, order_corners, sides, snap_all_corners, unit, warp_card

__all__ = ["CardQuad", "find_cards", "paper_mask", "warp_card", "order_corners", "WORK_LONG_SIDE"]

WORK_LONG_SIDE = 960
_MIN_SHORT_SIDE_PX = 60  # at full resolution: the spec's 80 px, less tilt and blur
_CLEAN_FILL = 0.92  # a lone card fills its quadrilateral but for the rounded corners
_HIDDEN_FILL = 0.75  # a card hidden by more than a quarter need not be found


def find_cards(frame_bgr: NDArray[np.uint8]) -> list[CardQuad]:
    """Every card-shaped paper region in the frame.

    Paper is found at a working resolution; a region that is not one clean card
    (two cards touching, a card under a hand) is looked at again at full resolution,
    cut along its edges and, where cards still touch, split by the cards' size.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8

    Returns
    -------
    quads : list of CardQuad, in full-frame pixels; face-down cards and other
        objects are not filtered here (``read_card`` tells a face from anything else).
    """
    scale = min(1.0, WORK_LONG_SIDE / max(frame_bgr.shape[:2]))
    small = cv2.resize(frame_bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else frame_bgr
    white, cast = whiteness(small)
    table, paper = levels(white)
    light = shade(small)
    if light is not None:
        # A card in a shadow is as much darker as the table around it.
        table, paper = table * light, paper * light
    mask = paper_where(white, table, paper)
    min_short = _MIN_SHORT_SIDE_PX * scale
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    clean, pending = [], []
    for contour in contours:
        if cv2.contourArea(contour) < 1.2 * min_short * min_short:
            continue
        quad, fill = fit_quad(contour)
        if quad is not None and fill >= _CLEAN_FILL:
            clean.append((CardQuad(quad / scale, fill), contour))
        else:
            pending.append(contour)
    singles = [quad for quad, _ in clean]
    quads = []
    for quad, contour in clean:
        # Two cards lying edge to edge look like one big card: look again at full size.
        typical = _typical_near(singles, quad.center_xy, exclude=quad)
        if typical is not None and quad.size_wh[0] > 1.25 * typical.short:
            pending.append(contour)
        else:
            quads.append(quad)
    found = []
    for contour in pending:
        x, y, w, h = cv2.boundingRect(contour)
        typical = _typical_near(quads, ((x + w / 2) / scale, (y + h / 2) / scale))
        found.extend(_refine(frame_bgr, contour, scale, table, paper, cast, typical))
    quads = _add_new(quads, found)
    quads = _add_new(quads, _outlined_cards(white, scale, quads))
    gray = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
    search = 1.0 / scale + 2.0
    partial = []
    for quad in quads:
        # Only a card found short of its neighbours' size, or not filling its region,
        # may lie partly in a shadow: only then is its outline looked for further out.
        typical = _typical_near(quads, quad.center_xy, exclude=quad)
        partial.append(quad.fill < _CLEAN_FILL or (
            typical is not None and (quad.size_wh[0] < 0.92 * typical.short or quad.size_wh[1] < 0.92 * typical.long)
        ))
    snapped = snap_all_corners(gray, [quad.corners_xy for quad in quads], search, partial)
    return [CardQuad(corners, quad.fill) for corners, quad in zip(snapped, quads)]


def _add_new(quads: list[CardQuad], more: list[CardQuad]) -> list[CardQuad]:
    """``quads`` and those of ``more`` whose centre lies in none of them."""
    kept = list(quads)
    for quad in more:
        if not any(cv2.pointPolygonTest(q.corners_xy, quad.center_xy, False) >= 0 for q in kept):
            kept.append(quad)
    return kept


def _outlined_cards(white: NDArray[np.float32], scale: float, found: list[CardQuad]) -> list[CardQuad]:
    """Cards whose paper is too close to the table's light to stand out, by their outline.

    A closed ring of edges the size and shape of the cards found around it is taken as
    a card (the reader then tells a face from anything else).
    """
    if not found:
        return []
    smooth = cv2.GaussianBlur(np.clip(white, 0, 255).astype(np.uint8), (3, 3), 0)
    edges = cv2.dilate(cv2.Canny(smooth, 25, 60), np.ones((3, 3), np.uint8))
    inside = np.where(edges == 0, 255, 0).astype(np.uint8)
    contours, _ = cv2.findContours(inside, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    sizes = np.array([q.size_wh for q in found]) * scale
    low, high = 0.7 * sizes.min(axis=0), 1.4 * sizes.max(axis=0)
    known = np.zeros(white.shape, np.uint8)
    for quad in found:
        cv2.fillConvexPoly(known, np.round(quad.corners_xy * scale).astype(np.int32), 255)
    cards = []
    for contour in contours:
        (cx, cy), (w, h), _ = cv2.minAreaRect(contour)
        if not (low[0] <= min(w, h) <= high[0] and low[1] <= max(w, h) <= high[1]):
            continue
        if known[min(int(cy), known.shape[0] - 1), min(int(cx), known.shape[1] - 1)]:
            continue  # a card found already
        quad, fill = fit_quad(contour)
        if quad is None or fill < _CLEAN_FILL:
            continue
        card = CardQuad(grow(quad, 1.5) / scale, fill)  # the ring of edges ate about a pixel and a half
        typical = _typical_near(found, card.center_xy)
        short, long = card.size_wh
        if typical is not None and 0.8 < short / typical.short < 1.25 and 0.8 < long / typical.long < 1.25:
            cards.append(card)
    return cards


@dataclass(frozen=True)
class _Typical:
    """The cards found near a place: their median short and long side (frame pixels), and
    whether their long sides run one way (the unit vector) or every which way (None)."""

    short: float
    long: float
    long_axis: NDArray[np.float64] | None


def _typical_near(quads: list[CardQuad], point_xy: tuple[float, float], exclude: CardQuad | None = None,
                  count: int = 4) -> _Typical | None:
    """The size of the cards nearest a point (cards far from the camera of a tilted view
    look smaller), from the cards found there."""
    others = [q for q in quads if q is not exclude]
    if not others:
        return None
    centres = np.array([q.center_xy for q in others])
    order = np.argsort(np.hypot(centres[:, 0] - point_xy[0], centres[:, 1] - point_xy[1]))[:count]
    sizes = np.array([others[k].size_wh for k in order])
    axes = np.array([others[k].corners_xy[2] - others[k].corners_xy[1] for k in order], np.float64)
    axes /= np.maximum(np.hypot(axes[:, 0], axes[:, 1]), 1e-9)[:, None]
    axes *= np.sign(axes @ axes[0])[:, None]
    mean_axis = axes.mean(axis=0)
    aligned = len(order) >= 3 and np.hypot(*mean_axis) > 0.95
    middle = np.sort(sizes, axis=0)[(len(sizes) - 1) // 2 : len(sizes) // 2 + 1].mean(axis=0)
    return _Typical(float(middle[0]), float(middle[1]), unit(mean_axis) if aligned else None)


def _refine(frame_bgr: NDArray[np.uint8], contour: NDArray, scale: float, table: NDArray[np.float32],
            paper: NDArray[np.float32], cast: tuple[float, float], typical: _Typical | None) -> list[CardQuad]:
    """Cards in one unclear paper region, looked at again at full resolution.

    The region may be part of a card in a shadow, so the cut here also follows the
    region's own surroundings (Otsu's threshold), and the paper may grow beyond it.
    """
    x, y, w, h = cv2.boundingRect(contour)
    pad = max(3, round(0.4 * max(w, h)))
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(table.shape[1], x + w + pad), min(table.shape[0], y + h + pad)
    fx0, fy0 = int(x0 / scale), int(y0 / scale)
    fx1, fy1 = min(frame_bgr.shape[1], int(np.ceil(x1 / scale))), min(frame_bgr.shape[0], int(np.ceil(y1 / scale)))
    roi = frame_bgr[fy0:fy1, fx0:fx1]
    if roi.size == 0:
        return []
    size = (roi.shape[1], roi.shape[0])
    white, _ = whiteness(roi, cast)
    low = table[y0:y1, x0:x1]
    high = paper[y0:y1, x0:x1]
    cut = cv2.resize(low + 0.5 * (high - low), size, interpolation=cv2.INTER_LINEAR)
    floor = cv2.resize(low + SHADE_CONTRAST * 0.5 * (high - low), size, interpolation=cv2.INTER_LINEAR)
    otsu, _ = cv2.threshold(np.clip(white, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    mask = np.where(white > np.maximum(np.minimum(cut, otsu), floor), 255, 0).astype(np.uint8)
    # Sharp edges cut touching cards apart, and a card from a hand or a pale stripe of
    # the cloth beside it; a soft shadow's edge and the grain of the paper stay under the
    # Canny thresholds, which follow the contrast of paper and table here.
    smooth = cv2.GaussianBlur(np.clip(white, 0, 255).astype(np.uint8), (5, 5), 0)
    contrast = float(np.median(high - low))
    strong = float(np.clip(1.4 * contrast, 50.0, 220.0))
    edges = cv2.Canny(smooth, strong / 2, strong)
    mask[cv2.dilate(edges, np.ones((3, 3), np.uint8)) > 0] = 0
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    seed = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(seed, [contour - (x0, y0)], -1, 255, -1)
    seed = cv2.resize(seed, size, interpolation=cv2.INTER_NEAREST)
    min_short = _MIN_SHORT_SIDE_PX * 0.8
    found = []
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for part in contours:
        if cv2.contourArea(part) < 1.2 * min_short * min_short:
            continue
        inside = np.zeros_like(mask)
        cv2.drawContours(inside, [part], -1, 255, -1)
        if np.count_nonzero(inside & seed) < 0.3 * np.count_nonzero(inside):
            continue  # another region's paper, seen in the margin
        for quad, fill in _split_by_size(part, typical):
            if fill >= _HIDDEN_FILL:
                # The edge cut ate about a pixel and a half along every side.
                grown = grow(quad, 1.5)
                found.append(CardQuad(grown + np.array([fx0, fy0], np.float32), fill))
    return found


def _split_by_size(contour: NDArray, typical: _Typical | None) -> list[tuple[NDArray[np.float32], float]]:
    """One quad per card in a region: cards lying edge to edge are cut by the cards' size.

    A row of k touching cards is about k short sides long and one long side wide, with the
    long sides of the cards around it running across it; a region far bigger than a card
    that is no such row is a card with something on it, and no card.
    """
    quad, fill = fit_quad(contour)
    if typical is None:
        return [(quad, fill)] if quad is not None else []
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(contour)
    box = order_corners(cv2.boxPoints(((cx, cy), (rw, rh), angle)).astype(np.float32))
    a, b, c, d = box  # a-b is a short edge of the region; the cards follow one another from a-b to d-c
    across, along = float(np.linalg.norm(b - a)), float(np.linalg.norm(d - a))
    count = int(round(along / typical.short))
    is_row = (
        typical.long_axis is not None
        and count >= 2
        and abs(float(unit(b - a) @ typical.long_axis)) > 0.94
        and abs(across / typical.long - 1) < 0.15
        and abs(along / (count * typical.short) - 1) < 0.12
    )
    if not is_row:
        if quad is None or min(sides(quad)) > 1.6 * typical.short:
            return []
        return [(quad, fill)]
    area = cv2.contourArea(contour) / max(rw * rh, 1.0)
    parts = []
    for k in range(count):
        t0, t1 = k / count, (k + 1) / count
        corners = np.array([a + (d - a) * t0, b + (c - b) * t0, b + (c - b) * t1, a + (d - a) * t1], np.float32)
        parts.append((order_corners(corners), area))
    return parts
