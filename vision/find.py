"""Finding card faces in a camera frame: bright paper quadrilaterals on a darker table."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["CardQuad", "find_cards", "paper_mask", "warp_card", "order_corners", "WORK_LONG_SIDE"]

WORK_LONG_SIDE = 960
_ASPECT_RANGE = (1.2, 1.8)  # a card's long:short side, with room for tilt and fitting error
_MIN_SHORT_SIDE_PX = 60  # at full resolution: the spec's 80 px, less tilt and blur


@dataclass(frozen=True)
class CardQuad:
    """A card-shaped paper region: corners clockwise on screen, first edge a short side.

    ``corners_xy`` is (4, 2) float32 in full-frame pixels; ``fill`` is the share of
    the quadrilateral covered by paper (low for a partly hidden card).
    """

    corners_xy: NDArray[np.float32]
    fill: float

    def __post_init__(self) -> None:
        if self.corners_xy.shape != (4, 2):
            raise ValueError(f"corners_xy must have shape (4, 2), got {self.corners_xy.shape}")

    @property
    def center_xy(self) -> tuple[float, float]:
        x, y = self.corners_xy.mean(axis=0)
        return float(x), float(y)

    @property
    def size_wh(self) -> tuple[float, float]:
        """Mean short side and mean long side, in pixels."""
        c = self.corners_xy
        sides = np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)
        return float((sides[0] + sides[2]) / 2), float((sides[1] + sides[3]) / 2)


def paper_mask(frame_bgr: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Where the frame shows card paper: bright and nearly grey for its neighbourhood.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8

    Returns
    -------
    mask : ndarray (H, W) uint8, 255 on paper
    """
    lab = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2LAB)
    light = lab[..., 0].astype(np.float32)
    a = lab[..., 1].astype(np.float32) - 128
    b = lab[..., 2].astype(np.float32) - 128
    bright = light > np.percentile(light, 90)
    # The cast of the light, taken from the brightest pixels (mostly paper), is not the paper's own chroma.
    a -= np.median(a[bright])
    b -= np.median(b[bright])
    white = light - 1.5 * np.sqrt(a * a + b * b)
    table, paper = _levels(white)
    # Paper is nearer the local paper level than the local table level; where both
    # levels are close there is no card nearby, only table.
    contrast = paper - table
    enough = contrast > max(20.0, 0.2 * float(paper.max()))
    mask = np.where(enough & (white > table + 0.5 * contrast), 255, 0).astype(np.uint8)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def _levels(white: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Smooth fields of the table's and the paper's brightness around each pixel."""
    h, w = white.shape
    cell = max(4, round(max(h, w) / 24))
    gh, gw = max(1, h // cell), max(1, w // cell)
    blocks = cv2.resize(white, (gw * 8, gh * 8), interpolation=cv2.INTER_AREA)
    blocks = blocks.reshape(gh, 8, gw, 8).transpose(0, 2, 1, 3).reshape(gh, gw, 64)
    low = np.percentile(blocks, 20, axis=2).astype(np.float32)
    high = np.percentile(blocks, 97, axis=2).astype(np.float32)
    kernel = np.ones((5, 5), np.uint8)
    table = cv2.erode(low, kernel, borderType=cv2.BORDER_REPLICATE)
    paper = cv2.dilate(high, kernel, borderType=cv2.BORDER_REPLICATE)
    table = cv2.resize(cv2.blur(table, (3, 3)), (w, h), interpolation=cv2.INTER_LINEAR)
    paper = cv2.resize(cv2.blur(paper, (3, 3)), (w, h), interpolation=cv2.INTER_LINEAR)
    return table, paper


def find_cards(frame_bgr: NDArray[np.uint8]) -> list[CardQuad]:
    """Every card-shaped paper region in the frame.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8

    Returns
    -------
    quads : list of CardQuad, in full-frame pixels; face-down cards and other
        objects are not filtered here (``read_card`` tells a face from anything else).
    """
    scale = min(1.0, WORK_LONG_SIDE / max(frame_bgr.shape[:2]))
    small = cv2.resize(frame_bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else frame_bgr
    mask = paper_mask(small)
    min_short = _MIN_SHORT_SIDE_PX * scale
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    quads = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < 1.2 * min_short * min_short:
            continue
        quad = _fit_quad(contour, mask)
        if quad is not None:
            quads.append(CardQuad(quad / scale, _fill(quad, mask)))
    return quads


def _fit_quad(contour: NDArray, mask: NDArray[np.uint8]) -> NDArray[np.float32] | None:
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.02, 0.03, 0.04, 0.06):
        poly = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(poly) == 4:
            break
    else:
        poly = cv2.boxPoints(cv2.minAreaRect(contour)).reshape(-1, 1, 2)
    corners = order_corners(poly.reshape(4, 2).astype(np.float32))
    short, long = _sides(corners)
    if short <= 0 or not _ASPECT_RANGE[0] <= long / short <= _ASPECT_RANGE[1]:
        return None
    return corners


def _sides(corners: NDArray[np.float32]) -> tuple[float, float]:
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    return float((sides[0] + sides[2]) / 2), float((sides[1] + sides[3]) / 2)


def _fill(corners: NDArray[np.float32], mask: NDArray[np.uint8]) -> float:
    x, y, w, h = cv2.boundingRect(corners.astype(np.int32))
    x0, y0 = max(x, 0), max(y, 0)
    roi = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(roi, (corners - (x, y)).astype(np.int32), 255)
    window = mask[y0 : y + h, x0 : x + w]
    roi = roi[y0 - y : y0 - y + window.shape[0], x0 - x : x0 - x + window.shape[1]]
    inside = np.count_nonzero(roi)
    return float(np.count_nonzero(window & roi) / inside) if inside else 0.0


def order_corners(corners_xy: NDArray[np.float32]) -> NDArray[np.float32]:
    """Corners clockwise on screen (y down), starting so that the first edge is a short side.

    Parameters
    ----------
    corners_xy : ndarray (4, 2) float32, in any order

    Returns
    -------
    ndarray (4, 2) float32
    """
    center = corners_xy.mean(axis=0)
    angles = np.arctan2(corners_xy[:, 1] - center[1], corners_xy[:, 0] - center[0])
    ordered = corners_xy[np.argsort(angles)]  # clockwise on screen, since y points down
    sides = np.linalg.norm(ordered - np.roll(ordered, -1, axis=0), axis=1)
    if sides[0] + sides[2] > sides[1] + sides[3]:
        ordered = np.roll(ordered, -1, axis=0)
    # Of the two short edges, start with the one nearer the top of the screen, for a stable order.
    if ordered[2:4, 1].mean() < ordered[0:2, 1].mean():
        ordered = np.roll(ordered, -2, axis=0)
    return ordered.astype(np.float32)


def warp_card(frame_bgr: NDArray[np.uint8], corners_xy: NDArray[np.float32], short_side: int = 120) -> NDArray[np.uint8]:
    """The card inside ``corners_xy`` as an upright portrait image.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    corners_xy : ndarray (4, 2) float32, clockwise, first edge a short side
    short_side : width of the output in pixels; the height keeps the card's aspect

    Returns
    -------
    card_bgr : ndarray (h, short_side, 3) uint8
    """
    short, long = _sides(corners_xy)
    width = short_side
    height = int(round(short_side * long / max(short, 1e-6)))
    target = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], np.float32)
    matrix = cv2.getPerspectiveTransform(corners_xy.astype(np.float32), target)
    return cv2.warpPerspective(frame_bgr, matrix, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
