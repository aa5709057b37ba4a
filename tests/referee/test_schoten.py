"""Scharfe Schoten's rules, each test named after the rulebook's words."""

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from referee.schoten import (
    Colour,
    InvalidSpiceCardError,
    Outcome,
    PlayerCountError,
    Prediction,
    PredictionError,
    SpiceCard,
    Trumps,
    TrumpsError,
    WinReason,
    cupboard_size,
    full_deck,
    hand_size,
    judge_prediction,
    may_play,
    parse_cards,
    score_collection,
    trick_winner,
)

RULEBOOK_TRUMPS = Trumps.parse("g10 b9 r2 y1")
R, G, B, Y = Colour.RED, Colour.GREEN, Colour.BLACK, Colour.YELLOW


def card(text: str) -> SpiceCard:
    return SpiceCard.parse(text)


# Game materials and dealing


def test_48_spice_cards_12_cards_in_each_of_4_colors() -> None:
    deck = full_deck()
    assert len(deck) == len(set(deck)) == 48
    for colour in Colour:
        assert sorted(c.number for c in deck if c.colour is colour) == list(range(1, 13))


@pytest.mark.parametrize(
    "players, cards, cupboard",
    [(3, 12, 12), (4, 10, 8)],
    ids=["in the 3-player game each player gets 12 cards", "with 4 players each player gets 10 cards"],
)
def test_dealing_and_the_remaining_cards_form_the_spice_cupboard(players: int, cards: int, cupboard: int) -> None:
    assert hand_size(players) == cards
    assert cupboard_size(players) == cupboard
    assert players * cards + cupboard == 48


@pytest.mark.parametrize("players", [1, 2, 5, 6], ids=lambda n: f"{n} players")
def test_the_rulebook_deals_only_for_3_or_4_players(players: int) -> None:
    with pytest.raises(PlayerCountError, match=f"played by 3 or 4 players, got {players}"):
        hand_size(players)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("r9", SpiceCard(R, 9)),
        ("b12", SpiceCard(B, 12)),
        ("g1", SpiceCard(G, 1)),
        ("Y7", SpiceCard(Y, 7)),
        ("green 10", SpiceCard(G, 10)),
        ("black12", SpiceCard(B, 12)),
    ],
    ids=["r9", "b12", "g1", "upper case", "colour spelt out", "colour spelt out, no space"],
)
def test_spice_cards_are_written_as_colour_and_number(text: str, expected: SpiceCard) -> None:
    assert SpiceCard.parse(text) == expected
    assert SpiceCard.parse(expected.short) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("r13", "no such spice card 'r13': numbers run from 1 to 12"),
        ("r0", "no such spice card 'r0': numbers run from 1 to 12"),
        ("x5", "no such spice card 'x5': the colours are r"),
        ("blue 3", "no such spice card 'blue 3': the colours are"),
        ("9r", "no such spice card '9r': write a colour letter and a number"),
        ("", "no such spice card '': write a colour letter"),
    ],
    ids=["number 13", "number 0", "unknown letter", "blue is not a spice colour", "number first", "empty"],
)
def test_a_card_that_does_not_exist_is_refused(text: str, message: str) -> None:
    with pytest.raises(InvalidSpiceCardError, match=message):
        SpiceCard.parse(text)


# What's trump?


def test_sorted_by_number_highest_first_the_pairs_give_the_ranking_of_super_trumps_and_colors() -> None:
    # The rulebook: "green 10" is the highest super trump, "black 9" the second ... "yellow 1" the lowest;
    # green is the highest color and yellow the lowest.
    trumps = Trumps.from_numbers({Colour.YELLOW: 1, Colour.RED: 2, Colour.GREEN: 10, Colour.BLACK: 9})
    assert trumps == RULEBOOK_TRUMPS
    assert trumps.super_trumps == parse_cards("g10 b9 r2 y1")
    assert trumps.colours == (G, B, R, Y)


