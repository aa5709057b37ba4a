"""The seat editor's state machine: drag a seat, rename it, save or cancel (no display needed)."""

import numpy as np
import pytest

from calibration.editor import EditorState, draw_editor, move, press, release, type_key
from calibration.seats import Seat

START = EditorState((Seat("Player 1", (100.0, 380.0)), Seat("Player 2", (500.0, 20.0))), (640, 400))


def typed(state: EditorState, text: str) -> EditorState:
    for char in text:
        state = type_key(state, ord(char))
    return state


def test_dragging_a_seat_moves_it_and_only_it() -> None:
    state = release(move(move(press(START, (104, 376)), (200, 300)), (260, 330)), (262, 331))
    assert state.seats[0].position_xy == (258.0, 335.0) and state.seats[1] == START.seats[1]  # held where grabbed
    assert not state.dragging and state.picked == 0


def test_a_click_on_a_seat_does_not_move_it() -> None:
    assert release(press(START, (110, 370)), (110, 370)).seats == START.seats


def test_a_seat_dragged_off_the_image_stays_on_its_edge() -> None:
    state = release(press(START, (500, 20)), (900, -50))
    assert state.seats[1].position_xy == (639.0, 0.0)


def test_pressing_away_from_every_seat_moves_nothing() -> None:
    state = release(move(press(START, (320, 200)), (10, 10)), (10, 10))
    assert state.seats == START.seats and state.picked is None


def test_click_a_seat_then_type_and_enter_renames_it() -> None:
    state = release(press(START, (100, 380)), (100, 380))
    state = type_key(typed(state, "Annx"), 8)
    state = type_key(typed(state, "a"), 13)
    assert [s.name for s in state.seats] == ["Anna", "Player 2"] and state.picked is None and state.done is None
    assert type_key(state, 13).done == "save"


@pytest.mark.parametrize("name, message", [("Player 2", "already sits at the table"), ("  ", "cannot be empty")])
def test_a_name_taken_or_empty_keeps_the_old_one(name, message) -> None:
    state = type_key(typed(release(press(START, (100, 380)), (100, 380)), name), 13)
    assert state.seats[0].name == "Player 1" and message in state.message


def test_escape_while_renaming_keeps_the_name_then_escape_cancels() -> None:
    state = type_key(typed(release(press(START, (100, 380)), (100, 380)), "Zed"), 27)
    assert state.seats == START.seats and state.done is None
    assert type_key(state, 27).done == "cancel"
    assert type_key(START, ord("s")).done == "save"


def test_the_drawing_leaves_the_frame_alone_and_marks_each_seat() -> None:
    frame = np.full((400, 640, 3), 90, np.uint8)
    out = draw_editor(frame, START, 0.5, table=[(0, 0), (600, 0), (600, 380)], pool=None)
    assert out.shape[1:] == (320, 3) and out.shape[0] > 200 and (frame == 90).all()
    x, y = (round(v * 0.5) for v in START.seats[0].position_xy)
    assert tuple(out[y, x]) == (40, 200, 255)


def test_a_guessed_seat_dragged_into_place_is_no_longer_a_guess() -> None:
    start = EditorState((START.seats[0], Seat("Player 2", (500.0, 20.0), guessed=True)), (640, 400))
    state = release(move(press(start, (500, 20)), (400, 40)), (400, 40))
    assert state.seats[1].position_xy == (400.0, 40.0) and not state.seats[1].guessed
    assert not state.seats[0].guessed
