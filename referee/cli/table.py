"""One frame refereed: cards read, rows arranged, verdicts and ranking (shared by check and live)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import product
from typing import Any, Sequence

import numpy as np
from numpy.typing import NDArray

from calibration.areas import TableAreas, inward_from_edge, row_candidates, scaled_areas, search_box
from calibration.gaps import TableLook
from calibration.seats import Seat, facing, players_way, scaled_seat, table_centre
from referee.cards import Criteria
from referee.ranking import Rank, rank_players
from referee.rows import RowError, Verdict, check_row, matched_words, ordinal
from vision.arrange import arrange_rows, ends_continued, gap_places, nearest_seats, row_gaps
from vision.beneath import find_cards_beneath
from vision.card_sizes import sizes_in_view
from vision.find import CardQuad, SmallCards, working_copy
from vision.hidden import covered_rooms, end_rooms, look_at_table, table_beside
from vision.nearer import cards_nearer
from vision.partial import lone_partly_hidden, partly_hidden
from vision.pipeline import (DetectedCard, cards_seen_small, doubted_beneath, doubted_on_cloth, doubted_small, enlarged_for,
                             enlarged_frame, read_partly_hidden, read_table, scaled_card)

__all__ = ["TableRow", "TableResult", "referee_frame", "result_json", "UNCERTAIN_BELOW", "error_words", "misread_may_change"]

# A card read with less confidence than this may be misread: a person should look.
UNCERTAIN_BELOW = 0.5
_PAPER_CARDS = 4  # a lone card looked for before a seat with no row is paper like that of the cards nearest there
# How far the truth usually lies from a misreading, per criterion (colours, shapes, symbols): below
# it, and above it. A misread mostly misses something (glare washes a symbol out, the card's edge
# cuts one off): of the 85 misread cards read with doubt that decided a row on fresh hard and medium
# renders, 80 showed as many colours as read or more and 82 as many symbols or more.
MISREAD_REACH = ((0, 1, 1), (1, 1, 2))


@dataclass(frozen=True)
class TableRow:
    """A player's row in a frame: card ids left to right, the verdict, and doubtful cards.

    ``unread_cards`` counts face-up cards lying in the row that could not be read: the
    verdict is then taken without them and is uncertain. ``gaps`` are the positions of
    cards after room for a card with none seen (one under a hand, or missed); the
    verdict is uncertain when one lies at or before the first error. ``covered`` are the
    row's ends where a card may lie hidden under something (a hand, a mug), or between it and a
    card in no row lying on its line beyond: 0 before its
    first card, ``len(cards)`` after its last; the verdict is uncertain when a card there
    would change it (before the first card always, after the last when the row has no error).
    ``hidden`` are the positions the row's cards lying partly under another player's card, or
    at its ends or in its gaps under a hand, too hidden to read, would take in ``cards`` (they are not in it; a
    card partly under a hand whose part in view is read is in it, ``DetectedCard.partly_hidden``,
    and uncertain wherever it decides the verdict): the verdict is taken without them
    and is uncertain when one lies at or before the first error. ``disputed`` are cards at the
    meeting of this row and a neighbour's, end to end, that may as well be the other's (card id,
    the other player): listed only where moving it would change either verdict, and uncertain.
    """

    player: str
    cards: tuple[int, ...]
    verdict: Verdict
    uncertain_cards: tuple[int, ...]
    unread_cards: int = 0
    seat: int = 0  # the player's seat number (the row's number without seats): their colour
    gaps: tuple[int, ...] = ()
    covered: tuple[int, ...] = ()
    hidden: tuple[int, ...] = ()
    disputed: tuple[tuple[int, str], ...] = ()
    way: tuple[float, float] | None = None  # the player's left to right (unit, image), where seated

    @property
    def deciding_gaps(self) -> tuple[int, ...]:
        return self._deciding(self.gaps)

    @property
    def deciding_covered(self) -> tuple[int, ...]:
        return self._deciding(self.covered)

    @property
    def deciding_hidden(self) -> tuple[int, ...]:
        return self._deciding(self.hidden)

    def _deciding(self, positions: tuple[int, ...]) -> tuple[int, ...]:
        """The positions where a hidden card would change the verdict: at or before the first error."""
        error = self.verdict.first_error
        return tuple(k for k in positions if error is None or k <= error.position)

    @property
    def uncertain(self) -> bool:
        return bool(self.flags)

    @property
    def flags(self) -> tuple[str, ...]:
        """What makes the verdict uncertain, in words (none: it is not): a card read with doubt,
        a face not read, a gap, a covered end, a hidden card, a disputed card, each where it decides."""
        checks = (("card read with doubt", self.uncertain_cards), ("face not read", self.unread_cards),
                  ("gap", self.deciding_gaps), ("covered end", self.deciding_covered),
                  ("hidden card", self.deciding_hidden), ("disputed card", self.disputed))
        return tuple(name for name, found in checks if found)


@dataclass(frozen=True)
class TableResult:
    """Everything read and decided from one frame; ``rowless`` names the seated players
    whose row was not found (every player has at least a starting card: a person should look);
    ``too_small``, the cards seen too small, when they are (see ``vision.pipeline.cards_seen_small``)."""

    size_wh: tuple[int, int]
    cards: tuple[DetectedCard, ...]
    unread: tuple[DetectedCard, ...]
    rows: tuple[TableRow, ...]
    ranking: tuple[Rank, ...]
    rowless: tuple[str, ...] = ()
    too_small: SmallCards | None = None
    enlarged: float = 1.0  # the frame was read enlarged this many times, its cards too small (``too_small``)


def too_small_words(small: SmallCards, enlarged: float = 1.0) -> str:
    """The cards seen too small to find, in words: read from the frame enlarged ``enlarged`` times, or not read."""
    seen = f"{small.count} cards seen only {small.short_px:.0f} px on their short side (the referee needs about 80 px)"
    read = f"read from the photo enlarged {enlarged:.1f} times, less surely" if enlarged > 1 else "too small to read"
    return f"{seen}: {read}; move the camera closer or raise its resolution"


def referee_frame(
    frame_bgr: NDArray[np.uint8], seats: Sequence[Seat] | None = None, areas: TableAreas | None = None, profile: Any = None
) -> TableResult:
    """Read the frame, arrange the rows (by seats when given) and referee them.

    With seats, the frame is looked at again closer where the rows may go on (``vision.nearer``):
    cards missed in a shadow or under glare join the cards read before the rows are arranged.
    With ``areas`` (from a calibration), cards are looked for only on and around the table
    top, and cards off the top or in the middle pool are listed but never put in a row;
    with ``profile`` (its colour profile) colours are named by the learned inks.
    A frame showing cards too small to find (all of them: a 720p camera over a six-player
    table; or the far ones) is refereed again enlarged (``enlarged_for``), and that kept where
    it reads more cards, given in the frame's own pixels (``too_small`` is said where it is kept,
    or where the cards are too small even to enlarge).
    """
    result = _referee_frame(frame_bgr, seats, areas, profile)
    factor = enlarged_for(result.too_small)
    if factor is None:
        return result
    bigger = _referee_frame(enlarged_frame(frame_bgr, factor), [scaled_seat(seat, factor) for seat in seats] if seats else seats,
                            scaled_areas(areas, factor) if areas else areas, profile)
    if len(bigger.cards) <= len(result.cards):
        # (what looked like small cards was not: pieces of cards, point cards' printed frames)
        return replace(result, too_small=None)
    return replace(bigger, size_wh=result.size_wh, cards=tuple(scaled_card(card, 1 / factor) for card in bigger.cards),
                   unread=tuple(scaled_card(card, 1 / factor) for card in bigger.unread), too_small=result.too_small,
                   enlarged=factor)


def _referee_frame(
    frame_bgr: NDArray[np.uint8], seats: Sequence[Seat] | None, areas: TableAreas | None, profile: Any
) -> TableResult:
    """``referee_frame`` of the frame as it is."""
    size_wh = (frame_bgr.shape[1], frame_bgr.shape[0])
    small_bgr = working_copy(frame_bgr)  # (the table look below halves the frame alike)
    on_table = read_table(frame_bgr, profile, search_box(areas, size_wh), small_bgr)
    detected = on_table.cards
    # The table is looked at once, for all rows: where a card of theirs may lie covered.
    look, top_xy = look_at_table(frame_bgr, [card.corners_xy for card in detected], areas.table_xy if areas else None, small_bgr)
    if seats:  # (a closer look where the rows may go on, for cards missed in a shadow or under glare)
        read_here = [card for card in detected if card.reading.criteria is not None]
        rows_here = arrange_rows([card.corners_xy for card in read_here], seats, size_wh)
        seen_here = [*(card.corners_xy for card in detected), *on_table.point_cards_xy]
        detected += tuple(cards_nearer(frame_bgr, read_here, rows_here, seats, look, top_xy, seen_here, small_bgr, profile,
                                       UNCERTAIN_BELOW))
    detected = doubted_small(doubted_on_cloth(frame_bgr, doubted_beneath(frame_bgr, detected)))
    cards = tuple(card for card in detected if card.reading.criteria is not None)
    unread = tuple(card for card in detected if card.reading.criteria is None)
    # Unread faces take their place in the rows too, so that a row is not silently
    # shortened: its verdict is then taken without them, and flagged.
    faces = cards + unread
    candidates = row_candidates([card.center_xy for card in faces], areas)
    # Cards lying partly under a face, too hidden to read, tell where one player's row ends
    # and the next begins; no row lists them.
    beneath = find_cards_beneath(frame_bgr, [face.corners_xy for face in faces]) if seats else []
    beneath = [beneath[k] for k in row_candidates([tuple(quad.mean(axis=0)) for quad in beneath], areas)]
    # Of the arrangement's cards: a face read (not one beneath, not an unread face).
    is_read = [k < len(candidates) and candidates[k] < len(cards) for k in range(len(candidates) + len(beneath))]
    placed, hidden = [], []
    for row in arrange_rows([faces[k].corners_xy for k in candidates], seats, size_wh, beneath):
        disputed = tuple((candidates[k], other) for k, other in row.disputed if is_read[k])
        placed.append(replace(row, cards=tuple(candidates[k] for k in row.cards if k < len(candidates)), disputed=disputed))
        # Where each card beneath lies among the row's cards read: the position it would take.
        read = [is_read[k] for k in row.cards]
        hidden.append(tuple(sum(read[:i]) for i, k in enumerate(row.cards) if k >= len(candidates)))
    faces_xy = [card.corners_xy for card in faces]
    # The cards seen, point cards too: a card seen where a row's next card would lie is no cover over one.
    seen_xy = [*faces_xy, *on_table.point_cards_xy]
    rows = []
    # Cards lying partly under a hand just beyond a row's ends or in its gaps join the cards read and the row.
    n_read, cards = len(cards), list(cards)
    # The cards read that may lie in a row (on the table top, off the pool) but lie in none.
    in_rows = {k for row in placed for k in row.cards}
    free_xy = [cards[k].corners_xy for k in sorted({k for k in candidates if k < n_read} - in_rows)]
    for row, beneath_at in zip(placed, hidden):
        readable = tuple(k for k in row.cards if k < n_read)
        if not readable:  # (the contract's rows hold a card at least: the player is named rowless)
            continue
        seat = [s.name for s in seats].index(row.player) if seats else len(rows)
        unread_here = len(row.cards) - len(readable)
        way = _players_way(seats, seat, size_wh, top_xy)
        readable, beneath_at = _with_partly_hidden(frame_bgr, look, readable, beneath_at, cards, seen_xy, profile,
                                                   seats, seat, way)
        criteria = [cards[k].reading.criteria for k in readable]
        verdict = check_row(criteria)
        deciding = readable if verdict.first_error is None else readable[: verdict.first_error.position + 1]
        # A doubtful card counts when a near misreading would change the verdict; a lone card
        # read with doubt always does: no reading changes a one-card verdict, but such a card
        # mostly lies half under a hand, where the rest of its row may be hidden too.
        # A card partly hidden always does: the hand may hide any number of its symbols. A card
        # that may be a patch of dotted cloth counts, too, when the row without it has another verdict.
        doubtful = tuple(k for i, k in enumerate(deciding) if cards[k].reading.confidence < UNCERTAIN_BELOW
                         and (len(readable) == 1 or cards[k].partly_hidden or misread_may_change(criteria, i, verdict)
                              or cards[k].may_be_cloth and _absent_may_change(criteria, i, verdict)))
        corners = [cards[k].corners_xy for k in readable]
        up_to = len(readable) if verdict.first_error is None else verdict.first_error.position
        covered = covered_rooms(look, corners, seen_xy, up_to, top_xy, way)
        # (such a card on the row's line, room for a card or two beyond its end: the row may go on under a cover)
        covered = tuple(sorted({*covered, *(end for end in ends_continued(corners, free_xy) if end <= up_to)}))
        if len(readable) == 1 and cards[readable[0]].reading.edge_covered:
            covered = (0, 1)  # (a hand over a lone card's edge: the rest of its row may lie under it, on either side)
        rows.append(TableRow(row.player, readable, verdict, doubtful, unread_here, seat,
                             row_gaps(corners), covered, beneath_at, row.disputed, way))
    if seats:  # (a seated player with no row: their lone card may lie partly under their hand)
        rows += _lone_partly_hidden(frame_bgr, look, top_xy, seats, rows, cards, seen_xy, profile, size_wh)
    rows = with_deciding_disputes(rows, cards)
    ranking = rank_players(
        {row.player: ([cards[k].reading.criteria for k in row.cards], row.verdict) for row in rows}
    )
    found = {row.player for row in rows}
    rowless = tuple(seat.name for seat in seats or () if seat.name not in found)
    return TableResult(size_wh, tuple(cards), unread, tuple(rows), tuple(ranking), rowless,
                       cards_seen_small(frame_bgr, cards, on_table.point_cards_xy, small_bgr))


def _with_partly_hidden(
    frame_bgr: NDArray[np.uint8], look: TableLook, row: tuple[int, ...], beneath_at: tuple[int, ...],
    cards: list[DetectedCard], seen_xy: list[NDArray], profile: Any, seats: Sequence[Seat] | None, seat: int,
    way: tuple[float, float] | None,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The row's cards with the cards found lying partly hidden just beyond its ends or in its
    gaps (``vision.partial``), and the positions of its hidden cards (``TableRow.hidden``).

    A card found there that is read joins ``cards`` and the row; one too hidden to read is
    one more hidden card of the row; a point card, or a card nearer another seat, neither.
    Each card found joins ``seen_xy`` (no other row finds it again). ``way``: the player's left to
    right (``_players_way``), which way a lone card's row runs.
    """
    if len(row) == 1 and not seats:  # (no such row: without seats a row is two cards at least)
        return row, beneath_at
    corners = [cards[k].corners_xy for k in row]
    # Each place with the position in the row it would take: before the row's card there (its length: after the last).
    places = end_rooms(corners, len(corners), shrink=1.0, along=way)
    places += [(g, quad) for g in row_gaps(corners) for quad in gap_places(corners, [g])]
    read: list[tuple[int, int]] = []  # (position, card id) of the cards found and read
    unread: list[int] = []
    for position, place in places:
        quad = partly_hidden(look, place, corners, table_beside(corners), seen_xy)
        if quad is None:
            continue
        at = np.array(quad.center_xy)
        if seats and nearest_seats(np.array([s.position_xy for s in seats], np.float64), at[None])[0] != seat:
            continue  # (the end of a neighbour's row)
        card = read_partly_hidden(frame_bgr, quad, profile)
        if card is None:
            continue
        seen_xy.append(card.corners_xy)
        if len(row) == 1 and way is not None:  # (a lone card's two ends: the one before it is on its player's left)
            position = 0 if float((at - cards[row[0]].center_xy) @ np.array(way)) < 0 else 1
        if card.reading.criteria is None:
            unread.append(position)
            continue
        cards.append(card)
        read.append((position, len(cards) - 1))
    if not read and not unread:
        return row, beneath_at
    cards_now: list[int] = []
    for i in range(len(row) + 1):
        cards_now += [card for position, card in read if position == i]
        cards_now += row[i:i + 1]
    # A hidden card before the row's card there takes its place after the cards found there.
    hidden = sorted(p + sum(1 for q, _ in read if q <= p) for p in (*beneath_at, *unread))
    return tuple(cards_now), tuple(hidden)


