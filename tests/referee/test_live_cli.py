"""``referee live`` end to end on synthetic table videos: from a file, from an MJPEG stream, after a crash."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import cv2
import pytest

from referee.cards import Criteria
from referee.cli import main
from referee.cli.live_synth import CARDS, Laying, Script, frames_of, script_round, seats_yaml, write_video
from referee.live.game import round_scored_data
from referee.round import Round, score_round

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def round_video(tmp_path_factory):
    folder = tmp_path_factory.mktemp("live")
    script = script_round()
    video = write_video(script, folder / "round.avi", fps=15)
    seats = folder / "seats.yaml"
    seats.write_text(seats_yaml())
    return script, video, seats


def read_events(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def truth_scored(script, stopped_by="Anna", points=(3, 9)):
    rows = {p: tuple(l.card.criteria for l in sorted(script.layings, key=lambda l: l.position) if l.player == p)
            for p in ("Anna", "Ben")}
    return score_round(Round(rows, points, stopped_by), seed=0)


def check_round(events, script, points=(3, 9), timing=True, ordered=True):
    """The log follows the script: each card laid once, in place, soon after it lies still; stop; the score."""
    laid = [e for e in events if e["type"] == "card_laid"]
    got = [(e["player"], e["position"], e["criteria"]) for e in laid]
    want = [(l.player, l.position, l.card.criteria.as_dict()) for l in script.layings]
    assert (got == want if ordered else sorted(got, key=str) == sorted(want, key=str)), (got, want)
    if timing:
        for event, lay in zip(laid, script.layings):
            assert 0.25 <= event["t"] - lay.settle_t <= 0.5, (event, lay)
    assert not [e for e in events if e["type"] == "card_removed"]  # the hand hid cards; it took none
    stop = [e for e in events if e["type"] == "stop"]
    assert [e["player"] for e in stop] == ["Anna"]
    if timing:
        assert 0 <= stop[0]["t"] - script.layings[-1].settle_t <= 0.5
    scored = [e for e in events if e["type"] == "round_scored"]
    assert len(scored) == 1
    truth = round_scored_data(1, truth_scored(script, points=points))
    assert scored[0]["rows"] == truth["rows"]
    assert scored[0]["ranking"] == truth["ranking"]
    assert scored[0]["points"] == truth["points"]
    for event in events:
        assert {"type", "t", "frame"} <= set(event)


def test_a_video_file_is_refereed_along_its_timeline(round_video, tmp_path, capsys) -> None:
    script, video, seats = round_video
    record = tmp_path / "out.avi"
    status = main(["live", "--video", str(video), "--calibration", str(seats), "--events", "-",
                   "--db", str(tmp_path / "g.db"), "--headless", "--points", "3,9", "--record", str(record)])
    assert status == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]  # stdout holds the log only
    assert events[0] == {"type": "round_started", "t": 0.0, "frame": 0, "round": 1}
    check_round(events, script)
    for event in events:
        assert event["t"] == pytest.approx(event["frame"] / 15, abs=1e-3)  # a file's own clock
    capture = cv2.VideoCapture(str(record))
    assert capture.get(cv2.CAP_PROP_FRAME_COUNT) == pytest.approx(script.duration * 15, abs=1)
    capture.release()
    # referee history lists the game with its standings.
    assert main(["history", "--db", str(tmp_path / "g.db"), "--json"]) == 0
    (game,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert game["rounds_scored"] == 1 and not game["finished"]
    assert game["standings"] == [{"player": "Anna", "points": 9, "place": 1}, {"player": "Ben", "points": 3, "place": 2}]


def test_a_frame_the_vision_code_fails_on_is_skipped_with_a_warning_and_the_game_goes_on(round_video, tmp_path, capsys,
                                                                                         monkeypatch) -> None:
    import referee.cli.live_read as live_read

    script, video, seats = round_video
    sight_cards = live_read.sight_cards

    def failing(frame_bgr, t, frame_index, *args, **kwargs):
        if frame_index in (20, 21):
            raise ValueError("a broken frame")
        return sight_cards(frame_bgr, t, frame_index, *args, **kwargs)

    monkeypatch.setattr(live_read, "sight_cards", failing)
    status = main(["live", "--video", str(video), "--calibration", str(seats), "--events", "-",
                   "--db", str(tmp_path / "g.db"), "--headless", "--points", "3,9"])
    assert status == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    warnings = [e for e in events if e["type"] == "warning"]
    assert [(e["frame"], e["message"]) for e in warnings] == [
        (20, "frame 20 (t=1.33 s) could not be read, skipped: ValueError: a broken frame")]
    check_round([e for e in events if e["type"] != "warning"], script, timing=False)


def test_a_video_ending_mid_round_is_scored_as_it_lies(tmp_path, capsys) -> None:
    script = script_round()
    short = Script(script.layings[:5], (), (), (), duration=script.layings[4].settle_t + 0.6)
    video = write_video(short, tmp_path / "short.avi", fps=10)
    seats = tmp_path / "seats.yaml"
    seats.write_text(seats_yaml())
    assert main(["live", "--video", str(video), "--calibration", str(seats), "--events", str(tmp_path / "ev.jsonl"),
                 "--db", str(tmp_path / "g.db"), "--headless"]) == 0
    events = read_events(tmp_path / "ev.jsonl")
    out = capsys.readouterr().out  # without '--events -', the result in words
    assert "Anna: 3 valid cards, no error" in out and "Ben: 2 valid cards, no error" in out
    assert [e["type"] for e in events][-1] == "round_scored"
    assert not [e for e in events if e["type"] == "stop"]
    assert events[-1]["stopped_by"] is None and "points" not in events[-1]
    assert {r["player"]: len(r["cards"]) for r in events[-1]["rows"]} == {"Anna": 3, "Ben": 2}


class MjpegServer:
    """A camera app in a test: the frames as MJPEG over HTTP, paced at ``fps``, dropping out for a while if asked.

    Like a live camera, it goes on in time whether or not anyone watches; a client that
    connects gets the frame of the moment.
    """

    def __init__(self, frames, fps, drop=None):
        self.jpegs = [cv2.imencode(".jpg", f, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes() for f in frames]
        self.fps, self.drop = fps, drop
        self.stop = threading.Event()
        self.start = None
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if server.now_frame() >= len(server.jpegs) or server.dropped():
                    self.close_connection = True
                    return
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                try:
                    while not server.stop.is_set():
                        index = server.now_frame()
                        if index >= len(server.jpegs) or server.dropped():
                            return
                        data = server.jpegs[index]
                        self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(data))
                        self.wfile.write(data + b"\r\n")
                        time.sleep(max(0.0, server.start + (index + 1) / server.fps - time.monotonic()))
                except (BrokenPipeError, ConnectionResetError):
                    return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/stream.mjpg"

    def now_frame(self):
        return int((time.monotonic() - self.start) * self.fps)

    def dropped(self):
        if self.drop is None:
            return False
        elapsed = time.monotonic() - self.start
        return self.drop[0] <= elapsed < self.drop[1]

    def __enter__(self):
        self.start = time.monotonic()
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def test_the_same_game_over_an_mjpeg_stream_that_drops_out_and_comes_back(tmp_path, capsys) -> None:
    base = script_round(start=0.4, gap=0.45, ben=["three_b", "two_b", "one_b"])
    # A quiet moment after the 4th card, in which the stream drops out for 0.6 s.
    pause = 1.5
    layings = tuple(l if k < 4 else Laying(l.player, l.position, l.card, round(l.t + pause, 3)) for k, l in enumerate(base.layings))
    script = Script(layings, (), base.nudges, (), duration=base.duration + pause)
    drop = (layings[3].settle_t + 0.5, layings[3].settle_t + 1.1)
    fps = 10
    seats = tmp_path / "seats.yaml"
    seats.write_text(seats_yaml())
    with MjpegServer(list(frames_of(script, fps)), fps, drop) as server:
        status = main(["live", "--url", server.url, "--calibration", str(seats), "--events", "-", "--db", str(tmp_path / "g.db"),
                       "--headless", "--points", "3,9", "--give-up", "1"])
    assert status == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # Times on a stream are the referee's own clock: the order, players, positions, criteria and score must match.
    check_round(events, script, timing=False)
    warnings = [e for e in events if e["type"] == "warning"]
    assert "lost; retrying" in warnings[0]["message"] and "back after" in warnings[1]["message"]
    assert any(e["type"] == "card_laid" and e["t"] > warnings[1]["t"] for e in events)  # the game went on
    assert "giving up" in warnings[-1]["message"]


def test_a_missing_camera_is_one_clear_line_and_status_2(tmp_path, capsys) -> None:
    status = main(["live", "--camera", "9", "--db", str(tmp_path / "g.db"), "--headless"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2
    assert len(err) == 1 and err[0].startswith("referee live: camera 9 cannot be opened (backend ")


def test_a_missing_camera_says_nothing_but_that_line_on_the_console(tmp_path) -> None:
    # OpenCV's own warnings go to the process's stderr, past Python's: only a process shows them.
    env = {k: v for k, v in os.environ.items() if k != "OPENCV_LOG_LEVEL"}
    done = subprocess.run([sys.executable, "-m", "referee", "live", "--camera", "9", "--db", str(tmp_path / "g.db"), "--headless"],
                          capture_output=True, text=True, env=env, timeout=60)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2
    assert len(lines) == 1 and lines[0].startswith("referee live: camera 9 cannot be opened"), lines


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--points", "1,2,3"], "--points: expected 2 point cards, one per player (Anna, Ben), got 3"),
        (["--record", "out.gif"], "--record out.gif: expected a .mp4, .avi or .webm file name"),
        (["--resume"], "no unfinished game to resume"),
    ],
    ids=["points for three players", "unknown recording format", "nothing to resume"],
)
def test_bad_settings_are_refused_with_one_line(round_video, tmp_path, capsys, extra, message) -> None:
    _, video, seats = round_video
    status = main(["live", "--video", str(video), "--calibration", str(seats), "--db", str(tmp_path / "g.db"), "--headless", *extra])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and message in err[0]


def _round_two(start):
    anna = ["two", "one", "two_b", "three_b", "two", "three", "two_b"]
    ben = ["one", "three", "two_b"]
    layings, t = [], start
    for k in range(7):
        layings.append(Laying("Anna", k, CARDS[anna[k]], round(t, 3)))
        t += 0.5
        if k < len(ben):
            layings.append(Laying("Ben", k, CARDS[ben[k]], round(t, 3)))
            t += 0.5
    return layings


def test_a_crash_mid_game_is_resumed_without_loss(tmp_path, capsys) -> None:
    first = script_round(start=0.3, gap=0.4, ben=["three_b"], hand=False, nudge=False)
    cleared = first.layings[-1].settle_t + 1.0
    second = _round_two(cleared + 1.6)
    # Video A: round 1, the table cleared, round 2's first cards, then a long still table (the crash comes first).
    before = [l for l in second if l.t < second[0].t + 1.2]
    video_a = write_video(Script(first.layings + tuple(before), (), (), (cleared,), duration=before[-1].settle_t + 8.0),
                          tmp_path / "a.avi", fps=10)
    # Video B: the camera again after the crash: round 2's cards so far already lie there, the rest follows.
    shift = before[-1].settle_t + 0.3
    after = tuple(Laying(l.player, l.position, l.card, round(l.t - shift, 3)) for l in second)
    video_b = write_video(Script(after, (), (), (), duration=after[-1].settle_t + 1.0), tmp_path / "b.avi", fps=10)
    seats = tmp_path / "seats.yaml"
    seats.write_text(seats_yaml())
    db = tmp_path / "g.db"
    args = ["live", "--calibration", str(seats), "--db", str(db), "--headless", "--points", "3,9"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "referee", *args, "--video", str(video_a), "--events", str(tmp_path / "a.jsonl")],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.05)
            try:
                with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
                    body = [json.loads(b) for (b,) in con.execute("SELECT body FROM events ORDER BY seq")]
            except sqlite3.OperationalError:  # not created yet
                continue
            if any(e["type"] == "round_started" and e["round"] == 2 for e in body) and \
                    sum(e["type"] == "card_laid" for e in body) >= len(first.layings) + 2:
                break
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=10)
    with sqlite3.connect(db) as con:
        stored = [json.loads(b) for (b,) in con.execute("SELECT body FROM events ORDER BY seq")]
    assert stored[-1]["type"] == "card_laid" and not any(e["type"] == "round_scored" and e["round"] == 2 for e in stored)

    assert main([*args, "--video", str(video_b), "--events", str(tmp_path / "b.jsonl"), "--resume"]) == 0
    with sqlite3.connect(db) as con:
        every = [json.loads(b) for (b,) in con.execute("SELECT body FROM events ORDER BY seq")]
    round2 = every[next(k for k, e in enumerate(every) if e["type"] == "round_started" and e["round"] == 2):]
    laid = [(e["player"], e["position"], e["criteria"]) for e in round2 if e["type"] == "card_laid"]
    assert sorted(laid) == sorted((l.player, l.position, l.card.criteria.as_dict()) for l in second)
    scored = [e for e in round2 if e["type"] == "round_scored"]
    assert len(scored) == 1 and scored[0]["round"] == 2 and scored[0]["stopped_by"] == "Anna"
    rows = {r["player"]: r for r in scored[0]["rows"]}
    assert [Criteria(**c) for c in rows["Anna"]["cards"]] == [l.card.criteria for l in second if l.player == "Anna"]
    assert rows["Ben"]["valid_length"] == 1
    capsys.readouterr()
    assert main(["history", "--db", str(db), "--json"]) == 0
    (game,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert game["rounds_scored"] == 2
    assert game["standings"] == [{"player": "Anna", "points": 18, "place": 1}, {"player": "Ben", "points": 6, "place": 2}]


# (Not brighter: the synthetic cards' white would clip at 255, and the reader then reads doubtfully.)
@pytest.mark.parametrize("light", [
    pytest.param(((0.0, (0, 0, 0)), (6.0, (-40, -40, -40))), id="exposure-drifting-down-by-40"),
    pytest.param(((0.0, (0, 0, 0)), (4.0, (10, 0, -40)), (7.0, (10, 0, -40)), (7.1, (-20, -20, -20))),
                 id="white-balance-drifting-then-darker-at-once"),
])
def test_a_game_goes_on_to_the_next_round_while_the_cameras_light_drifts(tmp_path, capsys, light) -> None:
    # The exposure drifts all through round 1 (and while the table is cleared): the round is
    # refereed as usual, the cleared table is seen as cleared, and round 2 starts by itself.
    first = script_round(start=0.3, gap=0.4, ben=["three_b"], hand=False, nudge=False)
    cleared = first.layings[-1].settle_t + 1.0
    second = [l for l in _round_two(cleared + 2.0)][:3]
    script = Script(first.layings + tuple(second), (), (), (cleared,), duration=second[-1].settle_t + 1.0, light=light)
    video = write_video(script, tmp_path / "drift.avi", fps=10)
    seats = tmp_path / "seats.yaml"
    seats.write_text(seats_yaml())
    events_path = tmp_path / "events.jsonl"
    assert main(["live", "--video", str(video), "--calibration", str(seats), "--events", str(events_path),
                 "--db", str(tmp_path / "g.db"), "--headless", "--points", "3,9"]) == 0
    events = read_events(events_path)
    started = [e for e in events if e["type"] == "round_started"]
    assert [e["round"] for e in started] == [1, 2]
    assert cleared < started[1]["t"] <= second[0].settle_t + 0.5
    check_round(events[:events.index(started[1])], Script(first.layings), timing=False)
    laid_two = [(e["player"], e["position"]) for e in events if e["type"] == "card_laid" and e["t"] >= started[1]["t"]]
    assert laid_two == [(l.player, l.position) for l in second]
