"""A Scharfe Schoten round played through: turns, following suit, the spice cupboard, scores.

``play_round`` walks the tricks in order. Input that cannot have happened (a
card played twice, out of turn, a pick from an empty colour) raises a
``SchotenInputError``; a player who did not follow suit is a ``Violation`` in
the result, as a referee would note it and play on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from referee.schoten import (
    HIGHEST_NUMBER,
    Colour,
    Prediction,
    SchotenInputError,
    Score,
    SpiceCard,
    Trumps,
    WinReason,
    cupboard_size,
    hand_size,
    score_collection,
    trick_winner,
)

__all__ = [
    "CardCountError",
    "DuplicateCardError",
    "NotInHandError",
    "OutOfTurnError",
    "CupboardError",
    "Trick",
    "SchotenRound",
    "Play",
    "TrickResult",
    "Violation",
    "Collection",
    "RoundResult",
    "play_round",
    "seat_order",
    "starting_player",
    "rounds_in_game",
]


class CardCountError(SchotenInputError):
    """A hand, a trick or a round holds the wrong number of cards for the number of players."""


class DuplicateCardError(SchotenInputError):
    """A spice card appears twice: played twice, or dealt into two hands."""


class NotInHandError(SchotenInputError):
    """A player plays a card that the hands entered put somewhere else."""


class OutOfTurnError(SchotenInputError):
    """A card is played by a player whose turn it is not."""


class CupboardError(SchotenInputError):
    """A spice cupboard pick that cannot happen: an empty colour, an empty cupboard, or no colour named."""


@dataclass(frozen=True)
class Trick:
    """One trick as entered: the cards in play order from the leader, and the cupboard pick.

    ``players`` names who played the first cards when the input says so (the
    leader only, or everyone); it is checked against the turn order.
    """

    cards: tuple[SpiceCard, ...]
    pick: Colour | None = None
    players: tuple[str, ...] = ()


@dataclass(frozen=True)
class SchotenRound:
    """A round as entered: players in seat order (play passes down the list), the trumps,
    the predictions, the tricks so far, who starts, and any hands that were written down."""

    players: tuple[str, ...]
    trumps: Trumps
    predictions: Mapping[str, Prediction]
    tricks: tuple[Trick, ...]
    starts: str | None = None
    hands: Mapping[str, tuple[SpiceCard, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        players = tuple(self.players)
        object.__setattr__(self, "players", players)
        for player in players:
            if players.count(player) > 1:
                raise SchotenInputError(f"player {player!r} is listed twice")
        size = hand_size(len(players))
        if self.starts is not None and self.starts not in players:
            raise OutOfTurnError(f"{self.starts!r} cannot start: not a player ({', '.join(players)})")
        for player in players:
            if player not in self.predictions:
                raise SchotenInputError(f"{player} has made no prediction (most, fewest)")
        for player in self.predictions:
            if player not in players:
                raise SchotenInputError(f"prediction for {player!r}, who is not a player ({', '.join(players)})")
        owner: dict[SpiceCard, str] = {}
        for player, hand in self.hands.items():
            if player not in players:
                raise SchotenInputError(f"hand for {player!r}, who is not a player ({', '.join(players)})")
            if len(hand) != size:
                raise CardCountError(
                    f"{player}'s hand holds {len(hand)} cards, expected {size} "
                    f"({len(players)} players get {size} cards each)"
                )
            for card in hand:
                if card in owner:
                    where = "twice" if owner[card] == player else f"in both {owner[card]}'s and {player}'s hands"
                    raise DuplicateCardError(f"{card} ({card.short}) is dealt {where}; there is one of each card")
                owner[card] = player

    @property
    def first(self) -> str:
        """The starting player: who plays the first card of the round."""
        return self.starts if self.starts is not None else self.players[0]

    @property
    def hand_size(self) -> int:
        return hand_size(len(self.players))


@dataclass(frozen=True)
class Play:
    player: str
    card: SpiceCard


@dataclass(frozen=True)
class TrickResult:
    """A trick taken: the plays from the leader, the winner with their card and why, the cupboard
    pick, and the super trumps played (in play order)."""

    number: int
    plays: tuple[Play, ...]
    winner: str
    card: SpiceCard
    reason: WinReason
    pick: Colour | None
    super_trumps: tuple[SpiceCard, ...] = ()

    @property
    def leader(self) -> str:
        return self.plays[0].player

    @property
    def led(self) -> Colour:
        return self.plays[0].card.colour

    def why(self) -> str:
        """The rulebook's reason, in words.

        >>> from referee.schoten import parse_cards
        >>> cards = parse_cards("r9 b8 r11")
        >>> TrickResult(1, tuple(Play(p, c) for p, c in zip("ABC", cards)), "B", cards[1], WinReason.HIGHEST_COLOUR, None).why()
        'B wins with black 8: no super trump was played, and black ranks highest of the colours played'
        """
        cards = [play.card for play in self.plays]
        if self.reason is WinReason.SUPER_TRUMP:
            others = [c for c in self.super_trumps if c != self.card]
            over = f", the highest super trump played (over {', '.join(map(str, others))})" if others else ""
            return f"{self.winner} wins with the super trump {self.card}{over}"
        colour = self.card.colour
        same = [c for c in cards if c.colour is colour and c != self.card]
        if all(c.colour is colour for c in cards):
            return f"{self.winner} wins with {self.card}: no super trump was played, and it is the highest {colour.value} card"
        text = f"{self.winner} wins with {self.card}: no super trump was played, and {colour.value} ranks highest of the colours played"
        if same:
            text += f", {self.card.number} its highest number"
        return text

    def describe(self) -> str:
        """One line: ``trick 3: Ben wins with the super trump red 2``, and the cupboard pick."""
        text = f"trick {self.number}: {self.why()}"
        if self.pick is not None:
            text += f"; takes a {self.pick.value} card from the spice cupboard"
        return text


@dataclass(frozen=True)
class Violation:
    """A player did not follow suit although they could have: where, who, what, and the proof.

    ``proof_trick`` is the later trick in which the player played ``proof``;
    ``None`` means ``proof`` was in the hand entered for them.
    """

    trick: int
    player: str
    card: SpiceCard
    led: Colour
    proof: SpiceCard
    proof_trick: int | None

    def describe(self) -> str:
        source = "in their hand" if self.proof_trick is None else f"played in trick {self.proof_trick}"
        return (
            f"trick {self.trick}: {self.player} did not follow suit: played {self.card} to {self.led.value} led, "
            f"but held {self.proof} ({source})"
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "trick": self.trick,
            "player": self.player,
            "card": self.card.short,
            "rule": "follow suit",
            "led": self.led.value,
            "proof": self.proof.short,
            "proof_trick": self.proof_trick,
        }


@dataclass(frozen=True)
class Collection:
    """A player's collection: the cards of the tricks taken, and the cupboard cards by colour."""

    trick_cards: tuple[SpiceCard, ...] = ()
    cupboard: tuple[Colour, ...] = ()

    def count(self, colour: Colour) -> int:
        return sum(c.colour is colour for c in self.trick_cards) + self.cupboard.count(colour)

    def counts(self) -> dict[Colour, int]:
        return {colour: self.count(colour) for colour in Colour}


