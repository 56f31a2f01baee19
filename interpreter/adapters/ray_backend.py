"""`simulate --backend ray`: batches of games as Ray tasks (`pip install 'boardrules[ray]'`).

With an address, the tasks run on that cluster; without one, a local Ray instance is started for the run and
stopped after it. Each task plays a batch of consecutive seeds with `simulate.run_batch`, so the outcomes are
exactly those of the process backend, and the report built from them is the same.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from typing import Any

from ..diagnostics import BoardrulesError
from ..internal import describe

NO_RAY = "E119"


def run_on_ray(setup: Any, work: list[list[int]], address: str | None, done: Callable[[int], None]) -> list[Any]:
    try:
        import ray
    except ImportError:
        raise BoardrulesError("E509", "the Ray backend needs Ray", None,
                              "pip install 'boardrules[ray]'") from None
    from ..tools.sim_pool import Interrupted
    from ..tools.simulate import _lost, run_batch

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    started = False
    if not ray.is_initialized():
        try:
            if address:
                ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
            else:
                ray.init(include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
        except Exception as exc:  # Ray raises whatever its start-up met (ConnectionError, RuntimeError, ...)
            where = f"at {address}" if address else "locally"
            raise BoardrulesError(NO_RAY, f"Ray could not start {where}: {describe(exc)}", None,
                                  "check the address and that the cluster is up, or use --backend process"
                                  ) from None
        started = True
    results: list[Any] = []
    waiting: list[Any] = []
    try:
        task = ray.remote(run_batch)
        batch_of = {}
        for batch in work:
            ref = task.remote(setup, batch)
            batch_of[ref] = batch
            waiting.append(ref)
        while waiting:
            ready, waiting = ray.wait(waiting, num_returns=1)
            for ref in ready:
                try:
                    part = ray.get(ref)
                except Exception as exc:  # a worker that died after Ray's own retries: its games are lost
                    part = [_lost(seed, f"its Ray task failed: {describe(exc)}") for seed in batch_of[ref]]
                results += part
                done(len(part))
        return results
    except KeyboardInterrupt:
        for ref in waiting:
            with contextlib.suppress(Exception):  # a task that has just finished cannot be cancelled
                ray.cancel(ref, force=True)
        raise Interrupted(results) from None
    finally:
        if started:
            ray.shutdown()
