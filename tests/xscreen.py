"""A virtual X screen for window tests: start Xvfb, and read the screen back as pixels."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import select
import subprocess
import time
from contextlib import contextmanager
from typing import Iterator

import numpy as np

__all__ = ["xvfb", "screenshot", "windows_on", "window_env", "map_again", "painted", "window_ids"]


@contextmanager
def xvfb(size_wh: tuple[int, int]) -> Iterator[str]:
    """An Xvfb screen of ``size_wh`` once it is ready; yields ``":N"``.

    Xvfb picks the display number itself (``-displayfd``): other test runs on the machine
    start screens too, and a number chosen here may be taken by the time Xvfb starts. It does
    not reset when its last client leaves (``-noreset``): the tests' screenshots and xdotool
    calls come and go, and a program connecting during a reset was refused ("could not connect
    to display", 1 of 30 starts on a busy machine).
    """
    read_fd, write_fd = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", f"{size_wh[0]}x{size_wh[1]}x24",
                               "-nolisten", "tcp", "-noreset"], pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    try:
        ready, _, _ = select.select([read_fd], [], [], 30)
        number = os.read(read_fd, 32).decode().strip() if ready else ""
        assert number.isdigit(), "Xvfb did not start within 30 s"
        yield f":{number}"
    finally:
        os.close(read_fd)
        server.terminate()
        server.wait(timeout=10)


def window_env(display: str, root: os.PathLike | str) -> dict[str, str]:
    """The environment for a program that opens its window on ``display`` (the project at ``root``
    importable). Qt is kept off X shared memory (``QT_XCB_NO_MITSHM``, the name Qt 5's xcb plugin
    reads), so that a container's small or private shared memory cannot come between the program
    and Xvfb. (The windows that stayed black, once blamed on shared memory, had lost their
    MapNotify: see ``map_again``. The ``QT_X11_NO_MITSHM`` set before was Qt 4's name.)"""
    env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(root), "QT_XCB_NO_MITSHM": "1"}
    env.pop("WAYLAND_DISPLAY", None)
    return env


def map_again(display: str, name: str) -> list[str]:
    """Unmap and map again the visible windows called ``name``; their ids.

    Qt 5's xcb plugin (OpenCV's windows) now and then misses its window's MapNotify on a busy
    machine (4 of 40 starts with two busy loops beside it; its event log shows no MapNotify):
    it then never counts the window as shown and never paints it, and the screen stays black.
    Mapped again, the window painted within 0.1 s each time. A test calls this once a window
    it waits for has stayed unpainted a while: a program does the same slow or not.
    """
    env = {**os.environ, "DISPLAY": display}
    found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", name], env=env, capture_output=True,
                           text=True, timeout=30).stdout.split()
    for window in found:
        for step in ("windowunmap", "windowmap"):
            subprocess.run(["xdotool", step, "--sync", window], env=env, capture_output=True, timeout=30)
    return found


def window_ids(display: str, name: str, visible: bool = False, timeout_s: float = 60.0) -> list[str]:
    """The ids of the windows called ``name`` (``visible``: shown ones only) as soon as there is one,
    or none after ``timeout_s``. Asked again every 0.2 s rather than with xdotool's ``--sync``,
    which once came back at once with no id during a full run of the suite on a busy machine
    (its error unseen; the same test passed on its own and under load, eight times of eight)."""
    env = {**os.environ, "DISPLAY": display}
    flags = ["--onlyvisible"] if visible else []
    deadline = time.monotonic() + timeout_s
    while True:
        found = subprocess.run(["xdotool", "search", *flags, "--name", name], env=env, capture_output=True, text=True,
                               timeout=30).stdout.split()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def painted(display: str, name: str, size_wh: tuple[int, int], timeout_s: float = 60.0, patience_s: float = 5.0) -> bool:
    """Whether the screen shows something (is not all black) within ``timeout_s`` (True without
    libX11, which cannot tell); the window called ``name`` is mapped again each time it has
    stayed unpainted ``patience_s`` longer (see ``map_again``)."""
    start = last = time.monotonic()
    while time.monotonic() - start < timeout_s:
        shot = screenshot(display, size_wh)
        if shot is None or shot.any():
            return True
        if time.monotonic() - last > patience_s:
            map_again(display, name)
            last = time.monotonic()
        time.sleep(0.05)
    return False


def windows_on(display: str) -> str:
    """The visible windows on a display with their names and geometry, for a failing test to say
    what the screen held ("none" when there is none, or why it could not be asked)."""
    env = {**os.environ, "DISPLAY": display}
    try:
        found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "."], env=env, capture_output=True,
                               text=True, timeout=20).stdout.split()
        described = []
        for window in found:
            name = subprocess.run(["xdotool", "getwindowname", window], env=env, capture_output=True, text=True, timeout=20)
            where = subprocess.run(["xdotool", "getwindowgeometry", window], env=env, capture_output=True, text=True, timeout=20)
            described.append(f"{name.stdout.strip()!r}: {' '.join(where.stdout.split()[2:])}")
        return "; ".join(described) or "none"
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"unknown ({error})"


class _XImage(ctypes.Structure):
    """The head of Xlib's XImage, up to the fields read here."""

    _fields_ = [(name, ctypes.c_int) for name in ("width", "height", "xoffset", "format")] + [("data", ctypes.c_void_p)] + [
        (name, ctypes.c_int) for name in ("byte_order", "bitmap_unit", "bitmap_bit_order", "bitmap_pad", "depth",
                                          "bytes_per_line", "bits_per_pixel")]


def screenshot(display: str, size_wh: tuple[int, int]) -> np.ndarray | None:
    """The X screen as BGR through libX11's XGetImage (ZPixmap, 32 bits a pixel, as Xvfb's
    24-bit screens are); None when libX11 cannot be loaded."""
    name = ctypes.util.find_library("X11")
    if name is None:
        return None
    x11 = ctypes.CDLL(name)
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XDefaultRootWindow.restype = ctypes.c_ulong
    x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x11.XGetImage.restype = ctypes.POINTER(_XImage)
    x11.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_uint, ctypes.c_uint,
                              ctypes.c_ulong, ctypes.c_int]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    handle = x11.XOpenDisplay(display.encode())
    assert handle, f"cannot open display {display}"
    try:
        image = x11.XGetImage(handle, x11.XDefaultRootWindow(handle), 0, 0, size_wh[0], size_wh[1], 0xFFFFFFFF, 2).contents
        assert image.bits_per_pixel == 32
        raw = ctypes.string_at(image.data, image.bytes_per_line * image.height)
        return np.frombuffer(raw, np.uint8).reshape(image.height, image.bytes_per_line // 4, 4)[:, : image.width, :3].copy()
    finally:
        x11.XCloseDisplay(handle)
