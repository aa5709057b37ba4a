"""Unit checks of the symbol segmentation's helpers."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.symbols import _inradius, _off_edge


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


def _parts_off_the_band(mask: np.ndarray, band: int) -> np.ndarray:
    """The independent answer: label the parts and keep those whose box stays off the band."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    height, width = mask.shape
    x, y, w, h = stats[:, 0], stats[:, 1], stats[:, 2], stats[:, 3]
    keep = (x > band) & (y > band) & (x + w < width - band) & (y + h < height - band)
    keep[0] = False
    return np.where(keep[labels], 255, 0).astype(np.uint8)


@pytest.mark.parametrize("seed", range(30))
def test_off_edge_drops_exactly_the_parts_that_reach_the_band(seed):
    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in rng.integers(10, 40, 2))
    band = int(rng.integers(1, 4))
    mask = np.where(rng.random((h, w)) < rng.uniform(0.2, 0.6), 255, 0).astype(np.uint8)
    mask[:band], mask[-band:], mask[:, :band], mask[:, -band:] = 0, 0, 0, 0
    assert np.array_equal(_off_edge(mask, band), _parts_off_the_band(mask, band))


def test_off_edge_keeps_a_mark_inside_a_printed_frame():
    # A frame's ring reaches the band and encloses the mark: only the ring goes.
    mask = np.zeros((30, 20), np.uint8)
    cv2.rectangle(mask, (3, 3), (16, 26), 255, 1)
    cv2.circle(mask, (10, 15), 3, 255, -1)
    mark = cv2.circle(np.zeros_like(mask), (10, 15), 3, 255, -1)
    assert np.array_equal(_off_edge(mask, 3), mark)