def _players_way(seats: Sequence[Seat] | None, seat: int, size_wh: tuple[int, int],
                 top_xy: NDArray[np.float64] | None) -> tuple[float, float] | None:
    """The way a seated player's row runs: their left to right (unit, image), along the table top's
    edge at their seat (unknown: square to the way to the seats' middle); None without seats."""
    return players_way(seats[seat].position_xy, table_centre(seats, size_wh), top_xy) if seats else None


def _lone_partly_hidden(
    frame_bgr: NDArray[np.uint8], look: TableLook, top_xy: NDArray[np.float64] | None, seats: Sequence[Seat],
    rows: list[TableRow], cards: list[DetectedCard], seen_xy: list[NDArray], profile: Any, size_wh: tuple[int, int],
) -> list[TableRow]:
    """The rows of one card of the seated players with no row: their lone card found lying partly
    hidden before their seat (``vision.partial.lone_partly_hidden``) and read from its part in view
    (never surely). It is looked for straight in from the seat (square to the table top's edge
    nearest it, ``top_xy``; unknown: towards the seats' middle), as far in as the rows found lie
    from theirs, of the size the cards in view show there. A card found that lies nearer another
    seat, or too hidden to read, makes no row. Each card found joins ``cards`` and ``seen_xy``.
    Its row may go on under the same cover, on either side: both its ends are covered."""
    placed = {row.player for row in rows}
    rowless = [k for k, seat in enumerate(seats) if seat.name not in placed]
    if not rows or not rowless:  # (most frames: every player has a row)
        return []
    positions = np.array([seat.position_xy for seat in seats], np.float64)
    centres = np.array([card.center_xy for card in cards])
    depth = float(np.median([np.min(np.linalg.norm(centres[list(row.cards)] - positions[row.seat], axis=1)) for row in rows]))
    in_view = [CardQuad(card.corners_xy, 1.0) for card in cards]
    centre = table_centre(seats, size_wh)
    lone = []
    for k in rowless:
        seat = seats[k]
        toward = facing(seat.position_xy, centre) if top_xy is None else inward_from_edge(top_xy, positions[k])
        middle = positions[k] + depth * np.array(toward)
        paper = np.argsort(np.linalg.norm(centres - middle, axis=1))[:_PAPER_CARDS]
        quad = lone_partly_hidden(look, seat.position_xy, toward, depth, sizes_in_view(in_view, middle[None])[0],
                                  [cards[i].corners_xy for i in paper], seen_xy)
        if quad is None or nearest_seats(positions, np.array([quad.center_xy]))[0] != k:
            continue
        card = read_partly_hidden(frame_bgr, quad, profile)
        if card is None or card.reading.criteria is None:
            continue
        cards.append(card)
        seen_xy.append(card.corners_xy)
        index = len(cards) - 1
        doubtful = (index,) if card.reading.confidence < UNCERTAIN_BELOW else ()
        lone.append(TableRow(seat.name, (index,), check_row([card.reading.criteria]), doubtful, seat=k, covered=(0, 1),
                             way=_players_way(seats, k, size_wh, top_xy)))
    return lone


