"""Benchmark of ``referee live`` on a busy machine (a command, not a test): a committed clip with frames dropped.

    python -m referee.cli.live_drops [--clip round-medium.mp4] [--looked 15] [--runs 20]

A camera or stream is read for its newest frame whenever the referee is ready for one: on a
machine that keeps up with only ``--looked`` frames a second, the others are never seen. Each
run referees the clip (with its committed seats, as the file test does) from the frames such a
machine would take: the time to the next frame looked at is drawn at random between 0.6 and 1.4
frame times (a seed per run, so runs repeat). Each run's log is then held to the clip's truth
twice (``fixtures.timeline``): every lay time (as from every frame), and the round's outcome only
(cards laid to their players, none before it settled, the stop, rows and ranking). Reports how
many runs pass each, and what failed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Iterator, Sequence

from fixtures.timeline import check_outcome, check_timeline
from referee.cli import live_source

__all__ = ["main", "looked_at", "failure", "refereed_events"]

CLIPS = Path(__file__).resolve().parents[2] / "fixtures" / "video"


def looked_at(frames: Iterator, fps: float, seed: int) -> Iterator:
    """The frames a referee looking at ``fps`` frames a second would take from ``frames`` (each
    with ``.t``, its time in seconds); anything else (a warning) passes through."""
    rng = random.Random(seed)
    ready = 0.0
    for item in frames:
        t = getattr(item, "t", None)
        if t is not None and t + 1e-9 < ready:
            continue
        yield item
        if t is not None:
            ready = t + rng.uniform(0.6, 1.4) / fps


def refereed_events(clip: Path, calibration: Path) -> list[dict]:
    """``referee live``'s event log of the video ``clip`` with ``calibration`` (a fresh database, no window)."""
    from referee.cli import main as referee_main

    out = io.StringIO()
    with tempfile.TemporaryDirectory(prefix="live-") as folder, contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(io.StringIO()):
        referee_main(["live", "--video", str(clip), "--calibration", str(calibration), "--events", "-",
                      "--db", str(Path(folder) / "g.db"), "--headless"])
    return [json.loads(line) for line in out.getvalue().splitlines()]


def _referee(clip: Path, fps: float, seed: int) -> list[dict]:
    whole = live_source.file_frames

    def dropping(path, realtime=False, stop=None):
        rate, frames = whole(path, False, stop)
        return rate, looked_at(frames, fps, seed)

    live_source.file_frames = dropping
    try:
        return refereed_events(clip, clip.with_suffix(".seats.yaml"))
    finally:
        live_source.file_frames = whole


def failure(check, *args) -> str | None:
    """What ``check(*args)`` found wrong (its message, or the failing assertion's line), None when nothing."""
    try:
        check(*args)
    except AssertionError as error:
        line = traceback.extract_tb(error.__traceback__)[-1].line or "AssertionError"
        return (str(error) or line).splitlines()[0][:160]
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m referee.cli.live_drops", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--clip", default="round-medium.mp4", help="a clip in fixtures/video/")
    parser.add_argument("--looked", type=float, default=15.0, help="frames looked at per second")
    parser.add_argument("--runs", type=int, default=20, help="runs, each with its own frames dropped")
    parser.add_argument("--first-seed", type=int, default=1)
    args = parser.parse_args(argv)
    clip = CLIPS / args.clip
    if not clip.is_file():
        parser.error(f"--clip {args.clip}: no such clip in {CLIPS}")
    truth = json.loads(clip.with_suffix(".json").read_text())
    on_time = outcome = 0
    for seed in range(args.first_seed, args.first_seed + args.runs):
        events = _referee(clip, args.looked, seed)
        clip_t = lambda event: event["t"]  # noqa: E731
        late = failure(check_timeline, events, truth, clip_t, 3 / args.looked)
        wrong = failure(check_outcome, events, truth, clip_t)
        on_time += late is None
        outcome += wrong is None
        print(f"run {seed}: lay times {'right' if late is None else 'WRONG: ' + late}; "
              f"outcome {'right' if wrong is None else 'WRONG: ' + wrong}", flush=True)
    print(f"{args.clip} looked at {args.looked:g} frames/s: lay times right in {on_time} of {args.runs} runs, "
          f"outcome right in {outcome} of {args.runs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
