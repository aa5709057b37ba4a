"""Card sides reaching out onto the outline: past a printed border, not past the table."""

import cv2
import numpy as np
import pytest

from vision.outline import pull_in_outlines, reach_outlines
from vision.quads import order_corners, snap_corners

BOX = ((200, 160), (110, 165), 12)  # centre, size, angle: a card's rectangle in the picture
TRUE = order_corners(cv2.boxPoints(BOX).astype(np.float32))


def inset(share):
    """The card's rectangle with every side moved in by ``share`` of the short side."""
    (centre, (w, h), angle), d = BOX, 2 * share * min(BOX[1])
    return order_corners(cv2.boxPoints((centre, (w - d, h - d), angle)).astype(np.float32))


def long_side_out(share):
    """The card's rectangle with its right long side (corners 1 and 2) moved out by ``share`` of the short side."""
    (centre, (w, h), angle), d = BOX, share * min(BOX[1])
    (cx, cy), rad = centre, np.radians(angle)
    shift = (d / 2 * np.cos(rad), d / 2 * np.sin(rad))  # along the box's width axis
    return order_corners(cv2.boxPoints(((cx + shift[0], cy + shift[1]), (w + d, h), angle)).astype(np.float32))


def bordered_card(table_bgr=(60, 110, 40), glare=False, seed=0):
    """A textured green cloth with a white card whose printed border runs 4% inside its outline."""
    rng = np.random.default_rng(seed)
    image = np.empty((320, 400, 3), np.float32)
    image[:] = table_bgr
    image += cv2.GaussianBlur(rng.normal(0, 12, (320, 400, 1)).astype(np.float32), (5, 5), 0)[..., None]
    if glare:
        # A bright blob on the cloth right against the card's left side.
        yy, xx = np.mgrid[0:320, 0:400]
        left = (TRUE[0] + TRUE[3]) / 2
        image += 255 * np.exp(-((xx - left[0] + 4) ** 2 + (yy - left[1]) ** 2) / (2 * 10.0 ** 2))[..., None]
    cv2.fillConvexPoly(image, np.round(TRUE * 16).astype(np.int32), (232, 238, 240), cv2.LINE_AA, 4)
    cv2.polylines(image, [np.round(inset(0.04) * 16).astype(np.int32)], True, (50, 50, 50), 1, cv2.LINE_AA, 4)
    image = cv2.GaussianBlur(image, (3, 3), 0.8) + rng.normal(0, 3, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def corner_error(found, truth=TRUE):
    return float(np.linalg.norm(found - truth, axis=1).max())


@pytest.mark.parametrize("glare", [False, True], ids=["plain", "glare-at-edge"])
def test_sides_found_on_the_printed_border_reach_the_outline(glare) -> None:
    frame = bordered_card(glare=glare)
    rough = inset(0.045)  # the region stopped just inside the printed border
    assert corner_error(rough) > 6
    # The snap alone stays on the border line (its search is a few pixels).
    assert corner_error(snap_corners(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), rough, 3.0)) > 5
    reached = reach_outlines(frame, rough[None])[0]
    assert corner_error(reached) < 2.0


def test_a_side_on_the_outline_stays() -> None:
    frame = bordered_card()
    assert corner_error(reach_outlines(frame, TRUE[None])[0]) < 1.0


def test_a_side_does_not_cross_a_pale_stripe_of_cloth() -> None:
    frame = bordered_card()
    # A pale stripe (not paper-white) along the card's right side, a darker cloth beyond.
    right = order_corners(np.array([TRUE[1], TRUE[2], TRUE[2] + (18, 4), TRUE[1] + (18, 4)], np.float32))
    stripe = frame.copy()
    cv2.fillConvexPoly(stripe, np.round(right).astype(np.int32), (150, 160, 150))
    cv2.fillConvexPoly(stripe, np.round(TRUE).astype(np.int32), (232, 238, 240))
    cv2.polylines(stripe, [np.round(inset(0.04) * 16).astype(np.int32)], True, (50, 50, 50), 1, cv2.LINE_AA, 4)
    found = reach_outlines(stripe, inset(0.045)[None])[0]
    assert corner_error(found) < 2.0


