"""The scoreboard over HTTP on 127.0.0.1 with urllib: the token, the events, the stream, the history."""

import ctypes
import json
import os
import platform
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import cv2
import numpy as np
import pytest

from referee.cards import Criteria
from referee.cli.serve import LiveWeb, palette
from referee.live.game import LiveGame, SeenCard
from referee.live.store import GameStore
from referee.web import Hub, ScoreboardServer

TOKEN = "test-token"


class Referee:
    """A stand-in for the live loop: a real game and LiveWeb, stepped every 20 ms in a thread."""

    def __init__(self, db_path=None, write_timeout_s=2.0):
        self.game = LiveGame(["Anna", "Ben"], {0: (3, 9)})
        self.game.start(0, 0.0)
        self.hub = Hub(max_viewers=40)
        self.server = ScoreboardServer(("127.0.0.1", 0), self.hub, db_path, TOKEN, palette(), write_timeout_s=write_timeout_s)
        self.web = LiveWeb(self.server, self.hub, self.game, "hidden")
        self.hub.accepts_actions = True
        self.url = self.server.start().url
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.frame = 0
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        while not self.stop.wait(0.02):
            with self.lock:
                self.frame += 1
                self.web.step(lambda events: None, self.frame, self.frame / 50, self.web.mode)

    def observe(self, rows):
        with self.lock:
            self.game.observe({p: [SeenCard(k + 10 * i, c) for k, c in enumerate(row)] for i, (p, row) in enumerate(rows.items())},
                              self.frame, self.frame / 50)

    def close(self):
        self.stop.set()
        self.thread.join(timeout=2)
        self.server.close()


@pytest.fixture
def referee():
    ref = Referee()
    yield ref
    ref.close()


