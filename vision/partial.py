"""A row's card lying partly under a hand, an arm or a mug: its paper seen beside the cover.

A card hidden by a quarter to two thirds is no card-shaped region for the finder, but a person
sees it: paper of the row's tint running on from the table to the cover's edge, where the row's
next card would lie. ``partly_hidden`` looks for such a card at a place of a row (just beyond
its end, or in a gap): a card of the place's size, shifted and turned a little from it (``_ALONG``,
``_ACROSS``, ``_TURNS``), lying over no card seen (``_OVER_SEEN``), that holds the paper seen
there (``PAPER_IN``), shows no table (``_TABLE_IN``: what is not paper lies under the cover, or
is printed on the card) and leaves no paper just outside its sides (``_RING_PAPER``). Of the
cards tried, the one with the most paper in and the least table in and paper round it. Judged
on every other pixel of the frame's small blurred copy (``calibration.gaps.TableLook``): paper
is what has some of the lightness of the row's cards' paper (a hand's shadow darkens it) and
their tint, its cast from the light taken in proportion to that lightness (paper in a hand's
shadow is lit by the room more than by a warm lamp), table what is like the table beside the row.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.gaps import COMMON, TableLook, alike, card_middles, lab_pixels
from vision.quads import CardQuad

__all__ = ["partly_hidden", "lone_partly_hidden", "PAPER_IN"]

_ALONG = np.linspace(-0.4, 0.6, 6)  # shifts along the row tried, in short sides (further: a wider gap)
_ACROSS = np.linspace(-0.3, 0.3, 5)  # and across it
_TURNS = np.radians([-10.0, -5.0, 0.0, 5.0, 10.0])  # and turns (a row's cards lie within 10 degrees)
_FINER = 2  # then twice about the best, at half the steps each time
_FINER_CHANGE = 0.5  # share of a card the finer steps may change, with a margin (see ``partly_hidden``)
_OVER_SEEN = 0.1  # a card lies over no card seen by more than this share of itself
_RING = 0.15  # the ring just outside a card's sides, in short sides
_RIM = 2  # pixels of the small copy just outside a card seen that are its own paper
_PAPER_TINT = 8.0  # (a, b) distance (Lab, 0-255) to the row's paper's tint at its lightness within which a pixel is paper
_PAPER_DARKEST = 0.4  # where its lightness is at least this share of the paper's
_SAMPLES = 200  # pixels of the table beside the row and of the row's paper compared, at most (about)
# On two hard dev sets, the cards added at rows' places that lay on true row cards showed 0.21 to
# 0.84 of paper (visible 0.3 to 0.85 of them); of those on none, most lay over a card seen beside
# the true one (hence _OVER_SEEN), the rest on pale checked cloth or a point card under a mug.
PAPER_IN = 0.2  # a card holds at least this share of paper (and its reading asks no more: ``vision.pipeline``)
_TABLE_IN = 0.1  # shows at most this share of table
_RING_PAPER = 0.2  # and leaves at most this share of paper just outside its sides
# Before a seat with no row, where its player's lone card may lie partly hidden: the places tried
# about the depth the rows found lie at from their seats (in long sides, in from the seat) and
# along the table's edge (in short sides; each place is searched half a card either way, ``_ALONG``),
# square to the edge; at the best of them also turned so (each searched 10 degrees either way).
# The bare table is compared with this many short sides to either side along the edge.
_LONE_DEPTHS = (-0.3, 0.0, 0.3)
_LONE_ALONG = (-0.3, 0.3)
_LONE_TURNS = np.radians([-15.0, 15.0])
_LONE_BESIDE = 1.6


@dataclass(frozen=True)
class _Place:
    """A place's frame of reference in the small copy: its middle, its axes, its sides."""

    middle: NDArray[np.float64]
    along: NDArray[np.float64]  # unit vector along the place's short side (along the row)
    across: NDArray[np.float64]
    short: float
    long: float

    def corners(self, turn: float, shift_along: float, shift_across: float) -> NDArray[np.float64]:
        """The corners (4, 2) of the card turned and shifted (in short sides) from the place, clockwise."""
        a, b = self.axes(turn)
        middle = self.middle + (shift_along * self.along + shift_across * self.across) * self.short
        signs = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)
        return middle + signs[:, :1] * a * self.short / 2 + signs[:, 1:] * b * self.long / 2

    def axes(self, turn: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        a = np.cos(turn) * self.along + np.sin(turn) * self.across
        return a, np.array([-a[1], a[0]])


def partly_hidden(look: TableLook, place_xy: NDArray, row_xy: Sequence[NDArray], table_xy: Sequence[NDArray],
                  seen_xy: Sequence[NDArray]) -> CardQuad | None:
    """The card lying partly hidden about ``place_xy``, or None.

    Parameters
    ----------
    look : the frame's small blurred copy
    place_xy : (4, 2) where the card would lie, a card's size, in frame pixels, clockwise, first
        edge a short side (along the row)
    row_xy : the row's cards (4, 2 each): the middles of their quads show the paper's colour
    table_xy : polygons (4, 2) of the bare table beside the row
    seen_xy : every card seen (4, 2 each): the card found lies over none of them

    Returns
    -------
    the card's quad in frame pixels, its ``fill`` the share of it showing paper; or None
    """
    return _found_at(look, place_xy, _paper_lab(look, row_xy), table_xy, seen_xy)


def _found_at(look: TableLook, place_xy: NDArray, paper_lab: NDArray[np.float32], table_xy: Sequence[NDArray],
              seen_xy: Sequence[NDArray]) -> CardQuad | None:
    """``partly_hidden``, the paper's colour sampled already (``_paper_lab``)."""
    place = _place(np.asarray(place_xy, np.float64) * look.scale)
    if place is None:
        return None
    height, width = look.blurred_bgr.shape[:2]
    reach = 0.5 * np.hypot(place.short, place.long) + (0.6 + _RING) * place.short
    x0, y0 = np.maximum(np.floor(place.middle - reach), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(place.middle + reach) + 1, [width, height]).astype(int)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    # (every other pixel: the copy is blurred, and a card spans tens of its pixels)
    if len(paper_lab) < 10:
        return None
    pixels = cv2.cvtColor(look.blurred_bgr[y0:y1:2, x0:x1:2], cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    seen = np.zeros((y1 - y0, x1 - x0), np.uint8)
    if len(seen_xy):  # (only the cards reaching into the box: a frame holds tens of them)
        quads = np.round(np.asarray(seen_xy, np.float64).reshape(-1, 4, 2) * look.scale - [x0, y0]).astype(np.int32)
        near = np.all(quads.max(axis=1) >= 0, axis=1) & np.all(quads.min(axis=1) < [x1 - x0, y1 - y0], axis=1)
        cv2.fillPoly(seen, list(quads[near]), 1)
    free = seen[::2, ::2].reshape(-1) == 0
    reference = np.median(paper_lab, axis=0)
    # (the light's cast in proportion to lightness, as ``vision.paper.lab_whiteness_in_shade`` takes it)
    lightness = np.minimum(pixels[:, 0] / max(float(reference[0]), 1.0), 1.0)
    tint = 128.0 + (reference[1:] - 128.0) * lightness[:, None]
    paper = (np.linalg.norm(pixels[:, 1:] - tint, axis=1) < _PAPER_TINT) & (lightness >= _PAPER_DARKEST) & free
    least = PAPER_IN * place.short * place.long / 4  # (of every other pixel)
    if int(paper.sum()) < least:  # (most places: the bare table)
        return None
    table_lab = lab_pixels(look, table_xy, _SAMPLES, seen_xy)
    if len(table_lab) < 10:
        return None
    table = alike(pixels, table_lab, COMMON)  # (as ``calibration.gaps.table_share`` tells table)
    paper &= ~table
    # A table of the paper's tint leaves too little paper for a card once it is told apart, but
    # for the rims of the cards seen (their quads lie a pixel or so inside their outlines).
    beyond = cv2.dilate(seen, np.ones((2 * _RIM + 1, 2 * _RIM + 1), np.uint8))[::2, ::2].reshape(-1) == 0
    if int((paper & beyond).sum()) < least:
        return None
    columns = (x1 - x0 + 1) // 2
    ys, xs = np.divmod(np.arange(len(pixels)), columns)
    offsets = np.stack([2 * xs + x0 + 0.5, 2 * ys + y0 + 0.5], axis=1) - place.middle
    fit = _Fit(place, offsets, paper, table, free)
    steps = np.array([_ALONG[1] - _ALONG[0], _ACROSS[1] - _ACROSS[0], _TURNS[1] - _TURNS[0]])
    best = fit.best(_TURNS, _ALONG, _ACROSS)
    # (the finer steps move a card 0.15 of its short side along the row and 0.11 across it, and
    # turn it 4 degrees, at most: that changes a quarter of what it covers at most, so a card
    # mostly on table, most places' best, stays refused)
    hopeless = best is None or best[0][1] > _TABLE_IN + _FINER_CHANGE
    for _ in range(0 if hopeless else _FINER):
        steps /= 2
        _, turn, along, across = best
        around = np.array([-1.0, 0.0, 1.0])
        best = fit.best(turn + steps[2] * around, along + steps[0] * around, across + steps[1] * around)
    if best is None:
        return None
    shares, turn, along, across = best
    paper_in, table_in, ring_paper = shares
    if paper_in < PAPER_IN or table_in > _TABLE_IN or ring_paper > _RING_PAPER:
        return None
    return CardQuad((place.corners(turn, along, across) / look.scale).astype(np.float32), paper_in)


def lone_partly_hidden(look: TableLook, seat_xy: Sequence[float], toward_xy: Sequence[float], depth: float,
                       size_wh: Sequence[float], paper_xy: Sequence[NDArray], seen_xy: Sequence[NDArray]) -> CardQuad | None:
    """The lone card of a seated player with no row, lying partly hidden before their seat, or None.

    A player's first card lies in front of them; under their hand it is no card-shaped region, and no
    row's end tells where to look for it. It is looked for (``partly_hidden``) at places about
    ``depth`` pixels straight in from the seat ``seat_xy`` (``toward_xy``, a unit vector), a card of
    ``size_wh`` (short, long: as the cards in view show it there) with its short side about along
    the table's edge; the paper's colour is the cards' ``paper_xy`` (4, 2 each), the bare table's
    that to either side of the place along the edge. Of the cards found, the one showing the most
    paper.
    """
    toward = np.asarray(toward_xy, np.float64)
    across = np.array([-toward[1], toward[0]])
    short, long = (float(v) for v in size_wh)
    signs = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)
    paper_lab = _paper_lab(look, paper_xy)  # (the same for every place)

    def look_at(deeper: float, along: float, turn: float) -> CardQuad | None:
        middle = np.asarray(seat_xy, np.float64) + (depth + deeper * long) * toward + along * short * across
        turned = np.cos(turn) * across + np.sin(turn) * toward  # (the card's short side)
        place = middle + signs[:, :1] * turned * short / 2 + signs[:, 1:] * np.array([-turned[1], turned[0]]) * long / 2
        square = middle + signs[:, :1] * across * short / 2 + signs[:, 1:] * toward * long / 2
        return _found_at(look, place, paper_lab, [square + side * _LONE_BESIDE * short * across for side in (-1, 1)], seen_xy)

    # Square to the edge first; then turned, where that showed the most paper (none: at the rows' depth).
    found = [(quad, (deeper, along)) for deeper, along in itertools.product(_LONE_DEPTHS, _LONE_ALONG)
             if (quad := look_at(deeper, along, 0.0)) is not None]
    places = [max(found, key=lambda item: item[0].fill)[1]] if found else [(0.0, along) for along in _LONE_ALONG]
    found += [(quad, at) for at in places for turn in _LONE_TURNS if (quad := look_at(*at, turn)) is not None]
    return max((quad for quad, _ in found), key=lambda quad: quad.fill, default=None)


def _place(quad: NDArray[np.float64]) -> _Place | None:
    short_vec = (quad[1] - quad[0] + quad[2] - quad[3]) / 2
    long_vec = (quad[3] - quad[0] + quad[2] - quad[1]) / 2
    short, long = float(np.linalg.norm(short_vec)), float(np.linalg.norm(long_vec))
    if short < 4 or long < 4:
        return None
    along = short_vec / short
    return _Place(quad.mean(axis=0), along, np.array([-along[1], along[0]]), short, long)


@dataclass(frozen=True)
class _Fit:
    """Cards of a place's size, shifted and turned about it, measured against the paper and table seen."""

    place: _Place
    offsets: NDArray[np.float64]  # (N, 2) the pixels looked at, from the place's middle
    paper: NDArray[np.bool_]  # (N,) each pixel paper, table or on no card seen (``free``)
    table: NDArray[np.bool_]
    free: NDArray[np.bool_]

    def best(self, turns: NDArray, alongs: NDArray, acrosses: NDArray
             ) -> tuple[tuple[float, float, float], float, float, float] | None:
        """((paper in, table in, paper round), turn, along, across) of the best card tried, or None."""
        short, long = self.place.short, self.place.long
        least = 0.5 * short * long / 4  # (half a card's pixels, every other one looked at)
        along, across = (grid.reshape(-1) for grid in np.meshgrid(alongs, acrosses, indexing="ij"))
        shifts = (along[:, None] * self.place.along + across[:, None] * self.place.across) * short  # (C, 2)
        # Each card's counts as one product of its masks with the pixels' kinds (whole numbers, exact in float32):
        # all pixels, free ones, paper (free), table (free).
        kinds = np.stack([np.ones_like(self.free), self.free, self.paper, self.table & self.free], axis=1).astype(np.float32)
        best, best_score = None, -np.inf
        for turn in turns:  # (all shifts of one turn at once: (C, N) masks)
            a, b = self.place.axes(float(turn))
            # Only the pixels that may lie in a card's ring are measured (a hair more, for rounding).
            su, sv, u, v = shifts @ a, shifts @ b, self.offsets @ a, self.offsets @ b
            reach = np.array([np.ptp(su) + short, np.ptp(sv) + long]) / 2 + _RING * short + 1e-6
            near = (np.abs(u - (su.max() + su.min()) / 2) <= reach[0]) & (np.abs(v - (sv.max() + sv.min()) / 2) <= reach[1])
            x = np.abs(np.subtract.outer(su, u[near]))
            y = np.abs(np.subtract.outer(sv, v[near]))
            counted = kinds[near]
            inner = (x <= short / 2) & (y <= long / 2)
            within = (inner.astype(np.float32) @ counted).astype(np.float64)
            # (the ring just outside the card: the card and its ring, less the card)
            outer = (x <= short / 2 + _RING * short) & (y <= long / 2 + _RING * short)
            around = (outer.astype(np.float32) @ counted[:, 1:3]).astype(np.float64)
            n_in, n_ring = within[:, 1], around[:, 0] - within[:, 1]
            # (mostly off the frame, or lying over a card seen: not tried)
            tried = (n_in >= np.maximum(least, (1 - _OVER_SEEN) * within[:, 0])) & (n_ring >= 10)
            if not tried.any():
                continue
            paper_in = within[:, 2] / np.maximum(n_in, 1)
            table_in = within[:, 3] / np.maximum(n_in, 1)
            ring_paper = (around[:, 1] - within[:, 2]) / np.maximum(n_ring, 1)
            score = np.where(tried, paper_in - table_in - ring_paper, -np.inf)
            k = int(np.argmax(score))
            if score[k] > best_score:
                best_score = float(score[k])
                best = ((float(paper_in[k]), float(table_in[k]), float(ring_paper[k])), float(turn), float(along[k]), float(across[k]))
        return best


def _paper_lab(look: TableLook, cards_xy: Sequence[NDArray]) -> NDArray[np.float32]:
    """Lab of the lighter half of the pixels of the cards' middles: their paper, symbols left out."""
    lab = lab_pixels(look, card_middles(cards_xy), 2 * _SAMPLES)
    return lab[lab[:, 0] >= np.median(lab[:, 0])] if len(lab) else lab
