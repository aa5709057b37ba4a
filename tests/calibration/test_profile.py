"""The colour profile: learned from the symbols of one frame, inks too close said, light drift measured."""

import numpy as np
import pytest

from calibration.profile import (
    CONFUSABLE_BELOW, DRIFT_LIMIT, ColourProfile, InkSample, confusable_pairs, ink_samples, learn_profile, light_drift,
    paper_whites, profile_under_light,
)
from referee.cards import Colour
from tests.calibration.photos import face_up, photo

PAPER = (200.0, 205.0, 210.0)


def samples(centres: dict, per_ink: int = 6, spread: float = 1.5, seed: int = 0) -> tuple[list[InkSample], list[Colour]]:
    rng = np.random.default_rng(seed)
    out, labels = [], []
    for colour, lab in centres.items():
        for _ in range(per_ink):
            out.append(InkSample(tuple(float(v) for v in np.add(lab, rng.normal(0, spread, 3))), PAPER))
            labels.append(colour)
    return out, labels


NOMINAL_LIKE = {
    Colour.BLACK: (20.0, 0.0, 0.0), Colour.RED: (51.0, 44.0, 32.0), Colour.YELLOW: (89.0, -5.0, 70.0),
    Colour.BLUE: (42.0, 5.0, -30.0), Colour.GREEN: (61.0, -33.0, 23.0),
}


def test_inks_are_learned_where_the_symbols_lie() -> None:
    found, _ = samples(NOMINAL_LIKE)
    profile = learn_profile(found)
    assert set(profile.inks) == set(Colour) and profile.confusable == ()
    for colour, lab in NOMINAL_LIKE.items():
        assert np.linalg.norm(np.subtract(profile.inks[colour], lab)) < 2.5
        assert profile.counts[colour] == 6
    assert profile.white_bgr == PAPER and profile.warnings() == []


def test_known_cards_teach_inks_the_nominal_model_would_misname() -> None:
    # Under a warm lamp a blue that has turned purple: labelled by known cards, it is learned as blue.
    shifted = {**NOMINAL_LIKE, Colour.BLUE: (40.0, 30.0, -20.0)}
    found, labels = samples(shifted)
    profile = learn_profile(found, labels)
    assert np.linalg.norm(np.subtract(profile.inks[Colour.BLUE], shifted[Colour.BLUE])) < 2.5


def test_two_inks_that_meet_under_this_light_are_said() -> None:
    close = {Colour.RED: (55.0, 40.0, 45.0), Colour.YELLOW: (60.0, 30.0, 52.0), Colour.BLACK: (20.0, 0.0, 0.0)}
    pairs = confusable_pairs(close)
    assert [(a, b) for a, b, _ in pairs] == [(Colour.RED, Colour.YELLOW)] and pairs[0][2] < CONFUSABLE_BELOW
    profile = ColourProfile(PAPER, close, {c: 5 for c in close}, pairs)
    warnings = profile.warnings()
    assert "red and yellow are hard to tell apart under this light" in warnings[0]
    assert "not learned (too few symbols seen): blue, green" in warnings[1]


def test_no_symbols_or_mismatched_labels_are_refused() -> None:
    with pytest.raises(ValueError, match="no symbols to learn colours from"):
        learn_profile([])
    found, labels = samples(NOMINAL_LIKE, per_ink=2)
    with pytest.raises(ValueError, match="expected one label per sample, got 9 labels for 10 samples"):
        learn_profile(found, labels[:-1])


def test_a_lamp_switched_on_drifts_the_white_and_brightness_alone_does_not() -> None:
    profile = ColourProfile((200.0, 205.0, 210.0))
    assert light_drift(profile, np.array([[200, 205, 210], [100, 102.5, 105]])) < 1.0  # falloff: same cast
    warm = np.array([[150, 190, 235], [140, 180, 225]])  # a 2700 K bulb: blue down, red up
    assert light_drift(profile, warm) > DRIFT_LIMIT
    assert light_drift(profile, np.zeros((0, 3))) == 0.0
    assert profile_under_light(profile, warm)[0] is None and profile_under_light(profile, warm)[1] > DRIFT_LIMIT
    assert profile_under_light(profile, np.array([[200, 205, 210]]))[0] is profile


def test_a_profile_learned_from_a_committed_photo_knows_every_ink_and_its_own_white() -> None:
    frame, _ = photo("easy/rulebook")
    corners = [card.corners_xy for card in face_up("easy/rulebook")]
    profile = learn_profile(ink_samples(frame, corners))
    assert set(profile.inks) == set(Colour) and sum(profile.counts.values()) > 100
    assert light_drift(profile, paper_whites(frame, corners)) < DRIFT_LIMIT / 2
    # The same table under a warmer light: the white drifts past the limit.
    warm = np.clip(frame.astype(np.float32) * (0.7, 0.9, 1.1), 0, 255).astype(np.uint8)
    assert light_drift(profile, paper_whites(warm, corners)) > DRIFT_LIMIT
