"""Benchmarks of the frame pipeline on rendered fixtures: accuracy per tier, and speed.

    python -m vision.bench accuracy --tier hard --split test --count 200
    python -m vision.bench accuracy DIR [DIR ...]          # NAME.jpg + NAME.json pairs
    python -m vision.bench rows DIR [DIR ...]              # the arrangement alone, from the true cards
    python -m vision.bench rows --layouts medium --count 1500   # ... on tables planned, not painted
    python -m vision.bench speed [--tier hard]

Both pin OpenCV and BLAS to one thread and report medians. Never tune on the test split.
"""

from __future__ import annotations

import os

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Iterator  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from calibration.seats import Seat  # noqa: E402

__all__ = ["main", "match_cards", "in_view_band", "what_lies_under", "glare_falls_on", "score_arrangement", "ArrangementTally",
           "Tally"]

_VISIBLE_ENOUGH = 0.75  # a pool card hidden by more than a quarter may be skipped
# A card less in view, lying partly under another, is fed to the arrangement as a card beneath
# from this much in view (``vision.beneath`` finds such cards by their part in view).
_BENEATH_IN_VIEW = 0.2
# A symbol at least this much in view shows its colour and shape; a card with a symbol more
# hidden (a hand over a card otherwise in view) can't have its triple told from the photo.
_SYMBOL_IN_VIEW = 0.9
# A symbol less in view than this (under a hand, a mug, another card) shows nothing of it: no
# reader can count it from the photo. The share of the cards found whose every symbol shows
# at least this much is the most a perfect reader could read exactly (glare washing a symbol
# out is not in the truth files: the real limit is lower still).
_SYMBOL_SHOWS = 0.1
# A card found whose quad has a corner this many of the card's short sides or more from every
# true corner lies off its card (round part of a neighbour, or cut short): a misread in plain view
# is then the finder's, not the reader's.
_QUAD_OFF = 0.15
# Recall is also told by how much of a card is in view: a card under a neighbour or a back by
# a tenth or more is a harder find than one in full view, and mostly can't be read exactly.
_IN_VIEW_BANDS = ((0.95, "19/20 or more"), (0.9, "9/10 to 19/20"), (_VISIBLE_ENOUGH, "3/4 to 9/10"))


def _overlap(a: np.ndarray, b: np.ndarray, b_visible: float = 1.0) -> tuple[float, float]:
    """Intersection over union of two convex quads, and the same with only ``b_visible``
    of ``b`` in view (as if its hidden part were spread evenly over it)."""
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    inter, _ = cv2.intersectConvexConvex(a32, b32)
    area_a, area_b = cv2.contourArea(a32), cv2.contourArea(b32)
    union = area_a + area_b - inter
    seen_union = area_a + b_visible * (area_b - inter)
    return (float(inter / union) if union > 0 else 0.0,
            float(b_visible * inter / seen_union) if seen_union > 0 else 0.0)


# What a card found that matches no true card lies over (``what_lies_under``), by its overlap
# (intersection over union) with each kind of thing the truth files outline, the first that
# reaches _UNDER_IOU in this order.
_UNDER_IOU = 0.25
HELD_CARD = "a card held in a hand above the table"
CARD_OFF = "a true card, the quad off it (partly hidden, merged or cut)"
FACE_DOWN = "a face-down card"
OBJECT = "a point card or a phone"
NOTHING_OUTLINED = "none of these (a hand, a mug, the table)"


def what_lies_under(quad: np.ndarray, truth: dict[str, Any]) -> str:
    """What a card found (``quad`` (4, 2), frame pixels) that matches no true card lies over: a
    card held above the table (not on it: the truth's distractor), a true card it is off
    (overlapping it less than a match asks), a face-down card, a point card or a phone; or
    none of those."""
    held = [d["corners"] for d in truth.get("distractors", []) if d.get("kind") == "held_card"]
    objects = [d["corners"] for d in truth.get("distractors", []) if d.get("kind") != "held_card" and "corners" in d]
    for kind, outlines in ((HELD_CARD, held), (CARD_OFF, [c["corners"] for c in truth["cards"]]),
                           (FACE_DOWN, [c["corners"] for c in truth.get("face_down", [])]), (OBJECT, objects)):
        if any(_overlap(quad, np.array(outline, np.float64))[0] >= _UNDER_IOU for outline in outlines):
            return kind
    return NOTHING_OUTLINED


def glare_falls_on(card: dict[str, Any], truth: dict[str, Any]) -> bool:
    """Whether the lamp's glare spot (the truth's ``conditions.glare_px``, aimed at a card where
    ``glare_on_card``) lies on the true card ``card`` (its corners)."""
    conditions = truth.get("conditions", {})
    spot = conditions.get("glare_px")
    if not conditions.get("glare_on_card") or spot is None:
        return False
    outline = np.array(card["corners"], np.float32).reshape(-1, 1, 2)
    return cv2.pointPolygonTest(outline, (float(spot[0]), float(spot[1])), False) >= 0


