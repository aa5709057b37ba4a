"""The size a card shows at a place in the frame, as the cards found there show it.

A camera looking down at a tilted table sees near cards larger than far ones; a region is
judged against the cards near it (``typical_near``) or against a plane of sizes fitted over
all the cards found (``sizes_in_view``).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, islice
from math import comb

import numpy as np
from numpy.typing import NDArray

from vision.quads import CardQuad, unit

__all__ = ["SQUARISH", "VIEW_CARDS", "Typical", "typical_near", "typical_of", "sizes_in_view"]

SQUARISH = 0.8  # short over long side above which a quad's short side is uncertain: a card seen at a slant shows no way it lies
VIEW_CARDS = 6  # the size of the cards in view is fitted over at least this many cards found (twice a plane's numbers)
_VIEW_OFF = 0.15  # leaving out those off the fit by more than this (log of a side)
_VIEW_SPREAD = 0.02  # through three cards spread this much (twice their triangle's area, the cards' spread as 1)
_VIEW_TRIPLES = 300  # of that many threes of cards at most, taken evenly


@dataclass(frozen=True)
class Typical:
    """The cards found near a place: their median short and long side (frame pixels), and
    whether their long sides run one way (the unit vector) or every which way (None)."""

    short: float
    long: float
    long_axis: NDArray[np.float64] | None


def typical_near(quads: list[CardQuad], point_xy: tuple[float, float], exclude: CardQuad | None = None,
                 count: int = 4) -> Typical | None:
    """The size of the cards nearest a point (cards far from the camera of a tilted view
    look smaller), from the cards found there."""
    others = [q for q in quads if q is not exclude]
    if not others:
        return None
    centres = np.array([q.center_xy for q in others])
    order = np.argsort(np.hypot(centres[:, 0] - point_xy[0], centres[:, 1] - point_xy[1]))[:count]
    return typical_of([others[k] for k in order])


def typical_of(quads: list[CardQuad], one_way_from: int = 3) -> Typical:
    """The median size of some quads (one at least), and the way their long sides run where
    ``one_way_from`` of them or more agree on it (the mean of their unit vectors above 0.95)."""
    sizes = np.array([q.size_wh for q in quads])
    axes = np.array([q.corners_xy[2] - q.corners_xy[1] for q in quads], np.float64)
    axes /= np.maximum(np.hypot(axes[:, 0], axes[:, 1]), 1e-9)[:, None]
    axes *= np.sign(axes @ axes[0])[:, None]
    mean_axis = axes.mean(axis=0)
    aligned = len(quads) >= one_way_from and np.hypot(*mean_axis) > 0.95
    middle = np.sort(sizes, axis=0)[(len(sizes) - 1) // 2 : len(sizes) // 2 + 1].mean(axis=0)
    return Typical(float(middle[0]), float(middle[1]), unit(mean_axis) if aligned else None)


def sizes_in_view(quads: list[CardQuad], points_xy: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """The short and long side (frame pixels) a card shows at each point (N, 2), as the
    cards found show it: (N, 2), or None with no card found.

    A camera looking down at a tilted table sees near cards larger than far ones, smoothly
    across the frame. The log of each side of the cards found is taken as a plane in x, y:
    of the planes through three cards (not in a line; ``_VIEW_TRIPLES`` of them at most),
    the one the most cards lie within ``_VIEW_OFF`` of, fitted again over those cards
    (cards found wrongly, cut short, or lying the other way round are left out); its
    values are kept within their sizes. Where no plane keeps two thirds of the cards, and
    ``VIEW_CARDS`` at least, the cards nearest each point tell (``typical_near``).
    """
    n = len(quads)
    if not n:
        return None
    points_xy = np.reshape(points_xy, (-1, 2))
    if n >= VIEW_CARDS:
        centres = np.array([q.center_xy for q in quads], np.float64)
        logs = np.log(np.array([q.size_wh for q in quads], np.float64))
        middle, scale = centres.mean(axis=0), max(float(np.ptp(centres, axis=0).max()), 1.0)
        design = np.column_stack([np.ones(n), (centres - middle) / scale])
        step = -(-comb(n, 3) // _VIEW_TRIPLES)
        triples = np.array(list(islice(combinations(range(n), 3), 0, None, step)))
        triples = triples[np.abs(np.linalg.det(design[triples])) > _VIEW_SPREAD]
        if len(triples):
            planes = np.linalg.solve(design[triples], logs[triples])  # (T, 3, 2)
            near = (np.abs(design @ planes - logs) <= _VIEW_OFF).all(axis=2)
            kept = near[np.argmax(near.sum(axis=1))]
            if kept.sum() >= max(VIEW_CARDS, 2 * n / 3):
                fit = np.linalg.lstsq(design[kept], logs[kept], rcond=None)[0]
                at = np.column_stack([np.ones(len(points_xy)), (points_xy - middle) / scale]) @ fit
                return np.exp(np.clip(at, logs[kept].min(axis=0), logs[kept].max(axis=0)))
    typicals = [typical_near(quads, (float(x), float(y))) for x, y in points_xy]
    return np.array([(t.short, t.long) for t in typicals if t is not None], np.float64).reshape(-1, 2)
