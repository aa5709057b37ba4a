"""Reading rounds and games entered by hand (YAML) into the rules' records."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.cards import Criteria, InvalidCardError
from referee.game import ROUNDS_SRGE
from referee.ranking import HouseRule
from referee.round import Round
from referee.yamlfile import read_yaml

__all__ = ["InputFileError", "GameFile", "load_yaml", "load_round", "load_game", "parse_round"]

_ROUND_KEYS = {"house_rule", "point_cards", "stopped_by", "rows", "seed"}
_GAME_KEYS = {"house_rule", "players", "rounds", "version"}


class InputFileError(ValueError):
    """A round or game file is malformed: the message names the file and the place."""


@dataclass(frozen=True)
class GameFile:
    """A game entered by hand: the players in seat order and the rounds played so far."""

    players: tuple[str, ...]
    rounds: tuple[Round, ...]
    seeds: tuple[int | None, ...]


def load_yaml(path: Path) -> Any:
    """The YAML document in ``path``, or an ``InputFileError`` that says what is wrong."""
    return read_yaml(path, InputFileError)


def load_round(path: Path) -> tuple[Round, int | None]:
    """A round file: the round and the seed it asks for (``seed:``), if any."""
    return parse_round(load_yaml(path), str(path))


def parse_round(doc: Any, where: str, default_rule: HouseRule | None = None) -> tuple[Round, int | None]:
    """A round from a parsed YAML mapping; ``where`` prefixes every message."""
    if not isinstance(doc, dict):
        raise InputFileError(f"{where}: expected a mapping with 'rows:', got {_kind(doc)}")
    unknown = sorted(set(map(str, doc)) - _ROUND_KEYS)
    if unknown:
        raise InputFileError(f"{where}: unknown key {unknown[0]!r} (expected one of {sorted(_ROUND_KEYS)})")
    if "rows" not in doc:
        raise InputFileError(f"{where}: missing key 'rows' (each player's cards, left to right)")
    rule = _house_rule(doc.get("house_rule"), where) if "house_rule" in doc else default_rule or HouseRule.SYMBOLS
    rows = _rows(doc["rows"], where)
    point_cards = _point_cards(doc.get("point_cards"), len(rows), where)
    stopped_by = doc.get("stopped_by")
    if stopped_by is not None and str(stopped_by) not in rows:
        raise InputFileError(
            f"{where}: stopped_by: unknown player {stopped_by!r} (players: {', '.join(rows)})"
        )
    seed = doc.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise InputFileError(f"{where}: seed: expected a whole number >= 0, got {seed!r}")
    return Round(rows, point_cards, None if stopped_by is None else str(stopped_by), rule), seed


def load_game(path: Path) -> GameFile:
    """A game file: ``players`` (optional), ``house_rule`` and up to five ``rounds``.

    Each round is written inline as in a round file, or is the path of a round
    file (relative to the game file).
    """
    doc = load_yaml(path)
    where = str(path)
    if not isinstance(doc, dict):
        raise InputFileError(f"{where}: expected a mapping with 'rounds:', got {_kind(doc)}")
    unknown = sorted(set(map(str, doc)) - _GAME_KEYS)
    if unknown:
        raise InputFileError(f"{where}: unknown key {unknown[0]!r} (expected one of {sorted(_GAME_KEYS)})")
    rule = _house_rule(doc.get("house_rule", "symbols"), where)
    entries = doc.get("rounds")
    if not isinstance(entries, list) or not entries:
        raise InputFileError(f"{where}: 'rounds' must be a list of 1 to {ROUNDS_SRGE} rounds, got {_kind(entries)}")
    if len(entries) > ROUNDS_SRGE:
        raise InputFileError(f"{where}: a game has {ROUNDS_SRGE} rounds, got {len(entries)}")
    rounds, seeds = [], []
    for number, entry in enumerate(entries, start=1):
        label = f"{where}: round {number}"
        if isinstance(entry, str):
            round_path = path.parent / entry
            try:
                sub = load_yaml(round_path)
            except InputFileError as error:
                raise InputFileError(f"{label}: {error}") from None
            round_, seed = parse_round(sub, f"{label} ({round_path})", rule)
        else:
            round_, seed = parse_round(entry, label, rule)
        rounds.append(round_)
        seeds.append(seed)
    players = _players(doc.get("players"), rounds, where)
    return GameFile(players, tuple(rounds), tuple(seeds))


def _players(listed: Any, rounds: list[Round], where: str) -> tuple[str, ...]:
    if listed is None:
        players = tuple(rounds[0].rows)
    elif isinstance(listed, list) and all(isinstance(p, (str, int)) for p in listed):
        players = tuple(str(p) for p in listed)
        duplicates = sorted({p for p in players if players.count(p) > 1})
        if duplicates:
            raise InputFileError(f"{where}: players: {duplicates[0]!r} is listed twice")
    else:
        raise InputFileError(f"{where}: players: expected a list of names, got {_kind(listed)}")
    if not 2 <= len(players) <= 6:
        raise InputFileError(f"{where}: a game has 2 to 6 players, got {len(players)}")
    for number, round_ in enumerate(rounds, start=1):
        if set(round_.rows) != set(players):
            missing = sorted(set(players) - set(round_.rows))
            extra = sorted(set(round_.rows) - set(players))
            detail = f"unknown player {extra[0]!r}" if extra else f"no row for {missing[0]!r}"
            raise InputFileError(f"{where}: round {number}: {detail} (players: {', '.join(players)})")
        if not round_.point_cards:
            raise InputFileError(f"{where}: round {number}: missing key 'point_cards' (needed to score a game)")
    return players


def _house_rule(value: Any, where: str) -> HouseRule:
    try:
        return HouseRule(value)
    except ValueError:
        choices = " or ".join(repr(rule.value) for rule in HouseRule)
        raise InputFileError(f"{where}: house_rule: expected {choices}, got {value!r}") from None


def _rows(value: Any, where: str) -> dict[str, tuple[Criteria, ...]]:
    if not isinstance(value, dict) or not value:
        raise InputFileError(f"{where}: rows: expected a mapping of player -> cards, got {_kind(value)}")
    if not 2 <= len(value) <= 6:
        raise InputFileError(f"{where}: rows: a round has 2 to 6 players, got {len(value)}")
    rows: dict[str, tuple[Criteria, ...]] = {}
    for player, cards in value.items():
        name = str(player)
        if name in rows:
            raise InputFileError(f"{where}: rows: player {name!r} is listed twice")
        if not isinstance(cards, list) or not cards:
            raise InputFileError(
                f"{where}: rows: {name}: expected a list of cards [colours, shapes, symbols], got {_kind(cards)}"
            )
        parsed = []
        for number, card in enumerate(cards, start=1):
            try:
                parsed.append(Criteria.parse(card))
            except InvalidCardError as error:
                raise InputFileError(f"{where}: rows: {name}: card {number}: {error}") from None
        rows[name] = tuple(parsed)
    return rows


def _point_cards(value: Any, players: int, where: str) -> tuple[int, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise InputFileError(f"{where}: point_cards: expected a list of whole numbers, got {value!r}")
    if any(v < 0 for v in value):
        raise InputFileError(f"{where}: point_cards: values must be 0 or more, got {value!r}")
    if len(value) != players:
        raise InputFileError(
            f"{where}: point_cards: expected {players} point cards (one per player), got {len(value)}"
        )
    return tuple(value)


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return f"{type(value).__name__} {value!r}"[:80]
