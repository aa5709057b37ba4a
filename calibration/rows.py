"""The players' rows among the face-up cards of one photo, to propose seats from.

Cards lying side by side make chains (``vision.arrange.find_chains``, as the referee
links them). A chain may hold two neighbours' rows that touch on one table edge: it is
cut where its pieces look most like rows of their own, each on its own straight line,
with no gap wider than a row has and no card lying on its neighbour. Pieces of one row
parted by a card under a hand (or one the finder missed) are joined again when they lie on
one line and what lies in the gap is not the bare table (nor, where it has room for more
cards, any one card's slot of it); a piece seen in that gap, on the line, is the row's too. Rows lie out from the
middle, near the table's edge, where the pool is not; a player's lone card lies with its
length towards them, facing the edge, where a pool card lies every way.
"""

from __future__ import annotations

import itertools
import math
from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.areas import depth_in_table, ray_exit
from calibration.gaps import TableLook, table_look, table_share
from vision.arrange import CardGeometry, card_geometry, find_chains, neighbour_gaps, off_line, separation

__all__ = ["row_chains", "MAX_ROW"]

MAX_ROW = 8  # an eighth card is a rules error, but it lies in the row
# Rows lie out from the middle, where thrown-back pool cards rarely land: at least this
# share of the way from the table's middle to its edge (a lone card further still), or
# near the edge in front of their player: the card's centre at most this many of its long
# sides in from the table's edge (a row's cards lie about one in, pool cards two or more).
_ROW_DEPTH, _LONE_DEPTH = 0.5, 0.6
_ROW_INSET, _LONE_INSET = 1.6, 1.3
# Players lay their rows in a band along the table's edge: a lone card lying more than this
# many of its long sides further in from the edge than every card of a longer row is a pool card.
_LONE_BEYOND_ROWS = 1.0
# A card faces the edge when the edge ahead along its length (either way) is at most _FACING
# times as far as the nearest edge (so it is turned at most about 33 degrees from it). Without
# the table top the photo's border stands in for the table's edge, which may lie well inside
# the photo: there a card facing the nearest border, or one no further than straight out
# from the middle through the card, may be a row, alone too, from _FACING_DEPTH of the way
# out, where the pool ends.
_FACING, _FACING_DEPTH = 1.2, 0.45
# Nearer the middle, only this many cards side by side make a row (the pool is a heap, not a line).
_INNER_ROW = 4
_OFF_TABLE = 1.05  # beyond the table top's edge (with room for its outline's error)
# Cutting a chain into rows: each row costs _NEW_ROW; a card off its row's straight line
# costs its offset squared over twice _LINE_SPREAD squared (in long sides: a row's cards
# scatter about 0.024 of one from its line, the root mean square over whole rows seen on
# the dev photos; two neighbours' rows on one edge lie a few hundredths or more apart); a gap
# between neighbours wider than _ROW_GAP (in short sides; a row's gaps are at most half a
# card) costs _GAP_COST per short side more.
_NEW_ROW = 6.0
_LINE_SPREAD = 0.024
_ROW_GAP, _GAP_COST = 0.55, 40.0
# Two neighbours overlapping by more than _OVERLAP (in short sides; the corners found of two
# cards touching overlap less) cost _OVERLAP_COST, more than a row: a cut falls there.
_OVERLAP, _OVERLAP_COST = 0.05, 10.0
# Joining two pieces across a hidden card: the gap leaves room for one or two cards
# (in short sides), the pieces point the same way and lie on one line (in long sides),
# and less of the gap than _HIDDEN_TABLE looks like the bare table beside the row; pieces
# of three cards or more all within _ON_LINE of one line (in long sides) need less:
# _HIDDEN_TABLE_ON_LINE (a line through two lone cards' centres says nothing).
_BRIDGE_GAP = (0.75, 3.5)
_BRIDGE_TURN_DEG = 15.0
_BRIDGE_ACROSS = 0.25
_HIDDEN_TABLE = 0.35
_ON_LINE, _HIDDEN_TABLE_ON_LINE = 0.15, 0.5
# Where the gap has room for two cards or more, each card's slot of it on its own: a slot at
# least this share like the bare table hides no card.
_BARE_SLOT = 0.5


