"""Tell the five symbol shapes apart from a binary silhouette, whatever its rotation.

The features are rotation invariant and chosen so that each hard pair has one feature
that separates it even for a 12-pixel symbol:

- solidity (area / convex hull area) separates the star from everything else;
- the aspect ratio of the minimum-area rectangle separates the bar from the square;
- extent (area / minimum-area rectangle) separates square (1.0), circle (0.79) and
  triangle (0.5);
- fill of the minimum enclosing circle separates circle (1.0), square (0.64),
  triangle (0.41) and star (0.36).

Silhouettes are measured after upsampling the soft ink map of small symbols, so that the
contour is placed with sub-pixel accuracy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.cards import Shape

__all__ = ["ShapeFeatures", "measure_shape", "classify_shape", "classify_shapes", "shape_scores", "SHAPE_ORDER"]

SHAPE_ORDER = (Shape.CIRCLE, Shape.TRIANGLE, Shape.SQUARE, Shape.STAR, Shape.BAR)


@dataclass(frozen=True)
class ShapeFeatures:
    """Rotation-invariant measurements of one silhouette.

    Attributes
    ----------
    area : silhouette area in the measured (possibly upsampled) pixels.
    solidity : area / convex hull area.
    extent : area / minimum-area rectangle area.
    aspect : long / short side of the minimum-area rectangle (>= 1).
    fill_circle : area / minimum enclosing circle area.
    long_side : long side of the minimum-area rectangle, measured pixels.
    short_side : short side of the minimum-area rectangle, measured pixels.
    """

    area: float
    solidity: float
    extent: float
    aspect: float
    fill_circle: float
    long_side: float
    short_side: float

    def as_array(self) -> NDArray[np.float64]:
        return np.array([self.solidity, self.extent, math.log(self.aspect), self.fill_circle])


def measure_shape(contour: NDArray[np.int32]) -> ShapeFeatures | None:
    """Measure one outer contour.

    Parameters
    ----------
    contour : ndarray (N, 1, 2) int32
        An outer contour as returned by ``cv2.findContours``.

    Returns
    -------
    ShapeFeatures, or None for a degenerate contour (fewer than 3 points or no area).
    """
    if len(contour) < 3:
        return None
    area = cv2.contourArea(contour)
    if area <= 1.0:
        return None
    hull = cv2.convexHull(contour)
    hull_area = max(cv2.contourArea(hull), area)
    (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
    (_, _), radius = cv2.minEnclosingCircle(hull)
    # Pixel contours trace pixel centres: half a pixel of area is lost all round.
    long_side, short_side = max(rw, rh) + 1.0, min(rw, rh) + 1.0
    perimeter = cv2.arcLength(contour, True)
    area_c = area + 0.5 * perimeter
    hull_c = hull_area + 0.5 * cv2.arcLength(hull, True)
    radius_c = radius + 0.5
    return ShapeFeatures(
        area=area_c,
        solidity=min(1.0, area_c / hull_c),
        extent=min(1.0, area_c / (long_side * short_side)),
        aspect=long_side / short_side,
        fill_circle=min(1.0, area_c / (math.pi * radius_c * radius_c)),
        long_side=long_side,
        short_side=short_side,
    )


# Per shape: mean and spread of solidity, extent, log aspect and fill_circle; a spread of
# inf means the feature is not used. Spreads allow for blur, JPEG and a 12-pixel symbol.
_MEAN = np.array([
    [0.99, 0.79, 0.00, 0.97],  # circle
    [0.98, 0.52, 0.14, 0.43],  # triangle
    [0.98, 0.95, 0.00, 0.63],  # square
    [0.58, 0.48, 0.05, 0.38],  # star
    [0.98, 0.94, 0.00, 0.00],  # bar (aspect scored on an interval below)
])
_SPREAD = np.array([
    [0.04, 0.05, 0.10, 0.07],
    [0.05, 0.07, 0.10, 0.07],
    [0.04, 0.06, 0.10, 0.06],
    [0.10, 0.10, 0.10, 0.08],
    [0.04, 0.06, np.inf, np.inf],
])
_BAR = SHAPE_ORDER.index(Shape.BAR)
_BAR_LOG_ASPECT = (math.log(2.5), math.log(5.0), 0.15)


def shape_scores(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Log-likelihood-like scores (N, 5) of each shape in ``SHAPE_ORDER``.

    Parameters
    ----------
    x : ndarray (N, 4) float, rows of ``ShapeFeatures.as_array()``
    """
    z = (x[:, None, :] - _MEAN[None]) / _SPREAD[None]
    scores = -0.5 * (z * z).sum(axis=2)
    lo, hi, spread = _BAR_LOG_ASPECT
    gap = np.maximum(np.maximum(lo - x[:, 2], 0.0), x[:, 2] - hi) / spread
    scores[:, _BAR] -= 0.5 * gap * gap
    return scores


def classify_shapes(x: NDArray[np.float64]) -> tuple[list[Shape], NDArray[np.float64], NDArray[np.float64]]:
    """The most likely shape of each silhouette, a confidence and how well it fits at all.

    Parameters
    ----------
    x : ndarray (N, 4) float, rows of ``ShapeFeatures.as_array()``

    Returns
    -------
    shapes : list of N Shape
    confidence : ndarray (N,) float in [0, 1]
        Softmax weight of the best shape against the others: low when two shapes fit
        about equally well.
    fit : ndarray (N,) float in [0, 1]
        exp(best score / 4): low when no shape fits (a digit, a smudge, two merged symbols).
    """
    scores = shape_scores(np.asarray(x, dtype=np.float64).reshape(-1, 4))
    best = scores.argmax(axis=1)
    top = scores.max(axis=1, keepdims=True)
    confidence = 1.0 / np.exp(scores - top).sum(axis=1)
    fit = np.exp(np.maximum(top[:, 0], -50.0) / 4.0)
    return [SHAPE_ORDER[i] for i in best], confidence, fit


def classify_shape(features: ShapeFeatures) -> tuple[Shape, float, float]:
    """:func:`classify_shapes` for one silhouette."""
    shapes, confidence, fit = classify_shapes(features.as_array()[None])
    return shapes[0], float(confidence[0]), float(fit[0])
