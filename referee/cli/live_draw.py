"""The live overlay: rows in player colours, lengths, the ranking, round and total points.

In hidden mode a row shows how many cards it holds until the round is scored; in
open mode (practice) each row's first error is shown as soon as it happens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from referee.live.game import LiveGame, Phase
from referee.rows import RowError, check_row, matched_words, ordinal
from vision.annotate import RowOverlay, draw_label, draw_panel, draw_rows

__all__ = ["LiveView", "draw_live"]


@dataclass(frozen=True)
class LiveView:
    """What the overlay needs besides the frame: where each card lies, the mode, a prompt."""

    corners_by_id: Mapping[int, NDArray[np.float32]]
    mode: str  # "open" or "hidden"
    prompt: str | None = None  # point cards being typed in the window ("" just after p), None when not asked
    keys: bool = False  # show the key help
    notice: str = ""  # the latest warning


def _error_text(cards: Sequence, error: RowError | None) -> str:
    if error is None:
        return ""
    if error.criteria == ("max_length",):
        return f"{ordinal(error.position + 1)} card: one too many"
    return f"{ordinal(error.position + 1)}: {matched_words(cards[error.position], error)} like the {ordinal(error.position)}"


def draw_live(frame_bgr: NDArray[np.uint8], game: LiveGame, view: LiveView) -> NDArray[np.uint8]:
    """A copy of the frame with the game drawn over it.

    Parameters
    ----------
    frame_bgr : ndarray (H, W, 3) uint8
    game : the game as it stands after this frame
    view : card places and display settings

    Returns
    -------
    annotated_bgr : ndarray (H, W, 3) uint8
    """
    scored = game.phase in (Phase.SCORED, Phase.OVER) and game.round in game.results
    reveal = scored or view.mode == "open"
    overlays = []
    for player in game.players:
        ids = game.row_ids()[player]
        criteria = game.row_criteria()[player]
        known = [k for k, card_id in enumerate(ids) if card_id in view.corners_by_id]
        if not known:
            continue
        verdict = check_row(criteria)
        error = verdict.first_error if reveal else None
        valid = verdict.valid_length if reveal else len(criteria)
        error_index = error.position if error is not None and error.position in known else None
        overlays.append(RowOverlay(
            player=player,
            corners=tuple(view.corners_by_id[ids[k]] for k in known),
            valid_length=min(valid, len(known)),
            error_index=known.index(error_index) if error_index is not None else None,
            error_text=_error_text(criteria, error),
            uncertain=False,
        ))
    out = draw_rows(frame_bgr, overlays) if overlays else frame_bgr.copy()
    out = draw_panel(out, _title(game, view), _lines(game, reveal))
    h, w = out.shape[:2]
    scale = max(0.5, h / 900)
    if view.prompt is not None:
        draw_label(out, f"point cards, comma separated: {view.prompt}_  (Enter / Esc)", (w // 2, h // 2), scale,
                   colour_bgr=(0, 0, 0), background_bgr=(80, 220, 255))
    if view.notice:
        draw_label(out, view.notice, (w // 2, int(h - 70 * scale)), scale * 0.8, background_bgr=(0, 90, 170))
    if view.keys:
        draw_label(out, "n next round   p point cards   m open/hidden   q quit", (w // 2, int(h - 25 * scale)),
                   scale * 0.7, background_bgr=(40, 40, 40))
    return out


def _title(game: LiveGame, view: LiveView) -> str:
    if game.phase is Phase.OVER:
        return "Game over"
    state = {Phase.PLAYING: "", Phase.SCORED: " - scored", Phase.CLEARED: " - clear the table"}[game.phase]
    if game.stopped_by is not None:
        state = f" - Stopp! ({game.stopped_by})"
    return f"Round {max(game.round, 1)} of {game.rounds}{state} ({view.mode})"


def _lines(game: LiveGame, reveal: bool) -> list[str]:
    totals = {s.player: s.points for s in game.standings()}
    result = game.results.get(game.round) if game.phase in (Phase.SCORED, Phase.OVER) else None
    lines = []
    if result is not None:
        for rank in result.ranking:
            won = f", +{result.points[rank.player]} pts" if result.points else ""
            lines.append(f"{rank.place}. {rank.player}: {rank.valid_length} valid{won}")
    else:
        verdicts = game.verdicts()
        for player, cards in game.row_criteria().items():
            valid = f", {verdicts[player].valid_length} valid" if reveal else ""
            lines.append(f"{player}: {len(cards)} cards{valid}")
    if any(result.points for result in game.results.values()):
        lines.append("Total: " + ", ".join(f"{p} {totals.get(p, 0)}" for p in game.players))
    return lines
