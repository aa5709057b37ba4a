"""Where a row's card may lie hidden: the room just beyond its first or last card, covered by
something that is neither the bare table nor a card seen (a hand, a mug, an arm).

A card under a hand at a row's end leaves the row a card short with nothing to show for it
but the hand: the place where the next card would lie shows no table, or a sliver of the
card's paper beside the hand. The bare table there, a card seen there (another player's, or
the pool's) or the room off the table top says no card of the row is hidden. (A gap inside a
row is room for a card whatever covers it: see ``vision.arrange.row_gaps``.)
"""

from __future__ import annotations

import math
from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.areas import find_table_area
from calibration.arms import skin_coloured
from calibration.gaps import TableLook, card_middles, lab_pixels, paper_share, table_look, table_share, table_shown
from vision.arrange import card_geometry, neighbour_gaps, room_for_a_card

__all__ = ["look_at_table", "end_rooms", "table_beside", "room_shares", "covered_rooms"]

_PITCH = 1.3  # centre to centre of a lone card and its next, in short sides (cards lie 0-0.5 apart)
_SHRINK = 0.8  # the room looked at: a card's place, shrunk about its middle (rows bend, pitches vary)
_BESIDE = (0.6, 0.85)  # the bare table compared with: beside each card, both sides, in long sides from its middle
# A room less on the table top than this holds no card of the row: it lies across the table's
# edge (the top's outline runs a little outside the edge), and the part of it on the top shows
# the floor beside the edge. On twelve dev sets (six medium, six hard) from 0.5 to 0.85: right
# verdicts flagged 16 fewer (held-out val30 medium 4), no wrong verdict left unflagged.
_ON_TOP = 0.85
# Less of the room than this looks like the table beside the row: something covers it. A hand or an
# arm over a card at a row's end mostly leaves some table in view beside it (a room is a card's
# place, and the card lies a little off it): rooms over cards hidden under hands on dev renders
# showed 0.24 to 0.68 of table (seven, measured on the true cards). On ten dev sets (five medium,
# five hard), flagged from 0.35 rather than 0.15, 28 wrong verdicts were no longer given unflagged
# (63 to 35), at 111 right verdicts more flagged (medium 16.2 -> 19.4%, hard 39.2 -> 43.8%: a
# patterned cloth, the table's edge, a phone), 4.0 for each caught; from 0.3, 18 at 4.2 each. On the
# held-out dev set about 6 each, on the test split 8. The point cards seen are no cover (see
# ``vision.pipeline.read_table``).
_COVERED = 0.35
# ... or less than this, with the row's paper showing over this share of it where no card was found: a card
# lies there, mostly under what covers it (so flagged beyond those above: on ten dev sets 9 wrong verdicts
# and 3 right ones; on the held-out dev set and the test split together, 5 wrong and 6 right)
_PARTLY_COVERED, _PAPER_SHOWS = 0.5, 0.05
# ... or more, but the room shows less than this share of the table's colours (``table_shown``): a hand of
# a wood's or a cloth's colour over a card, each of its pixels like some of the table but few of the
# table's like it (the bare table shows its grain and pattern: median 0.59 of rooms at rows' ends on five
# hard dev sets, 0.21 over hidden cards). On ten dev sets (five hard, five medium) 5 wrong verdicts were no
# longer given unflagged (26 to 21) at 9 right ones more flagged; from 0.2, 10 at 30.
_TABLE_SHOWN = 0.15
# ... or more, but the room is plainly more skin-coloured than the table beside the row, by this share of its
# pixels: a hand or an arm whose colour some of that table shares (a few fingertips reaching over it, the floor
# beyond the table's edge), so that the hand looks like the table. Not on a table whose top is skin-coloured
# over more than ``_SKIN_TABLE`` of it (wood, a brown or maroon cloth): there skin tells no hand (0.51 and 0.61
# on two such dev tables, 0.08 to 0.29 on ten tables where a hand was over the room). On six dev sets (1,050
# photos) 4 wrong verdicts were no longer given unflagged, at 3 right ones more flagged.
_SKIN_MORE, _SKIN_TABLE = 0.5, 0.4
_SAMPLES = (100, 300)  # pixels of the room and of the table compared, at most: a share within a few hundredths
_LOOK_WIDTH = 640  # calibration.gaps' working width


