"""Find the symbols on a balanced card: ink segmentation, clean-up and one blob per symbol.

Ink is segmented with hysteresis on the ink-strength map, with thresholds set by the
card's own paper noise; each blob is then re-cut at its own ink strength and measured
(:mod:`vision.blobs`). What can never be a symbol is dropped here: table pixels and
rounded corners at the edge, a printed border line, a shadow edge, noise specks and glare.
A symbol joined to something at the edge is cut free (where the join is thin, paler than
the symbol, or of another colour) when it plainly is one, or counted with its shape
unknown (``HIDDEN``) when what is cut free fits no shape but plainly is a print colour (a
symbol partly under a finger), as is a solid mark of a print colour that the image's side
cuts off, joined to nothing (a quad cut short); a whole symbol straying into the edge band
(a quad cut a little short) is read and doubted (``STRAY``). What reaches in from the
edge (a hand or a card over this one, a symbol cut by a short quad) is reported as
dropped, so that the reader can doubt the count, and symbols inside a shadow reaching in
from the edge are looked for again on paper balanced locally (:func:`_in_shade`).
Symbols too faint for the thresholds, washed out by glare, are searched for last
(:mod:`vision.washed`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.cards import Colour
from vision.blobs import _CROSS, _FAINT_DOUBT, FAINT_FRAME, _HOLED, _MIN_EXTENT, _SMALL_DOUBT, Blob, _filled, _measure_blob
from vision.colours import bgr_to_lab, classify_colours, label_pixels
from vision.covered import VIEW_COVER, VIEW_INK, VIEW_PAPER
from vision.shapes import shape_scores
from vision.washed import SHAPELESS, WASHED, _closed, _faint_marks
from vision.whitebalance import PAPER_LEVEL, BalancedCard, rebalanced

__all__ = ["Blob", "Segmentation", "find_blobs", "edge_band", "UNCLEAR_PIECE", "SHAPELESS", "STRAY", "HIDDEN", "WASHED"]

# The edge band symbols keep off (share of the card's short side).
_EDGE_MARGIN = 0.04
# A blob at the edge with this much ink (share of the short side squared) further in than
# _INNER (share of the short side) is an overlap.
_INNER, _DEEP_AREA = 0.12, 0.01
# A solid mark reaching this far in from one side, along at most _CUT_LENGTH of it and at
# least _CUT_MIN_LENGTH (a thin bar cut end-on), is a symbol cut off by the image's edge
# (shares of the short side; on dev renders 0.05 deep and 0.075 long left such cuts unsaid).
_CUT_DEPTH, _CUT_LENGTH, _CUT_MIN_LENGTH = 0.03, 0.5, 0.04
# A bar the quad's edge cuts lengthwise leaves a sliver along the side, _CUT_DEPTH deep
# counted from the band and at least this long (share of the short side; on dev 0.2
# doubted more right reads for the same wrong one).
_SLIVER_LENGTH = 0.25
# A solid mark along more than _CUT_LENGTH of one side reaching this far in beyond the band
# (share of the short side, about a symbol's width) is something over the card's edge: a
# finger, a card, or table inside a quad that is too wide (on dev 0.05-0.075 alike).
_OVER_DEPTH = 0.06
# A whole symbol straying into the edge band (up to _STRAY_EXTENT of the short side) is
# read, and doubted: printed symbols keep off the edge, so the quad may cut the card short.
STRAY = "a symbol lies in the card's edge band (the card may be cut short)"
_STRAY_EXTENT = 0.45
# A plain printed frame's inner outline has no dent deeper than this (share of the short side).
_FRAME_DENT = 0.03
# A symbol-sized piece peeled off something at the edge that is plainly no symbol.
UNCLEAR_PIECE = "a mark joined to the card's edge may be a symbol"
# How well (exp(score / 4), 0-1) a piece cut off an edge blob fits a shape and a colour.
_CLEAR_FIT = 0.3
# A symbol-sized piece cut off an edge blob that fits no shape is still a symbol, of
# unknown shape (HIDDEN), when it fits a print colour this well (0-1; on dev renders 0.6
# added false symbols, 0.9 lost some).
HIDDEN = "a symbol joined to something over the edge, of unknown shape"
_HIDDEN_COLOUR_FIT = 0.8
# A piece near the size limit (but at least _SMALL_HIDDEN_EXTENT of the short side) is such a
# symbol too when it fits a print colour this well: what stands out from under a cover is
# only part of a symbol, smaller than any whole one.
_SMALL_HIDDEN_COLOUR_FIT, _SMALL_HIDDEN_EXTENT = 0.9, 0.09
# A piece of one print colour that a cover of another colour cuts free (``_split_by_colour``:
# each of its pixels fits that colour, and it stands on paper but for the cover) counts
# from this extent (share of the short side) and fitting the colour as a larger piece must
# (_HIDDEN_COLOUR_FIT; a sliver's mean mixes in its blurred rim): what a cover leaves in
# view of a symbol it mostly hides. On fresh hard renders such slivers (0.05-0.075 long)
# of symbols 15-25% in view were lost where nothing else was.
_SLIVER_EXTENT = 0.05
# A piece's view (``Blob.view``) reaches this far around it (share of the short side).
_VIEW_REACH = 0.4
# A mark cut off by the image's edge, joined to nothing, is a symbol of unknown shape (HIDDEN)
# when at least this solid and this plainly of a print colour (0-1; on fresh hard renders
# the symbols so cut fit 0.88-0.99 and were 0.9-0.99 solid).
_CUT_SOLIDITY, _CUT_COLOUR_FIT = 0.9, 0.9
# A star the image's side cuts at an arm's tip is far less solid: a mark reaching in at least
# _CUT_WHOLE of its length along the side (most of a symbol in view) needs only
# _CUT_STAR_SOLIDITY (a blurred star whole is about 0.7; on fresh hard renders one cut so, 0.76).
_CUT_STAR_SOLIDITY, _CUT_WHOLE = 0.75, 0.8
# A pixel is of a print colour when it fits it this well (0-1, as a symbol's mean colour).
_PIXEL_FIT = 0.5
# A symbol joined to a cover stands mostly on paper: at least this share of a ring from
# _RING_IN to _RING_OUT pixels out of it is no ink (a piece of a card back's pattern or of
# a flag is ringed by more of the cover). The cover is of another colour than the
# symbol: a colour making up this share of the blob's ink is the cover's own.
_ON_PAPER, _RING_IN, _RING_OUT = 0.6, 2, 5
_COVER_SAME = 0.5
# A symbol standing out from under a cover has the cover along its hidden side: its ring may
# be only _HALF_ON_PAPER paper when the ink around it is plainly of another hue (distance of
# the mean colours' a, b at least _COVER_APART). A piece of the cover's own print (a card
# back's navy rim outside its light frame line) is of the cover's hue, only lighter or
# darker. On fresh renders the symbols so freed showed 0.47-0.59 paper and 24-104 apart,
# the pieces of navy card backs 0.43-0.56 paper and 1-6 apart.
_HALF_ON_PAPER, _COVER_APART = 0.45, 18.0
# Shares of an edge blob's own ink level at which a symbol joined to it is cut free (a
# shadow's or an overlapping card's ink is paler than a symbol's; on dev renders each of
# these frees symbols the others do not).
_LEVEL_CUTS = (0.5, 0.7, 0.9)
# Printed frames lie within _BORDER_ZONE of the edge; a line along the edge within _LINE_ZONE.
_BORDER_ZONE, _LINE_ZONE = 0.06, 0.16
# Paper in a shadow stays paper-coloured once balanced: what a mark found inside something
# reaching in from the edge is set against may differ by this share of its brightest channel.
_SHADE_TINT = 0.2


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


def edge_band(short: int) -> int:
    """The band along a card's edge (``short``: its short side, pixels) that symbols keep off, pixels."""
    return max(2, round(_EDGE_MARGIN * short))


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
    band = edge_band(short)
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
    hidden: list[Blob] = []
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
            stray = _stray_symbol(card, outline, box, smoothed, band, short, low8, high8)
            if stray is not None:
                blobs.append(stray)
                if STRAY not in doubt:
                    doubt.append(STRAY)
                continue
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
            pieces, deep, cut, covered = _split_at_edge(low, outline, box, band, short)
            dropped.append("overlap at the edge" if deep or covered else "cut at the edge" if cut else "edge")
            if deep:
                overlaps.append(outline)
            if pieces and deep:
                doubt.append("a symbol touches something over the card's edge")
            for piece in pieces:
                found, unclear = _sort_pieces(_measure_blob(card, low, smoothed, piece, cv2.boundingRect(piece), short, low8,
                                                            high8, [], []))
                if not found and UNCLEAR_PIECE not in doubt:
                    doubt.append(UNCLEAR_PIECE)  # a symbol half under a finger, say
                blobs.extend(found)
                hidden.extend(_under_cover(unclear, low, piece, outline, short))
            # A symbol joined to a shadow, a card over the edge or a strip of table by paler
            # ink stands free when the blob is cut higher: try a few shares of its own ink
            # level, where the blob has room for a symbol off the edge (not a thin line).
            roomy = deep or min(w, h) > band + _MIN_EXTENT * short
            freed = bool(pieces)
            # So does taking each print colour's pixels apart, where a cover of another colour
            # lies over the edge (the shade pass, on paper balanced locally, leaves covers to the first pass).
            by_level = _split_by_level(smoothed, low, outline, box, band, short, high8) if roomy else ()
            by_colour = _split_by_colour(card, low, outline, box, band, short) if shade and (deep or covered) else ()
            for piece, sliver in itertools.chain(((p, False) for p in by_level), ((p, True) for p in by_colour)):
                px, py, pw, ph = piece_box = cv2.boundingRect(piece)
                if any(px <= b.center_xy[0] <= px + pw and py <= b.center_xy[1] <= py + ph for b in blobs):
                    continue
                found, unclear = _sort_pieces(_measure_blob(card, low, smoothed, piece, piece_box, short, low8, high8, [], [],
                                                            solid=True, min_extent=_SLIVER_EXTENT if sliver else _MIN_EXTENT),
                                              sliver)
                blobs.extend(found)
                hidden.extend(_under_cover(unclear, low, piece, outline, short))
                freed = freed or bool(found or unclear)
            if not freed:
                hidden.extend(_cut_symbol(card, low, smoothed, outline, box, band, short, low8, high8))
            continue
        found = _measure_blob(card, low, smoothed, outline, box, short, low8, high8, dropped, doubt, solid=link[2] < 0)
        if found:
            taken.append(outline)
            blobs.extend(found)
    if overlaps and shade and blobs:  # (no symbol elsewhere: a strip of table, not a face in shadow)
        blobs.extend(_in_shade(card, short, blobs, overlaps))
    # (its shape is taken from the card's other symbols); the largest first: pieces nearer
    # each other than the larger one's extent (or a symbol's, _STRAY_EXTENT, when that
    # is larger: a piece holding more than a symbol) are one symbol, cut in two by its cover;
    # so are pieces of one colour nearer than a whole symbol's extent (the median of the
    # card's symbols found: a cover's corner over a symbol leaves two small pieces of it)
    kept: list[Blob] = []
    kept_colours: list[Colour] = []
    if hidden and blobs:
        hidden.sort(key=lambda piece: -piece.extent)
        whole = float(np.median([blob.extent for blob in blobs]))
        colours = classify_colours(bgr_to_lab(np.stack([piece.mean_bgr for piece in hidden])))[0]
        for blob, colour in zip(hidden, colours):
            if all(math.dist(blob.center_xy, other.center_xy) >= 0.5 * max(blob.extent, other.extent) * short for other in blobs) \
                    and all(math.dist(blob.center_xy, other.center_xy)
                            >= min(max(other.extent, whole) if colour == other_colour else other.extent, _STRAY_EXTENT) * short
                            for other, other_colour in zip(kept, kept_colours)):
                kept.append(replace(blob, doubt=(HIDDEN,)))
                kept_colours.append(colour)
    blobs.extend(kept)
    washed, faint_left = _faint_marks(card, low, band, short, blobs, taken, _FAINT_DOUBT in doubt or FAINT_FRAME in doubt)
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
    local, ink = rebalanced(card.balanced_bgr, closed)
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


