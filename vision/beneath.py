"""Cards lying partly under a card found: paper of a card's size sticking out from under it.

Where two players' rows meet end to end on one edge, one player's card may lie partly under
the other's first card. Hidden by a quarter or more it is not reported (only a piece of it
could be read), but a person sees it: paper with printed symbols sticking out from under the
top card, in line with a row. Such a card's place tells where one row ends and the next begins
(``vision.arrange.arrange_rows`` takes it as a row member that is no card of the result).

Only cards with paper like their own just beyond their sides, on no card found, are looked at
closely (``_paper_around``): each in its own view (the card upright, its short side
``_VIEW_SHORT`` pixels, with room around it). A card of its size, shifted from under it, is
looked for where the part of it on no card found shows a good share of a card, is mostly paper
like the card's own (printed symbols aside), and ends where that paper does: just beyond its
sides, no paper. Of the shifts that fit, the one taking in the most paper and the least else.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.quads import at_card_uv
from vision.regions import points_inside

__all__ = ["find_cards_beneath"]

_VIEW_SHORT = 32  # a card's short side in its own view, in pixels
_REACH = 0.7  # the view reaches this far beyond each side, in that side's length
_STEPS = 32  # shifts tried per side's length (each pixel of the view)
_SEEN = (0.15, 0.7)  # the share of a card not under any card found: less is no evidence; more, a card found whole or a patch
_UNDER = 0.25  # at least this share of the card lies under the card it is found beneath
_FILL = 0.55  # the part seen is this much paper like the card's own at least (printed symbols aside)
_BEYOND = 0.2  # and just beyond its sides in view, at most this share is paper
_BEYOND_MIN = 0.5  # of a band as long as this many short sides at least (the outline must show)
_BAND = 2  # the band's width, in pixels of the view
_EDGE = 2  # the card's own outline, grown a pixel, ends this many pixels of the view beyond its side
_RUNS_ON = 0.5  # just beyond the card's sides the card beneath shows, this share of it is paper
_PALE_TABLE = 0.3  # paper no card explains is at most this share of the view's (a cream table is not)
_PAPER_L = 0.12  # paper: lightness (Lab L) within this share of the card's paper ...
_PAPER_AB = 8.0  # ... and its tint (Lab a, b) within this of each
_AROUND_OFF = 0.15  # a first glance: paper within this share of the card's own, each of blue, green, red
_AROUND_POINTS = 2  # at this many points at least (of 96, at three depths beyond the sides)
_SAME = 0.5  # two cards found beneath cards within this many short sides of each other are one


def find_cards_beneath(frame_bgr: NDArray[np.uint8], cards_xy: Sequence[NDArray]) -> list[NDArray[np.float32]]:
    """Cards lying partly under the cards found, hidden too much to be read: their places, guessed.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    cards_xy : sequence of ndarray (4, 2), the cards found, clockwise, first edge a short side

    Returns
    -------
    quads : list of ndarray (4, 2) float32, each a card's size where it lies, corners as the
        card's over it (clockwise, first edge a short side); none of them is a card found.
    """
    quads = np.array([np.asarray(c, np.float32).reshape(4, 2) for c in cards_xy], np.float32).reshape(-1, 4, 2)
    if len(quads) == 0:
        return []
    centres = quads.mean(axis=1)
    reach = 3 * np.linalg.norm(quads[:, 3] - quads[:, 0], axis=1)  # the view reaches within 1.2 long sides of the middle
    apart = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    found: list[tuple[float, NDArray[np.float32], float]] = []
    for k in np.flatnonzero(_paper_around(frame_bgr, quads)):
        beneath = _beneath(frame_bgr, quads, int(k), np.flatnonzero(apart[k] < reach[k]))
        if beneath is not None:
            found.append(beneath)
    found.sort(key=lambda item: -item[0])
    kept: list[NDArray[np.float32]] = []
    for _, quad, short in found:
        if all(np.hypot(*(quad.mean(axis=0) - other.mean(axis=0))) > _SAME * short for other in kept):
            kept.append(quad)
    return kept


def _beneath(frame_bgr: NDArray[np.uint8], quads: NDArray[np.float32], k: int, near: NDArray[np.intp]
             ) -> tuple[float, NDArray[np.float32], float] | None:
    """The card found beneath card ``k`` (its paper seen, its quad, card ``k``'s short side), or
    None; ``near``: the cards that may lie in its view."""
    corners = quads[k]
    short = float(np.linalg.norm(corners[1] - corners[0]) + np.linalg.norm(corners[2] - corners[3])) / 2
    long = float(np.linalg.norm(corners[3] - corners[0]) + np.linalg.norm(corners[2] - corners[1])) / 2
    if short < 1 or long < 1:
        return None
    s = _VIEW_SHORT
    ln = max(s, int(round(s * long / short)))
    mx, my = int(round(_REACH * s)), int(round(_REACH * ln))
    card = np.array([(mx, my), (mx + s, my), (mx + s, my + ln), (mx, my + ln)], np.float32)
    to_view = cv2.getPerspectiveTransform(corners, card)
    width, height = s + 2 * mx, ln + 2 * my
    view = cv2.warpPerspective(frame_bgr, to_view, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2LAB)
    inner = lab[my + ln // 10: my + ln - ln // 10, mx + s // 10: mx + s - s // 10].reshape(-1, 3)
    light = inner[:, 0]
    at = int(0.7 * len(light))
    ref = np.median(inner[light >= np.partition(light, at)[at]], axis=0)
    if ref[0] < 60:
        return None
    reach = np.array([_PAPER_L * ref[0], _PAPER_AB, _PAPER_AB])
    paper = cv2.inRange(lab, np.clip(ref - reach, 0, 255), np.clip(ref + reach, 0, 255))
    # What no card found covers: the card itself and its neighbours in view, each grown a pixel.
    taken = np.zeros((height, width), np.uint8)
    mapped = cv2.perspectiveTransform(quads[near].reshape(-1, 1, 2), to_view).reshape(-1, 4, 2)
    for quad in mapped:
        cv2.fillConvexPoly(taken, np.round(quad).astype(np.int32), 255)
    free = cv2.bitwise_not(cv2.dilate(taken, np.ones((3, 3), np.uint8)))
    left = cv2.bitwise_and(paper, free)
    area = s * ln
    if cv2.countNonZero(left) < _SEEN[0] * _FILL * area:  # (most cards: no paper left around them)
        return None
    if cv2.countNonZero(left) > _PALE_TABLE * cv2.countNonZero(free):  # a table as pale as paper shows nothing
        return None
    free_sum, paper_sum = _integral(free), _integral(left)
    dy, dx = np.mgrid[-my:my + 1:max(1, ln // _STEPS), -mx:mx + 1:max(1, s // _STEPS)]
    dx, dy = dx.ravel(), dy.ravel()
    x0, y0 = mx + dx, my + dy
    inside = (x0, y0, x0 + s, y0 + ln)
    around = (x0 - _BAND, y0 - _BAND, x0 + s + _BAND, y0 + ln + _BAND)
    seen, white = _boxes(free_sum, *inside), _boxes(paper_sum, *inside)
    # The band just beyond its sides: free, and mostly not paper.
    band_free, band_white = _boxes(free_sum, *around) - seen, _boxes(paper_sum, *around) - white
    under = np.maximum(0, s - np.abs(dx)) * np.maximum(0, ln - np.abs(dy))
    fits = ((under >= _UNDER * area) & (seen >= _SEEN[0] * area) & (seen <= _SEEN[1] * area) & (white >= _FILL * seen)
            & (band_free >= _BEYOND_MIN * s * _BAND) & (band_white <= _BEYOND * band_free))
    if not fits.any():
        return None
    # The most paper explained, less what it takes in that is no paper (beyond the card's true edge).
    best = int(np.argmax(np.where(fits, 2 * white - seen, -area)))
    dx, dy = int(dx[best]), int(dy[best])
    # Its paper runs on under the card (a card under a hand beside it leaves table between them),
    # just beyond one of the card's sides it sticks out past.
    y0, y1, x0, x1 = max(my, my + dy), min(my + ln, my + dy + ln), max(mx, mx + dx), min(mx + s, mx + dx + s)
    strips = []
    if abs(dx) >= _EDGE + _BAND:
        x = mx + s + _EDGE if dx > 0 else mx - _EDGE - _BAND
        strips.append((x, y0, x + _BAND, y1))
    if abs(dy) >= _EDGE + _BAND:
        y = my + ln + _EDGE if dy > 0 else my - _EDGE - _BAND
        strips.append((x0, y, x1, y + _BAND))
    if not any(_runs_on(free_sum, paper_sum, strip, s) for strip in strips):
        return None
    shifted = card + np.array([dx, dy], np.float32)
    quad = cv2.perspectiveTransform(shifted.reshape(-1, 1, 2), np.linalg.inv(to_view)).reshape(4, 2)
    return float(white[best]) / area, quad.astype(np.float32), short


# Points (u, v) in a card's own coordinates (0..1 along its short and long sides): on its paper,
# and beyond its sides at three depths.
_INNER_UV = np.stack(np.meshgrid(np.linspace(0.15, 0.85, 5), np.linspace(0.15, 0.85, 5)), -1).reshape(-1, 2)
_OUTER_UV = np.concatenate(
    [np.stack([np.full(9, u), np.linspace(0.05, 0.95, 9)], -1) for u in (-0.08, -0.2, -0.35, 1.08, 1.2, 1.35)]
    + [np.stack([np.linspace(0.05, 0.95, 7), np.full(7, v)], -1) for v in (-0.06, -0.14, -0.25, 1.06, 1.14, 1.25)])


def _paper_around(frame_bgr: NDArray[np.uint8], quads: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Whether paper like each card's own shows just beyond its sides, on no card found, at
    ``_AROUND_POINTS`` of the points looked at at least: (N,). Few cards have any; only these are
    looked at closely (a view of each card costs far more than a few points of the frame)."""
    own, _ = _colours_at(frame_bgr, at_card_uv(quads, _INNER_UV))
    brightest = np.argsort(-own.sum(axis=2), axis=1)[:, : len(_INNER_UV) * 2 // 5]
    ref = np.median(np.take_along_axis(own, brightest[..., None], axis=1), axis=1)  # (N, 3)
    points = at_card_uv(quads, _OUTER_UV)
    seen, inside = _colours_at(frame_bgr, points)
    paper = (np.abs(seen - ref[:, None]) <= _AROUND_OFF * ref[:, None] + 4).all(axis=2) & inside
    # On no card found: outside every quad (on the same side of all four sides inside one).
    card, point = np.nonzero(paper)
    covered = points_inside(quads, points[card, point]).any(axis=0)
    return np.bincount(card[~covered], minlength=len(quads)) >= _AROUND_POINTS


def _colours_at(frame_bgr: NDArray[np.uint8], points_xy: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The frame's colour at each point (..., 2), the nearest pixel's (..., 3), and whether it lies in the frame."""
    height, width = frame_bgr.shape[:2]
    x = np.round(points_xy[..., 0]).astype(np.intp)
    y = np.round(points_xy[..., 1]).astype(np.intp)
    inside = (x >= 0) & (x < width) & (y >= 0) & (y < height)
    return frame_bgr[np.clip(y, 0, height - 1), np.clip(x, 0, width - 1)].astype(np.float64), inside


def _runs_on(free_sum: NDArray[np.int32], paper_sum: NDArray[np.int32], strip: tuple[int, int, int, int], short: int) -> bool:
    """Whether a strip (x0, y0, x1, y1) of the view is on no card found along half a short side
    (``short`` pixels) at least, and ``_RUNS_ON`` of that is paper."""
    box = tuple(np.array([v]) for v in strip)
    free, paper = int(_boxes(free_sum, *box)[0]), int(_boxes(paper_sum, *box)[0])
    return free >= 0.5 * short * _BAND and paper >= _RUNS_ON * free


def _integral(mask: NDArray[np.uint8]) -> NDArray[np.int32]:
    """The integral image of a mask of noughts and 255s, counting its set pixels."""
    return cv2.integral(mask // 255, sdepth=cv2.CV_32S)


def _boxes(integral: NDArray, x0: NDArray, y0: NDArray, x1: NDArray, y1: NDArray) -> NDArray[np.int64]:
    """The sums over boxes [x0, x1) x [y0, y1) (arrays of one shape), clipped to the view."""
    h, w = integral.shape[0] - 1, integral.shape[1] - 1
    x0, x1, y0, y1 = np.clip(x0, 0, w), np.clip(x1, 0, w), np.clip(y0, 0, h), np.clip(y1, 0, h)
    return (integral[y1, x1] - integral[y0, x1] - integral[y1, x0] + integral[y0, x0]).astype(np.int64)
