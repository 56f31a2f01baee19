"""Mutation scores of the shipped packs, and what coverage recording costs an action.

Mutating the full packs takes minutes, so it lives here and not in the test suite (tests/test_mutate.py checks
a sample of the neutral test pack). Prints, per pack, the mutants killed, survived and unlinkable, the score and
the wall time; then the time of one action with coverage off and on, and their ratio, measured in the same run.

    python benchmarks/mutation_scores.py [--workers K] [--pack village|lisboa] [--min-score 90]

Exits 1 when a pack scores below --min-score.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from boardrules.diagnostics import Diagnostics
from boardrules.game import Game
from boardrules.language.pack import discover, link, load_modules
from boardrules.resources import rules_dir
from boardrules.tools.mutate import default_workers, mutate_pack

HERE = Path(__file__).resolve().parent


def coverage_cost(rounds: int = 2000) -> tuple[float, float]:
    """Seconds per action of the production rule in produce/, with coverage off and on."""
    modules = load_modules([HERE / "produce" / "produce.yaml"], Diagnostics())
    rules = link(modules, list(modules), Diagnostics())

    def run(trace: set | None) -> float:
        best = float("inf")
        for _ in range(5):
            game = Game(rules, 2, 1)
            game.setup()
            game.driver().record_coverage(trace)
            start = time.perf_counter()
            for _ in range(rounds):
                game.act("p1", "produce")
            best = min(best, (time.perf_counter() - start) / rounds)
        return best

    return run(None), run(set())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--pack", action="append", choices=["village", "lisboa"])
    parser.add_argument("--min-score", type=float, default=90.0)
    args = parser.parse_args()
    low = False
    for name in args.pack or ["lisboa", "village"]:
        (pack,) = discover([rules_dir() / name], Diagnostics())
        start = time.perf_counter()
        report = mutate_pack(pack, workers=args.workers, progress=sys.stderr.isatty())
        wall = time.perf_counter() - start
        counts = {k: sum(1 for o in report.outcomes if o.status == k) for k in ("killed", "survived", "unlinkable")}
        score = report.score(counts)
        low |= score < args.min_score
        print(f"{name}: {score:.1f}% killed ({counts['killed']} of {counts['killed'] + counts['survived']}; "
              f"{counts['unlinkable']} cannot link; {len(report.mutants)} mutants) in {wall:.0f} s "
              f"with {args.workers} worker(s)")
    off, on = coverage_cost()
    print(f"one action: {off * 1e6:.1f} us with coverage off, {on * 1e6:.1f} us on ({on / off:.2f}x)")
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main())
