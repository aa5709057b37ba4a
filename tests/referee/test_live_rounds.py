"""The rendered-rounds benchmark's bookkeeping (``referee.cli.live_rounds``): a log held to its truth, a clip shrunk."""

import json
from pathlib import Path

import cv2
import numpy as np

from referee.cli.live_rounds import held_to_truth, shrunk_clip

CLIP = Path(__file__).resolve().parents[2] / "fixtures" / "video" / "round-hard.mp4"


def _log_of(truth: dict) -> list[dict]:
    """The event log of a referee that got the round right, each card laid a third of a second after it settled."""
    events = [{**e, "t": round(e["t"] + 1 / 3, 3)} for e in truth["events"] if e["type"] in ("card_laid", "stop")]
    rows = [{k: row[k] for k in ("player", "cards", "valid_length", "first_error")} for row in truth["rows"]]
    return events + [{"type": "round_scored", "t": events[-1]["t"], "rows": rows, "ranking": truth["ranking"]}]


def test_a_log_that_got_the_round_right_is_right_in_every_way() -> None:
    truth = json.loads(CLIP.with_suffix(".json").read_text())
    result = held_to_truth(7, _log_of(truth), truth)
    assert (result.scored, result.outcome, result.timeline) == (None, None, None)
    assert (result.right, result.read_wrong, result.missed, result.extra) == (sum(len(r["cards"]) for r in truth["rows"]), 0, 0, 0)


def test_the_rows_scored_are_held_to_the_truth_card_by_card() -> None:
    truth = json.loads(CLIP.with_suffix(".json").read_text())
    events = _log_of(truth)
    mona, nils = events[-1]["rows"]
    other = {"colours": 1, "shapes": 1, "symbols": 1}
    mona["cards"] = [mona["cards"][0], other, *mona["cards"][2:], other]  # the 2nd read wrong, one card more
    nils["cards"] = nils["cards"][:-1]  # the last missed
    result = held_to_truth(7, events, truth)
    assert result.scored is not None and result.outcome is not None
    assert (result.read_wrong, result.missed, result.extra) == (1, 1, 1)
    assert result.right == sum(len(r["cards"]) for r in truth["rows"]) - 2
    assert "Mona card 2 (1/1/4) scored 1/1/1" in result.differences
    assert "Mona: 1/1/1 scored after card 7, not in the truth" in result.differences
    assert "Nils card 5 (3/1/6) scored missing" in result.differences


def test_a_clip_is_shrunk_with_its_seats(tmp_path) -> None:
    clip = tmp_path / "round.mp4"
    writer = cv2.VideoWriter(str(clip), cv2.VideoWriter_fourcc(*"mp4v"), 15, (160, 96))
    for k in range(5):
        frame = np.full((96, 160, 3), 40 * k, np.uint8)
        writer.write(frame)
    writer.release()
    clip.with_suffix(".json").write_text(json.dumps({"seats": [{"name": "Anna", "position": [80.0, 95.0]}]}))
    small = shrunk_clip(clip, 0.5, tmp_path / "small.mp4")
    capture = cv2.VideoCapture(str(small))
    frames = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        frames.append(frame)
    assert [f.shape for f in frames] == [(48, 80, 3)] * 5
    assert json.loads(small.with_suffix(".json").read_text())["seats"] == [{"name": "Anna", "position": [40.0, 47.5]}]
