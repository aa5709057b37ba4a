"""Shape features on synthetic silhouettes with a known answer."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.shapes import angular_harmonics, measure_shape


def _polygon(corners: int, angle: float, inner: float = 1.0, radius: float = 20.0, size: int = 64) -> np.ndarray:
    """A soft (anti-aliased, blurred) regular polygon or star as ink weights (size, size) float32."""
    points = []
    steps = corners * (2 if inner < 1.0 else 1)
    for k in range(steps):
        r = radius if k % 2 == 0 or inner == 1.0 else inner * radius
        a = math.radians(angle) + 2 * math.pi * k / steps
        points.append((size / 2 + r * math.sin(a), size / 2 - r * math.cos(a)))
    image = np.zeros((size * 4, size * 4), np.uint8)
    cv2.fillPoly(image, [np.round(np.array(points) * 4).astype(np.int32)], 255, cv2.LINE_AA)
    small = cv2.resize(image, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32)
    return cv2.GaussianBlur(small, (0, 0), 1.0)


@pytest.mark.parametrize("angle", [0.0, 17.0, 50.0])
@pytest.mark.parametrize("corners, inner, strongest", [(3, 1.0, 0), (4, 1.0, 1), (5, 0.38, 2)],
                         ids=["triangle", "square", "star"])
def test_the_strongest_harmonic_counts_the_corners(corners, inner, strongest, angle):
    harmonics = angular_harmonics(_polygon(corners, angle, inner))
    assert int(np.argmax(harmonics)) == strongest, harmonics
    assert harmonics[strongest] > 0.2


def test_a_disc_has_no_harmonics():
    disc = np.zeros((64, 64), np.float32)
    cv2.circle(disc, (32, 32), 20, 255.0, -1)
    assert max(angular_harmonics(cv2.GaussianBlur(disc, (0, 0), 1.0))) < 0.05


def test_harmonics_do_not_change_with_rotation():
    a = angular_harmonics(_polygon(5, 0.0, 0.38))
    b = angular_harmonics(_polygon(5, 23.0, 0.38))
    assert a == pytest.approx(b, abs=0.03)


def test_an_empty_mark_has_no_harmonics():
    assert angular_harmonics(np.zeros((8, 8), np.float32)) == (0.0, 0.0, 0.0)


def test_a_hull_at_hand_is_taken_and_measures_as_the_contours_own() -> None:
    # _measure_blob hulls a lone part for its solidity, then measures it: one hull for both.
    mask = np.zeros((60, 60), np.uint8)
    cv2.fillPoly(mask, [np.array([[10, 10], [50, 12], [30, 25], [48, 50], [12, 45]], np.int32)], 255)
    contour = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0][0]
    assert measure_shape(contour, 3.0, hull=cv2.convexHull(contour)) == measure_shape(contour, 3.0)
    square = np.array([[[0, 0]], [[59, 0]], [[59, 59]], [[0, 59]]], np.int32)
    assert measure_shape(contour, 3.0, hull=square).solidity < measure_shape(contour, 3.0).solidity
