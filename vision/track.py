"""Cards followed across frames: identities, lying still, votes on criteria, hidden vs gone.

``CardTracker.update(cards, frame_index, t, frame_bgr, fresh)`` takes one frame's
detected cards and returns a snapshot of every tracked card. A card is *settled*
(laid) once it has been seen whole and lying still for ``settle_s`` seconds (time,
not frames, so the frame rate does not matter) and read surely at least once (a card
only ever read doubtfully, after a second of lying still and found in every frame); an outline smaller than
the card's (a hand over part of it) never lays it. Its criteria are a
confidence-weighted vote over the frames in which it was seen whole, where doubtful
readings count only while no sure one came. A settled card that goes missing is
*hidden*, not gone, while its place is covered (a hand, a sleeve); it is removed only
after ``remove_after_s`` of absence with its place showing the bare table, unchanged
from one look to the next, and the table round it looking as it did when it was laid
(an arm the colour of the table reaches over that too), as seen in ``frame_bgr``; never
while its own symbols show where they did (on a cream cloth its paper looks like the table).
Colours are compared net of the whole frame's change of light (a webcam's exposure and
white balance drift, a lamp is switched on), and the table round a card lying whole in
view is looked at again every few tenths of a second, taking in a change of light
shared by the whole ring but never what lies over part of it. A nudged card matches its
old place and keeps its identity. Gaps in sightings are
judged in seconds, stretched to a few frame times when frames come slowly (4/s).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

from calibration.seats import Seat
from referee.cards import Criteria
from vision.arrange import arrange_rows
from vision.pipeline import DetectedCard
from vision.records import CardReading
from vision.regions import points_inside

__all__ = ["TrackedCard", "TrackerUpdate", "CardTracker", "rows_of", "row_layout", "UNREADABLE_AFTER_S"]

_MATCH_DISTANCE = 0.55  # centre distance to keep an identity, in short sides
_STILL_DISTANCE = 0.06  # centre wander allowed while lying still, in short sides
_SAME_SIDES = 0.12  # a sighting is of the whole card when every side is this close to the card's own
_PARTIAL_AREA = 0.85  # a card not yet laid is partly covered when it shows less than this share of its outline
_MAX_GAP_S = 0.25  # a longer gap in sightings restarts the stillness clock ...
_GAP_FRAMES = 2.5  # ... or, when frames come slower, a gap longer than this many frame times
_DROP_TENTATIVE_S = 0.5  # a card never settled and unseen this long was only passing by
_COVERED_STILL_S = 5.0  # ... unless read surely: a hand over it this long keeps its stillness clock
_PARTIAL_HOLD_S = 1.0  # a smaller outline of a card not yet laid passes for a hand over it this long after its last whole sighting
_TRUSTED = 0.5  # a reading this confident may decide a card's criteria; below it only when no better one came
_UNLIKE = 0.3  # a sure reading's distance to a card read otherwise counts this much more, in short sides
_SLID_ON = 1.5  # a card waiting under a hand is the card laid read alike within this many short sides of it
_DOUBTFUL_SETTLE_S = 1.0  # a card read only doubtfully is laid once it has lain still, found in every frame, this long
_LOST_KEEP_S = 2.0  # a card not laid yet, lost where it lay still (a hand over it), is the card found there again this long after
_EMPTY_SHARE = 0.8  # share of a place's samples that must look like the bare table
_TABLE_TOL = 35.0  # colour distance to the bare table of a clean ring round a card
_TABLE_SHARE = 0.75  # share of that ring showing one colour for it to be surely the table
_TABLE_LOOK_S = 0.3  # how often the table round a card is looked at again until it is sure
_RING_TOL = 20.0  # colour change of a point of the bare table still counted as unchanged
_RING_SHARE = 0.85  # share of those points that must be unchanged for a card's place to count as bared
_LIGHT_GRID = (16, 9)  # points across and down the frame whose typical change is the change of light ...
_LIGHT_PATCH = 4  # ... each the mean of a patch this many pixels wide (no rounding to whole levels)
_LIGHT_REBASE_S = 2.0  # the light is followed from a frame this recent, so that cards laid since drop out
UNREADABLE_AFTER_S = 1.5  # a card lying still this long without one reading is reported


@dataclass(frozen=True)
class TrackedCard:
    """One card as the tracker knows it after a frame.

    ``corners_xy`` (4, 2) float32 is where it was last seen (kept while hidden);
    ``criteria`` is the vote's winner (None before any reading); ``settled_t`` the
    time it was first seen lying still, None while it has not settled. ``waiting``: not
    laid yet, but seen whole lying still twice: in view (read doubtfully, it is laid after
    a second), or read surely before a hand covered it (it is laid when it shows again in
    its place); the cards after it in its row wait for it (see ``rows_of``). ``lying_since``:
    since when it has lain where it lies now, a hand over it or not (a card not laid yet, lost
    there under a hand and found again, counts from when it first lay there).
    """

    id: int
    corners_xy: NDArray[np.float32]
    criteria: Criteria | None
    votes: float
    settled_t: float | None
    settled_frame: int | None
    hidden: bool
    reading: CardReading | None = field(default=None, compare=False, repr=False)
    waiting: bool = False
    lying_since: float = math.inf

    @property
    def is_settled(self) -> bool:
        return self.settled_t is not None


@dataclass(frozen=True)
class TrackerUpdate:
    """Every tracked card after a frame, the ids removed in it, and cards found unreadable in it.

    ``unreadable`` holds (id, centre_xy, reason) for a face-up card that has lain
    still for ``UNREADABLE_AFTER_S`` without one reading; each card is reported once.
    """

    cards: tuple[TrackedCard, ...]
    removed: tuple[int, ...]
    unreadable: tuple[tuple[int, tuple[float, float], str], ...] = ()


@dataclass
class _Track:
    id: int
    corners_xy: NDArray[np.float32]
    first_t: float
    last_seen_t: float
    path: deque = field(default_factory=deque)  # (t, x, y) sightings of the centre while lying still
    votes: Counter = field(default_factory=Counter)  # criteria -> weight of the trusted readings
    doubts: Counter = field(default_factory=Counter)  # ... of the doubtful ones (confidence below _TRUSTED)
    reading: CardReading | None = None
    read_frame: int = -1
    settled_t: float | None = None
    settled_frame: int | None = None
    ref_sides: NDArray[np.float64] | None = None  # the outline's side lengths while lying still (or settled)
    whole_seen: int = 0  # whole sightings in the current still stretch
    looks: int = 0  # ... of them fresh (not an earlier search's cards handed on over a changed frame)
    whole_t: float = 0.0  # when the card was last seen whole
    table_bgr: NDArray[np.float32] | None = None  # colours kept by the track are net of the light (see ``_light_bgr``)
    table_tol: float = 40.0
    table_share: float = 0.0  # share of the ring round the card that showed the table
    table_t: float = 0.0  # when the table round the card was last looked at
    ring_xy: NDArray[np.float64] | None = None  # points round the card that showed the bare table then ...
    ring_bgr: NDArray[np.float64] | None = None  # ... and their colours
    place_bgr: NDArray[np.float64] | None = None  # the colours of its place when last looked at while it was missing
    card_bgr: NDArray[np.float64] | None = None  # ... and of the card itself there, when last seen whole and settled
    still_since: float = 0.0  # when the card's latest still stretch began
    lain_since: float = math.inf  # ... or earlier, when a card lost at its place lay still there (see ``_lost``)
    missed_t: float = -math.inf  # when the card, not laid yet, was last missing from a frame's cards
    reason: str = ""  # why the latest reading failed
    warned: bool = False

    @property
    def centre(self) -> NDArray[np.float64]:
        return self.corners_xy.mean(axis=0).astype(np.float64)

    @property
    def short(self) -> float:
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = self.corners_xy.tolist()
        return (math.hypot(x1 - x0, y1 - y0) + math.hypot(x2 - x3, y2 - y3)) / 2


def _sides(corners_xy: NDArray) -> NDArray[np.float64]:
    c = corners_xy.astype(np.float64)
    step = c[[1, 2, 3, 0]] - c
    return np.hypot(step[:, 0], step[:, 1])


def _smaller(sides: NDArray[np.float64], reference: NDArray[np.float64]) -> bool:
    """Clearly less of the card shows than before (a hand over part of it), not more (a card coming into view)."""
    return bool((sides[0] + sides[2]) * (sides[1] + sides[3]) < _PARTIAL_AREA * (reference[0] + reference[2]) * (reference[1] + reference[3]))


def _larger(sides: NDArray[np.float64], reference: NDArray[np.float64]) -> bool:
    """More of the card shows than in the reference outline (the hand has moved off it)."""
    return bool((sides[0] + sides[2]) * (sides[1] + sides[3]) > 1.05 * (reference[0] + reference[2]) * (reference[1] + reference[3]))


def _same_shape(sides: NDArray[np.float64], reference: NDArray[np.float64]) -> bool:
    """The same outline, maybe moved (a nudge): every side within ``_SAME_SIDES`` of the reference's."""
    return bool(np.all(np.abs(sides - reference) <= _SAME_SIDES * reference))


