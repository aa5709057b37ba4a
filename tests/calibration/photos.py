"""Committed fixture photos, read once per test session."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from calibration.seats import Seat

PHOTOS = Path(__file__).resolve().parents[2] / "fixtures" / "photos"


@lru_cache(maxsize=None)
def photo(name: str) -> tuple[np.ndarray, dict]:
    """The image and ground truth of ``fixtures/photos/<name>.jpg``."""
    frame = cv2.imread(str(PHOTOS / f"{name}.jpg"))
    assert frame is not None, name
    return frame, json.loads((PHOTOS / f"{name}.json").read_text())


@lru_cache(maxsize=None)
def face_up(name: str) -> tuple:
    """The readable face-up cards the pipeline finds in a committed photo."""
    from vision.pipeline import read_frame

    frame, _ = photo(name)
    return tuple(card for card in read_frame(frame) if card.reading.criteria is not None)


def true_seats(truth: dict) -> list[Seat]:
    return [Seat(s["name"], tuple(s["position"])) for s in truth["seats"]]
