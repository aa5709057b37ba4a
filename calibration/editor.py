"""The calibration window: the proposal drawn over the frame; drag seats, rename them, confirm.

The editing itself is a pure state machine (``press``, ``move``, ``release``, ``type_key``
over an ``EditorState``), so it is tested without a display; ``edit_seats`` is the one
loop that owns the OpenCV window. Mouse: press on a seat to pick it and drag it; press
elsewhere to let go of it. Keys: with a seat picked, typing renames it (Backspace
deletes, Enter takes the name, Esc keeps the old one); with none, Enter or s saves and
Esc cancels.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

from calibration.seats import Seat

__all__ = ["EditorState", "press", "move", "release", "type_key", "draw_editor", "edit_seats", "WINDOW_NAME"]

WINDOW_NAME = "referee calibrate"
_PICK_RADIUS = 28.0  # display pixels around a seat that pick it
_ENTER, _ESC, _BACKSPACE = (10, 13), 27, (8, 127)
_SEAT_BGR = (40, 200, 255)
_PICKED_BGR = (60, 60, 255)
_STRIP_PX = 52  # the help strip under the frame


@dataclass(frozen=True)
class EditorState:
    """The seats being edited and what the user is doing with them (positions in image pixels)."""

    seats: tuple[Seat, ...]
    image_size_wh: tuple[int, int]
    picked: int | None = None
    dragging: bool = False
    grab_xy: tuple[float, float] = (0.0, 0.0)  # the seat's offset from the pointer while dragging
    typed: str | None = None  # the new name being typed for the picked seat
    done: str | None = None  # "save" or "cancel"
    message: str = ""


def _nearest(state: EditorState, xy: tuple[float, float], radius: float) -> int | None:
    best, best_d = None, radius
    for index, seat in enumerate(state.seats):
        d = float(np.hypot(seat.position_xy[0] - xy[0], seat.position_xy[1] - xy[1]))
        if d <= best_d:
            best, best_d = index, d
    return best


def _commit_name(state: EditorState) -> EditorState:
    """The typed name taken for the picked seat, unless it is empty or another seat's."""
    if state.picked is None or state.typed is None:
        return replace(state, typed=None)
    name = state.typed.strip()
    if not name:
        return replace(state, typed=None, message="a name cannot be empty; kept the old one")
    if any(s.name == name for k, s in enumerate(state.seats) if k != state.picked):
        return replace(state, typed=None, message=f"{name!r} already sits at the table; kept the old name")
    seats = list(state.seats)
    seats[state.picked] = replace(seats[state.picked], name=name)
    return replace(state, seats=tuple(seats), typed=None, message=f"renamed to {name}")


def press(state: EditorState, xy: tuple[float, float], radius: float = _PICK_RADIUS) -> EditorState:
    """Mouse button pressed at ``xy`` (image pixels): pick the seat there and start dragging it, or let go."""
    state = _commit_name(state) if state.typed is not None else state
    picked = _nearest(state, xy, radius)
    if picked is None:
        return replace(state, picked=None, dragging=False)
    seat_xy = state.seats[picked].position_xy
    return replace(state, picked=picked, dragging=True, grab_xy=(seat_xy[0] - xy[0], seat_xy[1] - xy[1]),
                   message=f"{state.seats[picked].name}: drag to move, type to rename")


def move(state: EditorState, xy: tuple[float, float]) -> EditorState:
    """Mouse moved to ``xy``: a dragged seat follows (where it was grabbed), kept inside the image."""
    if not state.dragging or state.picked is None:
        return state
    width, height = state.image_size_wh
    x = float(min(max(xy[0] + state.grab_xy[0], 0.0), width - 1))
    y = float(min(max(xy[1] + state.grab_xy[1], 0.0), height - 1))
    seats = list(state.seats)
    seats[state.picked] = replace(seats[state.picked], position_xy=(x, y), guessed=False)  # the user placed it
    return replace(state, seats=tuple(seats))


def release(state: EditorState, xy: tuple[float, float]) -> EditorState:
    """Mouse button released: the drag ends where it is (the seat stays picked for renaming)."""
    return replace(move(state, xy), dragging=False)


def type_key(state: EditorState, key: int) -> EditorState:
    """A key typed in the window (``cv2.waitKey`` code)."""
    if key < 0 or key == 255:
        return state
    if state.picked is not None:
        if key in _ENTER:
            return replace(_commit_name(state), picked=None)
        if key == _ESC:
            return replace(state, typed=None, picked=None, message="")
        if key in _BACKSPACE:
            typed = state.seats[state.picked].name if state.typed is None else state.typed
            return replace(state, typed=typed[:-1])
        if 32 <= key < 127:
            return replace(state, typed=(state.typed or "") + chr(key))
        return state
    if key in _ENTER or key == ord("s"):
        return replace(state, done="save")
    if key == _ESC:
        return replace(state, done="cancel")
    return state


