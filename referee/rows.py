"""Checking one player's row: the first error and the valid length."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from referee.cards import Criteria

__all__ = ["MAX_LENGTH", "RowError", "Verdict", "check_row", "describe_error", "matched_words", "ordinal"]

MAX_LENGTH = 7


@dataclass(frozen=True)
class RowError:
    """The first card that breaks the rules, and why.

    ``position`` is 0-based; ``criteria`` names each criterion equal to the card
    before it (in rulebook order), or is ``("max_length",)`` for an eighth card.
    """

    position: int
    criteria: tuple[str, ...]


@dataclass(frozen=True)
class Verdict:
    """A row after checking: how many cards stay, and the first error if any."""

    valid_length: int
    first_error: RowError | None

    @property
    def is_clean(self) -> bool:
        return self.first_error is None


def check_row(cards: Sequence[Criteria]) -> Verdict:
    """Check a row left to right as its player sees it.

    Each card must differ from the card before it in colours, shapes and symbols;
    the first card that does not, and every card after it, is removed. An eighth
    card is an error too.

    >>> check_row([Criteria(4, 2, 6), Criteria(2, 1, 8), Criteria(1, 1, 2)])
    Verdict(valid_length=2, first_error=RowError(position=2, criteria=('shapes',)))
    """
    for position in range(1, len(cards)):
        matched = cards[position].matches(cards[position - 1])
        if matched:
            return Verdict(position, RowError(position, matched))
        if position == MAX_LENGTH:
            return Verdict(MAX_LENGTH, RowError(MAX_LENGTH, ("max_length",)))
    return Verdict(len(cards), None)


def ordinal(n: int) -> str:
    """``1`` -> ``"1st"``, ``2`` -> ``"2nd"``, ``11`` -> ``"11th"``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def describe_error(cards: Sequence[Criteria], error: RowError) -> str:
    """The first error in words a player understands, cards counted from 1.

    >>> row = [Criteria(4, 2, 6), Criteria(2, 1, 8), Criteria(1, 1, 2)]
    >>> describe_error(row, check_row(row).first_error)
    'card 3 has 1 shape, like card 2'
    """
    number = error.position + 1
    if error.criteria == ("max_length",):
        return f"card {number} is one too many (a row holds at most {MAX_LENGTH} cards)"
    return f"card {number} has {matched_words(cards[error.position], error)}, like card {number - 1}"


def matched_words(card: Criteria, error: RowError) -> str:
    """What the erring card shares with the card before it, in words: ``"2 colours and 1 shape"``."""
    parts = []
    for name in error.criteria:
        value = getattr(card, name)
        unit = {"colours": "colour", "shapes": "shape", "symbols": "symbol"}[name]
        parts.append(f"{value} {unit}{'' if value == 1 else 's'}")
    return _join(parts)


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