def with_deciding_disputes(rows: list[TableRow], cards: Sequence[DetectedCard]) -> list[TableRow]:
    """The rows with only the disputed cards that matter, on both rows: a card at the meeting of
    two rows whose moving to the other row (at its nearer end) changes either verdict."""
    by_player = {row.player: row for row in rows}
    deciding: dict[str, list[tuple[int, str]]] = {}
    for row in rows:
        for card, other in row.disputed:
            if other not in by_player:
                continue
            taker = by_player[other]
            centre = np.array(cards[card].center_xy)
            ends = [np.linalg.norm(np.array(cards[taker.cards[i]].center_xy) - centre) for i in (0, -1)]
            taken = (card, *taker.cards) if ends[0] < ends[1] else (*taker.cards, card)
            left = tuple(k for k in row.cards if k != card)
            if (not left or _decided(check_row([cards[k].reading.criteria for k in left])) != _decided(row.verdict)
                    or _decided(check_row([cards[k].reading.criteria for k in taken])) != _decided(taker.verdict)):
                deciding.setdefault(row.player, []).append((card, other))
                deciding.setdefault(other, []).append((card, row.player))
    return [replace(row, disputed=tuple(deciding.get(row.player, ()))) for row in rows]


def misread_may_change(criteria: Sequence[Criteria], position: int, verdict: Verdict) -> bool:
    """Whether card ``position`` of the row, read a little otherwise (within ``MISREAD_REACH`` of
    each criterion), would change the row's ``verdict``: a doubtful card whose every near reading
    keeps the verdict (it differs from its neighbours by more than a misread) needs no look."""
    card = criteria[position]
    below, above = MISREAD_REACH
    reach = [range(max(1, v - b), v + a + 1) for v, b, a in zip((card.colours, card.shapes, card.symbols), below, above)]
    for colours, shapes, symbols in product(*reach):
        if max(colours, shapes) > symbols or colours > 5 or shapes > 5 or symbols > 9:
            continue
        other = list(criteria)
        other[position] = Criteria(colours, shapes, symbols)
        if _decided(check_row(other)) != _decided(verdict):
            return True
    return False


