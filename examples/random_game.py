"""Play random games of a rule pack to the end through the public API (see docs/embedding.md).

    python examples/random_game.py rules/lisboa --players 3 --games 5 --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys

from boardrules.diagnostics import BoardrulesError
from boardrules.game import Game


def play(pack: str, players: int, seed: int) -> Game:
    game = Game.new(pack, players, seed)
    rng = random.Random(seed)
    while not game.is_terminal():
        pending = game.pending()
        assert pending is not None
        option = pending.sample(rng)  # chance by its probabilities, a player uniformly
        game.apply(option.id)
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pack")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for i in range(args.games):
        seed = args.seed + i
        try:
            game = play(args.pack, args.players, seed)
        except BoardrulesError as err:
            print(f"seed {seed}: {err.diagnostic.code}: {err.diagnostic.message}", file=sys.stderr)
            return 1
        moves = sum(1 for entry in game.log if entry["kind"] == "move")
        places = ", ".join(f"{r['rank']}. {r['player']} {r['keys']}" for r in game.ranking())
        print(f"seed {seed}: {moves} moves; {places}; returns {game.returns()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
