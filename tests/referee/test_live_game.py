"""The live game as a state machine driven by rows of settled cards (no camera needed)."""

import json

import pytest

from referee.cards import Criteria
from referee.live.events import Event
from referee.live.game import GLITCH_WAIT_S, STOP_WAIT_S, LiveGame, Phase, SeenCard
from referee.live.store import GameStore

CLEAN = [Criteria(4, 3, 5), Criteria(3, 2, 8), Criteria(5, 3, 7), Criteria(1, 1, 1),
         Criteria(4, 3, 8), Criteria(3, 1, 9), Criteria(1, 3, 3)]  # the rulebook's correct row
BROKEN = [Criteria(4, 2, 6), Criteria(2, 1, 8), Criteria(1, 1, 2), Criteria(2, 2, 5)]  # example 1: error at the 3rd


def seen(cards, first_id=0):
    return [SeenCard(first_id + k, c) for k, c in enumerate(cards)]


def types(events):
    return [e.type for e in events]


def lay_round(game, anna, ben, frame=0, id_base=0):
    """Lay the cards one at a time, Anna and Ben in turn, until the round ends; returns every event."""
    order = [p for k in range(max(len(anna), len(ben))) for p, cards in (("Anna", anna), ("Ben", ben)) if k < len(cards)]
    events, laid = [], {"Anna": 0, "Ben": 0}
    for player in order:
        laid[player] += 1
        frame += 1
        rows = {"Anna": seen(anna[: laid["Anna"]], id_base), "Ben": seen(ben[: laid["Ben"]], id_base + 100)}
        events += game.observe(rows, frame, frame / 10)
        if game.stopped_by is not None:  # the hands leave the rows; the round is scored a moment later
            events += game.observe(rows, frame + 1, frame / 10 + STOP_WAIT_S)
        if game.phase is not Phase.PLAYING:
            break
    return events


def test_cards_laid_one_by_one_then_stop_and_score_at_the_seventh() -> None:
    game = LiveGame(["Anna", "Ben"], {1: (3, 9)})
    events = game.start(0, 0.0) + lay_round(game, CLEAN, BROKEN)
    assert types(events)[0] == "round_started"
    laid = [(e.data["player"], e.data["position"], Criteria(**e.data["criteria"])) for e in events if e.type == "card_laid"]
    assert [x for x in laid if x[0] == "Anna"] == [("Anna", k, c) for k, c in enumerate(CLEAN)]
    assert [x for x in laid if x[0] == "Ben"] == [("Ben", k, c) for k, c in enumerate(BROKEN)]
    assert types(events)[-2:] == ["stop", "round_scored"]
    assert events[-2].data == {"player": "Anna"}
    scored = events[-1].data
    assert scored["round"] == 1 and scored["stopped_by"] == "Anna"
    rows = {r["player"]: r for r in scored["rows"]}
    assert rows["Anna"]["valid_length"] == 7 and rows["Anna"]["first_error"] is None
    assert rows["Ben"]["valid_length"] == 2
    assert rows["Ben"]["first_error"] == {"position": 2, "criteria": ["shapes"]}
    assert rows["Ben"]["cards"][0] == {"colours": 4, "shapes": 2, "symbols": 6}
    assert [r["player"] for r in scored["ranking"]] == ["Anna", "Ben"]
    assert scored["points"] == {"Anna": 9, "Ben": 3}
    json.dumps(scored)  # the contract is JSON


def test_no_points_field_without_point_cards() -> None:
    game = LiveGame(["Anna", "Ben"])
    events = game.start(0, 0.0) + lay_round(game, CLEAN, BROKEN)
    assert "points" not in events[-1].data


