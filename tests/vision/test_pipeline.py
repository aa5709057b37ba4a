"""The whole pipeline on the committed photo fixtures: floors that only ever rise."""

import json
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest

import referee.cli.table
from calibration.seats import Seat
from referee.cli import main
from vision.bench import Tally, match_cards, score_photo
from vision.images import load_image
import vision.pipeline
from vision.find import CardQuad
from vision.pipeline import (PARTLY_HIDDEN_CONFIDENCE, DetectedCard, TableReading, _medians_of_others, doubted_small, read_quad,
                             read_table, without_odd_papers)
from vision.records import CardReading, Criteria

PHOTOS = Path(__file__).resolve().parents[2] / "fixtures" / "photos"
SCHEMA = Path(__file__).resolve().parents[2].parent / "shared" / "spec" / "check-result.schema.json"

# Measured on the committed photos (about ten per tier, dev and test splits); the
# benchmark on 200-photo test sets is what the closing notes report.
FLOORS = {
    "easy": {"recall": 0.99, "triple": 0.99, "verdict": 0.93},
    "medium": {"recall": 0.97, "triple": 0.94, "verdict": 0.80},
    "hard": {"recall": 0.88, "triple": 0.86, "verdict": 0.40},
}


@dataclass(frozen=True)
class Photo:
    """A committed photo, its ground truth, and the cards ``read_table`` finds on it (the point cards' quads too)."""

    truth_path: Path
    truth: dict
    frame_bgr: np.ndarray
    cards: tuple[DetectedCard, ...]
    point_cards_xy: tuple[np.ndarray, ...] = ()


@pytest.fixture(scope="module")
def photos() -> list[Photo]:
    """Every committed photo, its cards found and read once (about 15 s) for the three tests below that look at all of them."""
    photos = []
    for truth_path in sorted(PHOTOS.glob("*/*.json")):
        frame_bgr = load_image(truth_path.with_suffix(".jpg"))
        read = read_table(frame_bgr)
        photos.append(Photo(truth_path, json.loads(truth_path.read_text()), frame_bgr, read.cards, read.point_cards_xy))
    return photos


def _read_already(photo: Photo):
    """``read_table`` for this photo only: the cards the fixture read, once the frame asked about is checked to be its,
    searched whole with the nominal inks (the photos' calibrations hold seats only). The rest of the pipeline runs."""

    def stand_in(frame_bgr, profile=None, within=None, small_bgr=None) -> TableReading:
        assert np.array_equal(frame_bgr, photo.frame_bgr) and profile is None and within is None, photo.truth_path
        return TableReading(tuple(photo.cards), photo.point_cards_xy)

    return stand_in


@pytest.mark.parametrize("tier", list(FLOORS))
def test_cards_readings_and_verdicts_stay_above_their_floors(tier, photos, monkeypatch) -> None:
    tally = Tally()
    for photo in (photo for photo in photos if photo.truth_path.parent.name == tier):
        monkeypatch.setattr(referee.cli.table, "read_table", _read_already(photo))
        score_photo(tally, photo.frame_bgr, photo.truth, photo.truth_path.stem)
    floor = FLOORS[tier]
    assert tally.found_true / tally.true_cards >= floor["recall"]
    assert tally.triples_right / tally.found_true >= floor["triple"]
    # Cards with every symbol in view are a part of those found, and read at least as well.
    assert 0 < tally.symbols_in_view <= tally.found_true
    assert tally.symbols_in_view_right / tally.symbols_in_view >= tally.triples_right / tally.found_true
    assert tally.verdicts_right / tally.rows >= floor["verdict"]
    # Recall told by how much of each card is in view counts each card due, and each found, once.
    assert sum(tally.due_in_view.values()) == tally.true_cards
    assert sum(tally.found_in_view.values()) == tally.found_true



