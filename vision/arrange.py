"""From the cards on the table to each player's row, in that player's left-to-right order."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

from calibration.seats import Seat, facing, left_to_right, table_centre
from referee.rows import MAX_LENGTH
from vision.card_sizes import SQUARISH

__all__ = ["PlacedRow", "arrange_rows", "find_chains", "CardGeometry", "card_geometry", "off_line", "separation", "separations", "neighbour_gaps", "room_for_a_card", "row_gaps", "gap_places", "nearest_seats", "ends_continued"]

# Centre-to-centre distance of neighbours in a row, in short sides: touching cards
# sit 1 apart, cards half a card apart 1.5 apart; more room for rotation and tilt.
_MAX_STEP = 1.75
_LEAST_STEP = 0.7  # and at least this (less: one card lying on the other)
_MAX_SIDEWAYS = 0.45  # offset across the row, in long sides
_MAX_TURN_DEG = 28.0  # angle between neighbours' axes (each turned up to 10 degrees, seen at a slant: up to 26 seen)
_PARTIAL_LONG = 1.15  # a lone quad's long side up to this many cards' short sides: perhaps a part of a card
_MAX_BRIDGE = 3.2  # centre to centre across one missing card, in short sides
_MAX_BRIDGE_ROW = 4.4  # a player's row (two cards or more) is continued across two, by two cards or more
_ACROSS_MISFIT = 2.0  # a neighbour off the line weighs this much more than one further along
_PIECE_FARTHER = 1.5  # a piece cut from a chain counts as this much further than a whole chain
_SEAT_REACH = 2.5  # how far beyond a row's end its player may sit, in short sides ...
_ROW_STEP = 1.3  # ... and beyond its right end, half the cards still to come further, each this many short sides
_ALONG_EDGE = 0.5  # which of a player's candidate rows is nearest: a step along the table's edge counts this much
# A row runs along its player's edge: its player sits off its line, in front of it (0.57 long sides at
# least on 4,500 dev layouts). A chain whose line passes nearer its player points at them: their lone
# card and a pool card beyond it, two nearly square quads seen at a slant taken as side by side.
_ON_LINE = 0.3
# Cutting a chain shared by players on one edge (see _share_chain):
_SEAT_OFF = 0.2  # a player sits this near their row's middle, in the row's length ...
_SEAT_OFF_WEIGHT = 20.0  # ... or the cut costs this much per row length further
_SEAT_LINEAR = 0.25  # nearer still is a little better
_IN_FRONT = 0.75  # a lone card's player sits this near its middle at most, in its short side (0.52 seen), else beside it
_LINE_WEIGHT = 30.0  # per squared offset from the piece's own line, in long sides
_MAX_OVERLAP = 0.05  # detected corners of touching cards overlap less than this, in short sides
_OVERLAP_COST = 10.0
# Each player's row lies at its own depth from the table edge: neighbours in one row sit on one
# line (their centres across it differ by 0.14 long sides at most seen, 0.08 in 99 of 100), the
# ends of two players' rows may sit a step apart.
_STEP_FROM = 0.15  # a step across the chain costs nothing up to this, in long sides ...
_STEP_TO = 0.2  # ... and its full cost from here
# More than a lone card's piece pays when its player sits up to a card off it (as when the
# other card of a two-card row lies hidden under the neighbour's end): the step decides.
_STEP_COST = 20.0
# Gaps between neighbours, in short sides: within a row up to half a card, as seen in a slanted
# view up to about 0.6; where two rows meet, often wider (a quarter of such gaps exceed 0.55).
_WIDE_GAP_FROM = 0.5  # a gap costs nothing up to half a card ...
_WIDE_GAP = 0.7  # ... and rises evenly to its full cost here: more than half a card, with room for a slanted view
_WIDE_GAP_COST = 1.0
# One hand lays a row: its gaps are alike. In a chain of _USUAL_LINKS links or more, a gap costs
# from _WIDER_THAN_USUAL over the chain's median gap, where that comes before half a card: rows
# laid tight (touching to a quarter card apart) meet at a gap a little under half a card. On 600
# dev layouts a tier, this cut 2 hard tables right that were cut one card off; easy and medium
# unchanged (0.2 cut 2 easy tables wrong, 0.3 flagged 4 more right hard verdicts).
_USUAL_LINKS, _WIDER_THAN_USUAL = 4, 0.25
_UNSURE_SIDE = 0.5  # a card beneath another sticking out less than this along a chain, in short sides: on either side of it
_LEFT_OUT_COST = 4.0  # a player who gets no piece of a chain they are nearest to
# A cut one card over costing less than this more leaves that card to either player: the gaps on
# its two sides alike, the lines as straight. Each player's nearness to their row's middle counts
# here only beyond _SEAT_OFF: a player sits anywhere within a fifth of their row's middle, so a cut
# that leaves both within it is as likely as the next (the cut still takes the nearer; the card is
# disputed). On 600 dev layouts a tier and five dev photo sets (easy to hard), leaving the
# nearness within a fifth out flagged 5 more wrong verdicts (easy and medium) and 5 more right
# ones (net). Beyond the margin, a cut at no wider gap than the rows' own is the seats' to decide,
# and they do: on eleven dev sets (five medium, five hard, one easy), of the cuts one card over
# costing 0.05 to 0.2 more (nearness counted), 1 was the truth and 15 not.
_DISPUTED = 0.05
# ... or less than this more, where the cut lies at a gap a little over half a card, or plainly
# wider than the chain's usual one (a link with a cost): rows' own gaps reach that wide, and the
# gap tells the rows apart no better (of such cuts one card over 0.05 to 0.2 more, 3 were the
# truth and 5 not).
_DISPUTED_AT_A_GAP = 0.2
_ROOM_FOR_A_CARD = 0.8  # in short sides: a gap in a row this wide may hold a card under a hand
# A lone card lying more than this many short sides further from its player than the other
# players' rows of two cards or more lie from theirs (each row's card nearest its player; their
# median) is no row: a pool card nearest a player whose own row was not found (under a hand, or
# cut into a neighbour's). Rows lie along the table's edge, where their players sit.
# On the truth of 700 dev layouts (hard, medium and easy) rows of one card lay 0.84 further at most,
# pool cards 1.17 at least; 2 leaves room for seats marked unevenly.
_LONE_DEEPER = 2.0


@dataclass(frozen=True)
class PlacedRow:
    """One player's row: card indices left to right as the player sees them.

    ``disputed`` are the cards at the row's end that may as well be a neighbour's, each with
    that player's name: where two rows meet end to end, a cut one card over fits nearly as well.
    """

    player: str
    cards: tuple[int, ...]
    disputed: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class CardGeometry:
    """Where cards lie: corners, centres, unit short axes (along a row) and side lengths, in image pixels."""

    quads: NDArray[np.float64]  # (N, 4, 2)
    centres: NDArray[np.float64]  # (N, 2)
    short_axes: NDArray[np.float64]  # (N, 2) unit vectors along each card's short side
    shorts: NDArray[np.float64]  # (N,)
    longs: NDArray[np.float64]  # (N,)

    def __post_init__(self) -> None:
        if self.quads.ndim != 3 or self.quads.shape[1:] != (4, 2):
            raise ValueError(f"quads must be (N, 4, 2), got shape {self.quads.shape}")

    @property
    def squarish(self) -> NDArray[np.bool_]:
        """(N,) bool: nearly square quads, perhaps a card's uncovered part, whose short side is uncertain."""
        return self.shorts > SQUARISH * self.longs


