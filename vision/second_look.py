"""The finder's second looks: cards the first sweep of the whiteness left unexplained.

``look_again`` looks at the bright paper the cards found leave over, with shadows taken out,
at finer steps and fainter edges (and completes cards merged with what touches them);
``of_paper_tint`` looks for cards in a shadow no whiter than the table, by their paper's tint.
Both keep only regions apart from the cards found, of the size the cards around them show.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.card_sizes import Typical, sizes_in_view, typical_near
from vision.paper import pixel_runs, shade
from vision.quads import CardQuad, fit_quad, grow, meet_lines, order_corners, sides, sides_outwards
from vision.regions import (CLEAN_FILL, LEVELS, Region, blurred_whiteness, card_regions, choose_cards, histogram_percentiles,
                            points_inside, printed_in, sweep_span)

__all__ = ["cloth_squares", "blank_squares", "look_again", "of_paper_tint", "are_apart", "add_new", "steps_across",
           "enclosed_loops", "stands_out"]

_AGAIN_EDGES = (20, 40)  # the second look cuts along fainter edges (a card on a pale stripe, a card overlapping another)
_AGAIN_LEVELS = 12  # at finer steps
_AGAIN_OPENING = 5  # and once more with things this thin taken off the paper (a mug's rim, a card back's frame)
_AGAIN_WIDE = 0.3  # unless it has more than this share of the frame to look at again
_AGAIN_MIN_FILL = 0.65  # a card still filling this much of its quadrilateral
_AGAIN_SIZE = 0.2  # within this share of the size of the cards found near it
_LOOSE_SIZE = 0.5  # or, clean with symbols printed in it and plainly a card, within this share
_NEAREST_REACH = 1.5  # or of the size of the card found nearest, within this many of its long sides
_VIEW_SEEN = 0.5  # a region of the size in view but not of its nearest four cards' is outlined along this share of three sides
# (of two, with symbols printed clear of its sides)
_VIEW_STANDS = 0.5  # and whiter than what lies around it by this share of its sweep's span
_OUTLINE_SEEN = 0.3  # and with its outline seen along this share of its sides
_OPENED_SEEN = 0.5  # or this share, where the opening, not its outline, gave it its shape
_NECK_OPENING = 3  # paper running out of a card through a gap in its outline this narrow (a pale cloth, a finger)
_NECK_UNEXPLAINED = 0.5  # is opened off where this many cards' area of paper is left unexplained,
_NECK_LEVELS = 6  # at the first sweep's span, in this many steps
_NECK_FILL = 0.7  # leaving a card nearly whole (a card's visible part can be card-shaped too)
_NECK_CONTRAST = 0.08  # and whiter than what lies around it by this share of the span (a patch of pale cloth is not), or symbols
# printed clear of its sides (a card in a shadow no whiter than the pale cloth around it)
_OUTER = 1.2  # a card's outline against the paper inside its printed border, side for side
_CORNER_CARDS = (1.1, 4.0)  # paper merged with what touches it: more than a card's area, less than four
_CORNER_COS = 0.42  # a corner's two sides meet at 65 to 115 degrees
_CORNER_FILL = 0.85  # paper, its symbols counted in, fills the card completed from the corner
_CORNER_FRESH = 0.75  # three quarters of it paper no card found explains: a card hidden more is not counted
_CORNER_SEEN = 0.6  # and its outline is seen along both sides at the corner
# The paper's outline is followed within 0.08 short sides; its sides shorter than _JAG short
# sides are jags (noise, a symbol's bite at a corner, the edge of the card beneath) in a
# corner, not sides of its own: on hard dev renders a card lying over another face showed its
# corners each as two, 9 and 12 pixels apart at 50 pixels a short side, and was not found.
_JAG = 0.3
_TRACED_AREA = 0.3  # paper left over of at least this share of a card may hold a card traced by its steps
_TRACED_EDGES = (10, 30)  # Canny's thresholds on the lightness: the faint step of a card's outline over another card
_TRACED_COS = 0.17  # two sides meeting at 80 to 100 degrees make a corner
_TRACED_REACH = 0.35  # the side opposite one is looked for within this share of a card's side from where it shows
_TRACED_STEPS = 29  # in this many steps
_TRACED_AREAS = (0.95, 1.7)  # a card traced is this many times the area a card shows there (its paper, in a printed border)
_TRACED_ASPECT = (1.15, 1.9)  # and its long side this many times its short side
_TRACED_SEEN = 0.65  # an edge along this share of each side
_TRACED_FILL = 0.85  # paper, its symbols counted in, fills the card traced (a card back may lie over a corner of it)
_TRACED_PAPER = 0.5  # plain paper at least half of it, where symbols may fill the rest (see _traced_cards)
_TRACED_WHITE = 0.1  # where that paper is as white as the cards found, within this share of the span
_TRACED_FRESH = 0.5  # half of it paper no card found explains
# The steps may enclose a card all round (a card over others, its outline unbroken): the region
# they enclose fills its quadrilateral, less the bites of symbols printed near its sides, by
# _ENCLOSED_FILL at least, and its convex hull by _ENCLOSED_HULL. The steps are looked at once more
# thickened by a square of this many pixels, closing a break of up to two pixels in the outline.
_ENCLOSED_FILL = 0.75
_ENCLOSED_HULL = 0.92
_ENCLOSED_THICKER = 3
_SQUARE = 1.2  # a quad whose long side is less than this many times its short side is square (no card is)
_SYMBOL_AREA = 0.1  # a hole in paper no bigger than this share of a card is a symbol printed on it
_TINT_REACH = 0.08  # chromaticity this far from the cards' paper's is no longer like it at all
_DARK_L = 40  # and where lightness (Lab L, 0-255) is below this it is read as no paper
_TINT_OVERLAP = 0.1  # a card found by its tint lies over no card found by more than this share of itself
_TINT_GROWTH = 4  # a region of the likeness is grown to its outline by this many pixels at most
_TINT_EDGES = (80, 160)  # the likeness to the paper's tint is twice as grainy on paper as the whiteness: edges twice as sharp


@dataclass(frozen=True)
class _Seen:
    """A card the second look completed from a corner or traced by its outline's steps: how
    well (paper filling it, plus the share of its outline seen), its corners (4, 2), its
    fill, and whether its outline was seen all round (or along the two sides at its corner)."""

    score: float
    corners_xy: NDArray[np.float32]
    fill: float
    all_round: bool


def of_paper_tint(small_bgr: NDArray[np.uint8], small_lab: NDArray[np.uint8], done: list[Region], found: list[CardQuad],
                  min_short_px: float, max_area: float) -> list[Region]:
    """The cards whose paper has the tint of the cards found, in light or in shadow.

    A shadow's soft edge across a card, or a whole card in an arm's shadow on a pale
    cloth, leaves it no whiter than the table at any level; a shadow darkens paper but
    keeps its chromaticity (its share of blue, green and red). The frame's likeness to
    the cards' paper chromaticity (lightness aside, what is nearly black left out) is
    swept as the whiteness is, in boxes around what no card found explains, but cut only
    along sharper edges: read so closely, chromaticity is grainy on paper; a region
    counts apart from the cards found, of their size, lying over none of them, with its
    outline seen.
    """
    if len(done) < 2:
        return []
    # The paper of the regions' middles: their brightest two fifths (by Lab L). (Masks of
    # noughts and ones are looked at as booleans: numpy's nonzero is slow over bytes.)
    middles = np.zeros(small_bgr.shape[:2], np.uint8)
    outlines = np.array([r.corners_xy for r in done], np.float32)
    centres = outlines.mean(axis=1, keepdims=True)
    for middle in np.round(centres + 0.7 * (outlines - centres)).astype(np.int32):
        cv2.fillConvexPoly(middles, middle, 1)
    light = cv2.extractChannel(small_lab, 0)
    counts = cv2.calcHist([light], [0], middles, [256], [0, 256]).ravel().astype(np.int64)  # (whole counts, exact in floats)
    brightest = histogram_percentiles(counts, (60,))[0]
    # (a whole lightness is at least ``brightest`` where it is above its ceiling less one)
    paper = np.flatnonzero((cv2.threshold(light, np.ceil(brightest) - 1, 1, cv2.THRESH_BINARY)[1] & middles).view(bool))
    if not len(paper):
        return []
    paper_bgr = small_bgr.reshape(-1, 3).take(paper, axis=0).T.astype(np.float32, order="C") + 1.0  # (3, M): each channel's median runs along a row
    tint = np.median(paper_bgr / (paper_bgr[0] + paper_bgr[1] + paper_bgr[2]), axis=1).astype(np.float32)
    like = _tint_likeness(small_bgr, light, tint)
    white_u8 = blurred_whiteness(like)
    span = sweep_span(white_u8[::4, ::4])
    # Only the paper-like parts no card found explains are swept, in boxes around them.
    corners = np.array([q.corners_xy for q in found], np.float32)
    explained = np.zeros(like.shape, np.uint8)
    cv2.fillPoly(explained, list(np.round(grow(corners, 2.0)).astype(np.int32)), 255)
    paperlike = cv2.threshold(white_u8, (span[0] + span[1]) / 2, 255, cv2.THRESH_BINARY)[1]
    left = cv2.morphologyEx(cv2.subtract(paperlike, explained), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    pieces, _ = cv2.findContours(left, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    short, long = np.median([q.size_wh for q in found], axis=0)
    regions = []
    for x0, y0, x1, y1 in _boxes_around(pieces, left.shape, 0.3 * short * long, int(0.3 * long)):
        offset = np.array([x0, y0], np.float32)
        regions += [Region(r.corners_xy + offset, r.fill, r.level, r.levels)
                    for r in card_regions(like[y0:y1, x0:x1], min_short_px, _TINT_EDGES, span=span, max_area=max_area,
                                          white_u8=white_u8[y0:y1, x0:x1])
                    if r.fill >= _AGAIN_MIN_FILL]
    if not regions:
        return []
    regions = _onto_tint_outline(regions, like, span[1] - span[0])
    kept = _fitting(regions, [span[1] - span[0]] * len(regions), [Region(q.corners_xy, q.fill, 0) for q in found],
                    corners, found, like)
    # Apart means apart: a card beside the cards found lies over none of them.
    return [r for r in kept if max(cv2.intersectConvexConvex(r.corners_xy, c)[0] for c in corners)
            < _TINT_OVERLAP * cv2.contourArea(r.corners_xy)]


def _onto_tint_outline(regions: list[Region], like: NDArray[np.float32], span: float) -> list[Region]:
    """The regions, those not outlined in the likeness ``like`` (see ``_outline_seen``) grown
    (by up to ``_TINT_GROWTH`` pixels, in whole steps) onto their outline, where the step
    across their sides is steepest: a level of the likeness may be cut a little inside the
    paper's edge, where its grain softens it, and the outline looked for just outside a
    region so cut is still paper (dev hard 077: a card in a shadow, 3 pixels inside its
    outline, refused as not outlined)."""
    quads = np.array([r.corners_xy for r in regions], np.float32)
    shy = np.flatnonzero(_outline_seen(like, quads, span).mean(axis=1) < _OUTLINE_SEEN)
    if not len(shy):
        return regions
    grown = [grow(quads[shy], float(g)) for g in range(_TINT_GROWTH + 1)]
    steepest = np.argmax([steps_across(like, q).mean(axis=(1, 2)) for q in grown], axis=0)  # (growths, N) -> (N,)
    regions = list(regions)
    for i, (k, g) in enumerate(zip(shy.tolist(), steepest.tolist())):
        if g:  # (as many pixels of the region in a larger quad: its fill falls with the area)
            onto, region = grown[g][i], regions[k]
            fill = region.fill * cv2.contourArea(quads[k]) / max(cv2.contourArea(onto), 1e-6)
            regions[k] = Region(onto, fill, region.level, region.levels)
    return regions


def _tint_likeness(small_bgr: NDArray[np.uint8], light: NDArray[np.uint8], tint: NDArray[np.float32]) -> NDArray[np.float32]:
    """How like the paper's chromaticity ``tint`` (3,) each pixel is: 255 at it, nought at
    ``_TINT_REACH`` from it or further, and where the lightness ``light`` is below ``_DARK_L``: (H, W) float32.

    The distance is |bgr - tint * total| / total (each channel one more, so that black has a
    chromaticity); it is taken run by run of pixels (``pixel_runs``), whose floats stay in
    the core's cache, instead of over whole frames of them."""
    height, width = light.shape
    count = height * width
    pixels, lit = small_bgr.reshape(-1, 1, 3), cv2.threshold(light, _DARK_L, 1, cv2.THRESH_BINARY)[1].reshape(-1, 1)
    like = np.empty((count, 1), np.float32)
    ones = np.ones((1, 3), np.float32)
    matrix = np.eye(3, dtype=np.float32) - tint[:, None] * ones
    for start, stop in pixel_runs(count):
        bgr = pixels[start:stop].astype(np.float32)
        bgr += np.float32(1.0)
        total = cv2.transform(bgr, ones)  # (OpenCV's sums over channels: numpy's are slow)
        off = cv2.transform(bgr, matrix, bgr)
        run = like[start:stop]
        cv2.divide(cv2.sqrt(cv2.transform(cv2.multiply(off, off, off), ones, run), run), total, run)
        np.multiply(run, np.float32(255.0 / _TINT_REACH), out=run)
        # max(255 - d, 0) as 255 - min(d, 255): OpenCV's threshold takes the minimum far faster than numpy.
        cv2.threshold(run, 255.0, 255.0, cv2.THRESH_TRUNC, run)
        np.subtract(np.float32(255.0), run, out=run)
        np.multiply(run, lit[start:stop], out=run)  # nought where dark
    return like.reshape(height, width)


