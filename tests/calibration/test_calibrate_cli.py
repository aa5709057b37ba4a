"""``referee calibrate`` without a display: the proposal is written, printed, and serves ``check``."""

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.config import load_calibration
from referee.cli import main
from tests.calibration.photos import PHOTOS, photo

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def no_display(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


def test_the_proposal_is_written_printed_and_checks_the_table_like_the_true_seats(tmp_path, capsys) -> None:
    out = tmp_path / "table.yaml"
    assert main(["calibrate", str(PHOTOS / "easy" / "rulebook.jpg"), "--out", str(out),
                 "--players", "Anna,Ben,Cleo,Dora,Emil,Frieda"]) == 0
    captured = capsys.readouterr()
    assert captured.out == out.read_text()
    assert "no window (no display" in captured.err and "wrote" in captured.err
    calibration = load_calibration(out)
    assert [s.name for s in calibration.seats] == ["Anna", "Ben", "Cleo", "Dora", "Emil", "Frieda"]
    assert calibration.table is not None and calibration.colours is not None and len(calibration.colours.inks) == 5
    assert main(["check", str(PHOTOS / "easy" / "rulebook.jpg"), "--calibration", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    _, truth = photo("easy/rulebook")
    assert sorted(r["valid_length"] for r in result["rows"]) == sorted(r["valid_length"] for r in truth["rows"])


def test_a_720p_camera_over_six_players_is_calibrated_from_the_frame_enlarged(tmp_path, capsys) -> None:
    # Every card shows about 45 px on its short side, below the 60 px the finder looks for.
    small = tmp_path / "table-720p.jpg"
    cv2.imwrite(str(small), cv2.resize(cv2.imread(str(PHOTOS / "easy" / "rulebook.jpg")), (1280, 720), interpolation=cv2.INTER_AREA))
    out = tmp_path / "table.yaml"
    assert main(["calibrate", str(small), "--out", str(out), "--players", "Anna,Ben,Cleo,Dora,Emil,Frieda", "--headless"]) == 0
    calibration = load_calibration(out)
    assert calibration.image_size_wh == (1280, 720) and len(calibration.seats) == 6
    assert all(0 <= x <= 1280 and 0 <= y <= 720 for s in calibration.seats for x, y in [s.position_xy])
    capsys.readouterr()
    assert main(["check", str(small), "--calibration", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    _, truth = photo("easy/rulebook")
    assert sorted(r["valid_length"] for r in result["rows"]) == sorted(r["valid_length"] for r in truth["rows"])


def test_cards_too_small_to_read_at_all_are_said_so_when_no_row_is_found(tmp_path, capsys) -> None:
    from tests.vision.test_find import small_cards_scene

    far = tmp_path / "far.png"
    cv2.imwrite(str(far), small_cards_scene(24)[0])
    assert main(["calibrate", str(far), "--out", str(tmp_path / "t.yaml")]) == 1
    assert "too small to read" in capsys.readouterr().err


def test_more_players_than_rows_get_a_guessed_seat_said_in_a_warning(tmp_path, capsys) -> None:
    out = tmp_path / "table.yaml"
    assert main(["calibrate", str(PHOTOS / "easy" / "test-004.jpg"), "--out", str(out), "--players", "Anna,Ben,Cleo",
                 "--headless"]) == 0
    err = capsys.readouterr().err
    assert sorted(s.name for s in load_calibration(out).seats) == ["Anna", "Ben", "Cleo"]
    (guessed,) = [line for line in out.read_text().splitlines() if "# guessed" in line]
    name = guessed.split("name: ")[1].split()[0].strip('"')
    assert f"warning: {name}: guessed (no row seen there" in err


@pytest.mark.parametrize(
    "args, status, message",
    [
        (["--players", "Anna,,Ben"], 2, "--players: expected names separated by commas"),
        (["--out", "table.txt"], 2, "expected a .yaml file name"),
        (["--video", "missing.mp4"], 2, "missing.mp4: no such video file"),
    ],
    ids=["empty name", "not yaml", "no video"],
)
def test_bad_usage_exits_2(tmp_path, capsys, monkeypatch, args, status, message) -> None:
    monkeypatch.chdir(tmp_path)
    source = [] if "--video" in args else [str(PHOTOS / "easy" / "test-004.jpg")]
    out = [] if "--out" in args else ["--out", "table.yaml"]
    assert main(["calibrate", *source, *out, *args]) == status
    assert message in capsys.readouterr().err


def test_a_photo_without_rows_or_unreadable_exits_1(tmp_path, capsys) -> None:
    blank = tmp_path / "blank.png"
    rng = np.random.default_rng(0)
    cv2.imwrite(str(blank), rng.integers(60, 120, (400, 600, 3), dtype=np.uint8))
    assert main(["calibrate", str(blank), "--out", str(tmp_path / "t.yaml")]) == 1
    assert "no rows found" in capsys.readouterr().err
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a jpeg")
    assert main(["calibrate", str(broken), "--out", str(tmp_path / "t.yaml")]) == 1


def test_a_video_file_frame_is_calibrated(tmp_path) -> None:
    frame, _ = photo("easy/test-004")
    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (1920, 1080))
    for _ in range(3):
        writer.write(frame)
    writer.release()
    out = tmp_path / "table.yaml"
    done = subprocess.run([sys.executable, "-m", "referee", "calibrate", "--video", str(video), "--frame", "2",
                           "--out", str(out), "--headless"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "frame 2" in out.read_text() and len(load_calibration(out).seats) == 2


def test_a_stream_frame_is_calibrated_once_the_exposure_settled(tmp_path, capsys) -> None:
    from tests.referee.test_live_cli import MjpegServer

    frame, _ = photo("easy/test-004")
    out = tmp_path / "table.yaml"
    with MjpegServer([frame] * 40, fps=20) as server:
        assert main(["calibrate", "--url", server.url, "--frame", "3", "--out", str(out), "--headless"]) == 0
    assert "frame" in out.read_text() and len(load_calibration(out).seats) == 2