def in_view_band(visible: float) -> str:
    """The band of ``_IN_VIEW_BANDS`` a card with this share of it in view (at least
    ``_VISIBLE_ENOUGH``) falls in."""
    for least, band in _IN_VIEW_BANDS[:-1]:
        if visible >= least:
            return band
    return _IN_VIEW_BANDS[-1][1]


def match_cards(found: list[np.ndarray], truth: list[np.ndarray], min_iou: float = 0.5,
                visible: list[float] | None = None) -> dict[int, int]:
    """Greedy one-to-one matching of found quads to true quads by overlap: found index -> true
    index. A pair needs ``min_iou``; with the true cards' ``visible`` fractions, pairs are
    taken by their overlap with what is in view, so that a quad of a card lying on top of
    another is the top card's, not that of the card hidden under it."""
    visible = visible if visible is not None else [1.0] * len(truth)
    pairs = []
    for i, quad in enumerate(found):
        centre = quad.mean(axis=0)
        for j, true in enumerate(truth):
            if np.linalg.norm(true.mean(axis=0) - centre) > np.linalg.norm(true[0] - true[2]):
                continue
            iou, seen = _overlap(quad, true, visible[j])
            if iou >= min_iou:
                pairs.append((seen, iou, i, j))
    matched: dict[int, int] = {}
    used = set()
    for _, _, i, j in sorted(pairs, reverse=True):
        if i not in matched and j not in used:
            matched[i] = j
            used.add(j)
    return matched