def look_again(small_bgr: NDArray[np.uint8], small_lab: NDArray[np.uint8], white: NDArray[np.float32],
               span: tuple[float, float], chosen: list[Region], min_short_px: float, max_area: float) -> list[Region]:
    """The cards of the bright paper the chosen regions leave unexplained, looked for again.

    A card in a shadow, on a pale stripe, or overlapping another face-up card stands out
    at no level of the first sweep whole. The second look takes the shadows out (the
    light on the table read from its colour), leaves the cards found dark, and sweeps
    only the boxes around the paper left over, at finer steps and cutting along fainter
    edges. A card touched by something thin and as bright as it (a mug's rim, the frame
    printed on a card back) makes one region with it at every level; the sweep is run
    again with such thin parts opened off. A card whose paper runs out through a narrow gap
    in its outline (into a pale cloth, a finger, a shadow) makes one region with what lies
    beyond at every level; where half a card's area of paper is left, it is swept once
    more at the first sweep's ``span`` of ``white``, with such narrow necks opened off.
    A region counts only at about the size of the cards found near it (or, plainly a card
    with symbols printed clear of its sides, within half again of it: outlined along three
    sides, also on a pale table where a card hardly stands out). Paper still left
    over is looked at for cards merged with what touches them, by a corner seen whole
    (``_corner_cards``) or by the steps of their outline (``_traced_cards``: a card lying
    over another face-up card), those outlined all round first (``_best_first``).
    ``small_lab`` is ``small_bgr`` in Lab, as the whiteness was read off it.
    """
    if len(chosen) < 2:
        return []
    light = shade(small_bgr, small_lab)
    unlit = cv2.divide(white, light) if light is not None else white
    low, high = sweep_span(cv2.GaussianBlur(cv2.convertScaleAbs(cv2.max(unlit, 0.0)), (3, 3), 0)[::4, ::4])
    corners = np.array([r.corners_xy for r in chosen], np.float32)
    found = np.zeros(white.shape, np.uint8)
    cv2.fillPoly(found, list(np.round(grow(corners, 2.0)).astype(np.int32)), 255)
    bright = cv2.threshold(unlit, (low + high) / 2, 255, cv2.THRESH_BINARY)[1].astype(np.uint8)
    left = cv2.morphologyEx(cv2.subtract(bright, found), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    pieces, _ = cv2.findContours(left, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)  # the paper left over
    quads = [CardQuad(c, r.fill) for c, r in zip(corners, chosen)]
    sized_by, cards = _sizing_cards(quads, unlit)
    short, long = np.median([q.size_wh for q in sized_by], axis=0)
    regions, spans = [], []  # and the span each was swept over
    necked = []  # the regions of the sweeps with narrow necks opened off
    boxes = _boxes_around(pieces, left.shape, 0.3 * short * long, int(0.3 * long))
    # Most frames leave a tenth of themselves unexplained; a pale striped cloth, all of it:
    # there the sweep keeps to the first sweep's steps.
    levels = _AGAIN_LEVELS if sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes) < _AGAIN_WIDE * white.size else LEVELS
    for x0, y0, x1, y1 in boxes:
        lit = unlit[y0:y1, x0:x1].copy()
        unfound = found[y0:y1, x0:x1] == 0
        # Where the table itself is as bright as paper left over (a pale cloth), the sweep
        # starts at its whiteness: steps from the floor beyond the table step over the cards.
        table = float(np.median(lit[unfound])) if unfound.any() else low
        floor = table if table > (low + high) / 2 else low
        lit[~unfound] = floor  # the cards found, as dark as the table
        offset = np.array([x0, y0], np.float32)
        more = [Region(r.corners_xy + offset, r.fill, r.level, r.levels)
                for r in card_regions(lit, min_short_px, _AGAIN_EDGES, levels, (floor, high), max_area)
                if r.fill >= _AGAIN_MIN_FILL]
        # A card touched by a thin bright thing makes no region of the sweep with it: where the
        # regions leave a card's area of paper unexplained, the sweep is run again around that paper.
        unexplained = left[y0:y1, x0:x1].copy()
        if more:
            cv2.fillPoly(unexplained, [np.round(r.corners_xy - offset).astype(np.int32) for r in more], 0)
        count = cv2.countNonZero(unexplained)
        if count >= _NECK_UNEXPLAINED * short * long:
            x, y, w, h = cv2.boundingRect(unexplained)
            pad = int(0.1 * long)
            u0, v0, u1, v1 = max(0, x - pad), max(0, y - pad), min(x1 - x0, x + w + pad), min(y1 - y0, y + h + pad)
            around = offset + np.array([u0, v0], np.float32)
            if count >= short * long:
                more += _opened_apart(lit[v0:v1, u0:u1], unlit, around, more, min_short_px, levels, (floor, high), max_area)
            plain = np.where(unfound[v0:v1, u0:u1], white[y0 + v0:y0 + v1, x0 + u0:x0 + u1], np.float32(span[0]))
            necked += [Region(r.corners_xy + around, r.fill, r.level, r.levels)
                       for r in card_regions(plain, min_short_px, levels=_NECK_LEVELS, span=span, max_area=max_area,
                                             opening=_NECK_OPENING)
                       if r.fill >= _NECK_FILL]
        regions += more
        spans += [high - floor] * len(more)
    kept = _fitting(regions, spans, chosen, corners, quads, unlit) if regions else []
    if necked:
        # The outline of a card on a pale cloth is faint: it is not asked for.
        done = chosen + kept
        unnecked = _fitting(necked, [span[1] - span[0]] * len(necked), done, np.array([r.corners_xy for r in done], np.float32),
                            quads, white, min_seen=0.0)
        # (a card in a shadow stands out from no pale cloth around it, but its symbols are printed clear of its sides)
        printed = printed_in(white, np.array([r.corners_xy for r in unnecked], np.float32).reshape(-1, 4, 2), clear_of_sides=True)
        kept += [r for r, inked in zip(unnecked, printed)
                 if inked or stands_out(white, r.corners_xy) >= _NECK_CONTRAST * (span[1] - span[0])]
    # What is still left may be a card merged with what touches it (a card it overlaps, a
    # finger, the frame printed on a card back): no card-shaped region at any level.
    more = [CardQuad(r.corners_xy, r.fill) for r in kept]
    scored = _corner_cards(pieces, left, bright, unlit, high - low, sized_by + more)
    # A card lying over another face-up card may show no corner whole, but the steps of its outline.
    scored += _traced_cards(pieces, left, bright, unlit, high - low, small_lab[..., 0], sized_by + more)
    return kept + _best_first(cards + more, scored)