@pytest.mark.parametrize("confidence, tags", [(1.0, True), (0.3, False)])
def test_the_failures_name_a_misreading_read_surely_and_a_wrong_verdict_not_flagged(confidence, tags, photos, monkeypatch) -> None:
    # An easy photo's row whose second card is read as its first (a rules error at the 2nd card,
    # where the truth has none): surely, the verdict is wrong and goes unflagged; with doubt, it is flagged.
    photo = next(p for p in photos if p.truth_path.parent.name == "easy" and p.truth_path.stem.startswith("dev"))
    row = next(r for r in photo.truth["rows"] if len(r["cards"]) >= 2 and r["valid_length"] >= 2)
    cards = list(photo.cards)
    found = match_cards([c.corners_xy.astype(np.float64) for c in cards],
                        [np.array(c["corners"], np.float64) for c in photo.truth["cards"]])
    index = {true: i for i, true in found.items()}
    first, second = index[row["cards"][0]], index[row["cards"][1]]
    misread = replace(cards[second].reading, criteria=cards[first].reading.criteria, confidence=confidence)
    cards[second] = replace(cards[second], reading=misread)
    monkeypatch.setattr(referee.cli.table, "read_table", _read_already(replace(photo, cards=tuple(cards))))
    tally = Tally()
    score_photo(tally, photo.frame_bgr, photo.truth, "photo")
    card_line = next(f for f in tally.failures if f.startswith(f"photo: card {row['cards'][1]} read"))
    row_line = next(f for f in tally.failures if f.startswith(f"photo: {row['player']} row"))
    assert card_line.endswith(f"(read surely: {confidence:.2f})") == tags, card_line
    assert row_line.endswith("(verdict wrong, not flagged)") == tags, row_line

def test_the_cards_found_partly_hidden_on_the_committed_photos_lie_on_row_cards_partly_hidden(photos, monkeypatch) -> None:
    # A card partly under a hand just beyond a row's end is found where its paper shows
    # (vision.partial), read from the part in view, never surely, and kept in its row.
    import cv2

    found = 0
    for photo in photos:
        monkeypatch.setattr(referee.cli.table, "read_table", _read_already(photo))
        seats = [Seat(s["name"], tuple(s["position"])) for s in photo.truth["seats"]]
        result = referee.cli.table.referee_frame(photo.frame_bgr, seats)
        in_rows = {k for row in result.rows for k in row.cards}
        for k, card in enumerate(result.cards):
            if not card.partly_hidden:
                continue
            found += 1
            under = [c for c in photo.truth["cards"] if cv2.pointPolygonTest(np.float32(c["corners"]), card.center_xy, False) > 0]
            assert any(c["where"] == "row" and c["visible_fraction"] < 0.9 for c in under), photo.truth_path
            assert k in in_rows and card.reading.confidence <= PARTLY_HIDDEN_CONFIDENCE, photo.truth_path
    assert found >= 3