def card_geometry(corners: Sequence[NDArray]) -> CardGeometry:
    """The geometry of cards given by their corners (4, 2), clockwise, first edge a short side."""
    quads = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    short_vec = (quads[:, 1] - quads[:, 0] + quads[:, 2] - quads[:, 3]) / 2
    long_vec = (quads[:, 3] - quads[:, 0] + quads[:, 2] - quads[:, 1]) / 2
    shorts = np.linalg.norm(short_vec, axis=1)
    return CardGeometry(quads, quads.mean(axis=1), short_vec / np.maximum(shorts, 1e-9)[:, None], shorts,
                        np.linalg.norm(long_vec, axis=1))


def _geometry(corners: Sequence[NDArray]) -> CardGeometry:
    return _settle_square_cards(card_geometry(corners))


def _settle_square_cards(geo: CardGeometry) -> CardGeometry:
    """Nearly square quads (a card seen at a slant) turned so their short side runs along their row.

    Which side of such a quad is the card's short one is uncertain: it takes the
    one along which it has more neighbours, the other uncertain quads counted as
    turned to suit it (a row of such cards seen steeply, all turned the wrong way at
    first, would never find each other one by one). So does a lone quad no longer
    than a card is wide (a card partly hidden across its long side looks shorter than it is wide).
    """
    neighbours = np.isfinite(_misfits(geo)).sum(axis=1)
    partial = (neighbours == 0) & (geo.longs <= _PARTIAL_LONG * np.median(geo.shorts))
    square = np.flatnonzero(geo.squarish | partial)
    if len(square) == 0:
        return geo
    axes, shorts, longs = geo.short_axes.copy(), geo.shorts.copy(), geo.longs.copy()
    for i in square:
        now = replace(geo, short_axes=axes.copy(), shorts=shorts.copy(), longs=longs.copy())
        turned = _turned(now, [i])
        if _suited_neighbours(turned, i, square) > _suited_neighbours(now, i, square):
            axes[i], shorts[i], longs[i] = turned.short_axes[i], turned.shorts[i], turned.longs[i]
    return replace(geo, short_axes=axes, shorts=shorts, longs=longs)


def _turned(geo: CardGeometry, cards: Sequence[int]) -> CardGeometry:
    """``geo`` with the given cards' short and long sides swapped."""
    axes, shorts, longs = geo.short_axes.copy(), geo.shorts.copy(), geo.longs.copy()
    for k in cards:
        axes[k] = (-axes[k][1], axes[k][0])
        shorts[k], longs[k] = longs[k], shorts[k]
    return replace(geo, short_axes=axes, shorts=shorts, longs=longs)


def _suited_neighbours(geo: CardGeometry, i: int, uncertain: NDArray[np.intp]) -> int:
    """How many cards may be next to card ``i``, each other uncertain quad turned to suit it."""
    across = [int(k) for k in uncertain if k != i and abs(float(geo.short_axes[k] @ geo.short_axes[i])) < math.sqrt(0.5)]
    return int(np.isfinite(_misfits(_turned(geo, across), i)).sum())


def _axis_angle(a: NDArray, b: NDArray) -> float:
    """Angle in degrees between two undirected axes."""
    return math.degrees(math.acos(min(1.0, abs(float(a @ b)))))


def _misfits(geo: CardGeometry, only: int | None = None) -> NDArray[np.float64]:
    """How far each card lies from where a row's next card after another would: (N, N), inf where
    it cannot be next (and on the diagonal); with ``only``, that card's row (N,) alone."""
    rows = slice(None) if only is None else slice(only, only + 1)
    a, b = geo.short_axes[rows][:, None, :], geo.short_axes[None, :, :]
    dots = np.sum(a * b, axis=2)
    axis = a + np.sign(dots)[:, :, None] * b
    axis /= np.maximum(np.linalg.norm(axis, axis=2), 1e-12)[:, :, None]
    step = geo.centres[None, :, :] - geo.centres[rows][:, None, :]
    along = np.abs(np.sum(step * axis, axis=2))
    across = np.abs(step[:, :, 1] * axis[:, :, 0] - step[:, :, 0] * axis[:, :, 1])
    short = (geo.shorts[rows][:, None] + geo.shorts[None, :]) / 2
    long = (geo.longs[rows][:, None] + geo.longs[None, :]) / 2
    fits = ((np.abs(dots) >= math.cos(math.radians(_MAX_TURN_DEG))) & (along >= _LEAST_STEP * short)
            & (along <= _MAX_STEP * short) & (across <= _MAX_SIDEWAYS * long))
    misfit = np.where(fits, along / np.maximum(short, 1e-9) + _ACROSS_MISFIT * across / np.maximum(long, 1e-9), np.inf)
    misfit[np.arange(misfit.shape[0]), np.arange(misfit.shape[0]) if only is None else [only]] = np.inf
    return misfit if only is None else misfit[0]


def find_chains(corners: Sequence[NDArray]) -> list[list[int]]:
    """Groups of cards lying side by side along a line, each in order along the line.

    Every card is in exactly one chain (a lone card is a chain of one). A card
    links to at most one neighbour on each side: the nearest, the one off its line
    counting as further away (where two players' rows overlap, their cards compete).
    """
    return _chains(_geometry(corners))


