"""The live referee's light watch: the calibration's colour profile while the light holds, each card's own white after."""

from dataclasses import replace

import numpy as np
import pytest

from calibration.profile import DRIFT_LIMIT, ColourProfile, light_drift, paper_whites
from referee.cli.live_read import BACK_BELOW, CHECK_EVERY_S, LightWatch, Sighting
from vision.pipeline import DetectedCard
from vision.track import TrackedCard

PAPER_BGR = (200.0, 210.0, 215.0)
CARDS_XY = [(60, 60), (200, 60), (340, 60)]


def table(cast=(1.0, 1.0, 1.0)) -> np.ndarray:
    """A grey table with three blank cards, under a light of this cast (B, G, R gains)."""
    frame = np.full((200, 420, 3), 90, np.uint8)
    for x, y in CARDS_XY:
        frame[y - 40 : y + 40, x - 25 : x + 25] = PAPER_BGR
    return np.clip(frame * np.array(cast), 0, 255).astype(np.uint8)


def tracked(settled: bool = True, hidden: bool = False, count: int = 3) -> list[TrackedCard]:
    corners = [np.array([[x - 25, y - 40], [x + 24, y - 40], [x + 24, y + 39], [x - 25, y + 39]], np.float32) for x, y in CARDS_XY]
    return [TrackedCard(k, corners[k], None, 1.0, 0.0 if settled else None, 0 if settled else None, hidden) for k in range(count)]


LAMP = (0.7, 0.9, 1.1)
MILD = (0.93, 0.98, 1.03)  # between "back" and the limit


def test_the_table_lights_drift_as_the_watch_expects() -> None:
    profile = ColourProfile(PAPER_BGR)
    drift = lambda cast: light_drift(profile, paper_whites(table(cast), [c.corners_xy for c in tracked()]))  # noqa: E731
    assert drift((1, 1, 1)) < 1.0 and drift(LAMP) > DRIFT_LIMIT and BACK_BELOW < drift(MILD) < DRIFT_LIMIT


def test_the_light_changing_is_said_once_after_two_checks_and_its_coming_back_once() -> None:
    watch = LightWatch(ColourProfile(PAPER_BGR))
    calibrated = watch.profile
    assert calibrated is not None
    lights = [(1, 1, 1), LAMP, (1, 1, 1), LAMP, LAMP, LAMP, MILD, (1, 1, 1), MILD, (1, 1, 1), (1, 1, 1)]
    said = []
    for step, cast in enumerate(lights):
        change = watch.check(table(cast), step * CHECK_EVERY_S, tracked())
        said.append(None if change is None else change.changed)
        assert watch.profile is (None if watch.drifted else calibrated)
    # One warm check alone (a hand's shadow, a flash) is not a change; two are. A mild drift
    # inside the limit neither changes the light nor brings it back; two clean checks do.
    assert said == [None, None, None, None, True, None, None, None, None, None, False]


def test_the_light_is_checked_only_every_so_often_and_only_on_cards_lying_still_in_view() -> None:
    watch = LightWatch(ColourProfile(PAPER_BGR))
    assert watch.check(table(LAMP), 0.0, tracked()) is None
    assert watch.check(table(LAMP), CHECK_EVERY_S / 2, tracked()) is None  # too soon: not looked at
    assert watch.check(table(LAMP), CHECK_EVERY_S, tracked(settled=False)) is None  # cards still moving
    assert watch.check(table(LAMP), 2 * CHECK_EVERY_S, tracked(hidden=True)) is None  # cards under a hand
    assert watch.check(table(LAMP), 3 * CHECK_EVERY_S, tracked(count=1)) is None  # one card says too little
    change = watch.check(table(LAMP), 4 * CHECK_EVERY_S, tracked())
    assert change is not None and change.changed and change.drift > DRIFT_LIMIT
    assert "the light has changed" in change.message and f"limit {DRIFT_LIMIT:g}" in change.message
    assert len(change.notice) < 50  # the overlay's line


@pytest.mark.parametrize("cast", [(1, 1, 1), LAMP], ids=["same light", "lamp"])
def test_without_a_colour_profile_there_is_nothing_to_watch(cast) -> None:
    watch = LightWatch(None)
    assert all(watch.check(table(cast), k * CHECK_EVERY_S, tracked()) is None for k in range(5))
    assert watch.profile is None and not watch.drifted


HAND_BGR = (120, 150, 205)  # skin, far warmer than the cards' paper


def found(*ks: int, shrink: int = 0) -> Sighting:
    """This frame's sighting: cards ``ks`` found at their place (their right part, beside a hand, with ``shrink``)."""
    cards = []
    for c in tracked():
        if c.id in ks:
            corners = c.corners_xy.copy()
            corners[1:3, 0] -= shrink
            cards.append(DetectedCard(corners, None))  # type: ignore[arg-type]
    thumb = np.zeros((1, 1), np.float32)
    return Sighting(tuple(cards), thumb, thumb, 0.0, 0.0, True)


def test_cards_under_a_resting_hand_are_not_taken_for_a_change_of_light() -> None:
    # Sparse frames (a busy machine): the tracker keeps two settled cards in view though a hand
    # rests over most of them (only their edges show); their outlines there show the hand.
    frame = table()
    frame[10:110, 165:380] = HAND_BGR
    assert light_drift(ColourProfile(PAPER_BGR), paper_whites(frame, [c.corners_xy for c in tracked()])) > DRIFT_LIMIT
    watch = LightWatch(ColourProfile(PAPER_BGR))
    said = [watch.check(frame, k * CHECK_EVERY_S, tracked(), found(0, 1, 2, shrink=30) if k % 2 else found(0)) for k in range(6)]
    assert said == [None] * 6 and not watch.drifted
    # A lamp switched on is still seen on the cards found whole.
    watch = LightWatch(ColourProfile(PAPER_BGR))
    assert watch.check(table(LAMP), 0.0, tracked(), found(0, 1, 2)) is None
    change = watch.check(table(LAMP), CHECK_EVERY_S, tracked(), found(0, 1, 2))
    assert change is not None and change.changed


def test_a_frame_whose_cards_are_out_of_date_is_not_looked_at() -> None:
    watch = LightWatch(ColourProfile(PAPER_BGR))
    stale = replace(found(0, 1, 2), fresh=False)
    assert watch.check(table(LAMP), 0.0, tracked(), stale) is None and watch._streak == 0
    assert watch.check(table(LAMP), 0.1, tracked(), found(0, 1, 2)) is None and watch._streak == 1  # the next frame is