@dataclass
class Tally:
    """Counts over a set of photos."""

    photos: int = 0
    true_cards: int = 0
    due_in_view: Counter = field(default_factory=Counter)  # the cards due, by how much of them is in view (_IN_VIEW_BANDS)
    found_in_view: Counter = field(default_factory=Counter)
    found_true: int = 0
    found: int = 0
    false_found: int = 0
    false_by: Counter = field(default_factory=Counter)  # what lies under the cards found that match no true card
    false_sure: int = 0  # of those, read surely: a card no person is asked to look at
    triples_right: int = 0
    symbols_in_view: int = 0  # cards found whose every symbol is in view
    symbols_in_view_right: int = 0
    in_view_under_glare: int = 0  # of those, the card the glare spot lies on
    in_view_under_glare_right: int = 0
    symbols_showing: int = 0  # cards found whose every symbol shows at least in part
    misread_by: Counter = field(default_factory=Counter)  # the cards found and misread, by cause (_MISREAD_CAUSES)
    criteria_right: Counter = field(default_factory=Counter)
    colour_confusion: Counter = field(default_factory=Counter)
    shape_confusion: Counter = field(default_factory=Counter)
    wrong_read_low_conf: int = 0
    right_read_low_conf: int = 0
    rows: int = 0
    rows_right: int = 0
    rows_all_found: int = 0
    rows_all_found_right: int = 0
    rows_in_view: int = 0  # every card of the row at least 3/4 visible: what one photo can show
    rows_in_view_right: int = 0
    verdicts_in_view_right: int = 0
    verdicts_right: int = 0
    rankings: int = 0
    rankings_right: int = 0
    wrong_verdicts_flagged: int = 0
    right_verdicts_flagged: int = 0
    right_flagged_by: Counter = field(default_factory=Counter)  # what flagged them (a row may count under several)
    wrong_flagged_by: Counter = field(default_factory=Counter)
    wrong_verdicts_rowless: int = 0  # no row found for the seated player: named in players_without_row
    rulebook_lengths: list = field(default_factory=list)
    ms: list = field(default_factory=list)
    failures: list = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        def pct(a: int, b: int) -> float | None:
            return round(100.0 * a / b, 2) if b else None

        matched = self.found_true or 1
        wrong_reads = self.found_true - self.triples_right
        return {
            "photos": self.photos,
            "card_recall_pct": pct(self.found_true, self.true_cards),
            "card_precision_pct": pct(self.found - self.false_found, self.found),
            "card_recall_by_share_in_view_pct": {band: pct(self.found_in_view[band], self.due_in_view[band])
                                                 for _, band in _IN_VIEW_BANDS},
            "cards_due_by_share_in_view": {band: self.due_in_view[band] for _, band in _IN_VIEW_BANDS},
            "false_cards_by_what_lies_under": dict(self.false_by.most_common()),
            "false_cards_read_surely": self.false_sure,
            "exact_triple_pct": pct(self.triples_right, self.found_true),
            # (found and read exactly, of all the cards due: a change that finds hard cards and
            # misreads some of them lowers the exact share of those found, not this one)
            "cards_read_right_pct": pct(self.triples_right, self.true_cards),
            "cards_found_with_every_symbol_in_view": self.symbols_in_view,
            "exact_triple_when_every_symbol_in_view_pct": pct(self.symbols_in_view_right, self.symbols_in_view),
            # (of those, the cards the lamp's glare spot lies on, and the rest: where in-view misreads come from)
            "cards_in_view_under_glare": self.in_view_under_glare,
            "exact_triple_in_view_under_glare_pct": pct(self.in_view_under_glare_right, self.in_view_under_glare),
            "exact_triple_in_view_without_glare_pct": pct(self.symbols_in_view_right - self.in_view_under_glare_right,
                                                          self.symbols_in_view - self.in_view_under_glare),
            # (of the cards found, those whose every symbol shows at least _SYMBOL_SHOWS: what one
            # photo lets any reader read exactly, the bound of exact_triple_pct)
            "exact_triple_ceiling_pct": pct(self.symbols_showing, self.found_true),
            # (where the misreads come from: the photo hides a symbol, the finder's quad is off its card, glare, the rest)
            "misread_cards_by_cause": {cause: self.misread_by[cause] for cause in _MISREAD_CAUSES},
            "per_criterion_pct": {k: pct(v, matched) for k, v in sorted(self.criteria_right.items())},
            "low_confidence_share_of_wrong_reads_pct": pct(self.wrong_read_low_conf, wrong_reads),
            "low_confidence_share_of_right_reads_pct": pct(self.right_read_low_conf, self.triples_right),
            "rows": self.rows,
            "row_accuracy_pct": pct(self.rows_right, self.rows),
            "rows_with_all_cards_found": self.rows_all_found,
            "row_accuracy_when_all_cards_found_pct (arrangement)": pct(self.rows_all_found_right, self.rows_all_found),
            "verdict_accuracy_pct": pct(self.verdicts_right, self.rows),
            "rows_with_every_card_in_view": self.rows_in_view,
            "row_accuracy_when_every_card_in_view_pct": pct(self.rows_in_view_right, self.rows_in_view),
            "verdict_accuracy_when_every_card_in_view_pct": pct(self.verdicts_in_view_right, self.rows_in_view),
            "ranking_exact_pct": pct(self.rankings_right, self.rankings),
            "wrong_verdicts_flagged_uncertain_pct": pct(self.wrong_verdicts_flagged, self.rows - self.verdicts_right),
            "right_verdicts_flagged_uncertain_pct": pct(self.right_verdicts_flagged, self.verdicts_right),
            "wrong_verdicts_flagged_or_named_rowless_pct": pct(self.wrong_verdicts_flagged + self.wrong_verdicts_rowless,
                                                               self.rows - self.verdicts_right),
            # (as counts: the worst failure, a wrong verdict the table would take as it is, against
            # the cost of flags, a person asked to look at a row that was right)
            "wrong_verdicts_not_flagged": self.rows - self.verdicts_right - self.wrong_verdicts_flagged - self.wrong_verdicts_rowless,
            "right_verdicts_flagged": self.right_verdicts_flagged,
            # (what flagged them, TableRow.flags: a row flagged for two things counts under both)
            "right_verdicts_flagged_by": dict(self.right_flagged_by.most_common()),
            "wrong_verdicts_flagged_by": dict(self.wrong_flagged_by.most_common()),
            "rulebook_valid_lengths": self.rulebook_lengths,
            "median_ms_per_photo": round(float(np.median(self.ms)), 1) if self.ms else None,
            "colour_confusion (true->read: n)": {f"{a}->{b}": n for (a, b), n in sorted(self.colour_confusion.items()) if a != b},
            "shape_confusion (true->read: n)": {f"{a}->{b}": n for (a, b), n in sorted(self.shape_confusion.items()) if a != b},
            "failures": self.failures,
        }


_MISREAD_CAUSES = ("a symbol hidden (under a tenth in view)", "a symbol partly hidden", "in view, the quad off its card",
                   "in view, under glare", "in view, other")


def corner_error(found_xy: np.ndarray, true_xy: np.ndarray) -> float:
    """How far a found quad's corner lies from the true card's nearest corner at most, in the
    true card's short sides (0 for a quad on its card's corners)."""
    true_xy = np.asarray(true_xy, np.float64)
    short = float(min(np.linalg.norm(true_xy - np.roll(true_xy, -1, axis=0), axis=1)))
    distances = np.linalg.norm(np.asarray(found_xy, np.float64)[:, None] - true_xy[None], axis=2)
    return float(distances.min(axis=1).max()) / max(short, 1e-9)


def misread_cause(true_card: dict[str, Any], glared: bool, quad_error: float) -> str:
    """What kept a misread card found from being read (one of ``_MISREAD_CAUSES``, the first that
    holds): a symbol the photo hides, all or in part; in view, a quad off its card (``_QUAD_OFF``);
    the lamp's glare spot on it (``glared``); none of these."""
    visible = min((s.get("visible_fraction", 1.0) for s in true_card["symbols"]), default=1.0)
    if visible < _SYMBOL_SHOWS:
        return _MISREAD_CAUSES[0]
    if visible < _SYMBOL_IN_VIEW:
        return _MISREAD_CAUSES[1]
    if quad_error >= _QUAD_OFF:
        return _MISREAD_CAUSES[2]
    return _MISREAD_CAUSES[3] if glared else _MISREAD_CAUSES[4]