@pytest.mark.parametrize(
    "text, message",
    [
        ("g10 b9 r2", "expected 4 colour/number pairs, one per colour, got 3"),
        ("g10 b9 r2 y1 g3", "expected 4 colour/number pairs, one per colour, got 5"),
        ("g10 g9 r2 y1", r"green has two number cards \(g10, g9\)"),
        ("g10 b10 r2 y1", "the number card 10 is used twice"),
    ],
    ids=["three pairs", "five pairs", "a colour twice", "a number card twice"],
)
def test_each_of_the_four_color_cards_gets_one_of_the_number_cards(text: str, message: str) -> None:
    with pytest.raises(TrumpsError, match=message):
        Trumps.parse(text)


# Who takes the trick?


@pytest.mark.parametrize(
    "cards, winner, reason",
    [
        ("r9 b8 r11 r2", "r2", WinReason.SUPER_TRUMP),
        ("r9 b9 r11 r2", "b9", WinReason.SUPER_TRUMP),
        ("r9 b8", "b8", WinReason.HIGHEST_COLOUR),
        ("r9 b8 r11", "b8", WinReason.HIGHEST_COLOUR),
        ("g12 y1 g11", "y1", WinReason.SUPER_TRUMP),
        ("y1 r2 b9 g10", "g10", WinReason.SUPER_TRUMP),
        ("r3 g4 g7 b12", "g7", WinReason.HIGHEST_COLOUR),
        ("y12 r1 y11", "r1", WinReason.HIGHEST_COLOUR),
        ("r5 r12 r11", "r12", WinReason.HIGHEST_COLOUR),
    ],
    ids=[
        "trick example: the super trump red 2 is the most valuable card",
        "trick example: the super trump black 9 would exceed the red 2",
        "trick example: the black 8 trumps the red 9 (black ranks higher than red)",
        "trick example: a red 11 has a lower value than the black 8",
        "super trumps trump all other cards in the game",
        "higher super trumps trump lower super trumps",
        "the highest number card of the highest-ranking color",
        "cards of a higher color trump cards of a lower color, whatever was led",
        "one colour only: the highest number",
    ],
)
def test_who_takes_the_trick(cards: str, winner: str, reason: WinReason) -> None:
    played = parse_cards(cards)
    index, why = trick_winner(played, RULEBOOK_TRUMPS)
    assert (played[index], why) == (card(winner), reason)


def _oracle_beats(trumps: Trumps, a: SpiceCard, b: SpiceCard) -> bool:
    """The rulebook's three bullet points, written out independently of ``Trumps.strength``."""
    supers = list(trumps.super_trumps)
    if a in supers or b in supers:
        if a in supers and b in supers:
            return supers.index(a) < supers.index(b)
        return a in supers
    if a.colour is not b.colour:
        return trumps.colours.index(a.colour) < trumps.colours.index(b.colour)
    return a.number > b.number


@st.composite
def trumps_st(draw: st.DrawFn) -> Trumps:
    colours = draw(st.permutations(list(Colour)))
    numbers = draw(st.lists(st.integers(1, 12), min_size=4, max_size=4, unique=True))
    return Trumps(tuple(SpiceCard(c, n) for c, n in zip(colours, numbers)))


tricks_st = st.lists(st.sampled_from(full_deck()), min_size=3, max_size=4, unique=True)


@given(trumps_st(), tricks_st)
@example(RULEBOOK_TRUMPS, list(parse_cards("r9 b8 r11 r2")))
@example(RULEBOOK_TRUMPS, list(parse_cards("r9 b9 r11 r2")))
def test_the_player_who_has_played_the_highest_ranking_card_takes_the_trick(
    trumps: Trumps, cards: list[SpiceCard]
) -> None:
    index, reason = trick_winner(cards, trumps)
    for i, other in enumerate(cards):
        if i != index:
            assert _oracle_beats(trumps, cards[index], other)
            assert trumps.beats(cards[index], other)
    assert (reason is WinReason.SUPER_TRUMP) == (cards[index] in trumps.super_trumps)


@given(trumps_st(), tricks_st, st.randoms(use_true_random=False))
def test_the_same_card_takes_the_trick_whoever_played_it_first(trumps: Trumps, cards: list[SpiceCard], rnd) -> None:
    shuffled = list(cards)
    rnd.shuffle(shuffled)
    assert cards[trick_winner(cards, trumps)[0]] == shuffled[trick_winner(shuffled, trumps)[0]]


