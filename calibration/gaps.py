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

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["TableLook", "table_look", "table_share"]

_WORK_WIDTH = 640  # the gaps are judged on a small copy of the frame
_ALIKE = 8.0  # Lab distance within which a gap's pixel matches a pixel of the bare table
_SAMPLES = 400  # pixels of the gap compared, at most
_TABLE_SAMPLES = 1000  # pixels of the table compared, at most
_COMMON = 0.05  # a gap's pixel is table when alike to at least this share of the table's pixels


@dataclass(frozen=True)
class TableLook:
    """A frame's small blurred Lab copy and its scale from frame pixels."""

    lab: NDArray[np.float32]  # (h, w, 3)
    scale: float

    def __post_init__(self) -> None:
        if self.lab.ndim != 3 or self.lab.shape[2] != 3:
            raise ValueError(f"lab must be (h, w, 3), got shape {self.lab.shape}")


def table_look(frame_bgr: NDArray[np.uint8]) -> TableLook:
    """The frame ready for ``table_share``: a small Lab copy, blurred over noise and JPEG blocks.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    """
    scale = min(1.0, _WORK_WIDTH / frame_bgr.shape[1])
    small = cv2.resize(frame_bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), 1.0), cv2.COLOR_BGR2LAB).astype(np.float32)
    return TableLook(lab, scale)


def _pixels(look: TableLook, polygons_xy: list[NDArray[np.float64]], samples: int) -> NDArray[np.float32]:
    mask = np.zeros(look.lab.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(polygon_xy * look.scale).astype(np.int32) for polygon_xy in polygons_xy], 255)
    pixels = look.lab[mask > 0]
    return pixels[:: max(1, len(pixels) // samples)]


def table_share(look: TableLook, gap_xy: NDArray[np.float64], table_xy: list[NDArray[np.float64]]) -> float | None:
    """The share of a gap's pixels that look like the bare table beside it: each alike to at
    least ``_COMMON`` of the table's pixels.

    Parameters
    ----------
    look : the frame, from ``table_look``
    gap_xy : (4, 2) the gap, in frame pixels
    table_xy : polygons (4, 2) of bare table to compare with, in frame pixels

    Returns
    -------
    share : 0 (nothing like the table) to 1, or None when either side is too small to tell
    """
    gap = _pixels(look, [gap_xy], _SAMPLES)
    table = _pixels(look, table_xy, _TABLE_SAMPLES) if table_xy else np.empty((0, 3), np.float32)
    if len(gap) < 10 or len(table) < 10:
        return None
    alike = np.sqrt(((gap[:, None, :] - table[None, :, :]) ** 2).sum(axis=2)) < _ALIKE
    return float(np.mean(alike.mean(axis=1) >= _COMMON))