def test_next_round_waits_for_a_cleared_table_and_new_starting_cards() -> None:
    game = LiveGame(["Anna", "Ben"])
    game.start(0, 0.0)
    lay_round(game, CLEAN, BROKEN)
    assert game.phase is Phase.SCORED
    still = {"Anna": seen(CLEAN), "Ben": seen(BROKEN, 100)}
    assert game.observe(still, 50, 5.0) == []  # the scored table still lies there
    assert game.observe({}, 60, 6.0) == []
    assert game.phase is Phase.CLEARED
    events = game.observe({"Ben": [SeenCard(500, Criteria(1, 1, 1))]}, 70, 7.0)
    assert types(events) == ["round_started", "card_laid"]
    assert events[0].data == {"round": 2} and events[1].data["position"] == 0


def test_a_removed_card_is_reported_with_its_position() -> None:
    game = LiveGame(["Anna", "Ben"])
    game.start(0, 0.0)
    game.observe({"Anna": seen(CLEAN[:3])}, 1, 0.1)
    events = game.observe({"Anna": [SeenCard(0, CLEAN[0]), SeenCard(1, CLEAN[1])]}, 2, 0.2)
    assert [(e.type, e.data) for e in events] == [("card_removed", {"player": "Anna", "position": 2})]


def test_a_card_still_tracked_keeps_its_place_when_the_rows_glitch() -> None:
    game = LiveGame(["Anna", "Ben"])
    game.start(0, 0.0)
    game.observe({"Anna": seen(CLEAN[:3])}, 1, 0.1, tracked={0, 1, 2})
    # For one frame the row is seen without its first two cards (a hand bent an outline), and
    # one of them even shows up in Ben's row: the tracker still follows all three.
    glitch = game.observe({"Anna": [SeenCard(2, CLEAN[2])], "Ben": [SeenCard(0, CLEAN[0])]}, 2, 0.2, tracked={0, 1, 2})
    assert glitch == []
    assert game.row_ids() == {"Anna": (0, 1, 2), "Ben": ()}
    assert game.observe({"Anna": seen(CLEAN[:3])}, 3, 0.3, tracked={0, 1, 2}) == []
    # Once the tracker lets a card go, it has left the row.
    events = game.observe({"Anna": [SeenCard(0, CLEAN[0]), SeenCard(1, CLEAN[1])]}, 4, 0.4, tracked={0, 1})
    assert [(e.type, e.data) for e in events] == [("card_removed", {"player": "Anna", "position": 2})]


def test_a_card_new_in_a_row_seen_without_its_laid_cards_waits_for_the_row_to_show_whole() -> None:
    game = LiveGame(["Anna", "Ben"])
    game.start(0, 0.0)
    game.observe({"Anna": seen(CLEAN[:2])}, 1, 0.1, tracked={0, 1})
    # Her row is taken for the lone new card nearest her (its laid cards left out): the card may
    # be one in her hand, and stands in the wrong place. Seen whole again, it is laid after them.
    assert game.observe({"Anna": [SeenCard(7, CLEAN[2])]}, 2, 0.2, tracked={0, 1, 7}) == []
    assert game.row_ids() == {"Anna": (0, 1), "Ben": ()}
    events = game.observe({"Anna": [*seen(CLEAN[:2]), SeenCard(7, CLEAN[2])]}, 3, 0.3, tracked={0, 1, 7})
    assert [(e.type, e.data["position"]) for e in events] == [("card_laid", 2)]


def test_a_row_that_goes_on_glitching_has_its_new_card_laid_after_a_while() -> None:
    game = LiveGame(["Anna", "Ben"])
    game.start(0, 0.0)
    game.observe({"Anna": seen(CLEAN[:2])}, 1, 0.1, tracked={0, 1})
    assert game.observe({"Anna": [SeenCard(7, CLEAN[2])]}, 2, 0.2, tracked={0, 1, 7}) == []
    events = game.observe({"Anna": [SeenCard(7, CLEAN[2])]}, 40, 0.2 + GLITCH_WAIT_S, tracked={0, 1, 7})
    assert [(e.type, e.data["position"]) for e in events] == [("card_laid", 2)]
    assert game.row_ids() == {"Anna": (0, 1, 7), "Ben": ()}