def cloth_squares(quads: list[CardQuad], white: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Which quads (regions chosen as cards) are a checked cloth's pale squares: square (no card
    is) with no symbols printed in them (``printed_in`` of ``white``), where more of them were
    found than quads with symbols (two at least); none otherwise: (N,). On dev medium and hard
    renders of checked cloths they outnumbered the cards up to seven times."""
    squares, inked = _blank_squares(quads, white)
    return squares if _is_cloth(squares, inked) else np.zeros(len(quads), bool)


def _is_cloth(squares: NDArray[np.bool_], inked: NDArray[np.bool_]) -> bool:
    """Whether the blank squares found outnumber the quads with symbols (two at least)."""
    return bool(inked.sum() >= 2 and squares.sum() > inked.sum())


def blank_squares(quads: list[CardQuad], white: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Which quads are square (no card is) with no symbols printed in them (``printed_in`` of
    ``white``): (N,)."""
    return _blank_squares(quads, white)[0]


def _blank_squares(quads: list[CardQuad], white: NDArray[np.float32]) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """``blank_squares``, and which quads have symbols printed in them."""
    if not quads:
        return np.zeros(0, bool), np.zeros(0, bool)
    inked = printed_in(white, np.array([q.corners_xy for q in quads], np.float32))
    sizes = np.array([q.size_wh for q in quads], np.float64)
    return ~inked & (sizes[:, 1] < _SQUARE * sizes[:, 0]), inked


def _sizing_cards(quads: list[CardQuad], white: NDArray[np.float32]) -> tuple[list[CardQuad], list[CardQuad]]:
    """The cards found whose size a card shows, and those that are cards: all of them, or,
    among a checked cloth's squares (``cloth_squares``), those with symbols printed in them
    and those not square. Sized by the squares, the second look looked for cards of half a
    card's size; and a piece of a card's paper between its symbols, square and taken for one
    of the cloth's, held the card lying there off as one found already (dev medium2 153)."""
    squares, inked = _blank_squares(quads, white)  # (symbols looked for once: ``_printed`` would again)
    if not _is_cloth(squares, inked):
        return quads, quads
    return [q for q, is_inked in zip(quads, inked) if is_inked], [q for q, is_square in zip(quads, squares) if not is_square]


