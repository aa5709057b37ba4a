"""Benchmark of the scoreboard (a command, not a test): does the referee keep its frame rate while people watch?

    python -m referee.web.bench [--size 1920x1080] [--fps 30] [--seconds 20] [--viewers 0,1,20] [--repeat 3] [--realtime]

A synthetic table video (``referee.cli.live_synth``: cards laid one by one, a hand,
a nudge; ``--seconds`` long) is refereed by ``referee live --video ... --serve
127.0.0.1:0`` in a child process, once per viewer count. Each viewer is a page's
worth of connections from this process on loopback: the MJPEG stream and the
Server-Sent Events, read as fast as they come. Reported per run: the referee's own
frame rate while serving and its loop thread's CPU time per frame (from the summary
``referee live`` prints when the scoreboard closes: the CPU time holds even when other
work shares the machine), the stream frames encoded, and what each viewer received. With ``--realtime`` the video is paced like a camera, so the question is
whether the referee still processes every frame at the video's rate.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

__all__ = ["main"]

_SUMMARY = re.compile(r"scoreboard closed: (\d+) frames at ([\d.]+) frames/s \(([\d.]+) ms of loop CPU a frame\), "
                      r"(\d+) stream frames encoded, "
                      r"at most (\d+) stream viewers, (\d+) dropped")


@dataclass
class _Viewer:
    """One page on loopback: its stream and its events, counted."""

    frames: int = 0
    bytes: int = 0
    messages: int = 0
    first_frame_s: float | None = None
    errors: list[str] = field(default_factory=list)


def _watch_stream(host: str, port: int, viewer: _Viewer, stop: threading.Event, started: float) -> None:
    try:
        connection = http.client.HTTPConnection(host, port, timeout=30)
        connection.request("GET", "/stream.mjpg")
        reply = connection.getresponse()
        while not stop.is_set():
            line = reply.fp.readline()
            if not line:
                return
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
                reply.fp.readline()
                data = reply.fp.read(length)
                viewer.frames += 1
                viewer.bytes += len(data)
                if viewer.first_frame_s is None:
                    viewer.first_frame_s = time.monotonic() - started
    except OSError as error:
        viewer.errors.append(f"stream: {error}")


def _watch_events(host: str, port: int, viewer: _Viewer, stop: threading.Event) -> None:
    try:
        connection = http.client.HTTPConnection(host, port, timeout=30)
        connection.request("GET", "/events")
        reply = connection.getresponse()
        while not stop.is_set():
            line = reply.fp.readline()
            if not line:
                return
            if line.startswith(b"event: "):
                viewer.messages += 1
    except OSError as error:
        viewer.errors.append(f"events: {error}")


@dataclass
class _Run:
    viewers: int
    frames: int
    wall_s: float
    loop_fps: float
    cpu_ms: float
    encoded: int
    most_viewers: int
    dropped: int
    watched: list[_Viewer]


def _referee(video: Path, seats: Path, folder: Path, viewers: int, realtime: bool, frames: int) -> _Run:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", OPENCV_FOR_THREADS_NUM="1",
               OPENCV_LOG_LEVEL="ERROR", OPENCV_FFMPEG_LOGLEVEL="-8")
    command = [sys.executable, "-m", "referee", "live", "--video", str(video), "--calibration", str(seats), "--headless",
               "--db", str(folder / f"bench-{viewers}.db"), "--events", str(folder / f"events-{viewers}.jsonl"),
               "--serve", "127.0.0.1:0"] + (["--realtime"] if realtime else [])
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    ready = threading.Event()

    def read_stderr() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if "the token" in line:
                ready.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    stop = threading.Event()
    watched = [_Viewer() for _ in range(viewers)]
    threads: list[threading.Thread] = []
    try:
        if not ready.wait(60):
            raise RuntimeError("referee live did not start serving: " + "".join(lines)[-500:])
        started = time.monotonic()
        host, port = re.search(r"scoreboard at http://([\d.]+):(\d+)/", "".join(lines)).groups()  # type: ignore[union-attr]
        for viewer in watched:
            threads.append(threading.Thread(target=_watch_stream, args=(host, int(port), viewer, stop, started), daemon=True))
            threads.append(threading.Thread(target=_watch_events, args=(host, int(port), viewer, stop), daemon=True))
        for thread in threads:
            thread.start()
        status = process.wait(timeout=600)
        wall = time.monotonic() - started
    finally:
        stop.set()
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        reader.join(timeout=5)
    for thread in threads:
        thread.join(timeout=5)
    if status != 0:
        raise RuntimeError(f"referee live exited with {status}: " + "".join(lines)[-500:])
    found = next((m for m in map(_SUMMARY.search, lines) if m), None)
    if found is None:
        raise RuntimeError("referee live printed no scoreboard summary: " + "".join(lines)[-500:])
    steps, rate, cpu_ms, encoded, most, dropped = found.groups()
    return _Run(viewers, int(steps), wall, float(rate), float(cpu_ms), int(encoded), int(most), int(dropped), watched)


def _report(run: _Run, fps: float, realtime: bool) -> str:
    text = (f"{run.viewers:>3} viewers: referee loop {run.loop_fps:.1f} frames/s over {run.frames} frames, "
            f"{run.cpu_ms:.1f} ms of loop CPU a frame ({1000 / run.cpu_ms:.1f} frames/s on a free core)"
            f"{' (paced at %g fps)' % fps if realtime else ''}; {run.encoded} stream frames encoded, "
            f"at most {run.most_viewers} stream viewers at once, {run.dropped} dropped")
    if run.watched:
        frames = [v.frames for v in run.watched]
        first = [v.first_frame_s for v in run.watched if v.first_frame_s is not None]
        megabytes = sum(v.bytes for v in run.watched) / 1e6
        errors = sum(len(v.errors) for v in run.watched)
        text += (f"\n     each viewer got {min(frames)}-{max(frames)} stream frames "
                 f"({sum(frames) / len(frames) / run.wall_s:.1f}/s over {run.wall_s:.1f} s), "
                 f"{min(v.messages for v in run.watched)}+ state messages; {megabytes:.0f} MB sent in all; "
                 f"first frame after {max(first) if first else float('nan'):.2f} s at worst; {errors} viewer errors")
    return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m referee.web.bench", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--size", default="1920x1080", help="video size: 640x360 times a whole or half number")
    parser.add_argument("--fps", type=float, default=30.0, help="the video's frame rate")
    parser.add_argument("--seconds", type=float, default=20.0, help="the video's length (the round, then a still table)")
    parser.add_argument("--viewers", default="0,1,20", help="viewer counts to run, comma separated")
    parser.add_argument("--realtime", action="store_true", help="pace the video like a camera (referee live --realtime)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per viewer count, interleaved (medians reported)")
    args = parser.parse_args(argv)
    # The bench drives the command line; making its video needs OpenCV, as the referee itself does.
    from referee.cli.live_synth import BASE_WH, script_round, seats_yaml, write_video

    width = int(args.size.lower().split("x")[0])
    scale = width / BASE_WH[0]
    counts = [int(v) for v in args.viewers.split(",") if v.strip()]
    with tempfile.TemporaryDirectory(prefix="web-bench-") as name:
        folder = Path(name)
        script = script_round()
        script = replace(script, duration=max(script.duration, args.seconds))
        video = write_video(script, folder / "bench.avi", fps=args.fps, scale=scale)
        seats = folder / "seats.yaml"
        seats.write_text(seats_yaml(scale))
        frames = int(round(script.duration * args.fps))
        print(f"referee live on a {round(BASE_WH[0] * scale)}x{round(BASE_WH[1] * scale)} {args.fps:g} fps video of "
              f"{frames} frames ({os.cpu_count()} cores here; the referee's OpenCV on one thread), "
              f"viewers on 127.0.0.1 reading the MJPEG stream and the events", flush=True)
        rates: dict[int, list[float]] = {count: [] for count in counts}
        cpu: dict[int, list[float]] = {count: [] for count in counts}
        for _ in range(max(1, args.repeat)):
            for count in counts:  # interleaved, so a busy moment on the machine does not land on one count only
                run = _referee(video, seats, folder, count, args.realtime, frames)
                rates[count].append(run.loop_fps)
                cpu[count].append(run.cpu_ms)
                print(_report(run, args.fps, args.realtime), flush=True)
        base = statistics.median(rates[counts[0]])
        print("median referee frame rate: " + ", ".join(
            f"{count} viewers {statistics.median(r):.1f} frames/s ({statistics.median(r) / base:.0%})" for count, r in rates.items()))
        print("median loop CPU a frame: " + ", ".join(
            f"{count} viewers {statistics.median(c):.1f} ms ({1000 / statistics.median(c):.1f} frames/s on a free core)"
            for count, c in cpu.items()))
        print(f"load average at the end: {', '.join(f'{v:.1f}' for v in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
