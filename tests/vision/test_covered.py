"""Reading the shape of a symbol partly under a cover from the piece left in view."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from referee.cards import Shape
from vision.covered import VIEW_COVER, VIEW_INK, VIEW_PAPER, explained_shares
from vision.shapes import SHAPE_ORDER

_RADIUS = 9.0


def _symbol_mask(shape: str, radius: float, angle: float, size: int = 60) -> np.ndarray:
    """A symbol of circumradius ``radius`` centred in a (size, size) uint8 mask, drawn on its own."""
    mask = np.zeros((size, size), np.uint8)
    centre = np.array([size / 2.0, size / 2.0])
    if shape == "circle":
        cv2.circle(mask, (size // 2, size // 2), round(radius), 255, -1)
        return mask
    if shape == "square":
        corners = [math.radians(45 + 90 * k) for k in range(4)]
        points = [(radius * math.cos(a), radius * math.sin(a)) for a in corners]
    elif shape == "triangle":
        points = [(radius * math.sin(math.radians(120 * k)), -radius * math.cos(math.radians(120 * k))) for k in range(3)]
    else:  # star
        points = [((radius if k % 2 == 0 else 0.382 * radius) * math.sin(math.radians(36 * k)),
                   -(radius if k % 2 == 0 else 0.382 * radius) * math.cos(math.radians(36 * k))) for k in range(10)]
    turn = np.array([[math.cos(math.radians(angle)), -math.sin(math.radians(angle))],
                     [math.sin(math.radians(angle)), math.cos(math.radians(angle))]])
    cv2.fillPoly(mask, [np.round(np.array(points) @ turn.T + centre).astype(np.int32)], 255)
    return mask


def _view(symbol: np.ndarray, cover: np.ndarray) -> np.ndarray:
    view = np.full(symbol.shape, VIEW_PAPER, np.int8)
    view[cover > 0] = VIEW_COVER
    view[(symbol > 0) & (cover == 0)] = VIEW_INK
    return view


@pytest.mark.parametrize("shape", ["circle", "square", "triangle", "star"])
def test_a_symbol_in_plain_view_is_explained_best_by_its_own_shape(shape):
    # (drawn at a size and rotation the search tries: 1.1 times the radius, upright)
    view = _view(_symbol_mask(shape, 1.1 * _RADIUS, 0.0), np.zeros((60, 60), np.uint8))
    shares = explained_shares(view, _RADIUS)
    assert SHAPE_ORDER[int(np.argmax(shares))] is Shape(shape), shares
    assert shares.max() > 0.85


@pytest.mark.parametrize(("shape", "others"), [
    ("square", ["star", "triangle"]),
    ("circle", ["star", "triangle", "bar"]),
    ("triangle", ["star", "bar"]),
], ids=["square", "circle", "triangle"])
def test_a_symbol_under_a_finger_is_explained_by_its_shape_and_not_by_shapes_that_would_show(shape, others):
    # A finger (a disc of cover) over a third of the symbol: the shape fits the piece with its
    # missing part under the finger; a star or a bar would show on paper or leave ink out.
    symbol = _symbol_mask(shape, 1.1 * _RADIUS, 20.0)
    cover = np.zeros_like(symbol)
    cv2.circle(cover, (30 - 14, 30), 10, 255, -1)
    shares = explained_shares(_view(symbol, cover), _RADIUS)
    own = shares[SHAPE_ORDER.index(Shape(shape))]
    assert own > 0.85, shares
    for other in others:
        assert shares[SHAPE_ORDER.index(Shape(other))] < own - 0.05, (other, shares)


def test_nothing_to_explain_gives_no_share():
    view = np.full((30, 30), VIEW_PAPER, np.int8)
    assert np.all(np.isneginf(explained_shares(view, _RADIUS)))
