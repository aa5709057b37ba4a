"""Writing a calibration as commented YAML that ``load_calibration`` reads back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from calibration.config import SCHEMA_VERSION, Calibration

__all__ = ["format_calibration", "write_calibration"]


def _num(value: float) -> str:
    return f"{round(float(value), 1):g}"


def _point(point: Any) -> str:
    return f"[{_num(point[0])}, {_num(point[1])}]"


def _name(name: str) -> str:
    # A JSON string is a valid YAML double-quoted scalar, whatever the name holds.
    return json.dumps(name, ensure_ascii=False)


def format_calibration(calibration: Calibration, source: str = "", warnings: list[str] | None = None) -> str:
    """The calibration as commented YAML (``version``, ``image``, ``seats``, ``table``, ``pool``, ``colours``)."""
    lines = [
        "# The table referee's calibration of one table, seen by one camera.",
        "# Written by 'referee calibrate'" + (f" from {source}" if source else "") + "; edit it freely:",
        "# 'referee check --calibration FILE' and 'referee live --calibration FILE' check every value.",
        "# Positions are image pixels of the camera's frame: x to the right, y down.",
        f"version: {SCHEMA_VERSION}",
        "",
    ]
    if calibration.image_size_wh is not None:
        width, height = calibration.image_size_wh
        lines += [
            "# The size of the camera image these positions belong to (another size is refused).",
            f"image: {{width: {width}, height: {height}}}",
            "",
        ]
    lines += [
        "# Where each player sits, one entry per player. The table's middle is the mean of the",
        "# seats; each player faces it and reads their row from their own left to right. A row",
        "# belongs to the nearest seat.",
        "seats:",
    ]
    for seat in calibration.seats:
        guess = "  # guessed: no row seen there; check it" if seat.guessed else ""
        lines += [f"  - name: {_name(seat.name)}{guess}", f"    position: {_point(seat.position_xy)}"]
    lines.append("")
    lines += [
        "# The table top, a polygon of [x, y] corners: a card whose centre lies outside it (on the",
        "# floor, on a shelf) is never part of a row. null: not known, every card counts.",
    ]
    lines.append("table: " + _polygon(calibration.table))
    lines += [
        "",
        "# The middle pool (face-down and thrown-back cards), a polygon of [x, y] corners: a card",
        "# whose centre lies inside it is never part of a row. null: not known.",
        "pool: " + _polygon(calibration.pool),
        "",
    ]
    lines += _colour_lines(calibration.colours, warnings or [])
    return "\n".join(lines) + "\n"


def _polygon(points: Any) -> str:
    if points is None:
        return "null"
    return "[" + ", ".join(_point(p) for p in points) + "]"


def _colour_lines(profile: Any, warnings: list[str]) -> list[str]:
    lines = [
        "# The colour profile: how this camera sees the cards under this light, learned from the",
        "# symbols on the cards in view. white: the card face before white balance, [B, G, R]",
        "# 0-255 (the live referee warns when the cards' white drifts far from it: a lamp",
        "# switched on). inks: each print colour's mean on a white-balanced card, CIE Lab",
        "# (L 0-100, a, b), and how many symbols it was learned from; inks not listed keep the",
        "# reader's nominal model. confusable: inks told apart poorly under this light (their",
        "# Lab distance): look twice at symbols of those colours.",
    ]
    if profile is None:
        return lines + ["colours: null"]
    for warning in warnings:
        lines.append(f"# warning: {warning}")
    b, g, r = profile.white_bgr
    lines += ["colours:", f"  white: [{_num(b)}, {_num(g)}, {_num(r)}]"]
    if profile.inks:
        lines.append("  inks:")
        for colour, (light, a, bb) in profile.inks.items():
            count = profile.counts.get(colour, 0)
            lines.append(f"    {colour.value}: {{lab: [{_num(light)}, {_num(a)}, {_num(bb)}], symbols: {count}}}")
    else:
        lines.append("  inks: {}")
    pairs = ", ".join(f"[{a.value}, {b.value}, {_num(d)}]" for a, b, d in profile.confusable)
    lines.append(f"  confusable: [{pairs}]")
    return lines


def write_calibration(path: Path, calibration: Calibration, source: str = "", warnings: list[str] | None = None) -> None:
    """Write the calibration to ``path`` (replacing it whole, never half-written)."""
    text = format_calibration(calibration, source, warnings)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)