def look_at_table(
    frame_bgr: NDArray[np.uint8], cards_xy: Sequence[NDArray], top_xy: NDArray[np.float64] | None = None,
    halved_bgr: NDArray[np.uint8] | None = None,
) -> tuple[TableLook, NDArray[np.float64] | None]:
    """The frame ready for ``covered_rooms``: its table look, and its table top (found when not given).

    Both come from one copy ``_LOOK_WIDTH`` wide (``calibration.gaps``' working width): the frame
    halved (2x2 means) while twice as wide, then resized: many times faster than by pixel area.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    cards_xy : sequence of ndarray (4, 2), the cards seen (the table top holds them)
    top_xy : ndarray (N, 2), the table top when known (from a calibration), else None
    halved_bgr : ndarray (h, w, 3) uint8, the frame already halved by 2x2 means once or twice
        (``vision.find.working_copy`` of a 1080p or 4K frame), or None; the halving starts
        from it where it is one of the copies halving the frame would give
    """
    small = frame_bgr
    if halved_bgr is not None and _is_halving(frame_bgr.shape[:2], halved_bgr.shape[:2]):
        small = halved_bgr
    while small.shape[1] >= 2 * _LOOK_WIDTH:
        small = cv2.resize(small, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_LINEAR)
    if small.shape[1] > _LOOK_WIDTH:
        size_wh = (_LOOK_WIDTH, max(1, round(small.shape[0] * _LOOK_WIDTH / small.shape[1])))
        small = cv2.resize(small, size_wh, interpolation=cv2.INTER_LINEAR)
    scale = small.shape[1] / frame_bgr.shape[1]
    look = TableLook(table_look(small).blurred_bgr, scale)
    if top_xy is None:
        found = find_table_area(small, [np.asarray(quad, np.float64) * scale for quad in cards_xy])
        top_xy = None if found is None else found / scale
    return look, top_xy


def _is_halving(frame_hw: tuple[int, ...], small_hw: tuple[int, ...]) -> bool:
    """Is an image of ``small_hw`` one the frame's halving in ``look_at_table`` makes: the
    frame's size over two or four, exactly, and still wider than ``_LOOK_WIDTH``?"""
    (height, width), (small_h, small_w) = frame_hw, small_hw
    if small_w <= _LOOK_WIDTH or width < 2 * _LOOK_WIDTH:
        return False
    for _ in range(2):
        if width % 2 or height % 2:
            return False
        width, height = width // 2, height // 2
        if (height, width) == (small_h, small_w):
            return True
    return False


def end_rooms(corners: Sequence[NDArray], up_to: int, shrink: float = _SHRINK,
              along: Sequence[float] | None = None) -> list[tuple[int, NDArray[np.float64]]]:
    """The places just beyond a row's first and last card, where its next card would lie.

    Parameters
    ----------
    corners : sequence of ndarray (4, 2), the row's cards in order, clockwise, first edge a short side
    up_to : the last position a hidden card may take and still matter (the first error's)
    shrink : the share of a card's place the room takes, about its middle
    along : for a row of one card, its player's left to right (a unit vector), or None: the row runs
        along the card's short axis, but for a nearly square card (seen at a slant, its short side may
        show the longer) along its axis nearer that way, the room before it on the player's left.

    Returns
    -------
    rooms : (position, quad (4, 2)) for each place, in image pixels: position 0 before the first
        card, ``len(corners)`` after the last; a card's place one pitch along the row, shrunk
    """
    geo = card_geometry(corners)
    n = len(corners)
    steps = geo.centres[1:] - geo.centres[:-1]
    close = np.flatnonzero(~room_for_a_card(neighbour_gaps(geo, list(range(n)))))
    pitch = float(np.median(np.linalg.norm(steps[close], axis=1))) if len(close) else _PITCH * float(np.mean(geo.shorts))
    before, after = (-geo.short_axes[0], geo.short_axes[0]) if n == 1 else (-steps[0], steps[-1])
    if n == 1 and along is not None and bool(geo.squarish[0]):
        # (the card's axis nearer the row's way, pointing the player's right; a pitch of its side that way)
        along = np.asarray(along, np.float64)
        axis, side = geo.short_axes[0], float(geo.shorts[0])
        if abs(float(axis @ along)) < math.sqrt(0.5):
            axis, side = np.array([-axis[1], axis[0]]), float(geo.longs[0])
        after = axis if float(axis @ along) >= 0 else -axis
        before, pitch = -after, _PITCH * side
    rooms = []
    for position, end, step in ((0, 0, before), (n, n - 1, after)):
        if position <= up_to:
            quad = geo.quads[end] + pitch * step / max(float(np.linalg.norm(step)), 1e-9)
            middle = quad.mean(axis=0)
            rooms.append((position, middle + shrink * (quad - middle)))
    return rooms