class CardTracker:
    """Follows cards over frames; see the module docstring. State lives here and nowhere else."""

    def __init__(self, settle_s: float = 1 / 3, remove_after_s: float = 1.0) -> None:
        self.settle_s = settle_s
        self.remove_after_s = remove_after_s
        self.reset()

    def reset(self) -> None:
        """Forget every card (identities start again from 0)."""
        self._tracks: dict[int, _Track] = {}
        self._next_id = 0
        self._lost: list[tuple[NDArray[np.float64], float, float, float]] = []  # (centre, short side, lying since, lost at)
        self._times: deque = deque(maxlen=9)  # the latest frames' times, for the frame time
        self._frame_s = 0.0  # the time between frames of late (0 before the second frame)
        self._light_bgr = np.zeros(3)  # the change of light since the first frame, added to every colour
        self._light_rc: tuple[NDArray[np.intp], NDArray[np.intp]] | None = None  # the patches' pixels (rows, cols) ...
        self._light_hw = (0, 0)  # ... in frames of this size
        self._light_base: tuple[NDArray[np.float64], NDArray[np.float64], float] | None = None  # patches, light, t

    def _gap_s(self, seconds: float) -> float:
        """A time limit on unseen stretches, stretched when frames come slower than a few per such stretch:
        at 4 frames/s one frame missed is no longer gap than three at 15."""
        return max(seconds, _GAP_FRAMES * self._frame_s)

    def update(self, cards: Sequence[DetectedCard], frame_index: int, t: float,
               frame_bgr: NDArray[np.uint8] | None = None, fresh: bool = True) -> TrackerUpdate:
        """Take one frame's cards (not modified); returns every tracked card and the removals.

        Parameters
        ----------
        cards : the cards detected in this frame
        frame_index, t : the frame's 0-based index and its time in seconds
        frame_bgr : ndarray (H, W, 3) uint8, the frame itself, to tell a covered place
            from an empty one; without it a missing settled card is never removed.
        fresh : False when ``cards`` are an earlier frame's search handed on again though
            this frame differs from that one: they say the cards may still be there, not
            that a card seen once in a hand lies still.
        """
        if self._times and t <= self._times[-1]:
            self._times.clear()  # time went back (a new source): the frame time is learned again
            self._lost.clear()
        self._lost = [lost for lost in self._lost if t - lost[3] <= _LOST_KEEP_S]
        self._times.append(t)
        self._frame_s = float(np.median(np.diff(np.asarray(self._times)))) if len(self._times) > 1 else 0.0
        if frame_bgr is not None:
            self._follow_light(frame_bgr, t)
        matches = self._match(cards)
        seen = set()
        unreadable = []
        for k, card in enumerate(cards):
            track_id = matches.get(k)
            if track_id is None:
                track_id = self._next_id
                self._next_id += 1
                self._tracks[track_id] = _Track(track_id, card.corners_xy.copy(), t, t)
                self._tracks[track_id].lain_since = self._lain_at(card.corners_xy)
            track = self._tracks[track_id]
            self._observe(track, card, frame_index, t, frame_bgr, fresh)
            seen.add(track_id)
            if not (track.votes or track.doubts) and not track.warned and track.path and t - track.still_since >= UNREADABLE_AFTER_S:
                track.warned = True
                x, y = (float(v) for v in track.corners_xy.mean(axis=0))
                unreadable.append((track.id, (x, y), track.reason or "no reading"))
        self._forget_slid_on(seen, t)
        removed = []
        for track in list(self._tracks.values()):
            if track.id in seen:
                continue
            gone = t - track.last_seen_t
            if track.settled_t is None:
                track.missed_t = t
                lay_still = bool(track.votes) and bool(track.path)
                if gone > (_COVERED_STILL_S if lay_still else self._gap_s(_DROP_TENTATIVE_S)):
                    del self._tracks[track.id]
                    if track.whole_seen >= 2 and track.path:
                        self._lost.append((track.centre, track.short, _lying_since(track), t))
            elif frame_bgr is not None:
                # Missing: removed once its place has shown the bare table, unchanged from one
                # look to the next (a hand or an arm over it moves), after ``remove_after_s``.
                before, track.place_bgr = track.place_bgr, self._net(_sample(frame_bgr, self._place_points(track)))
                if (gone >= self.remove_after_s and _unchanged(track.place_bgr, before, _EMPTY_SHARE)
                        and self._looks_empty(track, track.place_bgr, frame_bgr)):
                    del self._tracks[track.id]
                    removed.append(track.id)
        snapshot = tuple(self._snapshot(track, track.id not in seen) for track in self._tracks.values())
        return TrackerUpdate(snapshot, tuple(removed), tuple(unreadable))

    def _lain_at(self, corners_xy: NDArray[np.float32]) -> float:
        """Since when a card not laid yet, lost lately where a card is now found (a hand over it), lay still there
        (infinity: none did); that place is forgotten, the card found is the one that lay there."""
        centre = corners_xy.mean(axis=0).astype(np.float64)
        apart = [float(np.linalg.norm(lost[0] - centre)) / lost[1] for lost in self._lost]
        if not apart or min(apart) > _MATCH_DISTANCE:
            return math.inf
        return self._lost.pop(int(np.argmin(apart)))[2]

    def _forget_slid_on(self, seen: set[int], t: float) -> None:
        """A card held still a moment, then slid on and laid a little further (read alike, within
        ``_SLID_ON`` short sides) was the one that lay there: it no longer waits under a hand."""
        for track in [track for track in self._tracks.values() if track.settled_t == t]:
            criteria = _voted(track)[0]
            for other in list(self._tracks.values()):
                if (other.id not in seen and other.settled_t is None and other.votes and _voted(other)[0] == criteria
                        and np.linalg.norm(other.centre - track.centre) <= _SLID_ON * track.short):
                    del self._tracks[other.id]

    def _follow_light(self, frame_bgr: NDArray[np.uint8], t: float) -> None:
        """The change of light since the first frame: the median change of patches spread over the
        whole frame (mostly the table; a hand, an arm or the cards laid since are a minority)."""
        h, w = frame_bgr.shape[:2]
        if self._light_rc is None or self._light_hw != (h, w):
            cols = (np.arange(_LIGHT_GRID[0]) + 0.5) * w / _LIGHT_GRID[0]
            rows = (np.arange(_LIGHT_GRID[1]) + 0.5) * h / _LIGHT_GRID[1]
            offsets = np.arange(_LIGHT_PATCH) - _LIGHT_PATCH // 2
            rr = np.clip(rows.astype(int)[:, None, None, None] + offsets[None, None, :, None], 0, h - 1)
            cc = np.clip(cols.astype(int)[None, :, None, None] + offsets[None, None, None, :], 0, w - 1)
            rr, cc = np.broadcast_arrays(rr, cc)
            self._light_rc, self._light_hw = (rr.reshape(-1, _LIGHT_PATCH**2), cc.reshape(-1, _LIGHT_PATCH**2)), (h, w)
            self._light_base = None
        patches = frame_bgr[self._light_rc].mean(axis=1)  # (points, 3)
        if self._light_base is None:
            self._light_base = (patches, self._light_bgr.copy(), t)
            return
        base, base_light, base_t = self._light_base
        self._light_bgr = base_light + np.median(patches - base, axis=0)
        if not 0 <= t - base_t < _LIGHT_REBASE_S:
            self._light_base = (patches, self._light_bgr.copy(), t)

    def _net(self, samples_bgr: NDArray[np.float64]) -> NDArray[np.float64]:
        """Colours seen in this frame as they would look under the first frame's light."""
        return samples_bgr - self._light_bgr

    def _match(self, cards: Sequence[DetectedCard]) -> dict[int, int]:
        """Detection index -> track id, nearest pairs first, each used once."""
        if not cards or not self._tracks:
            return {}
        tracks = list(self._tracks.values())
        quads = np.stack([t.corners_xy for t in tracks]).astype(np.float64)
        centres = quads.mean(axis=1)
        shorts = (np.linalg.norm(quads[:, 1] - quads[:, 0], axis=1) + np.linalg.norm(quads[:, 2] - quads[:, 3], axis=1)) / 2
        shorts = np.maximum(shorts, 1.0)
        found = np.stack([c.corners_xy for c in cards]).astype(np.float64).mean(axis=1)
        distance = np.linalg.norm(found[:, None, :] - centres[None, :, :], axis=2) / shorts[None, :]
        # Settled cards first: a card being laid next to them must not steal them. A card read
        # surely goes to a card read alike before one read otherwise: a hand over a settled card
        # may hold another just off it, whose track would take the settled card's own sightings.
        settled = np.array([t.settled_t is not None for t in tracks])
        # (each criteria as a number, -1 for none: compared all at once)
        numbers: dict[Criteria, int] = {}
        voted = np.array([-1 if v is None else numbers.setdefault(v, len(numbers)) for v in (_voted(t)[0] for t in tracks)])
        sure = np.array([numbers.setdefault(c.reading.criteria, len(numbers)) if c.reading.confidence >= _TRUSTED
                         and c.reading.criteria is not None else -1 for c in cards])
        unlike = (sure[:, None] >= 0) & (voted[None, :] >= 0) & (sure[:, None] != voted[None, :])
        cost = distance - 0.2 * settled[None, :] + _UNLIKE * unlike
        out: dict[int, int] = {}
        used: set[int] = set()
        order = np.argsort(cost, axis=None)
        order = order[distance.reshape(-1)[order] <= _MATCH_DISTANCE]  # (the pairs near enough, in that order)
        for k, j in zip(*np.unravel_index(order, cost.shape)):
            if int(k) in out or int(j) in used:
                continue
            out[int(k)] = tracks[j].id
            used.add(int(j))
        return out

    def _observe(self, track: _Track, card: DetectedCard, frame_index: int, t: float,
                 frame_bgr: NDArray[np.uint8] | None, fresh: bool) -> None:
        cx, cy = (float(v) for v in card.corners_xy.mean(axis=0))
        sides = _sides(card.corners_xy)
        gap = t - track.last_seen_t
        in_place = self._near_still_place(track, cx, cy) or (
            track.ref_sides is not None and _inside((cx, cy), track.corners_xy) and _smaller(sides, track.ref_sides))
        unseen = gap > self._gap_s(_MAX_GAP_S)
        back = gap <= _COVERED_STILL_S and (track.looks >= 2 or bool(track.votes)) and in_place
        if unseen and back and track.votes and card.reading.criteria is not None \
                and card.reading.confidence >= _TRUSTED and card.reading.criteria not in track.votes:
            # Read surely as another card: not the one that lay there (picked up, another laid).
            back = False
            track.votes.clear()
            track.doubts.clear()
        if unseen and not back:
            # Unseen for a while and not back where it lay still, read as before: the stillness
            # clock starts again. Back in its place, it lay there all along under a hand (laid,
            # then covered at once by the next card's hand).
            track.path.clear()
            track.whole_seen = 0
            track.looks = 0
            track.lain_since = math.inf
        track.last_seen_t = t
        track.place_bgr = None
        if track.ref_sides is not None and not _same_shape(sides, track.ref_sides) and (
            track.settled_t is not None
            or ((track.looks >= 2 and t - track.whole_t <= _PARTIAL_HOLD_S or unseen and back)
                and _inside((cx, cy), track.corners_xy) and not _larger(sides, track.ref_sides)
                and (_smaller(sides, track.ref_sides) or self._near_still_place(track, cx, cy)))
        ):
            # A partly covered card (a hand over it) or an outline bent for a frame (a neighbour
            # moving close by): the card is still there and has not moved, but this outline and
            # reading are not to be trusted. (An outline seen in two fresh looks is the card's; a
            # card in a hand, seen in one, is bigger than when it lies on the table.) So is a card
            # back in its place after a hand covered it whole, showing only part of itself as the
            # hand goes (at 15 frames/s a card left bare for a third of a second may have been
            # found whole by one search only). Seen whole and read surely before, it lies still
            # under the next card's hand, not under the hand laying it (whose fingers make it a
            # doubtful read): its stillness clock goes on.
            if track.settled_t is None and track.votes and track.path and t - track.path[0][0] >= self.settle_s - 1e-6:
                self._settle(track, frame_index, t, frame_bgr)
            return
        track.whole_t = t
        if track.settled_t is not None and frame_bgr is not None and t - track.table_t >= _TABLE_LOOK_S:
            track.table_t = t
            if track.table_share < _TABLE_SHARE:
                # The table round a card was seen with something on it (a hand laying the card
                # next to it): look again while the card lies there whole, keeping the clearer
                # view, or a hand over the card could later pass for the bare table.
                self._look_round(track, frame_bgr, keep_clearer=True)
            if fresh:  # the card is in view in this very frame, not a search handed on over a hand
                self._refresh_ring(track, frame_bgr)
                track.card_bgr = self._net(_sample(frame_bgr, self._place_points(track)))
        track.corners_xy = card.corners_xy.copy()
        still = self._still_radius(track)
        moved = False
        while track.path and math.hypot(track.path[0][1] - cx, track.path[0][2] - cy) > still:
            track.path.popleft()
            moved = True
        # After a move the card must lie still afresh; only the start of the still stretch matters.
        if moved or not track.path:
            track.still_since = track.path[0][0] if track.path else t
            track.whole_seen = len(track.path)
            track.looks = len(track.path)
            if moved:
                track.lain_since = math.inf
            if track.settled_t is None:
                track.ref_sides = sides
                if moved:  # readings taken in a moving hand (blur, fingers) do not vote once it lies still
                    track.votes.clear()
                    track.doubts.clear()
        track.path.append((t, cx, cy))
        track.whole_seen += 1
        track.looks += fresh
        reading = card.reading
        if reading.criteria is None:
            track.reason = reading.reason
        if reading.criteria is not None and reading is not track.reading:
            # A doubtful reading (a hand over the card, glare) counts only while no sure one
            # came, and far less than a sure one; the latest reading goes last, so that of
            # equal votes the newer wins (a card read in the hand first).
            tally = track.votes if reading.confidence >= _TRUSTED else track.doubts
            tally[reading.criteria] = tally.pop(reading.criteria, 0.0) + max(reading.confidence, 0.05) ** 2
            track.reading = reading
            track.read_frame = frame_index
        while len(track.path) > 2 and track.path[1][0] <= t - self.settle_s:
            track.path.popleft()
        self._settle_if_still(track, frame_index, t, frame_bgr)

    def _near_still_place(self, track: _Track, cx: float, cy: float) -> bool:
        if not track.path:
            return False
        _, x0, y0 = track.path[0]
        return math.hypot(cx - x0, cy - y0) <= 2 * self._still_radius(track)

    def _settle_if_still(self, track: _Track, frame_index: int, t: float, frame_bgr: NDArray[np.uint8] | None) -> None:
        """Lay a card seen whole, lying still for ``settle_s``, read surely (or doubtfully, but for long)."""
        if track.settled_t is not None or track.whole_seen < 2 or not track.path:
            return
        if t - track.path[0][0] < self.settle_s - 1e-6:
            return
        # (read only doubtfully, it must also have been found in every frame for that long: glare
        # on the table or a reflection, read as a faint symbol, is found in one search, missed
        # in the next; a card lying bare is found every time)
        if not track.votes and not (track.doubts and t - max(track.still_since, track.missed_t) >= _DOUBTFUL_SETTLE_S - 1e-6):
            return
        self._settle(track, frame_index, t, frame_bgr)

    def _settle(self, track: _Track, frame_index: int, t: float, frame_bgr: NDArray[np.uint8] | None) -> None:
        track.settled_t = t
        track.settled_frame = frame_index
        track.ref_sides = _sides(track.corners_xy)
        if frame_bgr is not None:
            track.table_t = t
            self._look_round(track, frame_bgr, keep_clearer=False)

    def _still_radius(self, track: _Track) -> float:
        return max(1.5, _STILL_DISTANCE * track.short)

    def _look_round(self, track: _Track, frame_bgr: NDArray[np.uint8], keep_clearer: bool) -> None:
        """Note the bare table round a card (its colour and the points that showed it); with
        ``keep_clearer``, only when more of the ring shows it than last time."""
        table_bgr, tol, share, ring_xy, ring_bgr = self._surroundings(track, frame_bgr)
        if keep_clearer and share <= track.table_share:
            return
        if table_bgr is not None:
            table_bgr, ring_bgr = self._net(table_bgr).astype(np.float32), self._net(ring_bgr)
        track.table_bgr, track.table_tol, track.table_share = table_bgr, tol, share
        track.ring_xy, track.ring_bgr = ring_xy, ring_bgr

    def _refresh_ring(self, track: _Track, frame_bgr: NDArray[np.uint8]) -> None:
        """Take in a change of light at the table round a card seen whole: the change shared by
        most of its ring (a lamp nearby, a drift the whole frame does not share), point by point
        where a point agrees with it, and as that shared change where something lies over it
        (a hand or an arm beside the card, another card's place), which is never learned."""
        if track.ring_xy is None or track.ring_bgr is None or track.table_bgr is None:
            return
        clear = ~_inside_any(track.ring_xy, [tr.corners_xy for tr in self._tracks.values() if tr.id != track.id])
        if clear.sum() < 4:
            return
        now = self._net(_sample(frame_bgr, track.ring_xy))
        if len(now) != len(track.ring_bgr):
            return  # a point off the frame
        change = now - track.ring_bgr
        shared = np.median(change[clear], axis=0)
        agree = clear & (np.linalg.norm(change - shared, axis=1) <= _RING_TOL)
        if agree.sum() < _RING_SHARE * clear.sum():
            return  # something lies over the ring: it is not the table's look that changed
        track.ring_bgr = np.where(agree[:, None], now, track.ring_bgr + shared)
        track.table_bgr = (track.table_bgr + shared).astype(np.float32)

    def _surroundings(self, track: _Track, frame_bgr: NDArray[np.uint8]) -> tuple:
        """The bare table's colour just outside the card (other cards' places left out), the
        colour distance still counted as that table, the share of the ring that showed it,
        and the points of the ring that showed it with their colours."""
        c = track.corners_xy.astype(np.float64)
        centre = c.mean(axis=0)
        points = []
        for grow in (1.25, 1.4):
            ring = centre + (c - centre) * grow
            for a, b in zip(ring, np.roll(ring, -1, axis=0)):
                points.extend(a + (b - a) * s for s in (0.2, 0.5, 0.8))
        others = [tr.corners_xy for tr in self._tracks.values() if tr.id != track.id]
        points_xy = np.array(points)
        kept = _in_frame(points_xy[~_inside_any(points_xy, others)], frame_bgr)
        nothing = (None, 40.0, 0.0, None, None)
        if len(kept) < 4:
            return nothing
        samples = _sample(frame_bgr, kept)
        # The biggest group of alike samples is the table; the rest may be a hand, the pool
        # or a mug beside the card, which must not widen what counts as the bare table.
        apart = np.linalg.norm(samples[:, None, :] - samples[None, :, :], axis=2)
        alike = apart <= 1.5 * _TABLE_TOL
        in_group = alike[int(np.argmax(alike.sum(axis=1)))]
        group = samples[in_group]
        if len(group) < 4:
            return nothing
        median = np.median(group, axis=0)
        spread = float(np.median(np.linalg.norm(group - median, axis=1)))
        return (median.astype(np.float32), max(_TABLE_TOL, 2.0 * spread), len(group) / len(samples),
                kept[in_group], group)

    def _table_near(self, track: _Track) -> tuple[NDArray[np.float32] | None, float]:
        """The bare table's colour round a card; where that was never seen clearly, round
        the nearest card whose table was (a hand beside it all the time it lay still)."""
        if track.table_share >= _TABLE_SHARE:
            return track.table_bgr, track.table_tol
        sure = [tr for tr in self._tracks.values() if tr.id != track.id and tr.table_share >= _TABLE_SHARE]
        if not sure:
            return track.table_bgr, track.table_tol
        nearest = min(sure, key=lambda tr: float(np.linalg.norm(tr.centre - track.centre)))
        return nearest.table_bgr, nearest.table_tol

    def _looks_empty(self, track: _Track, place_bgr: NDArray[np.float64], frame_bgr: NDArray[np.uint8]) -> bool:
        """The card's place (``place_bgr``: its colours in this frame, net of the light) shows the
        bare table, and the table round it looks as it did when the card was laid: a hand or an
        arm over a card, even one the colour of the table, reaches over its surroundings too.
        Not while the card's own marks show where they did (``_still_marked``): on a cream or
        white cloth the card's paper looks like the table, and only its symbols tell it is there."""
        table_bgr, table_tol = self._table_near(track)
        if table_bgr is None:
            return True
        if len(place_bgr) == 0:
            return True
        if _still_marked(track.card_bgr, place_bgr, table_bgr, table_tol):
            return False
        near = np.linalg.norm(place_bgr - table_bgr, axis=1) <= table_tol
        return float(near.mean()) >= _EMPTY_SHARE and self._ring_unchanged(track, frame_bgr)

    def _ring_unchanged(self, track: _Track, frame_bgr: NDArray[np.uint8]) -> bool:
        if track.ring_xy is None or track.ring_bgr is None:
            return True
        others = [tr.corners_xy for tr in self._tracks.values() if tr.id != track.id]
        keep = ~_inside_any(track.ring_xy, others)
        if keep.sum() < 4:
            return True
        return _unchanged(self._net(_sample(frame_bgr, track.ring_xy[keep])), track.ring_bgr[keep], _RING_SHARE)

    @staticmethod
    def _place_points(track: _Track) -> NDArray[np.float64]:
        """A 5 x 5 grid over the card's place, clear of its edges."""
        c = track.corners_xy.astype(np.float64)
        u, v = np.meshgrid(np.linspace(0.15, 0.85, 5), np.linspace(0.15, 0.85, 5))
        u, v = u.ravel()[:, None], v.ravel()[:, None]
        return (1 - v) * ((1 - u) * c[0] + u * c[1]) + v * ((1 - u) * c[3] + u * c[2])

    def _snapshot(self, track: _Track, hidden: bool) -> TrackedCard:
        criteria, votes = _voted(track)
        seen_still = track.settled_t is None and track.whole_seen >= 2  # not laid, but seen whole lying still twice
        waiting = seen_still and (bool(track.votes) if hidden else bool(track.path) and criteria is not None)
        return TrackedCard(track.id, track.corners_xy.copy(), criteria, float(votes), track.settled_t,
                           track.settled_frame, hidden, track.reading, waiting, _lying_since(track))


