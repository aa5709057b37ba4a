"""The game as the scoreboard page shows it: one JSON-ready dict, what the overlay shows and no more.

In hidden mode (the rulebook's) a row shows only how many cards it holds until the
round is scored; in open mode, and once scored, each row shows its cards, its valid
length and its first error, as the overlay does.
"""

from __future__ import annotations

from typing import Any, Sequence

from referee.live.game import LiveGame, Phase, round_scored_data

__all__ = ["game_state", "player_colours"]


def player_colours(players: Sequence[str], palette: Sequence[str]) -> dict[str, str]:
    """Each player's colour by seat order, as the overlay's palette gives them (CSS ``#rrggbb``).

    >>> player_colours(["Anna", "Ben", "Cem"], ["#1eaaff", "#ffc83c"])
    {'Anna': '#1eaaff', 'Ben': '#ffc83c', 'Cem': '#1eaaff'}
    """
    if not palette:
        return {}
    return {player: palette[index % len(palette)] for index, player in enumerate(players)}


def game_state(game: LiveGame, mode: str, palette: Sequence[str] = ()) -> dict[str, Any]:
    """The page's view of ``game`` in ``mode`` ("open" or "hidden"); see the module docstring.

    Keys: ``round``, ``rounds``, ``phase``, ``stopped_by`` (who called "Stopp!" while the round's
    score waits; else null), ``mode``, ``players``, ``colours``, ``rows``
    (player, count, and when revealed cards, valid_length, first_error), ``ranking`` and
    ``round_points`` (when the round is scored), ``totals`` (standings), ``scores``
    (points per scored round).
    """
    scored = game.phase in (Phase.SCORED, Phase.OVER) and game.round in game.results
    reveal = scored or mode == "open"
    result = game.results.get(game.round) if scored else None
    rows: list[dict[str, Any]] = []
    if result is not None:
        by_player = {row["player"]: row for row in round_scored_data(game.round, result)["rows"]}
        for player in game.players:
            row = by_player.get(player) or {"player": player, "cards": [], "valid_length": 0, "first_error": None}
            rows.append({**row, "count": len(row["cards"])})
    else:
        verdicts = game.verdicts()
        for player, cards in game.row_criteria().items():
            row: dict[str, Any] = {"player": player, "count": len(cards)}
            if reveal:
                error = verdicts[player].first_error
                row.update({
                    "cards": [card.as_dict() for card in cards],
                    "valid_length": verdicts[player].valid_length,
                    "first_error": None if error is None else {"position": error.position, "criteria": list(error.criteria)},
                })
            rows.append(row)
    return {
        "round": max(game.round, 1),
        "rounds": game.rounds,
        "phase": game.phase.value,
        "stopped_by": game.stopped_by,
        "mode": mode,
        "players": list(game.players),
        "colours": player_colours(game.players, palette),
        "rows": rows,
        "ranking": [rank.as_dict() for rank in result.ranking] if result is not None else [],
        "round_points": dict(result.points) if result is not None else {},
        "totals": [standing.as_dict() for standing in game.standings()],
        "scores": [{"round": number, "points": dict(game.results[number].points)} for number in sorted(game.results)],
    }
