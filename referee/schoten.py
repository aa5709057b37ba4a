"""Scharfe Schoten: spice cards, the round's trumps, who takes a trick, and scoring.

The vocabulary and the rules that need no history. Playing a whole round
through (turns, following suit, the spice cupboard) is ``referee.schoten_round``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Mapping, Sequence

__all__ = [
    "Colour",
    "SpiceCard",
    "Trumps",
    "WinReason",
    "Prediction",
    "Outcome",
    "Score",
    "SchotenInputError",
    "InvalidSpiceCardError",
    "TrumpsError",
    "PredictionError",
    "PlayerCountError",
    "HIGHEST_NUMBER",
    "HAND_SIZES",
    "parse_cards",
    "hand_size",
    "cupboard_size",
    "trick_winner",
    "may_play",
    "judge_prediction",
    "score_collection",
    "full_deck",
]

HIGHEST_NUMBER = 12
HAND_SIZES = {3: 12, 4: 10}
POINTS_UNIQUE = 5
POINTS_TIED = 3


class SchotenInputError(ValueError):
    """A Scharfe Schoten round that cannot have happened with the game's material or turns."""


class InvalidSpiceCardError(SchotenInputError):
    """A spice card that does not exist (colours r, g, b, y; numbers 1 to 12)."""


class TrumpsError(SchotenInputError):
    """The four colour/number pairs are not four colours with four different number cards."""


class PredictionError(SchotenInputError):
    """A prediction names the same colour for the most and the fewest cards, or no colour."""


class PlayerCountError(SchotenInputError):
    """The rulebook deals only for 3 or 4 players."""


class Colour(str, Enum):
    """The four spice colours; a card's back shows its colour."""

    RED = "red"
    GREEN = "green"
    BLACK = "black"
    YELLOW = "yellow"

    @property
    def letter(self) -> str:
        return self.value[0]

    @classmethod
    def parse(cls, text: object) -> Colour:
        """A colour from its name or first letter, in any case.

        >>> Colour.parse("B"), Colour.parse("yellow")
        (<Colour.BLACK: 'black'>, <Colour.YELLOW: 'yellow'>)
        """
        word = str(text).strip().lower()
        for colour in cls:
            if word in (colour.value, colour.letter):
                return colour
        raise ValueError(f"no such colour {text!r} (expected red, green, black or yellow, or r, g, b, y)")


_CARD = re.compile(r"([a-z]+)\s*(\d+)")


@dataclass(frozen=True)
class SpiceCard:
    """One of the 48 spice cards: a colour and a number from 1 to 12.

    >>> SpiceCard.parse("r9"), str(SpiceCard.parse("Black 12"))
    (SpiceCard(colour=<Colour.RED: 'red'>, number=9), 'black 12')
    >>> SpiceCard.parse("r13")
    Traceback (most recent call last):
    ...
    referee.schoten.InvalidSpiceCardError: no such spice card 'r13': numbers run from 1 to 12
    """

    colour: Colour
    number: int

    def __post_init__(self) -> None:
        if not isinstance(self.colour, Colour):
            raise InvalidSpiceCardError(f"a spice card's colour is a Colour, got {self.colour!r}")
        if isinstance(self.number, bool) or not isinstance(self.number, int):
            raise InvalidSpiceCardError(f"a spice card's number is a whole number, got {self.number!r}")
        if not 1 <= self.number <= HIGHEST_NUMBER:
            raise InvalidSpiceCardError(
                f"no such spice card {self.short!r}: numbers run from 1 to {HIGHEST_NUMBER}"
            )

    @classmethod
    def parse(cls, text: object) -> SpiceCard:
        """A card written as colour and number: ``r9``, ``b12``, ``green 1``."""
        match = _CARD.fullmatch(str(text).strip().lower())
        if match is None:
            raise InvalidSpiceCardError(
                f"no such spice card {text!r}: write a colour letter and a number, like 'r9' or 'b12'"
            )
        try:
            colour = Colour.parse(match.group(1))
        except ValueError:
            raise InvalidSpiceCardError(
                f"no such spice card {text!r}: the colours are r(ed), g(reen), b(lack) and y(ellow)"
            ) from None
        number = int(match.group(2))
        if not 1 <= number <= HIGHEST_NUMBER:
            raise InvalidSpiceCardError(f"no such spice card {text!r}: numbers run from 1 to {HIGHEST_NUMBER}")
        return cls(colour, number)

    @property
    def short(self) -> str:
        return f"{self.colour.letter}{self.number}"

    def __str__(self) -> str:
        return f"{self.colour.value} {self.number}"

    def sort_key(self) -> tuple[int, int]:
        """Colour in the order red, green, black, yellow, then number (for listing, not ranking)."""
        return (list(Colour).index(self.colour), self.number)


