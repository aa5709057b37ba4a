"""Seats proposed from the rows of a committed photo reproduce that table's true seats."""

import numpy as np
import pytest

from calibration.areas import find_table_area
from calibration.propose import ProposalError, off_heap, propose_seats, seat_names
from calibration.seats import Seat
from tests.calibration.photos import face_up, photo, true_seats
from vision.arrange import arrange_rows
from vision.bench import match_cards

# Tables whose every row the pipeline reads whole (rows of one card included): the easy tier
# but one photo (a row it splits), and a medium one.
REPRODUCIBLE = ["easy/dev-000", "easy/dev-002", "easy/dev-003", "easy/dev-004", "easy/rulebook", "easy/test-002",
                "easy/test-003", "easy/test-004", "medium/test-002"]


def rows_by_proposal(name: str, seats) -> dict[str, list]:
    """Each proposed seat's row, as true card ids."""
    frame, truth = photo(name)
    corners = [card.corners_xy for card in face_up(name)]
    matched = match_cards([c.astype(float) for c in corners], [np.array(c["corners"]) for c in truth["cards"]])
    return {row.player: [truth["cards"][matched[k]]["id"] if k in matched else None for k in row.cards]
            for row in arrange_rows(corners, seats, (frame.shape[1], frame.shape[0]))}


@pytest.mark.parametrize("name", REPRODUCIBLE)
def test_the_proposal_gives_every_true_row_to_its_true_seat(name) -> None:
    frame, truth = photo(name)
    corners = [card.corners_xy for card in face_up(name)]
    seats = propose_seats(corners, (frame.shape[1], frame.shape[0]), find_table_area(frame, corners))
    assert len(seats) == len(truth["seats"])
    rows = rows_by_proposal(name, seats)
    for true_row in truth["rows"]:
        seat = next(s for s in true_seats(truth) if s.name == true_row["player"])
        nearest = min(seats, key=lambda s: np.hypot(*np.subtract(s.position_xy, seat.position_xy)))
        assert rows.get(nearest.name) == true_row["cards"], f"{true_row['player']}'s row went to {nearest.name}"


def test_seats_are_named_clockwise_from_the_bottom_and_lie_in_the_image() -> None:
    frame, _ = photo("easy/rulebook")
    corners = [card.corners_xy for card in face_up("easy/rulebook")]
    names = ["Anna", "Ben", "Cleo", "Dora", "Emil", "Frieda"]
    seats = propose_seats(corners, (frame.shape[1], frame.shape[0]), players=names)
    assert [s.name for s in seats] == names
    angles = [np.arctan2(s.position_xy[1] - frame.shape[0] / 2, s.position_xy[0] - frame.shape[1] / 2) for s in seats]
    turns = np.diff(np.unwrap(angles))
    assert (turns > 0).all()  # clockwise on screen (y down)
    assert seats[0].position_xy[1] > frame.shape[0] / 2  # the first sits at the bottom
    for seat in seats:
        assert 0 <= seat.position_xy[0] < frame.shape[1] and 0 <= seat.position_xy[1] < frame.shape[0]


def test_a_row_of_cards_on_a_blank_image_gets_a_seat_on_its_outer_side() -> None:
    # Three upright cards side by side below the middle of a 1000x800 image.
    quads = [np.array([[x, 560], [x + 80, 560], [x + 80, 680], [x, 680]], np.float64) for x in (300, 400, 500)]
    seat, _ = propose_seats(quads, (1000, 800))
    assert seat == Seat("Player 1", seat.position_xy)
    assert 400 < seat.position_xy[0] < 500 and seat.position_xy[1] > 680


@pytest.mark.parametrize("table", [None, np.array([(100, 100), (900, 100), (900, 700), (100, 700)], np.float64)],
                         ids=["no table top", "a table top"])
