"""Benchmark of ``referee live`` (a command, not a test): speed on one core, settle delay, memory.

    python -m referee.cli.live_bench [--size 1920x1080] [--fps 30] [--minutes 30] [--long-fps 10]

1. Speed: a synthetic 1920x1080, 30 fps round (cards laid one by one, a hand over a
   row, a nudge) is written to a video file and refereed by ``referee live`` itself, on
   one core (OpenCV, OpenMP and BLAS limited to one thread). Reports frames per second
   of the whole command and per-frame processing times of the loop's steps.
2. Delay: for every card, from the moment it lies still (known from the script) to
   its ``card_laid``, in the source's time (the referee waits about 1/3 s of stillness
   by design) and in wall-clock (plus the processing of the deciding frame).
3. Memory: a long synthetic game (``--minutes`` of table time, five rounds with the
   table cleared between them) run through the same loop steps in memory; the
   process's resident memory is sampled and its growth reported.
"""

from __future__ import annotations

import os

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Sequence  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from calibration.seats import Seat  # noqa: E402
from referee.cli.live_synth import (  # noqa: E402
    BASE_WH, CARDS, SEATS, Hand, Laying, Script, _grain, _table, render_frame, script_round, seats_yaml, write_video,
)
from referee.live.game import LiveGame, SeenCard  # noqa: E402
from referee.cli.live_read import sight_cards  # noqa: E402
from vision.track import CardTracker, TrackerUpdate, row_layout, rows_of  # noqa: E402

__all__ = ["main"]


