"""Benchmark the card reader: speed per card, real-photo accuracy, rendered-card accuracy.

    python -m vision.bench_read [--photos DIR ...] [--render N] [--tiers easy medium hard]
                                [--fit-shapes] [--json]

- Speed: median and 90th-percentile milliseconds per ``read_card`` call on one thread
  (OpenCV and BLAS threads set to 1), on cards warped at the pipeline's working size.
- Real photos (``../shared/real-photos``, SET cards): symbol-count accuracy, colours == 1,
  shapes == 1 and exact (count, 1, 1), for the dev and the test half (split by source photo).
- Rendered cards (``fixtures.render``, dev split only): every face-up card cropped with its
  ground-truth corners; exact triple, per criterion, symbol colour and shape confusion
  matrices, non-cards rejected, and how well a low confidence predicts a misread card.
- ``--fit-shapes`` prints the per-shape feature model of ``vision.shapes`` refitted on the
  rendered dev symbols (the constants are pasted into that module by hand).
"""

from __future__ import annotations

import os

import argparse  # noqa: E402
import collections  # noqa: E402
import csv  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.read import WORK_SHORT_SIDE, read_card, to_working_size  # noqa: E402

REAL_PHOTOS = Path(__file__).resolve().parents[1] / ".." / "shared" / "real-photos"
FIXTURE_PHOTOS = Path(__file__).resolve().parents[1] / "fixtures" / "photos"
LOW_CONFIDENCE = 0.5
COLOURS = ("black", "red", "yellow", "blue", "green")
SHAPES = ("circle", "triangle", "square", "star", "bar")


def photo_half(photo: str) -> str:
    """'dev' or 'test' for a real photo's source name (the same split as the tests)."""
    return "dev" if int(hashlib.sha256(photo.encode()).hexdigest(), 16) % 2 == 0 else "test"


def real_photo_accuracy() -> dict[str, dict[str, float]] | None:
    labels = REAL_PHOTOS / "labels.csv"
    if not labels.is_file():
        print(f"real photos: skipped, {labels} is missing", file=sys.stderr)
        return None
    tallies: dict[str, collections.Counter] = {"dev": collections.Counter(), "test": collections.Counter()}
    with labels.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            reading = read_card(cv2.imread(str(REAL_PHOTOS / row["file"]), cv2.IMREAD_COLOR))
            count = len(reading.symbols) == int(row["symbols"])
            colour = len({s.colour for s in reading.symbols}) == 1
            shape = len({s.shape for s in reading.symbols}) == 1
            t = tallies[photo_half(row["photo"])]
            t["cards"] += 1
            t["count"] += count
            t["colours==1"] += colour
            t["shapes==1"] += shape
            t["exact"] += count and colour and shape
            t["low confidence"] += reading.confidence < LOW_CONFIDENCE
    out = {}
    for half, t in tallies.items():
        n = max(t["cards"], 1)
        out[half] = {"cards": t["cards"], **{k: round(t[k] / n, 4) for k in ("count", "colours==1", "shapes==1", "exact", "low confidence")}}
    both = tallies["dev"] + tallies["test"]
    n = max(both["cards"], 1)
    out["all"] = {"cards": both["cards"], **{k: round(both[k] / n, 4) for k in ("count", "colours==1", "shapes==1", "exact", "low confidence")}}
    return out


def _crops(image: np.ndarray, truth: dict):
    """(kind, card_bgr, card truth, symbol centres in the crop) for every whole card and non-card."""
    from vision.find import order_corners, warp_card

    for card in truth.get("cards", []):
        if card.get("visible_fraction", 1.0) < 0.97:
            continue
        quad = order_corners(np.array(card["corners"], np.float32))
        crop = warp_card(image, quad, WORK_SHORT_SIDE)
        h, w = crop.shape[:2]
        target = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
        homography = cv2.getPerspectiveTransform(quad, target)
        centres = cv2.perspectiveTransform(np.array([[s["center"] for s in card["symbols"]]], np.float32), homography)[0]
        yield "face", crop, card, centres
    for card in truth.get("face_down", []):
        if card.get("visible_fraction", 1.0) >= 0.97:
            yield "back", warp_card(image, order_corners(np.array(card["corners"], np.float32)), WORK_SHORT_SIDE), card, None
    for thing in truth.get("distractors", []):
        if "corners" in thing:
            yield thing["kind"], warp_card(image, order_corners(np.array(thing["corners"], np.float32)), WORK_SHORT_SIDE), thing, None


