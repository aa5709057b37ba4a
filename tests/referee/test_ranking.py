"""Scoring a round: ranking, tie-breaks, point cards, checking order."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.cards import Criteria
from referee.ranking import HouseRule, check_order, deal_points, rank_players
from referee.round import Round, score_round
from referee.rows import check_row

from .strategies import rows


def _ranked(rows_by_player: dict, rule: HouseRule = HouseRule.SYMBOLS) -> list:
    return rank_players({p: (cards, check_row(cards)) for p, cards in rows_by_player.items()}, rule)


def test_the_longest_error_free_row_ranks_first() -> None:
    ranks = _ranked({"A": [Criteria(1, 1, 9)], "B": [Criteria(1, 1, 1), Criteria(2, 2, 2)]})
    assert [(r.player, r.place) for r in ranks] == [("B", 1), ("A", 2)]


def test_ties_go_to_the_higher_sum_of_symbols_on_the_correct_cards() -> None:
    # B's third card is an error, so its 9 symbols do not count.
    ranks = _ranked({
        "A": [Criteria(1, 1, 3), Criteria(2, 2, 4)],
        "B": [Criteria(1, 1, 1), Criteria(2, 2, 2), Criteria(2, 3, 9)],
    })
    assert [(r.player, r.symbol_total, r.place) for r in ranks] == [("A", 7, 1), ("B", 3, 2)]


def test_the_reviews_house_rule_breaks_ties_by_shapes() -> None:
    players = {"A": [Criteria(1, 1, 9)], "B": [Criteria(1, 3, 3)]}
    assert _ranked(players)[0].player == "A"
    by_shapes = _ranked(players, HouseRule.SHAPES)
    assert by_shapes[0].player == "B" and by_shapes[0].symbol_total == 3


def test_players_still_tied_share_a_place_numbered_as_in_sport() -> None:
    ranks = _ranked({"A": [Criteria(1, 1, 2)], "B": [Criteria(1, 1, 2)], "C": [Criteria(1, 1, 1)]})
    assert [r.place for r in ranks] == [1, 1, 3]


def test_the_highest_point_card_goes_to_the_best() -> None:
    ranks = _ranked({"A": [Criteria(1, 1, 1)], "B": [Criteria(1, 1, 2)], "C": [Criteria(1, 1, 3)]})
    assert deal_points(ranks, [0, 9, 3], seed=5) == {"C": 9, "B": 3, "A": 0}


def test_contested_point_cards_are_shuffled_and_dealt_to_the_tied_players() -> None:
    ranks = _ranked({"A": [Criteria(1, 1, 2)], "B": [Criteria(1, 1, 2)], "C": [Criteria(1, 1, 1)]})
    deals = {tuple(sorted(deal_points(ranks, [9, 7, 1], seed=s).items())) for s in range(40)}
    assert {dict(d)["C"] for d in deals} == {1}
    assert {dict(d)["A"] for d in deals} == {9, 7}


def test_a_wrong_count_of_point_cards_is_refused() -> None:
    ranks = _ranked({"A": [Criteria(1, 1, 2)], "B": [Criteria(1, 1, 2)]})
    with pytest.raises(ValueError, match="expected 2 point cards"):
        deal_points(ranks, [9], seed=0)
    with pytest.raises(ValueError, match="expected 2 point cards"):
        Round({"A": (Criteria(1, 1, 1),), "B": (Criteria(1, 1, 1),)}, point_cards=(1, 2, 3))


def test_checking_begins_with_the_player_who_ended_the_round() -> None:
    result = score_round(Round({p: (Criteria(1, 1, 1),) for p in "ABCD"}, stopped_by="C"))
    assert result.order == ("C", "D", "A", "B")
    assert check_order(["A", "B"], None) == ["A", "B"]


def test_the_deal_is_reported_with_its_seed() -> None:
    round_ = Round({"A": (Criteria(1, 1, 1),), "B": (Criteria(1, 1, 1),)}, point_cards=(3, 9))
    first = score_round(round_)
    assert first.seed is not None
    assert score_round(round_, first.seed).points == first.points


player_names = st.lists(st.text("abcdefgh", min_size=1, max_size=4), min_size=2, max_size=6, unique=True)


@given(player_names.flatmap(lambda names: st.fixed_dictionaries({n: rows(1, 9) for n in names})))
def test_a_ranking_is_a_permutation_of_the_players(table: dict) -> None:
    ranks = _ranked(table)
    assert sorted(r.player for r in ranks) == sorted(table)
    assert [r.place for r in ranks] == sorted(r.place for r in ranks)
    assert all(a.sort_key <= b.sort_key for a, b in zip(ranks, ranks[1:]))


@given(player_names.flatmap(lambda names: st.fixed_dictionaries({n: rows(1, 9) for n in names})), st.randoms())
def test_ranking_ignores_the_order_players_are_listed(table: dict, rnd) -> None:
    names = list(table)
    rnd.shuffle(names)
    shuffled = {n: table[n] for n in names}
    key = lambda ranks: sorted((r.player, r.place, r.valid_length, r.symbol_total) for r in ranks)  # noqa: E731
    assert key(_ranked(table)) == key(_ranked(shuffled))


@given(
    player_names.flatmap(lambda names: st.fixed_dictionaries({n: rows(1, 3) for n in names})),
    st.integers(0, 2**32),
)
def test_a_deal_is_the_same_for_the_same_seed_and_gives_every_card_once(table: dict, seed: int) -> None:
    ranks = _ranked(table)
    cards = list(range(len(table)))
    points = deal_points(ranks, cards, seed)
    assert points == deal_points(ranks, cards, seed)
    assert sorted(points.values()) == cards and set(points) == set(table)
