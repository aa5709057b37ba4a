"""A Scharfe Schoten round played through: turns, following suit, the spice cupboard, collections."""

import pytest

from referee.schoten import Colour, PlayerCountError, Prediction, SpiceCard, Trumps, parse_cards
from referee.schoten_round import (
    CardCountError,
    CupboardError,
    DuplicateCardError,
    NotInHandError,
    OutOfTurnError,
    SchotenRound,
    Trick,
    Violation,
    play_round,
    rounds_in_game,
    seat_order,
    starting_player,
)

PLAYERS = ("Anna", "Ben", "Cem", "Dora")
R, G, B, Y = Colour.RED, Colour.GREEN, Colour.BLACK, Colour.YELLOW
# The example round's deal (examples/schoten-round.yaml): the cupboard holds r1 r8 r12 g3 g6 b5 b6 y2.
HANDS = {
    "Anna": "r4 r9 g1 g2 g5 g8 g12 b11 b12 y1",
    "Ben": "g9 g10 g11 b2 b8 b9 y4 y6 y8 y12",
    "Cem": "r6 r7 r10 r11 g4 b3 b4 y3 y5 y10",
    "Dora": "r2 r3 r5 g7 b1 b7 b10 y7 y9 y11",
}


def trick(line: str, *named: str) -> Trick:
    """A trick as typed: cards then an optional ``+c`` pick."""
    words = line.split()
    pick = Colour.parse(words.pop()[1:]) if words[-1].startswith("+") else None
    return Trick(parse_cards(" ".join(words)), pick, named)


def make_round(*lines: str, hands: dict[str, str] | None = None, players=PLAYERS, starts=None) -> SchotenRound:
    return SchotenRound(
        tuple(players),
        Trumps.parse("g10 b9 r2 y1"),
        {p: Prediction(R, Y) for p in players},
        tuple(trick(line) if isinstance(line, str) else line for line in lines),
        starts,
        {p: parse_cards(h) for p, h in (hands or {}).items()},
    )


def test_the_starting_player_plays_the_first_card_then_the_others_in_turn() -> None:
    result = play_round(make_round("b4 y3 b7 b8 +r", starts="Cem"))
    assert [p.player for p in result.tricks[0].plays] == ["Cem", "Dora", "Anna", "Ben"]
    assert result.tricks[0].winner == "Ben"


def test_the_player_who_has_taken_the_trick_plays_the_next_card() -> None:
    result = play_round(make_round("r9 b8 r11 r2 +b", "y9 y1 y12 y10 +y", hands=HANDS))
    assert result.tricks[0].winner == "Dora"
    assert result.tricks[1].leader == "Dora"
    assert result.tricks[1].describe() == (
        "trick 2: Anna wins with the super trump yellow 1; takes a yellow card from the spice cupboard"
    )


def test_the_winner_takes_the_trick_plus_one_card_from_the_spice_cupboard() -> None:
    result = play_round(make_round("r9 b8 r11 r2 +b", hands=HANDS))
    dora = result.collections["Dora"]
    assert dora.trick_cards == parse_cards("r9 b8 r11 r2")
    assert dora.cupboard == (B,)
    assert dora.counts() == {R: 3, G: 0, B: 2, Y: 0}
    assert result.collections["Anna"].counts() == {R: 0, G: 0, B: 0, Y: 0}


def test_trick_example_line_names_the_super_trump() -> None:
    result = play_round(make_round("r9 b8 r11 r2 +b"))
    assert result.tricks[0].describe().startswith("trick 1: Dora wins with the super trump red 2")


def test_a_pick_is_inferred_when_only_one_colour_is_left_in_the_cupboard() -> None:
    # With every hand known, the cupboard's last cards are known by colour: here only reds remain after seven picks.
    lines = ["r9 b8 r11 r2 +b", "y9 y1 y12 y10 +y", "g2 g11 g4 g7 +b", "y4 b4 y7 g8 +g",
             "g1 g9 r6 b10 +r", "b2 b3 b7 b11 +g", "r4 b9 r7 r3 +r", "g10 y5 y11 g12"]
    result = play_round(make_round(*lines, hands=HANDS))
    assert result.tricks[7].pick is R


