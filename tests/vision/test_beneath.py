"""Cards partly under a card found: the paper sticking out from under it, of a card's size."""

import cv2
import numpy as np
import pytest

from vision.beneath import find_cards_beneath
from vision.find import order_corners

SHORT, LONG = 100, 150
PAPER, TABLE, INK = (238, 242, 244), (70, 115, 60), (40, 40, 200)


def quad(centre, angle_deg=0.0):
    return order_corners(cv2.boxPoints((centre, (SHORT, LONG), angle_deg)).astype(np.float32))


def draw(frame, corners, symbol=True):
    cv2.fillConvexPoly(frame, np.round(corners).astype(np.int32), PAPER)
    cv2.polylines(frame, [np.round(corners).astype(np.int32)], True, (150, 150, 150), 1)
    if symbol:
        x, y = corners.mean(axis=0)
        cv2.circle(frame, (int(x), int(y)), 18, INK, -1)


def table(cards, beneath=(), colour=TABLE):
    """A grainy table with the cards beneath drawn first, the cards over them last."""
    rng = np.random.default_rng(4)
    frame = np.clip(np.array(colour, np.float64) + rng.normal(0, 3, (500, 900, 3)), 0, 255).astype(np.uint8)
    for corners in list(beneath) + list(cards):
        draw(frame, corners)
    return frame


ROW = [quad((250 + k * 115, 250)) for k in range(4)]


@pytest.mark.parametrize("offset", [(-45, 10), (-20, 45), (0, -60)], ids=["beside", "below and beside", "above"])
def test_a_card_sticking_out_from_under_a_card_is_found_where_it_lies(offset) -> None:
    hidden = quad((250 + offset[0], 250 + offset[1]))
    found = find_cards_beneath(table(ROW, [hidden]), ROW)
    assert len(found) == 1
    assert np.linalg.norm(found[0].mean(axis=0) - hidden.mean(axis=0)) < 0.12 * SHORT
    assert found[0].shape == (4, 2)


def test_cards_lying_apart_hide_nothing() -> None:
    assert find_cards_beneath(table(ROW), ROW) == []


def test_a_card_found_whole_is_not_found_again_beneath_its_neighbour() -> None:
    # The neighbour's card lies over the next one's edge, both found.
    cards = [quad((250, 250)), quad((330, 250))]
    assert find_cards_beneath(table(cards[1:], cards[:1]), cards) == []


def test_paper_of_no_card_s_size_is_no_card_beneath() -> None:
    # A pale stripe of cloth as white as paper runs out from under the card, far longer than a card.
    frame = table(ROW)
    cv2.rectangle(frame, (0, 300), (899, 360), PAPER, -1)
    for corners in ROW:
        draw(frame, corners)
    assert find_cards_beneath(frame, ROW) == []


def test_a_card_under_a_hand_beside_a_card_is_not_beneath_it() -> None:
    # The next card lies a little apart from the row's end, half of it under a hand: its paper
    # does not run on under the card beside it (the table shows between them).
    beside = quad((250 + SHORT + 12, 250))
    frame = table(ROW[:1], [beside])
    cv2.ellipse(frame, (250 + SHORT + 45, 250), (40, 90), 0, 0, 360, (120, 160, 210), -1)
    assert find_cards_beneath(frame, ROW[:1]) == []


def test_a_table_as_pale_as_paper_shows_no_card_beneath() -> None:
    assert find_cards_beneath(table(ROW, colour=(225, 236, 240)), ROW) == []