def test_a_plain_table_leaves_the_corners_as_they_are() -> None:
    frame = np.full((320, 400, 3), 200, np.uint8)
    rough = inset(0.045)
    assert np.allclose(reach_outlines(frame, rough[None])[0], rough, atol=1e-3)


def test_no_cards_no_corners() -> None:
    assert reach_outlines(np.zeros((10, 10, 3), np.uint8), np.zeros((0, 4, 2), np.float32)).shape == (0, 4, 2)


def test_a_side_inside_a_wide_printed_line_reaches_past_it() -> None:
    # A pale blue table and a thick pink frame printed 7% inside the outline: blurred, the
    # line is as wide as the table must last beyond an outline, so its fall alone looks like one.
    frame = bordered_card(table_bgr=(205, 190, 150))
    cv2.polylines(frame, [np.round(inset(0.07) * 16).astype(np.int32)], True, (175, 150, 185), 4, cv2.LINE_AA, 4)
    frame = cv2.GaussianBlur(frame, (5, 5), 1.2)
    rough = inset(0.095)  # the region stopped inside the printed line
    assert corner_error(rough) > 12
    assert corner_error(reach_outlines(frame, rough[None])[0]) < 2.0


def test_a_side_beside_a_neighbour_across_a_narrow_gap_stays() -> None:
    # Paper comes back beyond the outline (a neighbour 5 px away): the outline is still the first fall.
    frame = bordered_card()
    beyond = order_corners(np.array([TRUE[1] + (5, 1), TRUE[2] + (5, 1), TRUE[2] + (60, 12), TRUE[1] + (60, 12)], np.float32))
    cv2.fillConvexPoly(frame, np.round(beyond).astype(np.int32), (232, 238, 240))
    assert corner_error(reach_outlines(frame, TRUE[None])[0]) < 1.0


def striped(frame, share, colour):
    """The frame with a stripe of ``colour`` along the card's right side, ``share`` of the short side wide."""
    out = frame.copy()
    cv2.fillConvexPoly(out, np.round(long_side_out(share) * 16).astype(np.int32), colour, cv2.LINE_AA, 4)
    cv2.fillConvexPoly(out, np.round(TRUE * 16).astype(np.int32), (232, 238, 240), cv2.LINE_AA, 4)
    cv2.polylines(out, [np.round(inset(0.04) * 16).astype(np.int32)], True, (50, 50, 50), 1, cv2.LINE_AA, 4)
    return cv2.GaussianBlur(out, (3, 3), 0.8)


@pytest.mark.parametrize("share, colour", [(0.3, (200, 205, 225)), (0.15, (90, 140, 70))], ids=["pale-stripe", "cloth"])
def test_a_side_out_past_the_outline_comes_back_onto_it(share, colour) -> None:
    # A pale pinkish stripe of cloth, nearly as white as the paper, which the region took in;
    # or the cloth itself, with the printed border 4% inside the outline to step over.
    frame = striped(bordered_card(), share, colour)
    rough = long_side_out(share)
    assert corner_error(rough) > 0.9 * share * min(BOX[1])
    assert corner_error(pull_in_outlines(frame, rough[None])[0]) < 2.0


def test_a_side_on_the_outline_stays_in_pulling_in() -> None:
    frame = striped(bordered_card(), 0.3, (200, 205, 225))
    assert corner_error(pull_in_outlines(frame, TRUE[None])[0]) < 0.5


def test_a_side_is_not_pulled_onto_a_printed_line_or_a_symbol() -> None:
    # A dark bar printed along the side 15% inside it, on paper that comes back beyond it.
    frame = bordered_card()
    bar = inset(0.15)
    cv2.line(frame, tuple(map(int, bar[1])), tuple(map(int, bar[2])), (40, 40, 160), 5)
    assert corner_error(pull_in_outlines(frame, TRUE[None])[0]) < 0.5


def test_pulling_in_no_cards_gives_no_corners() -> None:
    assert pull_in_outlines(np.zeros((10, 10, 3), np.uint8), np.zeros((0, 4, 2), np.float32)).shape == (0, 4, 2)


