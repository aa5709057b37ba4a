"""The ``referee`` command: the one place that wires rules, vision and I/O together."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

# The maths here is on small arrays: a BLAS or OpenMP thread pool would only compete with the
# camera thread and the frame's own work. Set before numpy loads; the variables override it.
for _threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

from referee import __version__  # noqa: E402
from referee.cli import calibrate, check, history, live, schoten, score, serve  # noqa: E402

__all__ = ["main", "build_parser"]

_COMMANDS = (score, check, schoten, live, history, serve, calibrate)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee",
        description="A camera referee for tabletop card games (Schwarz Rot Gelb Extreme, Scharfe Schoten).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in _COMMANDS:
        module.add_parsers(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``referee`` command; returns the exit status (0 ran, 1 some inputs failed, 2 bad usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except BrokenPipeError:
        # The reader of stdout went away (``referee check ... | head``): stop quietly.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print("referee: interrupted", file=sys.stderr)
        return 130