def score_photo(tally: Tally, frame: np.ndarray, truth: dict[str, Any], name: str) -> None:
    """Referee one photo with its true seats and add the comparison with the truth to ``tally``."""
    from referee.cli.table import UNCERTAIN_BELOW, referee_frame

    seats = [Seat(s["name"], tuple(s["position"])) for s in truth["seats"]]
    start = time.perf_counter()
    result = referee_frame(frame, seats)
    tally.ms.append(1000 * (time.perf_counter() - start))
    tally.photos += 1
    true_cards = truth["cards"]
    true_quads = [np.array(c["corners"], np.float64) for c in true_cards]
    found_quads = [c.corners_xy.astype(np.float64) for c in result.cards]
    matched = match_cards(found_quads, true_quads, visible=[c.get("visible_fraction", 1.0) for c in true_cards])
    countable = {j for j, c in enumerate(true_cards) if c.get("visible_fraction", 1.0) >= _VISIBLE_ENOUGH}
    tally.true_cards += len(countable)
    band_of = {j: in_view_band(true_cards[j].get("visible_fraction", 1.0)) for j in countable}
    tally.due_in_view.update(band_of.values())
    tally.found_in_view.update(band_of[j] for j in matched.values() if j in countable)
    tally.found += len(found_quads)
    tally.false_found += len(found_quads) - len(matched)
    false_sure = sum(1 for i, card in enumerate(result.cards) if i not in matched and card.reading.confidence >= UNCERTAIN_BELOW)
    tally.false_sure += false_sure
    if len(found_quads) > len(matched):
        sure = f" ({false_sure} read surely)" if false_sure else ""
        tally.failures.append(f"{name}: {len(found_quads) - len(matched)} false card(s){sure}")
    tally.false_by.update(what_lies_under(quad, truth) for i, quad in enumerate(found_quads) if i not in matched)
    for i, j in matched.items():
        if j in countable:
            tally.found_true += 1
        read = result.cards[i].reading
        true = true_cards[j]
        right = read.criteria.as_dict() == true["criteria"]
        if j in countable:
            tally.triples_right += right
            in_view = all(s.get("visible_fraction", 1.0) >= _SYMBOL_IN_VIEW for s in true["symbols"])
            tally.symbols_in_view += in_view
            tally.symbols_in_view_right += in_view and right
            glared = in_view and glare_falls_on(true, truth)
            tally.in_view_under_glare += glared
            tally.in_view_under_glare_right += glared and right
            tally.symbols_showing += all(s.get("visible_fraction", 1.0) >= _SYMBOL_SHOWS for s in true["symbols"])
            for key in ("colours", "shapes", "symbols"):
                tally.criteria_right[key] += getattr(read.criteria, key) == true["criteria"][key]
            low = read.confidence < UNCERTAIN_BELOW
            tally.wrong_read_low_conf += (not right) and low
            tally.right_read_low_conf += right and low
            if not right:
                cause = misread_cause(true, glared, corner_error(found_quads[i], true_quads[j]))
                tally.misread_by[cause] += 1
                # (a wrong reading the referee is sure of is the worst kind: no one is asked to look)
                sure = "" if low else f" (read surely: {read.confidence:.2f})"
                tally.failures.append(f"{name}: card {j} read {read.criteria.as_list()} true {list(true['criteria'].values())}"
                                      f" [{cause}]{sure}")
        _confusions(tally, read.symbols, true["symbols"])
    missed = countable - set(matched.values())
    for j in sorted(missed):
        tally.failures.append(f"{name}: missed card {j} ({true_cards[j].get('where')})")
    true_of = {i: true_cards[j]["id"] for i, j in matched.items()}
    visible = {c["id"]: c.get("visible_fraction", 1.0) for c in true_cards}
    found_rows = {row.player: row for row in result.rows}
    for true_row in truth["rows"]:
        tally.rows += 1
        row = found_rows.get(true_row["player"])
        sequence = [true_of.get(k) for k in row.cards] if row else []
        tally.rows_right += sequence == true_row["cards"]
        # Every card of the row found and read: a wrong row is then the arrangement's.
        if set(true_row["cards"]) <= set(true_of.values()):
            tally.rows_all_found += 1
            tally.rows_all_found_right += sequence == true_row["cards"]
            if sequence != true_row["cards"]:
                tally.failures.append(f"{name}: arrangement: {true_row['player']} row {sequence} true {true_row['cards']} (all found)")
        error = true_row["first_error"]
        verdict_right = row is not None and row.verdict.valid_length == true_row["valid_length"] and (
            (row.verdict.first_error is None and error is None)
            or (row.verdict.first_error is not None and error is not None and row.verdict.first_error.position == error["position"])
        )
        tally.verdicts_right += verdict_right
        tally.right_verdicts_flagged += verdict_right and row.uncertain
        if row is not None:
            (tally.right_flagged_by if verdict_right else tally.wrong_flagged_by).update(row.flags)
        # A card more than a quarter hidden (mostly under a hand) can't be read from this photo.
        in_view = all(visible[k] >= _VISIBLE_ENOUGH for k in true_row["cards"])
        tally.rows_in_view += in_view
        tally.rows_in_view_right += in_view and sequence == true_row["cards"]
        tally.verdicts_in_view_right += in_view and verdict_right
        if not verdict_right:
            flagged = bool(row and row.uncertain)
            rowless = true_row["player"] in result.rowless
            tally.wrong_verdicts_flagged += flagged
            tally.wrong_verdicts_rowless += rowless
            # (a wrong verdict given without a flag, for a player named: the table would take it as it is)
            unflagged = "" if flagged or rowless else " (verdict wrong, not flagged)"
            tally.failures.append(f"{name}: {true_row['player']} row {sequence} true {true_row['cards']}{unflagged}")
    if truth.get("rulebook") or name.startswith("rulebook"):
        tally.rulebook_lengths.append([found_rows[r["player"]].verdict.valid_length if r["player"] in found_rows else None for r in truth["rows"]])
    tally.rankings += 1
    tally.rankings_right += [(r.player, r.place) for r in result.ranking] == [(r["player"], r["place"]) for r in truth["ranking"]]


