"""Synthetic table videos with a known timeline, for ``referee live`` tests and the benchmark.

Off-white cards with big solid circles and squares on a plain table, laid one by
one (each slides in for a moment, then lies still), a skin-coloured "hand" passing
over a row, a card nudged by a few pixels, the table cleared between rounds, the
camera's exposure or white balance drifting or jumping. The script is in seconds and table units (a 640x360 frame); ``scale`` sizes it up
(3 gives 1920x1080). This is a test instrument, not a photo-realistic renderer
(that is ``fixtures/``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.seats import Seat
from referee.cards import Colour, Criteria, Shape

__all__ = [
    "SynthCard", "Laying", "Hand", "Nudge", "Script", "BASE_WH", "SEATS", "CARDS", "POOL",
    "script_round", "render_frame", "write_video", "seats_yaml", "light_at",
]

BASE_WH = (640, 360)
CARD_WH = (62, 93)
STEP_X = 70
MOVE_S = 0.4  # a card slides this long before it lies still
TABLE_BGR = (70, 110, 40)
PAPER_BGR = (232, 240, 244)
SKIN_BGR = (120, 160, 215)
_SYMBOL_BGR = {
    Colour.BLACK: (25, 25, 25), Colour.RED: (35, 40, 210), Colour.BLUE: (170, 80, 20),
    Colour.GREEN: (60, 150, 30), Colour.YELLOW: (0, 205, 250),
}
# Each player sits at the edge a little beside their starting card (rows grow to their right).
SEATS = (Seat("Anna", (250.0, 360.0)), Seat("Ben", (390.0, 0.0)))
POOL = "pool"  # a Laying by this "player" is a card put face up elsewhere on the table (the pool, off the table)


@dataclass(frozen=True)
class SynthCard:
    """A card's symbols, drawn top to bottom."""

    symbols: tuple[tuple[Shape, Colour], ...]

    @property
    def criteria(self) -> Criteria:
        return Criteria.from_symbols(self.symbols)


def _card(*symbols: tuple[Shape, Colour]) -> SynthCard:
    return SynthCard(tuple(symbols))


C, Q = Shape.CIRCLE, Shape.SQUARE
K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN
# (1,1,1) (2,2,2) (1,1,3) alternate cleanly; the last two break rows on purpose.
CARDS = {
    "one": _card((C, K)),
    "two": _card((C, R), (Q, B)),
    "three": _card((Q, G), (Q, G), (Q, G)),
    "two_b": _card((Q, K), (C, G)),
    "three_b": _card((C, B), (C, B), (C, B)),
    "one_b": _card((Q, R)),
    "bad_two": _card((C, R), (C, B)),  # (2,1,2): 2 colours like a "two"
}


@dataclass(frozen=True)
class Laying:
    """A card laid by ``player`` at ``position``: it appears at ``t`` and lies still from ``t + MOVE_S``.

    ``xy`` puts it elsewhere than its row slot (table pixels): for cards that are in no row.
    """

    player: str
    position: int
    card: SynthCard
    t: float
    xy: tuple[float, float] | None = None

    @property
    def settle_t(self) -> float:
        return self.t + MOVE_S


@dataclass(frozen=True)
class Hand:
    """A hand passing over ``player``'s row from ``t0`` to ``t1`` (covering ``positions``)."""

    player: str
    positions: tuple[int, ...]
    t0: float
    t1: float


@dataclass(frozen=True)
class Nudge:
    """At ``t`` the card at (player, position) is shifted by ``dxy`` table pixels."""

    player: str
    position: int
    t: float
    dxy: tuple[float, float]


@dataclass(frozen=True)
class Script:
    """What happens on the table: layings, hands, nudges, when the table is cleared, and the light.

    ``light`` is the camera's exposure and white balance over time: (t, (b, g, r)) keyframes,
    levels added to every pixel, changing linearly between them and held before the first and
    after the last (a keyframe repeated a moment later makes a jump).
    """

    layings: tuple[Laying, ...]
    hands: tuple[Hand, ...] = ()
    nudges: tuple[Nudge, ...] = ()
    clear_t: tuple[float, ...] = ()  # every card laid before such a time is gone from it on
    duration: float = 6.0
    seats: tuple[Seat, ...] = field(default=SEATS)
    light: tuple[tuple[float, tuple[float, float, float]], ...] = ()


