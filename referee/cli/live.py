"""``referee live``: referee a game from a camera, a video file or a network stream.

The capture loop is one function (``_referee``): frames from a source, cards read
and tracked, rows arranged, the game advanced, events logged and kept, the overlay
shown or recorded. The event log follows ``live-events.md``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator, Sequence

__all__ = ["add_parsers", "can_open_window"]

_EXAMPLE = """\
examples:
  referee live --video table.mp4 --calibration seats.yaml --headless --record out.mp4 --events -
  referee live --camera 0 --size 1920x1080 --fps 30 --calibration seats.yaml --points 0,1,3,3,7,9
  referee live --url http://192.168.1.20:8080/video --calibration seats.yaml --events game.jsonl
  referee live --resume --camera 0 --calibration seats.yaml

keys in the window: n next round, p enter point cards, m open/hidden mode, q quit
"""


def add_parsers(commands: argparse._SubParsersAction) -> None:
    live = commands.add_parser(
        "live",
        help="referee a game live from a camera, a video file or a network stream",
        description=(
            "Watch the table, follow every card as it is laid, call the round when a seventh card "
            "settles in a row, score it, and keep the game's standings over five rounds. Events go to "
            "--events as JSON Lines (live-events contract); the game is kept in an SQLite database."
        ),
        epilog=_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = live.add_mutually_exclusive_group(required=True)
    source.add_argument("--camera", metavar="N", type=_whole, help="a camera by index (0 is the first)")
    source.add_argument("--video", metavar="FILE", type=Path, help="a video file, read frame by frame")
    source.add_argument("--url", metavar="URL", help="an MJPEG-over-HTTP or RTSP stream (an IP camera, a phone app)")
    live.add_argument("--size", metavar="WxH", type=_size, default=None, help="camera frame size to ask for, e.g. 1920x1080")
    live.add_argument("--fps", metavar="N", type=float, default=None, help="camera frame rate to ask for, e.g. 30")
    live.add_argument("--realtime", action="store_true", help="pace a video file like a camera (frames may then be dropped)")
    live.add_argument("--calibration", metavar="FILE", type=Path, default=None,
                      help="the table's calibration from 'referee calibrate': seats, table top, pool and colour profile "
                      "(a file with only 'seats:' will do; default: two players, 'bottom' and 'top', at the middle of those edges)")
    live.add_argument("--events", metavar="FILE.jsonl", default=None, help="write the event log here ('-' for stdout, and nothing else there)")
    live.add_argument("--points", metavar="LIST", action="append", type=_points, default=None,
                      help="point cards, one per player, e.g. 0,1,3,3,7,9; give it once for every round or up to five times, once per round")
    live.add_argument("--points-file", metavar="FILE.yaml", type=Path, default=None,
                      help="point cards per round from a YAML file: 'rounds: [{point_cards: [0, 3, 9]}, ...]' (a game file will do)")
    live.add_argument("--mode", choices=("hidden", "open"), default="hidden",
                      help="hidden: errors shown only when a round is scored (as in the rulebook); open: each row's first error as it happens (default: hidden)")
    live.add_argument("--headless", action="store_true", help="no window even when a display is there")
    live.add_argument("--record", metavar="OUT", type=Path, default=None, help="write the annotated video here (.mp4, .avi or .webm)")
    live.add_argument("--db", metavar="FILE", type=Path, default=None, help="the games database (default: $XDG_DATA_HOME/table-referee/games.db)")
    live.add_argument("--resume", action="store_true", help="continue the latest unfinished game in the database")
    live.add_argument("--give-up", metavar="SECONDS", type=float, default=60.0,
                      help="stop when a camera or stream stays lost this long (default: 60)")
    from referee.cli.serve import add_serve_option

    add_serve_option(live)
    live.set_defaults(run=_run_live)


def _whole(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
    return int(text)


def _size(text: str) -> tuple[int, int]:
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1920x1080, got {text!r}")
    return int(parts[0]), int(parts[1])


def _points(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.replace(" ", "").split(",") if v != "")
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected point cards such as 0,1,3,3,7,9, got {text!r}") from None
    if not values or min(values) < 0:
        raise argparse.ArgumentTypeError(f"expected point cards such as 0,1,3,3,7,9, got {text!r}")
    return values


class _Refused(ValueError):
    """A bad setting found before refereeing starts (exit status 2)."""


@dataclass
class _Log:
    """Where events go besides the database: the JSON Lines log and, unless it is stdout, results in words."""

    out: IO[str] | None
    words: bool

    def write(self, event: Any) -> None:
        if self.out is not None:
            self.out.write(event.to_json() + "\n")
            self.out.flush()


def can_open_window() -> tuple[bool, str]:
    """Whether an OpenCV window can open here, decided without opening one in this process.

    The GUI wheel aborts the whole process (uncatchably) when it cannot reach a display,
    so the last word is a probe in a child process.
    """
    import cv2

    if hasattr(cv2, "currentUIFramework") and not cv2.currentUIFramework():
        return False, "this OpenCV has no window support (a headless build)"
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False, "no display (neither DISPLAY nor WAYLAND_DISPLAY is set)"
    probe = "import cv2; cv2.namedWindow('probe'); cv2.waitKey(1); cv2.destroyAllWindows()"
    try:
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=20)
    except subprocess.TimeoutExpired:
        return False, "a test window did not open within 20 s"
    if done.returncode != 0:
        return False, f"a test window could not open (exit {done.returncode})"
    return True, ""


def _run_live(args: argparse.Namespace) -> int:
    from referee.cli.live_source import quiet_opencv

    quiet_opencv()
    try:
        return _live(args)
    except _Refused as error:
        print(f"referee live: {error}", file=sys.stderr)
        return 2


def _load_calibration(args: argparse.Namespace, size_wh: tuple[int, int] | None) -> Any:
    """The whole calibration (seats, table top, pool, colour profile), or None without ``--calibration``."""
    from calibration.config import CalibrationError, load_calibration

    if args.calibration is None:
        return None
    try:
        calibration = load_calibration(args.calibration)
        if size_wh is not None:
            calibration.check_fits(size_wh, str(args.calibration))
    except CalibrationError as error:
        raise _Refused(str(error)) from None
    return calibration


def _default_seats(size_wh: tuple[int, int]) -> tuple:
    from calibration.seats import Seat

    w, h = size_wh
    return (Seat("bottom", (w / 2, float(h))), Seat("top", (w / 2, 0.0)))


def _point_cards(args: argparse.Namespace, players: Sequence[str]) -> dict[int, tuple[int, ...]]:
    per_round: dict[int, tuple[int, ...]] = {}
    if args.points_file is not None:
        import yaml

        try:
            doc = yaml.safe_load(args.points_file.read_text(encoding="utf-8"))
            rounds = doc["rounds"]
            for number, entry in enumerate(rounds, start=1):
                if isinstance(entry, dict) and "point_cards" in entry:
                    per_round[number] = tuple(int(v) for v in entry["point_cards"])
        except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError) as error:
            raise _Refused(f"{args.points_file}: expected 'rounds: [{{point_cards: [...]}}, ...]' ({error})") from None
    if args.points:
        if len(args.points) == 1:
            per_round[0] = args.points[0]
        else:
            per_round.update({number: points for number, points in enumerate(args.points, start=1)})
    for number, points in per_round.items():
        if len(points) != len(players):
            where = "--points" if number == 0 or args.points and number <= len(args.points) else str(args.points_file)
            raise _Refused(
                f"{where}: expected {len(players)} point cards, one per player ({', '.join(players)}), got {len(points)}"
                + (f" for round {number}" if number else "")
            )
    return per_round


def _live(args: argparse.Namespace) -> int:
    import cv2

    from referee.cli.live_source import SourceError, camera_frames, file_frames, stream_frames
    from referee.live.game import LiveGame
    from referee.live.store import GameStore, StoreError, default_db_path

    if args.record is not None and args.record.suffix.lower() not in (".mp4", ".avi", ".webm"):
        raise _Refused(f"--record {args.record}: expected a .mp4, .avi or .webm file name")
    if args.calibration is not None:
        _load_calibration(args, None)  # a bad calibration is refused before any source is opened
    stop = threading.Event()
    fps = args.fps or 15.0
    try:
        if args.video is not None:
            fps, frames = file_frames(args.video, args.realtime, stop)
            source = f"video {args.video}"
        elif args.url is not None:
            frames = stream_frames(args.url, args.give_up, stop)
            source = f"url {args.url}"
        else:
            frames = camera_frames(args.camera, args.size, args.fps, args.give_up, stop)
            source = f"camera {args.camera}"
    except SourceError as error:
        raise _Refused(str(error)) from None
    window, why = (False, "--headless") if args.headless else can_open_window()
    if not window and not args.headless:
        print(f"referee live: no window: {why}; refereeing headless", file=sys.stderr)
    db_path = args.db or default_db_path()
    try:
        store = GameStore(db_path)
    except StoreError as error:
        raise _Refused(str(error)) from None
    with store:
        first, frames = _peek(frames)
        if first is None:
            raise _Refused(f"{source}: no frames")
        size_wh = (first.image_bgr.shape[1], first.image_bgr.shape[0])
        calibration = _load_calibration(args, size_wh)
        seats = calibration.seats if calibration is not None else _default_seats(size_wh)
        players = [seat.name for seat in seats]
        point_cards = _point_cards(args, players)
        if args.resume:
            stored = store.latest_unfinished()
            if stored is None:
                raise _Refused(f"{db_path}: no unfinished game to resume")
            if list(stored.players) != players:
                raise _Refused(f"{db_path}: the unfinished game {stored.id} was played by {', '.join(stored.players)}, "
                               f"not {', '.join(players)}: use the same --calibration")
            game_id = stored.id
            game = LiveGame.replay(players, stored.events, point_cards)
            print(f"referee live: resuming game {game_id} in round {game.round} ({len(stored.events)} events so far)", file=sys.stderr)
        else:
            game_id = store.new_game(players, source, {"mode": args.mode})
            game = LiveGame(players, point_cards)
        out: IO[str] | None = None
        if args.events == "-":
            out = sys.stdout
        elif args.events is not None:
            try:
                out = open(args.events, "a" if args.resume else "w", encoding="utf-8")
            except OSError as error:
                raise _Refused(f"--events {args.events}: cannot write ({error.strerror})") from None
        log = _Log(out, words=args.events != "-")
        writer = None
        if args.record is not None:
            codec = {".mp4": "mp4v", ".avi": "MJPG", ".webm": "VP80"}[args.record.suffix.lower()]
            writer = cv2.VideoWriter(str(args.record), cv2.VideoWriter_fourcc(*codec), fps, size_wh)
            if not writer.isOpened():
                raise _Refused(f"--record {args.record}: cannot open a {codec} video writer there")
        web = None
        if args.serve is not None:
            from referee.cli.serve import start_live_web

            web = start_live_web(args.serve, game, db_path, args.mode)
        try:
            _referee(frames, game, seats, size_wh, store, game_id, log, writer, window, args.mode, stop,
                     score_at_end=args.video is not None, web=web, calibration=calibration)
        finally:
            if web is not None:
                web.close()
            stop.set()
            if writer is not None:
                writer.release()
            if out is not None and out is not sys.stdout:
                out.close()
            if window:
                cv2.destroyAllWindows()
    return 0


def _peek(frames: Iterator[Any]) -> tuple[Any, Iterator[Any]]:
    """The first frame, and the frames again from the start (warnings before it are kept)."""
    from referee.cli.live_source import Frame

    held = []
    for item in frames:
        held.append(item)
        if isinstance(item, Frame):
            def again() -> Iterator[Any]:
                yield from held
                yield from frames
            return item, again()
    return None, iter(held)


def _referee(frames: Iterator[Any], game: Any, seats: Sequence[Any], size_wh: tuple[int, int], store: Any, game_id: int,
             log: _Log, writer: Any, window: bool, mode: str, stop: threading.Event, score_at_end: bool,
             web: Any = None, calibration: Any = None) -> None:
    """The capture loop: frames in; events logged, kept and drawn.

    With a calibration, cards are read with its colour profile while the light holds
    (a warning when it changes, and when it comes back) and cards off the table top or
    in the pool are left out of the rows. When a video file ends, a round still open is
    scored as it lies (in a window, its last frame stays in view with the result until the
    window is closed, or q or Esc pressed); a camera or stream that is quit or lost leaves the game open, to
    be resumed (a round stopped, its score waiting, is scored as it lies when it is lost).
    """
    import cv2

    from referee.cli.live_draw import LiveView, draw_live
    from referee.cli.live_read import LightWatch, sight_cards
    from referee.cli.live_source import Frame
    from referee.cli.score import result_lines
    from referee.live.events import Event
    from referee.live.game import SeenCard
    from vision.track import CardTracker, TrackerUpdate, row_layout, rows_of

    tracker = CardTracker()
    areas = calibration.areas if calibration is not None else None
    light = LightWatch(calibration.colours if calibration is not None else None)
    tracked = TrackerUpdate((), ())
    sighting = None
    rows: dict = {}
    last_layout: tuple = ()
    prompt: str | None = None
    notice = ""
    frame = Frame(0, 0.0, None)  # type: ignore[arg-type]
    started = time.monotonic()
    report_at = started + 5.0
    processed = 0

    def emit(events: Sequence[Event]) -> None:
        for event in events:
            store.add_event(game_id, event)
            log.write(event)
            if event.type == "round_scored" and log.words:
                result = game.results[event.data["round"]]
                print(f"== Round {event.data['round']} scored (frame {event.frame}, t={event.t:.2f} s) ==")
                print("\n".join(result_lines(result)), flush=True)
            elif event.type == "game_over" and log.words:
                print("Game over: " + ", ".join(f"{s['place']}. {s['player']} {s['points']}" for s in event.data["standings"]),
                      flush=True)

    if window:
        # Resizable (a table screen may want it full size), starting at the frame's size or what fits a laptop.
        cv2.namedWindow("referee live", cv2.WINDOW_NORMAL | cv2.WINDOW_KEEPRATIO | cv2.WINDOW_GUI_NORMAL)
        fit = min(1.0, 1600 / size_wh[0], 900 / size_wh[1])
        cv2.resizeWindow("referee live", round(size_wh[0] * fit), round(size_wh[1] * fit))
    emit(game.start(0, 0.0))
    failed: set[str] = set()
    enlarged = 1.0  # the frames are read enlarged this many times (said once)
    for item in frames:
        if not isinstance(item, Frame):
            notice = item.message
            print(f"referee live: warning: {item.message}", file=sys.stderr)
            emit([Event("warning", item.t, item.index, {"message": item.message})])
            continue
        frame = item
        try:
            sighting = sight_cards(frame.image_bgr, frame.t, frame.index, sighting, tracked.cards, light.profile, areas)
            tracked = tracker.update(sighting.cards, frame.index, frame.t, frame.image_bgr, sighting.fresh)
            change = light.check(frame.image_bgr, frame.t, tracked.cards, sighting)
        except Exception as error:  # noqa: BLE001 - a frame the vision code fails on must not end the game
            # The game goes on from the cards known so far; the frame is skipped and said once
            # per kind of failure (a bug to report, with the frame that shows it).
            failure = f"{type(error).__name__}: {error}"
            if failure not in failed:
                failed.add(failure)
                notice = f"frame {frame.index} (t={frame.t:.2f} s) could not be read, skipped: {failure}"
                print(f"referee live: warning: {notice}", file=sys.stderr)
                emit([Event("warning", frame.t, frame.index, {"message": notice})])
            continue
        if sighting.enlarged > enlarged:
            enlarged = sighting.enlarged
            notice = (f"the cards show too small to find (the referee needs about 80 px on their short side): frames are read "
                      f"enlarged {enlarged:.1f} times, less surely; move the camera closer or raise its resolution")
            print(f"referee live: warning: {notice}", file=sys.stderr)
            emit([Event("warning", frame.t, frame.index, {"message": notice, "read_enlarged": round(enlarged, 2)})])
        if change is not None:
            notice = change.notice
            print(f"referee live: warning: {change.message}", file=sys.stderr)
            emit([Event("warning", frame.t, frame.index, {"message": change.message, "light_drift": round(change.drift, 1)})])
        for _, (x, y), reason in tracked.unreadable:
            notice = f"a card at ({x:.0f}, {y:.0f}) cannot be read: {reason}"
            print(f"referee live: warning: {notice}", file=sys.stderr)
            emit([Event("warning", frame.t, frame.index, {"message": notice})])
        layout = row_layout(tracked.cards)
        if layout != last_layout:  # rows change only when settled (or waiting) cards do
            rows, last_layout = rows_of(tracked.cards, seats, size_wh), layout
        seen = {player: [SeenCard(card.id, card.criteria, card.lying_since) for card in row] for player, row in rows.items()}
        events = game.observe(seen, frame.index, frame.t, {card.id for card in tracked.cards})
        for event in events:
            if event.type == "warning":  # a card seen in a row only after the stop
                notice = event.data["message"]
                print(f"referee live: warning: {notice}", file=sys.stderr)
        emit(events)
        processed += 1
        if web is not None:  # the scoreboard page: its actions, then the state it shows
            mode = web.step(emit, frame.index, frame.t, mode)
        serving = web is not None and web.wants_frame()
        if writer is not None or window or serving:
            view = LiveView({c.id: c.corners_xy for c in tracked.cards}, mode, prompt, window, notice)
            annotated = draw_live(frame.image_bgr, game, view)
            if serving:
                web.publish_frame(annotated)
            if writer is not None:
                writer.write(annotated)
            if window:
                cv2.imshow("referee live", annotated)
                key = cv2.waitKey(1) & 0xFF
                if cv2.getWindowProperty("referee live", cv2.WND_PROP_VISIBLE) < 1:
                    return  # the window was closed: like q (the game stays open, to be resumed)
                if prompt is not None:
                    prompt, points = _typed(prompt, key)
                    if points is not None:
                        try:
                            emit(game.set_points(points, frame.index, frame.t))
                        except ValueError as error:
                            notice = str(error)
                elif key in (ord("q"), 27):
                    return
                elif key == ord("n"):
                    emit(game.next_round(frame.index, frame.t))
                elif key == ord("p"):
                    prompt = ""
                elif key == ord("m"):
                    mode = "open" if mode == "hidden" else "hidden"
        if time.monotonic() >= report_at:
            rate = processed / (time.monotonic() - started)
            print(f"referee live: frame {frame.index} (t={frame.t:.1f} s), {rate:.1f} frames/s, round {game.round}, "
                  f"{len(tracked.cards)} cards tracked", file=sys.stderr)
            report_at += 5.0
        if stop.is_set():
            return
    if score_at_end or game.stopped_by is not None:  # a round stopped is over, though the stream went before its score
        emit(game.finish(frame.index, frame.t))
    if window and score_at_end and frame.image_bgr is not None:
        # A video file has ended: its last frame and the result stay in view until the window is closed.
        view = LiveView({c.id: c.corners_xy for c in tracked.cards}, mode, None, False,
                        "the video has ended: q or Esc closes the window")  # (the other keys do nothing now)
        cv2.imshow("referee live", draw_live(frame.image_bgr, game, view))
        while not stop.is_set() and cv2.waitKey(100) & 0xFF not in (ord("q"), 27):
            if cv2.getWindowProperty("referee live", cv2.WND_PROP_VISIBLE) < 1:
                break


def _typed(prompt: str, key: int) -> tuple[str | None, tuple[int, ...] | None]:
    """Point cards typed in the window: digits and commas, Enter to take them, Esc to cancel."""
    if key == 27:
        return None, None
    if key in (10, 13):
        try:
            values = tuple(int(v) for v in prompt.split(",") if v.strip())
        except ValueError:
            return None, None
        return None, values or None
    if key in (8, 127):
        return prompt[:-1], None
    if chr(key) in "0123456789, " and key != 255:
        return prompt + chr(key), None
    return prompt, None

