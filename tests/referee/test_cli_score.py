"""``referee score`` and ``referee game`` from the command line, good and bad input."""

import json
from pathlib import Path

import pytest

from referee.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

GOOD_ROUND = """\
house_rule: symbols
point_cards: [0, 9]
stopped_by: Ben
rows:
  Anna: [[4, 3, 5], [3, 2, 8], [5, 3, 7]]
  Ben:  [[4, 2, 6], [2, 1, 8], [1, 1, 2]]
"""


def write(tmp_path: Path, text: str, name: str = "round.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_score_prints_verdicts_in_words_ranking_and_points(tmp_path, capsys) -> None:
    assert main(["score", str(write(tmp_path, GOOD_ROUND))]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "Ben: 2 valid cards; card 3 has 1 shape, like card 2"
    assert out[2] == "Anna: 3 valid cards, no error"
    assert "1. Anna  3 cards, 20 symbols  -> point card 9" in out[4]


def test_score_json_follows_the_contract(tmp_path, capsys) -> None:
    assert main(["score", str(write(tmp_path, GOOD_ROUND)), "--json", "--seed", "3"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [row["player"] for row in result["rows"]] == ["Ben", "Anna"]
    assert result["rows"][0] == {
        "player": "Ben", "cards": [0, 1, 2], "valid_length": 2,
        "first_error": {"position": 2, "card": 2, "criteria": ["shapes"]},
    }
    assert result["ranking"][0] == {"player": "Anna", "place": 1, "valid_length": 3, "symbol_total": 20}
    assert result["points"] == {"Anna": 9, "Ben": 0} and result["seed"] == 3


def test_score_on_the_rulebook_examples_gives_7_2_4_1_3_5(capsys) -> None:
    assert main(["score", str(EXAMPLES / "round.yaml"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [row["valid_length"] for row in result["rows"]] == [7, 2, 4, 1, 3, 5]


@pytest.mark.parametrize(
    "text, message",
    [
        ("rows: [1, 2\n", "malformed YAML at line 2"),
        ("point_cards: [1, 2]\n", "missing key 'rows'"),
        ("rows: {Anna: [[1, 1, 1]], Ben: [[1, 1, 1]]}\nstopped_by: Cem\n", "stopped_by: unknown player 'Cem'"),
        ("rows: {Anna: [[1, 1, 1]], Ben: [[1, 1, 1], [6, 1, 9]]}\n", "rows: Ben: card 2: colours must be from 1 to 5, got 6"),
        ("rows: {Anna: [[1, 1, 1]], Ben: [[3, 1, 2]]}\n", "rows: Ben: card 1: impossible card"),
        ("rows: {Anna: [[1, 1]], Ben: [[1, 1, 1]]}\n", r"rows: Anna: card 1: a card is \[colours, shapes, symbols\]"),
        ("rows: {Anna: [[1, 1, 1]], Ben: [[1, 1, 1]]}\npoint_cards: [1, 2, 3]\n", "expected 2 point cards \\(one per player\\), got 3"),
        ("rows: {Anna: [[1, 1, 1]], Anna: [[2, 2, 2]]}\n", "'Anna' is written twice"),
        ("rows: {Anna: [[1, 1, 1]]}\n", "a round has 2 to 6 players, got 1"),
        ("rows: {Anna: [[1, 1, 1]], Ben: [[1, 1, 1]]}\nhouse_rule: colours\n", "house_rule: expected 'symbols' or 'shapes'"),
        ("rows: {Anna: [[1, 1, 1]], Ben: [[1, 1, 1]]}\npointcards: [1, 2]\n", "unknown key 'pointcards'"),
        ("- just\n- a list\n", "expected a mapping with 'rows:'"),
        ("rows: {Anna: [[1, 1, 1]], Ben: []}\n", "rows: Ben: expected a list of cards"),
    ],
    ids=["malformed", "no rows", "unknown stopper", "out of range", "impossible", "two numbers",
         "point card count", "duplicate name", "one player", "house rule", "unknown key", "not a mapping", "empty row"],
)
def test_bad_round_files_give_one_clear_line_and_status_2(tmp_path, capsys, text: str, message: str) -> None:
    path = write(tmp_path, text)
    assert main(["score", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0]
    assert pytest.importorskip("re").search(message, lines[0]), lines[0]


def test_a_missing_file_is_named(tmp_path, capsys) -> None:
    assert main(["score", str(tmp_path / "nope.yaml")]) == 2
    assert "nope.yaml: no such file" in capsys.readouterr().err


GAME = """\
players: [Anna, Ben]
rounds:
  - point_cards: [3, 9]
    rows: {Anna: [[1, 1, 2]], Ben: [[2, 1, 3], [1, 1, 1]]}
  - round2.yaml
  - point_cards: [7, 1]
    rows: {Anna: [[1, 1, 2], [2, 2, 3]], Ben: [[2, 1, 3]]}
  - point_cards: [0, 2]
    rows: {Anna: [[1, 1, 2]], Ben: [[2, 1, 3]]}
  - point_cards: [5, 4]
    rows: {Anna: [[1, 1, 9]], Ben: [[2, 1, 3]]}
"""


def test_game_prints_standings_after_each_round_and_the_winner(tmp_path, capsys) -> None:
    write(tmp_path, "point_cards: [1, 6]\nrows: {Ben: [[1, 1, 1]], Anna: [[1, 1, 2]]}\n", "round2.yaml")
    assert main(["game", str(write(tmp_path, GAME, "game.yaml")), "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert out.count("Standings after round") == 5
    # Anna: 3 + 6 + 7 + 0 + 5 = 21; Ben: 9 + 1 + 1 + 2 + 4 = 17
    assert out.strip().splitlines()[-1] == "Winner: Anna with 21 points"


def test_game_json(tmp_path, capsys) -> None:
    write(tmp_path, "point_cards: [1, 6]\nrows: {Ben: [[1, 1, 1]], Anna: [[1, 1, 2]]}\n", "round2.yaml")
    assert main(["game", str(write(tmp_path, GAME, "game.yaml")), "--json", "--seed", "0"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["winners"] == ["Anna"] and len(result["rounds"]) == 5
    assert result["standings"][0] == {"player": "Anna", "points": 21, "place": 1}


@pytest.mark.parametrize(
    "text, message",
    [
        ("rounds: []\n", "'rounds' must be a list of 1 to 5 rounds"),
        ("rounds:\n" + "  - {point_cards: [1, 2], rows: {A: [[1, 1, 1]], B: [[1, 1, 1]]}}\n" * 6, "a game has 5 rounds, got 6"),
        ("players: [A, B]\nrounds:\n  - {point_cards: [1, 2], rows: {A: [[1, 1, 1]], C: [[1, 1, 1]]}}\n", "round 1: unknown player 'C'"),
        ("players: [A, A]\nrounds:\n  - {point_cards: [1, 2], rows: {A: [[1, 1, 1]], B: [[1, 1, 1]]}}\n", "'A' is listed twice"),
        ("rounds:\n  - {rows: {A: [[1, 1, 1]], B: [[1, 1, 1]]}}\n", "round 1: missing key 'point_cards'"),
        ("rounds:\n  - missing.yaml\n", "round 1: .*missing.yaml: no such file"),
        ("rounds:\n  - {point_cards: [1, 2], rows: {A: [[1, 1, 1]], B: [[1, 9, 9]]}}\n", "round 1: rows: B: card 1: shapes must be from 1 to 5"),
    ],
    ids=["no rounds", "six rounds", "unknown player", "duplicate player", "no point cards", "missing round file", "bad card"],
)
def test_bad_game_files_give_one_clear_line_and_status_2(tmp_path, capsys, text: str, message: str) -> None:
    assert main(["game", str(write(tmp_path, text, "game.yaml"))]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1
    assert pytest.importorskip("re").search(message, lines[0]), lines[0]


def test_every_subcommand_explains_itself(capsys) -> None:
    for command in (["--help"], ["score", "--help"], ["game", "--help"]):
        with pytest.raises(SystemExit) as exit_:
            main(command)
        assert exit_.value.code == 0
    assert "ROUND.yaml" in capsys.readouterr().out
