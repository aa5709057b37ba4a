"""One symbol candidate and its measurement.

A blob of the card's ink mask is cut again at half of its own ink strength on an ink map
upsampled when the blob is small (so a pale yellow and a deep black symbol get the same
outline, and a small one enough pixels), split where it holds two symbols joined by blur
or a shadow edge, and measured: its silhouette's shape features, its size, the colour of
its core, and that colour read through glare where glare brightens the paper around it.
The segmentation (:mod:`vision.symbols`) and the search for symbols washed out by glare
(:mod:`vision.washed`) both build on this module and share its size limits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.shapes import ShapeFeatures, harmonics_of_moments, measure_shape, raw_moments, shape_scores
from vision.whitebalance import PAPER_LEVEL, BalancedCard

# Sizes as fractions of the card's short side (the spec: symbols span 15% to 70%).
_MIN_EXTENT, _DOUBT_EXTENT = 0.075, 0.11
_MAX_EXTENT, _DOUBT_MAX_EXTENT = 0.82, 0.74
# Silhouettes are measured with at least this many pixels across.
_MEASURE_PX = 40.0
# A blob whose ink stays just below the strong threshold may be a washed-out symbol.
_FAINT_DOUBT = "faint blob near the ink threshold"
# unless it lies as only a printed frame's line does: longer than any symbol, or wholly
# within _FRAME_BAND of an edge (symbols are printed 0.075 of the short side in or more).
# On fresh renders of cards with a printed frame, its faint line was the only strong doubt
# of 23 cards read right, and no misread card's.
FAINT_FRAME = "faint line along the card's edge (a printed frame?)"
_FRAME_BAND = 0.1
_SMALL_DOUBT = "small blob near the size limit"
# A blob with less of its outline inked than this has a hole (glare, or a printed digit).
_HOLED = 0.9
_BITTEN = 0.2  # a symbol cut at half its ink level is about as convex as its outline, unless a glow bit into it
_CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
_PER_PAPER = np.float32(1.0 / PAPER_LEVEL)
# Linear-light gamma and how much of the light every print colour absorbs in its darkest channel.
_GAMMA = 2.2
_INK_ABSORPTION = 0.9
# A symbol's colour is read through glare (:func:`_through_glare`) where the paper in a
# ring _RING_PX wide around it is at least _GLARE_RING times as bright (in linear light)
# as the card's typical paper, and not clipped (from _RING_CLIPPED, 0-255) in two channels.
_RING_PX = 3
_GLARE_RING = 1.15
_RING_CLIPPED = 248.0
# Glare is the lamp's light. Where no unclipped glare on the card shows its colour
# (``BalancedCard.glare_bgr`` None), it is taken to be the paper's own light, the same under
# one lamp (warmer only where daylight mixes in): B, G, R relative to the typical paper.
_PAPER_LIGHT = (1.0, 1.0, 1.0)
# Glare washing the middle of a large symbol out to near paper leaves a mark far from
# convex (solidity below _OPEN_SOLIDITY: a rim open at one side) or with a hole, read as no
# shape or as a digit's hole. The mark's convex hull is then tinted beyond its ink, where a
# digit's is plain paper, (at least _OPEN_GAP of the hull, _OPEN_MARGIN px off the ink to keep its blur
# out) in the mark's own hue: its chroma (the light absorbed against the paper around the
# hull, in linear light, less its mean over the channels: glare adds white light alike to
# all) projects on the mark's by a share within _OPEN_TINT (no more tinted than the mark,
# up to noise). The mark needs a chroma of _OPEN_CHROMA to compare (black has none). On
# fresh renders the open triangles projected 0.57-0.94; glared digits' holes and strokes
# project up to 0.8 too (glare washes a digit's stroke pale and tinted alike), so the reader takes
# the hull only where it fits a shape and explains every mark (``read._washed_middles``).
WASHED_MIDDLE = "a symbol's middle washed out by glare (read as its outline's hull)"
_OPEN_SOLIDITY = 0.8
_OPEN_GAP = 0.15
_OPEN_TINT = (0.3, 1.25)
_OPEN_CHROMA = 0.15
_OPEN_MARGIN = 3
# A glare spot is a smooth bump, wider than a symbol but not by much: across one symbol it
# brightens one side more than the other, and the core's mean colour mixes in the most
# washed-out side. The _LEAST_GLARED share of the core where the paper field (``wash``) is
# lowest shows the ink's own colour best; at least _LEAST_PIXELS pixels.
_LEAST_GLARED, _LEAST_PIXELS = 0.3, 6


@dataclass(frozen=True)
class Blob:
    """One symbol candidate.

    Attributes
    ----------
    center_xy : (x, y) centroid in working pixels.
    features : its shape measurements.
    mean_bgr : ndarray (3,) float32, mean balanced colour of its core (paper = 1.0).
    extent : longest side relative to the card's short side.
    doubt : reasons to doubt that this is exactly one symbol, empty when none.
    fill : share of the blob's outline that is ink (1.0 when solid; a hole lowers it:
        a glare spot inside a symbol, or a printed digit such as 0, 6, 8, 9).
    through_glare_bgr : ndarray (3,) float32, optional: its colour with glare's added light
        taken off, like ``mean_bgr`` (None where no glare brightens the paper around it).
    least_glared_bgr : ndarray (3,) float32, optional: the mean balanced colour of the part of
        its core that glare brightens least, like ``mean_bgr`` (None where no glare
        brightens the card): see ``_LEAST_GLARED``.
    covered_dents : for a piece cut free of a cover over the card, the share of its convex
        hull that the cover fills (the dents the cover bites into it), 0 otherwise: its
        solidity with these added is that of its outline on paper (a star's notches stay).
    view : for such a piece, ndarray (H, W) int8 around it: what lies where, as
        ``vision.covered`` reads it (its ink, the cover, paper); None otherwise.
    spread_xy : (var x, var y, cov xy) of its ink weights, working pixels squared: the same
        along every direction for every shape but the bar, unless the card is stretched.
    washed_hull : the same mark measured as its convex hull, when it may be one symbol whose
        middle glare washed out (see ``_OPEN_SOLIDITY``), or None: the reader takes it
        only where the marks as they are look like no symbols (``read._looks_like_number``).
    """

    center_xy: tuple[float, float]
    features: ShapeFeatures
    mean_bgr: NDArray[np.float32]
    extent: float
    doubt: tuple[str, ...] = ()
    fill: float = 1.0
    through_glare_bgr: NDArray[np.float32] | None = None
    spread_xy: tuple[float, float, float] = (0.0, 0.0, 0.0)
    washed_hull: Blob | None = None
    least_glared_bgr: NDArray[np.float32] | None = None
    covered_dents: float = 0.0
    view: NDArray[np.int8] | None = None


def _filled(outline: NDArray[np.int32], box: tuple[int, int, int, int], pad: int,
            shape: tuple[int, ...]) -> tuple[NDArray[np.uint8], tuple[int, int, int, int]]:
    """An outline filled in its box grown by ``pad`` (kept inside an image of ``shape``):
    the mask and the box's (x0, y0, x1, y1)."""
    x, y, w, h = box
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(shape[1], x + w + pad), min(shape[0], y + h + pad)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(mask, [outline], -1, 255, -1, offset=(-x0, -y0))
    return mask, (x0, y0, x1, y1)


def _best_fit(contour: NDArray[np.int32], mask: NDArray[np.uint8], short_px: float) -> float:
    inradius = cv2.minMaxLoc(cv2.distanceTransform(mask, cv2.DIST_L2, 3))[1]
    features = measure_shape(contour, inradius)
    if features is None:
        return -np.inf
    return float(shape_scores(features.as_array()[None], np.array([features.long_side / short_px])).max())


def _fits_better_whole(outer: NDArray[np.int32], whole: NDArray[np.uint8], parts: list[NDArray[np.int32]],
                       shape_hw: tuple[int, ...], short_px: float) -> bool:
    """Does the blob's whole outline fit a shape better than its parts do on average?"""
    part_scores = []
    for part in parts:
        mask = np.zeros(shape_hw, np.uint8)
        cv2.drawContours(mask, [part], -1, 255, -1)
        part_scores.append(_best_fit(part, mask, short_px))
    return _best_fit(outer, whole, short_px) > float(np.mean(part_scores))


def is_frame_line(box: tuple[int, int, int, int], size_wh: tuple[int, int], short: int) -> bool:
    """Does a mark with this bounding box (x, y, w, h) lie as only a printed frame's line does
    on a card of ``size_wh`` (see ``_FRAME_BAND``)?"""
    x, y, w, h = box
    width, height = size_wh
    band = _FRAME_BAND * short
    return (max(w, h) > _MAX_EXTENT * short or x + w <= band or y + h <= band
            or x >= width - band or y >= height - band)


def _solidity(contour: NDArray[np.int32], hull: NDArray[np.int32] | None = None) -> float:
    """A contour's area over its convex hull's (``hull``: that hull, when at hand)."""
    hull = cv2.convexHull(contour) if hull is None else hull
    return cv2.contourArea(contour) / max(cv2.contourArea(hull), 1.0)


def _inradius(mask: NDArray[np.uint8]) -> float:
    """Radius of the largest disc inside a mask's ink: the maximum of its distance transform
    (L2, 3x3), taken over the ink's bounding box grown by a pixel. Every ink pixel's nearest
    paper pixel lies within that box (OpenCV treats beyond the image as no paper), so the
    distances are those of the whole mask, at a fraction of the cost."""
    x, y, w, h = cv2.boundingRect(mask)
    if w == 0:
        return 0.0
    height, width = mask.shape
    box = mask[max(0, y - 1):min(height, y + h + 1), max(0, x - 1):min(width, x + w + 1)]
    return cv2.minMaxLoc(cv2.distanceTransform(box, cv2.DIST_L2, 3))[1]


def _measure_blob(card: BalancedCard, low: NDArray[np.uint8], smoothed: NDArray[np.uint8], outline: NDArray[np.int32],
                  box: tuple[int, int, int, int], short: int, low8: int, high8: int,
                  dropped: list[str], doubt: list[str], solid: bool = False,
                  min_extent: float = _MIN_EXTENT) -> list[Blob]:
    """The symbols in one outline of the ink mask. ``solid``: the outline encloses no
    hole (it has no child in the contour hierarchy), so all of it is ink. ``min_extent``:
    the smallest mark kept (share of the short side; less for what stands out from under a cover)."""
    height, width = card.ink.shape
    x, y, w, h = box
    pad = 2
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(width, x + w + pad), min(height, y + h + pad)
    filled = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(filled, [outline], -1, 255, -1, offset=(-x0, -y0))
    if solid:
        own, fill = filled, 1.0
    else:
        own = cv2.bitwise_and(filled, low[y0:y1, x0:x1])
        fill = cv2.countNonZero(own) / max(cv2.countNonZero(filled), 1)
    if fill < 0.5:
        # Symbols are solid: a hollow outline is a printed frame or a line drawing.
        dropped.append("frame" if min(w, h) > 0.6 * short else "hollow mark")
        return []
    level = cv2.minMaxLoc(smoothed[y0:y1, x0:x1], own)[1]
    if level < high8:
        if max(w, h) >= _DOUBT_EXTENT * short and level > 0.75 * high8:
            doubt.append(FAINT_FRAME if is_frame_line(box, (width, height), short) else _FAINT_DOUBT)
        return []
    # (no dilation: pixels just outside the blob are below the cut anyway)
    ink_roi = card.ink[y0:y1, x0:x1]
    soft = soft_roi = cv2.bitwise_and(ink_roi, own)
    if fill < _HOLED:
        # A hole in a symbol is glare washing its middle out: take its whole outline, or
        # the cut below would break the washed-out ring into pieces.
        soft = cv2.max(soft, cv2.min(filled, int(level)))
    # Cut at half of this blob's own ink level: the edge of a blurred step.
    cut = max(0.5 * level, low8)
    weights = np.minimum(soft, int(level))
    scale = min(max(1, math.ceil(_MEASURE_PX / max(w, h))), 3)
    if scale > 1:
        soft = cv2.resize(soft, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
    binary = cv2.threshold(soft, cut, 255, cv2.THRESH_BINARY)[1]
    contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return []
    # Parts of symbol size are kept even when small next to the rest: a blob may hold a
    # small symbol joined to a big one by a shadow edge.
    min_part = min_extent * short * scale
    parts = [c for c in contours if max(cv2.boundingRect(c)[2:]) >= min_part and cv2.contourArea(c) > 4.0 * scale * scale]
    washed = False
    # A glow on a symbol reaching near its edge bites the cut open: one part, far less
    # convex than the blob's own outline.
    bitten = False
    hulled: tuple[NDArray[np.int32], NDArray[np.int32]] | None = None  # a part and its hull, measured again below
    if len(parts) == 1:
        hulled = (parts[0], cv2.convexHull(parts[0]))
        part_solidity = _solidity(*hulled)  # (the outline's is looked at only where it could matter)
        bitten = part_solidity < 1.0 - _BITTEN and part_solidity < _solidity(outline) - _BITTEN
    if len(parts) > 1 or bitten:
        # Two symbols joined by blur or a shadow edge, or one symbol whose middle glare
        # washed out? Keep whichever reading fits the shapes better.
        whole = cv2.threshold(cv2.resize(own, binary.shape[::-1], interpolation=cv2.INTER_LINEAR) if scale > 1 else own,
                              127, 255, cv2.THRESH_BINARY)[1]
        outer, _ = cv2.findContours(whole, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if len(outer) == 1 and _fits_better_whole(outer[0], whole, parts, binary.shape, short * scale):
            parts, binary, washed = [outer[0]], whole, True
    # The symbol's core (well inside its edge) gives its colour, free of edge blending.
    core = cv2.threshold(soft_roi, max(0.7 * level, low8), 255, cv2.THRESH_BINARY)[1]
    bal_roi = card.balanced_bgr[y0:y1, x0:x1]
    mean_all = None
    blobs: list[Blob] = []
    for part in parts:
        if len(parts) == 1 and fill > 0.97:
            part_mask = binary
        else:
            part_mask = np.zeros(binary.shape, np.uint8)
            cv2.drawContours(part_mask, [part], -1, 255, -1)
        inradius = _inradius(part_mask)
        if len(parts) > 1:
            near = cv2.resize(cv2.dilate(part_mask, _CROSS, iterations=scale), weights.shape[::-1],
                              interpolation=cv2.INTER_NEAREST)
            mark = np.where(near > 0, weights, 0.0)
        else:
            mark = weights
        moments = raw_moments(mark)  # (the harmonics and the spread from one set of moments)
        harmonics = harmonics_of_moments(moments)
        features = measure_shape(part, inradius, harmonics, hulled[1] if hulled and hulled[0] is part else None)
        if features is None:
            continue
        extent = features.long_side / scale / short
        if extent < min_extent:
            continue
        if extent > _MAX_EXTENT:
            dropped.append("too long for a symbol")
            continue
        if features.short_side / scale < 0.022 * short:
            dropped.append("thin line")
            continue
        reasons: list[str] = []
        if extent < _DOUBT_EXTENT:
            reasons.append(_SMALL_DOUBT)
        if extent > _DOUBT_MAX_EXTENT:
            reasons.append("large blob near the size limit")
        cx = x0 + (features.center_xy[0] + 0.5) / scale - 0.5
        cy = y0 + (features.center_xy[1] + 0.5) / scale - 0.5
        if washed:
            reasons.append("blob split at its own ink level")
        if len(parts) > 1:
            reasons.append("blob split at its own ink level")
            if scale > 1:
                part_mask = cv2.resize(part_mask, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST)
            mean = cv2.mean(bal_roi, cv2.bitwise_and(core, part_mask))
        else:
            if mean_all is None:
                mean_all = cv2.mean(bal_roi, core)
                if mean_all[0] == mean_all[1] == mean_all[2] == 0.0:
                    mean_all = cv2.mean(bal_roi, own)
            mean = mean_all
        mean_bgr = np.multiply(mean[:3], _PER_PAPER, dtype=np.float32)
        through = least = None
        if card.source is not None:
            # The symbol at its print edge (half its ink level), in the box's pixels.
            symbol = part_mask
            if symbol.shape != core.shape:
                symbol = cv2.resize(symbol, core.shape[::-1], interpolation=cv2.INTER_NEAREST)
            symbol_core = core if len(parts) == 1 else cv2.bitwise_and(core, symbol)
            through = _through_glare(card, low, symbol, symbol_core, (x0, y0))
            least = _least_glared(card, symbol_core, (x0, y0))
        blobs.append(Blob((float(cx), float(cy)), features, mean_bgr, float(extent), tuple(reasons), fill, through,
                          _spread_of_moments(moments), least_glared_bgr=least))
    holed = fill < _HOLED
    if len(blobs) == 1 and card.source is not None and (holed or blobs[0].features.solidity < _OPEN_SOLIDITY):
        hull = cv2.convexHull(outline)
        if _tinted_inside(card, low, own, hull, core, (x0, y0)):
            # A hole is already taken whole; an open rim is measured as a blob with a hole,
            # its hull. Neither has one: its middle is the symbol's own ink, washed out.
            whole = blobs if holed else _measure_blob(card, low, smoothed, hull, cv2.boundingRect(hull), short, low8,
                                                      high8, [], [])
            if len(whole) == 1:
                blobs[0] = replace(blobs[0], washed_hull=replace(
                    whole[0], mean_bgr=blobs[0].mean_bgr, through_glare_bgr=blobs[0].through_glare_bgr,
                    least_glared_bgr=blobs[0].least_glared_bgr, fill=1.0,
                    doubt=whole[0].doubt + (WASHED_MIDDLE,)))
    return blobs


def _tinted_inside(card: BalancedCard, low: NDArray[np.uint8], ink: NDArray[np.uint8], hull: NDArray[np.int32],
                   core: NDArray[np.uint8], origin: tuple[int, int]) -> bool:
    """Is a mark's convex hull, beyond the mark's ink (a hole in it, or the rest of the
    hull), tinted in the mark's own hue, weaker (see ``_OPEN_SOLIDITY``)? ``ink``: the
    mark's ink, ``core`` its core, both in the box at ``origin``; ``hull`` in card pixels. Colours are the input's
    (``card.source``): balancing by the paper field takes the washed middle's tint away."""
    height, width = low.shape
    x0, y0 = origin
    h, w = ink.shape
    pad = _RING_PX + 1
    bx0, by0 = max(0, x0 - pad), max(0, y0 - pad)
    bx1, by1 = min(width, x0 + w + pad), min(height, y0 + h + pad)
    inside = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
    cv2.drawContours(inside, [hull], -1, 255, -1, offset=(-bx0, -by0))
    mark = np.zeros_like(inside)
    mark[y0 - by0:y0 - by0 + h, x0 - bx0:x0 - bx0 + w] = ink
    gap = cv2.subtract(inside, cv2.dilate(mark, _CROSS, iterations=_OPEN_MARGIN))
    if cv2.countNonZero(gap) < _OPEN_GAP * cv2.countNonZero(inside):
        return False
    ring = cv2.subtract(cv2.dilate(inside, _CROSS, iterations=_RING_PX), cv2.dilate(inside, _CROSS))
    ring = cv2.bitwise_and(ring, cv2.bitwise_not(low[by0:by1, bx0:bx1]))
    if cv2.countNonZero(ring) < 8 or cv2.countNonZero(core) == 0:
        return False
    source = card.source[by0:by1, bx0:bx1]
    paper = (np.array(cv2.mean(source, ring)[:3]) / 255.0) ** _GAMMA
    absorbed_ink = paper - (np.array(cv2.mean(card.source[y0:y0 + h, x0:x0 + w], core)[:3]) / 255.0) ** _GAMMA
    absorbed_gap = paper - (np.array(cv2.mean(source, gap)[:3]) / 255.0) ** _GAMMA
    hue, tint = absorbed_ink - absorbed_ink.mean(), absorbed_gap - absorbed_gap.mean()
    strength = float(hue @ hue)
    if strength < _OPEN_CHROMA ** 2:
        return False
    return _OPEN_TINT[0] <= float(tint @ hue) / strength <= _OPEN_TINT[1]


def _spread(weights: NDArray) -> tuple[float, float, float]:
    """(var x, var y, cov xy) of ink weights (h, w), in their pixels squared."""
    m = cv2.moments(np.asarray(weights, np.float32))
    total = max(m["m00"], 1e-9)
    return (m["mu20"] / total, m["mu02"] / total, m["mu11"] / total)


def _spread_of_moments(m: NDArray[np.float64]) -> tuple[float, float, float]:
    """:func:`_spread` from the weights' :func:`vision.shapes.raw_moments` (exact to the
    2nd order for whole-number weights, where ``cv2.moments`` of float32 rounds)."""
    m00, m10, m01 = float(m[0]), float(m[1]), float(m[6])
    cx, cy = (m10 / m00, m01 / m00) if m00 > 0.0 else (0.0, 0.0)
    total = max(m00, 1e-9)
    return ((float(m[2]) - m10 * cx) / total, (float(m[12]) - m01 * cy) / total, (float(m[7]) - m10 * cy) / total)


def _unclipped(paper: list[float], typical: list[float], clipped: list[bool], restore: list[bool], diffuse: float,
               glare: list[float]) -> list[float]:
    """Paper's linear light with the channels the camera clipped restored: the paper is the
    diffuse light (``diffuse`` times the typical paper) plus glare of a known colour
    (``glare``, relative to the typical paper), as much of it as the unclipped channels show."""
    seen = [(p / t - diffuse, g) for p, t, g, c in zip(paper, typical, glare, clipped) if not c]
    amount = sum(x * g for x, g in seen) / max(sum(g * g for _, g in seen), 1e-6)
    return [max(p, t * (diffuse + amount * g)) if r else p for p, t, g, r in zip(paper, typical, glare, restore)]


def _least_glared(card: BalancedCard, core: NDArray[np.uint8], origin: tuple[int, int]) -> NDArray[np.float32] | None:
    """The mean balanced colour (paper 1.0) of the ``_LEAST_GLARED`` share of a symbol's core
    (``core``: (h, w) uint8 in a box of the card at ``origin``) that glare brightens least
    (``card.wash``), or None without a paper field or with too small a core."""
    if card.wash is None:
        return None
    height, width = card.ink.shape
    x0, y0 = origin
    h, w = core.shape
    wash = cv2.resize(card.wash, (width, height), interpolation=cv2.INTER_LINEAR)[y0:y0 + h, x0:x0 + w]
    values = wash[core > 0]
    if values.size < _LEAST_PIXELS:
        return None
    k = int(_LEAST_GLARED * (values.size - 1))
    least = cv2.bitwise_and(core, cv2.compare(wash, float(np.partition(values, k)[k]), cv2.CMP_LE))
    return np.multiply(cv2.mean(card.balanced_bgr[y0:y0 + h, x0:x0 + w], least)[:3], _PER_PAPER, dtype=np.float32)


def _through_glare(card: BalancedCard, low: NDArray[np.uint8], symbol: NDArray[np.uint8], core: NDArray[np.uint8],
                   origin: tuple[int, int]) -> NDArray[np.float32] | None:
    """A symbol's balanced colour with the glare's light taken off, or None where no glare
    brightens the paper around it.

    Glare adds the lamp's light to ink and paper alike (both are equally glossy), and its
    colour is not the paper's (a warm lamp in daylight), so dividing by the paper leaves a
    black symbol pale and tinted like the lamp. In linear light the paper around the symbol
    less the symbol is the light the ink absorbs, glare gone: ``(1 - r) * L`` per channel,
    with ``L`` the light without glare. Divided by the card's typical paper colour this is
    the ink's absorption up to one factor (the local brightness); every print colour
    absorbs nearly all of the light in its darkest channel, so the largest absorption is
    scaled to ``_INK_ABSORPTION``. Where the ring's paper is clipped in a channel the
    absorption there would only be a lower bound, which biases the reading towards the
    lamp's colour (a black symbol under a warm lamp's glare turned red): the paper's light
    there is restored from the glare's colour (``card.glare_bgr``), as much glare as the
    unclipped channels show on top of the paper's level without it (``card.diffuse``),
    unless the ink is clipped there too; where glare shows no colour of its own on the card,
    that of the paper's light (``_PAPER_LIGHT``). Clipped in two channels that cannot be restored,
    one channel is left to scale by: None. The reader keeps this colour or
    the balanced one, whichever it is surer of (``read._colours``).

    Parameters
    ----------
    card : the balanced card, with ``source`` and ``typical_bgr``
    low : ndarray (H, W) uint8, 255 on ink (the hysteresis mask)
    symbol, core : ndarray (h, w) uint8, the symbol and its core in a box of the card
    origin : (x0, y0), the box's top-left corner in the card

    Returns
    -------
    ndarray (3,) float32, B, G, R with the paper at 1.0, or None
    """
    height, width = low.shape
    x0, y0 = origin
    h, w = symbol.shape
    pad = _RING_PX
    bx0, by0 = max(0, x0 - pad), max(0, y0 - pad)
    bx1, by1 = min(width, x0 + w + pad), min(height, y0 + h + pad)
    around = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
    around[y0 - by0:y0 - by0 + h, x0 - bx0:x0 - bx0 + w] = symbol
    ring = cv2.subtract(cv2.dilate(around, _CROSS, iterations=pad), cv2.dilate(around, _CROSS))
    ring = cv2.bitwise_and(ring, cv2.bitwise_not(low[by0:by1, bx0:bx1]))
    if cv2.countNonZero(ring) < 8 or cv2.countNonZero(core) == 0:
        return None
    # Plain floats: three channels, and numpy's per-call cost is larger than the arithmetic.
    paper = cv2.mean(card.source[by0:by1, bx0:bx1], ring)[:3]
    paper_linear = [(v / 255.0) ** _GAMMA for v in paper]
    typical = [(max(float(v), 1.0) / 255.0) ** _GAMMA for v in card.typical_bgr]
    clipped = [v >= _RING_CLIPPED for v in paper]
    ink = cv2.mean(card.source[y0:y0 + h, x0:x0 + w], core)[:3]
    if any(clipped) and not all(clipped) and card.diffuse is not None:
        rows, cols = card.diffuse.shape
        level = float(card.diffuse[min(rows - 1, (y0 + h // 2) * rows // height), min(cols - 1, (x0 + w // 2) * cols // width)])
        # (where the ink is clipped too its absorption is unknown either way)
        restore = [c and v < _RING_CLIPPED for c, v in zip(clipped, ink)]
        glare = _PAPER_LIGHT if card.glare_bgr is None else card.glare_bgr.tolist()
        paper_linear = _unclipped(paper_linear, typical, clipped, restore, level ** _GAMMA, glare)
        clipped = [c and not r for c, r in zip(clipped, restore)]
    # Paper clipped in two channels leaves the absorption in one alone to scale by.
    if max(p / t for p, t in zip(paper_linear, typical)) < _GLARE_RING or sum(clipped) >= 2:
        return None
    absorbed = [(p - (v / 255.0) ** _GAMMA) / t for p, v, t in zip(paper_linear, ink, typical)]
    top = max(absorbed)
    if top <= 0.05:  # no ink darker than the paper around it
        return None
    scale = _INK_ABSORPTION / top
    return np.array([(1.0 - min(max(a * scale, 0.0), 1.0)) ** (1.0 / _GAMMA) for a in absorbed], np.float32)

