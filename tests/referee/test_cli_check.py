"""``referee check`` on photos: the JSON contract, error lines, annotation."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cli import main
from tests.vision.test_find import SEPARATE, scene

SCHEMA = Path(__file__).resolve().parents[2].parent / "shared" / "spec" / "check-result.schema.json"


@pytest.fixture
def validate():
    jsonschema = pytest.importorskip("jsonschema")
    if not SCHEMA.exists():
        pytest.skip(f"the contract's schema is not beside the checkout: {SCHEMA}")
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    return lambda line: [e.message for e in validator.iter_errors(line)]


def test_check_json_gives_one_contract_line_per_image_and_error_lines(tmp_path, capsys, validate) -> None:
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), scene(SEPARATE))
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8\xff garbage")
    assert main(["check", str(photo), str(broken), str(tmp_path / "missing.jpg"), "--json"]) == 1
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert len(lines) == 3
    assert all(validate(line) == [] for line in lines)
    assert len(lines[0]["cards"]) == 3 and lines[0]["rows"] == [] and lines[0]["ranking"] == []
    assert lines[1]["image"]["path"] == str(broken) and "not an image" in lines[1]["error"]
    assert "no such file" in lines[2]["error"]
    assert "missing.jpg: no such file" in captured.err


def test_check_annotate_writes_the_picture(tmp_path, capsys) -> None:
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), scene(SEPARATE))
    out = tmp_path / "out.png"
    assert main(["check", str(photo), "--annotate", str(out)]) == 0
    assert cv2.imread(str(out)).shape == (400, 640, 3)
    assert "3 face-up cards" in capsys.readouterr().out


def test_a_seated_player_without_a_row_is_named_so_the_table_can_look(tmp_path, capsys, validate) -> None:
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), scene(SEPARATE))  # three lone cards in the upper half: nothing in front of Anna
    seats = tmp_path / "seats.yaml"
    seats.write_text("seats:\n" + "".join(f"  - name: {name}\n    position: [{x}, {y}]\n" for name, x, y in
                                          (("Anna", 320, 399), ("Ben", 320, 0), ("Cleo", 0, 200), ("Dora", 639, 200))))
    assert main(["check", str(photo), "--calibration", str(seats), "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert validate(line) == []
    assert line["players_without_row"] == ["Anna"] and "Anna" not in [row["player"] for row in line["rows"]]
    assert main(["check", str(photo), "--calibration", str(seats)]) == 0
    assert "Anna: no row found" in capsys.readouterr().out


def test_a_gap_makes_a_row_uncertain_only_at_or_before_its_first_error() -> None:
    from referee.cli.table import TableRow
    from referee.rows import RowError, Verdict

    error_at_2 = Verdict(2, RowError(2, ("colours",)))
    assert TableRow("Anna", (0, 1, 2, 3), error_at_2, (), gaps=(2,)).uncertain
    assert not TableRow("Anna", (0, 1, 2, 3), error_at_2, (), gaps=(3,)).uncertain
    assert TableRow("Anna", (0, 1, 2, 3), Verdict(4, None), (), gaps=(3,)).uncertain
    assert not TableRow("Anna", (0, 1, 2, 3), Verdict(4, None), ()).uncertain


def test_a_row_says_what_makes_its_verdict_uncertain_only_where_it_decides() -> None:
    from referee.cli.table import TableRow
    from referee.rows import RowError, Verdict

    error_at_2 = Verdict(2, RowError(2, ("colours",)))
    row = TableRow("Anna", (0, 1, 2, 3), error_at_2, (1,), gaps=(3,), covered=(0,), hidden=(1,))
    assert row.flags == ("card read with doubt", "covered end", "hidden card")  # (the gap after the error: none)
    assert TableRow("Anna", (0, 1), Verdict(2, None), (), unread_cards=1, disputed=((1, "Ben"),)).flags == (
        "face not read", "disputed card")
    assert TableRow("Anna", (0, 1), Verdict(2, None), ()).flags == ()


def test_a_covered_row_end_makes_the_verdict_uncertain_only_where_a_card_there_would_change_it() -> None:
    from referee.cli.table import TableRow
    from referee.rows import RowError, Verdict

    error_at_2 = Verdict(2, RowError(2, ("colours",)))
    assert TableRow("Anna", (0, 1, 2, 3), error_at_2, (), covered=(0,)).uncertain  # before the first: always
    assert not TableRow("Anna", (0, 1, 2, 3), error_at_2, (), covered=(4,)).uncertain  # after an error: never
    assert TableRow("Anna", (0, 1, 2, 3), Verdict(4, None), (), covered=(4,)).uncertain  # a clean row grows


def test_a_covered_row_end_is_said_in_words_and_in_the_json() -> None:
    from referee.cli.table import TableResult, TableRow, result_json, result_lines
    from referee.rows import Verdict

    row = TableRow("Anna", (), Verdict(0, None), (), covered=(0, 3))
    result = TableResult((640, 400), (), (), (row,), ())
    line = " ".join(result_lines(result, "table.png"))
    assert "room for a card before the 1st: one may lie hidden there, please look" in line
    assert "room for a card after the 3rd: one may lie hidden there, please look" in line
    assert result_json(result, "table.png")["rows"][0]["covered_ends"] == [0, 3]


def test_a_card_of_the_row_under_another_players_makes_it_uncertain_at_or_before_its_first_error() -> None:
    from referee.cli.table import TableResult, TableRow, result_json, result_lines
    from referee.rows import RowError, Verdict

    error_at_1 = Verdict(1, RowError(1, ("colours",)))
    assert TableRow("Anna", (0, 1, 2), error_at_1, (), hidden=(0,)).uncertain  # before the first card
    assert not TableRow("Anna", (0, 1, 2), error_at_1, (), hidden=(3,)).uncertain  # after the error: it changes nothing
    row = TableRow("Anna", (0,), Verdict(1, None), (), hidden=(0,))  # a card under another's, then one read
    assert row.uncertain
    result = TableResult((640, 400), (), (), (row,), ())
    assert "a card of this row lies too hidden to read, under another player's or a hand: please look" in " ".join(result_lines(result, "table.png"))
    line = result_json(result, "table.png")["rows"][0]
    assert line["hidden_cards"] == [0] and line["uncertain"] and line["cards"] == [0]


def test_the_places_drawn_for_a_hidden_card_are_the_deciding_covered_ends_and_gaps_a_place_a_card() -> None:
    import numpy as np

    from referee.cli.table import TableRow, _hidden_places
    from referee.rows import RowError, Verdict

    corners = [np.array([(x, 100), (x + 60, 100), (x + 60, 190), (x, 190)], np.float32) for x in (100, 170, 310)]
    clean = TableRow("Anna", (0, 1, 2), Verdict(3, None), (), gaps=(2,), covered=(0, 3))
    middles = sorted(tuple(place.mean(axis=0).round()) for place in _hidden_places(corners, clean))
    assert middles == [(60.0, 145.0), (270.0, 145.0), (410.0, 145.0)]  # before the 1st, the gap, after the 3rd
    error_at_1 = TableRow("Anna", (0, 1, 2), Verdict(1, RowError(1, ("shapes",))), (), gaps=(2,), covered=(0,))
    assert [tuple(place.mean(axis=0).round()) for place in _hidden_places(corners, error_at_1)] == [(60.0, 145.0)]
    # A gap that holds two cards at the row's spacing (an arm over it) shows two places.
    wide = [np.array([(x, 100), (x + 60, 100), (x + 60, 190), (x, 190)], np.float32) for x in (100, 170, 380)]
    two = TableRow("Anna", (0, 1, 2), Verdict(3, None), (), gaps=(2,))
    assert [tuple(place.mean(axis=0).round()) for place in _hidden_places(wide, two)] == [(270.0, 145.0), (340.0, 145.0)]


def test_a_doubtful_card_counts_only_when_a_near_misreading_would_change_the_verdict() -> None:
    from referee.cards import Criteria
    from referee.cli.table import misread_may_change
    from referee.rows import check_row

    far = [Criteria(1, 1, 2), Criteria(3, 3, 6), Criteria(1, 1, 2)]  # neighbours over a misread apart
    assert not any(misread_may_change(far, k, check_row(far)) for k in range(3))
    near = [Criteria(2, 1, 2), Criteria(1, 3, 6)]  # one colour more than read and the 2nd matches the 1st
    assert misread_may_change(near, 1, check_row(near))
    symbols = [Criteria(1, 1, 6), Criteria(3, 3, 4)]  # two symbols more than read and the 2nd matches the 1st
    assert misread_may_change(symbols, 1, check_row(symbols))
    fewer = [Criteria(1, 1, 3), Criteria(3, 3, 4)]  # one symbol fewer than read (a false blob) and it does
    assert misread_may_change(fewer, 1, check_row(fewer))


def test_a_card_that_may_be_cloth_counts_when_the_row_without_it_has_another_verdict() -> None:
    import numpy as np

    from referee.cards import Colour, Criteria, Shape
    from referee.cli.table import TableResult, TableRow, _absent_may_change, misread_may_change, result_lines
    from referee.rows import check_row
    from vision.pipeline import DetectedCard
    from vision.records import CardReading, SymbolReading

    # (dev hard 4031: a patch of dotted cloth read as one green circle at a row's end)
    row = [Criteria(3, 1, 6), Criteria(4, 4, 4), Criteria(1, 1, 1)]
    assert not misread_may_change(row, 2, check_row(row))  # read a little otherwise, it still differs from the 2nd
    assert _absent_may_change(row, 2, check_row(row))  # no card there, the row is two long
    erring = [Criteria(1, 1, 2), Criteria(1, 2, 3), Criteria(3, 3, 4)]  # the 2nd breaks the row before it
    assert not _absent_may_change(erring, 2, check_row(erring))
    circle = CardReading((SymbolReading(Shape.CIRCLE, Colour.GREEN, (0.0, 0.0), 1.0),), Criteria(1, 1, 1), 0.3, True)
    corners = np.array([(0, 0), (60, 0), (60, 90), (0, 90)], np.float32)
    card = DetectedCard(corners, circle, may_be_cloth=True)
    result = TableResult((640, 400), (card,), (), (TableRow("Dora", (0,), check_row([Criteria(1, 1, 1)]), (0,)),), ())
    assert "(please look at card 1: perhaps no card but the cloth's dots)" in " ".join(result_lines(result, "table.png"))


def test_a_misread_is_seldom_more_than_the_card_shows() -> None:
    """The truth lies mostly above a misreading (a symbol washed out or cut off, a colour missed):
    a card whose match with its neighbour needs one colour or two symbols fewer than read needs no look."""
    from referee.cards import Criteria
    from referee.cli.table import misread_may_change
    from referee.rows import check_row

    colour = [Criteria(1, 1, 2), Criteria(2, 3, 6)]  # the 2nd matches the 1st with one colour fewer
    symbols = [Criteria(1, 1, 2), Criteria(3, 3, 4)]  # ... with two symbols fewer
    assert not misread_may_change(colour, 1, check_row(colour))
    assert not misread_may_change(symbols, 1, check_row(symbols))
    erring = [Criteria(2, 2, 4), Criteria(2, 4, 8)]  # the 2nd's colours read otherwise: no error
    assert misread_may_change(erring, 1, check_row(erring))


def _laid(criteria):
    """Detected cards read as ``criteria``, side by side along the bottom of a 640x400 photo."""
    from referee.cards import Criteria
    from vision.pipeline import DetectedCard
    from vision.records import CardReading

    cards = []
    for i, (colours, shapes, symbols) in enumerate(criteria):
        x = 60 + 70 * i
        corners = np.array([[x, 300], [x + 60, 300], [x + 60, 390], [x, 390]], np.float32)
        cards.append(DetectedCard(corners, CardReading((), Criteria(colours, shapes, symbols), 1.0, True)))
    return tuple(cards)


def _meeting(criteria):
    """Anna's row (cards 0-2) and Ines's (3-5) meeting end to end, Ines's first card disputed."""
    from referee.cli.table import TableRow, with_deciding_disputes
    from referee.rows import check_row

    cards = _laid(criteria)
    rows = [TableRow(player, ids, check_row([cards[k].reading.criteria for k in ids]), (), disputed=disputed)
            for player, ids, disputed in (("Anna", (0, 1, 2), ()), ("Ines", (3, 4, 5), ((3, "Anna"),)))]
    return cards, with_deciding_disputes(rows, cards)