def draw_editor(frame_bgr: NDArray[np.uint8], state: EditorState, scale: float, table: Sequence | None = None,
                pool: Sequence | None = None) -> NDArray[np.uint8]:
    """The frame at ``scale`` with the table, pool and seats drawn, over a strip with the help. Not modified in place."""
    import cv2

    height, width = frame_bgr.shape[:2]
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    out = cv2.resize(frame_bgr, size, interpolation=cv2.INTER_AREA) if scale != 1 else frame_bgr.copy()
    for polygon, bgr in ((table, (80, 220, 80)), (pool, (220, 160, 60))):
        if polygon is not None:
            points = np.round(np.asarray(polygon, np.float64) * scale).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(out, [points], True, bgr, 2, cv2.LINE_AA)
    centre = np.mean([s.position_xy for s in state.seats], axis=0) * scale if len(state.seats) >= 2 else None
    for index, seat in enumerate(state.seats):
        x, y = (round(v * scale) for v in seat.position_xy)
        colour = _PICKED_BGR if index == state.picked else _SEAT_BGR
        if centre is not None:
            cv2.line(out, (x, y), (round(centre[0]), round(centre[1])), colour, 1, cv2.LINE_AA)
        cv2.circle(out, (x, y), 14, (0, 0, 0), -1, cv2.LINE_AA)
        cv2.circle(out, (x, y), 11, colour, -1, cv2.LINE_AA)
        name = state.typed + "_" if index == state.picked and state.typed is not None else seat.name
        tx = min(max(x - 40, 2), size[0] - 160)
        ty = y - 20 if y > 40 else y + 34
        cv2.putText(out, name, (tx, ty), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(out, name, (tx, ty), cv2.FONT_HERSHEY_SIMPLEX, 0.7, colour, 2, cv2.LINE_AA)
    # The help goes in a strip below the frame, so that it never hides a seat at the edge.
    strip = np.full((_STRIP_PX, size[0], 3), 30, np.uint8)
    help_text = "drag a seat to move it; click a seat and type to rename (Enter); Enter/s save, Esc cancel"
    for k, line in enumerate([help_text, state.message]):
        cv2.putText(strip, line, (8, 20 + 22 * k), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (240, 240, 240), 1, cv2.LINE_AA)
    return np.vstack([out, strip])


def _plain_key(code: int) -> int:
    """A ``waitKeyEx`` code as a character code (Enter 13, Backspace 8, Esc 27), or -1 for
    none and for keys that type nothing (arrows, modifiers: ``& 0xFF`` would turn some into
    letters)."""
    if 0 <= code <= 0xFF:
        return code
    if 0xFF00 <= code <= 0xFFFF:  # X keysyms of Return, BackSpace, Escape, keypad Enter
        return {0xFF0D: 13, 0xFF8D: 13, 0xFF08: 8, 0xFF1B: 27}.get(code, -1)
    return -1


def edit_seats(frame_bgr: NDArray[np.uint8], seats: Sequence[Seat], table: Sequence | None = None,
               pool: Sequence | None = None, max_wh: tuple[int, int] = (1280, 800)) -> tuple[Seat, ...] | None:
    """Show the proposal in a window until the user saves (the edited seats) or cancels (None).

    Only call this where a window can open (see ``referee.cli.live.can_open_window``): the
    OpenCV GUI aborts the process otherwise.
    """
    import cv2

    height, width = frame_bgr.shape[:2]
    scale = min(1.0, max_wh[0] / width, max_wh[1] / height)
    holder = {"state": EditorState(tuple(seats), (width, height))}

    def on_mouse(event: int, x: int, y: int, flags: int, param: object) -> None:
        xy = (x / scale, y / scale)
        state = holder["state"]
        if event == cv2.EVENT_LBUTTONDOWN:
            holder["state"] = press(state, xy, _PICK_RADIUS / scale)
        elif event == cv2.EVENT_MOUSEMOVE:
            holder["state"] = move(state, xy)
        elif event == cv2.EVENT_LBUTTONUP:
            holder["state"] = release(state, xy)

    cv2.namedWindow(WINDOW_NAME, cv2.WINDOW_AUTOSIZE | cv2.WINDOW_GUI_NORMAL)
    cv2.moveWindow(WINDOW_NAME, 0, 0)
    cv2.setMouseCallback(WINDOW_NAME, on_mouse)
    try:
        shown, image, since = None, None, 0
        while holder["state"].done is None:
            # Drawn again only when something changed: a short loop loses fewer keys typed fast
            # (waitKey reports only the last key pressed since it was last called); shown again
            # now and then all the same, for a window that was not yet up the first time.
            if holder["state"] != shown:
                shown = holder["state"]
                image = draw_editor(frame_bgr, shown, scale, table, pool)
                since = 0
            if since % 10 == 0:
                cv2.imshow(WINDOW_NAME, image)
            since += 1
            key = _plain_key(cv2.waitKeyEx(20))
            if key >= 0:
                holder["state"] = type_key(holder["state"], key)
            if cv2.getWindowProperty(WINDOW_NAME, cv2.WND_PROP_VISIBLE) < 1:
                holder["state"] = replace(holder["state"], done="cancel")
    finally:
        cv2.destroyWindow(WINDOW_NAME)
        cv2.waitKey(1)
    state = holder["state"]
    return state.seats if state.done == "save" else None
