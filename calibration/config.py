"""The calibration file: a table learned once, read and validated at the edge."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from calibration.seats import Seat

__all__ = ["Calibration", "CalibrationError", "load_calibration", "parse_calibration", "SCHEMA_VERSION"]

SCHEMA_VERSION = 1
_KEYS = {"version", "seats", "image"}


class CalibrationError(ValueError):
    """A calibration file is missing, malformed or does not fit the photos."""


@dataclass(frozen=True)
class Calibration:
    """What the referee knows about a table: the seats, and the image size they were set in."""

    seats: tuple[Seat, ...]
    image_size_wh: tuple[int, int] | None = None

    def check_fits(self, image_size_wh: tuple[int, int], where: str) -> None:
        """Refuse seats that lie outside an image of this size."""
        width, height = image_size_wh
        for seat in self.seats:
            x, y = seat.position_xy
            if not (0 <= x <= width and 0 <= y <= height):
                raise CalibrationError(
                    f"{where}: seat {seat.name!r} at [{x:g}, {y:g}] lies outside the {width}x{height} image"
                )


def load_calibration(path: Path) -> Calibration:
    """The calibration in ``path``; a file holding only ``seats:`` is enough."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CalibrationError(f"{path}: no such calibration file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CalibrationError(f"{path}: cannot read the calibration file ({error})") from None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise CalibrationError(f"{path}: malformed YAML{where}: {getattr(error, 'problem', None) or error}") from None
    return parse_calibration(doc, str(path))


def parse_calibration(doc: Any, where: str) -> Calibration:
    """A calibration from a parsed YAML document; ``where`` prefixes every message."""
    if not isinstance(doc, dict):
        raise CalibrationError(f"{where}: expected a mapping with 'seats:', got {type(doc).__name__}")
    unknown = sorted(set(map(str, doc)) - _KEYS)
    if unknown:
        raise CalibrationError(f"{where}: unknown key {unknown[0]!r} (expected some of {sorted(_KEYS)})")
    version = doc.get("version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise CalibrationError(
            f"{where}: version: this referee reads calibration version {SCHEMA_VERSION}, got {version!r}; "
            "run 'referee calibrate' again"
        )
    seats = _seats(doc.get("seats"), where)
    size = _image_size(doc.get("image"), where) if "image" in doc else None
    calibration = Calibration(seats, size)
    if size is not None:
        calibration.check_fits(size, where)
    return calibration


def _seats(value: Any, where: str) -> tuple[Seat, ...]:
    if not isinstance(value, list) or not value:
        raise CalibrationError(f"{where}: seats: expected a list of {{name, position: [x, y]}}, got {value!r}"[:200])
    seats: list[Seat] = []
    for number, entry in enumerate(value, start=1):
        label = f"{where}: seats[{number}]"
        if not isinstance(entry, dict):
            raise CalibrationError(f"{label}: expected {{name, position: [x, y]}}, got {entry!r}")
        extra = sorted(set(map(str, entry)) - {"name", "position"})
        if extra:
            raise CalibrationError(f"{label}: unknown key {extra[0]!r} (expected 'name' and 'position')")
        name = entry.get("name")
        if not isinstance(name, (str, int)) or not str(name).strip():
            raise CalibrationError(f"{label}: name: expected a player's name, got {name!r}")
        name = str(name).strip()
        position = entry.get("position")
        if (
            not isinstance(position, list) or len(position) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in position)
        ):
            raise CalibrationError(f"{label} ({name}): position: expected [x, y] in image pixels, got {position!r}")
        if min(position) < 0:
            raise CalibrationError(f"{label} ({name}): position: [x, y] must not be negative, got {position!r}")
        if any(seat.name == name for seat in seats):
            raise CalibrationError(f"{label}: name: {name!r} is used by two seats")
        seats.append(Seat(name, (float(position[0]), float(position[1]))))
    if len(seats) > 6:
        raise CalibrationError(f"{where}: seats: a table has 2 to 6 players, got {len(seats)}")
    return tuple(seats)


def _image_size(value: Any, where: str) -> tuple[int, int]:
    if (
        not isinstance(value, dict) or set(value) != {"width", "height"}
        or not all(isinstance(value[k], int) and value[k] > 0 for k in ("width", "height"))
    ):
        raise CalibrationError(f"{where}: image: expected {{width: W, height: H}} in pixels, got {value!r}")
    return value["width"], value["height"]