def test_a_table_with_one_row_gets_a_second_seat_across_it(table) -> None:
    # A game has two players at least: the other one's row is hidden, or not laid yet.
    quads = [np.array([[x, 560], [x + 80, 560], [x + 80, 680], [x, 680]], np.float64) for x in (300, 400, 500)]
    players = ["Anna", "Ben"]
    near, across = propose_seats(quads, (1000, 800), table, players)
    assert (near.name, across.name) == ("Anna", "Ben")
    assert across.guessed and not near.guessed  # so that calibrate says so
    edge = 0 if table is None else 100
    assert across.position_xy[1] == pytest.approx(edge, abs=1)  # the far edge, across the middle from the row
    middle = np.array((500, 400) if table is None else table.mean(axis=0))
    assert np.allclose(np.subtract(across.position_xy, middle) / np.linalg.norm(np.subtract(across.position_xy, middle)),
                       -np.subtract(near.position_xy, middle) / np.linalg.norm(np.subtract(near.position_xy, middle)))


@pytest.mark.parametrize(
    "count, players, message",
    [
        (3, ["Anna", "Ben"], "3 names expected, got 2"),
        (1, ["Anna", "Ben"], "1 name expected, got 2"),
        (2, ["Anna", "Anna"], "expected distinct, non-empty names"),
        (2, ["Anna", " "], "expected distinct, non-empty names"),
    ],
    ids=["too few", "too many", "twice", "empty"],
)
def test_a_wrong_list_of_players_is_refused(count, players, message) -> None:
    with pytest.raises(ProposalError, match=message):
        seat_names(count, players)


def test_rows_all_along_one_edge_get_one_more_seat_across_the_table() -> None:
    # Two players' rows on the bottom edge, nothing seen at the top.
    quads = [np.array([[x, 560], [x + 80, 560], [x + 80, 680], [x, 680]], np.float64) for x in (100, 190, 280, 600, 690)]
    seats = propose_seats(quads, (1000, 800))
    assert len(seats) == 3
    bottom = [s for s in seats if s.position_xy[1] > 680]
    (top,) = [s for s in seats if s.position_xy[1] < 400]
    assert len(bottom) == 2 and top.position_xy[1] == pytest.approx(0, abs=1)
    # On the line from the bottom seats' mean through the middle (the image's, without a table top).
    mean = np.mean([s.position_xy for s in bottom], axis=0)
    towards, onwards = np.subtract((500, 400), mean), np.subtract(top.position_xy, (500, 400))
    assert abs(towards[0] * onwards[1] - towards[1] * onwards[0]) < 1e-6 * np.linalg.norm(towards) * np.linalg.norm(onwards)
    assert float(towards @ onwards) > 0


def test_rows_on_two_edges_get_no_seat_more() -> None:
    bottom = [np.array([[x, 560], [x + 80, 560], [x + 80, 680], [x, 680]], np.float64) for x in (300, 390)]
    left = [np.array([[120, y + 80], [120, y], [240, y], [240, y + 80]], np.float64) for y in (300, 390)]
    assert len(propose_seats(bottom + left, (1000, 800))) == 2


def test_named_players_as_many_as_the_rows_get_no_guessed_seat() -> None:
    # Anna and Ben sit side by side at the bottom: the names say nobody sits across.
    quads = [np.array([[x, 560], [x + 80, 560], [x + 80, 680], [x, 680]], np.float64) for x in (100, 190, 280, 600, 690)]
    seats = propose_seats(quads, (1000, 800), players=["Anna", "Ben"])
    assert [s.name for s in seats] == ["Anna", "Ben"] and not any(s.guessed for s in seats)
    assert all(s.position_xy[1] > 680 for s in seats)


