"""Finding card faces in a camera frame: bright paper quadrilaterals on a darker table."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["CardQuad", "find_cards", "paper_mask", "warp_card", "order_corners", "WORK_LONG_SIDE"]

WORK_LONG_SIDE = 960
_ASPECT_RANGE = (1.0, 2.2)  # a card's long:short side in the image: a 35-degree tilt squeezes or stretches it
_CHROMA_WEIGHT = 2.5  # skin, wood and felt are bright but coloured; paper is grey under the light's cast
_MIN_SHORT_SIDE_PX = 60  # at full resolution: the spec's 80 px, less tilt and blur


@dataclass(frozen=True)
class CardQuad:
    """A card-shaped paper region: corners clockwise on screen, first edge a short side.

    ``corners_xy`` is (4, 2) float32 in full-frame pixels; ``fill`` is the share of
    the quadrilateral covered by paper (low for a partly hidden card).
    """

    corners_xy: NDArray[np.float32]
    fill: float

    def __post_init__(self) -> None:
        if self.corners_xy.shape != (4, 2):
            raise ValueError(f"corners_xy must have shape (4, 2), got {self.corners_xy.shape}")

    @property
    def center_xy(self) -> tuple[float, float]:
        x, y = self.corners_xy.mean(axis=0)
        return float(x), float(y)

    @property
    def size_wh(self) -> tuple[float, float]:
        """Mean short side and mean long side, in pixels."""
        c = self.corners_xy
        sides = np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)
        return float((sides[0] + sides[2]) / 2), float((sides[1] + sides[3]) / 2)


def paper_mask(frame_bgr: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Where the frame shows card paper: bright and nearly grey for the light around it.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8

    Returns
    -------
    mask : ndarray (H, W) uint8, 255 on paper
    """
    white, _ = _whiteness(frame_bgr)
    table, paper = _levels(white)
    return _paper_where(white, table, paper)


def _whiteness(frame_bgr: NDArray[np.uint8], cast_ab: tuple[float, float] | None = None) -> tuple[NDArray[np.float32], tuple[float, float]]:
    """Lightness less chroma, after taking out the light's cast: high on paper only."""
    lab = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2LAB)
    light = lab[..., 0].astype(np.float32)
    a = lab[..., 1].astype(np.float32) - 128
    b = lab[..., 2].astype(np.float32) - 128
    if cast_ab is None:
        # The cast of the light, taken from the brightest pixels (mostly paper).
        sample = (slice(None, None, 3), slice(None, None, 3))
        bright = light[sample] > np.percentile(light[sample], 90)
        cast_ab = (float(np.median(a[sample][bright])), float(np.median(b[sample][bright])))
    a -= cast_ab[0]
    b -= cast_ab[1]
    return light - _CHROMA_WEIGHT * np.sqrt(a * a + b * b), cast_ab


