"""Face-down cards: where the pool's heap of card backs lies.

The finder (``vision.find``) reports face-up cards only. The backs all share one printed
design, never a white face: the deck's back is dark with a thin light frame line printed
just inside its edge. That line is the cue: a thin light stroke on a darker ground, which a
face (white all over), a table's stripes or dots (wide or round), a mug's rim or a phone
(no light line) do not make. Seen on a card's scale, the backs' lines lie close together
over the heap: where their density, over most of a card, stays high is the heap's region.
Strokes beside pale paper (a face, a point card's margin) are left out; a band along one
long stroke (the table's edge, wood grain) is too narrow for a heap, one lone back too small.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.quads import grow

__all__ = ["find_backs", "heap_share"]

_SHORT_PX = 50.0  # the work copy is scaled so that a card's short side is about this long
_LINE_PX = 5  # a light stroke thinner than this (on the work copy) is a printed line
_LINE_CONTRAST = 0.16  # a line stands out from its ground by this share of the faces' white
_PALE = 0.55  # paper at least this share of the faces' white is pale
_PALE_WIDE, _PALE_NEAR = 0.3, 0.15  # pale paper this wide (in short sides) and strokes this near it are no back's
_CELLS = 8  # line density is counted in cells this many to a card's short side
_SPREAD = 6  # the density is averaged over this many cells square (3/4 of a short side)
_LINE_DENSITY = 0.03  # a heap is at least this share line there (a back's frame is about 0.06 of the card)
_HEAP_WIDE = 0.4  # a heap is this many short sides wide everywhere,
_HEAP_DEEP = 0.6  # somewhere this many short sides in from its edge (a lone back about 0.5 plus the spread),
_HEAP_CARDS = 1.6  # and covers this many cards' area at least
_LOWEST_WHITE = 0.3  # the faces' white, fitted across the table, is kept above this share of its top
_RING = 0.2  # a card's surroundings looked at: this many short sides out from its edge
_RING_POINTS = 12  # points looked at along each side of that ring


def find_backs(frame_bgr: NDArray[np.uint8], face_corners: Sequence[NDArray] = ()) -> tuple[NDArray[np.float64], ...]:
    """The regions where card backs lie heaped, as outlines (N, 2) in image pixels.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    face_corners : the face-up cards' corners (4, 2) in image pixels: their size sets the
        scale, their paper the white a line is measured against, and they are no backs

    Returns
    -------
    tuple of ndarray (N, 2) float64, one outline per heap; empty when none is seen.
    """
    height, width = frame_bgr.shape[:2]
    quads = [np.asarray(q, np.float64).reshape(4, 2) for q in face_corners]
    if quads:
        short = float(np.median([min(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[1])) for q in quads]))
    else:
        short = 2 * _SHORT_PX * width / 1920  # about a card's short side in a photo of a whole table
    # A whole shrink factor: OpenCV's area shrink is many times faster by one.
    step = max(1, int(short / _SHORT_PX))
    scale = 1.0 / step
    short_px = short * scale  # a card's short side on the work copy
    small = frame_bgr if step == 1 else cv2.resize(
        frame_bgr[:height - height % step, :width - width % step], (width // step, height // step), interpolation=cv2.INTER_AREA)
    b, g, r = cv2.split(small)
    whiteness = cv2.min(cv2.min(b, g), r)  # light grey and white lines are bright in every channel
    faces = np.zeros(whiteness.shape, np.uint8)
    cv2.fillPoly(faces, [np.round(q * scale).astype(np.int32) for q in quads], 255)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (_LINE_PX, _LINE_PX))
    tophat = cv2.morphologyEx(whiteness, cv2.MORPH_TOPHAT, kernel)
    white = _white(whiteness, quads, scale)
    lines = cv2.compare(tophat.astype(np.float32), _LINE_CONTRAST * white, cv2.CMP_GT)
    # Pale paper wider than a line (a face, seen or not, a point card) and the strokes around it are no back's.
    pale = cv2.compare(whiteness.astype(np.float32), _PALE * white, cv2.CMP_GT)
    wide = max(3, round(_PALE_WIDE * short_px))
    pale = cv2.morphologyEx(pale, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (wide, wide)))
    near = 2 * max(1, round(_PALE_NEAR * short_px)) + 1
    lines[cv2.dilate(pale, cv2.getStructuringElement(cv2.MORPH_RECT, (near, near))) > 0] = 0
    lines[cv2.dilate(faces, kernel) > 0] = 0
    # Line density over a cell grid, then over most of a card: the heap is where it stays high.
    cell = max(1, round(short_px / _CELLS))
    grid = cv2.resize(lines, (max(1, lines.shape[1] // cell), max(1, lines.shape[0] // cell)), interpolation=cv2.INTER_AREA)
    density = cv2.blur(grid.astype(np.float32) / 255, (_SPREAD, _SPREAD))
    heap = (density > _LINE_DENSITY).astype(np.uint8)
    # A heap is a card wide at least: a band along one long stroke (the table's edge, wood grain) is not.
    band = 2 * round(_HEAP_WIDE * _CELLS / 2) + 1
    heap = cv2.morphologyEx(heap, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (band, band)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(heap)
    card_cells = 1.45 * (short_px / cell) ** 2  # a card's long side is 1.35-1.6 short sides
    # How far in from its edge each cell lies: a heap holds a card's middle, half a card in.
    depth = cv2.distanceTransform(cv2.copyMakeBorder(heap, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0), cv2.DIST_L2, 3)[1:-1, 1:-1]
    thick = np.zeros(count)
    np.maximum.at(thick, labels.ravel(), depth.ravel())
    found = []
    for k in range(1, count):
        if stats[k, cv2.CC_STAT_AREA] < _HEAP_CARDS * card_cells or thick[k] < _HEAP_DEEP * short_px / cell:
            continue
        outline, _ = cv2.findContours(cv2.compare(labels, k, cv2.CMP_EQ), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        points = max(outline, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
        found.append((points + 0.5) * cell / scale)
    return tuple(found)


def _white(whiteness: NDArray[np.uint8], quads: list[NDArray[np.float64]], scale: float) -> NDArray[np.float32]:
    """The faces' white across the work copy (H, W): a plane through each face's median
    whiteness (light falls off smoothly across a table), or one level without three faces."""
    height, width = whiteness.shape
    levels, centres = [], []
    for quad in quads:
        x0, y0 = np.maximum(np.floor(quad.min(axis=0) * scale).astype(int), 0)
        x1, y1 = np.ceil(quad.max(axis=0) * scale).astype(int) + 1
        mask = np.zeros((max(0, min(y1, height) - y0), max(0, min(x1, width) - x0)), np.uint8)
        if mask.size == 0:
            continue
        cv2.fillPoly(mask, [np.round(quad * scale - (x0, y0)).astype(np.int32)], 255)
        if mask.any():
            levels.append(float(np.median(whiteness[y0:y0 + mask.shape[0], x0:x0 + mask.shape[1]][mask > 0])))
            centres.append(quad.mean(axis=0) * scale)
    if not levels:
        return np.full((height, width), float(np.percentile(whiteness, 99)), np.float32)
    top = max(levels)
    if len(levels) < 3:
        return np.full((height, width), float(np.median(levels)), np.float32)
    design = np.column_stack([np.ones(len(levels)), np.asarray(centres)])
    coef, *_ = np.linalg.lstsq(design, np.asarray(levels), rcond=None)
    xs, ys = np.arange(width, dtype=np.float32), np.arange(height, dtype=np.float32)
    plane = np.float32(coef[0]) + np.float32(coef[1]) * xs[None, :] + np.float32(coef[2]) * ys[:, None]
    return np.clip(plane, _LOWEST_WHITE * top, top).astype(np.float32)


def heap_share(card_xy: NDArray, heaps_xy: Sequence[NDArray[np.float64]]) -> float:
    """The share of a card's surroundings (a ring ``_RING`` short sides out from its edge)
    that lies on a heap of backs: near 1 for a card on the heap, 0 for one away from it.

    Parameters
    ----------
    card_xy : ndarray (4, 2), the card's corners in image pixels
    heaps_xy : outlines (N, 2) from ``find_backs``
    """
    if not heaps_xy:
        return 0.0
    quad = np.asarray(card_xy, np.float64).reshape(4, 2)
    short = min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1]))
    out = grow(quad, _RING * short).astype(np.float64)
    steps = np.linspace(0.0, 1.0, _RING_POINTS, endpoint=False)[:, None]
    points = np.vstack([out[k] + steps * (out[(k + 1) % 4] - out[k]) for k in range(4)])
    contours = [h.astype(np.float32).reshape(-1, 1, 2) for h in heaps_xy]
    hits = sum(any(cv2.pointPolygonTest(c, (float(x), float(y)), False) >= 0 for c in contours) for x, y in points)
    return hits / len(points)
