"""A game: rounds played by the same players, running totals and the winner.

Shared by every game the referee knows: a game is a list of per-round points.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

__all__ = ["Standing", "standings", "winners", "ROUNDS_SRGE"]

ROUNDS_SRGE = 5


@dataclass(frozen=True, order=True)
class Standing:
    """A player's total after some rounds; compares best-first, ignoring the name.

    The tie-break follows Schwarz Rot Gelb Extreme: the player holding the higher
    point card wins, compared card by card from the highest down.
    """

    sort_key: tuple = field(init=False, repr=False)
    player: str = field(compare=False)
    points: int = field(compare=False)
    cards: tuple[int, ...] = field(compare=False, default=())
    place: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        held = tuple(sorted(self.cards, reverse=True))
        object.__setattr__(self, "sort_key", (-self.points, tuple(-c for c in held)))

    def as_dict(self) -> dict[str, object]:
        return {"player": self.player, "points": self.points, "place": self.place}


def standings(
    players: Sequence[str], rounds: Sequence[Mapping[str, int]], card_tiebreak: bool = True
) -> list[Standing]:
    """Totals after ``rounds`` (each: player -> points won), best first, places as in sport.

    With ``card_tiebreak`` each round's points are one point card, and equal totals
    are split by the higher cards held.

    >>> [(s.player, s.points, s.place) for s in standings(["A", "B"], [{"A": 3, "B": 9}, {"A": 7, "B": 1}])]
    [('B', 10, 1), ('A', 10, 2)]
    """
    held: dict[str, list[int]] = {player: [] for player in players}
    for round_points in rounds:
        for player, points in round_points.items():
            held[player].append(points)
    unplaced = sorted(
        Standing(player, sum(cards), tuple(cards) if card_tiebreak else ())
        for player, cards in held.items()
    )
    placed: list[Standing] = []
    for index, standing in enumerate(unplaced):
        tied = placed and placed[-1].sort_key == standing.sort_key
        place = placed[-1].place if tied else index + 1
        placed.append(Standing(standing.player, standing.points, standing.cards, place))
    return placed


def winners(table: Sequence[Standing]) -> list[str]:
    """The players in first place (more than one only when even the tie-break ties)."""
    return [s.player for s in table if s.place == 1]
