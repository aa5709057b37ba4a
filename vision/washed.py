"""Symbols washed out by glare: marks too faint for the segmentation's ink thresholds.

On a card with glare, the ink map smoothed lightly and cut low shows marks the hysteresis
of :func:`vision.symbols.find_blobs` missed; so does the light a mark absorbs against the
paper closed around it, for a symbol the paper field took for paper. A faint mark on
paper that glare brightened is read as a symbol when its outline fits a shape and its
restored colour a print colour, or, with no shape it fits (``SHAPELESS``), when glare
clipped the camera right beside it. Glare washes a symbol unevenly: where the faint cut
keeps only an edge strip of it, the pale region the strip bounds is the symbol, counted
with its shape and colour unknown. On a card that glare covers nearly all over, the glare
is the typical paper itself, and faint marks are searched for everywhere on it. Whether
a faint symbol-sized mark is still left unread is reported too, so that the reader can
doubt the count. A symbol found but cut badly, glare having washed its middle or a corner
out of the ink map, is measured again on the light it absorbs (:func:`measured_unglared`).
"""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.blobs import (_CROSS, _DOUBT_EXTENT, _GAMMA, _INK_ABSORPTION, _MAX_EXTENT, _MEASURE_PX, _MIN_EXTENT,
                          _PER_PAPER, Blob, _filled, _spread, _through_glare, is_frame_line)
from vision.colours import bgr_to_lab, classify_colours
from vision.shapes import ShapeFeatures, angular_harmonics, classify_shapes, measure_shape
from vision.whitebalance import CLIPPED_LEVEL, PAPER_LEVEL, BalancedCard

__all__ = ["SHAPELESS", "WASHED", "UNGLARED", "WIDE_GLARE", "WASHED_NOISE", "measured_unglared"]

# Ink level of a mark that may be a washed-out symbol (below the hysteresis thresholds).
_FAINT = 0.06
# A symbol washed out by glare: read from the ink map smoothed (sigma 1 px) where it stands
# above this ink level (2-3 times the smoothed paper noise), on paper brightened at least
# _WASHED_WASH times, cut at _WASHED_CUT of its own level; kept when its outline fits a
# shape and its restored colour a print colour at least this well (read.py's fit, 0-1).
# On /tmp/dev120 renders a lower or higher ink level, a stricter shape fit or no
# brightness test each read fewer washed-out symbols; none was read where there was none.
_WASHED_INK, _WASHED_WASH, _WASHED_CUT = 0.05, 1.03, 0.4
_WASHED_SHAPE_FIT, _WASHED_COLOUR_FIT = 0.2, 0.1
# Only on paper at least this bright (0-255, the brightest channel) and at most this noisy
# (the faint cut then stays above twice the smoothed noise); on dev renders every washed
# symbol read lay on paper of 197 or more and noise 0.065 or less.
_WASHED_PAPER, WASHED_NOISE = 110.0, 0.08
# A washed-out mark that fits no shape (glare clipped part of it away) still counts as a
# symbol where the camera clipped a channel (``CLIPPED_LEVEL``) beside it, when its colour
# fits a print colour this well and it keeps this far (share of the short side) off every
# symbol read; its shape is then unknown (the reader takes one the card shows).
SHAPELESS = "a washed-out mark of unknown shape"
WASHED = "symbol washed out by glare"
_SHAPELESS_COLOUR_FIT, _SHAPELESS_APART = 0.3, 0.08
# The same search on the light a mark absorbs against the paper closed over _CLOSE_SPAN of
# the short side (:func:`_absorbed`), from this ink level: on /tmp/dev120 renders 0.12-0.16
# read fewer washed-out symbols, 0.24 or a span of 0.4-0.5 fewer on dev120/hard, an ellipse
# closing (10 times slower) no more.
_ABSORBED_INK, _CLOSE_SPAN = 0.2, 0.3
# An edge strip of a washed-out symbol (failing the faint cut's solidity) grows into the
# pale region it bounds, its convex hull, when the hull is at least _GROWN_SOLID of its box,
# the strip at least _STRIP_SHARE of the hull, and the hull's inside stands above the paper
# by _GROWN_INK times the paper's noise on average.
_GROWN_SOLID, _STRIP_SHARE, _GROWN_INK = 0.3, 0.4, 1.0
# A mark glare washed out unevenly (its middle, a corner) whose outline at the ink map's cut
# fits no shape is measured again on the light it absorbs (:func:`measured_unglared`), cut
# at _ABSORBED_INK: the reader keeps that outline where it fits a shape (``read._unglared``).
# Of 4,789 fresh and dev cards cut at their true corners this read 9 right that were misread or
# taken for no face (lone triangles), and none wrong that was read right.
UNGLARED = "a symbol's outline measured with glare's light taken off"
# Cards with more glare than this share of the paper (or blind spots) are searched for
# washed-out symbols: the cards read.py doubts for glare.
_GLARE_SHARE = 0.02
# Glare (clipped or brightened paper) over at least this share of the paper, or the camera
# clipping this share of the card, sets the typical paper's own level: every faint mark on
# such a card lies on glare.
WIDE_GLARE = 0.5
# ... and so are cards where the camera clipped at least this share (a symbol's worth): on
# near-white paper glare clips the paper hardly brighter than the card's typical paper.
_CLIPPED_SHARE = 0.01
_LINEAR = ((np.arange(256, dtype=np.float32) / 255.0) ** _GAMMA).reshape(1, 256)


