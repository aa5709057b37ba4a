"""The events of the ``referee live`` log (``live-events.md``): one record, one JSON line."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = ["Event", "EVENT_TYPES"]

EVENT_TYPES = ("round_started", "card_laid", "card_removed", "stop", "round_scored", "warning", "game_over")


@dataclass(frozen=True)
class Event:
    """One thing that happened: its type, the source time ``t`` (s), the ``frame`` it was decided on, and its fields.

    >>> Event("stop", 12.5, 375, {"player": "Anna"}).to_json()
    '{"type": "stop", "t": 12.5, "frame": 375, "player": "Anna"}'
    """

    type: str
    t: float
    frame: int
    data: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.type not in EVENT_TYPES:
            raise ValueError(f"event type must be one of {EVENT_TYPES}, got {self.type!r}")
        clash = {"type", "t", "frame"} & set(self.data)
        if clash:
            raise ValueError(f"event fields must not be named {sorted(clash)}")

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, "t": round(float(self.t), 3), "frame": int(self.frame), **self.data}

    def to_json(self) -> str:
        return json.dumps(self.as_dict())

    @classmethod
    def from_dict(cls, line: Mapping[str, Any]) -> Event:
        data = {k: v for k, v in line.items() if k not in ("type", "t", "frame")}
        return cls(str(line["type"]), float(line["t"]), int(line["frame"]), data)
