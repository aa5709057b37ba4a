"""Past games for the history page, read from the games database without ever writing to it.

The database is the one given on the command line; a request chooses nothing but
how many games (a number). Sources are shown without folders or credentials: a
page on the network need not learn where the videos lie or a camera's password.
"""

from __future__ import annotations

import json
import sqlite3
import urllib.parse
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path, PurePath
from typing import Any

from referee.game import standings

__all__ = ["HistoryError", "read_games", "public_source"]


class HistoryError(ValueError):
    """The games database cannot be read."""


def public_source(source: str) -> str:
    """A game's source as the page may show it: the kind, and a file's name or a stream's host only.

    >>> public_source("video /home/ann/games/table.mp4")
    'video table.mp4'
    >>> public_source("url rtsp://admin:secret@192.168.1.20:554/live")
    'url 192.168.1.20'
    >>> public_source("camera 0")
    'camera 0'
    """
    kind, _, rest = source.partition(" ")
    if kind == "video":
        return f"video {PurePath(rest).name}"
    if kind == "url":
        host = urllib.parse.urlsplit(rest).hostname or "?"
        return f"url {host}"
    if kind == "camera" and rest.isdigit():
        return source
    return kind


def read_games(path: Path, limit: int = 50) -> list[dict[str, Any]]:
    """The newest ``limit`` games: when, source, players, finished, points per round, standings."""
    if not path.is_file():
        raise HistoryError(f"{path}: no games database")
    uri = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=ro"
    try:
        with closing(sqlite3.connect(uri, uri=True, timeout=2.0)) as db:
            rows = db.execute(
                "SELECT id, started_ms, players, source, finished FROM games ORDER BY started_ms DESC, id DESC LIMIT ?",
                (max(0, int(limit)),),
            ).fetchall()
            return [_game(db, *row) for row in rows]
    except (sqlite3.Error, ValueError, KeyError, TypeError) as error:
        raise HistoryError(f"{path}: cannot read the games ({error})") from None


def _game(db: sqlite3.Connection, game_id: int, started_ms: int, players_json: str, source: str,
          finished: int) -> dict[str, Any]:
    players = [str(p) for p in json.loads(players_json)]
    bodies = db.execute("SELECT body FROM events WHERE game_id = ? AND type = ? ORDER BY seq",
                        (game_id, "round_scored")).fetchall()
    rounds: dict[int, dict[str, Any]] = {}
    for (body,) in bodies:
        event = json.loads(body)  # a round scored again (point cards given later) replaces the first scoring
        rounds[int(event["round"])] = {
            "round": int(event["round"]),
            "points": {str(k): int(v) for k, v in (event.get("points") or {}).items()},
            "ranking": [{"player": r["player"], "place": r["place"], "valid_length": r["valid_length"]}
                        for r in event.get("ranking", [])],
        }
    ordered = [rounds[number] for number in sorted(rounds)]
    table = standings(players, [{p: v for p, v in r["points"].items() if p in players} for r in ordered])
    return {
        "game": game_id,
        "started": datetime.fromtimestamp(started_ms / 1000, timezone.utc).isoformat(timespec="seconds"),
        "source": public_source(source),
        "players": players,
        "finished": bool(finished),
        "rounds": ordered,
        "standings": [s.as_dict() for s in table],
    }