@dataclass(frozen=True)
class RoundResult:
    """A round refereed: each trick, every rule broken, each collection, and the scores
    (empty until the last trick is entered)."""

    round: SchotenRound
    tricks: tuple[TrickResult, ...]
    violations: tuple[Violation, ...]
    collections: Mapping[str, Collection]
    scores: Mapping[str, Score]

    @property
    def is_complete(self) -> bool:
        return len(self.tricks) == self.round.hand_size

    @property
    def points(self) -> dict[str, int]:
        return {player: score.total for player, score in self.scores.items()}


def seat_order(players: Sequence[str], first: str) -> list[str]:
    """The players in turn from ``first``: play passes to the left, down the seat order.

    >>> seat_order(["Anna", "Ben", "Cem"], "Ben")
    ['Ben', 'Cem', 'Anna']
    """
    start = list(players).index(first)
    return list(players[start:]) + list(players[:start])


def starting_player(players: Sequence[str], first: str, round_number: int) -> str:
    """Who starts round ``round_number`` (from 1) when ``first`` started round 1:
    the starting player moves one seat to the left each round.

    >>> [starting_player(["Anna", "Ben", "Cem"], "Anna", n) for n in (1, 2, 3)]
    ['Anna', 'Ben', 'Cem']
    """
    return seat_order(players, first)[(round_number - 1) % len(players)]


def rounds_in_game(players: int) -> int:
    """A game has as many rounds as players, so that everyone starts once."""
    hand_size(players)
    return players


def play_round(round_: SchotenRound) -> RoundResult:
    """Referee a round trick by trick.

    Each trick is played in turn from its leader (the starting player, then the
    previous trick's winner); the winner takes its cards and, while the spice
    cupboard lasts, one cupboard card of the colour they name. Afterwards every
    card played off the led colour is checked against the player's hand (if
    entered) and their later plays. The scores come with the last trick.
    """
    players = round_.players
    size = round_.hand_size
    if len(round_.tricks) > size:
        raise CardCountError(
            f"trick {size + 1}: a round with {len(players)} players has {size} tricks "
            f"({size} cards each), got {len(round_.tricks)} tricks"
        )
    owner = {card: player for player, hand in round_.hands.items() for card in hand}
    known = set(owner) | {card for trick in round_.tricks for card in trick.cards}
    # Per colour, at most this many cards can still be in the cupboard (exact once all cards are known).
    left = {colour: HIGHEST_NUMBER - sum(c.colour is colour for c in known) for colour in Colour}
    cupboard_left = cupboard_size(len(players))
    seen: dict[SpiceCard, tuple[int, str]] = {}
    collections = {player: Collection() for player in players}
    results: list[TrickResult] = []
    leader = round_.first
    for number, trick in enumerate(round_.tricks, start=1):
        turn = seat_order(players, leader)
        _check_turns(number, trick, turn, players, round_.first if number == 1 else None)
        plays = []
        for player, card in zip(turn, trick.cards):
            _check_card(number, player, card, seen, owner, round_.hands)
            seen[card] = (number, player)
            plays.append(Play(player, card))
        index, reason = trick_winner(trick.cards, round_.trumps)
        winner = turn[index]
        pick = _cupboard_pick(number, winner, trick.pick, left, cupboard_left)
        if pick is not None:
            left[pick] -= 1
            cupboard_left -= 1
        supers = tuple(c for c in trick.cards if round_.trumps.is_super_trump(c))
        results.append(TrickResult(number, tuple(plays), winner, trick.cards[index], reason, pick, supers))
        taken = collections[winner]
        collections[winner] = Collection(
            taken.trick_cards + trick.cards, taken.cupboard + ((pick,) if pick is not None else ())
        )
        leader = winner
    violations = _follow_suit_violations(results, round_.hands)
    scores: dict[str, Score] = {}
    if len(results) == size:
        scores = {p: score_collection(collections[p].counts(), round_.predictions[p]) for p in players}
    return RoundResult(round_, tuple(results), tuple(violations), collections, scores)


