"""The calibration window under a virtual display (Xvfb), driven by xdotool: drag a seat, rename one, save."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.xscreen import painted, screenshot, window_env, window_ids, windows_on, xvfb

from calibration.config import load_calibration

ROOT = Path(__file__).resolve().parents[2]
PHOTO = ROOT / "fixtures" / "photos" / "easy" / "test-003.jpg"
SCREEN_WH = (1280, 900)
SCALE = min(1.0, 1280 / 1920, 800 / 1080)  # calibration.editor.edit_seats fits the frame in 1280x800

pytestmark = [
    pytest.mark.skipif(shutil.which("Xvfb") is None, reason="needs Xvfb (apt-get install xvfb)"),
    pytest.mark.skipif(shutil.which("xdotool") is None, reason="needs xdotool (apt-get install xdotool)"),
]


@pytest.fixture
def display():
    with xvfb(SCREEN_WH) as name:
        yield name


def xdotool(display: str, *args: str) -> str:
    done = subprocess.run(["xdotool", *args], env={**os.environ, "DISPLAY": display}, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


SEAT_BGR, PICKED_BGR = (40, 200, 255), (60, 60, 255)  # calibration.editor: a seat, the picked seat


def seat_drawn(shot: np.ndarray, xy: tuple[str, str], bgr: tuple[int, int, int]) -> bool:
    """Whether a seat's dot in that colour is drawn at screen point ``xy``."""
    x, y = int(xy[0]), int(xy[1])
    patch = shot[max(y - 6, 0): y + 7, max(x - 6, 0): x + 7].astype(int)
    return int((np.abs(patch - bgr).sum(axis=2) < 60).sum()) > 50


def wait_for_screen(display: str, done, timeout_s: float = 20.0) -> np.ndarray | None:
    """The screen once ``done(screen)`` holds (or at the timeout; None without libX11): a window
    on a busy machine may take a while to draw what it was told."""
    deadline = time.monotonic() + timeout_s
    shot = screenshot(display, SCREEN_WH)
    while shot is not None and not done(shot) and time.monotonic() < deadline:
        time.sleep(0.05)
        shot = screenshot(display, SCREEN_WH)
    return shot


def test_dragging_a_seat_in_the_window_moves_it_and_typing_renames_one(display, tmp_path) -> None:
    proposal = tmp_path / "proposal.yaml"
    subprocess.run([sys.executable, "-m", "referee", "calibrate", str(PHOTO), "--out", str(proposal), "--headless"],
                   cwd=ROOT, check=True, capture_output=True, timeout=60)
    before = load_calibration(proposal).seats
    assert len(before) >= 2
    out = tmp_path / "table.yaml"
    env = window_env(display, ROOT)
    process = subprocess.Popen([sys.executable, "-m", "referee", "calibrate", str(PHOTO), "--out", str(out)],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # Each step waits until the window shows its effect: on a busy machine the window may take a
    # while to draw, and OpenCV reports only the newest key pressed since it last looked.
    try:
        shown = window_ids(display, "referee calibrate", visible=True)
        assert shown, f"no 'referee calibrate' window within 60 s (windows: {windows_on(display)})"
        window = shown[0]
        assert painted(display, "referee calibrate", SCREEN_WH), f"the screen stayed black (windows: {windows_on(display)})"
        start = before[0].position_xy
        corner = {}

        def screen(xy):
            return str(round(corner["x"] + xy[0] * SCALE)), str(round(corner["y"] + xy[1] * SCALE))

        def placed(shot) -> bool:  # the window where it says it is, with the first seat drawn
            geometry = dict(line.split("=") for line in xdotool(display, "getwindowgeometry", "--shell", window).split())
            corner.update(x=int(geometry["X"]), y=int(geometry["Y"]))
            return seat_drawn(shot, screen(start), SEAT_BGR)

        assert wait_for_screen(display, placed) is None or placed(screenshot(display, SCREEN_WH)), "the window shows no seat"
        # Drag the first seat 120 screen pixels sideways and 90 in towards the middle, in small steps as a hand would.
        inwards = 1 if start[1] < 540 else -1
        target = (start[0] + (120 if start[0] < 960 else -120) / SCALE, start[1] + inwards * 90 / SCALE)
        xdotool(display, "mousemove", *screen(start))
        xdotool(display, "mousedown", "1")
        wait_for_screen(display, lambda shot: seat_drawn(shot, screen(start), PICKED_BGR))
        for k in range(1, 7):
            xdotool(display, "mousemove", *screen((start[0] + k * (target[0] - start[0]) / 6, start[1] + k * (target[1] - start[1]) / 6)))
            time.sleep(0.05)
        xdotool(display, "mouseup", "1")
        # The picked seat is drawn red where it was dropped, and no longer where it was.
        shot = wait_for_screen(display, lambda shot: seat_drawn(shot, screen(target), PICKED_BGR))
        assert shot is None or seat_drawn(shot, screen(target), PICKED_BGR) and not seat_drawn(shot, screen(start), PICKED_BGR)
        xdotool(display, "key", "Return")  # let go of the dragged seat
        wait_for_screen(display, lambda shot: seat_drawn(shot, screen(target), SEAT_BGR))
        # Click the second seat and type a name for it.
        second = before[1].position_xy
        xdotool(display, "mousemove", *screen(second))
        xdotool(display, "click", "1")
        wait_for_screen(display, lambda shot: seat_drawn(shot, screen(second), PICKED_BGR))
        # Lower case: under Xvfb, xdotool's Shift does not reach Qt (a keymap quirk of the test setup).
        for letter in "zoe":
            shown = screenshot(display, SCREEN_WH)
            xdotool(display, "key", letter)
            wait_for_screen(display, lambda shot: shown is None or not np.array_equal(shot, shown))
        xdotool(display, "key", "Return")
        wait_for_screen(display, lambda shot: seat_drawn(shot, screen(second), SEAT_BGR))
        xdotool(display, "key", "Return")  # save
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err.decode()
    assert b"no window" not in err
    assert out.exists(), err.decode()
    after = load_calibration(out).seats
    moved = after[0].position_xy
    assert abs(moved[0] - target[0]) <= 3 / SCALE and abs(moved[1] - target[1]) <= 3 / SCALE, (start, target, moved)
    assert after[1].name == "zoe" and after[1].position_xy == before[1].position_xy
    assert [s.name for s in after[2:]] == [s.name for s in before[2:]]


def test_escape_in_the_window_cancels_and_writes_nothing(display, tmp_path) -> None:
    out = tmp_path / "table.yaml"
    env = window_env(display, ROOT)
    process = subprocess.Popen([sys.executable, "-m", "referee", "calibrate", str(PHOTO), "--out", str(out)],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        shown = window_ids(display, "referee calibrate", visible=True)
        assert shown, f"no 'referee calibrate' window within 60 s (windows: {windows_on(display)})"
        window = shown[0]
        geometry = dict(line.split("=") for line in xdotool(display, "getwindowgeometry", "--shell", window).split())
        xdotool(display, "mousemove", str(int(geometry["X"]) + 5), str(int(geometry["Y"]) + 5))
        time.sleep(0.3)
        xdotool(display, "key", "Escape")
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 1 and b"cancelled; nothing written" in err
    assert not out.exists()
