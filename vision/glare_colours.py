"""A symbol's print colour on a card under glare, from a small model trained on renders.

Glare adds a lamp's light to ink and paper alike and clips the camera's channels it
brightens most, so a washed-out green, black or red keeps little more than its absorption
in blue and reads as yellow; the reader's own rules (``vision.read._colours``) weigh a
symbol's balanced colour, its colour with glare's light taken off and its least glared
part, one rule at a time. This model weighs them all at once: a multinomial logistic
regression over those three colours (each as balanced BGR and as the share of the light
it absorbs per channel), how glare marks the card (its share brightened, clipped and
blind, its paper) and the colour the rules read. It is trained on the project's own
renders, the dev split only, by ``python -m vision.train_glare_colours`` (a quarter of an hour
on two cores); the weights ship in ``vision/models/glare_colours.npz``.

The reader applies it to the symbols of a card that shows glare (``read._shows_glare``):
on held-out dev renders it read 18 of 3,935 such marks' colours wrong where the rules read 31.
Its probability weighs the colour it reads, no more than the rules' weight where they agree
(``read._colours_on``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

from referee.cards import Colour
from vision.blobs import _GAMMA, Blob
from vision.colours import COLOUR_ORDER
from vision.washed import SHAPELESS, WASHED
from vision.whitebalance import BalancedCard

__all__ = ["GlareColourModel", "MODEL_PATH", "FEATURE_COUNT", "glare_colour_features", "load_model", "shipped_model",
           "glare_colour_weights"]

MODEL_PATH = Path(__file__).with_name("models") / "glare_colours.npz"
# Three colours of a mark, each 3 balanced values, 3 absorption shares and the strongest
# absorption; which of them were measured, washed out or shapeless (4); the card's glare,
# clipped and blind shares and the mark's extent (4); the paper (3); the rules' colour (5).
FEATURE_COUNT = 3 * 7 + 4 + 4 + 3 + len(COLOUR_ORDER)


@dataclass(frozen=True)
class GlareColourModel:
    """A multinomial logistic regression: ``softmax(((x - mean) / scale) @ weights.T + bias)``.

    ``weights`` (C, F), ``bias`` (C,), ``mean`` and ``scale`` (F,); ``colours`` the C classes in order.
    """

    weights: NDArray[np.float64]
    bias: NDArray[np.float64]
    mean: NDArray[np.float64]
    scale: NDArray[np.float64]
    colours: tuple[Colour, ...]

    def __post_init__(self) -> None:
        classes, count = len(self.colours), len(self.mean)
        if count != FEATURE_COUNT or self.weights.shape != (classes, count) or self.bias.shape != (classes,) \
                or self.scale.shape != (count,):
            raise ValueError(f"glare colour model: expected weights ({classes}, {FEATURE_COUNT}), bias ({classes},), "
                             f"mean and scale ({FEATURE_COUNT},); got {self.weights.shape}, {self.bias.shape}, "
                             f"{self.mean.shape}, {self.scale.shape}")

    def weights_of(self, features: NDArray[np.float64]) -> NDArray[np.float64]:
        """Each class's probability for features (N, F): (N, C)."""
        if features.ndim != 2 or features.shape[1] != len(self.mean):
            raise ValueError(f"glare colour model: expected features (N, {len(self.mean)}), got {features.shape}")
        logits = ((features - self.mean) / self.scale) @ self.weights.T + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        probabilities = np.exp(logits)
        return probabilities / probabilities.sum(axis=1, keepdims=True)

    def save(self, path: Path, **about: object) -> None:
        """Write the model (and ``about``: how it was trained) as a ``.npz``."""
        np.savez(path, weights=self.weights, bias=self.bias, mean=self.mean, scale=self.scale,
                 colours=np.array([c.value for c in self.colours]),
                 **{f"about_{key}": np.array(value) for key, value in about.items()})


def _absorption(bgr: NDArray[np.float32]) -> list[float]:
    """A balanced colour (paper = 1), its absorption per channel as shares of its strongest, and that strongest."""
    absorbed = 1.0 - np.minimum(np.clip(bgr, 0.0, None), 1.0) ** _GAMMA
    top = float(absorbed.max())
    return [*map(float, bgr), *(absorbed / max(top, 1e-3)).tolist(), top]


def glare_colour_features(blob: Blob, card: BalancedCard, rules_colour: Colour) -> NDArray[np.float64]:
    """The model's inputs for one mark on a balanced card, and the colour the rules read for it: (F,)."""
    through = blob.through_glare_bgr if blob.through_glare_bgr is not None else blob.mean_bgr
    least = blob.least_glared_bgr if blob.least_glared_bgr is not None else blob.mean_bgr
    values = [*_absorption(blob.mean_bgr), *_absorption(through), *_absorption(least),
              blob.through_glare_bgr is not None, blob.least_glared_bgr is not None, WASHED in blob.doubt,
              SHAPELESS in blob.doubt, card.glare, card.clipped, card.blind, blob.extent,
              *(float(v) / 255.0 for v in card.paper_bgr), *(rules_colour is c for c in COLOUR_ORDER)]
    return np.array(values, np.float64)


@lru_cache(maxsize=1)
def load_model(path: Path = MODEL_PATH) -> GlareColourModel:
    """A model saved by ``GlareColourModel.save`` (by default the shipped one; read once)."""
    with np.load(path) as saved:
        return GlareColourModel(saved["weights"].astype(np.float64), saved["bias"].astype(np.float64),
                                saved["mean"].astype(np.float64), saved["scale"].astype(np.float64),
                                tuple(Colour(str(v)) for v in saved["colours"]))


@lru_cache(maxsize=1)
def shipped_model() -> GlareColourModel | None:
    """The shipped model, or None where its file cannot be read (missing, broken, of another
    size), said once on stderr with the file's name: the reader then reads colours under glare
    by its rules alone, and a game in progress goes on."""
    try:
        return load_model(MODEL_PATH)
    except Exception as error:  # (whatever makes the file unreadable: a broken zip, a missing array, a wrong size)
        print(f"vision: {MODEL_PATH}: cannot read the glare colour model ({error}); colours under glare are read "
              "by the rules alone", file=sys.stderr)
        return None


def glare_colour_weights(blobs: Sequence[Blob], card: BalancedCard, rules_colours: Sequence[Colour],
                         model: GlareColourModel) -> tuple[list[Colour], NDArray[np.float64]]:
    """Each mark's likeliest print colour on a card under glare and its probability, by the model:
    (N colours, (N,) float)."""
    features = np.stack([glare_colour_features(b, card, c) for b, c in zip(blobs, rules_colours)])
    weights = model.weights_of(features)
    best = weights.argmax(axis=1)
    return [model.colours[k] for k in best], weights[np.arange(len(best)), best]
