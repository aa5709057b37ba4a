"""Rows found among synthetic cards: neighbours' rows cut apart, a row parted by a hidden card joined again."""

import cv2
import numpy as np
import pytest

from calibration.rows import row_chains
from vision.arrange import card_geometry

SIZE_WH = (1000, 800)
CENTRE = (500.0, 400.0)
SHORT, LONG = 60.0, 90.0
TABLE_BGR = (40, 110, 60)
HAND_BGR = (120, 160, 210)


def card(x: float, y: float = 700.0) -> np.ndarray:
    """An upright card centred at (x, y), corners clockwise from the top left (first edge a short side)."""
    return np.array([[x - SHORT / 2, y - LONG / 2], [x + SHORT / 2, y - LONG / 2],
                     [x + SHORT / 2, y + LONG / 2], [x - SHORT / 2, y + LONG / 2]], np.float64)


def row(start: float, count: int, gap: float = 0.2, y: float = 700.0) -> list[np.ndarray]:
    """``count`` upright cards left to right from ``start``, ``gap`` short sides apart."""
    return [card(start + k * SHORT * (1 + gap), y) for k in range(count)]


def photo(quads: list[np.ndarray], hands: list[np.ndarray] = ()) -> np.ndarray:
    """A plain table (with a little seeded noise), white cards, and hand-coloured patches over them."""
    rng = np.random.default_rng(6)
    frame = np.clip(np.full((SIZE_WH[1], SIZE_WH[0], 3), TABLE_BGR, np.float64) + rng.normal(0, 3, (SIZE_WH[1], SIZE_WH[0], 3)),
                    0, 255).astype(np.uint8)
    for quad in quads:
        cv2.fillPoly(frame, [np.round(quad).astype(np.int32)], (235, 235, 235))
    for hand in hands:
        cv2.fillPoly(frame, [np.round(hand).astype(np.int32)], HAND_BGR)
    return frame


def rows_of(quads: list[np.ndarray], frame: np.ndarray | None = None) -> list[list[int]]:
    return sorted(sorted(chain) for chain in row_chains(quads, CENTRE, None, SIZE_WH, frame))


@pytest.mark.parametrize(
    "quads, expected",
    [
        (row(200, 5), [[0, 1, 2, 3, 4]]),
        (row(200, 3) + row(200 + 2 * SHORT * 1.2 + SHORT * 1.73, 3), [[0, 1, 2], [3, 4, 5]]),
        (row(200, 4) + row(200 + 4 * SHORT * 1.2, 2, y=700 - 0.2 * LONG), [[0, 1, 2, 3], [4, 5]]),
        (row(200, 4) + row(200, 1, y=100), [[0, 1, 2, 3], [4]]),
        (row(200, 4) + row(200 + 4 * SHORT * 1.2 - 0.3 * SHORT, 3), [[0, 1, 2, 3], [4, 5, 6]]),
    ],
    ids=["one row", "neighbours' rows a wide gap apart", "neighbours' rows touching, one nearer the middle",
         "a row and a lone card at the far edge", "neighbours' rows on one line, the first card of one on the other's last"],
)
def test_touching_rows_of_neighbours_are_cut_apart_and_a_row_is_kept_whole(quads, expected) -> None:
    assert rows_of(quads) == expected



def scattered_row(start: float, count: int, seed: int) -> list[np.ndarray]:
    """``count`` cards as a player lays them: each up to 0.04 long sides off the row's line
    (seeded), about the scatter of a row's cards seen in the photos."""
    rng = np.random.default_rng(seed)
    return [card(start + k * SHORT * 1.2, 700.0 + float(rng.uniform(-0.04, 0.04)) * LONG) for k in range(count)]


@pytest.mark.parametrize(
    "quads, expected",
    [
        (row(150, 4) + row(150 + 4 * SHORT * 1.2, 4, y=700 - 0.13 * LONG), [[0, 1, 2, 3], [4, 5, 6, 7]]),
        (scattered_row(150, 8, seed=3), [[0, 1, 2, 3, 4, 5, 6, 7]]),
        (scattered_row(150, 8, seed=11), [[0, 1, 2, 3, 4, 5, 6, 7]]),
    ],
    ids=["two neighbours' rows end to end, an eighth of a long side apart", "one row's cards scattered",
         "another row's cards scattered"],
)
def test_neighbours_rows_end_to_end_are_told_apart_by_their_lines_not_by_a_rows_own_scatter(quads, expected) -> None:
    # The gap where the rows meet is no wider than a row's own: only the two lines tell them apart.
    assert rows_of(quads) == expected