def _still_marked(card_bgr: NDArray[np.float64] | None, place_bgr: NDArray[np.float64], table_bgr: NDArray[np.float32],
                  tol: float) -> bool:
    """Whether the points of a card's place where the card showed something unlike the table
    (``card_bgr``, its look when last seen whole: its symbols) show it still, most of them
    (``_EMPTY_SHARE``) within ``tol`` of how they looked; False where it showed nothing unlike the table."""
    if card_bgr is None or len(card_bgr) != len(place_bgr):
        return False
    marks = np.linalg.norm(card_bgr - table_bgr, axis=1) > tol
    if not marks.any():
        return False
    return float(np.mean(np.linalg.norm(place_bgr[marks] - card_bgr[marks], axis=1) <= tol)) >= _EMPTY_SHARE


def _lying_since(track: _Track) -> float:
    """Since when the card has lain where it lies now (under a hand part of that time, maybe lost and found again)."""
    return min(track.still_since, track.lain_since)


def _voted(track: _Track) -> tuple[Criteria | None, float]:
    """The criteria the card's readings vote for (sure ones, else doubtful ones; of equal votes the
    newer), and their votes; (None, 0) before any reading."""
    tally = track.votes or track.doubts
    return max(reversed(tally.items()), key=lambda kv: kv[1]) if tally else (None, 0.0)