def _stray_symbol(card: BalancedCard, outline: NDArray[np.int32], box: tuple[int, int, int, int],
                  smoothed: NDArray[np.uint8], band: int, short: int, low8: int, high8: int) -> Blob | None:
    """A whole symbol that strays into the edge band (a quad cut a little short): its ink,
    thresholded with the band, stays inside its box grown by the band (so off the image's
    border and joined to nothing else), is no larger than a symbol and plainly is one."""
    height, width = card.ink.shape
    x, y, w, h = box
    if max(w, h) > _STRAY_EXTENT * short:
        return None
    pad = band + 1
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(width, x + w + pad), min(height, y + h + pad)
    ink = cv2.threshold(card.ink[y0:y1, x0:x1], low8, 255, cv2.THRESH_BINARY)[1]
    _, labels, stats, _ = cv2.connectedComponentsWithStats(ink)
    px, py = outline[0, 0]
    label = int(labels[py - y0, px - x0])
    mx, my, mw, mh, _ = stats[label]
    if mx == 0 or my == 0 or mx + mw == x1 - x0 or my + mh == y1 - y0:
        return None
    mark = np.zeros_like(smoothed)
    mark[y0:y1, x0:x1] = cv2.compare(labels, label, cv2.CMP_EQ)
    contours, _ = cv2.findContours(mark[y0:y1, x0:x1], cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=(x0, y0))
    found = _measure_blob(card, mark, smoothed, contours[0], (mx + x0, my + y0, mw, mh), short, low8, high8, [], [])
    return found[0] if len(found) == 1 and _is_clear_symbol(found[0]) else None


