"""Seats proposed from where the rows lie: each row's player sits on its outer side.

Rows are groups of cards lying side by side out from the middle of the table (the pool
lies in the middle); a group longer than a row can be (8 cards) is two rows touching and
is cut at its widest gap. The player sits on the row's outer side, in front of its
middle, at the table's edge when the table top is known.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

from calibration.areas import depth_in_table, ray_exit
from calibration.seats import Seat

__all__ = ["ProposalError", "propose_seats", "seat_names", "row_chains", "MAX_ROW"]

MAX_ROW = 8  # an eighth card is a rules error, but it lies in the row
_MAX_PLAYERS = 6
_SEAT_OUT = 1.2  # without a table top, a player sits this many long sides beyond the row
# Rows lie out from the middle: at least this share of the way from the table's middle to
# its edge (a lone card further still), where thrown-back pool cards rarely land.
_ROW_DEPTH, _LONE_DEPTH = 0.5, 0.6
_OFF_TABLE = 1.05  # beyond the table top's edge (with room for its outline's error)
# Cards of one row: axes within this angle, centres at most this many short sides apart
# along the row (room for a wide gap) and this many long sides across.
_LINK_TURN_DEG, _LINK_STEP, _LINK_ACROSS = 30.0, 1.9, 0.6


class ProposalError(ValueError):
    """Seats cannot be proposed as asked (a wrong number of names)."""


def seat_names(count: int, players: Sequence[str] | None) -> list[str]:
    """``Player 1..n``, or the given names when there is one per seat.

    >>> seat_names(2, None)
    ['Player 1', 'Player 2']
    """
    if players is None:
        return [f"Player {k}" for k in range(1, count + 1)]
    names = [p.strip() for p in players]
    if any(not n for n in names) or len(set(names)) != len(names):
        raise ProposalError(f"--players: expected distinct, non-empty names, got {','.join(players)!r}")
    if len(names) != count:
        raise ProposalError(
            f"--players: the table shows {count} row{'s' if count != 1 else ''}, so {count} name"
            f"{'s' if count != 1 else ''} expected, got {len(names)} ({', '.join(names)}); "
            "name them in clockwise order from the bottom of the image, or drag and rename seats in the window"
        )
    return names


@dataclass(frozen=True)
class _Cards:
    centres: NDArray[np.float64]  # (N, 2)
    short_axes: NDArray[np.float64]  # (N, 2) unit vectors along each card's short side (along a row)
    shorts: NDArray[np.float64]  # (N,)
    longs: NDArray[np.float64]  # (N,)


def _cards(corners: Sequence[NDArray]) -> _Cards:
    quads = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    short_vec = (quads[:, 1] - quads[:, 0] + quads[:, 2] - quads[:, 3]) / 2
    long_vec = (quads[:, 3] - quads[:, 0] + quads[:, 2] - quads[:, 1]) / 2
    shorts = np.linalg.norm(short_vec, axis=1)
    return _Cards(quads.mean(axis=1), short_vec / np.maximum(shorts, 1e-9)[:, None], shorts, np.linalg.norm(long_vec, axis=1))


def _linked(cards: _Cards, i: int, j: int) -> bool:
    """Two cards that can lie in one row: axes alike, side by side, with room for a wide gap."""
    a, b = cards.short_axes[i], cards.short_axes[j]
    if abs(float(a @ b)) < math.cos(math.radians(_LINK_TURN_DEG)):
        return False
    axis = a + np.sign(float(a @ b)) * b
    axis /= max(float(np.linalg.norm(axis)), 1e-9)
    step = cards.centres[j] - cards.centres[i]
    along = abs(float(step @ axis))
    across = abs(float(step @ np.array([-axis[1], axis[0]])))
    short = (cards.shorts[i] + cards.shorts[j]) / 2
    long = (cards.longs[i] + cards.longs[j]) / 2
    return along <= _LINK_STEP * short and across <= _LINK_ACROSS * long


def _split_long(group: list[int], cards: _Cards) -> list[list[int]]:
    """A group of more than ``MAX_ROW`` cards cut at its widest gaps into rows that can be."""
    if len(group) <= MAX_ROW:
        return [group]
    steps = np.linalg.norm(np.diff(cards.centres[group], axis=0), axis=1)
    # Cut at the widest step that leaves both pieces at least two cards long.
    order = [k for k in np.argsort(-steps) if 1 <= k < len(group) - 2] or [len(group) // 2 - 1]
    cut = int(order[0]) + 1
    return _split_long(group[:cut], cards) + _split_long(group[cut:], cards)


def row_chains(
    corners: Sequence[NDArray], centre_xy: Sequence[float], table_xy: NDArray[np.float64] | None,
    image_size_wh: tuple[int, int] | None = None,
) -> list[list[int]]:
    """The groups of cards that can be players' rows, each in order along the row.

    A row lies out from the middle (the pool is in the middle): cards at least
    ``_ROW_DEPTH`` of the way from the table's middle to its edge (the image's edge when
    the table top is unknown), linked when they lie side by side with a gap of up to
    about a card. A lone card is a row of one only further out (``_LONE_DEPTH``).
    """
    if len(corners) == 0:
        return []
    cards = _cards(corners)
    if table_xy is not None:
        outline = table_xy
    else:
        width, height = image_size_wh or (2 * centre_xy[0], 2 * centre_xy[1])
        outline = np.array([(0, 0), (width - 1, 0), (width - 1, height - 1), (0, height - 1)], np.float64)
    depth = np.array([depth_in_table(c, centre_xy, outline) for c in cards.centres])
    # Off the table top (a card on the floor, on a shelf): never a row.
    outer = [k for k in range(len(cards.centres)) if _ROW_DEPTH <= depth[k] <= (_OFF_TABLE if table_xy is not None else np.inf)]
    parent = {k: k for k in outer}

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for i, j in itertools.combinations(outer, 2):
        if _linked(cards, i, j):
            parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for k in outer:
        groups.setdefault(root(k), []).append(k)
    rows = []
    for group in groups.values():
        axis = cards.short_axes[group[0]]
        group.sort(key=lambda k: float(cards.centres[k] @ axis))
        for piece in _split_long(group, cards):
            if len(piece) >= 2 or depth[piece[0]] >= _LONE_DEPTH:
                rows.append(piece)
    return rows


def propose_seats(
    corners: Sequence[NDArray], image_size_wh: tuple[int, int], table_xy: NDArray[np.float64] | None = None,
    players: Sequence[str] | None = None,
) -> tuple[Seat, ...]:
    """One seat per row, on the row's outer side, named clockwise from the bottom of the image.

    Parameters
    ----------
    corners : sequence of ndarray (4, 2), the face-up cards' corners in image pixels
    image_size_wh : (width, height) of the image; seats are kept inside it
    table_xy : the table top (N, 2), or None (then the image centre is the middle)
    players : names, one per row, clockwise from the bottom; default ``Player 1..n``

    Raises
    ------
    ProposalError
        When ``players`` does not hold one name per row found.
    """
    width, height = image_size_wh
    if len(corners) == 0:
        return ()
    centre = np.array(table_xy.mean(axis=0) if table_xy is not None else (width / 2, height / 2), np.float64)
    # At most six players: the longest rows are the likeliest.
    rows = sorted(row_chains(corners, centre, table_xy, image_size_wh), key=len, reverse=True)[:_MAX_PLAYERS]
    cards = _cards(corners)
    placed: list[tuple[float, tuple[float, float]]] = []
    for row in rows:
        middle = cards.centres[row].mean(axis=0)
        along = cards.centres[row[-1]] - cards.centres[row[0]] if len(row) > 1 else cards.short_axes[row[0]]
        normal = np.array([-along[1], along[0]]) / max(float(np.linalg.norm(along)), 1e-9)
        if normal @ (middle - centre) < 0:
            normal = -normal
        long_side = float(np.mean(cards.longs[row]))
        reach = ray_exit(middle, normal, table_xy) if table_xy is not None else math.inf
        if not math.isfinite(reach):
            reach = _SEAT_OUT * long_side
        # At least a card's length out, so the player is in front of the row, not on it.
        seat = middle + normal * max(reach, 0.75 * long_side)
        seat = (float(np.clip(seat[0], 0, width - 1)), float(np.clip(seat[1], 0, height - 1)))
        angle = (math.atan2(middle[1] - centre[1], middle[0] - centre[0]) - math.pi / 2) % (2 * math.pi)
        placed.append((angle, seat))
    placed.sort(key=lambda item: item[0])
    names = seat_names(len(placed), players)
    return tuple(Seat(name, position) for name, (_, position) in zip(names, placed))