def _paper_where(white: NDArray[np.float32], table: NDArray[np.float32], paper: NDArray[np.float32]) -> NDArray[np.uint8]:
    # Paper lies nearer the paper level than the table level; both are smooth fields, so
    # light falling off across the table and dark objects on it do not move the cut.
    mask = np.where(white > table + 0.5 * (paper - table), 255, 0).astype(np.uint8)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def _levels(white: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
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
    middle = np.median(blocks, axis=1)
    high = np.percentile(blocks, 92, axis=1)
    ys, xs = np.mgrid[0:gh, 0:gw]
    u, v = (xs.ravel() + 0.5) / gw - 0.5, (ys.ravel() + 0.5) / gh - 0.5
    basis = np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=1)
    table_fit = (basis @ _robust_fit(basis, middle, upper=False)).reshape(gh, gw)
    paper_fit = (basis @ _robust_fit(basis, high, upper=True)).reshape(gh, gw)
    # Where the table meets a darker floor at the frame's edge the smooth fit sags:
    # the local median of the cells follows the step.
    local = cv2.blur(cv2.medianBlur(middle.reshape(gh, gw).astype(np.float32), 5), (3, 3))
    table = np.maximum(table_fit, local)
    paper = np.maximum(paper_fit, table + 20.0)
    # A card in a shadow is darker than the paper level but still well above the table:
    # where the cells nearby hold something that bright, take that as the paper level.
    near = cv2.dilate(high.reshape(gh, gw).astype(np.float32), np.ones((3, 3), np.uint8))
    shaded = (near < paper) & (near > table + _SHADE_CONTRAST * (paper - table))
    paper = np.where(shaded, near, paper)
    # The fields are smooth: computed per cell, then spread over the pixels.
    table = cv2.resize(table.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    paper = cv2.resize(paper.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    return table.astype(np.float32), paper.astype(np.float32)


def _robust_fit(basis: NDArray[np.float64], values: NDArray[np.float64], upper: bool) -> NDArray[np.float64]:
    """Least squares that drops outliers; with ``upper`` it climbs to the upper envelope."""
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
    white, cast = _whiteness(small)
    table, paper = _levels(white)
    mask = _paper_where(white, table, paper)
    min_short = _MIN_SHORT_SIDE_PX * scale
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    clean, pending = [], []
    for contour in contours:
        if cv2.contourArea(contour) < 1.2 * min_short * min_short:
            continue
        quad, fill = _fit_quad(contour)
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
    for quad in found:
        if not any(cv2.pointPolygonTest(q.corners_xy, quad.center_xy, False) >= 0 for q in quads):
            quads.append(quad)
    gray = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
    search = 1.0 / scale + 2.0
    return [CardQuad(snap_corners(gray, quad.corners_xy, search), quad.fill) for quad in quads]


def snap_corners(gray: NDArray[np.uint8], corners_xy: NDArray[np.float32], search_px: float) -> NDArray[np.float32]:
    """Corners moved onto the card's true outline, found at full resolution.

    Along the middle of each side the outline is where the light drops most steeply
    going outwards (paper to table), within ``search_px`` of the rough side; a robust
    line through those points replaces the side, and neighbouring sides meet in the
    corners. A side with too few clear points keeps its rough line.

    Parameters
    ----------
    gray : ndarray (H, W) uint8, the full frame
    corners_xy : ndarray (4, 2) float32, clockwise, rough
    search_px : how far the outline may lie from the rough side

    Returns
    -------
    corners_xy : ndarray (4, 2) float32, clockwise, first edge the same short side
    """
    corners = corners_xy.astype(np.float32)
    starts, ends = corners, np.roll(corners, -1, axis=0)
    directions = ends - starts
    directions /= np.maximum(np.hypot(directions[:, 0], directions[:, 1]), 1e-6)[:, None]
    normals = np.stack([directions[:, 1], -directions[:, 0]], axis=1)
    outwards = np.sign(((starts + ends) / 2 - corners.mean(axis=0)) * normals).sum(axis=1)
    normals *= np.where(outwards < 0, -1.0, 1.0).astype(np.float32)[:, None]
    samples = np.linspace(0.15, 0.85, 16, dtype=np.float32)
    offsets = np.arange(-search_px, search_px + 0.01, 0.5, dtype=np.float32)
    points = starts[:, None, :] + samples[None, :, None] * (ends - starts)[:, None, :]  # (4, 16, 2)
    grid = points[:, :, None, :] + offsets[None, None, :, None] * normals[:, None, None, :]  # (4, 16, M, 2)
    flat = grid.reshape(4 * len(samples), len(offsets), 2)
    profile = cv2.remap(gray, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    drop = -np.diff(profile.astype(np.float32), axis=1).reshape(4, len(samples), -1)  # light falling outwards
    best = np.argmax(drop, axis=2)
    strength = np.take_along_axis(drop, best[..., None], axis=2)[..., 0]
    lines = []
    for k in range(4):
        keep = strength[k] >= max(8.0, 0.4 * float(np.median(strength[k])))
        if keep.sum() < 5:
            lines.append((starts[k], directions[k]))
            continue
        along = offsets[best[k][keep]] + 0.25  # the drop lies between two samples
        edge = points[k][keep] + along[:, None] * normals[k][None, :]
        vx, vy, x0, y0 = cv2.fitLine(edge.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], np.float32), np.array([vx, vy], np.float32)))
    snapped = np.array([_meet(lines[k - 1], lines[k]) for k in range(4)], np.float32)
    if not np.all(np.isfinite(snapped)) or np.max(np.abs(snapped - corners)) > 3 * search_px:
        return corners_xy
    return snapped


