"""Seats: where each player sits, in image pixels, and the directions that follow from it."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

from calibration.areas import inward_from_edge

__all__ = ["Seat", "scaled_seat", "table_centre", "facing", "left_to_right", "players_way"]


@dataclass(frozen=True)
class Seat:
    """A player's name and where they sit, in image pixels (x right, y down).

    ``guessed`` marks a proposed seat where no row was seen (a person should check it);
    seats read from a file never are.
    """

    name: str
    position_xy: tuple[float, float]
    guessed: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a seat needs a name, got an empty one")
        if len(self.position_xy) != 2 or not all(math.isfinite(v) for v in self.position_xy):
            raise ValueError(f"a seat's position is [x, y], got {self.position_xy!r}")


def scaled_seat(seat: Seat, factor: float) -> Seat:
    """The seat of a frame scaled by ``factor`` (enlarged or shrunk)."""
    return Seat(seat.name, (seat.position_xy[0] * factor, seat.position_xy[1] * factor), seat.guessed)


def table_centre(seats: Sequence[Seat], image_size_wh: tuple[int, int]) -> tuple[float, float]:
    """The mean of the seat positions; the image centre when fewer than two seats."""
    if len(seats) < 2:
        return image_size_wh[0] / 2, image_size_wh[1] / 2
    return (
        sum(s.position_xy[0] for s in seats) / len(seats),
        sum(s.position_xy[1] for s in seats) / len(seats),
    )


def facing(position_xy: tuple[float, float], centre_xy: tuple[float, float]) -> tuple[float, float]:
    """The unit direction from a seat towards the table centre.

    >>> facing((0.0, 10.0), (0.0, 0.0))
    (0.0, -1.0)
    """
    dx, dy = centre_xy[0] - position_xy[0], centre_xy[1] - position_xy[1]
    norm = math.hypot(dx, dy) or 1.0
    return dx / norm, dy / norm


def left_to_right(facing_xy: tuple[float, float]) -> tuple[float, float]:
    """A player's left-to-right direction in image coordinates: r = (-f_y, f_x).

    A player at the bottom edge faces up and reads rows left to right on screen:

    >>> left_to_right((0.0, -1.0))
    (1.0, 0.0)
    """
    return -facing_xy[1], facing_xy[0]


def players_way(position_xy: tuple[float, float], centre_xy: tuple[float, float],
                top_xy: NDArray[np.float64] | None = None) -> tuple[float, float]:
    """A seated player's left to right (unit, image), the way their row runs: along the table top's
    edge at their seat (``top_xy``, when known), else square to the way to ``centre_xy`` (the
    seats' middle, ``table_centre``)."""
    return left_to_right(facing(position_xy, centre_xy) if top_xy is None else inward_from_edge(top_xy, position_xy))
