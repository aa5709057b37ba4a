"""The heap of face-down cards, found by the backs' light frame lines on tiny synthetic tables."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.backs import find_backs, heap_share

SHORT, LONG = 100, 150  # a card's sides in pixels
BACK_BGR, LINE_BGR = (92, 44, 30), (200, 215, 225)  # dark blue, a light grey frame line
# A heap of six backs, overlapping, turned every way: (centre x, centre y, angle).
HEAP = [(560, 400, 10), (640, 380, 35), (600, 460, 80), (700, 440, 120), (650, 500, 5), (540, 480, 60)]


def card_xy(x: float, y: float, angle: float) -> np.ndarray:
    """A card's corners (4, 2) in pixels, turned by ``angle`` degrees about its centre."""
    return cv2.boxPoints(((x, y), (SHORT, LONG), angle)).astype(np.float64)


def draw_back(frame: np.ndarray, x: float, y: float, angle: float) -> None:
    cv2.fillPoly(frame, [np.round(card_xy(x, y, angle)).astype(np.int32)], BACK_BGR, cv2.LINE_AA)
    inset = cv2.boxPoints(((x, y), (SHORT - 14, LONG - 14), angle))
    cv2.polylines(frame, [np.round(inset).astype(np.int32)], True, LINE_BGR, 2, cv2.LINE_AA)


def draw_face(frame: np.ndarray, corners: np.ndarray) -> None:
    cv2.fillPoly(frame, [np.round(corners).astype(np.int32)], (235, 240, 242), cv2.LINE_AA)
    x, y = corners.mean(axis=0)
    cv2.circle(frame, (int(x), int(y)), 20, (30, 40, 210), -1)


def table(table_bgr: tuple[int, int, int], backs=HEAP, phone: bool = False) -> tuple[np.ndarray, list[np.ndarray]]:
    """A 1200x900 table with a row of three faces at the bottom, a face on the heap, and the heap."""
    rng = np.random.default_rng(3)
    frame = np.full((900, 1200, 3), table_bgr, np.uint8)
    for x, y, angle in backs:
        draw_back(frame, x, y, angle)
    faces = [card_xy(x, 780, 0) for x in (400, 520, 640)] + [card_xy(620, 430, 20)]
    if phone:  # a dark slab, about a card and a half long, with no printed line
        cv2.fillPoly(frame, [np.round(cv2.boxPoints(((250, 300), (110, 220), 15))).astype(np.int32)], (25, 25, 28), cv2.LINE_AA)
    for corners in faces:
        draw_face(frame, corners)
    noisy = frame.astype(np.int16) + rng.normal(0, 3, frame.shape).round().astype(np.int16)
    return np.clip(noisy, 0, 255).astype(np.uint8), faces


def inside_any(heaps, point) -> bool:
    return any(cv2.pointPolygonTest(h.astype(np.float32).reshape(-1, 1, 2), point, False) >= 0 for h in heaps)


@pytest.mark.parametrize("table_bgr", [(120, 160, 190), (80, 40, 25)], ids=["plain-beige", "dark-blue"])
def test_the_heap_of_backs_is_found_on_a_plain_and_on_a_dark_blue_table(table_bgr) -> None:
    frame, faces = table(table_bgr)
    heaps = find_backs(frame, faces)
    assert len(heaps) == 1
    assert all(inside_any(heaps, (x, y)) for x, y, _ in HEAP)
    # The row's cards at the bottom lie off it.
    assert not any(inside_any(heaps, tuple(q.mean(axis=0))) for q in faces[:3])


def test_a_phone_and_a_bare_table_are_no_backs() -> None:
    frame, faces = table((80, 40, 25), backs=[], phone=True)
    assert find_backs(frame, faces) == ()


def test_a_lone_back_is_no_heap() -> None:
    frame, faces = table((120, 160, 190), backs=[(250, 300, 15)])
    assert find_backs(frame, faces) == ()


def test_a_face_on_the_heap_has_its_surroundings_on_it_a_row_card_none() -> None:
    frame, faces = table((120, 160, 190))
    heaps = find_backs(frame, faces)
    assert heap_share(faces[3], heaps) > 0.8
    assert heap_share(faces[0], heaps) == 0.0
    assert heap_share(faces[0], ()) == 0.0
