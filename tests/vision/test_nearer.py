"""A closer look where rows go on: boxes swept alone find the cards the whole frame's sweep missed."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.seats import Seat
from tests.vision.test_find import card_corners, match, scene
from vision.arrange import arrange_rows
from vision.find import find_closer, working_copy
from vision.hidden import look_at_table
from vision.nearer import cards_nearer
from vision.pipeline import read_quad
from vision.quads import CardQuad

XS = (100, 190, 280, 370, 460)  # a row of five cards, 80 x 120 px, 10 px apart
SEATS = [Seat("Anna", (280, 395)), Seat("Ben", (280, 5))]


def card(x: float, y: float = 270) -> np.ndarray:
    return cv2.boxPoints(((x, y), (80, 120), 0)).astype(np.float32)


def shadowed(table_bgr, xs=XS, shade: float = 0.35) -> np.ndarray:
    """The row on a table, a soft shadow (an arm held above) over its 4th card."""
    image = scene([card(x) for x in xs], size_wh=(640, 400), table_bgr=table_bgr).astype(np.float32)
    yy, xx = np.mgrid[0:400, 0:640]
    image *= (1 - shade * np.exp(-(((xx - 370) / 70.0) ** 2 + ((yy - 270) / 110.0) ** 2)))[..., None]
    return np.clip(image, 0, 255).astype(np.uint8)


def test_a_card_in_a_soft_shadow_on_a_pale_grey_table_is_found_by_a_box_swept_alone() -> None:
    # Paper in the shadow is as grey as the lit table: the whole frame's levels pass it over.
    image = shadowed((180, 185, 190))
    found = find_closer(image, [(250, 130, 490, 410)])
    assert len(found) == 1
    assert max(match(found[0], [card(370)], image.shape[:2])) > 0.9


def test_a_closer_look_finds_a_card_in_a_shadow_hardly_whiter_than_the_cloth() -> None:
    # In a box around a row's end, a lit card beside a card in a shadow whose paper is just
    # whiter than the grey cloth: the shaded card stands out only between two of the first
    # sweep's eight steps; at the second look's finer steps it is found (fresh dev hard 642).
    rng = np.random.default_rng(0)
    image = np.full((300, 400, 3), 96, np.float32)  # a grey cloth
    lit, shaded = card_corners((300, 150), (70, 100), 3), card_corners((130, 150), (70, 100), -4)
    cv2.fillConvexPoly(image, lit.astype(np.int32), (235, 238, 240), lineType=cv2.LINE_AA)
    cv2.fillConvexPoly(image, shaded.astype(np.int32), (110, 110, 110), lineType=cv2.LINE_AA)
    for corners in (lit, shaded):
        middle = corners.mean(axis=0).astype(int)
        cv2.circle(image, tuple(middle + [0, -20]), 8, (40, 40, 200), -1, cv2.LINE_AA)
        cv2.circle(image, tuple(middle + [0, 20]), 8, (40, 40, 40), -1, cv2.LINE_AA)
    image = np.clip(cv2.GaussianBlur(image, (3, 3), 0) + rng.normal(0, 2, image.shape), 0, 255).astype(np.uint8)
    found = find_closer(image, [(0, 0, 400, 300)])[0]
    assert match(found, [lit, shaded], image.shape[:2])[1] > 0.9


def test_a_box_of_bare_table_holds_no_card() -> None:
    image = shadowed((180, 185, 190))
    assert find_closer(image, [(500, 0, 640, 400), (0, 0, 640, 120)]) == [[], []]


def _nearer(image: np.ndarray, seen_xs) -> list:
    """``cards_nearer`` given the cards of the row at ``seen_xs`` as found (read from the image)."""
    cards = [read_quad(image, CardQuad(card(x), 1.0)) for x in seen_xs]
    rows = arrange_rows([c.corners_xy for c in cards], SEATS, (640, 400))
    look, top = look_at_table(image, [c.corners_xy for c in cards])
    return cards_nearer(image, cards, rows, SEATS, look, top, [c.corners_xy for c in cards], working_copy(image))


@pytest.mark.parametrize("table_bgr", [(60, 110, 150), (60, 110, 60), (140, 140, 140)], ids=["teal", "green felt", "grey paint"])
def test_a_rows_cards_missed_in_a_gap_and_beyond_its_end_are_found_and_read(table_bgr) -> None:
    image = shadowed(table_bgr)
    found = _nearer(image, (100, 190, 280))  # (the 4th, in the shadow, and the 5th missed)
    assert sorted(round(c.center_xy[0] / 10) * 10 for c in found) == [370, 460]
    assert all(c.reading.criteria is not None for c in found)
    found = _nearer(image, (100, 190, 460))  # (a gap of two cards)
    assert sorted(round(c.center_xy[0] / 10) * 10 for c in found) == [280, 370]


def test_nothing_is_found_where_the_row_ends_on_bare_table() -> None:
    image = shadowed((170, 180, 200))
    assert _nearer(image, XS) == []


def test_a_piece_of_a_card_beside_a_hand_is_no_card() -> None:
    # The 5th card half under a hand: its part in view is no card's size.
    image = shadowed((170, 180, 200))
    cv2.ellipse(image, (490, 270), (75, 110), 0, 0, 360, (60, 90, 150), -1, cv2.LINE_AA)
    assert _nearer(image, XS[:4]) == []


def test_the_lone_card_of_a_player_whose_row_was_not_found_is_found_before_their_seat() -> None:
    # Ben (top) has one card, missed; Anna's row and Cem's are found: his card lies about as far
    # from his edge as theirs from theirs.
    seats = [*SEATS, Seat("Cem", (635, 150))]
    cem = [cv2.boxPoints(((560, y), (80, 120), 90)).astype(np.float32) for y in (100, 190)]
    image = scene([*(card(x) for x in XS), *cem, card(300, 130)], size_wh=(640, 400), table_bgr=(170, 180, 200))
    cards = [read_quad(image, CardQuad(quad, 1.0)) for quad in [*(card(x) for x in XS), *cem]]
    rows = arrange_rows([c.corners_xy for c in cards], seats, (640, 400))
    assert sorted(row.player for row in rows) == ["Anna", "Cem"]
    look, top = look_at_table(image, [c.corners_xy for c in cards])
    found = cards_nearer(image, cards, rows, seats, look, top, [c.corners_xy for c in cards], working_copy(image))
    assert [tuple(np.round(np.array(c.center_xy) / 10) * 10) for c in found] == [(300, 130)]


def test_a_lone_card_near_the_camera_is_found_though_the_few_cards_in_view_lie_far_off_and_look_smaller() -> None:
    # Ben's row of three across the table, far from a tilted camera: 60 x 90 px. Anna's lone
    # card, missed, lies near the camera: 78 x 117 px, 1.7 times their area.
    seats = [Seat("Anna", (320, 395)), Seat("Ben", (320, 5))]
    ben = [cv2.boxPoints(((x, 80), (60, 90), 0)).astype(np.float32) for x in (250, 320, 390)]
    anna = cv2.boxPoints(((320, 300), (78, 117), 0)).astype(np.float32)
    image = scene([*ben, anna], size_wh=(640, 400), table_bgr=(60, 110, 60))
    cards = [read_quad(image, CardQuad(quad, 1.0)) for quad in ben]
    rows = arrange_rows([c.corners_xy for c in cards], seats, (640, 400))
    assert [row.player for row in rows] == ["Ben"]
    look, top = look_at_table(image, [c.corners_xy for c in cards])
    found = cards_nearer(image, cards, rows, seats, look, top, [c.corners_xy for c in cards], working_copy(image))
    assert [tuple(np.round(np.array(c.center_xy) / 10) * 10) for c in found] == [(320, 300)]
