"""A game: five rounds, running totals, the winner."""

from referee.game import standings, winners


def test_most_points_wins() -> None:
    table = standings(["A", "B"], [{"A": 9, "B": 0}, {"A": 1, "B": 3}])
    assert [(s.player, s.points, s.place) for s in table] == [("A", 10, 1), ("B", 3, 2)]
    assert winners(table) == ["A"]


def test_on_a_tie_the_higher_point_card_wins() -> None:
    table = standings(["A", "B"], [{"A": 7, "B": 9}, {"A": 3, "B": 1}])
    assert winners(table) == ["B"]


def test_on_a_tie_cards_are_compared_from_the_highest_down() -> None:
    table = standings(["A", "B"], [{"A": 9, "B": 9}, {"A": 3, "B": 2}, {"A": 0, "B": 1}])
    assert winners(table) == ["A"]


def test_the_same_cards_share_the_win() -> None:
    table = standings(["A", "B"], [{"A": 9, "B": 3}, {"A": 3, "B": 9}])
    assert winners(table) == ["A", "B"] and [s.place for s in table] == [1, 1]


def test_without_the_card_tiebreak_equal_totals_share_a_place() -> None:
    table = standings(["A", "B"], [{"A": 7, "B": 9}, {"A": 3, "B": 1}], card_tiebreak=False)
    assert [s.place for s in table] == [1, 1]