def _at_edge(box: tuple[int, int, int, int], band: int, width: int, height: int) -> bool:
    x, y, w, h = box
    return x <= band or y <= band or x + w >= width - band or y + h >= height - band


def _cut_symbol(card: BalancedCard, low: NDArray[np.uint8], smoothed: NDArray[np.uint8], outline: NDArray[np.int32],
                box: tuple[int, int, int, int], band: int, short: int, low8: int, high8: int) -> list[Blob]:
    """A symbol cut off by the card image's edge, nothing joined to it: a solid, nearly
    convex mark of a print colour reaching in from one side only, no larger than a symbol
    (a quad cut short, or a cover's edge running just beside the symbol), or one mostly
    in view, less solid (a star cut at an arm's tip). Its shape is
    unknown, its colour and count are not; a stripe of table, a shadow or a hand along
    the side is longer, paler or not of a print colour."""
    height, width = low.shape
    along = _along_one_side(box, band, width, height)
    if along is None or max(box[2:]) > _STRAY_EXTENT * short or along[0] - band < _CUT_DEPTH * short:
        return []
    solidity = _CUT_STAR_SOLIDITY if along[0] >= _CUT_WHOLE * along[1] else _CUT_SOLIDITY
    hull = cv2.contourArea(cv2.convexHull(outline))
    if cv2.contourArea(outline) < solidity * hull:  # (the cheap check first: measuring costs more)
        return []
    found = _measure_blob(card, low, smoothed, outline, box, short, low8, high8, [], [])
    if len(found) != 1 or found[0].doubt or found[0].fill < _HOLED or found[0].features.solidity < solidity:
        return []
    colour_fit = float(classify_colours(bgr_to_lab(found[0].mean_bgr[None]))[2][0])
    return found if colour_fit >= _CUT_COLOUR_FIT else []


