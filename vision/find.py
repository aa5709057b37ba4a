"""Finding card faces in a camera frame: card-shaped paper quadrilaterals on the table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.card_sizes import SQUARISH, Typical, sizes_in_view, typical_near, typical_of
from vision.outline import pull_in_outlines, reach_outlines
from vision.paper import faces_cast, lab_whiteness, lab_whiteness_in_shade, light_cast, paper_mask, second_cast
from vision.quads import (CardQuad, are_twins, cut_across, fit_quad, frame_level, grow, order_corners, sides, snap_all_corners,
                          square_up, unit, warp_card)
from vision.regions import (CLEAN_FILL, LEVELS, Region, blurred_whiteness, card_regions, choose_cards, cut_along_edges, points_inside,
                            printed_in, sweep_span)
from vision.second_look import add_new, are_apart, blank_squares, cloth_squares, look_again, of_paper_tint, steps_across
from vision.widen import like_a_card_beside, measure_in_neighbours, refit_off_cards, widen_cut_quads

__all__ = ["CardQuad", "SmallCards", "find_cards", "find_closer", "cards_too_small", "paper_mask", "warp_card", "order_corners",
           "working_copy", "WORK_LONG_SIDE"]

WORK_LONG_SIDE = 960
_MIN_SHORT_SIDE_PX = 60  # at full resolution: the spec's 80 px, less tilt and blur
_PARTED_FILL = 0.8  # a region chosen filling less of its quadrilateral than this may be two cards touching at a corner
_PARTED_AREA = 1.5  # where its quadrilateral is this many times the area of a card there
_PARTED_OPENINGS = (0.12, 0.18, 0.25)  # its paper opened with a disc of these shares of a card's short side parts them at the neck
_PARTED_CARD = (0.7, 1.3)  # into two pieces of a card's area each
_ROW_BESIDE = 2  # where the cards around lie every which way, a row's own cards on its line tell its cards' size: two at least
_ROW_SIZE = 0.2  # ... where the cards in view show their size there too, within this share a side
_PARTED_PIECE_FILL = 0.85  # each filling its quadrilateral but for the corners the opening rounds
_PALER_OFF = 4.0  # the brightest fiftieth's cast this far from the tenth's: a pale table may be in the tenth
_PALER_MORE = 2  # and a sweep under it is kept where it finds this many more cards with symbols printed in them
_SHADOW_CAST = 10.0  # a lamp's cast this strong (a, b) leaves paper in a shadow looking coloured
_CAST_OFF = 8.0  # the faces' cast this far (a, b) from the frame's: the frame's brightest tenth was a pale table
_PALE_TABLE_SHARE = 0.02  # the brightest fiftieth of a frame with a pale table in it is paper
_CLOSER_LEVELS = 12  # a box looked at closer is swept at the second look's finer steps: a card in a shadow stands out at fewer levels
# A card found only by a sweep not kept steps down in whiteness by more than this (of the
# sweep's 0-255) from its paper to what lies beside it, along three sides at least (the median
# along each side): on 280 dev renders, the third steepest side of the cards 11 to 92, of pale cloth 2 at most.
_SIDE_STEP = 8.0
_FEW_FACES = 4  # fewer cards with symbols printed in them found than this: the paper may be the brightest's second colour
# Paper under the lights of the renders shows a (Lab, less neutral grey) from -5 to 12 (fresh and
# tune22 hard, 750 frames); the brightest tenth of a frame greener or redder than this is a
# cloth's (green: -11 to -38 on 12 frames, pink: 15 to 17 on 3).
_LIGHTS_A = (-10.0, 14.0)
# A quad measuring less than this share of a card's area on its neighbours' table planes, and
# less than _PIECE_OF_FOUND of the median quad found in the frame, is a piece of a card about
# half hidden (under a back, a mug, a hand) or no card: the spec lets a card more than a quarter
# hidden be skipped, and its reading would be of the part in view. On fresh renders such quads
# were 9 pieces and glare spots read as faces and 2 cards hidden by 48-54%, none hidden less
# (a card 27% hidden measured 0.59); a whole card measured 0.49 by neighbours seen at a slant,
# but 0.81 of the frame's median.
_PIECE_OF_CARD, _PIECE_OF_FOUND = 0.55, 0.7
# Cards too small to be found (a 720p camera over a six-player table shows them 45 px wide) are
# still card-shaped patches of paper: down to this share of the least short side a card is found
# at, at least _SMALL_CARDS of them within _SMALL_ALIKE of their median short side.
_SMALL_FROM = 0.3
_SMALL_CARDS = 3
_SMALL_ALIKE = 0.25
# Each filling its quadrilateral this much: small cards fill theirs (0.85 and more on a dev set
# shrunk to 48 px a card), the patches of a hard test photo with a hand, a mug and glare on the
# pool's backs 0.66-0.76 (test-168, whose one point card's printed frame, filled, is the only
# clean one).
_SMALL_FILL = 0.85
# ... clear of the frame's edge by this many working pixels (a card the edge cuts shows a piece).
_SMALL_EDGE_PX = 2.0


def find_cards(frame_bgr: NDArray[np.uint8], within: tuple[int, int, int, int] | None = None,
               small_bgr: NDArray[np.uint8] | None = None) -> list[CardQuad]:
    """Every card-shaped paper region in the frame, or in a box of it.

    Card-shaped bright regions are looked for over a sweep of whiteness levels, cut
    apart along sharp edges, at a working resolution (see ``vision.regions``); one
    region per card is kept, of the size of the cards around it (one of two cards
    touching corner to corner is parted into them, see ``_parted``). A row of cards
    lying edge to edge with no edge seen between them is split by the cards' size.
    Where bright paper is left unexplained, it is looked at again: shadows taken out,
    finer steps, fainter edges (see ``vision.second_look.look_again``); a card in a
    shadow no whiter than the table is looked for by its paper's tint (see
    ``vision.second_look.of_paper_tint``) and, under a warm lamp, with the lamp's cast
    taken in proportion to lightness (see ``vision.paper.lab_whiteness_in_shade``). The
    corners are then moved onto each card's outline at full resolution.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    within : (x0, y0, x1, y1) the box to search (a calibration's table top), in frame
        pixels; it is searched at the working scale of the whole frame, so that a smaller
        box takes less time. None: the whole frame.
    small_bgr : ndarray (h, w, 3) uint8, the frame's ``working_copy`` when at hand, or None

    Returns
    -------
    quads : list of CardQuad, in full-frame pixels; face-down cards and other
        objects are not filtered here (``read_card`` tells a face from anything else).
    """
    scale = _working_scale(frame_bgr)
    small = _shrink(frame_bgr, scale) if small_bgr is None else small_bgr
    # No card covers more than a tenth of the whole frame.
    max_area = 0.1 * frame_bgr.shape[0] * frame_bgr.shape[1] * scale**2
    if within is None:
        return _find(frame_bgr, scale, max_area, small=small)
    return _in_boxes(frame_bgr, [within], small)[0]


def find_closer(frame_bgr: NDArray[np.uint8], boxes: Sequence[tuple[int, int, int, int]],
                small_bgr: NDArray[np.uint8] | None = None) -> list[list[CardQuad]]:
    """The cards in each of a few boxes of the frame (x0, y0, x1, y1), each box swept alone.

    The whole frame's sweep runs between the table's whiteness and the paper's over all of it:
    a card in a shadow cast across the table, or under a lamp's glare, may stand out at none of
    its levels. A box a few cards wide takes its levels from what lies in it, and the card
    stands out there. One sweep (under the whole frame's light cast) at the second look's finer
    steps (``_CLOSER_LEVELS``), no second look: a box is looked at where a card is expected
    (``vision.nearer``), not everywhere.
    """
    small = _shrink(frame_bgr, _working_scale(frame_bgr)) if small_bgr is None else small_bgr
    return _in_boxes(frame_bgr, boxes, small, once=True)


def _in_boxes(frame_bgr: NDArray[np.uint8], boxes: Sequence[tuple[int, int, int, int]], small: NDArray[np.uint8],
              once: bool = False) -> list[list[CardQuad]]:
    """``_find`` of each box of the frame (``small``: the frame's working copy), in frame pixels.
    Each box is worked on at the whole frame's scale and judges whiteness under the whole frame's
    light cast; no card is larger than a tenth of the whole frame."""
    scale = _working_scale(frame_bgr)
    max_area = 0.1 * frame_bgr.shape[0] * frame_bgr.shape[1] * scale**2
    cast_ab = _light_cast(small)
    found = []
    for x0, y0, x1, y1 in boxes:
        offset = np.array([x0, y0], np.float32)
        quads = _find(frame_bgr[y0:y1, x0:x1], scale, max_area, cast_ab, once=once)
        found.append([CardQuad(quad.corners_xy + offset, quad.fill) for quad in quads])
    return found


@dataclass(frozen=True)
class SmallCards:
    """Cards seen too small: how many, and how small they show (a typical short side, in frame
    pixels: the median of patches too small for ``find_cards``; of cards read, see
    ``vision.pipeline.cards_seen_small``)."""

    count: int
    short_px: float


def cards_too_small(frame_bgr: NDArray[np.uint8], small_bgr: NDArray[np.uint8] | None = None,
                    found_xy: Sequence[NDArray[np.float32]] = ()) -> SmallCards | None:
    """The cards in view too small to be found or read, when there are some: card-shaped
    patches of paper with symbols printed in them, filling their quadrilateral, clear of the
    frame's edge, at least ``_SMALL_CARDS`` of about one size, shorter than
    the least short side ``find_cards`` looks for (the spec asks for 80 px), none inside a
    larger patch or a card found. A camera too far or of too low a resolution shows every
    card so (or the far ones), and nothing (or too little) is found: this tells why.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    small_bgr : ndarray (h, w, 3) uint8, the frame's ``working_copy`` when at hand, or None
    found_xy : the cards found (and point cards seen), (4, 2) each in frame pixels: a patch
        inside one is a piece of it (its paper between symbols, a point card's printed frame)

    Returns
    -------
    SmallCards, or None when no such patches are seen
    """
    scale = _working_scale(frame_bgr)
    small = _shrink(frame_bgr, scale) if small_bgr is None else small_bgr
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    white, _ = lab_whiteness(lab, _light_cast(small, lab))
    white_u8 = blurred_whiteness(white)
    least = _MIN_SHORT_SIDE_PX * scale
    regions = card_regions(white, _SMALL_FROM * least, span=sweep_span(white_u8[::4, ::4]), white_u8=white_u8)
    if not regions:
        return None
    shorts = np.array([min(sides(r.corners_xy)) for r in regions], np.float64)
    is_small = shorts < least
    # (a patch of a card's paper between its symbols is no small card)
    corners = np.array([r.corners_xy for r in regions], np.float32)
    larger = [corners[~is_small]] + ([np.array(found_xy, np.float32).reshape(-1, 4, 2) * scale] if len(found_xy) else [])
    larger_xy = np.concatenate(larger)
    if is_small.any() and len(larger_xy):
        is_small[is_small] = ~points_inside(larger_xy, corners[is_small].mean(axis=1)).any(axis=0)
    chosen = choose_cards([r for r, small_one in zip(regions, is_small) if small_one], CLEAN_FILL, white)
    if len(chosen) < _SMALL_CARDS:
        return None
    # (a pale cloth's stripes and squares, cut short by what lies on them, show no symbols; the
    # pieces of cards beside a hand or a mug, or of glare on a card back, fill their quadrilateral poorly)
    printed = printed_in(white, np.array([r.corners_xy for r in chosen], np.float32))
    shorts = np.array([min(sides(r.corners_xy)) for r, is_printed in zip(chosen, printed)
                       if is_printed and r.fill >= _SMALL_FILL and _clear_of_edge(white.shape, r.corners_xy)], np.float64)
    if len(shorts) < _SMALL_CARDS:
        return None
    median = float(np.median(shorts))
    alike = int(np.count_nonzero(np.abs(shorts / median - 1) < _SMALL_ALIKE))
    return SmallCards(alike, median / scale) if alike >= _SMALL_CARDS else None


def _clear_of_edge(shape_hw: tuple[int, ...], corners_xy: NDArray[np.float32]) -> bool:
    """Whether a quadrilateral keeps ``_SMALL_EDGE_PX`` clear of the edge of an image of ``shape_hw``."""
    height, width = shape_hw[:2]
    return bool(corners_xy.min() >= _SMALL_EDGE_PX and (corners_xy[:, 0] <= width - 1 - _SMALL_EDGE_PX).all()
                and (corners_xy[:, 1] <= height - 1 - _SMALL_EDGE_PX).all())


def working_copy(frame_bgr: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The frame as ``find_cards`` works on it: its long side ``WORK_LONG_SIDE`` (or as it
    is when smaller), by pixel area. A frame two or four times that size with even sides
    (1080p, 4K) is so halved by 2x2 means, as ``vision.hidden.look_at_table`` halves it."""
    return _shrink(frame_bgr, _working_scale(frame_bgr))


def _working_scale(frame_bgr: NDArray[np.uint8]) -> float:
    return min(1.0, WORK_LONG_SIDE / max(frame_bgr.shape[:2]))


def _find(frame_bgr: NDArray[np.uint8], scale: float, max_area: float,
          cast_ab: tuple[float, float] | None = None, small: NDArray[np.uint8] | None = None, once: bool = False) -> list[CardQuad]:
    """``find_cards`` of a whole frame (or a box of it) worked on at ``scale`` (``small``:
    it at that scale, when at hand); no card is larger than ``max_area`` working pixels.
    ``once``: one sweep of the whiteness under ``cast_ab``, no second look (``find_closer``)."""
    small = _shrink(frame_bgr, scale) if small is None else small
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    white, cast_ab = lab_whiteness(lab, _light_cast(small, lab) if cast_ab is None else cast_ab)
    levels = _CLOSER_LEVELS if once else LEVELS
    span, regions, chosen = _sweep(white, scale, max_area, levels)
    swept = [(white, chosen)]  # each sweep's whiteness and regions chosen
    # On a pale table (cream, pale wood) the brightest tenth is mostly table, and paper of
    # another tint is no whiter than it: hardly a card stands out. Paper is still the
    # brightest thing on the table; the frame is swept again under the cast of its
    # brightest fiftieth, and that sweep kept where it finds more cards. A pale bluish cloth
    # under mixed light leaves the daylit cards standing out, not those under the lamp: where
    # the fiftieth's cast is off the tenth's, its sweep is kept where it finds plainly more
    # cards with symbols printed in them.
    paler_ab = None if once else light_cast(small, _PALE_TABLE_SHARE, lab)
    if paler_ab is not None and (len(chosen) < 2 or np.hypot(paler_ab[0] - cast_ab[0], paler_ab[1] - cast_ab[1]) > _PALER_OFF):
        paler = lab_whiteness(lab, paler_ab)
        again = _sweep(paler[0], scale, max_area)
        swept.append((paler[0], again[2]))
        if len(chosen) < 2:
            better = len(again[2]) > len(chosen)
        else:
            better = _inked(again[2], paler[0]) >= _inked(chosen, white) + _PALER_MORE
        if better:
            (white, cast_ab), (span, regions, chosen) = paler, again
    # A pale table of another tint than paper (a pale blue or green cloth) may fill even the
    # brightest fiftieth; the paper is then the next colour among the brightest tenth. Where
    # hardly a card with symbols printed in it stood out, the frame is swept again under that
    # colour's cast, and that sweep kept where it finds plainly more.
    inked = 0 if once else _inked(chosen, white)
    other = second_cast(lab, cast_ab, _CAST_OFF) if not once and inked < _FEW_FACES else None
    if other is not None:
        under_other = lab_whiteness(lab, other)
        again = _sweep(under_other[0], scale, max_area)
        swept.append((under_other[0], again[2]))
        if _inked(again[2], under_other[0]) >= inked + _PALER_MORE:
            (white, cast_ab), (span, regions, chosen) = under_other, again
    # The light's cast is read off the frame's brightest tenth; on a pale wood or cloth much
    # of that is table, and then paper, greyer than the table, looks coloured: a card in a
    # shadow is as dull as the table. The faces found show the paper's own cast; where it is
    # far from that, the frame is swept again under it, and that sweep kept where it finds no
    # fewer cards with symbols printed in them (the faces' cast can be read off odd faces: a
    # card in a hand, cards half in a shadow).
    if len(chosen) >= 2 and not once:
        faces = faces_cast(small, np.array([r.corners_xy for r in chosen], np.float32))
        if np.hypot(faces[0] - cast_ab[0], faces[1] - cast_ab[1]) > _CAST_OFF:
            under = lab_whiteness(lab, faces)[0]
            again = _sweep(under, scale, max_area)
            swept.append((under, again[2]))
            if _inked(again[2], under) >= _inked(chosen, white):
                white, (span, regions, chosen) = under, again
    # A checked cloth's pale squares are chosen as regions too: no cards (the reader would find no
    # symbol on them), and parting, sizing and moving hundreds of them onto outlines took seconds at
    # 4K. The second look still leaves them dark as paper explained.
    swept = [(w, c) for w, c in swept if c is not chosen]  # (the sweeps not kept)
    cloth = cloth_squares([CardQuad(r.corners_xy, r.fill) for r in chosen], white)
    squares = [r for r, is_square in zip(chosen, cloth) if is_square]
    chosen = [r for r, is_square in zip(chosen, cloth) if not is_square]
    chosen, loose = _parted(chosen, white, span, levels)
    chosen = _rows_parted(chosen)
    # Rows split by the cards' size are found before the second look, which then leaves them be.
    quads = _quads_of(chosen, scale)
    quads = add_new(quads, _split_rows([r for r in regions if r.fill >= CLEAN_FILL], quads, scale))
    chosen = chosen + [Region(q.corners_xy * scale, q.fill, 0) for q in quads[len(chosen):]]
    again, tinted, shadowed = [], [], []
    if not once:
        again = look_again(small, lab, white, span, chosen + squares, _MIN_SHORT_SIDE_PX * scale, max_area)
        # A loose region the second look found cards in was those cards lying over one another.
        if again and loose:
            held = points_inside(np.array([r.corners_xy for r in loose], np.float32),
                                 np.array([r.corners_xy for r in again], np.float32).mean(axis=1)).any(axis=1)
            loose = [r for r, holds in zip(loose, held) if not holds]
    chosen += loose
    quads += _quads_of(loose, scale)
    if not once:
        quads += _quads_of(again, scale)
        tinted = of_paper_tint(small, lab, chosen + squares + again,
                               [CardQuad(q.corners_xy * scale, q.fill) for q in quads] + _quads_of(squares, 1.0),
                               _MIN_SHORT_SIDE_PX * scale, max_area)
        # Under a warm lamp, paper in a shadow is lit by the room and shows little of the lamp's
        # colour: taken as strongly cast as lit paper, it is as dull as the table. The paper left
        # over is looked at again with the cast in proportion to lightness; the cards it finds with
        # symbols printed in them, apart from all found, are added (and, as the tint's, move none).
        if np.hypot(*cast_ab) >= _SHADOW_CAST:
            in_shade = lab_whiteness_in_shade(lab, cast_ab)
            shadowed = _with_symbols(look_again(small, lab, in_shade, span, chosen + squares, _MIN_SHORT_SIDE_PX * scale, max_area),
                                     in_shade)
        if shadowed and (again or tinted):
            shapes = np.array([r.corners_xy for r in shadowed], np.float32)
            shadowed = [r for r, is_apart in zip(shadowed, are_apart(shapes, np.array([r.corners_xy for r in again + tinted], np.float32)))
                        if is_apart]
    by_tint = tinted + shadowed
    if swept:
        by_tint += _from_sweeps_not_kept(swept, chosen + squares + again + by_tint)
    if squares:  # (the paper's tint finds the cloth's squares again: they are left out as above)
        blank = blank_squares([CardQuad(r.corners_xy, r.fill) for r in by_tint], white)
        by_tint = [r for r, is_blank in zip(by_tint, blank) if not is_blank]
    tinted = _quads_of(by_tint, scale)
    search_px = 1.0 / scale + 2.0
    snapped = snap_all_corners(_gray_near(frame_bgr, quads + tinted, search_px + 2.0),
                               [quad.corners_xy for quad in quads + tinted], search_px)
    # A region may have taken in a pale stripe of cloth beside a card: such sides move in
    # first. Any card may have been found only inside its printed border, or short of a part
    # in a shadow or under glare: its sides move out to the outline where one is clearly seen.
    # The cards found by their tint move among the others, but move none of them.
    if snapped:
        snapped = _onto_outlines(frame_bgr, snapped, len(quads))
    quads += tinted
    return _without_pieces(_without_twins([CardQuad(corners, quad.fill) for corners, quad in zip(snapped, quads)]), white, scale)


def _parted(chosen: list[Region], white: NDArray[np.float32], span: tuple[float, float],
            levels: int = LEVELS) -> tuple[list[Region], list[Region]]:
    """The regions chosen (of a sweep of ``span`` in ``levels`` steps), with any that is two cards
    touching at a corner parted into them; and, apart, those of such size and fill that no
    neck parts (``loose``: cards lying over one another, whose outline over the card
    beneath no level of the sweep cuts, or one card near the camera, or with a pale strip
    of table taken in). The second look sweeps a loose region's paper as paper left over,
    at finer steps and cutting along fainter edges; where it finds no card in it, the region
    is a card after all (``_find``).

    Two cards lying at an angle with their corners touching make one region at every level
    of the sweep: no edge runs between them where they meet. Its quadrilateral is much
    larger than a card there (as the cards found show it) and poorly filled. Opened with a
    disc wider than where they meet (the narrowest that parts them, up to a quarter of a
    card's short side), its paper falls into two pieces of a card's size, each filling its
    quadrilateral.
    """
    poor = [k for k, r in enumerate(chosen) if r.fill < _PARTED_FILL]
    if not poor or len(chosen) < 3:
        return chosen, []
    parted, loose = list(chosen), []
    for k in reversed(poor):
        region = chosen[k]
        others = [CardQuad(r.corners_xy, r.fill) for j, r in enumerate(chosen) if j != k]
        short, long = sizes_in_view(others, region.corners_xy.mean(axis=0))[0]
        card = short * long
        if cv2.contourArea(region.corners_xy) < _PARTED_AREA * card:
            continue
        paper, offset = _paper_at_level(white, region, span, levels)
        for share in _PARTED_OPENINGS:
            side = max(3, int(round(share * short)) | 1)
            opened = cv2.morphologyEx(paper, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side)))
            contours, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE, offset=offset)
            # (a piece is the smallest card's paper, its symbols left out)
            pieces = [fit_quad(c) for c in contours if cv2.contourArea(c) >= _PARTED_CARD[0] * CLEAN_FILL * card]
            if len(pieces) > 2:
                break  # the paper falls apart before the two cards do: no such pair
            if len(pieces) == 2 and all(quad is not None and fill >= _PARTED_PIECE_FILL
                                        and _PARTED_CARD[0] <= cv2.contourArea(quad) / card <= _PARTED_CARD[1]
                                        for quad, fill in pieces):
                parted[k:k + 1] = [Region(quad, fill, region.level, region.levels) for quad, fill in pieces]
                break
        else:
            loose.append(parted.pop(k))
    return parted, loose[::-1]


