"""Where the finder loses the cards it misses: the stage tracer used to decide what to work on."""

import json

import vision.find as find
import vision.second_look as second_look
from tests.vision.test_find import SEPARATE, card_corners, scene
from vision.bench_stages import STAGES, lost_cards, main

WATCHED = ((find, "_sweep"), (second_look, "_fitting"), (find, "look_again"), (find, "of_paper_tint"), (find, "_onto_outlines"),
           (find, "_without_pieces"))


def _table():
    """The three separate cards, found, and a fourth too small for the finder to outline."""
    cards = [*SEPARATE, card_corners((570, 80), (30, 45), 0)]
    truth = {"cards": [{"id": k, "corners": c.tolist(), "visible_fraction": 1.0, "where": "row"} for k, c in enumerate(cards)]}
    return scene(cards), truth


def test_a_card_too_small_to_outline_is_lost_with_no_region_and_the_finder_is_put_back() -> None:
    image, truth = _table()
    before = {(module, name): getattr(module, name) for module, name in WATCHED}
    assert lost_cards(image, truth) == [(3, STAGES[0])]
    assert all(getattr(module, name) is stage for (module, name), stage in before.items())


def test_a_card_mostly_hidden_is_not_due() -> None:
    image, truth = _table()
    truth["cards"][3]["visible_fraction"] = 0.5
    assert lost_cards(image, truth) == []


def test_the_command_tallies_the_lost_cards_by_stage(tmp_path, capsys) -> None:
    import cv2

    image, truth = _table()
    cv2.imwrite(str(tmp_path / "table.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    (tmp_path / "table.json").write_text(json.dumps(truth))
    assert main([str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["missed_by_stage"][STAGES[0]] == 1 and sum(out["missed_by_stage"].values()) == 1
    assert out["cards"] == [f"{tmp_path.name}/table: card 3 (row): {STAGES[0]}"]
