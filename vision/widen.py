"""Quads that do not fit their card, brought to the card's size as its neighbours measure it.

A straight edge across a card (a soft shadow's, a finger's) can stand in for one of its
sides, parallel to the true one, so that squaring up (``vision.quads.square_up``) sees
nothing skewed. The cards of one deck share a size and lie on one table: the plane of a
neighbouring card, rectified from its quad, measures the quad in card sides, and one cut
short shows a side pair well below the card's. A quad skewed past any card's view, with
one corner pulled off its card, is completed from its other three corners where that
gives a quad of the card's size. A quad larger than the card, of a card lying over another and
the part of that one it leaves in view, is refitted as the card within it whose outline, a
thin shadow over the paper beneath, is seen all round: placed at one of the quad's corners, or
where the card's outline follows the light steps inside the quad best (the quad's corners may
be the card's beneath, its paper peeking out all round the card on top).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.regions import points_inside
from vision.quads import (ADDED_TABLE, are_twins, across_side, added_beyond, colours_at, like_table, order_corners, paper_alike,
                          paper_beyond, sides, sides_outwards, skew_deg, snap_corners)

__all__ = ["like_a_card_beside", "measure_in_neighbours", "widen_cut_quads"]

_NEIGHBOURS = 3  # quads nearest a quad that measure it, by the median
_ASPECTS = np.arange(1.3, 1.71, 0.025)  # the deck's long:short side, found per frame among these
_NARROW = 0.88  # a side pair shorter than this share of the card's, with the other pair whole,
_WHOLE = (0.92, 1.1)  # (within this share of the card's), is cut short
# With both pairs short (a card cut across by a shadow and covered along another side), the
# shorter pair, down to _BOTH_CUT of the card's, is widened where its cut side is a shadow's soft edge.
_BOTH_CUT = 0.5
# There the cut side moves out to the card's outline nearest beyond it, not to the neighbours'
# measure (they under-measure a card nearly whole, the table lying beyond it): the first
# place, out to _OUTLINE_BEYOND times the measured widening, where a light step within
# _STEP_REACH of the short side crosses at least _OUTLINE_SEEN of the normals across it.
_OUTLINE_BEYOND, _OUTLINE_SEEN = 1.15, 0.75
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
# A quad is unlike a card on a neighbour's table plane with a corner this far off a right
# angle, or a side pair this far off the card's size (log). A plane is trusted where at least
# _TRUSTED as many quads are like cards on it as on the best; a quad unlike a card on the
# planes of all of its _REFIT_NEIGHBOURS nearest trusted ones is refitted.
_OFF_ANGLE_DEG, _OFF_SIZE, _TRUSTED, _REFIT_NEIGHBOURS = 6.0, 0.1, 0.5, 5
# The card refitted at one of its corners shows a light step within _REFIT_REACH short sides
# along _REFIT_SEEN of the normals across each side, is seen within _REFIT_MARGIN (of five)
# as well as the quad, and where it adds _REFIT_ADDED[0] of itself or more to the quad, at
# least _REFIT_ADDED[1] of that is its paper.
# It shows its outline as well as the quad at least (summed over its sides): on a checked cloth whose
# pale squares, found as quads, outnumber the cards, a card is unlike a card on their planes, and a row
# of symbols across it outlined its top half nearly as well (fresh dev medium 396). Of 492 refits on
# eight dev sets, the 145 so refused had moved 43 quads further from their cards and 31 nearer. (A quad
# cut short by a hand then stays short where the whole card shows its outline less: read from the part.)
_REFIT_REACH, _REFIT_SEEN, _REFIT_MARGIN, _REFIT_ADDED = 0.06, 0.6, 0.5, (0.14, 0.3)
# A quad larger than the card by _OVERSIZED (log) on a side pair took in more than its card:
# mostly a card lying over another, whose paper ran on into the one beneath. The card's
# outline over the other card's paper is only a thin shadow: it is looked for as a light step
# of _FAINT_STEP within _FAINT_REACH short sides, among the cards at the quad's corners (and
# those placed by their outline, below) lying within it (at least _WITHIN of their inside) and
# covering at least half of it (the part of the card beneath left in view is less than a card).
# On fresh medium renders such quads measured 1.25-1.6 cards long; the card on top, placed by
# the neighbours' size (10-20 px off), showed its outline so along 0.9-1 of the normals across
# every side (along 0.3-0.6 of them across its side over the card beneath at the usual step).
# A card half under a cloth measured 1.18 and was refitted worse.
_OVERSIZED, _FAINT_STEP, _FAINT_REACH, _WITHIN = 0.2, 6.0, 0.1, 0.8
# Within such a quad the card on top is also looked for by its own outline, anywhere: the
# quad's corners may be the card's beneath, its paper peeking out all round the card on top.
# On fresh hard and medium renders 3 cards on top were found so and at no corner (1 turned
# 13 degrees from the quad round it). A neighbour's plane, rectified at _STEP_PX pixels
# a card short side, is matched with the card's outline turned every 2 degrees over the light
# steps' strength (Sobel, capped at _STEP_CAP so that symbols do not outweigh a faint outline);
# the _STEP_CARDS best matches are asked for as the cards at the corners are.
_STEP_PX, _STEP_CAP, _STEP_ANGLES, _STEP_CARDS = 48.0, 60.0, np.arange(0.0, 180.0, 2.0), 6
# A card so placed and snapped shows its outline within _CLOSE_REACH short sides along at least
# _CLOSE_SEEN of the normals across each side. On fresh renders the cards on top so found showed
# it along 0.75-1; a card placed on a white mug's rim, and one on a card hardly in view, 0.33-0.58.
_CLOSE_REACH, _CLOSE_SEEN = 0.04, 0.7
_UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
_INSIDE_U, _INSIDE_V = (w.ravel()[:, None] for w in np.meshgrid(np.linspace(0.08, 0.92, 7), np.linspace(0.06, 0.94, 10)))


def measure_in_neighbours(quads_xy: NDArray[np.float32],
                          by: NDArray[np.bool_] | None = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each quad's short and long side pair in card short and long sides, as measured on
    the table plane of each of its nearest neighbours (the median of ``_NEIGHBOURS``).

    A neighbour's quad, taken as a card of the deck's aspect, maps the image onto the table
    plane; the deck's aspect is the one of ``_ASPECTS`` under which the quads measure most
    like cards (the median over all pairs). Quads with fewer than two others measure 1.

    Parameters
    ----------
    quads_xy : ndarray (N, 4, 2) float32, clockwise, first edge a short side
    by : ndarray (N,) bool, the quads whose planes measure (default: all); a quad with fewer
        than two of them beside it measures 1

    Returns
    -------
    short, long : ndarray (N,) each, 1 for a quad of the card's size
    """
    short, long, _, _, _ = _measure_by(np.asarray(quads_xy, np.float32).reshape(-1, 4, 2), by)
    return short, long