def test_a_card_where_two_rows_meet_is_disputed_on_both_rows_when_moving_it_changes_a_verdict() -> None:
    from referee.cli.table import TableResult, result_json, result_lines

    # Ines's first card, given to Anna, would break Anna's clean row at its 4th card.
    cards, rows = _meeting([(1, 1, 1), (2, 2, 2), (3, 3, 3), (3, 3, 4), (1, 1, 5), (2, 2, 6)])
    anna, ines = rows
    assert anna.disputed == ((3, "Ines"),) and ines.disputed == ((3, "Anna"),)
    assert anna.uncertain and ines.uncertain
    result = TableResult((640, 400), cards, (), tuple(rows), ())
    words = " ".join(result_lines(result, "table.png"))
    assert "Anna: 3 valid of 3; no error (where this row meets Ines's, the card at the meeting may be either's: please look)" in words
    assert "where this row meets Anna's, the card at the meeting may be either's: please look" in words
    assert result_json(result, "table.png")["rows"][1]["disputed_cards"] == [{"card": 3, "other_player": "Anna"}]


def test_a_card_where_two_rows_meet_is_not_disputed_when_either_way_both_verdicts_stand() -> None:
    # Both rows break at their 2nd card whichever row the card at the meeting is in.
    _, rows = _meeting([(1, 1, 1), (1, 2, 2), (3, 3, 3), (2, 2, 4), (2, 3, 5), (2, 1, 6)])
    assert all(row.disputed == () and not row.uncertain for row in rows)