def test_a_card_new_in_a_row_glitching_for_a_while_already_is_laid_at_once() -> None:
    # One laid card of hers has been left out of her row for long (nudged off its line): a card
    # laid at the row's end now is laid at once.
    game = LiveGame(["Anna", "Ben"])
    game.start(0, 0.0)
    game.observe({"Anna": seen(CLEAN[:3])}, 1, 0.1, tracked={0, 1, 2})
    assert game.observe({"Anna": seen(CLEAN[1:3], 1)}, 2, 0.2, tracked={0, 1, 2}) == []
    events = game.observe({"Anna": [*seen(CLEAN[1:3], 1), SeenCard(7, CLEAN[3])]}, 40, 0.2 + GLITCH_WAIT_S, tracked={0, 1, 2, 7})
    assert [(e.type, e.data["position"]) for e in events] == [("card_laid", 3)]


def test_five_rounds_make_a_game_with_standings() -> None:
    game = LiveGame(["Anna", "Ben"], {0: (1, 7)})
    events = game.start(0, 0.0)
    for number in range(5):
        base = 1000 * number
        events += lay_round(game, CLEAN, BROKEN, frame=base, id_base=base)
        events += game.observe({}, base + 500, base / 10 + 50)
    assert types(events).count("round_scored") == 5
    over = [e for e in events if e.type == "game_over"]
    assert len(over) == 1
    assert over[0].data["standings"] == [{"player": "Anna", "points": 35, "place": 1}, {"player": "Ben", "points": 5, "place": 2}]
    assert game.phase is Phase.OVER
    assert game.observe({"Anna": [SeenCard(99999, CLEAN[0])]}, 99999, 9999.0) == []


def test_the_end_of_a_file_scores_an_open_round_as_it_lies_without_stop() -> None:
    game = LiveGame(["Anna", "Ben"])
    game.start(0, 0.0)
    game.observe({"Anna": seen(CLEAN[:3]), "Ben": seen(BROKEN[:3], 100)}, 5, 0.5)
    events = game.finish(9, 0.9)
    assert types(events) == ["round_scored"]
    assert events[0].data["stopped_by"] is None
    assert {r["player"]: r["valid_length"] for r in events[0].data["rows"]} == {"Anna": 3, "Ben": 2}


def test_key_n_scores_the_open_round_and_ignores_the_cards_left_on_the_table() -> None:
    game = LiveGame(["Anna", "Ben"])
    game.start(0, 0.0)
    rows = {"Anna": seen(CLEAN[:2])}
    game.observe(rows, 1, 0.1)
    events = game.next_round(2, 0.2)
    assert types(events) == ["round_scored", "round_started"]
    assert game.observe(rows, 3, 0.3) == []  # old cards are not laid again
    events = game.observe({"Anna": seen(CLEAN[:2]) + [SeenCard(7, CLEAN[5])]}, 4, 0.4)
    assert [(e.type, e.data.get("position")) for e in events] == [("card_laid", 0)]


def test_point_cards_entered_after_scoring_score_the_round_again() -> None:
    game = LiveGame(["Anna", "Ben"])
    game.start(0, 0.0)
    lay_round(game, CLEAN, BROKEN)
    events = game.set_points((0, 9), 80, 8.0)
    assert types(events) == ["round_scored"]
    assert events[0].data["points"] == {"Anna": 9, "Ben": 0}
    assert [s.points for s in game.standings()] == [9, 0]
    with pytest.raises(ValueError, match="expected 2 point cards, one per player, got 3"):
        game.set_points((1, 2, 3), 81, 8.1)


