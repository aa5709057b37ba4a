"""The scoreboard page in a real headless Chromium (Debian's, driven by playwright).

Needs ``apt-get install chromium fonts-dejavu-core`` and ``pip install playwright``
(never ``playwright install``: the browser is the system's).
"""

import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from referee.cards import Criteria
from referee.cli.live_synth import script_round, seats_yaml, write_video
from referee.cli.serve import palette
from referee.web import ScoreboardServer
from tests.referee.test_web_http import TOKEN, Referee, history_db

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason=f"no {CHROMIUM} (apt-get install chromium)")
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed (pip install playwright)")
expect = sync_api.expect

FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, timeout=30_000)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.set_default_timeout(10_000)
    page = context.new_page()
    yield page
    context.close()


class LiveRun:
    """``referee live --video ... --realtime --serve 127.0.0.1:0`` in a child process; its URL and token from stderr."""

    def __init__(self, folder: Path, clip: Path | None = None) -> None:
        if clip is None:
            video = write_video(script_round(), folder / "round.avi", fps=15)
            seats = folder / "seats.yaml"
            seats.write_text(seats_yaml())
            pacing = ["--realtime", "--points", "3,9"]
        else:  # a committed fixture clip, read frame by frame as fast as the machine goes
            video, seats, pacing = clip, clip.with_suffix(".seats.yaml"), []
        self.db = folder / "games.db"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "referee", "live", "--video", str(video), "--calibration", str(seats), *pacing,
             "--headless", "--db", str(self.db), "--events", str(folder / "events.jsonl"),
             "--serve", "127.0.0.1:0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self.ready.wait(30):
            self.close()
            raise AssertionError("referee live printed no token: " + "".join(self.lines))
        text = "".join(self.lines)
        self.url = re.search(r"scoreboard at (http://127\.0\.0\.1:\d+/)", text).group(1)
        self.token = re.search(r"the token (\S+)", text).group(1)

    def _read(self) -> None:
        for line in self.process.stderr:
            self.lines.append(line)
            if "token" in line:
                self.ready.set()

    def close(self) -> int:
        try:
            return self.process.wait(timeout=30)
        finally:
            self.process.kill()
            self.process.wait(timeout=10)


def test_the_page_shows_the_standings_of_a_video_and_updates_when_the_round_is_scored(page, tmp_path) -> None:
    run = LiveRun(tmp_path)
    try:
        page.goto(run.url, wait_until="domcontentloaded")  # an MJPEG <img> never fires "load"
        expect(page.locator("#connection")).to_have_text("live")
        expect(page.locator("#title")).to_have_text("Round 1 of 5")
        anna = page.locator('#players li[data-player="Anna"]')
        ben = page.locator('#players li[data-player="Ben"]')
        expect(anna.locator(".name")).to_have_text("Anna")
        expect(anna).to_have_css("border-left-color", _rgb(palette()[0]))  # the overlay's colour for the first seat
        expect(ben).to_have_css("border-left-color", _rgb(palette()[1]))
        expect(anna.locator(".valid")).to_contain_text(re.compile(r"[1-6] cards?"), timeout=15_000)  # cards being laid
        page.wait_for_function("document.getElementById('stream').naturalWidth === 640", timeout=10_000)
        # The seventh card: the round is scored, the ranking and the point cards shown.
        result = page.locator("#result")
        expect(result).to_contain_text("Round 1 scored: 1. Anna 7 valid +9 · 2. Ben 3 valid +3", timeout=20_000)
        expect(page.locator("#title")).to_have_text("Round 1 of 5 - scored")
        expect(anna.locator(".total")).to_have_text("9points")
        expect(ben.locator(".total")).to_have_text("3points")
        expect(page.locator("#players li").first).to_have_attribute("data-player", "Anna")
        expect(ben.locator(".card.error")).to_have_text("4")  # Ben's first error, revealed now
        expect(page.locator("#scores tbody tr").first).to_contain_text("Anna")
        assert run.close() == 0
    finally:
        run.close()


# The shorter of the two committed clips (201 frames at 15 fps against round-medium's 497 at 30):
# the page follows either the same way, and tests/referee/test_live_fixture.py referees both.
CLIP = Path(__file__).resolve().parents[2] / "fixtures" / "video" / "round-hard.mp4"


