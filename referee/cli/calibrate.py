"""``referee calibrate``: learn a table once (seats, table top, pool, colours) and save it as YAML."""

from __future__ import annotations

import argparse
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

__all__ = ["add_parsers"]

_EXAMPLE = """\
examples:
  referee calibrate table.jpg --out table.yaml --players Anna,Ben,Cleo
  referee calibrate --camera 0 --out table.yaml
  referee calibrate --video evening.mp4 --frame 30 --out table.yaml --headless

in the window: drag a seat to move it; click a seat and type to rename it (Enter takes the
name); Enter or s saves, Esc cancels. Without a display the proposal is written and printed.
"""


def add_parsers(commands: argparse._SubParsersAction) -> None:
    calibrate = commands.add_parser(
        "calibrate",
        help="learn a table once: seats, table top, pool and colour profile, saved as YAML",
        description=(
            "Propose the players' seats from where their rows lie, find the table top and the middle pool, "
            "and learn how this camera sees the card white and the five inks under this light. With a display "
            "a window lets you drag and rename the seats before saving; without one the proposal is saved and "
            "printed. The file serves 'referee check --calibration' and 'referee live --calibration'."
        ),
        epilog=_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = calibrate.add_mutually_exclusive_group(required=True)
    source.add_argument("image", metavar="IMAGE", type=Path, nargs="?", help="a photo of the table with the rows laid out")
    source.add_argument("--camera", metavar="N", type=_whole, help="a camera by index (0 is the first)")
    source.add_argument("--video", metavar="FILE", type=Path, help="a video file")
    source.add_argument("--url", metavar="URL", help="an MJPEG-over-HTTP or RTSP stream")
    calibrate.add_argument("--out", metavar="FILE.yaml", type=Path, required=True, help="where to write the calibration")
    calibrate.add_argument("--players", metavar="NAMES", default=None,
                           help="player names, one per seat, clockwise from the bottom of the image, e.g. Anna,Ben,Cleo: "
                           "as many seats as names (default: one per row, Player 1, Player 2, ...)")
    calibrate.add_argument("--frame", metavar="N", type=_whole, default=None,
                           help="which frame to use: of a video file, its index (default: 0); of a camera or stream, "
                           "how many to let pass first while the exposure settles (default: 15)")
    calibrate.add_argument("--headless", action="store_true", help="no window even when a display is there")
    calibrate.set_defaults(run=_run_calibrate)


def _whole(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
    return int(text)


class _Failed(ValueError):
    """The source gave no frame or the frame shows nothing to calibrate from (exit status 1)."""


class _Refused(ValueError):
    """Bad usage: a source that cannot be opened, names that do not fit (exit status 2)."""


def _run_calibrate(args: argparse.Namespace) -> int:
    from referee.cli.live_source import quiet_opencv

    quiet_opencv()
    try:
        return _calibrate(args)
    except _Refused as error:
        print(f"referee calibrate: {error}", file=sys.stderr)
        return 2
    except _Failed as error:
        print(f"referee calibrate: {error}", file=sys.stderr)
        return 1


def _players(text: str | None) -> list[str] | None:
    if text is None:
        return None
    names = [name.strip() for name in text.split(",")]
    if not names or any(not name for name in names):
        raise _Refused(f"--players: expected names separated by commas such as Anna,Ben,Cleo, got {text!r}")
    return names


def _grab_frame(args: argparse.Namespace) -> tuple[Any, str]:
    """The frame to calibrate from, and a name for its source."""
    from referee.cli.live_source import Frame, SourceError, camera_frames, file_frames, stream_frames
    from vision.images import ImageError, load_image

    if args.image is not None:
        try:
            return load_image(args.image), str(args.image)
        except ImageError as error:
            raise _Failed(str(error)) from None
    stop = threading.Event()
    try:
        if args.video is not None:
            _, frames = file_frames(args.video, False, stop)
            wanted, source = args.frame or 0, f"{args.video}"
        elif args.url is not None:
            frames = stream_frames(args.url, 10.0, stop)
            wanted, source = 15 if args.frame is None else args.frame, args.url
        else:
            frames = camera_frames(args.camera, None, None, 10.0, stop)
            wanted, source = 15 if args.frame is None else args.frame, f"camera {args.camera}"
    except SourceError as error:
        raise _Refused(str(error)) from None
    seen = 0
    try:
        for item in frames:
            if isinstance(item, Frame):
                if seen >= wanted:
                    return item.image_bgr, f"{source}, frame {item.index}"
                seen += 1
    finally:
        stop.set()
        close = getattr(frames, "close", None)
        if close is not None:
            close()
    raise _Failed(f"{source}: ended before frame {wanted}" if seen else f"{source}: no frames")


def _calibrate(args: argparse.Namespace) -> int:
    from calibration.learn import ProposalError, calibrate_frame
    from calibration.write import format_calibration, write_calibration
    from referee.cli.live import can_open_window

    players = _players(args.players)
    if args.out.suffix.lower() not in (".yaml", ".yml"):
        raise _Refused(f"--out {args.out}: expected a .yaml file name")
    if not args.out.parent.is_dir():
        raise _Refused(f"--out {args.out}: no folder {args.out.parent}")
    frame, source = _grab_frame(args)
    try:
        calibration = calibrate_frame(frame, players)
    except ProposalError as error:
        if players is not None and "--players" in str(error):
            raise _Refused(str(error)) from None
        raise _Failed(f"{source}: {error}") from None
    warnings = calibration.colours.warnings() if calibration.colours is not None else ["no symbols read: no colour profile"]
    guesses = [f"{seat.name}: guessed (no row seen there; across the table, where an arm reaches in, "
               "or where the table's edge has no seat): check the seat"
               for seat in calibration.seats if seat.guessed]
    for warning in warnings + guesses:
        print(f"referee calibrate: warning: {warning}", file=sys.stderr)
    window, why = (False, "--headless") if args.headless else can_open_window()
    if window:
        from calibration.editor import edit_seats

        seats = edit_seats(frame, calibration.seats, calibration.table, calibration.pool)
        if seats is None:
            print("referee calibrate: cancelled; nothing written", file=sys.stderr)
            return 1
        calibration = replace(calibration, seats=seats)
    elif not args.headless:
        print(f"referee calibrate: no window ({why}); writing the proposal as it is", file=sys.stderr)
    try:
        write_calibration(args.out, calibration, source, warnings)
    except OSError as error:
        raise _Refused(f"--out {args.out}: cannot write ({error.strerror})") from None
    print(format_calibration(calibration, source, warnings), end="", flush=True)
    names = ", ".join(f"{s.name} at ({s.position_xy[0]:.0f}, {s.position_xy[1]:.0f})" for s in calibration.seats)
    print(f"referee calibrate: wrote {args.out}: {len(calibration.seats)} seats ({names})", file=sys.stderr)
    return 0
