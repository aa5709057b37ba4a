"""Benchmark of ``referee live`` on rounds it has never seen (a command, not a test): rendered clips against their truth.

    python -m referee.cli.live_rounds --tier hard --seeds 500-509 [--scale 0.5] [--jobs 2]

Each seed's round is rendered with its timeline (``fixtures.video``, 1280x720 at 15 frames/s; kept
in ``--clips``, so that a second run only referees) and refereed from every frame with its seats,
as the committed clips are. With ``--scale`` the clip is shrunk first (area-averaged), as a camera of
lower resolution, or farther off, sees the table. Each round's event log is held to its truth
(``fixtures.timeline``): the rows and ranking scored; the outcome (also every card laid to its
player, none before it settled, and the stop); and the timeline (also every card laid in its place
within 1.5 s of settling, the stop within 0.5 s). A card counts as settled once 97 % of it shows,
so a card laid while an arm beside it hides a sliver is laid "early".
The rows scored are also held to the truth's card by card (aligned in order): cards right, read
wrong, missed, and scored where the truth has none.

Seeds 100-199 are for looking into failures; seeds 500-599 are for reporting and never tuned on.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Sequence

import cv2
import yaml

from fixtures.timeline import check_outcome, check_scored, check_timeline
from referee.cli.live_drops import failure, refereed_events

__all__ = ["RoundResult", "main", "referee_round", "held_to_truth", "shrunk_clip"]

FPS = 15
SIZE = (1280, 720)


@dataclass(frozen=True)
class RoundResult:
    """One round refereed: what failed (None: right) and its scored rows' cards counted against the truth."""

    seed: int
    timeline: str | None
    outcome: str | None
    scored: str | None
    right: int
    read_wrong: int
    missed: int
    extra: int
    differences: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


def _clip(clips: Path, tier: str, seed: int) -> Path:
    """The seed's clip at full size, rendered unless already in ``clips``."""
    from fixtures.video import render_video

    path = clips / f"{tier}-{seed}.mp4"
    if not (path.is_file() and path.with_suffix(".json").is_file()):
        timeline = render_video(seed, tier, path, FPS, SIZE)
        path.with_suffix(".json").write_text(json.dumps(timeline, indent=1) + "\n", encoding="utf-8")
    return path