@dataclass
class ArrangementTally:
    """Rows and verdicts from the true cards: what the arrangement gets right with a perfect finder and reader."""

    photos: int = 0
    rows: int = 0
    rows_fed: int = 0
    rows_right: int = 0
    verdicts_right: int = 0
    verdicts_right_fed: int = 0
    rankings_right: int = 0
    wrong_verdicts_flagged: int = 0
    wrong_verdicts_unflagged: int = 0
    right_verdicts_flagged: int = 0
    failures: list = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        def pct(a: int, b: int) -> float | None:
            return round(100.0 * a / b, 2) if b else None

        return {
            "photos": self.photos,
            "rows": self.rows,
            "rows_with_a_card_not_fed (hidden)": self.rows - self.rows_fed,
            "row_accuracy_pct": pct(self.rows_right, self.rows),
            "row_accuracy_of_rows_fed_whole_pct": pct(self.rows_right, self.rows_fed),
            "verdict_accuracy_pct": pct(self.verdicts_right, self.rows),
            "verdict_accuracy_of_rows_fed_whole_pct": pct(self.verdicts_right_fed, self.rows_fed),
            "ranking_exact_pct": pct(self.rankings_right, self.photos),
            # (flagged by what the arrangement itself tells: a card at the meeting of two rows, a gap, a card beneath)
            "wrong_verdicts_flagged": self.wrong_verdicts_flagged,
            "wrong_verdicts_not_flagged": self.wrong_verdicts_unflagged,
            "right_verdicts_flagged": self.right_verdicts_flagged,
            "failures": self.failures,
        }


