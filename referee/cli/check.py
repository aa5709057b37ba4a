"""``referee check``: referee photos of the table (the ``referee.check/1`` contract)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parsers"]


def add_parsers(commands: argparse._SubParsersAction) -> None:
    check = commands.add_parser(
        "check",
        help="referee photos of the table: every card, every row, the ranking",
        description=(
            "Find every face-up symbol card in each photo, read its colours, shapes and symbols, "
            "arrange the players' rows and referee them. With --json, prints one JSON object per "
            "photo (JSON Lines) as in the referee.check/1 contract."
        ),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    check.add_argument("images", metavar="IMAGE", nargs="+", type=Path, help="photos of the table (JPEG, PNG, ...)")
    check.add_argument("--json", action="store_true", help="print one JSON object per photo on stdout")
    check.add_argument(
        "--calibration", metavar="FILE", type=Path, default=None,
        help="the table's calibration (a file holding only 'seats:' will do); without it rows are found "
        "as chains of two or more aligned cards, named row-1, row-2, ...",
    )
    check.add_argument(
        "--annotate", metavar="OUT", type=Path, default=None,
        help="write the photo with rows, verdicts and ranking drawn on it to OUT (a folder when several photos are given)",
    )
    check.set_defaults(run=_run_check)


def _run_check(args: argparse.Namespace) -> int:
    # Imported here so that the rules-only commands start without OpenCV.
    import cv2

    from calibration.config import CalibrationError, load_calibration
    from referee.cli.table import draw_table, referee_frame, result_json, result_lines
    from vision.images import ImageError, image_size, load_image

    calibration = None
    if args.calibration is not None:
        try:
            calibration = load_calibration(args.calibration)
            for path in args.images:
                size = image_size(path)
                if size is not None:
                    calibration.check_fits(size, f"{args.calibration} (for {path})")
        except CalibrationError as error:
            print(f"referee check: {error}", file=sys.stderr)
            return 2
    several = len(args.images) > 1
    if args.annotate is not None and several:
        args.annotate.mkdir(parents=True, exist_ok=True)
    failures = 0
    for path in args.images:
        try:
            frame = load_image(path)
            if calibration is not None:
                calibration.check_fits((frame.shape[1], frame.shape[0]), f"{args.calibration} (for {path})")
        except (ImageError, CalibrationError) as error:
            failures += 1
            print(f"referee check: {error}", file=sys.stderr)
            if args.json:
                _print({"image": {"path": str(path)}, "error": str(error)})
            continue
        try:
            result = (referee_frame(frame, calibration.seats, calibration.areas, calibration.colours) if calibration
                      else referee_frame(frame))
        except Exception as error:  # noqa: BLE001 - a photo the reader fails on must not end the run over the others
            failures += 1
            message = f"{path}: could not be refereed, the reader failed on it ({type(error).__name__}: {error}); please report this photo"
            print(f"referee check: {message}", file=sys.stderr)
            if args.json:
                _print({"image": {"path": str(path)}, "error": message})
            continue
        if args.json:
            _print(result_json(result, str(path)))
        else:
            print("\n".join(result_lines(result, str(path))), flush=True)
        if args.annotate is not None:
            out = args.annotate / f"{path.stem}.annotated.png" if several else args.annotate
            if not cv2.imwrite(str(out), draw_table(frame, result)):
                print(f"referee check: {out}: cannot write the annotated image", file=sys.stderr)
                failures += 1
    return 1 if failures else 0


def _print(line: dict[str, Any]) -> None:
    print(json.dumps(line), flush=True)
