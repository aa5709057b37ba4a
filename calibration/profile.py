"""The colour profile: the card-face white and the five inks as this camera sees them under this light.

Learned from the symbols of the face-up cards in one frame: every symbol's mean colour on
its white-balanced card (the space the card reader classifies in, CIE Lab with the paper
at L=100), labelled by the reader's own nominal classifier where it is sure, then once
more by the learned centres. Two inks whose learned centres lie closer than
``CONFUSABLE_BELOW`` cannot be told apart reliably under this light, and the profile says
so. The face white (the paper's colour before balancing) is what the live referee watches:
when it drifts far (a lamp switched on), the learned inks no longer hold.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.cards import Colour

__all__ = [
    "ColourProfile", "InkSample", "learn_profile", "ink_samples", "paper_whites", "light_drift",
    "CONFUSABLE_BELOW", "DRIFT_LIMIT", "confusable_pairs", "profile_under_light",
]

# Lab distance (CIE76) between two inks' learned centres below which they are told apart poorly.
CONFUSABLE_BELOW = 18.0
# Chromatic distance (a*, b*) of the face white from the profile's beyond which the light has changed.
DRIFT_LIMIT = 8.0
_SURE = 0.9  # the nominal classifier's confidence needed to label a symbol for learning
_MIN_SYMBOLS = 2  # an ink seen on fewer symbols is not learned


@dataclass(frozen=True)
class InkSample:
    """One symbol's mean colour on its balanced card, CIE Lab, and the card's paper before balancing (BGR 0-255)."""

    lab: tuple[float, float, float]
    paper_bgr: tuple[float, float, float]


@dataclass(frozen=True)
class ColourProfile:
    """How this camera sees the cards under this light.

    Attributes
    ----------
    white_bgr : the card-face paper before balancing, B, G, R in 0-255 (median over the cards).
    inks : each learned ink's centre in balanced CIE Lab (L 0-100); inks not seen are absent.
    counts : how many symbols each ink was learned from.
    confusable : pairs of inks closer than ``CONFUSABLE_BELOW`` and their distance.
    """

    white_bgr: tuple[float, float, float]
    inks: Mapping[Colour, tuple[float, float, float]] = field(default_factory=dict)
    counts: Mapping[Colour, int] = field(default_factory=dict)
    confusable: tuple[tuple[Colour, Colour, float], ...] = ()

    def __post_init__(self) -> None:
        if len(self.white_bgr) != 3 or not all(math.isfinite(v) and 0 <= v <= 255 for v in self.white_bgr):
            raise ValueError(f"white_bgr must be three values in 0-255, got {self.white_bgr!r}")
        for colour, lab in self.inks.items():
            if not isinstance(colour, Colour) or len(lab) != 3 or not all(math.isfinite(v) for v in lab):
                raise ValueError(f"inks must map a Colour to [L, a, b], got {colour!r}: {lab!r}")

    def warnings(self) -> list[str]:
        """One line for each pair of inks told apart poorly, and for each ink not learned."""
        lines = [
            f"{a.value} and {b.value} are hard to tell apart under this light (Lab distance {d:.1f} < {CONFUSABLE_BELOW:g})"
            for a, b, d in self.confusable
        ]
        missing = [c.value for c in Colour if c not in self.inks]
        if missing:
            lines.append(f"not learned (too few symbols seen): {', '.join(missing)}; the reader keeps its nominal model for them")
        return lines


def _balanced_lab(mean_bgr: NDArray[np.floating]) -> NDArray[np.float32]:
    from vision.colours import bgr_to_lab

    return bgr_to_lab(np.asarray(mean_bgr, np.float32).reshape(-1, 3))


def ink_samples(frame_bgr: NDArray[np.uint8], corners: Sequence[NDArray]) -> list[InkSample]:
    """Every symbol's balanced Lab colour on the given cards, as the card reader measures it.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    corners : the face-up cards' corners (4, 2), clockwise, first edge a short side
    """
    from vision.find import warp_card
    from vision.read import WORK_SHORT_SIDE, to_working_size
    from vision.symbols import find_blobs
    from vision.whitebalance import balance_card

    samples = []
    for quad in corners:
        card_bgr = warp_card(frame_bgr, np.asarray(quad, np.float32), short_side=WORK_SHORT_SIDE)
        work_bgr, _ = to_working_size(card_bgr)
        card = balance_card(work_bgr)
        if card is None:
            continue
        blobs = [b for b in find_blobs(card).blobs if b.fill >= 0.9 and not b.doubt]
        if not blobs:
            continue
        labs = _balanced_lab(np.stack([b.mean_bgr for b in blobs]))
        paper = tuple(float(v) for v in card.paper_bgr)
        samples.extend(InkSample(tuple(float(v) for v in lab), paper) for lab in labs)
    return samples


def paper_whites(frame_bgr: NDArray[np.uint8], corners: Sequence[NDArray]) -> NDArray[np.float32]:
    """Each card's paper colour before balancing, (N, 3) BGR 0-255: what :func:`light_drift` compares."""
    from vision.find import warp_card
    from vision.whitebalance import estimate_paper_bgr

    whites = [estimate_paper_bgr(warp_card(frame_bgr, np.asarray(q, np.float32), short_side=40), margin=3) for q in corners]
    return np.array(whites, np.float32).reshape(-1, 3)