def _chains(geo: CardGeometry) -> list[list[int]]:
    """``find_chains`` of the cards' settled geometry (``_geometry``)."""
    n = len(geo.centres)
    misfits = _misfits(geo)
    links: dict[int, dict[int, tuple[float, int]]] = {i: {} for i in range(n)}
    for i, j in zip(*np.nonzero(np.triu(np.isfinite(misfits)))):
        i, j = int(i), int(j)
        distance = float(misfits[i, j])
        side_i = 1 if (geo.centres[j] - geo.centres[i]) @ geo.short_axes[i] > 0 else -1
        side_j = 1 if (geo.centres[i] - geo.centres[j]) @ geo.short_axes[j] > 0 else -1
        for a, side, b in ((i, side_i, j), (j, side_j, i)):
            best = links[a].get(side)
            if best is None or distance < best[0]:
                links[a][side] = (distance, b)
    # Keep only mutual links, so a chain never branches.
    adjacency: dict[int, set[int]] = {i: set() for i in range(n)}
    for a in range(n):
        for _, b in links[a].values():
            if any(back == a for _, back in links[b].values()):
                adjacency[a].add(b)
    chains, seen = [], set()
    for start in range(n):
        if start in seen:
            continue
        component, stack = [], [start]
        while stack:
            k = stack.pop()
            if k in seen:
                continue
            seen.add(k)
            component.append(k)
            stack.extend(adjacency[k] - seen)
        axis = _direction(geo, component)
        component.sort(key=lambda k: float(geo.centres[k] @ axis))
        chains.append(component)
    return chains


def arrange_rows(
    corners: Sequence[NDArray], seats: Sequence[Seat] | None, image_size_wh: tuple[int, int],
    beneath: Sequence[NDArray] = (),
) -> list[PlacedRow]:
    """Each player's row from the cards' corners, in the player's own left-to-right order.

    With seats: a row belongs to the nearest seat, at most one row per seat (the
    nearest chain whose cards face the player); a seat whose row holds a single card
    still gets a row of length 1; every other card is the pool's. Without seats:
    rows are chains of at least two aligned cards, the player on the side facing
    away from the image centre, named ``row-1``, ``row-2``, ... clockwise from the
    bottom of the image.

    Parameters
    ----------
    corners : sequence of ndarray (4, 2), clockwise, first edge a short side
    seats : the players' seats, or None
    image_size_wh : (width, height) of the image
    beneath : sequence of ndarray (4, 2), cards lying partly under the cards given, too hidden to
        be read (``vision.beneath.find_cards_beneath``): with seats, each takes its place in the
        chain of the card over it, where it tells one player's row from the next. A row lists the
        i-th as ``len(corners) + i``; a row may hold such cards alone.
    """
    if len(corners) == 0:
        return []
    if not seats or len(beneath) == 0:
        geo = _geometry(corners)
        chains = _chains(geo)
        if seats:
            return _rows_for_seats(geo, chains, seats, image_size_wh)
        return _rows_without_seats(geo, chains, image_size_wh)
    count = len(corners)
    seen, hidden = _geometry(corners), card_geometry(beneath)
    geo = CardGeometry(*(np.concatenate([a, b]) for a, b in
                         zip((seen.quads, seen.centres, seen.short_axes, seen.shorts, seen.longs),
                             (hidden.quads, hidden.centres, hidden.short_axes, hidden.shorts, hidden.longs))))
    positions = np.array([s.position_xy for s in seats], np.float64)
    chains, over = _with_cards_beneath(geo, _chains(seen), count, nearest_seats(positions, geo.centres[:count]))
    # A card beneath another is never of that card's row (where one row ends, the next begins).
    rows = []
    for row in _rows_for_seats(geo, chains, seats, image_size_wh, over):
        cards = tuple(k for k in row.cards if over.get(k) not in row.cards)
        rows.append(replace(row, cards=cards, disputed=tuple(d for d in row.disputed if d[0] in cards)))
    return rows


def _with_cards_beneath(geo: CardGeometry, chains: list[list[int]], count: int, nearest: list[int]
                        ) -> tuple[list[list[int]], dict[int, int]]:
    """The chains of the first ``count`` cards with each later card (one lying beneath a card)
    put in the chain of the card it overlaps most, where that chain holds two cards or more
    nearest two seats or more (``nearest``: each card's nearest seat; a chain that may hold two
    players' rows) and it lies on the chain's line, next to that card on the side it sticks out
    to; the others left out (in one player's chain it would only make a cut no seat asks for).

    Such a card never links in a chain as the cards seen do: lying under its neighbour, it would
    take the place of that card or the next. Beside the card over it, overlapping it, it makes
    the chain's cut fall between them (``_link_costs``): they are two players' rows meeting.
    Also returns the card over each card beneath put in a chain.
    """
    chains = [list(chain) for chain in chains]
    chain_of = {k: c for c, chain in enumerate(chains) for k in chain}
    over_of: dict[int, int] = {}
    for piece in range(count, len(geo.centres)):
        depth = separations(np.repeat(geo.quads[piece][None], count, axis=0), geo.quads[:count])
        over = int(np.argmin(depth))
        if depth[over] >= 0:
            continue
        chain = chains[chain_of[over]]
        seen = [k for k in chain if k < count]
        if len(seen) < 2 or len({nearest[k] for k in seen}) < 2:  # (a lone card's line is too uncertain)
            continue
        axis = _direction(geo, seen)
        normal = np.array([-axis[1], axis[0]])
        line = float(np.mean(geo.centres[seen] @ normal))
        if (abs(float(geo.centres[piece] @ normal) - line) > _MAX_SIDEWAYS * float(np.mean(geo.longs[seen]))
                or _axis_angle(geo.short_axes[piece], axis) > _MAX_TURN_DEG):
            continue
        place = chain.index(over)
        # Under a card inside a chain, a step off that card's line (a row at another depth):
        # such a card may lie on either side of the cut, however it sticks out along the chain.
        off = abs(float((geo.centres[piece] - geo.centres[over]) @ normal)) / float(geo.longs[over])
        if 0 < place < len(chain) - 1 and off > _STEP_TO:
            continue
        # Next to the card over it, on its own side: where its row meets the next.
        before = float(geo.centres[piece] @ axis) < float(geo.centres[over] @ axis)
        chain.insert(place if before else place + 1, piece)
        over_of[piece] = over
    return chains, over_of