# Must follow suit


@pytest.mark.parametrize(
    "played, led, hand, allowed",
    [
        ("r11", R, "r11 r4 b3", True),
        ("b8", R, "b8 r4", False),
        ("b8", R, "b8 g3 y12", True),
        ("r2", R, "r2 g3", True),
        ("r2", Y, "r2 y5", False),
        ("y5", R, "y5 r2", False),
    ],
    ids=[
        "if you have a card of the color played you have to follow suit",
        "not following suit while holding the color played breaks the rule",
        "if you have no card in the just-played color you play a card of any color",
        "a super trump follows suit in its own colour",
        "super trumps must show your colors too",
        "a super trump in the hand is a card of the led colour you must play",
    ],
)
def test_show_your_colors(played: str, led: Colour, hand: str, allowed: bool) -> None:
    assert may_play(card(played), led, parse_cards(hand)) is allowed


# Predictions and scoring


def test_predictions_are_two_different_colours() -> None:
    assert Prediction(R, Y) == Prediction(most=R, fewest=Y)
    with pytest.raises(PredictionError, match="red is predicted twice"):
        Prediction(R, R)


def counts(red: int = 0, green: int = 0, black: int = 0, yellow: int = 0) -> dict[Colour, int]:
    return {R: red, G: green, B: black, Y: yellow}


@pytest.mark.parametrize(
    "collected, prediction, total",
    [
        (counts(red=3, green=2, black=5, yellow=1), Prediction(B, G), 5),
        (counts(red=2, green=4, black=1, yellow=1), Prediction(R, Y), 3),
        (counts(red=6, green=2, black=0, yellow=0), Prediction(R, Y), 14),
        (counts(), Prediction(G, B), 6),
    ],
    ids=[
        "scoring example 1: most black fulfilled, fewest green not: 5 points",
        "scoring example 2: most red not fulfilled, fewest yellow fulfilled as a tie: 3 points",
        "scoring example 3: red most 5, yellow fewest tied 3, plus the difference 6: 14 points",
        "a player who has taken absolutely no tricks receives 6 points",
    ],
)
def test_the_rulebook_scoring_examples(collected: dict[Colour, int], prediction: Prediction, total: int) -> None:
    assert score_collection(collected, prediction).total == total


@pytest.mark.parametrize(
    "collected, colour, most, outcome",
    [
        (counts(red=4, green=1), R, True, Outcome.UNIQUE),
        (counts(red=4, green=4), R, True, Outcome.TIED),
        (counts(red=4, green=5), R, True, Outcome.WRONG),
        (counts(red=1, green=2, black=3, yellow=4), R, False, Outcome.UNIQUE),
        (counts(red=1, green=1, black=3, yellow=4), R, False, Outcome.TIED),
        (counts(red=2, green=1, black=3, yellow=4), R, False, Outcome.WRONG),
    ],
    ids=[
        "each correct prediction is scored 5 points (most)",
        "not uniquely correct, tied with another color: 3 points (most)",
        "a wrong prediction: 0 points (most)",
        "each correct prediction is scored 5 points (fewest)",
        "not uniquely correct, tied with another color: 3 points (fewest)",
        "a wrong prediction: 0 points (fewest)",
    ],
)
def test_each_prediction_is_judged(collected: dict[Colour, int], colour: Colour, most: bool, outcome: Outcome) -> None:
    assert judge_prediction(collected, colour, most) is outcome


@pytest.mark.parametrize(
    "collected, prediction, difference",
    [
        (counts(red=7, green=2, black=3, yellow=4), Prediction(R, G), 5),
        (counts(red=7, green=2, black=3, yellow=4), Prediction(R, B), 0),
        (counts(red=3, green=3, black=3, yellow=3), Prediction(Y, B), 0),
    ],
    ids=[
        "if both predictions are correct he scores the difference",
        "no difference when only one prediction is correct",
        "all colours tied: both right but tied, difference 0",
    ],
)
def test_if_both_predictions_are_correct_he_additionally_scores_the_difference(
    collected: dict[Colour, int], prediction: Prediction, difference: int
) -> None:
    assert score_collection(collected, prediction).difference == difference
