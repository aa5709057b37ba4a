"""Quads that do not fit their card, brought to the card's size as its neighbours measure it.

A straight edge across a card (a soft shadow's, a finger's) can stand in for one of its
sides, parallel to the true one, so that squaring up (``vision.quads.square_up``) sees
nothing skewed. The cards of one deck share a size and lie on one table: the plane of a
neighbouring card, rectified from its quad, measures the quad in card sides, and one cut
short shows a side pair well below the card's. A quad skewed past any card's view, with
one corner pulled off its card, is completed from its other three corners where that
gives a quad of the card's size.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.quads import (ADDED_TABLE, across_side, added_beyond, colours_at, like_table, order_corners, paper_alike,
                          paper_beyond, sides, sides_outwards, skew_deg)

__all__ = ["measure_in_neighbours", "widen_cut_quads"]

_NEIGHBOURS = 3  # quads nearest a quad that measure it, by the median
_ASPECTS = np.arange(1.3, 1.71, 0.025)  # the deck's long:short side, found per frame among these
_NARROW = 0.88  # a side pair shorter than this share of the card's, with the other pair whole,
_WHOLE = (0.92, 1.1)  # (within this share of the card's), is cut short
# A side that is a soft edge (a shadow's) falls by _STEP_LIGHT within two pixels along at most
# _SOFT of the normals across it, where the card's outline does along at least _CLEAN of them.
_STEP_LIGHT, _STEP_REACH = 10.0, 0.06
_SOFT, _CLEAN = 0.7, 0.9
_PAPER_MARGIN, _TABLE_MARGIN, _ADDED_PAPER = 0.2, 0.4, 0.5
# Opposite sides of a card stay within 4.4 degrees of parallel in the spec's views (see
# vision.quads): a quad skewed beyond _SKEWED_DEG has a corner off its card. Its sides
# beside that corner are sharp along _CORNER_MARGIN fewer normals than those opposite, and
# the completed quad measures within _CARD_SIZE (log) of the card.
_SKEWED_DEG, _CORNER_MARGIN, _CARD_SIZE = 5.0, 0.3, 0.12
_UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)


def measure_in_neighbours(quads_xy: NDArray[np.float32]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each quad's short and long side pair in card short and long sides, as measured on
    the table plane of each of its nearest neighbours (the median of ``_NEIGHBOURS``).

    A neighbour's quad, taken as a card of the deck's aspect, maps the image onto the table
    plane; the deck's aspect is the one of ``_ASPECTS`` under which the quads measure most
    like cards (the median over all pairs). Quads with fewer than two others measure 1.

    Parameters
    ----------
    quads_xy : ndarray (N, 4, 2) float32, clockwise, first edge a short side

    Returns
    -------
    short, long : ndarray (N,) each, 1 for a quad of the card's size
    """
    short, long, _, _ = _measure(np.asarray(quads_xy, np.float32).reshape(-1, 4, 2))
    return short, long


def _measure(quads: NDArray[np.float32]) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None, float]:
    """``measure_in_neighbours``, and the homographies (N, K, 3, 3) from the image onto each
    quad's neighbours' unit squares and the deck's aspect that measured them (None, 0 for
    fewer than three quads)."""
    n = len(quads)
    if n < 3:
        return np.ones(n), np.ones(n), None, 0.0
    centres = quads.mean(axis=1)
    distance = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    np.fill_diagonal(distance, np.inf)
    near = np.argsort(distance, axis=1)[:, : min(_NEIGHBOURS, n - 1)]  # (N, K)
    h = _to_unit_square(quads.astype(np.float64))[near]
    short, long = _sides_in(h, quads, _ASPECTS)
    cost = np.median(np.abs(np.log(short)) + np.abs(np.log(long)), axis=(0, 1))
    aspect = int(np.argmin(cost))
    return np.median(short[..., aspect], axis=1), np.median(long[..., aspect], axis=1), h, float(_ASPECTS[aspect])


