"""Card-shaped bright regions over a sweep of whiteness levels, cut apart along sharp edges.

No one level parts paper from table everywhere: light falls off across the table, shadows
lie over cards and a pale cloth is nearly as white as paper. But each card stands out from
whatever touches it at some level, and the sharp edges around a card (its outline, a
touching card's outline, a hand's) keep it apart at the levels where its surroundings are
as bright as it. Every level's card-shaped regions are candidates; ``choose_cards`` keeps
those of the cards' size, one per card.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.quads import fit_quad

__all__ = ["CLEAN_FILL", "Region", "blurred_whiteness", "card_regions", "cut_along_edges", "choose_cards", "histogram_percentiles", "points_inside", "printed_in", "sweep_span"]

LEVELS = 8  # whiteness levels between the table's usual and the paper's brightest
CLEAN_FILL = 0.92  # a lone card fills its quadrilateral but for the rounded corners
MIN_FILL = 0.65  # a card hidden by a quarter, or touched by a finger, still fills this much
_SWEEP_PERCENTILES = (30, 99.5)  # the sweep runs from about the table's whiteness to the paper's
_EDGES = (40, 80)  # Canny on the whiteness: a card's outline, not the grain of paper or cloth
_HOLES_MATTER = 0.3  # a level's mask covering more than this share of the image: the table is in it
_INK_DROP = 40.0  # a symbol is this much less white than the paper around it
_INK_SHARE = 0.05  # of a card's middle at least (99% of the cards' clean regions on dev120 show 0.11 or more)
_NO_CARD_AREA = 3.0  # a clean region of this many times the median clean one's area is no card: it tells no card's size
_SIDE_INK = 0.5  # ink along this share of a side of a quadrilateral's middle: something lies along it (symbols keep clear)


@dataclass(frozen=True)
class Region:
    """A card-shaped region at one whiteness level.

    ``corners_xy`` is (4, 2) float32 in the pixels of the image swept, clockwise, first
    edge a short side; ``fill`` the share of the quadrilateral the region covers;
    ``level`` the index of the lowest level it stands at (higher is brighter), ``levels``
    at how many levels it stands unchanged.
    """

    corners_xy: NDArray[np.float32]
    fill: float
    level: int
    levels: int = 1

    def __post_init__(self) -> None:
        if self.corners_xy.shape != (4, 2):
            raise ValueError(f"corners_xy must have shape (4, 2), got {self.corners_xy.shape}")


def card_regions(white: NDArray[np.float32], min_short_px: float, edges: tuple[float, float] = _EDGES,
                 levels: int = LEVELS, span: tuple[float, float] | None = None,
                 max_area: float | None = None, opening: int = 0,
                 white_u8: NDArray[np.uint8] | None = None) -> list[Region]:
    """Every card-shaped region brighter than one of a sweep of levels, cut along edges.

    Parameters
    ----------
    white : ndarray (H, W) float32, whiteness (see ``vision.paper.whiteness``)
    min_short_px : the smallest short side of a card, in pixels of ``white``
    edges : Canny's two thresholds for the edges the regions are cut along
    levels : how many levels the sweep has
    span : the whiteness the sweep runs between (default: read off ``white``)
    max_area : the largest region, in pixels (default: a tenth of ``white``); a part of
        a frame swept alone is given the whole frame's span and largest region
    opening : the side of the square each level's paper is opened with (nought: none);
        it parts a card from a thin bright thing touching it
    white_u8 : ndarray (H, W) uint8, ``white`` as swept (``blurred_whiteness``), when at hand

    Returns
    -------
    regions : list of Region, in pixels of ``white``; a card appears once for each
        distinct region it makes over the levels, and two cards touching without an
        edge between them as one region.
    """
    white_u8 = blurred_whiteness(white) if white_u8 is None else white_u8
    cut = cut_along_edges(white_u8, edges)
    low, high = sweep_span(white_u8[::4, ::4]) if span is None else span
    min_area, max_area = 1.2 * min_short_px**2, 0.1 * white.size if max_area is None else max_area
    min_side = 0.7 * min_short_px
    regions: list[Region] = []
    counts: list[int] = []
    before = np.zeros((0, 5), np.float32)  # the last level's regions: box (x0, y0, x1, y1) and area
    before_index = np.zeros(0, int)  # and which region each is, -1 for none
    for level, threshold in enumerate(np.linspace(low, high, levels + 1)[:-1]):
        _, mask = cv2.threshold(cut, float(threshold), 1, cv2.THRESH_BINARY)
        if opening:
            mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((opening, opening), np.uint8))
        # Two levels of contours where the table is bright (a card lying inside a hole of
        # it is an outer contour too); elsewhere tracing the holes is wasted: most are specks.
        mode = cv2.RETR_CCOMP if cv2.countNonZero(mask) > _HOLES_MATTER * mask.size else cv2.RETR_EXTERNAL
        contours, hierarchy = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)
        shapes, box = _sized_outlines(contours, hierarchy, min_side, min_area, max_area)
        # About the same region as one at the level below is that one; one no card there
        # is looked at again unless it is just the same.
        index = np.full(len(box), -1)
        if len(box) and len(before):
            kept = before_index >= 0
            same = ((np.abs(box[:, None, :4] - before[None, :, :4]).max(axis=2) <= np.where(kept, 4, 0))
                    & (np.abs(box[:, None, 4] - before[None, :, 4]) <= np.where(kept, 0.08, 0.002) * box[:, None, 4]))
            matched = same.any(axis=1)
            index[matched] = before_index[same.argmax(axis=1)[matched]]
            for i in index[index >= 0].tolist():
                counts[i] += 1
            unmatched = np.flatnonzero(~matched).tolist()
        else:
            unmatched = range(len(box))
        areas = box[:, 4].tolist()
        for k in unmatched:
            fitted = _fit(shapes[k], areas[k], min_side)
            if fitted is not None:
                index[k] = len(regions)
                regions.append(Region(*fitted, level))
                counts.append(1)
        before, before_index = box, index
    return [Region(r.corners_xy, r.fill, r.level, n) for r, n in zip(regions, counts)]


def cut_along_edges(white_u8: NDArray[np.uint8], edges: tuple[float, float] = _EDGES) -> NDArray[np.uint8]:
    """The whiteness as swept (``blurred_whiteness``), nought along its sharp edges (Canny's
    ``edges``, widened a pixel): each level's paper is cut apart there."""
    return cv2.subtract(white_u8, cv2.dilate(cv2.Canny(white_u8, *edges), np.ones((2, 2), np.uint8)))  # (edges are 255)


