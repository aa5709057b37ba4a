"""The game's vocabulary: colours, shapes and a card's three criteria."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterable

__all__ = ["Colour", "Shape", "Criteria", "InvalidCardError", "CRITERIA_NAMES"]

CRITERIA_NAMES = ("colours", "shapes", "symbols")


class InvalidCardError(ValueError):
    """A card's numbers cannot occur in the game."""


class Colour(str, Enum):
    """The five print colours of Schwarz Rot Gelb Extreme."""

    BLACK = "black"
    RED = "red"
    YELLOW = "yellow"
    BLUE = "blue"
    GREEN = "green"


class Shape(str, Enum):
    """The five symbol shapes."""

    CIRCLE = "circle"
    TRIANGLE = "triangle"
    SQUARE = "square"
    STAR = "star"
    BAR = "bar"


@dataclass(frozen=True)
class Criteria:
    """A symbol card as the rules see it: three numbers.

    >>> Criteria(colours=4, shapes=3, symbols=5)
    Criteria(colours=4, shapes=3, symbols=5)
    >>> Criteria(colours=3, shapes=1, symbols=2)
    Traceback (most recent call last):
    ...
    referee.cards.InvalidCardError: impossible card (3 colours, 1 shapes, 2 symbols): a card cannot show more colours than symbols
    """

    colours: int
    shapes: int
    symbols: int

    def __post_init__(self) -> None:
        for name, low, high in (("colours", 1, 5), ("shapes", 1, 5), ("symbols", 1, 9)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidCardError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
            if not low <= value <= high:
                raise InvalidCardError(f"{name} must be from {low} to {high}, got {value}")
        for name in ("colours", "shapes"):
            if getattr(self, name) > self.symbols:
                raise InvalidCardError(
                    f"impossible card ({self.colours} colours, {self.shapes} shapes, {self.symbols} symbols): "
                    f"a card cannot show more {name} than symbols"
                )

    @classmethod
    def from_symbols(cls, symbols: Iterable[tuple[Shape, Colour]]) -> Criteria:
        """The criteria of a card showing these (shape, colour) symbols.

        >>> Criteria.from_symbols([(Shape.STAR, Colour.RED), (Shape.STAR, Colour.BLUE)])
        Criteria(colours=2, shapes=1, symbols=2)
        """
        symbols = list(symbols)
        return cls(
            colours=len({colour for _, colour in symbols}),
            shapes=len({shape for shape, _ in symbols}),
            symbols=len(symbols),
        )

    @classmethod
    def parse(cls, value: object) -> Criteria:
        """A card from ``[colours, shapes, symbols]`` as written in a round file.

        >>> Criteria.parse([4, 3, 5])
        Criteria(colours=4, shapes=3, symbols=5)
        """
        if not isinstance(value, (list, tuple)) or len(value) != 3:
            raise InvalidCardError(f"a card is [colours, shapes, symbols], got {value!r}")
        return cls(*value)

    def as_list(self) -> list[int]:
        return [self.colours, self.shapes, self.symbols]

    def as_dict(self) -> dict[str, int]:
        return {"colours": self.colours, "shapes": self.shapes, "symbols": self.symbols}

    def matches(self, other: Criteria) -> tuple[str, ...]:
        """The criteria in which this card equals ``other``, in rulebook order."""
        return tuple(name for name in CRITERIA_NAMES if getattr(self, name) == getattr(other, name))


def all_criteria() -> list[Criteria]:
    """Every (colours, shapes, symbols) triple the rules allow."""
    return [
        Criteria(c, s, n)
        for n in range(1, 10)
        for c in range(1, min(5, n) + 1)
        for s in range(1, min(5, n) + 1)
    ]