def test_the_rulebook_table_gives_7_2_4_1_3_5(capsys) -> None:
    photo = PHOTOS / "easy" / "rulebook.jpg"
    assert main(["check", str(photo), "--calibration", str(photo.with_suffix(".seats.yaml")), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    lengths = {row["player"]: row["valid_length"] for row in result["rows"]}
    truth = json.loads(photo.with_suffix(".json").read_text())
    assert [lengths.get(row["player"]) for row in truth["rows"]] == [7, 2, 4, 1, 3, 5]


def test_every_committed_photo_gives_the_full_contract(capsys, photos, monkeypatch) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    if not SCHEMA.exists():
        pytest.skip(f"the contract's schema is not beside the checkout: {SCHEMA}")
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    assert sorted(PHOTOS.glob("*/*.jpg")) == [photo.truth_path.with_suffix(".jpg") for photo in photos]
    for photo in photos:
        monkeypatch.setattr(referee.cli.table, "read_table", _read_already(photo))
        jpg = photo.truth_path.with_suffix(".jpg")
        assert main(["check", str(jpg), "--calibration", str(jpg.with_suffix(".seats.yaml")), "--json"]) == 0
        line = json.loads(capsys.readouterr().out)
        assert [e.message for e in validator.iter_errors(line)] == [], jpg
        assert line["rows"] and line["ranking"], jpg


def _paper_card(x, paper_bgr) -> DetectedCard:
    """A face read at ``x`` whose paper the camera saw as ``paper_bgr``."""
    corners = np.array([[x, 40], [x + 60, 40], [x + 60, 130], [x, 130]], np.float32)
    return DetectedCard(corners, CardReading((), Criteria(1, 1, 1), 0.9, True, "", paper_bgr))


def test_a_face_far_darker_than_the_others_is_dropped_and_one_in_shadow_is_kept() -> None:
    # Balanced on its own paper, the coffee in a mug can read as a card: its "paper" keeps
    # a fifth of the lightness of the other faces', a card in a deep shadow a third.
    lit = [_paper_card(x, (215.0, 225.0, 230.0)) for x in (20, 100, 180)]
    shadowed = _paper_card(260, (55.0, 62.0, 66.0))
    coffee = _paper_card(340, (20.0, 30.0, 45.0))
    unmeasured = DetectedCard(lit[0].corners_xy + 400, CardReading((), Criteria(1, 1, 1), 0.9, True, ""))
    kept = without_odd_papers(lit + [shadowed, coffee, unmeasured])
    assert [card.corners_xy[0, 0] for card in kept] == [20, 100, 180, 260, 420]
    # Two faces alone say nothing of what the frame's paper looks like.
    assert len(without_odd_papers([lit[0], coffee])) == 2


def _card_at(x: float, y: float, width: float = 60.0, height: float = 90.0,
             criteria: Criteria | None = Criteria(1, 1, 1)) -> DetectedCard:
    """A face read surely, its quad upright at (x, y), ``width`` by ``height`` pixels."""
    corners = np.array([[x, y], [x + width, y], [x + width, y + height], [x, y + height]], np.float32)
    return DetectedCard(corners, CardReading((), criteria, 1.0, True, "", (200.0, 200.0, 200.0)))


def test_a_card_measuring_under_half_a_card_beside_its_neighbours_is_read_with_doubt() -> None:
    # A row of cards 60 x 90 pixels seen square on; a piece of one cut short by a hand, 40 x 60
    # (0.44 of a card's area), and one cut on one side only, 60 x 70 (0.78), lie among them.
    row = [_card_at(x, 40) for x in (20, 100, 180, 260)]
    piece, cut = _card_at(340, 40, 40, 60), _card_at(420, 40, 60, 70)
    unread = _card_at(100, 200, 40, 60, criteria=None)
    doubted = doubted_small((*row, piece, cut, unread))
    assert [card.reading.confidence for card in doubted[:4]] == [1.0] * 4
    assert doubted[4].reading.confidence <= 0.4 and "a piece of a card" in doubted[4].reading.reason
    assert doubted[5].reading.confidence == 1.0 and doubted[5].reading.reason == ""
    assert doubted[6] is unread  # (a face not read has nothing to doubt)
    # Two cards measure nothing: neither is doubted.
    assert doubted_small((row[0], piece)) == (row[0], piece)


def test_a_face_of_another_tint_is_dropped_and_one_under_the_warm_lamp_is_kept() -> None:
    # A lamp's glare on a card back reads as a face with one washed-out symbol: its "paper"
    # is as light as the others' but far yellower (Lab b 39 against 5.5); a card under the
    # lamp among cards in daylight is yellower too, but less (b 19).
    lit = [_paper_card(x, (215.0, 225.0, 230.0)) for x in (20, 100, 180)]
    under_lamp = _paper_card(260, (180.0, 215.0, 230.0))
    glare = _paper_card(340, (130.0, 200.0, 235.0))
    kept = without_odd_papers(lit + [under_lamp, glare])
    assert [card.corners_xy[0, 0] for card in kept] == [20, 100, 180, 260]
    # Readings kept from other frames keep those frames' light: their tints are not compared.
    assert len(without_odd_papers(lit + [under_lamp, glare], by_tint=False)) == 5


@pytest.mark.parametrize("confidence, at_edge, kept", [(0.3, False, True), (0.3, True, False), (0.9, True, True)],
                         ids=["doubtful inside", "doubtful at the edge", "sure at the edge"])
def test_a_face_read_doubtfully_that_runs_into_the_frames_edge_is_left_out(confidence, at_edge, kept, monkeypatch) -> None:
    # A strip of a pale dotted table between a card and the frame's top edge reads as a card
    # with three green circles, doubtfully: cut by the frame, it is no card seen whole.
    frame = np.full((240, 360, 3), 200, np.uint8)
    top = 0.0 if at_edge else 40.0
    quad = CardQuad(np.array([[100, top], [160, top], [160, top + 90], [100, top + 90]], np.float32), 1.0)
    reading = CardReading((), Criteria(1, 1, 3), confidence, True)
    monkeypatch.setattr(vision.pipeline, "read_card", lambda *args, **kwargs: reading)
    monkeypatch.setattr(vision.pipeline, "find_cards", lambda *args, **kwargs: [quad])
    assert (read_quad(frame, quad) is not None) == kept
    assert len(read_table(frame).cards) == kept


@pytest.mark.parametrize("count", [2, 3, 4, 9, 10], ids=lambda n: f"{n} faces")
def test_each_faces_others_median_is_numpys_to_the_bit(count) -> None:
    rng = np.random.default_rng(count)
    light = np.round(rng.uniform(20, 95, count), 1).astype(np.float32)
    light[-1] = light[0]  # ties
    expected = np.array([np.median(np.delete(light, i)) for i in range(count)], np.float32)
    assert np.array_equal(_medians_of_others(light), expected)


def _true_point_cards(truth: dict) -> list[np.ndarray]:
    """The corners (4, 2) of the point cards in a photo's truth."""
    return [np.float32(d["corners"]) for d in truth["distractors"] if d["kind"] == "point_card"]


def test_no_point_card_on_a_committed_photo_is_read_as_a_symbol_card(photos) -> None:
    # A point card's number is no symbol; a piece of its frame or corner number cut free at
    # the edge of what is seen of it (under a card back, say) is of unknown shape and proves
    # nothing either (hard/dev-002 showed one as a two-symbol face).
    import cv2

    for photo in photos:
        truth_path, truth = photo.truth_path, photo.truth
        points = _true_point_cards(truth)
        cards = [np.float32(c["corners"]) for c in truth["cards"]]
        for card in photo.cards:
            centre = tuple(map(float, card.center_xy))
            on_point = any(cv2.pointPolygonTest(p, centre, False) > 0 for p in points)
            on_card = any(cv2.pointPolygonTest(c, centre, False) > 0 for c in cards)
            assert not on_point or on_card, f"{truth_path.parent.name}/{truth_path.stem}: a point card read as {card.reading.criteria}"


def test_the_point_cards_seen_on_the_committed_photos_are_point_cards(photos) -> None:
    # A whole point card, read as a printed number, is reported beside the faces: where it lies
    # at a row's end, the place there is no cover over a hidden card. A piece of a face cut by a
    # hand reads as no symbol shapes too, but is no whole card.
    import cv2

    seen = 0
    for photo in photos:
        points = _true_point_cards(photo.truth)
        for corners in photo.point_cards_xy:
            centre = tuple(map(float, corners.mean(axis=0)))
            assert any(cv2.pointPolygonTest(p, centre, False) > 0 for p in points), photo.truth_path
            seen += 1
    assert seen >= 3



def test_a_point_card_seen_inside_its_printed_frame_is_taken_whole() -> None:
    # A point card's printed frame (0.84 of its short side, 0.88 of its long) is sometimes found
    # for its outline (as on medium renders, dev seeds 97027 and 97028, where the place at a
    # row's end over such a card was taken for a hand over a hidden card): it is the whole card
    # about it. A piece of a face cut across by a hand, as large but of another aspect, is none.
    from vision.find import CardQuad
    from vision.pipeline import _whole

    def rect(cx, cy, w, h):
        return np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2], [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]],
                        np.float32)

    faces = [CardQuad(rect(100 + 120 * k, 100, 80, 120), 1.0) for k in range(6)]
    frame = rect(400, 400, 0.84 * 80, 0.88 * 120)
    piece = rect(700, 400, 80, 0.7 * 120)  # a card cut across: its whole width, 0.7 of its length
    whole = rect(900, 400, 80, 120)
    found = _whole([frame, piece, whole], faces)
    assert len(found) == 2
    grown, kept = found
    assert np.allclose(grown, rect(400, 400, 80 * 0.84 * np.sqrt(1 / (0.84 * 0.88)), 120 * 0.88 * np.sqrt(1 / (0.84 * 0.88))), atol=0.5)
    assert np.allclose(kept, whole)


