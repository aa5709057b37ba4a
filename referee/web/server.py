"""The scoreboard's HTTP server, on the standard library's ``ThreadingHTTPServer``.

Routes are a fixed table: no request names a file or a table. Watching is open
(``/``, ``/stream.mjpg``, ``/events``, ``/state.json``, ``/history``,
``/history.json``); acting (``POST /action/next_round``, ``/action/points``,
``/action/mode``) needs the token, in the ``X-Referee-Token`` header or the
``token`` query parameter, and is refused with 403 otherwise. Each streaming client
has its own thread and a write timeout: a viewer that stops reading is dropped
when a write blocks that long, and nobody else waits for it.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import socket
import threading
import time
import urllib.parse
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

from referee.web.history import HistoryError, read_games
from referee.web.hub import Action, Hub

__all__ = ["ScoreboardServer", "parse_address", "is_loopback", "TOKEN_HEADER"]

TOKEN_HEADER = "X-Referee-Token"
_STATIC = {  # route -> (file in referee/web/static, content type)
    "/": ("index.html", "text/html; charset=utf-8"),
    "/history": ("history.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/history.js": ("history.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
}
_ACTIONS = {"/action/next_round": "next_round", "/action/points": "points", "/action/mode": "mode"}
_SECURITY_HEADERS = (
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Content-Security-Policy", "default-src 'self'; img-src 'self'; frame-ancestors 'none'"),
    ("Cache-Control", "no-store"),
)
_MAX_BODY = 1024
_BOUNDARY = b"frame"


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6) as a host and a port number.

    >>> parse_address("127.0.0.1:8080")
    ('127.0.0.1', 8080)
    >>> parse_address("[::1]:0")
    ('::1', 0)
    """
    host, sep, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"expected HOST:PORT such as 127.0.0.1:8080, got {text!r}")
    return host, int(port)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable only from this machine.

    >>> [is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "192.168.1.5")]
    [True, True, True, False, False]
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _load_static() -> dict[str, tuple[bytes, str]]:
    folder = resources.files("referee.web") / "static"
    return {route: (folder.joinpath(name).read_bytes(), kind) for route, (name, kind) in _STATIC.items()}


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64  # twenty viewers may connect at once
    scoreboard: ScoreboardServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a viewer that went away is normal; nothing to report


class _HTTPServer6(_HTTPServer):
    address_family = socket.AF_INET6


