"""From one camera frame to every face-up symbol card: ``read_frame(frame_bgr)``; with the
point cards seen beside them: ``read_table(frame_bgr)``."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.cards import Shape
from vision.card_sizes import sizes_in_view
from vision.cloth import like_cloth_dots
from vision.find import CardQuad, SmallCards, cards_too_small, find_cards, warp_card, working_copy
from vision.looped import looped_cards
from vision.partial import PAPER_IN
from vision.quads import ASPECT_RANGE, cut_across, order_corners, sides
from vision.read import PRINTED_NUMBER, WORK_SHORT_SIDE, more_marks_than_a_card, read_card
from vision.records import CardReading, SymbolReading
from vision.stacked import lying_beneath
from vision.widen import measure_in_neighbours

__all__ = ["DetectedCard", "TableReading", "read_frame", "read_table", "read_quad", "read_apart", "read_partly_hidden",
           "without_odd_papers", "PARTLY_HIDDEN_CONFIDENCE", "doubted_beneath", "doubted_on_cloth", "doubted_small",
           "cards_seen_small", "enlarged_for", "enlarged_frame", "scaled_card"]

# A face's paper keeps at least this share of the lightness (Lab L) of the other faces' paper
# in the frame: on dev renders a card in the deepest shadow, where the light also falls off,
# kept 0.30; the coffee in a mug, read as a card's paper after balancing, 0.19-0.24.
_DARKEST_PAPER = 0.27
# and keeps within this distance (Lab a, b) of their tint: on fresh hard renders under mixed
# light, a card in the lamp's warm light among cards in daylight was 15 off at most; a lamp's
# glare on a card back or on a mug, read as a card with one washed-out symbol, 33.
_MOST_TINT = 22.0
# A point card is a whole card: at least this share of the area the faces found show there
# (``vision.card_sizes.sizes_in_view``). A piece of a face in view beside a hand, its symbols cut
# by the hand's edge, reads as no symbol shapes too (on dev renders such pieces at a row's end
# hid the rest of their card under the hand). Taking the point cards seen for no cover over a
# row's end flagged 27 right verdicts fewer on ten dev sets (a point card lying there), and left
# one wrong verdict more unflagged (two without the whole card's size asked for).
_WHOLE_CARD = 0.8
# ... or a card seen inside its printed frame (the point cards' frames span 0.84 of the short
# side, 0.88 of the long: 0.74 of the card, a little longer): at least this share of a whole card
# and of a card's aspect within this share, taken for the whole card about it. (A piece of a face
# beside a hand is cut across: shorter than a card, of another aspect.)
_FRAMED, _FRAMED_ASPECT = 0.6, 0.12
# A card lying partly under a hand is read from the part in view, with this confidence at most:
# low enough that a person is asked to look where it decides a verdict.
PARTLY_HIDDEN_CONFIDENCE = 0.2
# A quad round cards of a row lying edge to edge is cut where a line across it, within
# _CUT_REACH (a share of its length: the cards of a deck are of one size, the line between two
# lies a narrow gap off the even cut) of an even cut, is at most _EDGE_DARK as light as its paper
# (by the _LINE_LIGHT percentile along each line, on the quad warped _CUT_WIDTH pixels across):
# on hard dev renders the line between two such cards showed 0.85 and 0.90, at the even cut;
# where a cut would run across cards lying over one another in the middle, outlined as one,
# 0.97 or lighter (and a pool card's edge 0.12 off it, dev hard 7148).
_CUT_REACH, _EDGE_DARK, _LINE_LIGHT, _CUT_WIDTH = 0.06, 0.94, 90, 40
# A card with another card over part of its printed area may read that card's symbols as its
# own: dev medium 409 card 15, found whole, read a yellow bar of the card over its corner surely.
_BENEATH = "another card lies over part of the card", 0.4
# A card read as circles of one colour, with marks like them on the table around it, may be a
# patch of a dotted cloth (``vision.cloth``): dev medium 4070 and 4032, dev hard 4076, read surely.
_CLOTH = "its circles are like the dots on the cloth around it (it may be the cloth)", 0.3
# A card measuring less than this share of a card's area on the table planes of the cards nearest
# it (``vision.widen.measure_in_neighbours``) is a piece of a card, cut short by a cover or lying
# under another, or no card: the finder keeps such a quad where it is as large as most found, or
# like a card on one plane (``vision.find._without_pieces``), and its reading is of the part in view.
# Of 10,624 cards found on six dev sets (easy to hard), 3 read surely measured less: a piece read
# wrong and two that were no card; no card read right did (from 0.55, 2 of them; of the cards read
# with doubt, the 23 under 0.55 were all read wrong).
_PIECE_MEASURE = 0.5
_PIECE = "smaller than the cards around it: a piece of a card, or no card?", 0.4
# A face read doubtfully (confidence below this) whose quadrilateral runs within _EDGE_PX of the
# frame's edge is cut by it: on eleven dev sets (100 photos each) 5 of 6 such were no card (a strip
# of a pale or patterned table between a card and the frame's edge, its pattern read as symbols;
# glare), and are left out. A card cut by the frame cannot be read whole anyway.
_CUT_DOUBT, _EDGE_PX = 0.5, 2.0
# A frame whose cards show too small (``cards_seen_small``) is read enlarged for them to show
# this short side (the finder looks for 60 px and more), at most _MOST_ENLARGED times: on a dev
# medium set shrunk until each photo's smallest card showed 48 px, recall went from 38.5 to 97.6 %
# (99.2 at full size).
_ENLARGE_TO_PX = 90.0
_MOST_ENLARGED = 3.0
# ... and so is one where a quarter of the cards read are smaller than this (the far ones may be
# missed: the finder looks for 60 px and more). The rulebook table at 1080p shows 72 px and more.
# On dev sets shrunk to a 48 px smallest card, a quarter rather than half the cards: hard recall
# 93.65 -> 95.20, medium 97.72 -> 97.61; in-spec dev photos read enlarged 1 -> 2 of 1,900.
_SMALL_READ_PX = 70.0


@dataclass(frozen=True)
class DetectedCard:
    """A face-up symbol card in a frame: where it lies and what it shows.

    ``corners_xy`` is (4, 2) float32, clockwise on screen, in frame pixels; the
    symbols' ``center_xy`` in ``reading`` are in frame pixels too. A card ``partly_hidden``
    lies partly under something (a hand): its corners are where the card would lie, and its
    reading is of the part in view (see ``vision.partial``). A card that ``may_be_cloth`` is
    read as circles like the dots of the cloth around it: it may be no card at all (see
    ``doubted_on_cloth``).
    """

    corners_xy: NDArray[np.float32]
    reading: CardReading
    partly_hidden: bool = False
    may_be_cloth: bool = False

    def __post_init__(self) -> None:
        if self.corners_xy.shape != (4, 2):
            raise ValueError(f"corners_xy must have shape (4, 2), got {self.corners_xy.shape}")

    @property
    def center_xy(self) -> tuple[float, float]:
        x, y = self.corners_xy.mean(axis=0)
        return float(x), float(y)


@dataclass(frozen=True)
class TableReading:
    """What one frame shows of the cards on the table: the faces read (``read_frame``), and
    the quads (4, 2) of the whole point cards seen, which are no cover over the table (a
    card seen lies there: see ``vision.hidden.covered_rooms``)."""

    cards: tuple[DetectedCard, ...]
    point_cards_xy: tuple[NDArray[np.float32], ...] = ()


def read_quad(frame_bgr: NDArray[np.uint8], quad: CardQuad, profile: Any = None) -> DetectedCard | None:
    """Read the card inside one quadrilateral; ``None`` when it is no symbol card's face."""
    reading, card_wh = _read(frame_bgr, quad, profile)
    return _placed(quad, reading, card_wh) if _is_face(frame_bgr, quad, reading) else None