def confusable_pairs(inks: Mapping[Colour, Sequence[float]], below: float = CONFUSABLE_BELOW) -> tuple[tuple[Colour, Colour, float], ...]:
    """Pairs of inks whose Lab centres lie closer than ``below``, closest first."""
    pairs = []
    for a, b in itertools.combinations([c for c in Colour if c in inks], 2):
        distance = float(np.linalg.norm(np.subtract(inks[a], inks[b])))
        if distance < below:
            pairs.append((a, b, round(distance, 1)))
    return tuple(sorted(pairs, key=lambda p: p[2]))


def learn_profile(samples: Sequence[InkSample], labels: Sequence[Colour] | None = None) -> ColourProfile:
    """The colour profile from symbol samples; with ``labels`` (known cards), from those colours.

    Without labels, each symbol is labelled by the reader's nominal classifier where it is
    sure, the inks' centres are the medians of their symbols, and every symbol is labelled
    once more by the learned model (so inks the nominal model doubted under this light
    join their own centre).

    Raises
    ------
    ValueError
        When there are no samples, or labels do not match them one to one.
    """
    if not samples:
        raise ValueError("no symbols to learn colours from: expected at least one readable face-up card")
    if labels is not None and len(labels) != len(samples):
        raise ValueError(f"expected one label per sample, got {len(labels)} labels for {len(samples)} samples")
    labs = np.array([s.lab for s in samples], np.float64)
    white = tuple(float(v) for v in np.median(np.array([s.paper_bgr for s in samples]), axis=0))
    if labels is not None:
        inks = _centres(labs, list(labels), np.ones(len(labs), bool))
    else:
        colours, confidence, _ = _classify(labs, None)
        inks = _centres(labs, colours, confidence >= _SURE)
        colours, confidence, _ = _classify(labs, inks)
        inks = _centres(labs, colours, confidence >= _SURE) or inks
    counts = {c: n for c, n in _counts(labs, labels, inks).items() if c in inks}
    return ColourProfile(white, inks, counts, confusable_pairs(inks))


def _classify(labs: NDArray[np.float64], inks: Mapping[Colour, Sequence[float]] | None) -> tuple:
    from vision.colours import classify_colours

    return classify_colours(labs, inks)


def _centres(labs: NDArray[np.float64], colours: Sequence[Colour], sure: NDArray[np.bool_]) -> dict[Colour, tuple[float, float, float]]:
    inks = {}
    for colour in Colour:
        chosen = np.array([c == colour for c in colours]) & sure
        if int(chosen.sum()) >= _MIN_SYMBOLS:
            inks[colour] = tuple(round(float(v), 2) for v in np.median(labs[chosen], axis=0))
    return inks


def _counts(labs: NDArray[np.float64], labels: Sequence[Colour] | None, inks: Mapping[Colour, Sequence[float]]) -> dict[Colour, int]:
    if labels is None:
        labels, _, _ = _classify(labs, inks)
    return {c: sum(1 for label in labels if label == c) for c in Colour}


def _ab(bgr: NDArray[np.floating]) -> NDArray[np.float64]:
    """a*, b* of BGR colours (0-255) scaled to the same brightness, so that only their cast counts."""
    bgr = np.asarray(bgr, np.float32).reshape(-1, 3)
    norm = bgr / np.maximum(bgr.max(axis=1, keepdims=True), 1.0)
    return cv2.cvtColor(norm.reshape(1, -1, 3), cv2.COLOR_BGR2Lab).reshape(-1, 3)[:, 1:].astype(np.float64)


def light_drift(profile: ColourProfile, whites_bgr: NDArray[np.floating]) -> float:
    """How far the cards' face white has moved from the profile's: the median chromatic distance (a*, b*).

    Brightness is left out (light falls off across a table); a change of colour cast is
    what a lamp switched on or the evening's daylight going brings. Above ``DRIFT_LIMIT``
    the learned inks no longer describe the cards: warn, and read without the profile (or
    calibrate again). 0.0 when no card is given.

    Parameters
    ----------
    profile : the calibration's colour profile
    whites_bgr : ndarray (N, 3), the paper of N cards in the current frame (:func:`paper_whites`)
    """
    whites = np.asarray(whites_bgr, np.float64).reshape(-1, 3)
    if len(whites) == 0:
        return 0.0
    reference = _ab(np.array(profile.white_bgr))[0]
    return float(np.median(np.linalg.norm(_ab(whites) - reference, axis=1)))


def profile_under_light(
    profile: ColourProfile | None, whites_bgr: NDArray[np.floating], limit: float = DRIFT_LIMIT
) -> tuple[ColourProfile | None, float]:
    """The profile to read this frame with, and the light drift: None (the nominal inks,
    balanced on each card's own paper) once the cards' white has drifted past ``limit``.

    For the live referee: call it on the tracked cards' whites every second or so, warn
    once when it turns None, and read with what it returns.

    >>> profile_under_light(None, np.zeros((0, 3)))
    (None, 0.0)
    """
    if profile is None:
        return None, 0.0
    drift = light_drift(profile, whites_bgr)
    return (profile if drift <= limit else None), drift