def parse_cards(text: object) -> tuple[SpiceCard, ...]:
    """Cards written in one line, separated by spaces or commas.

    >>> [c.short for c in parse_cards("r9 b8, r11 r2")]
    ['r9', 'b8', 'r11', 'r2']
    """
    return tuple(SpiceCard.parse(word) for word in re.split(r"[\s,]+", str(text).strip()) if word)


def full_deck() -> list[SpiceCard]:
    """All 48 spice cards."""
    return [SpiceCard(colour, number) for colour in Colour for number in range(1, HIGHEST_NUMBER + 1)]


def hand_size(players: int) -> int:
    """Cards dealt to each player: 12 with 3 players, 10 with 4; the rulebook knows no other count."""
    if players not in HAND_SIZES:
        raise PlayerCountError(f"Scharfe Schoten is played by 3 or 4 players, got {players}")
    return HAND_SIZES[players]


def cupboard_size(players: int) -> int:
    """Cards left over after the deal: the spice cupboard (12 with 3 players, 8 with 4)."""
    return len(Colour) * HIGHEST_NUMBER - players * hand_size(players)


class WinReason(str, Enum):
    """Why a card takes a trick: the rulebook's two cases."""

    SUPER_TRUMP = "super trump"
    HIGHEST_COLOUR = "highest colour"


@dataclass(frozen=True)
class Trumps:
    """The round's four colour/number pairs, as super trumps sorted highest number first.

    The order of the pairs is the ranking: the first pair's card is the highest
    super trump and its colour the highest colour.

    >>> t = Trumps.parse("r2 g10 y1 b9")
    >>> [c.short for c in t.super_trumps], [c.value for c in t.colours]
    (['g10', 'b9', 'r2', 'y1'], ['green', 'black', 'red', 'yellow'])
    """

    super_trumps: tuple[SpiceCard, ...]
    colours: tuple[Colour, ...] = field(init=False)

    def __post_init__(self) -> None:
        cards = tuple(self.super_trumps)
        if len(cards) != len(Colour):
            raise TrumpsError(f"expected 4 colour/number pairs, one per colour, got {len(cards)}")
        for colour in Colour:
            twice = [c.short for c in cards if c.colour is colour]
            if len(twice) > 1:
                raise TrumpsError(f"{colour.value} has two number cards ({', '.join(twice)}); each colour gets one")
        numbers = [c.number for c in cards]
        for number in numbers:
            if numbers.count(number) > 1:
                raise TrumpsError(f"the number card {number} is used twice; the 12 number cards are all different")
        ordered = tuple(sorted(cards, key=lambda c: -c.number))
        object.__setattr__(self, "super_trumps", ordered)
        object.__setattr__(self, "colours", tuple(c.colour for c in ordered))

    @classmethod
    def parse(cls, text: object) -> Trumps:
        """The pairs written as cards in one line: ``"g10 b9 r2 y1"``."""
        return cls(parse_cards(text))

    @classmethod
    def from_numbers(cls, numbers: Mapping[Colour, int]) -> Trumps:
        """The pairs from each colour card's number card."""
        return cls(tuple(SpiceCard(colour, number) for colour, number in numbers.items()))

    def is_super_trump(self, card: SpiceCard) -> bool:
        return card in self.super_trumps

    def strength(self, card: SpiceCard) -> tuple[int, int, int]:
        """A key under which a higher card beats a lower one; no two cards are equal."""
        if card in self.super_trumps:
            return (1, -self.super_trumps.index(card), 0)
        return (0, -self.colours.index(card.colour), card.number)

    def beats(self, card: SpiceCard, other: SpiceCard) -> bool:
        """Whether ``card`` ranks above ``other`` this round, whatever colour was led.

        >>> t = Trumps.parse("g10 b9 r2 y1")
        >>> t.beats(SpiceCard.parse("b8"), SpiceCard.parse("r11")), t.beats(SpiceCard.parse("r2"), SpiceCard.parse("g12"))
        (True, True)
        """
        return self.strength(card) > self.strength(other)