def hand_over(quad: np.ndarray) -> np.ndarray:
    """A hand and arm over a card, reaching in from the bottom edge."""
    x = quad.mean(axis=0)[0]
    return np.array([[x - 40, quad[0, 1] - 10], [x + 40, quad[0, 1] - 10], [x + 45, SIZE_WH[1]], [x - 45, SIZE_WH[1]]])


def test_a_row_parted_by_a_card_under_a_hand_is_one_row() -> None:
    # Five cards, the third under a hand: the gap is a card wide and shows the hand.
    whole = row(200, 5)
    seen = whole[:2] + whole[3:]
    hand = hand_over(whole[2])
    assert rows_of(seen, photo(seen, [hand])) == [[0, 1, 2, 3]]


def test_neighbours_rows_a_card_apart_over_bare_table_stay_apart() -> None:
    # The same gap, but nothing in it: two players' rows on one edge.
    whole = row(200, 5)
    seen = whole[:2] + whole[3:]
    assert rows_of(seen, photo(seen)) == [[0, 1], [2, 3]]
    assert rows_of(seen) == [[0, 1], [2, 3]]  # without the photo, pieces are never joined



def hand_over_cards(first: np.ndarray, last: np.ndarray) -> np.ndarray:
    """A hand and arm over the cards from ``first`` to ``last`` side by side, reaching in from the bottom edge."""
    left, right = first[0, 0] - 0.1 * SHORT, last[1, 0] + 0.1 * SHORT
    return np.array([[left, first[0, 1] - 10], [right, first[0, 1] - 10], [right, SIZE_WH[1]], [left, SIZE_WH[1]]])


@pytest.mark.parametrize(
    "covered, expected",
    [(3, [[0, 1, 2, 3, 4]]), (2, [[0, 1], [2, 3, 4]])],
    ids=["all three hidden cards under a hand", "a hand over two, the third card's room bare table"],
)
def test_a_gap_with_room_for_three_cards_joins_a_row_only_where_each_may_hide_one(covered, expected) -> None:
    # Eight cards in a row, the third to fifth unseen: a hand over all three is one player's
    # row; bare table where the fifth would lie is two players' rows, the hand a neighbour's.
    whole = row(200, 8, gap=0.1)
    seen = whole[:2] + whole[5:]
    hand = hand_over_cards(whole[2], whole[1 + covered])
    assert rows_of(seen, photo(seen, [hand])) == expected

def test_a_card_seen_in_the_gap_of_a_row_joined_across_it_is_in_that_row() -> None:
    # Six cards: the fourth under a hand, the third turned too far to chain with its
    # neighbours. The pieces either side are joined across both; the turned card between
    # them is the row's too, in its place, not a row of its own.
    whole = row(200, 6)
    seen = whole[:2] + [turned(whole[2], 30.0)] + whole[4:]
    hand = hand_over(whole[3])
    assert row_chains(seen, CENTRE, None, SIZE_WH, photo(seen, [hand])) in ([[0, 1, 2, 3, 4]], [[4, 3, 2, 1, 0]])


def test_a_hidden_card_joins_no_pieces_into_a_row_longer_than_eight() -> None:
    whole = row(100, 9, gap=0.1)
    seen = whole[:4] + whole[5:]
    hand = hand_over(whole[4])
    assert rows_of(seen, photo(seen, [hand])) == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_card_geometry_measures_sides_and_refuses_a_wrong_shape() -> None:
    geo = card_geometry([card(100, 200)])
    assert geo.shorts[0] == pytest.approx(SHORT) and geo.longs[0] == pytest.approx(LONG)
    assert np.allclose(geo.short_axes[0], (1, 0)) and np.allclose(geo.centres[0], (100, 200))
    with pytest.raises(ValueError, match=r"quads must be \(N, 4, 2\), got shape \(1, 3, 2\)"):
        type(geo)(np.zeros((1, 3, 2)), geo.centres, geo.short_axes, geo.shorts, geo.longs)


# A wide, shallow table top: the rows' cards lie about a card's length in from its edge.
SHALLOW_TABLE = np.array([(100, 150), (900, 150), (900, 650), (100, 650)], np.float64)


@pytest.mark.parametrize(
    "y, expected",
    [(545.0, [[0]]), (400.0, []), (500.0, [])],
    ids=["a card's length in from the edge, short of the middle's share", "in the middle", "two lengths in"],
)
def test_a_lone_card_is_a_row_only_near_the_table_edge(y, expected) -> None:
    quads = [card(500.0, y)]
    assert row_chains(quads, SHALLOW_TABLE.mean(axis=0), SHALLOW_TABLE) == expected


