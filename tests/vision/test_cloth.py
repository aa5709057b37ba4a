"""A patch of dotted cloth read as a card of circles is told by the dots going on around it."""

import cv2
import numpy as np
import pytest

from referee.cards import Colour, Criteria, Shape
from vision.cloth import like_cloth_dots
from vision.find import order_corners
from vision.pipeline import DetectedCard, doubted_on_cloth
from vision.records import CardReading, SymbolReading

SHORT, LONG = 80, 112
CLOTH, PAPER = (150, 190, 215), (228, 234, 236)
GREEN, BLUE = (60, 160, 50), (160, 70, 30)
PITCH, RADIUS = 70, 12


def quad(centre, angle_deg=0.0):
    return order_corners(cv2.boxPoints((centre, (SHORT, LONG), angle_deg)).astype(np.float32))


def cloth(dots_bgr=GREEN, radius=RADIUS):
    """A grainy pale cloth, dotted every PITCH pixels (dots of ``radius``; none for None)."""
    rng = np.random.default_rng(3)
    frame = np.clip(np.array(CLOTH, np.float64) + rng.normal(0, 3, (480, 640, 3)), 0, 255).astype(np.uint8)
    if dots_bgr is not None:
        for y in range(35, 480, PITCH):
            for x in range(35, 640, PITCH):
                cv2.circle(frame, (x, y), radius, dots_bgr, -1, cv2.LINE_AA)
    return frame


def laid(frame, corners, circle_bgr=GREEN):
    """The frame with a white card at ``corners``, a circle of ``circle_bgr`` in its middle."""
    frame = frame.copy()
    cv2.fillConvexPoly(frame, np.round(corners).astype(np.int32), PAPER, cv2.LINE_AA)
    x, y = np.round(corners.mean(axis=0)).astype(int)
    cv2.circle(frame, (int(x), int(y)), RADIUS, circle_bgr, -1, cv2.LINE_AA)
    return frame


# A card-sized stretch of the cloth about the dot at (315, 245), the dots beside it cut off.
PATCH = quad((315.0, 245.0))
DOT = np.array([[315.0, 245.0]], np.float32)


def test_a_stretch_of_dotted_cloth_has_marks_like_its_circle_around_it() -> None:
    assert like_cloth_dots(cloth(), [PATCH], [DOT]).tolist() == [True]
    # (turned, and beside a card found, whose own circle is left out)
    card = quad((480.0, 245.0))
    assert like_cloth_dots(laid(cloth(), card), [quad((315.0, 245.0), 20.0), card], [DOT, np.zeros((0, 2))]).tolist() == [True, False]


def test_a_card_on_a_plain_cloth_or_one_dotted_otherwise_has_none() -> None:
    card = quad((320.0, 240.0))
    middle = card.mean(axis=0, keepdims=True)
    assert like_cloth_dots(laid(cloth(None), card), [card], [middle]).tolist() == [False]
    assert like_cloth_dots(laid(cloth(BLUE), card), [card], [middle]).tolist() == [False]
    # dots of its circle's colour, but a third of its size
    assert like_cloth_dots(laid(cloth(GREEN, RADIUS // 3), card), [card], [middle]).tolist() == [False]


def test_only_cards_read_as_circles_of_one_colour_like_the_dots_around_are_doubted() -> None:
    def card(*symbols, confidence=1.0):
        reading = CardReading(tuple(SymbolReading(shape, colour, (315.0, 245.0), 1.0) for shape, colour in symbols),
                              Criteria(len({c for _, c in symbols}), len({s for s, _ in symbols}), len(symbols)), confidence, True)
        return DetectedCard(PATCH, reading)

    circle, triangle = card((Shape.CIRCLE, Colour.GREEN)), card((Shape.TRIANGLE, Colour.GREEN))
    mixed = card((Shape.CIRCLE, Colour.GREEN), (Shape.CIRCLE, Colour.BLUE))
    doubted, *rest = doubted_on_cloth(cloth(), (circle, triangle, mixed))
    assert doubted.reading.confidence == pytest.approx(0.3)
    assert doubted.reading.criteria == circle.reading.criteria
    assert "dots on the cloth" in doubted.reading.reason and doubted.may_be_cloth
    assert rest == [triangle, mixed]
    (doubtful,) = doubted_on_cloth(cloth(), (card((Shape.CIRCLE, Colour.GREEN), confidence=0.2),))
    assert doubtful.may_be_cloth and doubtful.reading.confidence == pytest.approx(0.2)  # (no surer for it)
    assert doubted_on_cloth(laid(cloth(BLUE), PATCH), (circle,)) == (circle,)
