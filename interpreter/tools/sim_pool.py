"""Running `simulate`'s batches on worker processes, so that no fault loses a finished game.

- A worker that dies (killed, out of memory, `os._exit` in a bug) breaks the whole pool. The batches that had
  finished are kept; the others are played again one seed at a time on a single worker, where the seed that kills
  it again is known exactly: it is reported as a lost game (`E117`), and every other seed is played.
- Ctrl-C reaches every process of the terminal's group. Workers ignore it; the main process stops them (SIGTERM,
  then SIGKILL), keeps what finished, and raises `Interrupted` carrying it, so a report of the finished games
  can still be printed and written (exit status 130).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from .fork_pool import fork_pool

LOST = "E117"
STOP_GRACE = 3.0  # seconds a stopped worker has to exit before it is killed
stopped_by_interrupt = False  # set once Ctrl-C stopped a pool: see `leave`


class Interrupted(Exception):
    """The run was interrupted; `outcomes` are the games that finished before it."""

    def __init__(self, outcomes: list[Any]) -> None:
        super().__init__("interrupted")
        self.outcomes = outcomes


def _quiet_worker() -> None:
    # The terminal sends Ctrl-C to the whole process group: only the main process decides what it means.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_pool(run_batch: Callable[[Any, list[int]], list[Any]], lost: Callable[[int, str], Any], setup: Any,
             work: list[list[int]], workers: int, done: Callable[[int], None]) -> list[Any]:
    """Every seed of `work` played by `run_batch` on `workers` processes: an outcome per seed, a lost one
    (made by `lost(seed, why)`) for a seed whose game kills its worker twice."""
    results: list[Any] = []
    try:
        broken = _run(run_batch, setup, work, workers, results, done)
        # Seeds of batches that did not finish, one at a time on one worker: when it dies, the seed it was
        # playing is the first one without a result, and the seeds after it were never started.
        retry = [s for batch in broken for s in batch]
        while retry:
            failed = _run(run_batch, setup, [[s] for s in retry], 1, results, done)
            if not failed:
                break
            first, retry = failed[0][0], [s for batch in failed[1:] for s in batch]
            results.append(lost(first, "its worker process died, twice (killed, out of memory, or a crash)"))
            done(1)
    except KeyboardInterrupt:  # between two rounds
        raise Interrupted(results) from None
    return results


def _run(run_batch: Callable[[Any, list[int]], list[Any]], setup: Any, work: list[list[int]], workers: int,
         results: list[Any], done: Callable[[int], None]) -> list[list[int]]:
    """Play the batches, adding finished outcomes to `results`; the batches lost to a broken pool, in order."""
    pool = fork_pool(workers, _quiet_worker)
    futures: dict[Future[list[Any]], list[int]] = {}
    try:
        futures = {pool.submit(run_batch, setup, batch): batch for batch in work}
        waiting = set(futures)
        broken: list[list[int]] = []
        while waiting:
            finished, waiting = wait(waiting, return_when=FIRST_COMPLETED)
            for fut in finished:
                try:
                    part = fut.result()
                except BrokenProcessPool:
                    broken.append(futures[fut])
                    continue
                results += part
                done(len(part))
        pool.shutdown(wait=True)
        return sorted(broken, key=lambda batch: batch[0])
    except KeyboardInterrupt:
        global stopped_by_interrupt
        _stop(pool)
        stopped_by_interrupt = True
        raise Interrupted(results + _finished(futures)) from None
    except BaseException:
        _stop(pool)
        raise


def _finished(futures: dict[Future[list[Any]], list[int]]) -> list[Any]:
    """Outcomes of batches that completed but were not collected yet when the run was interrupted."""
    out: list[Any] = []
    for fut in futures:
        if fut.done() and not fut.cancelled() and fut.exception() is None:
            out += fut.result()
    return out


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop the pool's workers now (never wait for their batches), and leave none behind."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    calls = getattr(pool, "_call_queue", None)
    if calls is not None:
        # Its feeder thread may be blocked writing to a pipe that no stopped worker will read: the pool's manager
        # thread joins it, and exit joins the manager, so without this the process hangs after its report.
        calls.cancel_join_thread()
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(STOP_GRACE)
        if p.is_alive():
            p.kill()
            p.join(STOP_GRACE)


def leave(status: int) -> int:
    """The command's exit status; after Ctrl-C stopped a pool, exit now with it once the output is flushed.

    By then the report is printed, the files are written and the workers are gone, but the pool's manager thread
    can stay blocked on a pipe of a killed worker, and the interpreter joins that thread before it exits: a run
    hung there after its report in about one try of eight under load. Nothing is left for that join to finish."""
    if not stopped_by_interrupt:
        return status
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
