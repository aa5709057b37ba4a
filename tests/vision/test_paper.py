"""Whiteness: lightness less chroma, after taking out the light's cast."""

import cv2
import numpy as np
import pytest

from vision.paper import CHROMA_WEIGHT, faces_cast, lab_whiteness, lab_whiteness_in_shade, light_cast, pixel_runs, second_cast, shade, whiteness


def test_whiteness_is_lightness_less_chroma_away_from_the_cast() -> None:
    rng = np.random.default_rng(5)
    frame = rng.integers(0, 256, (37, 53, 3), dtype=np.uint8)  # odd sizes: no plane lines up by chance
    white, cast = whiteness(frame, (3.0, -7.0))
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB).astype(np.float64)
    chroma = np.hypot(lab[..., 1] - 131.0, lab[..., 2] - 121.0)
    assert cast == (3.0, -7.0)
    assert white.shape == (37, 53) and white.dtype == np.float32
    np.testing.assert_allclose(white, lab[..., 0] - CHROMA_WEIGHT * chroma, atol=1e-3)


def test_light_cast_is_the_cast_whiteness_takes_out() -> None:
    # A box of a frame is judged with the whole frame's cast (find_cards(..., within=)):
    # light_cast must give exactly what whiteness finds for itself.
    rng = np.random.default_rng(3)
    frame = rng.integers(0, 256, (90, 120, 3), dtype=np.uint8)
    frame[20:60, 30:80] = (200, 230, 250)  # a warm-lit card, the brightest tenth
    _, own = whiteness(frame)
    assert light_cast(frame) == own
    assert own[1] > 5  # yellowish: b above neutral


def test_in_shade_the_lamps_cast_is_taken_in_proportion_to_lightness() -> None:
    # Under a warm lamp: lit paper (the brightest tenth), a brown table, and a strip in an
    # arm's shadow lit by the room's neutral light, where paper is grey and the table brown.
    lamp = np.array((0.7, 0.85, 1.0))
    frame = np.empty((60, 100, 3), np.float64)
    frame[:] = np.array((60, 100, 150)) * lamp  # the table
    frame[:, :20] = np.array((240, 240, 240)) * lamp  # lit paper
    frame[:, 40:60] = np.array((240, 240, 240)) * 0.45 * lamp.mean()  # paper in the shadow
    frame[:, 60:80] = np.array((60, 100, 150)) * 0.45 * lamp.mean()  # table in the shadow
    lab = cv2.cvtColor(np.round(frame).astype(np.uint8), cv2.COLOR_BGR2LAB)
    cast = light_cast(np.round(frame).astype(np.uint8))
    plain, _ = lab_whiteness(lab, cast)
    in_shade = lab_whiteness_in_shade(lab, cast)
    assert in_shade.shape == (60, 100) and in_shade.dtype == np.float32
    lit_paper, lit_table, paper, table = (slice(0, 20), slice(80, 100), slice(40, 60), slice(60, 80))
    np.testing.assert_allclose(in_shade[:, lit_paper], plain[:, lit_paper], atol=1.0)  # lit paper: the whole cast
    assert plain[:, paper].mean() < plain[:, lit_table].mean() - 15  # the whole cast: duller than the lit table
    assert in_shade[:, paper].mean() > in_shade[:, lit_table].mean() + 30  # in proportion: whiter than any table
    assert in_shade[:, paper].mean() > in_shade[:, table].mean() + 40


def test_faces_cast_is_the_papers_not_the_tables_nor_the_symbols() -> None:
    frame = np.full((120, 160, 3), (170, 238, 255), np.uint8)  # bright yellow wood: the brightest tenth
    corners = np.array([[[10, 10], [50, 10], [50, 70], [10, 70]], [[70, 20], [110, 20], [110, 80], [70, 80]]], np.float32)
    for quad in corners:
        cv2.fillConvexPoly(frame, quad.astype(np.int32), (226, 230, 232))  # grey paper, less bright
        cv2.circle(frame, tuple(quad.mean(axis=0).astype(int)), 8, (30, 30, 200), -1)  # a red symbol
    a, b = faces_cast(frame, corners)
    assert abs(a) <= 2 and abs(b) <= 2
    assert light_cast(frame)[1] > 20


def test_second_cast_is_the_papers_among_a_pale_tables_brightest() -> None:
    frame = np.full((180, 240, 3), (200, 214, 192), np.uint8)  # a pale cyan cloth: most of the brightest tenth
    frame[20:60, 20:50] = (185, 208, 232)  # cream paper under a warm lamp, nearly as light
    frame[100:140, 150:180] = (185, 208, 232)
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)
    cloth = light_cast(frame)
    paper = cv2.cvtColor(np.array([[[185, 208, 232]]], np.uint8), cv2.COLOR_BGR2LAB)[0, 0].astype(float) - 128
    a, b = second_cast(lab, cloth, 8.0)
    assert abs(a - paper[1]) <= 1.5 and abs(b - paper[2]) <= 1.5
    assert second_cast(lab, cloth, 30.0) is None  # no second colour that far off
    assert second_cast(cv2.cvtColor(np.full((60, 80, 3), (200, 214, 192), np.uint8), cv2.COLOR_BGR2LAB), cloth, 8.0) is None


def test_the_frames_lab_once_converted_gives_the_same_whiteness_cast_and_shade() -> None:
    # find_cards converts its working copy to Lab once: Lab is per pixel, so every third or
    # fourth pixel of it is the conversion of those pixels alone.
    rng = np.random.default_rng(7)
    frame = np.full((121, 163, 3), (60, 140, 80), np.uint8)  # green cloth, odd sizes
    frame[:, :60] = (30, 70, 40)  # in a shadow
    frame[20:70, 90:130] = (225, 235, 240)
    frame = cv2.add(frame, rng.integers(0, 12, frame.shape, dtype=np.uint8))
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)
    for cast in (None, (2.0, -3.5)):
        white, own = whiteness(frame, cast)
        white_lab, own_lab = lab_whiteness(lab, cast)
        # (OpenCV's vector loops round the last float bit by how the arrays lie in memory.)
        assert own_lab == own and np.allclose(white_lab, white, rtol=1e-6, atol=1e-4)
    assert light_cast(frame, 0.02, lab) == light_cast(frame, 0.02)
    light = shade(frame)
    assert light is not None and light.min() < 0.9  # the shadow is seen
    assert np.array_equal(shade(frame, lab), light)


@pytest.mark.parametrize("count", [1, 64, 32768, 32769, 518400, 100_003])
def test_pixel_runs_cover_every_pixel_in_order_each_running_on_into_the_next(count) -> None:
    runs = pixel_runs(count)
    assert runs[0][0] == 0 and runs[-1][1] == count and all(stop < count for _, stop in runs[:-1])
    for (start, stop), (after, _) in zip(runs, runs[1:]):
        assert start < after and stop - after == 64  # the next run writes the last 64 again
