"""Benchmark of calibration: colour and triple accuracy with a one-frame calibration vs without, and seat proposals.

    python -m calibration.bench --tier hard --split test --count 30 [--max-kelvin 2800] [--min-falloff 0.45]
    python -m calibration.bench --folders fixtures/photos/easy fixtures/photos/medium   # committed photos

Rendered photos of the split are kept only when their light is at the harsh end (colour
temperature at most --max-kelvin, brightness falling across the table by at least
--min-falloff). For each photo a calibration is made from that one frame (``calibrate_frame``:
no ground truth used), then the frame is refereed with the true seats, once without and
once with the calibration's colour profile (and table areas). Seats: the proposal against
the true seats (right number; each true row given, with the proposal, to the proposed
seat nearest its true seat); with --named the calibration is given the players' names (as
``referee calibrate --players`` would be), so it knows how many play. Never tune on the test split.
"""

from __future__ import annotations


import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Iterator  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from calibration.seats import Seat  # noqa: E402

__all__ = ["main", "ReadTally", "SeatTally"]

_VISIBLE_ENOUGH = 0.75


@dataclass
class ReadTally:
    """Symbol colours and card triples read right, over matched cards."""

    symbols: int = 0
    colours_right: int = 0
    cards: int = 0
    triples_right: int = 0
    rows: int = 0
    rows_right: int = 0
    confusion: Counter = field(default_factory=Counter)

    def add(self, result: Any, truth: dict[str, Any]) -> None:
        from vision.bench import match_cards

        true_cards = truth["cards"]
        matched = match_cards([c.corners_xy.astype(np.float64) for c in result.cards],
                              [np.array(c["corners"], np.float64) for c in true_cards],
                              visible=[c.get("visible_fraction", 1.0) for c in true_cards])
        for i, j in matched.items():
            true = true_cards[j]
            if true.get("visible_fraction", 1.0) < _VISIBLE_ENOUGH:
                continue
            reading = result.cards[i].reading
            self.cards += 1
            self.triples_right += reading.criteria.as_dict() == true["criteria"]
            true_xy = np.array([s["center"] for s in true["symbols"]], np.float64).reshape(-1, 2)
            for symbol in reading.symbols:
                k = int(np.argmin(np.linalg.norm(true_xy - np.array(symbol.center_xy), axis=1)))
                self.symbols += 1
                self.colours_right += true["symbols"][k]["colour"] == symbol.colour.value
                self.confusion[(true["symbols"][k]["colour"], symbol.colour.value)] += 1
        true_of = {i: true_cards[j]["id"] for i, j in matched.items()}
        found = {row.player: [true_of.get(k) for k in row.cards] for row in result.rows}
        for true_row in truth["rows"]:
            self.rows += 1
            self.rows_right += found.get(true_row["player"]) == true_row["cards"]

    def summary(self) -> dict[str, Any]:
        return {
            "symbol_colour_accuracy_pct": _pct(self.colours_right, self.symbols),
            "exact_triple_pct": _pct(self.triples_right, self.cards),
            "row_accuracy_pct": _pct(self.rows_right, self.rows),
            "symbols": self.symbols, "cards": self.cards, "rows": self.rows,
            "colour_confusion": {f"{a}->{b}": n for (a, b), n in sorted(self.confusion.items()) if a != b},
        }


@dataclass
class SeatTally:
    """Seat proposals against the true seats."""

    photos: int = 0
    count_right: int = 0
    rows: int = 0
    rows_right: int = 0
    rows_right_true_seats: int = 0
    confusable_said: Counter = field(default_factory=Counter)
    failures: list = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "photos": self.photos,
            "right_number_of_seats_pct": _pct(self.count_right, self.photos),
            "true_rows_given_to_their_true_seat_pct": _pct(self.rows_right, self.rows),
            "same_with_the_true_seats_pct (the pipeline's ceiling)": _pct(self.rows_right_true_seats, self.rows),
            "confusable_pairs_said": dict(self.confusable_said),
            "failures": self.failures[:30],
        }