def blurred_whiteness(white: NDArray[np.float32]) -> NDArray[np.uint8]:
    """The whiteness as ``card_regions`` sweeps it: clipped to bytes, blurred 3x3."""
    # (clipped by OpenCV's thresholds, at 255 and then at nought: numpy's clip is twice as slow)
    clipped = cv2.threshold(cv2.threshold(white, 255, 255, cv2.THRESH_TRUNC)[1], 0, 0, cv2.THRESH_TOZERO)[1]
    return cv2.GaussianBlur(clipped.astype(np.uint8), (3, 3), 0)


def sweep_span(white_u8: NDArray[np.uint8]) -> tuple[float, float]:
    """The whiteness a sweep runs between, about the table's and the paper's: percentiles
    of ``white_u8``, a sample of the whiteness (uint8)."""
    low, high = _percentiles(white_u8, _SWEEP_PERCENTILES)
    return low, high


def _sized_outlines(contours: tuple[NDArray, ...], hierarchy: NDArray | None, min_side: float, min_area: float,
                    max_area: float) -> tuple[list[NDArray], NDArray[np.float32]]:
    """The outer contours of four points or more, at least ``min_side`` wide and high,
    with an area between ``min_area`` and ``max_area``; and their boxes (x0, y0, x1, y1)
    and areas, (M, 5). All contours are sized at once: most are specks."""
    lengths = np.fromiter(map(len, contours), int, len(contours))
    outer = np.flatnonzero((hierarchy[0][:, 3] == -1) & (lengths >= 4)) if hierarchy is not None else []
    if len(outer) == 0:
        return [], np.zeros((0, 5), np.float32)
    shapes = [contours[k] for k in outer]
    starts = np.concatenate([[0], np.cumsum(lengths[outer])[:-1]])
    points = np.concatenate(shapes).reshape(-1, 2)
    low, high = np.minimum.reduceat(points, starts), np.maximum.reduceat(points, starts)
    wide = np.flatnonzero((high - low + 1 >= min_side).all(axis=1))
    areas = np.array([cv2.contourArea(shapes[k]) for k in wide], np.float32)
    sized = (areas >= min_area) & (areas <= max_area)
    chosen = wide[sized]
    box = np.concatenate([low[chosen], high[chosen] + 1, areas[sized, None]], axis=1).astype(np.float32)
    return [shapes[k] for k in chosen], box


def _percentiles(values: NDArray[np.uint8], percents: tuple[float, ...]) -> list[float]:
    """``np.percentile(values, percents)`` (linear interpolation) of whole numbers 0..255,
    read off their histogram."""
    return histogram_percentiles(np.bincount(values.ravel(), minlength=256), percents)


