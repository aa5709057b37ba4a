"""The annotation's ranking panel and labels: readable, whole, and off the cards where a corner allows."""

import cv2
import numpy as np
import pytest

from vision.annotate import draw_label, draw_panel


def dimmed(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    return (after.astype(int) < before.astype(int) - 50).any(axis=2)


def test_the_panel_goes_top_left_on_a_bare_table_and_leaves_the_input_alone() -> None:
    image = np.full((400, 600, 3), 200, np.uint8)
    out = draw_panel(image, "Ranking", ["1. Anna: 3 cards, 9 symbols"])
    assert (image == 200).all()
    ys, xs = np.nonzero(dimmed(image, out))
    assert ys.min() == 0 and xs.min() == 0 and xs.max() < 450


def test_the_panel_moves_to_a_corner_without_cards() -> None:
    image = np.full((400, 600, 3), 200, np.uint8)
    card = lambda x, y: np.array([[x, y], [x + 60, y], [x + 60, y + 90], [x, y + 90]], np.float64)  # noqa: E731
    # Cards near the top-left and the top-right corners: the panel goes bottom-left.
    out = draw_panel(image, "Ranking", ["1. Anna"], [card(10, 10), card(520, 20)])
    ys, xs = np.nonzero(dimmed(image, out))
    assert ys.max() == 399 and xs.min() == 0


def test_the_panel_leaves_the_corners_when_each_holds_a_card() -> None:
    # A row's last cards under the ranking hid its first error's words (the rulebook table).
    image = np.full((400, 600, 3), 200, np.uint8)
    card = lambda x, y: np.array([[x, y], [x + 60, y], [x + 60, y + 90], [x, y + 90]], np.float64)  # noqa: E731
    cards = [card(10, 10), card(530, 10), card(10, 300), card(530, 300)]
    out = draw_panel(image, "Ranking", ["1. Anna"], cards)
    ys, xs = np.nonzero(dimmed(image, out))
    assert len(ys) > 0
    for quad in cards:
        (left, top), (right, bottom) = quad.min(axis=0), quad.max(axis=0)
        assert not ((xs >= left) & (xs <= right) & (ys >= top) & (ys <= bottom)).any()


@pytest.mark.parametrize("origin_xy", [(5, 100), (395, 100), (200, 2), (200, 198)], ids=["left", "right", "top", "bottom"])
def test_a_label_at_the_image_edge_is_drawn_whole_inside_it(origin_xy) -> None:
    # A row's reason under a card at the left edge was cut: "d card: 5 symbols, like the 1st".
    image = np.zeros((200, 400, 3), np.uint8)
    draw_label(image, "2nd card: 5 symbols", origin_xy, 0.6, background_bgr=(0, 0, 255))
    red = np.argwhere((image == (0, 0, 255)).all(axis=2))
    (y0, x0), (y1, x1) = red.min(axis=0), red.max(axis=0)
    (w, h), base = cv2.getTextSize("2nd card: 5 symbols", cv2.FONT_HERSHEY_SIMPLEX, 0.6, 1)
    pad = 2
    # The whole box is drawn (none of it cut off by the border), so it holds the whole text.
    assert (x1 - x0, y1 - y0) == (w + 2 * pad, h + base + pad + pad // 2)


def test_a_place_where_a_card_may_lie_covered_is_outlined_and_asked_about() -> None:
    from dataclasses import replace

    from vision.annotate import RowOverlay, draw_rows

    card = np.array([(100, 100), (160, 100), (160, 190), (100, 190)], np.float32)
    place = card + np.array([80, 0], np.float32)
    plain = RowOverlay("Anna", (card,), 1, None, "", True)
    frame = np.full((300, 400, 3), 90, np.uint8)
    without, with_place = draw_rows(frame, [plain]), draw_rows(frame, [replace(plain, hidden=(place,))])
    inside = (slice(100, 191), slice(180, 241))
    assert np.all(without[inside] == 90) and np.any(with_place[inside] != 90)


def test_a_label_keeps_clear_of_the_labels_drawn_before_it() -> None:
    # A row along the top edge had its title under its first error's words (the hard rulebook table).
    image = np.zeros((200, 400, 3), np.uint8)
    taken: list[tuple[int, int, int, int]] = []
    first = draw_label(image, "4th card: 2 colours, like the 3rd", (200, 100), 0.6, background_bgr=(0, 0, 255), taken=taken)
    second = draw_label(image, "Cem: 3 - check!", (190, 104), 0.6, background_bgr=(255, 0, 255), taken=taken)
    assert taken == [first, second]
    assert first[3] <= second[1] or second[3] <= first[1]  # one above the other, not over it
    assert abs((second[1] + second[3]) / 2 - 104) < 2 * (second[3] - second[1])  # and near where it was asked for
    red = (image == (0, 0, 255)).all(axis=2)
    assert red[first[1]:first[3], first[0]:first[2]].mean() > 0.5  # the first is still seen


def test_a_rows_title_and_reason_keep_off_each_other_and_are_handed_to_the_panel() -> None:
    from vision.annotate import RowOverlay, draw_rows

    # A row along the image's top edge, its error card highest: its title goes below the row,
    # where the words under that card would reach.
    cards = tuple(np.array([(x, y), (x + 60, y), (x + 60, y + 90), (x, y + 90)], np.float32)
                  for x, y in ((40, 45), (110, 5), (180, 45)))
    row = RowOverlay("Cem", cards, 1, 1, "2nd card: 2 colours and 3 symbols, like the 1st", True)
    labels: list[tuple[int, int, int, int]] = []
    draw_rows(np.full((300, 400, 3), 90, np.uint8), [row], labels)
    assert len(labels) == 5  # three numbers, the title and the reason
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)


def test_a_card_to_look_at_has_a_question_mark_after_its_number() -> None:
    from dataclasses import replace

    from vision.annotate import RowOverlay, draw_rows

    cards = tuple(np.array([(x, 100), (x + 60, 100), (x + 60, 190), (x, 190)], np.float32) for x in (60, 140))
    plain = RowOverlay("Anna", cards, 2, None, "", True)
    frame = np.full((300, 300, 3), 90, np.uint8)
    without, with_mark = draw_rows(frame, [plain]), draw_rows(frame, [replace(plain, doubtful=(1,))])
    # The label of the 2nd card grows by the mark; the 1st card's stays as it was.
    assert np.array_equal(without[:, :130], with_mark[:, :130])
    assert (with_mark[100:190, 140:200] != without[100:190, 140:200]).any(axis=2).sum() > 20
