"""Card quadrilaterals: their corners in order, their fit to a region and to the outline, the warp."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["CardQuad", "at_card_uv", "cut_across", "order_corners", "warp_card", "fit_quad", "snap_corners", "snap_all_corners", "sides", "grow", "unit", "fit_lines", "meet_lines", "sides_outwards", "square_up", "frame_level", "ASPECT_RANGE",
           "ADDED_TABLE", "across_side", "added_beyond", "colours_at", "like_table", "paper_alike", "paper_beyond", "skew_deg", "are_twins"]

ASPECT_RANGE = (1.0, 2.2)  # a card's long:short side in the image: a 35-degree tilt squeezes or stretches it
# In every view the spec allows, a card's opposite sides differ in direction by at most 4.4
# degrees (dev renders); more than this, and one side is a shadow's or a hand's edge across it.
_SKEW_DEG = 5.0
_MAX_SQUARED_GROWTH = 1.8  # a side moved out may grow the quad's area at most this many times
# Paper beyond a side is looked for this far out (share of the short side), matched by a
# chroma difference below _BEYOND_CHROMA; the two sides must differ by _BEYOND_MARGIN of points.
_BEYOND_DEPTH, _BEYOND_CHROMA, _BEYOND_MARGIN = 0.1, 0.03, 0.2
# ... and at least this share of what squaring adds must match the card's paper so.
_ADDED_PAPER = 0.5
# Without paper beyond either side, the table beyond them must differ by this share of points,
# and at most this share of what squaring adds may look like the table.
_TABLE_MARGIN, ADDED_TABLE = 0.4, 0.3


@dataclass(frozen=True)
class CardQuad:
    """A card-shaped paper region: corners clockwise on screen, first edge a short side.

    ``corners_xy`` is (4, 2) float32 in full-frame pixels; ``fill`` is the share of
    the quadrilateral covered by paper (low for a partly hidden card).
    """

    corners_xy: NDArray[np.float32]
    fill: float
    center_xy: tuple[float, float] = field(init=False, compare=False)
    size_wh: tuple[float, float] = field(init=False, compare=False)  # mean short side, mean long side

    def __post_init__(self) -> None:
        if self.corners_xy.shape != (4, 2):
            raise ValueError(f"corners_xy must have shape (4, 2), got {self.corners_xy.shape}")
        # (the mean as numpy takes it, the corners' sum over four, without ``mean``'s cost per call)
        x, y = (np.add.reduce(self.corners_xy, axis=0) / 4).tolist()
        object.__setattr__(self, "center_xy", (x, y))
        object.__setattr__(self, "size_wh", sides(self.corners_xy))


def fit_quad(contour: NDArray) -> tuple[NDArray[np.float32] | None, float]:
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
    if skew_deg(corners) > _MAX_SKEW_DEG:
        # One corner pulled off by something touching the card: its rectangle is closer.
        corners = order_corners(cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float32))
    short, long = sides(corners)
    if short <= 0 or not ASPECT_RANGE[0] <= long / short <= ASPECT_RANGE[1]:
        return None, 0.0
    area = cv2.contourArea(corners)
    return corners, float(cv2.contourArea(contour) / area) if area > 0 else 0.0


_MAX_SKEW_DEG = 14.0  # opposite sides of a card seen at up to 35 degrees stay within this of parallel


def skew_deg(corners: NDArray[np.float32]) -> float:
    """The larger angle between opposite sides of a quadrilateral, in degrees."""
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = corners.tolist()
    angles = []
    for (ux, uy), (vx, vy) in (((bx - ax, by - ay), (cx - dx, cy - dy)), ((cx - bx, cy - by), (dx - ax, dy - ay))):
        cos = (ux * vx + uy * vy) / max(math.hypot(ux, uy) * math.hypot(vx, vy), 1e-9)
        angles.append(math.degrees(math.acos(min(1.0, max(-1.0, cos)))))
    return max(angles)


def _skew_pairs(corners: NDArray[np.float32]) -> tuple[float, float]:
    """The angles (degrees) by which the first and third side, and the second and fourth,
    of a quadrilateral (4, 2) are off parallel, as ``square_up`` measures them."""
    points = corners.tolist()
    heading = [math.degrees(math.atan2(q[1] - p[1], q[0] - p[0])) for p, q in zip(points, points[1:] + points[:1])]
    return abs((heading[0] - heading[2]) % 360 - 180), abs((heading[1] - heading[3]) % 360 - 180)


def sides(corners: NDArray[np.float32]) -> tuple[float, float]:
    """The mean of the first and third side, and of the second and fourth."""
    a, b, c, d = corners.tolist()
    return (math.dist(a, b) + math.dist(c, d)) / 2, (math.dist(b, c) + math.dist(d, a)) / 2


# Two quads moved onto one card's outline (a piece of it found apart, grown to the whole card)
# overlap this much of the smaller at least: one card's. Cards a card lies on show far less (a
# pool card half covered: 0.5).
_TWINS = 0.85


def are_twins(a: NDArray[np.float32], b: NDArray[np.float32], area_a: float | None = None, area_b: float | None = None) -> bool:
    """Whether two quads (4, 2) are one card's: one covers ``_TWINS`` of the smaller at least
    (their areas, when at hand)."""
    area_a = cv2.contourArea(a) if area_a is None else area_a
    area_b = cv2.contourArea(b) if area_b is None else area_b
    return cv2.intersectConvexConvex(a, b)[0] >= _TWINS * min(area_a, area_b)


def at_card_uv(quads: NDArray[np.float32], uv: NDArray[np.float64]) -> NDArray[np.float64]:
    """Points given in each card's own coordinates, u along its first side and v along its
    second, both 0 to 1 (P, 2: the same for every card; or N, P, 2), in the frame: (N, P, 2),
    the blend of the quads' (N, 4, 2) corners."""
    uv = np.asarray(uv, np.float64)
    uv = uv[None] if uv.ndim == 2 else uv
    u, v = uv[..., :1], uv[..., 1:]
    a, b, c, d = (quads[:, None, i].astype(np.float64) for i in range(4))
    return (1 - v) * ((1 - u) * a + u * b) + v * ((1 - u) * d + u * c)


