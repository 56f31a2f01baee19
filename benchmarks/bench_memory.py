"""Memory and collector pauses over a long game: 20,000 decisions through the public API (each step answers the
pending decision: a move, or a choice inside one).

Prints the growth of resident memory per move (the median and range over the ten intervals of 2,000 moves after
the first, so one allocator step does not decide it) and the longest full collection, with the default bounded
undo history and, as the baseline measured in the same run, with unbounded history (undo_depth=None), and the
ratios of the two.

    python benchmarks/bench_memory.py [--moves 20000]
"""

from __future__ import annotations

import argparse
import gc
import itertools
import random
import statistics
import time
from pathlib import Path

from timing import show

from boardrules.game import Game

PACK = Path(__file__).parent / "endless"


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def run(moves: int, undo_depth: int | None) -> tuple[list[tuple[int, int]], float, int]:
    pauses: list[float] = []
    started: list[float] = []

    def timer(phase: str, info: dict) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            started.append(time.perf_counter())
        elif started:
            pauses.append(time.perf_counter() - started.pop())

    gc.callbacks.append(timer)
    try:
        game = Game.new(PACK, 3, seed=1, chance="auto", undo_depth=undo_depth)
        rng = random.Random(1)
        samples = []
        for i in range(1, moves + 1):
            pending = game.pending()
            assert pending is not None
            game.apply(rng.choice(pending.options).id)
            if i % (moves // 10) == 0:
                samples.append((i, rss_kib()))
        journal = len(game.state.journal)
    finally:
        gc.callbacks.remove(timer)
    return samples, max(pauses, default=0.0), journal


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--moves", type=int, default=20_000)
    args = parser.parse_args(argv)
    figures = {}
    for label, depth in (("bounded (undo_depth=64)", 64), ("baseline: unbounded history", None)):
        t0 = time.perf_counter()
        samples, pause, journal = run(args.moves, depth)
        secs = time.perf_counter() - t0
        first, last = samples[0][1], samples[-1][1]
        steps = [(b - a) * 1024 / max(1, j - i) for (i, a), (j, b) in itertools.pairwise(samples)]
        figures[depth] = (statistics.median(steps) if steps else 0.0, pause)
        print(f"{label}: {args.moves} moves in {secs:.1f} s; RSS {first} KiB -> {last} KiB; growth "
              f"{show(steps or [0.0], ' bytes/move', 0)} after the first {samples[0][0]} moves; "
              f"journal {journal} entries; longest full collection {pause * 1000:.1f} ms", flush=True)
    (grow, pause), (base_grow, base_pause) = figures[64], figures[None]
    print(f"bounded / unbounded: growth per move {grow:.0f} / {base_grow:.0f} bytes "
          f"({grow / base_grow:.2f}x)" if base_grow else f"bounded growth {grow:.0f} bytes/move", end="")
    print(f"; longest full collection {pause / base_pause:.2f}x" if base_pause else "")


if __name__ == "__main__":
    main()