def _split_at_edge(low: NDArray[np.uint8], outline: NDArray[np.int32], box: tuple[int, int, int, int], band: int,
                   short: int) -> tuple[list[NDArray[np.int32]], bool, bool, bool]:
    """Symbols joined to something at the card's edge; whether that something reaches
    deep into the card as solid ink, whether it is cut off by the image's edge, and
    whether it covers the edge (a solid mark along more than half of a side, or, when
    neither deep nor cut, its ink broken up by noise deep in the card besides the
    symbols). Thin lines (a border line, a rounded corner's rim) vanish under a one-pixel
    erosion; what then stands free of the edge band and is symbol-sized is grown back
    within the ink and returned as outlines in card pixels."""
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
    deep = cut = over = False
    min_px = _MIN_EXTENT * short
    kept = np.zeros_like(own)
    for k in range(1, count):
        cx, cy, cw, ch, area = stats[k]
        piece_box = (cx + x0, cy + y0, cw, ch)
        # (the erosion moved everything a pixel in from the band)
        if _at_edge(piece_box, band + 1, width, height):
            cut = cut or _is_cut(piece_box, float(area), band + 1, short, width, height)
            over = over or _is_over(piece_box, float(area), band + 1, short, width, height)
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
        kept = cv2.bitwise_or(kept, grown)
    # A cover broken up by noise erodes to specks, none reaching in from the edge: count
    # its ink further in than _INNER as it is, less the symbols peeled off it (only asked
    # when it is neither deep nor cut).
    d = round(_INNER * short)
    ix0, iy0 = max(0, d - x0), max(0, d - y0)
    ix1, iy1 = min(own.shape[1], width - d - x0), min(own.shape[0], height - d - y0)
    covered = over or not (deep or cut) and ix1 > ix0 and iy1 > iy0 and cv2.countNonZero(
        cv2.subtract(own, kept)[iy0:iy1, ix0:ix1]) >= _DEEP_AREA * short * short
    return pieces, deep, cut, covered


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


