"""Finding cards in small synthetic scenes with a known answer."""

import cv2
import numpy as np
import pytest

from vision.find import CardQuad, _without_pieces, find_cards, order_corners, warp_card, working_copy


def card_corners(center, size_wh, angle_deg):
    return cv2.boxPoints((center, size_wh, angle_deg)).astype(np.float32)


def scene(cards, *, size_wh=(640, 400), table_bgr=(40, 90, 140), cast=(1.0, 1.0, 1.0), falloff=0.0, seed=0):
    """A noisy table with off-white cards (each with one dark symbol); returns the BGR image."""
    rng = np.random.default_rng(seed)
    w, h = size_wh
    image = np.empty((h, w, 3), np.float32)
    image[:] = table_bgr
    image += rng.normal(0, 8, (h, w, 1))  # grain
    for corners in cards:
        cv2.fillConvexPoly(image, corners.astype(np.int32), (235, 242, 245), lineType=cv2.LINE_AA)
        c = corners.mean(axis=0).astype(int)
        cv2.circle(image, tuple(c), 6, (30, 30, 30), -1, cv2.LINE_AA)
    gradient = 1.0 - falloff * np.linspace(0, 1, w)[None, :, None]
    image = image * gradient * np.array(cast, np.float32)
    image += rng.normal(0, 2, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def iou(a, b, shape):
    ma, mb = np.zeros(shape, np.uint8), np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(ma, a.astype(np.int32), 1)
    cv2.fillConvexPoly(mb, b.astype(np.int32), 1)
    return (ma & mb).sum() / max((ma | mb).sum(), 1)


def match(found, truth, shape):
    return [max((iou(q.corners_xy, t, shape) for q in found), default=0.0) for t in truth]


SEPARATE = [card_corners((120, 150), (80, 120), 5), card_corners((300, 150), (80, 120), -8), card_corners((480, 260), (80, 120), 60)]


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"cast": (0.55, 0.8, 1.0)}, {"falloff": 0.5}, {"table_bgr": (60, 110, 60)}, {"table_bgr": (140, 140, 140)}],
    ids=["daylight", "warm bulb", "light falls by half", "green felt", "grey paint"],
)
def test_finds_each_separate_card(kwargs) -> None:
    image = scene(SEPARATE, **kwargs)
    found = find_cards(image)
    assert len(found) == 3
    assert min(match(found, SEPARATE, image.shape[:2])) > 0.85


def test_corners_go_clockwise_and_start_with_a_short_side() -> None:
    corners = order_corners(card_corners((100, 100), (80, 120), 30)[::-1].copy())
    x, y = corners[:, 0], corners[:, 1]
    signed_area = 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)
    assert signed_area > 0  # clockwise on screen (y down)
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    assert sides[0] < sides[1]


def test_warp_gives_an_upright_portrait_card() -> None:
    corners = card_corners((200, 150), (80, 120), 20)
    image = scene([corners])
    card = warp_card(image, order_corners(corners), short_side=100)
    assert card.shape == (150, 100, 3)
    assert card[10:-10, 10:-10].mean() > 150


def test_card_quad_checks_its_shape() -> None:
    with pytest.raises(ValueError, match=r"shape \(4, 2\), got \(3, 2\)"):
        CardQuad(np.zeros((3, 2), np.float32), 1.0)


def test_grey_near_the_quads_is_the_frames_grey_there() -> None:
    from vision.find import _gray_near

    rng = np.random.default_rng(2)
    frame = (rng.random((120, 160, 3)) * 255).astype(np.uint8)
    quads = [CardQuad(card_corners((40, 50), (30, 44), 20), 1.0), CardQuad(card_corners((150, 110), (30, 44), 0), 1.0)]
    gray, full = _gray_near(frame, quads, 3.0), cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    for quad in quads:
        (x0, y0), (x1, y1) = np.maximum(quad.corners_xy.min(axis=0) - 3, 0).astype(int), (quad.corners_xy.max(axis=0) + 3).astype(int)
        assert np.array_equal(gray[y0:y1, x0:x1], full[y0:y1, x0:x1])
    assert gray[5, 150] == 0  # far from every quad: not converted


def test_two_touching_cards_are_two_cards_not_one() -> None:
    touching = [card_corners((150, 200), (80, 120), 0), card_corners((230, 200), (80, 120), 0),
                card_corners((380, 200), (80, 120), 3), card_corners((480, 200), (80, 120), -2),
                card_corners((580, 200), (80, 120), 1)]
    image = scene(touching, table_bgr=(60, 90, 120))
    found = find_cards(image)
    assert len(found) == 5
    assert min(match(found, touching, image.shape[:2])) > 0.8


def test_a_card_under_a_skin_coloured_hand_is_not_merged_with_it() -> None:
    cards = [card_corners((200, 200), (80, 120), 0), card_corners((420, 220), (80, 120), 10)]
    image = scene(cards, table_bgr=(40, 110, 50))
    cv2.ellipse(image, (260, 260), (70, 30), 30, 0, 360, (150, 180, 225), -1, cv2.LINE_AA)  # a hand over a corner
    found = find_cards(image)
    assert match(found, cards[1:], image.shape[:2])[0] > 0.85
    assert all(q.size_wh[0] < 100 for q in found)


def test_cards_on_a_pale_table_are_found_by_their_outline() -> None:
    cards = [card_corners((120, 150), (80, 120), 5), card_corners((300, 150), (80, 120), -8),
             card_corners((480, 260), (80, 120), 60), card_corners((200, 300), (80, 120), 2)]
    image = scene(cards, table_bgr=(200, 205, 208))
    for corners in cards:  # the thin shadow a card's edge casts on the table
        cv2.polylines(image, [corners.astype(np.int32)], True, (150, 150, 150), 2, cv2.LINE_AA)
    found = find_cards(image)
    assert len(found) == 4
    assert min(match(found, cards, image.shape[:2])) > 0.85


def test_a_card_in_a_deep_shadow_on_coloured_cloth_is_found() -> None:
    cards = [card_corners((120, 150), (80, 120), 5), card_corners((300, 150), (80, 120), -8),
             card_corners((480, 200), (80, 120), 3), card_corners((200, 300), (80, 120), 2)]
    image = scene(cards, table_bgr=(150, 190, 160)).astype(np.float32)  # pale green cloth
    image[:, 400:] *= 0.45  # an arm's shadow over the third card: darker than the lit cloth
    image = np.clip(image, 0, 255).astype(np.uint8)
    found = find_cards(image)
    assert match(found, cards[2:3], image.shape[:2])[0] > 0.8


def test_a_card_in_the_lamps_shadow_on_a_pale_wood_is_found() -> None:
    # The wood under the lamp is brighter than the paper and yellow: the frame's brightest
    # tenth is the wood's. In the shadow, lit by daylight alone, the paper is grey and the
    # wood still yellow; against the wood's cast the grey paper is no whiter than the wood.
    rng = np.random.default_rng(0)
    image = np.full((480, 800, 3), (170, 238, 255), np.float32) + rng.normal(0, 6, (480, 800, 1))
    lit = [card_corners((90, 110), (80, 120), 3), card_corners((200, 110), (80, 120), -4), card_corners((90, 290), (80, 120), 2)]
    dim = card_corners((470, 200), (80, 120), 5)
    for corners in lit + [dim]:
        cv2.fillConvexPoly(image, corners.astype(np.int32), (226, 230, 232), lineType=cv2.LINE_AA)
        cv2.circle(image, tuple(corners.mean(axis=0).astype(int)), 7, (40, 40, 200), -1, cv2.LINE_AA)
    shadow = np.zeros((480, 800), np.float32)
    shadow[:, 380:] = 1
    image *= 1 - 0.5 * cv2.GaussianBlur(shadow, (31, 31), 0)[..., None]
    image = np.clip(image + rng.normal(0, 2, image.shape), 0, 255).astype(np.uint8)
    found = find_cards(image)
    assert len(found) == 4
    assert min(match(found, lit + [dim], image.shape[:2])) > 0.9


def face_down(image, corners) -> None:
    """A card's back: dark blue, with a pale frame printed inside its edge."""
    cv2.fillConvexPoly(image, corners.astype(np.int32), (120, 50, 30), lineType=cv2.LINE_AA)
    frame = cv2.boxPoints((tuple(corners.mean(axis=0)), (64, 104), 3)).astype(np.int32)
    cv2.polylines(image, [frame], True, (235, 240, 240), 2, cv2.LINE_AA)


def test_a_card_across_a_shadows_edge_is_found_whole_and_a_back_in_the_shadow_is_not() -> None:
    cards = [card_corners((120, 150), (80, 120), 5), card_corners((260, 150), (80, 120), -8),
             card_corners((430, 200), (80, 120), 3), card_corners((200, 300), (80, 120), 2)]
    image = scene(cards, table_bgr=(150, 190, 160)).astype(np.float32)  # pale green cloth
    face_down(image, card_corners((540, 300), (80, 120), 3))
    # A mug's shadow, its edge (10 px wide) across the middle of the third card.
    image *= (1 - 0.45 * np.clip((np.arange(640) - 430) / 10, 0, 1))[None, :, None]
    image = np.clip(image, 0, 255).astype(np.uint8)
    found = find_cards(image)
    assert len(found) == 4
    assert min(match(found, cards, image.shape[:2])) > 0.9


def test_the_light_on_the_table_is_read_from_the_cloth_colour() -> None:
    from vision.paper import shade

    image = scene([card_corners((120, 150), (80, 120), 5)], table_bgr=(60, 140, 70)).astype(np.float32)
    image[:, 400:] *= 0.5
    light = shade(np.clip(image, 0, 255).astype(np.uint8))
    assert light[:, :300].mean() > 0.9 and light[:, 480:].mean() < 0.65
    grey = scene([], table_bgr=(120, 120, 120))
    assert shade(grey) is None


def test_a_plain_frame_has_no_cards_and_no_warnings() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert find_cards(np.full((300, 400, 3), 128, np.uint8)) == []


def patterned_cloth(size_wh=(640, 400), seed=0):
    """A pale cloth with yellow dots, nearly as bright as the cards in between."""
    rng = np.random.default_rng(seed)
    w, h = size_wh
    image = np.full((h, w, 3), (222, 230, 234), np.float32)
    for x in range(20, w, 60):
        for y in range(20, h, 60):
            cv2.circle(image, (x + int(rng.integers(-5, 6)), y), 12, (90, 190, 210), -1, cv2.LINE_AA)
    return image