def _rows_parted(chosen: list[Region]) -> list[Region]:
    """The regions chosen, with any that is a row of cards lying edge to edge cut into them
    by the size of the cards around it (``_split_row``: their long sides must run one way),
    where one of those cards lies on its line (``_on_line``).

    Two cards of a row laid touching, with no edge seen between them, make one region as
    wide as both: chosen at a level where it is the only region there, its quad would then
    move onto one card's outline and the other card be lost. Where the cards around it lie
    every which way (a pool beside the row, a hand's quad), the cards on its line, the
    row's own, tell the size and the way their long sides run. (Where none lies on its line
    such a region is not cut: a card turned across a row seen at a slant, or a card apart,
    near the camera, looks as large as two of the row's; nor where the cards on its line lie
    every which way: a card seen lengthwise is about as long for its width as two seen side
    by side, and the sizes around may be of pieces.)
    """
    if len(chosen) < 3:
        return chosen
    quads = [CardQuad(r.corners_xy, r.fill) for r in chosen]
    parted = []
    for region, quad in zip(chosen, quads):
        typical = typical_near(quads, quad.center_xy, exclude=quad)
        parts = []
        if typical is not None and cv2.contourArea(region.corners_xy) > _PARTED_AREA * typical.short * typical.long:
            on_line = _on_line(region.corners_xy, [q for q in quads if q is not quad], typical)
            if on_line:
                if typical.long_axis is None:
                    typical = _row_typical(region.corners_xy, on_line, quads)
                parts = _split_row(region.corners_xy, region.fill, typical)
        parted += [Region(part, fill, region.level, region.levels) for part, fill in parts] or [region]
    return parted


