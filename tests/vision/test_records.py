"""The reader's records: frozen, validated, in the game's vocabulary."""

from __future__ import annotations

import dataclasses

import pytest

from referee.cards import Colour, Criteria, Shape
from vision.records import CardReading, SymbolReading


def test_records_are_frozen():
    symbol = SymbolReading(Shape.STAR, Colour.RED, (10.0, 20.0), 0.9)
    card = CardReading((symbol,), Criteria(1, 1, 1), 0.9, True, "")
    with pytest.raises(dataclasses.FrozenInstanceError):
        symbol.confidence = 0.1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.is_face = False  # type: ignore[misc]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"shape": "star"}, "shape must be a Shape"),
        ({"colour": "red"}, "colour must be a Colour"),
        ({"center_xy": (1.0,)}, "center_xy must be"),
        ({"confidence": 1.5}, "confidence must be a number in"),
        ({"confidence": float("nan")}, "confidence must be a number in"),
    ],
    ids=["shape", "colour", "center", "confidence-high", "confidence-nan"],
)
def test_symbol_reading_refuses_bad_values(kwargs, message):
    values = {"shape": Shape.STAR, "colour": Colour.RED, "center_xy": (1.0, 2.0), "confidence": 0.5, **kwargs}
    with pytest.raises(ValueError, match=message):
        SymbolReading(**values)


def test_a_reading_that_is_not_a_face_has_no_criteria():
    with pytest.raises(ValueError, match="not a face cannot have criteria"):
        CardReading((), Criteria(1, 1, 1), 0.9, False, "card back")
    assert CardReading((), None, 0.9, False, "card back").reason == "card back"
