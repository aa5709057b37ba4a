"""``referee history``: the games kept by ``referee live``, newest first, with their standings."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

from referee.game import ROUNDS_SRGE, standings
from referee.live.store import GameStore, StoredGame, StoreError, default_db_path

__all__ = ["add_parsers", "game_summary"]


def add_parsers(commands: argparse._SubParsersAction) -> None:
    history = commands.add_parser(
        "history",
        help="list the games refereed live, with their standings",
        description="List the games kept by 'referee live', newest first: when, from what source, rounds played, standings.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    history.add_argument("--db", metavar="FILE", type=Path, default=None,
                         help="the games database (default: $XDG_DATA_HOME/table-referee/games.db)")
    history.add_argument("--json", action="store_true", help="print one JSON object per game")
    history.set_defaults(run=_run_history)


def game_summary(game: StoredGame) -> dict[str, object]:
    """A stored game in brief: rounds scored (the last scoring of each counts) and the standings."""
    points: dict[int, dict[str, int]] = {}
    for event in game.events:
        if event.type == "round_scored":
            points[int(event.data["round"])] = dict(event.data.get("points") or {})
    table = standings(game.players, [points[r] for r in sorted(points)])
    return {
        "game": game.id,
        "started": datetime.fromtimestamp(game.started_ms / 1000, timezone.utc).isoformat(timespec="seconds"),
        "source": game.source,
        "players": list(game.players),
        "rounds_scored": len(points),
        "finished": game.finished,
        "standings": [s.as_dict() for s in table],
    }


def _run_history(args: argparse.Namespace) -> int:
    path = args.db or default_db_path()
    if not path.exists():
        print(f"referee history: {path}: no games database yet (play one with 'referee live')", file=sys.stderr)
        return 0 if args.db is None else 2
    try:
        with GameStore(path) as store:
            games = store.games()
    except StoreError as error:
        print(f"referee history: {error}", file=sys.stderr)
        return 2
    for game in games:
        summary = game_summary(game)
        if args.json:
            print(json.dumps(summary))
            continue
        state = "finished" if game.finished else f"unfinished ({summary['rounds_scored']} of {ROUNDS_SRGE} rounds)"
        print(f"game {game.id}  {summary['started']}  {game.source}  {state}")
        for s in summary["standings"]:
            print(f"  {s['place']}. {s['player']}: {s['points']} points")
    if not games:
        print(f"referee history: {path}: no games yet", file=sys.stderr)
    return 0