def _sides_in(h: NDArray[np.float64], quads: NDArray, aspects: NDArray) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The short and long side pairs (N, K, A) of quads (N, 4, 2) on the planes of ``h``
    (N, K, 3, 3, image onto a unit square) taken as cards of each of ``aspects`` (A,), in
    card short and long sides."""
    points = np.concatenate([quads, np.ones((len(quads), 4, 1))], axis=2).astype(np.float64)  # (N, 4, 3)
    mapped = np.einsum("nkij,nmj->nkmi", h, points)
    plane = mapped[..., :2] / mapped[..., 2:]  # (N, K, 4, 2) in the neighbour's unit square
    edges = np.roll(plane, -1, axis=2) - plane
    # Under aspect a the unit square's y stretches by a: lengths (N, K, 4, A).
    lengths = np.sqrt(edges[..., 0, None] ** 2 + edges[..., 1, None] ** 2 * aspects**2)
    first, second = (lengths[:, :, 0] + lengths[:, :, 2]) / 2, (lengths[:, :, 1] + lengths[:, :, 3]) / 2
    return np.minimum(first, second), np.maximum(first, second) / aspects


def _to_unit_square(quads: NDArray[np.float64]) -> NDArray[np.float64]:
    """The homographies (N, 3, 3) taking each quad (N, 4, 2) onto the unit square, corner for corner."""
    n = len(quads)
    x, y = quads[..., 0], quads[..., 1]  # (N, 4)
    u, v = _UNIT[:, 0].astype(np.float64), _UNIT[:, 1].astype(np.float64)
    zero, one = np.zeros_like(x), np.ones_like(x)
    rows_u = np.stack([x, y, one, zero, zero, zero, -u * x, -u * y], axis=2)
    rows_v = np.stack([zero, zero, zero, x, y, one, -v * x, -v * y], axis=2)
    system = np.concatenate([rows_u, rows_v], axis=1)  # (N, 8, 8)
    target = np.concatenate([np.broadcast_to(u, (n, 4)), np.broadcast_to(v, (n, 4))], axis=1)
    solved = np.linalg.solve(system, target[..., None])[..., 0]
    return np.concatenate([solved, np.ones((n, 1))], axis=1).reshape(n, 3, 3)


def widen_cut_quads(frame_bgr: NDArray[np.uint8], quads_xy: list[NDArray[np.float32]]) -> list[NDArray[np.float32]]:
    """Quads (4, 2) whose one side pair measures well short of their neighbours' cards, with
    the other pair whole, widened at their cut side to the card's size (:func:`widen_cut`);
    a quad plainly skewed, with one corner off the card, completed from its other three
    (:func:`_complete_corner`)."""
    short, long, planes, aspect = _measure(np.array(quads_xy, np.float32).reshape(-1, 4, 2))
    out = []
    for j, (corners, s, l) in enumerate(zip(quads_xy, short, long)):
        if planes is not None and skew_deg(corners) > _SKEWED_DEG:
            completed = _complete_corner(frame_bgr, corners, planes[j], aspect)
            if completed is not corners:
                out.append(completed)
                continue
        if s < _NARROW and _WHOLE[0] <= l:
            corners = widen_cut(frame_bgr, corners, 1, s)
        elif l < _NARROW and _WHOLE[0] <= s <= _WHOLE[1]:
            corners = widen_cut(frame_bgr, corners, 0, l)
        out.append(corners)
    return out


def widen_cut(frame_bgr: NDArray[np.uint8], corners_xy: NDArray[np.float32], pair: int, share: float) -> NDArray[np.float32]:
    """A quad cut short across its card, one side of ``pair`` moved out so that the pair's
    neighbouring sides grow by ``1 / share``.

    The cut side is a soft edge where the other is sharp (a shadow's edge across the card,
    the card's outline); or, with both sharp and alike beyond in paper, the side with less
    of the table beyond it (seen beyond the other two sides): the edge of something lying
    over the card. What widening adds must look like the card's paper, or, for something
    over it or a deep shadow, must not look like the table.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    corners_xy : ndarray (4, 2) float32, clockwise, first edge a short side
    pair : 1 for the long sides (the card cut lengthwise), 0 for the short sides
    share : how much of the card the pair's neighbouring sides show, below 1

    Returns
    -------
    ndarray (4, 2) float32, clockwise with a short side first; the same corners where
    no side is plainly the cut one
    """
    c = order_corners(corners_xy).astype(np.float64)
    sharp = [_sharp_share(frame_bgr, c, k) for k in (pair, pair + 2)]
    others = (1 - pair, 3 - pair)
    table = colours_at(frame_bgr, np.concatenate([across_side(c, m)[1] for m in others]))
    if min(sharp) <= _SOFT and max(sharp) >= _CLEAN:
        wrong, covered = (pair if sharp[0] < sharp[1] else pair + 2), False
    else:
        beyond = [paper_beyond(frame_bgr, c, k) for k in (pair, pair + 2)]
        if abs(beyond[0] - beyond[1]) >= _PAPER_MARGIN:
            return corners_xy
        like = [float(like_table(colours_at(frame_bgr, across_side(c, k)[1]), table).mean()) for k in (pair, pair + 2)]
        if abs(like[0] - like[1]) < _TABLE_MARGIN:
            return corners_xy
        wrong, covered = (pair if like[0] < like[1] else pair + 2), True
    after = (wrong + 1) % 4
    widened = c.copy()
    widened[wrong] = c[wrong - 1] + (c[wrong] - c[wrong - 1]) / share
    widened[after] = c[(after + 1) % 4] + (c[after] - c[(after + 1) % 4]) / share
    added, inside = added_beyond(c, widened, wrong)
    if len(added):
        seen = colours_at(frame_bgr, added)
        papery = not covered and float(paper_alike(colours_at(frame_bgr, inside), seen).mean()) >= _ADDED_PAPER
        if not papery and float(like_table(seen, table).mean()) > ADDED_TABLE:
            return corners_xy
    return order_corners(widened.astype(np.float32))


def _complete_corner(frame_bgr: NDArray[np.uint8], corners_xy: NDArray[np.float32], planes: NDArray[np.float64],
                     aspect: float) -> NDArray[np.float32]:
    """A skewed quad with one corner off its card (pulled out over something touching it,
    or cut across), that corner moved to complete a parallelogram with the other three.

    The corner is the one between the two sides least sharp beyond those of the sides
    opposite them (by ``_CORNER_MARGIN`` of normals, :func:`_sharp_share`); the completed
    quad must measure as a card on its neighbours' ``planes`` (K, 3, 3) under the deck's
    ``aspect``, within ``_CARD_SIZE``, and nearer one than the quad did.
    """
    c = order_corners(corners_xy).astype(np.float64)
    sharp = [_sharp_share(frame_bgr, c, k) for k in range(4)]
    score = np.array([sharp[(k + 1) % 4] + sharp[(k + 2) % 4] - sharp[k - 1] - sharp[k] for k in range(4)])
    first, second = np.argsort(score)[::-1][:2]
    if score[first] - score[second] < _CORNER_MARGIN:
        return corners_xy
    completed = c.copy()
    completed[first] = c[first - 1] + c[(first + 1) % 4] - c[(first + 2) % 4]
    short, long = _sides_in(np.broadcast_to(planes, (2,) + planes.shape), np.stack([c, completed]), np.array([aspect]))
    error = np.abs(np.log(np.stack([np.median(short[..., 0], axis=1), np.median(long[..., 0], axis=1)])))  # (2 sizes, 2 quads)
    if error[:, 1].max() > _CARD_SIZE or error[:, 1].sum() >= error[:, 0].sum():
        return corners_xy
    return order_corners(completed.astype(np.float32))


def _sharp_share(frame_bgr: NDArray[np.uint8], c: NDArray[np.float64], k: int) -> float:
    """The share of 12 normals across side ``k`` of quad ``c`` along which the light steps by
    ``_STEP_LIGHT`` within two pixels, within ``_STEP_REACH`` of the short side of the side."""
    starts, ends, _, normals = sides_outwards(c.astype(np.float32)[None])
    reach = _STEP_REACH * min(sides(c.astype(np.float32)))
    along = starts[0, k] + np.linspace(0.15, 0.85, 12, dtype=np.float32)[:, None] * (ends[0, k] - starts[0, k])
    offsets = np.arange(-reach, reach + 0.01, 1.0, dtype=np.float32)
    grid = along[:, None, :] + offsets[None, :, None] * normals[0, k]
    profile = cv2.remap(frame_bgr, grid[..., 0], grid[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    light = profile.astype(np.float32).mean(axis=2)
    inner, outer = (light[:, :-3] + light[:, 1:-2]) / 2, (light[:, 2:-1] + light[:, 3:]) / 2
    return float((np.abs(inner - outer).max(axis=1) >= _STEP_LIGHT).mean())