def like_a_card_beside(quads_xy: NDArray[np.float32], by: NDArray[np.bool_] | None = None) -> NDArray[np.bool_]:
    """Whether each quad (N, 4, 2) is like a card (``_card_like``) on the table plane of one of
    its nearest neighbours (``_NEIGHBOURS``, among ``by`` as in ``measure_in_neighbours``) at
    least: (N,); all are where there are fewer than three.

    A quad off its card (round two cards, or a card's part beside a hand) maps the table plane
    askew, and a whole card measured on it looks small or large; where two of a card's three
    nearest quads are such, the median of the three is theirs, but the card is still a card on
    the good neighbour's plane (dev hard2 350: a card in full view beside a hand's cut quad and
    one round two cards measured 0.52 by 0.81, a card on the plane of the card beside it).
    """
    quads = np.asarray(quads_xy, np.float32).reshape(-1, 4, 2)
    _, _, planes, valid, aspect = _measure_by(quads, by)
    if planes is None:
        return np.ones(len(quads), bool)
    if not valid.any():  # (no quad to measure by: none is like a card beside it)
        return np.zeros(len(quads), bool)
    return (_card_like(quads, planes, aspect) & valid).any(axis=1)


def _measure(quads: NDArray[np.float32], count: int = _NEIGHBOURS) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None, float]:
    """``measure_in_neighbours``, and the homographies (N, K, 3, 3) from the image onto each
    quad's ``count`` nearest neighbours' unit squares and the deck's aspect that measured
    them (None, 0 for fewer than three quads)."""
    short, long, planes, _, aspect = _measure_by(quads, None, count)
    return short, long, planes, aspect


def _measure_by(quads: NDArray[np.float32], by: NDArray[np.bool_] | None, count: int = _NEIGHBOURS) -> tuple[
        NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None, NDArray[np.bool_] | None, float]:
    """``_measure`` on the planes of the quads ``by`` (N,) bool alone (None: all), and which of
    each quad's neighbours (N, K) are of them; a quad with fewer than two measures 1."""
    n = len(quads)
    if n < 3:
        return np.ones(n), np.ones(n), None, None, 0.0
    centres = quads.mean(axis=1)
    distance = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    np.fill_diagonal(distance, np.inf)
    if by is not None:
        distance[:, ~np.asarray(by, bool)] = np.inf
    near = np.argsort(distance, axis=1)[:, : min(count, n - 1)]  # (N, K)
    valid = np.isfinite(np.take_along_axis(distance, near, axis=1))
    h = _to_unit_square(quads.astype(np.float64))[near]
    short, long = _sides_in(h, quads, _ASPECTS)
    if not valid.any():
        return np.ones(n), np.ones(n), h, valid, 0.0
    cost = np.median((np.abs(np.log(short)) + np.abs(np.log(long)))[valid], axis=0)
    aspect = int(np.argmin(cost))
    # (a quad with fewer than two neighbours to measure it measures 1: its own as if a card)
    enough = valid.sum(axis=1) >= 2
    short, long = (np.where(valid & enough[:, None], measured[..., aspect], np.nan) for measured in (short, long))
    short[~enough], long[~enough] = 1.0, 1.0
    return np.nanmedian(short, axis=1), np.nanmedian(long, axis=1), h, valid, float(_ASPECTS[aspect])