def _on_line(corners_xy: NDArray[np.float32], quads: list[CardQuad], typical: Typical, count: int = 4) -> list[CardQuad]:
    """Those of the ``count`` quads nearest a region whose centre lies on the region's long
    middle line, within half a card's long side (``typical``) of it."""
    a, _, _, d = order_corners(corners_xy)
    centre, along = corners_xy.mean(axis=0), unit(d - a)
    centres = np.array([q.center_xy for q in quads], np.float64) - centre
    nearest = np.argsort(np.hypot(centres[:, 0], centres[:, 1]))[:count]
    off = np.abs(centres[nearest] @ np.array([-along[1], along[0]]))
    return [quads[k] for k in nearest[off < 0.5 * typical.long]]


def _row_typical(region_xy: NDArray[np.float32], on_line: list[CardQuad], quads: list[CardQuad]) -> Typical | None:
    """The size of a row's cards as its cards on a region's line show it, two of them at
    least, and the way their long sides run where they agree (``typical_of``); kept where the
    cards in view (``sizes_in_view``, fitted over all ``quads``) show that size there too,
    within ``_ROW_SIZE`` a side; else None (the quads on the line may be pieces of cards).
    Cards seen nearly square (a steep view's foreshortening, short over long above
    ``SQUARISH``) show no way: lying on the region's long line, a row's cards then run
    across it as the region's short side does."""
    if len(on_line) < _ROW_BESIDE:
        return None
    typical = typical_of(on_line, one_way_from=2)
    view = sizes_in_view(quads, region_xy.mean(axis=0)[None])
    if view is None or len(view) == 0:
        return None
    short, long = view[0]
    if abs(typical.short / short - 1) >= _ROW_SIZE or abs(typical.long / long - 1) >= _ROW_SIZE:
        return None
    if typical.short > SQUARISH * typical.long:
        a, b, _, _ = order_corners(region_xy)
        return Typical(typical.short, typical.long, unit(b - a))
    return typical


