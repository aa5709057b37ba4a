"""Read one rectified card: its symbols, their shapes and colours, and the card's criteria.

The flow is ``balance_card`` (white balance and light field from the card's own paper),
``find_blobs`` (ink segmentation, one blob per symbol), then a shape and a colour for
each blob and the criteria for the card. Every step reports its doubts, and the card's
confidence is the weakest of them, so that a person can be asked to look at exactly the
cards that may be misread.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.cards import Colour, Criteria, InvalidCardError, Shape
from vision.blobs import _MIN_EXTENT, FAINT_FRAME, WASHED_MIDDLE, Blob
from vision.colours import COLOUR_ORDER, bgr_to_lab, classify_colours, colour_scores
from vision.covered import CIRCUMRADIUS_PER_EXTENT, explained_shares
from vision.glare_colours import glare_colour_weights, shipped_model
from vision.records import CardReading, SymbolReading
from vision.shapes import SHAPE_ORDER, classify_shapes, shape_scores
from vision.symbols import HIDDEN, SHAPELESS, STRAY, UNCLEAR_PIECE, WASHED, Segmentation, edge_band, find_blobs
from vision.washed import UNGLARED, WASHED_NOISE, WIDE_GLARE, _closed, measured_unglared
from vision.whitebalance import CELL_PX, CLIPPED_LEVEL, PAPER_LEVEL, BalancedCard, balance_card, shade_balanced

__all__ = ["glare_colour_inputs", "read_card", "WORK_SHORT_SIDE", "to_working_size", "PRINTED_NUMBER", "PRINT_MARGIN",
           "more_marks_than_a_card"]

# Cards are read at this short side (pixels); the smallest symbol then spans 12 pixels.
WORK_SHORT_SIDE = 80
_MIN_INPUT_SIDE = 16
_MIN_ASPECT, _MAX_ASPECT, _TYPICAL_ASPECT = 1.3, 1.65, 1.47

# Paper darker than this in every channel: a phone screen when no mark is a symbol,
# otherwise a card in a deep shadow (read, but with a doubt).
_MIN_PAPER_LEVEL = 55.0
# Not a face: paper noisier than this (wood, cloth, a printed pattern), more marks than this.
_MAX_PAPER_NOISE = 0.15
# Paper up to this noisy is still a face when at least _TEXTURE_SYMBOLS marks fit a shape:
# a shadow edge, an occluder or a dim card's amplified sensor noise raise a face's noise,
# while texture breaks into specks. On dev quads noisier than _MAX_PAPER_NOISE, every
# non-face showed at most one mark, fitting no shape; the faces (0.16, 0.24) two or more.
_MAX_NOISE_WITH_SYMBOLS = 0.3
_TEXTURE_SYMBOLS = 2
# A face shows at least this share of plain paper (its symbols cover at most about half).
_MIN_PAPER_SHARE = 0.35
_MAX_MARKS = 14
_MOST_SYMBOLS = 9  # a card prints 1 to 9 symbols (``referee.cards.Criteria``)
_TOO_MANY_MARKS = f"a card has at most {_MOST_SYMBOLS} symbols"
# A point card's printed number has a hole, or fits no shape better than _NUMBER_FIT while
# being a stroke thinner than _STROKE or less solid than _NUMBER_SOLIDITY. A star is never
# that solid, so a thick mark best read as a star needs only to fit at all (_POOR_FIT): on
# dev renders digits read as stars fit below 1e-5, stars stretched or blurred down to 0.11.
_NUMBER_FIT = 0.25
_STROKE = 0.34
# A mark read as a bar passes as a thinner stroke, from _BAR_STROKE, where solider than _BAR_SOLIDITY:
# on six hard and two medium dev sets, bars on symbol cards whose outline a shadow edge or glare
# bent out of a bar's fit showed 0.22 to 0.67 (median 0.37), solidity 0.9 or more in three of four
# (four cards with three to five such bars were refused as point cards); a point card's 1 is as
# thick but never that solid (0.80 at most of 225, its flag), its frame's pieces thinner (0.07 to
# 0.15); from 0.86, a square of a checked cloth and wood grain beside a hand (0.87, 0.88) passed too.
_BAR_STROKE, _BAR_SOLIDITY = 0.2, 0.9
_NUMBER_SOLIDITY = 0.82
# A star that glare or a shadow bit into fits no shape, yet still repeats every fifth of a turn,
# and hardly every third or fourth (``vision.shapes.angular_harmonics``: c3 below, c4 below, c5 at
# least these). On eight dev sets, 2,363 quads refused as printed numbers: the stars of the symbol
# cards among them (5, one in full view: fresh dev hard 640 card 9, a yellow star half washed
# out) and of symbol cards held in a hand (2) showed c3 0.02-0.1, c4 0.02-0.48, c5 1.73-1.99; the
# point cards' digits as fivefold (c5 1.5 or more) c3 0.43 or more where c4 was below 0.85.
_STAR_HARMONICS = (0.3, 0.7, 1.5)
_SOLID_FILL = 0.9
# A mark fitting no shape passes for another game's symbol only without a hole: a blurred
# digit's hole (0, 4, 6, 8, 9) closes to a few pixels (fill 0.90-0.99 on point cards blurred
# 0.5-2 px), while every symbol on the real photos but one (fitting 0.02, holed 0.84) is whole.
# Unless glare may have washed the hole (``_may_hole``): a glare spot inside a large symbol
# leaves one as small (a hard dev card's one triangle, fill 0.92, was refused).
_NO_HOLE = 0.995
_POOR_FIT = 0.05
# Pieces of a mark that one outline of the absorbed light holds (``_unglared``) whose outline
# fits no shape, glare's core having bitten into it, are one symbol where the outline is this
# solid and its convex hull fits a shape: large triangles so bitten on medium renders showed
# solidity 0.65 and 0.76 (read as three and two before).
_BITTEN_SOLIDITY = 0.6
# A card prints all its symbols at one size, so a mark smaller than _VOTING_SIZE of the
# card's largest mark (a point card's small corner number, a speck, a fragment) has no say
# in the printed-number check: on dev quads such marks were symbol-like only beside a digit.
_VOTING_SIZE = 0.4
# A point card prints its value small in two opposite corners too, the same glyph turned half
# a turn about the card's centre. Two marks of one shape and about one size (within
# _CORNER_ALIKE), smaller than _CORNER_SIZE of the largest, off both of the card's middle lines
# by _CORNER_OFF of its width and height, each where the other turned half a turn lies (within
# _CORNER_AT short sides), are such numbers: they have no say either, however large they are
# printed (blurred, a small 4's hole closes and it reads as a solid triangle), when besides
# them no more marks vote than a big number has digits. Symbols printed at one size measure
# apart by their shape (a square spans 0.71 of a circle): a symbol card's two squares so
# placed beside a circle and two stars fitting no shape were refused at _CORNER_SIZE 0.75.
_CORNER_SIZE = 0.6
_NUMBER_DIGITS = 2
_CORNER_ALIKE = 0.15
_CORNER_OFF = 0.1
_CORNER_AT = 0.1
_SOFTMAX_SLOPE = 12.0
# A blue read whose runner-up is black is far surer than its softmax weight says: the blue inks
# under dim or warm light (L 45-50, chroma about 30, hue 260-270) keep black's score within a
# few units (black's lightness and chroma limits are wide for blacks in shadow and glare). On
# eight dev sets (medium and hard, 61,000 symbols on cards in full view) 1009 blues so read
# with a weight below 0.983 (below _SURE by _SOFTMAX_SLOPE) were all blue but two, both of weight
# below 0.7; a black read with blue the runner-up was wrong 2 times in 15, and keeps the slope.
_BLUE_OVER_BLACK_SLOPE = 2.5
# A symbol's shape or colour less sure than this (calibrated) is doubted where it decides its card's triple.
_SURE = 0.8
# A colour the glare colour model reads where the rules read another weighs no more than this: doubted.
_DISAGREED = 0.5
# The symbols read with doubt are judged together over at most this many combinations of what they may be.
_MOST_COMBINATIONS = 256
# A colour or shape of this softmax weight in any reading of a symbol is one it may be.
_POSSIBLE_WEIGHT = 0.005
# Glare washing out more than this share of the paper, gaps below this share of the short side.
_GLARE_SHARE = 0.02
# Glare can hide a symbol altogether only where the camera clipped: with less of the card
# clipped than this (the smallest symbol covers about 1.2%) the glare is only a mild doubt
# (the washed-out symbols it leaves are read, or doubted on their own).
_HIDING_SHARE = 0.01
_MILD_GLARE = 0.6
# Glare on a card too noisy for the search for washed-out symbols (``vision.washed.WASHED_NOISE``)
# may have washed one out unseen, clipped or not: dev medium2 290, a green bar gone under glare on
# a card of noise 0.09, was read surely once a cover over its margin no longer doubted it. On four
# dev sets (hard, hard2, medium, medium2) 2 cards read right were doubted so, and none read wrong.
_NOISY_GLARE = 0.45
# A symbol glare hides lies in a patch the camera clipped, inside the area symbols are
# printed in (they keep PRINT_MARGIN of the short side off every edge) and clear of the
# symbols found. Glare is only a mild doubt when no such patch holds a disk of radius
# _HIDING_RADIUS (short sides): on fresh renders every card missing a symbol under glare
# had a patch holding 0.077 or more (the smallest symbol is 0.15 across), while cards read
# right often showed the clip along the edge or around the symbols found (up to 0.05:
# 11 of the 36 whose only strong doubt was glare).
PRINT_MARGIN = 0.075
_HIDING_RADIUS = 0.05
# Glare the camera did not clip still hides a pale symbol (a yellow one) where it brightens the
# paper _WASHED_OUT times or more over room for a disk of radius _WASHED_ROOM (a symbol with the
# glare's fall-off around it): dev medium 032 card 5 and dev hard 657 card 0 lost a yellow symbol
# so (room 0.215 and 0.191). On eight dev sets (11,738 cards in view) 10 cards read surely under
# unclipped glare showed 0.15 or more, those two wrong; 0.12 took in 24, 0.1 36 (the same two wrong).
_WASHED_OUT, _WASHED_ROOM = 1.5, 0.15
# Something lying over a card (a hand, a sleeve, a mug's rim) crosses the plain paper along its
# edge, where no symbol is printed: ink (a quarter of the paper's level) filling a stretch of the
# band from _EDGE_BAND[0] to _EDGE_BAND[1] short sides in (a printed frame line, thinner than
# _COVER_WIDE, is opened away; the rounded corners, _CORNER_CUT short sides, left out) over more than
# _EDGE_COVERED of it. On val29 hard renders 2 of the 3 cards read surely and wrongly showed 0.19
# (a hand over a symbol at the edge); of the cards read right and surely, 8 in 700 showed more
# than 0.1. On ten dev sets the cards read surely and wrongly fell from 8 to 4 with it.
_EDGE_BAND = (0.03, 0.065)
_COVER_INK = 0.25
_COVER_WIDE = 0.03
_CORNER_CUT = 0.12
_EDGE_COVERED = 0.1
# A cover over the edge band hides a symbol (or part of one) only where it reaches into the
# printed area (PRINT_MARGIN in) with room, off the symbols found (_SYMBOL_PAD short sides
# round each one's disk), for a disk of radius _COVER_REACH: some 0.08 short sides of a symbol
# (0.15 across at the least) under it. On 200 dev hard photos, of the cards whose only strong
# doubt was such a cover with no blob joined to it, 16 read right stood under 0.04 and none
# read wrong (the wrong ones reached 0.05 and more; on 150 dev medium photos 5 right, 0 wrong).
# A cover over the margin alone still says a hand lies at the card (``CardReading.edge_covered``).
# On six dev sets (1,050 photos) the right reads doubted fell (hard 16.8 -> 15.5%, medium 5.4 ->
# 5.1%) and no misread was left sure but one, which _NOISY_GLARE doubts.
_COVER_REACH = 0.04
_SYMBOL_PAD = 0.02
# A warm reading (what a warm lamp's glare leaves of a black, green or red symbol: yellow,
# or a black's brown read as red) paler than any print of that colour (chroma below its
# floor less its spread: yellow 70 - 14, red 55 - 16) on a card a glare spot brightens is
# taken for a symbol glare washed out, as if the faint-mark search had found it (``WASHED``,
# see ``_colours``), when it is the card's only such mark. On fresh renders the lone ones
# on cards whose other symbols show one colour were black, green or blue; a card with two
# (and a washed one) had them all yellow, one with three all red.
_PALE_CHROMA = {Colour.YELLOW: 56.0, Colour.RED: 39.0}
# A yellow print read with glare's light taken off (``Blob.through_glare_bgr``) keeps at least
# this chroma: on fresh renders the yellows so read showed 61 or more, the greens, blacks and
# reds a warm lamp's glare turned yellow 57 at most (what is left of them absorbs in blue alone).
_THROUGH_YELLOW = 59.0
# A symbol washed out by glare (``WASHED``) takes its colour read with glare's light taken off
# where that reading's softmax weight reaches this, however sure its restored balanced colour:
# dividing by paper that a warm lamp's glare tints leaves a washed blue pink (read red) or
# pale (read yellow). On 245 glare cards of three dev hard sets cut at their true corners, of
# the 59 washed marks so read with a weight of 0.8 or more, 46 were right and 30 by their
# balanced colours; of the 8 below 0.8, 3 and 4 (a black read red).
_WASHED_THROUGH = 0.8
# Glare pales any ink towards the lamp's colour: a red's pink, a black's brown, a blue's
# magenta under a warm lamp, a yellow's orange all read red then (fresh renders), but a green
# never did (it pales to yellow).
_PALED_RED_FROM = frozenset(set(Colour) - {Colour.GREEN})
# A washed-out mark of unknown shape (``SHAPELESS``) keeps its own colour, restored, when it
# reads a print colour other than yellow this surely (``_colour_surety``): of 26 such marks on
# fresh renders, the 10 so sure were of that colour but one (a blue read red), while the
# colours the card's other symbols show gave 4 of them their own.
_OWN_COLOUR = 0.7
_NEAR_GAP = 0.02
# A near-square crop read one way with marks fitting the shapes this well (mean log fit) is
# not read the other way too: on dev renders the other way never scored above -1.09 then.
_SURE_SCORE = -0.5

# A card read stretched (a quad with a corner cut or a side too long, or a warp that took a
# foreshortened aspect) shows it in its symbols: every shape but the bar spreads its ink
# alike in every direction, so their elongations (``_elongation``, 0 for round) agree. Marks
# more elongated than _ROUND_MAX (a bar is 0.72 or more, a circle stretched by half 0.38)
# are not counted; at least _STRETCH_MARKS marks, and most of those counted, must lie within
# _STRETCH_AGREE of their median, which must reach _STRETCH_MIN (about 13% longer one way)
# for the card's marks to be measured again with the stretch taken off. On fresh hard
# renders, cards read right showed up to 0.1-0.15 (a foreshortened warp), the misread
# stretched ones 0.2-0.45.
_ROUND_MAX = 0.55
_STRETCH_MARKS = 2
_STRETCH_AGREE = 0.15
_STRETCH_MIN = 0.12
# A card stretched this much is doubted however its marks then fit: its quad is off and may
# cut a symbol (on fresh hard renders, two thirds of such cards were misread, mostly so).
_STRETCH_DOUBT = 0.2
STRETCHED = "the card's symbols look stretched (its outline may be off)"
# ... unless the stretch is the view's foreshortening, which the warp kept (``to_working_size``
# keeps a quad's aspect within the card range and its slack): along the card's short side
# (within _ALONG_AXIS degrees) on a warp shorter than any card (cards are _CARD_ASPECTS), or
# along its long side on one longer than any card; the quad then holds the whole card. A quad
# cut short or too long shows another stretch. On 550 dev photos (hard, a second hard set,
# medium; cards three quarters in view) the cards doubted for such a stretch alone were 18, all
# read right; of the 37 misread cards showing a stretch, one showed such a stretch (a symbol
# under something over its edge, doubted for that too).
_CARD_ASPECTS = (1.35, 1.6)
_ALONG_AXIS = 10.0
# A mark measured again is the same mark when their centres lie within this share of its extent.
_SAME_MARK = 0.25

# A partly hidden piece read as a bar that fits a bar this well (``classify_shapes``'s fit)
# is one: straight-sided, square-ended, of a bar's proportions (a bar cut short). On fresh
# renders the pieces so read that fitted 0.33-0.96 were bars but for a triangle's cut base
# (0.52) and a piece of no symbol; of those fitting less, a quarter were bars.
_PLAIN_BAR = 0.3
# A piece of a symbol partly hidden fitting a star poorly (below _POOR_FIT) is no star when
# its solidity with the dents its cover fills (``Blob.covered_dents``) reaches this: a
# star's notches on paper stay. On fresh hard renders such pieces of stars reached 0.87,
# while pieces of other shapes read as stars reached up to 0.98 (half of them above 0.88).
_NO_STAR_SOLIDITY = 0.88
# A shape explains a hidden piece (``_explained``) when laid over it, it leaves at most
# 1 - _EXPLAINS of its ink's area outside or on paper; shapes within _EXPLAINED_TIE of the
# best explain it alike. On fresh hard renders, of 217 pieces (134 read right before), 157
# were read right so, 30 newly, 7 no longer (with no floor: 159, 39 and 14; a tie of 0.02:
# 152; of 0.1: 147).
_EXPLAINS = 0.85
_EXPLAINED_TIE = 0.05

# A card prints at most _MOST_SYMBOLS symbols. Marks that are plainly pieces of the card's
# printed frame are dropped: bar-like (elongation at least _FRAME_LINE, a printed bar's is
# 0.72 or more), lying along a side with their centre within _FRAME_ZONE of it (share of the
# short side; symbols keep well off the edge) and fitting no shape (fit below _POOR_FIT). On a
# dim, noisy card a faint frame line breaks into such pieces: on the one fresh card read with
# too many marks whose outline was right, four pieces 5-6 px in (of 80), elongated 0.89-0.98,
# fitting 0.001 or less (its symbols 0.0-0.42). On fresh renders 3 false marks on cards of
# 3-5 symbols were such pieces (a frame line or the table along a side, 4-5 px in); no
# symbol read was (the nearest such mark lay 17 px in).
_MOST_SYMBOLS = 9
_FRAME_LINE = 0.8
_FRAME_ZONE = 0.1
FRAME_PIECES = "marks along the card's edge taken for pieces of its printed frame"

# Confidence of a reading flagged for each kind of doubt. A blob smaller than any symbol is
# printed but above the size limit is mostly a symbol glare or blur left small; a speck taken
# for one fits no shape, doubted on its own: on 400 hard dev photos, of the cards in view whose
# only doubt was such a blob 23 were read right and none wrong (every misread card showing one
# also showed a mark fitting no shape).
_DOUBT_CONFIDENCE = {
    "small blob near the size limit": 0.6,
    "large blob near the size limit": 0.5,
    "blob split at its own ink level": 0.3,
    "faint blob near the ink threshold": 0.35,
    WASHED: 0.45,
    SHAPELESS: 0.35,
    STRETCHED: 0.45,
    UNCLEAR_PIECE: 0.4,
    STRAY: 0.45,
    HIDDEN: 0.35,
    FRAME_PIECES: 0.45,
    WASHED_MIDDLE: 0.4,
    UNGLARED: 0.45,
    FAINT_FRAME: 0.6,
}


def to_working_size(card_bgr: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], tuple[float, float]]:
    """Resize a card so that its short side is ``WORK_SHORT_SIDE``.

    The long side is rounded to a multiple of the white-balance grid cell (an aspect
    change of at most 4%, harmless to the shape features). An input whose aspect lies
    outside the card range (1.35-1.6, with a little slack) is stretched to a typical card's
    aspect: its quad was measured on a foreshortened view.

    Parameters
    ----------
    card_bgr : ndarray (H, W, 3) uint8

    Returns
    -------
    work_bgr : ndarray (h, w, 3) uint8
    scale_xy : (float, float), working pixels per input pixel along x and y
    """
    height, width = card_bgr.shape[:2]
    short = min(height, width)
    aspect = max(height, width) / short
    if not _MIN_ASPECT <= aspect <= _MAX_ASPECT:
        # A quad warped with foreshortened sides (a tilted view): cards are 1.35-1.6, so
        # restore a typical card's proportions rather than read squashed symbols.
        aspect = _TYPICAL_ASPECT
    long_work = max(CELL_PX, round(aspect * WORK_SHORT_SIDE / CELL_PX) * CELL_PX)
    size_wh = (WORK_SHORT_SIDE, long_work) if width <= height else (long_work, WORK_SHORT_SIDE)
    image = card_bgr
    factor = min(width // size_wh[0], height // size_wh[1])
    if factor >= 2:
        # Integer-factor area averaging is fast and keeps the noise down; the rest is linear.
        image = image[: height - height % factor, : width - width % factor]
        image = cv2.resize(image, None, fx=1.0 / factor, fy=1.0 / factor, interpolation=cv2.INTER_AREA)
    if image.shape[:2] != (size_wh[1], size_wh[0]):
        image = cv2.resize(image, size_wh, interpolation=cv2.INTER_LINEAR)
    return image, (size_wh[0] / width, size_wh[1] / height)


def _check_input(card_bgr: object) -> None:
    if not isinstance(card_bgr, np.ndarray):
        raise ValueError(f"card_bgr must be a numpy array, got {type(card_bgr).__name__}")
    if card_bgr.dtype != np.uint8 or card_bgr.ndim != 3 or card_bgr.shape[2] != 3:
        raise ValueError(f"card_bgr must be (H, W, 3) uint8, got {card_bgr.shape} {card_bgr.dtype}")
    if min(card_bgr.shape[:2]) < _MIN_INPUT_SIDE:
        raise ValueError(
            f"card_bgr is too small to read: expected a short side >= {_MIN_INPUT_SIDE} px, "
            f"got {card_bgr.shape[1]}x{card_bgr.shape[0]}"
        )


# The reason a card whose marks are a printed number (a point card) is no face.
PRINTED_NUMBER = "its marks are no symbol shapes (a printed number?)"


def _not_face(reason: str, confidence: float = 0.9) -> CardReading:
    return CardReading(symbols=(), criteria=None, confidence=confidence, is_face=False, reason=reason)


def _paper_problem(card: BalancedCard, min_paper: float = _MIN_PAPER_SHARE) -> str:
    """Why this card's background is no face's paper (a back, a phone, wood), or ''; a face
    shows plain paper over ``min_paper`` of it at least. Decided before any segmentation: most
    cards in the pool are face down."""
    b, g, r = (float(v) for v in card.paper_bgr)
    brightest = max(b, g, r)
    saturation = (brightest - min(b, g, r)) / max(brightest, 1.0)
    paper_fraction = cv2.countNonZero(card.paper_mask) / card.paper_mask.size
    if saturation > 0.85:
        return f"background is strongly coloured (saturation {saturation:.2f}), not white paper"
    if paper_fraction < min_paper:
        return f"too little plain paper ({paper_fraction:.0%}) for a card face"
    if card.noise > _MAX_NOISE_WITH_SYMBOLS:
        return _textured(card)
    return ""


def _textured(card: BalancedCard) -> str:
    return f"background is textured (noise {card.noise:.2f}), not a card face"


def _marks_problem(seg: Segmentation) -> str:
    """Why these marks cannot be a face's symbols, or ''."""
    if not seg.blobs:
        return "no symbols found"
    if len(seg.blobs) > _MAX_MARKS:
        return f"{len(seg.blobs)} marks found, {_TOO_MANY_MARKS}"
    return ""


