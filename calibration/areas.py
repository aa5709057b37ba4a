"""Table geometry: the table top and the middle pool, as polygons in image pixels.

The table top is the largest bright region that holds the cards (the room around a table
is mostly darker than its top, whatever the surface), or, where none stands out by brightness
(a green felt on a grey floor), the region nearer the colour around the cards than the room's
colour along the frame's border; the pool is where the thrown-back and
face-down cards lie, in the middle. Both keep cards out of rows: a card whose centre lies
outside the table or inside the pool is never a row candidate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["TableAreas", "scaled_areas", "search_box", "find_table_area", "find_pool_area", "depth_in_table", "inside",
           "row_candidates", "inward_from_edge"]

_WORK_WIDTH = 320  # the table is found on a small copy of the frame
_MIN_TABLE_SHARE = 0.15  # a bright region smaller than this share of the frame is no table top
_ALL_TABLE = 0.97  # a top covering more of the frame than this has no edge in view
# A bright region filling less of its convex hull than this is no table top but what lies on a
# dark one (an arm, a mug, the cards joined): the three tops of 200 dev hard photos so low
# (0.48 to 0.50) were all such, the next (0.60 to 0.70) the cloth's light stripes or checks.
_TOP_FILL = 0.55
# An arm lying across the table cuts the top in two: another bright region at least this share
# of the frame, its colour's chromaticity (each channel's share of their sum) within this of the
# top's and its brightness within this ratio (light falls off across a table), is top too. The
# colours compared are the mean and the median off the face-up cards, either pair agreeing: the
# cards on a piece pull its mean towards their paper's grey, a hand over half of it its median. On
# 650 dev photos the median joined the far side of an arm on 4 tables (3 hard, 1 hard2) the mean
# left out, and no other top changed.
_CUT_OFF_SHARE, _CUT_OFF_CHROMA, _CUT_OFF_LIGHT = 0.02, 0.03, 2.0
# Where no region stands out by brightness, the top is what is like the table's colour in Lab,
# lightness weighed by this (light falls off across a table; a cloth's hue and saturation hold).
_LIGHT_WEIGHT = 0.5
_ROOM_APART = 10.0  # the table's colour and the room's at least this far apart (Lab, lightness weighed)
_ROOM_NEAR = 0.5  # ... and a pixel of the room lies within this share of that of the room's colour
_BORDER = 0.04  # the room's colour from this share of the frame's long side along its border
_POLY_VERTICES = 12
_POOL_DEPTH = 0.45  # cards nearer the middle than this share of the way to the table edge may be pool
_POOL_CARDS = 2  # a pool area needs at least this many loose cards (one may be a short row)
_BOX_MARGIN = 0.03  # of the frame's long side: a card laid later may stick out over the table's edge


@dataclass(frozen=True)
class TableAreas:
    """The table top and the middle pool, each an (N, 2) float polygon in image pixels or None."""

    table_xy: NDArray[np.float64] | None = None
    pool_xy: NDArray[np.float64] | None = None

    def __post_init__(self) -> None:
        for name in ("table_xy", "pool_xy"):
            value = getattr(self, name)
            if value is not None and (value.ndim != 2 or value.shape[1] != 2 or len(value) < 3):
                raise ValueError(f"{name} must be an (N >= 3, 2) polygon, got shape {value.shape}")


def scaled_areas(areas: TableAreas, factor: float) -> TableAreas:
    """The areas of a frame scaled by ``factor`` (enlarged or shrunk)."""
    return TableAreas(*(None if polygon is None else polygon * factor for polygon in (areas.table_xy, areas.pool_xy)))


def inside(polygon_xy: NDArray[np.float64] | None, point_xy: Sequence[float]) -> bool:
    """Whether a point lies inside (or on) a polygon; False for no polygon."""
    if polygon_xy is None:
        return False
    contour = np.asarray(polygon_xy, np.float32).reshape(-1, 1, 2)
    return cv2.pointPolygonTest(contour, (float(point_xy[0]), float(point_xy[1])), False) >= 0


def row_candidates(centres_xy: Sequence[Sequence[float]], areas: TableAreas | None) -> list[int]:
    """Indices of the cards that may be in a row: centre on the table and outside the pool."""
    if areas is None:
        return list(range(len(centres_xy)))
    keep = []
    for index, centre in enumerate(centres_xy):
        if areas.table_xy is not None and not inside(areas.table_xy, centre):
            continue
        if inside(areas.pool_xy, centre):
            continue
        keep.append(index)
    return keep


def search_box(areas: TableAreas | None, size_wh: tuple[int, int]) -> tuple[int, int, int, int] | None:
    """The box (x0, y0, x1, y1) of the frame worth searching for cards: the table top's, a
    little wider; None when no table top is known or its box is the whole frame."""
    if areas is None or areas.table_xy is None:
        return None
    width, height = size_wh
    margin = _BOX_MARGIN * max(width, height)
    (x0, y0), (x1, y1) = areas.table_xy.min(axis=0) - margin, areas.table_xy.max(axis=0) + margin
    box = (max(0, math.floor(x0)), max(0, math.floor(y0)), min(width, math.ceil(x1) + 1), min(height, math.ceil(y1) + 1))
    return None if box == (0, 0, width, height) else box


def find_table_area(frame_bgr: NDArray[np.uint8], card_corners: Sequence[NDArray] = ()) -> NDArray[np.float64] | None:
    """The table top as a convex polygon (N, 2) in image pixels, or None when no top stands out or it fills the frame.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    card_corners : the face-up cards' corners (4, 2); the table holds them all.
    """
    height, width = frame_bgr.shape[:2]
    scale = min(1.0, _WORK_WIDTH / width)
    small = cv2.resize(frame_bgr, (max(8, round(width * scale)), max(8, round(height * scale))), interpolation=cv2.INTER_AREA)
    quads = [np.asarray(c, np.float64).reshape(4, 2) * scale for c in card_corners]
    cards = np.zeros(small.shape[:2], np.uint8)
    cv2.fillPoly(cards, [np.round(q).astype(np.int32) for q in quads], 255)
    if cv2.countNonZero(cards) > cards.size - 16:
        return None
    # Brightest channel: a saturated cloth is as bright as a grey one; blurred over stripes, grain and cards.
    b, g, r = cv2.split(small)  # (channel slices would each be copied to pass them to OpenCV)
    brightest = cv2.max(cv2.max(b, g), r)  # as small.max(axis=2), faster
    level = cv2.GaussianBlur(cv2.medianBlur(brightest, 5), (0, 0), 2.0)
    # The threshold parts the top from the room, so the white cards are left out of it: with
    # them in, a cloth between the room and the paper in brightness is split from the paper.
    rest = level[cards == 0]
    threshold = _otsu(rest)
    top = _top_region(level, small, cards, quads, threshold)
    fill = 0.0 if top is None else _hull_fill(top)
    if quads and (top is None or fill < _TOP_FILL):
        # A cloth as bright as the room around it (a green felt on a grey floor) differs from it in
        # colour. A dark cloth under a bright arm or mug, which the brightness took for the top, is
        # brighter than the room still: it is parted from it among what is darker than the arm.
        like = _like_table(small, cards, quads)
        darker = rest[rest <= threshold]
        for other in (None if like is None else _top_region(like, small, cards, quads, 128.0),
                      None if top is None or len(darker) < 2 else _top_region(level, small, cards, quads, _otsu(darker))):
            other_fill = 0.0 if other is None else _hull_fill(other)
            if other is not None and (top is None or other_fill > fill):
                top, fill = other, other_fill
    if top is None:
        return None
    # The region's outline has the hull of all its pixels, in far fewer points.
    outline, _ = cv2.findContours(top, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    points = np.vstack([c.reshape(-1, 2) for c in outline]).astype(np.float64)
    if quads:
        points = np.vstack([points, *quads])
    hull = cv2.convexHull(points.astype(np.float32))
    if cv2.contourArea(hull) > _ALL_TABLE * top.size:
        return None  # the table fills the frame: no edge to keep cards inside
    polygon = _simplify(hull.reshape(-1, 2).astype(np.float64)) / scale
    polygon[:, 0] = np.clip(polygon[:, 0], 0, width - 1)
    polygon[:, 1] = np.clip(polygon[:, 1], 0, height - 1)
    return polygon


def _hull_fill(region: NDArray[np.uint8]) -> float:
    """The share of a region's convex hull that the region fills."""
    outline, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = np.zeros_like(region)
    cv2.fillPoly(hull, [cv2.convexHull(np.vstack([c.reshape(-1, 2) for c in outline]))], 255)
    return cv2.countNonZero(cv2.bitwise_and(region, hull)) / max(1, cv2.countNonZero(hull))


