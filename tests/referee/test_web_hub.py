"""The scoreboard's hub, state and history, without sockets: one encode per frame, stalled listeners dropped."""

import json
import threading
import time

import numpy as np
import pytest

from referee.cards import Criteria
from referee.cli.serve import LiveWeb, palette
from referee.live.events import Event
from referee.live.game import STOP_WAIT_S, LiveGame, SeenCard
from referee.live.store import GameStore
from referee.web import Action, Hub, ScoreboardServer, game_state, parse_address
from referee.web.history import read_games

ONE, TWO, THREE = Criteria(1, 1, 1), Criteria(2, 2, 2), Criteria(1, 1, 3)


def seen(*criteria, start=0):
    return [SeenCard(start + k, c) for k, c in enumerate(criteria)]


@pytest.fixture
def live_web():
    """A LiveWeb over a game of Anna and Ben, its server built but not listening."""
    game = LiveGame(["Anna", "Ben"], {0: (3, 9)})
    game.start(0, 0.0)
    hub = Hub(max_viewers=30, queue_size=4)
    server = ScoreboardServer(("127.0.0.1", 0), hub, None, "secret", palette())
    web = LiveWeb(server, hub, game, "hidden")
    yield web
    server.close()


def test_each_frame_is_encoded_once_whoever_watches(live_web, monkeypatch) -> None:
    import cv2

    calls = []
    real = cv2.imencode
    monkeypatch.setattr(cv2, "imencode", lambda *a, **k: calls.append(1) or real(*a, **k))
    viewers = [live_web.hub.watch_frames() for _ in range(20)]
    frame_bgr = np.full((90, 160, 3), 128, np.uint8)
    got = [[] for _ in viewers]
    for k in range(5):
        frame_bgr[:, :20 * (k + 1)] = 255
        live_web.publish_frame(frame_bgr)
        for viewer, frames in zip(viewers, got):
            frames.append(viewer.next_frame(timeout=1.0))
    assert len(calls) == 5 and live_web.encodes == 5 and live_web.hub.frames_published == 5
    for frames in got[1:]:
        assert all(a is b for a, b in zip(frames, got[0]))  # the very same bytes for everyone
    assert len(set(got[0])) == 5 and all(f.startswith(b"\xff\xd8") for f in got[0])


def test_no_frame_is_drawn_or_encoded_while_nobody_watches(live_web) -> None:
    assert not live_web.wants_frame()
    with live_web.hub.watch_frames():
        assert live_web.wants_frame()
    assert not live_web.wants_frame()


