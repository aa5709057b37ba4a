"""The calibration file: a seats-only file works; every bad value is named."""

from pathlib import Path

import cv2
import pytest

from calibration.config import CalibrationError, load_calibration
from referee.cli import main
from tests.vision.test_find import SEPARATE, scene


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.yaml"
    path.write_text(text)
    return path


def test_a_file_holding_only_seats_works(tmp_path) -> None:
    calibration = load_calibration(write(tmp_path, "seats:\n  - name: Anna\n    position: [412, 1040]\n  - name: Ben\n    position: [1880, 530]\n"))
    assert [(s.name, s.position_xy) for s in calibration.seats] == [("Anna", (412.0, 1040.0)), ("Ben", (1880.0, 530.0))]


@pytest.mark.parametrize(
    "text, message",
    [
        ("seats: [\n", "malformed YAML"),
        ("players: []\n", "unknown key 'players'"),
        ("seats: []\n", "seats: expected a list"),
        ("seats:\n  - name: Anna\n", r"seats\[1\] \(Anna\): position: expected \[x, y\]"),
        ("seats:\n  - {name: Anna, position: [1, 2]}\n  - {name: Anna, position: [3, 4]}\n", r"seats\[2\]: name: 'Anna' is used by two seats"),
        ("seats:\n  - {name: Anna, position: [-5, 2]}\n", "must not be negative"),
        ("seats:\n  - {name: '', position: [1, 2]}\n", "name: expected a player's name"),
        ("seats:\n  - {name: Anna, position: [1, 2], colour: red}\n", "unknown key 'colour'"),
        ("version: 99\nseats:\n  - {name: Anna, position: [1, 2]}\n", "reads calibration version 1, got 99"),
        ("image: {width: 100, height: 100}\nseats:\n  - {name: Anna, position: [150, 2]}\n", "'Anna' at \\[150, 2\\] lies outside the 100x100 image"),
    ],
    ids=["malformed", "unknown key", "no seats", "no position", "duplicate names", "negative", "empty name",
         "unknown seat key", "future version", "outside the image"],
)
def test_bad_calibration_files_are_refused_with_the_key(tmp_path, text, message) -> None:
    with pytest.raises(CalibrationError, match=message):
        load_calibration(write(tmp_path, text))


def test_missing_file() -> None:
    with pytest.raises(CalibrationError, match="no such calibration file"):
        load_calibration(Path("/nonexistent/table.yaml"))


@pytest.mark.parametrize("text, message", [
    ("seats:\n  - {name: Anna, position: [900, 100]}\n  - {name: Ben, position: [10, 10]}\n",
     "'Anna' at [900, 100] lies outside the 640x400 image"),
    ("image: {width: 1280, height: 800}\nseats:\n  - {name: Anna, position: [100, 100]}\n",
     "image: calibrated for 1280x800 frames, this one is 640x400"),
], ids=["seat outside the image", "made for another frame size"])
def test_check_refuses_a_bad_calibration_before_reading_any_image(tmp_path, capsys, text, message) -> None:
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), scene(SEPARATE))  # 640x400
    bad = write(tmp_path, text)
    assert main(["check", str(photo), "--calibration", str(bad), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err
    assert len(captured.err.strip().splitlines()) == 1
