"""The rulebook's rules for a row, named after the rulebook's words."""

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from referee.cards import Colour, Criteria, InvalidCardError, Shape, all_criteria
from referee.rows import MAX_LENGTH, RowError, check_row, describe_error

from .strategies import clean_rows, criteria, rows

# The rulebook's worked examples: (colours, shapes, symbols) per column.
RULEBOOK_ROWS = {
    "correct row": ([4, 3, 5, 1, 4, 3, 1], [3, 2, 3, 1, 3, 1, 3], [5, 8, 7, 1, 8, 9, 3]),
    "example 1": ([4, 2, 1, 2, 1], [2, 1, 1, 2, 1], [6, 8, 2, 5, 1]),
    "example 2": ([3, 4, 2, 5, 3, 4], [4, 3, 2, 3, 1, 2], [6, 7, 3, 7, 7, 5]),
    "example 3": ([5, 5, 1, 5, 1], [1, 4, 1, 3, 1], [8, 7, 4, 8, 4]),
    "example 4": ([5, 3, 4, 2], [1, 2, 3, 2], [7, 4, 6, 6]),
    "example 5": ([5, 4, 1, 5, 2, 1], [2, 1, 2, 3, 2, 2], [5, 4, 3, 5, 9, 3]),
}
RULEBOOK_LENGTHS = {"correct row": 7, "example 1": 2, "example 2": 4, "example 3": 1, "example 4": 3, "example 5": 5}


def rulebook_row(name: str) -> list[Criteria]:
    colours, shapes, symbols = RULEBOOK_ROWS[name]
    return [Criteria(c, s, n) for c, s, n in zip(colours, shapes, symbols)]


@pytest.mark.parametrize("name", list(RULEBOOK_ROWS), ids=list(RULEBOOK_ROWS))
def test_the_players_would_have_7_2_4_1_3_and_5_cards(name: str) -> None:
    assert check_row(rulebook_row(name)).valid_length == RULEBOOK_LENGTHS[name]


@pytest.mark.parametrize(
    "name, error",
    [
        ("correct row", None),
        ("example 1", RowError(2, ("shapes",))),
        ("example 2", RowError(4, ("symbols",))),
        ("example 3", RowError(1, ("colours",))),
        ("example 4", RowError(3, ("symbols",))),
        ("example 5", RowError(5, ("shapes",))),
    ],
    ids=list(RULEBOOK_ROWS),
)
def test_first_error_names_the_matching_criteria(name: str, error: RowError | None) -> None:
    assert check_row(rulebook_row(name)).first_error == error


@pytest.mark.parametrize(
    "args, match",
    [
        ((0, 1, 1), "colours must be from 1 to 5"),
        ((6, 1, 9), "colours must be from 1 to 5"),
        ((1, 0, 1), "shapes must be from 1 to 5"),
        ((1, 1, 10), "symbols must be from 1 to 9"),
        ((3, 1, 2), "more colours than symbols"),
        ((1, 4, 3), "more shapes than symbols"),
        ((1.0, 1, 1), "whole number"),
        ((True, 1, 1), "whole number"),
    ],
    ids=["no colour", "six colours", "no shape", "ten symbols", "colours>symbols", "shapes>symbols", "float", "bool"],
)
def test_an_impossible_card_is_refused(args: tuple, match: str) -> None:
    with pytest.raises(InvalidCardError, match=match):
        Criteria(*args)


def test_every_allowed_triple_is_a_card() -> None:
    triples = all_criteria()
    assert len(triples) == len(set(triples))
    assert Criteria(5, 5, 9) in triples and Criteria(1, 1, 1) in triples
    assert all(c.colours <= c.symbols and c.shapes <= c.symbols for c in triples)


def test_the_starting_card_alone_is_a_valid_row() -> None:
    assert check_row([Criteria(2, 2, 2)]).valid_length == 1
    assert check_row([]).valid_length == 0


def test_all_cards_from_the_first_error_on_are_removed_even_if_correct_after_it() -> None:
    row = [Criteria(1, 1, 1), Criteria(1, 2, 2), Criteria(3, 3, 3), Criteria(4, 4, 4)]
    verdict = check_row(row)
    assert verdict.valid_length == 1 and verdict.first_error == RowError(1, ("colours",))


def test_an_eighth_card_is_an_error_max_length() -> None:
    row = [Criteria(1, 1, 1), Criteria(2, 2, 2)] * 4
    verdict = check_row(row)
    assert verdict == check_row(row[:8])
    assert verdict.valid_length == MAX_LENGTH
    assert verdict.first_error == RowError(7, ("max_length",))


def test_a_card_matching_in_all_three_criteria_names_all_three() -> None:
    assert check_row([Criteria(2, 2, 4)] * 2).first_error == RowError(1, ("colours", "shapes", "symbols"))


@pytest.mark.parametrize(
    "row, words",
    [
        ([(4, 2, 6), (2, 1, 8), (1, 1, 2)], "card 3 has 1 shape, like card 2"),
        ([(2, 2, 4), (2, 2, 4)], "card 2 has 2 colours, 2 shapes and 4 symbols, like card 1"),
        ([(1, 1, 1), (2, 2, 2)] * 4, "card 8 is one too many (a row holds at most 7 cards)"),
    ],
    ids=["one criterion", "three criteria", "eighth card"],
)
def test_describe_error_in_words_a_player_understands(row: list, words: str) -> None:
    cards = [Criteria(*c) for c in row]
    assert describe_error(cards, check_row(cards).first_error) == words


@given(rows())
@example([Criteria(1, 1, 1), Criteria(2, 2, 2)] * 4)
def test_a_row_is_clean_exactly_when_every_adjacent_pair_differs_in_all_three(row: list[Criteria]) -> None:
    all_differ = all(not a.matches(b) for a, b in zip(row, row[1:]))
    verdict = check_row(row)
    assert verdict.is_clean == (all_differ and len(row) <= MAX_LENGTH)


@given(rows())
def test_valid_length_is_at_most_7_and_at_most_the_cards(row: list[Criteria]) -> None:
    verdict = check_row(row)
    assert 0 <= verdict.valid_length <= min(MAX_LENGTH, len(row))


@given(rows(min_size=2))
def test_the_prefix_before_the_first_error_is_clean(row: list[Criteria]) -> None:
    verdict = check_row(row)
    assert check_row(row[: verdict.valid_length]).is_clean
    if verdict.first_error is not None:
        assert verdict.first_error.position == verdict.valid_length


@given(clean_rows(), criteria())
def test_adding_a_matching_card_errs_at_its_position(row: list[Criteria], card: Criteria) -> None:
    verdict = check_row([*row, card])
    if card.matches(row[-1]):
        assert verdict.first_error == RowError(len(row), card.matches(row[-1]))


@given(st.lists(st.tuples(st.sampled_from(Shape), st.sampled_from(Colour)), min_size=1, max_size=9))
def test_criteria_from_symbols_count_distinct_colours_and_shapes(symbols: list) -> None:
    card = Criteria.from_symbols(symbols)
    assert card.symbols == len(symbols)
    assert card.colours == len({c for _, c in symbols}) and card.shapes == len({s for s, _ in symbols})