def _rows_for_seats(
    geo: CardGeometry, chains: list[list[int]], seats: Sequence[Seat], image_size_wh: tuple[int, int],
    over: dict[int, int] | None = None,
) -> list[PlacedRow]:
    """Each seat's row from the chains (``over``: the card over each card beneath, see ``_with_cards_beneath``)."""
    centre = np.array(table_centre(seats, image_size_wh))
    positions = np.array([s.position_xy for s in seats], np.float64)
    nearest = nearest_seats(positions, geo.centres)
    chains = _join_across_gaps(geo, chains, positions, nearest)
    # A chain whose cards are nearest to several seats may hold players' rows touching
    # along one edge: it is cut into a piece for each (see _share_chain).
    candidates: dict[int, list[tuple[float, int, list[int]]]] = {}
    owners = [sorted({nearest[k] for k in chain}) for chain in chains]
    disputes: dict[int, list[tuple[int, int, int]]] = {}
    for chain_id, chain in enumerate(chains):
        pieces, disputes[chain_id] = _share_chain(geo, chain, owners[chain_id], positions, over)
        for seat, piece in pieces.items():
            seen_as = geo
            if len(piece) > 1 and _points_at(geo, piece, positions[seat]):
                # No row points at its player: their card nearest them, lying across that line, and the pool's beyond it.
                piece = [min(piece, key=lambda k: float(np.linalg.norm(geo.centres[k] - positions[seat])))]
                seen_as = _turned(geo, piece)
            if _faces_seat(seen_as, piece, positions[seat], centre):
                distance = _seat_distance(geo, piece, positions[seat], centre)
                if len(piece) < len(chain):
                    distance *= _PIECE_FARTHER
                candidates.setdefault(seat, []).append((distance, chain_id, piece))
    # Each player's row is the nearest candidate, a piece of a shared chain counting as
    # further (the end of a neighbour's row is no one's own row); a shared chain whose
    # other players have rows elsewhere is shared again among those who took a piece of it.
    picks = {seat: min(options, key=lambda option: option[0]) for seat, options in candidates.items()}
    rows = {seat: pick[2] for seat, pick in picks.items()}
    for chain_id, chain in enumerate(chains):
        sharers = [seat for seat, pick in picks.items() if pick[1] == chain_id]
        if sharers and len(sharers) < len(owners[chain_id]):
            pieces, disputes[chain_id] = _share_chain(geo, chain, sharers, positions, over)
            for seat in sharers:
                if seat in pieces:
                    rows[seat] = pieces[seat]
                else:
                    del rows[seat]
    rows = _without_deep_lone_cards(geo, _bridge_gaps(geo, chains, rows, positions, nearest), positions)
    # A disputed card stands where it is still in the row of the player given it, and the other
    # player's row still ends beside it in that chain (rows shared again or bridged since may not).
    disputed: dict[int, list[tuple[int, str]]] = {}
    for chain_id, found in disputes.items():
        for card, giver, taker in found:
            if card in rows.get(giver, ()) and set(rows.get(taker, ())) & set(chains[chain_id]):
                disputed.setdefault(giver, []).append((card, seats[taker].name))
    placed = []
    for index, seat in enumerate(seats):
        if index in rows:
            r = np.array(left_to_right(facing(seat.position_xy, tuple(centre))))
            ordered = sorted(rows[index], key=lambda k: float(geo.centres[k] @ r))
            placed.append(PlacedRow(seat.name, tuple(ordered), tuple(disputed.get(index, ()))))
    return placed


def _without_deep_lone_cards(geo: CardGeometry, rows: dict[int, list[int]], positions: NDArray[np.float64]) -> dict[int, list[int]]:
    """The rows (by seat), less those of a lone card lying ``_LONE_DEEPER`` further from its player
    than the other rows of two cards or more lie from theirs (two such rows at least tell it)."""
    depth = {seat: min(float(np.linalg.norm(geo.centres[k] - positions[seat])) / float(geo.shorts[k]) for k in row)
             for seat, row in rows.items()}
    rows_of_more = [depth[seat] for seat, row in rows.items() if len(row) >= 2]
    if len(rows_of_more) < 2:
        return rows
    deepest = float(np.median(rows_of_more)) + _LONE_DEEPER
    return {seat: row for seat, row in rows.items() if len(row) >= 2 or depth[seat] <= deepest}


def _join_across_gaps(geo: CardGeometry, chains: list[list[int]], positions: NDArray[np.float64],
                      nearest: list[int]) -> list[list[int]]:
    """Chains joined where one continues another beyond its end (``_continues``), both hold cards
    nearest one player, and that player sits off the middle of either part but near the
    middle of the two together (``_nearer_joined``).

    Two players' rows meeting end to end, with a card of one hidden or missed near their
    meeting: the cards beyond the gap make one chain with the neighbour's row, and alone
    they look like no row of their player's. Joined, the chain is cut where each player
    sits (``_share_chain``). A player whose row is whole on one side of a gap (two rows
    with room between them), or a pool card in line with a row, leaves the chains apart.
    ``nearest`` is each card's nearest seat (``nearest_seats``).
    """
    chains = [list(chain) for chain in chains]
    owners = [{nearest[k] for k in chain} for chain in chains]
    joined = True
    while joined:
        joined = False
        for a, b in itertools.permutations(range(len(chains)), 2):
            shared = owners[a] & owners[b]
            if (
                len(chains[a]) < 2 or not shared or len(owners[a] | owners[b]) < 2
                or not _continues(geo, chains[a], chains[b])
                or not any(_nearer_joined(geo, [[k for k in chains[c] if nearest[k] == seat] for c in (a, b)], positions[seat])
                           for seat in shared)
            ):
                continue
            merged = chains[a] + chains[b]
            axis = _direction(geo, merged)
            chains[a] = sorted(merged, key=lambda k: float(geo.centres[k] @ axis))
            owners[a] |= owners[b]
            del chains[b], owners[b]
            joined = True
            break
    return chains


def _nearer_joined(geo: CardGeometry, parts: list[list[int]], seat_xy: NDArray[np.float64]) -> bool:
    """Whether a player sits off the middle of each of two parts of a row, one of two cards
    or more, and at most half as far off the middle of the two together; or, for two lone
    cards, beside each of them and near the middle of the two.

    A lone card on each side of the gap may as well be the end of a neighbour's row and
    the start of the player's own, with bare table between them: the two join only when
    the player sits in front of neither card but near the middle of the two together
    (the row's middle card hidden, under a hand).
    """
    alone = min(_seat_offset(geo, part, seat_xy) for part in parts)
    together = _seat_offset(geo, parts[0] + parts[1], seat_xy)
    if max(len(part) for part in parts) < 2:
        return alone > _IN_FRONT and together < _SEAT_OFF
    return alone > _SEAT_OFF and together < alone / 2