def read_apart(frame_bgr: NDArray[np.uint8], quad: CardQuad, profile: Any = None) -> list[DetectedCard]:
    """``read_quad`` of a quad, or of each card it holds where it is cards of a row lying edge to
    edge, outlined as one (``_read_apart``)."""
    return [_placed(part, reading, card_wh) for part, reading, card_wh in _read_apart(frame_bgr, quad, profile)
            if _is_face(frame_bgr, part, reading)]


def _is_face(frame_bgr: NDArray[np.uint8], quad: CardQuad, reading: CardReading) -> bool:
    """Whether a reading is of a symbol card's face, not a doubtful one cut by the frame's edge (``_CUT_DOUBT``)."""
    if not reading.is_face:
        return False
    if reading.confidence >= _CUT_DOUBT:
        return True
    h, w = frame_bgr.shape[:2]
    x, y = quad.corners_xy[:, 0], quad.corners_xy[:, 1]
    return bool(x.min() > _EDGE_PX and y.min() > _EDGE_PX and x.max() < w - 1 - _EDGE_PX and y.max() < h - 1 - _EDGE_PX)


def read_partly_hidden(frame_bgr: NDArray[np.uint8], quad: CardQuad, profile: Any = None) -> DetectedCard | None:
    """Read a card found lying partly under a hand (``vision.partial``): what its part in view
    shows, surely never (its confidence at most ``PARTLY_HIDDEN_CONFIDENCE``: the hand may hide
    symbols). Its paper need show only as much as the search asks of it (``vision.partial.PAPER_IN``),
    not a whole face's: the cover takes the rest. Unread (no criteria) where that part is too little
    to tell a face by; None where its marks are a printed number (a point card's)."""
    reading, card_wh = _read(frame_bgr, quad, profile, min_paper=PAPER_IN)
    if reading.reason == PRINTED_NUMBER:
        return None
    if reading.criteria is None:
        return DetectedCard(quad.corners_xy, replace(reading, is_face=True, confidence=0.0), partly_hidden=True)
    card = _placed(quad, replace(reading, confidence=min(reading.confidence, PARTLY_HIDDEN_CONFIDENCE)), card_wh)
    return replace(card, partly_hidden=True)


