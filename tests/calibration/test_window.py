"""The calibration window under a virtual display (Xvfb), driven by xdotool: drag a seat, rename one, save."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.xscreen import screenshot, xvfb

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


def test_dragging_a_seat_in_the_window_moves_it_and_typing_renames_one(display, tmp_path) -> None:
    proposal = tmp_path / "proposal.yaml"
    subprocess.run([sys.executable, "-m", "referee", "calibrate", str(PHOTO), "--out", str(proposal), "--headless"],
                   cwd=ROOT, check=True, capture_output=True, timeout=60)
    before = load_calibration(proposal).seats
    assert len(before) >= 2
    out = tmp_path / "table.yaml"
    env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(ROOT)}
    env.pop("WAYLAND_DISPLAY", None)
    process = subprocess.Popen([sys.executable, "-m", "referee", "calibrate", str(PHOTO), "--out", str(out)],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        window = xdotool(display, "search", "--sync", "--onlyvisible", "--name", "referee calibrate").split()[0]
        geometry = dict(line.split("=") for line in xdotool(display, "getwindowgeometry", "--shell", window).split())
        left, top = int(geometry["X"]), int(geometry["Y"])
        time.sleep(0.5)

        def screen(xy):
            return str(round(left + xy[0] * SCALE)), str(round(top + xy[1] * SCALE))

        # Drag the first seat 120 screen pixels sideways and 90 in towards the middle, in small steps as a hand would.
        start = before[0].position_xy
        inwards = 1 if start[1] < 540 else -1
        target = (start[0] + (120 if start[0] < 960 else -120) / SCALE, start[1] + inwards * 90 / SCALE)
        xdotool(display, "mousemove", *screen(start))
        xdotool(display, "mousedown", "1")
        for k in range(1, 7):
            xdotool(display, "mousemove", *screen((start[0] + k * (target[0] - start[0]) / 6, start[1] + k * (target[1] - start[1]) / 6)))
            time.sleep(0.05)
        xdotool(display, "mouseup", "1")
        time.sleep(0.4)
        shot = screenshot(display, SCREEN_WH)
        if shot is not None:  # the picked seat is drawn red where it was dropped, and no longer where it was
            red = lambda xy: int((np.abs(shot[int(float(xy[1])) - 6: int(float(xy[1])) + 7,  # noqa: E731
                                                 int(float(xy[0])) - 6: int(float(xy[0])) + 7].astype(int) - (60, 60, 255)).sum(axis=2) < 60).sum())
            assert red(screen(target)) > 50 and red(screen(start)) == 0
        xdotool(display, "key", "Return")  # let go of the dragged seat
        # Click the second seat and type a name for it.
        xdotool(display, "mousemove", *screen(before[1].position_xy))
        time.sleep(0.2)
        xdotool(display, "mousedown", "1")
        time.sleep(0.1)
        xdotool(display, "mouseup", "1")
        time.sleep(0.3)
        # Lower case: under Xvfb, xdotool's Shift does not reach Qt (a keymap quirk of the test setup).
        xdotool(display, "type", "--delay", "100", "zoe")
        time.sleep(0.3)
        xdotool(display, "key", "Return")
        time.sleep(0.5)
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
    env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "referee", "calibrate", str(PHOTO), "--out", str(out)],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        window = xdotool(display, "search", "--sync", "--onlyvisible", "--name", "referee calibrate").split()[0]
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