def turned(quad: np.ndarray, degrees: float) -> np.ndarray:
    """A card turned about its centre (clockwise on screen for positive degrees)."""
    a = np.radians(degrees)
    centre = quad.mean(axis=0)
    return (quad - centre) @ np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]) + centre


def test_a_row_parted_by_a_hand_whose_finger_reaches_in_over_the_table_is_one_row() -> None:
    # The hand over the third card; one finger reaches in past the row beside the second card,
    # over the table the gap is compared with: a few of its pixels look like the hand.
    whole = row(200, 5)
    seen = whole[:2] + whole[3:]
    palm = np.array([[304, 655], [384, 655], [384, SIZE_WH[1]], [304, SIZE_WH[1]]], np.float64)
    finger = np.array([[292, 600], [300, 600], [300, 660], [292, 660]], np.float64)
    assert rows_of(seen, photo(seen, [palm, finger])) == [[0, 1, 2, 3]]


def test_neighbours_rows_on_two_lines_stay_apart_under_a_hand_over_the_gap() -> None:
    # Two players' rows a card apart, the second a third of a card's length nearer the middle,
    # and a hand between them: the gap hides no card of either row.
    left = row(200, 2)
    right = row(200 + 3 * SHORT * 1.2, 2, y=700 - 0.3 * LONG)
    seen = left + right
    assert rows_of(seen, photo(seen, [hand_over(card(200 + 2 * SHORT * 1.2))])) == [[0, 1], [2, 3]]


def test_two_lone_cards_of_a_row_turned_apart_are_joined_across_two_hidden_cards() -> None:
    # The row's first and fourth cards, turned 7 degrees either way; a hand over the two between.
    whole = row(200, 4)
    seen = [turned(whole[0], 7.0), turned(whole[3], -7.0)]
    hand = np.array([[240, 645], [376, 645], [376, SIZE_WH[1]], [240, SIZE_WH[1]]], np.float64)
    assert rows_of(seen, photo(seen, [hand])) == [[0, 1]]


@pytest.mark.parametrize(
    "first_deg, second_deg, expected",
    [(9.0, -9.0, [[0, 1]]), (-9.0, 9.0, [[0, 1]]), (25.0, 25.0, [[0], [1]])],
    ids=["turned 9 degrees apart either way", "the other way", "both turned 25 degrees off the line through them"],
)
def test_two_lone_cards_are_joined_when_each_lies_along_the_line_through_both(first_deg, second_deg, expected) -> None:
    # Each card is turned from its row only as it was laid; two such turns add up, so the
    # cards are each held to the line through their centres, not to each other.
    whole = row(200, 4)
    seen = [turned(whole[0], first_deg), turned(whole[3], second_deg)]
    hand = np.array([[240, 645], [376, 645], [376, SIZE_WH[1]], [240, SIZE_WH[1]]], np.float64)
    assert rows_of(seen, photo(seen, [hand])) == expected


def squat(x: float, y: float) -> np.ndarray:
    """The uncovered part of a card lying sideways: a quad nearly square, its short side upright."""
    return np.array([[x - 40, y - 35], [x + 40, y - 35], [x + 40, y + 35], [x - 40, y + 35]], np.float64)[[3, 0, 1, 2]]


@pytest.mark.parametrize(
    "quad, expected",
    [
        (turned(card(250.0, 400.0), 90.0), [[0]]),
        (turned(card(250.0, 400.0), 115.0), [[0]]),
        (card(250.0, 400.0), []),
        (turned(card(300.0, 400.0), 90.0), []),
        (squat(250.0, 400.0), []),
    ],
    ids=["half way out, lying towards the left border", "turned 25 degrees from it", "lying along the border",
         "in the pool's reach", "nearly square"],
)
def test_without_the_table_top_a_lone_card_facing_the_nearest_border_half_way_out_is_a_row(quad, expected) -> None:
    # The table's edge may lie anywhere between the card and the photo's border: a card
    # nearly three lengths in from the border, half way out from the middle.
    assert rows_of([quad]) == expected