def _read(frame_bgr: NDArray[np.uint8], quad: CardQuad, profile: Any, **how: Any) -> tuple[CardReading, tuple[int, int]]:
    """The reading of the card inside one quadrilateral, face or not, and the size it was read at
    (``how``: ``read_card``'s options)."""
    card_bgr = warp_card(frame_bgr, quad.corners_xy, short_side=WORK_SHORT_SIDE)
    return read_card(card_bgr, profile, **how), (card_bgr.shape[1], card_bgr.shape[0])


def _placed(quad: CardQuad, reading: CardReading, card_wh: tuple[int, int]) -> DetectedCard:
    """A face read at ``card_wh``, its symbols' centres moved into the frame."""
    width, height = card_wh
    card_corners = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], np.float32)
    to_frame = cv2.getPerspectiveTransform(card_corners, quad.corners_xy.astype(np.float32))
    if reading.symbols:
        centres = np.array([s.center_xy for s in reading.symbols], np.float32).reshape(-1, 1, 2)
        mapped = cv2.perspectiveTransform(centres, to_frame).reshape(-1, 2)
        # (built directly: dataclasses.replace costs several times as much per symbol)
        symbols = tuple(
            SymbolReading(symbol.shape, symbol.colour, (float(x), float(y)), symbol.confidence)
            for symbol, (x, y) in zip(reading.symbols, mapped.tolist())
        )
        reading = replace(reading, symbols=symbols)
    return DetectedCard(quad.corners_xy, reading)


def cards_seen_small(frame_bgr: NDArray[np.uint8], cards: Sequence[DetectedCard], point_cards_xy: Sequence[NDArray] = (),
                     small_bgr: NDArray[np.uint8] | None = None) -> SmallCards | None:
    """The cards seen too small (a camera too far, or of too low a resolution), when they are:
    the ``cards`` read, where a quarter of them are smaller than ``_SMALL_READ_PX`` (the far
    ones, smaller still, may be missed; their size is the largest of that quarter's); where
    fewer than two are read, the cards too small to be found (``vision.find.cards_too_small``,
    leaving out what lies in the cards read and the point cards seen; a face found but not read
    may be several small cards as one)."""
    if len(cards) < 2:
        return cards_too_small(frame_bgr, small_bgr, [*(card.corners_xy for card in cards), *point_cards_xy])
    shorts = np.array([min(sides(order_corners(card.corners_xy))) for card in cards])
    smaller = float(np.percentile(shorts, 25))
    return SmallCards(int(np.count_nonzero(shorts < _SMALL_READ_PX)), smaller) if smaller < _SMALL_READ_PX else None


