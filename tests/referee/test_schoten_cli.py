"""``referee schoten score`` and ``referee schoten game``: the YAML files, the output, and bad input."""

import json
from pathlib import Path

import pytest

from referee.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# The first two tricks of examples/schoten-round.yaml, with every hand: a round in progress.
BASE = """\
version: 1
players: [Anna, Ben, Cem, Dora]
trumps: g10 b9 r2 y1
predictions:
  Anna: black red
  Ben: green yellow
  Cem: red green
  Dora: red green
hands:
  Anna: r4 r9 g1 g2 g5 g8 g12 b11 b12 y1
  Ben:  g9 g10 g11 b2 b8 b9 y4 y6 y8 y12
  Cem:  r6 r7 r10 r11 g4 b3 b4 y3 y5 y10
  Dora: r2 r3 r5 g7 b1 b7 b10 y7 y9 y11
tricks:
  - r9 b8 r11 r2 +b
  - y9 y1 y12 y10 +y
"""


def write(tmp_path: Path, text: str, name: str = "round.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_score_prints_each_tricks_winner_and_why(capsys) -> None:
    status, out, err = run(capsys, "schoten", "score", str(EXAMPLES / "schoten-round.yaml"))
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert "trick 1: Dora wins with the super trump red 2; takes a black card from the spice cupboard" in lines
    assert "  played: Anna r9, Ben b8, Cem r11, Dora r2" in lines
    assert any(line.startswith("trick 7: Ben wins with the super trump black 9") for line in lines)
    assert any(line.startswith("trick 4: Anna wins with green 8: no super trump was played") for line in lines)


def test_score_prints_every_rule_broken_each_collection_and_the_scores(capsys) -> None:
    status, out, _ = run(capsys, "schoten", "score", str(EXAMPLES / "schoten-round.yaml"))
    lines = out.splitlines()
    broken = lines.index("Rules broken:")
    assert lines[broken + 1] == (
        "  trick 4: Cem did not follow suit: played black 4 to yellow led, but held yellow 5 (played in trick 8)"
    )
    assert "  Dora  red 3, green 0, black 2, yellow 0  (5 cards)" in lines
    assert "  Cem    6 points: most red right but tied (3); fewest green right but tied (3)" in lines
    assert "  Ben   16 points: most green right (5); fewest yellow right (5); difference 6" in lines


def test_score_json(capsys) -> None:
    status, out, _ = run(capsys, "schoten", "score", str(EXAMPLES / "schoten-round.yaml"), "--json")
    result = json.loads(out)
    assert status == 0 and result["complete"] is True
    assert result["super_trumps"] == ["g10", "b9", "r2", "y1"]
    assert result["tricks"][0] == {
        "trick": 1,
        "plays": [{"player": p, "card": c} for p, c in zip(["Anna", "Ben", "Cem", "Dora"], ["r9", "b8", "r11", "r2"])],
        "winner": "Dora", "card": "r2", "reason": "super trump", "cupboard_pick": "black",
    }
    assert result["violations"] == [
        {"trick": 4, "player": "Cem", "card": "b4", "rule": "follow suit", "led": "yellow", "proof": "y5", "proof_trick": 8}
    ]
    assert {p: s["total"] for p, s in result["scores"].items()} == {"Anna": 5, "Ben": 16, "Cem": 6, "Dora": 11}
    assert sum(sum(c.values()) for c in result["collections"].values()) == 48


def test_a_round_in_progress_has_no_scores_yet(tmp_path, capsys) -> None:
    status, out, _ = run(capsys, "schoten", "score", str(write(tmp_path, BASE)))
    assert status == 0
    assert out.splitlines()[-1] == "Round in progress: 2 of 10 tricks entered; the scores come with the last trick."


@pytest.mark.parametrize(
    "old, new",
    [
        ("  - r9 b8 r11 r2 +b\n  - y9 y1 y12 y10 +y\n", "  - [r9, b8, r11, r2, +b]\n  - [y9, y1, y12, y10, +y]\n"),
        ("  - y9 y1 y12 y10 +y\n", "  - Dora: y9 y1 y12 y10 +y\n"),
        ("  - y9 y1 y12 y10 +y\n", "  - {Dora: y9, Anna: y1, Ben: y12, Cem: y10, pick: yellow}\n"),
        ("  - r9 b8 r11 r2 +b\n", "  - R9, B8, R11, R2, +black\n"),
        ("trumps: g10 b9 r2 y1", "trumps: {red: 2, green: 10, yellow: 1, black: 9}"),
        ("  Anna: black red\n", "  Anna: [black, red]\n"),
        ("  Anna: black red\n", "  Anna: {most: b, fewest: r}\n"),
        ("players: [Anna, Ben, Cem, Dora]\n", "players: [Anna, Ben, Cem, Dora]\nstarts: Anna\n"),
    ],
    ids=["tricks as lists", "naming the leader", "every player's card", "commas and capitals",
         "trumps as colour: number", "prediction as a list", "prediction as most/fewest", "starts"],
)
def test_the_ways_to_write_a_round_mean_the_same(tmp_path, capsys, old: str, new: str) -> None:
    assert old in BASE
    _, expected, _ = run(capsys, "schoten", "score", str(write(tmp_path, BASE, "a.yaml")), "--json")
    status, out, err = run(capsys, "schoten", "score", str(write(tmp_path, BASE.replace(old, new), "b.yaml")), "--json")
    assert (status, err) == (0, "")
    assert json.loads(out) == json.loads(expected)


def test_game_prints_standings_after_each_round_and_the_winner(capsys) -> None:
    status, out, err = run(capsys, "schoten", "game", str(EXAMPLES / "schoten-game.yaml"))
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert [line for line in lines if line.startswith("== Round")] == [
        "== Round 1 of 3: Anna starts ==", "== Round 2 of 3: Ben starts ==", "== Round 3 of 3: Cem starts ==",
    ]
    after_1 = lines.index("Standings after round 1:")
    assert lines[after_1 + 1: after_1 + 4] == ["  1. Ben    14 points", "  2. Cem    12 points", "  3. Anna   11 points"]
    assert lines[-1] == "Winner: Ben with 46 points"


def test_game_json(capsys) -> None:
    status, out, _ = run(capsys, "schoten", "game", str(EXAMPLES / "schoten-game.yaml"), "--json")
    result = json.loads(out)
    assert status == 0 and result["finished"] and result["winners"] == ["Ben"]
    assert [r["starts"] for r in result["rounds"]] == ["Anna", "Ben", "Cem"]
    assert [s["points"] for s in result["standings"][-1]] == [46, 27, 23]


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("  - y9 y1 y12 y10 +y", "  - y9 r13 y12 y10 +y", "round.yaml: trick 2: Anna: no such spice card 'r13': numbers run from 1 to 12"),
        ("  - y9 y1 y12 y10 +y", "  - Dora: y9 y1 x12 y10 +y", "round.yaml: trick 2: Ben: no such spice card 'x12'"),
        ("  Ben:  g9 g10", "  Ben:  g9 g99", "round.yaml: hands: Ben: card 2: no such spice card 'g99'"),
        ("  - y9 y1 y12 y10 +y", "  - y9 r9 y12 y10 +y", r"trick 2: Anna plays red 9 (r9), which Anna already played in trick 1"),
        ("  - y9 y1 y12 y10 +y", "  - Cem: y9 y1 y12 y10 +y", r"trick 2: Cem plays yellow 9 (y9) out of turn: Dora leads, having won trick 1"),
        ("  Anna: r4 r9 g1", "  Anna: r9 g1", r"Anna's hand holds 9 cards, expected 10 (4 players get 10 cards each)"),
        ("  Ben: green yellow", "  Ben: green green", "predictions: Ben: green is predicted twice, as most and as fewest"),
        ("  Ben: green yellow", "  Ben: green", "predictions: Ben: expected two colours, most then fewest"),
        ("  - y9 y1 y12 y10 +y\n", "  - y9 y1 y12 y10 +y\n  - g2 g11 g4 g7 +y\n",
         "trick 3: Ben takes a yellow card from the spice cupboard, but no yellow card is left in it"),
        ("  - r9 b8 r11 r2 +b", "  - r9 b6 r11 r2 +b", "trick 1: Ben plays black 6 (b6), which is not in Ben's hand"),
        ("  - r9 b8 r11 r2 +b", "  - r9 b8 r11 +b", "trick 1: expected 4 cards, one per player from Anna, got 3 (r9 b8 r11); Dora has not played"),
        ("  - r9 b8 r11 r2 +b", "  - r9 b8 r11 r2 +b +r", "trick 1: the winner takes one cupboard card, got a second pick '+r'"),
        ("  - r9 b8 r11 r2 +b", "  - r9 b8 r11 r2 +blue", "trick 1: cupboard pick '+blue': no such colour 'blue'"),
        ("trumps: g10 b9 r2 y1", "trumps: g10 b9 r2 b1", "trumps: black has two number cards (b9, b1)"),
        ("trumps: g10 b9 r2 y1", "trumps: {green: 10, black: 9, red: 2, yellow: 13}", "trumps: yellow: expected a number card from 1 to 12, got 13"),
        ("players: [Anna, Ben, Cem, Dora]", "players: [Anna, Ben, Cem, Dora, Emil]", "players: Scharfe Schoten is played by 3 or 4 players, got 5"),
        ("players: [Anna, Ben, Cem, Dora]", "players: [Anna, Ben, Cem, Anna]", "players: 'Anna' is listed twice"),
        ("version: 1\n", "version: 1\ntrump: g10\n", "unknown key 'trump' (expected one of version, players, starts, trumps"),
        ("version: 1\n", "version: 2\n", "version: this referee reads version 1, got 2"),
        ("  Anna: black red", "  Anna: {most: black, least: red}", "predictions: Anna: unknown key 'least' (expected most, fewest)"),
        ("  Anna: black red\n", "", "Anna has made no prediction (most, fewest)"),
        ("  Anna: black red\n", "  Anna: black red\n  Eve: black red\n", "prediction for 'Eve', who is not a player"),
        ("trumps: g10 b9 r2 y1\n", "", "missing key 'trumps'"),
        ("tricks:\n", "tricks: [\n", "malformed YAML at line"),
        ("version: 1\n", "version: 1\nversion: 1\n", "'version' is written twice"),
    ],
    ids=[
        "a card that does not exist: the player follows from the turns",
        "a card that does not exist: the player follows from the named leader",
        "a card that does not exist in a hand",
        "a card played twice",
        "a player playing out of turn",
        "a wrong hand size",
        "predictions of the same colour twice",
        "one prediction only",
        "a cupboard pick from an empty colour",
        "a card not in the player's hand",
        "a trick short of a card",
        "two cupboard picks",
        "a cupboard pick of no colour",
        "trumps: a colour twice",
        "trumps: number card 13",
        "5 players",
        "a player listed twice",
        "an unknown key",
        "an unknown version",
        "an unknown key in a prediction",
        "a missing prediction",
        "a prediction for someone who does not play",
        "no trumps",
        "malformed YAML",
        "a key written twice",
    ],
)
def test_bad_round_input_is_one_clear_line_and_exit_status_2(tmp_path, capsys, old: str, new: str, message: str) -> None:
    assert old in BASE
    path = write(tmp_path, BASE.replace(old, new, 1))
    status, out, err = run(capsys, "schoten", "score", str(path))
    assert status == 2 and out == ""
    assert err.startswith(f"referee schoten score: {path}")
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def _inline_round(extra: str = "") -> str:
    """BASE's round as an item of a game's ``rounds:`` list."""
    lines = (extra + BASE[BASE.index("trumps:"):]).splitlines()
    return "".join(("  - " if i == 0 else "    ") + line + "\n" for i, line in enumerate(lines))


