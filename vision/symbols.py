"""Find the symbols on a balanced card: ink segmentation, clean-up and one blob per symbol.

Ink is segmented with hysteresis on the ink-strength map, with thresholds set by the
card's own paper noise; each blob is then re-cut at half of its own ink strength (so a
pale yellow and a deep black symbol get the same outline), upsampled when small, and
measured. What can never be a symbol is dropped here: table pixels and rounded corners at
the edge, a printed border line, a shadow edge, noise specks and glare. A symbol joined to
something at the edge is cut free when it plainly is one; what reaches in from the edge
(a hand or a card over this one, a symbol cut by a short quad) is reported as dropped, so
that the reader can doubt the count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colours import bgr_to_lab, classify_colours
from vision.shapes import ShapeFeatures, angular_harmonics, classify_shapes, measure_shape, shape_scores
from vision.whitebalance import PAPER_LEVEL, BalancedCard

__all__ = ["Blob", "Segmentation", "find_blobs", "UNCLEAR_PIECE", "SHAPELESS"]

# Sizes as fractions of the card's short side (the spec: symbols span 15% to 70%).
_MIN_EXTENT, _DOUBT_EXTENT = 0.075, 0.11
_MAX_EXTENT, _DOUBT_MAX_EXTENT = 0.82, 0.74
_EDGE_MARGIN = 0.04
# A blob reaching this far (share of the short side) in from the edge band is an overlap;
# so is one with this much ink (share of the short side squared) further in than _INNER.
_DEEP_EDGE = 0.2
_INNER, _DEEP_AREA = 0.12, 0.01
# A solid mark reaching this far in from one side, along at most _CUT_LENGTH of it and at
# least _CUT_MIN_LENGTH (a thin bar cut end-on), is a symbol cut off by the image's edge
# (shares of the short side; on dev renders 0.05 deep and 0.075 long left such cuts unsaid).
_CUT_DEPTH, _CUT_LENGTH, _CUT_MIN_LENGTH = 0.03, 0.5, 0.04
# A plain printed frame's inner outline has no dent deeper than this (share of the short side).
_FRAME_DENT = 0.03
# Silhouettes are measured with at least this many pixels across.
_MEASURE_PX = 40.0
# A symbol-sized piece peeled off something at the edge that is plainly no symbol.
UNCLEAR_PIECE = "a mark joined to the card's edge may be a symbol"
# Ink level of a mark that may be a washed-out symbol (below the hysteresis thresholds).
_FAINT = 0.06
_FAINT_DOUBT = "faint blob near the ink threshold"
# A blob with less of its outline inked than this has a hole (glare, or a printed digit).
_HOLED = 0.9
_CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
# How well (exp(score / 4), 0-1) a piece cut off an edge blob fits a shape and a colour.
_CLEAR_FIT = 0.3
# Shares of an edge blob's own ink level at which a symbol joined to it is cut free (a
# shadow's or an overlapping card's ink is paler than a symbol's; on dev renders each of
# these frees symbols the others do not).
_LEVEL_CUTS = (0.5, 0.7, 0.9)
# Printed frames lie within _BORDER_ZONE of the edge; a line along the edge within _LINE_ZONE.
_BORDER_ZONE, _LINE_ZONE = 0.06, 0.16
_PER_PAPER = np.float32(1.0 / PAPER_LEVEL)
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
_WASHED_PAPER, _WASHED_NOISE = 110.0, 0.08
# A washed-out mark that fits no shape (glare clipped part of it away) still counts as a
# symbol where the camera clipped a channel (from _CLIPPED, 0-255) beside it, when its colour
# fits a print colour this well and it keeps this far (share of the short side) off every
# symbol read; its shape is then unknown (the reader takes one the card shows).
SHAPELESS = "a washed-out mark of unknown shape"
_CLIPPED, _SHAPELESS_COLOUR_FIT, _SHAPELESS_APART = 250, 0.3, 0.08
# The same search on the light a mark absorbs against the paper closed over _CLOSE_SPAN of
# the short side (:func:`_absorbed`), from this ink level: on /tmp/dev120 renders 0.12-0.16
# read fewer washed-out symbols, 0.24 or a span of 0.4-0.5 fewer on dev120/hard, an ellipse
# closing (10 times slower) no more.
_ABSORBED_INK, _CLOSE_SPAN = 0.2, 0.3
# Paper in a shadow stays paper-coloured once balanced: what a mark found inside something
# reaching in from the edge is set against may differ by this share of its brightest channel.
_SHADE_TINT = 0.2
# Cards with more glare than this share of the paper (or blind spots) are searched for
# them: the cards read.py doubts for glare.
_GLARE_SHARE = 0.02
# Linear-light gamma and how much of the light every print colour absorbs in its darkest channel.
_GAMMA = 2.2
_INK_ABSORPTION = 0.9
# A symbol's colour is read through glare (:func:`_through_glare`) where the paper in a
# ring _RING_PX wide around it is at least _GLARE_RING times as bright (in linear light)
# as the card's typical paper, and not clipped (from _RING_CLIPPED, 0-255) in two channels.
_RING_PX = 3
_GLARE_RING = 1.15
_RING_CLIPPED = 248.0
_LINEAR = ((np.arange(256, dtype=np.float32) / 255.0) ** _GAMMA).reshape(1, 256)


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
    """

    center_xy: tuple[float, float]
    features: ShapeFeatures
    mean_bgr: NDArray[np.float32]
    extent: float
    doubt: tuple[str, ...] = ()
    fill: float = 1.0
    through_glare_bgr: NDArray[np.float32] | None = None