def _otsu(values: NDArray[np.uint8]) -> float:
    """Otsu's threshold of some 8-bit values."""
    return float(cv2.threshold(values.reshape(1, -1), 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)[0])


def _top_region(level: NDArray[np.uint8], small: NDArray[np.uint8], cards: NDArray[np.uint8],
                quads: list[NDArray[np.float64]], threshold: float) -> NDArray[np.uint8] | None:
    """The table top's pixels (255) in ``small``, where the top is higher in ``level`` than the
    room around it (above ``threshold``): the region holding most cards, else the
    largest, with pieces an arm cut off it; None when no region is large enough."""
    mask = cv2.bitwise_or(cv2.threshold(level, float(threshold), 255, cv2.THRESH_BINARY)[1], cards)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    if count < 2:
        return None
    votes = np.zeros(count, np.int64)
    for quad in quads:
        x, y = quad.mean(axis=0)
        votes[labels[min(int(y), labels.shape[0] - 1), min(int(x), labels.shape[1] - 1)]] += 1
    votes[0] = -1
    best = int(np.argmax(votes)) if votes.max() > 0 else 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[best, cv2.CC_STAT_AREA] < _MIN_TABLE_SHARE * mask.size:
        return None
    top = cv2.compare(labels, best, cv2.CMP_EQ)
    found = top  # (the pieces are compared with the top as found: joining makes a new array)
    top_mean, top_median = _mean_colour(small, found), None
    for other in range(1, count):
        if other != best and stats[other, cv2.CC_STAT_AREA] >= _CUT_OFF_SHARE * mask.size:
            piece = cv2.compare(labels, other, cv2.CMP_EQ)
            if not _alike(top_mean, _mean_colour(small, piece)):
                # (the medians only where the means differ: most frames have no piece to join)
                top_median = _median_colour(small, found, cards) if top_median is None else top_median
                if not _alike(top_median, _median_colour(small, piece, cards)):
                    continue
            top = cv2.bitwise_or(top, piece)
    return top


