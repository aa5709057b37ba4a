"""Seats proposed from where the rows lie: each row's player sits on its outer side.

Rows are groups of cards lying side by side out from the middle of the table, where the
pool lies (``calibration.rows``). The player sits on the row's outer side, in front of its
middle, at the table's edge when the table top is known. An arm reaching in over the table's
edge far from every row's seat (``calibration.arms``), and from every arm beside such a seat's,
is a player whose row lies hidden under their hand: they sit where it reaches in. Otherwise, rows all along one edge (one row alone
included) get one more seat across the table: a game has two players at least, and they sit
round the table.

Names given say how many play: with more rows than names, the shortest rows go (of two as
short, the one whose seat lies nearer another); a player still without a seat sits in the
widest stretch of the table's edge that no seat has (players spread out round a table),
beside a row rather than in front of it: there the cards would be arranged so that the
guessed seat took the row's own (the player without a row has laid none yet, or none was
seen).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

from calibration.areas import ray_exit
from calibration.rows import row_chains
from calibration.seats import Seat
from vision.arrange import arrange_rows, card_geometry
from vision.backs import find_backs, heap_share

__all__ = ["ProposalError", "propose_seats", "seat_names", "table_centre", "off_heap"]

_MAX_PLAYERS = 6
_SEAT_OUT = 1.2  # without a table top, a player sits this many long sides beyond the row
_ONE_EDGE_DEG = 30.0  # rows whose outer sides face within this angle lie along one edge
# An arm reaching in this many card long sides or more from every seat is another player's:
# a player's arms reach in a little to either side of them, rarely half a metre away.
_ARM_APART = 3.5
# Arms reaching in within this many long sides of each other are one player's: one arm seen
# in two pieces (a sleeve's or a shadow's edge across it), or both hands held close.
_ARM_PAIR = 2.0
# A lone card with at least this share of its surroundings on the heap of face-down cards
# lies on or against the heap: a pool card thrown back, not a player's row.
_ON_HEAP = 0.3
_EDGE_POINTS = 240  # a guessed seat moves along the table's edge by steps of this share of it


class ProposalError(ValueError):
    """Seats cannot be proposed as asked (a wrong number of names)."""


def seat_names(count: int, players: Sequence[str] | None) -> list[str]:
    """``Player 1..n``, or the given names, one per seat.

    >>> seat_names(2, None)
    ['Player 1', 'Player 2']
    """
    if players is None:
        return [f"Player {k}" for k in range(1, count + 1)]
    names = [p.strip() for p in players]
    if any(not n for n in names) or len(set(names)) != len(names):
        raise ProposalError(f"--players: expected distinct, non-empty names, got {','.join(players)!r}")
    if len(names) != count:
        raise ProposalError(f"--players: {count} name{'s' if count != 1 else ''} expected, got {len(names)} ({', '.join(names)})")
    return names


def _angle(point_xy: Sequence[float], centre: NDArray[np.float64]) -> float:
    """A point's angle round the table's middle, clockwise from the bottom of the image."""
    return (math.atan2(point_xy[1] - centre[1], point_xy[0] - centre[0]) - math.pi / 2) % (2 * math.pi)


def _outline(table_xy: NDArray[np.float64] | None, image_size_wh: tuple[int, int]) -> NDArray[np.float64]:
    """The table top's outline (N, 2), or the image's border without one."""
    width, height = image_size_wh
    return table_xy if table_xy is not None else np.array(
        [(0, 0), (width - 1, 0), (width - 1, height - 1), (0, height - 1)], np.float64)


def _across(seat_xy: tuple[float, float], centre: NDArray[np.float64], table_xy: NDArray[np.float64] | None,
            image_size_wh: tuple[int, int]) -> tuple[float, tuple[float, float]]:
    """A seat across the table's middle from a point, at the table's edge (the image's edge
    without a table top), with its angle clockwise from the bottom."""
    direction = centre - np.asarray(seat_xy, np.float64)
    direction /= max(float(np.linalg.norm(direction)), 1e-9)
    reach = ray_exit(centre, direction, _outline(table_xy, image_size_wh))
    if not math.isfinite(reach):
        reach = float(np.linalg.norm(centre - np.asarray(seat_xy)))
    seat = centre + direction * reach
    angle = (math.atan2(direction[1], direction[0]) - math.pi / 2) % (2 * math.pi)
    return angle, _in_image(seat, image_size_wh)


def _in_image(point_xy: Sequence[float], image_size_wh: tuple[int, int]) -> tuple[float, float]:
    """The point moved into the image (to its nearest edge pixel when outside)."""
    width, height = image_size_wh
    return float(np.clip(point_xy[0], 0, width - 1)), float(np.clip(point_xy[1], 0, height - 1))


def _edge_points(outline_xy: NDArray[np.float64], count: int) -> NDArray[np.float64]:
    """``count`` points (count, 2) evenly spaced round a closed outline (N, 2), from its first corner."""
    closed = np.vstack([outline_xy, outline_xy[:1]])
    lengths = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(closed, axis=0), axis=1))])
    at = np.linspace(0.0, lengths[-1], count, endpoint=False)
    return np.stack([np.interp(at, lengths, closed[:, 0]), np.interp(at, lengths, closed[:, 1])], axis=1)


def _rows_of(seats_xy: Sequence[Sequence[float]], corners: Sequence[NDArray], image_size_wh: tuple[int, int]) -> dict[int, set[int]]:
    """Each seat's row (``arrange_rows``) as a set of card indices, by the seat's index."""
    seats = [Seat(str(k), (float(x), float(y))) for k, (x, y) in enumerate(seats_xy)]
    return {int(row.player): set(row.cards) for row in arrange_rows(corners, seats, image_size_wh)}


def _in_widest_gap(seats: Sequence[tuple[float, tuple[float, float]]], corners: Sequence[NDArray],
                   centre: NDArray[np.float64], table_xy: NDArray[np.float64] | None,
                   image_size_wh: tuple[int, int]) -> tuple[float, tuple[float, float]]:
    """A seat at the table's edge (the image's without a table top) halfway round the widest
    gap between the seats' angles round the middle (clockwise from the bottom), with its angle.
    Where the cards would be arranged so that it took a card of another seat's row, it moves
    along the edge to the nearest point where it takes none (players sit side by side; a
    player without a row yet has no card there). ``seats``: each seat's angle and place."""
    ordered = sorted(angle for angle, _ in seats)
    gaps = [((b - a) % (2 * math.pi)) or 2 * math.pi for a, b in zip(ordered, ordered[1:] + ordered[:1])]
    widest = int(np.argmax(gaps))
    angle = (ordered[widest] + gaps[widest] / 2) % (2 * math.pi)
    # _angle's inverse: the direction from the middle at this angle (0 = straight down).
    direction = np.array([-math.sin(angle), math.cos(angle)])
    angle, seat = _across(tuple(centre - direction), centre, table_xy, image_size_wh)
    others = [xy for _, xy in seats]
    theirs = set().union(*_rows_of(others, corners, image_size_wh).values())

    def takes_a_row_card(xy: tuple[float, float]) -> bool:
        return bool(_rows_of([*others, xy], corners, image_size_wh).get(len(others), set()) & theirs)

    if not takes_a_row_card(seat):
        return angle, seat
    points = _edge_points(_outline(table_xy, image_size_wh), _EDGE_POINTS)
    at = int(np.argmin(np.linalg.norm(points - np.asarray(seat), axis=1)))
    # Along the edge from there, either way round, nearest first.
    steps = np.abs(np.arange(len(points)) - at)
    for k in np.argsort(np.minimum(steps, len(points) - steps), kind="stable"):
        moved = _in_image(points[k], image_size_wh)
        if not takes_a_row_card(moved):
            return _angle(moved, centre), moved
    return angle, seat