def _flat_card(x: float, read: bool = True, partly_hidden: bool = False):
    """A card read (or too hidden to read: no criteria) lying upright at ``x``, 80 x 120 px."""
    from referee.cards import Criteria
    from vision.pipeline import DetectedCard
    from vision.records import CardReading

    corners = np.array([[x - 40, 140], [x + 40, 140], [x + 40, 260], [x - 40, 260]], np.float32)
    reading = CardReading((), Criteria(1, 1, 1) if read else None, 0.2 if partly_hidden else 0.9, True)
    return DetectedCard(corners, reading, partly_hidden)


@pytest.mark.parametrize("lone", [False, True], ids=["a row", "a lone card"])
def test_cards_found_partly_hidden_take_their_places_in_the_row_and_the_unread_ones_are_hidden_cards(lone, monkeypatch) -> None:
    # A row at x 150, 250, 350 and 550 (room for a card at 450): a card partly under a hand is
    # found and read at 450 and after the last card (650), one too hidden to read before the
    # first (50). A lone card's ends are told apart by its player's left to right.
    import referee.cli.table as table
    from calibration.seats import Seat
    from vision.quads import CardQuad

    read_at, unread_at = {450, 650}, {50}
    if lone:
        read_at, unread_at = {50}, {250}  # (a lone card at 150: its ends one pitch either side)

    def found(look, place, row_xy, table_xy, seen_xy):
        x = round(float(np.mean(place[:, 0])), -1)
        return CardQuad(np.float32(place), 0.4) if x in read_at | unread_at else None

    def read(frame, quad, profile=None):
        x = round(float(quad.center_xy[0]), -1)
        return _flat_card(x, read=x in read_at, partly_hidden=True)

    monkeypatch.setattr(table, "partly_hidden", found)
    monkeypatch.setattr(table, "read_partly_hidden", read)
    xs = [150] if lone else [150, 250, 350, 550]
    cards = [_flat_card(x) for x in xs]
    row = tuple(range(len(xs)))
    # The player sits across the table (at the top): their left to right runs right to left on screen.
    seats = [Seat("Anna", (150, 0)), Seat("Ben", (150, 400))]
    placed, hidden = table._with_partly_hidden(np.zeros((400, 700, 3), np.uint8), None, row, (), cards, [], None,
                                               seats, 0, table._players_way(seats, 0, (640, 400), None))
    xs_now = [round(float(cards[k].center_xy[0])) for k in placed]
    if lone:
        assert xs_now == [150, 50] and hidden == (0,)  # 50 is Anna's right of 150; 250 (unread) her left
    else:
        assert xs_now == [150, 250, 350, 450, 550, 650] and hidden == (0,)
    assert all(cards[k].partly_hidden for k in placed if cards[k].center_xy[0] in (50, 450, 650))