def test_a_large_frame_is_scaled_to_the_stream_width(live_web) -> None:
    import cv2

    viewer = live_web.hub.watch_frames()
    live_web.publish_frame(np.zeros((1080, 1920, 3), np.uint8))
    image = cv2.imdecode(np.frombuffer(viewer.next_frame(1.0), np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (720, 1280, 3)


def test_a_slow_viewer_skips_to_the_newest_frame_and_a_quiet_one_gets_it_again() -> None:
    hub = Hub()
    viewer = hub.watch_frames()
    assert viewer.next_frame(timeout=0.05) is None  # nothing yet
    for k in range(10):
        hub.publish_frame(b"frame %d" % k)
    assert viewer.next_frame(timeout=0.05) == b"frame 9"
    started = time.monotonic()
    assert viewer.next_frame(timeout=0.2) == b"frame 9"  # re-sent after the timeout: browsers need it
    assert time.monotonic() - started >= 0.19
    late = hub.watch_frames()
    assert late.next_frame(timeout=0.05) == b"frame 9"  # a new viewer sees the newest frame at once


def test_a_stalled_listener_is_dropped_and_nobody_waits_for_it() -> None:
    hub = Hub(queue_size=4)
    stalled, reading = hub.listen(), hub.listen()
    got = []
    started = time.monotonic()
    for k in range(20):
        assert hub.publish_state({"round": k}) is True
        got.append(reading.next_message(timeout=0.5))
    assert time.monotonic() - started < 0.5
    assert stalled.dropped and not stalled.is_open and hub.listeners == 1 and hub.listeners_dropped == 1
    assert not reading.dropped
    assert [json.loads(m.split(b"data: ")[1]) for m in got] == [{"round": k} for k in range(20)]


def test_state_is_sent_only_when_it_changes_and_a_new_listener_gets_it_first() -> None:
    hub = Hub()
    assert hub.publish_state({"round": 1}) is True
    assert hub.publish_state({"round": 1}) is False
    listener = hub.listen()
    assert listener.next_message(0.1) == b'event: state\ndata: {"round": 1}\n\n'
    assert listener.next_message(0.05) is None


def test_viewers_beyond_the_limit_are_turned_away() -> None:
    hub = Hub(max_viewers=2)
    assert hub.watch_frames() and hub.watch_frames()
    assert hub.watch_frames() is None
    assert hub.listen() and hub.listen() and hub.listen() is None


def test_closing_wakes_viewers_and_refuses_actions() -> None:
    hub = Hub()
    hub.accepts_actions = True
    viewer = hub.watch_frames()
    waiting = Action("next_round")
    assert hub.submit(waiting)
    woke = []
    thread = threading.Thread(target=lambda: woke.append(viewer.next_frame(timeout=5.0)))
    thread.start()
    time.sleep(0.05)
    hub.close()
    thread.join(timeout=2)
    assert woke == [None] and waiting.done.is_set() and waiting.error == "the referee has stopped"
    assert not hub.submit(Action("mode"))


@pytest.mark.parametrize("kind, points, error", [
    ("next_round", (), None),
    ("mode", (), None),
    ("points", (3, 9), None),
    ("points", (3, 9, 1), "expected 2 point cards"),
], ids=["next round", "mode", "points", "points for three players"])
def test_actions_are_applied_in_the_loop_thread(live_web, kind, points, error) -> None:
    hub, game = live_web.hub, live_web.game
    hub.accepts_actions = True
    game.observe({"Anna": seen(ONE, TWO), "Ben": seen(THREE, start=10)}, 1, 0.1)
    action = Action(kind, points)
    assert hub.submit(action)
    emitted = []
    mode = live_web.step(emitted.extend, 2, 0.2, "hidden")
    assert action.done.is_set()
    if error:
        assert error in action.error
        return
    assert action.error is None
    if kind == "next_round":
        assert [e.type for e in emitted] == ["round_scored", "round_started"] and game.round == 2
        assert hub.state["round"] == 2 and hub.state["scores"][0]["points"] == {"Anna": 9, "Ben": 3}
    elif kind == "mode":
        assert mode == "open" and hub.state["mode"] == "open"
    else:
        assert game._points_for(1) == (3, 9) and mode == "hidden"


def test_hidden_mode_shows_counts_open_mode_and_a_scored_round_show_errors() -> None:
    game = LiveGame(["Anna", "Ben"], {0: (3, 9)})
    game.start(0, 0.0)
    game.observe({"Anna": seen(ONE, TWO, TWO), "Ben": seen(THREE, start=10)}, 1, 0.1)
    hidden = game_state(game, "hidden", palette())
    assert hidden["rows"][0] == {"player": "Anna", "count": 3}
    assert hidden["colours"] == {"Anna": palette()[0], "Ben": palette()[1]}
    opened = game_state(game, "open")
    assert opened["rows"][0]["valid_length"] == 2
    assert opened["rows"][0]["first_error"] == {"position": 2, "criteria": ["colours", "shapes", "symbols"]}
    assert opened["ranking"] == [] and opened["round_points"] == {}
    game.next_round(2, 0.2)  # the round is scored and the next one starts: the scored one is history now
    state = game_state(game, "hidden")
    assert state["round"] == 2 and state["rows"][0] == {"player": "Anna", "count": 0}
    assert state["totals"] == [{"player": "Anna", "points": 9, "place": 1}, {"player": "Ben", "points": 3, "place": 2}]
    assert state["scores"] == [{"round": 1, "points": {"Anna": 9, "Ben": 3}}]


def test_a_scored_round_shows_its_ranking_and_points() -> None:
    game = LiveGame(["Anna", "Ben"], {0: (3, 9)})
    game.start(0, 0.0)
    rows = {"Anna": seen(ONE, TWO, THREE, TWO, THREE, TWO, THREE), "Ben": seen(THREE, start=10)}
    events = game.observe(rows, 1, 0.1)
    assert [e.type for e in events][-1] == "stop"
    state = game_state(game, "hidden")
    assert state["phase"] == "playing" and state["stopped_by"] == "Anna"  # the score waits for the hands to leave
    events = game.observe(rows, 2, 0.1 + STOP_WAIT_S)
    assert "round_scored" in [e.type for e in events]
    state = game_state(game, "hidden")
    assert state["phase"] == "scored" and state["stopped_by"] is None
    assert [r["player"] for r in state["ranking"]] == ["Anna", "Ben"]
    assert state["round_points"] == {"Anna": 9, "Ben": 3}
    assert state["rows"][0]["valid_length"] == 7 and state["rows"][0]["count"] == 7


def test_history_lists_games_with_their_standings_and_no_folders(tmp_path) -> None:
    db = tmp_path / "games.db"
    game = LiveGame(["Anna", "Ben"], {0: (3, 9)})
    with GameStore(db) as store:
        game_id = store.new_game(["Anna", "Ben"], "video /secret/folder/table.avi")
        events = game.start(0, 0.0) + game.observe({"Anna": seen(ONE, TWO), "Ben": seen(THREE, start=10)}, 1, 0.1)
        events += game.next_round(2, 0.2)
        for event in events:
            store.add_event(game_id, event)
        store.add_event(game_id, Event("warning", 0.3, 3, {"message": "light changed"}))
        store.new_game(["Cem", "Dora"], "url rtsp://admin:pw@10.0.0.5/live")
    newest, first = read_games(db)
    assert newest["players"] == ["Cem", "Dora"] and newest["source"] == "url 10.0.0.5" and newest["rounds"] == []
    assert first["source"] == "video table.avi" and not first["finished"]
    assert first["rounds"][0]["points"] == {"Anna": 9, "Ben": 3}
    assert first["standings"] == [{"player": "Anna", "points": 9, "place": 1}, {"player": "Ben", "points": 3, "place": 2}]
    assert len(read_games(db, limit=1)) == 1


@pytest.mark.parametrize("text, expected", [
    ("127.0.0.1:8080", ("127.0.0.1", 8080)),
    ("0.0.0.0:80", ("0.0.0.0", 80)),
    ("[::1]:9000", ("::1", 9000)),
    ("localhost:0", ("localhost", 0)),
], ids=["loopback", "every interface", "ipv6", "any port"])
def test_addresses_are_read(text, expected) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["8080", ":8080", "127.0.0.1:", "127.0.0.1:http", "127.0.0.1:70000"],
                         ids=["port only", "no host", "no port", "port name", "port too big"])
def test_bad_addresses_are_refused(text) -> None:
    with pytest.raises(ValueError, match="expected HOST:PORT"):
        parse_address(text)


def test_the_stream_takes_at_most_a_fifth_of_the_loop(live_web) -> None:
    with live_web.hub.watch_frames():
        assert live_web.wants_frame()
        time.sleep(0.1)  # drawing the frame took 100 ms: the next one no sooner than 400 ms after
        live_web.publish_frame(np.zeros((90, 160, 3), np.uint8))
        assert not live_web.wants_frame()
        time.sleep(0.1)
        assert not live_web.wants_frame()
        time.sleep(0.4)
        assert live_web.wants_frame()
