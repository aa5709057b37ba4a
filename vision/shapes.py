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

__all__ = ["ShapeFeatures", "measure_shape", "angular_harmonics", "classify_shape", "classify_shapes", "shape_scores",
           "SHAPE_ORDER"]

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
    thickness : diameter of the largest inscribed circle / long side (circle 1, square 0.71
        of its diagonal, triangle 0.58, star 0.3, bar 0.2-0.4, a printed digit's stroke ~0.1).
    center_xy : centre of the minimum enclosing circle, measured pixels: the centre of
        every symbol shape (of an equilateral triangle too).
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
    thickness: float = 1.0
    center_xy: tuple[float, float] = (0.0, 0.0)
    harmonics: tuple[float, float, float] | None = None

    def as_array(self) -> NDArray[np.float64]:
        """(5,) or, with the harmonics measured, (8,) float: the model's features."""
        base = [self.solidity, self.extent, math.log(self.aspect), self.fill_circle, self.thickness]
        return np.array(base + list(self.harmonics or ()))


def angular_harmonics(weights: NDArray[np.floating]) -> tuple[float, float, float]:
    """How strongly a mark repeats every third, quarter and fifth of a turn.

    The magnitudes of the complex central moments ``sum w (x + iy)^k`` for k = 3, 4, 5,
    normalised by the mark's spread (``(sum w r^2 / sum w)^(k/2) sum w``): rotation and
    scale invariant, and measured on the soft ink rather than a thresholded outline, so a
    small blurred star keeps its five points (triangle: strong 3rd, square: 4th, star: 5th).

    Parameters
    ----------
    weights : ndarray (h, w) float, ink weight of each pixel (0 off the mark)

    Returns
    -------
    (c3, c4, c5), each about 0 (a disc) to 1
    """
    return harmonics_of_moments(raw_moments(weights))


def raw_moments(weights: NDArray[np.floating]) -> NDArray[np.float64]:
    """The raw moments ``m[p * 6 + q] = sum w y^p x^q`` of a mark up to the 5th order, (36,)
    float64: ``weights`` (h, w), at most 256 px a side, as in :func:`angular_harmonics`.
    Those up to the 2nd order are exact for whole-number weights up to 255."""
    h, w = weights.shape
    if h > _POWER_TABLE.shape[1] or w > _POWER_TABLE.shape[1]:
        raise ValueError(f"weights must be at most {_POWER_TABLE.shape[1]} px a side, got {w}x{h}")
    # Two small products.
    return (_POWER_TABLE[:, :h] @ np.asarray(weights, dtype=np.float64) @ _POWER_TABLE_T[:w]).ravel()


def harmonics_of_moments(m: NDArray[np.float64]) -> tuple[float, float, float]:
    """:func:`angular_harmonics` of a mark from its :func:`raw_moments`."""
    # The complex moments sum w z^j (z = x + iy) and, about the centroid c,
    # sum w (z - c)^k = sum_j C(k, j) (-c)^(k - j) sum w z^j.
    total = float(m[0])
    if total <= 0.0:
        return (0.0, 0.0, 0.0)
    parts = (_RAW_PARTS @ m).tolist()
    raw0, raw1, raw2, raw3, raw4, raw5 = map(complex, parts[:6], parts[6:12])
    c = raw1 / total
    spread = (parts[12] - abs(raw1) ** 2 / total) / total
    if spread <= 1e-9:
        return (0.0, 0.0, 0.0)
    # (plain Python complex arithmetic, written out: numpy's per-call cost, and the loops',
    # dominate at this size)
    p0 = 1.0 + 0j
    p1 = p0 * -c
    p2 = p1 * -c
    p3 = p2 * -c
    p4 = p3 * -c
    p5 = p4 * -c
    c3 = 0j + 1 * p3 * raw0 + 3 * p2 * raw1 + 3 * p1 * raw2 + 1 * p0 * raw3
    c4 = 0j + 1 * p4 * raw0 + 4 * p3 * raw1 + 6 * p2 * raw2 + 4 * p1 * raw3 + 1 * p0 * raw4
    c5 = 0j + 1 * p5 * raw0 + 5 * p4 * raw1 + 10 * p3 * raw2 + 10 * p2 * raw3 + 5 * p1 * raw4 + 1 * p0 * raw5
    return (abs(c3) / (total * spread ** 1.5), abs(c4) / (total * spread ** 2.0),
            abs(c5) / (total * spread ** 2.5))


_POWER_TABLE = np.arange(256, dtype=np.float64)[None, :] ** np.arange(6, dtype=np.float64)[:, None]
# Row j: sum w z^j = sum_a C(j, a) i^a m[a, j - a], over m flattened (6 x 6).
_RAW = np.zeros((6, 36), np.complex128)
for _j in range(6):
    for _a in range(_j + 1):
        _RAW[_j, _a * 6 + (_j - _a)] = math.comb(_j, _a) * 1j ** _a
# The real and imaginary parts of _RAW, then m[2, 0] + m[0, 2]: one real product.
_RAW_PARTS = np.vstack([_RAW.real, _RAW.imag, np.eye(36)[12] + np.eye(36)[2]])
_POWER_TABLE_T = np.ascontiguousarray(_POWER_TABLE.T)


def measure_shape(contour: NDArray[np.int32], inradius: float | None = None,
                  harmonics: tuple[float, float, float] | None = None,
                  hull: NDArray[np.int32] | None = None) -> ShapeFeatures | None:
    """Measure one outer contour.

    Parameters
    ----------
    contour : ndarray (N, 1, 2) int32
        An outer contour as returned by ``cv2.findContours``.
    inradius : float, optional
        Radius of the largest inscribed circle (max of the distance transform), in the
        contour's pixels; without it ``thickness`` is estimated from area and perimeter.
    harmonics : (c3, c4, c5), optional
        The mark's :func:`angular_harmonics`, kept with the other measurements.
    hull : ndarray (M, 1, 2) int32, optional
        The contour's ``cv2.convexHull``, when already at hand.

    Returns
    -------
    ShapeFeatures, or None for a degenerate contour (fewer than 3 points or no area).
    """
    if len(contour) < 3:
        return None
    area = cv2.contourArea(contour)
    if area <= 1.0:
        return None
    hull = cv2.convexHull(contour) if hull is None else hull
    hull_area = max(cv2.contourArea(hull), area)
    (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
    (ccx, ccy), radius = cv2.minEnclosingCircle(hull)
    # Pixel contours trace pixel centres: half a pixel of area is lost all round.
    long_side, short_side = max(rw, rh) + 1.0, min(rw, rh) + 1.0
    perimeter = cv2.arcLength(contour, True)
    area_c = area + 0.5 * perimeter
    if inradius is None:
        inradius = area_c / max(perimeter, 1.0)
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
        thickness=min(1.0, 2.0 * (inradius + 0.5) / long_side),
        center_xy=(float(ccx), float(ccy)),
        harmonics=harmonics,
    )


# Per shape (rows in SHAPE_ORDER), per feature (solidity, extent, log aspect, fill_circle,
# thickness, then the angular harmonics c3, c4, c5): the mean at a symbol size of 0.22 of the
# card's short side, its change per unit of size, and its spread. The first five were fitted
# on 9343 symbols of rendered dev photos (all tiers), the harmonics on 18672 (/tmp/dev120 and
# /tmp/dev, ``python -m vision.bench_read --photos ... --fit-shapes``); spreads widened by 30%
# and floored (harmonics at 0.05) so that no single feature can veto a shape on its own.
_SIZE0 = 0.22
_MEAN = np.array([
    [0.986, 0.790, 0.018, 0.925, 0.959, 0.008, 0.025, 0.016],  # circle
    [0.956, 0.571, 0.106, 0.496, 0.649, 0.758, 0.027, 0.223],  # triangle
    [0.971, 0.938, 0.035, 0.686, 0.943, 0.016, 0.566, 0.024],  # square
    [0.633, 0.453, 0.046, 0.473, 0.551, 0.044, 0.063, 1.944],  # star
    [0.950, 0.891, 1.130, 0.364, 0.336, 0.023, 1.008, 0.083],  # bar
])
_SLOPE = np.array([
    [0.008, -0.006, 0.047, 0.021, -0.040, -0.027, -0.062, -0.060],  # circle
    [0.012, -0.191, 0.086, -0.227, -0.179, 0.204, -0.090, -0.185],  # triangle
    [0.028, 0.177, 0.041, -0.272, -0.017, -0.071, 0.310, -0.156],  # square
    [-0.437, -0.351, 0.040, -0.325, -0.419, -0.136, -0.192, 1.128],  # star
    [-0.021, 0.159, 0.702, -0.223, -0.248, -0.097, 0.870, -0.303],  # bar
])
_SPREAD = np.array([
    [0.015, 0.030, 0.100, 0.044, 0.050, 0.050, 0.050, 0.050],  # circle
    [0.015, 0.030, 0.100, 0.040, 0.050, 0.050, 0.050, 0.213],  # triangle
    [0.015, 0.030, 0.100, 0.040, 0.057, 0.050, 0.050, 0.050],  # square
    [0.055, 0.043, 0.100, 0.040, 0.050, 0.050, 0.051, 0.146],  # star
    [0.021, 0.036, 0.235, 0.083, 0.073, 0.050, 0.298, 0.087],  # bar
])


# A star rounded by blur (a small star under motion blur on hard renders) is more solid,
# fuller and thicker than a sharp one and repeats less every fifth of a turn; it is no
# other shape (its fifth harmonic stays far above theirs), so a star scores as the better
# of the two. Shifts: the median deviation of the stars that fit no shape on dev120/hard
# true-corner crops (solidity, extent, fill_circle, thickness and c5 by 3-4 spreads).
# One more row of the model, folded into the star's column.
# A small triangle rounded so (0.11-0.16 of the short side, on hard renders) is fuller, thicker and
# repeats less every third of a turn: shifts, the median deviation of the 68 triangles read right
# that fit no shape on eight dev sets' true-corner crops (extent, fill_circle, thickness and c3 by
# 2-4 spreads); a second row folded into the triangle's column.
_STAR = SHAPE_ORDER.index(Shape.STAR)
_TRIANGLE = SHAPE_ORDER.index(Shape.TRIANGLE)
_ROUNDED = (_STAR, _TRIANGLE)  # the shapes of the model's rows after the first five, in order
_MEAN_ALL = np.vstack([_MEAN, _MEAN[_STAR] + np.array([0.22, 0.17, 0.0, 0.12, 0.16, 0.0, 0.0, -0.48]),
                    _MEAN[_TRIANGLE] + np.array([0.0, 0.105, 0.0, 0.13, 0.11, -0.18, 0.0, 0.0])])
_SLOPE_ALL = np.vstack([_SLOPE, _SLOPE[_STAR], _SLOPE[_TRIANGLE]])
_SPREAD_ALL = np.vstack([_SPREAD, _SPREAD[_STAR], _SPREAD[_TRIANGLE]])


def shape_scores(x: NDArray[np.float64], size: NDArray[np.float64]) -> NDArray[np.float64]:
    """Log-likelihood-like scores (N, 5) of each shape in ``SHAPE_ORDER``.

    Parameters
    ----------
    x : ndarray (N, 5) float, rows of ``ShapeFeatures.as_array()``
    size : ndarray (N,) float, each symbol's longest extent / the card's short side
    """
    offset = (np.minimum(np.maximum(size, 0.1), 0.7) - _SIZE0)[:, None, None]
    k = min(x.shape[1], _MEAN.shape[1])
    x = x[:, :k]
    z = (x[:, None, :] - (_MEAN_ALL[None, :, :k] + _SLOPE_ALL[None, :, :k] * offset)) / _SPREAD_ALL[None, :, :k]
    scores = -0.5 * (z * z).sum(axis=2)
    for row, shape in enumerate(_ROUNDED, start=len(SHAPE_ORDER)):
        scores[:, shape] = np.maximum(scores[:, shape], scores[:, row])
    return scores[:, : len(SHAPE_ORDER)]


def classify_shapes(x: NDArray[np.float64], size: NDArray[np.float64]) -> tuple[list[Shape], NDArray[np.float64], NDArray[np.float64]]:
    """The most likely shape of each silhouette, a confidence and how well it fits at all.

    Parameters
    ----------
    x : ndarray (N, 5) float, rows of ``ShapeFeatures.as_array()``
    size : ndarray (N,) float, each symbol's longest extent / the card's short side

    Returns
    -------
    shapes : list of N Shape
    confidence : ndarray (N,) float in [0, 1]
        Softmax weight of the best shape against the others: low when two shapes fit
        about equally well.
    fit : ndarray (N,) float in [0, 1]
        exp(best score / 4): low when no shape fits (a digit, a smudge, two merged symbols).
    """
    x = np.asarray(x, dtype=np.float64)
    scores = shape_scores(x.reshape(len(x), -1), np.asarray(size, dtype=np.float64).reshape(-1))
    best = scores.argmax(axis=1)
    top = scores.max(axis=1, keepdims=True)
    confidence = 1.0 / np.exp(scores - top).sum(axis=1)
    # Per five features, so that the harmonics do not make every mark fit worse.
    fit = np.exp(np.maximum(top[:, 0] * (5.0 / min(x.shape[1], _MEAN.shape[1])), -50.0) / 4.0)
    return [SHAPE_ORDER[i] for i in best], confidence, fit


def classify_shape(features: ShapeFeatures, size: float) -> tuple[Shape, float, float]:
    """:func:`classify_shapes` for one silhouette of relative ``size``."""
    shapes, confidence, fit = classify_shapes(features.as_array()[None], np.array([size]))
    return shapes[0], float(confidence[0]), float(fit[0])