def test_a_card_more_than_half_under_a_sleeve_is_read_from_the_part_in_view(card_art) -> None:
    # A card found lying partly under a hand (vision.partial) shows the paper the search asks of
    # it, not a whole face's: its reading takes the part in view (dev hard 153: a row's first
    # card half under a mug, three circles in view, was an unread hidden place and its row short).
    import cv2

    from vision.find import CardQuad
    from vision.pipeline import read_partly_hidden, read_quad

    syms = [card_art.Sym("circle", "red", 0.3, 0.15, 0.2), card_art.Sym("star", "blue", 0.7, 0.15, 0.2),
            card_art.Sym("triangle", "green", 0.5, 0.32, 0.2)]
    card = card_art.draw(syms, short_px=100)
    height, width = card.shape[:2]
    frame = np.full((height + 100, width + 100, 3), (60, 110, 70), np.uint8)
    frame[50:50 + height, 50:50 + width] = card
    top = 50 + round(0.4 * height)  # a brown sleeve over the card's lower 60% and on over the table
    cv2.fillPoly(frame, [np.array([[0, top], [frame.shape[1], top + 6], [frame.shape[1], frame.shape[0]], [0, frame.shape[0]]],
                                  np.int32)], (60, 90, 140))
    frame = card_art.light(frame, noise=2.0, blur=0.5)
    quad = CardQuad(np.array([[50, 50], [50 + width, 50], [50 + width, 50 + height], [50, 50 + height]], np.float32), 0.45)
    assert read_quad(frame, quad) is None  # (too little paper for a face seen whole)
    found = read_partly_hidden(frame, quad)
    assert found is not None and found.partly_hidden
    assert found.reading.criteria == Criteria(colours=3, shapes=3, symbols=3), found.reading.reason
    assert found.reading.confidence <= PARTLY_HIDDEN_CONFIDENCE