def _mean_colour(small: NDArray[np.uint8], region: NDArray[np.uint8]) -> NDArray[np.float64]:
    """A region's mean colour (B, G, R, plus one each)."""
    return np.array(cv2.mean(small, region)[:3]) + 1.0


def _median_colour(small: NDArray[np.uint8], region: NDArray[np.uint8], cards: NDArray[np.uint8]) -> NDArray[np.float64]:
    """A region's median colour off the face-up cards (B, G, R, plus one each; its mean's where all is cards)."""
    off_cards = small[(region > 0) & (cards == 0)]
    return np.median(off_cards, axis=0).astype(np.float64) + 1.0 if len(off_cards) else _mean_colour(small, region)


def _alike(colour: NDArray, other: NDArray) -> bool:
    """Whether two colours (B, G, R, plus one) are one cloth's: chromaticity within ``_CUT_OFF_CHROMA``,
    brightness within ``_CUT_OFF_LIGHT`` times."""
    light = other.sum() / colour.sum()
    return bool(np.abs(other / other.sum() - colour / colour.sum()).max() <= _CUT_OFF_CHROMA
                and 1.0 / _CUT_OFF_LIGHT <= light <= _CUT_OFF_LIGHT)


def _like_table(small: NDArray[np.uint8], cards: NDArray[np.uint8], quads: list[NDArray[np.float64]]
                ) -> NDArray[np.uint8] | None:
    """Which of the table's colour and the room's each pixel of ``small`` is nearer in Lab
    (lightness weighed by ``_LIGHT_WEIGHT``): above 128 where nearer the table's, or not near
    the room's (``_ROOM_NEAR``), by the smaller margin, blurred like the brightness; None where the two
    colours lie within ``_ROOM_APART`` (no room in view, or none told apart by colour). The
    table's colour is the median of the pixels within a card of the cards; the room's, that of
    the half of the pixels along the frame's border least like the table (the table may
    reach the border along some sides)."""
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32) * np.array([_LIGHT_WEIGHT, 1.0, 1.0], np.float32)
    short = float(np.median([min(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[1])) for q in quads]))
    reach = max(3, 2 * round(short) + 1)
    ring = cv2.subtract(cv2.dilate(cards, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach))), cards)
    border = np.zeros_like(cards)
    width = max(2, round(_BORDER * max(cards.shape)))
    border[:width], border[-width:], border[:, :width], border[:, -width:] = 255, 255, 255, 255
    border = cv2.subtract(border, cards)
    if cv2.countNonZero(ring) < 16 or cv2.countNonZero(border) < 16:
        return None
    table = np.median(lab[ring > 0], axis=0)
    edge = lab[border > 0]
    off = np.linalg.norm(edge - table, axis=1)
    room = np.median(edge[off >= np.median(off)], axis=0)
    apart = float(np.linalg.norm(room - table))
    if apart < _ROOM_APART:
        return None
    # (room is what lies nearer the room's colour than the table's, and near it: a hand or a mug
    # over the table's edge, like neither, counts as table, where a row's card may lie under it)
    to_room = np.linalg.norm(lab - room, axis=2)
    unlike = np.maximum(to_room - np.linalg.norm(lab - table, axis=2), to_room - _ROOM_NEAR * apart)
    like = np.clip(128.0 + unlike, 0, 255).astype(np.uint8)
    return cv2.GaussianBlur(cv2.medianBlur(like, 5), (0, 0), 2.0)