def _bridge_gaps(
    geo: CardGeometry, chains: list[list[int]], rows: dict[int, list[int]], positions: NDArray[np.float64],
    nearest: list[int],
) -> dict[int, list[int]]:
    """Rows with the pieces that continue them beyond a gap of one or two cards (missed, or under a hand or an arm).

    A piece joins a row of two cards or more only when all its cards are nearest the
    row's player, it lies on the row's line, room for one card beyond one of its ends,
    or for two where the piece has two cards or more (``_MAX_BRIDGE_ROW``: a lone card
    that far may be a pool card's or a false one),
    and the player still sits near the middle of the row it makes. A row of a lone card,
    whose line is uncertain, is continued by a piece of two cards or more on whose line it
    lies, room for one or two cards beyond its end, its player near the middle (``_SEAT_OFF``).
    Any piece (a lone card too) on the row's line, room for two cards beyond its end, joins
    where the player sits off the row seen but at the middle of the two together
    (``_centres_player``): the cards between lie under a hand or an arm; its cards nearest
    another player too, where that player's row lies elsewhere and the piece is no middle of theirs.
    The row is then still wrong, but its cards before the gap are refereed as laid.
    ``nearest`` is each card's nearest seat (``nearest_seats``).
    """
    rows = {seat: list(cards) for seat, cards in rows.items()}
    taken = {k for cards in rows.values() for k in cards}
    free = [chain for chain in chains if not taken & set(chain)]
    grown = True
    while grown:
        grown = False
        for seat, row in rows.items():
            lone = len(row) < 2
            off_middle = _SEAT_OFF if lone else max(_SEAT_OFF, _seat_offset(geo, row, positions[seat]))
            for chain in free:
                ours = all(nearest[k] == seat for k in chain)
                if (ours and _bridged(geo, row, chain) and _seat_offset(geo, row + chain, positions[seat]) <= off_middle) \
                        or _far_end(geo, rows, seat, chain, positions, nearest):
                    row.extend(chain)
                    free.remove(chain)
                    grown = True
                    break
    return rows


def _bridged(geo: CardGeometry, row: list[int], chain: list[int]) -> bool:
    """Whether ``chain`` continues ``row`` across a gap of one card (two, when it holds two cards or more).
    A lone card's line is too uncertain to continue: it lies on the piece's, of two cards or more."""
    if len(row) < 2:
        return len(chain) >= 2 and _continues(geo, chain, row, _MAX_BRIDGE_ROW)
    return _continues(geo, row, chain, _MAX_BRIDGE_ROW if len(chain) >= 2 else _MAX_BRIDGE)


def _far_end(geo: CardGeometry, rows: dict[int, list[int]], seat: int, chain: list[int],
             positions: NDArray[np.float64], nearest: list[int]) -> bool:
    """Whether ``chain`` is the far end of ``rows[seat]`` beyond a hand or an arm (``_centres_player``):
    its cards lie nearest that player, or nearest a neighbour whose row lies elsewhere and whom the
    piece is no middle of (a long row's far end may lie nearer a neighbour's seat)."""
    if not _centres_player(geo, rows[seat], chain, positions[seat]):
        return False
    others = {nearest[k] for k in chain} - {seat}
    return all(other in rows and not _centres_player(geo, rows[other], chain, positions[other]) for other in others)


def _centres_player(geo: CardGeometry, row: list[int], piece: list[int], seat_xy: NDArray[np.float64]) -> bool:
    """Whether a piece on a row's line beyond a gap of one or two cards (``_MAX_BRIDGE_ROW``)
    is the row's far end: its player sits off the row seen (beside a lone card, beyond
    ``_IN_FRONT``; off a longer row's middle, beyond ``_SEAT_OFF``) and near the middle of the
    row and the piece together, the gap taken as holding the row's hidden cards.

    A lone card beyond such a gap may be a pool card or a false one: the player sitting at the
    middle of the two, and at neither, tells the row's own. (On twelve dev sets every piece so
    joined was the row's; 3 wrong verdicts given unflagged became flagged, by the gap.)
    """
    lone = len(row) < 2
    if _seat_offset(geo, row, seat_xy) <= (_IN_FRONT if lone else _SEAT_OFF):
        return False
    # (a lone card's line is the less certain: it lies on a longer piece's)
    if lone and len(piece) >= 2:
        on_line = _continues(geo, piece, row, _MAX_BRIDGE_ROW)
    else:
        on_line = _continues(geo, row, piece, _MAX_BRIDGE_ROW)
    return on_line and _seat_offset(geo, row + piece, seat_xy, spanned=True) <= _SEAT_OFF


def _continues(geo: CardGeometry, row: list[int], piece: list[int], reach: float = _MAX_BRIDGE) -> bool:
    """Whether ``piece`` lies on the line of ``row``, beyond one of its ends (not on it) and its
    centre at most ``reach`` short sides from the end's.

    A piece within a neighbour's step (``_MAX_STEP``) is mostly linked to the row already; one
    that is not (the step a hair too long by the two cards' own sides and turns, as a card seen
    a little smaller) continues it as well: measured here by the row's sides and line.
    """
    axis = _direction(geo, row)
    normal = np.array([-axis[1], axis[0]])
    along = geo.centres[row] @ axis
    line = float(np.mean(geo.centres[row] @ normal))
    long = float(np.mean(geo.longs[row]))
    if np.any(np.abs(geo.centres[piece] @ normal - line) > _MAX_SIDEWAYS * long):
        return False
    if any(_axis_angle(geo.short_axes[k], axis) > _MAX_TURN_DEG for k in piece):
        return False
    short = float(np.mean(geo.shorts[row + piece]))
    piece_along = geo.centres[piece] @ axis
    beyond = max(float(piece_along.min() - along.max()), float(along.min() - piece_along.max()))
    return _LEAST_STEP * short < beyond <= reach * short


