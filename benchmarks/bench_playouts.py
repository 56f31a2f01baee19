"""Random playouts through the public API, and what exact legal moves cost.

For each shipped pack (its game module, stand-ins included) and a neutral test pack, plays random games with
chance="auto" and prints: games per second (median over games, with min-max and IQR), moves per game, and the
cost of listing the legal moves (the dry-run search behind `pending()`) as a ratio of medians against carrying
out the chosen move once, measured in the same run on the same states.

    python benchmarks/bench_playouts.py [--games 10] [--players 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from timing import show

from boardrules.engine.moves import Activity, probe
from boardrules.game import CHANCE, Game
from boardrules.language.pack import load_rules

ROOT = Path(__file__).resolve().parent.parent
PACKS = {"relay (tests)": ROOT / "tests" / "packs" / "relay", "lisboa": ROOT / "rules" / "lisboa",
         "village": ROOT / "rules" / "village"}
OPTIONS = {"relay (tests)": {"prize": 4}}


def measure(name: str, games: int, players: int) -> str:
    rules = load_rules(PACKS[name], None, OPTIONS.get(name))
    search, carry, moves, per_game = [], [], [], []
    for seed in range(1, games + 1):
        rng = random.Random(seed)
        t0 = time.perf_counter()
        game = Game(rules, players, seed, flow=True, chance="auto")
        game.setup()
        count = 0
        while not game.is_terminal():
            pending = game.pending()
            assert pending is not None
            if pending.kind == "move":
                game._pending = None  # list the moves afresh, timed
                s0 = time.perf_counter()
                pending = game.pending()
                search.append(time.perf_counter() - s0)
            assert pending is not None
            option = (rng.choices(pending.options, [o.probability for o in pending.options])[0]
                      if pending.player == CHANCE else rng.choice(pending.options))
            if pending.kind == "move":
                move = game._pending_answers[option.id]
                activity = Activity("move", pending.player, move.action, dict(move.params))
                c0 = time.perf_counter()  # the baseline: one run of the chosen move (to its first decision)
                probe(game._m, activity, False)
                carry.append(time.perf_counter() - c0)
                count += 1
            game.apply(option.id)
        per_game.append(time.perf_counter() - t0)
        moves.append(count)
    ratio = statistics.median(search) / statistics.median(carry)
    rates = [1 / t for t in per_game]
    return (f"{name}: {show(rates, ' games/s')} per game ({players} players, {games} games), "
            f"{statistics.median(moves):.0f} moves/game (median); "
            f"listing the legal moves {statistics.median(search) * 1e3:.2f} ms (median) = {ratio:.1f}x carrying "
            f"out the chosen move once ({statistics.median(carry) * 1e3:.2f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--packs", nargs="*", default=list(PACKS))
    args = parser.parse_args()
    for name in args.packs:
        print(measure(name, args.games, args.players), flush=True)


if __name__ == "__main__":
    main()