def histogram_percentiles(counts: NDArray[np.integer], percents: tuple[float, ...]) -> list[float]:
    """``np.percentile(values, percents)`` (linear interpolation) of whole numbers, given
    how many of them take each value (``counts[v]``, not all nought)."""
    ranked = np.cumsum(counts)
    size = int(ranked[-1])
    result = []
    for percent in percents:
        position = percent / 100 * (size - 1)
        below = int(position)
        a = float(np.searchsorted(ranked, below, side="right"))
        b = float(np.searchsorted(ranked, min(below + 1, size - 1), side="right"))
        t = position - below
        # As numpy interpolates, to the last bit.
        result.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)
    return result


def _fit(contour: NDArray, area: float, min_side: float) -> tuple[NDArray[np.float32], float] | None:
    """The card-shaped quadrilateral of a region and its fill, or None for no card."""
    _, (w, h), _ = cv2.minAreaRect(contour)
    if area < 0.9 * MIN_FILL * w * h or min(w, h) < min_side or max(w, h) > 2.6 * min(w, h):
        return None  # far from a card: skip the finer fit
    quad, fill = fit_quad(contour)
    return (quad, fill) if quad is not None and fill >= MIN_FILL else None


def choose_cards(regions: list[Region], clean_fill: float = CLEAN_FILL, white: NDArray[np.float32] | None = None) -> list[Region]:
    """One region per card: the steadiest of each card's regions that has the cards' size.

    Regions of about the same place and size at different levels are one card's. The
    cards' size near a region is the median of the five nearest clean cards (filling
    their quadrilateral, and not the paper inside another region's printed frame, nor
    several cards large) that do not lie inside it, so a region of two touching cards,
    or of a card with a strip of table beside it, is seen to be too big. Regions are taken in order of fit (size
    right, clean, found over more levels, larger); one that overlaps a region taken
    already is left out.

    Parameters
    ----------
    regions : list of Region
    clean_fill : the fill of a card seen whole

    Returns
    -------
    list of Region, at most one per place
    """
    if not regions:
        return []
    n = len(regions)
    corners = np.array([r.corners_xy for r in regions], np.float32)
    centres = corners.mean(axis=1)
    lengths = np.linalg.norm(corners - np.roll(corners, -1, axis=1), axis=2)
    size = np.stack([(lengths[:, 0] + lengths[:, 2]) / 2, (lengths[:, 1] + lengths[:, 3]) / 2], axis=1)
    area = size[:, 0] * size[:, 1]
    fill = np.array([r.fill for r in regions], np.float32)
    levels = np.array([r.levels for r in regions])
    distance = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    alike = (distance < 0.15 * size[:, 0][:, None]) & (np.abs(size[:, None, :] / size[None, :, :] - 1) < 0.1).all(axis=2)
    steady = (alike * levels[None, :]).sum(axis=1)  # levels at which this card stands as this region
    group = np.full(n, -1)
    for k in np.argsort(-steady, kind="stable"):
        if group[k] < 0:
            group[alike[k] & (group < 0)] = k
    inside = points_inside(corners, centres)  # [j, k]: the centre of k lies in j
    ratio = area[:, None] / area[None, :]
    framed = (inside & (ratio > 1.25) & (ratio < 1.8) & (fill[:, None] >= 0.85)).any(axis=0)
    clean = (group == np.arange(n)) & (fill >= clean_fill) & ~framed
    if white is not None:
        inked = clean.copy()
        inked[clean] = printed_in(white, corners[clean])
        clean = inked if inked.sum() >= 2 else clean  # too few show symbols: all, as without the whiteness
    # The squares of a checked cloth are clean too, but no card is seen that square.
    aspect = size[:, 1] / size[:, 0]
    typical_shape = clean & (aspect > 1.25) & (aspect < 1.8) & (steady >= 2)
    reference = typical_shape if typical_shape.sum() >= 2 else clean
    if reference.sum() >= 3:
        # A stretch of pale table as clean as paper, several cards large, tells no card's size:
        # beside a card it made the card look too small (fresh dev hard 978).
        reference &= area < _NO_CARD_AREA * np.median(area[reference])
    fits = np.ones(n, bool)
    if reference.sum() >= 2:
        # Only cards nearby: across a tilted view the cards' size and shape change.
        nearby = distance < 3.0 * size[:, 1][:, None]
        apart = np.where(reference[None, :] & ~inside & ~inside.T & nearby, distance, np.inf)
        nearest = np.argsort(apart, axis=1)[:, :5]
        known = np.isfinite(np.take_along_axis(apart, nearest, axis=1))
        sizes = np.where(known[..., None], size[nearest], np.nan)
        sizes = np.where(known.any(axis=1)[:, None, None], sizes, size[:, None, :])
        # Loose: the cards nearest may lie nearer the camera or further from it, or be
        # the paper inside their printed border (or a point card's frame), a fifth smaller.
        low = size / _median_of_known(sizes)
        # One clean card alone nearby may be a small one (a point card's paper, a far
        # pool card): a region is too big for the cards only when two or more say so.
        high = np.where((known.sum(axis=1) >= 2)[:, None], size / np.nanmax(sizes[:, :3], axis=1), 1.0)
        fits = (low > 0.6).all(axis=1) & (high < 1.6).all(axis=1) & (high[:, 0] * high[:, 1] < 1.9)
    # Two cards side by side, each a region of its own at some level, are no one card; a
    # half may fill a little less of its quad (dev120/hard dev-098: 0.82), nicked at an edge.
    part = inside & (ratio.T < 0.7) & (ratio.T > 0.3) & (fill[None, :] >= 0.8)  # [k, j]: j is about half of k and lies in it
    apart = ~inside & ~inside.T
    for k in np.flatnonzero(part.sum(axis=1) >= 2):
        halves = np.flatnonzero(part[k])
        fits[k] &= not apart[np.ix_(halves, halves)].any()
    order = np.lexsort((-area, -steady, fill < clean_fill, framed, ~fits))
    chosen: list[int] = []
    overlaps = inside | inside.T
    taken = np.zeros(n, bool)  # overlapping a region chosen already
    for k in order:
        if not fits[k] and chosen:
            break
        if taken[k]:
            continue
        chosen.append(int(k))
        taken |= overlaps[k]
    return [regions[k] for k in chosen]