def more_marks_than_a_card(reading: CardReading) -> bool:
    """Whether a reading shows more marks than a card prints symbols: read as symbols (an
    impossible reading) or as too many for a face."""
    return reading.criteria is None and (len(reading.symbols) > _MOST_SYMBOLS or reading.reason.endswith(_TOO_MANY_MARKS))


def _looks_like_number(seg: Segmentation, shapes: list[Shape], fit: NDArray[np.float64], card: BalancedCard) -> bool:
    """A point card or another printed thing: most marks are no symbol. A mark is
    symbol-like when it fits a shape, or at least is a solid, compact, convex-ish blob
    (other games' symbols); a printed digit has a hole (0, 6, 8, 9), is a thin stroke or is
    far from convex (1, 2, 3, 4, 5, 7) without fitting a star; a printed frame breaks into
    thin pieces. Marks much smaller than the largest do not vote (a point card's corner
    numbers blur into small solid blobs; larger ones in opposite corners, see
    ``_corner_numbers``), nor do marks of unknown shape (``HIDDEN``: a piece cut free at the
    edge says nothing of what is printed). ``card``: the balanced card the marks were found on."""
    symbol_like, voting = _symbol_like(seg, shapes, fit, card)
    return voting > 0 and (2 * symbol_like < voting or symbol_like == 0)


