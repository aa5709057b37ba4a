"""Quads cut short across their card, widened to the card's size as its neighbours measure it.

A straight edge across a card (a soft shadow's, a finger's) can stand in for one of its
sides, parallel to the true one, so that squaring up (``vision.quads.square_up``) sees
nothing skewed. The cards of one deck share a size and lie on one table: the plane of a
neighbouring card, rectified from its quad, measures the quad in card sides, and one cut
short shows a side pair well below the card's.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.quads import ADDED_TABLE, across_side, added_beyond, colours_at, like_table, order_corners, paper_alike, paper_beyond, sides, sides_outwards

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
    quads = np.asarray(quads_xy, np.float32).reshape(-1, 4, 2)
    n = len(quads)
    if n < 3:
        return np.ones(n), np.ones(n)
    centres = quads.mean(axis=1)
    distance = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    np.fill_diagonal(distance, np.inf)
    near = np.argsort(distance, axis=1)[:, : min(_NEIGHBOURS, n - 1)]  # (N, K)
    h = _to_unit_square(quads.astype(np.float64))[near]  # (N, K, 3, 3) image -> each neighbour's unit square
    points = np.concatenate([quads, np.ones((n, 4, 1), np.float32)], axis=2).astype(np.float64)  # (N, 4, 3)
    mapped = np.einsum("nkij,nmj->nkmi", h, points)
    plane = mapped[..., :2] / mapped[..., 2:]  # (N, K, 4, 2) in the neighbour's unit square
    edges = np.roll(plane, -1, axis=2) - plane
    # Under aspect a the unit square's y stretches by a: lengths (N, K, 4, A).
    lengths = np.sqrt(edges[..., 0, None] ** 2 + edges[..., 1, None] ** 2 * _ASPECTS**2)
    first, second = (lengths[:, :, 0] + lengths[:, :, 2]) / 2, (lengths[:, :, 1] + lengths[:, :, 3]) / 2
    short, long = np.minimum(first, second), np.maximum(first, second) / _ASPECTS
    cost = np.median(np.abs(np.log(short)) + np.abs(np.log(long)), axis=(0, 1))
    aspect = int(np.argmin(cost))
    return np.median(short[..., aspect], axis=1), np.median(long[..., aspect], axis=1)


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
    the other pair whole, widened at their cut side to the card's size (:func:`widen_cut`)."""
    short, long = measure_in_neighbours(np.array(quads_xy, np.float32))
    out = []
    for corners, s, l in zip(quads_xy, short, long):
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
        papery = not covered and float(paper_alike(colours_at(frame_bgr, inside), colours_at(frame_bgr, added)).mean()) >= _ADDED_PAPER
        if not papery and float(like_table(colours_at(frame_bgr, added), table).mean()) > ADDED_TABLE:
            return corners_xy
    return order_corners(widened.astype(np.float32))


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