@pytest.mark.parametrize("down, rows", [(0, 1), (250, 0)], ids=["before the seat", "nearer another seat"])
def test_a_seated_player_with_no_row_gets_their_lone_card_found_partly_hidden_as_a_row_of_one(down, rows, monkeypatch) -> None:
    # Ben's row lies at the bottom; Anna, at the top, has none: her lone card, found partly under
    # her hand before her seat, makes her row, never surely, its ends both covered (her row may go
    # on under the hand). A card found there nearer another player's seat is not hers.
    from dataclasses import replace

    import referee.cli.table as table
    from calibration.seats import Seat
    from referee.cards import Criteria
    from referee.rows import check_row
    from vision.quads import CardQuad

    asked = []

    def down_by(card, dy):
        return replace(card, corners_xy=card.corners_xy + np.float32([0, dy]))

    def found(look, seat_xy, toward_xy, depth, size_wh, paper_xy, seen_xy):
        asked.append((tuple(seat_xy), tuple(np.round(toward_xy, 3))))
        return CardQuad(down_by(_flat_card(150), down).corners_xy, 0.4)  # (at 150, 200 or 150, 450)

    def read(frame, quad, profile=None):
        return down_by(_flat_card(150, partly_hidden=True), quad.center_xy[1] - 200)

    monkeypatch.setattr(table, "lone_partly_hidden", found)
    monkeypatch.setattr(table, "read_partly_hidden", read)
    cards = [down_by(_flat_card(x), 300) for x in (350, 450, 550)]  # (Ben's row, at y 500)
    seats = [Seat("Anna", (150, 0)), Seat("Ben", (150, 600))]
    ben = table.TableRow("Ben", (0, 1, 2), check_row([Criteria(1, 1, 1), Criteria(2, 2, 2), Criteria(3, 3, 3)]), (), seat=1)
    lone = table._lone_partly_hidden(np.zeros((600, 700, 3), np.uint8), None, None, seats, [ben], cards, [], None, (700, 600))
    assert asked == [((150, 0), (0.0, 1.0))]  # (only Anna, straight in from her seat: no table top known)
    assert len(lone) == rows
    if rows:
        row = lone[0]
        assert (row.player, row.cards, row.covered, row.uncertain_cards) == ("Anna", (3,), (0, 1), (3,))
        assert cards[3].partly_hidden and row.uncertain