def _faint_marks(card: BalancedCard, low: NDArray[np.uint8], band: int, short: int, blobs: list[Blob],
                 taken: list[NDArray[np.int32]], faint_seen: bool) -> tuple[list[Blob], bool]:
    """Symbols washed out by glare (on a card with glare only), and whether a faint
    symbol-sized mark is still left unread. ``taken``: outlines of the symbols already
    read; they, and the ink of ``low`` (the hysteresis mask) reaching the edge band, must
    not be joined to a washed-out mark by the fainter cut.

    A washed-out symbol lies below the hysteresis thresholds, yet on a lightly smoothed ink
    map it still stands above the paper's noise with its own outline; it is read when it
    lies where glare brightened the paper and its outline plainly fits a shape. Where the
    paper field took a washed-out symbol for paper (the ink map then loses it), it is
    looked for again on the light it absorbs against the paper around it
    (:func:`_absorbed`). Searched only where there is a sign of one (``faint_seen``: the
    segmentation met a faint blob; a faint mark left unread; or glare clipped a channel
    over a symbol's worth of the card), which spares cards with mild glare."""
    height, width = card.ink.shape
    washed: list[Blob] = []
    faint_any, faint_left = _faint_left(card.ink, band, short, blobs)
    glare = card.wash is not None and (card.glare > _GLARE_SHARE or card.blind > 0.0)
    sign = faint_any or faint_seen or card.blind > 0.0 or card.clipped >= _CLIPPED_SHARE
    if glare and sign and _may_hide_washed(card):
        # The edge's ink as it is, not filled: a printed frame would enclose every mark.
        used = cv2.subtract(low, _off_edge(low, band))
        cv2.drawContours(used, taken, -1, 255, -1)
        free = cv2.bitwise_not(cv2.dilate(used, _CROSS, iterations=2))
        # Glare over most of the paper (or clipping most of it) is the card's typical paper itself:
        # no cell is brighter.
        wash = card.wash if max(card.glare, card.clipped) < WIDE_GLARE else np.maximum(card.wash, _WASHED_WASH)
        bright = cv2.resize(cv2.compare(wash, _WASHED_WASH, cv2.CMP_GE), (width, height),
                            interpolation=cv2.INTER_NEAREST)
        maps = [(card.ink, _WASHED_INK)]
        broken: list[tuple[Blob, tuple[int, int, int, int]]] = []
        strips: list[tuple[NDArray[np.uint8], NDArray[np.int32], tuple[int, int, int, int]]] = []
        if card.source is not None:
            maps.append((_absorbed(card, short), _ABSORBED_INK))
        for ink, level in maps:
            soft = cv2.GaussianBlur(ink, (0, 0), 1.0)
            faint = np.zeros_like(soft)
            inner = soft[band:-band, band:-band]
            faint[band:-band, band:-band] = cv2.threshold(inner, int(level * PAPER_LEVEL), 255, cv2.THRESH_BINARY)[1]
            outlines, _ = cv2.findContours(_off_edge(cv2.bitwise_and(faint, free), band), cv2.RETR_EXTERNAL,
                                           cv2.CHAIN_APPROX_NONE)
            for outline in outlines:
                x, y, w, h = box = cv2.boundingRect(outline)
                if not _MIN_EXTENT * short <= max(w, h) <= _MAX_EXTENT * short:
                    continue
                if cv2.countNonZero(bright[y:y + h, x:x + w]) == 0:
                    continue
                if _holds_a_centre(box, blobs + washed):
                    continue
                if cv2.contourArea(outline) < 0.3 * w * h:
                    # (an edge strip of a symbol glare washed out unevenly: the pale region it bounds)
                    strips.append((soft, outline, box))
                    continue
                blob = _washed_blob(card, soft, outline, box, short, low)
                if blob is None:
                    continue
                if _is_washed_symbol(blob):
                    washed.append(blob)
                elif blobs:
                    broken.append((blob, box))
        # (after every mark that fits a shape: a broken mark may be a piece of one)
        for blob, box in broken:
            if _is_shapeless_symbol(card, blob, box, short, blobs + washed):
                washed.append(replace(blob, doubt=blob.doubt + (SHAPELESS,)))
        for soft, outline, box in strips if blobs else ():
            if _holds_a_centre(box, washed):
                continue
            blob = _grown_blob(card, soft, outline, box, short, low)
            if blob is not None and _is_grown_symbol(blob, short, blobs + washed):
                washed.append(blob)
        if washed:
            faint_left = _faint_left(card.ink, band, short, blobs + washed)[1]
    return washed, faint_left