def trick_winner(cards: Sequence[SpiceCard], trumps: Trumps) -> tuple[int, WinReason]:
    """Which card takes the trick (its index in play order), and why.

    The highest super trump played wins; without one, the highest number of the
    highest-ranking colour played. The colour led gives no advantage.

    >>> trick_winner(parse_cards("r9 b8 r11 r2"), Trumps.parse("g10 b9 r2 y1"))
    (3, <WinReason.SUPER_TRUMP: 'super trump'>)
    >>> trick_winner(parse_cards("r9 b9 r11 r2"), Trumps.parse("g10 b9 r2 y1"))
    (1, <WinReason.SUPER_TRUMP: 'super trump'>)
    """
    if not cards:
        raise ValueError("a trick needs at least one card")
    best = max(range(len(cards)), key=lambda i: trumps.strength(cards[i]))
    reason = WinReason.SUPER_TRUMP if trumps.is_super_trump(cards[best]) else WinReason.HIGHEST_COLOUR
    return best, reason


def may_play(card: SpiceCard, led: Colour, held: Iterable[SpiceCard]) -> bool:
    """Whether playing ``card`` to a trick led in ``led`` follows suit, given the cards ``held``.

    Super trumps are cards of their colour: they follow suit like any other.

    >>> may_play(SpiceCard.parse("b8"), Colour.RED, parse_cards("b8 g3"))
    True
    >>> may_play(SpiceCard.parse("b8"), Colour.RED, parse_cards("b8 r3"))
    False
    """
    return card.colour is led or all(other.colour is not led for other in held)


@dataclass(frozen=True)
class Prediction:
    """A player's two prediction tiles: the colour collected most, and the one collected fewest."""

    most: Colour
    fewest: Colour

    def __post_init__(self) -> None:
        if not isinstance(self.most, Colour) or not isinstance(self.fewest, Colour):
            raise PredictionError(f"a prediction is two colours, got {self.most!r} and {self.fewest!r}")
        if self.most is self.fewest:
            raise PredictionError(
                f"{self.most.value} is predicted twice, as most and as fewest; "
                "the two tiles must be of different colours"
            )


class Outcome(str, Enum):
    """How one prediction came out."""

    UNIQUE = "right"
    TIED = "right but tied"
    WRONG = "wrong"

    @property
    def points(self) -> int:
        return {Outcome.UNIQUE: POINTS_UNIQUE, Outcome.TIED: POINTS_TIED, Outcome.WRONG: 0}[self]


@dataclass(frozen=True)
class Score:
    """A player's points for one round: each prediction, and the difference when both are right."""

    most: Outcome
    fewest: Outcome
    difference: int
    total: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "total", self.most.points + self.fewest.points + self.difference)

    def as_dict(self) -> dict[str, object]:
        return {
            "most": self.most.value,
            "fewest": self.fewest.value,
            "difference": self.difference,
            "total": self.total,
        }


def judge_prediction(counts: Mapping[Colour, int], colour: Colour, most: bool) -> Outcome:
    """Whether ``colour`` is the colour collected most (or fewest), alone or tied.

    >>> counts = {Colour.RED: 6, Colour.GREEN: 2, Colour.BLACK: 0, Colour.YELLOW: 0}
    >>> judge_prediction(counts, Colour.RED, most=True), judge_prediction(counts, Colour.YELLOW, most=False)
    (<Outcome.UNIQUE: 'right'>, <Outcome.TIED: 'right but tied'>)
    """
    mine = counts.get(colour, 0)
    others = [counts.get(c, 0) for c in Colour if c is not colour]
    best = max(others) if most else min(others)
    if mine == best:
        return Outcome.TIED
    if (mine > best) == most:
        return Outcome.UNIQUE
    return Outcome.WRONG


def score_collection(counts: Mapping[Colour, int], prediction: Prediction) -> Score:
    """Points for a collection (cards per colour): 5 per prediction uniquely right, 3 if tied,
    plus the difference between the two predicted colours' counts when both are right.

    >>> score_collection({}, Prediction(Colour.RED, Colour.YELLOW)).total
    6
    """
    most = judge_prediction(counts, prediction.most, most=True)
    fewest = judge_prediction(counts, prediction.fewest, most=False)
    difference = 0
    if most is not Outcome.WRONG and fewest is not Outcome.WRONG:
        difference = counts.get(prediction.most, 0) - counts.get(prediction.fewest, 0)
    return Score(most, fewest, difference)