def place_xy(player: str, position: int) -> tuple[float, float]:
    """Centre of a row slot in table pixels: Anna at the bottom left to right, Ben at the top right to left
    (and the middle pool's cards side by side across the middle, left to right)."""
    if player == POOL:
        return 215.0 + 75.0 * position, 180.0
    if player == "Anna":
        return 110.0 + STEP_X * position, 300.0
    return 530.0 - STEP_X * position, 60.0


def script_round(start: float = 0.3, gap: float = 0.55, anna: Sequence[str] | None = None,
                 ben: Sequence[str] | None = None, hand: bool = True, nudge: bool = True) -> Script:
    """One round: Anna and Ben lay alternately; Anna's seventh card ends it.

    Anna's row is clean; Ben's breaks at his 4th card (``bad_two`` after a ``two``:
    2 colours and... see the criteria). A hand passes over Anna's first cards while
    she is on her 4th, and Ben's 2nd card is nudged.
    """
    anna = list(anna or ["one", "two", "three", "two_b", "three_b", "two", "three"])
    ben = list(ben or ["three_b", "two_b", "one_b", "bad_two", "three"])
    layings = []
    t = start
    for k in range(max(len(anna), len(ben))):
        if k < len(anna):
            layings.append(Laying("Anna", k, CARDS[anna[k]], round(t, 3)))
            t += gap
        if k < len(ben) and k < len(anna) - 1:
            layings.append(Laying("Ben", k, CARDS[ben[k]], round(t, 3)))
            t += gap
    hands = (Hand("Anna", (0, 1), 1.0 + start + 4 * gap, 1.0 + start + 4 * gap + 0.9),) if hand else ()
    nudges = (Nudge("Ben", 1, start + 6 * gap, (4.0, 3.0)),) if nudge else ()
    return Script(tuple(layings), hands, nudges, (), duration=t + 1.0)


def _corners(center_xy: tuple[float, float], scale: float) -> NDArray[np.float32]:
    w, h = CARD_WH
    cx, cy = center_xy
    return np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2], [cx + w / 2, cy + h / 2],
                     [cx - w / 2, cy + h / 2]], np.float32) * scale


def _draw_card(frame: NDArray[np.uint8], card: SynthCard, center_xy: tuple[float, float], scale: float) -> None:
    corners = _corners(center_xy, scale)
    cv2.fillConvexPoly(frame, np.round(corners).astype(np.int32), PAPER_BGR, cv2.LINE_AA)
    n = len(card.symbols)
    cx, cy = center_xy
    for k, (shape, colour) in enumerate(card.symbols):
        y = cy + (k - (n - 1) / 2) * 27
        r = 9.5
        bgr = _SYMBOL_BGR[colour]
        if shape is Shape.CIRCLE:
            cv2.circle(frame, (round(cx * scale), round(y * scale)), round(r * scale), bgr, -1, cv2.LINE_AA)
        else:
            s = r * 0.9
            pts = np.array([[cx - s, y - s], [cx + s, y - s], [cx + s, y + s], [cx - s, y + s]]) * scale
            cv2.fillConvexPoly(frame, np.round(pts).astype(np.int32), bgr, cv2.LINE_AA)


def _table(scale: float, seed: int) -> NDArray[np.uint8]:
    w, h = round(BASE_WH[0] * scale), round(BASE_WH[1] * scale)
    table = np.empty((h, w, 3), np.uint8)
    table[:] = TABLE_BGR
    return table


def _grain(shape: tuple[int, ...], seed: int) -> NDArray[np.int16]:
    """Fixed sensor grain: real frames are never flat, and the card finder relies on that."""
    return np.random.default_rng(seed).normal(0, 4, shape[:2] + (1,)).astype(np.int16)


