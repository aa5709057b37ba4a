"""Matching found quads to true cards in the accuracy benchmark."""

from collections import Counter

import numpy as np

import pytest

from vision.bench import (CARD_OFF, FACE_DOWN, HELD_CARD, NOTHING_OUTLINED, OBJECT, Tally, corner_error, glare_falls_on,
                          in_view_band, match_cards, misread_cause, what_lies_under)


def _box(x0: float, y0: float, w: float = 60.0, h: float = 90.0) -> np.ndarray:
    return np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], np.float64)


def test_a_quad_of_a_card_lying_on_another_is_the_top_cards() -> None:
    # The hidden card lies under the top one, shifted a little; the found quad runs a bit
    # past the top card, so by plain overlap it fits the hidden card about as well.
    top, under = _box(100, 100), _box(104, 100)
    found = [_box(103, 100)]
    assert match_cards(found, [under, top]) == {0: 0}  # by plain overlap: the hidden card
    assert match_cards(found, [under, top], visible=[0.1, 1.0]) == {0: 1}


def test_a_pair_still_needs_half_overlap_whatever_is_in_view() -> None:
    assert match_cards([_box(100, 100)], [_box(140, 100)], visible=[1.0]) == {}


def test_cards_read_right_count_every_card_due_not_only_those_found() -> None:
    # 10 cards due, 8 found, 6 of them read exactly: 75% of those found, 60% of those due.
    summary = Tally(true_cards=10, found_true=8, found=8, triples_right=6).summary()
    assert (summary["exact_triple_pct"], summary["cards_read_right_pct"]) == (75.0, 60.0)


def test_a_quad_cut_short_across_its_card_lies_off_it_by_the_part_cut_off() -> None:
    # A card 60 x 90 px; its quad cut 27 px short (a hand over its lower part), or 3 px off all round.
    card = _box(100, 100)
    assert corner_error(card, card) == 0.0
    assert corner_error(_box(100, 100, h=63), card) == pytest.approx(0.45)
    assert corner_error(_box(103, 97, 60, 96), card) == pytest.approx(np.hypot(3, 3) / 60)


@pytest.mark.parametrize("visible, glared, quad_error, cause", [
    ([1.0, 0.05], True, 0.5, "a symbol hidden (under a tenth in view)"),
    ([1.0, 0.5], True, 0.5, "a symbol partly hidden"),
    ([1.0, 0.95], True, 0.2, "in view, the quad off its card"),
    ([1.0, 0.95], True, 0.1, "in view, under glare"),
    ([1.0, 1.0], False, 0.1, "in view, other"),
])
def test_a_misread_is_put_down_to_the_first_cause_that_holds(visible, glared, quad_error, cause) -> None:
    card = {"symbols": [{"shape": "bar", "colour": "red", "visible_fraction": v} for v in visible]}
    assert misread_cause(card, glared, quad_error) == cause


def test_the_misreads_by_cause_are_listed_in_order_zeros_included() -> None:
    tally = Tally(found_true=3, found=3, triples_right=1)
    tally.misread_by.update(["in view, other", "a symbol partly hidden"])
    assert tally.summary()["misread_cards_by_cause"] == {
        "a symbol hidden (under a tenth in view)": 0, "a symbol partly hidden": 1, "in view, the quad off its card": 0,
        "in view, under glare": 0, "in view, other": 1}


def test_the_exact_triple_ceiling_is_the_share_of_cards_found_whose_every_symbol_shows() -> None:
    # 8 cards found; on 2 of them a symbol lies wholly under a hand: at most 6 can be read exactly.
    summary = Tally(true_cards=10, found_true=8, found=8, triples_right=5, symbols_showing=6).summary()
    assert (summary["exact_triple_pct"], summary["exact_triple_ceiling_pct"]) == (62.5, 75.0)


def test_in_view_reads_are_told_apart_under_the_glare_spot_and_away_from_it() -> None:
    # 20 cards in view, 17 read exactly; the glare spot lay on 4 of them, 2 of those read exactly.
    summary = Tally(symbols_in_view=20, symbols_in_view_right=17, in_view_under_glare=4, in_view_under_glare_right=2).summary()
    assert (summary["cards_in_view_under_glare"], summary["exact_triple_in_view_under_glare_pct"],
            summary["exact_triple_in_view_without_glare_pct"]) == (4, 50.0, 93.75)


