"""What ``referee live`` reads from a frame, with the table's calibration.

``sight_cards`` searches a frame for cards only when it has changed and, while
everything that changed is still moving (a hand sliding a card in), only a few times a second: a card can settle only once its
place has stopped changing. It finds them as ``referee check`` does (a card the finder's sweeps
missed, by the loop its outline closes: ``vision.looped``), reads them with the calibration's colour profile, and
leaves out cards whose centre lies off the table top or in the middle pool (they are
never part of a row). ``LightWatch`` follows the light: about twice a second it
compares the face white of the cards lying still and found whole in that very frame
(not a card under a hand) with the profile's, and when the
light has changed (a lamp switched on) it stops using the profile, so that colours are
read with each card's own white balance, until the light comes back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.areas import TableAreas, row_candidates, scaled_areas, search_box
from calibration.profile import DRIFT_LIMIT, ColourProfile, light_drift, paper_whites
from vision.find import CardQuad, cards_too_small, find_cards, working_copy
from vision.looped import looped_cards
from vision.quads import order_corners, sides
from vision.regions import points_inside
from vision.pipeline import (DetectedCard, cards_seen_small, doubted_beneath, doubted_on_cloth, doubted_small, enlarged_for,
                             enlarged_frame, read_apart, read_quad, scaled_card, without_odd_papers)
from vision.track import TrackedCard

__all__ = ["Sighting", "sight_cards", "LightWatch", "LightChange", "CHECK_EVERY_S", "BACK_BELOW"]

_THUMB_STEP = 16  # frame pixels per thumbnail pixel
_CHANGE_LEVEL = 12.0  # grey levels a thumbnail pixel must change by to count as a change
_SEARCH_EVERY_S = 1.0  # search at least this often, changes or not
_REREAD_EVERY = 8  # a settled, unmoved card is read again every this many frames
_MOVING_EVERY_S = 0.25  # while all that changed is still moving, search only this often
_MIN_REST_CELLS = 4  # changed cells come to rest that are worth a search when no card is known yet
_SMALL_FOUND_PX = 90.0  # a card found this small on its short side may have smaller ones beside it, too small to find
_PARTS_COVER = 0.06  # cards read apart from one quad cover it within this share of its area
# A search after a change looks only round what changed (a card's long side beyond it) and round the
# cards not settled yet, the cards elsewhere kept as the last search found them; unless that is more
# than this share of the frame.
_REGION_MOST = 0.5
SEARCH_INTERVAL_S = 1 / 15  # at most this often: a faster camera's extra frames reuse the latest search

CHECK_EVERY_S = 0.5  # how often the light is checked (source time)
_AGREE = 2  # consecutive checks that must agree before the light counts as changed (or back)
_MIN_CARDS = 2  # cards lying still and in full view needed for a check (one card says too little)
BACK_BELOW = 0.6 * DRIFT_LIMIT  # the light is back when the drift falls below this (no flapping at the limit)


def _thumb(frame_bgr: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The frame's grey means over ``_THUMB_STEP``-pixel squares. The rows and columns left
    over are cut off: a whole number of pixels a cell lets OpenCV average by blocks, some ten
    times faster than by pixel area (1080 rows are 67.5 cells: 5 ms a frame, not 0.6)."""
    h, w = frame_bgr.shape[:2]
    rows, cols = max(1, h // _THUMB_STEP), max(1, w // _THUMB_STEP)
    grey = cv2.cvtColor(frame_bgr[: rows * _THUMB_STEP, : cols * _THUMB_STEP], cv2.COLOR_BGR2GRAY)
    return cv2.resize(grey, (cols, rows), interpolation=cv2.INTER_AREA).astype(np.float32)


@dataclass(frozen=True)
class Sighting:
    """The cards of the latest search, and what the next frame needs to decide whether to search again.

    ``thumb`` is a small grey copy of the searched frame, ``last_thumb`` of the latest frame;
    ``searched_t`` and ``full_t`` the times of the latest search and of the latest unconditional one;
    ``searched`` whether this frame was searched, and ``fresh`` whether the cards are as this frame
    shows them (searched, or not changed since the search; otherwise they may be out of date).
    """

    cards: tuple[DetectedCard, ...]
    thumb: NDArray[np.float32]
    last_thumb: NDArray[np.float32]
    searched_t: float
    full_t: float
    searched: bool
    fresh: bool = True
    enlarged: float = 1.0  # the frames are searched enlarged this many times: the cards show too small to find
    # Patches too small to find (``cards_too_small``) that a look at the frame enlarged found to be no
    # more cards: it is not looked at enlarged again until more such patches show.
    small_passed: int = 0


def sight_cards(frame_bgr: NDArray[np.uint8], t: float, frame_index: int, before: Sighting | None,
                known: Sequence[TrackedCard], profile: ColourProfile | None = None, areas: TableAreas | None = None,
                interval_s: float = SEARCH_INTERVAL_S) -> Sighting:
    """Every face-up card on the table that may be in a row, searched only when the frame has changed.

    The frame is searched when part of it (a quarter of a card at least) differs from the
    last searched frame and has stopped changing since the previous frame (at most every
    ``interval_s``); while all that changed is still moving, every ``_MOVING_EVERY_S``; and
    at least once a second in any case. Otherwise the last search's cards stand. A search after a
    change looks only round what changed and round the cards not settled yet (a card's length
    beyond them), the last search's cards elsewhere standing (``_search``); the
    once-a-second search looks at the whole frame. Decisions use the source's time
    ``t`` only, so a video file gives the same result on any machine. A settled card found
    exactly where it lay keeps its last reading (read again every few frames), as do settled cards
    of a row laid edge to edge, found again as one quad round them all.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    t, frame_index : the frame's time (s) and index
    before : the previous frame's sighting, or None
    known : the tracker's cards after the previous frame
    profile : the colour profile to read with (None: the nominal inks)
    areas : the table top and pool; cards centred off the top or in the pool are left out
    interval_s : the shortest time between two searches
    """
    thumb = _thumb(frame_bgr)
    if before is not None and before.thumb.shape == thumb.shape and t - before.full_t < _SEARCH_EVERY_S:
        changed = np.abs(thumb - before.thumb) > _CHANGE_LEVEL
        since = t - before.searched_t
        if changed.any() and since >= _MOVING_EVERY_S - 1e-9:
            search = True
        elif changed.any() and since >= interval_s - 1e-9:
            # Something changed and has come to rest (not just the edge of a moving hand).
            moving = cv2.dilate((np.abs(thumb - before.last_thumb) > _CHANGE_LEVEL).astype(np.uint8), np.ones((3, 3), np.uint8))
            search = int((changed & (moving == 0)).sum()) >= _rest_cells(known)
        else:
            search = False
        if not search:
            return Sighting(before.cards, before.thumb, thumb, before.searched_t, before.full_t, False, not changed.any(),
                            before.enlarged, before.small_passed)
        full_t = before.full_t
        boxes = _round_changes(changed | _unsettled_cells(known, changed.shape), before.cards, frame_bgr.shape) \
            if before.enlarged == 1.0 else None
    else:
        full_t, boxes = t, None
    settled = [card for card in known if card.is_settled and not card.hidden and card.reading is not None]
    factor = before.enlarged if before is not None else 1.0
    passed = before.small_passed if before is not None else 0
    cards = None if boxes is None else _search(frame_bgr, 1.0, settled, frame_index, profile, areas, boxes, before.cards)
    if cards is None:
        cards = _search(frame_bgr, factor, settled, frame_index, profile, areas)
    if factor == 1.0 and (len(cards) < 2 or full_t == t and _smallest_px(cards) < _SMALL_FOUND_PX):
        # (a camera too far or of too low a resolution shows the cards too small to find: they are
        # looked for in the frame enlarged, from then on. Where small cards are found, the frame is
        # looked at for cards too small to find beside them once a second (a near row found, the far
        # one not): not, as check does, wherever a quarter of the cards found are small, for every
        # frame would then cost twice though all its cards are found; nor again over as many small
        # patches as a look enlarged found to be no more cards, a piece of a card or of the cloth)
        small = cards_seen_small(frame_bgr, cards) if len(cards) < 2 else cards_too_small(
            frame_bgr, found_xy=[card.corners_xy for card in cards])
        enlarged = enlarged_for(small)
        if enlarged is not None and small is not None and small.count > passed:
            bigger = _search(frame_bgr, enlarged, settled, frame_index, profile, areas)
            if len(bigger) > len(cards):
                cards, factor = bigger, enlarged
            else:
                passed = small.count
    return Sighting(tuple(sorted(cards, key=lambda c: (c.center_xy[1], c.center_xy[0]))), thumb, thumb, t, full_t, True,
                    enlarged=factor, small_passed=passed)


def _search(frame_bgr: NDArray[np.uint8], factor: float, settled: Sequence[TrackedCard], frame_index: int,
            profile: ColourProfile | None, areas: TableAreas | None, round_changes: Sequence[tuple[int, int, int, int]] | None = None,
            before: Sequence[DetectedCard] = ()) -> tuple[DetectedCard, ...] | None:
    """The cards that may be in a row, found and read in the frame enlarged ``factor`` times, in
    the frame's pixels; a settled card found where it lay keeps its reading (see ``sight_cards``).

    With ``round_changes`` (``_round_changes``, the frame as it is) only those boxes are searched,
    and the last search's cards ``before`` lying elsewhere (their middles out of every box) are
    kept as they were: the very same, so that the tracker counts no new reading of them. None
    where a box that held cards shows none: a box is swept at its own whiteness levels, and on a
    pale cloth that stands out from the cards' paper only over the whole frame a box may show no
    card at all (search the whole frame)."""
    image = frame_bgr if factor == 1.0 else enlarged_frame(frame_bgr, factor)
    table = search_box(scaled_areas(areas, factor) if areas else None, (image.shape[1], image.shape[0]))
    boxes: list[tuple[int, int, int, int] | None] = [table]
    if round_changes is not None:
        boxes = [box if table is None else (max(box[0], table[0]), max(box[1], table[1]), min(box[2], table[2]), min(box[3], table[3]))
                 for box in round_changes]
        boxes = [box for box in boxes if box[2] > box[0] and box[3] > box[1]]
    small = working_copy(image)
    found = []
    for box in boxes:
        quads = find_cards(image, box, small)
        if not quads and any(_in_box(card.center_xy, box) for card in before):
            return None
        found += quads
    kept = [card for card in before if not any(_in_box(card.center_xy, box) for box in boxes)]
    if kept:  # (a box's edge may cut a card kept beyond it: what is found of it there is no card of its own)
        kept_xy = np.array([card.corners_xy for card in kept], np.float32)
        found = [quad for quad in found if not points_inside(kept_xy, np.array([quad.center_xy], np.float32)).any()]
    quads = [CardQuad(quad.corners_xy / factor, quad.fill) for quad in found]
    quads = [quads[k] for k in row_candidates([q.corners_xy.mean(axis=0) for q in quads], areas)]
    # (the readings kept from earlier frames keep those frames' light: tints are not compared)
    cards = without_odd_papers(_read_quads(image, factor, quads, settled, frame_index, profile), by_tint=False)
    # A card the sweeps missed (half in an arm's or a mug's shadow) may close a loop with its outline.
    faces = [CardQuad(card.corners_xy * factor, 1.0) for card in (*kept, *cards)]
    seen = [*(quad.corners_xy for quad in found), *(card.corners_xy * factor for card in kept)]
    for box in boxes:
        looped = [card if factor == 1.0 else scaled_card(card, 1 / factor)
                  for card in looped_cards(image, small, faces, seen, lambda quad: read_quad(image, quad, profile), box)]
        if round_changes is not None:
            looped = [card for card in looped if any(_in_box(card.center_xy, searched) for searched in boxes)]
        cards += [looped[k] for k in row_candidates([card.center_xy for card in looped], areas)]
        seen += [card.corners_xy * factor for card in looped]
    # (a card with another laid over part of it may show that card's symbols as its own: doubted)
    doubted = doubted_small(doubted_on_cloth(frame_bgr, doubted_beneath(frame_bgr, (*kept, *cards))))
    return (*kept, *doubted[len(kept):])


def _in_box(xy: NDArray, box: tuple[int, int, int, int] | None) -> bool:
    """Whether a point lies in a box (x0, y0, x1, y1; None: the whole frame)."""
    return box is None or (box[0] <= xy[0] < box[2] and box[1] <= xy[1] < box[3])


def _round_changes(changed: NDArray[np.bool_], cards: Sequence[DetectedCard],
                   shape_hw: tuple[int, ...]) -> list[tuple[int, int, int, int]] | None:
    """The boxes (x0, y0, x1, y1, frame pixels) round the thumbnail's ``changed`` cells, a card's long
    side (the cards' median) beyond them: a card a change touches lies wholly in one. None where no
    card is known to size them, or they cover more than ``_REGION_MOST`` of the frame."""
    if not cards:
        return None
    long_px = float(np.median([max(sides(order_corners(card.corners_xy))) for card in cards]))
    reach = int(np.ceil(long_px / _THUMB_STEP))
    grown = cv2.dilate(changed.astype(np.uint8), np.ones((2 * reach + 1, 2 * reach + 1), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
    height, width = shape_hw[:2]
    rows, cols = changed.shape
    boxes = []
    for x, y, w, h, _ in stats[1:count]:
        # (the last row and column of cells take in the pixels the thumbnail cut off)
        x1 = width if x + w >= cols else int(x + w) * _THUMB_STEP
        y1 = height if y + h >= rows else int(y + h) * _THUMB_STEP
        boxes.append((int(x) * _THUMB_STEP, int(y) * _THUMB_STEP, x1, y1))
    if sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes) > _REGION_MOST * width * height:
        return None
    return boxes


def _unsettled_cells(known: Sequence[TrackedCard], shape_rc: tuple[int, ...]) -> NDArray[np.bool_]:
    """The thumbnail's cells under the cards not settled yet: a search looks at them again, whatever
    changed, as the tracker follows their every sighting (a card being laid, a hand over it)."""
    cells = np.zeros(shape_rc, bool)
    for card in known:
        if not card.is_settled:
            (x0, y0), (x1, y1) = (np.floor(card.corners_xy.min(axis=0) / _THUMB_STEP).astype(int),
                                  np.floor(card.corners_xy.max(axis=0) / _THUMB_STEP).astype(int))
            cells[max(0, y0):max(0, y1 + 1), max(0, x0):max(0, x1 + 1)] = True
    return cells


def _smallest_px(cards: Sequence[DetectedCard]) -> float:
    """The shortest short side of the cards, in pixels."""
    return min(min(sides(order_corners(card.corners_xy))) for card in cards)


def _rest_cells(known: Sequence[TrackedCard]) -> int:
    """Thumbnail cells that must have changed and come to rest to be worth a search: a quarter
    of a card (not the strip a sliding card leaves behind it)."""
    if not known:
        return _MIN_REST_CELLS
    area = float(np.median([cv2.contourArea(card.corners_xy.astype(np.float32)) for card in known]))
    return max(_MIN_REST_CELLS, int(area / 4 / _THUMB_STEP**2))


def _read_quads(image_bgr: NDArray[np.uint8], factor: float, quads: Sequence[CardQuad], settled: Sequence[TrackedCard],
                frame_index: int, profile: ColourProfile | None) -> list[DetectedCard]:
    """The cards of the quads (frame pixels) read in the frame enlarged ``factor`` times (``image_bgr``), in frame pixels."""
    out = []
    known_xy = np.array([card.corners_xy for card in settled], np.float64).reshape(-1, 4, 2)
    for quad in quads:
        reuse = _unmoved(quad, settled, known_xy)
        if reuse is not None and (frame_index + reuse.id) % _REREAD_EVERY:
            out.append(DetectedCard(quad.corners_xy, reuse.reading))
            continue
        # (cards of a row edge to edge, outlined as one and read apart, are found so again)
        parts = _unmoved_parts(quad, settled) if reuse is None else []
        if parts and all((frame_index + card.id) % _REREAD_EVERY for card in parts):
            out += [DetectedCard(card.corners_xy, card.reading) for card in parts]
            continue
        if factor == 1.0:
            out += read_apart(image_bgr, quad, profile)
        else:
            enlarged = CardQuad(quad.corners_xy * factor, quad.fill)
            out += [scaled_card(card, 1 / factor) for card in read_apart(image_bgr, enlarged, profile)]
    return out


def _unmoved(quad: CardQuad, settled: Sequence[TrackedCard], known_xy: NDArray[np.float64]) -> TrackedCard | None:
    """The first settled card (``known_xy``: their corners, (N, 4, 2)) that the quad is found at
    the outline of (``_same_outline``, all at once), or None."""
    same = np.flatnonzero(_same_outline(known_xy, quad.corners_xy, 1.5, 0.03))
    return settled[int(same[0])] if len(same) else None


def _unmoved_parts(quad: CardQuad, settled: Sequence[TrackedCard]) -> list[TrackedCard]:
    """The settled cards a quad is the outline of, two or more (cards of a row laid edge to edge,
    found as one quad and read apart, ``read_apart``): every corner of each lies within the quad
    (or within ``_same_outline``'s allowance outside it), and together they cover its area within
    ``_PARTS_COVER`` of it. None such: an empty list."""
    outline = quad.corners_xy.astype(np.float32).reshape(-1, 1, 2)
    area = cv2.contourArea(outline)
    inside = []
    for card in settled:
        short = float(np.linalg.norm(card.corners_xy[1] - card.corners_xy[0]))
        least = -max(1.5, 0.03 * short)
        if all(cv2.pointPolygonTest(outline, (float(x), float(y)), True) >= least for x, y in card.corners_xy):
            inside.append(card)
    covered = sum(cv2.contourArea(card.corners_xy.astype(np.float32)) for card in inside)
    return inside if len(inside) >= 2 and abs(covered - area) <= _PARTS_COVER * area else []


def _same_outline(known_xy: NDArray, found_xy: NDArray, least_px: float, share: float) -> NDArray[np.bool_]:
    """For each known card (``known_xy``: (4, 2) or (N, 4, 2)) whether a card found lies at its
    outline: no corner further off than ``least_px`` or ``share`` of the known card's short side,
    the larger."""
    known = np.asarray(known_xy, np.float64).reshape(-1, 4, 2)
    shorts = np.linalg.norm(known[:, 1] - known[:, 0], axis=1)
    return np.abs(known - found_xy).max(axis=(1, 2)) <= np.maximum(least_px, share * shorts)


@dataclass(frozen=True)
class LightChange:
    """The light has changed (``changed``) or come back to the calibration's, with the drift measured."""

    changed: bool
    drift: float

    @property
    def message(self) -> str:
        if self.changed:
            return (f"the light has changed: the cards' white is {self.drift:.1f} away from the calibration's "
                    f"(limit {DRIFT_LIMIT:g}); reading colours with each card's own white balance instead of the "
                    "calibrated inks (run 'referee calibrate' again under this light for the best colours)")
        return (f"the light is back to the calibration's (the cards' white is {self.drift:.1f} away); "
                "reading colours with the calibrated inks again")

    @property
    def notice(self) -> str:
        """The message short enough for the overlay."""
        return "light changed: colours read card by card" if self.changed else "light back: calibrated colours again"


class LightWatch:
    """Whether the calibration's colour profile still holds under the light of the moment.

    ``profile`` is what to read with: the calibration's profile, or None (each card's own
    white balance and the nominal inks) while the light has drifted past ``DRIFT_LIMIT``.
    ``check`` is called on every frame and looks only every ``CHECK_EVERY_S``; it returns
    a ``LightChange`` once when the light changes and once when it comes back.
    """

    def __init__(self, profile: ColourProfile | None, every_s: float = CHECK_EVERY_S) -> None:
        self.calibrated = profile
        self.every_s = every_s
        self.drifted = False
        self.drift = 0.0
        self._next_t = 0.0
        self._streak = 0

    @property
    def profile(self) -> ColourProfile | None:
        return None if self.drifted else self.calibrated

    def check(self, frame_bgr: NDArray[np.uint8], t: float, cards: Sequence[TrackedCard],
              seen: Sighting | None = None) -> LightChange | None:
        """Look at the face white of the settled cards in full view when a check is due.

        A settled card is not *hidden* while part of it shows (a hand resting on it, fingers
        over its face): the tracker keeps it in its place, but its outline there shows the hand
        as well. With ``seen``, this frame's sighting, only cards found whole at their place in
        this very frame are looked at; a frame whose sighting is out of date (it changed since
        the latest search) is not looked at, and the check waits for the next frame. Without it,
        every settled card not hidden is (cards known to lie bare, as in a still picture).

        Parameters
        ----------
        frame_bgr : ndarray (H, W, 3) uint8, the frame the cards were tracked in
        t : the frame's time (s)
        cards : the tracker's cards; only those lying still and in view are looked at
        seen : the sighting of this frame (``sight_cards``), or None
        """
        if self.calibrated is None or t < self._next_t:
            return None
        if seen is not None and not seen.fresh:
            return None  # the cards may lie otherwise in this frame: look at the next one
        self._next_t = t + self.every_s
        still = [card.corners_xy for card in cards if card.is_settled and not card.hidden]
        if seen is not None:
            still = [corners for corners in still if _found_whole(corners, seen.cards)]
        if len(still) < _MIN_CARDS:
            return None
        self.drift = light_drift(self.calibrated, paper_whites(frame_bgr, still))
        turning = self.drift > DRIFT_LIMIT if not self.drifted else self.drift < BACK_BELOW
        self._streak = self._streak + 1 if turning else 0
        if self._streak < _AGREE:
            return None
        self._streak = 0
        self.drifted = not self.drifted
        return LightChange(self.drifted, self.drift)


def _found_whole(corners_xy: NDArray, found: Sequence[DetectedCard]) -> bool:
    """Whether a card was found with this very outline (not a part of it beside a hand, not nothing)."""
    return any(bool(_same_outline(corners_xy, card.corners_xy, 3.0, 0.06)[0]) for card in found)