def _paper_at_level(white: NDArray[np.float32], region: Region, span: tuple[float, float],
                    levels: int = LEVELS) -> tuple[NDArray[np.uint8], tuple[int, int]]:
    """A region's paper as the sweep (``span`` in ``levels`` steps) saw it at its level, cut
    along edges, in a box around it; and the box's corner in ``white``."""
    h, w = white.shape
    x, y, bw, bh = cv2.boundingRect(np.round(grow(region.corners_xy, 3.0)).astype(np.int32))
    x0, y0, x1, y1 = max(0, x), max(0, y), min(w, x + bw), min(h, y + bh)
    white_u8 = blurred_whiteness(white[y0:y1, x0:x1])
    cut = cut_along_edges(white_u8)
    level = float(np.linspace(span[0], span[1], levels + 1)[region.level])
    inside = np.zeros(cut.shape, np.uint8)
    cv2.fillConvexPoly(inside, np.round(grow(region.corners_xy, 1.0) - (x0, y0)).astype(np.int32), 255)
    return cv2.bitwise_and(cv2.threshold(cut, level, 255, cv2.THRESH_BINARY)[1], inside), (x0, y0)


def _from_sweeps_not_kept(swept: list[tuple[NDArray[np.float32], list[Region]]], known: list[Region]) -> list[Region]:
    """The cards the sweeps not kept (``swept``: each one's whiteness and regions chosen) found
    apart from the regions ``known`` and from each other: regions with symbols printed in them
    whose whiteness steps down to what lies beside them along three sides at least (the fourth
    may touch another card).

    Under mixed light, a card in daylight is as dull as a pale cloth under the warm lamp's cast,
    and is found only under a paler one; a sweep under it is kept only where it finds plainly
    more cards (``_find``), and those it finds alone are taken from it here. A stretch of pale
    cloth between cards, paper under that paler cast, steps down to nothing where the cloth goes on.
    """
    found: list[Region] = []
    for white, chosen in swept:
        inked = _with_symbols(chosen, white)
        if not inked:
            continue
        shapes = np.array([r.corners_xy for r in inked], np.float32)
        apart = are_apart(shapes, np.array([r.corners_xy for r in known + found], np.float32).reshape(-1, 4, 2))
        outlined = (np.median(steps_across(white, shapes), axis=2) > _SIDE_STEP).sum(axis=1) >= 3
        found += [r for r, keep in zip(inked, apart & outlined) if keep]
    return found