def test_a_replayed_game_goes_on_without_laying_known_cards_again() -> None:
    game = LiveGame(["Anna", "Ben"], {0: (3, 9)})
    log = game.start(0, 0.0) + lay_round(game, CLEAN, BROKEN)
    log += game.observe({}, 90, 9.0)
    log += game.observe({"Anna": seen(CLEAN[:3], 500), "Ben": seen(BROKEN[:1], 600)}, 91, 9.1)
    # The process dies here; a new one replays the stored events and sees the same table again.
    again = LiveGame.replay(["Anna", "Ben"], [Event.from_dict(json.loads(e.to_json())) for e in log], {0: (3, 9)})
    assert again.round == 2 and again.phase is Phase.PLAYING
    assert [s.points for s in again.standings()] == [9, 3]
    events = again.observe({"Anna": seen(CLEAN[:3], 10), "Ben": seen(BROKEN[:1], 20)}, 1, 0.1)
    assert events == []
    events = again.observe({"Anna": seen(CLEAN[:4], 10), "Ben": seen(BROKEN[:1], 20)}, 2, 0.2)
    assert [(e.type, e.data["player"], e.data["position"]) for e in events] == [("card_laid", "Anna", 3)]
    events = again.observe({"Anna": seen(CLEAN, 10), "Ben": seen(BROKEN[:1], 20)}, 3, 0.3)
    events += again.observe({"Anna": seen(CLEAN, 10), "Ben": seen(BROKEN[:1], 20)}, 4, 0.3 + STOP_WAIT_S)
    assert types(events)[-2:] == ["stop", "round_scored"]
    assert [s.points for s in again.standings()] == [18, 6]


def test_a_resumed_card_is_matched_in_its_place_not_by_its_look_alone() -> None:
    # Anna had laid A (4,2,6) and B (2,1,8) before the crash; after it the camera first sees B, then a
    # new card C that looks like A (4,2,6) to the right of B, and only then A itself.
    log = [Event("round_started", 0.0, 0, {"round": 1}),
           Event("card_laid", 1.0, 10, {"player": "Anna", "position": 0, "criteria": {"colours": 4, "shapes": 2, "symbols": 6}}),
           Event("card_laid", 2.0, 20, {"player": "Anna", "position": 1, "criteria": {"colours": 2, "shapes": 1, "symbols": 8}})]
    game = LiveGame.replay(["Anna", "Ben"], log)
    a, b = Criteria(4, 2, 6), Criteria(2, 1, 8)
    assert game.observe({"Anna": [SeenCard(1, b)]}, 1, 0.1) == []
    events = game.observe({"Anna": [SeenCard(1, b), SeenCard(2, a)]}, 2, 0.2)
    assert [(e.type, e.data["position"]) for e in events] == [("card_laid", 2)]
    assert game.observe({"Anna": [SeenCard(0, a), SeenCard(1, b), SeenCard(2, a)]}, 3, 0.3) == []
    assert game.row_ids()["Anna"] == (0, 1, 2)


def test_the_store_keeps_every_event_and_finds_the_unfinished_game(tmp_path) -> None:
    with GameStore(tmp_path / "games.db") as store:
        done = store.new_game(["Anna", "Ben"], "video a.avi")
        store.add_event(done, Event("game_over", 1.0, 10, {"standings": []}))
        open_ = store.new_game(["Anna", "Ben"], "camera 0")
        events = [Event("round_started", 0.0, 0, {"round": 1}),
                  Event("card_laid", 0.5, 7, {"player": "Anna", "position": 0, "criteria": CLEAN[0].as_dict()})]
        for event in events:
            store.add_event(open_, event)
    with GameStore(tmp_path / "games.db") as store:
        stored = store.latest_unfinished()
        assert stored is not None and stored.id == open_
        assert stored.events == tuple(events)
        assert [g.finished for g in store.games()] == [False, True]
        mode = store._db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_an_event_type_outside_the_contract_is_refused() -> None:
    with pytest.raises(ValueError, match="event type must be one of"):
        Event("card_dropped", 0.0, 0, {})


