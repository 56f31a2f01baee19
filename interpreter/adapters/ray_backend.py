"""`simulate --backend ray`: batches of games as Ray tasks (`pip install 'boardrules[ray]'`).

With an address, the tasks run on that cluster; without one, a local Ray instance is started for the run and
stopped after it. Each task plays a batch of consecutive seeds with `simulate.run_batch`, so the outcomes are
exactly those of the process backend, and the report built from them is the same.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from collections.abc import Callable
from typing import Any

from ..diagnostics import BoardrulesError
from ..internal import describe
from ..tools.sim_pool import Interrupted

NO_RAY = "E119"


PROBE_SECONDS = 5.0


def _answers(address: str) -> None:
    """Refuse (E119) an address where nothing answers: Ray itself retries such an address for many minutes."""
    if address in ("auto", "local"):
        return
    rest = address.removeprefix("ray://")
    host, _, port = rest.rpartition(":")
    if not host or not (port.isascii() and port.isdigit() and len(port) <= 5 and 0 < int(port) < 65536):
        return  # a form Ray knows and we do not: let Ray judge it
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_SECONDS):
            pass
    except OSError as exc:
        raise BoardrulesError(NO_RAY, f"Ray could not start at {address}: nothing answers there "
                              f"({exc.strerror or type(exc).__name__})", None,
                              "check the address and that the cluster is up, or use --backend process") from None


def run_on_ray(run_batch: Callable[[Any, list[int]], list[Any]], lost: Callable[[int, str], Any], setup: Any,
               work: list[list[int]], address: str | None, done: Callable[[int], None]) -> list[Any]:
    """Run `run_batch(setup, batch)` for every batch of `work` as Ray tasks; `lost(seed, why)` stands for a game
    whose task failed. The simulator passes both, so this adapter does not import the module that imports it."""
    if address:
        _answers(address)
    try:
        import ray
    except ImportError:
        raise BoardrulesError("E509", "the Ray backend needs Ray", None,
                              "pip install 'boardrules[ray]'") from None
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
                    part = [lost(seed, f"its Ray task failed: {describe(exc)}") for seed in batch_of[ref]]
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