def _with_symbols(regions: list[Region], white: NDArray[np.float32]) -> list[Region]:
    """The regions with symbols printed in them (``printed_in`` of ``white``)."""
    if not regions:
        return []
    return [r for r, inked in zip(regions, printed_in(white, np.array([r.corners_xy for r in regions], np.float32))) if inked]


def _inked(regions: list[Region], white: NDArray[np.float32]) -> int:
    """How many of the regions have symbols printed in them (``printed_in``)."""
    return len(_with_symbols(regions, white))


def _light_cast(small_bgr: NDArray[np.uint8], small_lab: NDArray[np.uint8] | None = None) -> tuple[float, float]:
    """The light's cast (see ``light_cast``), read off the frame's brightest tenth; where
    that is greener or redder than any lamp or daylight makes paper (a bright green or pink
    cloth is most of it), off its brightest fiftieth, mostly paper."""
    cast_ab = light_cast(small_bgr, lab=small_lab)
    is_light = _LIGHTS_A[0] <= cast_ab[0] <= _LIGHTS_A[1]
    return cast_ab if is_light else light_cast(small_bgr, _PALE_TABLE_SHARE, small_lab)


def _without_twins(quads: list[CardQuad]) -> list[CardQuad]:
    """The quads but any that is a twin of a quad kept before it (``vision.quads.are_twins``): the card is reported once."""
    if len(quads) < 2:
        return quads
    corners = np.array([q.corners_xy for q in quads], np.float32)
    areas = np.array([cv2.contourArea(c) for c in corners])
    centres = corners.mean(axis=1)
    # (twins' centres lie well within half the smaller's size of each other)
    near = np.hypot(*(centres[:, None] - centres[None]).transpose(2, 0, 1)) < 0.5 * np.sqrt(np.minimum.outer(areas, areas))
    dropped: set[int] = set()
    for j, i in zip(*np.nonzero(np.triu(near, 1))):
        if i not in dropped and j not in dropped and are_twins(corners[i], corners[j], areas[i], areas[j]):
            dropped.add(int(i))
    return [q for k, q in enumerate(quads) if k not in dropped]