def load_rendered(tier: str, photo_dirs: list[Path], render: int):
    """Rendered dev photos of a tier: from directories of ``fixtures.render`` output, the
    committed fixtures, or rendered now. Never the test split."""
    found = []
    dirs = list(photo_dirs) + [FIXTURE_PHOTOS]
    for folder in dirs:
        for path in sorted((folder / tier).glob("dev-*.json")) + sorted(folder.glob(f"dev-*{tier}*.json")):
            truth = json.loads(path.read_text(encoding="utf-8"))
            if truth.get("split") != "dev" or truth.get("tier") != tier:
                continue
            image = cv2.imread(str(path.with_suffix(".jpg")), cv2.IMREAD_COLOR)
            if image is not None:
                found.append((path.stem, image, truth))
    if render:
        from fixtures.render import photo_seed, render_photo

        seen = {truth.get("seed") for _, _, truth in found}
        for index in range(render):
            seed = photo_seed("dev", tier, index)
            if seed in seen:
                continue
            image, truth = render_photo(seed, tier)
            found.append((f"dev-{index:03d}", image, truth))
    return found


def _matrix(counts: collections.Counter, labels: tuple[str, ...]) -> list[str]:
    cols = labels + ("missed",)
    lines = ["truth \\ read " + " ".join(f"{c:>8s}" for c in cols)]
    for row in labels:
        lines.append(f"{row:>12s} " + " ".join(f"{counts[(row, c)]:8d}" for c in cols))
    return lines


def rendered_accuracy(tier: str, photos) -> tuple[dict, list[np.ndarray], list[dict]]:
    t = collections.Counter()
    colour_counts: collections.Counter = collections.Counter()
    shape_counts: collections.Counter = collections.Counter()
    crops: list[np.ndarray] = []
    symbol_rows: list[dict] = []
    for name, image, truth in photos:
        for kind, crop, card, centres in _crops(image, truth):
            crops.append(crop)
            reading = read_card(crop)
            if kind == "held_card":
                # A real face held in a hand: for the reader a face; the finder must drop it.
                t["held cards"] += 1
                t["held cards read as face"] += reading.is_face
                continue
            if kind != "face":
                t["non-cards"] += 1
                t["non-cards rejected"] += not reading.is_face
                t[f"non-cards rejected: {kind}"] += not reading.is_face
                t[f"non-cards: {kind}"] += 1
                continue
            want = card["criteria"]
            got = reading.criteria.as_dict() if reading.criteria else None
            ok = got == want
            low = reading.confidence < LOW_CONFIDENCE
            t["faces"] += 1
            t["exact"] += ok
            t["read as face"] += reading.is_face
            for key in ("colours", "shapes", "symbols"):
                t[key] += bool(got) and got[key] == want[key]
            t["errors"] += not ok
            t["errors flagged"] += (not ok) and low
            t["correct flagged"] += ok and low
            read_xy = np.array([s.center_xy for s in reading.symbols]) if reading.symbols else np.zeros((0, 2))
            for sym, xy in zip(card["symbols"], centres):
                if len(read_xy):
                    dist = np.hypot(*(read_xy - xy).T)
                    j = int(dist.argmin())
                    if dist[j] < 0.08 * WORK_SHORT_SIDE:
                        colour_counts[(sym["colour"], reading.symbols[j].colour.value)] += 1
                        shape_counts[(sym["shape"], reading.symbols[j].shape.value)] += 1
                        continue
                colour_counts[(sym["colour"], "missed")] += 1
                shape_counts[(sym["shape"], "missed")] += 1
            symbol_rows.extend(_symbol_features(crop, card, centres))
    n = max(t["faces"], 1)
    report = {
        "photos": len(photos), "faces": t["faces"],
        "exact triple": round(t["exact"] / n, 4),
        **{f"{k} correct": round(t[k] / n, 4) for k in ("colours", "shapes", "symbols")},
        "read as face": round(t["read as face"] / n, 4),
        "non-cards": t["non-cards"], "non-cards rejected": round(t["non-cards rejected"] / max(t["non-cards"], 1), 4),
        **{f"rejected {key.split(': ')[1]}": f"{t['non-cards rejected: ' + key.split(': ')[1]]}/{t[key]}"
           for key in sorted(t) if key.startswith("non-cards: ")},
        "held cards (faces in a hand, read as faces)": f"{t['held cards read as face']}/{t['held cards']}",
        "misread cards": t["errors"],
        "misread cards with confidence < 0.5": t["errors flagged"],
        "correct cards with confidence < 0.5": t["correct flagged"],
        "colour confusion": _matrix(colour_counts, COLOURS),
        "shape confusion": _matrix(shape_counts, SHAPES),
    }
    return report, crops, symbol_rows


def _symbol_features(crop: np.ndarray, card: dict, centres: np.ndarray) -> list[dict]:
    from vision.symbols import find_blobs
    from vision.whitebalance import balance_card

    work, (sx, sy) = to_working_size(crop)
    seg = find_blobs(balance_card(work))
    if not seg.blobs:
        return []
    xy = np.array([((b.center_xy[0] + 0.5) / sx - 0.5, (b.center_xy[1] + 0.5) / sy - 0.5) for b in seg.blobs])
    rows = []
    for sym, c in zip(card["symbols"], centres):
        dist = np.hypot(*(xy - c).T)
        j = int(dist.argmin())
        if dist[j] < 0.08 * WORK_SHORT_SIDE:
            rows.append({"shape": sym["shape"], "x": seg.blobs[j].features.as_array(), "size": seg.blobs[j].extent})
    return rows


