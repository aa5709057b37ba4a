"""Where live games are kept: an SQLite file in WAL mode, one row per event, committed at once.

A crash, a closed lid or a pulled plug loses at most the frame being processed:
every event is committed before the next frame is read.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from referee.live.events import Event

__all__ = ["GameStore", "StoredGame", "StoreError", "default_db_path"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    started_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    players TEXT NOT NULL,
    source TEXT NOT NULL,
    settings TEXT NOT NULL DEFAULT '{}',
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    wall_ms INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


class StoreError(ValueError):
    """The games database cannot be opened or is not one of ours."""


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/table-referee/games.db``, else ``~/.local/share/table-referee/games.db``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "table-referee" / "games.db"


@dataclass(frozen=True)
class StoredGame:
    """A game as kept: who played, from what source, its events so far, finished or not."""

    id: int
    started_ms: int
    updated_ms: int
    players: tuple[str, ...]
    source: str
    settings: dict[str, Any]
    finished: bool
    events: tuple[Event, ...]


def _now_ms() -> int:
    return int(time.time() * 1000)


class GameStore:
    """An open games database. Use as a context manager, or call ``close()``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), timeout=5.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as error:
            raise StoreError(f"{path}: cannot open the games database ({error})") from None

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def new_game(self, players: Sequence[str], source: str, settings: dict[str, Any] | None = None) -> int:
        now = _now_ms()
        with self._db:
            cursor = self._db.execute(
                "INSERT INTO games (started_ms, updated_ms, players, source, settings) VALUES (?, ?, ?, ?, ?)",
                (now, now, json.dumps(list(players)), source, json.dumps(settings or {})),
            )
        return int(cursor.lastrowid)

    def add_event(self, game_id: int, event: Event) -> None:
        """Keep one event; committed before this returns."""
        now = _now_ms()
        with self._db:
            (seq,) = self._db.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM events WHERE game_id = ?", (game_id,)).fetchone()
            self._db.execute(
                "INSERT INTO events (game_id, seq, type, body, wall_ms) VALUES (?, ?, ?, ?, ?)",
                (game_id, seq, event.type, event.to_json(), now),
            )
            finished = 1 if event.type == "game_over" else 0
            self._db.execute(
                "UPDATE games SET updated_ms = ?, finished = MAX(finished, ?) WHERE id = ?", (now, finished, game_id)
            )

    def game(self, game_id: int) -> StoredGame:
        row = self._db.execute(
            "SELECT id, started_ms, updated_ms, players, source, settings, finished FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no game {game_id}")
        bodies = self._db.execute("SELECT body FROM events WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        events = tuple(Event.from_dict(json.loads(body)) for (body,) in bodies)
        return StoredGame(row[0], row[1], row[2], tuple(json.loads(row[3])), row[4], json.loads(row[5]), bool(row[6]), events)

    def latest_unfinished(self) -> StoredGame | None:
        row = self._db.execute("SELECT id FROM games WHERE finished = 0 ORDER BY updated_ms DESC, id DESC LIMIT 1").fetchone()
        return None if row is None else self.game(row[0])

    def games(self) -> list[StoredGame]:
        """Every game, the newest first."""
        ids = self._db.execute("SELECT id FROM games ORDER BY started_ms DESC, id DESC").fetchall()
        return [self.game(game_id) for (game_id,) in ids]