def _opened_apart(lit: NDArray[np.float32], unlit: NDArray[np.float32], offset: NDArray[np.float32], more: list[Region],
                  min_short_px: float, levels: int, span: tuple[float, float], max_area: float) -> list[Region]:
    """The regions of a box's sweep (``lit``, placed at ``offset`` in ``unlit``) with thin
    bright things opened off its paper, apart from the regions ``more`` of the sweep, with
    their outline seen along half their sides: the opening, not an outline, may have shaped them."""
    opened = [Region(r.corners_xy + offset, r.fill, r.level, r.levels)
              for r in card_regions(lit, min_short_px, _AGAIN_EDGES, levels, span, max_area, _AGAIN_OPENING)
              if r.fill >= _AGAIN_MIN_FILL]
    if not opened:
        return []
    shapes = np.array([r.corners_xy for r in opened], np.float32)
    apart = are_apart(shapes, np.array([r.corners_xy for r in more], np.float32).reshape(-1, 4, 2))
    seen = _outline_seen(unlit, shapes, span[1] - span[0]).mean(axis=1)
    return [r for r, is_apart, share in zip(opened, apart, seen) if is_apart and share >= _OPENED_SEEN]


def are_apart(new: NDArray[np.float32], old: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Which quads ``new`` (N, 4, 2) hold no centre of ``old`` (M, 4, 2) and lie in none of them: (N,)."""
    return ~points_inside(old, new.mean(axis=1)).any(axis=0) & ~points_inside(new, old.mean(axis=1)).any(axis=1)


def _fitting(regions: list[Region], spans: list[float], chosen: list[Region], corners: NDArray[np.float32],
             quads: list[CardQuad], unlit: NDArray[np.float32], min_seen: float = _OUTLINE_SEEN) -> list[Region]:
    """The second look's regions apart from the cards found, of their size, with an outline
    seen along ``min_seen`` of their sides.

    Their size is that of the four cards found nearest them; a region of another size is
    kept only at the size a card shows at its place as all the cards found show it (see
    ``sizes_in_view``: a near card by a row of far ones), and where it is plainly a card
    (``_plainly_cards``). The squares of a checked cloth or the patches between a cloth's
    dots may be found too, many of them, and tell no card's size: where no region is kept,
    one is chosen again and sized by the cards found with symbols printed in them."""
    apart = are_apart(np.array([r.corners_xy for r in regions], np.float32), corners)
    span_of = {id(r): span for r, span, is_apart in zip(regions, spans, apart) if is_apart}
    candidates = chosen + [r for r in regions if id(r) in span_of]
    chosen_apart = [r for r in choose_cards(candidates, CLEAN_FILL) if id(r) in span_of]
    if not span_of or not quads:
        return []
    kept = _sized_and_outlined(chosen_apart, span_of, quads, unlit, min_seen)
    kept += _in_refused_places(chosen_apart, kept, [r for r in regions if id(r) in span_of], chosen, span_of, quads, unlit,
                               min_seen)
    printed = _printed(quads, unlit)
    if len(printed) == len(quads):
        return kept
    again = [r for r in choose_cards(candidates, CLEAN_FILL, unlit) if id(r) in span_of]
    if kept and again:
        again = [r for r, is_apart in zip(again, are_apart(np.array([r.corners_xy for r in again], np.float32),
                                                           np.array([r.corners_xy for r in kept], np.float32)))
                 if is_apart]
    return kept + _sized_and_outlined(again, span_of, printed, unlit, min_seen)


def _in_refused_places(picked: list[Region], kept: list[Region], regions: list[Region], chosen: list[Region],
                       span_of: dict[int, float], quads: list[CardQuad], unlit: NDArray[np.float32], min_seen: float) -> list[Region]:
    """Where a region picked (one of ``picked``, from ``regions``) is refused, the others
    there that are of the cards' size and outlined (see ``_sized_and_outlined``), one to a
    place: a card's region at one level may be picked at another, with a strip of the table
    taken in (steadier over the levels, but too big or not outlined)."""
    refused = np.array([r.corners_xy for r in picked if not any(r is k for k in kept)], np.float32).reshape(-1, 4, 2)
    if not len(refused):
        return []
    taken = {id(r) for r in picked}
    rest = [r for r in regions if id(r) not in taken]
    if not rest:
        return []
    shapes = np.array([r.corners_xy for r in rest], np.float32)
    at_refused = ~are_apart(shapes, refused)
    if kept:
        at_refused &= are_apart(shapes, np.array([r.corners_xy for r in kept], np.float32))
    fitting = _sized_and_outlined([r for r, is_there in zip(rest, at_refused) if is_there], span_of, quads, unlit, min_seen)
    ids = {id(r) for r in fitting}
    return [r for r in choose_cards(chosen + kept + fitting, CLEAN_FILL) if id(r) in ids]


def _sized_and_outlined(regions: list[Region], span_of: dict[int, float], quads: list[CardQuad], unlit: NDArray[np.float32],
                        min_seen: float) -> list[Region]:
    """The regions of the size of the cards ``quads`` found near them or, plainly cards, of
    the size in view (or about theirs, with symbols printed in them: see
    ``_printed_card_of_about_their_size``), with an outline seen along ``min_seen`` of their
    sides (see ``_fitting``; ``span_of``: each region's sweep span, by its id)."""
    if not regions:
        return []
    centres = np.array([r.corners_xy.mean(axis=0) for r in regions], np.float64)
    sizes = np.array([CardQuad(r.corners_xy, r.fill).size_wh for r in regions], np.float64)
    near = np.array([(t.short, t.long) for t in (typical_near(quads, (float(x), float(y))) for x, y in centres)])
    by_near = (np.abs(sizes / near - 1) < _AGAIN_SIZE).all(axis=1)
    by_view = np.zeros_like(by_near)
    printed = np.zeros_like(by_near)  # of about their size, clean, with symbols printed clear of its sides
    if not by_near.all():
        view = sizes_in_view(quads, centres[~by_near])
        by_view[~by_near] = (np.abs(sizes[~by_near] / view - 1) < _AGAIN_SIZE).all(axis=1)
        by_view[~by_near] |= _of_nearest_size(quads, centres[~by_near], sizes[~by_near])
        printed = _printed_card_of_about_their_size(regions, ~by_near, sizes / near, unlit)
        by_view |= printed
    is_kept = by_near | by_view
    kept = [r for r, is_it in zip(regions, is_kept) if is_it]
    if not kept:
        return []
    # A patch of pale table is brighter than what lies around it along little of its outline.
    outlines = np.array([r.corners_xy for r in kept], np.float32)
    kept_spans = np.array([span_of[id(r)] for r in kept])
    seen = _outline_seen(unlit, outlines, kept_spans)
    outlined = seen.mean(axis=1) >= min_seen
    viewed = by_view[is_kept]
    if viewed.any():
        outlined[viewed] &= _plainly_cards(unlit, outlines[viewed], seen[viewed], kept_spans[viewed], printed[is_kept][viewed])
    return [r for r, is_outlined in zip(kept, outlined) if is_outlined]


def _printed_card_of_about_their_size(regions: list[Region], looked_at: NDArray[np.bool_], ratios_wh: NDArray[np.float64],
                                      unlit: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Whether each region looked at (``looked_at``, (N,)) is a clean quadrilateral with symbols
    printed in it clear of its sides, within ``_LOOSE_SIZE`` of the size of the cards found near
    it (``ratios_wh``, its sides over theirs, (N, 2)): (N,). The cards found near a card may all
    be of another size: far pool cards, point cards found by their printed frame, pieces of
    cards; or the region may be a part of a card in a shadow, its outline found later."""
    fills = np.array([r.fill for r in regions], np.float64)
    loose = looked_at & (fills >= CLEAN_FILL) & (np.abs(ratios_wh - 1) < _LOOSE_SIZE).all(axis=1)
    if loose.any():
        corners = np.array([regions[k].corners_xy for k in np.flatnonzero(loose)], np.float32)
        loose[loose] = printed_in(unlit, corners, clear_of_sides=True)
    return loose


def _of_nearest_size(quads: list[CardQuad], centres_xy: NDArray[np.float64], sizes_wh: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Whether each region (centre (N, 2), size (N, 2)) has the size of the one card found
    nearest it, lying within ``_NEAREST_REACH`` of that card's long side: (N,). Under a
    steep view or a wide lens the cards a row away show another size, and the median of
    the nearest four is then no card's (a false quad of cloth among them, neither)."""
    found = np.array([q.center_xy for q in quads], np.float64)
    found_wh = np.array([q.size_wh for q in quads], np.float64)
    distance = np.hypot(*(centres_xy[:, None, :] - found[None, :, :]).transpose(2, 0, 1))
    nearest = np.argmin(distance, axis=1)
    near_wh = found_wh[nearest]
    close = distance[np.arange(len(nearest)), nearest] < _NEAREST_REACH * near_wh[:, 1]
    return close & (np.abs(sizes_wh / near_wh - 1) < _AGAIN_SIZE).all(axis=1)


def _printed(quads: list[CardQuad], white: NDArray[np.float32]) -> list[CardQuad]:
    """The quads with symbols printed in them (``printed_in`` of ``white``), or all of them
    when fewer than two are."""
    inked = printed_in(white, np.array([q.corners_xy for q in quads], np.float32))
    return [q for q, is_inked in zip(quads, inked) if is_inked] if inked.sum() >= 2 else quads


def _plainly_cards(white: NDArray[np.float32], outlines: NDArray[np.float32], seen: NDArray[np.float64],
                   spans: NDArray[np.float64], printed: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Whether each quadrilateral (N, 4, 2) of ``white`` is plainly a card: its outline seen
    (``seen``, (N, 4)) along ``_VIEW_SEEN`` of three of its sides at least, and its middle
    whiter than what lies around it by ``_VIEW_STANDS`` of its sweep's span (``spans``, (N,));
    or, on a pale table where a card hardly stands out, symbols printed in it clear of its
    sides (``printed``, (N,)) and its outline seen so along two sides at least (a card half
    in a shadow on a pale cloth stands out along its two lit sides only). A patch of pale
    table or a shadow's edge is outlined along a side or two, hardly whiter than the table
    beside it, with no symbols printed in it. (N,)"""
    ordered = np.sort(seen, axis=1)
    three_sides, two_sides = ordered[:, 1] >= _VIEW_SEEN, ordered[:, 2] >= _VIEW_SEEN
    return np.array([(bool(is_printed) and bool(two)) or (bool(is_seen) and stands_out(white, quad) >= _VIEW_STANDS * span)
                     for quad, is_seen, two, span, is_printed in zip(outlines, three_sides, two_sides, spans, printed)], bool)


def _corner_cards(pieces: tuple[NDArray[np.int32], ...], left: NDArray[np.uint8], bright: NDArray[np.uint8],
                  unlit: NDArray[np.float32], span: float, sized_by: list[CardQuad]) -> list[_Seen]:
    """Cards of the paper left over, merged with what touches them, that show one corner
    whole: two straight sides meeting at about a right angle, each at least half a card's
    short side long. The card is completed from that corner (see ``_corner_sizes``) and
    kept where paper, its symbols counted in, fills it, most of it paper no card found
    explains, and its outline is seen along both sides at the corner (all round, where it is
    completed at the sides seen). Each corner gives its best card (see ``_best_first``): a
    patch of pool cards lying over one another shows the corners of several. Only a patch of
    paper larger than a card is looked at: a pale cloth's squares, each no bigger than a card,
    have such corners too. ``pieces`` are the outlines of ``left``, the paper no card
    found explains; ``bright``, all that is as bright as paper; the cards' size is that of the
    cards ``sized_by`` (found)."""
    completed: list[_Seen] = []
    paper = fresh = None
    for contour in pieces:
        area = cv2.contourArea(contour)
        typical = typical_near(sized_by, tuple(contour.reshape(-1, 2).mean(axis=0)))
        if typical is None or not _CORNER_CARDS[0] < area / (typical.short * typical.long) < _CORNER_CARDS[1]:
            continue
        if paper is None:
            symbol = _SYMBOL_AREA * float(np.median([q.size_wh[0] * q.size_wh[1] for q in sized_by]))
            paper, fresh = _paper_of(bright, symbol), _paper_of(left, symbol)
        poly = cv2.approxPolyDP(contour, 0.08 * typical.short, True).reshape(-1, 2).astype(np.float32)
        for shown, k in [(shown, k) for shown, ks in _with_jagged_corners(poly, _JAG * typical.short) for k in ks]:
            corner, a, b = shown[k], shown[k - 1] - shown[k], shown[(k + 1) % len(shown)] - shown[k]
            la, lb = float(np.hypot(*a)), float(np.hypot(*b))
            if min(la, lb) < 0.5 * typical.short or abs(float(a @ b)) > _CORNER_COS * la * lb:
                continue
            best: _Seen | None = None
            for sa, sb, all_round in _corner_sizes(la, lb, typical):
                quad = order_corners(np.array([corner, corner + a * sa / la, corner + a * sa / la + b * sb / lb,
                                               corner + b * sb / lb], np.float32))
                fill = _filled(quad, paper)
                if fill < _CORNER_FILL or _filled(quad, fresh) < _CORNER_FRESH:
                    continue
                seen = np.sort(_outline_seen(unlit, quad[None], span)[0])[0 if all_round else -2:]
                if seen.min() >= _CORNER_SEEN and (best is None or fill + seen.mean() > best.score):
                    best = _Seen(float(fill + seen.mean()), quad, fill, all_round)
            if best is not None:
                completed.append(best)
    return completed


def _without_jags(poly: NDArray[np.float32], shortest: float) -> NDArray[np.float32]:
    """A closed polygon (N, 2) with each side shorter than ``shortest`` taken out, the shortest
    first: the sides beside it run on to meet in one corner (its ends' middle where they run
    parallel, or would meet further than ``2 * shortest`` off it). A corner seen whole, its outline
    jagged by noise, a symbol's bite or the card beneath, is then one corner, not two."""
    points = [np.asarray(p, np.float64) for p in poly]
    while len(points) > 4:
        count = len(points)
        lengths = [float(np.linalg.norm(points[(k + 1) % count] - points[k])) for k in range(count)]
        k = int(np.argmin(lengths))
        if lengths[k] >= shortest:
            break
        before, start, end, after = points[k - 1], points[k], points[(k + 1) % count], points[(k + 2) % count]
        middle = (start + end) / 2
        meet = meet_lines(before, start - before, after, end - after).astype(np.float64)
        points[k] = meet if np.isfinite(meet).all() and float(np.linalg.norm(meet - middle)) <= 2 * shortest else middle
        del points[(k + 1) % count]
    return np.array(points, np.float32).reshape(-1, 2)


def _with_jagged_corners(poly: NDArray[np.float32], shortest: float) -> list[tuple[NDArray[np.float32], list[int]]]:
    """The vertices of a closed polygon (N, 2) to look at as corners, as (polygon, indices):
    all of its own, then those its jags hid (``_without_jags``: in the polygon without them,
    the corners met where jags were). Cards merged with what they touch show their corners
    either way: the sides a card shows where it peeks out from under another are as short as jags."""
    plain = _without_jags(poly, shortest)
    met = [k for k, vertex in enumerate(plain) if not (np.abs(poly - vertex).max(axis=1) < 1e-3).any()]
    return [(poly, list(range(len(poly)))), (plain, met)]


def _traced_cards(pieces: tuple[NDArray[np.int32], ...], left: NDArray[np.uint8], bright: NDArray[np.uint8],
                  unlit: NDArray[np.float32], span: float, lightness: NDArray[np.uint8],
                  sized_by: list[CardQuad]) -> list[_Seen]:
    """Cards of the paper left over traced by the steps of their outline: from a corner, or all round.

    A card lying over another face-up card makes one region of paper with it at every
    level: its outline over the card beneath is only a faint step in lightness (and a thin
    shadow), lost where the whiteness is clipped. Where the paper left over shows a corner
    (two straight sides meeting at about a right angle), the sides opposite are looked for
    as the lines parallel to them, within ``_TRACED_REACH`` of a card's sides as they show
    there (``sizes_in_view``), along which the lightness steps most. Where the steps close
    a loop all round a card (``enclosed_loops``), the card is the loop, whatever its corners show.
    A card so traced counts where it is of a card's size and shape there, an edge runs
    along ``_TRACED_SEEN`` of each of its four sides (a loop's run all round), paper (its
    symbols counted in) fills it, symbols are printed in it and half of it at least is paper
    no card found explains.
    ``left``: the paper the cards found leave over (``pieces``: its outlines); ``bright``:
    all that is as bright as paper; ``span``: the sweep's span of ``unlit``; ``lightness``:
    Lab L (H, W) uint8; ``sized_by``: the cards (found) whose size the cards' is.
    """
    if len(sized_by) < 2:
        return []
    short, long = np.median([q.size_wh for q in sized_by], axis=0)
    large = [c for c in pieces if cv2.contourArea(c) >= _TRACED_AREA * short * long]
    if not large:
        return []
    stepped = np.zeros(left.shape, np.uint8)
    boxes = _boxes_around(tuple(large), left.shape, 0.0, int(0.5 * long))
    for x0, y0, x1, y1 in boxes:
        edges = cv2.Canny(cv2.GaussianBlur(lightness[y0:y1, x0:x1], (3, 3), 0), *_TRACED_EDGES)
        stepped[y0:y1, x0:x1] = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    masks = None  # the paper, its symbols counted in, and the paper no card found explains: made when first asked for
    cards_paper = None  # the whiteness of the cards' paper: read when first asked for

    def traced(quad: NDArray[np.float32], view: NDArray[np.float64], enclosed: bool = False) -> _Seen | None:
        """The card ``quad`` (4, 2) as traced, where it counts (``view``: a card's sides there;
        ``enclosed``: a loop of the steps, its outline seen all round)."""
        nonlocal masks, cards_paper
        size = np.array(sides(quad))
        if not (_TRACED_AREAS[0] < size[0] * size[1] / (view[0] * view[1]) < _TRACED_AREAS[1]
                and _TRACED_ASPECT[0] < size[1] / size[0] < _TRACED_ASPECT[1]):
            return None
        seen = 1.0 if enclosed else float(_edge_along(stepped, quad).min())
        if seen < _TRACED_SEEN:
            return None
        if masks is None:
            masks = _paper_of(bright, _SYMBOL_AREA * short * long), _paper_of(left, _SYMBOL_AREA * short * long)
        fill = _filled(quad, masks[0])
        # Large symbols close together and to its sides: opening off thin things took the paper
        # between them, and no hole is left. Enclosed by its paper they are its symbols, where
        # that paper is as white as the cards' (a pale cloth's dots are enclosed by the cloth).
        if _TRACED_PAPER <= fill < _TRACED_FILL:
            if cards_paper is None:
                cards_paper = _paper_whiteness([q.corners_xy for q in sized_by], unlit, bright)
            if _paper_whiteness([quad], unlit, bright) >= cards_paper - _TRACED_WHITE * span:
                fill = _filled(quad, bright, enclosed=True)
        if fill < _TRACED_FILL or _filled(quad, masks[1]) < _TRACED_FRESH or not printed_in(unlit, quad[None])[0]:
            return None
        return _Seen(seen + fill, quad, fill, True)

    found: list[_Seen] = []
    views = sizes_in_view(sized_by, np.array([c.reshape(-1, 2).mean(axis=0) for c in large], np.float64))
    for contour, view in zip(large, views):
        for corner, arm_a, arm_b in _corners_of(contour, view[0]):
            cards = [traced(_traced_from(stepped, corner, arm_a, arm_b, sa, sb), view) for sa, sb in (view, view[::-1])]
            best = max((card for card in cards if card is not None), key=lambda card: card.score, default=None)
            if best is not None:
                found.append(best)
    loops = [quad for box in boxes for quad in enclosed_loops(stepped, box, _TRACED_AREA * short * long)]
    if loops:
        views = sizes_in_view(sized_by, np.array([quad.mean(axis=0) for quad in loops], np.float64))
        found += [card for card in (traced(quad, view, enclosed=True) for quad, view in zip(loops, views)) if card is not None]
    return found


def enclosed_loops(stepped: NDArray[np.uint8], box: tuple[int, int, int, int], min_area: float) -> list[NDArray[np.float32]]:
    """The card-shaped quadrilaterals (4, 2) of the loops the steps ``stepped`` close in a box
    (x0, y0, x1, y1) of the frame: each region of ``min_area`` pixels or more they enclose (not
    the box's edge) that fills its quadrilateral, its outline (less the bites of symbols printed
    near its sides) at least ``_ENCLOSED_FILL`` of it and its convex hull ``_ENCLOSED_HULL``,
    the quadrilateral grown back out onto the steps. The steps are taken as they are and
    thickened once more (``_ENCLOSED_THICKER``), which closes a break of up to two pixels."""
    x0, y0, x1, y1 = box
    steps = stepped[y0:y1, x0:x1]
    quads = []
    thicker = cv2.dilate(steps, np.ones((_ENCLOSED_THICKER, _ENCLOSED_THICKER), np.uint8))
    # (a region stops where the steps start: half their thickness, 3 pixels as found, 5 thickened, short of the step)
    for thick, back in ((steps, 1.5), (thicker, 2.5)):
        loops, hierarchy = cv2.findContours(cv2.bitwise_not(thick), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        for loop, link in zip(loops, hierarchy[0] if hierarchy is not None else ()):
            if link[3] >= 0 or cv2.contourArea(loop) < min_area:  # (a region's outer outline, not a symbol's hole in it)
                continue
            x, y, w, h = cv2.boundingRect(loop)
            if x == 0 or y == 0 or x + w == x1 - x0 or y + h == y1 - y0:  # (the box's edge closes it, not the steps)
                continue
            quad, fill = fit_quad(loop)
            if quad is None or fill < _ENCLOSED_FILL:
                continue
            if cv2.contourArea(cv2.convexHull(loop)) < _ENCLOSED_HULL * cv2.contourArea(quad):
                continue
            quads.append(grow(quad[None], back)[0] + np.array([x0, y0], np.float32))
    return quads


def _best_first(quads: list[CardQuad], scored: list[_Seen]) -> list[Region]:
    """The cards ``scored``, one to a place apart from the cards ``quads`` found: those
    outlined all round first (a card traced by its steps, one completed from its corner at the
    sides seen), then those seen along the two sides at their corner, each best first. A card
    over another may show a corner whose completion takes in a strip of the card beneath, seen
    as well along its two sides as the card traced all round (dev medium2 159, medium3 344,
    medium4 479: the card's place taken by a quad across both cards)."""
    cards = [CardQuad(card.corners_xy, card.fill) for card in sorted(scored, key=lambda card: (not card.all_round, -card.score))]
    return [Region(q.corners_xy, q.fill, 0) for q in add_new(quads, cards)[len(quads):]]


def _corners_of(contour: NDArray[np.int32], reach: float) -> list[tuple[NDArray[np.float64], ...]]:
    """The corners of a contour where its outline, simplified to a twelfth of ``reach``
    pixels (its vertices, and the corners its jags hid: ``_with_jagged_corners``), has two
    sides at least a third of ``reach`` long meeting at 80 to 100 degrees:
    (corner, unit vector along one side, unit vector along the other) each. Each side's
    line is fitted to the contour within ``reach`` of the corner, past its rounding: a
    side may run on into another card's."""
    points = contour.reshape(-1, 2).astype(np.float32)
    simplified = cv2.approxPolyDP(contour, reach / 12, True).reshape(-1, 2).astype(np.float32)
    if len(simplified) < 3 or len(points) < 8:
        return []
    corners = []
    for poly, k in [(shown, k) for shown, ks in _with_jagged_corners(simplified, _JAG * reach) for k in ks]:
        before, after = poly[k - 1] - poly[k], poly[(k + 1) % len(poly)] - poly[k]
        la, lb = float(np.hypot(*before)), float(np.hypot(*after))
        if min(la, lb) < reach / 3 or abs(float(before @ after)) > _TRACED_COS * la * lb:
            continue
        # (approxPolyDP keeps contour points; a corner met where jags were taken out lies near one)
        at = [int(np.argmin(np.abs(points - vertex).sum(axis=1))) for vertex in poly[[k - 1, k, (k + 1) % len(poly)]]]
        arms = []
        for end, step in ((at[0], -1), (at[2], 1)):  # back along the contour to the vertex before, and on
            run = points[np.arange(at[1], at[1] + step * ((end - at[1]) * step % len(points) + 1), step) % len(points)]
            beyond = np.hypot(*(run - poly[k]).T) > reach
            run = run[: max(int(np.argmax(beyond)) if beyond.any() else len(run), 2)]
            cut = len(run) // 6
            if len(run) - 2 * cut < 2:
                break
            arms.append(cv2.fitLine(run[cut:len(run) - cut], cv2.DIST_L2, 0, 0.01, 0.01).ravel().astype(np.float64))
        if len(arms) < 2:
            continue
        (vxa, vya, xa, ya), (vxb, vyb, xb, yb) = arms
        da, db = np.array([vxa, vya]), np.array([vxb, vyb])
        corner = meet_lines(np.array([xa, ya]), da, np.array([xb, yb]), db).astype(np.float64)
        if not np.isfinite(corner).all() or np.hypot(*(corner - poly[k])) > reach / 4:
            continue
        corners.append((corner, da * np.sign(float(before @ da)), db * np.sign(float(after @ db))))
    return corners


def _traced_from(stepped: NDArray[np.uint8], corner: NDArray[np.float64], arm_a: NDArray[np.float64], arm_b: NDArray[np.float64],
                 sa: float, sb: float) -> NDArray[np.float32]:
    """The quadrilateral (4, 2) of a card with a corner at ``corner``, its sides along
    ``arm_a`` and ``arm_b``, about ``sa`` and ``sb`` long: each side opposite is put where
    the edges ``stepped`` run along most of it, within ``_TRACED_REACH`` of that length."""
    steps = np.linspace(1 - _TRACED_REACH, 1 + _TRACED_REACH, _TRACED_STEPS)[:, None]
    starts = np.concatenate([corner + steps * sa * arm_a, corner + steps * sb * arm_b])
    ends = np.concatenate([starts[:_TRACED_STEPS] + sb * arm_b, starts[_TRACED_STEPS:] + sa * arm_a])
    shares = _edge_share(stepped, starts, ends).reshape(2, _TRACED_STEPS)
    a, b = arm_a * sa * steps[np.argmax(shares[0]), 0], arm_b * sb * steps[np.argmax(shares[1]), 0]
    return order_corners(np.array([corner, corner + a, corner + a + b, corner + b], np.float32))


def _edge_along(edges: NDArray[np.uint8], quad_xy: NDArray[np.float32]) -> NDArray[np.float64]:
    """Along each side of a quadrilateral (4, 2), the share of it where an edge lies (see ``_edge_share``): (4,)."""
    return _edge_share(edges, quad_xy.astype(np.float64), np.roll(quad_xy, -1, axis=0).astype(np.float64))


def _edge_share(edges: NDArray[np.uint8], starts_xy: NDArray[np.float64], ends_xy: NDArray[np.float64],
                samples: int = 16) -> NDArray[np.float64]:
    """Along each line from ``starts_xy`` to ``ends_xy`` (N, 2), the share of points (0.1
    to 0.9 of the way) where an edge (``edges`` (H, W), set) lies: (N,)."""
    t = np.linspace(0.1, 0.9, samples)
    points = np.round(starts_xy[:, None, :] + t[None, :, None] * (ends_xy - starts_xy)[:, None, :]).astype(int)
    h, w = edges.shape
    x, y = np.clip(points[..., 0], 0, w - 1), np.clip(points[..., 1], 0, h - 1)
    return (edges[y, x] > 0).mean(axis=1)


def _corner_sizes(la: float, lb: float, typical: Typical) -> list[tuple[float, float, bool]]:
    """The sides (along a, along b) of the cards that may be completed from a corner whose
    sides are seen ``la`` and ``lb`` long, and whether such a card must be outlined all
    round: the cards' outline either way round, where neither side seen is longer than it by
    more than a fifth. The cards found near it are mostly the paper inside their printed
    border; this card's corner is its outline's. They may be outlines too (cards with no
    printed border): a card whose sides are both seen whole against theirs (within a fifth)
    is completed at the sides seen, where it is outlined all round, as a card on top is (dev
    hard 124: a card on the pool, its sides 0.9 of the cards' near it, completed a fifth too
    large from the printed border's size)."""
    sizes = []
    for sa, sb in ((_OUTER * typical.short, _OUTER * typical.long), (_OUTER * typical.long, _OUTER * typical.short)):
        if la <= 1.2 * sa and lb <= 1.2 * sb:
            # A side seen whole (within a fifth) gives its own length; one running under something, the cards'.
            sizes.append((la if la > 0.8 * sa else sa, lb if lb > 0.8 * sb else sb, False))
    for sa, sb in ((typical.short, typical.long), (typical.long, typical.short)):
        if 0.8 * sa < la <= 1.2 * sa and 0.8 * sb < lb <= 1.2 * sb and (la, lb, False) not in sizes:
            sizes.append((la, lb, True))
    return sizes


def _paper_of(bright: NDArray[np.uint8], max_hole: float) -> NDArray[np.uint8]:
    """Where paper lies, its symbols included: ``bright`` (H, W), 255 where it is as bright
    as paper, with thin bright things opened off (the frame printed on a card back, the
    sheen on a finger) and holes of at most ``max_hole`` pixels filled (the symbols printed
    on a card, dark holes in its paper): (H, W) uint8."""
    mask = cv2.morphologyEx(bright, cv2.MORPH_OPEN, np.ones((_AGAIN_OPENING, _AGAIN_OPENING), np.uint8))
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return mask
    holes = [c for c, (*_, parent) in zip(contours, hierarchy[0]) if parent >= 0 and cv2.contourArea(c) <= max_hole]
    return cv2.drawContours(mask, holes, -1, 255, cv2.FILLED)


def _filled(quad_xy: NDArray[np.float32], mask: NDArray, enclosed: bool = False) -> float:
    """The share of a quadrilateral (4, 2) where a mask is set (above nought); with
    ``enclosed``, also where it is not but is enclosed by it within the quadrilateral (the
    symbols printed on a card, however large or close together: only what lies beyond the
    card reaches its sides unbroken)."""
    x0, y0 = np.floor(quad_xy.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad_xy.max(axis=0)).astype(int) + 1
    h, w = mask.shape
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return 0.0
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(inside, np.round(quad_xy - (x0, y0)).astype(np.int32), 1)
    if not inside.any():
        return 0.0
    is_set = mask[y0:y1, x0:x1] > 0
    if enclosed:
        unset = (inside > 0) & ~is_set
        _, labels = cv2.connectedComponents(unset.astype(np.uint8), connectivity=4)
        rim = (inside > 0) & (cv2.erode(inside, np.ones((3, 3), np.uint8), borderValue=0) == 0)
        is_set |= unset & ~np.isin(labels, np.unique(labels[rim & unset]))
    return float(is_set[inside > 0].mean())


def _paper_whiteness(quads_xy: list[NDArray[np.float32]], white: NDArray[np.float32], bright: NDArray[np.uint8]) -> float:
    """The median whiteness of the paper (``bright``) within the quadrilaterals (4, 2)."""
    corners = np.round(np.array(quads_xy, np.float32).reshape(-1, 2)).astype(np.int32)
    h, w = white.shape
    x0, y0 = np.maximum(corners.min(axis=0), 0)
    x1, y1 = np.minimum(corners.max(axis=0) + 1, (w, h))
    if x1 <= x0 or y1 <= y0:
        return 0.0
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(inside, [np.round(q - (x0, y0)).astype(np.int32) for q in quads_xy], 1)
    paper = white[y0:y1, x0:x1][(inside > 0) & (bright[y0:y1, x0:x1] > 0)]
    return float(np.median(paper)) if paper.size else 0.0


def stands_out(white: NDArray[np.float32], quad_xy: NDArray[np.float32]) -> float:
    """How much whiter a quadrilateral (4, 2) is than what lies around it: the median
    whiteness of its middle (0.8 of it) less that of a ring from 1.08 to 1.3 times its size."""
    centre = quad_xy.mean(axis=0)
    outer = centre + 1.3 * (quad_xy - centre)
    x0, y0 = np.maximum(np.floor(outer.min(axis=0)).astype(int), 0)
    x1, y1 = np.ceil(outer.max(axis=0)).astype(int) + 1
    patch = white[y0:y1, x0:x1]
    inner, ring = np.zeros(patch.shape, np.uint8), np.zeros(patch.shape, np.uint8)
    cv2.fillConvexPoly(inner, np.round(centre + 0.8 * (quad_xy - centre) - (x0, y0)).astype(np.int32), 1)
    cv2.fillConvexPoly(ring, np.round(outer - (x0, y0)).astype(np.int32), 1)
    cv2.fillConvexPoly(ring, np.round(centre + 1.08 * (quad_xy - centre) - (x0, y0)).astype(np.int32), 0)
    if not inner.any() or not ring.any():
        return 0.0
    return float(np.median(patch[inner > 0]) - np.median(patch[ring > 0]))


def _outline_seen(white: NDArray[np.float32], quads: NDArray[np.float32], span: float | NDArray[np.float64],
                  offset: float = 2.5, samples: int = 12) -> NDArray[np.float64]:
    """Along each side of each quadrilateral (N, 4, 2), the share of the points where the
    whiteness ``offset`` pixels inside is above that outside by 0.15 of ``span``
    (the table-to-paper sweep, one for all or (N,)) or 8, whichever is more: (N, 4)."""
    steps = steps_across(white, quads, offset, samples)
    return (steps > np.maximum(8.0, 0.15 * np.reshape(span, (-1, 1, 1)))).mean(axis=2)


def steps_across(white: NDArray[np.float32], quads: NDArray[np.float32], offset: float = 2.5,
                  samples: int = 12) -> NDArray[np.float32]:
    """At ``samples`` points along each side of each quadrilateral (N, 4, 2), the whiteness
    ``offset`` pixels inside less that outside: (N, 4, samples)."""
    n = len(quads)
    starts, ends, _, normal = sides_outwards(quads)
    t = np.linspace(0.1, 0.9, samples, dtype=np.float32)
    points = starts[:, :, None, :] + t[None, None, :, None] * (ends - starts)[:, :, None, :]
    inner = (points - offset * normal[:, :, None, :]).reshape(n * 4, samples, 2).astype(np.float32)  # remap takes at most 32767 rows
    outer = (points + offset * normal[:, :, None, :]).reshape(n * 4, samples, 2).astype(np.float32)
    vi = cv2.remap(white, inner[..., 0], inner[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(n, 4, -1)
    vo = cv2.remap(white, outer[..., 0], outer[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(n, 4, -1)
    return vi - vo


def _boxes_around(contours: tuple[NDArray[np.int32], ...], shape: tuple[int, int], min_area: float,
                  pad: int) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) around the outer contours of a mask of ``shape`` (H, W) of at
    least ``min_area`` pixels, grown by ``pad``; boxes that overlap are joined."""
    h, w = shape
    boxes = []
    for contour in contours:
        if cv2.contourArea(contour) < min_area:
            continue
        x, y, bw, bh = cv2.boundingRect(contour)
        box = [max(0, x - pad), max(0, y - pad), min(w, x + bw + pad), min(h, y + bh + pad)]
        merged = True
        while merged:
            merged = False
            for other in boxes:
                if box[0] < other[2] and other[0] < box[2] and box[1] < other[3] and other[1] < box[3]:
                    boxes.remove(other)
                    box = [min(box[0], other[0]), min(box[1], other[1]), max(box[2], other[2]), max(box[3], other[3])]
                    merged = True
                    break
        boxes.append(box)
    return [tuple(b) for b in boxes]


def add_new(quads: list[CardQuad], more: list[CardQuad]) -> list[CardQuad]:
    """``quads`` and those of ``more`` that overlap none of them (neither holds the other's centre)."""
    kept = list(quads)
    for quad in more:
        if not any(cv2.pointPolygonTest(q.corners_xy, quad.center_xy, False) >= 0
                   or cv2.pointPolygonTest(quad.corners_xy, q.center_xy, False) >= 0 for q in kept):
            kept.append(quad)
    return kept
