"""``referee live --calibration``: the whole calibration used (colour profile, table top, pool), and the light watched."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from referee.cli import main
from referee.cli.live_synth import CARDS, POOL, Laying, Script, frames_of, script_round, seats_yaml, write_video
from tests.referee.test_live_cli import check_round

FPS = 15
WARM = np.array((0.7, 0.9, 1.1), np.float32)  # a 2700 K lamp switched on: blue down, red up


def write_frames(frames, path: Path, fps: float = FPS) -> Path:
    writer = None
    for frame in frames:
        if writer is None:
            writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (frame.shape[1], frame.shape[0]))
        writer.write(frame)
    writer.release()
    return path


def warmed(frames, fps: float, start: float, end: float = float("inf")):
    for index, frame in enumerate(frames):
        lamp = start <= index / fps < end
        yield np.clip(frame * WARM, 0, 255).astype(np.uint8) if lamp else frame


@pytest.fixture(scope="module")
def round_frames() -> tuple[np.ndarray, ...]:
    """The frames of ``script_round()`` at ``FPS``, drawn once for this module (read-only: the tests only look)."""
    frames = tuple(frames_of(script_round(), FPS))
    for frame in frames:
        frame.flags.writeable = False
    return frames


@pytest.fixture(scope="module")
def calibration(tmp_path_factory, round_frames) -> Path:
    """A calibration made by ``referee calibrate`` from a frame of the round, with the script's own seats."""
    folder = tmp_path_factory.mktemp("calibration")
    video = write_frames(round_frames, folder / "round.avi")
    made = folder / "made.yaml"
    assert main(["calibrate", "--video", str(video), "--frame", "60", "--players", "Anna,Ben", "--out", str(made), "--headless"]) == 0
    doc = yaml.safe_load(made.read_text())
    assert doc["colours"]["inks"], "the calibration learned no ink from the round"
    doc["seats"] = yaml.safe_load(seats_yaml())["seats"]
    path = folder / "table.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def run_live(video: Path, calibration: Path, folder: Path, capsys) -> list[dict]:
    status = main(["live", "--video", str(video), "--calibration", str(calibration), "--events", "-",
                   "--db", str(folder / "g.db"), "--headless", "--points", "3,9"])
    assert status == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize(
    "lamp, profile, said",
    [
        ((3.0, float("inf")), True, ["the light has changed"]),
        ((2.0, 4.5), True, ["the light has changed", "the light is back to the calibration's"]),
        ((3.0, float("inf")), False, []),
    ],
    ids=["a lamp switched on mid-round", "a lamp switched on and off again", "a calibration with only seats"],
)
def test_a_change_of_light_is_said_once_and_the_round_is_refereed_right(calibration, round_frames, tmp_path, capsys, lamp,
                                                                       profile, said) -> None:
    script = script_round()
    video = write_frames(warmed(round_frames, FPS, *lamp), tmp_path / "lamp.avi")
    if not profile:
        calibration = tmp_path / "seats.yaml"
        calibration.write_text(seats_yaml())
    events = run_live(video, calibration, tmp_path, capsys)
    warnings = [e for e in events if e["type"] == "warning"]
    assert [w["message"][: len(s)] for w, s in zip(warnings, said)] == said and len(warnings) == len(said), warnings
    for warning, when in zip(warnings, lamp):
        assert when < warning["t"] <= when + 1.5, warning  # noticed within about a second of source time
    if said:
        assert "own white balance" in warnings[0]["message"] and warnings[0]["light_drift"] > 8
    check_round(events, script)


def test_a_card_off_the_table_or_in_the_pool_is_never_in_a_row(calibration, tmp_path, capsys) -> None:
    base = script_round()
    # A card on a shelf just left of Anna's row (in line with it), and cards thrown into the middle pool.
    beside = Laying(POOL, 0, CARDS["two"], 0.0, (36.0, 300.0))
    pool = tuple(Laying(POOL, k, CARDS[name], t) for k, (name, t) in enumerate([("two", 1.0), ("three", 2.1), ("one", 3.2)]))
    script = Script(base.layings + (beside,) + pool, base.hands, base.nudges, (), base.duration)
    video = write_video(script, tmp_path / "pool.avi", fps=FPS)
    doc = yaml.safe_load(calibration.read_text())
    doc["table"] = [[74, 0], [639, 0], [639, 359], [74, 359]]
    doc["pool"] = [[170, 150], [410, 150], [410, 210], [170, 210]]
    with_areas = tmp_path / "areas.yaml"
    with_areas.write_text(yaml.safe_dump(doc, sort_keys=False))
    check_round(run_live(video, with_areas, tmp_path, capsys), base)
    # Without the table's edge, the card beside it passes for Anna's first card (and her row is full a card early).
    seats_only = tmp_path / "seats.yaml"
    seats_only.write_text(seats_yaml())
    laid = [e for e in run_live(video, seats_only, tmp_path, capsys) if e["type"] == "card_laid"]
    assert (laid[0]["player"], laid[0]["position"], laid[0]["criteria"]) == ("Anna", 0, CARDS["two"].criteria.as_dict())


def test_a_calibration_for_another_frame_size_is_refused_with_one_line(calibration, tmp_path, capsys) -> None:
    small = write_video(Script(script_round().layings[:1], duration=0.5), tmp_path / "small.avi", fps=FPS, scale=0.5)
    status = main(["live", "--video", str(small), "--calibration", str(calibration), "--db", str(tmp_path / "g.db"), "--headless"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1
    assert f"{calibration}: image: calibrated for 640x360 frames, this one is 320x180" in err[0]
