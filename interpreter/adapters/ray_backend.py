"""`simulate --backend ray`: batches of games as Ray tasks (`pip install 'boardrules[ray]'`).

With an address, the tasks run on that cluster; without one, a local Ray instance is started for the run and
stopped after it. Each task plays a batch of consecutive seeds with `simulate.run_batch`, so the outcomes are
exactly those of the process backend, and the report built from them is the same.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

from ..diagnostics import BoardrulesError


def run_on_ray(run_batch: Callable[[Any, list[int]], list[Any]], setup: Any, work: list[list[int]],
               address: str | None, done: Callable[[int], None]) -> list[Any]:
    """Run `run_batch(setup, batch)` for every batch of `work` as Ray tasks (the caller passes its own runner, so
    this adapter does not import the simulator that imports it)."""
    try:
        import ray
    except ImportError:
        raise BoardrulesError("E509", "the Ray backend needs Ray", None,
                              "pip install 'boardrules[ray]'") from None
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    started = False
    if not ray.is_initialized():
        if address:
            ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
        else:
            ray.init(include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
        started = True
    try:
        task = ray.remote(run_batch)
        waiting = [task.remote(setup, batch) for batch in work]
        results: list[Any] = []
        while waiting:
            ready, waiting = ray.wait(waiting, num_returns=1)
            for ref in ready:
                part = ray.get(ref)
                results += part
                done(len(part))
        return results
    finally:
        if started:
            ray.shutdown()