def lay(image, cards, paper=(232, 240, 244), seed=0):
    """Cards laid one after the other (a later one over an earlier), each edge a thin
    shadow line as on a real table; returns noisy BGR uint8."""
    rng = np.random.default_rng(seed)
    image = image.copy()
    for corners in cards:
        cv2.fillConvexPoly(image, corners.astype(np.int32), paper, lineType=cv2.LINE_AA)
        cv2.polylines(image, [corners.astype(np.int32)], True, (150, 150, 150), 1, cv2.LINE_AA)
        c = corners.mean(axis=0).astype(int)
        cv2.circle(image, tuple(c), 7, (40, 40, 200), -1, cv2.LINE_AA)
    image += rng.normal(0, 3, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def test_two_touching_cards_on_a_pale_patterned_cloth_are_two_cards() -> None:
    cards = [card_corners((150, 200), (80, 120), 0), card_corners((230, 200), (80, 120), 0),
             card_corners((400, 200), (80, 120), 4)]
    image = lay(patterned_cloth(), cards)
    found = find_cards(image)
    assert min(match(found, cards, image.shape[:2])) > 0.85
    assert all(q.size_wh[0] < 100 for q in found)  # no quad spans two cards


def test_a_rows_first_card_partly_under_the_second_is_not_merged_with_it() -> None:
    first, second = card_corners((180, 200), (80, 120), -3), card_corners((250, 205), (80, 120), 5)
    touching = [card_corners((400, 200), (80, 120), 0), card_corners((480, 200), (80, 120), 0)]
    image = lay(scene([], table_bgr=(60, 110, 150)).astype(np.float32), [first, second, *touching])
    found = find_cards(image)
    assert min(match(found, [second, *touching], image.shape[:2])) > 0.9
    assert match(found, [first], image.shape[:2])[0] > 0.75  # a tenth of it lies under the second
    assert all(q.size_wh[0] < 100 for q in found)


def test_a_4k_frame_shrinks_to_within_a_grey_level_of_inter_area() -> None:
    from vision.find import _shrink

    frame = cv2.resize(scene(SEPARATE, size_wh=(960, 540)), (3840, 2160), interpolation=cv2.INTER_LINEAR)
    small = _shrink(frame, 0.25)
    area = cv2.resize(frame, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    assert small.shape == area.shape == (540, 960, 3)
    assert np.abs(small.astype(int) - area).max() <= 1


def test_cards_on_a_pale_cloth_of_another_tint_brighter_than_them_are_found() -> None:
    # A pale cyan cloth with blue dots under a warm lamp, nearly as light as the cream paper
    # and most of the frame: its brightest tenth, even its fiftieth, is the cloth's. Against the cloth's
    # colour taken as the light's, the paper looks coloured and no card stands out; the paper
    # is the next colour among the brightest (fresh dev hard 935: no card found at all).
    rng = np.random.default_rng(0)
    cards = [card_corners((120, 150), (64, 90), 5), card_corners((300, 150), (64, 90), -8),
             card_corners((480, 260), (64, 90), 60)]
    image = np.full((540, 960, 3), (200, 214, 192), np.float32)
    for x in range(30, 960, 70):
        for y in range(30, 540, 70):
            cv2.circle(image, (x, y), 8, (150, 100, 40), -1, cv2.LINE_AA)
    for corners in cards:
        cv2.fillConvexPoly(image, corners.astype(np.int32), (185, 208, 232), lineType=cv2.LINE_AA)
        middle = corners.mean(axis=0).astype(int)
        cv2.circle(image, tuple(middle + [0, -20]), 7, (40, 40, 200), -1, cv2.LINE_AA)
        cv2.circle(image, tuple(middle + [0, 20]), 7, (30, 30, 30), -1, cv2.LINE_AA)
    image = np.clip(image + rng.normal(0, 3, image.shape), 0, 255).astype(np.uint8)
    found = find_cards(image)
    assert len(found) == 3
    assert min(match(found, cards, image.shape[:2])) > 0.9


def test_a_card_on_a_pale_cloth_beside_a_dark_floor_is_found() -> None:
    # The floor beyond the table (a third of the frame) is dark; the cloth is a little greyer than
    # the paper, and dots lie across the pale card's soft outline. Steps of whiteness from the
    # floor's level to the paper's step over the card; the second look steps from the cloth's.
    image = np.full((400, 640, 3), (210, 205, 220), np.float32)
    image[260:] = (25, 30, 35)
    image[:, :200] = (60, 110, 150)  # and a stretch of darker cloth, with clear cards on it
    clear = [card_corners((60, 120), (70, 105), 3), card_corners((150, 120), (70, 105), -4)]
    pale = card_corners((400, 130), (70, 105), 4)
    image = lay(image, clear, paper=(222, 222, 226)).astype(np.float32)
    cv2.fillConvexPoly(image, pale.astype(np.int32), (222, 222, 226), lineType=cv2.LINE_AA)
    cv2.circle(image, tuple(pale.mean(axis=0).astype(int)), 7, (40, 40, 200), -1, cv2.LINE_AA)
    image = cv2.GaussianBlur(image, (5, 5), 0) + np.random.default_rng(1).normal(0, 3, image.shape)
    for x, y in ((370, 78), (432, 80), (360, 185), (440, 180)):
        cv2.circle(image, (x, y), 10, (150, 60, 170), -1, cv2.LINE_AA)
    image = np.clip(image, 0, 255).astype(np.uint8)
    found = find_cards(image)
    assert min(match(found, clear, image.shape[:2])) > 0.85
    assert match(found, [pale], image.shape[:2])[0] > 0.8


THREE_CLEAR = [card_corners((80, 110), (80, 120), 2), card_corners((190, 110), (80, 120), -3), card_corners((80, 290), (80, 120), 4)]


def paint_face(image, corners) -> None:
    """A card of the clear cards' paper with one red dot, painted into a float image."""
    cv2.fillConvexPoly(image, corners.astype(np.int32), (232, 240, 244), lineType=cv2.LINE_AA)
    cv2.circle(image, tuple(corners.mean(axis=0).astype(int)), 7, (40, 40, 200), -1, cv2.LINE_AA)


def grained(image, seed):
    return np.clip(image + np.random.default_rng(seed).normal(0, 3, image.shape), 0, 255).astype(np.uint8)


def test_a_card_over_another_with_no_edge_between_them_is_completed_from_its_corners() -> None:
    # Two pool cards of the same paper, one over the other, stand out together as one region
    # that is no card's shape at any level: the top card shows its corners whole.
    clear = THREE_CLEAR
    under, over = card_corners((400, 220), (80, 120), 35), card_corners((470, 180), (80, 120), -10)
    image = lay(scene([], table_bgr=(120, 60, 40)).astype(np.float32), clear).astype(np.float32)
    for corners in (under, over):
        paint_face(image, corners)
    image = grained(image, 2)
    found = find_cards(image)
    assert min(match(found, clear, image.shape[:2])) > 0.9
    assert match(found, [over], image.shape[:2])[0] > 0.9
    assert all(q.size_wh[0] < 100 for q in found)  # no quad spans the two


def test_a_box_is_searched_at_the_whole_frames_scale_and_its_cards_come_back_in_frame_pixels() -> None:
    image = cv2.resize(scene(SEPARATE), (1280, 800), interpolation=cv2.INTER_LINEAR)  # worked on at 0.75
    cards = [c * 2 for c in SEPARATE]
    whole = find_cards(image)
    boxed = find_cards(image, (100, 60, 760, 480))  # the first two cards, not the third
    assert len(whole) == 3 and len(boxed) == 2
    assert min(match(boxed, cards[:2], image.shape[:2])) > 0.9
    for quad in boxed:
        same = min(whole, key=lambda q: np.abs(q.corners_xy - quad.corners_xy).max())
        assert np.abs(same.corners_xy - quad.corners_xy).max() < 1.5


def test_a_card_in_the_corner_of_a_thin_bright_frame_is_found() -> None:
    # The frame (a tray's rim, the frame printed on a card back) is as white as the paper and
    # meets the card along two sides with no edge between them: card and frame make one region,
    # no card's shape, at every level; opened off, the frame is gone.
    clear = THREE_CLEAR
    touched = card_corners((362, 142), (80, 120), 0)
    image = lay(scene([], table_bgr=(40, 70, 110)).astype(np.float32), clear).astype(np.float32)
    cv2.rectangle(image, (320, 80), (600, 360), (232, 240, 244), 3, cv2.LINE_AA)
    paint_face(image, touched)
    image = grained(image, 3)
    found = find_cards(image)
    assert min(match(found, clear, image.shape[:2])) > 0.9
    assert match(found, [touched], image.shape[:2])[0] > 0.85


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_a_card_whose_paper_runs_into_a_pale_thing_through_a_narrow_gap_in_its_edge_is_found(seed) -> None:
    # A card in a little shadow meets something broad and a little whiter (a sleeve, a pale
    # cloth) along a dark edge with a gap 4 px wide: at every level where the card's paper
    # stands, it runs out through the gap into the pale thing, no card's shape; with the
    # neck opened off, it is a card.
    paper = np.array((232, 240, 244), np.float32)
    card = card_corners((430, 250), (80, 120), 0)
    image = lay(scene([], table_bgr=(120, 60, 40)).astype(np.float32), THREE_CLEAR).astype(np.float32)
    cv2.rectangle(image, (300, 0), (600, 189), (0.8925 * paper).tolist(), -1)
    cv2.fillConvexPoly(image, card.astype(np.int32), (0.85 * paper).tolist(), lineType=cv2.LINE_AA)
    cv2.circle(image, tuple(card.mean(axis=0).astype(int)), 7, (40, 40, 200), -1, cv2.LINE_AA)
    cv2.line(image, (380, 189), (480, 189), (70, 70, 70), 2)  # the card's edge against the pale thing
    cv2.line(image, (440, 189), (443, 189), (0.85 * paper).tolist(), 2)  # and its gap
    image = grained(image, seed)
    found = find_cards(image)
    assert min(match(found, THREE_CLEAR, image.shape[:2])) > 0.9
    assert match(found, [card], image.shape[:2])[0] > 0.9


def arm_shadow_scene(seed, colour_grain=2.0):
    """Four cards on a pale green cloth; a soft shadow (half the light) falls across the
    third and the edge of the fourth; grain of ``colour_grain`` in each channel on its own."""
    rng = np.random.default_rng(seed)
    cards = [card_corners((80 + 160 * k, 200), (80, 120), 3 - 2 * k) for k in range(4)]
    image = np.empty((400, 640, 3), np.float32)
    image[:] = (185, 215, 185)
    image += rng.normal(0, 6, (400, 640, 1))
    for corners in cards:
        cv2.fillConvexPoly(image, corners.astype(np.int32), (225, 235, 240), lineType=cv2.LINE_AA)
        cv2.circle(image, tuple(corners.mean(axis=0).astype(int)), 7, (40, 40, 160), -1, cv2.LINE_AA)
    light = np.ones((400, 640), np.float32)
    cv2.fillConvexPoly(light, np.array([[380, 0], [520, 0], [560, 400], [420, 400]], np.int32), 0.5)
    image = image * cv2.GaussianBlur(light, (0, 0), 8)[..., None] + rng.normal(0, colour_grain, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8), cards


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_card_in_an_arms_shadow_on_a_pale_cloth_is_found_by_its_papers_tint(seed) -> None:
    # The third card is no whiter than the lit cloth at any level, but its paper keeps the
    # other cards' chromaticity in the shadow.
    image, cards = arm_shadow_scene(seed)
    found = find_cards(image)
    assert len(found) == 4
    assert min(match(found, cards[:3], image.shape[:2])) > 0.9  # the fourth, its edge in the shadow, as found without it


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_card_in_an_arms_shadow_is_found_by_its_tint_through_the_cameras_colour_grain(seed) -> None:
    # Twice the grain in each channel: the likeness to the paper's tint, chromaticity read
    # closely, is grainy on the paper; cut along the whiteness's edges, the shadowed card
    # falls to pieces.
    image, cards = arm_shadow_scene(seed, colour_grain=4.0)
    found = find_cards(image)
    assert len(found) == 4
    assert match(found, cards[2:3], image.shape[:2])[0] > 0.9


def paint_big_symbols(image, corners) -> None:
    """A card of the clear cards' paper with six big dark dots: a fifth of it is ink."""
    cv2.fillConvexPoly(image, corners.astype(np.int32), (232, 240, 244), lineType=cv2.LINE_AA)
    sides = [corners[1] - corners[0], corners[2] - corners[1]]
    across, along = sorted(sides, key=lambda v: float(np.hypot(*v)))
    for i in (-0.25, 0.25):
        for j in (-0.3, 0.0, 0.3):
            centre = corners.mean(axis=0) + i * across + j * along
            cv2.circle(image, tuple(centre.astype(int)), 11, (60, 40, 30), -1, cv2.LINE_AA)


@pytest.mark.parametrize("seed", [2, 4])
def test_a_card_with_big_symbols_over_another_is_completed_from_its_corners(seed) -> None:
    # As above, but a fifth of the top card is ink: its symbols are printed on its paper,
    # and the paper with its symbols fills the card completed from its corner.
    under, over = card_corners((400, 220), (80, 120), 35), card_corners((470, 180), (80, 120), -10)
    image = lay(scene([], table_bgr=(120, 60, 40)).astype(np.float32), THREE_CLEAR).astype(np.float32)
    paint_face(image, under)
    paint_big_symbols(image, over)
    image = grained(image, seed)
    found = find_cards(image)
    assert min(match(found, THREE_CLEAR, image.shape[:2])) > 0.9
    assert match(found, [over], image.shape[:2])[0] > 0.9
    assert all(q.size_wh[0] < 100 for q in found)  # no quad spans the two


def test_two_pool_cards_over_a_third_are_each_completed_from_their_corners() -> None:
    # A messy pool: two cards lie over a third, all of the same paper with no edge between
    # them, one patch of paper. Each top card shows its corners whole; each is a card.
    under = card_corners((430, 220), (80, 120), 80)
    over = [card_corners((380, 170), (80, 120), -10), card_corners((490, 260), (80, 120), 15)]
    image = lay(scene([], table_bgr=(120, 60, 40)).astype(np.float32), THREE_CLEAR).astype(np.float32)
    for corners in [under, *over]:
        paint_face(image, corners)
    image = grained(image, 0)
    found = find_cards(image)
    assert min(match(found, THREE_CLEAR, image.shape[:2])) > 0.9
    assert min(match(found, over, image.shape[:2])) > 0.9
    assert len(found) == 5  # the card mostly under the two is none, nor is any quad spanning two


def test_paper_counts_its_symbols_in_but_not_a_backs_printed_frame() -> None:
    from vision.second_look import _paper_of

    bright = np.zeros((120, 300), np.uint8)
    cv2.rectangle(bright, (10, 10), (70, 100), 255, -1)  # a card's paper
    cv2.circle(bright, (40, 40), 8, 0, -1)  # a symbol printed on it
    cv2.rectangle(bright, (110, 10), (180, 100), 255, 2)  # the frame printed on a card back
    cv2.rectangle(bright, (210, 10), (280, 100), 255, 8)  # a broad bright rim around a back
    paper = _paper_of(bright, max_hole=0.1 * 60 * 90)
    assert paper[40, 40] == 255  # the symbol counts as paper
    assert not paper[:, 100:200].any()  # the back's thin frame is no paper, nor what it rings
    assert paper[55, 245] == 0  # a back's face, however bright its rim, is no symbol on paper
    assert (paper[:, :100] > 0).sum() == pytest.approx(61 * 91, rel=0.02)


def test_the_outline_is_looked_for_along_many_quads_at_once() -> None:
    # Quads can number in the hundreds on a busy table or a checked cloth: their outline
    # points are more than one column of a remap map may hold (32767).
    from vision.second_look import _outline_seen

    white = np.zeros((100, 100), np.float32)
    white[20:80, 30:70] = 200.0
    quads = np.repeat(card_corners((50, 50), (40, 60), 0)[None], 1000, axis=0)
    seen = _outline_seen(white, quads, 200.0)
    assert seen.shape == (1000, 4) and (seen == 1.0).all()


@pytest.mark.parametrize("seed", [0, 1])
def test_cards_on_a_cream_table_as_white_as_paper_under_its_cast_are_found(seed) -> None:
    # A few small cards on a cream cloth under a warm lamp: the frame's brightest tenth is
    # cloth, and under the cloth's cast the paper, brighter but of another tint, is no whiter.
    rng = np.random.default_rng(seed)
    image = np.full((480, 800, 3), (124, 164, 183), np.float32) + rng.normal(0, 4, (480, 800, 1))
    for x in range(40, 800, 110):  # the cloth's purple dots
        for y in range(30, 480, 120):
            cv2.circle(image, (x, y), 14, (170, 80, 110), -1, cv2.LINE_AA)
    cards = [card_corners((110 + 105 * k, 200), (60, 90), 3 * (k - 1)) for k in range(3)]
    for corners in cards:
        cv2.fillConvexPoly(image, corners.astype(np.int32), (144, 176, 204), lineType=cv2.LINE_AA)
        centre = corners.mean(axis=0)
        cv2.circle(image, tuple(centre.astype(int)), 9, (40, 40, 190), -1, cv2.LINE_AA)
        cv2.circle(image, tuple((centre + (0, 30)).astype(int)), 8, (150, 90, 30), -1, cv2.LINE_AA)
    image *= np.linspace(1.08, 0.9, 800)[None, :, None]  # the lamp lights the cloth on the left more
    image = np.clip(cv2.GaussianBlur(image, (0, 0), 1.5) + rng.normal(0, 3, image.shape), 0, 255).astype(np.uint8)
    found = find_cards(image)
    assert len(found) == 3
    assert min(match(found, cards, image.shape[:2])) > 0.85


@pytest.mark.parametrize("times", [1, 2], ids=["1080p: halved once", "4K: twice"])
def test_the_working_copy_of_a_1080p_or_4k_frame_is_it_halved_by_2x2_means(times) -> None:
    # referee_frame hands find_cards' working copy to the table look, which halves the frame so.
    rng = np.random.default_rng(times)
    frame = rng.integers(0, 256, (1080 * times, 1920 * times, 3), dtype=np.uint8)
    halved = frame
    for _ in range(times):
        halved = cv2.resize(halved, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_LINEAR)
    assert np.array_equal(working_copy(frame), halved)


def test_a_cards_size_follows_the_view_across_the_cards_found_not_its_nearest_four() -> None:
    from vision.card_sizes import sizes_in_view as _sizes_in_view, typical_near as _typical_near
    from vision.second_look import _AGAIN_SIZE

    # A camera looking down at a tilted table: a card's sides grow by exp(0.6) from the top of the frame to its bottom.
    def card_at(x, y, scale=1.0):
        short = 50.0 * np.exp(0.6 * y / 400) * scale
        return CardQuad(card_corners((x, y), (short, 1.5 * short), 0), 1.0)

    far_row = [card_at(x, 60) for x in (80, 200, 320, 440, 560)]
    middle_row = [card_at(x, 200) for x in (320, 400, 480, 560)]
    scrap = card_at(520, 290, 0.4)  # a bit of paper found wrongly as a card
    found = far_row + middle_row + [card_at(80, 360), scrap]
    points = np.array([(560, 360), (200, 130)], np.float64)
    expected = [card_at(x, y).size_wh for x, y in points]

    sizes = _sizes_in_view(found, points)
    nearest = _typical_near(found, (560, 360))

    assert sizes is not None and np.allclose(sizes, expected, rtol=0.03)
    assert expected[0][0] / nearest.short - 1 > _AGAIN_SIZE  # the four nearest, smaller and farther, would refuse it
    # With a few cards found, the cards nearest each point tell; with none, nothing does.
    few = [(t.short, t.long) for t in (_typical_near(far_row[:4], tuple(p)) for p in points)]
    assert np.allclose(_sizes_in_view(far_row[:4], points), few)
    assert _sizes_in_view([], points) is None


def test_a_region_refused_by_its_nearest_four_is_kept_at_the_size_in_view_only_where_plainly_a_card() -> None:
    from vision.card_sizes import typical_near as _typical_near
    from vision.second_look import _fitting
    from vision.regions import Region

    # A tilted view: a card's sides grow by exp(0.6) from the top of the frame to its bottom.
    def card_at(x, y):
        short = 50.0 * np.exp(0.6 * y / 400)
        return CardQuad(card_corners((x, y), (short, 1.5 * short), 0), 1.0)

    found = [card_at(x, 60) for x in (80, 200, 320, 440, 560)] + [card_at(x, 200) for x in (320, 400, 480, 560)]
    found.append(card_at(80, 360))
    near_card, pale_patch = card_at(560, 360), card_at(320, 360)
    white = np.full((480, 640), 40.0, np.float32)
    for quad in found + [near_card]:
        cv2.fillConvexPoly(white, np.round(quad.corners_xy).astype(np.int32), 220.0)
    cv2.fillConvexPoly(white, np.round(pale_patch.corners_xy).astype(np.int32), 75.0)  # outlined, hardly whiter than the table
    for quad in (near_card, pale_patch):  # the four nearest, smaller and farther, would refuse both
        typical = _typical_near(found, quad.center_xy)
        assert quad.size_wh[0] / typical.short - 1 > 0.2
    regions = [Region(q.corners_xy, 1.0, 0) for q in (near_card, pale_patch)]
    chosen = [Region(q.corners_xy, q.fill, 0) for q in found]
    corners = np.array([q.corners_xy for q in found], np.float32)

    kept = _fitting(regions, [180.0, 180.0], chosen, corners, found, white)

    assert [r.corners_xy.tolist() for r in kept] == [near_card.corners_xy.tolist()]


def test_a_plain_card_refused_by_its_nearest_four_is_kept_at_the_size_of_the_one_card_beside_it() -> None:
    from vision.card_sizes import typical_near as _typical_near
    from vision.second_look import _fitting
    from vision.regions import Region

    # A wide lens: the cards of the near row show 130 px long, the two at the frame's left edge 90;
    # too few cards are found to fit the size in view.
    found = [CardQuad(order_corners(card_corners((x, 330), (75, 130), 0)), 1.0) for x in (300, 400, 500)]
    found.append(CardQuad(order_corners(card_corners((90, 80), (60, 85), 0)), 1.0))
    beside = order_corners(card_corners((90, 190), (66, 92), 0))
    pale_patch, alone = beside + (520, 0), beside + (500, -110)  # alone: plainly a card too, but far from every card found
    white = np.full((420, 720), 40.0, np.float32)
    for corners in [q.corners_xy for q in found] + [beside, alone]:
        cv2.fillConvexPoly(white, np.round(corners).astype(np.int32), 220.0)
    cv2.fillConvexPoly(white, np.round(pale_patch).astype(np.int32), 75.0)  # outlined, hardly whiter than the table
    typical = _typical_near(found, tuple(beside.mean(axis=0)))
    assert typical.long / 92 - 1 > 0.2  # the four nearest would refuse it
    regions = [Region(c, 1.0, 0) for c in (beside, pale_patch, alone)]
    chosen = [Region(q.corners_xy, q.fill, 0) for q in found]
    corners = np.array([q.corners_xy for q in found], np.float32)

    kept = _fitting(regions, [180.0] * 3, chosen, corners, found, white)

    assert [r.corners_xy.tolist() for r in kept] == [beside.tolist()]


@pytest.mark.parametrize("table", [40.0, 160.0], ids=["dark table", "pale table"])  # pale: the card stands out by a third of the span
def test_a_printed_card_larger_than_the_cards_found_near_it_is_kept_a_strip_of_table_or_a_plain_thing_is_not(table) -> None:
    from vision.second_look import _AGAIN_SIZE, _LOOSE_SIZE, _fitting
    from vision.regions import Region

    # The cards found near it are all smaller (far pool cards, point cards found by their printed frame).
    found = [CardQuad(order_corners(card_corners((x, 80), (60, 90), 0)), 1.0) for x in (100, 200, 300, 400)]
    card = order_corners(card_corners((120, 280), (80, 120), 0))  # nearer the camera: a third larger
    beside = order_corners(card_corners((290, 280), (66, 99), 0))
    with_strip = order_corners(card_corners((300, 280), (86, 99), 0))  # a card and a strip of table beside it
    plain = order_corners(card_corners((460, 280), (80, 120), 0))  # as white, nothing printed on it
    white = np.full((400, 560), table, np.float32)
    for corners in [q.corners_xy for q in found] + [card, beside, plain]:
        cv2.fillConvexPoly(white, np.round(corners).astype(np.int32), 220.0)
    for x, y in ((105, 255), (135, 280), (110, 305), (280, 265), (295, 295)):  # symbols
        cv2.circle(white, (x, y), 11, 90.0, -1)
    for corners in (card, with_strip, plain):
        ratios = np.array(CardQuad(corners, 1.0).size_wh) / (60, 90)
        assert (ratios - 1 > _AGAIN_SIZE).any() and (ratios - 1 < _LOOSE_SIZE).all()
    regions = [Region(c, 1.0, 0) for c in (card, with_strip, plain)]
    chosen = [Region(q.corners_xy, q.fill, 0) for q in found]
    corners = np.array([q.corners_xy for q in found], np.float32)

    kept = _fitting(regions, [180.0] * 3, chosen, corners, found, white)

    assert [r.corners_xy.tolist() for r in kept] == [card.tolist()]


def test_a_region_refused_at_a_place_leaves_it_to_the_cards_own_region_there() -> None:
    from vision.second_look import _fitting
    from vision.regions import Region

    found = [CardQuad(order_corners(card_corners((x, 100), (60, 90), 0)), 1.0) for x in (100, 200, 300, 400)]
    card = order_corners(card_corners((250, 260), (60, 90), 0))
    with_strip = order_corners(card_corners((262, 260), (84, 90), 0))  # the card and a strip of table beside it
    white = np.full((400, 520), 40.0, np.float32)
    for corners in [q.corners_xy for q in found] + [card]:
        cv2.fillConvexPoly(white, np.round(corners).astype(np.int32), 220.0)
    # The strip stands at more levels: it is picked first, and refused as too wide.
    regions = [Region(with_strip, 0.95, 0, 5), Region(card, 0.95, 2, 1)]
    chosen = [Region(q.corners_xy, q.fill, 0, 8) for q in found]
    corners = np.array([q.corners_xy for q in found], np.float32)

    kept = _fitting(regions, [180.0, 180.0], chosen, corners, found, white)

    assert [r.corners_xy.tolist() for r in kept] == [card.tolist()]


@pytest.mark.parametrize("cloth_bgr, side", [((150, 240, 150), 0), ((190, 175, 250), 1)], ids=["bright green", "pale pink"])
def test_the_lights_cast_is_read_off_the_paper_not_a_bright_coloured_cloth(cloth_bgr, side) -> None:
    from vision.find import _LIGHTS_A, _light_cast
    from vision.paper import light_cast

    cloth = scene(SEPARATE, size_wh=(960, 600), table_bgr=cloth_bgr)  # the cloth is most of the brightest tenth
    wood = scene(SEPARATE, size_wh=(960, 600), table_bgr=(40, 90, 140))
    paper_ab = light_cast(cloth[140:160, 110:130])  # a card's paper beside its symbol

    assert (light_cast(cloth)[0] - _LIGHTS_A[side]) * (1 if side else -1) > 0  # greener, or redder, than any light
    assert np.hypot(*np.subtract(_light_cast(cloth), paper_ab)) <= 2.0
    assert _light_cast(wood) == light_cast(wood)  # an orange wood's cast is a lamp's too: it stands


def lab_to_bgr(lab):
    return cv2.cvtColor(np.uint8([[lab]]), cv2.COLOR_LAB2BGR)[0, 0].tolist()


@pytest.mark.parametrize("daylit_lab", [(225, 128, 128), (230, 128, 127)], ids=["daylit paper", "brighter daylit paper"])
def test_cards_under_a_lamp_on_a_pale_bluish_cloth_are_found_under_the_brightest_fiftieths_cast(daylit_lab) -> None:
    # A pale bluish cloth on a dark floor, as light as the paper but for a few grey levels:
    # it is most of the frame's brightest tenth, whose cast then leaves two daylit cards
    # whiter than the cloth but not the five warmer ones under a lamp.
    rng = np.random.default_rng(0)
    image = np.full((600, 960, 3), 40, np.float32)
    cv2.rectangle(image, (60, 40), (900, 560), lab_to_bgr((200, 129, 121)), -1)
    cards = [card_corners((170 + 105 * k, 225 + 150 * (k % 2)), (60, 90), 3 * k - 4) for k in range(7)]
    for k, corners in enumerate(cards):
        paper_lab = daylit_lab if k < 2 else (212, 133, 137)
        cv2.fillConvexPoly(image, corners.astype(np.int32), lab_to_bgr(paper_lab), lineType=cv2.LINE_AA)
        cv2.circle(image, tuple(corners.mean(axis=0).astype(int)), 9, (40, 40, 160), -1, cv2.LINE_AA)
    image = cv2.GaussianBlur(image + rng.normal(0, 5.0, image.shape), (0, 0), 1.5)
    frame = np.clip(image, 0, 255).astype(np.uint8)

    found = find_cards(frame)

    assert min(match(found, cards, frame.shape[:2])) > 0.8


@pytest.mark.parametrize("hidden_share, kept", [(0.5, False), (0.25, True)], ids=["half hidden", "a quarter hidden"])
def test_a_piece_of_a_card_half_under_a_back_is_no_card_but_one_a_quarter_under_is(hidden_share, kept) -> None:
    whole = [card_corners((x, y), (80, 120), 0) for x, y in [(80, 110), (190, 110), (300, 110), (410, 110), (80, 290), (190, 290), (300, 290)]]
    under = card_corners((470, 290), (80, 120), 0)
    image = scene(whole + [under])
    cv2.rectangle(image, (420, int(350 - 120 * hidden_share)), (540, 390), (90, 40, 25), -1)  # a card back over its lower part
    found = find_cards(image)
    assert min(match(found, whole, image.shape[:2])) > 0.85
    assert any(cv2.pointPolygonTest(under, q.center_xy, False) > 0 for q in found) == kept
    assert len(found) == len(whole) + kept


def paint_four_dots(image, corners, paper) -> None:
    """A card of ``paper`` with four red dots, painted into a float image."""
    cv2.fillConvexPoly(image, corners.astype(np.int32), paper, lineType=cv2.LINE_AA)
    centre, along, across = corners.mean(axis=0), (corners[1] - corners[0]) / 2, (corners[3] - corners[0]) / 2
    for i in (-0.5, 0.5):
        for j in (-0.5, 0.5):
            cv2.circle(image, tuple((centre + i * along + j * across).astype(int)), 7, (40, 40, 200), -1, cv2.LINE_AA)


def test_a_card_lying_over_another_is_traced_by_the_faint_step_of_its_outline() -> None:
    # Two cards of paper whiter than the whiteness's top, one lying over the other: one
    # region at every level, and where the top card lies over the other its outline is only
    # a step of a few grey levels and a thin shadow. Its four sides are still edges a card's
    # size apart, meeting at right angles.
    under, over = card_corners((420, 220), (80, 120), 38), card_corners((359, 266), (80, 120), 58)
    image = lay(scene([], table_bgr=(127, 84, 43)).astype(np.float32), THREE_CLEAR).astype(np.float32)
    paint_four_dots(image, under, (250, 252, 253))
    cv2.polylines(image, [(over + 1.5).astype(np.int32)], True, (215, 220, 222), 2, cv2.LINE_AA)
    paint_four_dots(image, over, (255, 255, 255))
    image = grained(image, 15)
    found = find_cards(image)
    assert min(match(found, THREE_CLEAR, image.shape[:2])) > 0.9
    assert min(match(found, [over, under], image.shape[:2])) > 0.9
    assert len(found) == 5


def test_a_card_lying_over_another_on_a_checked_cloth_is_traced_past_a_piece_of_it_taken_for_a_square() -> None:
    # As above, on a checked cloth: its pale squares are chosen as regions too, and no cards.
    # A patch of the top card's paper between its symbols, square, was taken for one of them
    # (dev medium2 153); as a card found it held the card traced there off.
    from vision.find import _light_cast
    from vision.paper import lab_whiteness
    from vision.regions import Region, blurred_whiteness, sweep_span
    from vision.second_look import look_again

    under, over = card_corners((420, 220), (80, 120), 38), card_corners((359, 266), (80, 120), 58)
    image = scene([], table_bgr=(127, 84, 43)).astype(np.float32)
    for corners in THREE_CLEAR:
        paint_four_dots(image, corners, (232, 240, 244))
    squares = [card_corners((x, y), (36, 38), 0) for x in (560, 610) for y in (40, 100, 160, 220)]
    for corners in squares:
        cv2.fillConvexPoly(image, corners.astype(np.int32), (225, 232, 236))
    paint_four_dots(image, under, (250, 252, 253))
    cv2.polylines(image, [(over + 1.5).astype(np.int32)], True, (215, 220, 222), 2, cv2.LINE_AA)
    paint_four_dots(image, over, (255, 255, 255))
    image = grained(image, 15)
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    white, _ = lab_whiteness(lab, _light_cast(image, lab))
    piece = card_corners(tuple(over.mean(axis=0)), (14, 15), 58)
    chosen = [Region(corners, 1.0, 0) for corners in THREE_CLEAR + squares + [piece]]

    found = look_again(image, lab, white, sweep_span(blurred_whiteness(white)[::4, ::4]), chosen, 60.0, 0.1 * white.size)

    assert max(match([CardQuad(r.corners_xy, r.fill) for r in found], [over], image.shape[:2])) > 0.9


def paint_six_big_dots(image, corners, paper, radius, along_at, across_at) -> None:
    """A card of ``paper`` with six big dark dots in two lines of three (at ``along_at`` and
    ``across_at`` of its half sides from its middle)."""
    cv2.fillConvexPoly(image, corners.astype(np.int32), paper, lineType=cv2.LINE_AA)
    centre, along, across = corners.mean(axis=0), (corners[1] - corners[0]) / 2, (corners[3] - corners[0]) / 2
    if np.hypot(*along) < np.hypot(*across):
        along, across = across, along
    for i in (-across_at, across_at):
        for j in (-along_at, 0.0, along_at):
            cv2.circle(image, tuple((centre + i * across + j * along).astype(int)), radius, (60, 40, 160), -1, cv2.LINE_AA)


@pytest.mark.parametrize("seed", [15, 16, 17])
def test_a_card_with_big_symbols_near_its_sides_lying_over_another_is_traced(seed) -> None:
    # As above, but the card on top has six big dots a few pixels from each other and from its
    # sides (as medium dev-21084's): opening thin bright things off the paper takes the paper
    # between them too, and the dots reach its sides. Enclosed by its paper, they are its symbols.
    under, over = card_corners((420, 220), (80, 120), 38), card_corners((359, 266), (80, 120), 58)
    image = lay(scene([], table_bgr=(127, 84, 43)).astype(np.float32), THREE_CLEAR).astype(np.float32)
    paint_four_dots(image, under, (250, 252, 253))
    cv2.polylines(image, [(over + 1.5).astype(np.int32)], True, (215, 220, 222), 2, cv2.LINE_AA)
    paint_six_big_dots(image, over, (255, 255, 255), 14, 0.7, 0.55)
    image = grained(image, seed)
    found = find_cards(image)
    assert min(match(found, THREE_CLEAR, image.shape[:2])) > 0.9
    assert min(match(found, [over, under], image.shape[:2])) > 0.9
    assert len(found) == 5


@pytest.mark.parametrize("seed", [15, 16, 17])
def test_a_card_lying_over_the_middle_of_a_patch_of_cards_is_traced_by_the_loop_of_its_outline(seed) -> None:
    # A card lying over four face-up cards, each corner of it over one of them: all five make one
    # patch of paper, and no corner of the top card lies on the patch's outline, where a card is
    # traced from; its thin shadow is too faint to cut the patch's whiteness apart. Its outline,
    # a faint step all round, still closes a loop of a card's size (dev medium 4197).
    under = [card_corners((x, y), (80, 120), a) for x, y, a in ((380, 170, 5), (470, 165, -4), (385, 300, -6), (475, 295, 3))]
    over = card_corners((428, 232), (80, 120), 28)
    image = lay(scene([], table_bgr=(127, 84, 43)).astype(np.float32), THREE_CLEAR).astype(np.float32)
    for corners in under:
        paint_four_dots(image, corners, (250, 252, 253))
    shadow = card_corners((428, 232), (84, 124), 28)  # (the thin, faint shadow round its edge)
    cv2.polylines(image, [np.round(shadow).astype(np.int32)], True, (235, 240, 242), 1, cv2.LINE_AA)
    paint_four_dots(image, over, (255, 255, 255))
    image = grained(image, seed)
    found = find_cards(image)
    assert min(match(found, THREE_CLEAR, image.shape[:2])) > 0.9
    assert match(found, [over], image.shape[:2])[0] > 0.9


def test_a_loop_of_steps_of_a_cards_shape_is_a_card_and_a_loop_broken_wide_open_or_of_no_cards_shape_is_not() -> None:
    from vision.second_look import enclosed_loops

    def loops(*outlines, gap=0):
        steps = np.zeros((300, 400), np.uint8)
        for corners in outlines:
            cv2.polylines(steps, [np.round(corners).astype(np.int32)], True, 255, 3)
        steps[80:100, 200 - gap // 2:200 + gap - gap // 2] = 0  # (a break in the top side of the card at (200, 150))
        return enclosed_loops(steps, (0, 0, 400, 300), 0.3 * 80 * 120)

    card, upright = card_corners((200, 150), (80, 120), 12), card_corners((200, 150), (80, 120), 0)
    found = loops(card)
    assert len(found) == 2 and min(iou(quad, card, (300, 400)) for quad in found) > 0.9  # (as the steps are, and thickened)
    assert len(loops(upright, gap=2)) == 1  # (thickened, the steps close a break of two pixels)
    assert loops(upright, gap=6) == []
    ell = np.array([[160, 90], [240, 90], [240, 140], [190, 140], [190, 210], [160, 210]], np.float32)
    assert loops(ell) == []  # (an L, as two cards' outlines run into one loop: it fills two thirds of its quadrilateral)
    # A symbol printed close to a side bites into the region its outline encloses, not into its hull.
    assert len(loops(card, card_corners((196, 105), (20, 20), 12))) == 2


def test_what_paper_encloses_in_a_quad_counts_as_paper_what_reaches_its_sides_does_not() -> None:
    from vision.second_look import _filled

    mask = np.zeros((100, 100), np.uint8)
    cv2.rectangle(mask, (20, 20), (79, 79), 255, -1)  # paper
    cv2.circle(mask, (40, 40), 12, 0, -1)  # two symbols touching each other
    cv2.circle(mask, (62, 40), 12, 0, -1)
    cv2.rectangle(mask, (45, 60), (55, 79), 0, -1)  # a notch from the paper's side
    quad = np.array([[20, 20], [79, 20], [79, 79], [20, 79]], np.float32)
    notch = float(np.count_nonzero(mask[60:80, 45:56] == 0)) / 3600
    plain = _filled(quad, mask)
    assert _filled(quad, mask, enclosed=True) == pytest.approx(1.0 - notch, abs=0.02)
    assert plain < 1.0 - notch - 0.15


def test_a_card_among_a_checked_cloths_squares_is_sized_by_the_cards_with_symbols() -> None:
    from vision.card_sizes import typical_near as _typical_near
    from vision.second_look import _fitting
    from vision.regions import Region

    def inked(quad, white, paper=220.0):
        cv2.fillConvexPoly(white, np.round(quad.corners_xy).astype(np.int32), paper)
        x, y = np.round(quad.center_xy).astype(int)
        cv2.rectangle(white, (x - 8, y - 12), (x + 8, y + 12), 60.0, -1)  # a symbol printed on it

    cards = [CardQuad(card_corners((x, 70), (50, 75), 0), 1.0) for x in (80, 200, 320, 440, 560)]
    # The pale squares of a checked cloth, found as quads too, seen a little longer than wide (a tilted view).
    squares = [CardQuad(card_corners((x, y), (24, 33), 0), 1.0) for x in (300, 360, 440, 500) for y in (260, 400)]
    card = CardQuad(card_corners((400, 330), (50, 75), 0), 1.0)
    white = np.full((480, 640), 40.0, np.float32)
    for quad in cards + [card]:
        inked(quad, white)
    for quad in squares:
        cv2.fillConvexPoly(white, np.round(quad.corners_xy).astype(np.int32), 200.0)
    found = cards + squares
    assert card.size_wh[0] / _typical_near(found, card.center_xy).short - 1 > 0.2  # the four nearest, squares, would refuse it
    chosen = [Region(q.corners_xy, q.fill, 0) for q in found]
    corners = np.array([q.corners_xy for q in found], np.float32)

    kept = _fitting([Region(card.corners_xy, 1.0, 0)], [180.0], chosen, corners, found, white)

    assert [r.corners_xy.tolist() for r in kept] == [card.corners_xy.tolist()]


@pytest.mark.parametrize("squares, cloth", [(8, True), (2, False)], ids=["a checked cloth", "two pale patches"])
def test_blank_squares_are_a_cloths_where_they_outnumber_the_quads_with_symbols(squares, cloth) -> None:
    from vision.second_look import _sizing_cards, cloth_squares

    white = np.full((480, 640), 40.0, np.float32)
    cards = [CardQuad(card_corners((x, 70), (50, 75), 0), 1.0) for x in (80, 200, 320)]
    for quad in cards:
        cv2.fillConvexPoly(white, np.round(quad.corners_xy).astype(np.int32), 220.0)
        x, y = np.round(quad.center_xy).astype(int)
        cv2.rectangle(white, (x - 8, y - 12), (x + 8, y + 12), 60.0, -1)  # a symbol printed on it
    pale = [CardQuad(card_corners((60 + 70 * (k % 8), 260 + 100 * (k // 8)), (30, 33), 0), 1.0) for k in range(squares)]
    for quad in pale:
        cv2.fillConvexPoly(white, np.round(quad.corners_xy).astype(np.int32), 200.0)

    assert cloth_squares(cards + pale, white).tolist() == [False] * 3 + [cloth] * squares
    # (and the cards' size is then read off the cards with symbols; the squares are no cards)
    assert _sizing_cards(cards + pale, white) == ((cards, cards) if cloth else (cards + pale, cards + pale))


def windowpane(size_wh, cell, pale=(226, 232, 236), dark=(70, 110, 80)):
    """A cloth of pale squares ``cell`` pixels wide, one cell apart, on a dark ground (float BGR)."""
    w, h = size_wh
    image = np.empty((h, w, 3), np.float32)
    image[:] = dark
    ys, xs = np.mgrid[0:h, 0:w]
    image[((xs // cell) % 2 == 0) & ((ys // cell) % 2 == 0)] = pale
    return image


@pytest.mark.parametrize("cell", [70, 80])
def test_the_pale_squares_of_a_checked_cloth_are_no_cards(cell) -> None:
    # Square and as white as paper, many more of them than of cards: each is a card-shaped region,
    # but no card is square and none shows a symbol. Only the three cards are found.
    cards = [card_corners((190 + 260 * k, 430), (110, 165), 3 * k - 3) for k in range(3)]
    image = windowpane((960, 640), cell)
    for corners in cards:
        cv2.fillConvexPoly(image, corners.astype(np.int32), (232, 240, 244), lineType=cv2.LINE_AA)
        cv2.polylines(image, [corners.astype(np.int32)], True, (150, 150, 150), 1, cv2.LINE_AA)
        x, y = corners.mean(axis=0)
        for dx, dy in ((-25, -40), (25, -40), (-25, 40), (25, 40), (0, 0)):
            cv2.circle(image, (int(x + dx), int(y + dy)), 12, (40, 40, 200), -1, cv2.LINE_AA)
    image = grained(image, 3)

    found = find_cards(image)

    assert len(found) == 3
    assert min(match(found, cards, image.shape[:2])) > 0.95


@pytest.mark.parametrize("seen, completed", [
    ((56.0, 85.0), (56.0, 85.0, True)),  # both sides seen whole against the cards' outlines: the card's own, outlined all round
    ((56.0, 40.0), (74.4, 96.0, False)),  # one running under something: the cards' size, their printed border's outline
    ((74.0, 95.0), (74.0, 95.0, False)),  # seen whole against their printed border's outline
])
def test_a_card_is_completed_from_its_corner_at_the_size_its_sides_show(seen, completed) -> None:
    # The cards found near it measure 62 x 80: their outlines, or the paper inside a printed
    # border whose outline is a fifth larger (_OUTER).
    from vision.card_sizes import Typical
    from vision.second_look import _corner_sizes

    sizes = _corner_sizes(*seen, Typical(62.0, 80.0, None))
    assert completed in [(round(a, 1), round(b, 1), all_round) for a, b, all_round in sizes]
    assert len({(a, b) for a, b, _ in sizes}) == len(sizes)


def _card_over_another(bite_px: int = 0):
    """The paper of a card lying over another, one patch with no edge between them, and three
    cards found apart from it: (the card on top's corners, the paper left, its whiteness, the
    patch's outlines, the cards found). ``bite_px``: the card on top bitten so deep at each of
    its corners off the card beneath (symbols printed at its corners, lost in the paper)."""
    under, over = card_corners((400, 220), (80, 120), 35), card_corners((470, 180), (80, 120), -10)
    unlit = np.full((400, 640), 30.0, np.float32)
    left = np.zeros((400, 640), np.uint8)
    for corners in (under, over):
        cv2.fillConvexPoly(unlit, corners.astype(np.int32), 220.0)
        cv2.fillConvexPoly(left, corners.astype(np.int32), 255)
    for corner in over if bite_px else ():
        if cv2.pointPolygonTest(under.astype(np.float32), (float(corner[0]), float(corner[1])), False) < 0:
            bite = corner + bite_px * (over.mean(axis=0) - corner) / np.linalg.norm(over.mean(axis=0) - corner)
            cv2.circle(left, (int(bite[0]), int(bite[1])), bite_px, 0, -1)
            cv2.circle(unlit, (int(bite[0]), int(bite[1])), bite_px, 30.0, -1)
    pieces, _ = cv2.findContours(left, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cards = [CardQuad(card_corners(c, (80, 120), 0), 0.95) for c in ((80, 110), (190, 110), (80, 290))]
    return over, left, unlit, tuple(pieces), cards


def test_a_card_over_another_is_completed_from_its_corner_at_the_size_of_the_cards_not_of_the_squares_round_it() -> None:
    from vision.second_look import _best_first, _corner_cards

    # The cards found are three, with a checked cloth's pale squares all round the patch.
    over, left, unlit, pieces, cards = _card_over_another()
    squares = [CardQuad(card_corners((x, y), (44, 48), 0), 0.97) for x in range(300, 620, 70) for y in (40, 340)]

    by_squares = _best_first(cards + squares, _corner_cards(pieces, left, left.copy(), unlit, 190.0, cards + squares))
    by_cards = _best_first(cards + squares, _corner_cards(pieces, left, left.copy(), unlit, 190.0, cards))

    assert by_squares == []
    assert max(iou(region.corners_xy, over, left.shape) for region in by_cards) > 0.9


def test_a_corner_split_in_two_by_a_jag_is_looked_at_as_one_corner_too() -> None:
    # The paper's outline, simplified, may show a card's corner as two vertices a few pixels
    # apart (noise, a symbol's bite, the edge of the card beneath): the corner where the sides
    # beside that short side meet is looked at too, after the polygon's own vertices.
    from vision.second_look import _with_jagged_corners

    jagged = np.array([[0, 0], [92, 0], [100, 9], [100, 150], [0, 150]], np.float32)
    (own, all_of_them), (plain, met) = _with_jagged_corners(jagged, 30.0)
    assert own is jagged and all_of_them == [0, 1, 2, 3, 4]
    assert len(met) == 1 and np.allclose(plain[met[0]], (100, 0), atol=0.01)
    assert len(plain) == 4
    square = np.array([[0, 0], [100, 0], [100, 150], [0, 150]], np.float32)
    assert _with_jagged_corners(square, 30.0)[1][1] == []


def test_a_card_over_another_with_bitten_corners_is_completed_from_a_corner_the_bites_split() -> None:
    from vision.second_look import _best_first, _corner_cards

    # As above, with the card on top bitten at each corner off the card beneath: no corner of
    # the outline is whole.
    over, left, unlit, pieces, cards = _card_over_another(bite_px=6)

    found = _best_first(cards, _corner_cards(pieces, left, left.copy(), unlit, 190.0, cards))

    assert max(iou(region.corners_xy, over, left.shape) for region in found) > 0.8


def test_a_card_outlined_all_round_goes_before_one_seen_along_two_sides_at_its_corner() -> None:
    # A card traced all round, and a card completed from a corner of it taking in a strip of
    # the card beneath, seen as well along its two sides (dev medium2 159): one to a place,
    # the card outlined all round, however the two scored; then, apart from both, the best.
    from vision.second_look import _Seen, _best_first

    found = [CardQuad(card_corners((80, 110), (80, 120), 0), 0.95)]
    traced = card_corners((300, 200), (80, 120), 20)
    widened = card_corners((290, 196), (96, 124), 20)
    apart = [card_corners((500, 200), (80, 120), 0), card_corners((505, 204), (80, 120), 2)]
    scored = [_Seen(1.99, widened, 0.99, False), _Seen(1.87, traced, 1.0, True), _Seen(1.9, apart[0], 0.97, False),
              _Seen(1.95, apart[1], 0.98, False),
              _Seen(1.99, card_corners((85, 112), (80, 120), 0), 1.0, True)]  # (this one where a card was found)

    kept = _best_first(found, scored)

    assert [r.corners_xy.tolist() for r in kept] == [traced.tolist(), apart[1].tolist()]


def test_the_tint_likeness_taken_run_by_run_is_the_whole_frames_to_the_bit() -> None:
    from vision.second_look import _DARK_L, _TINT_REACH, _tint_likeness

    rng = np.random.default_rng(11)
    frame = rng.integers(0, 256, (301, 457, 3), dtype=np.uint8)  # five runs of pixels, the last short
    frame[:10, :10] = (200, 210, 220)  # of the paper's tint
    frame[-1, -1] = (5, 5, 5)  # too dark to be paper
    light = cv2.extractChannel(cv2.cvtColor(frame, cv2.COLOR_BGR2LAB), 0)
    tint = np.array([201, 211, 221], np.float32) / (201 + 211 + 221)
    # The likeness over the whole frame at once, as OpenCV takes it in one call each.
    bgr = frame.astype(np.float32) + 1.0
    total = cv2.transform(bgr, np.ones((1, 3), np.float32))
    off = cv2.transform(bgr, np.eye(3, dtype=np.float32) - tint[:, None] * np.ones((1, 3), np.float32))
    distance = cv2.divide(cv2.sqrt(cv2.transform(cv2.multiply(off, off), np.ones((1, 3), np.float32))), total)
    whole = np.float32(255.0) - np.minimum(distance * np.float32(255.0 / _TINT_REACH), np.float32(255.0))
    whole *= light > _DARK_L  # (nought where dark)
    like = _tint_likeness(frame, light, tint)
    assert like.shape == (301, 457) and like.dtype == np.float32
    assert np.array_equal(like.view(np.uint32), whole.view(np.uint32))
    assert like[5, 5] > 254 and like[-1, -1] == 0


@pytest.mark.parametrize("inside_px", [0.0, 5.0])
def test_a_region_of_the_tint_likeness_not_outlined_is_grown_onto_its_outline(inside_px) -> None:
    # The likeness of a card's paper: bright over the card, grainy, its edge softened; the region
    # a level of it gave lies a few pixels inside the outline, not outlined there, and is grown
    # onto it; one on its outline stays as it is.
    from vision.quads import grow
    from vision.regions import Region
    from vision.second_look import _onto_tint_outline

    rng = np.random.default_rng(5)
    card = card_corners((120, 110), (70, 104), 8).astype(np.float32)
    like = np.zeros((220, 240), np.float32)
    cv2.fillPoly(like, [np.round(card).astype(np.int32)], 240.0)
    like = cv2.GaussianBlur(like, (0, 0), 1.2) + rng.normal(0, 12, like.shape).astype(np.float32)
    inside = grow(card, -inside_px) if inside_px else card
    region = Region(inside, 0.95, 3, 2)

    (onto,) = _onto_tint_outline([region], like, 240.0)

    assert iou(onto.corners_xy, card, like.shape) > 0.93  # (grown 4 pixels at most: within about one of the outline)
    assert not inside_px or iou(inside, card, like.shape) < 0.87
    assert (onto.level, onto.levels) == (3, 2)
    assert (onto is region) == (not inside_px)
    # (as many pixels in a larger quad: its fill falls with the area)
    area = cv2.contourArea(onto.corners_xy) / cv2.contourArea(inside)
    assert onto.fill == pytest.approx(0.95 / area)
    assert (area > 1.1) == bool(inside_px)


def corner_to_corner(far_wh, angle_deg, overlap_px):
    """Two cards of a far row at plus and minus ``angle_deg``, the top corner of one on the other's."""
    a = card_corners((260, 80), far_wh, angle_deg)
    b = card_corners((350, 80), far_wh, -angle_deg)
    meet_a, meet_b = a[np.argmax(a[:, 0] - a[:, 1])], b[np.argmin(b[:, 0] + b[:, 1])]
    return a, b + (meet_a - meet_b) - (overlap_px, 0)


@pytest.mark.parametrize("overlap_px, angle_deg", [(1, 12), (2, 8), (2, 16), (3, 12)])
def test_two_far_cards_touching_corner_to_corner_are_parted(overlap_px, angle_deg) -> None:
    # A tilted view: the far row looks nearly square (no clean card there is a size
    # reference), the near row long; the two far cards make one region at every level.
    far, near = (74, 86), (86, 129)
    pair = corner_to_corner(far, angle_deg, overlap_px)
    others = [card_corners((x, 80), far, 0) for x in (70, 160, 480, 570)] + [card_corners((x, 300), near, 0) for x in (200, 310, 420)]
    image = scene([*pair, *others], table_bgr=(50, 70, 100))
    found = find_cards(image)
    assert min(match(found, [*pair, *others], image.shape[:2])) > 0.9
    assert len(found) == 9



def test_a_sweep_under_the_faces_cast_that_finds_fewer_printed_cards_is_not_kept(monkeypatch) -> None:
    # Where the faces' cast is far from the frame's, the frame is swept again under it; that
    # sweep is kept only where it finds no fewer cards with symbols printed in them. Here the
    # faces' cast is read wrong and the sweep under it finds nothing.
    import vision.find as find

    image = scene([], table_bgr=(120, 120, 120)).astype(np.float32)
    for corners in SEPARATE:
        paint_big_symbols(image, corners)
    image = grained(image, 0)
    first_sweep = find._sweep
    sweeps = []

    def sweep(white, *args):
        sweeps.append(white)
        span, regions, chosen = first_sweep(white, *args)
        return (span, [], []) if len(sweeps) == 2 else (span, regions, chosen)

    monkeypatch.setattr(find, "faces_cast", lambda *args: (35.0, -35.0))
    monkeypatch.setattr(find, "_sweep", sweep)
    found = find_cards(image)
    assert len(sweeps) == 2  # the first sweep, and the one under the faces' cast
    assert len(found) == 3
    assert min(match(found, SEPARATE, image.shape[:2])) > 0.9


def arm_shadow_under_a_warm_lamp(depth, table_bgr, seed=0):
    """Five cards under a warm lamp; the last lies in an arm's shadow, lit only by the room
    (``depth`` of the lamp's light, neutral). Returns the BGR image and the cards' corners."""
    rng = np.random.default_rng(seed)
    cards = [card_corners((x, 140), (80, 120), angle) for x, angle in ((120, 3), (240, -2), (360, 1), (480, 4))]
    cards.append(card_corners((300, 320), (80, 120), 88))
    image = np.empty((420, 640, 3), np.float32)
    image[:] = table_bgr
    image += rng.normal(0, 6, (420, 640, 1))
    for corners in cards:
        paint_big_symbols(image, corners)
    lamp = np.array((0.7, 0.85, 1.0), np.float32)
    shadow = np.zeros((420, 640), np.float32)
    cv2.rectangle(shadow, (200, 230), (420, 420), 1.0, -1)
    shadow = cv2.GaussianBlur(shadow, (31, 31), 0)[..., None]
    return grained(image * (lamp * (1 - shadow) + depth * lamp.mean() * shadow), seed), cards


@pytest.mark.parametrize("depth, table_bgr", [(0.5, (60, 100, 150)), (0.55, (60, 100, 150)), (0.5, (40, 70, 110)),
                                              (0.7, (90, 130, 170))])
def test_a_card_in_an_arms_shadow_under_a_warm_lamp_is_found(depth, table_bgr) -> None:
    image, cards = arm_shadow_under_a_warm_lamp(depth, table_bgr)
    found = find_cards(image)
    assert len(found) == 5
    assert min(match(found, cards, image.shape[:2])) > 0.9


def test_a_chosen_region_that_is_two_touching_cards_of_a_row_is_cut_into_them(monkeypatch) -> None:
    # Two cards of a row laid edge to edge can make one region at the level where it is
    # chosen (no edge seen between them); cut by the size of the row's other cards, both
    # are found instead of one quad that moves onto either card's outline.
    import vision.find as find
    from vision.regions import Region

    row = [card_corners((x, 200), (80, 120), 0) for x in (100, 200, 280, 380, 480)]  # the 2nd and 3rd touch
    image = scene(row, table_bgr=(60, 90, 120))
    first_sweep = find._sweep

    def sweep(white, scale, *args):  # (the pair's region is chosen, as on some photos)
        span, regions, chosen = first_sweep(white, scale, *args)
        pair = order_corners(cv2.boxPoints(cv2.minAreaRect(np.concatenate(row[1:3]) * scale)).astype(np.float32))
        merged = Region(pair, 1.0, chosen[0].level)
        return span, regions + [merged], chosen + [merged]

    monkeypatch.setattr(find, "_sweep", sweep)
    found = find_cards(image)
    assert len(found) == 5
    assert min(match(found, row, image.shape[:2])) > 0.85


def test_a_region_two_cards_large_is_left_whole_among_cards_lying_every_which_way_or_off_its_line() -> None:
    # A card seen lengthwise is about as long for its width as two seen side by side: with
    # no row around it to tell which way the cards lie, a large region is not cut.
    from vision.find import _rows_parted
    from vision.regions import Region

    def region(center, size_wh, angle_deg):
        return Region(order_corners(card_corners(center, size_wh, angle_deg)), 1.0, 3)

    pool = [region((100, 100), (40, 60), 0), region((200, 90), (40, 60), 50), region((300, 120), (40, 60), -35)]
    large = region((200, 200), (60, 82), 90)
    assert _rows_parted([*pool, large]) == [*pool, large]
    in_a_row = [region((x, 300), (40, 60), 0) for x in (100, 140, 260)]
    two = region((200, 300), (80, 60), 0)
    assert len(_rows_parted([*in_a_row, two])) == 5
    # A card turned across the row's, apart from it nearer the camera, looks as large as two
    # of the row's: it is not cut, as no card of the row lies on its line.
    apart = region((200, 420), (80, 60), 0)
    assert _rows_parted([*in_a_row, apart]) == [*in_a_row, apart]



def test_two_touching_cards_of_a_row_seen_nearly_square_beside_a_pool_are_cut_by_the_rows_own_cards(monkeypatch) -> None:
    # A steep view shows a row's cards nearly square; beside the pool, the cards nearest a
    # region two of them wide lie every which way. The row's own cards on its line tell the
    # cards' size (val31 hard dev seed 96111: the second card of a row, touching the third,
    # was lost). Where the quads on its line are pieces, smaller than the cards in view
    # (val27 hard dev seed 90106), a card is not cut in two.
    import vision.find as find
    from vision.find import _rows_parted
    from vision.regions import Region

    def region(center, size_wh, angle_deg):
        return Region(order_corners(card_corners(center, size_wh, angle_deg)), 1.0, 3)

    pool = [region(c, (60, 64), a) for c, a in (((260, 400), 50), ((190, 430), -35), ((330, 420), 20),
                                                 ((120, 180), 70), ((260, 190), -10), ((400, 170), 40),
                                                 ((500, 420), 15), ((520, 300), -60), ((40, 420), 30))]
    row = [region((x, 300), (60, 64), 0) for x in (100, 165, 365)]
    two = region((264, 300), (122, 64), 0)
    parted = _rows_parted([*pool, *row, two])
    assert len(parted) == len(pool) + len(row) + 2
    halves = sorted(r.corners_xy.mean(axis=0)[0] for r in parted[-2:])
    assert halves == pytest.approx([233.5, 294.5], abs=1.0)
    pieces = [region((x, 300), (45, 48), 0) for x in (120, 168, 310)]
    two_pieces = region((238, 300), (92, 48), 0)
    assert _rows_parted([*pool, *pieces, two_pieces]) == [*pool, *pieces, two_pieces]
    monkeypatch.setattr(find, "_ROW_SIZE", 10.0)  # (the size in view is what keeps it whole)
    assert len(_rows_parted([*pool, *pieces, two_pieces])) == len(pool) + len(pieces) + 2

def test_two_quads_moved_onto_one_cards_outline_are_one_card_and_a_card_half_over_another_stays_two() -> None:
    # A piece of a card found apart grows onto the card's outline beside the card's own quad
    # (val28 medium dev seed 95027: one pool card reported twice); a pool card half over
    # another is two cards.
    from vision.find import _without_twins

    card = CardQuad(card_corners((200, 150), (80, 120), 30), 1.0)
    twin = CardQuad(card_corners((201, 151), (79, 121), 30.5), 1.0)
    half_over = CardQuad(card_corners((240, 150), (80, 120), 30), 1.0)
    apart = CardQuad(card_corners((400, 150), (80, 120), 0), 1.0)
    assert _without_twins([card, twin, apart]) == [card, apart]
    assert _without_twins([card, half_over, apart]) == [card, half_over, apart]


def test_a_regions_paper_is_cut_at_its_level_of_its_own_sweeps_steps() -> None:
    # A closer look sweeps in finer steps than the whole frame: a region found at its 11th
    # step of 12 is cut at that step's whiteness (not an index past the whole frame's 8 steps).
    from vision.find import _paper_at_level
    from vision.regions import Region

    white = np.full((200, 200), 100.0, np.float32)
    card = card_corners((100, 100), (60, 90), 0)
    cv2.fillConvexPoly(white, card.astype(np.int32), 215.0)
    paper, _ = _paper_at_level(white, Region(card, 1.0, 11), (100.0, 220.0), 12)  # the 11th step: 210
    assert paper.max() == 255 and cv2.countNonZero(paper) > 0.8 * 60 * 90
    paper, _ = _paper_at_level(white, Region(card, 1.0, 11), (100.0, 232.0), 12)  # now 221: above the paper
    assert cv2.countNonZero(paper) == 0


def _quad(center, size_wh, angle_deg=8.0):
    return CardQuad(order_corners(card_corners(center, size_wh, angle_deg)), 1.0)


def test_a_card_beside_quads_off_their_cards_is_not_dropped_as_a_piece() -> None:
    # Quads round two cards each on both sides of a card measure it small on their planes, and
    # make the frame's median quad large; the card below it shows it is a card (dev hard2 350).
    quads = [_quad((110, 110), (160, 240)), _quad((250, 110), (100, 150)), _quad((390, 110), (160, 240)),
             _quad((250, 300), (100, 150))]
    assert [q.center_xy for q in _without_pieces(quads)] == [q.center_xy for q in quads]


def test_half_a_card_among_whole_cards_is_dropped_as_a_piece() -> None:
    quads = [_quad((110, 110), (100, 150)), _quad((250, 110), (100, 150)), _quad((390, 110), (100, 150)),
             _quad((250, 300), (50, 150))]
    assert [q.center_xy for q in _without_pieces(quads)] == [q.center_xy for q in quads[:3]]


def test_patches_with_no_symbols_do_not_measure_a_card_as_a_piece() -> None:
    # Three patches of pale wood found as quads, larger than a card, lie nearest a card: on
    # their planes it measures small, and they make the median quad large. The quads with
    # symbols printed in them measure it instead (dev hard3 478).
    cards = [_quad((250, 110), (100, 150)), _quad((600, 300), (100, 150)), _quad((750, 300), (100, 150))]
    patches = [_quad((110, 110), (160, 240)), _quad((390, 110), (160, 240)), _quad((250, 330), (160, 240))]
    white = np.full((500, 900), 40.0, np.float32)
    for quad in cards + patches:
        cv2.fillConvexPoly(white, np.round(quad.corners_xy).astype(np.int32), 200.0)
    for quad in cards:  # (a symbol in each card's middle)
        cx, cy = np.round(quad.center_xy).astype(int)
        cv2.rectangle(white, (cx - 18, cy - 25), (cx + 18, cy + 25), 20.0, -1)
    quads = cards + patches
    assert len(_without_pieces(quads)) == len(quads) - 1  # (measured by all: the card is a piece)
    assert [q.center_xy for q in _without_pieces(quads, white, 1.0)] == [q.center_xy for q in quads]


def test_a_chosen_region_of_a_card_lying_over_another_waits_for_the_second_look(monkeypatch) -> None:
    # A card lying over another of the same paper, its outline over the card beneath only a
    # faint step, can make one region with it at the level where it is chosen (as on dev hard
    # 055): poorly filled, too large for a card, and no neck parts it. The first sweep leaves
    # it to the second look, which cuts along fainter edges: the card on top is found and no
    # quad spans the two.
    import vision.find as find
    from vision.regions import Region

    under, over = card_corners((400, 220), (80, 120), 0), card_corners((430, 250), (80, 120), 35)
    image = lay(scene([], table_bgr=(120, 60, 40)).astype(np.float32), THREE_CLEAR).astype(np.float32)
    paint_face(image, under)
    paint_face(image, over)
    cv2.polylines(image, [over.astype(np.int32)], True, (190, 190, 190), 1, cv2.LINE_AA)
    image = grained(image, 0)
    paper = np.zeros(image.shape[:2], np.uint8)
    for corners in (under, over):
        cv2.fillConvexPoly(paper, corners.astype(np.int32), 1)
    first_sweep = find._sweep

    def sweep(white, scale, *args):  # (the pair's region is chosen, as on some photos)
        span, regions, chosen = first_sweep(white, scale, *args)
        quad = cv2.boxPoints(cv2.minAreaRect(np.concatenate([under, over])))
        both = Region(order_corners((quad * scale).astype(np.float32)), float(paper.sum() / cv2.contourArea(quad)), 0, 4)
        assert both.fill < find._PARTED_FILL
        return span, regions + [both], chosen + [both]

    monkeypatch.setattr(find, "_sweep", sweep)
    found = find_cards(image)
    assert min(match(found, THREE_CLEAR, image.shape[:2])) > 0.9
    assert match(found, [over], image.shape[:2])[0] > 0.9
    assert all(q.size_wh[0] < 100 for q in found)  # no quad spans the two


def test_a_row_card_in_a_shadow_no_whiter_than_the_pale_stripes_around_it_is_found() -> None:
    # Dev hard photo 430 (rendered again from its seed): a row card lies in the shade of a
    # hand on a cloth of pale and purple stripes. Its paper runs out into a pale stripe
    # through a gap in its outline, so only the sweep with such necks opened off outlines
    # it; in the shade it is no whiter than the stripes around it, yet its symbols are
    # printed clear of its sides, as no patch of cloth shows them.
    from fixtures.render import render_photo

    image, truth = render_photo(3713241028, "hard")
    card = np.array(truth["cards"][11]["corners"], np.float32)
    found = find_cards(image)
    assert match(found, [card], image.shape[:2])[0] > 0.9


def test_a_row_card_half_in_an_arms_shadow_on_a_pale_dotted_cloth_is_found() -> None:
    # Dev hard photo 702 (rendered again from its seed): a row card lies half in an arm's
    # shadow on a pale dotted cloth. The second look outlines it whole, but only its two lit
    # sides stand out from the cloth; its symbols printed clear of its sides, and its size
    # near the cards found around it, say it is a card.
    from fixtures.render import render_photo

    image, truth = render_photo(1984351024, "hard")
    card = np.array(truth["cards"][9]["corners"], np.float32)
    found = find_cards(image)
    assert match(found, [card], image.shape[:2])[0] > 0.9


def small_cards_scene(short_px: float, *, symbols: bool = True, seed: int = 0) -> tuple[np.ndarray, list[np.ndarray]]:
    """Eight cards in two rows on a dark table, ``short_px`` on their short side, each with
    three dark symbols (or none): a camera too far or of too low a resolution."""
    long_px = 1.45 * short_px
    cards = [card_corners((80 + k * 2.2 * short_px, 90 + row * 2.5 * long_px), (short_px, long_px), 4 * (k - 2))
             for row in range(2) for k in range(4)]
    size_wh = (round(80 + 8.8 * short_px), round(90 + 5 * long_px))
    image = scene([], size_wh=size_wh, table_bgr=(60, 80, 110), seed=seed).astype(np.float32)
    for corners in cards:
        cv2.fillConvexPoly(image, corners.astype(np.int32), (235, 242, 245), lineType=cv2.LINE_AA)
        if symbols:
            centre = corners.mean(axis=0)
            for dy in (-0.3, 0.0, 0.3):
                cv2.circle(image, tuple(np.round(centre + (0, dy * long_px)).astype(int)), max(2, round(0.12 * short_px)),
                           (40, 40, 160), -1, cv2.LINE_AA)
    return np.clip(image, 0, 255).astype(np.uint8), cards


def test_cards_too_small_to_find_are_told_by_their_size() -> None:
    from vision.find import cards_too_small

    image, cards = small_cards_scene(40)
    assert find_cards(image) == []  # (the finder looks for 60 px and more)
    small = cards_too_small(image)
    assert small is not None and small.count == len(cards)
    assert small.short_px == pytest.approx(40, rel=0.15)
    assert cards_too_small(small_cards_scene(90)[0]) is None  # cards large enough are not too small


def test_patches_of_paper_with_no_symbols_are_no_cards_too_small() -> None:
    # (a pale cloth's stripes and squares, cut short by what lies on them, are card-shaped too)
    from vision.find import cards_too_small

    assert cards_too_small(small_cards_scene(40, symbols=False)[0]) is None


def test_pieces_of_cards_the_frames_edge_cuts_are_no_cards_too_small() -> None:
    from vision.find import cards_too_small

    image, cards = small_cards_scene(40)
    assert cards_too_small(image) is not None
    top = round(float(np.mean([c[:, 1].mean() for c in cards[4:]])))  # (through the middle of the lower row)
    assert cards_too_small(image[top:]) is None  # (the upper row's cards are gone, the lower row's cut in half)


def test_a_card_only_another_sweep_found_is_taken_where_its_paper_steps_down_to_the_table_on_three_sides() -> None:
    # The whiteness under a sweep not kept: a dark table, a card of paper (its outline clear all
    # round), and a pale stripe of cloth as white as paper, whose region between two cards steps
    # down to the table on two sides only; all three with dark symbols printed in them.
    from vision.find import _from_sweeps_not_kept
    from vision.regions import Region

    white = np.full((300, 420), 60.0, np.float32)
    white[200:280, :] = 190.0  # the stripe of cloth
    card = card_corners((90, 100), (80, 120), 0)
    cv2.fillConvexPoly(white, card.astype(np.int32), 200.0)
    cloth = np.float32([[200, 200], [300, 200], [300, 280], [200, 280]])
    for corners in (card, cloth):
        for dx in (-18, 18):
            cv2.circle(white, tuple((corners.mean(axis=0) + (dx, 0)).astype(int)), 9, 40.0, -1)
    known = Region(card_corners((320, 100), (80, 120), 0), 1.0, 0)
    regions = [Region(card, 1.0, 0), Region(cloth, 1.0, 0), Region(known.corners_xy + 1.0, 1.0, 0)]
    cv2.fillConvexPoly(white, known.corners_xy.astype(np.int32), 200.0)
    cv2.circle(white, (320, 100), 9, 40.0, -1)

    found = _from_sweeps_not_kept([(white, regions)], [known])

    assert [r.corners_xy.tolist() for r in found] == [card.tolist()]  # the cloth steps down on two sides; the third is known
