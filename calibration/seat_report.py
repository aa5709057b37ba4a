"""Per photo: the true seats against the proposed ones, and why they differ.

    python -m calibration.seat_report --folders /tmp/dev120/hard [--all]

For each photo with ground truth (NAME.jpg + NAME.json), one line: how many seats were
proposed and how many players sat, then a word on each row that went wrong:
``unseen`` (the finder found none of its cards; their visible shares follow), ``not a row``
(its cards were found but none made a row: a lone card too far in, say), ``split`` (its
cards made two rows or more), ``merged`` (one row held two players' cards), and ``extra``
(a row of pool cards or false finds). A tally of the causes ends the report on stderr.
Never run it on the test split.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["main", "explain"]


def explain(
    corners: Sequence[NDArray], chains: list[list[int]], seat_count: int, truth: dict[str, Any]
) -> tuple[list[str], Counter]:
    """What went wrong with one photo's rows, as words and as a tally of causes.

    Parameters
    ----------
    corners : the face-up cards found, (4, 2) each
    chains : the rows found, as card indices (``calibration.rows.row_chains``)
    seat_count : how many seats were proposed
    truth : the photo's ground truth (``cards``, ``seats``, ``rows``)
    """
    from vision.bench import match_cards

    matched = match_cards([np.asarray(c, np.float64) for c in corners],
                          [np.array(c["corners"], np.float64) for c in truth["cards"]],
                          visible=[c.get("visible_fraction", 1.0) for c in truth["cards"]])
    owner = {k: (truth["cards"][j].get("player") if truth["cards"][j]["where"] == "row" else None) for k, j in matched.items()}
    words: list[str] = []
    causes: Counter = Counter()
    rows_of: dict[str, int] = Counter()
    for chain in chains:
        players = {owner.get(k) for k in chain} - {None}
        if len(players) > 1:
            words.append(f"merged {'+'.join(sorted(players))}")
            causes["merged"] += 1
        elif not players:
            words.append(f"extra row of {len(chain)} (pool or false finds)")
            causes["extra"] += 1
        for player in players:
            rows_of[player] += 1
    for row in truth["rows"]:
        player = row["player"]
        found = [k for k, p in owner.items() if p == player]
        if rows_of[player] > 1:
            words.append(f"split {player} into {rows_of[player]}")
            causes["split"] += 1
        elif rows_of[player] == 0 and not found:
            shares = [round(truth["cards"][j]["visible_fraction"], 2) for j in row["cards"]]
            words.append(f"unseen {player} ({len(row['cards'])} cards, visible {shares})")
            causes["unseen"] += 1
        elif rows_of[player] == 0:
            words.append(f"not a row: {player} ({len(found)} of {len(row['cards'])} cards found)")
            causes["not a row"] += 1
    causes["right number" if seat_count == len(truth["seats"]) else "wrong number"] += 1
    return words, causes


def main(argv: list[str] | None = None) -> int:
    from calibration.areas import find_table_area
    from calibration.arms import arm_entries
    from calibration.propose import propose_seats, table_centre
    from calibration.rows import row_chains
    from vision.pipeline import read_frame

    parser = argparse.ArgumentParser(prog="python -m calibration.seat_report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folders", nargs="+", type=Path, required=True, help="folders of NAME.jpg + NAME.json")
    parser.add_argument("--all", action="store_true", help="list every photo, not only those with something wrong")
    args = parser.parse_args(argv)
    total: Counter = Counter()
    for folder in args.folders:
        for meta in sorted(folder.glob("*.json")):
            frame = cv2.imread(str(meta.with_suffix(".jpg")))
            if frame is None:
                continue
            truth = json.loads(meta.read_text())
            size = (frame.shape[1], frame.shape[0])
            corners = [c.corners_xy for c in read_frame(frame) if c.reading.criteria is not None]
            table = find_table_area(frame, corners)
            chains = row_chains(corners, table_centre(table, size), table, size, frame) if corners else []
            arms = arm_entries(frame, corners, table)
            seats = propose_seats(corners, size, table, frame_bgr=frame, rows=chains, arms_xy=arms) if corners else ()
            words, causes = explain(corners, chains, len(seats), truth)
            total += causes
            if words or args.all or len(seats) != len(truth["seats"]):
                print(f"{folder.name}/{meta.stem}: {len(seats)} seats proposed, {len(truth['seats'])} true"
                      + (f"; {'; '.join(words)}" if words else ""))
    print(json.dumps(dict(total.most_common())), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