def ends_continued(corners: Sequence[NDArray], others: Sequence[NDArray]) -> tuple[int, ...]:
    """The ends of a row of two cards or more (its cards' corners in order) that one of ``others``
    continues beyond room for a card or two: 0 before its first card, ``len(corners)`` after its
    last. Such a card lies on the row's line, its centre more than ``_MAX_STEP`` and at most
    ``_MAX_BRIDGE_ROW`` short sides from the end card's: a card of the row may lie hidden between
    (under a hand of the table's colour, say). On six dev sets (1,050 photos) so flagged: 1 wrong
    verdict no longer given unflagged, 1 right one more flagged; with lone rows too, 4 more right."""
    if len(corners) < 2 or not others:  # (a lone card's line is too uncertain)
        return ()
    geo = card_geometry([*corners, *others])
    row = list(range(len(corners)))
    axis = _direction(geo, row)
    if float((geo.centres[row[-1]] - geo.centres[row[0]]) @ axis) < 0:
        axis = -axis
    along = geo.centres[row] @ axis
    ends = set()
    for k in range(len(corners), len(corners) + len(others)):
        short = float(np.mean(geo.shorts[[*row, k]]))
        at = float(geo.centres[k] @ axis)
        beyond = max(at - along.max(), along.min() - at)
        if _MAX_STEP * short < beyond and _continues(geo, row, [k], _MAX_BRIDGE_ROW):
            ends.add(len(corners) if at > along.max() else 0)
    return tuple(sorted(ends))


def _seat_offset(geo: CardGeometry, cards: list[int], seat_xy: NDArray[np.float64], spanned: bool = False) -> float:
    """How far a player sits from the middle of their row, along it, in the row's length.
    The middle is the mean of the cards' centres; ``spanned``: the middle of their span,
    first card to last (a row whose gaps hold hidden cards)."""
    axis = _direction(geo, cards)
    along = geo.centres[cards] @ axis
    extent = float(along.max() - along.min() + np.mean(geo.shorts[cards]))
    middle = (along.max() + along.min()) / 2 if spanned else along.mean()
    return abs(float(middle - seat_xy @ axis)) / extent


def _seat_distance(geo: CardGeometry, cards: list[int], seat_xy: NDArray[np.float64], centre: NDArray[np.float64]) -> float:
    """How far cards lie from their player: the nearest card's distance, a step along the table's edge
    counting half a step into the table (a row runs along the edge, the pool lies further in)."""
    f = facing(tuple(seat_xy), tuple(centre))
    offsets = geo.centres[cards] - seat_xy
    into = offsets @ np.array(f)
    along = offsets @ np.array(left_to_right(f))
    return float(np.min(np.hypot(into, _ALONG_EDGE * along)))


def nearest_seats(positions: NDArray[np.float64], points: NDArray[np.float64]) -> list[int]:
    """The nearest seat (an index into ``positions`` (S, 2)) of each point (N, 2)."""
    return np.argmin(np.linalg.norm(positions[None, :, :] - points[:, None, :], axis=2), axis=1).tolist()


def _share_chain(
    geo: CardGeometry, chain: list[int], seats: list[int], positions: NDArray[np.float64],
    over: dict[int, int] | None = None,
) -> tuple[dict[int, list[int]], list[tuple[int, int, int]]]:
    """A chain cut into one piece per seat (or fewer), in the seats' order along it, and the
    cards the cut leaves in dispute (``_cut_chain``).

    Rows on one edge may touch: the cut is where the pieces best look like rows of
    their own. Each piece's player sits near its middle (measured in the piece's own
    length), its cards keep to one line across the chain, and two cards of one row
    never overlap and are never more than half a card apart. A player may get no
    piece (their own row lies elsewhere or was not seen) when every piece would fit
    them badly.

    A card beneath another (``over``: the card over it) lies where two rows meet. Where it
    sticks out less than half a card along the chain (mostly across it), which of the two
    lies further along is not seen: the card over it may be the end of one row laid across
    the start of the next, or a card laid on the end of another's row. Both orders are
    tried, and the better cut kept.
    """
    if len(seats) < 2:
        return ({seats[0]: list(chain)} if seats else {}), []
    axis = _direction(geo, chain)
    orders = [list(chain)]
    for piece, top in (over or {}).items():
        if (piece in chain and top in chain and abs(chain.index(piece) - chain.index(top)) == 1
                and abs(float((geo.centres[piece] - geo.centres[top]) @ axis)) < _UNSURE_SIDE * float(geo.shorts[top])):
            for order in list(orders)[:4]:  # (a chain holds a card beneath or two: a few orders)
                swapped = list(order)
                i, j = swapped.index(piece), swapped.index(top)
                swapped[i], swapped[j] = swapped[j], swapped[i]
                orders.append(swapped)
    _, pieces, disputes = min((_cut_chain(geo, order, seats, positions, axis) for order in orders), key=lambda cut: cut[0])
    return pieces, disputes