@pytest.mark.skipif(not CLIP.exists(), reason=f"the committed fixture clip is missing: {CLIP}")
def test_the_page_follows_a_committed_fixture_clip_to_its_scored_round(page, tmp_path) -> None:
    # The standings and the result come by the page's events; its MJPEG <img> of the table is
    # checked above (a synthetic round) and is left unloaded here: drawing, encoding and decoding
    # 720p frames for it took about 12 s of this test's 27 on 2 cores, and a clip read from a file
    # gives the same events whether or not anyone watches.
    page.route("**/stream.mjpg", lambda route: route.abort())
    run = LiveRun(tmp_path, CLIP)
    try:
        page.goto(run.url, wait_until="domcontentloaded")
        expect(page.locator("#title")).to_contain_text("Round 1 of 5")
        mona = page.locator('#players li[data-player="Mona"]')
        expect(mona.locator(".name")).to_have_text("Mona")
        expect(page.locator('#players li[data-player="Nils"] .name')).to_have_text("Nils")
        result = page.locator("#result")
        # The clip is read frame by frame as fast as the machine goes: about 10 s of one core,
        # a minute or more of wall time on a busy machine. The result is checked, not the speed.
        expect(result).to_contain_text("Round 1 scored: 1. Mona 6 valid", timeout=300_000)
        expect(result).to_contain_text("2. Nils 5 valid")
        expect(page.locator("#title")).to_have_text("Round 1 of 5 - scored")
        assert run.close() == 0
    finally:
        run.close()


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[k:k + 2], 16) for k in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


@pytest.fixture
def referee():
    ref = Referee()
    yield ref
    ref.close()


def test_an_action_without_the_token_is_refused_and_with_it_is_done(page, referee) -> None:
    page.goto(referee.url, wait_until="domcontentloaded")
    expect(page.locator("#mode")).to_have_text("hidden: errors at the end")
    page.locator("#referee summary").click()
    page.get_by_role("button", name="Open / hidden").click()
    answer = page.locator("#answer")
    expect(answer).to_contain_text("Refused: acting needs the token")
    expect(answer).to_have_attribute("data-status", "403")
    expect(page.locator("#mode")).to_have_text("hidden: errors at the end")
    page.locator("#token").fill("not the token")
    page.get_by_role("button", name="Next round").click()
    expect(answer).to_have_attribute("data-status", "403")
    assert referee.game.round == 1
    page.locator("#token").fill(TOKEN)
    page.get_by_role("button", name="Open / hidden").click()
    expect(answer).to_have_text("Done.")
    expect(page.locator("#mode")).to_have_text("open: errors shown")


def test_a_token_in_the_address_is_taken_and_hidden(page, referee) -> None:
    page.goto(referee.url + f"?token={TOKEN}", wait_until="domcontentloaded")
    expect(page.locator("#token")).to_have_value(TOKEN)
    assert "token" not in page.url
    page.locator("#referee summary").click()
    page.locator("#points").fill("3, 9")
    page.get_by_role("button", name="Enter points").click()
    expect(page.locator("#answer")).to_have_text("Done.")
    referee.observe({"Anna": [Criteria(1, 1, 1), Criteria(2, 2, 2)], "Ben": [Criteria(1, 1, 3)]})
    page.get_by_role("button", name="Next round").click()
    expect(page.locator("#title")).to_have_text("Round 2 of 5")
    expect(page.locator('#players li[data-player="Anna"] .total')).to_have_text("9points")


@pytest.mark.parametrize("viewport, side_by_side", [
    ({"width": 390, "height": 844}, False),
    ({"width": 1920, "height": 1080}, True),
], ids=["phone portrait", "tv landscape"])
def test_the_layout_fits_a_phone_in_portrait_and_a_tv_in_landscape(browser, referee, viewport, side_by_side) -> None:
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        page.goto(referee.url, wait_until="domcontentloaded")
        expect(page.locator('#players li[data-player="Ben"]')).to_be_visible(timeout=10_000)
        view = page.locator("#view").bounding_box()
        board = page.locator("#board").bounding_box()
        if side_by_side:
            assert board["x"] >= view["x"] + view["width"] - 1 and board["y"] < view["y"] + 50
        else:
            assert board["y"] >= view["y"] + view["height"] - 1 and board["width"] > viewport["width"] * 0.85
        assert board["x"] + board["width"] <= viewport["width"] + 1  # nothing runs off the screen
        name_px = float(page.locator('#players li[data-player="Anna"] .name').evaluate("e => getComputedStyle(e).fontSize")[:-2])
        assert name_px >= (24 if not side_by_side else 36)  # readable across a room
    finally:
        context.close()


def test_the_history_page_lists_past_games(page, tmp_path) -> None:
    db = history_db(tmp_path / "games.db")
    with ScoreboardServer(("127.0.0.1", 0), None, db, None, palette()) as server:
        page.goto(server.url, wait_until="domcontentloaded")
        assert page.url.endswith("/history")
        expect(page.locator("body")).to_have_attribute("data-loaded", "yes")
        game = page.locator("#games li.game").first
        expect(game.locator("h2")).to_contain_text("Game 1")
        expect(game.locator(".meta")).to_contain_text("video table.avi")
        expect(game.locator('tr[data-player="Anna"] .total')).to_have_text("9")
