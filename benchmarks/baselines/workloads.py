"""What bench_interpreter.py times for each rule: the prepared games and the actions each contender runs on them.

Each entry gives (make a fresh game, games per batch, actions per game, engine, as read, tuned). Games are made
outside the timed part; every contender gets equal fresh games.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from boardrules.game import Game
from boardrules.language.pack import load_rules

from . import produce

BENCH = Path(__file__).resolve().parent.parent
ROUNDS = 100  # produce + sell_all pairs on one game

Entry = tuple[Callable[[], Game], int, int, Callable[[Game], None], Callable[[Game], None], Callable[[Game], None]]


def _restorer(rules: Any, saved: dict[str, Any]) -> Callable[[], Game]:
    return lambda: Game.from_json(rules, saved)


def produce_workload() -> Entry:
    rules = load_rules(BENCH / "produce")
    game = Game(rules, 4, seed=1)
    game.setup()
    make = _restorer(rules, game.to_json())

    def engine(g: Game) -> None:
        act = g.act
        for _ in range(ROUNDS):
            act("p1", "produce")
            act("p1", "sell_all")

    def by_hand(fn: Callable[[Game, str], None]) -> Callable[[Game], None]:
        def run(g: Game) -> None:
            sell = produce.sell_all
            for _ in range(ROUNDS):
                fn(g, "p1")
                sell(g, "p1")
        return run

    return make, 5, 2 * ROUNDS, engine, by_hand(produce.produce_as_read), by_hand(produce.produce_tuned)


def produce_plain(rounds: int) -> float:
    """The floor: the same rule on plain dicts and tuples, no store, no journal, no checks; us per action."""
    goods = produce.GOODS
    stores = [(p, g) for p in range(4) for g in goods for _ in range(2)]
    stock = dict.fromkeys(goods, 0)
    price = dict.fromkeys(goods, 5)
    sheds = 1
    t0 = time.perf_counter()
    for _ in range(rounds * 5):
        for g in goods:
            made = sum(1 for owner, good in stores if owner == 0 and good == g)
            kept = max(0, min(made, 2 + sheds - stock[g]))
            if kept > 0:
                stock[g] += kept
                price[g] = max(1, price[g] - 1)
        for g in goods:
            stock[g] = 0
    return (time.perf_counter() - t0) * 1e6 / (rounds * 5 * 2)


NAMES: dict[str, Callable[[], Entry]] = {"produce": produce_workload}