def _absent_may_change(criteria: Sequence[Criteria], position: int, verdict: Verdict) -> bool:
    """Whether the row without card ``position`` (no card at all, a patch of the table) has another verdict."""
    return _decided(check_row([*criteria[:position], *criteria[position + 1:]])) != _decided(verdict)


def _decided(verdict: Verdict) -> tuple[int, int | None]:
    """What a verdict decides for the player: the cards kept, and where the first error lies."""
    return verdict.valid_length, None if verdict.first_error is None else verdict.first_error.position


def error_words(result: TableResult, row: TableRow) -> str:
    """The row's first error in words: "3rd card: 2 shapes, like the 2nd"."""
    error = row.verdict.first_error
    if error is None:
        return ""
    if error.criteria == ("max_length",):
        return f"{ordinal(error.position + 1)} card: one too many (7 at most)"
    card = result.cards[row.cards[error.position]].reading.criteria
    return f"{ordinal(error.position + 1)} card: {matched_words(card, error)}, like the {ordinal(error.position)}"


def result_json(result: TableResult, path: str) -> dict[str, Any]:
    """The ``referee.check/1`` object for one photo (plus ``uncertain`` fields, ``unread`` cards,
    the seated ``players_without_row``, and the ``cards_too_small`` to find, with how many times
    the photo was enlarged to read them, when there are some)."""
    return {
        "schema": "referee.check/1",
        "image": {"path": path, "width": result.size_wh[0], "height": result.size_wh[1]},
        "cards": [_card_json(card, index) for index, card in enumerate(result.cards)],
        "rows": [_row_json(row) for row in result.rows],
        "ranking": [rank.as_dict() for rank in result.ranking],
        "unread": [
            {"corners": _points(card.corners_xy), "reason": card.reading.reason or "impossible reading"}
            for card in result.unread
        ],
        "players_without_row": list(result.rowless),
        "cards_too_small": None if result.too_small is None else {
            "count": result.too_small.count, "short_side_px": round(result.too_small.short_px, 1),
            "read_enlarged": round(result.enlarged, 2) if result.enlarged > 1 else None,
        },
    }