def _without_pieces(quads: list[CardQuad], white: NDArray[np.float32] | None = None, scale: float = 1.0) -> list[CardQuad]:
    """The quads but those half a card's size or less both on their neighbours' table planes
    and beside the frame's median quad (see ``_PIECE_OF_CARD``), and like a card on none of
    those planes (``like_a_card_beside``). Where the frame's whiteness ``white`` (at ``scale``)
    is at hand, the quads with symbols printed in them (``printed_in``), three at least,
    measure the others: a patch of pale wood or cloth found as a card tells no card's size
    (dev hard3 478: three patches of pale wood and a point card measured the one card in
    view 0.62 by 0.8, and it was dropped)."""
    if len(quads) < 3:
        return quads
    corners = np.array([q.corners_xy for q in quads], np.float32)
    by = printed_in(white, corners * scale) if white is not None else np.ones(len(quads), bool)
    if by.sum() < 3:  # (too few with symbols seen to measure by: all measure)
        by = np.ones(len(quads), bool)
    short, long = measure_in_neighbours(corners, by)
    areas = np.array([cv2.contourArea(c) for c in corners])
    piece = (short * long < _PIECE_OF_CARD) & (areas < _PIECE_OF_FOUND * np.median(areas[by]))
    if piece.any():  # (a card beside quads off their cards measures small by their planes, not by its good neighbour's)
        piece &= ~like_a_card_beside(corners, by)
    return [q for q, p in zip(quads, piece) if not p]


