"""Ranking the players after a round and dealing the point cards."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import Enum
from typing import Mapping, Sequence

from referee.cards import Criteria
from referee.rows import Verdict

__all__ = ["HouseRule", "Rank", "rank_players", "deal_points", "check_order"]


class HouseRule(str, Enum):
    """What breaks a tie in valid length: the rulebook's symbols, or the review's shapes."""

    SYMBOLS = "symbols"
    SHAPES = "shapes"


@dataclass(frozen=True, order=True)
class Rank:
    """One player's standing in a round; compares best-first, ignoring the name.

    ``tie_total`` is what the house rule adds up over the valid cards (symbols by
    the rulebook); ``symbol_total`` is always the sum of symbols, as the
    ``check`` contract reports it.
    """

    sort_key: tuple[int, int] = field(init=False, repr=False)
    player: str = field(compare=False)
    valid_length: int = field(compare=False)
    tie_total: int = field(compare=False)
    symbol_total: int = field(compare=False)
    place: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sort_key", (-self.valid_length, -self.tie_total))

    def as_dict(self) -> dict[str, object]:
        return {
            "player": self.player,
            "place": self.place,
            "valid_length": self.valid_length,
            "symbol_total": self.symbol_total,
        }


def rank_players(
    rows: Mapping[str, tuple[Sequence[Criteria], Verdict]],
    house_rule: HouseRule = HouseRule.SYMBOLS,
) -> list[Rank]:
    """Every player, best first: longer valid row, then the higher tie total.

    Players still tied share a place, numbered as in sport (1, 1, 3). Equal
    players keep the order in which ``rows`` lists them.

    >>> rows = {"Anna": ([Criteria(1, 1, 2)], Verdict(1, None)),
    ...         "Ben": ([Criteria(1, 1, 5)], Verdict(1, None))}
    >>> [(r.player, r.place) for r in rank_players(rows)]
    [('Ben', 1), ('Anna', 2)]
    """
    unplaced = []
    for player, (cards, verdict) in rows.items():
        valid = cards[: verdict.valid_length]
        unplaced.append(
            Rank(
                player=player,
                valid_length=verdict.valid_length,
                tie_total=sum(getattr(card, house_rule.value) for card in valid),
                symbol_total=sum(card.symbols for card in valid),
            )
        )
    unplaced.sort()
    ranks: list[Rank] = []
    for index, rank in enumerate(unplaced):
        tied = ranks and ranks[-1].sort_key == rank.sort_key
        place = ranks[-1].place if tied else index + 1
        ranks.append(
            Rank(rank.player, rank.valid_length, rank.tie_total, rank.symbol_total, place)
        )
    return ranks


def deal_points(ranks: Sequence[Rank], point_cards: Sequence[int], seed: int) -> dict[str, int]:
    """Who takes which point card: the best takes the highest, and so on down.

    Players sharing a place get the point cards they contest shuffled and dealt
    at random, by a generator seeded with ``seed`` so the deal can be replayed.

    >>> ranks = rank_players({"A": ([Criteria(1, 1, 1)], Verdict(1, None)),
    ...                       "B": ([Criteria(2, 2, 2)], Verdict(1, None))})
    >>> deal_points(ranks, [3, 9], seed=0)
    {'B': 9, 'A': 3}
    """
    if len(point_cards) != len(ranks):
        raise ValueError(f"expected {len(ranks)} point cards, one per player, got {len(point_cards)}")
    rng = random.Random(seed)
    cards = sorted(point_cards, reverse=True)
    points: dict[str, int] = {}
    start = 0
    while start < len(ranks):
        end = start
        while end < len(ranks) and ranks[end].place == ranks[start].place:
            end += 1
        contested = cards[start:end]
        if end - start > 1:
            rng.shuffle(contested)
        for rank, card in zip(ranks[start:end], contested):
            points[rank.player] = card
        start = end
    return points


def check_order(players: Sequence[str], stopped_by: str | None) -> list[str]:
    """The order rows are checked and reported: from the player who called "Stopp!" on.

    >>> check_order(["Anna", "Ben", "Cem"], "Ben")
    ['Ben', 'Cem', 'Anna']
    """
    if stopped_by is None:
        return list(players)
    start = list(players).index(stopped_by)
    return list(players[start:]) + list(players[:start])