def _row_json(row: TableRow) -> dict[str, Any]:
    error: RowError | None = row.verdict.first_error
    return {
        "player": row.player,
        "cards": list(row.cards),
        "valid_length": row.verdict.valid_length,
        "first_error": None if error is None else {
            "position": error.position, "card": row.cards[error.position], "criteria": list(error.criteria),
        },
        "uncertain": row.uncertain,
        "uncertain_cards": list(row.uncertain_cards),
        "unread_cards": row.unread_cards,
        "hidden_cards": list(row.hidden),
        "gaps": list(row.gaps),
        "covered_ends": list(row.covered),
        "disputed_cards": [{"card": card, "other_player": other} for card, other in row.disputed],
    }


def _card_json(card: DetectedCard, card_id: int) -> dict[str, Any]:
    reading = card.reading
    return {
        "id": card_id,
        "corners": _points(card.corners_xy),
        "center": [round(v, 1) for v in card.center_xy],
        "criteria": reading.criteria.as_dict(),
        "symbols": [
            {"shape": s.shape.value, "colour": s.colour.value, "center": [round(v, 1) for v in s.center_xy]}
            for s in reading.symbols
        ],
        "confidence": round(float(reading.confidence), 3),
        "partly_hidden": card.partly_hidden,
        "may_be_cloth": card.may_be_cloth,
    }


