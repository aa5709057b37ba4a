"""The seat report's words for what went wrong with a photo's rows."""

import numpy as np
import pytest

from calibration.seat_report import explain


def quad(x: float, y: float) -> np.ndarray:
    return np.array([[x, y], [x + 60, y], [x + 60, y + 90], [x, y + 90]], np.float64)


def truth_of(cards: list[tuple[float, float, str | None]], seats: list[str]) -> dict:
    """Ground truth: cards at (x, y), each in a player's row (by name) or the pool (None)."""
    entries = [{"id": k, "corners": quad(x, y).tolist(), "where": "row" if p else "pool", "player": p, "visible_fraction": 1.0}
               for k, (x, y, p) in enumerate(cards)]
    rows = [{"player": s, "cards": [e["id"] for e in entries if e["player"] == s]} for s in seats]
    return {"cards": entries, "seats": [{"name": s, "position": [0, 0]} for s in seats], "rows": rows}


TRUTH = truth_of([(100, 600, "Anna"), (170, 600, "Anna"), (240, 600, "Ben"), (500, 300, None), (100, 50, "Cem")],
                 ["Anna", "Ben", "Cem"])
FOUND = [quad(100, 600), quad(170, 600), quad(240, 600), quad(500, 300)]  # Cem's card not found


@pytest.mark.parametrize(
    "chains, seat_count, words",
    [
        ([[0, 1], [2]], 2, ["unseen Cem (1 cards, visible [1.0])"]),
        ([[0, 1, 2]], 1, ["merged Anna+Ben", "unseen Cem (1 cards, visible [1.0])"]),
        ([[0, 1]], 1, ["not a row: Ben (1 of 1 cards found)", "unseen Cem (1 cards, visible [1.0])"]),
        ([[0], [1], [2], [3]], 4, ["extra row of 1 (pool or false finds)", "split Anna into 2", "unseen Cem (1 cards, visible [1.0])"]),
    ],
    ids=["a row unseen", "two rows merged", "a lone card not a row", "a row split and a pool card as a row"],
)
def test_the_report_names_each_row_that_went_wrong(chains, seat_count, words) -> None:
    said, causes = explain(FOUND, chains, seat_count, TRUTH)
    assert said == words
    assert causes["wrong number"] == 1 and causes["unseen"] == 1