def _pct(a: int, b: int) -> float | None:
    return round(100.0 * a / b, 2) if b else None


def score_seats(tally: SeatTally, frame: np.ndarray, truth: dict[str, Any], seats: tuple[Seat, ...], name: str) -> None:
    """Add one photo's proposal: seat count, and each true row's cards given to the seat nearest its true seat."""
    from vision.arrange import arrange_rows
    from vision.bench import match_cards
    from vision.pipeline import read_frame

    size = (frame.shape[1], frame.shape[0])
    cards = [c for c in read_frame(frame) if c.reading.criteria is not None]
    corners = [c.corners_xy for c in cards]
    matched = match_cards([c.astype(np.float64) for c in corners], [np.array(c["corners"], np.float64) for c in truth["cards"]],
                          visible=[c.get("visible_fraction", 1.0) for c in truth["cards"]])
    true_of = {i: truth["cards"][j]["id"] for i, j in matched.items()}
    true_seats = [Seat(s["name"], tuple(s["position"])) for s in truth["seats"]]

    def rows_with(chosen: Any) -> dict[str, list]:
        return {row.player: [true_of.get(k) for k in row.cards] for row in arrange_rows(corners, chosen, size)}

    proposed, ideal = rows_with(seats) if seats else {}, rows_with(true_seats)
    tally.photos += 1
    tally.count_right += len(seats) == len(true_seats)
    if len(seats) != len(true_seats):
        tally.failures.append(f"{name}: {len(seats)} seats proposed, {len(true_seats)} true")
    for true_row in truth["rows"]:
        tally.rows += 1
        seat = next(s for s in true_seats if s.name == true_row["player"])
        tally.rows_right_true_seats += ideal.get(seat.name) == true_row["cards"]
        if not seats:
            continue
        nearest = min(seats, key=lambda s: float(np.hypot(*np.subtract(s.position_xy, seat.position_xy))))
        right = proposed.get(nearest.name) == true_row["cards"]
        tally.rows_right += right
        if not right:
            tally.failures.append(f"{name}: {seat.name}'s row {true_row['cards']} went as {proposed.get(nearest.name)}")


def _rendered(tier: str, split: str, count: int, start: int, max_kelvin: float, min_falloff: float,
              cache: Path | None) -> Iterator[tuple[str, np.ndarray, dict]]:
    from fixtures.render import photo_seed, render_photo_jpeg

    kept, index = 0, start
    while kept < count and index < start + 50 * count:
        name = f"{tier}-{split}-{index:04d}"
        jpg, meta = (cache / f"{name}.jpg", cache / f"{name}.json") if cache else (None, None)
        if jpg is not None and jpg.exists() and meta.exists():
            data, truth = jpg.read_bytes(), json.loads(meta.read_text())
        else:
            data, truth = render_photo_jpeg(photo_seed(split, tier, index), tier)
            if cache is not None:
                cache.mkdir(parents=True, exist_ok=True)
                jpg.write_bytes(data)
                meta.write_text(json.dumps(truth))
        index += 1
        conditions = truth["conditions"]
        if conditions["kelvin"] > max_kelvin or conditions["falloff"] < min_falloff:
            continue
        kept += 1
        yield name, cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR), truth


def unreachable_light(tier: str, max_kelvin: float, min_falloff: float) -> str | None:
    """Why no photo of ``tier`` can pass the light filter (its lights are all warmer than
    ``max_kelvin``, or all fall off less than ``min_falloff``), or None when some can."""
    from fixtures.render import TIERS

    kelvin, falloff = TIERS[tier].kelvin, TIERS[tier].falloff
    if kelvin[0] > max_kelvin:
        return f"the {tier} tier is lit at {kelvin[0]:.0f}-{kelvin[1]:.0f} K, never at most --max-kelvin {max_kelvin:.0f}"
    if falloff[1] < min_falloff:
        return f"the {tier} tier's light falls off by {falloff[0]}-{falloff[1]}, never at least --min-falloff {min_falloff}"
    return None