def printed_in(white: NDArray[np.float32], corners_xy: NDArray[np.float32], clear_of_sides: bool = False) -> NDArray[np.bool_]:
    """Whether symbols are printed in each quadrilateral (N, 4, 2) of ``white``: enough of
    its middle (0.8 of it, a grid of points) is much less white than the median there: (N,).
    ``clear_of_sides``: and no outer line of that grid is so along ``_SIDE_INK`` of it or
    more: symbols keep clear of a card's sides, a strip of table taken in beside a card does not."""
    # x and y apart, the points last; no matmul: BLAS's threads spin on other cores.
    h, w = white.shape
    x = (corners_xy[:, :, 0, None] * _MIDDLE_GRID).sum(axis=1)  # (N, points)
    y = (corners_xy[:, :, 1, None] * _MIDDLE_GRID).sum(axis=1)
    values = white[np.clip(y.astype(int), 0, h - 1), np.clip(x.astype(int), 0, w - 1)]
    middle = values.shape[1] // 2
    median = np.partition(values, middle, axis=1)[:, middle : middle + 1]
    inked = values < median - _INK_DROP
    printed = inked.mean(axis=1) >= _INK_SHARE
    if not clear_of_sides:
        return printed
    grid = inked.reshape(len(inked), _GRID_COUNT, _GRID_COUNT)  # [quad, along the 2nd side, along the 1st]
    sides = np.stack([grid[:, 0, :], grid[:, -1, :], grid[:, :, 0], grid[:, :, -1]], axis=1).mean(axis=2)
    return printed & (sides < _SIDE_INK).all(axis=1)


def _grid_weights(count: int) -> NDArray[np.float32]:
    """The weights of a quadrilateral's four corners (bilinear) at a grid of ``count`` x
    ``count`` points over its middle, 0.1 to 0.9 of the way along each side: (4, count**2)."""
    u, v = np.meshgrid(np.linspace(0.1, 0.9, count, dtype=np.float32), np.linspace(0.1, 0.9, count, dtype=np.float32))
    return np.stack([(1 - u) * (1 - v), u * (1 - v), u * v, (1 - u) * v]).reshape(4, -1)


_GRID_COUNT = 24
_MIDDLE_GRID = _grid_weights(_GRID_COUNT)


def _median_of_known(values: NDArray[np.float32]) -> NDArray[np.float32]:
    """``np.nanmedian(values, axis=1)`` of (N, M, C) values with a known one in every row,
    to the bit, without the masked arrays ``nanmedian`` builds for small inputs."""
    ordered = np.sort(values, axis=1)  # NaN last
    count = (~np.isnan(values)).sum(axis=1)
    low = np.take_along_axis(ordered, ((count - 1) // 2)[:, None, :], axis=1)[:, 0]
    high = np.take_along_axis(ordered, (count // 2)[:, None, :], axis=1)[:, 0]
    return (low + high) / 2


def points_inside(quads_xy: NDArray[np.float32], points_xy: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Whether each point lies in each convex quadrilateral: (N quads, M points) bool."""
    # x and y apart, the points last: numpy is slow over a last axis of two or four.
    qx, qy = quads_xy[..., 0, None], quads_xy[..., 1, None]  # (N, 4, 1)
    ex, ey = np.roll(qx, -1, axis=1) - qx, np.roll(qy, -1, axis=1) - qy
    cross = ex * (points_xy[:, 1] - qy) - ey * (points_xy[:, 0] - qx)  # (N, 4, M)
    return (cross >= 0).all(axis=1) | (cross <= 0).all(axis=1)