def _points(corners_xy: Any) -> list[list[float]]:
    return [[round(float(x), 1), round(float(y), 1)] for x, y in corners_xy]


def _why_look(card: DetectedCard) -> str:
    """Why a card deciding a verdict is to be looked at, in words."""
    if card.partly_hidden:
        return "partly hidden"
    return "perhaps no card but the cloth's dots" if card.may_be_cloth else "read with doubt"


def result_lines(result: TableResult, path: str) -> list[str]:
    """One photo's result in words: the rows' verdicts, the ranking, doubtful and unread cards."""
    width, height = result.size_wh
    lines = [f"{path}: {len(result.cards)} face-up cards, {len(result.rows)} rows ({width}x{height})"]
    for row in result.rows:
        verdict = row.verdict
        words = error_words(result, row) if verdict.first_error else "no error"
        for why in ("read with doubt", "partly hidden", "perhaps no card but the cloth's dots"):
            positions = ", ".join(str(row.cards.index(k) + 1) for k in row.uncertain_cards if _why_look(result.cards[k]) == why)
            if positions:
                words += f" (please look at card {positions}: {why})"
        if row.unread_cards:
            words += " (a card in this row could not be read: please look)"
        if row.deciding_hidden:
            words += " (a card of this row lies too hidden to read, under another player's or a hand: please look)"
        if row.deciding_gaps:
            positions = ", ".join(ordinal(g + 1) for g in row.deciding_gaps)
            words += f" (room for a card before the {positions}: one may be hidden, please look)"
        for other in dict.fromkeys(other for _, other in row.disputed):
            words += f" (where this row meets {other}'s, the card at the meeting may be either's: please look)"
        for end in row.deciding_covered:
            place = "before the 1st" if end == 0 else f"after the {ordinal(end)}"
            words += f" (room for a card {place}: one may lie hidden there, please look)"
        lines.append(f"  {row.player}: {verdict.valid_length} valid of {len(row.cards)}; {words}")
    for player in result.rowless:
        lines.append(f"  {player}: no row found (please look: cards under a hand, or not found)")
    if result.ranking:
        lines.append("  Ranking: " + ", ".join(f"{r.place}. {r.player} ({r.valid_length}, {r.symbol_total} symbols)" for r in result.ranking))
    for card in result.unread:
        x, y = card.center_xy
        lines.append(f"  a card at ({x:.0f}, {y:.0f}) could not be read: {card.reading.reason or 'impossible reading'}")
    if result.too_small is not None:
        lines.append(f"  {too_small_words(result.too_small, result.enlarged)}")
    return lines