def _clock() -> float:
    """CPU seconds of this thread: on a shared machine wall-clock time also counts other people's work."""
    return time.thread_time()


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _speed(scale: float, fps: float, folder: Path) -> None:
    from referee.cli import main as referee_main

    script = script_round()
    video = write_video(script, folder / "bench.avi", fps=fps, scale=scale)
    seats = folder / "seats.yaml"
    seats.write_text(seats_yaml(scale))
    events_path = folder / "events.jsonl"
    frames = int(round(script.duration * fps))
    started, cpu_started = time.perf_counter(), time.process_time()
    status = referee_main(["live", "--video", str(video), "--calibration", str(seats), "--events", str(events_path),
                           "--db", str(folder / "bench.db"), "--headless"])
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    width, height = round(BASE_WH[0] * scale), round(BASE_WH[1] * scale)
    print(f"speed: 'referee live' on a {width}x{height} {fps:g} fps video of {frames} frames: {wall:.2f} s wall "
          f"({frames / wall:.1f} frames/s), {cpu:.2f} s CPU ({frames / cpu:.1f} frames/s of CPU; status {status}; "
          f"includes decoding and the database)")
    events = [json.loads(line) for line in events_path.read_text().splitlines()]
    laid = [e for e in events if e["type"] == "card_laid"]
    delays = [e["t"] - lay.settle_t for e, lay in zip(laid, script.layings)]
    ok = [(e["player"], e["position"]) for e in laid] == [(l.player, l.position) for l in script.layings]
    print(f"delay (source time) from a card lying still to its card_laid: mean {np.mean(delays):.3f} s, "
          f"max {np.max(delays):.3f} s over {len(delays)} cards ({'all cards laid in place' if ok else 'LOG DIFFERS FROM SCRIPT'})")
    stop = next((e for e in events if e["type"] == "stop"), None)
    if stop is not None:
        print(f"delay from the seventh card lying still to stop: {stop['t'] - script.layings[-1].settle_t:.3f} s")
    # The loop's steps frame by frame, to see where the time goes and the wall-clock lag of a decision.
    capture = cv2.VideoCapture(str(video))
    tracker, tracked, sighting = CardTracker(), TrackerUpdate((), ()), None
    game = LiveGame([s.name for s in _seats(scale)])
    game.start(0, 0.0)
    steps = {"decode": [], "search and read": [], "track and rows": [], "game": []}
    seats, rows, last_layout = _seats(scale), {}, ()
    index = 0
    while True:
        t0 = _clock()
        ok, image = capture.read()
        if not ok:
            break
        t1 = _clock()
        t = index / fps
        sighting = sight_cards(image, t, index, sighting, tracked.cards)
        t2 = _clock()
        tracked = tracker.update(sighting.cards, index, t, image)
        layout = row_layout(tracked.cards)
        if layout != last_layout:  # as in the live loop
            rows, last_layout = rows_of(tracked.cards, seats, (image.shape[1], image.shape[0])), layout
        t3 = _clock()
        game.observe({p: [SeenCard(c.id, c.criteria) for c in row] for p, row in rows.items()}, index, t,
                     {c.id for c in tracked.cards})
        t4 = _clock()
        for name, dt in zip(steps, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            steps[name].append(dt * 1000)
        index += 1
    capture.release()
    total = np.sum([steps[k] for k in steps], axis=0)
    print("per frame, CPU ms: " + ", ".join(f"{k} {np.mean(v):.1f}" for k, v in steps.items())
          + f"; all {np.mean(total):.1f} mean, {np.percentile(total, 95):.1f} p95, {np.max(total):.1f} max "
          f"-> {1000 / np.mean(total):.1f} frames/s")
    print(f"wall-clock delay from a card lying still to card_laid at {fps:g} fps live: about "
          f"{np.mean(delays) + np.mean(total) / 1000:.2f} s (worst {np.max(delays) + np.max(total) / 1000:.2f} s)")


def _seats(scale: float) -> tuple[Seat, ...]:
    return tuple(Seat(s.name, (s.position_xy[0] * scale, s.position_xy[1] * scale)) for s in SEATS)


def _long_game(minutes: float) -> Script:
    """Five rounds spread over ``minutes``: slow laying, hands passing often, the table cleared between rounds."""
    anna = ["one", "two", "three", "two_b", "three_b", "two", "three"]
    ben = ["three_b", "two_b", "one_b", "bad_two", "three"]
    span = minutes * 60 / 5
    gap = (span - 6.0) / 12
    layings, hands, clears = [], [], []
    for number in range(5):
        t = number * span + 1.0
        for k in range(7):
            layings.append(Laying("Anna", k, CARDS[anna[k]], round(t, 3)))
            if k >= 1:
                hands.append(Hand("Anna", (max(0, k - 2), k - 1), round(t + gap * 0.3, 3), round(t + gap * 0.3 + 1.5, 3)))
            t += gap
            if k < len(ben) and k < 6:
                layings.append(Laying("Ben", k, CARDS[ben[k]], round(t, 3)))
                t += gap
        clears.append(round(t + 2.0, 3))
    return Script(tuple(layings), tuple(hands), (), tuple(clears), duration=minutes * 60)


def _memory(minutes: float, fps: float) -> None:
    script = _long_game(minutes)
    table, grain = _table(1.0, 0), _grain((BASE_WH[1], BASE_WH[0], 3), 0)
    seats = _seats(1.0)
    tracker, tracked, sighting = CardTracker(), TrackerUpdate((), ()), None
    game = LiveGame([s.name for s in seats])
    game.start(0, 0.0)
    frames = int(script.duration * fps)
    samples = []
    kinds: dict[str, int] = {}
    started = time.perf_counter()
    for index in range(frames):
        t = index / fps
        image = render_frame(script, t, 1.0, table, grain)
        sighting = sight_cards(image, t, index, sighting, tracked.cards)
        tracked = tracker.update(sighting.cards, index, t, image)
        rows = rows_of(tracked.cards, seats, BASE_WH)
        seen = {p: [SeenCard(c.id, c.criteria) for c in row] for p, row in rows.items()}
        for event in game.observe(seen, index, t, {c.id for c in tracked.cards}):
            kinds[event.type] = kinds.get(event.type, 0) + 1
        if index % int(fps * 30) == 0:
            samples.append((t / 60, _rss_mb()))
    wall = time.perf_counter() - started
    first = samples[min(2, len(samples) - 1)][1]
    print(f"memory: a {minutes:g}-minute synthetic game at {fps:g} fps ({frames} frames, {wall:.0f} s to run): "
          f"resident {samples[0][1]:.0f} MB at start, {first:.0f} MB after a minute, {samples[-1][1]:.0f} MB at the end, "
          f"max {max(m for _, m in samples):.0f} MB; events {kinds}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m referee.cli.live_bench", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--scale", type=float, default=3.0, help="video size as a multiple of 640x360 (3 = 1920x1080)")
    parser.add_argument("--fps", type=float, default=30.0, help="frame rate of the speed video")
    parser.add_argument("--minutes", type=float, default=30.0, help="table time of the long game for the memory check (0: skip)")
    parser.add_argument("--long-fps", type=float, default=10.0, help="frame rate of the long game")
    parser.add_argument("--skip-speed", action="store_true", help="only the memory check")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    print(f"one core: cv2 threads {cv2.getNumThreads()}, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}, "
          f"OpenCV {cv2.__version__}, numpy {np.__version__}", flush=True)
    with tempfile.TemporaryDirectory(prefix="live-bench-") as folder:
        if not args.skip_speed:
            _speed(args.scale, args.fps, Path(folder))
        if args.minutes > 0:
            _memory(args.minutes, args.long_fps)
    return 0


if __name__ == "__main__":
    from vision.onecore import run_on_one_core

    run_on_one_core("referee.cli.live_bench")
    sys.exit(main())