def shadow_light() -> np.ndarray:
    """The light (H, W, 1) with a shadow over the card's right part that takes 0.45 of it, its
    edge along the right side a third of the short side inside it."""
    a, b = TRUE[1], TRUE[2]
    inwards = np.array([a[1] - b[1], b[0] - a[0]], np.float32)
    inwards *= np.sign(inwards @ (TRUE.mean(axis=0) - a)) / np.linalg.norm(inwards)
    yy, xx = np.mgrid[0:320, 0:400].astype(np.float32)
    depth = (xx - a[0]) * inwards[0] + (yy - a[1]) * inwards[1]  # pixels inside the right side
    return (1 - 0.45 * np.clip((0.33 * min(BOX[1]) - depth) / 2, 0, 1))[..., None]


def test_a_side_is_not_pulled_onto_a_shadows_edge() -> None:
    # Paper in the shadow keeps its colour, so that edge is no outline.
    frame = np.clip(bordered_card().astype(np.float32) * shadow_light(), 0, 255).astype(np.uint8)
    assert corner_error(pull_in_outlines(frame, TRUE[None])[0]) < 0.5


def test_a_side_is_not_pulled_onto_the_edge_of_a_shadow_under_a_warm_lamp() -> None:
    # Under a warm lamp the paper in a hand's shadow is lit by the room more than by the lamp:
    # it keeps of the lamp's cast as much as of its light, and that edge is no outline either
    # (dev hard 7170: a card's lower third in a sleeve's shadow was cut off it).
    lab = cv2.cvtColor(bordered_card(), cv2.COLOR_BGR2LAB).astype(np.float32)
    lab[..., 1] += 8.0 * lab[..., 0] / 255  # the lamp's warm cast, in proportion to the light
    lab[..., 2] += 24.0 * lab[..., 0] / 255
    light = shadow_light()
    lab[..., 0:1] *= light
    lab[..., 1:] = 128 + (lab[..., 1:] - 128) * light
    frame = cv2.cvtColor(np.clip(np.round(lab), 0, 255).astype(np.uint8), cv2.COLOR_LAB2BGR)
    assert corner_error(pull_in_outlines(frame, TRUE[None])[0]) < 0.5


def test_a_side_reaches_an_outline_turned_a_little_more_than_it() -> None:
    # Under the camera's tilt a card's opposite sides may differ by up to about 4.2 degrees;
    # a side found turned 3 degrees from its opposite still reaches an outline turned 4.1.
    turn = np.tan(np.radians([4.1, 3.0])) * 160
    true = np.array([[150, 80], [260, 80], [260 + turn[0], 240], [150, 240]], np.float32)
    rough = np.array([[150, 80], [252, 80], [252 + turn[1], 240], [150, 240]], np.float32)
    rng = np.random.default_rng(1)
    image = np.full((320, 400, 3), (60, 110, 40), np.float32) + rng.normal(0, 3, (320, 400, 3))
    cv2.fillConvexPoly(image, np.round(true * 16).astype(np.int32), (232, 238, 240), cv2.LINE_AA, 4)
    frame = np.clip(cv2.GaussianBlur(image, (3, 3), 0.8), 0, 255).astype(np.uint8)
    assert corner_error(rough, true) > 7
    assert corner_error(reach_outlines(frame, rough[None])[0], true) < 1.5


def test_chroma_is_measured_from_the_brighter_half_of_each_cards_inner_samples() -> None:
    from vision.outline import _light_and_chroma

    rng = np.random.default_rng(4)
    profiles = (rng.random((3, 8, 10, 3)) * 255).astype(np.uint8)
    light, chroma, ab, paper_ab = _light_and_chroma(profiles, 4)
    lab = cv2.cvtColor(profiles.reshape(3, -1, 3), cv2.COLOR_BGR2LAB).reshape(profiles.shape).astype(np.float64)
    for k in range(3):
        inner = lab[k, :, :4].reshape(-1, 3)
        paper = inner[inner[:, 0] >= inner[:, 0].mean(), 1:].mean(axis=0)
        assert np.allclose(paper_ab[k], paper, atol=1e-3)
        assert np.allclose(chroma[k], np.hypot(*(lab[k, ..., 1:] - paper).transpose(2, 0, 1)), atol=1e-3)
        assert np.array_equal(light[k], lab[k, ..., 0])
        assert np.array_equal(ab[k], lab[k, ..., 1:])