def test_more_names_than_seats_seat_the_rest_in_the_widest_stretch_of_the_tables_edge() -> None:
    # One row at the bottom: the guess across the table at the top, then two more named
    # players halfway along the free sides, left and right of the middle.
    quads = [np.array([[x, 560], [x + 80, 560], [x + 80, 680], [x, 680]], np.float64) for x in (300, 400, 500)]
    table = np.array([(100, 100), (900, 100), (900, 700), (100, 700)], np.float64)
    seats = propose_seats(quads, (1000, 800), table, players=["Anna", "Ben", "Cleo", "Dora"])
    assert [s.name for s in seats] == ["Anna", "Ben", "Cleo", "Dora"]
    assert [s.guessed for s in seats] == [False, True, True, True]
    assert seats[0].position_xy[1] > 680  # the row's player at the bottom
    # Clockwise: the left edge, across (the top edge), the right edge, each about halfway between.
    assert seats[1].position_xy[0] == pytest.approx(100, abs=1) and 250 < seats[1].position_xy[1] < 550
    assert seats[2].position_xy[1] == pytest.approx(100, abs=1)
    assert seats[3].position_xy[0] == pytest.approx(900, abs=1) and 250 < seats[3].position_xy[1] < 550


def test_fewer_names_than_rows_leave_the_shortest_row_unseated() -> None:
    # Anna's row of three at the bottom, Ben's two on the left, a lone card on the right.
    bottom = [np.array([[x, 560], [x + 80, 560], [x + 80, 680], [x, 680]], np.float64) for x in (300, 400, 500)]
    left = [np.array([[120, y + 80], [120, y], [240, y], [240, y + 80]], np.float64) for y in (300, 390)]
    lone = [np.array([[760, 340], [880, 340], [880, 420], [760, 420]], np.float64)]
    assert len(propose_seats(bottom + left + lone, (1000, 800))) == 3
    seats = propose_seats(bottom + left + lone, (1000, 800), players=["Anna", "Ben"])
    assert [s.name for s in seats] == ["Anna", "Ben"] and not any(s.guessed for s in seats)
    assert seats[0].position_xy[1] > 680 and seats[1].position_xy[0] < 120


def test_of_two_rows_as_short_the_one_crowding_another_seat_goes() -> None:
    # Two rows of two along the bottom edge, close together, and one of two on the left:
    # with two names, one of the bottom pair goes (the pieces of one row), not the left row.
    bottom = [np.array([[x, 560], [x + 80, 560], [x + 80, 680], [x, 680]], np.float64) for x in (200, 290, 560, 650)]
    left = [np.array([[40, y + 80], [40, y], [160, y], [160, y + 80]], np.float64) for y in (300, 390)]
    seats = propose_seats(bottom + left, (1000, 800), players=["Anna", "Ben"])
    assert len(seats) == 2
    assert sum(s.position_xy[1] > 680 for s in seats) == 1 and sum(s.position_xy[0] < 40 for s in seats) == 1


def test_an_arm_reaching_in_far_from_the_rows_is_a_seat_instead_of_the_guess_across() -> None:
    # One row at the bottom; a hand hides the left player's row, their arm reaching in at (0, 400).
    quads = [np.array([[x, 560], [x + 80, 560], [x + 80, 680], [x, 680]], np.float64) for x in (300, 400, 500)]
    near, arm = propose_seats(quads, (1000, 800), arms_xy=np.array([(0.0, 400.0)]), players=["Anna", "Ben"])
    assert (near.name, arm.name) == ("Anna", "Ben") and arm.position_xy == (0.0, 400.0)
    assert arm.guessed and not near.guessed  # no row seen there: calibrate says to check it


def test_an_arm_reaching_in_near_a_rows_seat_is_that_players() -> None:
    quads = [np.array([[x, 560], [x + 80, 560], [x + 80, 680], [x, 680]], np.float64) for x in (300, 400, 500)]
    alone = propose_seats(quads, (1000, 800))
    with_arm = propose_seats(quads, (1000, 800), arms_xy=np.array([(700.0, 799.0)]))  # 2.1 long sides from the seat
    assert with_arm == alone and len(alone) == 2  # the row's seat and the guess across