class ScoreboardServer:
    """The page, the stream, the events, the history and the actions; see the module docstring.

    ``hub`` is None for a history-only server (``referee serve``); ``db_path`` None
    for no history. Start with ``start()``, stop with ``close()`` (also closes the hub).
    """

    def __init__(self, address: tuple[str, int], hub: Hub | None, db_path: Path | None, token: str | None,
                 palette: tuple[str, ...] = (), write_timeout_s: float = 2.0, resend_s: float = 1.0) -> None:
        self.hub = hub
        self.db_path = db_path
        self.token = token
        self.palette = palette
        self.write_timeout_s = write_timeout_s
        self.resend_s = resend_s
        self.stopping = threading.Event()
        self.viewers_dropped = 0
        self._static = _load_static()
        server_class = _HTTPServer6 if ":" in address[0] else _HTTPServer
        self._httpd = server_class(address, _Handler)
        self._httpd.scoreboard = self
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._httpd.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        shown = socket.gethostname() if host in ("0.0.0.0", "::") else host
        return f"http://{f'[{shown}]' if ':' in shown else shown}:{port}/"

    def start(self) -> ScoreboardServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="scoreboard", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self.stopping.set()
        if self.hub is not None:
            self.hub.close()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
        self._httpd.server_close()

    def __enter__(self) -> ScoreboardServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def token_ok(self, given: str | None) -> bool:
        if not self.token or not given:
            return False
        return hmac.compare_digest(given.encode("utf-8"), self.token.encode("utf-8"))

    def is_running(self) -> bool:
        return not self.stopping.is_set() and (self.hub is None or not self.hub.closed.is_set())


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.0"
    timeout = 10  # a request must arrive within this; streaming writes use the shorter write timeout
    server_version = "table-referee"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    @property
    def board(self) -> ScoreboardServer:
        return self.server.scoreboard

    # --- answers ----------------------------------------------------------------------
    def _send(self, status: int, body: bytes, content_type: str, extra: tuple[tuple[str, str], ...] = ()) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in _SECURITY_HEADERS + extra:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data).encode("utf-8"), "application/json")

    def _error(self, status: int, message: str) -> None:
        self._json(status, {"error": message})

    # --- routes -------------------------------------------------------------------------
    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        board = self.board
        if url.path == "/" and board.hub is None:
            self._send(HTTPStatus.SEE_OTHER, b"", "text/plain", (("Location", "/history"),))
        elif url.path in board._static:
            body, kind = board._static[url.path]
            self._send(HTTPStatus.OK, body, kind)
        elif url.path == "/stream.mjpg" and board.hub is not None:
            self._stream_frames(board.hub)
        elif url.path == "/events" and board.hub is not None:
            self._stream_events(board.hub)
        elif url.path == "/state.json" and board.hub is not None:
            self._json(HTTPStatus.OK, board.hub.state or {})
        elif url.path == "/history.json":
            self._history(url.query)
        elif url.path in _ACTIONS:
            self._error(HTTPStatus.METHOD_NOT_ALLOWED, "actions are POST requests")
        else:
            self._error(HTTPStatus.NOT_FOUND, "no such page")

    def do_HEAD(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        if url.path in self.board._static:
            body, kind = self.board._static[url.path]
            self._send(HTTPStatus.OK, body, kind)
        else:
            self._error(HTTPStatus.NOT_FOUND, "no such page")

    def do_POST(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        kind = _ACTIONS.get(url.path)
        if kind is None:
            self._error(HTTPStatus.NOT_FOUND, "no such action")
            return
        query = urllib.parse.parse_qs(url.query)
        given = self.headers.get(TOKEN_HEADER) or (query.get("token") or [None])[0]
        if not self.board.token_ok(given):
            self._error(HTTPStatus.FORBIDDEN, "acting needs the token the referee printed at start")
            return
        hub = self.board.hub
        if hub is None:
            self._error(HTTPStatus.CONFLICT, "no live game here: only the history is served")
            return
        points: tuple[int, ...] = ()
        if kind == "points":
            try:
                points = self._points(query, hub)
            except ValueError as error:
                self._error(HTTPStatus.BAD_REQUEST, str(error))
                return
        action = Action(kind, points)
        if not hub.submit(action):
            self._error(HTTPStatus.CONFLICT, "the referee takes no actions now (stopped, or busy with others)")
            return
        if not action.done.wait(3.0):
            self._json(HTTPStatus.ACCEPTED, {"queued": kind})
        elif action.error is not None:
            self._error(HTTPStatus.BAD_REQUEST, action.error)
        else:
            self._json(HTTPStatus.OK, {"done": kind, "state": hub.state})

    def _points(self, query: dict[str, list[str]], hub: Hub) -> tuple[int, ...]:
        """Point cards from a JSON body ``{"points": [3, 9]}`` or a ``points=3,9`` parameter."""
        length = int(self.headers.get("Content-Length") or 0)
        if length > _MAX_BODY:
            raise ValueError(f"expected a body of at most {_MAX_BODY} bytes, got {length}")
        raw: Any = None
        if length > 0:
            try:
                raw = json.loads(self.rfile.read(length)).get("points")
            except (ValueError, AttributeError):
                raise ValueError('expected a JSON body such as {"points": [3, 9]}') from None
        elif query.get("points"):
            raw = [v for v in query["points"][0].split(",") if v.strip()]
        players = (hub.state or {}).get("players", [])
        if not isinstance(raw, list) or not all(isinstance(v, (int, str)) and str(v).strip().isdigit() for v in raw):
            raise ValueError(f"expected point cards as whole numbers, one per player, got {raw!r}")
        values = tuple(int(v) for v in raw)
        if len(values) != len(players) or any(v > 99 for v in values):
            raise ValueError(f"expected {len(players)} point cards (0 to 99), one per player ({', '.join(players)}), "
                             f"got {list(values)}")
        return values

    def _history(self, query_text: str) -> None:
        if self.board.db_path is None:
            self._json(HTTPStatus.OK, {"games": []})
            return
        limit_text = (urllib.parse.parse_qs(query_text).get("limit") or ["50"])[0]
        limit = min(200, int(limit_text)) if limit_text.isdigit() else 50
        try:
            games = read_games(self.board.db_path, limit)
        except HistoryError:
            self._error(HTTPStatus.SERVICE_UNAVAILABLE, "the games database cannot be read now")
            return
        self._json(HTTPStatus.OK, {"games": games, "palette": list(self.board.palette)})

    # --- streams ------------------------------------------------------------------------
    def _stream_headers(self, content_type: str) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", content_type)
        for name, value in _SECURITY_HEADERS:
            self.send_header(name, value)
        self.send_header("Connection", "close")
        self.end_headers()
        self.connection.settimeout(self.board.write_timeout_s)
        # Room for a few frames in the kernel: a frame goes out in one write, one interpreter-lock handover per viewer.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)

    def _stream_frames(self, hub: Hub) -> None:
        viewer = hub.watch_frames()
        if viewer is None:
            self._error(HTTPStatus.SERVICE_UNAVAILABLE, "too many viewers")
            return
        with viewer:
            self._stream_headers(f"multipart/x-mixed-replace; boundary={_BOUNDARY.decode()}")
            try:
                self.wfile.write(b"--" + _BOUNDARY + b"\r\n")
                while self.board.is_running():
                    # The boundary goes right after each frame: browsers show a part only when the next one starts.
                    jpeg = viewer.next_frame(self.board.resend_s)
                    if jpeg is None:
                        continue
                    head = b"Content-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(jpeg)
                    self.wfile.write(head + jpeg + b"\r\n--" + _BOUNDARY + b"\r\n")
            except TimeoutError:
                self.board.viewers_dropped += 1
            except OSError:
                pass  # the viewer went away
            self.close_connection = True

    def _stream_events(self, hub: Hub) -> None:
        listener = hub.listen()
        if listener is None:
            self._error(HTTPStatus.SERVICE_UNAVAILABLE, "too many listeners")
            return
        with listener:
            self._stream_headers("text/event-stream; charset=utf-8")
            try:
                self.wfile.write(b"retry: 2000\n\n")
                quiet_since = time.monotonic()
                while listener.is_open and self.board.is_running():
                    message = listener.next_message(0.5)
                    if message is not None:
                        self.wfile.write(message)
                        quiet_since = time.monotonic()
                    elif time.monotonic() - quiet_since > 10:
                        self.wfile.write(b": still here\n\n")  # finds clients that went away
                        quiet_since = time.monotonic()
            except TimeoutError:
                self.board.viewers_dropped += 1
            except OSError:
                pass
            self.close_connection = True