def table_beside(corners: Sequence[NDArray]) -> list[NDArray[np.float64]]:
    """The bare table just beside each card of a row, on both sides: (4, 2) rectangles."""
    geo = card_geometry(corners)
    normals = np.stack([-geo.short_axes[:, 1], geo.short_axes[:, 0]], axis=1)
    # Each rectangle's corners: so many half short sides along the card, so many long sides across it.
    along = np.array([-1, 1, 1, -1])[None, :, None] * (geo.shorts / 2)[:, None, None] * geo.short_axes[:, None, :]
    across = np.array(_BESIDE)[[0, 0, 1, 1]][None, :, None] * geo.longs[:, None, None] * normals[:, None, :]
    middles = geo.centres[:, None, :] + along
    return [*(middles + across), *(middles - across)]


def room_shares(
    look: TableLook, corners: Sequence[NDArray], cards_xy: Sequence[NDArray], up_to: int,
    top_xy: NDArray[np.float64] | None = None, along: Sequence[float] | None = None,
) -> list[tuple[int, float | None]]:
    """How much of each end room (``end_rooms``, a lone card's ``along`` its row's way) looks like the
    bare table beside the row, the cards seen left out; None where too little is left to tell, or the
    room is mostly off the table top ``top_xy`` (N, 2) (when known)."""
    return _room_shares(look, corners, cards_xy, up_to, top_xy, along)[0]


def _room_shares(
    look: TableLook, corners: Sequence[NDArray], cards_xy: Sequence[NDArray], up_to: int,
    top_xy: NDArray[np.float64] | None, along: Sequence[float] | None = None,
) -> tuple[list[tuple[int, float | None]], dict[int, NDArray[np.float64]], list[NDArray[np.float64]], list[NDArray[np.float64]]]:
    """``room_shares``, and the rooms (by position), the table beside the row and the cards seen near it."""
    table = table_beside(corners)
    rooms = end_rooms(corners, up_to, along=along)
    # Only the cards near the row can lie in a room or over the table beside it.
    near = np.concatenate([*table, *(quad for _, quad in rooms)])
    low, high = near.min(axis=0), near.max(axis=0)
    quads = np.asarray(cards_xy, np.float64).reshape(-1, 4, 2)
    cards = list(quads[np.all(quads.max(axis=1) >= low, axis=1) & np.all(quads.min(axis=1) <= high, axis=1)])
    shares = []
    for position, quad in rooms:
        if top_xy is not None:
            area, on_top = cv2.intersectConvexConvex(quad.astype(np.float32), top_xy.astype(np.float32))
            if on_top is None or area < _ON_TOP * cv2.contourArea(quad.astype(np.float32)):
                shares.append((position, None))
                continue
            quad = on_top.reshape(-1, 2).astype(np.float64)
        shares.append((position, table_share(look, quad, table, cards, _SAMPLES)))
    return shares, dict(rooms), table, cards


