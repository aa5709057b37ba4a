"""Whether the gap between two pieces of a row shows the bare table, or hides a card.

A row's card under a hand, or one the finder missed, leaves a gap about a card wide
between the row's pieces; so does the room between two neighbours' rows on one edge.
What lies in the gap tells them apart: the bare table looks like the table just inside
the row, a hand, a sleeve or a card does not. A hand over the row often reaches in over
that table too, so a gap's pixel counts as table only when it is alike to a fair share of
the table's pixels, not to a few fingertips among them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["TableLook", "table_look", "table_share", "table_shown", "paper_share", "lab_pixels", "alike", "card_middles", "COMMON"]

_WORK_WIDTH = 640  # the gaps are judged on a small copy of the frame
_ALIKE = 8.0  # Lab distance within which a gap's pixel matches a pixel of the bare table
_SAMPLES = 400  # pixels of the gap compared, at most
_TABLE_SAMPLES = 1000  # pixels of the table compared, at most
COMMON = 0.05  # a gap's pixel is table when alike to at least this share of the table's pixels
_PAPER_COMMON = 0.3  # ... and paper when alike to this share of the pixels of cards' middles (symbols are a fifth of them)
_MIDDLE = 0.7  # a card's middle: its quad shrunk about its centre, clear of its outline and the table


@dataclass(frozen=True)
class TableLook:
    """A frame's small blurred copy and its scale from frame pixels. Only the few hundred
    pixels a gap is judged by are converted to Lab (``_pixels``): the whole copy's
    conversion cost more than all the rest of the judging."""

    blurred_bgr: NDArray[np.uint8]  # (h, w, 3)
    scale: float

    def __post_init__(self) -> None:
        if self.blurred_bgr.ndim != 3 or self.blurred_bgr.shape[2] != 3:
            raise ValueError(f"blurred_bgr must be (h, w, 3), got shape {self.blurred_bgr.shape}")


def table_look(frame_bgr: NDArray[np.uint8]) -> TableLook:
    """The frame ready for ``table_share``: a small copy, blurred over noise and JPEG blocks.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    """
    scale = min(1.0, _WORK_WIDTH / frame_bgr.shape[1])
    small = cv2.resize(frame_bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return TableLook(cv2.GaussianBlur(small, (0, 0), 1.0), scale)


def _in_look(look: TableLook, polygons_xy: Sequence[NDArray[np.float64]]) -> list[NDArray[np.int32]]:
    """Polygons (N, 2) in frame pixels as whole pixels of the look's copy, rounded all at once."""
    points = np.round(np.concatenate(polygons_xy) * look.scale).astype(np.int32)
    return np.split(points, np.cumsum([len(polygon) for polygon in polygons_xy])[:-1])


