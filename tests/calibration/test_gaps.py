"""Whether a gap between two pieces of a row shows the bare table: patterned tables, and a hand over both."""

import numpy as np

from calibration.gaps import paper_share, table_look, table_share

GAP = np.array([(100, 100), (160, 100), (160, 200), (100, 200)], np.float64)
BESIDE = [np.array([(0, 220), (300, 220), (300, 260), (0, 260)], np.float64)]


def striped(height: int = 300, width: int = 320) -> np.ndarray:
    """A table of wide stripes in two colours, a little noise over it."""
    rng = np.random.default_rng(3)
    frame = np.where((np.arange(width) // 20 % 2 == 0)[None, :, None], (40, 90, 200), (230, 230, 240)).astype(np.float64)
    frame = np.broadcast_to(frame, (height, width, 3)) + rng.normal(0, 3, (height, width, 3))
    return np.clip(frame, 0, 255).astype(np.uint8)


def test_a_gap_over_a_striped_table_is_the_table() -> None:
    assert table_share(table_look(striped()), GAP, BESIDE) > 0.9


def test_a_hand_over_the_gap_is_no_table_though_a_finger_reaches_over_the_table_beside() -> None:
    frame = striped()
    frame[100:201, 100:161] = (120, 160, 210)  # the hand over the gap
    frame[215:262, 281:290] = (120, 160, 210)  # a finger over the table beside: 3% of it
    assert table_share(table_look(frame), GAP, BESIDE) < 0.1


def test_a_card_seen_in_the_gap_is_left_out_and_the_rest_judged() -> None:
    frame = striped()
    frame[100:201, 100:161] = (235, 242, 245)  # a card over the gap's left part
    frame[100:201, 140:161] = (120, 160, 210)  # a hand over its right part
    card = np.array([(100, 100), (139, 100), (139, 200), (100, 200)], np.float64)
    assert table_share(table_look(frame), GAP, BESIDE, [card]) < 0.1
    frame[100:201, 140:161] = striped()[100:201, 140:161]  # the bare table beside the card
    assert table_share(table_look(frame), GAP, BESIDE, [card]) > 0.8
    assert table_share(table_look(frame), GAP, BESIDE) < 0.5



def test_a_cards_paper_in_the_gap_is_told_by_the_rows_cards_middles_their_symbols_aside() -> None:
    frame = np.full((300, 320, 3), (60, 110, 70), np.uint8)  # a green table
    row = [np.array([(x, 20), (x + 60, 20), (x + 60, 90), (x, 90)], np.float64) for x in (20, 100, 180)]
    for quad in row:
        x0, y0 = quad[0].astype(int)
        frame[y0:y0 + 71, x0:x0 + 61] = (235, 242, 245)
        frame[y0 + 25:y0 + 45, x0 + 20:x0 + 40] = (40, 40, 200)  # a red symbol in each middle
    frame[100:201, 100:130] = (235, 242, 245)  # a card's sliver in the gap's left half
    frame[100:201, 130:161] = (120, 160, 210)  # a hand over the rest
    share = paper_share(table_look(frame), GAP, row)
    assert 0.4 < share < 0.6
    frame[100:201, 100:130] = (40, 40, 200)  # a red sleeve, like the symbols: no paper
    assert paper_share(table_look(frame), GAP, row) < 0.05

def test_pixels_are_the_whole_blurred_copy_in_lab_though_only_their_box_is_blurred() -> None:
    import cv2

    from calibration.gaps import lab_pixels

    rng = np.random.default_rng(5)
    frame = cv2.GaussianBlur((rng.random((300, 320, 3)) * 255).astype(np.uint8), (0, 0), 2.0)
    look = table_look(frame)
    whole = cv2.cvtColor(cv2.GaussianBlur(frame, (0, 0), 1.0), cv2.COLOR_BGR2LAB).astype(np.float32)
    for box in (GAP, np.array([(0, 0), (40, 0), (40, 30), (0, 30)], np.float64), BESIDE[0]):  # inside, at the corner, across
        x0, y0 = box.min(axis=0).astype(int)
        x1, y1 = box.max(axis=0).astype(int) + 1
        assert np.array_equal(lab_pixels(look, [box], 10**6), whole[y0:y1, x0:x1].reshape(-1, 3))


def test_alike_weighs_each_distinct_colour_as_often_as_it_comes() -> None:
    """``alike`` compares each distinct Lab value once: the same answers as every pixel against every pixel."""
    from calibration.gaps import _ALIKE, alike

    rng = np.random.default_rng(7)
    # Forty colours, each repeated ten times over (as in a blurred copy); the reference near them.
    palette = rng.integers(100, 140, (40, 3))
    pixels = palette[rng.integers(0, 40, 400)].astype(np.float32)
    reference = (palette[rng.integers(0, 40, 300)] + rng.integers(-3, 4, (300, 3))).astype(np.float32)
    distances = np.linalg.norm(pixels[:, None, :] - reference[None, :, :], axis=2)
    for common in (0.02, 0.05, 0.1):
        expected = (distances < _ALIKE).mean(axis=1) >= common
        assert np.array_equal(alike(pixels, reference, common), expected)
    assert 0 < int((alike(pixels, reference, 0.05)).sum()) < len(pixels)


def grained(height: int = 300, width: int = 320) -> np.ndarray:
    """A wood of fine grain: stripes in eight shades of brown, each a few pixels wide."""
    shades = np.array([(40 + 12 * k, 80 + 14 * k, 120 + 14 * k) for k in range(8)], np.float64)
    frame = shades[(np.arange(width) // 6) * 5 % 8][None, :, :].repeat(height, axis=0)
    return frame.astype(np.uint8)


def test_a_hand_of_the_tables_colour_shows_few_of_its_colours() -> None:
    from calibration.gaps import table_shown

    frame = grained()
    assert table_shown(table_look(frame), GAP, BESIDE) > 0.8  # the bare grain: all its shades
    frame[100:201, 100:161] = (88, 136, 176)  # a hand of one of its middle shades over the gap
    look = table_look(frame)
    assert table_share(look, GAP, BESIDE) > 0.9  # (every pixel of the hand is like much of the table)
    assert table_shown(look, GAP, BESIDE) < 0.3
