"""Train the glare colour model (``vision.glare_colours``) on the project's own renders.

    python -m vision.train_glare_colours [--count 800] [--start 8000] [--jobs 2] [--out vision/models/glare_colours.npz]

Renders ``--count`` photos of the dev split per tier (medium and hard, photo indices from
``--start``; never the test split), reads every card at least nine tenths in view at its
true corners, and keeps the cards that show glare (``read._shows_glare``). Each mark read on
them is matched to the true symbol at its place (within ``_MATCH`` of the card's sides) and
labelled with that symbol's colour. The model is fitted on the photos but the last fifth,
its error there compared with the rules' (printed), and then fitted again on all of them and
saved (the shipped model: the defaults, 1,600 photos and 20,085 marks, 13 minutes on two cores).
One thread per job.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from fixtures.render import photo_seed, render_photo
from referee.cards import Colour
from vision.colours import COLOUR_ORDER
from vision.glare_colours import MODEL_PATH, GlareColourModel, glare_colour_features
from vision.quads import warp_card
from vision.read import WORK_SHORT_SIDE, glare_colour_inputs

__all__ = ["main", "samples_of_photo", "fit_model"]

_TIERS = ("medium", "hard")
_IN_VIEW = 0.9  # cards and symbols at least this much in view
_MATCH = 0.08  # a mark is the true symbol whose centre lies this near it (shares of the card's sides)
_PENALTY = 1.0  # the weights' L2 penalty, against the summed log loss of every mark
_HELD_OUT = 0.2  # the share of photos (the last) the first fit leaves out to be judged on
_NEWTON_STEPS, _BIAS_RIDGE = 50, 1e-6  # (the biases' tiny ridge settles softmax's one free shift)


def samples_of_photo(frame_bgr: NDArray[np.uint8], truth: dict) -> tuple[list[NDArray[np.float64]], list[int], list[int]]:
    """The features, true colour (index in ``COLOUR_ORDER``) and the rules' colour of every mark
    read on the cards of a photo that show glare, matched to a true symbol."""
    features, labels, rules = [], [], []
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    for true in truth["cards"]:
        if true.get("visible_fraction", 1.0) < _IN_VIEW:
            continue
        corners = np.array(true["corners"], np.float32)
        seen = glare_colour_inputs(warp_card(frame_bgr, corners, short_side=WORK_SHORT_SIDE))
        if seen is None:
            continue
        card, seg, colours = seen
        height, width = card.ink.shape
        to_unit = cv2.getPerspectiveTransform(corners, unit)
        symbols = true["symbols"]
        true_uv = cv2.perspectiveTransform(np.array([s["center"] for s in symbols], np.float32).reshape(-1, 1, 2),
                                           to_unit).reshape(-1, 2)
        for blob, colour in zip(seg.blobs, colours):
            uv = np.array([(blob.center_xy[0] + 0.5) / width, (blob.center_xy[1] + 0.5) / height])
            distance = np.hypot(*(true_uv - uv).T)
            k = int(np.argmin(distance))
            if distance[k] < _MATCH and symbols[k].get("visible_fraction", 1.0) >= _IN_VIEW:
                features.append(glare_colour_features(blob, card, colour))
                labels.append(COLOUR_ORDER.index(Colour(symbols[k]["colour"])))
                rules.append(COLOUR_ORDER.index(colour))
    return features, labels, rules


def _photo_job(job: tuple[str, int]) -> tuple[str, int, list[NDArray[np.float64]], list[int], list[int]]:
    tier, index = job
    frame, truth = render_photo(photo_seed("dev", tier, index), tier)
    return (tier, index, *samples_of_photo(frame, truth))


def fit_model(features: NDArray[np.float64], labels: NDArray[np.int_], penalty: float = _PENALTY) -> GlareColourModel:
    """A multinomial logistic regression of ``labels`` (N,) on ``features`` (N, F), standardized:
    the weights minimizing the summed log loss plus ``penalty`` / 2 times their squares (the
    biases free), found by Newton's method (the loss is convex; a few dozen steps)."""
    classes, count = len(COLOUR_ORDER), features.shape[1]
    mean, scale = features.mean(axis=0), features.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    x = np.hstack([(features - mean) / scale, np.ones((len(features), 1))])
    onehot = np.eye(classes)[labels]
    ridge = np.tile(np.append(np.full(count, penalty), _BIAS_RIDGE), classes)
    theta = np.zeros((classes, count + 1))
    for _ in range(_NEWTON_STEPS):
        logits = x @ theta.T
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        grad = ((p - onehot).T @ x).ravel() + ridge * theta.ravel()
        # d2 loss / d theta[c, i] d theta[d, j] = sum over marks of x_i x_j (p_c [c = d] - p_c p_d)
        curvature = np.einsum("nc,ni,nj->cij", p, x, x)
        hessian = -np.einsum("nc,nd,ni,nj->cidj", p, p, x, x, optimize=True)
        hessian[np.arange(classes), :, np.arange(classes), :] += curvature
        hessian = hessian.reshape(classes * (count + 1), -1) + np.diag(ridge)
        step = np.linalg.solve(hessian, grad)
        theta -= step.reshape(classes, count + 1)
        if np.abs(step).max() < 1e-8:
            break
    return GlareColourModel(theta[:, :count], theta[:, count], mean, scale, COLOUR_ORDER)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.train_glare_colours", description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=800, help="photos per tier (default: 800)")
    parser.add_argument("--start", type=int, default=8000, help="first dev photo index (default: 8000)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default: 2)")
    parser.add_argument("--out", type=Path, default=MODEL_PATH, help=f"where to save the model (default: {MODEL_PATH})")
    parser.add_argument("--samples", type=Path, help="also save the marks' features, labels and the rules' colours (.npz)")
    args = parser.parse_args(argv)
    if args.count < 5 or args.jobs < 1:
        parser.error("--count must be >= 5 and --jobs >= 1")
    jobs = [(tier, index) for index in range(args.start, args.start + args.count) for tier in _TIERS]
    started = time.perf_counter()
    rows: list[tuple[int, NDArray[np.float64], int, int]] = []  # (photo index, features, label, rules)
    with ProcessPoolExecutor(args.jobs, initializer=cv2.setNumThreads, initargs=(1,)) as pool:
        for done, (tier, index, features, labels, rules) in enumerate(pool.map(_photo_job, jobs, chunksize=2), 1):
            rows += [(index, f, y, r) for f, y, r in zip(features, labels, rules)]
            if done % 50 == 0:
                print(f"{done}/{len(jobs)} photos, {len(rows)} marks, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    if not rows:
        print("train_glare_colours: no mark on a card under glare was read; nothing to fit", file=sys.stderr)
        return 1
    index = np.array([r[0] for r in rows])
    features = np.stack([r[1] for r in rows])
    labels, rules = np.array([r[2] for r in rows]), np.array([r[3] for r in rows])
    if args.samples:
        np.savez_compressed(args.samples, features=features, labels=labels, rules=rules, photo=index)
    held = index >= args.start + round((1 - _HELD_OUT) * args.count)
    first = fit_model(features[~held], labels[~held])
    learned = first.weights_of(features[held]).argmax(axis=1)
    wrong_rules, wrong_model = int((rules[held] != labels[held]).sum()), int((learned != labels[held]).sum())
    print(f"held-out photos: {int(held.sum())} marks; colours read wrong by the rules {wrong_rules}, by the model {wrong_model} "
          f"(fixed {int(((learned == labels[held]) & (rules[held] != labels[held])).sum())}, "
          f"broken {int(((learned != labels[held]) & (rules[held] == labels[held])).sum())})")
    model = fit_model(features, labels)
    model.save(args.out, tiers=",".join(_TIERS), split="dev", photos=f"{args.start}-{args.start + args.count - 1}",
               marks=len(rows), held_out_wrong=f"rules {wrong_rules}, model {wrong_model} of {int(held.sum())}")
    print(f"{len(rows)} marks from {len(jobs)} photos in {time.perf_counter() - started:.0f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