@pytest.mark.parametrize("visible, band", [
    (1.0, "19/20 or more"), (0.95, "19/20 or more"), (0.94, "9/10 to 19/20"), (0.9, "9/10 to 19/20"),
    (0.89, "3/4 to 9/10"), (0.75, "3/4 to 9/10"),
])
def test_a_card_due_falls_in_the_band_of_its_share_in_view(visible, band) -> None:
    assert in_view_band(visible) == band


def test_recall_is_told_by_how_much_of_the_cards_is_in_view() -> None:
    # 40 cards in full view, 39 found; 10 under a neighbour by a tenth to a quarter, 7 found.
    summary = Tally(due_in_view=Counter({"19/20 or more": 40, "3/4 to 9/10": 10}),
                    found_in_view=Counter({"19/20 or more": 39, "3/4 to 9/10": 7})).summary()
    assert summary["card_recall_by_share_in_view_pct"] == {"19/20 or more": 97.5, "9/10 to 19/20": None, "3/4 to 9/10": 70.0}
    assert summary["cards_due_by_share_in_view"] == {"19/20 or more": 40, "9/10 to 19/20": 0, "3/4 to 9/10": 10}


@pytest.mark.parametrize("spot, aimed, falls_on", [
    ((130, 140), True, True),
    ((130, 140), False, False),  # the lamp's mirror point off every card: a highlight on the table
    ((200, 140), True, False),  # on another card
    (None, False, False),
], ids=["on the card", "not aimed at a card", "on another card", "no glare"])
def test_the_glare_spot_falls_on_the_card_it_lies_in(spot, aimed, falls_on) -> None:
    truth = {"conditions": {"glare_on_card": aimed, "glare_px": spot}}
    assert glare_falls_on({"corners": _box(100, 100).tolist()}, truth) is falls_on


def test_wrong_verdicts_not_flagged_are_counted_apart_from_those_flagged_or_rowless() -> None:
    # 10 rows, 6 verdicts right (2 of them flagged); of the 4 wrong, 1 flagged and 1 for a player
    # with no row found: 2 were given as they are, with nothing to make the table look.
    summary = Tally(rows=10, verdicts_right=6, right_verdicts_flagged=2, wrong_verdicts_flagged=1,
                    wrong_verdicts_rowless=1).summary()
    assert (summary["rows"], summary["wrong_verdicts_not_flagged"], summary["right_verdicts_flagged"]) == (10, 2, 2)
    assert summary["wrong_verdicts_flagged_or_named_rowless_pct"] == 50.0


def test_what_flagged_the_verdicts_is_told_for_right_and_wrong_ones_apart() -> None:
    summary = Tally(right_flagged_by=Counter({"covered end": 3, "card read with doubt": 5}),
                    wrong_flagged_by=Counter({"gap": 1})).summary()
    assert list(summary["right_verdicts_flagged_by"].items()) == [("card read with doubt", 5), ("covered end", 3)]
    assert summary["wrong_verdicts_flagged_by"] == {"gap": 1}


_TRUTH = {
    "cards": [{"corners": _box(100, 100).tolist()}],
    "face_down": [{"corners": _box(300, 100).tolist()}],
    "distractors": [{"kind": "held_card", "corners": _box(500, 100).tolist()},
                    {"kind": "point_card", "corners": _box(700, 100).tolist()},
                    {"kind": "mug", "bbox": [900, 100, 960, 190]}],
}


@pytest.mark.parametrize("quad, kind", [
    (_box(505, 104), HELD_CARD),
    (_box(130, 100), CARD_OFF),  # half a card over the true one: no match, but over it
    (_box(300, 100), FACE_DOWN),
    (_box(700, 100), OBJECT),
    (_box(900, 100), NOTHING_OUTLINED),  # a mug is outlined by a box only: no card's shape to match
], ids=["held card", "quad off a true card", "face-down", "point card", "mug"])
def test_a_false_card_is_told_by_what_lies_under_it(quad, kind) -> None:
    assert what_lies_under(quad, _TRUTH) == kind


def test_false_cards_are_counted_by_what_lies_under_them() -> None:
    summary = Tally(found=10, false_found=3, false_by=Counter({HELD_CARD: 2, FACE_DOWN: 1}), false_sure=1).summary()
    assert summary["false_cards_by_what_lies_under"] == {HELD_CARD: 2, FACE_DOWN: 1}
    assert summary["card_precision_pct"] == 70.0
    assert summary["false_cards_read_surely"] == 1
