"""Benchmarks on one core: OpenMP and BLAS threads pinned before numpy is loaded.

``python -m vision.bench`` imports the ``vision`` package, and with it numpy, before the
benchmark module's own code runs, so setting ``OMP_NUM_THREADS`` there is too late: numpy's
BLAS has already started its threads (CPU time then exceeds wall time). ``run_on_one_core``
starts the module again with the variables set when they are not.
"""

from __future__ import annotations

import os
import sys

__all__ = ["THREAD_VARIABLES", "run_on_one_core"]

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def run_on_one_core(module: str) -> None:
    """Start ``python -m module`` again, same arguments, if any thread variable is not 1."""
    if all(os.environ.get(name) == "1" for name in THREAD_VARIABLES):
        return
    env = {**os.environ, **{name: "1" for name in THREAD_VARIABLES}}
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, "-m", module, *sys.argv[1:]], env)
