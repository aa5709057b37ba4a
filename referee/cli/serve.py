"""``referee serve`` and ``referee live --serve``: the scoreboard page for the phones and TVs in the room.

``LiveWeb`` is what the live loop talks to: it draws nothing itself, encodes each
annotated frame it is given once, in its own thread (and only while someone watches,
at most ``stream_fps`` times a second, and never letting the loop spend more than
``stream_share`` of its time drawing for the stream, so a slow machine streams fewer
frames rather than referee fewer), publishes the game's state when it changes, and
applies the page's actions (next round, point cards, mode) between frames, in the
loop's own thread, so the game is never touched from two threads.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from referee.web import Hub, ScoreboardServer, game_state, is_loopback, parse_address

__all__ = ["add_parsers", "add_serve_option", "start_live_web", "exposure_warning", "LiveWeb", "palette"]

DEFAULT_ADDRESS = ("127.0.0.1", 8080)


def add_parsers(commands: argparse._SubParsersAction) -> None:
    serve = commands.add_parser(
        "serve",
        help="serve the history of past games as a web page",
        description="Serve the games kept by 'referee live' as a web page (past games and their standings) "
                    "until Ctrl-C. For the live table, use 'referee live ... --serve'.",
    )
    serve.add_argument("--db", metavar="FILE", type=Path, default=None,
                       help="the games database (default: $XDG_DATA_HOME/table-referee/games.db)")
    serve.add_argument("--serve", metavar="HOST:PORT", type=_address, default=DEFAULT_ADDRESS,
                       help="where to listen (default: 127.0.0.1:8080; 0.0.0.0:8080 opens it to the local network)")
    serve.set_defaults(run=_run_serve)


def add_serve_option(parser: argparse.ArgumentParser) -> None:
    """``--serve [HOST:PORT]`` for ``referee live``."""
    parser.add_argument("--serve", metavar="HOST:PORT", nargs="?", type=_address, const=DEFAULT_ADDRESS, default=None,
                        help="serve the scoreboard page (live view, standings, history) here; without a value "
                             "127.0.0.1:8080; a non-loopback HOST such as 0.0.0.0 opens it to the local network")


def _address(text: str) -> tuple[str, int]:
    try:
        return parse_address(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def palette() -> tuple[str, ...]:
    """The overlay's player colours as CSS ``#rrggbb``, in seat order."""
    from vision.annotate import PLAYER_BGR

    return tuple(f"#{r:02x}{g:02x}{b:02x}" for b, g, r in PLAYER_BGR)


def _open_server(address: tuple[str, int], hub: Hub | None, db_path: Path | None, token: str | None,
                 command: str) -> ScoreboardServer:
    host, port = address
    try:
        server = ScoreboardServer((host, port), hub, db_path, token, palette())
    except OSError as error:
        raise ServeError(f"--serve {host}:{port}: cannot listen there ({error.strerror or error})") from None
    warning = exposure_warning(host, token is not None)
    if warning:
        print(f"referee {command}: warning: {warning}", file=sys.stderr)
    return server


def exposure_warning(host: str, has_token: bool) -> str:
    """What to tell the user about serving on ``host`` (nothing for loopback).

    >>> exposure_warning("127.0.0.1", True)
    ''
    >>> exposure_warning("0.0.0.0", True)
    'serving on 0.0.0.0, open to the network: anyone on it can watch; acting needs the token'
    """
    if is_loopback(host):
        return ""
    return f"serving on {host}, open to the network: anyone on it can watch" + ("; acting needs the token" if has_token else "")


class ServeError(ValueError):
    """The scoreboard cannot be served where asked."""


