"""Cards found lying over one another: the card beneath, its printed area covered, is told."""

import cv2
import numpy as np
import pytest

from referee.cards import Colour, Criteria, Shape
from vision.find import order_corners
from vision.pipeline import DetectedCard, doubted_beneath
from vision.records import CardReading, SymbolReading
from vision.stacked import lying_beneath

SHORT, LONG = 100, 140
PAPER, TABLE = (232, 236, 238), (60, 40, 130)


def quad(centre, angle_deg=0.0):
    return order_corners(cv2.boxPoints((centre, (SHORT, LONG), angle_deg)).astype(np.float32))


def table(*cards):
    """A grainy cloth with the cards drawn in order, each over the ones before: the paper alike,
    each card's edge a thin grey line with a soft shadow all round it, a bar printed in its middle."""
    rng = np.random.default_rng(7)
    frame = np.clip(np.array(TABLE, np.float64) + rng.normal(0, 3, (420, 620, 3)), 0, 255).astype(np.uint8)
    for corners in cards:
        outline = np.round(corners).astype(np.int32)
        shadow = np.zeros(frame.shape[:2], np.uint8)
        cv2.fillConvexPoly(shadow, outline, 255)
        shadow = cv2.GaussianBlur(cv2.dilate(shadow, np.ones((7, 7), np.uint8)), (9, 9), 0)[..., None] / 255.0
        frame = (frame * (1 - 0.35 * shadow)).astype(np.uint8)
        cv2.fillConvexPoly(frame, outline, PAPER)
        cv2.polylines(frame, [outline], True, (170, 170, 170), 1)
        x, y = corners.mean(axis=0)
        cv2.rectangle(frame, (int(x) - 8, int(y) - 25), (int(x) + 8, int(y) + 25), (40, 170, 230), -1)
    return frame


LOWER, UPPER = quad((220, 200)), quad((300, 260))


def test_the_card_beneath_another_over_its_printed_area_is_told_whichever_is_drawn_last() -> None:
    assert lying_beneath(table(LOWER, UPPER), [LOWER, UPPER]).tolist() == [True, False]
    assert lying_beneath(table(UPPER, LOWER), [LOWER, UPPER]).tolist() == [False, True]


def test_cards_apart_or_over_a_margin_only_lie_beneath_none() -> None:
    apart = quad((400, 200))
    assert lying_beneath(table(LOWER, apart), [LOWER, apart]).tolist() == [False, False]
    # (over the outermost 0.05 short sides of the card beneath, where no symbol is printed)
    margin = quad((220 + SHORT - 5, 200))
    assert lying_beneath(table(LOWER, margin), [LOWER, margin]).tolist() == [False, False]
    assert lying_beneath(table(LOWER), [LOWER]).tolist() == [False]


def test_a_card_beneath_another_is_read_with_doubt_the_one_over_it_is_not() -> None:
    bar = SymbolReading(Shape.BAR, Colour.YELLOW, (0.0, 0.0), 1.0)
    reading = CardReading((bar,), Criteria(1, 1, 1), 1.0, True, "", None)
    cards = (DetectedCard(LOWER, reading), DetectedCard(UPPER, reading))
    lower, upper = doubted_beneath(table(LOWER, UPPER), cards)
    assert lower.reading.confidence == pytest.approx(0.4)
    assert lower.reading.reason == "another card lies over part of the card"
    assert upper.reading == reading
