"""Interpreter speed against hand-written Python doing the same rule, measured in the same run.

Three ways to run one production rule (count a player's stores per goods type, store what fits, drop each
produced type's price once, never below 1):
  plain      hand-written Python on plain dicts (the floor: no journal, no atomicity)
  by hand    hand-written Python on the same journaled State store, inside the same transaction as the engine
  engine     the rule from produce/produce.yaml, run by Game.act
Prints each per-action time and the ratios engine/by-hand and engine/plain. Also: parse time per effect line
(cold and cached) and the time to load, validate and link the shipped packs.
"""

from __future__ import annotations

import gc
import time
from pathlib import Path

from boardrules.diagnostics import Diagnostics
from boardrules.game import Game
from boardrules.language.pack import check_pack, discover, link, load_modules
from boardrules.language.parser import parse
from boardrules.resources import rules_dir

HERE = Path(__file__).resolve().parent
GOODS = ["cloth", "wine", "grain", "tools", "spice"]
ROUNDS = 2000


def best_of(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def make_game() -> Game:
    diags = Diagnostics()
    modules = load_modules([HERE / "produce" / "produce.yaml"], diags)
    rules = link(modules, ["bench.produce"], diags)
    assert not diags.has_errors, diags.items
    game = Game(rules, 4, seed=1)
    game.setup()
    gc.freeze()
    return game


def engine(game: Game) -> None:
    for _ in range(ROUNDS):
        game.act("p1", "produce")
        game.act("p1", "sell_all")


def by_hand(game: Game) -> None:
    st = game.state

    def produce() -> None:
        mark = st.mark()
        try:
            for g in GOODS:
                made = sum(
                    1
                    for pid in st.zones["street"].contents
                    if st.pieces[pid].props.get("owner") == game.players[0] and st.pieces[pid].props.get("good") == g
                )
                key = f"p1.stock[{g}]"
                room = 2 + st.counters["p1.sheds"] - st.counters[key]
                kept = max(0, min(made, room))
                if kept > 0:
                    st.set_counter(key, st.counters[key] + kept)
                    st.set_counter(f"price[{g}]", max(1, st.counters[f"price[{g}]"] - 1))
        except Exception:
            st.rollback(mark)
            raise

    def sell_all() -> None:
        for g in GOODS:
            st.set_counter(f"p1.stock[{g}]", 0)

    for _ in range(ROUNDS):
        produce()
        sell_all()


def plain() -> None:
    stores = [(p, g) for p in range(4) for g in GOODS for _ in range(2)]
    stock = {g: 0 for g in GOODS}
    price = {g: 5 for g in GOODS}
    sheds = 1
    for _ in range(ROUNDS):
        for g in GOODS:
            made = sum(1 for owner, good in stores if owner == 0 and good == g)
            kept = max(0, min(made, 2 + sheds - stock[g]))
            if kept > 0:
                stock[g] += kept
                price[g] = max(1, price[g] - 1)
        for g in GOODS:
            stock[g] = 0


def main() -> None:
    t_engine = best_of(lambda: engine(make_game()))
    t_hand = best_of(lambda: by_hand(make_game()))
    t_plain = best_of(plain)
    per = 1e6 / (2 * ROUNDS)
    print(f"production rule, {2 * ROUNDS} actions, best of 5:")
    print(f"  engine   {t_engine * per:8.1f} us/action")
    print(f"  by hand  {t_hand * per:8.1f} us/action (same journaled state store)")
    print(f"  plain    {t_plain * per:8.1f} us/action (plain dicts, no journal)")
    print(f"  ratio engine / by hand: {t_engine / t_hand:.2f}x")
    print(f"  ratio engine / plain:   {t_engine / t_plain:.2f}x")

    lines = [f"me.stock[g{i}] += min(made, {i} + me.sheds - me.stock[g])" for i in range(2000)]
    parse.cache_clear()
    t_cold = best_of(lambda: [parse(line, "effect") for line in lines], repeat=1)
    t_warm = best_of(lambda: [parse(line, "effect") for line in lines])
    print(f"parse: {t_cold / len(lines) * 1e6:.0f} us per effect line cold, "
          f"{t_warm / len(lines) * 1e6:.2f} us cached ({t_cold / t_warm:.0f}x)")

    def check_shipped() -> None:
        diags = Diagnostics()
        for pack in discover([rules_dir()], diags):
            check_pack(pack, diags)

    parse.cache_clear()
    t_check = best_of(check_shipped, repeat=3)
    print(f"check shipped packs (load, validate, link each module and all together): {t_check * 1000:.0f} ms")


if __name__ == "__main__":
    main()
