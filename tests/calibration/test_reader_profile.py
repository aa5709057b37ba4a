"""The card reader with a colour profile: learned inks name colours the nominal model misreads; without one, nothing changes."""

import numpy as np

from calibration.profile import ink_samples, learn_profile
from referee.cards import Colour
from tests.calibration.photos import face_up, photo
from tests.vision.conftest import SPEC_BGR, Sym, draw_card, light
from vision.colours import classify_colours
from vision.read import read_card

ORANGE_RED = (20, 140, 240)  # a red print gone orange under this light: the nominal model says yellow


def card(symbols: list[Sym]) -> np.ndarray:
    return light(draw_card(symbols, short_px=100), noise=1.5)


def whole(image: np.ndarray) -> list[np.ndarray]:
    h, w = image.shape[:2]
    return [np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)]


def test_a_profile_from_a_few_known_cards_reads_an_orange_red_as_red(monkeypatch) -> None:
    monkeypatch.setitem(SPEC_BGR, "orange", ORANGE_RED)
    reds = card([Sym("circle", "orange", 0.5, 0.25 + 0.25 * k, 0.22) for k in range(3)])
    yellows = card([Sym("circle", "yellow", 0.5, 0.25 + 0.25 * k, 0.22) for k in range(3)])
    known = ink_samples(reds, whole(reds)) + ink_samples(yellows, whole(yellows))
    profile = learn_profile(known, [Colour.RED] * 3 + [Colour.YELLOW] * 3)
    mixed = card([Sym("circle", "orange", 0.3, 0.3, 0.2), Sym("square", "orange", 0.7, 0.3, 0.2),
                  Sym("star", "yellow", 0.3, 0.8, 0.25), Sym("triangle", "yellow", 0.7, 0.8, 0.25)])
    nominal = read_card(mixed)
    learned = read_card(mixed, profile)
    assert sorted(s.colour.value for s in learned.symbols) == ["red", "red", "yellow", "yellow"]
    assert learned.criteria.colours == 2
    assert nominal.criteria is None or nominal.criteria.colours != 2 or nominal.confidence < 0.5


def test_without_a_profile_or_with_an_empty_one_the_reader_is_unchanged() -> None:
    frame, _ = photo("easy/test-004")
    cards = face_up("easy/test-004")
    labs = np.array([s.lab for s in ink_samples(frame, [c.corners_xy for c in cards])])
    plain = classify_colours(labs)
    assert [list(x) for x in classify_colours(labs, inks={})] == [list(x) for x in plain]
    assert [list(x) for x in classify_colours(labs, inks=None)] == [list(x) for x in plain]


def test_a_profile_learned_from_the_same_frame_keeps_every_reading() -> None:
    from vision.pipeline import read_frame

    frame, _ = photo("easy/test-004")
    cards = face_up("easy/test-004")
    profile = learn_profile(ink_samples(frame, [c.corners_xy for c in cards]))
    again = [c for c in read_frame(frame, profile) if c.reading.criteria is not None]
    assert [c.reading.criteria for c in again] == [c.reading.criteria for c in cards]