def _inside(point: NDArray, quad: NDArray) -> bool:
    return bool(_inside_any(np.asarray(point, np.float64).reshape(1, 2), [quad])[0])


def _unchanged(now: NDArray[np.float64], before: NDArray[np.float64] | None, share: float) -> bool:
    """At least ``share`` of the points show the colour they showed before (within ``_RING_TOL``)."""
    if before is None or len(now) != len(before) or len(now) == 0:
        return False
    return float((np.linalg.norm(now - before, axis=1) <= _RING_TOL).mean()) >= share


def _inside_any(points_xy: NDArray, quads: Sequence[NDArray]) -> NDArray[np.bool_]:
    """For each of the points (N, 2), whether it lies inside any of the convex quads (each (4, 2))."""
    if not quads or len(points_xy) == 0:
        return np.zeros(len(points_xy), bool)
    return points_inside(np.stack(quads).astype(np.float64), np.asarray(points_xy, np.float64)).any(axis=0)


def _in_frame(points_xy: NDArray, frame_bgr: NDArray[np.uint8]) -> NDArray[np.float64]:
    """The points that round to a pixel of the frame."""
    h, w = frame_bgr.shape[:2]
    xy = np.round(points_xy)
    return points_xy[(xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)].astype(np.float64)


def _sample(frame_bgr: NDArray[np.uint8], points_xy: NDArray) -> NDArray[np.float64]:
    h, w = frame_bgr.shape[:2]
    xy = np.round(points_xy).astype(int)
    ok = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    xy = xy[ok]
    return frame_bgr[xy[:, 1], xy[:, 0]].astype(np.float64)


def row_layout(cards: Sequence[TrackedCard]) -> tuple:
    """All that ``rows_of`` depends on: rows need working out again only when this changes."""
    return tuple((c.id, c.criteria, c.corners_xy.tobytes(), c.waiting) for c in cards if c.is_settled or c.waiting)


def rows_of(cards: Sequence[TrackedCard], seats: Sequence[Seat] | None, size_wh: tuple[int, int]) -> dict[str, tuple[TrackedCard, ...]]:
    """Each player's row of settled cards (hidden ones at their last place), left to right.

    A row ends before a card lying in it not laid yet, or still waiting under a hand
    (``TrackedCard.waiting``): a row is laid left to right, so the cards after it wait for
    it, and each is laid in its place."""
    known = [card for card in cards if (card.is_settled or card.waiting) and card.criteria is not None]
    placed = arrange_rows([card.corners_xy for card in known], seats, size_wh)
    return {row.player: tuple(itertools.takewhile(lambda card: card.is_settled, (known[k] for k in row.cards)))
            for row in placed}
