"""The glare colour model: its inputs, its fit, the shipped weights."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cards import Colour
from vision.blobs import Blob
from vision.colours import COLOUR_ORDER
from vision.glare_colours import FEATURE_COUNT, GlareColourModel, glare_colour_features, load_model
from vision.read import glare_colour_inputs, read_card
from vision.shapes import ShapeFeatures
from vision.train_glare_colours import fit_model, samples_of_photo
from vision.washed import WASHED
from vision.whitebalance import balance_card


def _blob(mean_bgr, through_bgr=None, doubt=()):
    features = ShapeFeatures(area=100.0, solidity=1.0, extent=1.0, aspect=1.0, fill_circle=0.64, long_side=10.0, short_side=10.0)
    return Blob((20.0, 30.0), features, np.float32(mean_bgr), 0.25, doubt,
                through_glare_bgr=None if through_bgr is None else np.float32(through_bgr))


def _plain_card():
    card = np.full((120, 80, 3), (170, 185, 205), np.uint8)
    card[15:35, 15:35] = 30
    return balance_card(card)


def test_a_marks_features_are_its_colours_absorption_and_the_rules_colour():
    card = _plain_card()
    features = glare_colour_features(_blob((0.9, 0.6, 0.2), doubt=(WASHED,)), card, Colour.BLUE)
    assert features.shape == (FEATURE_COUNT,)
    balanced, shares, strongest = features[0:3], features[3:6], features[6]
    np.testing.assert_allclose(balanced, (0.9, 0.6, 0.2), atol=1e-6)
    absorbed = 1.0 - np.float64((0.9, 0.6, 0.2)) ** 2.2
    assert strongest == pytest.approx(absorbed.max()) and shares.max() == pytest.approx(1.0)
    # (no colour with glare's light taken off, nor a least glared part: both are the balanced one)
    np.testing.assert_allclose(features[7:14], features[0:7])
    np.testing.assert_allclose(features[14:21], features[0:7])
    assert list(features[21:25]) == [0.0, 0.0, 1.0, 0.0]  # measured through glare, least glared, washed, shapeless
    assert list(features[-len(COLOUR_ORDER):]) == [c is Colour.BLUE for c in COLOUR_ORDER]


def test_the_model_learns_a_colour_its_features_tell():
    rng = np.random.default_rng(5)
    labels = rng.integers(0, len(COLOUR_ORDER), 600)
    features = rng.normal(0.0, 1.0, (600, FEATURE_COUNT))
    features[:, :len(COLOUR_ORDER)] += 6.0 * np.eye(len(COLOUR_ORDER))[labels]  # each colour raises one feature
    model = fit_model(features[:400], labels[:400])
    assert (model.weights_of(features[400:]).argmax(axis=1) == labels[400:]).mean() > 0.97
    assert model.colours == COLOUR_ORDER


def test_a_saved_model_reads_back_the_same(tmp_path):
    rng = np.random.default_rng(2)
    model = fit_model(rng.normal(0.0, 1.0, (50, FEATURE_COUNT)), rng.integers(0, len(COLOUR_ORDER), 50))
    model.save(tmp_path / "m.npz", split="dev")
    again = load_model.__wrapped__(tmp_path / "m.npz")
    np.testing.assert_array_equal(again.weights, model.weights)
    assert again.colours == model.colours


def test_a_model_of_the_wrong_size_or_given_other_features_is_refused_saying_what_it_expected():
    with pytest.raises(ValueError, match=rf"expected weights \(5, {FEATURE_COUNT}\).*got \(5, 3\)"):
        GlareColourModel(np.zeros((5, 3)), np.zeros(5), np.zeros(3), np.ones(3), COLOUR_ORDER)
    with pytest.raises(ValueError, match=rf"expected features \(N, {FEATURE_COUNT}\), got \(2, 3\)"):
        load_model().weights_of(np.zeros((2, 3)))


def test_the_shipped_model_was_trained_on_the_dev_split_and_reads_the_print_colours():
    model = load_model()
    assert model.colours == COLOUR_ORDER and model.weights.shape == (len(COLOUR_ORDER), FEATURE_COUNT)
    with np.load("vision/models/glare_colours.npz") as saved:
        assert str(saved["about_split"]) == "dev"


def test_training_marks_are_labelled_with_the_colour_of_the_symbol_they_lie_on():
    # A committed hard dev photo whose cards showing glare the rules read right: each mark read on
    # them is labelled with its true symbol's colour, so labels and the rules' colours agree.
    root = Path(__file__).resolve().parents[2] / "fixtures" / "photos" / "hard"
    truth = json.loads((root / "dev-004.json").read_text())
    features, labels, rules = samples_of_photo(cv2.imread(str(root / "dev-004.jpg")), truth)
    assert len(features) == len(labels) == len(rules) >= 20
    assert labels == rules and len(set(labels)) >= 3
    assert all(f.shape == (FEATURE_COUNT,) for f in features)


def test_an_unreadable_model_file_is_said_once_and_the_rules_read_on(tmp_path, monkeypatch, capsys):
    import vision.glare_colours as glare_colours

    broken = tmp_path / "glare_colours.npz"
    broken.write_bytes(b"not a zip")
    monkeypatch.setattr(glare_colours, "MODEL_PATH", broken)
    glare_colours.shipped_model.cache_clear()
    try:
        card_bgr = cv2.imread(str(Path(__file__).resolve().parents[2] / "fixtures" / "cards" / "hard-1100726884-card0.png"))
        first, second = read_card(card_bgr), read_card(card_bgr)
        _, _, rules = glare_colour_inputs(card_bgr)
    finally:
        glare_colours.shipped_model.cache_clear()
    assert sorted(s.colour for s in first.symbols) == sorted(rules) and first == second
    said = capsys.readouterr().err
    assert said.count("cannot read the glare colour model") == 1 and str(broken) in said