def score_arrangement(tally: ArrangementTally, truth: dict[str, Any], seats: list[Seat], name: str,
                      min_visible: float = _VISIBLE_ENOUGH) -> None:
    """Arrange the true cards (those at least ``min_visible`` visible) and referee them.

    The reader is taken as perfect: criteria come from the truth, verdicts and ranking
    from the rules referee, so every wrong row is the arrangement's. Cards less visible, but
    at least ``_BENEATH_IN_VIEW``, that lie partly under a card fed are fed as cards beneath
    (as ``vision.beneath`` finds them). A verdict is flagged as ``referee check`` flags it
    from the arrangement alone: for a card disputed with a neighbour's row, a gap or a card
    beneath (no doubtful reading, no covered row end: those need the photo).
    """
    from referee.cards import Criteria
    from referee.cli.table import TableRow, with_deciding_disputes
    from referee.ranking import rank_players
    from referee.rows import check_row
    from vision.arrange import arrange_rows, row_gaps, separations
    from vision.pipeline import DetectedCard
    from vision.records import CardReading

    fed = [c for c in truth["cards"] if c.get("visible_fraction", 1.0) >= min_visible]
    corners = [np.array(c["corners"], np.float64) for c in fed]
    beneath = [quad for quad in (np.array(c["corners"], np.float64) for c in truth["cards"]
                                 if _BENEATH_IN_VIEW <= c.get("visible_fraction", 1.0) < min_visible)
               if corners and separations(np.repeat(quad[None], len(corners), axis=0), np.array(corners)).min() < 0]
    size_wh = (truth["image"]["width"], truth["image"]["height"])
    criteria = {c["id"]: Criteria(**c["criteria"]) for c in truth["cards"]}
    cards = [DetectedCard(quad.astype(np.float32), CardReading((), criteria[c["id"]], 1.0, True)) for c, quad in zip(fed, corners)]
    rows = []
    for row in arrange_rows(corners, seats, size_wh, beneath if seats else ()):
        read = tuple(k for k in row.cards if k < len(fed))
        if not read:  # (a row of cards beneath alone: its player is named rowless)
            continue
        hidden = tuple(sum(k < len(fed) for k in row.cards[:i]) for i, k in enumerate(row.cards) if k >= len(fed))
        rows.append(TableRow(row.player, read, check_row([criteria[fed[k]["id"]] for k in read]), (),
                             gaps=row_gaps([corners[k] for k in read]), hidden=hidden,
                             disputed=tuple(d for d in row.disputed if d[0] < len(fed))))
    found_rows = {row.player: row for row in with_deciding_disputes(rows, cards)}
    tally.photos += 1
    fed_ids = {c["id"] for c in fed}
    for true_row in truth["rows"]:
        tally.rows += 1
        fed_whole = set(true_row["cards"]) <= fed_ids
        tally.rows_fed += fed_whole
        row = found_rows.get(true_row["player"])
        sequence = [fed[k]["id"] for k in row.cards] if row else []
        tally.rows_right += sequence == true_row["cards"]
        error = true_row["first_error"]
        verdict_right = row is not None and row.verdict.valid_length == true_row["valid_length"] and (
            (row.verdict.first_error is None) == (error is None)
            and (error is None or row.verdict.first_error.position == error["position"])
        )
        tally.verdicts_right += verdict_right
        tally.verdicts_right_fed += fed_whole and verdict_right
        flagged = row is None or row.uncertain  # (a player with no row is named rowless)
        tally.right_verdicts_flagged += verdict_right and flagged
        tally.wrong_verdicts_flagged += not verdict_right and flagged
        tally.wrong_verdicts_unflagged += not verdict_right and not flagged
        if sequence != true_row["cards"]:
            where = {c["id"]: c["where"] for c in truth["cards"]}
            strays = [k for k in sequence if where.get(k) != "row" or k not in true_row["cards"]]
            tally.failures.append(f"{name}: {true_row['player']} row {sequence} true {true_row['cards']}"
                                  + (f" (not this row's: {strays})" if strays else "")
                                  + ("" if fed_whole else " [a card not fed]")
                                  + ("" if verdict_right or flagged else " (verdict wrong, not flagged)"))
    ranking = rank_players({player: ([criteria[fed[k]["id"]] for k in row.cards], row.verdict) for player, row in found_rows.items()})
    tally.rankings_right += [(r.player, r.place) for r in ranking] == [(r["player"], r["place"]) for r in truth["ranking"]]


def _layouts(tier: str, count: int, start: int) -> Iterator[tuple[str, dict, list[Seat]]]:
    """The dev split's tables, nothing painted (``fixtures.render.plan_layout``): photo ``index``'s
    truth as ``accuracy --split dev`` renders it, cards hidden only by cards."""
    from fixtures.render import photo_seed, plan_layout

    for index in range(start, start + count):
        truth = plan_layout(photo_seed("dev", tier, index), tier)
        yield f"{tier}-dev-{index:04d}", truth, [Seat(s["name"], tuple(s["position"])) for s in truth["seats"]]


def _truths_in(folders: list[Path]) -> Iterator[tuple[str, dict, list[Seat]]]:
    """Each photo's truth and its seats file (NAME.seats.yaml, else the truth's seats), images not read."""
    from calibration.config import load_calibration

    for folder in folders:
        for truth_path in sorted(folder.glob("*.json")):
            truth = json.loads(truth_path.read_text())
            seats_path = truth_path.with_suffix(".seats.yaml")
            if seats_path.exists():
                seats = list(load_calibration(seats_path).seats)
            else:
                seats = [Seat(s["name"], tuple(s["position"])) for s in truth["seats"]]
            yield f"{folder.name}/{truth_path.stem}", truth, seats


def _confusions(tally: Tally, symbols: tuple, true_symbols: list[dict[str, Any]]) -> None:
    """Pair read symbols with true ones by nearest centre and count (true, read) colours and shapes."""
    if not symbols or not true_symbols:
        return
    true_xy = np.array([s["center"] for s in true_symbols], np.float64)
    for symbol in symbols:
        j = int(np.argmin(np.linalg.norm(true_xy - np.array(symbol.center_xy), axis=1)))
        tally.colour_confusion[(true_symbols[j]["colour"], symbol.colour.value)] += 1
        tally.shape_confusion[(true_symbols[j]["shape"], symbol.shape.value)] += 1


def _photos_in(folders: list[Path]) -> Iterator[tuple[str, np.ndarray, dict]]:
    for folder in folders:
        for truth_path in sorted(folder.glob("*.json")):
            image_path = truth_path.with_suffix(".jpg")
            frame = cv2.imread(str(image_path))
            if frame is None:
                print(f"bench: {image_path}: cannot read, skipped", file=sys.stderr)
                continue
            yield truth_path.stem, frame, json.loads(truth_path.read_text())


