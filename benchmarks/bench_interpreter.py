"""The interpreter against hand-written Python doing the same rules with the same bookkeeping, in the same run.

For each benchmarked rule (benchmarks/baselines/), three contenders run the same actions on the same states:
  engine     the rule from its pack, run by Game.act with scripted answers
  as read    hand-written, line by line as the rule reads
  tuned      hand-written as a careful programmer would (one pass over a zone, keys precomputed, locals)
All three use the engine's journaled State store, one transaction per action, range checks, undo history and log
(baselines/bookkeeping.py); tests/test_baselines_differential.py proves they end in the same states.
Each contender runs the rule's actions many times on one warm game, each run taken back with undo outside the
timing, so every run starts from the same state. Times are CPU time of this process (time.process_time), so
time spent waiting for a core the machine's other work holds is not counted. Each repeat runs the three
interleaved (rotating order); the figures are medians over repeats, with min-max and IQR, and the ratios
engine/as-read and engine/tuned are taken within each repeat. For the production rule the floor figure (plain
dicts, no store, no bookkeeping) is printed too, as extra information.

    python benchmarks/bench_interpreter.py [--repeats 15] [--scale 1.0] [--rules produce ship cardinal wedding]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from baselines import workloads
from timing import interleaved, ratios, show, show_ratio

from boardrules.game import Game


@dataclass
class Workload:
    """One benchmarked rule: a prepared game (not timed), and the actions each contender runs on it."""

    name: str
    make: Callable[[], Game]
    runs: int  # timed runs per batch, each followed by undoing it (not timed), so every run starts alike
    actions: int  # actions in one run
    engine: Callable[[Game], None]
    as_read: Callable[[Game], None]
    tuned: Callable[[Game], None]


def batch(w: Workload, run: Callable[[Game], None], scale: float) -> Callable[[], float]:
    """us per action over `runs` runs on one warm game; each run is taken back with undo outside the timing."""
    def timed() -> float:
        game = w.make()
        runs = max(1, int(w.runs * scale))
        clock = time.process_time  # CPU time of this process: waiting for a busy core is not counted
        total = 0.0
        for _ in range(runs):
            t0 = clock()
            run(game)
            total += clock() - t0
            while game.undo():
                pass
        return total * 1e6 / (runs * w.actions)

    return timed


def measure(w: Workload, repeats: int, scale: float) -> list[str]:
    contenders = {"engine": batch(w, w.engine, scale), "as read": batch(w, w.as_read, scale),
                  "tuned": batch(w, w.tuned, scale)}
    if w.name == "produce":  # the floor, as extra information: plain dicts, no store, no bookkeeping
        contenders["floor"] = lambda: workloads.produce_plain(max(1, int(100 * scale)))
    got = interleaved(contenders, repeats)
    lines = [f"{w.name} ({repeats} interleaved repeats, us/action, median (min-max, IQR)):"]
    for name, values in got.items():
        lines.append(f"  {name:8} {show(values, ' us', 2)}")
    lines.append(f"  engine / as read: {show_ratio(ratios(got['engine'], got['as read']))}")
    lines.append(f"  engine / tuned:   {show_ratio(ratios(got['engine'], got['tuned']))}")
    if "floor" in got:
        lines.append(f"  engine / floor (plain dicts, extra information): "
                     f"{show_ratio(ratios(got['engine'], got['floor']))}")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the work in each timed batch")
    parser.add_argument("--rules", nargs="*", default=list(workloads.NAMES))
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    for name in args.rules:
        w = Workload(name, *workloads.NAMES[name]())
        for line in measure(w, args.repeats, args.scale):
            print(line, flush=True)


if __name__ == "__main__":
    main()