def _under_skin(look: TableLook, rooms: dict[int, NDArray[np.float64]], table: list[NDArray[np.float64]],
                cards: list[NDArray[np.float64]], corners: Sequence[NDArray], cards_xy: Sequence[NDArray],
                top_xy: NDArray[np.float64] | None) -> list[int]:
    """Of ``rooms`` (by position), those plainly more skin-coloured than the table beside the row
    (``_SKIN_MORE``), on a table top not skin-coloured itself (``_SKIN_TABLE``). Skin is told under
    the light's cast on the row's own paper."""
    if not rooms:
        return []
    paper = lab_pixels(look, card_middles([np.asarray(quad, np.float64) for quad in corners]), _SAMPLES[1])
    if len(paper) < 10:
        return []
    # (the paper, not the symbols: the lighter half of the cards' middles)
    cast_a, cast_b = np.median(paper[paper[:, 0] >= np.median(paper[:, 0]), 1:], axis=0) - 128.0
    cast = (float(cast_a), float(cast_b))
    skin = {position: _skin_share(look, [room], cards, cast) for position, room in rooms.items()}
    skin = {position: share for position, share in skin.items() if share is not None and share >= _SKIN_MORE}
    if not skin:  # (most rooms: the bare table of no skin colour)
        return []
    if top_xy is not None:
        top = _skin_share(look, [top_xy], cards_xy, cast)
        if top is None or top > _SKIN_TABLE:
            return []
    beside = _skin_share(look, table, cards, cast)
    return [] if beside is None else [position for position, share in skin.items() if share >= beside + _SKIN_MORE]


def _skin_share(look: TableLook, polygons_xy: Sequence[NDArray[np.float64]], exclude_xy: Sequence[NDArray],
                cast_ab: tuple[float, float]) -> float | None:
    """The share of the pixels in the polygons (``exclude_xy`` left out) that are skin-coloured under a
    light of cast ``cast_ab``; None when fewer than ten are left."""
    lab = lab_pixels(look, polygons_xy, _SAMPLES[1], exclude_xy)
    return float(np.mean(skin_coloured(lab, cast_ab))) if len(lab) >= 10 else None


def covered_rooms(
    look: TableLook, corners: Sequence[NDArray], cards_xy: Sequence[NDArray], up_to: int,
    top_xy: NDArray[np.float64] | None = None, along: Sequence[float] | None = None,
) -> tuple[int, ...]:
    """The ends of a row where a card may lie hidden under something: 0 before its first card,
    ``len(corners)`` after its last (see ``end_rooms``). The room there shows little of the
    bare table beside the row (``_COVERED``), or somewhat more (below ``_PARTLY_COVERED``) and
    the paper of the row's cards where no card was found (``_PAPER_SHOWS``): a card's sliver
    beside a hand over the rest of it; or more, but few of the table's colours (``_TABLE_SHOWN``):
    a hand of the table's own colour; or plainly more skin than the table beside the row
    (``_SKIN_MORE``, on a table not skin-coloured): a hand that some of that table looks like.

    Parameters
    ----------
    look : the frame, from ``look_at_table``
    corners : sequence of ndarray (4, 2), the row's cards in order, clockwise, first edge a short side
    cards_xy : sequence of ndarray (4, 2), every card seen in the frame (a card there is no cover)
    up_to : the last position a hidden card may take and still change the verdict
    top_xy : ndarray (N, 2), the table top (convex), or None when unknown
    along : for a row of one card, its player's left to right (unit), or None (see ``end_rooms``)
    """
    shares, rooms, table, cards = _room_shares(look, corners, cards_xy, up_to, top_xy, along)
    covered = [position for position, share in shares if share is not None and share < _COVERED]
    # (a room like the table may be a hand of its colour: then it shows few of the table's colours)
    for position, share in shares:
        if share is not None and share >= _COVERED:
            shown = table_shown(look, rooms[position], table, cards, _SAMPLES)
            if shown is not None and shown < _TABLE_SHOWN:
                covered.append(position)
    like_table = {position: rooms[position] for position, share in shares if share is not None and share >= _COVERED
                  and position not in covered}
    covered += _under_skin(look, like_table, table, cards, corners, cards_xy, top_xy)
    partly = [position for position, share in shares if share is not None and _COVERED <= share < _PARTLY_COVERED
              and position not in covered]
    if partly:  # (rare: the row's paper is looked at only then)
        row_xy = [np.asarray(quad, np.float64) for quad in corners]
        covered += [position for position in partly if (paper_share(look, rooms[position], row_xy, cards) or 0.0) >= _PAPER_SHOWS]
    return tuple(sorted(covered))