def _check_turns(number: int, trick: Trick, turn: list[str], players: Sequence[str], first: str | None) -> None:
    if len(trick.cards) != len(turn):
        got = " ".join(card.short for card in trick.cards) or "none"
        missing = f"; {turn[len(trick.cards)]} has not played" if len(trick.cards) < len(turn) else ""
        raise CardCountError(
            f"trick {number}: expected {len(turn)} cards, one per player from {turn[0]}, "
            f"got {len(trick.cards)} ({got}){missing}"
        )
    for position, (named, card) in enumerate(zip(trick.players, trick.cards)):
        if named not in players:
            raise OutOfTurnError(
                f"trick {number}: {named!r} plays {card} ({card.short}), but is not a player ({', '.join(players)})"
            )
        if named != turn[position]:
            if position == 0:
                whose = f"{turn[0]} starts the round" if first else f"{turn[0]} leads, having won trick {number - 1}"
            else:
                whose = f"it is {turn[position]}'s turn after {turn[position - 1]}"
            raise OutOfTurnError(f"trick {number}: {named} plays {card} ({card.short}) out of turn: {whose}")


def _check_card(
    number: int,
    player: str,
    card: SpiceCard,
    seen: Mapping[SpiceCard, tuple[int, str]],
    owner: Mapping[SpiceCard, str],
    hands: Mapping[str, tuple[SpiceCard, ...]],
) -> None:
    if card in seen:
        trick, by = seen[card]
        where = "in this trick" if trick == number else f"in trick {trick}"
        raise DuplicateCardError(
            f"trick {number}: {player} plays {card} ({card.short}), which {by} already played {where}"
        )
    holder = owner.get(card)
    if holder is not None and holder != player:
        raise NotInHandError(f"trick {number}: {player} plays {card} ({card.short}), which is in {holder}'s hand")
    if holder is None and player in hands:
        raise NotInHandError(f"trick {number}: {player} plays {card} ({card.short}), which is not in {player}'s hand")


def _cupboard_pick(
    number: int, winner: str, pick: Colour | None, left: Mapping[Colour, int], cupboard_left: int
) -> Colour | None:
    remaining = ", ".join(f"{left[c]} {c.value}" for c in Colour if left[c] > 0) or "none"
    if cupboard_left == 0:
        if pick is not None:
            raise CupboardError(
                f"trick {number}: {winner} takes a {pick.value} card from the spice cupboard, "
                "but the cupboard is empty (the winner takes only the trick)"
            )
        return None
    if pick is None:
        possible = [c for c in Colour if left[c] > 0]
        if len(possible) == 1:
            return possible[0]
        raise CupboardError(
            f"trick {number}: {winner} takes one card from the spice cupboard, but no colour is given "
            f"(add +r, +g, +b or +y to the trick; at most {remaining} left)"
        )
    if left[pick] <= 0:
        raise CupboardError(
            f"trick {number}: {winner} takes a {pick.value} card from the spice cupboard, "
            f"but no {pick.value} card is left in it (at most {remaining})"
        )
    return pick


def _follow_suit_violations(
    results: Sequence[TrickResult], hands: Mapping[str, tuple[SpiceCard, ...]]
) -> list[Violation]:
    played: dict[str, list[tuple[int, SpiceCard]]] = {}
    for result in results:
        for play in result.plays:
            played.setdefault(play.player, []).append((result.number, play.card))
    violations = []
    for result in results:
        led = result.led
        for play in result.plays[1:]:
            if play.card.colour is led:
                continue
            later = [(n, c) for n, c in played[play.player] if n > result.number and c.colour is led]
            if later:
                violations.append(Violation(result.number, play.player, play.card, led, later[0][1], later[0][0]))
                continue
            if play.player in hands:
                gone = {c for n, c in played[play.player] if n < result.number}
                held = sorted(
                    (c for c in hands[play.player] if c not in gone and c.colour is led), key=SpiceCard.sort_key
                )
                if held:
                    violations.append(Violation(result.number, play.player, play.card, led, held[0], None))
    return violations