def _simplify(hull_xy: NDArray[np.float64]) -> NDArray[np.float64]:
    """A convex hull with at most ``_POLY_VERTICES`` corners that still holds it."""
    perimeter = cv2.arcLength(hull_xy.astype(np.float32).reshape(-1, 1, 2), True)
    epsilon = 0.005 * perimeter
    poly = hull_xy
    while len(poly) > _POLY_VERTICES:
        poly = cv2.approxPolyDP(hull_xy.astype(np.float32).reshape(-1, 1, 2), epsilon, True).reshape(-1, 2).astype(np.float64)
        epsilon *= 1.5
    # approxPolyDP cuts corners inwards by up to epsilon: push the outline out again.
    centre = poly.mean(axis=0)
    spans = np.linalg.norm(poly - centre, axis=1)
    grow = 1.0 + epsilon / max(float(spans.min()), 1.0) if len(poly) < len(hull_xy) else 1.0
    return centre + (poly - centre) * grow


def depth_in_table(point_xy: Sequence[float], centre_xy: Sequence[float], table_xy: NDArray[np.float64]) -> float:
    """How far out a point lies: 0 at the table's centre, 1 on its edge (along the ray from the centre)."""
    c = np.asarray(centre_xy, np.float64)
    offset = np.asarray(point_xy, np.float64) - c
    distance = float(np.linalg.norm(offset))
    if distance < 1e-9:
        return 0.0
    reach = ray_exit(c, offset / distance, table_xy)
    return distance / reach if reach > 0 else math.inf