def _faint_left(ink: NDArray[np.uint8], band: int, short: int, blobs: list[Blob]) -> tuple[bool, bool]:
    """Is there a symbol-sized mark too faint to read (a symbol washed out by glare) away
    from the symbols that were read; and is there one that does not lie as a printed
    frame's line does (``vision.blobs.is_frame_line``)?"""
    faint = np.zeros_like(ink)
    inner = ink[band:-band, band:-band]
    faint[band:-band, band:-band] = cv2.threshold(inner, int(_FAINT * PAPER_LEVEL), 255, cv2.THRESH_BINARY)[1]
    outlines, _ = cv2.findContours(_off_edge(faint, band), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    size_wh = (ink.shape[1], ink.shape[0])
    seen = False
    for outline in outlines:
        x, y, w, h = box = cv2.boundingRect(outline)
        if not _DOUBT_EXTENT * short <= max(w, h) <= _MAX_EXTENT * short:
            continue
        if any(x <= b.center_xy[0] <= x + w and y <= b.center_xy[1] <= y + h for b in blobs):
            continue
        if cv2.contourArea(outline) >= 0.3 * w * h:
            if not is_frame_line(box, size_wh, short):
                return True, True
            seen = True
    return seen, False


def _off_edge(mask: NDArray[np.uint8], band: int) -> NDArray[np.uint8]:
    """A mask without its parts that reach the edge band (table, the card's rim, a printed
    frame): a frame's ring would otherwise be the one outline around every mark inside it.

    Parameters
    ----------
    mask : ndarray (H, W) uint8, 255 on the marks, 0 within ``band`` of the edge
    band : width of the edge band, pixels (>= 1)

    Returns
    -------
    ndarray (H, W) uint8
    """
    height, width = mask.shape
    # A ring just inside the band joins every part that reaches the band; one flood fill
    # then clears them all (a tenth of the cost of labelling the parts). The mask is empty
    # in the band.
    off = mask.copy()
    cv2.rectangle(off, (band - 1, band - 1), (width - band, height - band), 255, 1)
    cv2.floodFill(off, None, (band - 1, band - 1), 0, flags=8)
    return off


def _may_hide_washed(card: BalancedCard) -> bool:
    """Can a faint mark on this card be a washed-out symbol at all: bright paper (glare
    on a card in deep shadow, or on a card back, is no glare on paper) quiet enough that the
    faint cut stays well above its noise?"""
    return card.noise <= WASHED_NOISE and float(card.paper_bgr.max()) >= _WASHED_PAPER


def _washed_blob(card: BalancedCard, soft: NDArray[np.uint8], outline: NDArray[np.int32],
                 box: tuple[int, int, int, int], short: int, low: NDArray[np.uint8]) -> Blob | None:
    """Measure a faint mark: its outline cut at a share of its own ink level (glare washes
    a symbol unevenly, its middle most, so the cut is low and holes are filled), its colour
    from its most inked part, restored to a full ink's strength (:func:`_unwashed`), and
    also read with glare's light taken off (``Blob.through_glare_bgr``; ``low``: the
    hysteresis mask, which the paper ring around the mark keeps off)."""
    w, h = box[2:]
    filled, (x0, y0, x1, y1) = _filled(outline, box, 2, soft.shape)
    weights = cv2.bitwise_and(soft[y0:y1, x0:x1], filled)
    level = cv2.minMaxLoc(weights)[1]
    scale = min(max(1, math.ceil(_MEASURE_PX / max(w, h))), 3)
    up = cv2.resize(weights, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR) if scale > 1 else weights
    mask = cv2.threshold(up, max(_WASHED_INK * PAPER_LEVEL, _WASHED_CUT * level), 255, cv2.THRESH_BINARY)[1]
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    contour = max(contours, key=cv2.contourArea)
    solid = np.zeros_like(mask)
    cv2.drawContours(solid, [contour], -1, 255, -1)
    features = _filled_shape(contour, solid)
    if features is None:
        return None
    extent = features.long_side / scale / short
    if not _MIN_EXTENT <= extent <= _MAX_EXTENT:
        return None
    core = cv2.threshold(weights, 0.6 * level, 255, cv2.THRESH_BINARY)[1]
    mean = cv2.mean(card.balanced_bgr[y0:y1, x0:x1], core)
    cx = x0 + (features.center_xy[0] + 0.5) / scale - 0.5
    cy = y0 + (features.center_xy[1] + 0.5) / scale - 0.5
    through = None if card.source is None else _through_glare(card, low, filled, core, (x0, y0))
    return Blob((float(cx), float(cy)), features, _unwashed(np.multiply(mean[:3], _PER_PAPER, dtype=np.float32)),
                float(extent), (WASHED,), through_glare_bgr=through, spread_xy=tuple(v / scale ** 2 for v in _spread(solid)))


def _filled_shape(contour: NDArray[np.int32], filled: NDArray[np.uint8]) -> ShapeFeatures | None:
    """The shape features of a faint mark's outline (``contour``, in ``filled``'s pixels), its
    inradius and harmonics taken from the outline filled: the uneven ink inside a washed-out
    mark, or the uneven light it absorbs, would blur them."""
    inradius = cv2.minMaxLoc(cv2.distanceTransform(filled, cv2.DIST_L2, 3))[1]
    return measure_shape(contour, inradius, angular_harmonics(filled))


def _holds_a_centre(box: tuple[int, int, int, int], blobs: list[Blob]) -> bool:
    """Does the box (x, y, w, h) hold the centre of one of the blobs (a symbol read)?"""
    x, y, w, h = box
    return any(x <= b.center_xy[0] <= x + w and y <= b.center_xy[1] <= y + h for b in blobs)


def _grown_blob(card: BalancedCard, soft: NDArray[np.uint8], outline: NDArray[np.int32],
                box: tuple[int, int, int, int], short: int, low: NDArray[np.uint8]) -> Blob | None:
    """A symbol glare washed out unevenly, of which the faint cut keeps only an edge strip
    (its side away from the glare's core): the pale region the strip bounds, its convex
    hull, is the symbol when the strip makes up a good share of it and the hull's inside
    is paler than the paper too (``None`` otherwise: a glare spot's or a shadow's rim
    bounds paper as bright as the paper outside it). Its shape cannot be told from a
    strip (``SHAPELESS``); its colour is read from the strip's most inked part, as
    :func:`_washed_blob` reads it."""
    hull = cv2.convexHull(outline)
    hull_area = cv2.contourArea(hull)
    if hull_area < _GROWN_SOLID * box[2] * box[3] or cv2.contourArea(outline) < _STRIP_SHARE * hull_area:
        return None
    filled, (x0, y0, x1, y1) = _filled(hull, box, 2, soft.shape)
    strip, _ = _filled(outline, box, 2, soft.shape)
    inside = cv2.subtract(filled, cv2.dilate(strip, _CROSS))
    if cv2.countNonZero(inside) == 0 or cv2.mean(soft[y0:y1, x0:x1], inside)[0] < _GROWN_INK * PAPER_LEVEL * card.noise:
        return None
    features = _filled_shape(hull - np.array([[x0, y0]], np.int32), filled)
    if features is None:
        return None
    extent = features.long_side / short
    if not _MIN_EXTENT <= extent <= _MAX_EXTENT:
        return None
    weights = cv2.bitwise_and(soft[y0:y1, x0:x1], strip)
    core = cv2.threshold(weights, 0.6 * cv2.minMaxLoc(weights)[1], 255, cv2.THRESH_BINARY)[1]
    mean = cv2.mean(card.balanced_bgr[y0:y1, x0:x1], core)
    cx, cy = x0 + features.center_xy[0], y0 + features.center_xy[1]
    through = None if card.source is None else _through_glare(card, low, filled, core, (x0, y0))
    return Blob((float(cx), float(cy)), features, _unwashed(np.multiply(mean[:3], _PER_PAPER, dtype=np.float32)),
                float(extent), (WASHED, SHAPELESS), through_glare_bgr=through, spread_xy=_spread(filled))


def _is_grown_symbol(blob: Blob, short: int, others: list[Blob]) -> bool:
    """Is a washed-out mark of unknown shape (grown from its edge strip, or shapeless) a
    symbol: of a print colour, apart from every symbol read (not a piece of one's halo)?"""
    if float(classify_colours(bgr_to_lab(blob.mean_bgr[None]))[2][0]) < _SHAPELESS_COLOUR_FIT:
        return False
    return all(math.dist(blob.center_xy, other.center_xy) - 0.5 * (blob.extent + other.extent) * short
               >= _SHAPELESS_APART * short for other in others)


def _unwashed(mean_bgr: NDArray[np.float32]) -> NDArray[np.float32]:
    """A washed-out ink's balanced colour restored. Glare adds light, so in linear light
    the ink's absorption ``1 - b`` per channel shrinks by one common factor and keeps its
    proportions; every print colour absorbs nearly all of the light in its darkest
    channel, so scaling that channel's absorption to ``_INK_ABSORPTION`` restores it."""
    absorbed = 1.0 - np.minimum(np.maximum(mean_bgr, 0.0), 1.0) ** _GAMMA
    top = float(absorbed.max())
    if top <= 0.0:
        return mean_bgr
    return (np.maximum(1.0 - absorbed * (_INK_ABSORPTION / top), 0.0) ** (1.0 / _GAMMA)).astype(np.float32)


def _is_washed_symbol(blob: Blob) -> bool:
    """Does a washed-out mark plainly fit a shape (the reader's fit, ``classify_shapes``)
    and a print colour?"""
    shape_fit = float(classify_shapes(blob.features.as_array()[None], np.array([blob.extent]))[2][0])
    colour_fit = float(classify_colours(bgr_to_lab(blob.mean_bgr[None]))[2][0])
    return shape_fit >= _WASHED_SHAPE_FIT and colour_fit >= _WASHED_COLOUR_FIT


def _is_shapeless_symbol(card: BalancedCard, blob: Blob, box: tuple[int, int, int, int], short: int,
                         others: list[Blob]) -> bool:
    """Is a washed-out mark that fits no shape still a symbol: glare clipped the camera
    right beside it or over most of the card (which is what broke its outline), its colour
    fits a print colour, and it stands apart from every symbol read (not a piece of one's
    halo)?"""
    x, y, w, h = box
    near = card.source[max(0, y - 2):y + h + 2, max(0, x - 2):x + w + 2] if card.source is not None else None
    # (glare over most of the paper clipped it to white: the card keeps no source then)
    clipped = card.glare >= WIDE_GLARE if near is None else int(near.max()) >= CLIPPED_LEVEL
    return bool(clipped) and _is_grown_symbol(blob, short, others)


def measured_unglared(card: BalancedCard, centres_xy: list[tuple[float, float]], wanted: list[bool], short: int,
                      band: int) -> list[Blob | None]:
    """Marks measured again on the light they absorb against the paper around them, glare's
    added light left out (:func:`_absorbed`), for a card glare brightens (``card.source``).

    Glare adds light to ink and paper alike, so where it peaks over a symbol the ink map
    (ink against the paper field, which follows the glare only where paper shows) loses the
    symbol's middle or a corner, and the cut outline fits no shape; the absorbed light
    keeps the whole symbol. Each mark, by its centre (``centres_xy``, card pixels), is the
    outline of the absorbed light cut at ``_ABSORBED_INK`` that holds that centre: a Blob
    with its shape features, size, ``fill`` (a printed digit's hole stays a hole) and
    spread, its colour left for the caller (marks whose centres one outline holds share
    one Blob: pieces of one symbol, or symbols the low cut joined); None where no outline
    holds the centre, or the outline is no symbol's size. An outline with a bite out of it
    (not convex) carries its convex hull, measured alike, as ``washed_hull``. Only the outlines holding a
    ``wanted`` mark's centre are measured (None for the others). ``band``: the edge band
    symbols keep off, pixels.
    """
    if card.source is None:
        return [None] * len(centres_xy)
    soft = cv2.GaussianBlur(_absorbed(card, short), (0, 0), 1.0)
    cut = np.zeros_like(soft)
    cut[band:-band, band:-band] = cv2.threshold(soft[band:-band, band:-band], int(_ABSORBED_INK * PAPER_LEVEL), 255,
                                                cv2.THRESH_BINARY)[1]
    outlines, _ = cv2.findContours(_off_edge(cut, band), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    held = [next((k for k, o in enumerate(outlines) if cv2.pointPolygonTest(o, (float(x), float(y)), False) >= 0), -1)
            for x, y in centres_xy]
    measured = {k: _unglared_blob(card, soft, cut, outlines[k], short)
                for k in dict.fromkeys(k for k, want in zip(held, wanted) if want and k >= 0)}
    return [measured.get(k) for k in held]


def _unglared_blob(card: BalancedCard, soft: NDArray[np.uint8], cut: NDArray[np.uint8], outline: NDArray[np.int32],
                   short: int) -> Blob | None:
    """One outline of the absorbed light (:func:`measured_unglared`) measured as a mark."""
    box = cv2.boundingRect(outline)
    if not _MIN_EXTENT * short <= max(box[2:]) <= _MAX_EXTENT * short:
        return None
    filled, (x0, y0, x1, y1) = _filled(outline, box, 2, soft.shape)
    ink = cv2.bitwise_and(cut[y0:y1, x0:x1], filled)
    fill = cv2.countNonZero(ink) / max(cv2.countNonZero(filled), 1)
    features = _filled_shape(outline - np.array([[x0, y0]], np.int32), filled)
    if features is None:
        return None
    extent = features.long_side / short
    cx, cy = x0 + features.center_xy[0], y0 + features.center_xy[1]
    blob = Blob((float(cx), float(cy)), features, np.ones(3, np.float32), float(extent), (UNGLARED,), float(fill),
                spread_xy=_spread(filled))
    if features.solidity >= 1.0 - 1e-3:
        return blob
    # A glare spot's core may wash out even the light absorbed, biting into the outline.
    hull = cv2.convexHull(outline)
    filled_hull, (hx0, hy0, _, _) = _filled(hull, box, 2, soft.shape)
    hull_features = _filled_shape(hull - np.array([[hx0, hy0]], np.int32), filled_hull)
    if hull_features is None:
        return blob
    return replace(blob, washed_hull=replace(blob, center_xy=(hx0 + hull_features.center_xy[0], hy0 + hull_features.center_xy[1]),
                                             features=hull_features, extent=hull_features.long_side / short,
                                             spread_xy=_spread(filled_hull)))


def _absorbed(card: BalancedCard, short: int) -> NDArray[np.uint8]:
    """How much of the light each pixel absorbs against the paper around it, in ink units
    (``PAPER_LEVEL`` = all of it), glare's added light left out.

    The paper's light with glare is the card closed (a dilation, then an erosion) over more
    than a symbol's width, which follows a glare spot's smooth bump but fills the marks; in
    linear light that less the pixel is ``(1 - r) L``, the light the ink absorbs, glare gone
    (:func:`vision.blobs._through_glare` reads colours so). Divided by the card's typical
    paper and taken in the channel the ink absorbs most, a symbol the paper field took for
    paper (washed out by glare, close to the paper's own colour) stands out again.

    Returns
    -------
    ndarray (H, W) uint8
    """
    closed = _closed(card.source, short)
    per_paper = tuple(PAPER_LEVEL / max((float(v) / 255.0) ** _GAMMA, 1e-3) for v in card.typical_bgr) + (0.0,)
    absorbed = cv2.multiply(cv2.subtract(cv2.LUT(closed, _LINEAR), cv2.LUT(card.source, _LINEAR)), per_paper)
    b, g, r = cv2.split(absorbed)
    return cv2.convertScaleAbs(cv2.max(cv2.max(b, g), r))


def _closed(image: NDArray[np.uint8], short: int) -> NDArray[np.uint8]:
    """The card closed (a dilation, then an erosion) over ``_CLOSE_SPAN`` of its short side:
    its paper with the marks filled, a shadow's or a glare spot's edge kept in place."""
    side = round(_CLOSE_SPAN * short) | 1
    return cv2.morphologyEx(image, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (side, side)))

