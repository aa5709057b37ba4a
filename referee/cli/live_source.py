"""Where ``referee live`` gets its frames: a video file, a camera, or a network stream.

A file is read frame by frame without dropping any (``t`` = frame index / the
file's fps), optionally paced like a camera. A camera or stream is read by a
thread that keeps only the newest frame, so a slow frame never builds up lag;
when it drops out, the thread says so, retries with back-off and goes on.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Union

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["Frame", "SourceWarning", "SourceError", "file_frames", "camera_frames", "stream_frames", "CAMERA_BACKEND"]

_STREAM_TIMEOUT_MS = 2000
_BACKOFF_S = (0.25, 0.5, 1.0, 2.0, 4.0)


@dataclass(frozen=True)
class Frame:
    """A frame: its 0-based index in the source, its time in seconds since the source started, the image."""

    index: int
    t: float
    image_bgr: NDArray[np.uint8]


@dataclass(frozen=True)
class SourceWarning:
    """Something a person should know about the source (it dropped out, it came back)."""

    message: str
    index: int
    t: float


class SourceError(ValueError):
    """A camera, file or stream that cannot be opened at all."""


Item = Union[Frame, SourceWarning]


def _backend() -> tuple[int, str]:
    if sys.platform.startswith("linux"):
        return cv2.CAP_V4L2, "V4L2"
    if sys.platform == "darwin":
        return cv2.CAP_AVFOUNDATION, "AVFoundation"
    if sys.platform.startswith("win"):
        return cv2.CAP_DSHOW, "DirectShow"
    return cv2.CAP_ANY, "any"


CAMERA_BACKEND = _backend()


def file_frames(path: Path, realtime: bool = False, stop: threading.Event | None = None) -> tuple[float, Iterator[Item]]:
    """The file's fps and every frame of it, in order; paced to the file's own clock with ``realtime``."""
    if not path.is_file():
        raise SourceError(f"{path}: no such video file")
    capture = cv2.VideoCapture(str(path))
    if not capture.isOpened():
        raise SourceError(f"{path}: cannot open the video (is it a video file OpenCV's FFmpeg can read?)")
    fps = capture.get(cv2.CAP_PROP_FPS)
    if not (0 < fps < 1000):
        fps = 30.0

    def frames() -> Iterator[Item]:
        start = time.monotonic()
        index = 0
        try:
            while stop is None or not stop.is_set():
                ok, image = capture.read()
                if not ok:
                    return
                t = index / fps
                if realtime:
                    time.sleep(max(0.0, start + t - time.monotonic()))
                yield Frame(index, t, image)
                index += 1
        finally:
            capture.release()

    return fps, frames()


def camera_frames(index: int, size_wh: tuple[int, int] | None, fps: float | None,
                  give_up_s: float, stop: threading.Event) -> Iterator[Item]:
    """The newest frames of camera ``index``; raises SourceError when it cannot be opened at all."""
    backend, name = CAMERA_BACKEND

    def open_camera() -> cv2.VideoCapture:
        capture = cv2.VideoCapture(index, backend)
        if capture.isOpened():
            if size_wh:
                capture.set(cv2.CAP_PROP_FRAME_WIDTH, size_wh[0])
                capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size_wh[1])
            if fps:
                capture.set(cv2.CAP_PROP_FPS, fps)
        return capture

    hint = f"/dev/video{index} exists and" if name == "V4L2" else "it is plugged in,"
    first = open_camera()
    if not first.isOpened():
        raise SourceError(
            f"camera {index} cannot be opened (backend {name}): check that {hint} no other program is using it, "
            "or try another --camera index"
        )
    return _newest_frames(first, open_camera, f"camera {index}", give_up_s, stop)


def stream_frames(url: str, give_up_s: float, stop: threading.Event) -> Iterator[Item]:
    """The newest frames of an MJPEG-over-HTTP or RTSP stream (FFmpeg, with open and read timeouts)."""
    params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, _STREAM_TIMEOUT_MS, cv2.CAP_PROP_READ_TIMEOUT_MSEC, _STREAM_TIMEOUT_MS]

    def open_stream() -> cv2.VideoCapture:
        return cv2.VideoCapture(url, cv2.CAP_FFMPEG, params)

    first = open_stream()
    if not first.isOpened():
        raise SourceError(
            f"{url}: cannot open the stream (FFmpeg, {_STREAM_TIMEOUT_MS / 1000:g} s timeout): check the address, "
            "that the camera app is serving, and that this machine can reach it"
        )
    return _newest_frames(first, open_stream, url, give_up_s, stop)


class _Newest:
    """The slot between the reader thread and the loop: the newest frame only, plus warnings."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.frame: Frame | None = None
        self.warnings: list[SourceWarning] = []
        self.ended = False


