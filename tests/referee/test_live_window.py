"""The ``referee live`` window under a virtual X display (Xvfb), checked by a screenshot of the screen."""

import ctypes
import ctypes.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.xscreen import screenshot, xvfb

from referee.cli.live_synth import Script, script_round, seats_yaml, write_video

ROOT = Path(__file__).resolve().parents[2]
SCREEN_WH = (1024, 600)
ANNA_BGR = np.array((255, 170, 30))  # vision.annotate.PLAYER_BGR[0]
ERROR_BGR = np.array((30, 30, 235))

pytestmark = pytest.mark.skipif(shutil.which("Xvfb") is None or ctypes.util.find_library("X11") is None,
                                reason="needs Xvfb and libX11 (apt-get install xvfb)")


@pytest.fixture
def display():
    with xvfb(SCREEN_WH, first=90) as name:
        yield name


def test_the_window_shows_the_rows_and_the_revealed_error_after_scoring(display, tmp_path) -> None:
    base = script_round(start=0.3, gap=0.4, ben=["three_b", "bad_two"], hand=False, nudge=False)
    script = Script(base.layings, (), (), (), duration=base.layings[-1].settle_t + 1.5)
    video = write_video(script, tmp_path / "round.avi", fps=15)
    seats = tmp_path / "seats.yaml"
    seats.write_text(seats_yaml())
    events = tmp_path / "events.jsonl"
    env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(ROOT)}
    env.pop("WAYLAND_DISPLAY", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "referee", "live", "--video", str(video), "--calibration", str(seats), "--realtime",
         "--events", str(events), "--db", str(tmp_path / "g.db"), "--points", "3,9"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    near = lambda image, bgr: int((np.abs(image.astype(int) - bgr).sum(axis=2) < 40).sum())  # noqa: E731
    shot = None
    try:
        # Watch the screen until the scored round shows (in hidden mode the error appears only then).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            shot = screenshot(display, SCREEN_WH)
            if near(shot, ERROR_BGR) > 300:
                break
            time.sleep(0.05)
    finally:
        _, err = process.communicate(timeout=60)
    assert shot is not None
    cv2.imwrite(str(tmp_path / "screen.png"), shot)
    assert process.returncode == 0, err.decode()
    assert b"no window" not in err  # it really was a window, not the headless fallback
    assert near(shot, ERROR_BGR) > 300, "Ben's first error is not shown after scoring"
    assert near(shot, ANNA_BGR) > 2000, "Anna's row is not outlined in her colour"
    # The window starts at the frame's size with no toolbar: its top-left corner is the panel, dark behind the text.
    assert np.median(shot[2:40, 2:300]) < 90, "no panel in the top-left corner (a toolbar?)"
    scored = [json.loads(line) for line in events.read_text().splitlines() if '"round_scored"' in line]
    assert scored and scored[0]["points"] == {"Anna": 9, "Ben": 3}
