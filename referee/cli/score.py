"""``referee score`` and ``referee game``: Schwarz Rot Gelb Extreme refereed from rows typed by hand."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from referee.game import ROUNDS_SRGE, Standing, standings, winners
from referee.round import RoundResult, score_round
from referee.roundfile import InputFileError, load_game, load_round
from referee.rows import describe_error

__all__ = ["add_parsers", "result_json", "result_lines", "game_lines"]

_ROUND_EXAMPLE = """\
example ROUND.yaml:
  house_rule: symbols          # or: shapes (the review's tie-break)
  point_cards: [0, 1, 3, 3, 7, 9]
  stopped_by: Anna             # optional: who called "Stopp!"
  rows:                        # each card: [colours, shapes, symbols], left to right
    Anna: [[4, 3, 5], [3, 2, 8], [5, 3, 7]]
    Ben:  [[4, 2, 6], [2, 1, 8], [1, 1, 2]]
"""

_GAME_EXAMPLE = """\
example GAME.yaml (rounds inline, or as paths of round files):
  players: [Anna, Ben]         # optional: seat order (default: round 1's rows)
  house_rule: symbols
  rounds:
    - point_cards: [3, 9]
      rows: {Anna: [[1, 1, 2]], Ben: [[2, 1, 3], [1, 1, 1]]}
    - round2.yaml