def _cut_chain(
    geo: CardGeometry, chain: list[int], seats: list[int], positions: NDArray[np.float64], axis: NDArray[np.float64]
) -> tuple[float, dict[int, list[int]], list[tuple[int, int, int]]]:
    """``_share_chain`` of the chain in the order given, the cost of its cut (``axis``: the
    chain's ``_direction``, whatever the order), and the cards in dispute: (card, the seat
    given it, the seat that would take it) where the cut one card over costs less than
    ``_DISPUTED`` more, how near the players sit to their rows' middles within ``_SEAT_OFF`` left out."""
    # A chain comes in order along its line (a card beneath another in its place beside it).
    if float(geo.centres[chain[-1]] @ axis) < float(geo.centres[chain[0]] @ axis):
        axis = -axis
    cards = list(chain)
    along = geo.centres[cards] @ axis
    seats = sorted(seats, key=lambda seat: float(positions[seat] @ axis))
    n = len(cards)
    long = float(np.mean(geo.longs[cards]))
    across = geo.centres[cards] @ np.array([-axis[1], axis[0]]) / long
    link = _link_costs(geo, cards, across)
    # Each piece's costs are worked out once, in plain floats: the cuts tried share pieces.
    at = along.tolist()
    shorts = geo.shorts[cards].tolist()
    xs, ys = geo.centres[cards].T.tolist()
    offsets = across.tolist()
    seat_at = {seat: float(positions[seat] @ axis) for seat in seats}
    pieces: dict[tuple[int, int, int], float] = {}
    linear: dict[tuple[int, int, int], float] = {}
    lines: dict[tuple[int, int], float] = {}

    def piece_costs(a: int, b: int, seat: int) -> float:
        """Cards a..b-1 as ``seat``'s row: how far its player sits off its middle, plus how far it bends."""
        if (a, b, seat) not in pieces:
            count = b - a
            extent = abs(at[b - 1] - at[a]) + sum(shorts[a:b]) / count
            offset = abs(sum(at[a:b]) / count - seat_at[seat]) / extent
            if (a, b) not in lines:
                lines[a, b] = _LINE_WEIGHT * _off_line(xs[a:b], ys[a:b], offsets[a:b], long)
            linear[a, b, seat] = _SEAT_LINEAR * offset
            pieces[a, b, seat] = _SEAT_LINEAR * offset + _SEAT_OFF_WEIGHT * max(0.0, offset - _SEAT_OFF) + lines[a, b]
        return pieces[a, b, seat]

    links = sum(link)

    def cut_cost(bounds: list[int], sharers: tuple[int, ...], nearer: bool = True) -> float:
        """The cost of cutting the chain at ``bounds`` among ``sharers``; ``nearer``: counting how near
        each player sits to their piece's middle within ``_SEAT_OFF`` too."""
        cost = links - sum(link[cut - 1] for cut in bounds[1:-1]) + _LEFT_OUT_COST * (len(seats) - len(sharers))
        cost += sum(piece_costs(a, b, seat) for (a, b), seat in zip(zip(bounds, bounds[1:]), sharers))
        if not nearer:
            cost -= sum(linear[a, b, seat] for (a, b), seat in zip(zip(bounds, bounds[1:]), sharers))
        return cost

    best_cost, best_bounds, best_sharers = math.inf, [0, n], ()
    # A player may get no piece (their own row is elsewhere, or was not seen), at a price.
    for k in range(min(len(seats), 3, n), 0, -1):
        for sharers in itertools.combinations(seats, k):
            for cuts in itertools.combinations(range(1, n), k - 1):
                bounds = [0, *cuts, n]
                cost = cut_cost(bounds, sharers)
                if cost < best_cost:
                    best_cost, best_bounds, best_sharers = cost, bounds, sharers
    # Where two pieces meet, the cut one card over may fit nearly as well: that card is disputed.
    disputes = []
    best_apart = cut_cost(best_bounds, best_sharers, nearer=False)
    for c in range(1, len(best_bounds) - 1):
        for shift in (-1, 1):
            bounds = list(best_bounds)
            bounds[c] += shift
            margin = _DISPUTED_AT_A_GAP if link[best_bounds[c] - 1] > 0 else _DISPUTED
            if (bounds[c - 1] < bounds[c] < bounds[c + 1]
                    and cut_cost(bounds, best_sharers, nearer=False) < best_apart + margin):
                card = cards[best_bounds[c] - 1] if shift < 0 else cards[best_bounds[c]]
                giver, taker = (best_sharers[c - 1], best_sharers[c]) if shift < 0 else (best_sharers[c], best_sharers[c - 1])
                disputes.append((card, giver, taker))
    # A lone card at an end of the chain, its player's whole piece, may as well be the end of the next
    # player's row laid over the player's own card (hidden under it): it is disputed where giving it to
    # the next piece, its player left out, costs less than that price and the margin more.
    for c in (0, len(best_sharers) - 1) if len(best_sharers) > 1 else ():
        a, b = best_bounds[c], best_bounds[c + 1]
        if b - a == 1:
            bounds = [0, *best_bounds[2:]] if c == 0 else [*best_bounds[:-2], n]
            sharers = best_sharers[1:] if c == 0 else best_sharers[:-1]
            margin = _DISPUTED_AT_A_GAP if link[b - 1 if c == 0 else a - 1] > 0 else _DISPUTED
            if cut_cost(bounds, sharers) - _LEFT_OUT_COST < best_cost + margin:
                disputes.append((cards[a], best_sharers[c], best_sharers[1 if c == 0 else -2]))
    pieces = {seat: cards[a:b] for (a, b), seat in zip(zip(best_bounds, best_bounds[1:]), best_sharers)}
    return best_cost, pieces, disputes


def _direction(geo: CardGeometry, cards: list[int]) -> NDArray[np.float64]:
    """The unit direction of a chain: the line through its centres, or a lone card's short axis."""
    if len(cards) < 2:
        return geo.short_axes[cards[0]]
    centres = geo.centres[cards]
    _, _, vt = np.linalg.svd(centres - centres.mean(axis=0))
    return vt[0]


def off_line(centres: NDArray[np.float64], across: NDArray[np.float64], long: float) -> float:
    """Squared offsets of a piece's centres from its own line, in long sides.

    A piece of three cards or more fits its own line (rows bend a little in a wide-angle
    photo); shorter ones keep to the chain's direction (``across``, in long sides).
    """
    # In plain floats: a piece has a few cards, and numpy's per-call cost is larger than the arithmetic.
    return _off_line(centres[:, 0].tolist(), centres[:, 1].tolist(), across.tolist(), long)


def _off_line(xs: list[float], ys: list[float], across: list[float], long: float) -> float:
    """``off_line`` of centres and offsets given as plain floats."""
    if len(xs) < 3:
        mean = sum(across) / len(across)
        return sum((v - mean) ** 2 for v in across)
    # The smaller eigenvalue of the centred scatter matrix: the smallest singular value, squared.
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    return max(0.0, (sxx + syy) / 2 - math.hypot((sxx - syy) / 2, sxy)) / long**2


def separation(quad_a: NDArray[np.float64], quad_b: NDArray[np.float64]) -> float:
    """How far apart two convex quads lie: their gap, or minus their overlap's depth (separating axes)."""
    return float(separations(quad_a[None], quad_b[None])[0])


def separations(quads_a: NDArray[np.float64], quads_b: NDArray[np.float64]) -> NDArray[np.float64]:
    """``separation`` of each pair of convex quads, (N, 4, 2) and (N, 4, 2): (N,), at once."""
    both = np.concatenate([quads_a, quads_b], axis=1)  # (N, 8 corners, 2)
    edges = np.concatenate([np.roll(quads_a, -1, axis=1) - quads_a, np.roll(quads_b, -1, axis=1) - quads_b], axis=1)
    normals = np.stack([-edges[..., 1], edges[..., 0]], axis=-1)
    normals /= np.maximum(np.hypot(normals[..., 0], normals[..., 1]), 1e-9)[..., None]
    projected = np.einsum("nci,nsi->ncs", both, normals)  # (N, 8 corners, 8 sides' normals)
    pa, pb = projected[:, :4], projected[:, 4:]
    return np.maximum(pb.min(axis=1) - pa.max(axis=1), pa.min(axis=1) - pb.max(axis=1)).max(axis=1)