def render_frame(script: Script, t: float, scale: float = 1.0, table_bgr: NDArray[np.uint8] | None = None,
                 grain: NDArray[np.int16] | None = None) -> NDArray[np.uint8]:
    """The table at time ``t`` (seconds), as a BGR image of ``BASE_WH * scale``."""
    frame = (_table(scale, 0) if table_bgr is None else table_bgr).copy()
    cleared = max((c for c in script.clear_t if c <= t), default=float("-inf"))
    for lay in script.layings:
        if not (cleared < lay.t <= t):
            continue
        x, y = lay.xy or place_xy(lay.player, lay.position)
        if t < lay.settle_t and lay.player != POOL:  # sliding in from the player's side
            toward = 1.0 if lay.player == "Anna" else -1.0
            y += toward * 40.0 * (1.0 - (t - lay.t) / MOVE_S)
        for nudge in script.nudges:
            if nudge.player == lay.player and nudge.position == lay.position and lay.t < nudge.t <= t:
                x, y = x + nudge.dxy[0], y + nudge.dxy[1]
        _draw_card(frame, lay.card, (x, y), scale)
    for hand in script.hands:
        if hand.t0 <= t < hand.t1:
            xs = [place_xy(hand.player, p)[0] for p in hand.positions]
            _, y = place_xy(hand.player, hand.positions[0])
            centre = (round((sum(xs) / len(xs)) * scale), round(y * scale))
            axes = (round((abs(xs[-1] - xs[0]) / 2 + 45) * scale), round(60 * scale))
            cv2.ellipse(frame, centre, axes, 10, 0, 360, SKIN_BGR, -1, cv2.LINE_AA)
            cv2.ellipse(frame, (centre[0], round(centre[1] + 70 * scale)), (round(30 * scale), round(60 * scale)),
                        0, 0, 360, SKIN_BGR, -1, cv2.LINE_AA)
    grain = _grain(frame.shape, 0) if grain is None else grain
    return np.clip(frame + grain + light_at(script, t), 0, 255).astype(np.uint8)


def light_at(script: Script, t: float) -> NDArray[np.int16]:
    """The levels (3,) added to every pixel's B, G, R at ``t`` by the script's change of light."""
    if not script.light:
        return np.zeros(3, np.int16)
    times = [key_t for key_t, _ in script.light]
    levels = np.array([bgr for _, bgr in script.light], np.float64)
    return np.round([np.interp(t, times, levels[:, c]) for c in range(3)]).astype(np.int16)


def frames_of(script: Script, fps: float, scale: float = 1.0) -> Iterator[NDArray[np.uint8]]:
    """Every frame of the script at ``fps``."""
    table = _table(scale, 0)
    grain = _grain(table.shape, 0)
    for index in range(int(round(script.duration * fps))):
        yield render_frame(script, index / fps, scale, table, grain)


def write_video(script: Script, path: Path, fps: float = 15.0, scale: float = 1.0) -> Path:
    """Write the script as a video (MJPG in .avi, mp4v in .mp4); returns ``path``."""
    size = (round(BASE_WH[0] * scale), round(BASE_WH[1] * scale))
    fourcc = cv2.VideoWriter_fourcc(*("mp4v" if path.suffix == ".mp4" else "MJPG"))
    writer = cv2.VideoWriter(str(path), fourcc, fps, size)
    if not writer.isOpened():
        raise OSError(f"{path}: cannot open a video writer")
    try:
        for frame in frames_of(script, fps, scale):
            writer.write(frame)
    finally:
        writer.release()
    return path


def seats_yaml(scale: float = 1.0, seats: Sequence[Seat] = SEATS) -> str:
    """A calibration file's text for these seats at this scale."""
    lines = ["seats:"]
    for seat in seats:
        x, y = seat.position_xy
        lines.append(f"  - name: {seat.name}\n    position: [{x * scale:g}, {y * scale:g}]")
    return "\n".join(lines) + "\n"
