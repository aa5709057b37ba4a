"""Card-shaped regions over a sweep of whiteness levels, and one region per card."""

import cv2
import numpy as np
import pytest

from vision.regions import Region, blurred_whiteness, card_regions, choose_cards, points_inside


def box(center, size_wh, angle_deg=0.0):
    return cv2.boxPoints((center, size_wh, angle_deg)).astype(np.float32)


def iou(a, b, shape=(400, 640)):
    ma, mb = np.zeros(shape, np.uint8), np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(ma, np.round(a).astype(np.int32), 1)
    cv2.fillConvexPoly(mb, np.round(b).astype(np.int32), 1)
    return (ma & mb).sum() / max((ma | mb).sum(), 1)


def whiteness_of(cards, table=120.0, paper=220.0, seed=0):
    """A whiteness image: a table with a brighter stripe, and cards each edged by a thin shadow."""
    rng = np.random.default_rng(seed)
    white = np.full((400, 640), table, np.float32)
    white[:, 320:356] = paper - 15  # a pale stripe of the cloth, as bright as a shaded card
    for corners in cards:
        cv2.fillConvexPoly(white, np.round(corners).astype(np.int32), paper, lineType=cv2.LINE_AA)
        cv2.polylines(white, [np.round(corners).astype(np.int32)], True, paper - 60, 1, cv2.LINE_AA)
    return white + rng.normal(0, 2, white.shape).astype(np.float32)


def test_each_card_on_a_bright_stripe_or_touching_another_is_one_region() -> None:
    cards = [box((120, 150), (80, 120)), box((200, 150), (80, 120)), box((340, 260), (80, 120), 8)]
    chosen = choose_cards(card_regions(whiteness_of(cards), min_short_px=40))
    assert len(chosen) == 3
    for corners in cards:
        assert max(iou(r.corners_xy, corners) for r in chosen) > 0.85


def test_a_card_is_preferred_to_the_paper_inside_its_printed_border() -> None:
    card, border = box((200, 200), (80, 120), 5), box((200, 200), (66, 104), 5)
    regions = [Region(border, 1.0, 0, 6), Region(card, 1.0, 0, 3), Region(box((330, 200), (80, 120)), 1.0, 0, 6),
               Region(box((460, 200), (80, 120)), 1.0, 0, 6)]
    chosen = choose_cards(regions)
    assert len(chosen) == 3
    assert any(r.corners_xy is card for r in chosen)


@pytest.mark.parametrize("right_fill", [1.0, 0.82], ids=["both whole", "one nicked"])
def test_two_touching_cards_are_not_taken_for_one(right_fill) -> None:
    left, right = box((160, 200), (80, 120)), box((240, 200), (80, 120))
    both = box((200, 200), (160, 120))
    regions = [Region(both, 1.0, 0, 8), Region(left, 1.0, 3, 4), Region(right, right_fill, 3, 4)]
    chosen = choose_cards(regions)
    assert sorted(id(r.corners_xy) for r in chosen) == sorted([id(left), id(right)])


def test_a_card_beside_one_small_clean_paper_only_is_kept() -> None:
    # The one clean paper near the card is a point card's (smaller); the other cards lie far off.
    card, small = box((200, 200), (80, 120)), box((310, 200), (45, 65))
    regions = [Region(card, 1.0, 0, 6), Region(small, 1.0, 0, 6), Region(box((620, 200), (80, 120)), 1.0, 0, 6)]
    chosen = choose_cards(regions)
    assert any(r.corners_xy is card for r in chosen)


def test_a_region_of_two_cards_is_too_big_beside_two_clean_cards() -> None:
    both = box((200, 200), (160, 120))
    cards = [box((160, 340), (80, 120)), box((260, 340), (80, 120))]
    regions = [Region(both, 1.0, 0, 8)] + [Region(c, 1.0, 0, 4) for c in cards]
    chosen = choose_cards(regions)
    assert all(r.corners_xy is not both for r in chosen)
    assert len(chosen) == 2