def table_centre(table_xy: NDArray[np.float64] | None, image_size_wh: tuple[int, int]) -> NDArray[np.float64]:
    """The table's middle: the table top's mean point, or the image centre without one."""
    width, height = image_size_wh
    return np.array(table_xy.mean(axis=0) if table_xy is not None else (width / 2, height / 2), np.float64)


def off_heap(rows: Sequence[list[int]], corners: Sequence[NDArray], heaps_xy: Sequence[NDArray[np.float64]]) -> list[list[int]]:
    """The rows, less the lone cards lying on or against a heap of face-down cards (``vision.backs``).

    Parameters
    ----------
    rows : card indices, one list per row
    corners : sequence of ndarray (4, 2), the face-up cards' corners in image pixels
    heaps_xy : the heaps' outlines (N, 2) from ``vision.backs.find_backs``
    """
    return [list(row) for row in rows if len(row) > 1 or heap_share(corners[row[0]], heaps_xy) < _ON_HEAP]


def propose_seats(
    corners: Sequence[NDArray], image_size_wh: tuple[int, int], table_xy: NDArray[np.float64] | None = None,
    players: Sequence[str] | None = None, frame_bgr: NDArray[np.uint8] | None = None,
    rows: Sequence[list[int]] | None = None, arms_xy: NDArray[np.float64] | None = None,
    heaps_xy: Sequence[NDArray[np.float64]] | None = None,
) -> tuple[Seat, ...]:
    """One seat per row, on the row's outer side, named clockwise from the bottom of the image.

    A game has two players at least, sitting round the table: when every row found lies
    along one edge (a single row included), one more seat is proposed across the table
    from theirs (that player's row hidden under a hand, or not laid yet), unless an arm
    reaching in far from every row's seat shows where another player sits: then a seat there.
    Names given settle the count: the shortest rows go, or guessed seats fill the widest
    stretches of the table's edge that have none.

    Parameters
    ----------
    corners : sequence of ndarray (4, 2), the face-up cards' corners in image pixels
    image_size_wh : (width, height) of the image; seats are kept inside it
    table_xy : the table top (N, 2), or None (then the image centre is the middle)
    players : names, clockwise from the bottom, as many as seats wanted; default ``Player 1..n``, a seat per row
    frame_bgr : ndarray (H, W, 3) uint8, the photo, to tell a row parted by a hidden card
        from two neighbours' rows (see ``row_chains``); None: such a row's pieces stay apart
    rows : the rows ``row_chains`` gives for these cards round ``table_centre``, when the
        caller has them already; None: found here
    arms_xy : ndarray (K, 2), where arms reach in over the table's edge
        (``calibration.arms.arm_entries``); None: no arms looked for
    heaps_xy : outlines (N, 2) of the heaps of face-down cards (``vision.backs.find_backs``):
        a lone card on or against one is a pool card, no row; None: found in ``frame_bgr``
        when given

    Raises
    ------
    ProposalError
        When ``players`` holds an empty name or one twice.
    """
    width, height = image_size_wh
    if len(corners) == 0:
        return ()
    centre = table_centre(table_xy, image_size_wh)
    if rows is None:
        rows = row_chains(corners, centre, table_xy, image_size_wh, frame_bgr)
    if heaps_xy is None and frame_bgr is not None:
        heaps_xy = find_backs(frame_bgr, corners)
    rows = off_heap(rows, corners, heaps_xy or ())
    # At most six players: the longest rows are the likeliest.
    rows = sorted(rows, key=len, reverse=True)[:_MAX_PLAYERS]
    cards = card_geometry(corners)
    placed: list[tuple[float, tuple[float, float]]] = []
    normals = []
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
        placed.append((_angle(middle, centre), _in_image(seat, image_size_wh)))
        normals.append(normal)
    room = _MAX_PLAYERS if players is None else len(players)
    # More rows than names: the shortest row goes (a pool card near the edge, a piece of a
    # row); of two as short, the one whose seat lies nearer another (players spread out),
    # then the one further in from the image's edge (players sit at the table's edge).
    lengths = [len(row) for row in rows]
    while len(placed) > room:
        def doubt(i: int) -> tuple[int, float, float]:
            (x, y), others = placed[i][1], [seat for j, (_, seat) in enumerate(placed) if j != i]
            return lengths[i], min(math.dist((x, y), seat) for seat in others), -min(x, y, width - 1 - x, height - 1 - y)

        gone = min(range(len(placed)), key=doubt)
        del placed[gone], normals[gone], lengths[gone]
    # A player whose row lies hidden under their hand: their arm reaches in far from every seat.
    # Given names say how many play: no more seats than names.
    by_arm: list[tuple[float, tuple[float, float]]] = []
    apart = _ARM_APART * float(np.mean(cards.longs))
    entries = [(float(x), float(y)) for x, y in (arms_xy if arms_xy is not None and placed else ())]
    seated = [any(math.dist(e, seat) <= apart for _, seat in placed) for e in entries]
    # Beside an arm that reaches in near a row's seat, another is that player's too.
    pair = _ARM_PAIR * float(np.mean(cards.longs))
    near = [any(seated[i] and math.dist(e, entries[i]) <= pair for i in range(len(entries))) for e in entries]
    for (x, y), taken in zip(entries, near):
        if not taken and len(placed) + len(by_arm) < room and all(math.dist((x, y), seat) > apart for _, seat in by_arm):
            by_arm.append((_angle((x, y), centre), _in_image((x, y), image_size_wh)))
    # Players sit round the table: when every row found lies along one edge (one row alone
    # included), another player sits across, their row hidden (or not laid yet).
    one_edge = min(float(n @ normals[0]) for n in normals) > math.cos(math.radians(_ONE_EDGE_DEG)) if normals else False
    guessed = by_arm
    if one_edge and len(placed) < room and not by_arm:
        guessed = [_across(tuple(np.mean([seat for _, seat in placed], axis=0)), centre, table_xy, image_size_wh)]
    # Named players still without a seat sit where an arm reaches in apart from every seat
    # (the one furthest from them first), else where the table's edge has none.
    while players is not None and placed and len(placed) + len(guessed) < room:
        seats = [seat for _, seat in placed + guessed]
        free = [(min(math.dist(e, seat) for seat in seats), e) for e in entries]
        free = [(far, e) for far, e in free if far > pair]
        if free:
            arm = max(free)[1]
            guessed = guessed + [(_angle(arm, centre), _in_image(arm, image_size_wh))]
        else:
            guessed = guessed + [_in_widest_gap(placed + guessed, corners, centre, table_xy, image_size_wh)]
    placed = sorted(placed + guessed, key=lambda item: item[0])
    names = seat_names(len(placed), players)
    return tuple(Seat(name, item[1], guessed=any(item is g for g in guessed)) for name, item in zip(names, placed))