def _rendered(tier: str, split: str, count: int, start: int) -> Iterator[tuple[str, np.ndarray, dict]]:
    from fixtures.render import photo_seed, render_photo

    for index in range(start, start + count):
        seed = photo_seed(split, tier, index)
        frame, truth = render_photo(seed, tier)
        yield f"{tier}-{split}-{index:04d}", frame, truth


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    acc = sub.add_parser("accuracy", help="cards, readings, rows, verdicts and ranking against ground truth")
    acc.add_argument("folders", nargs="*", type=Path, help="folders of NAME.jpg + NAME.json (default: render on the fly)")
    acc.add_argument("--tier", choices=["easy", "medium", "hard"], default="hard")
    acc.add_argument("--split", choices=["dev", "test"], default="dev")
    acc.add_argument("--count", type=int, default=50)
    acc.add_argument("--start", type=int, default=0)
    acc.add_argument("--failures", action="store_true",
                     help="list what went wrong, photo by photo; the worst is tagged: a misreading or a false card read surely, "
                          "a wrong verdict not flagged (grep 'surely' or 'not flagged')")
    rows = sub.add_parser("rows", help="rows, verdicts and ranking from the true cards: the arrangement alone")
    rows.add_argument("folders", nargs="*", type=Path, help="folders of NAME.json (+ NAME.seats.yaml)")
    rows.add_argument("--layouts", choices=["easy", "medium", "hard"],
                      help="no folders: the dev split's tables of this tier, planned, not painted (a tenth of a second each)")
    rows.add_argument("--count", type=int, default=1000, help="with --layouts: how many tables (default: %(default)s)")
    rows.add_argument("--start", type=int, default=0, help="with --layouts: the first table's index (default: %(default)s)")
    rows.add_argument("--min-visible", type=float, default=_VISIBLE_ENOUGH,
                      help="feed the true cards at least this visible; 0 feeds every face-up card (default: %(default)s)")
    rows.add_argument("--failures", action="store_true", help="list the wrong rows, photo by photo")
    speed = sub.add_parser("speed", help="median ms per frame (wall and CPU), a six-player table with a pool, per resolution; "
                                          "and per frame of 'referee live' over four seconds of it, an arm reaching in")
    speed.add_argument("--repeat", type=int, default=15)
    speed.add_argument("--tier", choices=["easy", "medium", "hard"], default="medium",
                       help="the table's conditions (hard: a warm lamp, hands and arms over cards; default: %(default)s)")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    if args.what == "speed":
        return _speed(args.repeat, args.tier)
    if args.what == "rows":
        if bool(args.folders) == bool(args.layouts):
            parser.error("rows: give folders or --layouts TIER, not both")
        truths = _truths_in(args.folders) if args.folders else _layouts(args.layouts, args.count, args.start)
        return _rows(truths, args.min_visible, args.failures)
    photos = _photos_in(args.folders) if args.folders else _rendered(args.tier, args.split, args.count, args.start)
    tally = Tally()
    for name, frame, truth in photos:
        score_photo(tally, frame, truth, name)
    summary = tally.summary()
    if not args.failures:
        summary.pop("failures")
    print(json.dumps(summary, indent=2))
    return 0


def _rows(truths: Iterator[tuple[str, dict, list[Seat]]], min_visible: float, failures: bool) -> int:
    tally = ArrangementTally()
    for name, truth, seats in truths:
        score_arrangement(tally, truth, seats, name, min_visible)
    summary = tally.summary()
    if not failures:
        summary.pop("failures")
    print(json.dumps(summary, indent=2))
    return 0


