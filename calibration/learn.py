"""A whole calibration proposed from one frame: seats (from the rows, and arms reaching in),
table top, pool and colour profile."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

from calibration.areas import find_pool_area, find_table_area
from calibration.arms import arm_entries
from calibration.config import Calibration
from calibration.profile import ink_samples, learn_profile
from calibration.propose import ProposalError, off_heap, propose_seats, table_centre
from calibration.rows import row_chains
from calibration.seats import scaled_seat
from vision.backs import find_backs

__all__ = ["calibrate_frame", "ProposalError"]


def _points(polygon: NDArray[np.float64] | None) -> tuple[tuple[float, float], ...] | None:
    return None if polygon is None else tuple((round(float(x), 1), round(float(y), 1)) for x, y in polygon)


def calibrate_frame(frame_bgr: NDArray[np.uint8], players: Sequence[str] | None = None) -> Calibration:
    """The calibration this frame suggests (seats from the rows, table top, pool, colour profile).

    Cards too small to find (a 720p camera over a six-player table) are looked for in the frame
    enlarged (``vision.pipeline.enlarged_for``), as ``referee check`` and ``live`` read them.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8, the table with the players' rows laid out
    players : names, one per seat wanted, clockwise from the bottom of the image

    Raises
    ------
    ProposalError
        When no row is found, or ``players`` holds an empty name or one twice.
    """
    try:
        return _calibrate_frame(frame_bgr, players)
    except ProposalError as error:
        from vision.find import cards_too_small
        from vision.pipeline import enlarged_for, enlarged_frame

        small = cards_too_small(frame_bgr)
        if small is None:
            raise
        factor = enlarged_for(small)
        if factor is None:
            raise ProposalError(f"{error} (the cards seen are only {small.short_px:.0f} px on their short side, too small to "
                                "read: the referee needs about 80 px; move the camera closer or raise its resolution)") from None
    enlarged = _calibrate_frame(enlarged_frame(frame_bgr, factor), players)

    def back(points: tuple[tuple[float, float], ...] | None) -> tuple[tuple[float, float], ...] | None:
        return None if points is None else _points(np.array(points, np.float64) / factor)

    seats = tuple(scaled_seat(seat, 1 / factor) for seat in enlarged.seats)
    return replace(enlarged, seats=seats, image_size_wh=(frame_bgr.shape[1], frame_bgr.shape[0]), table=back(enlarged.table),
                   pool=back(enlarged.pool))


def _calibrate_frame(frame_bgr: NDArray[np.uint8], players: Sequence[str] | None) -> Calibration:
    """``calibrate_frame`` of the frame as it is."""
    from vision.pipeline import read_frame

    height, width = frame_bgr.shape[:2]
    cards = [card for card in read_frame(frame_bgr) if card.reading.criteria is not None]
    corners = [card.corners_xy for card in cards]
    table = find_table_area(frame_bgr, corners)
    centre = table_centre(table, (width, height))
    heaps = find_backs(frame_bgr, corners)
    # A lone card on the heap of face-down cards is a pool card, not a row.
    rows = off_heap(row_chains(corners, centre, table, (width, height), frame_bgr), corners, heaps) if corners else []
    arms = arm_entries(frame_bgr, corners, table)
    seats = propose_seats(corners, (width, height), table, players, frame_bgr, rows, arms, heaps)
    if not seats:
        raise ProposalError(
            f"no rows found among {len(cards)} face-up cards: lay at least two cards side by side in front of "
            "each player (or give the seats by hand in a YAML file)"
        )
    in_rows = {k for row in rows for k in row}
    # Without the table top, how far out a card lies is measured to the image's edge, which
    # says too little about the middle: no pool then, rather than one over a short row.
    pool = None if table is None else find_pool_area(
        [corners[k] for k in range(len(cards)) if k not in in_rows],
        [cards[k].center_xy for k in in_rows], centre, table, heaps,
    )
    samples = ink_samples(frame_bgr, corners)
    profile = learn_profile(samples) if samples else None
    return Calibration(tuple(seats), (width, height), _points(table), _points(pool), profile)