def _two_cards_edge_to_edge(card_art, edges: bool = True):
    """A frame with two cards of a row lying edge to edge (6 symbols and 5; their edges a line
    of table between them), and the quad round both."""
    first = [card_art.Sym(shape, "red", x, y, 0.22) for shape, x, y in
             (("circle", 0.3, 0.3), ("circle", 0.7, 0.3), ("square", 0.3, 0.72), ("square", 0.7, 0.72), ("star", 0.3, 1.15),
              ("star", 0.7, 1.15))]
    second = [card_art.Sym(shape, colour, 0.5, y, 0.2) for shape, colour, y in
              (("triangle", "blue", 0.25), ("triangle", "green", 0.5), ("bar", "black", 0.73), ("circle", "yellow", 0.97),
               ("circle", "blue", 1.2))]
    left, right = card_art.draw(first, short_px=100), card_art.draw(second, short_px=100)
    height, width = left.shape[:2]
    frame = np.full((height + 120, 2 * width + 120, 3), (60, 110, 70), np.uint8)
    frame[60:60 + height, 60:60 + width] = left
    frame[60:60 + height, 60 + width:60 + 2 * width] = right
    if edges:
        frame[60:60 + height, 59 + width:61 + width] = (60, 110, 70)
    frame = card_art.light(frame, noise=2.0, blur=0.5)
    both = np.array([[60, 60], [60 + 2 * width, 60], [60 + 2 * width, 60 + height], [60, 60 + height]], np.float32)
    return frame, both


def test_a_quad_round_two_cards_of_a_row_edge_to_edge_is_read_as_the_two(card_art, monkeypatch) -> None:
    # Two cards of a row laid edge to edge, outlined as one quad (dev hard 5003 and 7055), show
    # more marks than a card prints symbols: cut in two, each half reads as its card.
    from vision.find import CardQuad

    frame, both = _two_cards_edge_to_edge(card_art)
    quad = CardQuad(vision.pipeline.order_corners(both), 1.0)
    assert read_quad(frame, quad).reading.criteria is None  # (11 symbols: no card's reading)
    monkeypatch.setattr(vision.pipeline, "find_cards", lambda *args: [quad])
    cards = sorted(read_table(frame).cards, key=lambda card: card.center_xy[0])
    assert [card.reading.criteria for card in cards] == [Criteria(colours=1, shapes=3, symbols=6),
                                                         Criteria(colours=4, shapes=3, symbols=5)]
    assert all(card.reading.confidence >= 0.9 for card in cards)
    width = (both[1, 0] - both[0, 0]) / 2
    assert [round(float(card.corners_xy[:, 0].min() - both[0, 0]) / width, 2) for card in cards] == [0.0, 1.0]
    assert all(abs(np.ptp(card.corners_xy[:, 0]) - width) < 1 for card in cards)
    # (``referee live`` reads each quad so too)
    apart = sorted(vision.pipeline.read_apart(frame, quad), key=lambda card: card.center_xy[0])
    assert [card.reading.criteria for card in apart] == [card.reading.criteria for card in cards]