def _split_by_colour(card: BalancedCard, low: NDArray[np.uint8], outline: NDArray[np.int32], box: tuple[int, int, int, int],
                     band: int, short: int) -> list[NDArray[np.int32]]:
    """Symbols joined to a cover of another colour (a hand, a sleeve, a mug's rim, a
    shadow): the blob's ink pixels labelled with the print colour each fits, pixels
    fitting none (skin, a shadow's rim, a symbol's blurred edge) dividing them; the
    symbol-sized pieces of one colour that then stand free of the edge band, as outlines
    in card pixels."""
    height, width = low.shape
    own, (x0, y0, x1, y1) = _filled(outline, box, 1, low.shape)
    inside = cv2.bitwise_and(own, low[y0:y1, x0:x1]) > 0
    best, fit = label_pixels(bgr_to_lab(card.balanced_bgr[y0:y1, x0:x1][inside].astype(np.float32) * (1.0 / PAPER_LEVEL)))
    fits = fit >= _PIXEL_FIT
    labels = np.full(own.shape, -1, np.int8)
    labels[inside] = np.where(fits, best, -1)
    min_px = _MIN_EXTENT * short
    counts = np.bincount(best[fits], minlength=5)
    pieces = []
    for colour in np.flatnonzero((counts >= min_px * min_px / 2) & (counts < _COVER_SAME * len(best))).tolist():
        # (a symbol has at least half a smallest square's pixels; a colour making up half
        # of the blob is the cover's own: a card back's navy, a mug's red)
        contours, _ = cv2.findContours(np.uint8(labels == colour) * 255, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE,
                                       offset=(x0, y0))
        for c in contours:
            pbox = cv2.boundingRect(c)
            if max(pbox[2:]) < _SLIVER_EXTENT * short or _at_edge(pbox, band + 1, width, height) \
                    or _is_border_piece(pbox, short, width, height):
                continue
            paper = _on_paper(low, c)
            if paper >= _ON_PAPER or (paper >= _HALF_ON_PAPER and _cover_apart(card, low, c) >= _COVER_APART):
                pieces.append(c)
    return pieces