@dataclass(frozen=True)
class Segmentation:
    """All blobs of a card plus what was seen and dropped."""

    blobs: tuple[Blob, ...]
    ink_fraction: float
    dropped: tuple[str, ...] = field(default=())
    doubt: tuple[str, ...] = field(default=())


def _thresholds(noise: float) -> tuple[float, float]:
    """Hysteresis thresholds on the ink map: above the paper's noise, but never so high
    that a pale ink (yellow) or a washed-out symbol is lost on a noisy card."""
    low = min(max(0.16, 4.0 * noise), 0.24)
    return low, min(max(0.32, 2.0 * low), 0.42)


def find_blobs(card: BalancedCard, shade: bool = True) -> Segmentation:
    """Segment the symbols of a balanced card.

    Ink is found with hysteresis (weak pixels belong to a blob that has strong ones);
    each blob is then cut again at half of its own ink level on an upsampled ink map,
    which places a blurred edge where the print edge was and gives small symbols enough
    pixels to measure.

    Parameters
    ----------
    card : BalancedCard
        From :func:`vision.whitebalance.balance_card` at working size.
    shade : look again for symbols inside a shadow or beside a hand reaching in from the
        edge (:func:`_in_shade`).

    Returns
    -------
    Segmentation
    """
    ink = card.ink
    height, width = ink.shape
    short = min(height, width)
    low_t, high_t = _thresholds(card.noise)
    low8, high8 = int(round(low_t * PAPER_LEVEL)), int(round(high_t * PAPER_LEVEL))
    band = max(2, round(_EDGE_MARGIN * short))
    low = np.zeros_like(ink)
    low[band:-band, band:-band] = cv2.threshold(ink[band:-band, band:-band], low8, 255, cv2.THRESH_BINARY)[1]
    # Two-level hierarchy: a printed border line encloses the symbols but must not hide them.
    contours, hierarchy = cv2.findContours(low, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    links = hierarchy[0].tolist() if contours else []
    # A plain printed frame: its one hole is a convex outline of nearly its own size.
    holes = {link[3]: c for c, link in zip(contours, links) if link[3] >= 0}
    ink_fraction = cv2.countNonZero(low) / (height * width)
    smoothed = cv2.blur(ink, (3, 3))

    min_px = _MIN_EXTENT * short * 0.8
    taken: list[NDArray[np.int32]] = []
    overlaps: list[NDArray[np.int32]] = []
    blobs: list[Blob] = []
    dropped: list[str] = []
    doubt: list[str] = []
    for index, (outline, link) in enumerate(zip(contours, links)):
        if link[3] >= 0 or len(outline) < 2 * min_px:
            continue
        box = cv2.boundingRect(outline)
        x, y, w, h = box
        longest = max(w, h)
        if longest < min_px:
            continue
        # Symbols keep well off the card edge: whatever reaches the edge band is table, a
        # rounded corner, a neighbouring card, a shadow or a border line.
        if _at_edge(box, band, width, height):
            area = cv2.contourArea(outline)
            if area < min_px * min_px:
                dropped.append("cut at the edge" if _is_cut(box, area, band, short, width, height) else "edge")
                continue
            if _is_plain_frame(holes.get(index), area, short):
                dropped.append("edge")
                continue
            # Whatever reaches the edge is no symbol, but a symbol may touch it (a printed
            # border line, a finger or a card over the edge): peel the thin lines off and
            # keep the symbol-sized pieces that then stand free of the edge.
            pieces, deep, cut = _split_at_edge(low, outline, box, band, short)
            dropped.append("overlap at the edge" if deep else "cut at the edge" if cut else "edge")
            if deep:
                overlaps.append(outline)
            if pieces and deep:
                doubt.append("a symbol touches something over the card's edge")
            for piece in pieces:
                found = [blob for blob in _measure_blob(card, low, smoothed, piece, cv2.boundingRect(piece), short, low8, high8, [], [])
                         if _is_clear_symbol(blob)]
                if not found and UNCLEAR_PIECE not in doubt:
                    doubt.append(UNCLEAR_PIECE)  # a symbol half under a finger, say
                blobs.extend(found)
            # A symbol joined to a shadow, a card over the edge or a strip of table by paler
            # ink stands free when the blob is cut higher: try a few shares of its own ink
            # level, where the blob has room for a symbol off the edge (not a thin line).
            roomy = deep or min(w, h) > band + _MIN_EXTENT * short
            for piece in _split_by_level(smoothed, low, outline, box, band, short, high8) if roomy else ():
                px, py, pw, ph = piece_box = cv2.boundingRect(piece)
                if any(px <= b.center_xy[0] <= px + pw and py <= b.center_xy[1] <= py + ph for b in blobs):
                    continue
                found = _measure_blob(card, low, smoothed, piece, piece_box, short, low8, high8, [], [], solid=True)
                blobs.extend(blob for blob in found if _is_clear_symbol(blob))
            continue
        found = _measure_blob(card, low, smoothed, outline, box, short, low8, high8, dropped, doubt, solid=link[2] < 0)
        if found:
            taken.append(outline)
            blobs.extend(found)
    if overlaps and shade and blobs:  # (no symbol elsewhere: a strip of table, not a face in shadow)
        blobs.extend(_in_shade(card, short, blobs, overlaps))
    washed, faint_left = _faint_marks(card, low, band, short, blobs, taken, _FAINT_DOUBT in doubt)
    blobs.extend(washed)
    if faint_left:
        doubt.append(_FAINT_DOUBT)
    return Segmentation(tuple(blobs), ink_fraction, tuple(dropped), tuple(doubt))


def _in_shade(card: BalancedCard, short: int, blobs: list[Blob], overlaps: list[NDArray[np.int32]]) -> list[Blob]:
    """Symbols inside what reaches in from the card's edge: a shadow whose edge the paper
    field did not follow, or a hand beside them. The card is balanced again against its
    own paper closed over more than a symbol's width (a closing fills the marks but keeps
    a shadow's edge where it is) and segmented once more; of that, the plain symbols
    lying inside the ``overlaps`` (outlines dropped at the edge), on paper-coloured
    ground (not a table's stripe, not a hand) and apart from ``blobs`` are kept."""
    closed = _closed(card.balanced_bgr, short)
    local = cv2.divide(card.balanced_bgr, cv2.max(closed, 1), scale=PAPER_LEVEL)
    b, g, r = cv2.split(local)
    ink = cv2.subtract(np.full_like(b, PAPER_LEVEL), cv2.min(cv2.min(b, g), r))
    again = find_blobs(replace(card, balanced_bgr=local, ink=ink, source=None), shade=False)
    inside = np.zeros_like(card.ink)
    cv2.drawContours(inside, overlaps, -1, 255, -1)
    found = []
    for blob in again.blobs:
        x, y = (min(max(round(v), 0), n - 1) for v, n in zip(blob.center_xy, inside.shape[::-1]))
        if not inside[y, x] or not _is_clear_symbol(blob):
            continue
        around = closed[y, x].astype(np.float32)
        if float(around.max() - around.min()) > _SHADE_TINT * float(around.max()):
            continue  # not paper in a shadow: a table's stripe or a hand around it
        if any(math.dist(blob.center_xy, other.center_xy) < 0.5 * blob.extent * short for other in blobs + found):
            continue
        found.append(blob)
    return found


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


def _at_edge(box: tuple[int, int, int, int], band: int, width: int, height: int) -> bool:
    x, y, w, h = box
    return x <= band or y <= band or x + w >= width - band or y + h >= height - band


def _split_at_edge(low: NDArray[np.uint8], outline: NDArray[np.int32], box: tuple[int, int, int, int], band: int,
                   short: int) -> tuple[list[NDArray[np.int32]], bool, bool]:
    """Symbols joined to something at the card's edge, and whether that something reaches
    deep into the card. Thin lines (a border line, a rounded corner's rim) vanish under a
    one-pixel erosion; what then stands free of the edge band and is symbol-sized is grown
    back within the ink and returned as outlines in card pixels."""
    height, width = low.shape
    x, y, w, h = box
    x0, y0 = max(0, x - 1), max(0, y - 1)
    x1, y1 = min(width, x + w + 1), min(height, y + h + 1)
    # The blob's own ink: not the symbols inside a border line's frame.
    _, parts = cv2.connectedComponents(low[y0:y1, x0:x1], connectivity=8)
    px, py = outline[0, 0]
    own = cv2.compare(parts, int(parts[py - y0, px - x0]), cv2.CMP_EQ)
    core = cv2.erode(own, _CROSS)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=4)
    pieces: list[NDArray[np.int32]] = []
    deep = cut = False
    min_px = _MIN_EXTENT * short
    for k in range(1, count):
        cx, cy, cw, ch, area = stats[k]
        piece_box = (cx + x0, cy + y0, cw, ch)
        # (the erosion moved everything a pixel in from the band)
        if _at_edge(piece_box, band + 1, width, height):
            cut = cut or _is_cut(piece_box, float(area), band + 1, short, width, height)
            if not deep:
                # Solid ink reaching well into the card from its edge: something lies over it.
                inner = cv2.compare(labels, k, cv2.CMP_EQ)
                d = round(_INNER * short)
                ix0, iy0 = max(0, d - x0), max(0, d - y0)
                ix1, iy1 = min(inner.shape[1], width - d - x0), min(inner.shape[0], height - d - y0)
                deep = ix1 > ix0 and iy1 > iy0 and cv2.countNonZero(inner[iy0:iy1, ix0:ix1]) >= _DEEP_AREA * short * short
            continue
        if max(cw, ch) + 2 < min_px or _is_border_piece(piece_box, short, width, height):
            continue
        grown = cv2.bitwise_and(cv2.dilate(cv2.compare(labels, k, cv2.CMP_EQ), _CROSS), own)
        contours, _ = cv2.findContours(grown, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=(x0, y0))
        pieces.extend(c for c in contours if max(cv2.boundingRect(c)[2:]) >= min_px)
    return pieces, deep, cut


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