"""


def add_parsers(commands: argparse._SubParsersAction) -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    score = commands.add_parser(
        "score",
        help="referee one Schwarz Rot Gelb Extreme round entered by hand",
        description="Check every row of a round typed into a YAML file, rank the players and deal the point cards.",
        epilog=_ROUND_EXAMPLE,
        formatter_class=formatter,
    )
    score.add_argument("round_file", metavar="ROUND.yaml", type=Path, help="the round (see the example below)")
    score.add_argument("--json", action="store_true", help="print one JSON object (the check contract's rows and ranking, plus points)")
    score.add_argument("--seed", type=_seed, default=None, help="seed for dealing tied point cards (default: the file's seed:, else random and reported)")
    score.set_defaults(run=_run_score)

    game = commands.add_parser(
        "game",
        help=f"referee a whole Schwarz Rot Gelb Extreme game ({ROUNDS_SRGE} rounds) entered by hand",
        description="Score each round of a game file and print the standings after each round and the winner.",
        epilog=_GAME_EXAMPLE,
        formatter_class=formatter,
    )
    game.add_argument("game_file", metavar="GAME.yaml", type=Path, help="the game (see the example below)")
    game.add_argument("--json", action="store_true", help="print one JSON object with every round and the standings")
    game.add_argument("--seed", type=_seed, default=None, help="seed for round 1's deal of tied point cards; round k uses seed+k-1 (default: random, reported)")
    game.set_defaults(run=_run_game)


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
    return value


def _run_score(args: argparse.Namespace) -> int:
    try:
        round_, file_seed = load_round(args.round_file)
    except (InputFileError, ValueError) as error:
        print(f"referee score: {error}", file=sys.stderr)
        return 2
    result = score_round(round_, args.seed if args.seed is not None else file_seed)
    if args.json:
        print(json.dumps(result_json(result)))
    else:
        print("\n".join(result_lines(result)))
    return 0


def _run_game(args: argparse.Namespace) -> int:
    try:
        game = load_game(args.game_file)
    except (InputFileError, ValueError) as error:
        print(f"referee game: {error}", file=sys.stderr)
        return 2
    results: list[RoundResult] = []
    tables: list[list[Standing]] = []
    for number, (round_, file_seed) in enumerate(zip(game.rounds, game.seeds), start=1):
        seed = args.seed + number - 1 if args.seed is not None else file_seed
        results.append(score_round(round_, seed))
        tables.append(standings(game.players, [r.points for r in results]))
    finished = len(results) == ROUNDS_SRGE
    if args.json:
        print(json.dumps({
            "rounds": [result_json(r) for r in results],
            "standings": [s.as_dict() for s in tables[-1]],
            "finished": finished,
            "winners": winners(tables[-1]) if finished else [],
        }))
        return 0
    rounds = [(f"Round {n} of {ROUNDS_SRGE}", result_lines(r)) for n, r in enumerate(results, start=1)]
    print("\n".join(game_lines(rounds, tables, ROUNDS_SRGE, shared=" and the same point cards")))
    return 0


def game_lines(rounds: list[tuple[str, list[str]]], tables: list[list[Standing]], total: int, shared: str = "") -> list[str]:
    """A game in words: each round (its heading and lines) with the standings after it, then
    the winner, or how far the game has got. ``shared`` ends the line of a shared win."""
    lines = []
    for number, ((heading, round_lines), table) in enumerate(zip(rounds, tables), start=1):
        lines += [f"== {heading} ==", *round_lines, f"Standings after round {number}:", *_standing_lines(table), ""]
    if len(rounds) < total:
        return [*lines, f"Game in progress: {len(rounds)} of {total} rounds played"]
    best = winners(tables[-1])
    if len(best) == 1:
        return [*lines, f"Winner: {best[0]} with {tables[-1][0].points} points"]
    return [*lines, f"Shared win: {' and '.join(best)} with {tables[-1][0].points} points{shared}"]


def result_json(result: RoundResult) -> dict[str, Any]:
    """A scored round as the ``check`` contract's ``rows`` and ``ranking``, plus ``points``.

    Cards are numbered by their 0-based position in the row, as no detected cards exist.
    """
    rows = []
    for player in result.order:
        verdict = result.verdicts[player]
        error = verdict.first_error
        rows.append({
            "player": player,
            "cards": list(range(len(result.round.rows[player]))),
            "valid_length": verdict.valid_length,
            "first_error": None if error is None else {
                "position": error.position, "card": error.position, "criteria": list(error.criteria),
            },
        })
    out: dict[str, Any] = {
        "rows": rows,
        "ranking": [rank.as_dict() for rank in result.ranking],
        "house_rule": result.round.house_rule.value,
    }
    if result.points:
        out["points"] = dict(result.points)
        out["seed"] = result.seed
    return out


def result_lines(result: RoundResult) -> list[str]:
    """A scored round in words a player understands."""
    round_ = result.round
    lines = []
    if round_.stopped_by:
        lines.append(f'{round_.stopped_by} called "Stopp!"; checking starts with {round_.stopped_by}.')
    for player in result.order:
        verdict = result.verdicts[player]
        cards = round_.rows[player]
        count = _count(verdict.valid_length, "valid card")
        if verdict.first_error is None:
            lines.append(f"{player}: {count}, no error")
        else:
            lines.append(f"{player}: {count}; {describe_error(cards, verdict.first_error)}")
    tie_name = round_.house_rule.value
    lines.append(f"Ranking (ties broken by {tie_name} on valid cards):")
    width = max(len(rank.player) for rank in result.ranking)
    for rank in result.ranking:
        won = f"  -> point card {result.points[rank.player]}" if result.points else ""
        lines.append(
            f"  {rank.place}. {rank.player:<{width}}  {_count(rank.valid_length, 'card')}, {rank.tie_total} {tie_name}{won}"
        )
    places = [rank.place for rank in result.ranking]
    if result.points and len(set(places)) < len(places):
        lines.append(f"Tied players' point cards were shuffled with seed {result.seed} (replay: --seed {result.seed}).")
    return lines


def _standing_lines(table: list[Standing]) -> list[str]:
    width = max(len(s.player) for s in table)
    return [
        f"  {s.place}. {s.player:<{width}}  {s.points:>3} points"
        + (f"  (cards: {', '.join(map(str, sorted(s.cards, reverse=True)))})" if s.cards else "")
        for s in table
    ]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