def _symbol_like(seg: Segmentation, shapes: list[Shape], fit: NDArray[np.float64],
                 card: BalancedCard) -> tuple[int, int]:
    """How many of the marks that vote in ``_looks_like_number`` are symbol-like, and how many vote."""
    known = [(blob, shape, f) for blob, shape, f in zip(seg.blobs, shapes, fit) if HIDDEN not in blob.doubt]
    if not known:
        return 0, 0
    largest = max(blob.extent for blob, _, _ in known)
    sized = [i for i, (blob, _, _) in enumerate(known) if blob.extent >= _VOTING_SIZE * largest]
    corners = _corner_numbers([blob for blob, _, _ in known], [shape for _, shape, _ in known], largest,
                              card.ink.shape[::-1])
    besides = [i for i in sized if i not in corners]
    voting = [known[i] for i in (besides if len(besides) <= _NUMBER_DIGITS else sized)]
    holes_of_glare = _may_hole(card)
    symbol_like = sum(
        1 for blob, shape, f in voting
        if blob.fill >= _SOLID_FILL and (f >= _NUMBER_FIT or (
            (blob.fill >= _NO_HOLE or holes_of_glare) and (_solid_bar(blob, shape) or (
                blob.features.thickness >= _STROKE
                and (blob.features.solidity >= _NUMBER_SOLIDITY or (shape is Shape.STAR and f >= _POOR_FIT)))))
            or _fivefold(blob))
    )
    return symbol_like, len(voting)


def _fivefold(blob: Blob) -> bool:
    """Whether a mark repeats as a star does, whatever its outline (``_STAR_HARMONICS``)."""
    harmonics = blob.features.harmonics
    if harmonics is None:
        return False
    c3, c4, c5 = harmonics
    most_c3, most_c4, least_c5 = _STAR_HARMONICS
    return c3 < most_c3 and c4 < most_c4 and c5 >= least_c5


def _solid_bar(blob: Blob, shape: Shape) -> bool:
    """Is this mark a bar, however poorly it fits one: read as a bar, thick and solid enough (``_BAR_STROKE``)?"""
    return shape is Shape.BAR and blob.features.thickness >= _BAR_STROKE and blob.features.solidity >= _BAR_SOLIDITY


def _corner_numbers(blobs: list[Blob], shapes: list[Shape], largest: float, size_wh: tuple[int, int]) -> set[int]:
    """Which of these marks are a point card's corner numbers (see ``_CORNER_SIZE``), by index."""
    width, height = size_wh
    mid_x, mid_y = 0.5 * (width - 1), 0.5 * (height - 1)
    small = [i for i, blob in enumerate(blobs) if blob.extent <= _CORNER_SIZE * largest
             and abs(blob.center_xy[0] - mid_x) >= _CORNER_OFF * width
             and abs(blob.center_xy[1] - mid_y) >= _CORNER_OFF * height]
    pairs: set[int] = set()
    for k, i in enumerate(small):
        for j in small[k + 1:]:
            (ax, ay), (bx, by) = blobs[i].center_xy, blobs[j].center_xy
            sizes = (blobs[i].extent, blobs[j].extent)
            alike = shapes[i] is shapes[j] and max(sizes) - min(sizes) <= _CORNER_ALIKE * max(sizes)
            if alike and math.hypot(ax + bx - 2 * mid_x, ay + by - 2 * mid_y) <= _CORNER_AT * min(width, height):
                pairs |= {i, j}
    return pairs


def _washed_middles(seg: Segmentation,
                    card: BalancedCard) -> tuple[Segmentation, list[Shape], NDArray[np.float64], NDArray[np.float64]] | None:
    """The marks read with each one that may be a symbol whose middle glare washed out
    taken as its convex hull (``Blob.washed_hull``: the hull is tinted inside in the mark's
    own hue, where a printed digit's is plain paper) and fits a shape, with their shapes,
    confidences and fits; None when no mark may be one, or when the marks so read are not
    all symbol-like (a doubtful reading is taken only where it explains every mark: glare
    washes a digit's strokes pale and tinted too, and a piece of one may fit a bar)."""
    hulls = [i for i, blob in enumerate(seg.blobs) if blob.washed_hull is not None]
    if not hulls:
        return None
    wholes = [seg.blobs[i].washed_hull for i in hulls]
    _, _, whole_fit = classify_shapes(np.stack([blob.features.as_array() for blob in wholes]),
                                      np.array([blob.extent for blob in wholes]))
    # (any solid convex mark passes for another game's symbol: a hull must fit a shape)
    fitting = [(i, whole) for i, whole, f in zip(hulls, wholes, whole_fit) if f >= _NUMBER_FIT]
    if not fitting:
        return None
    blobs = list(seg.blobs)
    for i, whole in fitting:
        blobs[i] = whole
    shapes, confidence, fit = classify_shapes(np.stack([blob.features.as_array() for blob in blobs]),
                                              np.array([blob.extent for blob in blobs]))
    seg = replace(seg, blobs=tuple(blobs))
    symbol_like, voting = _symbol_like(seg, shapes, fit, card)
    return (seg, shapes, confidence, fit) if symbol_like == voting else None


