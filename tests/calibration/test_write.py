"""The full calibration file: written with comments, read back the same, every bad value named."""

from pathlib import Path

import pytest
import yaml

from calibration.config import Calibration, CalibrationError, load_calibration
from calibration.profile import ColourProfile, confusable_pairs
from calibration.seats import Seat
from calibration.write import format_calibration, write_calibration
from referee.cards import Colour

INKS = {Colour.BLACK: (20.0, 1.0, 2.0), Colour.RED: (50.0, 55.0, 40.0), Colour.YELLOW: (58.0, 48.0, 45.0)}
PROFILE = ColourProfile((200.0, 210.5, 230.0), INKS, {Colour.BLACK: 10, Colour.RED: 6, Colour.YELLOW: 4}, confusable_pairs(INKS))
FULL = Calibration(
    seats=(Seat("Anna", (412.0, 1040.0)), Seat("Ben Ö: \"B\"", (1880.0, 530.5))),
    image_size_wh=(1920, 1080),
    table=((10.0, 10.0), (1900.0, 12.0), (1910.0, 1070.0), (5.0, 1075.0)),
    pool=((800.0, 400.0), (1100.0, 400.0), (1000.0, 700.0)),
    colours=PROFILE,
)


def test_a_full_calibration_reads_back_as_written(tmp_path) -> None:
    path = tmp_path / "table.yaml"
    write_calibration(path, FULL, "table.jpg", PROFILE.warnings())
    text = path.read_text()
    assert text.count("\n#") > 10 and "version: 1" in text  # commented, versioned
    again = load_calibration(path)
    assert again.seats == FULL.seats and again.image_size_wh == FULL.image_size_wh
    assert again.table == FULL.table and again.pool == FULL.pool
    assert again.colours.white_bgr == PROFILE.white_bgr and dict(again.colours.inks) == dict(PROFILE.inks)
    assert dict(again.colours.counts) == dict(PROFILE.counts)
    assert format_calibration(again) == format_calibration(FULL)


def test_red_and_yellow_close_under_this_light_are_said_in_the_file() -> None:
    text = format_calibration(FULL, warnings=PROFILE.warnings())
    assert "# warning: red and yellow are hard to tell apart" in text
    loaded = load_calibration_text(text)
    assert [(a, b) for a, b, _ in loaded.colours.confusable] == [(Colour.RED, Colour.YELLOW)]
    assert "red and yellow are hard to tell apart" in loaded.colours.warnings()[0]


def load_calibration_text(text: str) -> Calibration:
    from calibration.config import parse_calibration

    return parse_calibration(yaml.safe_load(text), "table.yaml")


def test_unknown_parts_are_null_and_a_seats_only_file_still_works(tmp_path) -> None:
    bare = Calibration(seats=(Seat("Anna", (1.0, 2.0)),))
    path = tmp_path / "t.yaml"
    write_calibration(path, bare)
    again = load_calibration(path)
    assert again == bare and again.areas is None
    assert load_calibration_text("seats:\n  - {name: Anna, position: [1, 2]}\n") == bare


SEATS = "seats:\n  - {name: Anna, position: [10, 20]}\n"


@pytest.mark.parametrize(
    "extra, message",
    [
        ("table: [[0, 0], [10, 0]]\n", r"table: expected the table top as a list of at least 3 points"),
        ("table: [[0, 0], [10, 0], [10, x]]\n", r"table\[3\]: expected \[x, y\] in image pixels, got \[10, 'x'\]"),
        ("pool: [[0, 0], [10, 0], [-1, 5]]\n", r"pool\[3\]: \[x, y\] must not be negative"),
        ("pool: [[0, 0], [10, 0], [20, 0]]\n", r"pool: expected the middle pool as a polygon with an area"),
        ("image: {width: 100, height: 100}\ntable: [[0, 0], [150, 0], [50, 50]]\n",
         r"table\[2\]: point \[150, 0\] lies outside the 100x100 image"),
        ("colours: [1]\n", r"colours: expected \{white"),
        ("colours: {white: [1, 2, 3], shade: 4}\n", r"colours: unknown key 'shade'"),
        ("colours: {white: [1, 2, 300]}\n", r"colours.white: expected \[B, G, R\] in 0-255, got \[1, 2, 300\]"),
        ("colours: {white: [1, 2, 3], inks: [1]}\n", r"colours.inks: expected a mapping"),
        ("colours: {white: [1, 2, 3], inks: {purple: {lab: [1, 2, 3]}}}\n", r"colours.inks: unknown colour 'purple'"),
        ("colours: {white: [1, 2, 3], inks: {red: [1, 2, 3]}}\n", r"colours.inks.red: expected \{lab"),
        ("colours: {white: [1, 2, 3], inks: {red: {lab: [1, 2, 3], hue: 4}}}\n", r"colours.inks.red: unknown key 'hue'"),
        ("colours: {white: [1, 2, 3], inks: {red: {lab: [120, 2, 3]}}}\n", r"colours.inks.red.lab: expected \[L, a, b\]"),
        ("colours: {white: [1, 2, 3], inks: {red: {lab: [50, 2, 3], symbols: -1}}}\n", r"colours.inks.red.symbols: expected a count"),
        ("colours: {white: [1, 2, 3], confusable: [[red, pink, 3]]}\n", r"colours.confusable: expected a list of \[colour, colour, distance\]"),
        ("version: 0\n", r"version: 0 is older than any calibration this referee knows \(version 1 is the first\)"),
        ("version: '1'\n", r"version: this referee reads calibration version 1, got '1'"),
    ],
    ids=["short table", "bad point", "negative pool", "flat pool", "table outside image", "colours list", "colours key",
         "white range", "inks list", "unknown ink", "ink not mapping", "ink key", "lab range", "symbols count",
         "confusable", "older version", "version as text"],
)
def test_every_bad_value_is_named(tmp_path: Path, extra: str, message: str) -> None:
    path = tmp_path / "table.yaml"
    path.write_text(SEATS + extra)
    with pytest.raises(CalibrationError, match=message) as raised:
        load_calibration(path)
    assert str(raised.value).startswith(str(path)) and "\n" not in str(raised.value)


def test_a_guessed_seat_is_marked_in_the_file(tmp_path) -> None:
    seats = (Seat("Player 1", (400.0, 1000.0)), Seat("Player 2", (400.0, 20.0), guessed=True))
    path = tmp_path / "table.yaml"
    write_calibration(path, Calibration(seats, (1280, 1024)))
    lines = path.read_text().splitlines()
    assert '  - name: "Player 2"  # guessed: no row seen there; check it' in lines
    assert '  - name: "Player 1"' in lines
    assert load_calibration(path).seats == seats