@pytest.mark.parametrize(
    "quad, expected",
    [
        (card(500.0, 545.0), [[0]]),
        (turned(card(500.0, 545.0), 20.0), [[0]]),
        (turned(card(500.0, 545.0), 90.0), []),
        (turned(card(500.0, 545.0), 50.0), []),
        (card(160.0, 545.0), [[0]]),
    ],
    ids=["facing the edge", "turned 20 degrees", "lying along the edge", "turned 50 degrees",
         "facing its edge in a corner, nearer the side edge"],
)
def test_a_lone_card_is_a_row_only_when_it_faces_the_edge(quad, expected) -> None:
    # A player's lone card lies with its length towards them; a pool card lies every way.
    assert row_chains([quad], SHALLOW_TABLE.mean(axis=0), SHALLOW_TABLE) == expected


def test_without_the_table_top_a_lone_card_pointing_straight_out_from_the_middle_is_a_row() -> None:
    # Up and left of the middle, nearer the top border than the left one, its length along the
    # line from the middle through it (to the left border, half as far again as the top one).
    out = np.degrees(np.arctan2(200.0, 270.0))
    assert rows_of([turned(card(230.0, 200.0), 90.0 + out)]) == [[0]]
    # Straight up from the middle, lying along the top border: no row.
    assert rows_of([turned(card(500.0, 200.0), 90.0)]) == []


# A narrow hand over the third of five cards: it covers little more than half the gap, the
# rest shows the bare table.
NARROW_HAND = np.array([[300, 655], [350, 655], [350, SIZE_WH[1]], [300, SIZE_WH[1]]], np.float64)


@pytest.mark.parametrize(
    "seen, expected",
    [
        (row(200, 2) + row(200 + 3 * SHORT * 1.2, 2), [[0, 1, 2, 3]]),
        (row(200, 2) + row(200 + 3 * SHORT * 1.2, 2, y=700 - 0.2 * LONG), [[0, 1], [2, 3]]),
        (row(200 + SHORT * 1.2, 1) + row(200 + 3 * SHORT * 1.2, 1), [[0], [1]]),
    ],
    ids=["two pairs on one line", "two pairs a fifth of a length apart", "two lone cards"],
)
def test_pieces_on_one_line_are_joined_over_a_gap_only_partly_hidden(seen, expected) -> None:
    # Four cards on one line tell a row by themselves, so a gap half hidden is enough; two
    # pieces off each other's line, or two lone cards (whose line is the one through them),
    # need a gap mostly hidden.
    assert rows_of(seen, photo(seen, [NARROW_HAND])) == expected


def test_a_row_is_joined_to_the_uncovered_part_of_its_next_card_whichever_way_that_part_is_longer() -> None:
    # Two cards, a hand over the third, and only a nearly square part of the fourth in view,
    # wider than tall: its short side does not say which way the row runs.
    whole = row(200, 4)
    seen = whole[:2] + [squat(416.0, 700.0)]
    assert rows_of(seen, photo(seen, [hand_over(whole[2])])) == [[0, 1, 2]]


@pytest.mark.parametrize("count, expected", [(4, [[0, 1, 2, 3]]), (3, [])], ids=["four cards", "three cards"])
def test_four_cards_side_by_side_are_a_row_even_nearer_the_middle_than_rows_lie(count, expected) -> None:
    # Two of a long side in from the edge, short of half way out: a lone card or a pair here
    # may be the pool's, but the pool is a heap, not four cards on one line.
    quads = row(380, count, y=300.0)
    assert sorted(sorted(r) for r in row_chains(quads, SHALLOW_TABLE.mean(axis=0), SHALLOW_TABLE)) == expected


# A large table top: six of a card's long sides from its middle to the top and bottom edges.
LARGE_TABLE = np.array([(0, 0), (1400, 0), (1400, 1200), (0, 1200)], np.float64)


@pytest.mark.parametrize(
    "quads, expected",
    [
        (row(500, 3, y=1110.0) + [card(700.0, 228.0)], [[0, 1, 2]]),
        (row(500, 3, y=1110.0) + [card(700.0, 90.0)], [[0, 1, 2], [3]]),
        ([card(700.0, 228.0)], [[0]]),
    ],
    ids=["a lone card two and a half lengths in, a row one in", "a lone card as far in as the row",
         "a lone card two and a half lengths in, no longer row"],
)
def test_a_lone_card_far_further_in_from_the_edge_than_every_longer_row_is_no_row(quads, expected) -> None:
    # Well out from the middle (0.62 of the way to the edge) and facing the edge, but players
    # lay their rows in a band along the edge: one lying a card's length and more further in
    # than the other rows is a pool card.
    found = row_chains(quads, LARGE_TABLE.mean(axis=0), LARGE_TABLE)
    assert sorted(sorted(r) for r in found) == expected