def neighbour_gaps(geo: CardGeometry, cards: list[int]) -> NDArray[np.float64]:
    """The gap between each two cards next to each other in ``cards``, in their mean short side."""
    if len(cards) < 2:
        return np.zeros(0)
    first, second = cards[:-1], cards[1:]
    return separations(geo.quads[first], geo.quads[second]) / ((geo.shorts[first] + geo.shorts[second]) / 2)


def row_gaps(corners: Sequence[NDArray]) -> tuple[int, ...]:
    """Where a row's cards (4, 2 corners each, in row order) leave room for a card between
    neighbours: the positions of the cards after such a gap (a card hidden, or missed)."""
    gaps = neighbour_gaps(card_geometry(corners), list(range(len(corners))))
    return tuple(int(k) + 1 for k in np.flatnonzero(room_for_a_card(gaps)))


def gap_places(corners: Sequence[NDArray], positions: Sequence[int]) -> tuple[NDArray[np.float64], ...]:
    """Where the cards missing before each of ``positions`` (gaps, see ``row_gaps``) of a row
    (4, 2 corners each, in row order) would lie: evenly between the neighbours, as many as
    the gap holds at the row's spacing (the median of its other gaps), one at least."""
    gaps = neighbour_gaps(card_geometry(corners), list(range(len(corners))))
    tight = ~room_for_a_card(gaps)
    spacing = max(float(np.median(gaps[tight])), 0.0) if tight.any() else 0.0
    places = []
    for g in positions:
        count = max(1, round((float(gaps[g - 1]) - spacing) / (1.0 + spacing)))
        first, second = np.asarray(corners[g - 1], np.float64), np.asarray(corners[g], np.float64)
        places += [first + (second - first) * t for t in np.arange(1, count + 1) / (count + 1)]
    return tuple(places)


def room_for_a_card(gaps: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Whether each gap between neighbours in a row (in short sides, see ``neighbour_gaps``) may hold a card."""
    return gaps > _ROOM_FOR_A_CARD


def _link_costs(geo: CardGeometry, cards: list[int], across: NDArray[np.float64]) -> list[float]:
    """The cost of each two neighbours in a chain lying in one row: overlapping, far apart, or
    a step apart across the chain (``across``, each card's offset in long sides), they are two rows' ends.

    A gap a little over half a card already tips a cut that the seats leave even between two places,
    and so does one plainly wider than the chain's usual gap.
    """
    gaps = neighbour_gaps(geo, cards)
    wide_from = _WIDE_GAP_FROM
    if len(gaps) >= _USUAL_LINKS:
        wide_from = min(wide_from, max(0.0, float(np.median(gaps))) + _WIDER_THAN_USUAL)
    wide = _WIDE_GAP_COST * np.clip((gaps - wide_from) / (_WIDE_GAP - _WIDE_GAP_FROM), 0.0, 1.0)
    step = _STEP_COST * np.clip((np.abs(np.diff(across)) - _STEP_FROM) / (_STEP_TO - _STEP_FROM), 0.0, 1.0)
    return (np.where(gaps < -_MAX_OVERLAP, _OVERLAP_COST, wide) + step).tolist()


def _points_at(geo: CardGeometry, cards: list[int], seat_xy: NDArray[np.float64]) -> bool:
    """Whether the line of a chain of cards passes its player's seat, within ``_ON_LINE`` long sides."""
    axis = _direction(geo, cards)
    across = float((seat_xy - geo.centres[cards].mean(axis=0)) @ np.array([-axis[1], axis[0]]))
    return abs(across) < _ON_LINE * float(np.mean(geo.longs[cards]))


def _faces_seat(geo: CardGeometry, cards: list[int], seat_xy: NDArray[np.float64], centre: NDArray[np.float64]) -> bool:
    """Whether cards can be a row of the player at ``seat_xy``.

    A row runs along its player's edge: the player sits alongside it, in front of its
    cards, not off beyond one end (where a pool card near the edge could be), and the
    row lies on the player's side of the middle of the table. A row grows to its player's
    right: early in a round its first cards may lie well to the left of a player who sits
    before the middle of the whole row to come.
    """
    middle = geo.centres[cards].mean(axis=0)
    axis = _direction(geo, cards)
    along = (geo.centres[cards] - middle) @ axis
    half_extent = float(np.max(np.abs(along))) if len(cards) > 1 else 0.0
    offset = float((seat_xy - middle) @ axis)
    right = np.array(left_to_right(facing(tuple(seat_xy), tuple(centre))))
    to_come = max(0, MAX_LENGTH - len(cards)) / 2 * _ROW_STEP if offset * float(right @ axis) > 0 else 0.0
    if abs(offset) > half_extent + (_SEAT_REACH + to_come) * float(np.mean(geo.shorts[cards])):
        return False
    f = np.array(facing(tuple(seat_xy), tuple(centre)))
    return float((middle - seat_xy) @ f) < float((centre - seat_xy) @ f)


def _rows_without_seats(geo: CardGeometry, chains: list[list[int]], image_size_wh: tuple[int, int]) -> list[PlacedRow]:
    centre = np.array(image_size_wh, np.float64) / 2
    placed = []
    for chain in chains:
        if len(chain) < 2:
            continue
        middle = geo.centres[chain].mean(axis=0)
        axis = geo.centres[chain[-1]] - geo.centres[chain[0]]
        normal = np.array([-axis[1], axis[0]]) / max(float(np.linalg.norm(axis)), 1e-9)
        if normal @ (middle - centre) < 0:
            normal = -normal
        f = -normal  # the player sits outside the row and faces the middle
        r = np.array(left_to_right((float(f[0]), float(f[1]))))
        ordered = sorted(chain, key=lambda k: float(geo.centres[k] @ r))
        # Clockwise on screen from the bottom: the angle of the row seen from the centre.
        angle = (math.atan2(middle[1] - centre[1], middle[0] - centre[0]) - math.pi / 2) % (2 * math.pi)
        placed.append((angle, ordered))
    placed.sort(key=lambda item: item[0])
    return [PlacedRow(f"row-{number}", tuple(cards)) for number, (_, cards) in enumerate(placed, start=1)]