def _calibrated(weight: float, slope: float = _SOFTMAX_SLOPE) -> float:
    """Confidence from a class's softmax weight. The shape and colour models are sharp, so a
    weight of 0.95 already means a real chance of error (on rendered dev cards, every
    misread symbol had a weight below 0.96, and almost no correct one did)."""
    return min(1.0, max(0.0, 1.0 - slope * (1.0 - float(weight))))


def _colour_sure(blob: Blob, colour: Colour, weight: float, inks: Any) -> float:
    """:func:`_calibrated` for a symbol's colour, with a blue whose runner-up (on its mean
    colour) is black calibrated by ``_BLUE_OVER_BLACK_SLOPE``."""
    sure = _calibrated(weight)
    if sure >= _SURE or colour is not Colour.BLUE:
        return sure
    scores = colour_scores(bgr_to_lab(blob.mean_bgr[None]), inks)[0]
    scores[COLOUR_ORDER.index(colour)] = -np.inf
    if COLOUR_ORDER[int(np.argmax(scores))] is not Colour.BLACK:
        return sure
    return _calibrated(weight, _BLUE_OVER_BLACK_SLOPE)


def _colours(seg: Segmentation, inks: Any,
             glare_spot: bool = False) -> tuple[list[Colour], NDArray[np.float64], NDArray[np.float64]]:
    """``classify_colours`` of the blobs. A blob under glare has two readings, divided by the
    paper (right where a lamp's hot spot multiplies the light) and with glare's added light
    taken off (right where glare adds it): the surer one is kept, where the two disagree no
    more surely than the core's own reading (a thin blue bar in a dim warm light read a sure
    black with glare's light taken off, its core a doubtful blue). Before that, the colour of
    the part of its core glare brightens least (``Blob.least_glared_bgr``: a black washed to
    a brown that reads as red keeps its black on the side away from the glare) is kept where
    surer than the whole core's, with no more confidence than the whole core's (the two
    disagree). A washed-out mark of
    unknown shape takes a colour the card's other symbols show (see ``_as_shown``) unless it
    plainly reads one other than yellow (``_OWN_COLOUR``), and so
    does a symbol washed out by glare read as yellow on a card whose other symbols show a
    single colour: glare washes out first the channels it brightens most, which a warm
    lamp's light clips (red, then green), so what is left of a black, red, green or yellow
    symbol alike absorbs in blue alone. Its own reading then says nothing, and a symbol
    most often repeats its card's colour; but where the other symbols show several
    colours the card varies its colours, and a yellow reading is as likely the symbol's
    own (the symbols this fixed on fresh renders were all on cards whose other symbols
    show one colour; one it broke was a yellow on a card showing every other colour).
    On a card that a glare spot brightens (``glare_spot``), a symbol the ink thresholds found
    whole but read as a yellow or red paler than any print (``_PALE_CHROMA``) counts as
    washed out too, when no other mark on the card reads so; so does a washed-out symbol
    read as red (a black's brown under a warm lamp). A yellow reading that stays paler than
    any yellow print with glare's light taken off (``_THROUGH_YELLOW``) is what the glare left
    of another ink: it takes a colour the card's other symbols show, however many. A symbol
    washed out by glare keeps its colour with glare's light taken off where that reading is
    fairly sure (``_WASHED_THROUGH``), even if its balanced one is surer."""
    lab = bgr_to_lab(np.stack([blob.mean_bgr for blob in seg.blobs]))
    colours, confidence, fit = classify_colours(lab, inks)
    # (a reading the whole core doubts stays doubted, whichever colour is kept)
    doubted_confidence, doubted_fit = confidence.copy(), fit.copy()
    overruled = []
    least = [i for i, blob in enumerate(seg.blobs) if blob.least_glared_bgr is not None]
    if least:
        least_lab = bgr_to_lab(np.stack([seg.blobs[i].least_glared_bgr for i in least]))
        other, other_confidence, other_fit = classify_colours(least_lab, inks)
        for k, i in enumerate(least):
            if _colour_surety(other_confidence[k], other_fit[k]) > _colour_surety(confidence[i], fit[i]):
                colours[i], confidence[i], fit[i] = other[k], other_confidence[k], other_fit[k]
                overruled.append(i)
    glared = [i for i, blob in enumerate(seg.blobs) if blob.through_glare_bgr is not None]
    dull_yellow = [False] * len(seg.blobs)
    if glared:
        through_lab = bgr_to_lab(np.stack([seg.blobs[i].through_glare_bgr for i in glared]))
        other, other_confidence, other_fit = classify_colours(through_lab, inks)
        for k, i in enumerate(glared):
            washed_through = WASHED in seg.blobs[i].doubt and other_confidence[k] >= _WASHED_THROUGH
            if washed_through or _colour_surety(other_confidence[k], other_fit[k]) >= _colour_surety(confidence[i], fit[i]):
                if other[k] != colours[i]:
                    overruled.append(i)
                colours[i], confidence[i], fit[i] = other[k], other_confidence[k], other_fit[k]
            dull_yellow[i] = colours[i] == other[k] == Colour.YELLOW \
                and float(np.hypot(*through_lab[k, 1:])) < _THROUGH_YELLOW
    shapeless = [SHAPELESS in blob.doubt for blob in seg.blobs]
    # (a washed-out mark of unknown shape whose restored colour plainly fits a print colour
    # other than the yellow glare leaves of any ink keeps it, but shows no colour for the others)
    own = [guess and colour is not Colour.YELLOW and _colour_surety(weight, fitted) >= _OWN_COLOUR
           for guess, colour, weight, fitted in zip(shapeless, colours, confidence, fit)]
    paler = [glare_spot and colour in _PALE_CHROMA and float(np.hypot(*lab[i, 1:])) < _PALE_CHROMA[colour]
             for i, colour in enumerate(colours)]
    lone = sum(paler) == 1
    pale = [colour in _PALE_CHROMA and (WASHED in blob.doubt or (lone and paler_one))
            for blob, colour, paler_one in zip(seg.blobs, colours, paler)]
    shown = {colour for colour, guess, washed, dull in zip(colours, shapeless, pale, dull_yellow)
             if not (guess or washed or dull)}
    # (a washed-out mark read red takes no green shown: glare never pales a green to red)
    paled_from = [_PALED_RED_FROM if washed and colour is Colour.RED else None for colour, washed in zip(colours, pale)]
    unknown = [(guess and not kept) or (washed and len(shown) == 1 and (paled is None or shown <= paled)) or dull
               for guess, kept, washed, dull, paled in zip(shapeless, own, pale, dull_yellow, paled_from)]
    if any(unknown):
        colours = _as_shown(seg, colours, colour_scores(lab, inks), COLOUR_ORDER, unknown, paled_from)
    confidence[overruled] = np.minimum(confidence[overruled], doubted_confidence[overruled])
    fit[overruled] = np.minimum(fit[overruled], doubted_fit[overruled])
    return colours, confidence, fit


def _colours_on(card: BalancedCard, seg: Segmentation,
                inks: Any) -> tuple[list[Colour], NDArray[np.float64], NDArray[np.float64]]:
    """The marks' colours (``_colours``); on a card that shows glare (``_shows_glare``), as the
    glare colour model reads them from all those readings at once (``vision.glare_colours``: on
    held-out dev renders it read 18 of 3,935 marks' colours wrong where the rules read 31). Its
    colour's weight is its probability, no more than the rules' where they read the same (an ink
    between two print colours stays doubted), and at most ``_DISAGREED`` where they read another:
    the two readings disagree."""
    colours, confidence, fit = _colours(seg, inks, _has_glare_spot(card))
    model = shipped_model() if seg.blobs and _shows_glare(card) else None
    if model is None:
        return colours, confidence, fit
    learned, weight = glare_colour_weights(seg.blobs, card, colours, model)
    agree = np.array([a == b for a, b in zip(learned, colours)])
    return learned, np.minimum(weight, np.where(agree, confidence, _DISAGREED)), fit


def glare_colour_inputs(card_bgr: NDArray[np.uint8]) -> tuple[BalancedCard, Segmentation, list[Colour]] | None:
    """What the glare colour model is given for a rectified card (``read_card``'s input) that shows
    glare: the balanced card, its marks and the colours the rules read for them; None for a card
    showing no glare or no face. For training the model (``vision.train_glare_colours``)."""
    _check_input(card_bgr)
    best = _best_look(card_bgr)
    if best.card is None or best.problem or _marks_problem(best.seg) or not _shows_glare(best.card):
        return None
    return best.card, best.seg, _colours(best.seg, None, _has_glare_spot(best.card))[0]


def _shows_glare(card: BalancedCard) -> bool:
    """Whether glare may have washed out part of a symbol: it brightens a good share of the
    paper, or the camera clipped a channel somewhere on the card (a point card's faint
    brightening, which the paper field leaves, is no glare)."""
    return card.glare > _GLARE_SHARE or card.blind > 0.0 or card.clipped > 0.0


def _may_hole(card: BalancedCard) -> bool:
    """Whether glare may have washed a hole into a symbol: the camera clipped where glare
    brightens the paper, or clipped a symbol's worth of the card (a few clipped pixels are
    only a bright exposure or JPEG's ringing; paper brightened but nowhere clipped leaves a
    symbol's ink whole, and a point card under it showed a blurred 4's pinhole)."""
    return card.blind > 0.0 or card.clipped >= _HIDING_SHARE


def _has_glare_spot(card: BalancedCard) -> bool:
    """Whether a glare spot brightens part of the card, clipping the camera there, but not
    most of it: glare over most of the card pales every symbol alike."""
    return (card.clipped > 0.0 or card.blind > 0.0) and card.glare < WIDE_GLARE