def test_live_keeps_the_readings_of_settled_cards_found_again_as_one_quad_round_them(card_art, monkeypatch) -> None:
    # ``referee live`` reads a settled card found where it lay again only every few frames; so too
    # the cards of a row edge to edge outlined as one quad, not read apart in every frame.
    import referee.cli.live_read as live_read
    from vision.find import CardQuad
    from vision.track import TrackedCard

    frame, both = _two_cards_edge_to_edge(card_art)
    quad = CardQuad(vision.pipeline.order_corners(both), 1.0)
    apart = live_read._read_quads(frame, 1.0, [quad], [], 0, None)
    assert len(apart) == 2
    settled = [TrackedCard(k + 1, card.corners_xy, card.reading.criteria, 1.0, 0.0, 0, False, card.reading)
               for k, card in enumerate(apart)]
    read = []
    monkeypatch.setattr(live_read, "read_apart", lambda *args: read.append(args) or apart)
    kept = live_read._read_quads(frame, 1.0, [quad], settled, 1, None)
    assert read == [] and [(card.reading, card.center_xy) for card in kept] == [(card.reading, card.center_xy) for card in apart]
    assert live_read._read_quads(frame, 1.0, [quad], settled, live_read._REREAD_EVERY - 1, None) == apart
    assert len(read) == 1  # (read again when one of them is due)
    # A quad round them and a card's width of table more is no outline of theirs.
    wider = CardQuad(vision.pipeline.order_corners(both + np.array([[0, 0], [1, 0], [1, 0], [0, 0]], np.float32)
                                                   * (both[1, 0] - both[0, 0]) / 2), 1.0)
    assert len(live_read._unmoved_parts(quad, settled)) == 2 and live_read._unmoved_parts(wider, settled) == []


def test_a_quad_round_one_card_and_some_table_is_not_cut_where_its_halves_read_no_face(card_art) -> None:
    # Cut only where every part reads as a face: the quad of two cards' size round one card
    # and bare table stays one quad (a face cut in two leaves halves too, the table none).
    from vision.find import CardQuad
    from vision.pipeline import _read, _read_apart

    frame, both = _two_cards_edge_to_edge(card_art)
    width = (both[1, 0] - both[0, 0]) / 2
    frame[:, int(both[0, 0] + width):] = frame[5, 5]  # (the second card taken away: bare table)
    quad = CardQuad(vision.pipeline.order_corners(both), 1.0)
    reading = _read(frame, quad, None)
    assert _read_apart(frame, quad, None) == [(quad, *reading)]


def test_a_quad_with_more_marks_than_a_card_and_no_edge_across_is_not_cut(card_art) -> None:
    # Cards lying over one another in the middle, outlined as one, show more marks than a card
    # too, and cut in two would read as two cards each with the other's symbols: a quad is cut
    # only where a line across it, near an even cut, is darker than its paper (the cards' edges).
    from vision.find import CardQuad
    from vision.pipeline import _edges_across, _read, _read_apart

    frame, both = _two_cards_edge_to_edge(card_art, edges=False)
    quad = CardQuad(vision.pipeline.order_corners(both), 1.0)
    assert _edges_across(frame, quad.corners_xy, 2) is None
    reading = _read(frame, quad, None)
    assert _read_apart(frame, quad, None) == [(quad, *reading)]
    with_edges, _ = _two_cards_edge_to_edge(card_art)
    assert _edges_across(with_edges, quad.corners_xy, 2) == pytest.approx([0.0, 0.5, 1.0], abs=0.02)
