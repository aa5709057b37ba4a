"""Colour naming: the per-pixel labelling agrees with the per-symbol classifier."""

from __future__ import annotations

import numpy as np

from vision.colours import COLOUR_ORDER, NOMINAL_BGR, bgr_to_lab, classify_colours, label_pixels


def test_label_pixels_agrees_with_classify_colours():
    rng = np.random.default_rng(7)
    inks = bgr_to_lab(np.array([NOMINAL_BGR[c] for c in COLOUR_ORDER], np.float32) / 255.0)
    lab = np.vstack([inks, np.c_[rng.uniform(0, 100, 400), rng.uniform(-90, 90, (400, 2))]])
    best, fit = label_pixels(lab)
    colours, _, expected_fit = classify_colours(lab)
    assert [COLOUR_ORDER[k] for k in best] == colours
    # (in float32, with cv2.cartToPolar's hue good to about 0.3 degrees)
    np.testing.assert_allclose(fit, expected_fit, atol=2e-3)
    assert list(best[:5]) == list(range(5))  # each nominal ink is its own colour
