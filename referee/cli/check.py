"""``referee check``: referee photos of the table (the ``referee.check/1`` contract)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parsers", "card_json"]

SCHEMA = "referee.check/1"


def add_parsers(commands: argparse._SubParsersAction) -> None:
    check = commands.add_parser(
        "check",
        help="read every face-up card in photos of the table",
        description=(
            "Find every face-up symbol card in each photo and read its colours, shapes and symbols. "
            "With --json, prints one JSON object per photo (JSON Lines) as in the referee.check/1 contract."
        ),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    check.add_argument("images", metavar="IMAGE", nargs="+", type=Path, help="photos of the table (JPEG, PNG, ...)")
    check.add_argument("--json", action="store_true", help="print one JSON object per photo on stdout")
    check.add_argument(
        "--annotate", metavar="OUT", type=Path, default=None,
        help="write the photo with every card's outline, numbers and symbols to OUT (a folder when several photos are given)",
    )
    check.set_defaults(run=_run_check)


def _run_check(args: argparse.Namespace) -> int:
    # Imported here so that the rules-only commands start without OpenCV.
    from vision.annotate import draw_cards
    from vision.images import ImageError, load_image
    from vision.pipeline import read_frame

    import cv2

    several = len(args.images) > 1
    if args.annotate is not None and several:
        args.annotate.mkdir(parents=True, exist_ok=True)
    failures = 0
    for path in args.images:
        try:
            frame = load_image(path)
        except ImageError as error:
            failures += 1
            print(f"referee check: {error}", file=sys.stderr)
            if args.json:
                print(json.dumps({"image": {"path": str(path)}, "error": str(error)}), flush=True)
            continue
        cards = read_frame(frame)
        readable = [card for card in cards if card.reading.criteria is not None]
        result: dict[str, Any] = {
            "schema": SCHEMA,
            "image": {"path": str(path), "width": frame.shape[1], "height": frame.shape[0]},
            "cards": [card_json(card, index) for index, card in enumerate(readable)],
            "rows": [],
            "ranking": [],
            "unread": [
                {"corners": _points(card.corners_xy), "reason": card.reading.reason or "impossible reading"}
                for card in cards if card.reading.criteria is None
            ],
        }
        if args.json:
            print(json.dumps(result), flush=True)
        else:
            print("\n".join(_text_lines(result)), flush=True)
        if args.annotate is not None:
            out = args.annotate / f"{path.stem}.annotated.png" if several else args.annotate
            if not cv2.imwrite(str(out), draw_cards(frame, readable)):
                print(f"referee check: {out}: cannot write the annotated image", file=sys.stderr)
                failures += 1
    return 1 if failures else 0


def card_json(card: Any, card_id: int) -> dict[str, Any]:
    """One detected card as in the contract's ``cards`` list."""
    reading = card.reading
    return {
        "id": card_id,
        "corners": _points(card.corners_xy),
        "center": [round(v, 1) for v in card.center_xy],
        "criteria": reading.criteria.as_dict(),
        "symbols": [
            {"shape": s.shape.value, "colour": s.colour.value, "center": [round(v, 1) for v in s.center_xy]}
            for s in reading.symbols
        ],
        "confidence": round(float(reading.confidence), 3),
    }


def _points(corners_xy: Any) -> list[list[float]]:
    return [[round(float(x), 1), round(float(y), 1)] for x, y in corners_xy]


def _text_lines(result: dict[str, Any]) -> list[str]:
    image = result["image"]
    lines = [f"{image['path']}: {len(result['cards'])} face-up cards ({image['width']}x{image['height']})"]
    for card in result["cards"]:
        c = card["criteria"]
        x, y = card["center"]
        doubt = "  <- please look at this card" if card["confidence"] < 0.5 else ""
        lines.append(
            f"  #{card['id']} at ({x:.0f}, {y:.0f}): {c['colours']} colours, {c['shapes']} shapes, "
            f"{c['symbols']} symbols (confidence {card['confidence']:.2f}){doubt}"
        )
    for unread in result["unread"]:
        x, y = (sum(p[i] for p in unread["corners"]) / 4 for i in (0, 1))
        lines.append(f"  a card at ({x:.0f}, {y:.0f}) could not be read: {unread['reason']}")
    return lines
