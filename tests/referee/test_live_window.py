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

from tests.xscreen import map_again, painted, screenshot, window_env, window_ids, windows_on, xvfb

from referee.cli.live_synth import Script, script_round, seats_yaml, write_video

ROOT = Path(__file__).resolve().parents[2]
SCREEN_WH = (1024, 600)
ANNA_BGR = np.array((255, 170, 30))  # vision.annotate.PLAYER_BGR[0]
ERROR_BGR = np.array((30, 30, 235))

pytestmark = pytest.mark.skipif(shutil.which("Xvfb") is None or ctypes.util.find_library("X11") is None,
                                reason="needs Xvfb and libX11 (apt-get install xvfb)")


def _text(path: Path) -> str:
    return path.read_text() if path.exists() else ""


@pytest.fixture
def display():
    with xvfb(SCREEN_WH) as name:
        yield name


def test_the_window_shows_the_rows_and_the_revealed_error_after_scoring(display, tmp_path) -> None:
    base = script_round(start=0.3, gap=0.4, ben=["three_b", "bad_two"], hand=False, nudge=False)
    script = Script(base.layings, (), (), (), duration=base.layings[-1].settle_t + 6.0)  # the scored round shows for 5 s
    video = write_video(script, tmp_path / "round.avi", fps=15)
    seats = tmp_path / "seats.yaml"
    seats.write_text(seats_yaml())
    events = tmp_path / "events.jsonl"
    env = window_env(display, ROOT)
    # Frame by frame (no --realtime): on a busy machine a paced clip may be over before the window is up.
    process = subprocess.Popen(
        [sys.executable, "-m", "referee", "live", "--video", str(video), "--calibration", str(seats),
         "--events", str(events), "--db", str(tmp_path / "g.db"), "--points", "3,9"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    near = lambda image, bgr: int((np.abs(image.astype(int) - bgr).sum(axis=2) < 40).sum())  # noqa: E731
    shot, shots, drawn, windows = None, 0, 0, "not asked"
    held = False
    try:
        # Watch the screen until the scored round shows (in hidden mode the error appears only then).
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            latest = screenshot(display, SCREEN_WH)
            shots += 1
            if latest is not None and latest.any():
                shot, drawn = latest, drawn + 1
                if near(shot, ERROR_BGR) > 300:
                    break
            elif drawn == 0 and shots % 100 == 50:  # unpainted for a while: see tests.xscreen.map_again
                windows = windows_on(display)
                map_again(display, "referee live")
            time.sleep(0.05)
        # The video has ended and the round is scored: the window stays, with the result, until q.
        scored_by = time.monotonic() + 60
        while time.monotonic() < scored_by and process.poll() is None and '"round_scored"' not in _text(events):
            time.sleep(0.1)
        time.sleep(1.0)
        held = process.poll() is None
        subprocess.run(["xdotool", "search", "--name", "referee live", "key", "q"], env=env, capture_output=True, timeout=20)
    finally:
        try:
            _, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            _, err = process.communicate(timeout=10)
    assert held, "the window closed by itself at the video's end"
    assert process.returncode == 0, err.decode()
    assert b"no window" not in err  # it really was a window, not the headless fallback
    assert shot is not None, f"the screen stayed black in {shots} screenshots (windows seen: {windows}); {err.decode()[-500:]}"
    cv2.imwrite(str(tmp_path / "screen.png"), shot)
    assert near(shot, ERROR_BGR) > 300, (f"Ben's first error is not shown after scoring ({drawn} of {shots} screenshots "
                                         f"showed something; the last is in {tmp_path / 'screen.png'})")
    assert near(shot, ANNA_BGR) > 2000, "Anna's row is not outlined in her colour"
    # The window starts at the frame's size with no toolbar: its top-left corner is the panel, dark behind the text.
    assert np.median(shot[2:40, 2:300]) < 90, "no panel in the top-left corner (a toolbar?)"
    scored = [json.loads(line) for line in events.read_text().splitlines() if '"round_scored"' in line]
    assert scored and scored[0]["points"] == {"Anna": 9, "Ben": 3}


PROMPT_BGR = np.array((80, 220, 255))  # live_draw: the point-cards prompt's label


def test_the_window_keys_toggle_the_mode_take_point_cards_start_the_next_round_and_quit(display, tmp_path) -> None:
    # Anna lays four cards and Ben two (his second repeats his first's shapes: an error); then the
    # table lies still for a minute while the keys are pressed.
    base = script_round(start=0.3, gap=0.4, anna=["one", "two", "three", "two_b"], ben=["three_b", "bad_two"],
                        hand=False, nudge=False)
    fps = 10
    script = Script(base.layings, (), (), (), duration=60.0)
    video = write_video(script, tmp_path / "round.avi", fps=fps)
    seats = tmp_path / "seats.yaml"
    seats.write_text(seats_yaml())
    events_path, db, record = tmp_path / "events.jsonl", tmp_path / "g.db", tmp_path / "out.avi"
    env = window_env(display, ROOT)
    process = subprocess.Popen(
        [sys.executable, "-m", "referee", "live", "--video", str(video), "--calibration", str(seats), "--realtime",
         "--events", str(events_path), "--db", str(db), "--record", str(record)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    near = lambda image, bgr: int((np.abs(image.astype(int) - bgr).sum(axis=2) < 40).sum())  # noqa: E731

    def events() -> list[dict]:
        return [json.loads(line) for line in events_path.read_text().splitlines()] if events_path.exists() else []

    def wait_for(what: str, done) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            if done():
                return
            time.sleep(0.1)
        shot = screenshot(display, SCREEN_WH)
        cv2.imwrite(str(tmp_path / "screen.png"), shot)
        state = "running" if process.poll() is None else f"ended with status {process.returncode}"
        laid = sum(e["type"] == "card_laid" for e in events())
        pytest.fail(f"{what}: not seen within 60 s; referee live {state}, {laid} cards laid, last events "
                    f"{[e['type'] for e in events()[-3:]]}, the screen {'black' if not shot.any() else 'drawn'} "
                    f"(in {tmp_path / 'screen.png'}), windows: {windows_on(display)}")

    def press(*keys: str) -> None:
        # One key per frame at most: OpenCV's waitKey returns only the last of the keys pressed since its last call.
        subprocess.run(["xdotool", "key", "--delay", "400", *keys], env=env, check=True, timeout=20)

    try:
        window = window_ids(display, "referee live")
        assert window, f"no 'referee live' window within 60 s (windows: {windows_on(display)})"
        assert painted(display, "referee live", SCREEN_WH), f"the screen stayed black (windows: {windows_on(display)})"
        subprocess.run(["xdotool", "windowfocus", "--sync", window[-1]], env=env, check=True, timeout=20)
        wait_for("six cards laid", lambda: sum(e["type"] == "card_laid" for e in events()) == 6)
        time.sleep(0.5)
        hidden = near(screenshot(display, SCREEN_WH), ERROR_BGR)  # red ink on the cards, no error shown
        # m: open mode shows Ben's first error at once (a red frame and label); m again hides it.
        press("m")
        wait_for("Ben's error shown in open mode", lambda: near(screenshot(display, SCREEN_WH), ERROR_BGR) > hidden + 1000)
        press("m")
        wait_for("the error hidden again", lambda: near(screenshot(display, SCREEN_WH), ERROR_BGR) < hidden + 100)
        # p: the point cards typed in the window (the prompt shows what is typed), taken with Enter.
        middle = lambda: near(screenshot(display, SCREEN_WH)[150:210, :640], PROMPT_BGR)  # noqa: E731 (the table's bare middle)
        press("p")
        wait_for("the point-cards prompt", lambda: middle() > 2000)
        press("3", "comma", "9", "Return")
        wait_for("the prompt closed", lambda: middle() < 50)
        assert not [e for e in events() if e["type"] == "round_scored"]
        # n: the round is scored as it lies, with those point cards, and the next one starts.
        press("n")
        wait_for("round 2 started", lambda: any(e["type"] == "round_started" and e["round"] == 2 for e in events()))
        # q: the referee stops at once, long before the video's end; the game stays open.
        press("q")
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
    assert process.returncode == 0, err.decode()
    log = events()
    scored = [e for e in log if e["type"] == "round_scored"]
    assert len(scored) == 1 and scored[0]["round"] == 1 and scored[0]["stopped_by"] is None
    assert scored[0]["points"] == {"Anna": 9, "Ben": 3}
    assert {r["player"]: (len(r["cards"]), r["valid_length"]) for r in scored[0]["rows"]} == {"Anna": (4, 4), "Ben": (2, 1)}
    assert [e["type"] for e in log][-1] == "round_started" and not [e for e in log if e["type"] == "stop"]
    capture = cv2.VideoCapture(str(record))
    recorded = capture.get(cv2.CAP_PROP_FRAME_COUNT)
    capture.release()
    assert 0 < recorded < script.duration * fps - 10 * fps, "q did not stop the referee before the video's end"
    done = subprocess.run([sys.executable, "-m", "referee", "history", "--db", str(db), "--json"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    (game,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert game["rounds_scored"] == 1 and not game["finished"]
