"""The calibration file: a table learned once, read and validated at the edge."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any


from calibration.seats import Seat
from referee.yamlfile import read_yaml

__all__ = ["Calibration", "CalibrationError", "load_calibration", "parse_calibration", "SCHEMA_VERSION"]

# Version 1 holds seats and image, and (added later, same meaning for the rest) table, pool
# and colours: a file written before those existed reads as it did.
SCHEMA_VERSION = 1
_KEYS = {"version", "seats", "image", "table", "pool", "colours"}
_COLOUR_KEYS = {"white", "inks", "confusable"}
_INK_KEYS = {"lab", "symbols"}
Point = tuple[float, float]


class CalibrationError(ValueError):
    """A calibration file is missing, malformed or does not fit the photos."""


@dataclass(frozen=True)
class Calibration:
    """What the referee knows about a table: the seats, and the image size they were set in."""

    seats: tuple[Seat, ...]
    image_size_wh: tuple[int, int] | None = None
    table: tuple[Point, ...] | None = None
    pool: tuple[Point, ...] | None = None
    colours: Any = None  # calibration.profile.ColourProfile | None (imported lazily: it needs OpenCV)

    @property
    def areas(self) -> Any:
        """The table top and the pool as ``calibration.areas.TableAreas``, or None when neither is known."""
        if self.table is None and self.pool is None:
            return None
        import numpy as np

        from calibration.areas import TableAreas

        return TableAreas(
            None if self.table is None else np.array(self.table, np.float64),
            None if self.pool is None else np.array(self.pool, np.float64),
        )

    def check_fits(self, image_size_wh: tuple[int, int], where: str) -> None:
        """Refuse a calibration made for frames of another size, and seats or areas outside this one."""
        width, height = image_size_wh
        if self.image_size_wh is not None and tuple(self.image_size_wh) != (width, height):
            w, h = self.image_size_wh
            raise CalibrationError(
                f"{where}: image: calibrated for {w}x{h} frames, this one is {width}x{height}; "
                "calibrate again for this camera setting (or ask the camera for that size with --size)"
            )
        for seat in self.seats:
            x, y = seat.position_xy
            if not (0 <= x <= width and 0 <= y <= height):
                raise CalibrationError(
                    f"{where}: seat {seat.name!r} at [{x:g}, {y:g}] lies outside the {width}x{height} image"
                )
        for key in ("table", "pool"):
            for number, (x, y) in enumerate(getattr(self, key) or (), start=1):
                if not (0 <= x <= width and 0 <= y <= height):
                    raise CalibrationError(
                        f"{where}: {key}[{number}]: point [{x:g}, {y:g}] lies outside the {width}x{height} image"
                    )


def load_calibration(path: Path) -> Calibration:
    """The calibration in ``path``; a file holding only ``seats:`` is enough."""
    return parse_calibration(read_yaml(path, CalibrationError, "calibration file"), str(path))


def parse_calibration(doc: Any, where: str) -> Calibration:
    """A calibration from a parsed YAML document; ``where`` prefixes every message."""
    if not isinstance(doc, dict):
        raise CalibrationError(f"{where}: expected a mapping with 'seats:', got {type(doc).__name__}")
    unknown = sorted(set(map(str, doc)) - _KEYS)
    if unknown:
        raise CalibrationError(f"{where}: unknown key {unknown[0]!r} (expected some of {sorted(_KEYS)})")
    version = doc.get("version", SCHEMA_VERSION)
    if isinstance(version, int) and not isinstance(version, bool) and version < SCHEMA_VERSION:
        raise CalibrationError(
            f"{where}: version: {version!r} is older than any calibration this referee knows (version "
            f"{SCHEMA_VERSION} is the first); run 'referee calibrate' again"
        )
    if version != SCHEMA_VERSION:
        raise CalibrationError(
            f"{where}: version: this referee reads calibration version {SCHEMA_VERSION}, got {version!r}; "
            "run 'referee calibrate' again"
        )
    seats = _seats(doc.get("seats"), where)
    size = _image_size(doc.get("image"), where) if "image" in doc else None
    table = _polygon(doc.get("table"), f"{where}: table", "the table top") if doc.get("table") is not None else None
    pool = _polygon(doc.get("pool"), f"{where}: pool", "the middle pool") if doc.get("pool") is not None else None
    colours = _colours(doc.get("colours"), f"{where}: colours") if doc.get("colours") is not None else None
    calibration = Calibration(seats, size, table, pool, colours)
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


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _polygon(value: Any, label: str, what: str) -> tuple[Point, ...]:
    if not isinstance(value, list) or len(value) < 3:
        raise CalibrationError(f"{label}: expected {what} as a list of at least 3 points [x, y], got {value!r}"[:240])
    points = []
    for number, point in enumerate(value, start=1):
        if not isinstance(point, list) or len(point) != 2 or not all(_number(v) for v in point):
            raise CalibrationError(f"{label}[{number}]: expected [x, y] in image pixels, got {point!r}")
        if min(point) < 0:
            raise CalibrationError(f"{label}[{number}]: [x, y] must not be negative, got {point!r}")
        points.append((float(point[0]), float(point[1])))
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    area = 0.5 * abs(sum(xs[k] * ys[k - 1] - xs[k - 1] * ys[k] for k in range(len(points))))
    if area < 1.0:
        raise CalibrationError(f"{label}: expected {what} as a polygon with an area, got one of area {area:g} px")
    return tuple(points)


def _colours(value: Any, label: str) -> Any:
    from calibration.profile import ColourProfile, confusable_pairs
    from referee.cards import Colour

    if not isinstance(value, dict):
        raise CalibrationError(f"{label}: expected {{white: [B, G, R], inks: {{...}}}}, got {value!r}"[:240])
    unknown = sorted(set(map(str, value)) - _COLOUR_KEYS)
    if unknown:
        raise CalibrationError(f"{label}: unknown key {unknown[0]!r} (expected some of {sorted(_COLOUR_KEYS)})")
    white = value.get("white")
    if not isinstance(white, list) or len(white) != 3 or not all(_number(v) and 0 <= v <= 255 for v in white):
        raise CalibrationError(f"{label}.white: expected [B, G, R] in 0-255, got {white!r}")
    inks_doc = value.get("inks", {})
    if not isinstance(inks_doc, dict):
        raise CalibrationError(f"{label}.inks: expected a mapping of colour names to {{lab: [L, a, b]}}, got {inks_doc!r}"[:240])
    names = [c.value for c in Colour]
    inks, counts = {}, {}
    for name, ink in inks_doc.items():
        key = f"{label}.inks.{name}"
        if name not in names:
            raise CalibrationError(f"{label}.inks: unknown colour {name!r} (expected some of {names})")
        if not isinstance(ink, dict):
            raise CalibrationError(f"{key}: expected {{lab: [L, a, b], symbols: N}}, got {ink!r}")
        extra = sorted(set(map(str, ink)) - _INK_KEYS)
        if extra:
            raise CalibrationError(f"{key}: unknown key {extra[0]!r} (expected 'lab' and 'symbols')")
        lab = ink.get("lab")
        if (
            not isinstance(lab, list) or len(lab) != 3 or not all(_number(v) for v in lab)
            or not 0 <= lab[0] <= 100 or not all(-128 <= v <= 128 for v in lab[1:])
        ):
            raise CalibrationError(f"{key}.lab: expected [L, a, b] with L in 0-100 and a, b in -128..128, got {lab!r}")
        symbols = ink.get("symbols", 0)
        if not isinstance(symbols, int) or isinstance(symbols, bool) or symbols < 0:
            raise CalibrationError(f"{key}.symbols: expected a count >= 0, got {symbols!r}")
        inks[Colour(name)] = (float(lab[0]), float(lab[1]), float(lab[2]))
        counts[Colour(name)] = symbols
    pairs = value.get("confusable", [])
    if not isinstance(pairs, list) or not all(
        isinstance(p, list) and len(p) == 3 and p[0] in names and p[1] in names and _number(p[2]) for p in pairs
    ):
        raise CalibrationError(f"{label}.confusable: expected a list of [colour, colour, distance], got {pairs!r}"[:240])
    # The pairs in the file are for people; the profile's own are worked out from the inks.
    return ColourProfile(tuple(float(v) for v in white), inks, counts, confusable_pairs(inks))