def _ring(outline: NDArray[np.int32], shape: tuple[int, ...]) -> tuple[NDArray[np.uint8], tuple[int, int, int, int]]:
    """A ring from _RING_IN to _RING_OUT pixels out from an outline (past a symbol's blurred
    rim), kept inside an image of ``shape``: the mask and its box's (x0, y0, x1, y1)."""
    mask, corners = _filled(outline, cv2.boundingRect(outline), _RING_OUT + 1, shape)
    ring = cv2.subtract(cv2.dilate(mask, _CROSS, iterations=_RING_OUT), cv2.dilate(mask, _CROSS, iterations=_RING_IN))
    return ring, corners


def _on_paper(low: NDArray[np.uint8], outline: NDArray[np.int32]) -> float:
    """The share of paper (no ink) in a ring a few pixels out from an outline (``_ring``)."""
    ring, (x0, y0, x1, y1) = _ring(outline, low.shape)
    return cv2.countNonZero(cv2.bitwise_and(ring, cv2.bitwise_not(low[y0:y1, x0:x1]))) / max(cv2.countNonZero(ring), 1)


def _cover_apart(card: BalancedCard, low: NDArray[np.uint8], outline: NDArray[np.int32]) -> float:
    """How far apart in hue the mean colours of a piece and of the ink in its ring (``_ring``:
    the cover it is joined to) are: the distance of their Lab a, b."""
    ring, (x0, y0, x1, y1) = _ring(outline, low.shape)
    piece = np.zeros_like(ring)
    cv2.drawContours(piece, [outline], -1, 255, -1, offset=(-x0, -y0))
    patch = card.balanced_bgr[y0:y1, x0:x1]
    means = [cv2.mean(patch, mask)[:3] for mask in (piece, cv2.bitwise_and(ring, low[y0:y1, x0:x1]))]
    lab = bgr_to_lab(np.array(means, np.float32) * (1.0 / PAPER_LEVEL))
    return float(np.linalg.norm(lab[0, 1:] - lab[1, 1:]))


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
    by a quad that does not cover the whole card, end-on or lengthwise (a strip of table
    or a shadow runs along the side, a rounded corner is shallow)."""
    along = _along_one_side(box, band, width, height)
    if along is None:
        return False
    depth, length = along
    if length > _CUT_LENGTH * short or area < 0.4 * box[2] * box[3]:
        return False
    # (the ink map is blank within the band: a sliver's depth is counted from the band)
    end_on = depth - band >= _CUT_DEPTH * short and length >= _CUT_MIN_LENGTH * short
    return end_on or (depth >= _CUT_DEPTH * short and length >= _SLIVER_LENGTH * short)


def _is_over(box: tuple[int, int, int, int], area: float, band: int, short: int, width: int, height: int) -> bool:
    """A solid mark along more than half of one side, a symbol's width deep: something
    lies over the card's edge and may hide a symbol (a printed frame line is thinner)."""
    along = _along_one_side(box, band, width, height)
    if along is None:
        return False
    depth, length = along
    return length > _CUT_LENGTH * short and depth >= _OVER_DEPTH * short and area >= 0.4 * box[2] * box[3]


