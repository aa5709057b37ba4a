"""Tiny synthetic cards for the card reader's tests, drawn with OpenCV with a known answer."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import pytest

# The spec's nominal print colours (table-conditions.md), as BGR.
SPEC_BGR = {
    "black": (0x1E, 0x1E, 0x1E),
    "red": (0x1E, 0x2B, 0xD5),
    "yellow": (0x00, 0xD4, 0xFF),
    "blue": (0xA6, 0x5A, 0x1F),
    "green": (0x47, 0x9A, 0x2D),
}
_SUPER = 4  # draw at 4x and area-average down: anti-aliased edges like a camera's


@dataclass(frozen=True)
class Sym:
    """One symbol to draw: centre (x, y) and size as fractions of the card's short side."""

    shape: str
    colour: str
    x: float
    y: float
    size: float
    angle: float = 0.0
    elongation: float = 3.0


def _outline(sym: Sym, short_px: float) -> np.ndarray | None:
    """Polygon (N, 2) in pixels, or None for a circle."""
    size = sym.size * short_px
    if sym.shape == "circle":
        return None
    if sym.shape == "square":
        h = size / (2 * math.sqrt(2))
        pts = [(-h, -h), (h, -h), (h, h), (-h, h)]
    elif sym.shape == "triangle":
        r = size / math.sqrt(3)
        pts = [(r * math.sin(math.radians(a)), -r * math.cos(math.radians(a))) for a in (0, 120, 240)]
    elif sym.shape == "star":
        r = size / (2 * math.sin(math.radians(72)))
        pts = [((r if k % 2 == 0 else 0.382 * r) * math.sin(math.radians(36 * k)),
                -(r if k % 2 == 0 else 0.382 * r) * math.cos(math.radians(36 * k))) for k in range(10)]
    elif sym.shape == "bar":
        length = size / math.sqrt(1 + 1 / sym.elongation**2)
        width = length / sym.elongation
        pts = [(-length / 2, -width / 2), (length / 2, -width / 2), (length / 2, width / 2), (-length / 2, width / 2)]
    else:
        raise ValueError(f"unknown shape {sym.shape!r}")
    a = math.radians(sym.angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return np.array(pts) @ rot.T


def draw_card(symbols: list[Sym], short_px: int = 80, aspect: float = 1.45, paper=(238, 243, 246),
              border: tuple[int, int, int] | None = None, corner_radius: float = 0.0,
              table=(40, 70, 110), table_px: int = 0) -> np.ndarray:
    """A face-up card (H, W, 3) uint8, portrait, with optional border line, rounded corners
    showing the table, and ``table_px`` pixels of table around it (an imperfect quad)."""
    w, h = short_px, int(round(short_px * aspect))
    big = np.empty((h * _SUPER, w * _SUPER, 3), np.uint8)
    big[:] = table
    s = short_px * _SUPER
    card = np.zeros(big.shape[:2], np.uint8)
    r = int(corner_radius * s)
    cv2.rectangle(card, (r, 0), (big.shape[1] - 1 - r, big.shape[0] - 1), 255, -1)
    cv2.rectangle(card, (0, r), (big.shape[1] - 1, big.shape[0] - 1 - r), 255, -1)
    for cx, cy in ((r, r), (big.shape[1] - 1 - r, r), (r, big.shape[0] - 1 - r), (big.shape[1] - 1 - r, big.shape[0] - 1 - r)):
        cv2.circle(card, (cx, cy), r, 255, -1)
    big[card > 0] = paper
    if border is not None:
        inset = int(0.035 * s)
        cv2.rectangle(big, (inset, inset), (big.shape[1] - 1 - inset, big.shape[0] - 1 - inset), border,
                      max(1, int(0.008 * s)))
    for sym in symbols:
        center = np.array([sym.x * s, sym.y * s])
        pts = _outline(sym, s)
        colour = SPEC_BGR[sym.colour]
        if pts is None:
            cv2.circle(big, tuple(int(v) for v in center), int(sym.size * s / 2), colour, -1, cv2.LINE_AA)
        else:
            cv2.fillPoly(big, [np.round(pts + center).astype(np.int32)], colour, cv2.LINE_AA)
    image = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    if table_px:
        image = cv2.copyMakeBorder(image, table_px, table_px, table_px, table_px, cv2.BORDER_CONSTANT, value=table)
    return image


def light(image: np.ndarray, cast=(1.0, 1.0, 1.0), gradient: float = 0.0, shadow: tuple[float, float] | None = None,
          glare: tuple[float, float, float] | None = None, noise: float = 0.0, blur: float = 0.0,
          seed: int = 0) -> np.ndarray:
    """Photograph a card: a colour cast (B, G, R gains), a left-to-right brightness fall-off,
    a soft shadow (from x fraction, darkening), a glare spot (x, y, radius as fractions),
    Gaussian blur and sensor noise."""
    h, w = image.shape[:2]
    out = image.astype(np.float32) * np.float32(cast)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if gradient:
        out *= (1.0 - gradient * xx / w)[..., None]
    if shadow is not None:
        start, depth = shadow
        edge = 1.0 / (1.0 + np.exp(-(xx - start * w) / (0.04 * w)))
        out *= (1.0 - depth * edge)[..., None]
    if glare is not None:
        gx, gy, gr = glare
        spot = np.exp(-((xx - gx * w) ** 2 + (yy - gy * h) ** 2) / (2 * (gr * w) ** 2))
        out += 255.0 * 1.2 * spot[..., None]
    if blur:
        out = cv2.GaussianBlur(out, (0, 0), blur)
    if noise:
        out += np.random.default_rng(seed).normal(0.0, noise, out.shape).astype(np.float32)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


# A 2700 K lamp seen by a camera whose white balance left most of the cast (B, G, R gains).
WARM = (0.45, 0.72, 1.0)


@pytest.fixture
def card_art():
    """The drawing helpers: ``card_art.draw``, ``card_art.light``, ``card_art.Sym``, ``card_art.WARM``."""

    class Art:
        draw = staticmethod(draw_card)
        light = staticmethod(light)
        Sym = globals()["Sym"]
        WARM = globals()["WARM"]
        SPEC_BGR = globals()["SPEC_BGR"]

    return Art