def lab_pixels(look: TableLook, polygons_xy: Sequence[NDArray[np.float64]], samples: int,
               exclude_xy: Sequence[NDArray[np.float64]] = ()) -> NDArray[np.float32]:
    """Lab (N, 3) of about ``samples`` of the look's pixels inside the polygons (frame pixels,
    (K, 2) each), those inside ``exclude_xy`` left out; empty when none is inside."""
    # Only the polygons' bounding box is masked (in row-major order, as over the whole frame).
    polygons = _in_look(look, polygons_xy)
    points = np.concatenate(polygons)
    height, width = look.blurred_bgr.shape[:2]
    (x0, y0), (x1, y1) = points.min(axis=0).tolist(), (points.max(axis=0) + 1).tolist()
    x0, x1, y0, y1 = max(0, min(x0, width)), max(0, min(x1, width)), max(0, min(y0, height)), max(0, min(y1, height))
    if x1 <= x0 or y1 <= y0:
        return np.empty((0, 3), np.float32)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, polygons, 255, offset=(-x0, -y0))
    if len(exclude_xy):
        cv2.fillPoly(mask, _in_look(look, exclude_xy), 0, offset=(-x0, -y0))
    # Only the pixels sampled are gathered: every so many of the masked ones, in row-major order.
    inside = np.flatnonzero(mask)
    if len(inside) == 0:
        return np.empty((0, 3), np.float32)
    rows, cols = np.divmod(inside[:: max(1, len(inside) // samples)], x1 - x0)
    pixels = look.blurred_bgr[rows + y0, cols + x0]
    # (Lab per pixel: the same values as converting the whole copy)
    return cv2.cvtColor(pixels.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)


def table_share(look: TableLook, gap_xy: NDArray[np.float64], table_xy: list[NDArray[np.float64]],
                exclude_xy: Sequence[NDArray[np.float64]] = (), samples: tuple[int, int] = (_SAMPLES, _TABLE_SAMPLES)
                ) -> float | None:
    """The share of a gap's pixels that look like the bare table beside it: each alike to at
    least ``COMMON`` of the table's pixels.

    Parameters
    ----------
    look : the frame, from ``table_look``
    gap_xy : (4, 2) the gap, in frame pixels
    table_xy : polygons (4, 2) of bare table to compare with, in frame pixels
    exclude_xy : polygons (N, 2) whose pixels are left out of both (cards seen there), in frame pixels
    samples : how many of the gap's and of the table's pixels are compared, at most (about)

    Returns
    -------
    share : 0 (nothing like the table) to 1, or None when either side is too small to tell
    """
    return _alike_share(*_gap_and_table(look, gap_xy, table_xy, exclude_xy, samples), COMMON)


def table_shown(look: TableLook, gap_xy: NDArray[np.float64], table_xy: list[NDArray[np.float64]],
                exclude_xy: Sequence[NDArray[np.float64]] = (), samples: tuple[int, int] = (_SAMPLES, _TABLE_SAMPLES)
                ) -> float | None:
    """The share of the bare table's pixels beside a gap that the gap shows too: each alike to
    at least ``COMMON`` of the gap's pixels (``table_share`` the other way round). The bare
    table in a gap shows all the table's colours (a wood's light and dark grain, a cloth's
    pattern); a hand of the table's colour over it shows few of them. None when either side
    is too small to tell."""
    gap, table = _gap_and_table(look, gap_xy, table_xy, exclude_xy, samples)
    return _alike_share(table, gap, COMMON)


def _gap_and_table(look: TableLook, gap_xy: NDArray[np.float64], table_xy: list[NDArray[np.float64]],
                   exclude_xy: Sequence[NDArray[np.float64]], samples: tuple[int, int]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Lab of about ``samples`` of a gap's pixels and of the table's beside it, ``exclude_xy`` left out."""
    gap = lab_pixels(look, [gap_xy], samples[0], exclude_xy)
    table = lab_pixels(look, table_xy, samples[1], exclude_xy) if table_xy else np.empty((0, 3), np.float32)
    return gap, table


def paper_share(look: TableLook, gap_xy: NDArray[np.float64], cards_xy: Sequence[NDArray[np.float64]],
                exclude_xy: Sequence[NDArray[np.float64]] = (), samples: tuple[int, int] = (_SAMPLES, _TABLE_SAMPLES)
                ) -> float | None:
    """The share of a gap's pixels (``exclude_xy`` left out) that look like the paper of the
    cards ``cards_xy`` (a row's): each alike to at least ``_PAPER_COMMON`` of the pixels of
    their middles, where plain paper is most of what shows. A card lying there, mostly under
    a hand, shows its paper; a hand, a sleeve or the table do not. None when either side is
    too small to tell."""
    return _alike_share(lab_pixels(look, [gap_xy], samples[0], exclude_xy), lab_pixels(look, card_middles(cards_xy), samples[1]), _PAPER_COMMON)


def card_middles(cards_xy: Sequence[NDArray]) -> list[NDArray[np.float64]]:
    """Each card's middle (4, 2): its quad shrunk about its centre (``_MIDDLE``), clear of its outline and the table."""
    return [np.mean(quad, axis=0) + _MIDDLE * (np.asarray(quad, np.float64) - np.mean(quad, axis=0)) for quad in cards_xy]


def _alike_share(gap: NDArray[np.float32], reference: NDArray[np.float32], common: float) -> float | None:
    """The share of the ``gap`` pixels (Lab, (N, 3)) alike to at least ``common`` of the
    ``reference`` pixels (M, 3); None when either has fewer than ten."""
    if len(gap) < 10 or len(reference) < 10:
        return None
    return float(np.mean(alike(gap, reference, common)))


def alike(pixels: NDArray[np.float32], reference: NDArray[np.float32], common: float) -> NDArray[np.bool_]:
    """Whether each of the ``pixels`` (Lab, (N, 3)) is within ``_ALIKE`` of at least ``common``
    of the ``reference`` pixels (M, 3)."""
    # Alike pixels are alike once: Lab of 8-bit pixels is whole numbers (a blurred copy repeats many),
    # so each distinct value is compared once, and each distinct reference value weighs its count.
    g, inverse = np.unique(_packed(pixels), return_inverse=True)
    t, counts = np.unique(_packed(reference), return_counts=True)
    g, t = _unpacked(g), _unpacked(t)
    # Squared distances of every pair as |g|^2 + |t|^2 - 2 g.t: one matrix product, not a (gaps, table, 3) array.
    # (every term is a whole number below 2^24, exact in float32)
    squared = (g * g).sum(axis=1)[:, None] + (t * t).sum(axis=1)[None, :] - 2.0 * (g @ t.T)
    share = (squared < _ALIKE**2).astype(np.float64) @ counts / len(reference)
    return (share >= common)[inverse.reshape(-1)]


def _packed(lab: NDArray[np.float32]) -> NDArray[np.int32]:
    """Each Lab pixel (whole numbers 0-255) as one whole number."""
    whole = lab.astype(np.int32)
    return (whole[:, 0] << 16) | (whole[:, 1] << 8) | whole[:, 2]


def _unpacked(packed: NDArray[np.int32]) -> NDArray[np.float32]:
    return np.stack([packed >> 16, (packed >> 8) & 255, packed & 255], axis=1).astype(np.float32)