def _folders(folders: list[Path]) -> Iterator[tuple[str, np.ndarray, dict]]:
    for folder in folders:
        for meta in sorted(folder.glob("*.json")):
            frame = cv2.imread(str(meta.with_suffix(".jpg")))
            if frame is not None:
                yield f"{folder.name}/{meta.stem}", frame, json.loads(meta.read_text())


def main(argv: list[str] | None = None) -> int:
    from calibration.learn import ProposalError, calibrate_frame
    from referee.cli.table import referee_frame

    parser = argparse.ArgumentParser(prog="python -m calibration.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folders", nargs="*", type=Path, default=None, help="folders of NAME.jpg + NAME.json instead of rendering")
    parser.add_argument("--tier", choices=["easy", "medium", "hard"], default="hard")
    parser.add_argument("--split", choices=["dev", "test"], default="test")
    parser.add_argument("--count", type=int, default=30, help="photos to keep (default: 30)")
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--max-kelvin", type=float, default=2800.0, help="keep photos lit at most this warm (default: 2800)")
    parser.add_argument("--min-falloff", type=float, default=0.45, help="keep photos whose light falls by at least this (default: 0.45)")
    parser.add_argument("--cache", type=Path, default=None, help="keep rendered photos here and reuse them")
    parser.add_argument("--named", action="store_true",
                        help="calibrate with the players named (--players: the true seats' names), so their number is known")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    if not args.folders and (why := unreachable_light(args.tier, args.max_kelvin, args.min_falloff)):
        # Rendering would go on through 50 times --count photos and keep none.
        print(f"calibration.bench: {why}; widen the filter (e.g. --max-kelvin 99999 --min-falloff 0)", file=sys.stderr)
        return 2
    photos = _folders(args.folders) if args.folders else _rendered(
        args.tier, args.split, args.count, args.start, args.max_kelvin, args.min_falloff, args.cache)
    without, with_profile, with_all = ReadTally(), ReadTally(), ReadTally()
    seats_tally = SeatTally()
    kelvins, falloffs, started = [], [], time.perf_counter()
    for name, frame, truth in photos:
        kelvins.append(truth["conditions"]["kelvin"])
        falloffs.append(truth["conditions"]["falloff"])
        true_seats = [Seat(s["name"], tuple(s["position"])) for s in truth["seats"]]
        try:
            calibration = calibrate_frame(frame, [s.name for s in true_seats] if args.named else None)
        except ProposalError:
            from calibration.areas import find_table_area
            from calibration.config import Calibration
            from calibration.profile import ink_samples, learn_profile
            from vision.pipeline import read_frame

            # No rows to seat: the colour profile and the table top are still learned.
            corners = [c.corners_xy for c in read_frame(frame) if c.reading.criteria is not None]
            samples = ink_samples(frame, corners)
            table = find_table_area(frame, corners)
            calibration = Calibration((), (frame.shape[1], frame.shape[0]),
                                      None if table is None else tuple(map(tuple, table)), None,
                                      learn_profile(samples) if samples else None)
        for a, b, _ in calibration.colours.confusable if calibration.colours else ():
            seats_tally.confusable_said[f"{a.value}/{b.value}"] += 1
        without.add(referee_frame(frame, true_seats), truth)
        with_profile.add(referee_frame(frame, true_seats, None, calibration.colours), truth)
        with_all.add(referee_frame(frame, true_seats, calibration.areas, calibration.colours), truth)
        score_seats(seats_tally, frame, truth, calibration.seats, name)
        print(f"{name}: {truth['conditions']['kelvin']} K, falloff {truth['conditions']['falloff']}", file=sys.stderr)
    report = {
        "photos": len(kelvins),
        "kelvin_range": [min(kelvins), max(kelvins)] if kelvins else None,
        "falloff_range": [min(falloffs), max(falloffs)] if falloffs else None,
        "without_calibration": without.summary(),
        "with_colour_profile": with_profile.summary(),
        "with_profile_and_table_areas": with_all.summary(),
        "seat_proposals": seats_tally.summary(),
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    from vision.onecore import run_on_one_core

    run_on_one_core("calibration.bench")
    sys.exit(main())
