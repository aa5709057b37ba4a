"""Reading Scharfe Schoten rounds and games typed during play (YAML) into the rules' records.

Cards are short words: a colour letter and a number (``r9``, ``b12``, ``g1``,
``y7``). A trick is one line of cards in play order from the leader, with the
winner's cupboard pick as ``+c`` (``r9 b8 r11 r2 +y``); it may name its leader
(``Ben: r9 b8 r11 r2``) or every player (``{Ben: r9, Cem: b8, ..., pick: y}``),
and those names are checked against the turns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.roundfile import InputFileError, load_yaml
from referee.schoten import (
    Colour,
    InvalidSpiceCardError,
    Prediction,
    PredictionError,
    SchotenInputError,
    SpiceCard,
    Trumps,
    TrumpsError,
)
from referee.schoten_round import SchotenRound, Trick, play_round, rounds_in_game, seat_order, starting_player

__all__ = ["SchotenGameFile", "load_schoten_round", "load_schoten_game", "parse_schoten_round"]

_ROUND_KEYS = ("version", "players", "starts", "trumps", "predictions", "hands", "tricks")
_GAME_KEYS = ("version", "players", "starts", "rounds")
_PREDICTION_KEYS = ("most", "fewest")
_PICK_KEY = "pick"


@dataclass(frozen=True)
class SchotenGameFile:
    """A game entered by hand: players in seat order, who started round 1, and the rounds so far."""

    players: tuple[str, ...]
    first: str
    rounds: tuple[SchotenRound, ...]


@dataclass(frozen=True)
class _BadCard:
    """A card in a trick that does not exist, kept until the player who played it is known."""

    trick: int
    position: int
    named: tuple[str, ...]
    error: InvalidSpiceCardError


def load_schoten_round(path: Path) -> SchotenRound:
    """A round file (see ``examples/schoten-round.yaml``)."""
    doc = load_yaml(path)
    if isinstance(doc, dict) and "rounds" in doc:
        raise InputFileError(f"{path}: this is a game file (it has 'rounds:'); run `referee schoten game {path}`")
    return parse_schoten_round(doc, str(path))


def parse_schoten_round(
    doc: Any, where: str, players: tuple[str, ...] | None = None, starts: str | None = None
) -> SchotenRound:
    """A round from a parsed YAML mapping; ``where`` prefixes every message.

    In a game, ``players`` and ``starts`` come from the game and the round may
    leave them out; when it gives them they must agree.
    """
    _check_keys(doc, _ROUND_KEYS, where, "tricks")
    _check_version(doc, where)
    if "players" in doc:
        listed = _players(doc["players"], where)
        if players is not None and listed != players:
            raise InputFileError(
                f"{where}: players: {', '.join(listed)} differs from the game's players ({', '.join(players)})"
            )
        players = listed
    if players is None:
        raise InputFileError(f"{where}: missing key 'players' (the players in seat order, e.g. [Anna, Ben, Cem])")
    if "starts" in doc:
        named = _name(doc["starts"], f"{where}: starts")
        if starts is not None and named != starts:
            raise InputFileError(
                f"{where}: starts: {named} cannot start this round: the starting player moves one seat "
                f"to the left each round, so {starts} starts it"
            )
        starts = named
    for key in ("trumps", "predictions", "tricks"):
        if key not in doc:
            raise InputFileError(f"{where}: missing key {key!r}")
    trumps = _trumps(doc["trumps"], where)
    predictions = _predictions(doc["predictions"], where)
    hands = _hands(doc.get("hands") or {}, where)
    tricks, bad = _tricks(doc["tricks"], where)
    try:
        round_ = SchotenRound(players, trumps, predictions, tuple(tricks), starts, hands)
    except SchotenInputError as error:
        raise type(error)(f"{where}: {error}") from None
    if bad is not None:
        _raise_bad_card(round_, bad, where)
    return round_


def load_schoten_game(path: Path) -> SchotenGameFile:
    """A game file: ``players`` in seat order, ``starts`` (round 1's starting player) and ``rounds``.

    Each round is written inline as in a round file (``players`` and ``starts``
    may be left out), or is the path of a round file relative to the game file.
    """
    doc = load_yaml(path)
    where = str(path)
    _check_keys(doc, _GAME_KEYS, where, "rounds")
    _check_version(doc, where)
    if "players" not in doc:
        raise InputFileError(f"{where}: missing key 'players' (the players in seat order)")
    players = _players(doc["players"], where)
    first = _name(doc["starts"], f"{where}: starts") if "starts" in doc else players[0]
    if first not in players:
        raise InputFileError(f"{where}: starts: {first!r} is not a player ({', '.join(players)})")
    entries = doc.get("rounds")
    count = rounds_in_game(len(players))
    if not isinstance(entries, list) or not entries:
        raise InputFileError(f"{where}: rounds: expected a list of 1 to {count} rounds, got {_kind(entries)}")
    if len(entries) > count:
        raise InputFileError(
            f"{where}: rounds: a game of {len(players)} players has {count} rounds (one per player), got {len(entries)}"
        )
    rounds = []
    for number, entry in enumerate(entries, start=1):
        label = f"{where}: round {number}"
        starts = starting_player(players, first, number)
        if isinstance(entry, str):
            round_path = path.parent / entry
            try:
                sub = load_yaml(round_path)
            except InputFileError as error:
                raise InputFileError(f"{label}: {error}") from None
            label = f"{label} ({round_path})"
        else:
            sub = entry
        rounds.append(parse_schoten_round(sub, label, players, starts))
    return SchotenGameFile(players, first, tuple(rounds))


def _check_keys(doc: Any, allowed: tuple[str, ...], where: str, main_key: str) -> None:
    if not isinstance(doc, dict):
        raise InputFileError(f"{where}: expected a mapping with '{main_key}:', got {_kind(doc)}")
    for key in doc:
        if str(key) not in allowed:
            raise InputFileError(f"{where}: unknown key {str(key)!r} (expected one of {', '.join(allowed)})")


def _check_version(doc: dict, where: str) -> None:
    if "version" in doc and doc["version"] != 1:
        raise InputFileError(f"{where}: version: this referee reads version 1, got {doc['version']!r}")


def _name(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
        raise InputFileError(f"{where}: expected a player's name, got {_kind(value)}")
    return str(value).strip()


def _players(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise InputFileError(f"{where}: players: expected a list of names in seat order, got {_kind(value)}")
    players = tuple(_name(p, f"{where}: players") for p in value)
    for player in players:
        if players.count(player) > 1:
            raise InputFileError(f"{where}: players: {player!r} is listed twice")
        if player == _PICK_KEY:
            raise InputFileError(f"{where}: players: {_PICK_KEY!r} is kept for cupboard picks; choose another name")
    if len(players) not in (3, 4):
        raise InputFileError(f"{where}: players: Scharfe Schoten is played by 3 or 4 players, got {len(players)}")
    return players


def _words(value: Any) -> list[str]:
    """A line of words (cards, colours) from a string or a list."""
    items = value if isinstance(value, list) else [value]
    words: list[str] = []
    for item in items:
        words.extend(w for w in re.split(r"[\s,]+", str(item).strip()) if w)
    return words


def _card(word: str, where: str) -> SpiceCard:
    try:
        return SpiceCard.parse(word)
    except InvalidSpiceCardError as error:
        raise InvalidSpiceCardError(f"{where}: {error}") from None


def _colour(value: Any, where: str) -> Colour:
    try:
        return Colour.parse(value)
    except ValueError as error:
        raise InputFileError(f"{where}: {error}") from None


def _trumps(value: Any, where: str) -> Trumps:
    label = f"{where}: trumps"
    if not isinstance(value, dict):
        try:
            return Trumps(tuple(SpiceCard.parse(word) for word in _words(value)))
        except SchotenInputError as error:
            raise type(error)(f"{label}: {error}") from None
    numbers = {}
    for colour, number in value.items():
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 12:
            raise InputFileError(f"{label}: {colour}: expected a number card from 1 to 12, got {number!r}")
        numbers[_colour(colour, label)] = number
    if len(numbers) != len(value):
        raise TrumpsError(f"{label}: a colour is given twice; each colour card gets one number card")
    try:
        return Trumps.from_numbers(numbers)
    except SchotenInputError as error:
        raise type(error)(f"{label}: {error}") from None


def _predictions(value: Any, where: str) -> dict[str, Prediction]:
    if not isinstance(value, dict):
        raise InputFileError(
            f"{where}: predictions: expected a mapping of player -> most, fewest (e.g. 'Anna: red yellow'), got {_kind(value)}"
        )
    predictions = {}
    for player, entry in value.items():
        label = f"{where}: predictions: {player}"
        if isinstance(entry, dict):
            for key in entry:
                if str(key) not in _PREDICTION_KEYS:
                    raise InputFileError(f"{label}: unknown key {str(key)!r} (expected most, fewest)")
            words = [entry[k] for k in _PREDICTION_KEYS if k in entry]
        else:
            words = _words(entry)
        if len(words) != 2:
            raise PredictionError(
                f"{label}: expected two colours, most then fewest (e.g. 'red yellow'), got {_kind(entry)}"
            )
        try:
            predictions[str(player)] = Prediction(_colour(words[0], label), _colour(words[1], label))
        except PredictionError as error:
            raise PredictionError(f"{label}: {error}") from None
    return predictions


def _hands(value: Any, where: str) -> dict[str, tuple[SpiceCard, ...]]:
    if not isinstance(value, dict):
        raise InputFileError(f"{where}: hands: expected a mapping of player -> cards, got {_kind(value)}")
    return {
        str(player): tuple(
            _card(word, f"{where}: hands: {player}: card {n}") for n, word in enumerate(_words(cards), start=1)
        )
        for player, cards in value.items()
    }


def _tricks(value: Any, where: str) -> tuple[list[Trick], _BadCard | None]:
    """The tricks up to the first card that does not exist (reported once its player is known)."""
    if not isinstance(value, list):
        raise InputFileError(f"{where}: tricks: expected a list, one trick per line, got {_kind(value)}")
    tricks = []
    for number, entry in enumerate(value, start=1):
        label = f"{where}: trick {number}"
        players: tuple[str, ...] = ()
        pick = None
        if isinstance(entry, dict):
            if _PICK_KEY in entry:
                pick = _colour(entry[_PICK_KEY], f"{label}: {_PICK_KEY}")
            named = [str(k) for k in entry if k != _PICK_KEY]
            if len(named) == 1:
                players, words = (named[0],), _words(entry[named[0]])
            else:
                players = tuple(named)
                words = [w for k in entry if k != _PICK_KEY for w in _words(entry[k])]
                if any(len(_words(entry[k])) != 1 for k in entry if k != _PICK_KEY):
                    raise InputFileError(f"{label}: a trick written as player: card takes one card per player")
        elif isinstance(entry, (str, list)):
            words = _words(entry)
        else:
            raise InputFileError(f"{label}: expected the cards in play order, like 'r9 b8 r11 r2 +y', got {_kind(entry)}")
        cards = []
        for word in words:
            if word.startswith("+"):
                if pick is not None:
                    raise InputFileError(f"{label}: the winner takes one cupboard card, got a second pick {word!r}")
                pick = _colour(word[1:], f"{label}: cupboard pick {word!r}")
                continue
            try:
                cards.append(SpiceCard.parse(word))
            except InvalidSpiceCardError as error:
                return tricks, _BadCard(number, len(cards), players, error)
        tricks.append(Trick(tuple(cards), pick, players))
    return tricks, None


def _raise_bad_card(round_: SchotenRound, bad: _BadCard, where: str) -> None:
    if len(bad.named) > bad.position:
        player = bad.named[bad.position]
    else:
        if bad.named:
            leader = bad.named[0]
        else:
            # Who played it follows from the tricks before it: their winners lead.
            try:
                before = play_round(round_)
            except SchotenInputError as error:
                raise type(error)(f"{where}: {error}") from None
            leader = before.tricks[-1].winner if before.tricks else round_.first
        order = seat_order(round_.players, leader) if leader in round_.players else [leader]
        player = order[bad.position] if bad.position < len(order) else f"an extra card after {order[-1]}"
    raise InvalidSpiceCardError(f"{where}: trick {bad.trick}: {player}: {bad.error}")


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return f"{type(value).__name__} {value!r}"[:80]
