"""Where the finder loses the cards it misses, on rendered photos with their truth files.

    python -m vision.bench_stages DIR [DIR ...]      # NAME.jpg + NAME.json pairs

For every card at least 3/4 visible that no card read from the photo matches, the last
stage of ``vision.find`` that had a quad over it (intersection over union at least a half):

- ``no card-shaped region``: neither the first sweep, the second look nor the paper-tint
  pass outlined it (a card in an arm's shadow, a card with a bite out of it, paper no
  whiter than a pale cloth);
- ``region not chosen``: a region outlined it, but no region of it was kept as a card;
- ``lost moving onto outlines``: its quad left it while the corners moved onto outlines;
- ``dropped as a piece``: its quad was taken for a piece of a card (``_without_pieces``);
- ``refused by the reader``: found, but read as no symbol card;
- ``found, matched to another card``: found and read, but its quad matched another true
  card better.

A tool for deciding what to work on, not a target: stages are read by wrapping the finder's
own functions for the run (and put back after). One thread; never on the test split.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import cv2
import numpy as np
from numpy.typing import NDArray

import vision.find as find
import vision.second_look as second_look
from vision.bench import _VISIBLE_ENOUGH, match_cards
from vision.pipeline import read_frame, read_quad

__all__ = ["STAGES", "lost_cards", "main"]

STAGES = ("no card-shaped region", "region not chosen", "lost moving onto outlines", "dropped as a piece",
          "refused by the reader", "found, matched to another card")
_MIN_IOU = 0.5


@contextmanager
def _watching(seen: dict[str, list[NDArray]]) -> Iterator[None]:
    """Within it, the quads each finder stage makes are added to ``seen`` (frame pixels),
    by stage: 'region' (first sweep, second look, paper tint), 'chosen', 'moved from',
    'moved to', 'kept'."""
    # (the second look and the tint pass are called from the finder, their check of size from within them)
    places = {"_sweep": find, "_fitting": second_look, "look_again": find, "of_paper_tint": find, "_onto_outlines": find,
              "_without_pieces": find}
    wrapped = {name: getattr(module, name) for name, module in places.items()}
    scale = {"of": 1.0}

    def sweep(white: NDArray, sweep_scale: float, *args: Any, **kwargs: Any) -> Any:
        span, regions, chosen = wrapped["_sweep"](white, sweep_scale, *args, **kwargs)
        scale["of"] = sweep_scale
        seen["region"] += [r.corners_xy / sweep_scale for r in regions]
        seen["chosen"] += [r.corners_xy / sweep_scale for r in chosen]
        return span, regions, chosen

    def fitting(regions: list, *args: Any, **kwargs: Any) -> Any:  # (the second look's and tint pass's regions, kept or not)
        seen["region"] += [r.corners_xy / scale["of"] for r in regions]
        return wrapped["_fitting"](regions, *args, **kwargs)

    def regions_of(name: str) -> Any:
        def stage(*args: Any, **kwargs: Any) -> Any:
            regions = wrapped[name](*args, **kwargs)
            seen["region"] += [r.corners_xy / scale["of"] for r in regions]
            seen["chosen"] += [r.corners_xy / scale["of"] for r in regions]
            return regions
        return stage

    def onto(frame: NDArray, quads: list, *args: Any, **kwargs: Any) -> Any:
        moved = wrapped["_onto_outlines"](frame, quads, *args, **kwargs)
        seen["moved from"] += list(quads)
        seen["moved to"] += list(moved)
        return moved

    def kept(quads: list, *args: Any, **kwargs: Any) -> Any:
        quads = wrapped["_without_pieces"](quads, *args, **kwargs)
        seen["kept"] += [q.corners_xy for q in quads]
        return quads

    replacements = {"_sweep": sweep, "_fitting": fitting, "look_again": regions_of("look_again"),
                    "of_paper_tint": regions_of("of_paper_tint"), "_onto_outlines": onto, "_without_pieces": kept}
    try:
        for name, stage in replacements.items():
            setattr(places[name], name, stage)
        yield
    finally:
        for name, original in wrapped.items():
            setattr(places[name], name, original)


def _best_iou(quads: list[NDArray], true_xy: NDArray[np.float32]) -> float:
    area = cv2.contourArea(true_xy)
    best = 0.0
    for quad in quads:
        quad = np.asarray(quad, np.float32)
        inter, _ = cv2.intersectConvexConvex(quad, true_xy)
        union = cv2.contourArea(quad) + area - inter
        best = max(best, float(inter / union) if union > 0 else 0.0)
    return best


def lost_cards(frame_bgr: NDArray[np.uint8], truth: dict[str, Any]) -> list[tuple[int, str]]:
    """The cards of a photo at least 3/4 visible that no card read matches: (true id, stage) each."""
    seen: dict[str, list[NDArray]] = {key: [] for key in ("region", "chosen", "moved from", "moved to", "kept")}
    with _watching(seen):
        cards = read_frame(frame_bgr)
    true_cards = truth["cards"]
    matched = match_cards([c.corners_xy.astype(np.float64) for c in cards],
                          [np.array(c["corners"], np.float64) for c in true_cards],
                          visible=[c.get("visible_fraction", 1.0) for c in true_cards])
    lost = []
    for j, true in enumerate(true_cards):
        if true.get("visible_fraction", 1.0) < _VISIBLE_ENOUGH or j in matched.values():
            continue
        true_xy = np.array(true["corners"], np.float32)
        near = {key: _best_iou(quads, true_xy) >= _MIN_IOU for key, quads in seen.items()}
        kept = [q for q in seen["kept"] if _best_iou([q], true_xy) >= _MIN_IOU]
        if not near["region"]:
            stage = STAGES[0]
        elif not near["moved from"]:
            stage = STAGES[1]
        elif not near["moved to"]:
            stage = STAGES[2]
        elif not kept:
            stage = STAGES[3]
        elif all(read_quad(frame_bgr, find.CardQuad(q, 1.0)) is None for q in kept):
            stage = STAGES[4]
        else:
            stage = STAGES[5]
        lost.append((int(true.get("id", j)), stage))
    return lost


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.bench_stages", description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="folders of NAME.jpg + NAME.json")
    args = parser.parse_args(argv)
    tally: Counter = Counter()
    cards = []
    for folder in args.folders:
        for truth_path in sorted(folder.glob("*.json")):
            frame = cv2.imread(str(truth_path.with_suffix(".jpg")))
            if frame is None:
                print(f"bench_stages: {truth_path.with_suffix('.jpg')}: cannot read, skipped", file=sys.stderr)
                continue
            truth = json.loads(truth_path.read_text())
            for card, stage in lost_cards(frame, truth):
                tally[stage] += 1
                where = next((c.get("where") for c in truth["cards"] if c.get("id") == card), None)
                cards.append(f"{folder.name}/{truth_path.stem}: card {card} ({where}): {stage}")
    print(json.dumps({"missed_by_stage": {stage: tally[stage] for stage in STAGES}, "cards": cards}, indent=2))
    return 0


if __name__ == "__main__":
    from vision.onecore import run_on_one_core

    run_on_one_core("vision.bench_stages")
    sys.exit(main())
