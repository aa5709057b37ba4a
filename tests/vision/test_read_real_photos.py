"""The card reader on real photos of SET cards under many cameras and lamps.

Each photo shows 1-3 identical symbols, so a correct reader reports the label's count, one
colour and one shape, whatever it calls SET's shapes and purple. Photos are split by
source photo into a dev half (looked at while tuning) and a test half (only measured);
the floors below hold on the test half and sit a little under what was measured
(count 277 of 278, colours == 1 278 of 278, shapes == 1 277, exact 277; dev half 370 of 370).
"""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import cv2
import pytest

from vision.read import read_card

REAL_PHOTOS = Path(__file__).resolve().parents[2] / ".." / "shared" / "real-photos"

FLOORS = {"count": 0.99, "one_colour": 0.99, "one_shape": 0.99, "exact": 0.985}


def photo_half(photo: str) -> str:
    """'dev' or 'test', fixed per source photo so that crops of one light stay together."""
    return "dev" if int(hashlib.sha256(photo.encode()).hexdigest(), 16) % 2 == 0 else "test"


@pytest.fixture(scope="module")
def test_half_rows() -> list[dict[str, str]]:
    labels = REAL_PHOTOS / "labels.csv"
    if not labels.is_file():
        pytest.skip(f"real photos not available: {labels} is missing (they live outside the repository)")
    with labels.open(newline="", encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if photo_half(row["photo"]) == "test"]
    assert len(rows) > 200
    return rows


def test_real_photos_test_half_meet_the_floors(test_half_rows):
    hits = {name: 0 for name in FLOORS}
    misses = []
    for row in test_half_rows:
        image = cv2.imread(str(REAL_PHOTOS / row["file"]), cv2.IMREAD_COLOR)
        reading = read_card(image)
        count = len(reading.symbols) == int(row["symbols"])
        one_colour = len({s.colour for s in reading.symbols}) == 1
        one_shape = len({s.shape for s in reading.symbols}) == 1
        for name, ok in (("count", count), ("one_colour", one_colour), ("one_shape", one_shape),
                         ("exact", count and one_colour and one_shape)):
            hits[name] += ok
        if not (count and one_colour and one_shape):
            misses.append(row["file"])
    rates = {name: hits[name] / len(test_half_rows) for name in FLOORS}
    for name, floor in FLOORS.items():
        assert rates[name] >= floor, f"{name}: {rates[name]:.3f} < {floor} (misread: {misses[:5]})"
