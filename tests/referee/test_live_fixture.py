"""``referee live`` on the committed fixture clips (``fixtures/video/``, made by
``python -m fixtures.build_committed --only-video``), against each clip's ground-truth timeline:
from the file, and from the same clip served as an MJPEG stream over HTTP on 127.0.0.1.

``round-medium`` and ``round-hard`` (a dark hand the colour of the wooden table, fingers resting on
a card being laid, glare) are both refereed; ``LIVE_FIXTURE_CLIP=round-hard.mp4`` runs one clip only.
"""

import json
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import cv2
import pytest
import yaml

from fixtures.timeline import check_outcome, check_timeline
from referee.cli import main

CLIPS_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "video"
CLIPS = [os.environ["LIVE_FIXTURE_CLIP"]] if os.environ.get("LIVE_FIXTURE_CLIP") else ["round-medium.mp4", "round-hard.mp4"]

# Frames looked at per second below which the stream test cannot pass: the tracker (vision/track.py)
# referees round-medium (30 fps) right from every 2nd and 3rd frame (15 and 10 fps) but not from
# every 4th (7.5 fps: Olga's 4th card lies bare for only a third of a second before the next hand
# covers it, and is seen in one search), and round-hard (15 fps) only from every frame.
SLOWEST_FPS = 15
# Above it, with frames dropped (a busy machine), the stream must give the round's outcome: every
# card laid to its player, none before it settled, the stop, and the rows and ranking scored. The
# lay times are held to the clip's truth only when (nearly) every frame was looked at, as in the
# file test: Olga's 4th card of round-medium lies bare for a third of a second, and with frames
# dropped at random it may be found whole by one search only in that time; it is then laid when
# it shows again, seconds later (before her next card: a row is laid left to right).
# `python -m referee.cli.live_drops --looked 15 --runs 20` (the clip with its seats, frames
# dropped at random): lay times right in 20 of 20 runs at 15 frames/s, 18 of 20 at 12, the
# outcome in every run. With the calibration this test makes, Olga's 4th card was laid late in
# 2 of 19 such runs at 15 frames/s, 2 of 16 at 16 and 3 of 15 at 18, the outcome right in all.
ON_TIME_SHARE = 0.95  # of the stream's frames looked at for the lay times to be held to the truth


@pytest.fixture(params=CLIPS, ids=lambda name: name.removesuffix(".mp4"))
def clip(request) -> Path:
    return CLIPS_DIR / request.param


def test_the_committed_clip_is_refereed_along_its_timeline(clip, tmp_path, capsys) -> None:
    truth = json.loads(clip.with_suffix(".json").read_text())
    status = main(["live", "--video", str(clip), "--calibration", str(clip.with_suffix(".seats.yaml")), "--events", "-",
                   "--db", str(tmp_path / "g.db"), "--headless"])
    assert status == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    check_timeline(events, truth, lambda event: event["t"])


class ClipServer:
    """The clip as a camera app would serve it: MJPEG over HTTP at the clip's frame rate, from the first request on.

    Every frame is sent, in order, each at its own time (a late frame is sent at once, never
    skipped), so the ``frame`` index of an event read from the stream is the clip's own frame
    index. After the last frame the connection is closed and the stream is gone.
    """

    def __init__(self, path: Path) -> None:
        capture = cv2.VideoCapture(str(path))
        self.fps = capture.get(cv2.CAP_PROP_FPS)
        self.jpegs = []
        while True:
            ok, frame = capture.read()
            if not ok:
                break
            self.jpegs.append(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes())
        capture.release()
        self.stop = threading.Event()
        self.requests = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                server.requests += 1
                if server.requests > 1:  # the clip has been played: the camera is gone
                    self.close_connection = True
                    return
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                start = time.monotonic()
                try:
                    for index, data in enumerate(server.jpegs):
                        if server.stop.is_set():
                            return
                        time.sleep(max(0.0, start + index / server.fps - time.monotonic()))
                        self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(data))
                        self.wfile.write(data + b"\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    return
                self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/stream.mjpg"

    def __enter__(self) -> "ClipServer":
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def test_the_committed_clip_served_as_an_mjpeg_stream_is_refereed_along_its_timeline(clip, tmp_path, capsys) -> None:
    truth = json.loads(clip.with_suffix(".json").read_text())
    # A whole calibration this time: the committed seats, the colour profile learned from the
    # first frame by 'referee calibrate', and the middle pool where the thrown-back cards land.
    made = tmp_path / "made.yaml"
    assert main(["calibrate", "--video", str(clip), "--frame", "0", "--out", str(made), "--headless"]) == 0
    doc = yaml.safe_load(made.read_text())
    doc["seats"] = yaml.safe_load(clip.with_suffix(".seats.yaml").read_text())["seats"]
    if clip.name == "round-medium.mp4":
        doc["pool"] = [[430, 200], [910, 200], [910, 470], [430, 470]]
    calibration = tmp_path / "table.yaml"
    calibration.write_text(yaml.safe_dump(doc, sort_keys=False))
    capsys.readouterr()
    with ClipServer(clip) as server:
        status = main(["live", "--url", server.url, "--calibration", str(calibration), "--events", "-",
                       "--db", str(tmp_path / "g.db"), "--headless", "--give-up", "1"])
    assert status == 0
    captured = capsys.readouterr()
    events = [json.loads(line) for line in captured.out.splitlines()]
    warnings = [e["message"] for e in events if e["type"] == "warning"]
    # Held before the busy-machine skip below: however few frames are looked at, the clip's only
    # warnings are its end (a slow machine is no reason for a false alarm, e.g. "the light has
    # changed" from cards under a resting hand; see LightWatch in referee/cli/live_read.py).
    assert "lost; retrying" in warnings[0] and "giving up" in warnings[-1] and len(warnings) == 2, warnings  # the clip's end
    # A stream is read like a camera: its newest frame, whenever the referee is ready for one.
    # On a busy machine frames are dropped (see ON_TIME_SHARE); looking at nearly every frame, a
    # card is laid on the first frame looked at after it has lain still long enough: allow three
    # of this run's frame times on top.
    rates = [float(r) for r in re.findall(r"([0-9.]+) frames/s", captured.err)]
    looked = f"the referee looked at {rates} frames/s of the {server.fps:g} fps stream"
    slowest = min(rates) if rates else server.fps
    clip_t = lambda event: event["frame"] / server.fps  # noqa: E731
    if slowest < SLOWEST_FPS:
        # Too few frames for the tracker (see SLOWEST_FPS): cards settle late, or not at all
        # below 4 frames/s (a 0.25 s gap between sightings restarts a card's stillness).
        try:
            check_outcome(events, truth, clip_t)
        except AssertionError as error:
            pytest.skip(f"this machine is too busy to referee a live 720p stream: {looked} (below {SLOWEST_FPS}); "
                        f"the log then differs: {str(error).splitlines()[0] if str(error) else 'AssertionError'}")
        return
    on_time = slowest >= ON_TIME_SHARE * server.fps
    try:
        if on_time:
            check_timeline(events, truth, clip_t, slack=3 / slowest)
        else:
            check_outcome(events, truth, clip_t)
    except AssertionError as error:
        raise AssertionError(f"{error}\n({looked}; {'lay times held to the truth' if on_time else 'the outcome checked'})") from None
