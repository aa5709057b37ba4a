"""Cards found by the loop their outline closes: where the whiteness's sweep missed them."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.test_find import card_corners, iou
from vision.find import working_copy
from vision.looped import looped_cards
from vision.pipeline import read_quad
from vision.quads import CardQuad

CARDS = [card_corners((90 + 115 * k, 200), (80, 120), 2 - k) for k in range(5)]


def missing_the_fourth(finder, shape_hw: tuple[int, ...]):
    """``finder`` (``find_cards``) made to miss the fourth card of ``table``'s row (``CARDS[3]``)."""
    def finds(frame_bgr, within=None, small_bgr=None):
        return [quad for quad in finder(frame_bgr, within, small_bgr) if iou(quad.corners_xy, CARDS[3], shape_hw) < 0.5]
    return finds


def paint(image: np.ndarray, corners: np.ndarray) -> None:
    """A card with three dots down its middle: red, black and blue (colours 3, shapes 1, symbols 3)."""
    cv2.fillConvexPoly(image, corners.astype(np.int32), (228, 236, 240), lineType=cv2.LINE_AA)
    middle, down = corners.mean(axis=0), corners[3] - corners[0]
    for k, bgr in ((-0.25, (40, 40, 200)), (0.0, (40, 40, 40)), (0.25, (160, 90, 30))):
        cv2.circle(image, tuple(np.round(middle + k * down).astype(int)), 9, bgr, -1, cv2.LINE_AA)


def table(seed: int, shadow: float = 0.45, cloth=(120, 110, 40), patch: np.ndarray | None = None) -> np.ndarray:
    """Five cards in a row on a cloth (teal), a soft shadow (an arm's: ``shadow`` of the light
    at its deepest) growing across the fourth; ``patch``: a card-shaped shadow (a phone's, held
    above) on the cloth too, printed with dots there."""
    rng = np.random.default_rng(seed)
    image = np.empty((400, 640, 3), np.float32)
    image[:] = cloth
    image += rng.normal(0, 4, (400, 640, 1))
    for corners in CARDS:
        paint(image, corners)
    yy, xx = np.mgrid[0:400, 0:640]
    light = 1 - (1 - shadow) * np.clip((xx - 385) / 60.0 + (yy - 200) / 120.0, 0, 1)
    if patch is not None:
        for x in range(5, 640, 50):
            for y in (290, 340, 390):
                cv2.circle(image, (x, y), 8, (150, 80, 30), -1, cv2.LINE_AA)
        dark = np.ones((400, 640), np.float32)
        cv2.fillConvexPoly(dark, patch.astype(np.int32), 0.6)
        light = light * cv2.GaussianBlur(dark, (0, 0), 1.5)
    return np.clip(image * light[..., None] + rng.normal(0, 3, image.shape), 0, 255).astype(np.uint8)


def looped(image: np.ndarray, seen: list[np.ndarray]) -> list:
    """The cards ``looped_cards`` finds in the image, beside the cards ``seen`` (faces all)."""
    faces = [CardQuad(corners, 1.0) for corners in seen]
    return looped_cards(image, working_copy(image), faces, seen, lambda quad: read_quad(image, quad))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_card_half_in_an_arms_shadow_that_no_sweep_found_is_found_by_its_outlines_loop(seed) -> None:
    image = table(seed)
    found = looped(image, CARDS[:3] + CARDS[4:])  # (the finder missed the fourth)
    assert len(found) == 1
    assert iou(found[0].corners_xy, CARDS[3], image.shape[:2]) > 0.9
    assert found[0].reading.criteria.as_list() == [3, 1, 3]


def test_the_cards_found_and_a_cards_shadow_on_the_cloth_give_no_card() -> None:
    # A phone's card-shaped shadow on a dotted cloth: a loop of a card's size and shape, its dots
    # read as symbols, but darker than the cloth around it.
    shadow = card_corners((330, 340), (80, 120), 90)
    image = table(0, cloth=(200, 214, 206), patch=shadow)
    assert looped(image, CARDS) == []


def test_only_the_box_asked_for_is_looked_in() -> None:
    image = table(0)
    seen = CARDS[:3] + CARDS[4:]
    faces = [CardQuad(corners, 1.0) for corners in seen]

    def within(box):
        return looped_cards(image, working_copy(image), faces, seen, lambda quad: read_quad(image, quad), box)

    assert within((0, 0, 360, 400)) == []  # (the fourth card lies beyond x = 360)
    assert len(within((300, 100, 640, 300))) == 1


def test_the_table_reading_takes_in_the_cards_found_by_their_loop(monkeypatch) -> None:
    import vision.pipeline

    image = table(1)
    monkeypatch.setattr(vision.pipeline, "find_cards", missing_the_fourth(vision.pipeline.find_cards, image.shape[:2]))
    cards = vision.pipeline.read_table(image).cards
    assert len(cards) == 5
    assert max(iou(card.corners_xy, CARDS[3], image.shape[:2]) for card in cards) > 0.9