def grow(corners: NDArray[np.float32], pixels: float) -> NDArray[np.float32]:
    """Quadrilaterals (..., 4, 2) grown by about ``pixels`` along each side."""
    centre = corners.mean(axis=-2, keepdims=True)
    offsets = corners - centre
    lengths = np.linalg.norm(offsets, axis=-1, keepdims=True)
    return (centre + offsets * (1 + pixels * 1.41 / np.maximum(lengths, 1e-6))).astype(np.float32)


def unit(vector: NDArray) -> NDArray[np.float64]:
    return np.asarray(vector, np.float64) / max(float(np.linalg.norm(vector)), 1e-9)


def snap_corners(gray: NDArray[np.uint8], corners_xy: NDArray[np.float32], search_px: float) -> NDArray[np.float32]:
    """Corners moved onto the card's true outline, found at full resolution.

    One card's worth of ``snap_all_corners``; see there.
    """
    return snap_all_corners(gray, [corners_xy], search_px)[0]


def snap_all_corners(gray: NDArray[np.uint8], quads_xy: list[NDArray[np.float32]], search_px: float) -> list[NDArray[np.float32]]:
    """Every card's corners moved onto its true outline, found at full resolution.

    Along the middle of each side the outline is where the light drops most steeply
    going outwards (paper to table), within ``search_px`` of the rough side; a line
    through those points (fitted twice, dropping points off the first line) replaces
    the side, and neighbouring sides meet in the corners. A side with too few clear
    points keeps its rough line. All cards are sampled at once.

    Parameters
    ----------
    gray : ndarray (H, W) uint8, the full frame
    quads_xy : list of ndarray (4, 2) float32, clockwise, rough
    search_px : how far the outline may lie from the rough side (further out, a side
        found short of the card reaches it with ``vision.outline.reach_outlines``)

    Returns
    -------
    list of ndarray (4, 2) float32, clockwise, first edge the same short side
    """
    if not quads_xy:
        return []
    corners = np.array(quads_xy, np.float32)  # (N, 4, 2)
    starts, ends, directions, normals = sides_outwards(corners)
    samples = np.linspace(0.15, 0.85, 16, dtype=np.float32)
    offsets = np.arange(-search_px, search_px + 0.01, 0.5, dtype=np.float32)
    points = starts[:, :, None, :] + samples[None, None, :, None] * (ends - starts)[:, :, None, :]  # (N, 4, S, 2)
    grid = points[..., None, :] + offsets[None, None, None, :, None] * normals[:, :, None, None, :]
    flat = grid.reshape(-1, len(offsets), 2)
    profile = cv2.remap(gray, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    drop = -np.diff(profile.astype(np.float32), axis=1).reshape(*points.shape[:3], -1)  # light falling outwards
    best = np.argmax(drop, axis=3)
    strength = np.take_along_axis(drop, best[..., None], axis=3)[..., 0]
    keep = strength >= np.maximum(8.0, 0.4 * np.median(strength, axis=2, keepdims=True))
    edge = points + (offsets[best] + 0.25)[..., None] * normals[:, :, None, :]  # the drop lies between samples
    origin, direction = fit_lines(edge, keep)
    usable = keep.sum(axis=2) >= 5
    origin = np.where(usable[..., None], origin, starts)
    direction = np.where(usable[..., None], direction, directions)
    snapped = meet_lines(np.roll(origin, 1, axis=1), np.roll(direction, 1, axis=1), origin, direction)
    moved = np.abs(snapped - corners).reshape(len(corners), -1).max(axis=1)
    bad = ~np.isfinite(snapped).reshape(len(corners), -1).all(axis=1) | (moved > 3 * search_px)
    snapped[bad] = corners[bad]
    return list(snapped)


def fit_lines(points: NDArray[np.float32], keep: NDArray[np.bool_]) -> tuple[NDArray, NDArray]:
    """Total-least-squares lines through the kept points of every side, fitted twice
    (the second time without points more than 1.5 px off the first line).

    points : (N, 4, S, 2); keep : (N, 4, S). Returns origins and unit directions, (N, 4, 2).
    """
    weight = keep.astype(np.float32)
    for _ in range(2):
        total = np.maximum(weight.sum(axis=2, keepdims=True), 1e-6)
        origin = (points * weight[..., None]).sum(axis=2, keepdims=True) / total[..., None]
        centred = (points - origin) * weight[..., None]
        sxx = (centred[..., 0] * centred[..., 0]).sum(axis=2)
        syy = (centred[..., 1] * centred[..., 1]).sum(axis=2)
        sxy = (centred[..., 0] * centred[..., 1]).sum(axis=2)
        angle = 0.5 * np.arctan2(2 * sxy, sxx - syy)
        direction = np.stack([np.cos(angle), np.sin(angle)], axis=-1).astype(np.float32)
        normal = np.stack([-direction[..., 1], direction[..., 0]], axis=-1)
        off = np.abs(((points - origin) * normal[:, :, None, :]).sum(axis=3))
        weight = (keep & (off <= 1.5)).astype(np.float32)
    return origin[:, :, 0, :], direction


def meet_lines(pa: NDArray, da: NDArray, pb: NDArray, db: NDArray) -> NDArray[np.float32]:
    """Where lines (pa, da) and (pb, db) cross, element by element; NaN where parallel."""
    det = da[..., 0] * db[..., 1] - da[..., 1] * db[..., 0]
    t = ((pb[..., 0] - pa[..., 0]) * db[..., 1] - (pb[..., 1] - pa[..., 1]) * db[..., 0]) / np.where(np.abs(det) < 1e-6, np.nan, det)
    return (pa + t[..., None] * da).astype(np.float32)


def order_corners(corners_xy: NDArray[np.float32]) -> NDArray[np.float32]:
    """Corners clockwise on screen (y down), starting so that the first edge is a short side.

    Parameters
    ----------
    corners_xy : ndarray (4, 2) float32, in any order

    Returns
    -------
    ndarray (4, 2) float32
    """
    points = corners_xy.tolist()
    cx, cy = sum(p[0] for p in points) / 4, sum(p[1] for p in points) / 4
    points.sort(key=lambda p: math.atan2(p[1] - cy, p[0] - cx))  # clockwise on screen, since y points down
    lengths = [math.dist(points[k], points[(k + 1) % 4]) for k in range(4)]
    if lengths[0] + lengths[2] > lengths[1] + lengths[3]:
        points = points[1:] + points[:1]
    # Of the two short edges, start with the one nearer the top of the screen, for a stable order.
    if points[2][1] + points[3][1] < points[0][1] + points[1][1]:
        points = points[2:] + points[:2]
    return np.array(points, np.float32)


def cut_across(corners_xy: NDArray[np.float32], at: Sequence[float]) -> list[NDArray[np.float32]]:
    """A quad cut into parts from its first side to its third, along lines parallel to the
    first side at ``at`` (shares of the way, from 0 to 1 in order, both ends included), each
    part's corners in ``order_corners``' order."""
    a, b, c, d = np.asarray(corners_xy, np.float32)
    return [order_corners(np.array([a + (d - a) * t0, b + (c - b) * t0, b + (c - b) * t1, a + (d - a) * t1], np.float32))
            for t0, t1 in zip(at[:-1], at[1:])]


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
    short, long = sides(corners_xy)
    width = short_side
    height = int(round(short_side * long / max(short, 1e-6)))
    target = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], np.float32)
    matrix = cv2.getPerspectiveTransform(corners_xy.astype(np.float32), target)
    return cv2.warpPerspective(frame_bgr, matrix, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def sides_outwards(corners: NDArray[np.float32]) -> tuple[NDArray[np.float32], ...]:
    """Each side's start, end, unit direction and unit normal pointing away from the card: (N, 4, 2) each."""
    starts, ends = corners, np.roll(corners, -1, axis=1)
    directions = ends - starts
    directions /= np.maximum(np.linalg.norm(directions, axis=2, keepdims=True), 1e-6)
    normals = np.stack([directions[..., 1], -directions[..., 0]], axis=2)
    outwards = (((starts + ends) / 2 - corners.mean(axis=1, keepdims=True)) * normals).sum(axis=2)
    normals *= np.where(outwards < 0, -1.0, 1.0).astype(np.float32)[..., None]
    return starts, ends, directions, normals


def square_up(frame_bgr: NDArray[np.uint8], corners_xy: NDArray[np.float32], typical_level: float) -> NDArray[np.float32]:
    """A quad with one side cut across the card, squared up: that side moved out parallel
    to its opposite side, through the far end of the longer of its neighbouring sides.

    A straight edge across a card (a shadow's, a hand's, another card's) can stand in for
    one of its sides. Under the spec's views a card's opposite sides stay nearly parallel;
    of two sides clearly not, the wrong one is the side with more of the card's own paper
    showing just beyond it (the corner it cut off), where a true side has the table. With no
    paper beyond either, the wrong one is the side with less of the table beyond it (the
    table as seen beyond the other two sides): the edge of something lying over the card,
    and what squaring adds must then not look like the table either. Quads with both pairs
    skewed, with the same paper or table beyond both sides, or that would grow past
    ``_MAX_SQUARED_GROWTH`` or out of the card's aspect, are returned as they are.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8, the frame the quad lies in
    corners_xy : ndarray (4, 2) float32, ordered round the quad
    typical_level : the frame's typical brightness (:func:`frame_level`); no card's paper is darker

    Returns
    -------
    ndarray (4, 2) float32, clockwise with a short side first (:func:`order_corners`)
    """
    # Most quads have neither pair or both pairs skewed: told apart in plain floats (numpy's
    # per-call cost dominates at four corners).
    skew = _skew_pairs(corners_xy)
    pair = int(skew[1] > skew[0])
    if skew[pair] <= _SKEW_DEG or skew[1 - pair] > _SKEW_DEG:
        return corners_xy
    c = corners_xy.astype(np.float64)
    edges = np.roll(c, -1, axis=0) - c  # edge k runs from corner k to corner k + 1
    inner = colours_at(frame_bgr, c.mean(axis=0) + 0.6 * (c - c.mean(axis=0)))
    if float(inner.mean()) < typical_level:
        return corners_xy  # darker than most of the frame: no card's paper (the inside of a mug)
    beyond = [paper_beyond(frame_bgr, c, k) for k in (pair, pair + 2)]
    others = (1 - pair, 3 - pair)
    covered = False
    if abs(beyond[0] - beyond[1]) >= _BEYOND_MARGIN:
        wrong = pair if beyond[0] > beyond[1] else pair + 2
    else:
        # No paper beyond either side: the cut may be the edge of something lying over the
        # card (a hand, a card back), unlike the table seen beyond the two sides not skewed.
        table = colours_at(frame_bgr, np.concatenate([across_side(c, m)[1] for m in others]))
        like = [float(like_table(colours_at(frame_bgr, across_side(c, k)[1]), table).mean()) for k in (pair, pair + 2)]
        if abs(like[0] - like[1]) < _TABLE_MARGIN:
            return corners_xy
        wrong, covered = (pair if like[0] < like[1] else pair + 2), True
    good = (wrong + 2) % 4
    before, after = (wrong - 1) % 4, (wrong + 1) % 4
    through = c[wrong] if np.linalg.norm(edges[before]) >= np.linalg.norm(edges[after]) else c[after]
    direction = -edges[good]
    squared = c.copy()
    squared[wrong] = meet_lines(c[before], edges[before], through, direction)
    squared[after] = meet_lines(c[after], edges[after], through, direction)
    squared = squared.astype(np.float32)
    if not np.all(np.isfinite(squared)) or not cv2.isContourConvex(squared.reshape(-1, 1, 2)):
        return corners_xy
    added, inside = added_beyond(c, squared.astype(np.float64), wrong)
    if covered:
        if len(added) and float(like_table(colours_at(frame_bgr, added), table).mean()) > ADDED_TABLE:
            return corners_xy  # the side moved out over the table: not this card's
    elif len(added) and float(paper_alike(colours_at(frame_bgr, inside), colours_at(frame_bgr, added)).mean()) < _ADDED_PAPER:
        return corners_xy  # the side moved out over the table, a gap or a hand: not this card's
    area, new_area = abs(cv2.contourArea(corners_xy)), abs(cv2.contourArea(squared))
    short, long = sorted(sides(squared))
    if not area < new_area <= _MAX_SQUARED_GROWTH * area or short <= 0 or not ASPECT_RANGE[0] <= long / short <= ASPECT_RANGE[1]:
        return corners_xy
    return order_corners(squared)


def frame_level(frame_bgr: NDArray[np.uint8]) -> float:
    """The frame's typical brightness (0-255): the median of every 16th pixel's channels."""
    return float(np.median(frame_bgr[::16, ::16]))


def added_beyond(old: NDArray[np.float64], new: NDArray[np.float64], k: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Points (M, 2) in what squaring added beyond side ``k`` of quad ``old``, and as many
    inside the old quad, between its centre and that side, for the paper to compare with."""
    a, b = old[k], old[(k + 1) % 4]
    na, nb = new[k], new[(k + 1) % 4]
    u, v = np.meshgrid(np.linspace(0.1, 0.9, 7), np.linspace(0.2, 0.8, 4))
    u, v = u.ravel()[:, None], v.ravel()[:, None]
    added = (1 - v) * (a + u * (b - a)) + v * (na + u * (nb - na))
    inside = (1 - v) * old.mean(axis=0) + v * (a + u * (b - a))
    keep = np.linalg.norm(added - (a + u * (b - a)), axis=1) >= 2.0  # (where the sides meet, nothing was added)
    return added[keep], inside[keep]


def colours_at(frame_bgr: NDArray[np.uint8], points: NDArray[np.float64]) -> NDArray[np.float64]:
    h, w = frame_bgr.shape[:2]
    xy = np.clip(np.round(points).astype(int), 0, (w - 1, h - 1))
    return frame_bgr[xy[:, 1], xy[:, 0]].astype(np.float64) + 1.0


def paper_alike(paper: NDArray[np.float64], other: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Colours (N, 3) of the same paper, maybe in shadow: hue and saturation alike, not far darker."""
    chroma_paper = paper / paper.sum(axis=1, keepdims=True)
    chroma_other = other / other.sum(axis=1, keepdims=True)
    return (np.abs(chroma_paper - chroma_other).max(axis=1) < _BEYOND_CHROMA) & (other.sum(axis=1) > 0.3 * paper.sum(axis=1))


def across_side(c: NDArray[np.float64], k: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Nine points just inside side ``k`` of quad ``c`` and nine just outside it, (9, 2) each."""
    a, b = c[k], c[(k + 1) % 4]
    normal = unit(c.mean(axis=0) - (a + b) / 2)  # inwards
    depth = _BEYOND_DEPTH * min(sides(c.astype(np.float32)))
    along = a + np.linspace(0.1, 0.9, 9)[:, None] * (b - a)
    return along + depth * normal, along - depth * normal


def like_table(colours: NDArray[np.float64], table: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Which colours (N, 3) match some colour of ``table`` (M, 3): hue, saturation and brightness alike."""
    chroma = colours / colours.sum(axis=1, keepdims=True)
    table_chroma = table / table.sum(axis=1, keepdims=True)
    ratio = colours.sum(axis=1)[:, None] / table.sum(axis=1)[None, :]
    alike = (np.abs(chroma[:, None, :] - table_chroma[None, :, :]).max(axis=2) < _BEYOND_CHROMA) & (ratio > 0.7) & (ratio < 1.4)
    return alike.any(axis=1)


def paper_beyond(frame_bgr: NDArray[np.uint8], c: NDArray[np.float64], k: int) -> float:
    """The share of points just outside side ``k`` of quad ``c`` whose colour matches the
    paper just inside it, in hue and saturation (a shadow only darkens it)."""
    inside, outside = across_side(c, k)
    return float(paper_alike(colours_at(frame_bgr, inside), colours_at(frame_bgr, outside)).mean())