def test_in_the_4_player_game_if_the_spice_cupboard_has_been_emptied_the_winner_collects_only_the_trick() -> None:
    lines = ["r9 b8 r11 r2 +b", "y9 y1 y12 y10 +y", "g2 g11 g4 g7 +b", "y4 b4 y7 g8 +g",
             "g1 g9 r6 b10 +r", "b2 b3 b7 b11 +g", "r4 b9 r7 r3 +r", "g10 y5 y11 g12 +r", "y8 y3 b1 g5"]
    result = play_round(make_round(*lines, hands=HANDS))
    assert result.tricks[8].pick is None
    assert result.collections["Anna"].cupboard.count(R) == 0
    with pytest.raises(CupboardError, match="trick 9: Anna takes a red card from the spice cupboard, but the cupboard is empty"):
        play_round(make_round(*lines[:8], "y8 y3 b1 g5 +r", hands=HANDS))


@pytest.mark.parametrize(
    "lines, hands, message",
    [
        (["r9 b8 r11 r2 +b", "y9 y1 y12 y10 +y", "g2 g11 g4 g7 +y"], HANDS,
         r"trick 3: Ben takes a yellow card from the spice cupboard, but no yellow card is left in it"),
        (["r9 b8 r11 r2"], HANDS, r"trick 1: Dora takes one card from the spice cupboard, but no colour is given"),
    ],
    ids=["a cupboard pick from an empty colour", "no colour named while several are left"],
)
def test_each_winner_of_a_trick_additionally_takes_any_one_card_from_the_spice_cupboard(lines, hands, message) -> None:
    with pytest.raises(CupboardError, match=message):
        play_round(make_round(*lines, hands=hands))


def test_not_following_suit_is_reported_as_a_rule_broken_shown_by_later_plays() -> None:
    result = play_round(make_round("r9 b8 r11 r2 +b", "y9 y1 y12 y10 +y", "g2 g11 g4 g7 +b",
                                   "y4 b4 y7 g8 +g", "g1 g9 r6 b10 +r", "b2 b3 b7 b11 +g",
                                   "r4 b9 r7 r3 +r", "g10 y5 y11 g12 +r"))
    assert result.violations == (Violation(4, "Cem", SpiceCard(B, 4), Y, SpiceCard(Y, 5), 8),)
    assert result.violations[0].describe() == (
        "trick 4: Cem did not follow suit: played black 4 to yellow led, but held yellow 5 (played in trick 8)"
    )


def test_not_following_suit_is_reported_as_a_rule_broken_shown_by_the_hand() -> None:
    result = play_round(make_round("r9 b8 r11 r2 +b", "y9 y1 y12 y10 +y", "g2 g11 g4 g7 +b",
                                   "y4 b4 y7 g8 +g", hands=HANDS))
    assert [(v.trick, v.player, v.card.short, v.proof.short, v.proof_trick) for v in result.violations] == [
        (4, "Cem", "b4", "y3", None)
    ]
    assert result.tricks[3].winner == "Anna"  # the referee notes it and play goes on


def test_if_you_have_no_card_in_the_just_played_color_you_play_a_card_of_any_color() -> None:
    # Ben has no red card in his hand, so his black 8 breaks no rule (the rulebook's trick example).
    result = play_round(make_round("r9 b8 r11 r2 +b", hands=HANDS))
    assert result.violations == ()


def test_super_trumps_must_show_your_colors_too() -> None:
    # Ben holds yellow cards but answers Dora's yellow 9 with his super trump black 9: it still takes the trick.
    result = play_round(make_round("y9 y1 b9 y10 +y", hands=HANDS, starts="Dora"))
    assert [(v.player, v.card.short, v.proof.short) for v in result.violations] == [("Ben", "b9", "y4")]
    assert result.tricks[0].winner == "Ben"


def test_a_super_trump_in_the_hand_is_a_card_of_its_colour_that_must_follow_suit() -> None:
    # Anna's only yellow card is the super trump yellow 1, so she may not answer yellow with green 12.
    result = play_round(make_round("y9 g12 y12 y10 +y", hands=HANDS, starts="Dora"))
    assert [(v.player, v.card.short, v.proof.short) for v in result.violations] == [("Anna", "g12", "y1")]