def test_a_stretch_of_pale_table_several_cards_large_tells_no_cards_size() -> None:
    # On a pale dotted cloth the cloth between the dots makes clean card-shaped regions too, one
    # of them several cards large, lying nearer a card in a shadow than the other cards do (fresh
    # dev hard 978: the card was dropped as too small beside it).
    card = box((200, 200), (53, 72))
    stretch = box((330, 200), (174, 225))
    others = [box((200 + 230 * k, 380), (52, 70)) for k in range(-1, 3)] + [box((520, 60), (50, 72))]
    regions = [Region(card, 1.0, 2, 1), Region(stretch, 1.0, 0, 1)] + [Region(c, 1.0, 1, 1) for c in others]
    assert any(r.corners_xy is card for r in choose_cards(regions))


def test_a_card_among_the_plain_squares_of_a_checked_cloth_is_not_too_big() -> None:
    # Squares of a pale checked cloth, cut apart along their edges, are clean and nearly card-shaped
    # but smaller than the card; only paper with symbols printed in it tells the cards' size.
    white = np.full((400, 640), 120.0, np.float32)
    card = box((320, 200), (80, 120))
    squares = [box((320 + dx, 200 + dy), (42, 57)) for dx in (-120, -60, 60, 120) for dy in (-70, 0, 70)]
    for corners in squares:
        cv2.fillConvexPoly(white, np.round(corners).astype(np.int32), 200)
    far = box((580, 200), (80, 120))  # another card, further off than the squares
    for corners in (card, far):
        cv2.fillConvexPoly(white, np.round(corners).astype(np.int32), 220)
        for dx, dy in ((-15, -30), (15, 0), (-10, 35)):
            centre = corners.mean(axis=0) + (dx, dy)
            cv2.circle(white, (int(centre[0]), int(centre[1])), 9, 60, -1)  # symbols
    regions = [Region(card, 1.0, 0, 6), Region(far, 1.0, 0, 6)] + [Region(corners, 1.0, 0, 6) for corners in squares]
    assert all(r.corners_xy is not card for r in choose_cards(regions))
    assert any(r.corners_xy is card for r in choose_cards(regions, white=white))


@pytest.mark.parametrize(
    "point, expected",
    [((200, 200), True), ((239, 259), True), ((245, 200), False), ((200, 100), False)],
    ids=["centre", "near a corner", "right of it", "above it"],
)
def test_points_inside_a_quadrilateral(point, expected) -> None:
    inside = points_inside(box((200, 200), (80, 120))[None], np.array([point], np.float32))
    assert inside.shape == (1, 1)
    assert bool(inside[0, 0]) is expected


def test_region_checks_its_shape() -> None:
    with pytest.raises(ValueError, match=r"shape \(4, 2\), got \(3, 2\)"):
        Region(np.zeros((3, 2), np.float32), 1.0, 0)


def test_a_plain_image_has_no_regions() -> None:
    assert choose_cards(card_regions(np.full((200, 300), 128, np.float32), min_short_px=40)) == []


@pytest.mark.parametrize("seed", [0, 1, 2], ids=["seed 0", "seed 1", "seed 2"])
def test_the_sweep_percentiles_are_numpys_to_the_bit(seed) -> None:
    from vision.regions import _percentiles

    values = np.random.default_rng(seed).integers(0, 256, (37, 53)).astype(np.uint8)
    assert _percentiles(values, (30, 99.5)) == list(np.percentile(values, (30, 99.5)))


def test_the_blurred_whiteness_is_the_whiteness_clipped_to_bytes_then_blurred() -> None:
    white = np.random.default_rng(0).uniform(-300, 600, (41, 67)).astype(np.float32)
    white[0, :8] = [-0.0, 0.0, 1e-30, 0.99, 254.99, 255.0, 255.5, np.inf]
    expected = cv2.GaussianBlur(np.clip(white, 0, 255).astype(np.uint8), (3, 3), 0)
    assert np.array_equal(blurred_whiteness(white), expected)


@pytest.mark.parametrize("seed, size", [(0, 1), (1, 2), (2, 1000), (3, 34561)], ids=["one", "two", "a thousand", "many"])
def test_percentiles_read_off_a_histogram_are_numpys_to_the_bit(seed, size) -> None:
    from vision.regions import histogram_percentiles

    values = np.random.default_rng(seed).integers(20, 240, size).astype(np.uint8)
    percents = (0, 30, 60, 99.5, 100)
    assert histogram_percentiles(np.bincount(values, minlength=256), percents) == list(np.percentile(values, percents))


