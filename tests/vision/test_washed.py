"""Unit checks of the search for washed-out symbols' helpers."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.washed import _off_edge


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