def _meet(a: tuple[NDArray, NDArray], b: tuple[NDArray, NDArray]) -> NDArray[np.float32]:
    """Where two lines (point, direction) cross."""
    (pa, da), (pb, db) = a, b
    det = float(da[0] * db[1] - da[1] * db[0])
    if abs(det) < 1e-6:
        return np.array([np.nan, np.nan], np.float32)
    t = float((pb[0] - pa[0]) * db[1] - (pb[1] - pa[1]) * db[0]) / det
    return (pa + t * da).astype(np.float32)


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
    order = np.argsort(np.hypot(centres[:, 0] - point_xy[0], centres[:, 1] - point_xy[1]))
    nearest = [others[k] for k in order[:count]]
    sizes = np.array([q.size_wh for q in nearest])
    axes = np.array([_unit(q.corners_xy[2] - q.corners_xy[1]) for q in nearest])
    axes *= np.sign(axes @ axes[0])[:, None]
    mean_axis = axes.mean(axis=0)
    aligned = len(nearest) >= 3 and np.linalg.norm(mean_axis) > 0.95
    return _Typical(float(np.median(sizes[:, 0])), float(np.median(sizes[:, 1])), _unit(mean_axis) if aligned else None)


def _unit(vector: NDArray) -> NDArray[np.float64]:
    return np.asarray(vector, np.float64) / max(float(np.linalg.norm(vector)), 1e-9)


_SHADE_CONTRAST = 0.45  # a shaded card keeps at least this share of its contrast with the table
_CLEAN_FILL = 0.92  # a lone card fills its quadrilateral but for the rounded corners
_HIDDEN_FILL = 0.75  # a card hidden by more than a quarter need not be found