def _cut_into_rows(chain: list[int], geo: CardGeometry) -> list[list[int]]:
    """A chain (in order along it) cut where its pieces best look like rows of their own.

    The cheapest cut over all cuts (dynamic programming over the cut points): each row
    costs as much, a card off its row's line and a gap wider than a row's cost more.
    Pieces of three cards or more fit their own line (rows bend a little in a wide-angle
    photo); shorter ones keep to the chain's direction.
    """
    n = len(chain)
    if n < 2:
        return [chain]
    long = float(np.mean(geo.longs[chain]))
    centres = geo.centres[chain] / long
    _, _, vt = np.linalg.svd(centres - centres.mean(axis=0))
    across = centres @ np.array([-vt[0][1], vt[0][0]])
    gaps = neighbour_gaps(geo, chain)
    # Two neighbours overlapping are two rows' ends: a player lays their row's cards side by side.
    wide = (_GAP_COST * np.maximum(0.0, gaps - _ROW_GAP) + np.where(gaps < -_OVERLAP, _OVERLAP_COST, 0.0)).tolist()

    def cost(a: int, b: int) -> float:
        spread = off_line(centres[a:b], across[a:b], 1.0)  # centres and offsets already in long sides
        return _NEW_ROW + spread / (2 * _LINE_SPREAD**2) + sum(wide[a:b - 1])

    best, start = [0.0] + [math.inf] * n, [0] * (n + 1)
    for b in range(1, n + 1):
        for a in range(max(0, b - MAX_ROW), b):
            total = best[a] + cost(a, b)
            if total < best[b]:
                best[b], start[b] = total, a
    pieces, b = [], n
    while b > 0:
        pieces.append(chain[start[b]:b])
        b = start[b]
    return pieces[::-1]