def _split_by_level(smoothed: NDArray[np.uint8], low: NDArray[np.uint8], outline: NDArray[np.int32],
                    box: tuple[int, int, int, int], band: int, short: int, high8: int) -> list[NDArray[np.int32]]:
    """Symbols joined to a shadow or an object at the edge by ink paler than theirs: the
    blob cut at each of ``_LEVEL_CUTS`` of its own ink level, the symbol-sized pieces that
    then stand free of the edge band, as outlines in card pixels (a symbol may come once
    per cut)."""
    height, width = low.shape
    own, (x0, y0, x1, y1) = _filled(outline, box, 1, low.shape)
    own = cv2.bitwise_and(own, low[y0:y1, x0:x1])
    roi = smoothed[y0:y1, x0:x1]
    level = cv2.minMaxLoc(roi, own)[1]
    min_px = _MIN_EXTENT * short
    pieces = []
    for share in _LEVEL_CUTS:
        strong = cv2.bitwise_and(cv2.threshold(roi, max(share * level, high8), 255, cv2.THRESH_BINARY)[1], own)
        contours, _ = cv2.findContours(strong, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=(x0, y0))
        for c in contours:
            pbox = cv2.boundingRect(c)
            if max(pbox[2:]) < min_px or _at_edge(pbox, band + 1, width, height) or _is_border_piece(pbox, short, width, height):
                continue
            pieces.append(c)
    return pieces