def _refine(frame_bgr: NDArray[np.uint8], contour: NDArray, scale: float, table: NDArray[np.float32],
            paper: NDArray[np.float32], cast: tuple[float, float], typical: tuple[float, float] | None) -> list[CardQuad]:
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
    white, _ = _whiteness(roi, cast)
    low = table[y0:y1, x0:x1]
    high = paper[y0:y1, x0:x1]
    cut = cv2.resize(low + 0.5 * (high - low), size, interpolation=cv2.INTER_LINEAR)
    floor = cv2.resize(low + _SHADE_CONTRAST * 0.5 * (high - low), size, interpolation=cv2.INTER_LINEAR)
    otsu, _ = cv2.threshold(np.clip(white, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    mask = np.where(white > np.maximum(np.minimum(cut, otsu), floor), 255, 0).astype(np.uint8)
    # Sharp edges cut touching cards apart, and a card from a hand or a pale stripe of
    # the cloth beside it; a soft shadow's edge and the grain of the paper stay under the
    # Canny thresholds, which follow the contrast of paper and table here.
    smooth = cv2.GaussianBlur(np.clip(white, 0, 255).astype(np.uint8), (5, 5), 0)
    contrast = float(np.median(high - low))
    strong = float(np.clip(1.0 * contrast, 40.0, 160.0))
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
                grown = _grow(quad, 1.5)
                found.append(CardQuad(grown + np.array([fx0, fy0], np.float32), fill))
    return found


def _split_by_size(contour: NDArray, typical: _Typical | None) -> list[tuple[NDArray[np.float32], float]]:
    """One quad per card in a region: cards lying edge to edge are cut by the cards' size.

    A row of k touching cards is about k short sides long and one long side wide, with the
    long sides of the cards around it running across it; a region far bigger than a card
    that is no such row is a card with something on it, and no card.
    """
    quad, fill = _fit_quad(contour)
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
        and abs(float(_unit(b - a) @ typical.long_axis)) > 0.94
        and abs(across / typical.long - 1) < 0.15
        and abs(along / (count * typical.short) - 1) < 0.12
    )
    if not is_row:
        if quad is None or min(_sides(quad)) > 1.6 * typical.short:
            return []
        return [(quad, fill)]
    area = cv2.contourArea(contour) / max(rw * rh, 1.0)
    parts = []
    for k in range(count):
        t0, t1 = k / count, (k + 1) / count
        corners = np.array([a + (d - a) * t0, b + (c - b) * t0, b + (c - b) * t1, a + (d - a) * t1], np.float32)
        parts.append((order_corners(corners), area))
    return parts


def _grow(corners: NDArray[np.float32], pixels: float) -> NDArray[np.float32]:
    centre = corners.mean(axis=0)
    offsets = corners - centre
    lengths = np.linalg.norm(offsets, axis=1, keepdims=True)
    return (centre + offsets * (1 + pixels * 1.41 / np.maximum(lengths, 1e-6))).astype(np.float32)


def _fit_quad(contour: NDArray) -> tuple[NDArray[np.float32] | None, float]:
    """The card-shaped quadrilateral around a region, and how much of it the region fills."""
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.02, 0.03, 0.04, 0.06):
        poly = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(poly) == 4:
            break
    else:
        poly = cv2.boxPoints(cv2.minAreaRect(contour)).reshape(-1, 1, 2)
    corners = order_corners(poly.reshape(4, 2).astype(np.float32))
    short, long = _sides(corners)
    if short <= 0 or not _ASPECT_RANGE[0] <= long / short <= _ASPECT_RANGE[1]:
        return None, 0.0
    area = cv2.contourArea(corners)
    return corners, float(cv2.contourArea(contour) / area) if area > 0 else 0.0


def _sides(corners: NDArray[np.float32]) -> tuple[float, float]:
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    return float((sides[0] + sides[2]) / 2), float((sides[1] + sides[3]) / 2)


def order_corners(corners_xy: NDArray[np.float32]) -> NDArray[np.float32]:
    """Corners clockwise on screen (y down), starting so that the first edge is a short side.

    Parameters
    ----------
    corners_xy : ndarray (4, 2) float32, in any order

    Returns
    -------
    ndarray (4, 2) float32
    """
    center = corners_xy.mean(axis=0)
    angles = np.arctan2(corners_xy[:, 1] - center[1], corners_xy[:, 0] - center[0])
    ordered = corners_xy[np.argsort(angles)]  # clockwise on screen, since y points down
    sides = np.linalg.norm(ordered - np.roll(ordered, -1, axis=0), axis=1)
    if sides[0] + sides[2] > sides[1] + sides[3]:
        ordered = np.roll(ordered, -1, axis=0)
    # Of the two short edges, start with the one nearer the top of the screen, for a stable order.
    if ordered[2:4, 1].mean() < ordered[0:2, 1].mean():
        ordered = np.roll(ordered, -2, axis=0)
    return ordered.astype(np.float32)


def warp_card(frame_bgr: NDArray[np.uint8], corners_xy: NDArray[np.float32], short_side: int = 120) -> NDArray[np.uint8]:
    """The card inside ``corners_xy`` as an upright portrait image.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    corners_xy : ndarray (4, 2) float32, clockwise, first edge a short side
    short_side : width of the output in pixels; the height keeps the card's aspect

    Returns
    -------
    card_bgr : ndarray (h, short_side, 3) uint8
    """
    short, long = _sides(corners_xy)
    width = short_side
    height = int(round(short_side * long / max(short, 1e-6)))
    target = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], np.float32)
    matrix = cv2.getPerspectiveTransform(corners_xy.astype(np.float32), target)
    return cv2.warpPerspective(frame_bgr, matrix, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
