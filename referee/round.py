"""One round of Schwarz Rot Gelb Extreme: every row checked, players ranked, points dealt."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Mapping

from referee.cards import Criteria
from referee.ranking import HouseRule, Rank, check_order, deal_points, rank_players
from referee.rows import Verdict, check_row

__all__ = ["Round", "RoundResult", "score_round", "new_seed"]


@dataclass(frozen=True)
class Round:
    """A round as it lies on the table when "Stopp!" is called.

    ``rows`` maps each player (in seat order) to their cards, left to right as
    that player sees them. ``point_cards`` may be empty when none were entered.
    """

    rows: Mapping[str, tuple[Criteria, ...]]
    point_cards: tuple[int, ...] = ()
    stopped_by: str | None = None
    house_rule: HouseRule = HouseRule.SYMBOLS

    def __post_init__(self) -> None:
        if self.stopped_by is not None and self.stopped_by not in self.rows:
            raise ValueError(f"stopped_by names {self.stopped_by!r}, who has no row")
        if self.point_cards and len(self.point_cards) != len(self.rows):
            raise ValueError(
                f"expected {len(self.rows)} point cards, one per player, got {len(self.point_cards)}"
            )


@dataclass(frozen=True)
class RoundResult:
    """Verdicts in checking order, the ranking, and the point cards won."""

    round: Round
    order: tuple[str, ...]
    verdicts: Mapping[str, Verdict]
    ranking: tuple[Rank, ...]
    points: Mapping[str, int] = field(default_factory=dict)
    seed: int | None = None


def new_seed() -> int:
    """A fresh seed for a deal, to be reported so the deal can be replayed."""
    return random.SystemRandom().randrange(2**32)


def score_round(round_: Round, seed: int | None = None) -> RoundResult:
    """Check every row from the player who stopped on, rank, and deal the point cards.

    >>> r = Round({"Anna": (Criteria(1, 1, 1),), "Ben": (Criteria(2, 2, 2), Criteria(1, 1, 1))},
    ...           point_cards=(0, 9))
    >>> score_round(r, seed=1).points
    {'Ben': 9, 'Anna': 0}
    """
    order = check_order(list(round_.rows), round_.stopped_by)
    verdicts = {player: check_row(round_.rows[player]) for player in order}
    ranking = rank_players(
        {player: (round_.rows[player], verdicts[player]) for player in order}, round_.house_rule
    )
    if not round_.point_cards:
        return RoundResult(round_, tuple(order), verdicts, tuple(ranking))
    seed = new_seed() if seed is None else seed
    points = deal_points(ranking, round_.point_cards, seed)
    return RoundResult(round_, tuple(order), verdicts, tuple(ranking), points, seed)

