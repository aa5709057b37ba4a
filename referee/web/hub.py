"""Where the live loop hands its frames, state and events to the web viewers, without ever waiting for them.

The referee thread only swaps references and notifies: ``publish_frame`` keeps the
newest JPEG (encoded once by the caller, however many watch) in one slot that every
stream viewer reads at its own pace, skipping frames it was too slow for;
``publish_state`` and ``publish_event`` format one Server-Sent Events message and
offer it to each listener's bounded queue, and a listener whose queue is full is
dropped (its browser reconnects and gets the whole state again). Actions from the
page travel the other way, through a bounded queue the loop drains between frames.
"""

from __future__ import annotations

import json
import queue
import threading
from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = ["Action", "Hub", "FrameViewer", "Listener", "ACTION_KINDS"]

ACTION_KINDS = ("next_round", "points", "mode")


@dataclass
class Action:
    """A referee action asked for by the page: the next round, point cards, or the other mode.

    The loop that owns the game applies it and calls ``finish``; the web thread that asked
    waits on ``done`` for the outcome (``error`` is None when it was taken).
    """

    kind: str
    points: tuple[int, ...] = ()
    error: str | None = None
    done: threading.Event = field(default_factory=threading.Event, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in ACTION_KINDS:
            raise ValueError(f"action must be one of {ACTION_KINDS}, got {self.kind!r}")

    def finish(self, error: str | None = None) -> None:
        self.error = error
        self.done.set()


def sse_message(name: str, data: Any) -> bytes:
    """One Server-Sent Events message (``event:`` and a one-line JSON ``data:``).

    >>> sse_message("state", {"round": 1})
    b'event: state\\ndata: {"round": 1}\\n\\n'
    """
    return f"event: {name}\ndata: {json.dumps(data, separators=(', ', ': '))}\n\n".encode("utf-8")


class Listener:
    """One Server-Sent Events client: a bounded queue of ready-made messages."""

    def __init__(self, hub: Hub, size: int) -> None:
        self._hub = hub
        self._queue: queue.Queue[bytes] = queue.Queue(maxsize=size)
        self.dropped = False

    def offer(self, message: bytes) -> bool:
        """Queue a message without waiting; a full queue means a stalled client, which is dropped."""
        try:
            self._queue.put_nowait(message)
            return True
        except queue.Full:
            self.dropped = True
            return False

    def next_message(self, timeout: float) -> bytes | None:
        """The next message, or None after ``timeout`` seconds (time for a keep-alive)."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    @property
    def is_open(self) -> bool:
        return not self.dropped and not self._hub.closed.is_set()

    def close(self) -> None:
        self._hub._forget(self)

    def __enter__(self) -> Listener:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class FrameViewer:
    """One stream client: reads the hub's newest-frame slot, never queues frames."""

    def __init__(self, hub: Hub) -> None:
        self._hub = hub
        self.seq = 0

    def next_frame(self, timeout: float) -> bytes | None:
        """The newest frame after the one last taken, or the same one again after ``timeout`` seconds.

        None when there is no frame yet or the hub is closed.
        """
        hub = self._hub
        with hub._frame_ready:
            hub._frame_ready.wait_for(lambda: hub._seq != self.seq or hub.closed.is_set(), timeout)
            if hub.closed.is_set():
                return None
            self.seq = hub._seq
            return hub._jpeg

    def close(self) -> None:
        with self._hub._frame_ready:
            self._hub._viewers -= 1

    def __enter__(self) -> FrameViewer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Hub:
    """The meeting point of one live loop and many viewers; see the module docstring.

    >>> hub = Hub(max_viewers=2)
    >>> viewer = hub.watch_frames()
    >>> hub.publish_frame(b"jpeg 1"); hub.publish_frame(b"jpeg 2")
    >>> viewer.next_frame(timeout=0.1)  # a slow viewer skips to the newest frame
    b'jpeg 2'
    """

    def __init__(self, max_viewers: int = 64, queue_size: int = 32, max_actions: int = 16) -> None:
        self.max_viewers = max_viewers
        self.queue_size = queue_size
        self.closed = threading.Event()
        self.accepts_actions = False  # True while a live loop drains actions
        self._frame_ready = threading.Condition(threading.Lock())
        self._jpeg: bytes | None = None
        self._seq = 0
        self._viewers = 0
        self._listeners_lock = threading.Lock()
        self._listeners: list[Listener] = []
        self.state: dict[str, Any] | None = None  # the last state published
        self._state_message: bytes | None = None
        self._state_json = ""
        self._actions: queue.Queue[Action] = queue.Queue(maxsize=max_actions)
        self.frames_published = 0
        self.listeners_dropped = 0

    # --- the live loop's side -----------------------------------------------------------
    def publish_frame(self, jpeg: bytes) -> None:
        """The newest annotated frame, already encoded; costs the caller a swap and a notify."""
        with self._frame_ready:
            self._jpeg = jpeg
            self._seq += 1
            self.frames_published += 1
            self._frame_ready.notify_all()

    def has_viewers(self) -> bool:
        return self._viewers > 0

    def publish_state(self, state: Mapping[str, Any]) -> bool:
        """The game's state for the page; sent only when it differs from the last one (returns whether it did)."""
        text = json.dumps(state, sort_keys=True)
        if text == self._state_json:
            return False
        self._state_json = text
        self.state = dict(state)
        message = sse_message("state", state)
        self._state_message = message
        self._broadcast(message)
        return True

    def publish_event(self, name: str, data: Mapping[str, Any]) -> None:
        """A one-off message such as ``round_scored``, for the listeners connected now."""
        self._broadcast(sse_message(name, data))

    def take_actions(self) -> list[Action]:
        """The actions asked for since the last call, oldest first."""
        taken: list[Action] = []
        if self._actions.empty():
            return taken
        while True:
            try:
                taken.append(self._actions.get_nowait())
            except queue.Empty:
                return taken

    # --- the viewers' side ------------------------------------------------------------------
    def watch_frames(self) -> FrameViewer | None:
        """A stream viewer, or None when ``max_viewers`` already watch."""
        with self._frame_ready:
            if self._viewers >= self.max_viewers:
                return None
            self._viewers += 1
            viewer = FrameViewer(self)
            viewer.seq = self._seq - 1 if self._jpeg is not None else 0  # the newest frame at once
            return viewer

    def listen(self) -> Listener | None:
        """An events listener, its queue starting with the current state; None when ``max_viewers`` listen."""
        with self._listeners_lock:
            if len(self._listeners) >= self.max_viewers:
                return None
            listener = Listener(self, self.queue_size)
            if self._state_message is not None:
                listener.offer(self._state_message)
            self._listeners.append(listener)
            return listener

    def submit(self, action: Action) -> bool:
        """Queue an action for the live loop; False when no loop takes actions or too many wait."""
        if not self.accepts_actions or self.closed.is_set():
            return False
        try:
            self._actions.put_nowait(action)
            return True
        except queue.Full:
            return False

    @property
    def viewers(self) -> int:
        return self._viewers

    @property
    def listeners(self) -> int:
        return len(self._listeners)

    def close(self) -> None:
        """Wake every waiting viewer and listener so their threads end; pending actions are refused."""
        self.closed.set()
        self.accepts_actions = False
        with self._frame_ready:
            self._frame_ready.notify_all()
        for action in self.take_actions():
            action.finish("the referee has stopped")

    # --- inside -------------------------------------------------------------------------------
    def _broadcast(self, message: bytes) -> None:
        with self._listeners_lock:
            listeners = list(self._listeners)
        stalled = [listener for listener in listeners if not listener.offer(message)]
        for listener in stalled:
            self._forget(listener)
            self.listeners_dropped += 1

    def _forget(self, listener: Listener) -> None:
        with self._listeners_lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