def fit_shapes(rows: list[dict], size0: float = 0.22) -> str:
    """Robust per-shape line fits of each feature against size; the model of vision.shapes."""
    means, slopes, spreads = [], [], []
    for shape in SHAPES:
        x = np.array([r["x"] for r in rows if r["shape"] == shape])
        e = np.array([r["size"] for r in rows if r["shape"] == shape]) - size0
        design = np.column_stack([np.ones_like(e), e])
        m_row, s_row, d_row = [], [], []
        for i in range(x.shape[1]):
            y = x[:, i]
            keep = np.ones(len(y), bool)
            for _ in range(3):
                coef = np.linalg.lstsq(design[keep], y[keep], rcond=None)[0]
                res = y - design @ coef
                mad = 1.4826 * np.median(np.abs(res - np.median(res)))
                keep = np.abs(res) < 3 * max(mad, 1e-3)
            spread = max(1.4826 * np.median(np.abs(res)), (np.percentile(res, 95) - np.percentile(res, 5)) / 3.29)
            m_row.append(coef[0])
            s_row.append(coef[1])
            d_row.append(spread)
        means.append(m_row)
        slopes.append(s_row)
        spreads.append(d_row)
    lines = [f"# {len(rows)} symbols; size0 = {size0}"]
    for name, table in (("mean", means), ("slope", slopes), ("spread (before widening)", spreads)):
        lines.append(f"{name}:")
        lines += [f"    [{', '.join(f'{v:.3f}' for v in row)}],  # {shape}" for row, shape in zip(table, SHAPES)]
    return "\n".join(lines)


def speed(crops: list[np.ndarray]) -> dict[str, float]:
    """Per-card time of read_card: wall clock and this process's CPU time (the latter is
    less disturbed by other processes on a shared machine)."""
    for crop in crops[:50]:
        read_card(crop)
    wall, cpu = [], []
    for _ in range(3):
        for crop in crops:
            start, start_cpu = time.perf_counter(), time.process_time()
            read_card(crop)
            cpu.append(time.process_time() - start_cpu)
            wall.append(time.perf_counter() - start)
    wall_ms, cpu_ms = np.array(wall) * 1e3, np.array(cpu) * 1e3
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return {"cards": len(crops), "median ms (wall)": round(float(np.median(wall_ms)), 3),
            "p90 ms (wall)": round(float(np.percentile(wall_ms, 90)), 3),
            "median ms (cpu)": round(float(np.median(cpu_ms)), 3),
            "load average during the run": round(load, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.bench_read", description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, action="append", default=[],
                        help="folder of fixtures.render output (TIER/dev-*.json or dev-*.json); repeatable")
    parser.add_argument("--render", type=int, default=0, help="also render this many dev photos per tier (default: 0)")
    parser.add_argument("--tiers", nargs="+", default=["easy", "medium", "hard"], help="tiers (default: easy medium hard)")
    parser.add_argument("--fit-shapes", action="store_true", help="print the shape model refitted on rendered dev symbols")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)

    results: dict = {"real photos": real_photo_accuracy(), "rendered dev cards": {}}
    crops: list[np.ndarray] = []
    symbol_rows: list[dict] = []
    for tier in args.tiers:
        try:
            photos = load_rendered(tier, args.photos, args.render)
        except ImportError as error:
            print(f"rendered cards: skipped ({error})", file=sys.stderr)
            break
        if not photos:
            print(f"rendered cards, {tier}: no dev photos (use --photos DIR or --render N)", file=sys.stderr)
            continue
        report, tier_crops, rows = rendered_accuracy(tier, photos)
        results["rendered dev cards"][tier] = report
        crops += tier_crops
        symbol_rows += rows
    if not crops and REAL_PHOTOS.is_dir():
        crops = [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in sorted((REAL_PHOTOS / "crops").glob("*.jpg"))[::4]]
    results["speed (one thread)"] = speed(crops) if crops else None
    if args.fit_shapes and symbol_rows:
        results["shape model"] = fit_shapes(symbol_rows)

    if args.json:
        print(json.dumps(results))
        return 0
    for section, value in results.items():
        print(f"== {section}")
        if isinstance(value, str):
            print(value)
            continue
        for key, item in (value or {}).items():
            if isinstance(item, dict):
                print(f"  {key}:")
                for k, v in item.items():
                    if isinstance(v, list):
                        print(f"    {k}:")
                        for line in v:
                            print(f"      {line}")
                    else:
                        print(f"    {k}: {v}")
            else:
                print(f"  {key}: {item}")
    return 0


if __name__ == "__main__":
    from vision.onecore import run_on_one_core

    run_on_one_core("vision.bench_read")
    sys.exit(main())