def test_an_arm_beside_one_near_a_rows_seat_is_that_players_too() -> None:
    # One arm seen in two pieces: the first 2.2 long sides from the row's seat, the second
    # 3.8 (far enough alone to be another player's) but 1.7 beside the first.
    quads = [np.array([[x, 560], [x + 80, 560], [x + 80, 680], [x, 680]], np.float64) for x in (300, 400, 500)]
    alone = propose_seats(quads, (1000, 800))
    with_arm = propose_seats(quads, (1000, 800), arms_xy=np.array([(700.0, 799.0), (900.0, 799.0)]))
    assert with_arm == alone and len(alone) == 2  # the row's seat and the guess across
    # Far from that one, the same arm is a seat of its own.
    far = propose_seats(quads, (1000, 800), arms_xy=np.array([(900.0, 799.0)]))
    assert [s.guessed for s in far] == [False, True] and far[1].position_xy == (900.0, 799.0)


def test_arms_only_add_to_rows_found() -> None:
    quads = [np.array([[450, 200], [530, 200], [530, 320], [450, 320]], np.float64)]  # a lone card in the middle: no row
    assert propose_seats(quads, (1000, 800), arms_xy=np.array([(0.0, 400.0)])) == ()


def test_more_names_than_the_rows_and_arms_seat_the_last_player_where_the_edge_is_free() -> None:
    quads = [np.array([[x, 560], [x + 80, 560], [x + 80, 680], [x, 680]], np.float64) for x in (300, 400, 500)]
    arms = np.array([(0.0, 400.0), (999.0, 400.0)])
    assert len(propose_seats(quads, (1000, 800), arms_xy=arms)) == 3
    seats = propose_seats(quads, (1000, 800), arms_xy=arms, players=["Anna", "Ben", "Cleo", "Dora"])
    assert [s.guessed for s in seats] == [False, True, True, True]
    assert seats[1].position_xy == (0.0, 400.0) and seats[3].position_xy == (999.0, 400.0)
    assert seats[2].position_xy[1] == pytest.approx(0, abs=1)  # the top, the widest stretch left


def test_a_named_player_without_a_row_sits_where_an_arm_reaches_in_beside_a_seat() -> None:
    # Rows at the bottom and on the left; an arm reaches in at the top, 3.5 long sides from the
    # left row's seat (too near to be a seat of its own unasked). Named, the third sits there.
    bottom = [np.array([[x, 560], [x + 80, 560], [x + 80, 680], [x, 680]], np.float64) for x in (300, 400, 500)]
    left = [np.array([[120, y + 80], [120, y], [240, y], [240, y + 80]], np.float64) for y in (300, 390)]
    arm = np.array([(200.0, 0.0)])
    assert len(propose_seats(bottom + left, (1000, 800), arms_xy=arm)) == 2
    seats = propose_seats(bottom + left, (1000, 800), arms_xy=arm, players=["Anna", "Ben", "Cleo"])
    assert [s.guessed for s in seats] == [False, False, True] and seats[2].position_xy == (200.0, 0.0)


def test_a_lone_card_on_the_heap_of_backs_is_a_pool_card_not_a_row() -> None:
    # A row of three below the middle, and one card up near the top edge, facing it: alone it
    # is a player's row, lying on the heap of face-down cards it is a pool card.
    size = (1000, 800)
    row = [np.array([[x, 560], [x + 80, 560], [x + 80, 680], [x, 680]], np.float64) for x in (300, 400, 500)]
    lone = np.array([[460, 60], [540, 60], [540, 180], [460, 180]], np.float64)
    heap = np.array([[380, 20], [640, 20], [640, 260], [380, 260]], np.float64)
    alone = propose_seats(row + [lone], size, heaps_xy=())
    assert len(alone) == 2 and not any(s.guessed for s in alone)
    on_heap = propose_seats(row + [lone], size, heaps_xy=[heap])
    assert len(on_heap) == 2 and sum(s.guessed for s in on_heap) == 1  # the row's, and one guessed across
    assert off_heap([[0, 1, 2], [3]], row + [lone], [heap]) == [[0, 1, 2]]


