"""A closer look for cards where a player's row should go on: beyond each row's ends, in its
gaps, and before a seated player whose row was not found.

The finder sweeps the whole frame's whiteness between the table's and the paper's; a card in a
shadow cast across the table, or under a lamp's glare, may stand out at none of those levels
and be missed, in plain view. Swept alone, a box a few cards wide around it takes its levels
from what lies there, and the card stands out (``vision.find.find_closer``). ``cards_nearer``
sweeps such boxes where the rows say a card may lie and the table does not show bare there,
and reads the cards found that no card found before covers, of a card's size where they lie.
Only cards read surely are kept: the cards read with doubt there were mostly pieces of cards
under a hand or no card. A place whose colours are mostly those of the bare table beside the row
is passed over (most places: rows mostly just end): a card in a shadow on a pale cloth of just
its shade goes on unseen.
"""

from __future__ import annotations

from typing import Any, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.gaps import TableLook, table_share
from calibration.seats import Seat, facing, players_way, table_centre
from vision.arrange import PlacedRow, gap_places, row_gaps
from vision.card_sizes import VIEW_CARDS, sizes_in_view
from vision.find import CardQuad, find_closer
from vision.hidden import end_rooms, room_shares, table_beside
from vision.pipeline import DetectedCard, read_quad
from vision.regions import points_inside

__all__ = ["cards_nearer"]

_BOX = 1.5  # a box reaches this many short sides beyond the sides of a place a card may lie at
_BARE = 0.6  # a place this much like the bare table beside the row holds no card: not looked at
_FRONT_ALONG, _FRONT_DEEP = 4.0, 1.5  # before a seat with no row: short sides along its edge either way, and deep
_DEPTH = 3.0  # ... so many short sides in from the seat where no row was found to tell
# A card found shows this share of a card's area where it lies, as the cards in view show it
# (``sizes_in_view``). On two hard dev sets the boxes' finds within it were 16 cards and 4 pieces
# or no card; outside it 4 cards (pieces of cards half hidden) and 35 no card (a piece of one
# or a stretch of cloth, up to nine cards large).
_CARD_AREA = (0.75, 1.25)
# Fewer cards in view than a plane of sizes is fitted over (``card_sizes``) tell a card's size by the
# cards nearest, which in a tilted view may lie far off, nearer or further from the camera: a card
# found may then show up to this many times their area (a lone card near the camera, the others' row
# across the table; val28 hard dev-95039: 1.6).
_FEW_CARDS_AREA = 2.0


def cards_nearer(frame_bgr: NDArray[np.uint8], cards: Sequence[DetectedCard], rows: Sequence[PlacedRow],
                 seats: Sequence[Seat], look: TableLook, top_xy: NDArray[np.float64] | None, seen_xy: Sequence[NDArray],
                 small_bgr: NDArray[np.uint8] | None = None, profile: Any = None, sure: float = 0.5) -> list[DetectedCard]:
    """The face-up cards found looking closer where the rows may go on, over no card seen.

    Parameters
    ----------
    frame_bgr : the frame
    cards : the faces found and read (``rows`` index them), none when none was found
    rows : the rows those cards make (``vision.arrange.arrange_rows`` with ``seats``)
    seats : the players' seats
    look, top_xy : the frame's table look and table top (``vision.hidden.look_at_table``)
    seen_xy : (4, 2) each, every card seen: the faces, read or not, and the point cards
    small_bgr : the frame's working copy (``vision.find.working_copy``), when at hand
    profile : the colour profile the cards are read with
    sure : the least confidence of a card's reading kept: one read with doubt here is mostly a
        piece of a card under a hand, or no card (a point card's corner, a stretch of cloth)

    Returns
    -------
    the cards found and read surely, in the order of the boxes
    """
    if not cards:
        return []
    seen = [np.asarray(quad, np.float32) for quad in seen_xy]
    short = float(np.median([min(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[1])) for q in (c.corners_xy for c in cards)]))
    places = []
    centre = table_centre(seats, (frame_bgr.shape[1], frame_bgr.shape[0]))
    way_of = {seat.name: players_way(seat.position_xy, centre, top_xy) for seat in seats}
    for row in rows:
        corners = [cards[k].corners_xy for k in row.cards]
        way = way_of.get(row.player)  # (a lone card's row runs its player's way)
        rooms = dict(room_shares(look, corners, seen, len(corners), top_xy, way))
        places += [quad for position, quad in end_rooms(corners, len(corners), shrink=1.0, along=way)
                   if rooms.get(position) is not None and rooms[position] < _BARE]
        table = table_beside(corners)
        for quad in gap_places(corners, row_gaps(corners)):
            share = table_share(look, quad, table, seen)
            if share is not None and share < _BARE:
                places.append(quad)
    boxes = [_box(quad, _BOX * short) for quad in places]
    # Before a seat with no row, as far in as the rows found lie from theirs (none found: a guess).
    placed = {row.player for row in rows}
    depth = float(np.median([_depth(seats, row, cards) for row in rows])) if rows else _DEPTH * short
    for seat in seats:
        if seat.name not in placed:
            toward = np.array(facing(seat.position_xy, centre))
            across = np.array([-toward[1], toward[0]])
            middle = np.array(seat.position_xy) + depth * toward
            front = [middle + short * (a * _FRONT_ALONG * across + d * _FRONT_DEEP * toward) for a, d in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
            boxes.append(_box(np.array(front), 0.0))
    height, width = frame_bgr.shape[:2]
    boxes = [box for box in (_clipped(box, width, height) for box in boxes) if box[2] - box[0] >= 2 * short and box[3] - box[1] >= 2 * short]
    in_view = [CardQuad(card.corners_xy, 1.0) for card in cards]
    largest = _CARD_AREA[1] if len(in_view) >= VIEW_CARDS else _FEW_CARDS_AREA
    found: list[DetectedCard] = []
    taken = np.array(seen, np.float32).reshape(-1, 4, 2)  # (the cards seen, and those found here)
    for quads in find_closer(frame_bgr, boxes, small_bgr):
        for quad in quads:
            if points_inside(taken, np.array([quad.center_xy], np.float32)).any() or points_inside(quad.corners_xy[None], taken.mean(axis=1)).any():
                continue  # (a card found already)
            short_side, long_side = sizes_in_view(in_view, np.array([quad.center_xy]))[0]
            if not _CARD_AREA[0] <= cv2.contourArea(quad.corners_xy) / (short_side * long_side) <= largest:
                continue  # (a piece of a card, or none)
            card = read_quad(frame_bgr, quad, profile)
            if card is not None and card.reading.criteria is not None and card.reading.confidence >= sure:
                found.append(card)
                taken = np.concatenate([taken, card.corners_xy[None].astype(np.float32)])
    return found


def _box(quad: NDArray, margin: float) -> tuple[float, float, float, float]:
    low, high = np.min(quad, axis=0) - margin, np.max(quad, axis=0) + margin
    return float(low[0]), float(low[1]), float(high[0]), float(high[1])


def _clipped(box: tuple[float, float, float, float], width: int, height: int) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    return max(0, int(x0)), max(0, int(y0)), min(width, int(np.ceil(x1))), min(height, int(np.ceil(y1)))


def _depth(seats: Sequence[Seat], row: PlacedRow, cards: Sequence[DetectedCard]) -> float:
    """How far a row's nearest card lies from its player's seat."""
    seat = next(s for s in seats if s.name == row.player)
    centres = np.array([cards[k].center_xy for k in row.cards])
    return float(np.min(np.linalg.norm(centres - np.array(seat.position_xy), axis=1)))