def _sides_in(h: NDArray[np.float64], quads: NDArray, aspects: NDArray) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The short and long side pairs (N, K, A) of quads (N, 4, 2) on the planes of ``h``
    (N, K, 3, 3, image onto a unit square) taken as cards of each of ``aspects`` (A,), in
    card short and long sides."""
    points = np.concatenate([quads, np.ones((len(quads), 4, 1))], axis=2).astype(np.float64)  # (N, 4, 3)
    return _sides_of(_mapped(h, points[:, None]), aspects)


def _sides_of(mapped: NDArray[np.float64], aspects: NDArray) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``_sides_in`` from the quads' corners mapped by the planes (N, K, 4, 3), homogeneous."""
    plane = mapped[..., :2] / mapped[..., 2:]  # (N, K, 4, 2) in the neighbour's unit square
    edges = np.roll(plane, -1, axis=2) - plane
    # Under aspect a the unit square's y stretches by a: lengths (N, K, 4, A).
    lengths = np.sqrt(edges[..., 0, None] ** 2 + edges[..., 1, None] ** 2 * aspects**2)
    first, second = (lengths[:, :, 0] + lengths[:, :, 2]) / 2, (lengths[:, :, 1] + lengths[:, :, 3]) / 2
    return np.minimum(first, second), np.maximum(first, second) / aspects


def _mapped(h: NDArray[np.float64], points: NDArray[np.float64]) -> NDArray[np.float64]:
    """Homogeneous points (..., M, 3) mapped by homographies (..., 3, 3): (..., M, 3), as
    ``np.einsum("...ij,...mj->...mi")`` takes them (its sum in its order: the first and last
    terms, then the middle one), at a fraction of its cost on broadcast planes."""
    h, points = h[..., None, :, :], points[..., :, None, :]
    return (h[..., 0] * points[..., 0] + h[..., 2] * points[..., 2]) + h[..., 1] * points[..., 1]


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
    with both pairs short, the shorter one widened where its cut side is a soft edge, to
    the card's outline beyond it;
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
        elif _BOTH_CUT <= min(s, l) and max(s, l) < _NARROW:
            corners = widen_cut(frame_bgr, corners, *((0, l) if l < s else (1, s)), soft_only=True)
        out.append(corners)
    return out


def widen_cut(frame_bgr: NDArray[np.uint8], corners_xy: NDArray[np.float32], pair: int, share: float,
              soft_only: bool = False) -> NDArray[np.float32]:
    """A quad cut short across its card, one side of ``pair`` moved out so that the pair's
    neighbouring sides grow by ``1 / share``.

    The cut side is a soft edge where the other is sharp (a shadow's edge across the card,
    the card's outline); or, with both sharp and alike beyond in paper, the side with less
    of the table beyond it (seen beyond the other two sides): the edge of something lying
    over the card (not with ``soft_only``). What widening adds must look like the card's
    paper, or, for something over it or a deep shadow, must not look like the table. With
    ``soft_only`` the cut side moves out to the nearest outline beyond it (:func:`_outline_out`),
    not by ``share``, and only over the card's paper.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    corners_xy : ndarray (4, 2) float32, clockwise, first edge a short side
    pair : 1 for the long sides (the card cut lengthwise), 0 for the short sides
    share : how much of the card the pair's neighbouring sides show, below 1
    soft_only : only a soft edge opposite a sharp one is taken for the cut side, and it moves
        out onto an outline seen beyond it (``share`` only bounds the search)

    Returns
    -------
    ndarray (4, 2) float32, clockwise with a short side first; the same corners where
    no side is plainly the cut one
    """
    c = order_corners(corners_xy).astype(np.float64)
    sharp = _sharp_shares(frame_bgr, c)[[pair, pair + 2]].tolist()
    soft_cut = min(sharp) <= _SOFT and max(sharp) >= _CLEAN
    if soft_only and not soft_cut:
        return corners_xy
    # The table beside the quad, which widening must not add (with ``soft_only`` what it adds must be paper).
    table = None if soft_only else colours_at(frame_bgr, np.concatenate([across_side(c, m)[1] for m in (1 - pair, 3 - pair)]))
    if soft_cut:
        wrong, covered = (pair if sharp[0] < sharp[1] else pair + 2), False
    else:
        beyond = [paper_beyond(frame_bgr, c, k) for k in (pair, pair + 2)]
        if abs(beyond[0] - beyond[1]) >= _PAPER_MARGIN:
            return corners_xy
        like = [float(like_table(colours_at(frame_bgr, across_side(c, k)[1]), table).mean()) for k in (pair, pair + 2)]
        if abs(like[0] - like[1]) < _TABLE_MARGIN:
            return corners_xy
        wrong, covered = (pair if like[0] < like[1] else pair + 2), True
    growth = 1 / share
    if soft_only:
        growth = _outline_out(frame_bgr, c, wrong, growth)
        if growth is None:
            return corners_xy
    widened = _moved_out(c, wrong, growth)
    added, inside = added_beyond(c, widened, wrong)
    if len(added):
        seen = colours_at(frame_bgr, added)
        papery = not covered and float(paper_alike(colours_at(frame_bgr, inside), seen).mean()) >= _ADDED_PAPER
        if soft_only and not papery:
            return corners_xy
        if not papery and float(like_table(seen, table).mean()) > ADDED_TABLE:
            return corners_xy
    return order_corners(widened.astype(np.float32))


