"""The card tracker: lying still in time, votes, hands hiding cards, nudges, removal; and its invariants."""

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from calibration.seats import Seat
from referee.cards import Criteria
from vision.pipeline import DetectedCard
from vision.records import CardReading
from vision.track import CardTracker, rows_of

TABLE_BGR = (40, 110, 60)
PAPER_BGR = (235, 240, 242)
SKIN_BGR = (120, 160, 215)
CARD_WH = (50, 75)
FRAME_WH = (360, 240)
SLOTS = [(60 + 90 * (k % 3), 60 + 110 * (k // 3)) for k in range(6)]
CRITS = [Criteria(1, 1, 1), Criteria(2, 2, 2), Criteria(1, 1, 3), Criteria(3, 2, 5)]


def corners(centre, size_wh=CARD_WH):
    x, y = centre
    w, h = size_wh
    return np.array([[x - w / 2, y - h / 2], [x + w / 2, y - h / 2], [x + w / 2, y + h / 2], [x - w / 2, y + h / 2]], np.float32)


def detected(centre, criteria, confidence=0.9, size_wh=CARD_WH):
    return DetectedCard(corners(centre, size_wh), CardReading((), criteria, confidence, True))


def frame(cards=(), hands=()):
    """A table with paper rectangles at ``cards`` (centres) and skin over ``hands`` (centres)."""
    image = np.empty((FRAME_WH[1], FRAME_WH[0], 3), np.uint8)
    image[:] = TABLE_BGR
    for (x, y) in cards:
        image[int(y - 37):int(y + 38), int(x - 25):int(x + 25)] = PAPER_BGR
    for (x, y) in hands:
        image[max(0, int(y - 47)):int(y + 48), max(0, int(x - 35)):int(x + 35)] = SKIN_BGR
    return image


def run(tracker, seconds, fps, cards, t0=0.0, frame0=0, hands=()):
    """Feed the same scene for ``seconds``; returns the last update and the next (t, frame)."""
    update = None
    n = int(round(seconds * fps))
    image = frame([c.corners_xy.mean(axis=0) for c in cards], hands)
    for k in range(n):
        update = tracker.update(cards, frame0 + k, t0 + k / fps, image)
    return update, (t0 + n / fps, frame0 + n)


@pytest.mark.parametrize("fps", [5, 10, 15, 30, 60])
def test_a_card_settles_after_a_third_of_a_second_at_any_frame_rate(fps) -> None:
    tracker = CardTracker()
    card = [detected(SLOTS[0], CRITS[0])]
    settled_at = None
    for k in range(fps):
        update = tracker.update(card, k, k / fps, frame([SLOTS[0]]))
        if settled_at is None and update.cards[0].is_settled:
            settled_at = k / fps
    assert settled_at is not None
    assert 1 / 3 - 1e-6 <= settled_at <= 1 / 3 + 1 / fps + 1e-6


def test_a_moving_card_settles_only_once_it_lies_still() -> None:
    tracker = CardTracker()
    fps = 15
    for k in range(10):  # sliding 6 px a frame
        update = tracker.update([detected((60 + 6 * k, 60), CRITS[1])], k, k / fps, frame())
        assert not update.cards[0].is_settled
    _, _ = run(tracker, 0.2, fps, [detected((114, 60), CRITS[1])], 10 / fps, 10)
    update, _ = run(tracker, 0.2, fps, [detected((114, 60), CRITS[1])], 13 / fps, 13)
    assert len(update.cards) == 1 and update.cards[0].is_settled


def test_criteria_are_voted_over_many_frames() -> None:
    tracker = CardTracker()
    for k in range(12):
        wrong = k % 4 == 3
        card = detected(SLOTS[1], CRITS[0] if wrong else CRITS[3], 0.5 if wrong else 0.9)
        update = tracker.update([card], k, k / 15, frame([SLOTS[1]]))
    assert update.cards[0].criteria == CRITS[3]


def test_a_hand_hides_cards_without_removing_them_and_they_come_back_with_their_identity() -> None:
    tracker = CardTracker()
    cards = [detected(SLOTS[0], CRITS[0]), detected(SLOTS[1], CRITS[1])]
    before, (t, f) = run(tracker, 1.0, 15, cards)
    ids = sorted(c.id for c in before.cards)
    covered, (t, f) = run(tracker, 5.0, 15, [cards[1]], t, f, hands=[SLOTS[0]])
    assert covered.removed == () and sorted(c.id for c in covered.cards) == ids
    assert [c.hidden for c in sorted(covered.cards, key=lambda c: c.id)] == [True, False]
    after, _ = run(tracker, 0.5, 15, cards, t, f)
    assert sorted(c.id for c in after.cards) == ids and not any(c.hidden for c in after.cards)


def test_a_card_settled_beside_a_hand_is_not_taken_for_removed_when_a_hand_covers_it() -> None:
    # The card settles while a hand lies over more than half of the table round it (laying
    # the next card), so its surroundings first look like skin; the hand goes, and later a
    # hand covers the card for seconds: hidden, never removed.
    tracker = CardTracker(remove_after_s=1.0)
    card = [detected(SLOTS[0], CRITS[0])]
    beside = frame([SLOTS[0]])
    beside[:, 60:] = SKIN_BGR
    beside[22:98, 35:85] = PAPER_BGR
    for k in range(8):
        update = tracker.update(card, k, k / 15, beside)
    assert update.cards[0].is_settled
    for k in range(8, 16):
        update = tracker.update(card, k, k / 15, frame([SLOTS[0]]))
    for k in range(16, 60):
        update = tracker.update([], k, k / 15, frame(hands=[SLOTS[0]]))
        assert update.removed == ()
    assert [c.hidden for c in update.cards] == [True]


def test_a_card_covered_by_a_hand_right_after_lying_still_settles_when_it_shows_again_in_place() -> None:
    # Seen lying still for 0.2 s only (the next card's hand comes over it at once), hidden
    # for 0.8 s, then back where it lay: it has lain there all along.
    tracker = CardTracker()
    card = [detected(SLOTS[0], CRITS[0])]
    _, (t, f) = run(tracker, 0.2, 15, card)
    covered, (t, f) = run(tracker, 0.8, 15, [], t, f, hands=[SLOTS[0]])
    assert [c.is_settled for c in covered.cards] == [False]
    back = tracker.update(card, f, t, frame([SLOTS[0]]))
    assert [c.is_settled for c in back.cards] == [True]


def test_an_arm_the_colour_of_the_table_over_a_card_does_not_remove_it() -> None:
    # A dark arm on a dark wooden table: over the card it passes for the table, but it also
    # reaches over the table round the card, which no longer looks as it did.
    tracker = CardTracker(remove_after_s=1.0)
    card = [detected(SLOTS[0], CRITS[0])]
    _, (t, f) = run(tracker, 1.0, 15, card)
    arm = frame()
    x, y = SLOTS[0]
    arm[:, x - 20:x + 20] = np.add(TABLE_BGR, (0, 15, 25))
    for k in range(60):
        update = tracker.update([], f + k, t + k / 15, arm)
        assert update.removed == ()
    assert [c.hidden for c in update.cards] == [True]


def lit(image, change_bgr):
    """The frame as the camera gives it after its exposure or white balance changed by ``change_bgr`` levels."""
    return np.clip(image.astype(np.int16) + np.asarray(change_bgr, np.int16), 0, 255).astype(np.uint8)


def drift(tracker, seconds, fps, cards, change_bgr, t, f, shown=None, start_bgr=(0, 0, 0)):
    """Feed a still scene while the light goes smoothly from ``start_bgr`` to ``change_bgr``; returns
    every update's removals and the next (t, frame). ``shown`` are the card centres drawn (default: ``cards``)."""
    image = frame([c.corners_xy.mean(axis=0) for c in cards] if shown is None else shown)
    removed = []
    n = int(round(seconds * fps))
    for k in range(n):
        now = np.add(start_bgr, (np.subtract(change_bgr, start_bgr)) * (k + 1) / n).round()
        removed += tracker.update(cards, f + k, t + k / fps, lit(image, now)).removed
    return removed, (t + n / fps, f + n)


DRIFTS = [pytest.param((40, 40, 40), id="brighter-by-40"), pytest.param((-40, -40, -40), id="darker-by-40"),
          pytest.param((35, 0, -30), id="white-balance-to-blue")]


@pytest.mark.parametrize("change_bgr", DRIFTS)
def test_a_card_taken_away_after_the_light_drifted_slowly_is_removed(change_bgr) -> None:
    # The webcam's exposure drifts over 8 s with two cards in view; then one is taken away,
    # and later the table is cleared: each goes once its place shows the bare table.
    tracker = CardTracker(remove_after_s=1.0)
    cards = [detected(SLOTS[0], CRITS[0]), detected(SLOTS[1], CRITS[1])]
    before, (t, f) = run(tracker, 1.0, 15, cards)
    ids = {tuple(c.corners_xy.mean(axis=0)): c.id for c in before.cards}
    removed, (t, f) = drift(tracker, 8.0, 15, cards, change_bgr, t, f)
    assert removed == []
    removed, (t, f) = drift(tracker, 2.0, 15, [cards[1]], change_bgr, t, f, start_bgr=change_bgr)
    assert removed == [ids[SLOTS[0]]]
    removed, (t, f) = drift(tracker, 2.0, 15, [], change_bgr, t, f, start_bgr=change_bgr)
    assert removed == [ids[SLOTS[1]]]
    assert tracker.update([], f, t, lit(frame(), change_bgr)).cards == ()


def test_a_card_taken_away_while_the_light_goes_on_changing_is_removed() -> None:
    # The table cleared: with the white cards gone the camera opens up (brighter by 40 over
    # the 2 s after), so the table round the cards never looks again as when they lay there.
    tracker = CardTracker(remove_after_s=1.0)
    cards = [detected(SLOTS[0], CRITS[0]), detected(SLOTS[1], CRITS[1])]
    before, (t, f) = run(tracker, 1.0, 15, cards)
    removed, (t, f) = drift(tracker, 2.0, 15, [], (40, 40, 40), t, f)
    assert sorted(removed) == sorted(c.id for c in before.cards)


@pytest.mark.parametrize("change_bgr", DRIFTS)
def test_an_arm_the_colour_of_the_table_over_a_card_does_not_remove_it_after_the_light_drifted(change_bgr) -> None:
    tracker = CardTracker(remove_after_s=1.0)
    card = [detected(SLOTS[0], CRITS[0])]
    _, (t, f) = run(tracker, 1.0, 15, card)
    _, (t, f) = drift(tracker, 8.0, 15, card, change_bgr, t, f)
    arm = frame()
    x, y = SLOTS[0]
    arm[:, x - 20:x + 20] = np.add(TABLE_BGR, (0, 15, 25))
    for k in range(60):  # still, and then drifting back
        update = tracker.update([], f + k, t + k / 15, lit(arm, np.multiply(change_bgr, 1 - max(0, k - 30) / 30)))
        assert update.removed == ()
    assert [c.hidden for c in update.cards] == [True]


def test_a_sudden_change_of_exposure_removes_no_card_still_there() -> None:
    # The whole frame brighter by 30 at once: two cards in view, one under a dark arm the
    # colour of the table. None is removed; a card taken away afterwards is.
    tracker = CardTracker(remove_after_s=1.0)
    cards = [detected(SLOTS[0], CRITS[0]), detected(SLOTS[1], CRITS[1]), detected(SLOTS[2], CRITS[2])]
    before, (t, f) = run(tracker, 1.0, 15, cards)
    ids = {tuple(c.corners_xy.mean(axis=0)): c.id for c in before.cards}
    x, _ = SLOTS[0]
    image = frame([SLOTS[1], SLOTS[2]])
    image[:, x - 20:x + 20] = np.add(TABLE_BGR, (0, 15, 25))
    for k in range(60):
        update = tracker.update(cards[1:], f + k, t + k / 15, lit(image, (30, 30, 30) if k >= 15 else (0, 0, 0)))
        assert update.removed == ()
    assert sorted((c.id, c.hidden) for c in update.cards) == sorted(
        [(ids[SLOTS[0]], True), (ids[SLOTS[1]], False), (ids[SLOTS[2]], False)])
    t, f = t + 60 / 15, f + 60
    removals = []
    for k in range(30):  # the arm lifted, the card under it in view again
        removals += tracker.update(cards[:2], f + k, t + k / 15, lit(frame(SLOTS[:2]), (30, 30, 30))).removed
    assert removals == [ids[SLOTS[2]]]


def test_a_card_read_only_doubtfully_is_laid_once_a_sure_reading_comes() -> None:
    # Fingers resting on the card: read wrong, and doubtfully; then the hand lets go.
    tracker = CardTracker()
    doubtful = [detected(SLOTS[0], CRITS[1], confidence=0.4)]
    update, (t, f) = run(tracker, 0.6, 15, doubtful)
    assert not update.cards[0].is_settled
    update, _ = run(tracker, 0.2, 15, [detected(SLOTS[0], CRITS[0], confidence=0.9)], t, f)
    assert update.cards[0].is_settled and update.cards[0].criteria == CRITS[0]


def test_a_card_only_ever_read_doubtfully_is_laid_after_lying_still_a_second() -> None:
    tracker = CardTracker()
    laid_at = None
    for k in range(30):
        update = tracker.update([detected(SLOTS[0], CRITS[1], confidence=0.4)], k, k / 15, frame([SLOTS[0]]))
        if laid_at is None and update.cards[0].is_settled:
            laid_at = k / 15
    assert laid_at is not None and 1.0 - 1e-6 <= laid_at <= 1.0 + 1 / 15
    assert update.cards[0].criteria == CRITS[1]


def test_something_found_in_every_other_search_and_read_only_doubtfully_is_never_laid() -> None:
    # Glare on the table, read as a card with one faint symbol, found in one search and
    # missed in the next: a card lying bare is found every time.
    tracker = CardTracker()
    glare = [detected(SLOTS[0], CRITS[0], confidence=0.35)]
    for k in range(60):
        update = tracker.update(glare if k // 3 % 2 == 0 else [], k, k / 15, frame())
        assert not any(card.is_settled for card in update.cards)


def test_a_card_held_still_a_moment_then_slid_on_and_laid_no_longer_waits_where_it_was_held() -> None:
    # Read surely while held still over the row's end, then slid a card's width on and laid there:
    # nothing waits under a hand where it was held, so the row goes on to it.
    tracker = CardTracker()
    held = (SLOTS[2][0] + 50, SLOTS[2][1])
    _, (t, f) = run(tracker, 0.2, 15, [detected(held, CRITS[3])])
    update, _ = run(tracker, 0.6, 15, [detected(SLOTS[2], CRITS[3])], t, f)
    assert [(c.is_settled, c.waiting, c.criteria) for c in update.cards] == [(True, False, CRITS[3])]


def test_a_card_lost_under_a_hand_where_it_lay_counts_as_lying_there_since_it_first_did() -> None:
    # Read doubtfully (fingers on it) lying at the row's end, then hidden whole by the hand for
    # longer than an unsure card is kept, then found again in its place as the hand lets go:
    # it lies there since before the hand came (a "Stopp!" meanwhile does not send it back).
    tracker = CardTracker()
    _, (t, f) = run(tracker, 0.3, 15, [detected(SLOTS[0], CRITS[1], confidence=0.4)])
    hidden, (t, f) = run(tracker, 1.0, 15, [], t, f, hands=[SLOTS[0]])
    assert hidden.cards == ()
    back, (t, f) = run(tracker, 0.5, 15, [detected(SLOTS[0], CRITS[1])], t, f)
    assert [(c.is_settled, c.lying_since) for c in back.cards] == [(True, 0.0)]
    # A card laid elsewhere since lies there only since it came.
    both, _ = run(tracker, 0.5, 15, [detected(SLOTS[0], CRITS[1]), detected(SLOTS[1], CRITS[2])], t, f)
    assert [c.lying_since for c in both.cards] == [0.0, t]


def test_a_card_partly_covered_by_the_hand_laying_it_is_not_laid_until_the_hand_lets_go() -> None:
    # Seen whole once as the hand slides it in, then with the fingers over its far end (a
    # shorter outline, read doubtfully, as the reader does where something overlaps a card).
    tracker = CardTracker()
    whole, (t, f) = run(tracker, 1 / 15, 15, [detected(SLOTS[0], CRITS[0])])
    partly = [detected((SLOTS[0][0], SLOTS[0][1] + 10), CRITS[1], confidence=0.4, size_wh=(50, 55))]
    covered, (t, f) = run(tracker, 0.6, 15, partly, t, f)
    assert [c.is_settled for c in covered.cards] == [False]
    back, _ = run(tracker, 0.5, 15, [detected(SLOTS[0], CRITS[0])], t, f)
    assert [(c.is_settled, c.criteria) for c in back.cards] == [(True, CRITS[0])]


def test_a_card_seen_in_one_search_only_is_forgotten_soon_after_it_goes() -> None:
    # A card in a hand found by one search (read doubtfully: fingers, blur), handed on while
    # the frame changed (the hand moving) but was not searched again: it never lay still,
    # so it is not waited for when the hand takes it away.
    tracker = CardTracker()
    card = [detected(SLOTS[0], CRITS[0], confidence=0.4)]
    tracker.update(card, 0, 0.0, frame([SLOTS[0]]))
    for k in range(1, 5):
        tracker.update(card, k, k / 15, frame([SLOTS[0]]), fresh=False)
    update, _ = run(tracker, 1.0, 15, [], 5 / 15, 5)
    assert update.cards == ()


def test_at_four_frames_a_second_a_card_missed_in_one_frame_still_settles() -> None:
    tracker = CardTracker()
    card = [detected(SLOTS[0], CRITS[0])]
    for k, seen in enumerate([True, False, True, True]):  # 0.5 s between two sightings: one frame missed
        update = tracker.update(card if seen else [], k, k / 4, frame([SLOTS[0]]))
    assert [c.settled_t for c in update.cards] == [pytest.approx(0.5)]


def test_at_five_frames_a_second_a_card_read_surely_then_covered_settles_when_seen_again_in_place() -> None:
    tracker = CardTracker()
    card = [detected(SLOTS[0], CRITS[0])]
    for k, seen in enumerate([True, False, False, True]):  # a hand over it for 0.4 s
        update = tracker.update(card if seen else [], k, k / 5, frame([SLOTS[0]], [] if seen else [SLOTS[0]]))
    assert [c.settled_t for c in update.cards] == [pytest.approx(0.6)]


def test_a_card_taken_away_is_removed_after_its_place_shows_bare_table() -> None:
    tracker = CardTracker(remove_after_s=1.0)
    cards = [detected(SLOTS[0], CRITS[0]), detected(SLOTS[1], CRITS[1])]
    before, (t, f) = run(tracker, 1.0, 15, cards)
    gone_id = next(c.id for c in before.cards if np.allclose(c.corners_xy.mean(axis=0), SLOTS[0]))
    soon, (t, f) = run(tracker, 0.8, 15, [cards[1]], t, f)
    assert len(soon.cards) == 2  # not yet: the hand may just be lifting it
    removals = []
    for k in range(10):
        update = tracker.update([cards[1]], f + k, t + k / 15, frame([SLOTS[1]]))
        removals += update.removed
    assert removals == [gone_id]
    assert [c.id for c in update.cards] != [gone_id] and len(update.cards) == 1


def test_a_nudged_card_keeps_its_identity_and_follows_the_nudge() -> None:
    tracker = CardTracker()
    before, (t, f) = run(tracker, 1.0, 15, [detected(SLOTS[2], CRITS[2])])
    nudged = (SLOTS[2][0] + 5, SLOTS[2][1] + 3)
    after, _ = run(tracker, 1.0, 15, [detected(nudged, CRITS[2])], t, f)
    assert [c.id for c in after.cards] == [c.id for c in before.cards]
    assert after.cards[0].is_settled and np.allclose(after.cards[0].corners_xy.mean(axis=0), nudged)


def test_update_never_writes_into_its_arguments_and_reset_forgets() -> None:
    tracker = CardTracker()
    card = detected(SLOTS[0], CRITS[0])
    kept = card.corners_xy.copy()
    image = frame([SLOTS[0]])
    image_copy = image.copy()
    run(tracker, 1.0, 15, [card])
    tracker.update([card], 99, 9.9, image)
    assert np.array_equal(card.corners_xy, kept) and np.array_equal(image, image_copy)
    tracker.reset()
    assert tracker.update([], 100, 10.0, image).cards == ()


def test_rows_come_from_settled_cards_in_each_players_order() -> None:
    tracker = CardTracker()
    # Three touching cards in a line near the bottom seat; one card still sliding is left out.
    cards = [detected((100 + 55 * k, 170), CRITS[k]) for k in range(3)]
    update, (t, f) = run(tracker, 1.0, 15, cards)
    update = tracker.update(cards + [detected((300, 60), CRITS[3])], f, t, frame())
    rows = rows_of(update.cards, [Seat("Anna", (180.0, 240.0)), Seat("Ben", (180.0, 0.0))], FRAME_WH)
    assert list(rows) == ["Anna"]
    assert [c.criteria for c in rows["Anna"]] == CRITS[:3]


def test_cards_after_one_lying_in_view_read_only_doubtfully_wait_for_it_to_be_laid() -> None:
    # A row at the start of a round, its middle card read doubtfully (glare): it is laid after a
    # second, and the card after it with it, in its place (not first, as the row's second card).
    tracker = CardTracker()
    seats = [Seat("Anna", (180.0, 240.0)), Seat("Ben", (180.0, 0.0))]
    cards = [detected((100 + 55 * k, 170), CRITS[k], confidence=0.4 if k == 1 else 0.9) for k in range(3)]
    update, (t, f) = run(tracker, 0.5, 15, cards)
    assert [c.criteria for c in rows_of(update.cards, seats, FRAME_WH)["Anna"]] == CRITS[:1]
    update, _ = run(tracker, 0.6, 15, cards, t, f)
    assert [c.criteria for c in rows_of(update.cards, seats, FRAME_WH)["Anna"]] == CRITS[:3]


def test_a_card_laid_after_one_still_under_a_hand_waits_for_it_and_each_comes_in_its_place() -> None:
    # Anna's 3rd card lay still for a tenth of a second, read surely, before the hand laying her
    # 4th card covered it; the 4th settles first. Rows are laid left to right: the 4th waits for
    # the 3rd, which is laid in its place once it shows again, and then the 4th after it.
    seats = [Seat("Anna", (180.0, 240.0)), Seat("Ben", (180.0, 0.0))]
    tracker = CardTracker()
    cards = [detected((80 + 55 * k, 170), CRITS[k]) for k in range(4)]
    _, (t, f) = run(tracker, 1.0, 15, cards[:2])
    _, (t, f) = run(tracker, 0.1, 30, cards[:3], t, f)
    update, (t, f) = run(tracker, 1.0, 15, [cards[0], cards[1], cards[3]], t, f, hands=[cards[2].corners_xy.mean(axis=0)])
    assert [c.criteria for c in update.cards if c.is_settled] == [CRITS[0], CRITS[1], CRITS[3]]
    assert [c.criteria for c in update.cards if c.waiting] == [CRITS[2]]
    assert [c.criteria for c in rows_of(update.cards, seats, FRAME_WH)["Anna"]] == CRITS[:2]
    update = tracker.update(cards, f, t, frame([c.corners_xy.mean(axis=0) for c in cards]))
    assert [c.criteria for c in rows_of(update.cards, seats, FRAME_WH)["Anna"]] == CRITS[:4]


class TrackerMachine(RuleBasedStateMachine):
    """Cards laid, taken, covered, uncovered and nudged at six slots, time passing in frames."""

    def __init__(self) -> None:
        super().__init__()
        self.tracker = CardTracker()
        self.t, self.frame_index = 0.0, 0
        self.cards: dict[int, dict] = {}  # slot -> {"serial", "criteria", "offset", "since"}
        self.used: set[int] = set()
        self.covered: set[int] = set()
        self.serial = 0
        self.owner: dict[int, int] = {}  # track id -> the serial of the physical card it follows
        self.update = None
        self.settled_ids: set[int] = set()

    def centre(self, slot):
        card = self.cards[slot]
        return SLOTS[slot][0] + card["offset"][0], SLOTS[slot][1] + card["offset"][1]

    def step(self, frames=1):
        for _ in range(frames):
            visible = [s for s in self.cards if s not in self.covered]
            detections = [detected(self.centre(s), self.cards[s]["criteria"]) for s in visible]
            image = frame([self.centre(s) for s in self.cards], [SLOTS[s] for s in self.covered])
            self.update = self.tracker.update(detections, self.frame_index, self.t, image)
            self.check(visible)
            self.t += 1 / 15
            self.frame_index += 1

    def check(self, visible):
        ids = [c.id for c in self.update.cards]
        assert len(ids) == len(set(ids)), "two tracks share an identity"
        present = {card["serial"] for card in self.cards.values()}
        for removed in self.update.removed:
            assert self.owner.get(removed) not in present, "a card still on the table was removed"
        for card in self.update.cards:
            if card.hidden:
                continue
            centre = card.corners_xy.mean(axis=0)
            near = [s for s in visible if np.linalg.norm(centre - np.array(self.centre(s))) < 0.55 * CARD_WH[0]]
            assert len(near) == 1, "a seen track lies on no card"
            serial = self.cards[near[0]]["serial"]
            assert self.owner.setdefault(card.id, serial) == serial, "a track jumped to another card"
        self.settled_ids |= {c.id for c in self.update.cards if c.is_settled}
        settled_serials = {self.owner.get(c.id) for c in self.update.cards if c.is_settled}
        for slot in visible:
            card = self.cards[slot]
            if self.t - card["since"] > 0.5:
                assert card["serial"] in settled_serials, "a card lying still half a second is not laid"

    @rule(slot=st.integers(0, 5), criteria=st.sampled_from(CRITS))
    def lay(self, slot, criteria):
        if slot in self.used:
            return
        self.used.add(slot)
        self.serial += 1
        self.cards[slot] = {"serial": self.serial, "criteria": criteria, "offset": (0, 0), "since": self.t}
        self.step()

    @rule(slot=st.integers(0, 5))
    def take(self, slot):
        self.cards.pop(slot, None)
        self.step()

    @rule(slot=st.integers(0, 5))
    def cover(self, slot):
        self.covered.add(slot)
        self.step()

    @rule(slot=st.integers(0, 5))
    def uncover(self, slot):
        self.covered.discard(slot)
        if slot in self.cards:
            self.cards[slot]["since"] = self.t
        self.step()

    @rule(slot=st.integers(0, 5), dx=st.integers(-4, 4), dy=st.integers(-4, 4))
    def nudge(self, slot, dx, dy):
        if slot in self.cards:
            ox, oy = self.cards[slot]["offset"]
            self.cards[slot]["offset"] = (ox + dx, oy + dy)
            self.cards[slot]["since"] = self.t
        self.step()

    @rule(frames=st.integers(1, 16))
    def wait(self, frames):
        self.step(frames)

    @invariant()
    def a_covered_card_keeps_its_laid_track(self):
        if self.update is None:
            return
        current = {c.id for c in self.update.cards}
        for slot in self.covered & set(self.cards):
            serial = self.cards[slot]["serial"]
            laid = [i for i, s in self.owner.items() if s == serial and i in self.settled_ids]
            assert all(i in current for i in laid), "a covered card's laid track disappeared"


TrackerMachine.TestCase.settings = settings(max_examples=30, stateful_step_count=30, deadline=None)
test_tracker_state_machine = TrackerMachine.TestCase


def test_a_card_that_lies_still_but_cannot_be_read_is_reported_once() -> None:
    tracker = CardTracker()
    card = DetectedCard(corners(SLOTS[3]), CardReading((), None, 0.0, True, "impossible reading: 4 colours on 2 symbols"))
    reports = []
    for k in range(45):
        update = tracker.update([card], k, k / 15, frame([SLOTS[3]]))
        reports += update.unreadable
        assert not any(c.is_settled for c in update.cards)  # never laid without criteria
    assert [(r[0], r[2]) for r in reports] == [(0, "impossible reading: 4 colours on 2 symbols")]


def test_a_card_covered_by_the_next_hand_before_it_settled_is_laid_when_it_shows_again() -> None:
    # Laid and seen lying still for a quarter of a second, read surely, then hidden for three
    # seconds under the hand laying the next card: back in view, in its place and read as
    # before, it lay there all along and is laid at once, before the next card settles.
    tracker = CardTracker()
    card = detected(SLOTS[0], CRITS[2])
    _, (t, f) = run(tracker, 0.25, 30, [card])
    covered, (t, f) = run(tracker, 3.0, 30, [], t, f, hands=[SLOTS[0]])
    assert not [c for c in covered.cards if c.is_settled]
    back = tracker.update([card], f, t, frame([SLOTS[0]]))
    assert [(c.is_settled, c.criteria) for c in back.cards] == [(True, CRITS[2])]


def test_a_card_covered_before_it_settled_that_shows_in_part_as_the_hand_goes_is_laid_at_once() -> None:
    # At 15 frames/s a card left bare for a third of a second may be found whole by one search
    # only (handed on in the next frame), read surely. Hidden for three seconds under the hand
    # laying the next card, it shows first in part as that hand goes (a shorter outline inside
    # its place, read doubtfully as another card): it lay there all along, and is laid then,
    # with its own criteria, before the next card can settle.
    tracker = CardTracker()
    card = detected(SLOTS[0], CRITS[2])
    tracker.update([card], 0, 0.0, frame([SLOTS[0]]))
    tracker.update([card], 1, 1 / 15, frame([SLOTS[0]]), fresh=False)
    covered, (t, f) = run(tracker, 3.0, 15, [], 2 / 15, 2, hands=[SLOTS[0]])
    assert not [c for c in covered.cards if c.is_settled]
    part = detected((SLOTS[0][0], SLOTS[0][1] + 12), CRITS[1], confidence=0.3, size_wh=(50, 50))
    tracker.update([part], f, t, frame([SLOTS[0]]))
    whole = tracker.update([card], f + 1, t + 1 / 15, frame([SLOTS[0]]))
    assert [(c.is_settled, c.criteria) for c in whole.cards] == [(True, CRITS[2])]
    assert whole.cards[0].settled_t == pytest.approx(t)


def test_another_card_laid_where_one_lay_briefly_is_read_afresh() -> None:
    # A card lay still briefly and was picked up again; three seconds later another card is
    # laid in its place: it must lie still afresh and is laid with its own criteria.
    tracker = CardTracker()
    _, (t, f) = run(tracker, 0.25, 30, [detected(SLOTS[0], CRITS[2])])
    _, (t, f) = run(tracker, 3.0, 30, [], t, f, hands=[SLOTS[0]])
    other = detected(SLOTS[0], CRITS[3])
    first = tracker.update([other], f, t, frame([SLOTS[0]]))
    assert not [c for c in first.cards if c.is_settled]
    later, _ = run(tracker, 0.5, 30, [other], t + 1 / 30, f + 1)
    assert [(c.is_settled, c.criteria) for c in later.cards] == [(True, CRITS[3])]


def test_a_settled_card_taken_off_its_place_under_a_hand_is_the_card_read_alike_back_there() -> None:
    # A hand over a settled card holds another card just off it, found read doubtfully (the
    # settled card's track follows it: as a nudge would), then a doubtful look back at the card's
    # place, then the card read surely there again: it is the settled card, not a second one (a
    # ghost of it left lying off its place would break its row: live_rounds hard 153).
    tracker = CardTracker()
    a = np.array(SLOTS[4], np.float64)
    before, (t, f) = run(tracker, 1.0, 15, [detected(a, CRITS[0])])
    (card_id,) = [c.id for c in before.cards if c.is_settled]
    _, (t, f) = run(tracker, 2 / 15, 15, [], t, f, hands=[a])
    _, (t, f) = run(tracker, 0.5, 15, [detected(a + (0, 22), CRITS[1], confidence=0.35)], t, f, hands=[a])
    _, (t, f) = run(tracker, 0.4, 15, [], t, f, hands=[a])
    _, (t, f) = run(tracker, 2 / 15, 15, [detected(a + (0, -6), CRITS[2], confidence=0.4)], t, f, hands=[a])
    after, _ = run(tracker, 1.0, 15, [detected(a, CRITS[0])], t, f)
    settled = [c for c in after.cards if c.is_settled]
    assert [c.id for c in settled] == [card_id] and settled[0].criteria == CRITS[0]
    assert np.allclose(settled[0].corners_xy.mean(axis=0), a)


def test_a_card_the_search_misses_on_a_cream_cloth_is_not_removed_while_its_symbols_show() -> None:
    # On a cream cloth a card's paper looks like the table: only its symbol tells that it still lies
    # there. Missed by the searches for a while (a hand's shadow, a pale cloth), it is kept while its
    # symbol shows where it did; taken away, it is removed as before.
    cream, red = (205, 225, 235), (40, 40, 200)

    def table(cards):
        image = np.empty((FRAME_WH[1], FRAME_WH[0], 3), np.uint8)
        image[:] = cream
        for (x, y) in cards:
            image[int(y - 37):int(y + 38), int(x - 25):int(x + 25)] = PAPER_BGR
            image[int(y - 4):int(y + 5), int(x - 4):int(x + 5)] = red  # (one small symbol: one point of the place's grid)
        return image

    tracker = CardTracker(remove_after_s=1.0)
    cards = [detected(SLOTS[0], CRITS[0]), detected(SLOTS[1], CRITS[1])]
    shown = table([SLOTS[0], SLOTS[1]])
    for k in range(15):
        update = tracker.update(cards, k, k / 15, shown)
    missed_id = next(c.id for c in update.cards if np.allclose(c.corners_xy.mean(axis=0), SLOTS[0]))
    assert all(c.is_settled for c in update.cards)
    removals = []
    for k in range(15, 60):  # (three seconds: the card lies there, the searches miss it)
        removals += tracker.update([cards[1]], k, k / 15, shown).removed
    assert removals == []
    gone = table([SLOTS[1]])
    for k in range(60, 90):
        removals += tracker.update([cards[1]], k, k / 15, gone).removed
    assert removals == [missed_id]