def test_the_median_of_the_known_sizes_is_nanmedians() -> None:
    from vision.regions import _median_of_known

    rng = np.random.default_rng(0)
    sizes = (rng.random((40, 5, 2)) * 100).astype(np.float32)
    unknown = rng.random((40, 5)) < 0.4
    unknown[:, 0] = False
    sizes[unknown] = np.nan
    assert np.array_equal(_median_of_known(sizes), np.nanmedian(sizes, axis=1))


def test_a_part_of_a_frame_swept_with_the_frames_span_and_largest_region_keeps_its_card() -> None:
    card = box((100, 100), (80, 120), 4)
    white = whiteness_of([card])[20:180, 40:180]  # the card fills a third of the part
    assert card_regions(white, min_short_px=40) == []  # more than a tenth of the part: too big
    regions = card_regions(white, min_short_px=40, span=(120.0, 220.0), max_area=0.1 * 400 * 640)
    assert max(iou(r.corners_xy + (40, 20), card) for r in regions) > 0.85


def test_points_inside_many_quadrilaterals_at_once_as_one_by_one() -> None:
    rng = np.random.default_rng(1)
    quads = np.array([cv2.boxPoints(((x, y), (w, h), a)) for x, y, w, h, a in rng.uniform((0, 0, 20, 20, 0), (300, 200, 90, 140, 90), (7, 5))], np.float32)
    points = rng.uniform(0, 300, (11, 2)).astype(np.float32)
    expected = [[cv2.pointPolygonTest(quad, tuple(map(float, p)), False) >= 0 for p in points] for quad in quads]
    assert points_inside(quads, points).shape == (7, 11)
    np.testing.assert_array_equal(points_inside(quads, points), expected)


def test_a_card_touched_by_a_thin_bright_line_is_a_region_once_the_line_is_opened_off() -> None:
    card = box((200, 200), (80, 120))
    white = np.full((400, 640), 120.0, np.float32)
    cv2.fillConvexPoly(white, np.round(card).astype(np.int32), 220.0)
    cv2.line(white, (240, 150), (500, 150), 220.0, 3)  # as bright as the paper, with no edge where they meet
    cv2.line(white, (240, 250), (500, 250), 220.0, 3)
    white += np.random.default_rng(0).normal(0, 2, white.shape).astype(np.float32)
    assert max((iou(r.corners_xy, card) for r in card_regions(white, min_short_px=40)), default=0.0) < 0.85
    assert max(iou(r.corners_xy, card) for r in card_regions(white, min_short_px=40, opening=5)) > 0.9


def test_a_card_on_a_cloth_as_bright_as_paper_is_found_inside_the_cloth() -> None:
    # The cloth stands at every level with the card, which only its outline cuts out of it:
    # at every level the card lies in a hole of the cloth's region.
    card = box((510, 200), (80, 120), 10)
    white = whiteness_of([card], table=60.0, paper=220.0)
    white[:, 400:] += np.where(white[:, 400:] < 100, 155.0, 0.0).astype(np.float32)  # the cloth, at 215, beyond a dark floor
    regions = card_regions(white, min_short_px=40)
    assert max(iou(r.corners_xy, card) for r in regions) > 0.85


def test_the_sweep_takes_the_blurred_whiteness_when_at_hand() -> None:
    # find_cards blurs the whiteness once, for the sweep's span and for the sweep itself.
    white = whiteness_of([box((120, 150), (80, 120)), box((340, 260), (80, 120), 8)])
    regions = card_regions(white, min_short_px=40)
    given = card_regions(white, min_short_px=40, white_u8=blurred_whiteness(white))
    assert len(regions) >= 2 and len(given) == len(regions)
    for r, g in zip(regions, given):
        assert np.array_equal(r.corners_xy, g.corners_xy) and (r.fill, r.level, r.levels) == (g.fill, g.level, g.levels)
    assert card_regions(white, min_short_px=40, white_u8=np.full(white.shape, 120, np.uint8)) == []
