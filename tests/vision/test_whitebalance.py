"""White balance from the card's own paper: the colour of glare's added light."""

import numpy as np
import pytest

from vision.whitebalance import _channels_max, _channels_min, balance_card

_PAPER_BGR = (170, 185, 205)


def _card_with_glare(tint_bgr, amount, paper_bgr=_PAPER_BGR):
    """An 80x120 card of plain paper with two black squares and a glare spot of the given
    colour (B, G, R, linear) added in linear light at its middle, encoded with gamma 2.2."""
    card = np.empty((120, 80, 3), np.uint8)
    card[:] = paper_bgr
    card[15:35, 15:35] = 30
    card[85:105, 45:65] = 30
    linear = (card.astype(np.float32) / 255.0) ** 2.2
    yy, xx = np.mgrid[0:120, 0:80].astype(np.float32)
    spot = amount * np.exp(-((xx - 40.0) ** 2 + (yy - 60.0) ** 2) / (2 * 14.0**2))
    glared = np.minimum(linear + spot[..., None] * np.float32(tint_bgr), 1.0)
    return np.clip(255.0 * glared ** (1 / 2.2) + 0.5, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("tint_bgr", [(0.25, 0.6, 1.0), (1.0, 0.8, 0.6), (0.5, 1.0, 0.5)], ids=["warm", "cold", "green"])
def test_glare_colour_is_read_relative_to_the_paper(tint_bgr):
    card = balance_card(_card_with_glare(tint_bgr, 0.25))
    expected = np.float32(tint_bgr) / (np.float32(_PAPER_BGR) / 255.0) ** 2.2
    np.testing.assert_allclose(card.glare_bgr, expected / expected.max(), atol=0.05)


def test_glare_colour_is_read_where_it_clips_one_channel_of_every_cell_it_brightens():
    # Paper whose red is near the top clips red wherever glare brightens it: blue and green
    # still show the glare's colour there, and red, clipped first, is taken as its largest.
    paper = (170, 185, 236)
    card = balance_card(_card_with_glare((0.2, 0.5, 1.0), 0.25, paper))
    relative = np.float32((0.2, 0.5, 1.0)) / (np.float32(paper) / 255.0) ** 2.2
    assert card.glare_bgr is not None and card.glare_bgr[2] == 1.0
    assert card.glare_bgr[0] / card.glare_bgr[1] == pytest.approx(relative[0] / relative[1], abs=0.05)


def test_a_card_without_glare_has_no_glare_colour():
    assert balance_card(_card_with_glare((1.0, 1.0, 1.0), 0.0)).glare_bgr is None


def test_channels_min_and_max_are_numpys_reductions_over_the_channels():
    grid = np.random.default_rng(3).normal(100.0, 60.0, (12, 8, 3)).astype(np.float32)
    grid[0, 0] = (-0.0, 0.0, 5.0)  # ties and signed zeros come out as numpy's
    np.testing.assert_array_equal(_channels_min(grid), grid.min(axis=2))
    np.testing.assert_array_equal(_channels_max(grid), grid.max(axis=2))
    assert _channels_min(grid).dtype == np.float32 and _channels_min(grid).shape == (12, 8)