def shrunk_clip(clip: Path, scale: float, out: Path) -> Path:
    """``clip`` shrunk ``scale`` times (area-averaged, mp4v) to ``out``, with its truth and seats alike."""
    if out.is_file() and out.with_suffix(".json").is_file():
        return out
    capture = cv2.VideoCapture(str(clip))
    fps = capture.get(cv2.CAP_PROP_FPS)
    writer = None
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        small = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        if writer is None:
            writer = cv2.VideoWriter(str(out), cv2.VideoWriter_fourcc(*"mp4v"), fps, (small.shape[1], small.shape[0]))
        writer.write(small)
    capture.release()
    if writer is None:
        raise ValueError(f"{clip}: no frame could be read")
    writer.release()
    truth = json.loads(clip.with_suffix(".json").read_text())
    truth["seats"] = [{**seat, "position": [round(v * scale, 1) for v in seat["position"]]} for seat in truth["seats"]]
    out.with_suffix(".json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    return out


def referee_round(clip: Path, seed: int) -> RoundResult:
    """``referee live`` on ``clip`` (its truth and seats beside it, ``.json``), held to the truth."""
    truth = json.loads(clip.with_suffix(".json").read_text())
    with tempfile.TemporaryDirectory(prefix="live-rounds-") as folder:
        seats = Path(folder) / "seats.yaml"
        seats.write_text(yaml.safe_dump({"seats": truth["seats"]}, sort_keys=False), encoding="utf-8")
        return held_to_truth(seed, refereed_events(clip, seats), truth)


def held_to_truth(seed: int, events: list[dict], truth: dict) -> RoundResult:
    """A round's event log (``referee live --events``) held to its truth (``fixtures.video``'s timeline)."""
    clip_t = lambda event: event["t"]  # noqa: E731
    scored = next((e for e in events if e["type"] == "round_scored"), {"rows": []})
    seen = {row["player"]: [_words(c) for c in row["cards"]] for row in scored["rows"]}
    right = read_wrong = missed = extra = 0
    differences = []
    for row in truth["rows"]:
        player, due, got = row["player"], [_words(c) for c in row["cards"]], seen.get(row["player"], [])
        for op, a0, a1, b0, b1 in SequenceMatcher(None, due, got, autojunk=False).get_opcodes():
            if op == "equal":
                right += a1 - a0
                continue
            read_wrong += min(a1 - a0, b1 - b0) if op == "replace" else 0
            missed += max(0, (a1 - a0) - (b1 - b0))
            extra += max(0, (b1 - b0) - (a1 - a0))
            if op == "insert":
                differences.append(f"{player}: {' '.join(got[b0:b1])} scored after card {a0}, not in the truth")
            else:
                differences.append(f"{player} card{'s' if a1 - a0 > 1 else ''} {a0 + 1}{f'-{a1}' if a1 - a0 > 1 else ''} "
                                   f"({' '.join(due[a0:a1])}) scored {' '.join(got[b0:b1]) if op == 'replace' else 'missing'}")
    return RoundResult(
        seed, failure(check_timeline, events, truth, clip_t), failure(check_outcome, events, truth, clip_t),
        failure(check_scored, events, truth), right, read_wrong, missed, extra, tuple(differences),
        warnings=tuple(e["message"][:60] for e in events if e["type"] == "warning"),
    )


def _said(failed: str | None) -> str:
    return "right" if failed is None else f"WRONG ({failed[:90]})"


def _words(criteria: dict) -> str:
    return f"{criteria['colours']}/{criteria['shapes']}/{criteria['symbols']}"


def _one(tier: str, seed: int, clips: Path, scale: float) -> RoundResult:
    clip = _clip(clips, tier, seed)
    if scale != 1.0:
        clip = shrunk_clip(clip, scale, clips / f"{tier}-{seed}-x{scale:g}.mp4")
    return referee_round(clip, seed)


def _seeds(text: str) -> list[int]:
    first, _, last = text.partition("-")
    try:
        return list(range(int(first), int(last or first) + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected FIRST-LAST (e.g. 500-509) or one seed, got {text!r}") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m referee.cli.live_rounds", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--tier", choices=("easy", "medium", "hard"), default="hard")
    parser.add_argument("--seeds", type=_seeds, default=_seeds("500-509"), help="FIRST-LAST")
    parser.add_argument("--scale", type=float, default=1.0, help="shrink each clip this many times first (0.5: 640x360)")
    parser.add_argument("--clips", type=Path, default=Path(tempfile.gettempdir()) / "live-rounds",
                        help="where the rendered clips are kept")
    parser.add_argument("--jobs", type=int, default=1, help="rounds rendered and refereed at once")
    args = parser.parse_args(argv)
    if not 0.1 <= args.scale <= 1.0:
        parser.error(f"--scale must be between 0.1 and 1, got {args.scale:g}")
    args.clips.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(_one, *zip(*((args.tier, seed, args.clips, args.scale) for seed in args.seeds))))
    for r in results:
        print(f"seed {r.seed}: scored {_said(r.scored)}; outcome {_said(r.outcome)}; timeline {_said(r.timeline)}; "
              f"cards right {r.right}, "
              f"read wrong {r.read_wrong}, missed {r.missed}, extra {r.extra}" + "".join(f"\n    {d}" for d in r.differences)
              + "".join(f"\n    warning: {w}" for w in r.warnings))
    n = len(results)
    cards = sum(r.right + r.read_wrong + r.missed for r in results)
    summary = {
        "tier": args.tier, "scale": args.scale, "rounds": n,
        "scored_right": sum(r.scored is None for r in results),
        "outcome_right": sum(r.outcome is None for r in results),
        "timeline_right": sum(r.timeline is None for r in results),
        "cards_due": cards,
        "cards_right_pct": round(100 * sum(r.right for r in results) / max(cards, 1), 2),
        "cards_read_wrong": sum(r.read_wrong for r in results),
        "cards_missed": sum(r.missed for r in results),
        "cards_extra": sum(r.extra for r in results),
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