def _game(*rounds: str, players: str = "[Anna, Ben, Cem, Dora]") -> str:
    return f"players: {players}\nrounds:\n" + "".join(rounds)


@pytest.mark.parametrize(
    "text, message",
    [
        (_game(*[_inline_round()] * 5), "rounds: a game of 4 players has 4 rounds (one per player), got 5"),
        (_game(_inline_round()), "game.yaml: round 1: 2 of 10 tricks entered; a game's rounds must be finished"),
        (_game(_inline_round("starts: Ben\n")),
         "round 1: starts: Ben cannot start this round: the starting player moves one seat to the left each round, so Anna starts it"),
        (_game(_inline_round("players: [Ben, Anna, Cem, Dora]\n")),
         "round 1: players: Ben, Anna, Cem, Dora differs from the game's players (Anna, Ben, Cem, Dora)"),
        (_game("  - missing.yaml\n"), "round 1: "),
        (_game(_inline_round(), players="[Anna, Ben]"), "players: Scharfe Schoten is played by 3 or 4 players, got 2"),
        ("players: [Anna, Ben, Cem]\nround: []\n", "unknown key 'round' (expected one of version, players, starts, rounds)"),
        ("players: [Anna, Ben, Cem]\nstarts: Eve\nrounds: []\n", "starts: 'Eve' is not a player"),
        ("players: [Anna, Ben, Cem]\nrounds: []\n", "rounds: expected a list of 1 to 3 rounds"),
    ],
    ids=["more rounds than players", "an unfinished round", "the wrong starting player",
         "other players", "a missing round file", "2 players", "an unknown key", "an unknown starter", "no rounds"],
)
def test_bad_game_input_is_one_clear_line_and_exit_status_2(tmp_path, capsys, text: str, message: str) -> None:
    path = write(tmp_path, text, "game.yaml")
    status, out, err = run(capsys, "schoten", "game", str(path))
    assert status == 2 and out == ""
    assert err.startswith(f"referee schoten game: {path}")
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_missing_file_is_one_clear_line(tmp_path, capsys) -> None:
    status, _, err = run(capsys, "schoten", "score", str(tmp_path / "nope.yaml"))
    assert status == 2 and err == f"referee schoten score: {tmp_path / 'nope.yaml'}: no such file\n"


def test_a_game_file_given_to_score_says_so(capsys) -> None:
    path = EXAMPLES / "schoten-game.yaml"
    status, _, err = run(capsys, "schoten", "score", str(path))
    assert status == 2 and err == f"referee schoten score: {path}: this is a game file (it has 'rounds:'); run `referee schoten game {path}`\n"


def test_schoten_without_a_command_is_a_usage_error(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["schoten"])
    assert stop.value.code == 2
    assert "usage: referee schoten" in capsys.readouterr().err