def _gray_near(frame_bgr: NDArray[np.uint8], quads: list[CardQuad], margin: float) -> NDArray[np.uint8]:
    """The frame in grey within ``margin`` pixels of each quad's box, nought elsewhere: all
    that snapping the corners looks at (the whole frame's conversion took a tenth of the
    finding at 4K)."""
    gray = np.zeros(frame_bgr.shape[:2], np.uint8)
    height, width = gray.shape
    for quad in quads:
        x0, y0 = np.maximum(np.floor(quad.corners_xy.min(axis=0) - margin), 0).astype(int)
        x1, y1 = np.ceil(quad.corners_xy.max(axis=0) + margin).astype(int) + 1
        x1, y1 = min(x1, width), min(y1, height)
        if x1 > x0 and y1 > y0:
            gray[y0:y1, x0:x1] = cv2.cvtColor(frame_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    return gray


def _onto_outlines(frame_bgr: NDArray[np.uint8], quads_xy: list[NDArray[np.float32]],
                   settled: int | None = None) -> list[NDArray[np.float32]]:
    """Quads (4, 2) moved onto their cards' outlines: sides pulled in off pale cloth, a side
    cut across the card squared up, sides reaching out to the outline, squared up again,
    a side cut parallel to the card's widened to the card's size as its neighbours measure it,
    and a quad still unlike a card on its neighbours' table plane refitted at one of its corners.

    A quad may be cut across the card on one side and found short on another, both skewed;
    squaring refuses it until the short side has reached the outline. With ``settled``, the
    first ``settled`` quads have only each other for neighbours; the rest have all.
    """
    level = frame_level(frame_bgr)
    pulled = pull_in_outlines(frame_bgr, np.array(quads_xy, np.float32))
    squared = [square_up(frame_bgr, corners, level) for corners in pulled]
    reached = reach_outlines(frame_bgr, np.array(squared, np.float32))
    squared = [square_up(frame_bgr, corners, level) for corners in reached]
    moved = refit_off_cards(frame_bgr, widen_cut_quads(frame_bgr, squared))
    if settled is None or settled >= len(squared):
        return moved
    return refit_off_cards(frame_bgr, widen_cut_quads(frame_bgr, squared[:settled])) + moved[settled:]


def _sweep(white: NDArray[np.float32], scale: float, max_area: float,
           levels: int = LEVELS) -> tuple[tuple[float, float], list[Region], list[Region]]:
    """The first sweep of the whiteness of a frame worked on at ``scale``, in ``levels`` steps:
    its span, its card-shaped regions and those chosen as cards."""
    white_u8 = blurred_whiteness(white)
    span = sweep_span(white_u8[::4, ::4])
    regions = card_regions(white, _MIN_SHORT_SIDE_PX * scale, levels=levels, span=span, max_area=max_area, white_u8=white_u8)
    return span, regions, choose_cards(regions, CLEAN_FILL, white)


def _quads_of(regions: list[Region], scale: float) -> list[CardQuad]:
    """The regions as cards in full-frame pixels; the edge cut ate about a pixel along every side."""
    grown = grow(np.array([r.corners_xy for r in regions], np.float32).reshape(-1, 4, 2), 1.0) / scale
    return [CardQuad(corners, r.fill) for corners, r in zip(grown, regions)]


def _shrink(frame_bgr: NDArray[np.uint8], scale: float) -> NDArray[np.uint8]:
    """The frame at ``scale`` (at most 1), by pixel area. A frame four times too big (4K)
    is halved twice by 2x2 means instead: within one grey level of ``INTER_AREA``, four
    times faster."""
    if scale >= 1:
        return frame_bgr
    if scale != 0.25:
        return cv2.resize(frame_bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    # At exactly half size, INTER_LINEAR samples between each 2x2 block's pixels: their mean.
    half = cv2.resize(frame_bgr, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_LINEAR)
    return cv2.resize(half, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_LINEAR)


def _split_rows(regions: list[Region], quads: list[CardQuad], scale: float) -> list[CardQuad]:
    """The cards of the regions, apart from every card found, that are rows of cards lying edge to edge."""
    if not regions or not quads:
        return []
    corners = np.array([r.corners_xy for r in regions], np.float32)
    centres = corners.mean(axis=1, keepdims=True)
    offsets = corners - centres
    corners = (centres + offsets * (1 + 1.41 / np.maximum(np.linalg.norm(offsets, axis=2, keepdims=True), 1e-6))) / scale
    found = np.array([q.corners_xy for q in quads], np.float32)
    lengths = np.linalg.norm(corners - np.roll(corners, -1, axis=1), axis=2)
    smallest = float(np.min([q.size_wh[0] * q.size_wh[1] for q in quads]))
    big = (lengths[:, 0] + lengths[:, 2]) * (lengths[:, 1] + lengths[:, 3]) / 4 > 1.5 * smallest  # two cards or more
    apart = big & ~points_inside(found, corners.mean(axis=1)).any(axis=0) & ~points_inside(corners, found.mean(axis=1)).any(axis=1)
    cards = []
    for k in np.flatnonzero(apart):
        typical = typical_near(quads, tuple(corners[k].mean(axis=0)))
        cards.extend(CardQuad(part, fill) for part, fill in _split_row(corners[k], regions[k].fill, typical))
    return cards


def _split_row(corners_xy: NDArray[np.float32], fill: float, typical: Typical | None) -> list[tuple[NDArray[np.float32], float]]:
    """The cards of a region that is a row of cards lying edge to edge, cut by the cards' size.

    A row of k touching cards is about k short sides long and one long side wide, with the
    long sides of the cards around it running across it; any other region gives none.
    """
    if typical is None or typical.long_axis is None:
        return []
    ordered = order_corners(corners_xy)
    a, b, _, d = ordered  # a-b is a short edge of the region; the cards follow one another from a-b to d-c
    across, along = float(np.linalg.norm(b - a)), float(np.linalg.norm(d - a))
    count = int(round(along / typical.short))
    is_row = (
        count >= 2
        and abs(float(unit(b - a) @ typical.long_axis)) > 0.94
        and abs(across / typical.long - 1) < 0.15
        and abs(along / (count * typical.short) - 1) < 0.12
    )
    if not is_row:
        return []
    return [(part, fill) for part in cut_across(ordered, np.linspace(0.0, 1.0, count + 1).tolist())]