def _along_one_side(box: tuple[int, int, int, int], band: int, width: int, height: int) -> tuple[int, int] | None:
    """A box's depth into the card and length along the one side whose band it reaches, or
    None when it reaches none or more than one."""
    x, y, w, h = box
    sides = [x <= band, y <= band, x + w >= width - band, y + h >= height - band]
    if sum(sides) != 1:
        return None
    return (w, h) if sides[0] or sides[2] else (h, w)


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


def _sort_pieces(pieces: list[Blob], sliver: bool = False) -> tuple[list[Blob], list[Blob]]:
    """Pieces cut off something at the edge: those plainly a symbol (a solid mark that fits
    a shape and a print colour well, not a piece of a shadow, a hand or a card back), and
    those that fit no shape but are solid, of a symbol's size and plainly of a print
    colour: a symbol partly hidden or joined to a cover along its outline (its shape is
    unknown, its colour and count are not). ``sliver``: the pieces were cut free by their
    colour, and may be smaller (``_SLIVER_EXTENT``). Others are neither."""
    least, small_fit = (_SLIVER_EXTENT, _HIDDEN_COLOUR_FIT) if sliver else (_SMALL_HIDDEN_EXTENT, _SMALL_HIDDEN_COLOUR_FIT)
    clear, hidden = [], []
    for blob in pieces:
        small = blob.doubt == (_SMALL_DOUBT,)
        if (blob.doubt and not small) or blob.fill < _HOLED or (small and blob.extent < least):
            continue
        colour_fit = float(classify_colours(bgr_to_lab(blob.mean_bgr[None]))[2][0])
        if small:
            if colour_fit >= small_fit:
                hidden.append(blob)
            continue
        shape_fit = float(np.exp(shape_scores(blob.features.as_array()[None], np.array([blob.extent])).max() / 4.0))
        if shape_fit >= _CLEAR_FIT and colour_fit >= _CLEAR_FIT:
            clear.append(blob)
        elif colour_fit >= _HIDDEN_COLOUR_FIT:
            hidden.append(blob)
    return clear, hidden


def _under_cover(pieces: list[Blob], low: NDArray[np.uint8], outline: NDArray[np.int32],
                 cover: NDArray[np.int32], short: int) -> list[Blob]:
    """The pieces cut free along ``outline`` (card pixels) off the edge blob ``cover``, with
    the share of the outline's convex hull that other ink fills (``Blob.covered_dents``: the
    cover's, off the piece's blurred rim) and their view (``Blob.view``, ``_VIEW_REACH``)."""
    if not pieces:
        return pieces
    own, (x0, y0, x1, y1) = _filled(outline, cv2.boundingRect(outline), 1, low.shape)
    hull = np.zeros_like(own)
    cv2.drawContours(hull, [cv2.convexHull(outline)], -1, 255, -1, offset=(-x0, -y0))
    covered = cv2.bitwise_and(cv2.subtract(hull, cv2.dilate(own, _CROSS)), low[y0:y1, x0:x1])
    share = cv2.countNonZero(covered) / max(cv2.countNonZero(hull), 1)
    reach = round(_VIEW_REACH * short)
    piece, (x0, y0, x1, y1) = _filled(outline, cv2.boundingRect(outline), reach, low.shape)
    over = np.zeros_like(piece)
    cv2.drawContours(over, [cover], -1, 255, -1, offset=(-x0, -y0))
    view = np.full(piece.shape, VIEW_PAPER, np.int8)
    view[(cv2.bitwise_and(over, low[y0:y1, x0:x1]) > 0) | (cv2.dilate(piece, _CROSS) > 0)] = VIEW_COVER
    view[piece > 0] = VIEW_INK
    return [replace(blob, covered_dents=share, view=view) for blob in pieces]


def _is_clear_symbol(blob: Blob) -> bool:
    """Is a piece cut off something at the edge plainly a symbol (:func:`_sort_pieces`)?"""
    return bool(_sort_pieces([blob])[0])

