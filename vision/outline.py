"""A card's sides moved out onto its outline, past a printed border or a strip of paper the region left out."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

import cv2

from vision.paper import CHROMA_WEIGHT
from vision.quads import fit_lines, meet_lines, sides_outwards

__all__ = ["reach_outlines", "pull_in_outlines"]

_INSIDE, _OUTSIDE = 0.04, 0.22  # the search band, shares of the short side in from and out of each side
_STEPS = 24  # samples across the band
_NORMALS = 12  # profiles across each side
_ALONG = np.linspace(0.12, 0.88, _NORMALS, dtype=np.float32)  # where they cross it, as shares of its length
_STAY_OUT = 0.05  # beyond the outline the table lasts at least this share of the short side
_PAPER_SHARE = 0.25  # paper is within this share of the way from the paper's level to the table's
_MARGIN_SHARE = 0.2  # the paper a side moves out across is within this share of the paper's level
_BORDER = 0.1  # a printed border lies within this share of the short side from the outline
_LINE_TO_OUTLINE = 0.15  # ... and a printed line, blurred, lies at most this far inside a fall beyond it
_PARALLEL_DEG = 4.2  # opposite sides of a card in the picture: 99.9% within 4.2 degrees of parallel on dev renders
_MIN_CONTRAST = 25.0  # whiteness between paper and table, below which a side is not judged
_AGREE_PX = 1.5  # an outline point this near the side's line supports it
_SUPPORT = 0.5  # share of the points along a side that must support its new line


def reach_outlines(frame_bgr: NDArray[np.uint8], quads_xy: NDArray[np.float32]) -> NDArray[np.float32]:
    """Each side moved onto the card's outline where a straight line of outline points clearly lies there.

    Along 12 normals across each side, from a little inside to a fifth of the short side
    outside, the outline is where the paper's whiteness (lightness less chroma away from
    this card's paper colour) falls most of the way to the table's and stays down for a
    while: a printed border line is thin, the table beyond a card is not (past a wide line
    the paper comes back, and a fall a little further out that stays down to the band's end
    is taken instead); and a fall far out must be from paper, not from a pale stripe of cloth. A line through the points
    that most agree (RANSAC over pairs of normals) replaces the side when half the normals
    support it and it stays about parallel to the opposite side, so glare, a symbol or a
    neighbour at a few normals cannot drag a corner. Sides then meet in the corners. All
    cards are sampled at once.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8, the full frame
    quads_xy : ndarray (N, 4, 2) float32, clockwise

    Returns
    -------
    ndarray (N, 4, 2) float32, the same corners where no side moved
    """
    corners = np.asarray(quads_xy, np.float32).reshape(-1, 4, 2)
    if len(corners) == 0:
        return corners
    reach = np.linspace(-_INSIDE, _OUTSIDE, _STEPS, dtype=np.float32)
    normals = _sample_normals(frame_bgr, corners, reach, int(np.count_nonzero(reach <= 0)))
    # Less noise on a dim or low-contrast card: each normal with its neighbours along the side.
    profile = normals.profile
    padded = np.concatenate([profile[:, :, :1], profile, profile[:, :, -1:]], axis=2)
    profile = 0.25 * padded[:, :, :-2] + 0.5 * profile + 0.25 * padded[:, :, 2:]
    position, found = _outline_along(profile, reach)
    return _move_sides(corners, normals, position, found, _PARALLEL_DEG, 0.4)


@dataclass(frozen=True)
class _Normals:
    """Profiles across every side of N quads: along ``S`` normals, ``K`` samples each."""

    points: NDArray[np.float32]  # (N, 4, S, 2) where each normal crosses its side
    outwards: NDArray[np.float32]  # (N, 4, 2) each side's unit normal, away from the card
    offsets: NDArray[np.float32]  # (N, K) each sample's offset along its normal, pixels
    profile: NDArray[np.float32]  # (N, 4, S, K) paperness: lightness less CHROMA_WEIGHT times chroma
    light: NDArray[np.float32]  # (N, 4, S, K) Lab lightness, 0-255
    chroma: NDArray[np.float32]  # (N, 4, S, K) distance from the card's paper colour in a, b
    ab: NDArray[np.float32]  # (N, 4, S, K, 2) Lab a and b, 0-255 (128: no colour)
    paper_ab: NDArray[np.float32]  # (N, 2) the card's paper colour in a, b
    lengths: NDArray[np.float32]  # (N, 4) the sides' lengths
    short: NDArray[np.float32]  # (N,) the mean short side


def _sample_normals(frame_bgr: NDArray[np.uint8], corners: NDArray[np.float32], reach: NDArray[np.float32],
                    inside: int) -> _Normals:
    """Paperness along ``_NORMALS`` normals across each side, at offsets ``reach`` (K,) as shares
    of the short side (outwards positive); the paper's colour from the first ``inside`` samples."""
    n, steps = len(corners), len(reach)
    lengths = np.linalg.norm(corners - np.roll(corners, -1, axis=1), axis=2)
    short = np.minimum(lengths[:, 0] + lengths[:, 2], lengths[:, 1] + lengths[:, 3]) / 2  # (N,)
    starts, ends, _, normals = sides_outwards(corners)
    offsets = reach[None, :] * short[:, None]  # (N, K) pixels
    points = starts[:, :, None, :] + _ALONG[None, None, :, None] * (ends - starts)[:, :, None, :]  # (N, 4, S, 2)
    # x and y apart: numpy is slow over a last axis of two.
    map_x, map_y = (points[..., k, None] + offsets[:, None, None, :] * normals[:, :, None, None, k] for k in (0, 1))
    bgr = cv2.remap(frame_bgr, map_x.reshape(-1, steps), map_y.reshape(-1, steps), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    light, chroma, ab, paper_ab = _light_and_chroma(bgr.reshape(n, 4 * _NORMALS, steps, 3), inside)
    light, chroma = (v.reshape(n, 4, _NORMALS, steps) for v in (light, chroma))
    return _Normals(points, normals, offsets, light - CHROMA_WEIGHT * chroma, light, chroma, ab.reshape(n, 4, _NORMALS, steps, 2),
                    paper_ab, lengths, short)


def _move_sides(corners: NDArray[np.float32], normals: _Normals, position: NDArray, found: NDArray[np.bool_],
                parallel_deg: float, max_shift: float) -> NDArray[np.float32]:
    """Each side replaced by a line through the outline points found along its normals
    (``position`` (N, 4, S) in samples, fractions between two) that most agree (RANSAC
    over pairs of normals), where half the normals support it and it stays within
    ``parallel_deg`` of parallel to the opposite side; sides then meet in the corners.
    A quad whose corners would move more than ``max_shift`` of its short side stays."""
    n = len(corners)
    starts, _, old, _ = sides_outwards(corners)
    offsets, short, lengths = normals.offsets, normals.short, normals.lengths
    along = offsets[:, 0][:, None, None] + (offsets[:, 1] - offsets[:, 0])[:, None, None] * position  # (N, 4, S) pixels
    tolerance = np.maximum(_AGREE_PX, 0.01 * short)[:, None, None]
    agree = _consensus(_ALONG[None, None, :] * lengths[:, :, None], along, found, tolerance)
    origin, direction = fit_lines(normals.points + along[..., None] * normals.outwards[:, :, None, :], agree)
    usable = agree.mean(axis=2) >= _SUPPORT
    # Opposite sides of a card stay nearly parallel in the picture: a side is not turned away from its opposite.
    opposite = np.roll(np.where(usable[..., None], direction, old), 2, axis=1)
    skew_new = np.abs(direction[..., 0] * opposite[..., 1] - direction[..., 1] * opposite[..., 0])
    skew_old = np.abs(old[..., 0] * opposite[..., 1] - old[..., 1] * opposite[..., 0])
    usable &= skew_new <= np.maximum(np.sin(np.radians(parallel_deg)), skew_old)
    origin = np.where(usable[..., None], origin, starts)
    direction = np.where(usable[..., None], direction, old)
    moved = meet_lines(np.roll(origin, 1, axis=1), np.roll(direction, 1, axis=1), origin, direction)
    shift = np.abs(moved - corners).reshape(n, -1).max(axis=1)
    bad = ~np.isfinite(moved).reshape(n, -1).all(axis=1) | (shift > max_shift * short)
    moved[bad] = corners[bad]
    return moved.astype(np.float32)


def _outline_along(profile: NDArray[np.float32], reach: NDArray[np.float32]) -> tuple[NDArray, NDArray[np.bool_]]:
    """Where along each profile (..., K) the outline lies, in samples (a fraction between two),
    and whether it is clearly seen there; ``reach`` (K,) is each sample's offset as a share
    of the short side, outwards."""
    # The paper's level just inside each side (shade and glare vary over a card), the table's beyond.
    paper = profile[..., reach <= 0].max(axis=-1)  # (..., S)
    beyond = profile[..., reach >= _STAY_OUT]
    darkest = beyond.shape[-1] // 20  # the 5th percentile, about
    table = np.median(np.partition(beyond, darkest, axis=-1)[..., darkest], axis=-1)[..., None]  # (..., 1)
    stay = max(2, int(np.ceil(_STAY_OUT / (reach[1] - reach[0]))))
    low = profile < (paper - _PAPER_SHARE * (paper - table))[..., None]
    first, found = _first_run(low, stay)
    # A wide printed line, blurred, can stay down as long as the table: when paper comes back
    # after the first fall and a fall a little further out stays down to the band's end, that
    # later one is the outline (a neighbour beyond a gap brings paper back for good).
    paperlike = profile >= (paper - _MARGIN_SHARE * (paper - table))[..., None]
    paper_again = np.flip(np.logical_or.accumulate(np.flip(paperlike, -1), axis=-1), -1)
    last, lasting = _first_run(low & ~paper_again, stay)
    line = lasting & (last > first) & (reach[first] <= _BORDER) & (reach[last] - reach[first] <= _LINE_TO_OUTLINE)
    first = np.where(line, last, first)
    # The outline itself: the steepest fall near there, between two samples, refined by a parabola.
    fall = -np.diff(profile, axis=-1)  # fall[k]: from sample k to k + 1
    near = np.clip(first[..., None] + np.arange(-3, 2), 0, len(reach) - 2)
    falls = np.take_along_axis(fall, near, axis=-1)
    peak = np.argmax(falls[..., 1:-1], axis=-1) + 1
    left, mid, right = (np.take_along_axis(falls, (peak + k)[..., None], axis=-1)[..., 0] for k in (-1, 0, 1))
    curve = left - 2 * mid + right
    vertex = np.where(curve < -1e-3, 0.5 * (left - right) / np.where(curve < -1e-3, curve, -1.0), 0.0)
    position = np.take_along_axis(near, peak[..., None], axis=-1)[..., 0] + 0.5 + np.clip(vertex, -0.5, 0.5)
    # Too little contrast between paper and table to judge.
    found &= paper - table >= _MIN_CONTRAST
    # Further out than a printed border lies, the side moves out across paper, and the fall
    # is from paper (the last samples before it nearly as white as the paper inside), not
    # from a pale stripe of cloth.
    papery = np.cumsum(paperlike, axis=-1, dtype=np.int16)
    zero = int(np.searchsorted(reach, 0.0))
    across = np.take_along_axis(papery, np.maximum(first - 1, zero)[..., None], axis=-1)[..., 0] - papery[..., zero - 1]
    before = np.take_along_axis(profile, np.clip(first[..., None] - np.arange(1, 4), 0, None), axis=-1).max(axis=-1)
    far = reach[first] > _BORDER
    found &= ~far | ((line | (across >= 0.5 * (first - zero))) & (before >= paper - _MARGIN_SHARE * (paper - table)))
    return position, found


def _consensus(position: NDArray, offset: NDArray, found: NDArray[np.bool_], tolerance: NDArray) -> NDArray[np.bool_]:
    """The found points (..., S) on the line (offset against position along the side) that the most
    found points lie near, of the lines through pairs of points: RANSAC over a fixed set of pairs."""
    count = position.shape[-1]
    first, second = np.triu_indices(count, k=count // 2)
    p0, p1 = position[..., first], position[..., second]
    o0, o1 = offset[..., first], offset[..., second]
    slope = (o1 - o0) / np.maximum(p1 - p0, 1e-6)
    predicted = o0[..., None] + slope[..., None] * (position[..., None, :] - p0[..., None])  # (..., P, S)
    inliers = found[..., None, :] & (np.abs(offset[..., None, :] - predicted) <= tolerance[..., None])
    inliers &= (found[..., first] & found[..., second])[..., None]
    best = np.argmax(inliers.sum(axis=-1), axis=-1)
    return np.take_along_axis(inliers, best[..., None, None], axis=-2)[..., 0, :]


def _first_run(low: NDArray[np.bool_], stay: int) -> tuple[NDArray, NDArray[np.bool_]]:
    """Where along the last axis a run of at least ``stay`` lows, seen whole, first starts
    just after a high, and whether one does."""
    count = low.shape[-1]
    lows = np.concatenate([np.zeros_like(low[..., :1], np.int16), np.cumsum(low, axis=-1, dtype=np.int16)], axis=-1)
    run = np.zeros_like(low)
    run[..., : count - stay + 1] = lows[..., stay:] - lows[..., : count - stay + 1] == stay  # seen to stay down within the band
    run[..., 1:] &= ~low[..., :-1]
    run[..., 0] = False
    return np.argmax(run, axis=-1), run.any(axis=-1)


def _light_and_chroma(profiles_bgr: NDArray[np.uint8], inside: int) -> tuple[NDArray[np.float32], ...]:
    """Lightness, and chroma away from the card's own paper colour (a white card under a
    coloured light on a cloth of that colour still differs from it): (N, P, K) each from
    (N, P, K, 3), the paper's colour from the brighter half of each card's first ``inside``
    samples across its sides. Their paperness is lightness less ``CHROMA_WEIGHT`` times chroma.
    Also the samples' a and b (N, P, K, 2) and the paper's (N, 2)."""
    lab = cv2.cvtColor(profiles_bgr.reshape(len(profiles_bgr), -1, 3), cv2.COLOR_BGR2LAB).reshape(profiles_bgr.shape)
    lab = lab.astype(np.float32)
    inner = lab[:, :, :inside].reshape(len(lab), -1, 3)
    bright = (inner[..., 0] >= inner[..., 0].mean(axis=1, keepdims=True)).astype(np.float32)
    # (a matrix product: summing over the middle axis of (N, M, 2) is many times slower, and
    # sums of whole Lab values are exact in either order)
    paper_ab = (bright[:, None, :] @ inner[..., 1:])[:, 0] / np.maximum(bright.sum(axis=1), 1)[:, None]  # (N, 2)
    chroma = np.hypot(lab[..., 1] - paper_ab[:, None, None, 0], lab[..., 2] - paper_ab[:, None, None, 1])
    return lab[..., 0], chroma, lab[..., 1:], paper_ab


_PULL_DEPTH = 0.5  # a side may lie this share of the short side out past the card's outline
_PULL_STEPS = 26  # samples across that band
_PULL_DROP = 20.0  # paperness at the outline falls at least this much within three samples
_PULL_PARALLEL_DEG = 10.0  # the side it replaces may itself be turned this far
_SHADE_CHROMA, _SHADE_LIGHT = 6.0, (0.4, 0.85)  # paper in a shadow: its colour within this, this share of its light


def pull_in_outlines(frame_bgr: NDArray[np.uint8], quads_xy: NDArray[np.float32]) -> NDArray[np.float32]:
    """Each side lying out past the card's outline moved in onto it, where a straight line of
    outline points clearly lies there.

    A region can take in a pale stripe or square of cloth beside a card, or the card's
    corner can be pulled out over what touches it. Along 12 normals across each side, from
    ``_PULL_DEPTH`` of the short side inside up to the side, the outline is the outermost
    place where the paper's whiteness (as in :func:`reach_outlines`) falls sharply from the
    card's paper level and stays down to the side. Paper coming back after the fall (a
    printed line, a symbol) rules a place out, and so does a fall within ``_BORDER`` of the
    side, where a printed border lies. The sides then move as in :func:`reach_outlines`.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8, the full frame
    quads_xy : ndarray (N, 4, 2) float32, clockwise

    Returns
    -------
    ndarray (N, 4, 2) float32, the same corners where no side moved
    """
    corners = np.asarray(quads_xy, np.float32).reshape(-1, 4, 2)
    n = len(corners)
    if n == 0:
        return corners
    reach = np.linspace(-_PULL_DEPTH, 0.0, _PULL_STEPS, dtype=np.float32)
    normals = _sample_normals(frame_bgr, corners, reach, _PULL_STEPS)
    profile = normals.profile
    every = profile.reshape(n, -1)[:, ::3]  # (a third of the samples tell the paper's level as well)
    paper = np.partition(every, int(0.8 * every.shape[1]), axis=1)[:, int(0.8 * every.shape[1]), None, None, None]
    # The outermost paper sample (clear of a printed border) after which the profile falls
    # sharply and stays down to the side: a printed line or a symbol lets paper come back.
    pad = np.concatenate([profile, np.repeat(profile[..., -1:], 3, axis=-1)], axis=-1)
    low = np.minimum(np.minimum(pad[..., 1:-2], pad[..., 2:-1]), pad[..., 3:])  # the lowest of the next three samples
    stays = np.flip(np.maximum.accumulate(np.flip(pad[..., 2:-1], -1), axis=-1), -1)  # the highest from two samples on
    # (a pale stripe stays within a drop of its own level: a table's pattern may wander a little)
    # Paper in a shadow keeps its colour, or keeps of the light's cast as much as of its light
    # (lit by the room more than by a warm lamp; as ``vision.paper.lab_whiteness_in_shade``
    # takes it): a fall into it is a shadow's edge, not the outline.
    count = np.arange(_PULL_STEPS, 0, -1) - 3  # samples from three on to the side
    beyond_light, beyond_chroma, beyond_a, beyond_b = (
        (np.flip(np.cumsum(np.flip(v, -1), -1), -1)[..., 3:] / count[:-3])
        for v in (normals.light, normals.chroma, normals.ab[..., 0], normals.ab[..., 1]))
    ratio = beyond_light / np.maximum(normals.light[..., :-3], 1.0)
    cast = (normals.paper_ab - 128.0)[:, None, None, None, :]
    off_cast = np.hypot(beyond_a - 128.0 - cast[..., 0] * ratio, beyond_b - 128.0 - cast[..., 1] * ratio)
    shade = (np.minimum(beyond_chroma, off_cast) < _SHADE_CHROMA) & (ratio > _SHADE_LIGHT[0]) & (ratio < _SHADE_LIGHT[1])
    shaded = np.concatenate([shade, np.zeros(profile.shape[:-1] + (3,), bool)], axis=-1)
    falls = ((profile >= paper - _PULL_DROP) & (profile - low >= _PULL_DROP)
             & (stays <= np.minimum(profile - _PULL_DROP / 2, low + _PULL_DROP)) & ~shaded & (reach < -_BORDER))
    last = _PULL_STEPS - 1 - np.argmax(np.flip(falls, -1), axis=-1)  # (N, 4, S)
    level = np.take_along_axis(profile, last[..., None], axis=-1)[..., 0]
    after = np.take_along_axis(low, last[..., None], axis=-1)[..., 0]
    # Between samples: where the profile crosses halfway down.
    below = np.take_along_axis(profile, np.minimum(last + 1, _PULL_STEPS - 1)[..., None], axis=-1)[..., 0]
    half = level - 0.5 * (level - after)
    position = np.where(below <= half, last + np.clip((level - half) / np.maximum(level - below, 1e-3), 0, 1),
                        last + 1 + np.clip((below - half) / np.maximum(below - after, 1e-3), 0, 1))
    return _move_sides(corners, normals, position, falls.any(axis=-1), _PULL_PARALLEL_DEG, 1.0)
