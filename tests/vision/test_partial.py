"""A row's card partly under a hand just beyond its end: found where its paper shows, nowhere else."""

import cv2
import numpy as np
import pytest

from calibration.gaps import table_look
from vision.find import order_corners
from vision.hidden import end_rooms, table_beside
from vision.partial import partly_hidden
from vision.quads import grow

SHORT, LONG = 60, 90
PITCH = 70  # centre to centre: cards 10 px apart
ROW = [order_corners(cv2.boxPoints(((200 + k * PITCH, 200), (SHORT, LONG), 0)).astype(np.float32)) for k in range(3)]
NEXT = order_corners(cv2.boxPoints(((200 + 3 * PITCH + 8, 204), (SHORT, LONG), 5)).astype(np.float32))  # a 4th card, a little off
PAPER = (235, 242, 245)
WARM_PAPER = (170, 215, 250)  # paper under a warm lamp
SKIN = (120, 160, 210)


def table(stripes: bool = False, next_card: bool = True, shade: float = 1.0, paper=PAPER) -> np.ndarray:
    """A table with some grain (plain, or in stripes of a pale colour across the row), the row's
    three cards, and the 4th card (its paper darkened by ``shade``: a hand's shadow)."""
    rng = np.random.default_rng(5)
    frame = np.broadcast_to(np.array((60, 110, 70), np.float64), (400, 640, 3)).copy()
    if stripes:
        frame[:, (np.arange(640) // 25) % 2 == 0] = (200, 200, 215)
    for corners in ROW:
        cv2.fillConvexPoly(frame, np.round(corners).astype(np.int32), paper)
    if next_card:
        cv2.fillConvexPoly(frame, np.round(NEXT).astype(np.int32), tuple(shade * c for c in paper))
    frame += rng.normal(0, 3, frame.shape)
    return np.clip(frame, 0, 255).astype(np.uint8)


def hand(frame: np.ndarray, from_x: int) -> np.ndarray:
    """A hand and arm over everything right of ``from_x``, reaching in from the table's side."""
    out = frame.copy()
    cv2.rectangle(out, (from_x, 120), (639, 290), SKIN, -1)
    return out


def place() -> np.ndarray:
    return dict(end_rooms(ROW, 3, shrink=1.0))[3]


def found(frame: np.ndarray, seen=ROW):
    return partly_hidden(table_look(frame), place(), ROW, table_beside(ROW), seen)


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return inter / (cv2.contourArea(a.astype(np.float32)) + cv2.contourArea(b.astype(np.float32)) - inter)


@pytest.mark.parametrize("stripes, shade, cover, paper",
                         [(False, 1.0, 0.5, PAPER), (True, 1.0, 0.5, PAPER), (False, 0.6, 0.5, PAPER), (False, 1.0, 0.65, PAPER),
                          (False, 0.45, 0.5, WARM_PAPER)],
                         ids=["half under a hand", "on a pale striped table", "in the hand's shadow", "two thirds hidden",
                              "in the hand's shadow under a warm lamp"])
def test_a_card_partly_under_a_hand_at_the_rows_end_is_found_where_it_lies(stripes, shade, cover, paper) -> None:
    # (paper in a shadow keeps a warm lamp's cast only in proportion to its lightness)
    left, right = NEXT[:, 0].min(), NEXT[:, 0].max()
    frame = hand(table(stripes, shade=shade, paper=paper), round(right - cover * (right - left)))
    quad = found(frame)
    assert quad is not None
    assert overlap(quad.corners_xy, NEXT) > 0.85
    assert 0.2 <= quad.fill <= 1 - cover + 0.1  # (the share of it showing paper)


@pytest.mark.parametrize("stripes", [False, True], ids=["plain", "pale stripes"])
def test_no_card_is_found_on_the_bare_table_or_under_a_hand_over_nothing(stripes) -> None:
    assert found(table(stripes, next_card=False)) is None
    assert found(hand(table(stripes, next_card=False), 390)) is None


def test_a_table_of_the_papers_tint_beside_cards_seen_is_judged_without_fitting_a_card(monkeypatch) -> None:
    # A pale table of about the paper's tint: its pixels pass for paper until told apart from
    # the table; what is left is the rim of the row's cards (their quads lie a pixel or so
    # inside their outlines), too little for a card. Fitting cards there cost most of the time
    # the search took on the speed scene's table (vision.bench speed), for nothing.
    import vision.partial

    def fitted(*_):
        raise AssertionError("a card was fitted")

    rng = np.random.default_rng(5)
    frame = np.broadcast_to(np.array((196, 204, 207), np.float64), (400, 640, 3)).copy()
    for corners in ROW:
        cv2.fillConvexPoly(frame, np.round(corners).astype(np.int32), PAPER)
    frame = np.clip(frame + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
    monkeypatch.setattr(vision.partial, "_Fit", fitted)

    assert found(frame, seen=list(grow(np.array(ROW), -1.5))) is None


def test_a_card_seen_is_no_partly_hidden_card_and_none_is_found_over_it() -> None:
    # The 4th card whole and seen: nothing is left of its paper to find; and a card lying
    # over the row's last card, seen, would not be a row's next card.
    frame = hand(table(), 430)
    assert found(frame, seen=[*ROW, NEXT]) is None


def test_a_card_wholly_under_the_hand_is_not_found() -> None:
    frame = hand(table(), round(NEXT[:, 0].min()) - 2)
    assert found(frame) is None


# A player at the bottom edge (y 399) with no row: their lone card lies before them, half under their hand.
SEAT = (330.0, 399.0)
LONE = order_corners(cv2.boxPoints(((335, 310), (SHORT, LONG), 4)).astype(np.float32))


def lone_table(card: bool = True, hand_from: int = 312) -> np.ndarray:
    """``table`` without the 4th card, the lone card, and a hand reaching over it from the player (below ``hand_from``)."""
    frame = table(next_card=False).astype(np.float64)
    if card:
        cv2.fillConvexPoly(frame, np.round(LONE).astype(np.int32), PAPER)
    cv2.rectangle(frame, (300, hand_from), (370, 399), SKIN, -1)
    return np.clip(frame, 0, 255).astype(np.uint8)


def test_a_lone_card_half_under_its_players_hand_is_found_before_their_seat() -> None:
    from vision.partial import lone_partly_hidden

    depth = 90.0  # (the rows found lie about this far in from their seats)
    quad = lone_partly_hidden(table_look(lone_table()), SEAT, (0.0, -1.0), depth, (SHORT, LONG), ROW, ROW)
    assert quad is not None and overlap(quad.corners_xy, LONE) > 0.8
    assert lone_partly_hidden(table_look(lone_table(card=False)), SEAT, (0.0, -1.0), depth, (SHORT, LONG), ROW, ROW) is None