def _moved_out(c: NDArray[np.float64], k: int, growth: float) -> NDArray[np.float64]:
    """Quad ``c`` with side ``k`` moved out so that the sides beside it grow by ``growth``."""
    after = (k + 1) % 4
    moved = c.copy()
    moved[k] = c[k - 1] + (c[k] - c[k - 1]) * growth
    moved[after] = c[(after + 1) % 4] + (c[after] - c[(after + 1) % 4]) * growth
    return moved


def _outline_out(frame_bgr: NDArray[np.uint8], c: NDArray[np.float64], k: int, growth: float) -> float | None:
    """How much the sides beside side ``k`` of quad ``c`` grow with ``k`` moved out onto the
    nearest outline beyond it (a light step across ``_OUTLINE_SEEN`` of the normals), searched
    out to ``_OUTLINE_BEYOND`` times ``growth``; None where none is seen."""
    reach = _step_reach(c)
    length = (np.linalg.norm(c[k] - c[k - 1]) + np.linalg.norm(c[(k + 1) % 4] - c[(k + 2) % 4])) / 2
    moves = np.arange(reach, length * _OUTLINE_BEYOND * (growth - 1), max(reach, 1.0))
    if not len(moves):
        return None
    growths = 1 + moves / length
    seen = _outline_shares(frame_bgr, np.stack([_moved_out(c, k, g) for g in growths]), reach)[:, k]
    found = np.flatnonzero(seen >= _OUTLINE_SEEN)
    return float(growths[found[0]]) if len(found) else None


def _complete_corner(frame_bgr: NDArray[np.uint8], corners_xy: NDArray[np.float32], planes: NDArray[np.float64],
                     aspect: float) -> NDArray[np.float32]:
    """A skewed quad with one corner off its card (pulled out over something touching it,
    or cut across), that corner moved to complete a parallelogram with the other three.

    The corner is the one between the two sides least sharp beyond those of the sides
    opposite them (by ``_CORNER_MARGIN`` of normals, :func:`_sharp_shares`); the completed
    quad must measure as a card on its neighbours' ``planes`` (K, 3, 3) under the deck's
    ``aspect``, within ``_CARD_SIZE``, and nearer one than the quad did.
    """
    c = order_corners(corners_xy).astype(np.float64)
    sharp = _sharp_shares(frame_bgr, c).tolist()
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


def _sharp_shares(frame_bgr: NDArray[np.uint8], c: NDArray[np.float64]) -> NDArray[np.float64]:
    """For each side of quad ``c``, the share of 12 normals across it along which the light steps
    by ``_STEP_LIGHT`` within two pixels, within ``_step_reach`` of it: (4,)."""
    return _outline_shares(frame_bgr, c[None], _step_reach(c))[0]


def _step_reach(c: NDArray[np.float64]) -> float:
    """How far across a side of quad ``c`` a step is looked for: ``_STEP_REACH`` of its short side,
    two pixels at least (a step is looked for within two, also across a sliver of a quad)."""
    return max(_STEP_REACH * min(sides(c.astype(np.float32))), 2.0)