def _direction(piece: list[int], geo: CardGeometry, towards: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    """A piece's unit direction: first to last card, or a lone card's short axis (a nearly
    square one's, partly hidden, may be either axis: the one nearer ``towards``)."""
    if len(piece) < 2:
        k = piece[0]
        if towards is not None and geo.squarish[k]:
            other = np.array([-geo.short_axes[k][1], geo.short_axes[k][0]])
            if abs(float(other @ towards)) > abs(float(geo.short_axes[k] @ towards)):
                return other
        return geo.short_axes[k]
    step = geo.centres[piece[-1]] - geo.centres[piece[0]]
    return step / max(float(np.linalg.norm(step)), 1e-9)


def _rectangle(axis: NDArray[np.float64], along: tuple[float, float], across: tuple[float, float]) -> NDArray[np.float64]:
    """The rectangle (4, 2) spanning ``along`` on ``axis`` and ``across`` on its normal."""
    normal = np.array([-axis[1], axis[0]])
    return np.array([along[i] * axis + across[j] * normal for i, j in ((0, 0), (1, 0), (1, 1), (0, 1))])


def _joined(p: list[int], q: list[int], geo: CardGeometry, centre_xy: NDArray[np.float64], look: TableLook) -> list[int] | None:
    """Two pieces as one row parted by a hidden card, or None when they are not."""
    turn = math.cos(math.radians(_BRIDGE_TURN_DEG))
    if len(p) == len(q) == 1:
        # Two lone cards: their row runs through both centres, and each card's own axis is
        # turned from it only as the card was laid (two such turns add up, so they are not
        # compared with each other).
        axis = geo.centres[q[0]] - geo.centres[p[0]]
        axis /= max(float(np.linalg.norm(axis)), 1e-9)
        dp, dq = _direction(p, geo, axis), _direction(q, geo, axis)
        if min(abs(float(dp @ axis)), abs(float(dq @ axis))) < turn:
            return None
    else:
        longer = _direction(p if len(p) >= len(q) else q, geo)
        dp, dq = _direction(p, geo, longer), _direction(q, geo, longer)
        if abs(float(dp @ dq)) < turn:
            return None
        # Both pieces' directions, each as much as it has cards: a lone card's own axis is
        # turned by up to ten degrees from its row's (more when part of it is hidden).
        axis = len(p) * dp + len(q) * (dq if float(dp @ dq) > 0 else -dq)
        axis /= max(float(np.linalg.norm(axis)), 1e-9)
    normal = np.array([-axis[1], axis[0]])
    line = float(np.mean(geo.centres[p if len(p) >= len(q) else q] @ normal))
    cards = p + q
    long, short = float(np.mean(geo.longs[cards])), float(np.mean(geo.shorts[cards]))
    across = float(np.max(np.abs(geo.centres[cards] @ normal - line))) / long
    if across > _BRIDGE_ACROSS:
        return None
    first, second = sorted((p, q), key=lambda piece: float(np.mean(geo.centres[piece] @ axis)))
    first = sorted(first, key=lambda k: float(geo.centres[k] @ axis))
    second = sorted(second, key=lambda k: float(geo.centres[k] @ axis))
    a, b = first[-1], second[0]
    gap = separation(geo.quads[a], geo.quads[b]) / short
    if not _BRIDGE_GAP[0] <= gap <= _BRIDGE_GAP[1] or len(cards) + _hidden_count(gap) > MAX_ROW:
        return None
    # The gap against the bare table just inside the row, beside all its cards (a hand
    # reaching over the row comes from the player's side, and the pool lies further in).
    inward = 1.0 if float((centre_xy - geo.centres[a]) @ normal) > 0 else -1.0
    beside = sorted((line + inward * 0.6 * long, line + inward * 0.85 * long))
    end_a, start_b = float(np.max(geo.quads[a] @ axis)), float(np.min(geo.quads[b] @ axis))
    gap_xy = _rectangle(axis, (end_a + 0.1 * short, start_b - 0.1 * short), (line - 0.4 * long, line + 0.4 * long))
    table_xy = [_rectangle(axis, (float(np.min(geo.quads[k] @ axis)), float(np.max(geo.quads[k] @ axis))), (beside[0], beside[1]))
                for k in cards]
    share = table_share(look, gap_xy, table_xy)
    hidden = _HIDDEN_TABLE_ON_LINE if len(cards) >= 3 and across <= _ON_LINE else _HIDDEN_TABLE
    if share is None or share >= hidden:
        return None
    # A gap with room for two cards or more hides each in a slot of its own: a slot that looks
    # mostly like the bare table hides none, and the row ends there (the rest of the gap is
    # covered by a neighbour's hand over their own row, or by a pool card).
    bounds = np.linspace(end_a, start_b, _hidden_count(gap) + 1)
    if len(bounds) > 2:
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            slot_xy = _rectangle(axis, (lo + 0.1 * short, hi - 0.1 * short), (line - 0.4 * long, line + 0.4 * long))
            bare = table_share(look, slot_xy, table_xy)
            if bare is not None and bare >= _BARE_SLOT:
                return None
    return first + second


def _hidden_count(gap: float) -> int:
    """How many cards a gap in a row (in short sides) hides: at least one, each a card and a row's gap wide."""
    return max(1, round(gap / 1.15))


def _join_hidden(pieces: list[list[int]], geo: CardGeometry, centre_xy: NDArray[np.float64], look: TableLook) -> list[list[int]]:
    """The pieces, with those parted by a hidden card joined into one row (with any piece lying in the gap)."""
    pieces = [list(piece) for piece in pieces]
    while True:
        for i, j in itertools.combinations(range(len(pieces)), 2):
            both = _joined(pieces[i], pieces[j], geo, centre_xy, look)
            if both is not None:
                # Cards seen in the gap (a piece the chains left apart, turned or cut short) are the row's too.
                inside = [k for k in range(len(pieces)) if k not in (i, j) and _in_gap(pieces[k], both, geo)]
                row = both + [c for k in inside for c in pieces[k]]
                axis = _direction(both, geo)
                pieces[i] = sorted(row, key=lambda c: float(geo.centres[c] @ axis))
                for k in sorted([j] + inside, reverse=True):
                    del pieces[k]
                break
        else:
            return pieces


def _in_gap(piece: list[int], row: list[int], geo: CardGeometry) -> bool:
    """Whether all of a piece's cards lie between a row's ends, on its line (within ``_BRIDGE_ACROSS``)."""
    axis = _direction(row, geo)
    normal = np.array([-axis[1], axis[0]])
    along = geo.centres[row] @ axis
    line = float(np.mean(geo.centres[row] @ normal))
    long = float(np.mean(geo.longs[row]))
    ours = geo.centres[piece]
    return bool(np.all((ours @ axis > along.min()) & (ours @ axis < along.max())
                       & (np.abs(ours @ normal - line) <= _BRIDGE_ACROSS * long)))


def row_chains(
    corners: Sequence[NDArray], centre_xy: Sequence[float], table_xy: NDArray[np.float64] | None,
    image_size_wh: tuple[int, int] | None = None, frame_bgr: NDArray[np.uint8] | None = None,
) -> list[list[int]]:
    """The groups of cards that can be players' rows, each in order along the row.

    Parameters
    ----------
    corners : sequence of ndarray (4, 2), the face-up cards' corners in image pixels
    centre_xy : the table's middle
    table_xy : the table top (N, 2), or None (then how far out a card lies is measured to the image's edge)
    image_size_wh : (width, height) of the image, when the table top is unknown
    frame_bgr : ndarray (H, W, 3) uint8, the photo; without it, pieces of a row parted by a
        hidden card stay apart

    A row lies out from the middle: its cards at least ``_ROW_DEPTH`` of the way from the
    table's middle to its edge, or near the edge (``_ROW_INSET``); a lone card further out
    still (``_LONE_DEPTH``, ``_LONE_INSET``), facing the edge (``_FACING``), and no more
    than ``_LONE_BEYOND_ROWS`` further in than the longer rows' cards. Without the
    table top, a card facing the photo's border is one from ``_FACING_DEPTH`` out. Nearer
    the middle (where a table top's outline reaching too far out puts a row), only
    ``_INNER_ROW`` cards side by side or more make a row.
    """
    if len(corners) == 0:
        return []
    geo = card_geometry(corners)
    if table_xy is not None:
        outline = table_xy
    else:
        width, height = image_size_wh or (2 * centre_xy[0], 2 * centre_xy[1])
        outline = np.array([(0, 0), (width - 1, 0), (width - 1, height - 1), (0, height - 1)], np.float64)
    depth = np.array([depth_in_table(c, centre_xy, outline) for c in geo.centres])
    # Off the table top (a card on the floor, on a shelf): never a row.
    far = _OFF_TABLE if table_xy is not None else np.inf
    # How far in from the table's edge, in the card's own length (the photo's scale there).
    contour = outline.astype(np.float32).reshape(-1, 1, 2)
    inset = np.array([cv2.pointPolygonTest(contour, (float(x), float(y)), True) for x, y in geo.centres]) / geo.longs
    # How far the edge lies ahead along the card's length, either way. A nearly square quad
    # (a card partly hidden) does not say which way it faces.
    long_axes = np.stack([-geo.short_axes[:, 1], geo.short_axes[:, 0]], axis=1)
    ahead = np.array([min(ray_exit(c, d, outline), ray_exit(c, -d, outline)) for c, d in zip(geo.centres, long_axes)]) / geo.longs
    squarish = geo.squarish
    faces_edge = (ahead <= _FACING * inset) | squarish
    facing = np.zeros(len(corners), bool)
    if table_xy is None:
        out = np.linalg.norm(geo.centres - np.asarray(centre_xy, np.float64), axis=1) * (1 / np.maximum(depth, 1e-9) - 1)
        facing = (depth >= _FACING_DEPTH) & (ahead <= _FACING * np.maximum(inset, out / geo.longs)) & ~squarish
    may_be_row = (((inset <= _ROW_INSET) | (depth >= _ROW_DEPTH)) & (depth <= far)) | facing
    # A player's lone card faces them: the edge lies ahead along its length, near or nearer
    # than any other way (a pool card lies every way).
    may_be_lone_row = (((inset <= _LONE_INSET) | (depth >= _LONE_DEPTH)) & (faces_edge | (ahead <= _ROW_INSET))) | facing
    outer = [k for k in range(len(corners)) if may_be_row[k]]
    chains = [[outer[k] for k in chain] for chain in find_chains([corners[k] for k in outer])] if outer else []
    pieces = [piece for chain in chains for piece in _cut_into_rows(chain, geo)]
    inner = [k for k in range(len(corners)) if not may_be_row[k] and depth[k] <= far]
    inner_chains = [[inner[k] for k in chain] for chain in find_chains([corners[k] for k in inner])] if inner else []
    pieces += [piece for chain in inner_chains for piece in _cut_into_rows(chain, geo) if len(piece) >= _INNER_ROW]
    if frame_bgr is not None:
        pieces = _join_hidden(pieces, geo, np.asarray(centre_xy, np.float64), table_look(frame_bgr))
    # A lone card far further in than every longer row lies in the pool, not in front of a player.
    in_rows = [k for piece in pieces if len(piece) >= 2 for k in piece]
    deepest = float(np.max(inset[in_rows])) if in_rows else np.inf
    return [piece for piece in pieces
            if len(piece) >= 2 or (may_be_lone_row[piece[0]] and inset[piece[0]] <= deepest + _LONE_BEYOND_ROWS)]