def _is_plain_frame(hole: NDArray[np.int32] | None, area: float, short: int) -> bool:
    """Is this edge blob a bare printed frame, no symbol joined to it: one hole (a
    rounded rectangle) filling nearly all of its outline, with no dent deeper than a
    couple of pixels."""
    if hole is None or len(hole) < 4 or cv2.contourArea(hole) < 0.8 * area:
        return False
    defects = cv2.convexityDefects(hole, cv2.convexHull(hole, returnPoints=False))
    return defects is None or float(defects[:, 0, 3].max()) / 256.0 < _FRAME_DENT * short


def _is_cut(box: tuple[int, int, int, int], area: float, band: int, short: int, width: int, height: int) -> bool:
    """A solid mark running off one side of the image for a short stretch: a symbol cut
    by a quad that does not cover the whole card (a strip of table or a shadow runs along
    the side, a rounded corner is shallow)."""
    x, y, w, h = box
    sides = [x <= band, y <= band, x + w >= width - band, y + h >= height - band]
    if sum(sides) != 1:
        return False
    depth, length = (w, h) if sides[0] or sides[2] else (h, w)
    return (depth - band >= _CUT_DEPTH * short and length <= _CUT_LENGTH * short
            and area >= 0.4 * w * h and length >= _CUT_MIN_LENGTH * short)


