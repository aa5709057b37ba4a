"""``referee live`` on a committed fixture clip (``fixtures/video/``), against the clip's ground-truth timeline.

Skipped until the clips are committed (``python -m fixtures.build_committed --only-video``).
``LIVE_FIXTURE_CLIP=round-hard.mp4`` picks another clip (that one fails today: two touching
cards at the end of a row are found as one quad, so the seventh card is never laid).
"""

import json
import os
from pathlib import Path

import pytest

from referee.cli import main

CLIP = Path(__file__).resolve().parents[2] / "fixtures" / "video" / os.environ.get("LIVE_FIXTURE_CLIP", "round-medium.mp4")

pytestmark = pytest.mark.skipif(not CLIP.with_suffix(".json").exists() or not CLIP.exists(),
                                reason=f"no committed fixture clip at {CLIP}")


def test_the_committed_clip_is_refereed_along_its_timeline(tmp_path, capsys) -> None:
    truth = json.loads(CLIP.with_suffix(".json").read_text())
    status = main(["live", "--video", str(CLIP), "--calibration", str(CLIP.with_suffix(".seats.yaml")), "--events", "-",
                   "--db", str(tmp_path / "g.db"), "--headless"])
    assert status == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    key = lambda e: (e["player"], e["position"], json.dumps(e["criteria"], sort_keys=True))  # noqa: E731
    laid = sorted(key(e) for e in events if e["type"] == "card_laid")
    assert laid == sorted(key(e) for e in truth["events"] if e["type"] == "card_laid")
    # The timeline's "settled" is when the hand lets go; a card that another hand covers right
    # after that is laid only once it has been seen lying still for a third of a second. Cards
    # lying there from the start are left out: their rows appear when arrange_rows accepts them.
    settled = {(c["player"], c["position"]): c["settled_t"] for c in truth["cards"] if c["settled_t"] is not None and not c["initial"]}
    for event in events:
        if event["type"] == "card_laid" and (event["player"], event["position"]) in settled:
            assert 0 <= event["t"] - settled[(event["player"], event["position"])] <= 1.5, event
    if truth["stop"] is not None:
        stop = [e for e in events if e["type"] == "stop"]
        assert [e["player"] for e in stop] == [truth["stop"]["player"]]
        assert 0 <= stop[0]["t"] - truth["stop"]["t"] <= 0.5
    scored = [e for e in events if e["type"] == "round_scored"]
    assert len(scored) == 1
    by_player = {r["player"]: r for r in scored[0]["rows"]}
    assert by_player == {r["player"]: {k: r[k] for k in ("player", "cards", "valid_length", "first_error")} for r in truth["rows"]}
    assert sorted(scored[0]["ranking"], key=lambda r: r["player"]) == sorted(truth["ranking"], key=lambda r: r["player"])
