"""Small frozen records that the card reader returns."""

from __future__ import annotations

import math
from dataclasses import dataclass

from referee.cards import Colour, Criteria, Shape

__all__ = ["SymbolReading", "CardReading"]


def _check_unit(name: str, value: float) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")


@dataclass(frozen=True)
class SymbolReading:
    """One symbol seen on a card.

    Attributes
    ----------
    shape, colour : the symbol's shape and print colour.
    center_xy : (x, y) of the symbol's centroid in the input card image's pixels.
    confidence : how sure the reader is of this symbol's shape and colour, in [0, 1].
    """

    shape: Shape
    colour: Colour
    center_xy: tuple[float, float]
    confidence: float

    def __post_init__(self) -> None:
        if not isinstance(self.shape, Shape):
            raise ValueError(f"shape must be a Shape, got {self.shape!r}")
        if not isinstance(self.colour, Colour):
            raise ValueError(f"colour must be a Colour, got {self.colour!r}")
        if len(self.center_xy) != 2:
            raise ValueError(f"center_xy must be (x, y), got {self.center_xy!r}")
        _check_unit("confidence", self.confidence)


@dataclass(frozen=True)
class CardReading:
    """What the reader saw on one rectified card image.

    Attributes
    ----------
    symbols : the symbols found, in reading order (top to bottom, then left to right).
    criteria : the card's (colours, shapes, symbols), or None when the card is not a
        readable face or the reading is impossible under the rules.
    confidence : in [0, 1]; low when the reading may be wrong and a person should look.
    is_face : True for a face-up symbol card; False for a card back or a non-card.
    reason : a short human-readable note on why confidence is low or why the image is
        not a face; empty when all is clear.
    paper_bgr : a face's plain paper as the camera saw it (mean B, G, R before
        balancing), to compare the faces of one frame; None when not measured.
    edge_covered : something wider than a printed line lies over the card's edge (a hand,
        a sleeve, a mug), whether or not it may hide a symbol.
    """

    symbols: tuple[SymbolReading, ...]
    criteria: Criteria | None
    confidence: float
    is_face: bool
    reason: str = ""
    paper_bgr: tuple[float, float, float] | None = None
    edge_covered: bool = False

    def __post_init__(self) -> None:
        _check_unit("confidence", self.confidence)
        if not self.is_face and self.criteria is not None:
            raise ValueError(f"a reading that is not a face cannot have criteria, got {self.criteria!r}")