def test_the_rounds_scores_come_with_the_last_trick() -> None:
    partial = play_round(make_round("r9 b8 r11 r2 +b", hands=HANDS))
    assert not partial.is_complete and partial.scores == {}


@pytest.mark.parametrize(
    "players, first, starters",
    [
        (("Anna", "Ben", "Cem"), "Anna", ["Anna", "Ben", "Cem"]),
        (PLAYERS, "Cem", ["Cem", "Dora", "Anna", "Ben"]),
    ],
    ids=["3 players: 3 rounds", "4 players, Cem first: 4 rounds"],
)
def test_the_player_sitting_to_the_left_of_the_previous_starting_player_plays_the_first_card(players, first, starters) -> None:
    rounds = rounds_in_game(len(players))
    assert rounds == len(players)  # players play as many rounds as there are participants
    assert [starting_player(players, first, n) for n in range(1, rounds + 1)] == starters
    assert seat_order(players, starters[1]) == [*players[players.index(starters[1]):], *players[:players.index(starters[1])]]


@pytest.mark.parametrize(
    "build, error, message",
    [
        (lambda: make_round("r9 b8 r11 r2 +b", "y9 r9 y12 y10 +y"), DuplicateCardError,
         r"trick 2: Anna plays red 9 \(r9\), which Anna already played in trick 1"),
        (lambda: make_round("r9 r9 r11 r2 +b"), DuplicateCardError,
         r"trick 1: Ben plays red 9 \(r9\), which Anna already played in this trick"),
        (lambda: make_round("r9 b8 r11 r2 +b", trick("y9 y1 y12 y10 +y", "Cem")), OutOfTurnError,
         r"trick 2: Cem plays yellow 9 \(y9\) out of turn: Dora leads, having won trick 1"),
        (lambda: make_round(trick("r9 b8 r11 r2 +b", "Anna", "Cem")), OutOfTurnError,
         r"trick 1: Cem plays black 8 \(b8\) out of turn: it is Ben's turn after Anna"),
        (lambda: make_round(trick("r9 b8 r11 r2 +b", "Ben")), OutOfTurnError,
         r"trick 1: Ben plays red 9 \(r9\) out of turn: Anna starts the round"),
        (lambda: make_round("r9 b8 r11 +b"), CardCountError,
         r"trick 1: expected 4 cards, one per player from Anna, got 3 \(r9 b8 r11\); Dora has not played"),
        (lambda: make_round("r9 b6 r11 r2 +b", hands=HANDS), NotInHandError,
         r"trick 1: Ben plays black 6 \(b6\), which is not in Ben's hand"),
        (lambda: make_round("r9 r3 r11 r2 +b", hands={"Dora": HANDS["Dora"]}), NotInHandError,
         r"trick 1: Ben plays red 3 \(r3\), which is in Dora's hand"),
        (lambda: make_round(hands={**HANDS, "Anna": "r4 r9 g1"}), CardCountError,
         r"Anna's hand holds 3 cards, expected 10 \(4 players get 10 cards each\)"),
        (lambda: make_round(hands={**HANDS, "Ben": HANDS["Anna"]}), DuplicateCardError,
         r"red 4 \(r4\) is dealt in both Anna's and Ben's hands"),
        (lambda: make_round(*["b1 b2 b3 b4 +b"] * 11), CardCountError,
         r"trick 11: a round with 4 players has 10 tricks \(10 cards each\), got 11 tricks"),
        (lambda: make_round(players=("Anna", "Ben")), PlayerCountError,
         r"Scharfe Schoten is played by 3 or 4 players, got 2"),
    ],
    ids=[
        "a card played twice",
        "a card played twice in one trick",
        "a player playing out of turn (leader)",
        "a player playing out of turn (follower)",
        "the wrong player starts the round",
        "a trick short of a card",
        "a card not in the player's hand",
        "a card in another player's hand",
        "a wrong hand size",
        "a card dealt twice",
        "more tricks than cards in hand",
        "2 players",
    ],
)
def test_input_that_cannot_have_happened_is_refused(build, error, message) -> None:
    with pytest.raises(error, match=message):
        play_round(build())