def enlarged_for(small: SmallCards | None) -> float | None:
    """How many times a frame whose cards show too small to find (``small``) is enlarged to read
    them (to show ``_ENLARGE_TO_PX`` on their short side); None when it is not: no such cards, or
    cards too small for ``_MOST_ENLARGED`` times to do."""
    if small is None or small.short_px * _MOST_ENLARGED < _ENLARGE_TO_PX:
        return None
    return _ENLARGE_TO_PX / small.short_px


def enlarged_frame(frame_bgr: NDArray[np.uint8], factor: float) -> NDArray[np.uint8]:
    """The frame enlarged ``factor`` times (``enlarged_for``), as its cards are read again."""
    return cv2.resize(frame_bgr, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC)


def scaled_card(card: DetectedCard, factor: float) -> DetectedCard:
    """The card with its corners and its symbols' centres scaled by ``factor`` (a card read in
    an enlarged frame, in the frame's pixels)."""
    symbols = tuple(replace(s, center_xy=(s.center_xy[0] * factor, s.center_xy[1] * factor)) for s in card.reading.symbols)
    return replace(card, corners_xy=(card.corners_xy * factor).astype(np.float32), reading=replace(card.reading, symbols=symbols))


def read_frame(frame_bgr: NDArray[np.uint8], profile: Any = None,
               within: tuple[int, int, int, int] | None = None,
               small_bgr: NDArray[np.uint8] | None = None) -> list[DetectedCard]:
    """Every face-up symbol card in the frame (or in the box ``within``), read: the cards
    ``vision.find.find_cards`` finds, and those its sweeps missed whose outline closes a loop
    (``vision.looped.looped_cards``: a card half in an arm's shadow).

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    profile : a calibration's colour profile (learned inks), or None for the nominal inks
    within : (x0, y0, x1, y1) the part of the frame to search (a calibration's table top), or None
    small_bgr : the frame's ``vision.find.working_copy`` when at hand, or None

    Returns
    -------
    cards : list of DetectedCard, ordered by their centres, top to bottom
    """
    return list(read_table(frame_bgr, profile, within, small_bgr).cards)


def read_table(frame_bgr: NDArray[np.uint8], profile: Any = None,
               within: tuple[int, int, int, int] | None = None,
               small_bgr: NDArray[np.uint8] | None = None) -> TableReading:
    """``read_frame``'s cards, and the whole point cards seen (``_WHOLE_CARD``; all those
    seen where no face is found to tell a card's size)."""
    small = working_copy(frame_bgr) if small_bgr is None else small_bgr
    quads = find_cards(frame_bgr, within, small)
    read = [part for quad in quads for part in _read_apart(frame_bgr, quad, profile)]
    faces = [quad for quad, reading, _ in read if reading.is_face]
    cards = without_odd_papers([_placed(quad, reading, card_wh) for quad, reading, card_wh in read
                                if _is_face(frame_bgr, quad, reading)])
    numbers = _whole([quad.corners_xy for quad, reading, _ in read if reading.reason == PRINTED_NUMBER], faces)
    cards += looped_cards(frame_bgr, small, faces, [quad.corners_xy for quad in quads],
                          lambda quad: read_quad(frame_bgr, quad, profile), within)
    # (y, x): top to bottom, then left to right
    return TableReading(tuple(sorted(cards, key=lambda card: card.center_xy[::-1])), tuple(numbers))


def _read_apart(frame_bgr: NDArray[np.uint8], quad: CardQuad, profile: Any) -> list[tuple[CardQuad, CardReading, tuple[int, int]]]:
    """A quad read (with its reading and the size it was read at, ``_read``), or the cards it
    is when it shows more marks than a card prints symbols (``more_marks_than_a_card``): two or three cards
    of a row lying edge to edge, outlined as one. It is cut across either way where the cards'
    edges show (``_edges_across``) into parts of a card's aspect (``ASPECT_RANGE``); the cut
    whose every part reads as a face with criteria is kept, of several the one whose least
    sure part is surest. (Cards lying over one another in the middle, outlined as one, show
    no edge across where such a cut would run.)"""
    read = (quad, *_read(frame_bgr, quad, profile))
    if not more_marks_than_a_card(read[1]):
        return [read]
    best, best_sure = [read], -1.0
    for count in (2, 3):
        for corners in (quad.corners_xy, np.roll(quad.corners_xy, 1, axis=0)):
            at = _edges_across(frame_bgr, corners, count)
            if at is None:
                continue
            parts = [CardQuad(part, quad.fill) for part in cut_across(corners, at)]
            if not all(ASPECT_RANGE[0] <= part.size_wh[1] / max(part.size_wh[0], 1e-6) <= ASPECT_RANGE[1] for part in parts):
                continue
            readings = [(part, *_read(frame_bgr, part, profile)) for part in parts]
            if all(reading.criteria is not None for _, reading, _ in readings):
                sure = min(reading.confidence for _, reading, _ in readings)
                if sure > best_sure:
                    best, best_sure = readings, sure
    return best