def test_the_heap_is_found_in_the_frame_when_not_given() -> None:
    from tests.vision.test_backs import HEAP, card_xy, table

    # The heap of backs up towards the top edge, a row at the bottom, and one card on the
    # heap's upper edge facing the top edge: a row of its own if nothing knew of the heap.
    frame, faces = table((120, 160, 190), backs=[(x, y - 220, angle) for x, y, angle in HEAP])
    cards = faces[:3] + [card_xy(640, 110, 0)]
    size = (frame.shape[1], frame.shape[0])
    assert [s.guessed for s in propose_seats(cards, size, heaps_xy=())] == [False, False]
    assert [s.guessed for s in propose_seats(cards, size, frame_bgr=frame)] == [False, True]


def test_named_the_players_of_a_table_whose_only_card_lies_under_a_hand_get_their_seats() -> None:
    # hard/dev-003: Greta's one card lies under her hand; her arm reaches in beside Lars's seat.
    from calibration.learn import calibrate_frame

    frame, truth = photo("hard/dev-003")
    assert len(calibrate_frame(frame).seats) == 2
    seats = calibrate_frame(frame, [s.name for s in true_seats(truth)]).seats
    long_side = np.mean([max(np.linalg.norm(q[0] - q[1]), np.linalg.norm(q[1] - q[2]))
                         for q in (np.array(c["corners"]) for c in truth["cards"])])
    for true in true_seats(truth):
        assert min(np.hypot(*np.subtract(s.position_xy, true.position_xy)) for s in seats) < 1.5 * long_side, true.name
    assert len(seats) == 3


def test_a_named_player_without_a_row_is_seated_beside_a_row_never_taking_its_cards() -> None:
    # Five rows round the table, the bottom one eight cards long (x 100 to 810); the widest
    # stretch without a seat is the bottom right, halfway round it in front of the row's last
    # two cards (x 736). The sixth player sits just beyond the row's end instead.
    def upright(x, y):
        return np.array([[x, y], [x + 80, y], [x + 80, y + 120], [x, y + 120]], np.float64)

    def lying(x, y):
        return np.array([[x + 120, y], [x + 120, y + 80], [x, y + 80], [x, y]], np.float64)

    bottom = [upright(x, 640) for x in range(100, 820, 90)]
    others = ([lying(860, y) for y in (470, 560)] + [upright(x, 20) for x in (650, 740, 150, 240)]
              + [lying(20, y) for y in (420, 510)])
    seats = propose_seats(bottom + others, (1000, 800), players=list("ABCDEF"))
    (guess,) = [s for s in seats if s.guessed]
    assert guess.position_xy[1] == pytest.approx(799, abs=1) and 736 < guess.position_xy[0] < 736 + 120
    rows = {row.player: row.cards for row in arrange_rows(bottom + others, seats, (1000, 800))}
    assert guess.name not in rows and sorted(rows["A"]) == list(range(8))


def test_named_a_guessed_seat_beside_a_rows_end_takes_none_of_its_cards() -> None:
    # medium/test-001: Dora's one card lies on Ben's last (hidden) at the end of his row, and
    # the calibration takes it for his. Halfway along the widest stretch without a seat, her
    # guessed seat would take Ben's 7th card; it sits at his row's end, near her true seat.
    from calibration.learn import calibrate_frame

    frame, truth = photo("medium/test-001")
    size = (frame.shape[1], frame.shape[0])
    corners = [card.corners_xy for card in face_up("medium/test-001")]
    seats = calibrate_frame(frame, [s.name for s in true_seats(truth)]).seats
    (guess,) = [s for s in seats if s.guessed]
    theirs = {k for row in arrange_rows(corners, [s for s in seats if not s.guessed], size) for k in row.cards}
    assert not any(row.player == guess.name and theirs & set(row.cards) for row in arrange_rows(corners, seats, size))
    dora = next(s for s in true_seats(truth) if s.name == "Dora")
    long_side = np.mean([max(np.linalg.norm(np.subtract(*c["corners"][:2])), np.linalg.norm(np.subtract(*c["corners"][1:3])))
                         for c in truth["cards"]])
    assert np.hypot(*np.subtract(guess.position_xy, dora.position_xy)) < 0.5 * long_side
