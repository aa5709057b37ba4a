"""``referee schoten score`` and ``referee schoten game``: Scharfe Schoten refereed from tricks typed by hand."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from referee.cli.score import game_lines
from referee.game import standings, winners
from referee.roundfile import InputFileError
from referee.schoten import Colour, SchotenInputError
from referee.schoten_round import RoundResult, SchotenRound, play_round, rounds_in_game
from referee.schotenfile import load_schoten_game, load_schoten_round

__all__ = ["add_parsers", "result_json", "result_lines"]

_ROUND_EXAMPLE = """\
example ROUND.yaml (cards: colour letter r/g/b/y and number 1-12):
  players: [Anna, Ben, Cem, Dora]   # seat order; play passes down the list
  starts: Anna                      # optional: who plays the first card
  trumps: g10 b9 r2 y1              # each colour card's number card
  predictions:                      # most, then fewest
    Anna: red yellow
    Ben: black green
    Cem: green red
    Dora: yellow black
  hands:                            # optional, per player: checks following suit
    Anna: r9 r3 ...
  tricks:                           # in play order from the leader; +c = cupboard pick
    - r9 b8 r11 r2 +y
    - Dora: g4 g7 g1 b3 +r          # naming the leader is optional, and checked
"""

_GAME_EXAMPLE = """\
example GAME.yaml (one round per player; rounds inline or as round files):
  players: [Anna, Ben, Cem]         # seat order
  starts: Anna                      # round 1; then one seat to the left each round
  rounds:
    - trumps: g10 b9 r2 y1
      predictions: {Anna: red yellow, Ben: black green, Cem: green red}
      tricks: [r9 b8 r11 +y, ...]
    - round2.yaml
"""


def add_parsers(commands: argparse._SubParsersAction) -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    schoten = commands.add_parser(
        "schoten",
        help="referee Scharfe Schoten rounds and games entered by hand",
        description="Referee the trick-taking game Scharfe Schoten from tricks typed into YAML files.",
    )
    sub = schoten.add_subparsers(dest="schoten_command", metavar="COMMAND", required=True)
    score = sub.add_parser(
        "score",
        help="referee one round: trick winners, rules broken, collections, scores",
        description="Play a round's tricks through: who takes each trick and why, every player who did not "
        "follow suit although they could have, each collection by colour, and the scores.",
        epilog=_ROUND_EXAMPLE,
        formatter_class=formatter,
    )
    score.add_argument("round_file", metavar="ROUND.yaml", type=Path, help="the round (see the example below)")
    score.add_argument("--json", action="store_true", help="print one JSON object instead of lines of text")
    score.set_defaults(run=_run_score)

    game = sub.add_parser(
        "game",
        help="referee a whole game: every round, the standings after each, and the winner",
        description="Referee each round of a game file and print the standings after each round and the winner.",
        epilog=_GAME_EXAMPLE,
        formatter_class=formatter,
    )
    game.add_argument("game_file", metavar="GAME.yaml", type=Path, help="the game (see the example below)")
    game.add_argument("--json", action="store_true", help="print one JSON object with every round and the standings")
    game.set_defaults(run=_run_game)


def _run_score(args: argparse.Namespace) -> int:
    try:
        round_ = load_schoten_round(args.round_file)
        result = _play(round_, str(args.round_file))
    except (InputFileError, SchotenInputError) as error:
        print(f"referee schoten score: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result_json(result)))
    else:
        print("\n".join(result_lines(result)))
    return 0


def _run_game(args: argparse.Namespace) -> int:
    try:
        game = load_schoten_game(args.game_file)
        results = []
        for number, round_ in enumerate(game.rounds, start=1):
            label = f"{args.game_file}: round {number}"
            result = _play(round_, label)
            if not result.is_complete:
                raise InputFileError(
                    f"{label}: {len(result.tricks)} of {round_.hand_size} tricks entered; "
                    "a game's rounds must be finished (see `referee schoten score` for a round in progress)"
                )
            results.append(result)
    except (InputFileError, SchotenInputError) as error:
        print(f"referee schoten game: {error}", file=sys.stderr)
        return 2
    total = rounds_in_game(len(game.players))
    tables = [standings(game.players, [r.points for r in results[:n]], card_tiebreak=False) for n in range(1, len(results) + 1)]
    finished = len(results) == total
    if args.json:
        print(json.dumps({
            "players": list(game.players),
            "rounds": [result_json(r) for r in results],
            "standings": [[s.as_dict() for s in table] for table in tables],
            "finished": finished,
            "winners": winners(tables[-1]) if finished else [],
        }))
        return 0
    rounds = [(f"Round {n} of {total}: {r.round.first} starts", result_lines(r)) for n, r in enumerate(results, start=1)]
    print("\n".join(game_lines(rounds, tables, total)))
    return 0


def _play(round_: SchotenRound, where: str) -> RoundResult:
    try:
        return play_round(round_)
    except SchotenInputError as error:
        raise type(error)(f"{where}: {error}") from None


def result_json(result: RoundResult) -> dict[str, Any]:
    """A refereed round as one JSON-ready object; cards as short words (``r9``)."""
    round_ = result.round
    return {
        "players": list(round_.players),
        "starts": round_.first,
        "super_trumps": [card.short for card in round_.trumps.super_trumps],
        "tricks": [
            {
                "trick": t.number,
                "plays": [{"player": p.player, "card": p.card.short} for p in t.plays],
                "winner": t.winner,
                "card": t.card.short,
                "reason": t.reason.value,
                "cupboard_pick": None if t.pick is None else t.pick.value,
            }
            for t in result.tricks
        ],
        "violations": [v.as_dict() for v in result.violations],
        "collections": {
            player: {colour.value: count for colour, count in collection.counts().items()}
            for player, collection in result.collections.items()
        },
        "complete": result.is_complete,
        "scores": {player: score.as_dict() for player, score in result.scores.items()},
    }


def result_lines(result: RoundResult) -> list[str]:
    """A refereed round in words a player understands."""
    round_ = result.round
    trumps = round_.trumps
    lines = [
        f"Super trumps, highest first: {', '.join(map(str, trumps.super_trumps))}",
        f"Colours, highest first: {', '.join(c.value for c in trumps.colours)}",
        f"{round_.first} starts.",
    ]
    for trick in result.tricks:
        lines.append(trick.describe())
        lines.append("  played: " + ", ".join(f"{p.player} {p.card.short}" for p in trick.plays))
    if result.violations:
        lines.append("Rules broken:")
        lines.extend(f"  {v.describe()}" for v in result.violations)
    else:
        lines.append("Rules broken: none")
    lines.append("Collections:")
    width = max(len(p) for p in round_.players)
    for player in round_.players:
        counts = result.collections[player].counts()
        text = ", ".join(f"{c.value} {counts[c]}" for c in Colour)
        lines.append(f"  {player:<{width}}  {text}  ({sum(counts.values())} cards)")
    if not result.is_complete:
        lines.append(
            f"Round in progress: {len(result.tricks)} of {round_.hand_size} tricks entered; the scores come with the last trick."
        )
        return lines
    lines.append("Scores:")
    for player in round_.players:
        score = result.scores[player]
        prediction = round_.predictions[player]
        parts = [
            f"most {prediction.most.value} {score.most.value} ({score.most.points})",
            f"fewest {prediction.fewest.value} {score.fewest.value} ({score.fewest.points})",
        ]
        if score.difference:
            parts.append(f"difference {score.difference}")
        lines.append(f"  {player:<{width}}  {score.total:>2} points: {'; '.join(parts)}")
    return lines