def refit_off_cards(frame_bgr: NDArray[np.uint8], quads_xy: list[NDArray[np.float32]]) -> list[NDArray[np.float32]]:
    """Quads (4, 2) unlike a card on the table plane of every one of their nearest trusted
    neighbours refitted as the card seen best at one of their corners (:func:`refit_quad`);
    the others as they are.

    Each quad, taken as a card of the deck's aspect, maps the image onto the table plane
    (as in :func:`measure_in_neighbours`); a quad is like a card on a plane with its corners
    within ``_OFF_ANGLE_DEG`` of right angles and its side pairs within ``_OFF_SIZE`` (log)
    of the card's. A plane is trusted where at least ``_TRUSTED`` as many of the other quads
    are like cards on it as on the plane most are, and two at least (a card back's quad, or one
    off its own card, makes few so). A quad is
    refitted when it is like a card on none of the planes of its ``_REFIT_NEIGHBOURS``
    nearest trusted neighbours (one of them may itself be slightly off its card) and its
    paper is like theirs; never as a card found already, its twin (a quad round two cards, one of them
    found on its own too, is the other one).
    """
    quads = np.array(quads_xy, np.float32).reshape(-1, 4, 2)
    n = len(quads)
    if n < 3:
        return list(quads_xy)
    aspect = _measure(quads)[3]
    planes = _to_unit_square(quads.astype(np.float64))
    like = _card_like(quads, np.broadcast_to(planes, (n,) + planes.shape), aspect)  # (quad, plane)
    cards = like.sum(axis=0) - like.diagonal()  # the other quads like cards on each plane
    trusted = cards >= max(2, _TRUSTED * cards.max())
    centres = quads.mean(axis=1)
    distance = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    orders = np.argsort(distance, axis=1)
    out = []
    for j, (corners, order) in enumerate(zip(quads_xy, orders)):
        near = order[(order != j) & trusted[order]][:_REFIT_NEIGHBOURS]
        if len(near) >= 2 and not like[j, near].any() and _paper_like_near(frame_bgr, corners, quads[near]):
            others = quads[order[order != j][:_REFIT_NEIGHBOURS]]
            refitted = refit_quad(frame_bgr, corners, planes[near], aspect, taken=others)
            if refitted is corners and _is_oversized(corners, planes[near], aspect):
                refitted = refit_quad(frame_bgr, corners, planes[near], aspect, within=True, taken=others)
            corners = corners if refitted is corners else _snapped(frame_bgr, refitted)
        out.append(corners)
    return out


def _is_oversized(corners_xy: NDArray[np.float32], planes: NDArray[np.float64], aspect: float) -> bool:
    """Whether a quad measures larger than the card by ``_OVERSIZED`` (log) on a side pair, on
    its neighbours' ``planes`` (K, 3, 3; the median) under the deck's ``aspect``."""
    short, long = _sides_in(planes[None], np.asarray(corners_xy, np.float64)[None], np.array([aspect]))
    return max(float(np.median(short)), float(np.median(long))) > np.exp(_OVERSIZED)


def _paper_like_near(frame_bgr: NDArray[np.uint8], corners_xy: NDArray[np.float32], near_xy: NDArray[np.float32]) -> bool:
    """Whether a quad's paper is like that of the cards near it (N, 4, 2), maybe in shadow:
    a patch of pale cloth found as a card may be unlike a card on every plane too."""
    papers = _paper_colours(frame_bgr, np.concatenate([corners_xy[None], near_xy]))
    return bool(paper_alike(np.median(papers[1:], axis=0)[None], papers[:1])[0])


