"""Unit checks of the blob measurement's helpers."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.blobs import _inradius, _spread, _spread_of_moments
from vision.shapes import angular_harmonics, harmonics_of_moments, raw_moments


def _whole_max(mask: np.ndarray) -> float:
    return cv2.minMaxLoc(cv2.distanceTransform(mask, cv2.DIST_L2, 3))[1]


@pytest.mark.parametrize("seed", range(40))
def test_inradius_on_the_ink_box_equals_the_whole_mask(seed):
    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in rng.integers(3, 40, 2))
    mask = np.zeros((h, w), np.uint8)
    for _ in range(int(rng.integers(1, 4))):
        centre = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        axes = (int(rng.integers(1, w)), int(rng.integers(1, h)))
        cv2.ellipse(mask, centre, axes, float(rng.uniform(0, 180)), 0, 360, 255, -1)
    mask[rng.random((h, w)) < 0.03] = 255  # specks, some at the edge
    assert _inradius(mask) == _whole_max(mask)


_RECTANGLE = cv2.rectangle(np.zeros((12, 16), np.uint8), (3, 2), (11, 8), 255, -1)


@pytest.mark.parametrize("mask, expected", [
    (np.zeros((6, 9), np.uint8), 0.0),
    (_RECTANGLE, pytest.approx(4 * 0.955, abs=1e-5)),  # its middle row lies 4 steps from the paper
    (np.full((5, 5), 255, np.uint8), _whole_max(np.full((5, 5), 255, np.uint8))),
], ids=["no ink", "rectangle", "all ink"])
def test_inradius_edge_cases(mask, expected):
    assert _inradius(mask) == expected


@pytest.mark.parametrize("axes, angle, expected", [
    ((10, 10), 0.0, (1.0, 0.0)),  # a disc spreads alike in every direction
    ((14, 7), 0.0, (4.0, 0.0)),  # twice as long along x: four times the variance
    ((14, 7), 90.0, (0.25, 0.0)),
    ((14, 7), 45.0, (1.0, 0.6)),  # along the diagonal: (4 - 1) / (4 + 1) in the covariance
], ids=["disc", "along x", "along y", "diagonal"])
def test_spread_of_an_ellipse(axes, angle, expected):
    # An ellipse's ink (semi-axes ``axes``, turned ``angle`` degrees), area-sampled 8 x 8 per pixel.
    y, x = (np.mgrid[0:41 * 8, 0:41 * 8] + 0.5) / 8 - 20.5
    turn = np.radians(angle)
    u, v = x * np.cos(turn) + y * np.sin(turn), -x * np.sin(turn) + y * np.cos(turn)
    inside = ((u / axes[0]) ** 2 + (v / axes[1]) ** 2 <= 1.0).astype(np.float32)
    weights = cv2.resize(inside, (41, 41), interpolation=cv2.INTER_AREA) * 200
    var_x, var_y, cov_xy = _spread(weights)
    assert var_x / var_y == pytest.approx(expected[0], rel=0.03)
    assert 2 * cov_xy / (var_x + var_y) == pytest.approx(expected[1], abs=0.01)


@pytest.mark.parametrize("shape_hw", [(30, 24), (130, 2), (2, 120), (1, 1), (90, 90)], ids=str)
def test_spread_from_the_raw_moments_is_exact(shape_hw):
    # Whole-number ink weights, as a blob's are: the spread from the moments the harmonics
    # take is their variances and covariance to the last bits (float32 moments round:
    # a mark two pixels wide came out with a negative variance).
    rng = np.random.default_rng(sum(shape_hw))
    weights = rng.integers(0, 256, shape_hw).astype(np.uint8)
    weights[rng.random(shape_hw) < 0.3] = 0
    y, x = np.mgrid[0:shape_hw[0], 0:shape_hw[1]].astype(np.float64)
    total = max(float(weights.sum()), 1e-9)
    mx, my = (weights * x).sum() / total, (weights * y).sum() / total
    expected = ((weights * (x - mx) ** 2).sum() / total, (weights * (y - my) ** 2).sum() / total,
                (weights * (x - mx) * (y - my)).sum() / total)
    assert _spread_of_moments(raw_moments(weights)) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert harmonics_of_moments(raw_moments(weights)) == angular_harmonics(weights)


def test_spread_from_the_raw_moments_of_no_ink():
    assert _spread_of_moments(raw_moments(np.zeros((5, 7), np.uint8))) == (0.0, 0.0, 0.0)


def test_a_symbols_least_glared_colour_is_read_where_the_paper_field_is_lowest():
    # A glare spot to the right of a symbol brightens the paper field there and washes the
    # symbol's right side towards the paper: the least glared share of its core is its left
    # side, a black's own dark grey, where the whole core's mean is a washed-out brown.
    from vision.blobs import _least_glared
    from vision.whitebalance import BalancedCard

    height, width = 40, 40
    wash = np.tile(np.linspace(1.0, 1.4, width // 5, dtype=np.float32), (height // 5, 1))
    balanced = np.full((height, width, 3), 200, np.uint8)
    balanced[10:30, 10:20] = (60, 66, 70)   # the left half of the symbol: black ink
    balanced[10:30, 20:30] = (150, 170, 190)  # the right half, washed out to a warm brown
    core = np.zeros((height, width), np.uint8)
    core[10:30, 10:30] = 255
    card = BalancedCard(balanced, np.zeros((height, width), np.uint8), np.full(3, 200, np.float32),
                        np.zeros((height // 2, width // 2), np.uint8), 0.01, wash=wash)
    least = _least_glared(card, core[5:35, 5:35], (5, 5))
    assert least is not None
    np.testing.assert_allclose(least, np.array([60, 66, 70]) / 200.0, atol=1e-3)
    assert _least_glared(BalancedCard(balanced, card.ink, card.paper_bgr, card.paper_mask, 0.01), core, (0, 0)) is None