def _speed(repeat: int, tier: str = "medium") -> int:
    """Median wall and CPU milliseconds per frame, and where the time goes, per resolution,
    for the rulebook's table rendered in ``tier``'s conditions: a frame refereed from scratch
    (``referee check``), and the frames of ``referee live``'s loop over the same table with an
    arm reaching in (``_live_frames``: a search when the table changed, the cards kept between).

    CPU time (this process, one thread) is what other work on the machine distorts least.
    """
    from fixtures.render import render_rulebook_table
    from referee.cli.table import referee_frame
    from vision.find import find_cards
    from vision.pipeline import read_quad

    frame, truth = render_rulebook_table(7, tier)  # six players, their rows and the pool
    seats = [Seat(s["name"], tuple(s["position"])) for s in truth["seats"]]
    print(f"scene ({tier}): {len(truth['cards'])} face-up cards, {len(truth['seats'])} seats, rendered at "
          f"{frame.shape[1]}x{frame.shape[0]}; os.getloadavg() = {os.getloadavg()[0]:.1f}")
    for width, height in ((1280, 720), (1920, 1080), (3840, 2160)):
        resized = cv2.resize(frame, (width, height), interpolation=cv2.INTER_AREA if width <= frame.shape[1] else cv2.INTER_LINEAR)
        scale = (width / frame.shape[1], height / frame.shape[0])
        scaled = [Seat(s.name, (s.position_xy[0] * scale[0], s.position_xy[1] * scale[1])) for s in seats]
        start = time.perf_counter()
        referee_frame(resized, scaled)
        cold = 1000 * (time.perf_counter() - start)
        wall, cpu, find_cpu, read_cpu = [], [], [], []
        for _ in range(repeat):
            start, start_cpu = time.perf_counter(), time.process_time()
            referee_frame(resized, scaled)
            wall.append(1000 * (time.perf_counter() - start))
            cpu.append(1000 * (time.process_time() - start_cpu))
            start_cpu = time.process_time()
            quads = find_cards(resized)
            find_cpu.append(1000 * (time.process_time() - start_cpu))
            start_cpu = time.process_time()
            for quad in quads:
                read_quad(resized, quad)
            read_cpu.append(1000 * (time.process_time() - start_cpu))
        short_px = truth["conditions"]["min_card_short_px"] * width / frame.shape[1]
        print(f"{width}x{height} (smallest card's short side {short_px:.0f} px; the spec's least is 80): cold {cold:.1f} ms; warm median {np.median(wall):.1f} ms wall, "
              f"{np.median(cpu):.1f} ms CPU (find {np.median(find_cpu):.1f}, read {np.median(read_cpu):.1f} "
              f"for {len(quads)} quads, rest {np.median(cpu) - np.median(find_cpu) - np.median(read_cpu):.1f}); n={repeat}")
        per_frame, searches = _live_frames(resized, scaled)
        print(f"  live ('referee live' loop, {len(per_frame)} frames at {_LIVE_FPS:g} fps, an arm reaching over a row "
              f"for {_ARM_S[3] - _ARM_S[0]:g} s; {searches} searches): per frame CPU {np.median(per_frame):.1f} ms median, "
              f"{np.mean(per_frame):.1f} mean, {np.percentile(per_frame, 95):.1f} p95, {np.max(per_frame[1:]):.1f} max, "
              f"the first (cold) {per_frame[0]:.1f}; keeps {_LIVE_FPS:g} fps: {'yes' if np.mean(per_frame) <= 1000 / _LIVE_FPS else 'no'}")
    return 0


# The live loop's frames: this long at this rate; an arm reaches in from the first seat over its row
# between the first two times (s), rests there until the third and is gone by the fourth.
_LIVE_FPS, _LIVE_S = 30.0, 4.0
_ARM_S = (1.0, 1.5, 2.2, 2.7)
_SKIN_BGR = (120, 150, 205)


def _live_frames(frame_bgr: np.ndarray, seats: list[Seat]) -> tuple[list[float], int]:
    """CPU milliseconds of each frame of ``referee live``'s loop (search and read, track, rows) on a
    clip of the still table with an arm reaching over the first seat's row and back; and how many
    frames were searched. Each frame carries its own sensor noise."""
    from referee.cli.live_read import sight_cards
    from vision.track import CardTracker, TrackerUpdate, row_layout, rows_of

    height, width = frame_bgr.shape[:2]
    rng = np.random.default_rng(0)
    noises = [rng.normal(0.0, 2.0, frame_bgr.shape).astype(np.float32) for _ in range(3)]
    seat = np.array(seats[0].position_xy, np.float64)
    inward = np.array([width / 2, height / 2]) - seat
    inward /= max(float(np.linalg.norm(inward)), 1e-9)
    tracker, tracked, sighting = CardTracker(), TrackerUpdate((), ()), None
    size_wh, last_layout, searches, per_frame = (width, height), None, 0, []
    for index in range(int(_LIVE_FPS * _LIVE_S)):
        t = index / _LIVE_FPS
        image = cv2.add(frame_bgr.astype(np.float32), noises[index % len(noises)])
        reach = float(np.interp(t, _ARM_S, (0.0, 1.0, 1.0, 0.0)))
        if reach > 0:  # (the arm reaches in from beyond the seat, at most 0.35 of the frame's short side past it)
            tip = seat + inward * reach * 0.35 * min(width, height)
            cv2.line(image, tuple(int(v) for v in seat - inward * 0.1 * height), tuple(int(v) for v in tip),
                     _SKIN_BGR, max(2, int(0.07 * height)), cv2.LINE_AA)
        image = np.clip(image, 0, 255).astype(np.uint8)
        start = time.process_time()
        sighting = sight_cards(image, t, index, sighting, tracked.cards)
        tracked = tracker.update(sighting.cards, index, t, image, sighting.fresh)
        layout = row_layout(tracked.cards)
        if layout != last_layout:  # (as the live loop does: rows again only when the cards changed)
            rows_of(tracked.cards, seats, size_wh)
            last_layout = layout
        per_frame.append(1000 * (time.process_time() - start))
        searches += sighting.searched
    return per_frame, searches


if __name__ == "__main__":
    from vision.onecore import run_on_one_core

    run_on_one_core("vision.bench")
    sys.exit(main())