def _snapped(frame_bgr: NDArray[np.uint8], corners_xy: NDArray[np.float32]) -> NDArray[np.float32]:
    """A refitted quad's corners moved onto the card's outline within ``_REFIT_REACH`` of its
    short side (:func:`vision.quads.snap_corners`, on the grey of its box alone)."""
    search = _REFIT_REACH * min(sides(corners_xy))
    height, width = frame_bgr.shape[:2]
    x0, y0 = np.maximum(np.floor(corners_xy.min(axis=0) - search - 2), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(corners_xy.max(axis=0) + search + 3), (width, height)).astype(int)
    gray = cv2.cvtColor(frame_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    offset = np.array([x0, y0], np.float32)
    return order_corners(snap_corners(gray, corners_xy - offset, search) + offset)


def _card_like(quads: NDArray[np.float32], planes: NDArray[np.float64], aspect: float) -> NDArray[np.bool_]:
    """Whether each quad (N, 4, 2) is like a card of the deck's ``aspect`` on each of its
    ``planes`` (N, K, 3, 3, the image onto a unit square): corners within ``_OFF_ANGLE_DEG``
    of right angles, side pairs within ``_OFF_SIZE`` (log) of the card's: (N, K)."""
    points = np.concatenate([quads, np.ones((len(quads), 4, 1))], axis=2).astype(np.float64)
    mapped = _mapped(planes, points[:, None])
    plane = mapped[..., :2] / mapped[..., 2:] * np.array([1.0, aspect])  # (N, K, 4, 2)
    edges = np.roll(plane, -1, axis=2) - plane
    edges /= np.maximum(np.linalg.norm(edges, axis=3, keepdims=True), 1e-9)
    cos = np.abs((edges * np.roll(edges, 1, axis=2)).sum(axis=3)).max(axis=2)
    short, long = _sides_of(mapped, np.array([aspect]))
    size = np.maximum(np.abs(np.log(short[..., 0])), np.abs(np.log(long[..., 0])))
    return (cos <= np.sin(np.radians(_OFF_ANGLE_DEG))) & (size <= _OFF_SIZE)


def _on_planes(corners_xy: NDArray, planes: NDArray[np.float64], aspect: float) -> NDArray[np.float64]:
    """Points (M, 2) on each of ``planes`` (K, 3, 3), in card short sides: (K, M, 2)."""
    points = np.concatenate([corners_xy, np.ones((len(corners_xy), 1))], axis=1).astype(np.float64)
    mapped = _mapped(planes, points[None])
    return mapped[..., :2] / mapped[..., 2:] * np.array([1.0, aspect])


def _off_planes(points: NDArray[np.float64], planes: NDArray[np.float64], aspect: float) -> NDArray[np.float64]:
    """Points (K, M, 2) on each of ``planes`` (K, 3, 3), in card short sides, back in the image: (K, M, 2)."""
    unit_square = np.concatenate([points / np.array([1.0, aspect]), np.ones(points.shape[:2] + (1,))], axis=2)
    mapped = _mapped(np.linalg.inv(planes), unit_square)
    return mapped[..., :2] / mapped[..., 2:]


def _cards_at_corners(corners_xy: NDArray, planes: NDArray[np.float64], aspect: float) -> NDArray[np.float64]:
    """For each corner of a quad and each way a card may lie there, the card of the deck's
    size with that corner and that corner's two sides (squared up symmetrically on the
    table plane), in the image: (8, 4, 2), the median over the neighbours' planes."""
    plane = _on_planes(corners_xy, planes, aspect)  # (K, 4, 2)
    u = np.roll(plane, -1, axis=1) - plane  # at each corner, along the side after it
    v = np.roll(plane, 1, axis=1) - plane  # and along the side before it
    u /= np.maximum(np.linalg.norm(u, axis=2, keepdims=True), 1e-9)
    v /= np.maximum(np.linalg.norm(v, axis=2, keepdims=True), 1e-9)
    middle, across = u + v, u - v
    middle /= np.maximum(np.linalg.norm(middle, axis=2, keepdims=True), 1e-9)
    across /= np.maximum(np.linalg.norm(across, axis=2, keepdims=True), 1e-9)
    u, v = (middle + across) / np.sqrt(2), (middle - across) / np.sqrt(2)  # at right angles, about the same bisector
    cards = []
    for a, b in ((1.0, aspect), (aspect, 1.0)):
        cards.append(np.stack([plane, plane + a * u, plane + a * u + b * v, plane + b * v], axis=2))  # (K, 4 corners, 4, 2)
    cards = np.stack(cards, axis=2).reshape(len(planes), 32, 2)  # corner by corner, each way
    return np.median(_off_planes(cards, planes, aspect), axis=0).reshape(8, 4, 2)


def refit_quad(frame_bgr: NDArray[np.uint8], corners_xy: NDArray[np.float32], planes: NDArray[np.float64],
               aspect: float, within: bool = False, taken: NDArray[np.float32] | None = None) -> NDArray[np.float32]:
    """A quad unlike a card replaced by the card at one of its corners (:func:`_cards_at_corners`)
    whose outline is seen best: the shares of the normals across its four sides that cross a
    light step (:func:`_outline_shares`) and the share of it like the quad's paper, summed.
    The card's outline must be seen along ``_REFIT_SEEN`` of the normals across each side at
    least, and the card seen within ``_REFIT_MARGIN`` of how well the quad is, and half the quad
    at least (the neighbours' planes may be of pieces of cards). Where the card
    adds much to the quad, some of that must be its paper (``_REFIT_ADDED``; symbols, a
    shadow or a finger may lie over the rest), not all the hand or card back that cut the quad.
    With ``within``, for a quad that took in more than its card (a card over another), only
    the cards lying within the quad are asked for, their outline as a fainter step
    (``_FAINT_STEP`` within ``_FAINT_REACH``).

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    corners_xy : ndarray (4, 2) float32, clockwise
    planes : ndarray (K, 3, 3) float64, the image onto the unit squares of its neighbours' quads
    aspect : the deck's long:short side
    within : look for a card lying within the quad, its outline a faint step
    taken : ndarray (M, 4, 2) float32, the quads found near it: no card found already is the card

    Returns
    -------
    ndarray (4, 2) float32, clockwise with a short side first; ``corners_xy`` itself where
    no card is so seen
    """
    c = order_corners(corners_xy).astype(np.float64)
    placed = _cards_at_corners(c, planes, aspect)
    if within:
        placed = np.concatenate([placed, _cards_along_steps(frame_bgr, c, planes[0], aspect)])
    cards = [order_corners(card.astype(np.float32)) for card in placed
             if np.all(np.isfinite(card)) and cv2.isContourConvex(card.astype(np.float32).reshape(-1, 1, 2))]
    if not cards:
        return corners_xy
    quads = np.array([c] + cards, np.float64)  # the quad first
    reach, step = (_FAINT_REACH, _FAINT_STEP) if within else (_REFIT_REACH, _STEP_LIGHT)
    seen = _outline_shares(frame_bgr, quads, reach * float(np.median([min(sides(card)) for card in cards])), step)
    points = _inside_points(quads)  # (M, P, 2)
    colours = colours_at(frame_bgr, points.reshape(-1, 2))
    papery = paper_alike(np.broadcast_to(_paper_colours(frame_bgr, c[None])[0], colours.shape), colours).reshape(points.shape[:2])
    score = seen.sum(axis=1) + papery.mean(axis=1)
    added = ~points_inside(c[None].astype(np.float32), points.reshape(-1, 2).astype(np.float32))[0].reshape(points.shape[:2])
    count = added.sum(axis=1)
    covered = (count >= _REFIT_ADDED[0] * points.shape[1]) & ((papery & added).sum(axis=1) < _REFIT_ADDED[1] * count)
    # (the card refitted is half the quad at least: cards at its corners measured on neighbours'
    # planes that are pieces of cards are pieces too)
    halves = np.array([cv2.contourArea(q.astype(np.float32)) for q in quads]) >= 0.5 * cv2.contourArea(c.astype(np.float32))
    fitting = (seen.min(axis=1) >= _REFIT_SEEN) & (score > score[0] - _REFIT_MARGIN) & ~covered & halves
    if not within:  # (the card refitted shows its outline as well as the quad at least)
        fitting &= seen.sum(axis=1) >= seen[0].sum()
    if within:
        fitting &= count <= (1.0 - _WITHIN) * points.shape[1]
    fitting[0] = False
    if taken is not None and len(taken) and fitting.any():
        fitting[1:] &= ~_on_taken(np.array(cards, np.float32), taken)
    if not fitting.any():
        return corners_xy
    return quads[int(np.argmax(np.where(fitting, score, -np.inf)))].astype(np.float32)


def _on_taken(cards: NDArray[np.float32], taken: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Which cards (N, 4, 2) are twins of a quad ``taken`` (M, 4, 2; ``vision.quads.are_twins``): a card found already."""
    areas = [cv2.contourArea(t) for t in taken]
    return np.array([any(are_twins(card, t, area_b=a) for t, a in zip(taken, areas)) for card in cards], bool)


def _cards_along_steps(frame_bgr: NDArray[np.uint8], c: NDArray[np.float64], plane: NDArray[np.float64],
                      aspect: float) -> NDArray[np.float64]:
    """The cards of the deck's size on a neighbour's table ``plane`` (3, 3, the image onto its
    unit square) whose outlines follow the light steps in and around quad ``c`` (4, 2) best, at
    each of ``_STEP_ANGLES`` (the ``_STEP_CARDS`` best of them): a card lying over another
    within a quad that took in both, placed by its own outline, not by the quad's corners.
    The plane, rectified at ``_STEP_PX`` pixels a card short side, is matched with the card's
    outline turned to each angle, over the steps' strength (up to ``_STEP_CAP``). Each is snapped
    onto the outline (:func:`_snapped`) and kept where that is seen closely all round: a faint
    step within ``_CLOSE_REACH`` short sides along ``_CLOSE_SEEN`` of the normals across each
    side: (M, 4, 2), M up to ``_STEP_CARDS``."""
    to_plane = np.diag([_STEP_PX, _STEP_PX * aspect, 1.0]) @ plane
    quad = cv2.perspectiveTransform(c.reshape(-1, 1, 2), to_plane).reshape(-1, 2)
    low = quad.min(axis=0) - 0.3 * _STEP_PX
    size = np.ceil(quad.max(axis=0) + 0.3 * _STEP_PX - low).astype(int)
    if not np.all(np.isfinite(quad)) or size.max() > 4 * _STEP_PX * aspect:
        return np.empty((0, 4, 2))
    to_patch = np.array([[1.0, 0.0, -low[0]], [0.0, 1.0, -low[1]], [0.0, 0.0, 1.0]]) @ to_plane
    x0, y0 = np.maximum(np.floor(c.min(axis=0)) - 2, 0).astype(int)
    x1, y1 = (np.ceil(c.max(axis=0)) + 3).astype(int)
    gray = cv2.cvtColor(frame_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    to_patch = to_patch @ np.array([[1.0, 0.0, x0], [0.0, 1.0, y0], [0.0, 0.0, 1.0]])
    patch = cv2.warpPerspective(gray, to_patch, (int(size[0]), int(size[1])), borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    steps = np.minimum(np.hypot(cv2.Sobel(patch, cv2.CV_32F, 1, 0), cv2.Sobel(patch, cv2.CV_32F, 0, 1)), _STEP_CAP)
    size_wh = _STEP_PX * np.array([1.0, aspect])
    matched = [_match_outline(steps, size_wh, angle) for angle in _STEP_ANGLES]
    best = sorted((m for m in matched if m is not None), key=lambda m: -m[0])[:_STEP_CARDS]
    if not best:
        return np.empty((0, 4, 2))
    placed = np.array([q for _, q in best]).reshape(-1, 1, 2)
    placed = cv2.perspectiveTransform(placed, np.linalg.inv(to_patch)).reshape(-1, 4, 2) + np.array([x0, y0])
    snapped = np.array([_snapped(frame_bgr, order_corners(card.astype(np.float32))) for card in placed], np.float64)
    reach = max(_CLOSE_REACH * float(np.median([min(sides(card.astype(np.float32))) for card in snapped])), 2.0)
    return snapped[_outline_shares(frame_bgr, snapped, reach, _FAINT_STEP).min(axis=1) >= _CLOSE_SEEN]


def _match_outline(steps: NDArray[np.float32], size_wh: NDArray[np.float64],
                   angle: float) -> tuple[float, NDArray[np.float64]] | None:
    """Where in ``steps`` (the light steps' strength) the outline of a rectangle ``size_wh``
    turned by ``angle`` degrees follows them best: its summed strength there and its corners
    (4, 2); None where it does not fit in."""
    turn = np.radians(angle)
    turned = (np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]) * size_wh / 2) @ np.array(
        [[np.cos(turn), np.sin(turn)], [-np.sin(turn), np.cos(turn)]])
    half = np.ceil(np.abs(turned).max(axis=0)).astype(int) + 1
    outline = np.zeros((2 * half[1] + 1, 2 * half[0] + 1), np.float32)
    if outline.shape[0] > steps.shape[0] or outline.shape[1] > steps.shape[1]:
        return None
    cv2.polylines(outline, [np.round(turned + half).astype(np.int32)], True, 1.0, 1)
    match = cv2.matchTemplate(steps, outline, cv2.TM_CCORR)
    y, x = np.unravel_index(int(np.argmax(match)), match.shape)
    return float(match[y, x]), turned + half + np.array([x, y])


def _outline_shares(frame_bgr: NDArray[np.uint8], quads: NDArray[np.float64], reach_px: float,
                    step: float = _STEP_LIGHT) -> NDArray[np.float64]:
    """For each side of each quad (M, 4, 2), the share of 12 normals across it along which
    the light steps by ``step`` within two pixels, within ``reach_px``: (M, 4)."""
    starts, ends, _, normals = sides_outwards(quads.astype(np.float32))
    along = starts[:, :, None] + np.linspace(0.15, 0.85, 12, dtype=np.float32)[:, None] * (ends - starts)[:, :, None]
    offsets = np.arange(-reach_px, reach_px + 0.01, 1.0, dtype=np.float32)
    grid = (along[..., None, :] + offsets[:, None] * normals[:, :, None, None, :]).reshape(-1, len(offsets), 2)
    profile = cv2.remap(frame_bgr, grid[..., 0], grid[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    light = profile.astype(np.float32).mean(axis=2)
    inner, outer = (light[:, :-3] + light[:, 1:-2]) / 2, (light[:, 2:-1] + light[:, 3:]) / 2
    return (np.abs(inner - outer).max(axis=1) >= step).reshape(len(quads), 4, -1).mean(axis=2)


def _paper_colours(frame_bgr: NDArray[np.uint8], quads: NDArray) -> NDArray[np.float64]:
    """The colour of each quad's paper (M, 4, 2): the median of the brightest quarter of
    points inside it: (M, 3)."""
    points = _inside_points(np.asarray(quads, np.float64))
    colours = colours_at(frame_bgr, points.reshape(-1, 2)).reshape(points.shape[:2] + (3,))
    brightest = np.argsort(colours.sum(axis=2), axis=1)[:, -points.shape[1] // 4 :]
    return np.median(np.take_along_axis(colours, brightest[..., None], axis=1), axis=1)


def _inside_points(c: NDArray[np.float64]) -> NDArray[np.float64]:
    """A 7 x 10 grid of points inside each quad (..., 4, 2), short side first: (..., 70, 2)."""
    u, v = _INSIDE_U, _INSIDE_V
    corner = [c[..., k, None, :] for k in range(4)]
    return (1 - v) * ((1 - u) * corner[0] + u * corner[1]) + v * ((1 - u) * corner[3] + u * corner[2])