def test_a_photo_the_reader_fails_on_is_named_and_the_others_are_still_refereed(tmp_path, capsys, monkeypatch, validate) -> None:
    import referee.cli.table as table

    first, second = tmp_path / "first.png", tmp_path / "second.png"
    for photo in (first, second):
        cv2.imwrite(str(photo), scene(SEPARATE))
    real = table.referee_frame
    calls = []

    def failing_once(frame, *args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise IndexError("index 11 is out of bounds")
        return real(frame, *args, **kwargs)

    monkeypatch.setattr(table, "referee_frame", failing_once)
    assert main(["check", str(first), str(second), "--json"]) == 1
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert len(lines) == 2 and all(validate(line) == [] for line in lines)
    assert lines[0]["image"]["path"] == str(first) and "could not be refereed" in lines[0]["error"]
    assert len(lines[1]["cards"]) == 3
    assert f"{first}: could not be refereed" in captured.err and "IndexError" in captured.err


def test_a_photo_whose_cards_all_show_too_small_to_find_is_read_enlarged(tmp_path, capsys, validate) -> None:
    # The committed rulebook table (six players' rows and a pool) as a 720p camera shows it:
    # every card about 45 px on its short side, below the 60 px the finder looks for.
    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "photos" / "medium"
    full = cv2.imread(str(fixtures / "rulebook.jpg"))
    photo = tmp_path / "table-720p.jpg"
    cv2.imwrite(str(photo), cv2.resize(full, (1280, 720), interpolation=cv2.INTER_AREA), [cv2.IMWRITE_JPEG_QUALITY, 90])
    seats = tmp_path / "seats.yaml"
    truth = json.loads((fixtures / "rulebook.json").read_text())
    seats.write_text("seats:\n" + "".join(f"  - name: {s['name']}\n    position: [{s['position'][0] / 2}, {s['position'][1] / 2}]\n"
                                          for s in truth["seats"]))
    assert main(["check", str(photo), "--calibration", str(seats), "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert validate(line) == []
    assert {row["player"]: row["valid_length"] for row in line["rows"]} == {row["player"]: row["valid_length"] for row in truth["rows"]}
    assert line["cards_too_small"]["read_enlarged"] == pytest.approx(2.0, abs=0.2)
    assert max(x for card in line["cards"] for x, _ in card["corners"]) < 1280  # (given in the photo's own pixels)
    assert main(["check", str(photo)]) == 0
    assert "read from the photo enlarged 2.0 times" in capsys.readouterr().out


def test_cards_too_small_even_to_read_enlarged_are_said_so(tmp_path, capsys, validate) -> None:
    from tests.vision.test_find import small_cards_scene

    photo = tmp_path / "far.png"
    cv2.imwrite(str(photo), small_cards_scene(24)[0])
    assert main(["check", str(photo), "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert validate(line) == [] and line["cards"] == []
    assert line["cards_too_small"]["count"] == 8 and line["cards_too_small"]["read_enlarged"] is None
    assert main(["check", str(photo)]) == 0
    assert "too small to read; move the camera closer" in capsys.readouterr().out