class LiveWeb:
    """The live loop's side of the scoreboard; see the module docstring."""

    def __init__(self, server: ScoreboardServer, hub: Hub, game: Any, mode: str, stream_fps: float = 15.0,
                 stream_share: float = 0.2, max_width: int = 1280, quality: int = 80) -> None:
        self.server, self.hub, self.game, self.mode = server, hub, game, mode
        self.stream_fps, self.stream_share, self.max_width, self.quality = stream_fps, stream_share, max_width, quality
        self.encodes = 0
        self.steps = 0  # frames the loop went through while serving
        self.most_viewers = 0
        self._first_step_at = self._last_step_at = 0.0
        self._first_cpu = self._last_cpu = 0.0  # the loop thread's own CPU time: other processes do not count
        self._next_frame_at = 0.0
        self._asked_at = 0.0  # when the loop was last told to draw a frame for the stream
        self._last_key: tuple = ()
        self._scored: dict[int, Any] = dict(game.results)  # round -> the result last announced
        self._to_encode: Any = None  # the newest annotated frame not yet encoded
        self._encode_ready = threading.Condition()
        self._encoder = threading.Thread(target=self._encode_frames, name="scoreboard-encoder", daemon=True)
        self._encoder.start()
        self._publish_state()

    def wants_frame(self) -> bool:
        """Whether the next annotated frame should be drawn and encoded for the stream."""
        now = time.monotonic()
        if not self.hub.has_viewers() or now < self._next_frame_at:
            return False
        self._asked_at = now
        return True

    def publish_frame(self, annotated_bgr: Any) -> None:
        """Hand the annotated frame (which nobody may change afterwards) to the encoder thread.

        The encoder takes the newest frame only: one it had no time for is skipped, never queued.
        """
        with self._encode_ready:
            self._to_encode = annotated_bgr
            self._encode_ready.notify()
        now, period = time.monotonic(), 1.0 / self.stream_fps
        cost = now - self._asked_at if self._asked_at else 0.0  # the loop's time drawing this frame
        cadence = max(self._next_frame_at + period, now - period)  # keeps the rhythm, never bursts
        self._next_frame_at = max(cadence, now + cost * (1 - self.stream_share) / self.stream_share)

    def _encode_frames(self) -> None:
        """The encoder thread: scale to ``max_width``, encode once, hand the JPEG to every viewer."""
        import cv2

        while not self.hub.closed.is_set():
            with self._encode_ready:
                self._encode_ready.wait_for(lambda: self._to_encode is not None or self.hub.closed.is_set(), 0.5)
                image_bgr, self._to_encode = self._to_encode, None
            if image_bgr is None:
                continue
            height, width = image_bgr.shape[:2]
            if width > self.max_width:
                size = (self.max_width, round(height * self.max_width / width))
                image_bgr = cv2.resize(image_bgr, size, interpolation=cv2.INTER_LINEAR)  # INTER_AREA: 4x slower
            ok, jpeg = cv2.imencode(".jpg", image_bgr, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
            if ok:
                self.encodes += 1
                self.hub.publish_frame(jpeg.tobytes())

    def step(self, emit: Callable[[Sequence[Any]], None], frame: int, t: float, mode: str) -> str:
        """Apply the page's actions, publish what changed; returns the mode (the page may have toggled it)."""
        self.mode = mode
        self._last_step_at, self._last_cpu = time.monotonic(), time.thread_time()
        if self.steps == 0:
            self._first_step_at, self._first_cpu = self._last_step_at, self._last_cpu
        self.steps += 1
        self.most_viewers = max(self.most_viewers, self.hub.viewers)
        for action in self.hub.take_actions():
            try:
                if action.kind == "next_round":
                    emit(self.game.next_round(frame, t))
                elif action.kind == "points":
                    emit(self.game.set_points(action.points, frame, t))
                elif action.kind == "mode":
                    self.mode = "open" if self.mode == "hidden" else "hidden"
                action.finish()
            except ValueError as error:
                action.finish(str(error))
        self._publish_state()
        return self.mode

    def _publish_state(self) -> None:
        from referee.live.game import round_scored_data

        game = self.game
        key = (game.round, game.phase, game.stopped_by, self.mode, game.row_ids(), game.row_criteria(),
               tuple((number, id(result)) for number, result in game.results.items()))
        if key == self._last_key:  # most frames change nothing the page shows
            return
        self._last_key = key
        for number, result in sorted(self.game.results.items()):
            if self._scored.get(number) is not result:  # scored, or scored again with point cards
                self._scored[number] = result
                self.hub.publish_event("round_scored", round_scored_data(number, result))
        self.hub.publish_state(game_state(self.game, self.mode, self.server.palette))

    def close(self) -> None:
        """Publish the last state (a video's last round is scored after the loop), then stop serving."""
        self._publish_state()
        time.sleep(0.2)  # let the listeners' threads send it
        self.server.close()
        with self._encode_ready:
            self._encode_ready.notify()
        self._encoder.join(timeout=2)
        print(f"referee live: scoreboard closed: {self.summary()}", file=sys.stderr)

    def summary(self) -> str:
        """The loop's frame rate while serving, and what was served."""
        span = self._last_step_at - self._first_step_at
        rate = (self.steps - 1) / span if span > 0 else float("nan")
        cpu_ms = 1000 * (self._last_cpu - self._first_cpu) / max(1, self.steps - 1)
        return (f"{self.steps} frames at {rate:.1f} frames/s ({cpu_ms:.1f} ms of loop CPU a frame), "
                f"{self.encodes} stream frames encoded, "
                f"at most {self.most_viewers} stream viewers, {self.server.viewers_dropped} dropped")


def start_live_web(address: tuple[str, int], game: Any, db_path: Path | None, mode: str,
                   command: str = "live") -> LiveWeb:
    """Serve the live game at ``address``; prints the address and the token on stderr."""
    from referee.cli.live import _Refused  # the live command's "refused before starting" (exit status 2)

    token = secrets.token_urlsafe(12)
    hub = Hub()
    try:
        server = _open_server(address, hub, db_path, token, command)
    except ServeError as error:
        raise _Refused(str(error)) from None
    web = LiveWeb(server, hub, game, mode)
    hub.accepts_actions = True
    server.start()
    print(f"referee {command}: scoreboard at {server.url} (watching is open to anyone who can reach it)", file=sys.stderr)
    print(f"referee {command}: acting needs the token {token} (or open {server.url}?token={token})", file=sys.stderr,
          flush=True)
    return web


def _run_serve(args: argparse.Namespace) -> int:
    from referee.live.store import default_db_path

    path = args.db or default_db_path()
    if not path.is_file():
        print(f"referee serve: {path}: no games database (play a game with 'referee live' first)", file=sys.stderr)
        return 2
    try:
        server = _open_server(args.serve, None, path, None, "serve")
    except ServeError as error:
        print(f"referee serve: {error}", file=sys.stderr)
        return 2
    server.start()
    try:  # from the line on: a Ctrl-C sent as soon as it is read must still stop cleanly
        print(f"referee serve: past games at {server.url}history (Ctrl-C to stop)", file=sys.stderr, flush=True)
        while True:  # short sleeps: a Ctrl-C that lands on the server's thread is acted on here within 0.5 s
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0