def _is_border_piece(box: tuple[int, int, int, int], short: int, width: int, height: int) -> bool:
    """A piece of a printed frame: close to the edge, or a line near the edge running
    along it (symbols keep well off the edge; a frame line is thin and straight)."""
    x, y, w, h = box
    near = _BORDER_ZONE * short
    if x < near or y < near or x + w > width - near or y + h > height - near:
        return True
    if max(w, h) < 3 * min(w, h):
        return False
    along = _LINE_ZONE * short
    if w > h:
        return y < along or y + h > height - along
    return x < along or x + w > width - along


def _is_clear_symbol(blob: Blob) -> bool:
    """A piece cut off something at the edge counts only when it plainly is a symbol: a
    solid mark that fits a shape and a print colour well (not a piece of a shadow, a
    hand or a card back)."""
    if blob.doubt or blob.fill < _HOLED:
        return False
    shape_fit = float(np.exp(shape_scores(blob.features.as_array()[None], np.array([blob.extent])).max() / 4.0))
    colour_fit = float(classify_colours(bgr_to_lab(blob.mean_bgr[None]))[2][0])
    return shape_fit >= _CLEAR_FIT and colour_fit >= _CLEAR_FIT


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
    segmentation met a faint blob; a faint mark left unread; or glare clipped a channel),
    which spares most cards with glare."""
    height, width = card.ink.shape
    washed: list[Blob] = []
    faint_left = _has_faint_mark(card.ink, band, short, blobs)
    glare = card.wash is not None and (card.glare > _GLARE_SHARE or card.blind > 0.0)
    if glare and (faint_left or faint_seen or card.blind > 0.0) and _may_hide_washed(card):
        # The edge's ink as it is, not filled: a printed frame would enclose every mark.
        used = cv2.subtract(low, _off_edge(low, band))
        cv2.drawContours(used, taken, -1, 255, -1)
        free = cv2.bitwise_not(cv2.dilate(used, _CROSS, iterations=2))
        bright = cv2.resize(cv2.compare(card.wash, _WASHED_WASH, cv2.CMP_GE), (width, height), interpolation=cv2.INTER_NEAREST)
        maps = [(card.ink, _WASHED_INK)]
        broken: list[tuple[Blob, tuple[int, int, int, int]]] = []
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
                if cv2.contourArea(outline) < 0.3 * w * h or cv2.countNonZero(bright[y:y + h, x:x + w]) == 0:
                    continue
                if any(x <= b.center_xy[0] <= x + w and y <= b.center_xy[1] <= y + h for b in blobs + washed):
                    continue
                blob = _washed_blob(card, soft, outline, box, short)
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
        if washed:
            faint_left = _has_faint_mark(card.ink, band, short, blobs + washed)
    return washed, faint_left


def _absorbed(card: BalancedCard, short: int) -> NDArray[np.uint8]:
    """How much of the light each pixel absorbs against the paper around it, in ink units
    (``PAPER_LEVEL`` = all of it), glare's added light left out.

    The paper's light with glare is the card closed (a dilation, then an erosion) over more
    than a symbol's width, which follows a glare spot's smooth bump but fills the marks; in
    linear light that less the pixel is ``(1 - r) L``, the light the ink absorbs, glare gone
    (:func:`_through_glare` reads colours so). Divided by the card's typical paper and taken
    in the channel the ink absorbs most, a symbol the paper field took for paper (washed out
    by glare, close to the paper's own colour) stands out again.

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


def _may_hide_washed(card: BalancedCard) -> bool:
    """Can a faint mark on this card be a washed-out symbol at all: bright paper (glare
    on a card in deep shadow, or on a card back, is no glare on paper) quiet enough that the
    faint cut stays well above its noise?"""
    return card.noise <= _WASHED_NOISE and float(card.paper_bgr.max()) >= _WASHED_PAPER


def _washed_blob(card: BalancedCard, soft: NDArray[np.uint8], outline: NDArray[np.int32],
                 box: tuple[int, int, int, int], short: int) -> Blob | None:
    """Measure a faint mark: its outline cut at a share of its own ink level (glare washes
    a symbol unevenly, its middle most, so the cut is low and holes are filled), its colour
    from its most inked part, restored to a full ink's strength (:func:`_unwashed`)."""
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
    inradius = cv2.minMaxLoc(cv2.distanceTransform(solid, cv2.DIST_L2, 3))[1]
    # Harmonics of the filled outline: the uneven ink of a washed-out mark would blur them.
    features = measure_shape(contour, inradius, angular_harmonics(solid))
    if features is None:
        return None
    extent = features.long_side / scale / short
    if not _MIN_EXTENT <= extent <= _MAX_EXTENT:
        return None
    core = cv2.threshold(weights, 0.6 * level, 255, cv2.THRESH_BINARY)[1]
    mean = cv2.mean(card.balanced_bgr[y0:y1, x0:x1], core)
    cx = x0 + (features.center_xy[0] + 0.5) / scale - 0.5
    cy = y0 + (features.center_xy[1] + 0.5) / scale - 0.5
    return Blob((float(cx), float(cy)), features, _unwashed(np.multiply(mean[:3], _PER_PAPER, dtype=np.float32)),
                float(extent), ("symbol washed out by glare",))


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
    absorption there is only a lower bound (on dev renders reading it so still helps);
    clipped in two, one channel is left to scale by: None. The reader keeps this colour or
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
    # Paper clipped in two channels leaves the absorption in one alone to scale by.
    if max(p / t for p, t in zip(paper_linear, typical)) < _GLARE_RING or sum(v >= _RING_CLIPPED for v in paper) >= 2:
        return None
    ink = cv2.mean(card.source[y0:y0 + h, x0:x0 + w], core)[:3]
    absorbed = [(p - (v / 255.0) ** _GAMMA) / t for p, v, t in zip(paper_linear, ink, typical)]
    top = max(absorbed)
    if top <= 0.05:  # no ink darker than the paper around it
        return None
    scale = _INK_ABSORPTION / top
    return np.array([(1.0 - min(max(a * scale, 0.0), 1.0)) ** (1.0 / _GAMMA) for a in absorbed], np.float32)


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
    right beside it (which is what broke its outline), its colour fits a print colour, and
    it stands apart from every symbol read (not a piece of one's halo)?"""
    x, y, w, h = box
    near = card.source[max(0, y - 2):y + h + 2, max(0, x - 2):x + w + 2] if card.source is not None else None
    if near is None or int(near.max()) < _CLIPPED:
        return False
    if float(classify_colours(bgr_to_lab(blob.mean_bgr[None]))[2][0]) < _SHAPELESS_COLOUR_FIT:
        return False
    return all(math.dist(blob.center_xy, other.center_xy) - 0.5 * (blob.extent + other.extent) * short
               >= _SHAPELESS_APART * short for other in others)


def _has_faint_mark(ink: NDArray[np.uint8], band: int, short: int, blobs: list[Blob]) -> bool:
    """Is there a symbol-sized mark too faint to read (a symbol washed out by glare) away
    from the symbols that were read?"""
    faint = np.zeros_like(ink)
    inner = ink[band:-band, band:-band]
    faint[band:-band, band:-band] = cv2.threshold(inner, int(_FAINT * PAPER_LEVEL), 255, cv2.THRESH_BINARY)[1]
    outlines, _ = cv2.findContours(_off_edge(faint, band), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for outline in outlines:
        x, y, w, h = cv2.boundingRect(outline)
        if not _DOUBT_EXTENT * short <= max(w, h) <= _MAX_EXTENT * short:
            continue
        if any(x <= b.center_xy[0] <= x + w and y <= b.center_xy[1] <= y + h for b in blobs):
            continue
        if cv2.contourArea(outline) >= 0.3 * w * h:
            return True
    return False


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
                  dropped: list[str], doubt: list[str], solid: bool = False) -> list[Blob]:
    """The symbols in one outline of the ink mask. ``solid``: the outline encloses no
    hole (it has no child in the contour hierarchy), so all of it is ink."""
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
            doubt.append(_FAINT_DOUBT)
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
    min_part = _MIN_EXTENT * short * scale
    parts = [c for c in contours if max(cv2.boundingRect(c)[2:]) >= min_part and cv2.contourArea(c) > 4.0 * scale * scale]
    washed = False
    if len(parts) > 1:
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
            harmonics = angular_harmonics(np.where(near > 0, weights, 0.0))
        else:
            harmonics = angular_harmonics(weights)
        features = measure_shape(part, inradius, harmonics)
        if features is None:
            continue
        extent = features.long_side / scale / short
        if extent < _MIN_EXTENT:
            continue
        if extent > _MAX_EXTENT:
            dropped.append("too long for a symbol")
            continue
        if features.short_side / scale < 0.022 * short:
            dropped.append("thin line")
            continue
        reasons: list[str] = []
        if extent < _DOUBT_EXTENT:
            reasons.append("small blob near the size limit")
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
        through = None
        if card.source is not None:
            # The symbol at its print edge (half its ink level), in the box's pixels.
            symbol = part_mask
            if symbol.shape != core.shape:
                symbol = cv2.resize(symbol, core.shape[::-1], interpolation=cv2.INTER_NEAREST)
            symbol_core = core if len(parts) == 1 else cv2.bitwise_and(core, symbol)
            through = _through_glare(card, low, symbol, symbol_core, (x0, y0))
        blobs.append(Blob((float(cx), float(cy)), features, mean_bgr, float(extent), tuple(reasons), fill, through))
    return blobs
