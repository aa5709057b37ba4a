"""A Schwarz Rot Gelb Extreme game as it unfolds on camera: rows in, events out.

``LiveGame.observe(rows, frame, t)`` takes each player's settled cards (ids and
criteria, left to right) as the tracker sees them in a frame and returns the
events that follow: ``card_laid`` and ``card_removed`` as rows change, ``stop``
when a row reaches seven cards, ``round_scored`` ``STOP_WAIT_S`` after it (a card laid
before the seventh counts, though a hand hid it at the stop), ``round_started``
when new starting cards appear on a cleared table, ``game_over`` after five
rounds. A game can be rebuilt from its own events (``LiveGame.replay``), which
is how ``referee live --resume`` continues after a crash.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Any, Collection, Mapping, Sequence

from referee.cards import Criteria
from referee.game import ROUNDS_SRGE, Standing, standings
from referee.ranking import HouseRule
from referee.round import Round, RoundResult, new_seed, score_round
from referee.rows import MAX_LENGTH, Verdict, check_row
from referee.live.events import Event

__all__ = ["SeenCard", "Phase", "LiveGame", "round_scored_data"]

GLITCH_WAIT_S = 2.0  # while a row glitches (a card laid, still followed, missing from it), new cards in it wait this long
STOP_WAIT_S = 2.0  # the round is scored this long after the stop: cards lying since before it, a hand over them, are laid meanwhile


@dataclass(frozen=True)
class SeenCard:
    """A settled card as the tracker reports it: its identity, its (voted) criteria and since when it has
    lain at its place (a hand over it or not; after the stop, only a card lying since before it is laid)."""

    card_id: int
    criteria: Criteria
    lying_since: float = -math.inf


class Phase(str, Enum):
    """Where the game stands."""

    PLAYING = "playing"  # a round is open: cards are being laid
    SCORED = "scored"  # the round is scored; waiting for the table to be cleared
    CLEARED = "cleared"  # the table is bare; the next round starts with its first card
    OVER = "over"


@dataclass
class _Entry:
    card_id: int  # negative: a card known from the stored events, not yet seen again
    criteria: Criteria


class LiveGame:
    """The game's state; see the module docstring. Only ``observe`` and the key actions change it."""

    def __init__(self, players: Sequence[str], point_cards: Mapping[int, Sequence[int]] | None = None,
                 house_rule: HouseRule = HouseRule.SYMBOLS, rounds: int = ROUNDS_SRGE) -> None:
        if len(set(players)) != len(players) or not players:
            raise ValueError(f"players must be distinct names, got {list(players)!r}")
        self.players = tuple(players)
        self.house_rule = house_rule
        self.rounds = rounds
        self._point_cards = {r: tuple(p) for r, p in (point_cards or {}).items()}
        self.round = 0
        self.phase = Phase.CLEARED
        self.rows: dict[str, list[_Entry]] = {p: [] for p in self.players}
        self.results: dict[int, RoundResult] = {}
        self._stale: set[int] = set()
        self._tracked: set[int] | None = None
        self._glitch_t: dict[str, float] = {}  # since when each row has glitched
        self._stop: tuple[str, float] | None = None  # who stopped the open round, and when (its score waits)
        self._late: set[int] = set()  # cards seen in a row only after the stop, said once
        self._placeholder = -1

    # --- what the camera sees -------------------------------------------------------------
    def start(self, frame: int, t: float) -> list[Event]:
        """The first round starts when refereeing starts (nothing to do for a resumed game)."""
        if self.round == 0:
            return self._start_round(frame, t)
        return []

    def observe(self, rows: Mapping[str, Sequence[SeenCard]], frame: int, t: float,
                tracked: Collection[int] | None = None) -> list[Event]:
        """The events that follow from this frame's rows (players missing from ``rows`` have none).

        ``tracked``: the ids the tracker still follows. A laid card missing from its row
        but still tracked (the rows glitched for a frame) keeps its place; without
        ``tracked``, a card missing from its row has left it.
        """
        self._tracked = None if tracked is None else set(tracked)
        # A card laid in one player's row is not laid again in another's (a glitch of the rows).
        owner = {e.card_id: p for p, entries in self.rows.items() for e in entries if e.card_id >= 0}
        fresh = {p: [c for c in rows.get(p, ()) if c.card_id not in self._stale and owner.get(c.card_id, p) == p]
                 for p in self.players}
        if self.phase is Phase.OVER:
            return []
        if self.phase is Phase.SCORED:
            if not any(rows.get(p) for p in self.players):
                self.phase = Phase.CLEARED
                self._stale.clear()
            return []
        events: list[Event] = []
        if self.phase is Phase.CLEARED:
            if not any(fresh.values()):
                return []
            events += self._start_round(frame, t)
        for player in self.players:
            events += self._update_row(player, fresh[player], frame, t)
        full = [p for p in self.players if len(self.rows[p]) >= MAX_LENGTH]
        if full and self._stop is None:
            events.append(Event("stop", t, frame, {"player": full[0]}))
            self._stop = (full[0], t)
        # "Stopp!": a card laid before the seventh counts, though a hand still hid it then; the
        # score waits for the hands to leave the rows. Cards laid after the stop go back to the middle.
        if self._stop is not None and t - self._stop[1] >= STOP_WAIT_S - 1e-6:
            events += self._score(self._stop[0], frame, t)
        return events

    def _update_row(self, player: str, seen: Sequence[SeenCard], frame: int, t: float) -> list[Event]:
        old = self.rows[player]
        by_id = {e.card_id: e for e in old}
        seen_ids = {c.card_id for c in seen}
        waiting = [e for e in old if e.card_id < 0]
        # Still tracked but missing from the row this frame: kept where it was, like a card known from the log.
        held = [e for e in old if e.card_id >= 0 and e.card_id not in seen_ids and self._tracked is not None
                and e.card_id in self._tracked]
        new: list[_Entry] = []
        laid: list[_Entry] = []
        last = -1  # where in the old row the last card seen so far stands: order must be kept
        late: list[SeenCard] = []
        for card in seen:
            entry = by_id.get(card.card_id)
            if entry is None and self._stop is not None and (card.lying_since > self._stop[1] or player == self._stop[0]):
                if player != self._stop[0] and card.card_id not in self._late and math.isfinite(self._stop[1]):
                    late.append(card)
                continue  # laid after the stop (it goes back to the middle), or beyond the seventh card
            if entry is None:
                # After a resume, a card known from the log that is seen again in its place is not laid again.
                twin = next((e for e in waiting if e.criteria == card.criteria and old.index(e) > last), None)
                if twin is not None:
                    waiting.remove(twin)
                    last = old.index(twin)
                entry = _Entry(card.card_id, card.criteria)
                if twin is None:
                    laid.append(entry)
            else:
                last = max(last, old.index(entry))
            entry.criteria = card.criteria
            new.append(entry)
        # A row seen without a card laid in it that is still followed was arranged wrong in this
        # frame (a lone card nearer the player taken for the row, the cards laid left out): the
        # cards new in it may be a card in a hand or a pool card, or stand in the wrong place.
        # They wait for the row to be seen whole again, up to ``GLITCH_WAIT_S`` after it was first
        # seen so (a row that goes on glitching, one of its cards nudged off its line, holds none up long).
        if held:
            since = self._glitch_t.setdefault(player, t)
            if laid and t - since < GLITCH_WAIT_S:
                new = [entry for entry in new if entry not in laid]
                laid = []
        else:
            self._glitch_t.pop(player, None)
        if self._stop is not None:  # after the stop no card leaves a row (the players take them up to check them)
            held = [e for e in old if e.card_id >= 0 and e.card_id not in seen_ids]
        for entry in sorted(waiting + held, key=old.index):
            new.insert(min(old.index(entry), len(new)), entry)
        events = []
        still_there = {e.card_id for e in new}
        for position in reversed(range(len(old))):
            if old[position].card_id >= 0 and old[position].card_id not in still_there:
                events.append(Event("card_removed", t, frame, {"player": player, "position": position}))
        self.rows[player] = new
        for entry in laid:
            position = new.index(entry)
            events.append(Event("card_laid", t, frame, {
                "player": player, "position": position, "criteria": entry.criteria.as_dict(),
            }))
        for card in late:  # the camera cannot tell when it was put down under a hand: a person may
            self._late.add(card.card_id)
            c = card.criteria
            events.append(Event("warning", t, frame, {
                "message": f"a card read {c.colours}/{c.shapes}/{c.symbols} showed in {player}'s row only after the stop and "
                           "is not counted: if it was laid before the stop, it counts (look and decide)",
                "player": player, "criteria": c.as_dict(),
            }))
        return events

    # --- key actions ------------------------------------------------------------------------
    def next_round(self, frame: int, t: float) -> list[Event]:
        """The next round now (key ``n``): an open round is scored as it lies; cards on the table are ignored."""
        events: list[Event] = []
        if self.phase is Phase.OVER:
            return events
        if self.phase is Phase.PLAYING:
            events += self._score(self.stopped_by, frame, t)
            if self.phase is Phase.OVER:
                return events
        self._stale = {e.card_id for row in self.rows.values() for e in row if e.card_id >= 0}
        return events + self._start_round(frame, t)

    def set_points(self, points: Sequence[int], frame: int, t: float) -> list[Event]:
        """Point cards for the current round (key ``p``); a round already scored is scored again with them."""
        if len(points) != len(self.players):
            raise ValueError(f"expected {len(self.players)} point cards, one per player, got {len(points)}")
        self._point_cards[self.round] = tuple(points)
        if self.round in self.results and self.phase is not Phase.PLAYING:
            result = self.results[self.round]
            return self._score(result.round.stopped_by, frame, t, rows=result.round.rows)
        return []

    def finish(self, frame: int, t: float) -> list[Event]:
        """The source has ended: a round still open is scored as it lies (no ``stop``, unless one came)."""
        if self.phase is Phase.PLAYING and any(self.rows.values()):
            return self._score(self.stopped_by, frame, t)
        return []

    # --- scoring ---------------------------------------------------------------------------
    def _start_round(self, frame: int, t: float) -> list[Event]:
        self.round += 1
        self.phase = Phase.PLAYING
        self.rows = {p: [] for p in self.players}
        self._glitch_t.clear()
        self._stop = None
        self._late.clear()
        return [Event("round_started", t, frame, {"round": self.round})]

    def _score(self, stopped_by: str | None, frame: int, t: float,
               rows: Mapping[str, tuple[Criteria, ...]] | None = None) -> list[Event]:
        if rows is None:
            rows = {p: tuple(e.criteria for e in self.rows[p]) for p in self.players}
        points = self._points_for(self.round)
        round_ = Round(rows, points, stopped_by, self.house_rule)
        result = score_round(round_, new_seed() if points else None)
        self.results[self.round] = result
        self.phase = Phase.SCORED
        self._stop = None
        events = [Event("round_scored", t, frame, round_scored_data(self.round, result))]
        if self.round >= self.rounds:
            self.phase = Phase.OVER
            table = self.standings()
            events.append(Event("game_over", t, frame, {"standings": [s.as_dict() for s in table]}))
        return events

    def _points_for(self, number: int) -> tuple[int, ...]:
        return self._point_cards.get(number, self._point_cards.get(0, ()))

    @property
    def stopped_by(self) -> str | None:
        """Who called the stop of the open round while its score waits for cards laid before it (else None)."""
        return self._stop[0] if self._stop is not None and self.phase is Phase.PLAYING else None

    def standings(self) -> list[Standing]:
        """Totals over the rounds scored so far."""
        return standings(self.players, [dict(self.results[r].points) for r in sorted(self.results)])

    def verdicts(self) -> dict[str, Verdict]:
        """Each row's verdict as it lies now (shown live only in open mode)."""
        return {p: check_row([e.criteria for e in self.rows[p]]) for p in self.players}

    def row_criteria(self) -> dict[str, tuple[Criteria, ...]]:
        return {p: tuple(e.criteria for e in self.rows[p]) for p in self.players}

    def row_ids(self) -> dict[str, tuple[int, ...]]:
        return {p: tuple(e.card_id for e in self.rows[p]) for p in self.players}

    # --- resuming ------------------------------------------------------------------------------
    @classmethod
    def replay(cls, players: Sequence[str], events: Sequence[Event], point_cards: Mapping[int, Sequence[int]] | None = None,
               house_rule: HouseRule = HouseRule.SYMBOLS, rounds: int = ROUNDS_SRGE) -> LiveGame:
        """The game as its events left it; cards of an open round wait to be seen again."""
        game = cls(players, point_cards, house_rule, rounds)
        for event in events:
            game._apply(event)
        return game

    def _apply(self, event: Event) -> None:
        data = event.data
        if event.type == "round_started":
            self.round = int(data["round"])
            self.phase = Phase.PLAYING
            self.rows = {p: [] for p in self.players}
            self._stop = None
        elif event.type == "stop":  # not scored before the crash: scored as it lies when refereeing goes on (no card laid, none said late)
            self._stop = (str(data["player"]), -math.inf)
        elif event.type == "card_laid":
            row = self.rows[data["player"]]
            row.insert(min(int(data["position"]), len(row)), _Entry(self._placeholder, Criteria(**data["criteria"])))
            self._placeholder -= 1
        elif event.type == "card_removed":
            row = self.rows[data["player"]]
            if 0 <= int(data["position"]) < len(row):
                del row[int(data["position"])]
        elif event.type == "round_scored":
            number = int(data["round"])
            rows = {r["player"]: tuple(Criteria(**c) for c in r["cards"]) for r in data["rows"]}
            rows = {p: rows.get(p, ()) for p in self.players}
            points = tuple(data["points"].values()) if data.get("points") else ()
            round_ = Round(rows, (), data.get("stopped_by"), self.house_rule)
            scored = score_round(round_)
            self.results[number] = RoundResult(round_, scored.order, scored.verdicts, scored.ranking,
                                               dict(data.get("points") or {}), data.get("seed"))
            if points:
                self._point_cards.setdefault(number, points)
            self.phase = Phase.SCORED
        elif event.type == "game_over":
            self.phase = Phase.OVER


def round_scored_data(number: int, result: RoundResult) -> dict[str, Any]:
    """The ``round_scored`` fields of ``live-events.md`` for a scored round (plus ``stopped_by`` and ``seed``)."""
    rows = []
    for player in result.order:
        verdict = result.verdicts[player]
        error = verdict.first_error
        rows.append({
            "player": player,
            "cards": [card.as_dict() for card in result.round.rows[player]],
            "valid_length": verdict.valid_length,
            "first_error": None if error is None else {"position": error.position, "criteria": list(error.criteria)},
        })
    data: dict[str, Any] = {
        "round": number,
        "rows": rows,
        "ranking": [rank.as_dict() for rank in result.ranking],
        "stopped_by": result.round.stopped_by,
    }
    if result.points:
        data["points"] = dict(result.points)
        data["seed"] = result.seed
    return data
