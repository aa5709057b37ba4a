"""Arms reaching in over the table's edge: found where they cross it, and not in a mug or a skin-coloured table."""

import cv2
import numpy as np
import pytest

from calibration.arms import arm_entries

FELT, SKIN, WOOD = (60, 120, 40), (120, 160, 210), (110, 155, 205)
# Eight cards' corners, 60x90 pixels, in two rows near the top of a 640x480 photo (their
# paper, the brightest tenth of the photo, tells the light's cast).
CARDS = [np.array([(x, y), (x + 60, y), (x + 60, y + 90), (x, y + 90)], np.float64) for x in (250, 320, 390, 460) for y in (20, 120)]


def table(top=FELT, arm: tuple[tuple[int, int], tuple[int, int]] | None = None, mug: tuple[int, int] | None = None) -> np.ndarray:
    """A 640x480 photo filled by the table top, with the white cards, a little noise, and
    perhaps an arm 80 pixels wide from one point to another and a mug's skin-coloured rim."""
    frame = np.zeros((480, 640, 3), np.uint8)
    frame[:] = top
    for quad in CARDS:
        cv2.fillConvexPoly(frame, quad.astype(np.int32), (235, 235, 235))
    if arm is not None:
        cv2.line(frame, arm[0], arm[1], SKIN, 80)
    if mug is not None:
        cv2.circle(frame, mug, 60, SKIN, 18)
    noise = np.random.default_rng(5).normal(0, 2, frame.shape)
    return np.clip(frame + noise, 0, 255).astype(np.uint8)


@pytest.mark.parametrize(
    "arm, entry_xy",
    [(((420, 560), (420, 300)), (420, 479)), (((-100, 300), (200, 300)), (0, 300)), (((700, 500), (480, 280)), (639, 440))],
    ids=["from the bottom", "from the left", "slanting in from the right"],
)
def test_an_arm_is_found_where_it_crosses_the_edge(arm, entry_xy) -> None:
    entries = arm_entries(table(arm=arm), CARDS, None)
    assert entries.shape == (1, 2)
    assert np.linalg.norm(entries[0] - entry_xy) < 25


def test_an_arm_crosses_the_table_tops_edge_not_the_photos() -> None:
    top = np.array([(40, 20), (600, 20), (600, 420), (40, 420)], np.float64)
    entries = arm_entries(table(arm=((420, 560), (420, 300))), CARDS, top)
    assert np.linalg.norm(entries - (420, 420), axis=1).min() < 25


@pytest.mark.parametrize(
    "frame",
    [table(), table(mug=(450, 330)), table(top=WOOD, arm=((420, 560), (420, 300))), table(arm=((420, 330), (420, 280)))],
    ids=["no arm", "a mug's rim", "an arm on a table of its colour", "a hand's patch in the middle"],
)
def test_no_arm_where_none_reaches_in(frame) -> None:
    assert arm_entries(frame, CARDS, None).shape == (0, 2)


def test_no_cards_no_scale_no_arms() -> None:
    assert arm_entries(table(arm=((420, 560), (420, 300))), [], None).shape == (0, 2)