def test_after_the_stop_a_card_lying_since_before_it_counts_and_one_laid_after_it_does_not() -> None:
    # Anna lays her seventh card; Ben's third lay there already under his hand, his fourth comes
    # after the "Stopp!" (back to the middle), and nothing is laid after Anna's seventh.
    game = LiveGame(["Anna", "Ben"])
    game.start(0, 0.0)
    anna = [SeenCard(k, c, lying_since=0.1 * k) for k, c in enumerate(CLEAN)]
    ben = [SeenCard(100 + k, c, lying_since=0.1 * k) for k, c in enumerate(BROKEN[:2])]
    game.observe({"Anna": anna[:6], "Ben": ben}, 10, 1.0)
    events = game.observe({"Anna": anna, "Ben": ben}, 20, 2.0)
    assert types(events) == ["card_laid", "stop"] and game.stopped_by == "Anna"
    late = [SeenCard(102, BROKEN[2], lying_since=1.5), SeenCard(103, BROKEN[3], lying_since=2.2)]
    beyond = SeenCard(7, Criteria(2, 2, 2), lying_since=0.5)
    events = game.observe({"Anna": anna + [beyond], "Ben": ben + late}, 30, 3.0)
    assert [(e.type, e.data["player"], e.data.get("position")) for e in events] == [("card_laid", "Ben", 2), ("warning", "Ben", None)]
    assert "read 2/2/5 showed in Ben's row only after the stop and is not counted" in events[1].data["message"]
    assert game.observe({"Anna": anna + [beyond], "Ben": ben + late}, 39, 2.0 + STOP_WAIT_S - 0.1) == []
    events = game.observe({"Anna": anna + [beyond], "Ben": ben + late}, 40, 2.0 + STOP_WAIT_S)
    assert types(events) == ["round_scored"] and game.phase is Phase.SCORED and game.stopped_by is None
    rows = {r["player"]: r for r in events[0].data["rows"]}
    assert events[0].data["stopped_by"] == "Anna"
    assert len(rows["Anna"]["cards"]) == 7 and len(rows["Ben"]["cards"]) == 3 and rows["Ben"]["valid_length"] == 2


def test_a_source_ending_while_the_score_waits_scores_the_round_with_its_stop() -> None:
    game = LiveGame(["Anna", "Ben"])
    game.start(0, 0.0)
    assert types(game.observe({"Anna": seen(CLEAN), "Ben": seen(BROKEN, 100)}, 10, 1.0))[-1] == "stop"
    events = game.finish(11, 1.1)
    assert types(events) == ["round_scored"] and events[0].data["stopped_by"] == "Anna"


def test_a_game_resumed_after_a_stop_not_yet_scored_is_scored_at_once_with_that_stop() -> None:
    game = LiveGame(["Anna", "Ben"])
    log = game.start(0, 0.0) + game.observe({"Anna": seen(CLEAN), "Ben": seen(BROKEN, 100)}, 10, 1.0)
    assert types(log)[-1] == "stop"  # the process dies here, before the score
    again = LiveGame.replay(["Anna", "Ben"], [Event.from_dict(json.loads(e.to_json())) for e in log])
    ben = [SeenCard(20 + k, c, lying_since=0.05) for k, c in enumerate(BROKEN)]  # seen afresh since the restart
    events = again.observe({"Anna": seen(CLEAN, 10), "Ben": ben}, 1, 0.1)
    assert types(events) == ["round_scored"] and events[0].data["stopped_by"] == "Anna"
    assert {r["player"]: r["valid_length"] for r in events[0].data["rows"]} == {"Anna": 7, "Ben": 2}


def test_after_the_stop_no_card_leaves_a_row_while_the_score_waits() -> None:
    # The players take their cards up to check them right after the "Stopp!".
    game = LiveGame(["Anna", "Ben"])
    game.start(0, 0.0)
    game.observe({"Anna": seen(CLEAN), "Ben": seen(BROKEN, 100)}, 10, 1.0)
    assert game.observe({"Anna": seen(CLEAN[:2]), "Ben": []}, 11, 1.5) == []
    events = game.observe({}, 12, 1.0 + STOP_WAIT_S)
    assert types(events) == ["round_scored"]
    assert {r["player"]: len(r["cards"]) for r in events[0].data["rows"]} == {"Anna": 7, "Ben": 4}
