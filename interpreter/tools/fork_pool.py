"""Worker processes forked from this one, so that they inherit the loaded rules instead of pickling them.

A forked child gets a copy of the parent's heap, garbage included. Reference cycles that the parent has not
collected yet are collected in the child, and their finalizers run there: a finalizer that calls into a native
library whose threads did not survive the fork (Ray's client, after `simulate --backend ray` in the same
process) crashed the worker with SIGSEGV. The parent collects before it forks, where those finalizers belong.
"""

from __future__ import annotations

import gc
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any


def fork_pool(workers: int, initializer: Callable[..., object] | None = None,
              initargs: tuple[Any, ...] = ()) -> ProcessPoolExecutor:
    """A pool of `workers` processes, forked where the platform can fork. With the fork start method every
    worker is started at the first `submit`: submit right after this call, so no new garbage comes between."""
    gc.collect()
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method),
                               initializer=initializer, initargs=initargs)