def request(url, method="GET", body=None, headers=None, timeout=5.0):
    """Status and JSON (or bytes) of a request; HTTP errors are answers too."""
    req = urllib.request.Request(url, method=method, data=body, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as reply:
            status, data, kind = reply.status, reply.read(), reply.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        status, data, kind = error.code, error.read(), error.headers.get("Content-Type", "")
    return status, json.loads(data) if kind.startswith("application/json") else data


@pytest.mark.parametrize("path, headers", [
    ("action/mode", {}),
    ("action/mode", {"X-Referee-Token": "guess"}),
    ("action/mode?token=guess", {}),
    ("action/next_round", {}),
    ("action/points?points=3,9", {}),
], ids=["no token", "wrong header", "wrong query", "next round", "points"])
def test_an_action_without_the_token_is_refused(referee, path, headers) -> None:
    status, answer = request(referee.url + path, "POST", b"", headers)
    assert status == 403 and "token" in answer["error"]
    assert referee.hub.state["mode"] == "hidden" and referee.game.round == 1


@pytest.mark.parametrize("how", ["header", "query"])
def test_an_action_with_the_token_is_done(referee, how) -> None:
    headers = {"X-Referee-Token": TOKEN} if how == "header" else {}
    query = f"?token={TOKEN}" if how == "query" else ""
    status, answer = request(referee.url + "action/mode" + query, "POST", b"", headers)
    assert status == 200 and answer["state"]["mode"] == "open"


def test_point_cards_are_checked_then_entered(referee) -> None:
    headers = {"X-Referee-Token": TOKEN, "Content-Type": "application/json"}
    status, answer = request(referee.url + "action/points", "POST", b'{"points": [3]}', headers)
    assert status == 400 and "expected 2 point cards" in answer["error"]
    status, answer = request(referee.url + "action/points", "POST", b'{"points": ["../../etc"]}', headers)
    assert status == 400
    status, answer = request(referee.url + "action/points", "POST", b"x" * 5000, headers)
    assert status == 400 and "at most 1024 bytes" in answer["error"]
    status, _ = request(referee.url + "action/points", "POST", b'{"points": [3, 9]}', headers)
    assert status == 200 and referee.game._points_for(1) == (3, 9)


@pytest.mark.parametrize("path, status", [
    ("../../etc/passwd", 404), ("static/app.js", 404), ("%2e%2e/referee/web/server.py", 404),
    ("history.json?limit=1;DROP%20TABLE%20games", 200), ("action/mode", 405), ("app.js", 200),
], ids=["dot dot", "folder", "encoded", "sql in a number", "get an action", "script"])
def test_nothing_but_the_fixed_routes_is_served(referee, path, status) -> None:
    assert request(referee.url + path)[0] == status


def read_event(stream, name, deadline):
    """The data of the next Server-Sent Event called ``name``."""
    current = None
    while time.monotonic() < deadline:
        line = stream.readline().decode("utf-8").rstrip("\n")
        if line.startswith("event: "):
            current = line[7:]
        elif line.startswith("data: ") and current == name:
            return json.loads(line[6:])
    raise AssertionError(f"no {name!r} event in time")


def test_events_deliver_the_state_and_each_change(referee) -> None:
    one, two = Criteria(1, 1, 1), Criteria(2, 2, 2)
    with urllib.request.urlopen(referee.url + "events", timeout=5) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        deadline = time.monotonic() + 5
        state = read_event(stream, "state", deadline)
        assert state["round"] == 1 and state["rows"][0] == {"player": "Anna", "count": 0}
        referee.observe({"Anna": [one, two]})
        assert read_event(stream, "state", deadline)["rows"][0] == {"player": "Anna", "count": 2}
        request(referee.url + "action/next_round", "POST", b"", {"X-Referee-Token": TOKEN})
        scored = read_event(stream, "round_scored", deadline)
        assert scored["round"] == 1 and scored["points"] == {"Anna": 9, "Ben": 3}
        state = read_event(stream, "state", deadline)
        assert state["round"] == 2 and state["totals"][0] == {"player": "Anna", "points": 9, "place": 1}


def read_parts(stream, count, deadline):
    """``count`` JPEG parts of a multipart stream."""
    parts = []
    while len(parts) < count and time.monotonic() < deadline:
        line = stream.readline()
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
            stream.readline()
            parts.append(stream.read(length))
    return parts


def jpeg(k):
    image = np.zeros((72, 128, 3), np.uint8)
    image[:, : 10 * (k + 1)] = 255
    return cv2.imencode(".jpg", image)[1].tobytes()


def test_the_stream_delivers_the_frames_and_the_boundary_follows_each_one(referee) -> None:
    frames = [jpeg(k) for k in range(3)]
    referee.hub.publish_frame(frames[0])
    with urllib.request.urlopen(referee.url + "stream.mjpg", timeout=5) as stream:
        assert stream.headers["Content-Type"] == "multipart/x-mixed-replace; boundary=frame"
        deadline = time.monotonic() + 5
        assert read_parts(stream, 1, deadline) == [frames[0]]
        assert stream.readline() == b"\r\n" and stream.readline() == b"--frame\r\n"  # sent with the frame
        referee.hub.publish_frame(frames[1])
        assert read_parts(stream, 1, deadline) == [frames[1]]
        referee.hub.publish_frame(frames[2])
        got = read_parts(stream, 1, deadline)
    assert got == [frames[2]]
    assert cv2.imdecode(np.frombuffer(got[0], np.uint8), cv2.IMREAD_COLOR).shape == (72, 128, 3)


def test_a_stalled_viewer_is_dropped_without_slowing_the_publisher() -> None:
    ref = Referee(write_timeout_s=0.5)
    try:
        stalled = socket.create_connection(ref.server.address, timeout=5)
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.sendall(b"GET /stream.mjpg HTTP/1.0\r\n\r\n")  # and never reads
        deadline = time.monotonic() + 3
        while ref.hub.viewers == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert ref.hub.viewers == 1
        big = os.urandom(400_000)
        slowest = 0.0
        deadline = time.monotonic() + 10
        while ref.hub.viewers and time.monotonic() < deadline:
            started = time.perf_counter()
            ref.hub.publish_frame(big + bytes([ref.hub.frames_published % 256]))
            slowest = max(slowest, time.perf_counter() - started)
            time.sleep(1 / 30)
        assert ref.hub.viewers == 0 and ref.server.viewers_dropped == 1
        assert slowest < 0.05
        stalled.close()
    finally:
        ref.close()


def test_twenty_viewers_at_once_each_get_the_frames(referee) -> None:
    frames = {}
    done = threading.Event()

    def watch(k):
        with urllib.request.urlopen(referee.url + "stream.mjpg", timeout=5) as stream:
            frames[k] = read_parts(stream, 3, time.monotonic() + 10)

    viewers = [threading.Thread(target=watch, args=(k,), daemon=True) for k in range(20)]
    for viewer in viewers:
        viewer.start()
    deadline = time.monotonic() + 10
    k = 0
    while len(frames) < 20 and time.monotonic() < deadline:
        referee.hub.publish_frame(jpeg(k % 12))
        k += 1
        time.sleep(0.03)
    done.set()
    for viewer in viewers:
        viewer.join(timeout=5)
    assert len(frames) == 20 and all(len(parts) == 3 for parts in frames.values())


def history_db(path):
    game = LiveGame(["Anna", "Ben"], {0: (3, 9)})
    with GameStore(path) as store:
        game_id = store.new_game(["Anna", "Ben"], "video /home/someone/table.avi")
        one, two = SeenCard(1, Criteria(1, 1, 1)), SeenCard(2, Criteria(2, 2, 2))
        for event in game.start(0, 0.0) + game.observe({"Anna": [one, two]}, 1, 0.1) + game.next_round(2, 0.2):
            store.add_event(game_id, event)
    return path


def test_history_lists_a_game_from_the_database(tmp_path) -> None:
    db = history_db(tmp_path / "games.db")
    with ScoreboardServer(("127.0.0.1", 0), None, db, None, palette()) as server:
        status, answer = request(server.url + "history.json")
        assert status == 200 and answer["palette"] == list(palette())
        (game,) = answer["games"]
        assert game["source"] == "video table.avi" and game["rounds"][0]["points"] == {"Anna": 9, "Ben": 3}
        assert game["standings"][0] == {"player": "Anna", "points": 9, "place": 1}
        status, page = request(server.url + "history")
        assert status == 200 and b"/history.js" in page
        assert request(server.url)[0] == 200  # redirected to the history: no live game here
        assert request(server.url + "events")[0] == 404
        assert request(server.url + "action/next_round", "POST", b"", {"X-Referee-Token": ""})[0] == 403


# ``referee serve`` as started in a terminal, where Ctrl-C works: a test run started in the
# background of a script ignores SIGINT, its children inherit that, and Python then never raises
# KeyboardInterrupt (as a shell wants for its background jobs).
SERVE_AS_IN_A_TERMINAL = [sys.executable, "-c", "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                          "runpy.run_module('referee', run_name='__main__', alter_sys=True)", "serve"]


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.machine() != "x86_64", reason="tgkill's number is x86-64 Linux's")
def test_referee_serve_stops_on_a_ctrl_c_that_lands_on_its_server_thread(tmp_path) -> None:
    # The kernel hands a process's SIGINT to any of its threads; Python acts on it in the main
    # thread only, so a main thread blocked for good never saw one that landed elsewhere (a hang).
    db = history_db(tmp_path / "games.db")
    process = subprocess.Popen(SERVE_AS_IN_A_TERMINAL + ["--db", str(db), "--serve", "127.0.0.1:0"],
                               stderr=subprocess.PIPE, text=True)
    try:
        process.stderr.readline()
        threads = [int(t) for t in os.listdir(f"/proc/{process.pid}/task") if int(t) != process.pid]
        assert threads, "referee serve runs no second thread"
        ctypes.CDLL(None, use_errno=True).syscall(234, process.pid, threads[0], signal.SIGINT)  # SYS_tgkill
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
        process.wait(timeout=10)
        process.stderr.close()


def test_referee_serve_serves_the_history_until_interrupted(tmp_path) -> None:
    db = history_db(tmp_path / "games.db")
    process = subprocess.Popen(SERVE_AS_IN_A_TERMINAL + ["--db", str(db), "--serve", "127.0.0.1:0"],
                               stderr=subprocess.PIPE, text=True)
    try:
        line = process.stderr.readline()
        url = re.search(r"(http://\S+)history", line).group(1)
        status, answer = request(url + "history.json")
        assert status == 200 and answer["games"][0]["players"] == ["Anna", "Ben"]
        process.send_signal(signal.SIGINT)
        try:
            status = process.wait(timeout=60)  # a busy machine may take a while; a hang does not end
        except subprocess.TimeoutExpired:
            process.kill()
            pytest.fail(f"referee serve did not stop within 60 s of Ctrl-C; it said: {process.stderr.read()!r}")
        assert status == 0
    finally:
        process.kill()
        process.wait(timeout=10)
        process.stderr.close()


def test_referee_serve_refuses_a_missing_database(tmp_path, capsys) -> None:
    from referee.cli import main

    assert main(["serve", "--db", str(tmp_path / "none.db"), "--serve", "127.0.0.1:0"]) == 2
    assert "no games database" in capsys.readouterr().err


@pytest.mark.parametrize("host, warned", [("127.0.0.1", False), ("localhost", False), ("::1", False),
                                          ("0.0.0.0", True), ("192.168.1.20", True)])
def test_serving_beyond_loopback_is_warned_about(host, warned) -> None:
    from referee.cli.serve import exposure_warning

    assert bool(exposure_warning(host, True)) == warned


def test_the_address_and_the_token_are_printed_at_start(capsys) -> None:
    from referee.cli.serve import start_live_web

    web = start_live_web(("127.0.0.1", 0), LiveGame(["Anna", "Ben"]), None, "hidden")
    try:
        err = capsys.readouterr().err
        assert f"scoreboard at {web.server.url}" in err and f"token {web.server.token}" in err
        assert "warning" not in err and len(web.server.token) >= 16
    finally:
        web.close()
