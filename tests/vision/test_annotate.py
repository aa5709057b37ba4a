"""The annotation's ranking panel: readable, and off the cards where a corner allows."""

import numpy as np

from vision.annotate import draw_panel


def dimmed(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    return (after.astype(int) < before.astype(int) - 50).any(axis=2)


def test_the_panel_goes_top_left_on_a_bare_table_and_leaves_the_input_alone() -> None:
    image = np.full((400, 600, 3), 200, np.uint8)
    out = draw_panel(image, "Ranking", ["1. Anna: 3 cards, 9 symbols"])
    assert (image == 200).all()
    ys, xs = np.nonzero(dimmed(image, out))
    assert ys.min() == 0 and xs.min() == 0 and xs.max() < 450


def test_the_panel_moves_to_a_corner_without_cards() -> None:
    image = np.full((400, 600, 3), 200, np.uint8)
    card = lambda x, y: np.array([[x, y], [x + 60, y], [x + 60, y + 90], [x, y + 90]], np.float64)  # noqa: E731
    # Cards near the top-left and the top-right corners: the panel goes bottom-left.
    out = draw_panel(image, "Ranking", ["1. Anna"], [card(10, 10), card(520, 20)])
    ys, xs = np.nonzero(dimmed(image, out))
    assert ys.max() == 399 and xs.min() == 0