def _edges_across(frame_bgr: NDArray[np.uint8], corners_xy: NDArray[np.float32], count: int) -> list[float] | None:
    """Where a quad that is ``count`` cards lying edge to edge, from its first side to its
    third, parts into them (shares of the way, 0 and 1 included): at each even cut, the line
    across it darkest within ``_CUT_REACH`` (the cards' edges, or table between them), by its
    lightest pixels (``_LINE_LIGHT``: a line through a card's symbols has paper between them,
    one between two cards none); None where such a line is lighter than ``_EDGE_DARK`` of the
    paper's (the median line's)."""
    a, b, _, d = corners_xy
    width = _CUT_WIDTH
    height = max(int(round(width * float(np.linalg.norm(d - a)) / max(float(np.linalg.norm(b - a)), 1e-6))), 2 * count)
    target = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], np.float32)
    warped = cv2.warpPerspective(frame_bgr, cv2.getPerspectiveTransform(corners_xy.astype(np.float32), target), (width, height))
    lightness = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY)[:, width // 10: width - width // 10]
    lines = np.percentile(lightness, _LINE_LIGHT, axis=1)
    paper = float(np.median(lines))
    at = [0.0]
    for k in range(1, count):
        low, high = int(round((k / count - _CUT_REACH) * height)), int(round((k / count + _CUT_REACH) * height)) + 1
        darkest = low + int(np.argmin(lines[low:high]))
        if lines[darkest] > _EDGE_DARK * paper:
            return None
        at.append((darkest + 0.5) / height)
    return at + [1.0]


def doubted_beneath(frame_bgr: NDArray[np.uint8], cards: tuple[DetectedCard, ...]) -> tuple[DetectedCard, ...]:
    """The cards, those read that lie partly beneath another (``vision.stacked.lying_beneath``)
    read with doubt."""
    beneath = lying_beneath(frame_bgr, [card.corners_xy for card in cards])
    return tuple(_doubted(card, _BENEATH) if under and card.reading.criteria is not None else card
                 for card, under in zip(cards, beneath))


def doubted_on_cloth(frame_bgr: NDArray[np.uint8], cards: tuple[DetectedCard, ...]) -> tuple[DetectedCard, ...]:
    """The cards, those read as circles of one colour with marks like them on the table around
    (``vision.cloth.like_cloth_dots``) read with doubt: they ``may_be_cloth``."""
    circles = [np.array([s.center_xy for s in card.reading.symbols], np.float32).reshape(-1, 2)
               if _all_circles_alike(card.reading) else np.zeros((0, 2), np.float32) for card in cards]
    if not any(len(c) for c in circles):
        return cards
    like = like_cloth_dots(frame_bgr, [card.corners_xy for card in cards], circles)
    return tuple(_doubted(card, _CLOTH, may_be_cloth=True) if is_like else card for card, is_like in zip(cards, like))


def doubted_small(cards: tuple[DetectedCard, ...]) -> tuple[DetectedCard, ...]:
    """The cards, those read that measure less than ``_PIECE_MEASURE`` of a card's area on the table
    planes of the cards nearest them read with doubt (three cards at least measure each other)."""
    if len(cards) < 3:
        return cards
    short, long = measure_in_neighbours(np.array([order_corners(card.corners_xy) for card in cards], np.float32))
    return tuple(_doubted(card, _PIECE) if area < _PIECE_MEASURE and card.reading.criteria is not None else card
                 for card, area in zip(cards, (short * long).tolist()))


def _doubted(card: DetectedCard, doubt: tuple[str, float], **changes: Any) -> DetectedCard:
    """The card read with a doubt (its reason, and the confidence it is held to at most), and ``changes``."""
    reason, confidence = doubt
    reading = replace(card.reading, confidence=min(card.reading.confidence, confidence),
                      reason="; ".join(filter(None, (card.reading.reason, reason))))
    return replace(card, reading=reading, **changes)


def _all_circles_alike(reading: CardReading) -> bool:
    """Whether a reading is of circles of one colour only."""
    return (reading.criteria is not None and bool(reading.symbols)
            and all(s.shape is Shape.CIRCLE for s in reading.symbols) and len({s.colour for s in reading.symbols}) == 1)


def _whole(quads_xy: list[NDArray[np.float32]], faces: list[CardQuad]) -> list[NDArray[np.float32]]:
    """The quads (4, 2) of a whole card's size where they lie (``_WHOLE_CARD``), as the faces
    found show it; all of them where no face is found."""
    if not quads_xy or not faces:
        return quads_xy
    sizes = sizes_in_view(faces, np.array([corners.mean(axis=0) for corners in quads_xy]))
    whole = []
    for corners, (short, long) in zip(quads_xy, sizes.tolist()):
        area = cv2.contourArea(corners)
        across, along = sorted(sides(corners))
        if area >= _WHOLE_CARD * short * long:
            whole.append(corners)
        elif area >= _FRAMED * short * long and abs(along / max(across, 1e-9) / (long / short) - 1.0) <= _FRAMED_ASPECT:
            # (the card's printed frame, found for its outline: the card itself lies about it)
            middle = corners.mean(axis=0)
            whole.append((middle + (corners - middle) * math.sqrt(short * long / area)).astype(np.float32))
    return whole


def without_odd_papers(cards: list[DetectedCard], by_tint: bool = True) -> list[DetectedCard]:
    """The cards less those whose paper is far darker than the other faces' in the frame, or
    (``by_tint``) of another tint.

    Each card is white-balanced from its own paper, so anything plain with a mark on it can
    read as a face: the coffee in a mug is the darkest. A card in a shadow is darker too,
    but keeps a good share of the light (``_DARKEST_PAPER``). A lamp's glare on a card back
    or a mug is as light as paper, but keeps the yellow of the lamp and of what it lies on;
    a card under the lamp beside cards in daylight is tinted too, but less (``_MOST_TINT``).
    Needs three measured cards or more; a card whose paper was not measured is kept. Tints
    are compared only among readings of one frame (``by_tint``): a lamp switched on tints
    the cards read again under it, not the readings kept from before.
    """
    measured = [k for k, card in enumerate(cards) if card.reading.paper_bgr is not None]
    if len(measured) < 3:
        return cards
    papers = np.array([cards[k].reading.paper_bgr for k in measured], np.float32).reshape(-1, 1, 3)
    lab = cv2.cvtColor(papers / 255.0, cv2.COLOR_BGR2LAB)[:, 0]
    odd = lab[:, 0] < _DARKEST_PAPER * _medians_of_others(lab[:, 0])
    if by_tint:
        off_a, off_b = lab[:, 1] - _medians_of_others(lab[:, 1]), lab[:, 2] - _medians_of_others(lab[:, 2])
        odd |= np.hypot(off_a, off_b) > _MOST_TINT
    dropped = {measured[i] for i in np.flatnonzero(odd)}
    return [card for k, card in enumerate(cards) if k not in dropped]


def _medians_of_others(values: NDArray[np.float32]) -> NDArray[np.float32]:
    """Each value's others' median, ``np.median(np.delete(values, i))`` for every i (N >= 2),
    from one sort: the others' middle pair is the whole's, shifted past the value's own place."""
    order = np.argsort(values, kind="stable")
    ranked = values[order]
    place = np.empty(len(values), int)
    place[order] = np.arange(len(values))
    others = len(values) - 1
    low, high = (others - 1) // 2, others // 2
    # (the mean of the middle pair in float32, as np.median takes it; a lone middle value twice)
    return (ranked[low + (low >= place)] + ranked[high + (high >= place)]) / np.float32(2)