def _hiding_room(card: BalancedCard, seg: Segmentation, short: int, patch: NDArray[np.uint8] | None = None) -> float:
    """The radius (short sides) of the largest disk that fits in ``patch`` (255 where glare may
    hide a symbol; by default where the camera clipped) with its holes filled (a symbol left
    faint inside), where a symbol could lie unseen: inside the printed area (``PRINT_MARGIN``)
    and off the disks (of the mark's extent) of the marks found. Infinite when the card's own
    image was not kept (``BalancedCard.source``)."""
    if card.source is None:
        return math.inf
    height, width = card.source.shape[:2]
    if patch is None:
        brightest = cv2.max(cv2.max(card.source[..., 0], card.source[..., 1]), card.source[..., 2])
        patch = cv2.inRange(brightest, CLIPPED_LEVEL, 255)
    contours, _ = cv2.findContours(patch, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    room = np.zeros((height, width), np.uint8)
    cv2.drawContours(room, contours, -1, 255, -1)
    return _room_off_symbols(room, seg, short)


def _washed_patch(card: BalancedCard) -> NDArray[np.uint8]:
    """255 where glare brightens the paper ``_WASHED_OUT`` times or more (``BalancedCard.wash``,
    at the card's size), 0 elsewhere."""
    height, width = card.ink.shape
    if card.wash is None:
        return np.zeros((height, width), np.uint8)
    wash = cv2.resize(card.wash, (width, height), interpolation=cv2.INTER_LINEAR)
    return cv2.compare(wash, _WASHED_OUT, cv2.CMP_GE)


def _wide_ink(card: BalancedCard) -> NDArray[np.uint8]:
    """1 where ink wider than a printed line lies on the card (a symbol, or a cover over it)."""
    inked = (card.ink > _COVER_INK * PAPER_LEVEL).astype(np.uint8)
    wide = max(3, round(_COVER_WIDE * min(inked.shape)))
    return cv2.morphologyEx(inked, cv2.MORPH_OPEN, np.ones((wide, wide), np.uint8))


def _edge_covered(inked: NDArray[np.uint8]) -> float:
    """The share of the plain band inside a card's edge (``_EDGE_BAND``, the corners left out)
    that something wider than a printed line covers (``inked``: ``_wide_ink``): a hand, a sleeve,
    a mug over the card."""
    height, width = inked.shape
    short = min(height, width)
    outer, inner = (max(1, round(share * short)) for share in _EDGE_BAND)
    band = np.zeros_like(inked)
    band[outer:height - outer, outer:width - outer] = 1
    band[inner:height - inner, inner:width - inner] = 0
    corner = round(_CORNER_CUT * short)
    for ys in (slice(0, corner), slice(height - corner, height)):
        for xs in (slice(0, corner), slice(width - corner, width)):
            band[ys, xs] = 0
    total = cv2.countNonZero(band)
    return cv2.countNonZero(inked & band) / total if total else 0.0


def _cover_reach(inked: NDArray[np.uint8], seg: Segmentation) -> float:
    """The radius (short sides) of the largest disk that fits where the wide ink reaching the
    card's edge band (``inked``: ``_wide_ink``; a cover over the edge, see ``_edge_covered``) lies
    inside the printed area (``PRINT_MARGIN``), off the symbols found: how much room it leaves
    to hide a symbol."""
    height, width = inked.shape
    short = min(height, width)
    _, labels = cv2.connectedComponents(inked, connectivity=8)
    inner = max(1, round(_EDGE_BAND[1] * short))
    at_edge = labels.copy()
    at_edge[inner:height - inner, inner:width - inner] = 0
    room = np.isin(labels, np.unique(at_edge[at_edge > 0])).astype(np.uint8)
    return _room_off_symbols(room, seg, short, _SYMBOL_PAD)


def _room_off_symbols(room: NDArray[np.uint8], seg: Segmentation, short: int, pad: float = 0.0) -> float:
    """The radius (short sides) of the largest disk inside ``room`` (non-zero where a symbol may
    lie unseen; changed in place) within the printed area (``PRINT_MARGIN``) and off the marks
    found (each a disk of its extent, ``pad`` short sides wider)."""
    height, width = room.shape
    margin = round(PRINT_MARGIN * short)
    room[:margin], room[height - margin:], room[:, :margin], room[:, width - margin:] = 0, 0, 0, 0
    for blob in seg.blobs:
        radius = round((0.5 * blob.extent + pad) * short)
        cv2.circle(room, (round(blob.center_xy[0]), round(blob.center_xy[1])), radius, 0, -1)
    return float(cv2.distanceTransform(room, cv2.DIST_L2, 3).max()) / short


def _counts_at_stake(read: list[Any], possible: list[set[Any]]) -> list[bool]:
    """For each symbol, whether its colour or shape (``read``: every symbol's) may decide the
    card's number of colours or shapes: another it may be (``possible``: each symbol's, its
    reading alone where sure) would change that number, whatever the others read with doubt
    turn out to be, or it is none of those.

    Only the number counts: a red read with doubt as maybe black, on a card showing black
    and red elsewhere, leaves two colours whichever it is. Two symbols read with doubt are
    judged together: two greens under glare both read yellow (maybe green) beside green and
    red each leave three colours while the other stays yellow, but both green leave two.
    """
    options = [possible[k] if read[k] in possible[k] else possible[k] | {read[k]} for k in range(len(read))]
    doubted = [k for k, values in enumerate(options) if len(values) > 1]
    if math.prod(len(options[k]) for k in doubted) > _MOST_COMBINATIONS:
        return [len(values) > 1 or read[k] not in possible[k] for k, values in enumerate(options)]
    sure = {value for k, value in enumerate(read) if k not in doubted}
    stake = [read[k] not in possible[k] for k in range(len(read))]
    for i in doubted:
        if stake[i]:
            continue
        others = [options[k] for k in doubted if k != i]
        stake[i] = any(len({len(sure | set(combination) | {value}) for value in options[i]}) > 1
                       for combination in itertools.product(*others))
    return stake


def _possible(scores: NDArray[np.float64], order: tuple[Any, ...]) -> set[Any]:
    """The classes (``order``) of softmax weight ``_POSSIBLE_WEIGHT`` or more in any row of ``scores``."""
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return {order[k] for k in np.flatnonzero((weights >= _POSSIBLE_WEIGHT).any(axis=0))}


def _possible_colours(blob: Blob, inks: Any) -> set[Colour]:
    """The colours a symbol may be: those ``_possible`` in any of its readings (its core,
    and where glare brightens it, its least glared part and its colour with glare's light
    taken off; see ``_colours``)."""
    readings = [bgr for bgr in (blob.mean_bgr, blob.least_glared_bgr, blob.through_glare_bgr) if bgr is not None]
    return _possible(colour_scores(bgr_to_lab(np.stack(readings)), inks), COLOUR_ORDER)


def _possible_shapes(blob: Blob) -> set[Shape]:
    """The shapes a symbol may be: those ``_possible`` for its silhouette."""
    return _possible(shape_scores(blob.features.as_array()[None], np.array([blob.extent])), SHAPE_ORDER)


def _colour_surety(weight: float, fit: float) -> float:
    """How sure a colour reading is: its calibrated softmax weight or its fit, the lower."""
    return min(_calibrated(weight), float(fit))


def _near_pairs(seg: Segmentation, short: int) -> int:
    """How many pairs of blobs are closer than the printed gap allows (two symbols that
    nearly merged, or one symbol broken in two)."""
    blobs = seg.blobs
    if len(blobs) < 2:
        return 0
    reach = [0.5 * b.extent * short for b in blobs]
    near = 0
    for i in range(len(blobs)):
        xi, yi = blobs[i].center_xy
        for j in range(i + 1, len(blobs)):
            xj, yj = blobs[j].center_xy
            if math.hypot(xi - xj, yi - yj) - reach[i] - reach[j] < _NEAR_GAP * short:
                near += 1
    return near


@dataclass(frozen=True)
class _Look:
    """One way of reading a card image: balanced card, blobs and their shapes."""

    card: BalancedCard | None
    seg: Segmentation
    scale_xy: tuple[float, float]
    short: int
    shapes: list[Shape]
    shape_conf: NDArray[np.float64]
    shape_fit: NDArray[np.float64]
    score: float
    problem: str = ""
    # Which marks' shapes are unknown (taken from the card's other symbols).
    unknown: tuple[bool, ...] = ()


def _no_paper(scale_xy: tuple[float, float], min_paper: float) -> _Look:
    empty = np.zeros(0)
    return _Look(None, Segmentation((), 0.0), scale_xy, WORK_SHORT_SIDE, [], empty, empty, -np.inf,
                 f"too little plain paper (< {min_paper:.0%}) for a card face")


def _look(card: BalancedCard | None, scale_xy: tuple[float, float], min_paper: float = _MIN_PAPER_SHARE) -> _Look:
    if card is None:
        return _no_paper(scale_xy, min_paper)
    short = min(card.ink.shape)
    problem = _paper_problem(card, min_paper)
    if problem:
        return _Look(card, Segmentation((), 0.0), scale_xy, short, [], np.zeros(0), np.zeros(0), -np.inf, problem)
    noisy = card.noise > _MAX_PAPER_NOISE
    seg = find_blobs(card)
    if noisy and not seg.blobs:
        return _unshaded(card, scale_xy, min_paper) or _Look(card, seg, scale_xy, short, [], np.zeros(0), np.zeros(0), -np.inf,
                                                             _textured(card))
    if not seg.blobs:
        return _Look(card, seg, scale_xy, short, [], np.zeros(0), np.zeros(0), -np.inf, "")
    features = np.stack([blob.features.as_array() for blob in seg.blobs])
    sizes = np.array([blob.extent for blob in seg.blobs])
    shapes, confidence, fit = classify_shapes(features, sizes)
    if noisy and np.count_nonzero(fit >= _POOR_FIT) < _TEXTURE_SYMBOLS:
        return _unshaded(card, scale_xy, min_paper) or _Look(card, Segmentation((), 0.0), scale_xy, short, [], np.zeros(0),
                                                             np.zeros(0), -np.inf, _textured(card))
    if card.source is not None and _shows_glare(card) and bool((fit < _POOR_FIT).any()):
        seg, shapes, confidence, fit = _unglared(card, seg, shapes, confidence, fit, short)
        features = np.stack([blob.features.as_array() for blob in seg.blobs])
        sizes = np.array([blob.extent for blob in seg.blobs])
    # A symbol partly hidden keeps the shape it shows, unless a bar: a piece cut off along a
    # cover's edge looks like one, whatever it was (on fresh renders, 9 pieces read right so
    # for 2 read wrong, of 71 whose shape the card's other symbols had decided); but not
    # when plainly one (_PLAIN_BAR). Nor a star it fits poorly whose outline on paper is
    # solid (``_NO_STAR_SOLIDITY``): it is another shape, the cover biting into it. A sliver
    # smaller than any whole symbol shows no shape at all.
    starless = [HIDDEN in blob.doubt and shape is Shape.STAR and f < _POOR_FIT
                and blob.features.solidity + blob.covered_dents >= _NO_STAR_SOLIDITY
                for blob, shape, f in zip(seg.blobs, shapes, fit)]
    unknown = tuple(SHAPELESS in blob.doubt or no_star or (HIDDEN in blob.doubt and (
                        (shape is Shape.BAR and f < _PLAIN_BAR) or blob.extent < _MIN_EXTENT))
                    for blob, shape, f, no_star in zip(seg.blobs, shapes, fit, starless))
    pieces = [i for i, blob in enumerate(seg.blobs) if HIDDEN in blob.doubt and blob.view is not None and fit[i] < _POOR_FIT]
    if not any(unknown) and not pieces:
        return _Look(card, seg, scale_xy, short, shapes, confidence, fit, _fit_score(seg, fit), unknown=unknown)
    plain_scores = shape_scores(features, sizes)
    if any(unknown):
        scores = plain_scores.copy()
        scores[np.flatnonzero(starless), SHAPE_ORDER.index(Shape.STAR)] = -np.inf
        shapes = _as_shown(seg, shapes, scores, SHAPE_ORDER, list(unknown))
        # (where the others show only stars: the likeliest other shape)
        shapes = [SHAPE_ORDER[int(np.argmax(scores[i]))] if no_star and shape is Shape.STAR else shape
                  for i, (shape, no_star) in enumerate(zip(shapes, starless))]
    shapes = _explained(seg, shapes, pieces, plain_scores, short)
    return _Look(card, seg, scale_xy, short, shapes, confidence, fit, _fit_score(seg, fit), unknown=unknown)


def _unshaded(card: BalancedCard, scale_xy: tuple[float, float], min_paper: float) -> _Look | None:
    """The look at a card too noisy for paper, its marks no symbols, balanced again against its own
    paper closed (``shade_balanced``), where that leaves it plain: a shadow's sharp edge across it,
    which the light field does not follow, looks as noisy as wood; wood or cloth stays noisy (None)."""
    shaded = shade_balanced(card, _closed(card.balanced_bgr, min(card.ink.shape)))
    return _look(shaded, scale_xy, min_paper) if shaded.noise <= _MAX_PAPER_NOISE else None


def _fit_score(seg: Segmentation, fit: NDArray[np.float64]) -> float:
    """How well the marks fit the shapes: their mean log fit, less the slivers smaller than
    any whole symbol (a piece a cover mostly hides fits no shape, whichever way the card is read)."""
    whole = [f for blob, f in zip(seg.blobs, fit) if blob.extent >= _MIN_EXTENT]
    return float(np.mean(np.log(np.maximum(whole or fit, 1e-12))))


def _explained(seg: Segmentation, shapes: list[Shape], pieces: list[int], scores: NDArray[np.float64],
               short: int) -> list[Shape]:
    """The shapes with each of ``pieces``, the marks that are pieces of a symbol partly hidden
    fitting their shape poorly (``HIDDEN``, below ``_POOR_FIT``), read as a shape whose whole
    outline explains the piece (``vision.covered.explained_shares``, ``_EXPLAINS``) about as
    well as any, laid at the circumradius the card's plain symbols show: its reading where
    that is one of them, otherwise the one of them that the shape features score highest.
    ``scores`` : ndarray (N, 5) float, each mark's ``shape_scores``."""
    radii = [blob.extent * short * CIRCUMRADIUS_PER_EXTENT[shape] for blob, shape in zip(seg.blobs, shapes) if not blob.doubt]
    if not pieces or not radii:
        return shapes
    radius = float(np.median(radii))
    shapes = list(shapes)
    for i in pieces:
        shares = explained_shares(seg.blobs[i].view, radius)
        if shares.max() < _EXPLAINS:
            continue  # (no shape at that size explains it: a symbol printed larger, or no symbol)
        likely = np.flatnonzero(shares >= shares.max() - _EXPLAINED_TIE)
        if SHAPE_ORDER.index(shapes[i]) not in likely:
            shapes[i] = SHAPE_ORDER[int(likely[np.argmax(scores[i, likely])])]
    return shapes


def _as_shown(seg: Segmentation, labels: list[Any], scores: NDArray[np.float64], order: tuple[Any, ...],
              unknown: list[bool] | None = None, could_be: list[Any] | None = None) -> list[Any]:
    """Labels (shapes or colours) with each mark whose label is unknown (``unknown``; by
    default the ``SHAPELESS`` marks) given the likeliest of those the card's other symbols
    show: a washed-out mark (``SHAPELESS``: glare broke its outline and paled it, so only its
    count is sure) or a symbol partly hidden by a cover (``HIDDEN``: its colour is sure, its
    shape not). Most symbols repeat another's shape and colour on their card (76% of the
    symbols of dev cards), and the criteria count distinct shapes and colours.

    ``scores`` : ndarray (N, len(order)) float, each blob's score of each label.
    ``could_be`` : for each mark, the labels it may take (None: any shown), or None for all
    marks."""
    if unknown is None:
        unknown = [SHAPELESS in blob.doubt for blob in seg.blobs]
    shown = sorted({order.index(label) for label, unsure in zip(labels, unknown) if not unsure})
    known = list(labels)
    for i, unsure in enumerate(unknown):
        allowed = shown if could_be is None or could_be[i] is None else [k for k in shown if order[k] in could_be[i]]
        if unsure and allowed:
            known[i] = order[allowed[int(np.argmax(scores[i, allowed]))]]
    return known


def _unglared(card: BalancedCard, seg: Segmentation, shapes: list[Shape], confidence: NDArray[np.float64],
              fit: NDArray[np.float64], short: int
              ) -> tuple[Segmentation, list[Shape], NDArray[np.float64], NDArray[np.float64]]:
    """The marks with those that fit no shape on a card glare brightens measured again with
    glare's light taken off (:func:`vision.washed.measured_unglared`: glare peaking over a
    symbol washes its middle or a corner out of the ink map, or breaks it into pieces)
    where the outline so measured fits a shape (``_POOR_FIT``) and is solid (a printed
    digit's hole stays one); with their shapes, confidences and fits. An outline holding
    one mark's centre replaces that mark; one holding several, every one of them fitting
    no shape and of one colour, replaces them all: one symbol's pieces (where glare's core
    bites into even the absorbed light, the outline's convex hull, ``_BITTEN_SOLIDITY``). A mark partly
    hidden (``HIDDEN``) is left as it is, and so is a washed-out mark of unknown shape
    (``SHAPELESS``) on its own, and a mark with a hole: the absorbed light, blurred and cut
    low, may close a printed digit's small hole (a glare-washed middle is told from a
    digit's hole by ``_washed_middles``). Colours stay as read."""
    blobs = list(seg.blobs)
    wanted = [f < _POOR_FIT and blob.fill >= _SOLID_FILL and HIDDEN not in blob.doubt for blob, f in zip(blobs, fit)]
    if not any(want and SHAPELESS not in blob.doubt for want, blob in zip(wanted, blobs)) and sum(wanted) < 2:
        return seg, shapes, confidence, fit
    again = measured_unglared(card, [blob.center_xy for blob in blobs], wanted, short, edge_band(short))
    groups: dict[int, list[int]] = {}
    for i, mark in enumerate(again):
        if mark is not None and mark.fill >= _SOLID_FILL:
            groups.setdefault(id(mark), []).append(i)
    poor = [members for members in groups.values()
            if all(wanted[i] for i in members) and (len(members) > 1 or SHAPELESS not in blobs[members[0]].doubt)]
    if any(len(members) > 1 for members in poor):
        colours = classify_colours(bgr_to_lab(np.stack([blob.mean_bgr for blob in blobs])))[0]
        poor = [members for members in poor if len({colours[i] for i in members}) == 1]
    if not poor:
        return seg, shapes, confidence, fit
    marks = [again[members[0]] for members in poor]
    new_shapes, new_confidence, new_fit = classify_shapes(np.stack([mark.features.as_array() for mark in marks]),
                                                          np.array([mark.extent for mark in marks]))
    shapes, confidence, fit = list(shapes), confidence.copy(), fit.copy()
    dropped: set[int] = set()
    for k, (members, mark) in enumerate(zip(poor, marks)):
        if new_fit[k] < _POOR_FIT and len(members) > 1 and mark.washed_hull is not None \
                and mark.features.solidity >= _BITTEN_SOLIDITY:
            # (pieces of one symbol whose outline glare's core still bites into: its hull)
            hull = mark.washed_hull
            hull_shape, hull_confidence, hull_fit = classify_shapes(hull.features.as_array()[None], np.array([hull.extent]))
            if hull_fit[0] >= _POOR_FIT:
                mark = hull
                new_shapes[k], new_confidence[k], new_fit[k] = hull_shape[0], hull_confidence[0], hull_fit[0]
        if new_fit[k] < _POOR_FIT:
            continue
        first = members[0]
        doubt = tuple(dict.fromkeys(d for i in members for d in blobs[i].doubt if d != SHAPELESS)) + (UNGLARED,)
        blobs[first] = replace(blobs[first], center_xy=mark.center_xy, features=mark.features, extent=mark.extent,
                               fill=mark.fill, spread_xy=mark.spread_xy, washed_hull=None, doubt=doubt)
        shapes[first], confidence[first], fit[first] = new_shapes[k], new_confidence[k], new_fit[k]
        dropped.update(members[1:])
    keep = [i for i in range(len(blobs)) if i not in dropped]
    return (replace(seg, blobs=tuple(blobs[i] for i in keep)), [shapes[i] for i in keep], confidence[keep], fit[keep])


def _stretched(card: BalancedCard, size_wh: tuple[int, int]) -> BalancedCard:
    """The balanced card resampled to another size (the paper statistics stay)."""
    source = None if card.source is None else cv2.resize(card.source, size_wh, interpolation=cv2.INTER_LINEAR)
    return replace(card, balanced_bgr=cv2.resize(card.balanced_bgr, size_wh, interpolation=cv2.INTER_LINEAR),
                   ink=cv2.resize(card.ink, size_wh, interpolation=cv2.INTER_LINEAR), source=source)


def _elongation(spread_xy: tuple[float, float, float]) -> tuple[float, float]:
    """A mark's elongation from its spread (var x, var y, cov xy): ((vx - vy), 2 cxy) / (vx + vy),
    0 for a round spread; (s^2 - 1) / (s^2 + 1) long for a spread s times longer one way."""
    vx, vy, cxy = spread_xy
    total = max(vx + vy, 1e-9)
    return ((vx - vy) / total, 2.0 * cxy / total)


def _card_stretch(seg: Segmentation) -> tuple[float, float] | None:
    """The elongation (``_elongation``) the card's round symbols agree on, or None when too
    few show one or they disagree: see ``_ROUND_MAX``."""
    marks = np.array([_elongation(blob.spread_xy) for blob in seg.blobs if not blob.doubt and blob.fill >= _SOLID_FILL]
                     ).reshape(-1, 2)
    marks = marks[np.hypot(marks[:, 0], marks[:, 1]) < _ROUND_MAX]
    if len(marks) < _STRETCH_MARKS:
        return None
    agree = marks[np.hypot(*(marks - np.median(marks, axis=0)).T) <= _STRETCH_AGREE]
    if len(agree) < _STRETCH_MARKS or 2 * len(agree) <= len(marks):
        return None
    ex, ey = agree.mean(axis=0)
    return float(ex), float(ey)


def _unstretch_map(stretch: tuple[float, float]) -> NDArray[np.float64]:
    """The (2, 2) linear map that takes an elongation ``stretch`` off: a squeeze along it,
    not a widening across it, so that nothing is pushed off the card."""
    ex, ey = stretch
    values, vectors = np.linalg.eigh(np.array([[1.0 + ex, ey], [ey, 1.0 - ex]]))
    return vectors @ np.diag(np.sqrt(values[0] / values)) @ vectors.T


def _unstretched(card: BalancedCard, unstretch: NDArray[np.float64]) -> tuple[BalancedCard, NDArray[np.float64]]:
    """The balanced card with ``unstretch`` applied about its centre (same size), and the
    (2, 3) affine back from its pixels to the card's."""
    height, width = card.ink.shape
    centre = np.array([(width - 1) / 2.0, (height - 1) / 2.0])
    forward = np.hstack([unstretch, (centre - unstretch @ centre)[:, None]])

    def warp(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        return cv2.warpAffine(image, forward, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    source = None if card.source is None else warp(card.source)
    return replace(card, balanced_bgr=warp(card.balanced_bgr), ink=warp(card.ink), source=source), \
        cv2.invertAffineTransform(forward)


def _looks(card_bgr: NDArray[np.uint8], min_paper: float = _MIN_PAPER_SHARE) -> _Look:
    """The best way of reading the card (:func:`_first_looks`); when its marks fit the shapes
    poorly and all show one stretch, their shapes are judged again on the card with the
    stretch taken off, and kept when they fit better. The marks themselves (how many, where,
    the doubts about them) stay those of the first reading. A strong stretch is doubted."""
    best = _first_looks(card_bgr, min_paper)
    if best.score >= _SURE_SCORE or best.card is None or not best.seg.blobs:
        return best
    stretch = _card_stretch(best.seg)  # (the marks stay the first reading's: so does their stretch)
    if stretch is None or math.hypot(*stretch) < _STRETCH_MIN:
        return best
    card, back = _unstretched(best.card, _unstretch_map(stretch))
    seen = _look(card, best.scale_xy, min_paper)
    shapes, confidence, fit = list(best.shapes), best.shape_conf.copy(), best.shape_fit.copy()
    unknown, measured = list(best.unknown), list(best.seg.blobs)
    for k, blob in enumerate(seen.seg.blobs):
        x, y = back @ (*blob.center_xy, 1.0)
        same = [i for i, mark in enumerate(best.seg.blobs)
                if math.hypot(x - mark.center_xy[0], y - mark.center_xy[1]) < _SAME_MARK * mark.extent * best.short]
        if len(same) == 1:
            shapes[same[0]], confidence[same[0]], fit[same[0]] = seen.shapes[k], seen.shape_conf[k], seen.shape_fit[k]
            unknown[same[0]], measured[same[0]] = seen.unknown[k], blob
    score = _fit_score(best.seg, fit)
    if score > best.score:
        # A mark of unknown shape takes one the others show as now read (a mark not found
        # again took one they showed stretched).
        if any(unknown):
            scores = shape_scores(np.stack([mark.features.as_array() for mark in measured]),
                                  np.array([mark.extent for mark in measured]))
            shapes = _as_shown(best.seg, shapes, scores, SHAPE_ORDER, unknown)
        best = replace(best, shapes=shapes, shape_conf=confidence, shape_fit=fit, score=score, unknown=tuple(unknown))
    if math.hypot(*stretch) < _STRETCH_DOUBT or _foreshortened(stretch, card_bgr.shape[:2]):
        return best
    return replace(best, seg=replace(best.seg, doubt=best.seg.doubt + (STRETCHED,)))


def _foreshortened(stretch: tuple[float, float], size_hw: tuple[int, ...]) -> bool:
    """Whether a card's stretch (``_card_stretch``), warped at ``size_hw``, is the view's
    foreshortening kept by the warp: see ``_CARD_ASPECTS``."""
    height, width = size_hw
    aspect = max(height, width) / min(height, width)
    if not _MIN_ASPECT <= aspect <= _MAX_ASPECT:
        return False  # (warped to a typical card's proportions: see ``to_working_size``)
    angle = abs(math.degrees(math.atan2(stretch[1], stretch[0]))) / 2  # 0: along x, 90: along y
    along_x, along_y = angle <= _ALONG_AXIS, angle >= 90.0 - _ALONG_AXIS
    along_short, along_long = (along_x, along_y) if width <= height else (along_y, along_x)
    return (along_short and aspect < _CARD_ASPECTS[0]) or (along_long and aspect > _CARD_ASPECTS[1])


def _is_frame_piece(blob: Blob, fit: float, size_wh: tuple[int, int]) -> bool:
    """Is this mark plainly a piece of the card's printed frame (see ``_FRAME_LINE``)?"""
    width, height = size_wh
    ex, ey = _elongation(blob.spread_xy)
    if fit >= _POOR_FIT or math.hypot(ex, ey) < _FRAME_LINE or abs(ey) > abs(ex):
        return False
    zone = _FRAME_ZONE * min(width, height)
    x, y = blob.center_xy
    if ex < 0:  # (longer up and down: along the left or right side)
        return min(x, width - 1 - x) < zone
    return min(y, height - 1 - y) < zone


def _without_frame_pieces(best: _Look) -> _Look:
    """The reading with the pieces of the printed frame dropped (:func:`_is_frame_piece`)
    when that leaves a symbol and a possible count; doubted. A card showing no more marks
    than a card prints is first judged a point card or not (``_looks_like_number``) with
    them all: the frame's long pieces outweigh a point card's small corner number, which
    without them has a say and passes for a symbol (a held-out point card was read a face)."""
    blobs = best.seg.blobs
    if len(blobs) > _MAX_MARKS or best.card is None:
        return best
    size_wh = best.card.ink.shape[::-1]
    keep = [i for i, blob in enumerate(blobs) if not _is_frame_piece(blob, float(best.shape_fit[i]), size_wh)]
    if not keep or len(keep) == len(blobs) or len(keep) > _MOST_SYMBOLS:
        return best
    if len(blobs) <= _MOST_SYMBOLS and _looks_like_number(best.seg, best.shapes, best.shape_fit, best.card):
        return best
    seg = replace(best.seg, blobs=tuple(blobs[i] for i in keep), doubt=best.seg.doubt + (FRAME_PIECES,))
    unknown = tuple(best.unknown[i] for i in keep) if best.unknown else ()
    return replace(best, seg=seg, shapes=[best.shapes[i] for i in keep], shape_conf=best.shape_conf[keep],
                   shape_fit=best.shape_fit[keep], unknown=unknown)


def _without_extra_slivers(best: _Look) -> _Look:
    """The reading without the slivers a cover cuts free (``HIDDEN``, smaller than any whole
    symbol), the smallest first, where with them the card shows more marks than a card
    prints: a sliver counts to complete a card, never to make its reading impossible (a
    pool card's nine symbols and a sliver cut free at the card back lying on it)."""
    blobs = best.seg.blobs
    slivers = sorted((blob.extent, i) for i, blob in enumerate(blobs) if HIDDEN in blob.doubt and blob.extent < _MIN_EXTENT)
    extra = len(blobs) - _MOST_SYMBOLS
    if extra <= 0 or extra > len(slivers) or extra == len(blobs):
        return best
    dropped = {i for _, i in slivers[:extra]}
    keep = [i for i in range(len(blobs)) if i not in dropped]
    seg = replace(best.seg, blobs=tuple(blobs[i] for i in keep))
    unknown = tuple(best.unknown[i] for i in keep) if best.unknown else ()
    return replace(best, seg=seg, shapes=[best.shapes[i] for i in keep], shape_conf=best.shape_conf[keep],
                   shape_fit=best.shape_fit[keep], unknown=unknown)


def _first_looks(card_bgr: NDArray[np.uint8], min_paper: float = _MIN_PAPER_SHARE) -> _Look:
    """The best way of reading the card: as it is, or for a near-square quad from a tilted
    view (which side was foreshortened is unknown) stretched either way, keeping the
    reading whose marks fit the shapes better; the second way is skipped when the first
    already fits well. The card is balanced once."""
    height, width = card_bgr.shape[:2]
    if max(height, width) / min(height, width) >= _MIN_ASPECT:
        work_bgr, scale_xy = to_working_size(card_bgr)
        return _look(balance_card(work_bgr, min_paper), scale_xy, min_paper)
    side = max(CELL_PX, round(max(height, width) / min(height, width) * WORK_SHORT_SIDE / CELL_PX) * CELL_PX)
    base_wh = (WORK_SHORT_SIDE, side) if width <= height else (side, WORK_SHORT_SIDE)
    base = balance_card(cv2.resize(card_bgr, base_wh, interpolation=cv2.INTER_AREA), min_paper)
    if base is None:
        return _no_paper((base_wh[0] / width, base_wh[1] / height), min_paper)
    problem = _paper_problem(base, min_paper)
    if problem:
        return _Look(base, Segmentation((), 0.0), (base_wh[0] / width, base_wh[1] / height), WORK_SHORT_SIDE, [],
                     np.zeros(0), np.zeros(0), -np.inf, problem)
    long_work = round(_TYPICAL_ASPECT * WORK_SHORT_SIDE / CELL_PX) * CELL_PX
    best = None
    for size_wh in ((WORK_SHORT_SIDE, long_work), (long_work, WORK_SHORT_SIDE)):
        seen = _look(_stretched(base, size_wh), (size_wh[0] / width, size_wh[1] / height), min_paper)
        if best is None or seen.score > best.score:
            best = seen
        if best.score >= _SURE_SCORE:
            break
    return best


def _best_look(card_bgr: NDArray[np.uint8], min_paper: float = _MIN_PAPER_SHARE) -> _Look:
    """The best way of reading the card (``_looks``), without printed frame pieces and extra slivers."""
    return _without_extra_slivers(_without_frame_pieces(_looks(card_bgr, min_paper)))


def read_card(card_bgr: NDArray[np.uint8], profile: Any = None, min_paper: float = _MIN_PAPER_SHARE) -> CardReading:
    """Read a rectified card image.

    Parameters
    ----------
    card_bgr : ndarray (H, W, 3) uint8
        One card warped to an upright rectangle (portrait or landscape, any rotation by
        multiples of 90 degrees, mirrored or not), short side preferably >= 80 px. A few
        pixels of table may show at the edges. Not modified.
    profile : a calibration's colour profile (``calibration.profile.ColourProfile``: anything
        with ``inks``, learned ink centres in balanced Lab by colour), or None for the nominal inks.
    min_paper : float
        A face shows plain paper over this share of the card at least; less for a card known
        to lie partly under something (``vision.pipeline.read_partly_hidden``).

    Returns
    -------
    CardReading
        ``is_face=False`` with a reason for a card back or a non-card; otherwise the symbols
        (centres in ``card_bgr`` pixels), the criteria (None when the reading is impossible
        under the rules) and a confidence that is low whenever the reading may be wrong,
        with the reasons.

    Raises
    ------
    ValueError
        When ``card_bgr`` is not a (H, W, 3) uint8 array or is smaller than 16 px.
    """
    _check_input(card_bgr)
    best = _best_look(card_bgr, min_paper)
    card, seg, (scale_x, scale_y), short = best.card, best.seg, best.scale_xy, best.short
    problem = best.problem or _marks_problem(seg)
    if problem:
        return _not_face(problem)
    shapes, shape_conf, shape_fit = best.shapes, best.shape_conf, best.shape_fit
    inks = None if profile is None else profile.inks
    colours, colour_conf, colour_fit = _colours_on(card, seg, inks)
    if _looks_like_number(seg, shapes, shape_fit, card):
        washed = _washed_middles(seg, card)
        if washed is None:
            return _not_face(PRINTED_NUMBER, 0.7)
        seg, shapes, shape_conf, shape_fit = washed
        colours, colour_conf, colour_fit = _colours_on(card, seg, inks)
    dark = float(card.paper_bgr.max()) < _MIN_PAPER_LEVEL
    if dark and float(shape_fit.max()) < _POOR_FIT:
        return _not_face("too dark for paper and no mark is a symbol (a phone screen?)", 0.7)

    reasons: list[str] = []
    confidence = 1.0
    symbols: list[SymbolReading] = []
    shape_sure = [_calibrated(weight) for weight in shape_conf]
    colour_sure = [_colour_sure(blob, colour, weight, inks) for blob, colour, weight in zip(seg.blobs, colours, colour_conf)]
    # (a symbol's shape or colour read with doubt doubts the card only where it may decide its triple)
    shape_stake = _counts_at_stake(shapes, [_possible_shapes(blob) if sure < _SURE else {shape}
                                            for blob, shape, sure in zip(seg.blobs, shapes, shape_sure)])
    colour_stake = _counts_at_stake(colours, [_possible_colours(blob, inks) if sure < _SURE else {colour}
                                              for blob, colour, sure in zip(seg.blobs, colours, colour_sure)])
    for i, blob in enumerate(seg.blobs):
        doubts: list[tuple[str, float]] = [(d, _DOUBT_CONFIDENCE.get(d, 0.5)) for d in blob.doubt]
        moot: list[tuple[str, float]] = []
        if shape_sure[i] < _SURE:
            (doubts if shape_stake[i] else moot).append((f"shape of a symbol is ambiguous ({shapes[i].value}?)", shape_sure[i]))
        if colour_sure[i] < _SURE:
            (doubts if colour_stake[i] else moot).append((f"colour of a symbol is ambiguous ({colours[i].value}?)", colour_sure[i]))
        if colour_fit[i] < _POOR_FIT:
            doubts.append(("a symbol's colour fits no print colour (washed out?)", 0.3 + float(colour_fit[i])))
        if shape_fit[i] < _POOR_FIT:
            doubts.append(("a mark fits no shape well", 0.3 + float(shape_fit[i])))
        if blob.fill < _SOLID_FILL:
            doubts.append(("a symbol has a hole (glare?)", 0.4))
        reasons.extend(d for d, _ in doubts)
        confidence = min([confidence] + [c for _, c in doubts])
        symbol_conf = min([1.0] + [c for _, c in doubts + moot])
        cx, cy = blob.center_xy
        center_xy = ((cx + 0.5) / scale_x - 0.5, (cy + 0.5) / scale_y - 0.5)
        symbols.append(SymbolReading(shapes[i], colours[i], center_xy, min(1.0, max(0.0, float(symbol_conf)))))

    card_doubts = [(d, _DOUBT_CONFIDENCE.get(d, 0.5)) for d in seg.doubt]
    if card.glare > _GLARE_SHARE or card.blind > 0.0:
        if card.noise > WASHED_NOISE:  # (no search for washed-out symbols is made on so noisy a card: see vision.washed)
            card_doubts.append(("glare on a card too noisy to search for symbols it washed out", _NOISY_GLARE))
        elif card.clipped < _HIDING_SHARE:
            if _hiding_room(card, seg, short, _washed_patch(card)) >= _WASHED_ROOM:
                card_doubts.append(("glare on the card may wash out a symbol", 0.45))
            else:
                card_doubts.append(("glare on the card, nothing clipped", _MILD_GLARE))
        elif _hiding_room(card, seg, short) >= _HIDING_RADIUS:
            card_doubts.append(("glare on the card may wash out a symbol", 0.45))
        else:
            card_doubts.append(("glare on the card, clipped only where no symbol can hide", _MILD_GLARE))
    if _near_pairs(seg, short):
        card_doubts.append(("two blobs closer than symbols are printed", 0.4))
    if dark:
        card_doubts.append(("card in a deep shadow", 0.45))
    overlap = "overlap at the edge" in seg.dropped
    inked = _wide_ink(card)
    edge_covered = overlap or _edge_covered(inked) > _EDGE_COVERED
    if overlap or (edge_covered and _cover_reach(inked, seg) >= _COVER_REACH):
        card_doubts.append(("something overlaps the card's edge", 0.4))
    if "cut at the edge" in seg.dropped:
        card_doubts.append(("a symbol may be cut off at the card's edge", 0.4))
    if any(d in seg.dropped for d in ("hollow mark", "thin line", "too long for a symbol")):
        card_doubts.append(("a mark that is no symbol lies on the card (washed out or overlapped?)", 0.4))
    if min(card_bgr.shape[:2]) < WORK_SHORT_SIDE:
        card_doubts.append(("card image smaller than 80 px", 0.6))
    for doubt, value in card_doubts:
        reasons.append(doubt)
        confidence = min(confidence, value)

    symbols.sort(key=lambda s: (round(s.center_xy[1] / max(1.0, 0.08 * min(card_bgr.shape[:2]))), s.center_xy[0]))
    reason = "; ".join(dict.fromkeys(reasons))
    paper = tuple(float(v) for v in card.paper_bgr)
    try:
        criteria = Criteria.from_symbols((s.shape, s.colour) for s in symbols)
    except InvalidCardError as error:
        return CardReading(tuple(symbols), None, 0.0, True, f"impossible reading: {error}; {reason}".rstrip("; "), paper,
                           edge_covered)
    return CardReading(tuple(symbols), criteria, min(1.0, max(0.0, float(confidence))), True, reason, paper, edge_covered)