def draw_table(frame_bgr: NDArray[np.uint8], result: TableResult) -> NDArray[np.uint8]:
    """The frame with every card read, each row in its player's colour, and the ranking panel."""
    from vision.annotate import RowOverlay, draw_cards, draw_panel, draw_rows

    in_rows = {k for row in result.rows for k in row.cards}
    loose = [k for k in range(len(result.cards)) if k not in in_rows]
    out = draw_cards(frame_bgr, [result.cards[k] for k in loose], ids=loose)
    overlays = [
        RowOverlay(
            player=row.player,
            corners=tuple(result.cards[k].corners_xy for k in row.cards),
            valid_length=row.verdict.valid_length,
            error_index=None if row.verdict.first_error is None else row.verdict.first_error.position,
            error_text=error_words(result, row),
            uncertain=row.uncertain,
            colour=row.seat,
            hidden=_hidden_places([result.cards[k].corners_xy for k in row.cards], row),
            doubtful=tuple(row.cards.index(k) for k in dict.fromkeys([*row.uncertain_cards, *(k for k, _ in row.disputed)])
                           if k in row.cards),
        )
        for row in result.rows
    ]
    labels: list[tuple[int, int, int, int]] = []
    out = draw_rows(out, overlays, labels)
    lines = [f"{r.place}. {r.player}: {r.valid_length} card{'' if r.valid_length == 1 else 's'}, "
             f"{r.symbol_total} symbol{'' if r.symbol_total == 1 else 's'}" for r in result.ranking]
    lines += [f"{player}: no row found" for player in result.rowless]
    if result.too_small is not None:
        how = f"read enlarged {result.enlarged:.1f}x" if result.enlarged > 1 else "too small to read"
        lines.append(f"{result.too_small.count} cards of {result.too_small.short_px:.0f} px, {how}: camera closer?")
    boxes = [np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32) for x0, y0, x1, y1 in labels]
    return draw_panel(out, "Ranking", lines or ["no rows found"], [card.corners_xy for card in result.cards] + boxes)


def _hidden_places(corners: list[NDArray], row: TableRow) -> tuple[NDArray[np.float64], ...]:
    """Where a card of the row may lie hidden and change its verdict: covered ends, and gaps
    (a place for each card a gap holds, see ``vision.arrange.gap_places``)."""
    ends = tuple(quad for end, quad in end_rooms(corners, len(corners), along=row.way) if end in row.deciding_covered)
    return ends + (gap_places(corners, row.deciding_gaps) if row.deciding_gaps else ())