def inward_from_edge(polygon_xy: NDArray[np.float64], point_xy: Sequence[float]) -> tuple[float, float]:
    """The unit direction square to the polygon's edge nearest the point, into the polygon: from a seat
    at the table's edge, straight in (its row lies along that edge).

    >>> inward_from_edge(np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 4.0], [0.0, 4.0]]), (2.0, 4.5))
    (0.0, -1.0)
    """
    poly = np.asarray(polygon_xy, np.float64).reshape(-1, 2)
    point = np.asarray(point_xy, np.float64)
    starts, edges = poly, np.roll(poly, -1, axis=0) - poly
    lengths = np.maximum(np.einsum("ij,ij->i", edges, edges), 1e-12)
    along = np.clip(np.einsum("ij,ij->i", point - starts, edges) / lengths, 0.0, 1.0)
    nearest = int(np.argmin(np.linalg.norm(starts + along[:, None] * edges - point, axis=1)))
    edge = edges[nearest] / math.sqrt(lengths[nearest])
    normal = np.array([-edge[1], edge[0]])
    if float((poly.mean(axis=0) - starts[nearest]) @ normal) < 0:
        normal = -normal
    return float(normal[0]) + 0.0, float(normal[1]) + 0.0


def ray_exit(origin_xy: NDArray[np.float64], direction_xy: NDArray[np.float64], polygon_xy: NDArray[np.float64]) -> float:
    """Distance along a unit ray from a point inside a polygon to where it leaves it (inf when it never does)."""
    best = math.inf
    n = len(polygon_xy)
    for k in range(n):
        a, b = polygon_xy[k], polygon_xy[(k + 1) % n]
        edge = b - a
        denom = direction_xy[0] * edge[1] - direction_xy[1] * edge[0]
        if abs(denom) < 1e-12:
            continue
        rel = a - origin_xy
        t = (rel[0] * edge[1] - rel[1] * edge[0]) / denom
        u = (rel[0] * direction_xy[1] - rel[1] * direction_xy[0]) / denom
        if t > 1e-9 and -1e-9 <= u <= 1 + 1e-9:
            best = min(best, float(t))
    return best


def find_pool_area(
    pool_corners: Sequence[NDArray], row_centres_xy: Sequence[Sequence[float]], centre_xy: Sequence[float],
    table_xy: NDArray[np.float64], heaps_xy: Sequence[NDArray[np.float64]] = (),
) -> NDArray[np.float64] | None:
    """The middle pool: the hull of the cards lying loose near the table's middle, kept clear of every row card.

    Parameters
    ----------
    pool_corners : corners (4, 2) of the cards that are in no row (face-down cards' too, when known)
    row_centres_xy : centres of the cards in rows; none of them may end up inside the pool
    centre_xy : the table's middle
    table_xy : the table top (N, 2)
    heaps_xy : outlines (N, 2) of heaps of face-down cards (``vision.backs.find_backs``);
        a heap is many cards, a pool by itself
    """
    # Each loose card counts one, a heap as many as a pool needs.
    items = [(np.asarray(q, np.float64).reshape(4, 2), 1) for q in pool_corners]
    items += [(np.asarray(h, np.float64).reshape(-1, 2), _POOL_CARDS) for h in heaps_xy]
    items = [(q, n) for q, n in items if depth_in_table(q.mean(axis=0), centre_xy, table_xy) < _POOL_DEPTH]
    while sum(n for _, n in items) >= _POOL_CARDS:
        hull = cv2.convexHull(np.vstack([q for q, _ in items]).astype(np.float32)).reshape(-1, 2).astype(np.float64)
        if not any(inside(hull, c) for c in row_centres_xy):
            return hull if len(hull) >= 3 else None
        # A row card inside: drop the loose card (or heap) farthest from the middle and try again.
        far = max(range(len(items)), key=lambda k: float(np.linalg.norm(items[k][0].mean(axis=0) - np.asarray(centre_xy))))
        items.pop(far)
    return None