def _newest_frames(first: cv2.VideoCapture, reopen: Callable[[], cv2.VideoCapture], name: str,
                   give_up_s: float, stop: threading.Event) -> Iterator[Item]:
    slot = _Newest()
    start = time.monotonic()
    thread = threading.Thread(target=_read_forever, args=(first, reopen, name, give_up_s, stop, slot, start),
                              name=f"capture {name}", daemon=True)
    thread.start()

    def items() -> Iterator[Item]:
        last_index = -1
        try:
            while True:
                with slot.cond:
                    slot.cond.wait_for(lambda: slot.warnings or slot.ended or (slot.frame and slot.frame.index > last_index),
                                       timeout=0.5)
                    warnings, slot.warnings = slot.warnings, []
                    frame = slot.frame if slot.frame and slot.frame.index > last_index else None
                    ended = slot.ended
                yield from warnings
                if frame is not None:
                    last_index = frame.index
                    yield frame
                elif ended:
                    return
                if stop.is_set():
                    return
        finally:
            stop.set()
            thread.join(timeout=3.0)

    return items()


def _read_forever(capture: cv2.VideoCapture, reopen: Callable[[], cv2.VideoCapture], name: str, give_up_s: float,
                  stop: threading.Event, slot: _Newest, start: float) -> None:
    index = 0
    lost_at: float | None = None
    attempt = 0
    try:
        while not stop.is_set():
            if capture.isOpened():
                ok, image = capture.read()
                if ok:
                    if lost_at is not None:
                        _warn(slot, f"{name}: back after {time.monotonic() - lost_at:.1f} s", index, start)
                        lost_at, attempt = None, 0
                    with slot.cond:
                        slot.frame = Frame(index, time.monotonic() - start, image)
                        slot.cond.notify_all()
                    index += 1
                    continue
                capture.release()
            now = time.monotonic()
            if lost_at is None:
                lost_at = now
                _warn(slot, f"{name}: lost; retrying", index, start)
            if now - lost_at > give_up_s:
                _warn(slot, f"{name}: gone for {give_up_s:g} s; giving up (resume later with --resume)", index, start)
                return
            if stop.wait(_BACKOFF_S[min(attempt, len(_BACKOFF_S) - 1)]):
                return
            attempt += 1
            capture = reopen()
    finally:
        capture.release()
        with slot.cond:
            slot.ended = True
            slot.cond.notify_all()


def _warn(slot: _Newest, message: str, index: int, start: float) -> None:
    with slot.cond:
        slot.warnings.append(SourceWarning(message, index, time.monotonic() - start))
        slot.cond.notify_all()


def quiet_opencv() -> None:
    """Silence OpenCV's and FFmpeg's own console noise below errors (a camera that cannot be
    opened is said in the referee's own words). OpenCV is imported by then, and its environment
    variable set after the import no longer counts: its level is set directly (unless the user
    set that variable). FFmpeg reads its own when its first video is opened."""
    if "OPENCV_LOG_LEVEL" not in os.environ:
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
