"""What bench_interpreter.py times for each rule: the prepared games and the actions each contender runs on them.

Each entry gives (make a fresh game, runs per timed batch, actions per run, engine, as read, tuned). The game is
made outside the timed part, and each run is taken back with undo outside it too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from boardrules.engine.decisions import ScriptedDecider
from boardrules.game import Game
from boardrules.language.pack import load_rules

from . import cardinal, produce, ship, wedding

BENCH = Path(__file__).resolve().parent.parent
ROUNDS = 20  # produce + sell_all pairs in one run

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

    def by_hand(fn: Callable[[Game, str], None], sell: Callable[[Game, str], None]) -> Callable[[Game], None]:
        def run(g: Game) -> None:
            for _ in range(ROUNDS):
                fn(g, "p1")
                sell(g, "p1")
        return run

    return (make, 25, 2 * ROUNDS, engine, by_hand(produce.produce_as_read, produce.sell_all),
            by_hand(produce.produce_tuned, produce.sell_all_tuned))


def produce_plain(rounds: int) -> float:
    """The floor: the same rule on plain dicts and tuples, no store, no journal, no checks; us per action."""
    goods = produce.GOODS
    stores = [(p, g) for p in range(4) for g in goods for _ in range(2)]
    stock = dict.fromkeys(goods, 0)
    price = dict.fromkeys(goods, 5)
    sheds = 1
    t0 = time.process_time()
    for _ in range(rounds * 5):
        for g in goods:
            made = sum(1 for owner, good in stores if owner == 0 and good == g)
            kept = max(0, min(made, 2 + sheds - stock[g]))
            if kept > 0:
                stock[g] += kept
                price[g] = max(1, price[g] - 1)
        for g in goods:
            stock[g] = 0
    return (time.process_time() - t0) * 1e6 / (rounds * 5 * 2)


def _lisboa(players: int, pieces: list[tuple[str, str, str, int | None, dict[str, Any]]], counters: dict[str, Any],
            cardinal_at: int = 1, shipyard: list[tuple[int, int]] | None = None) -> tuple[Any, dict[str, Any]]:
    """Lisboa (lisboa.state_actions) after setup, with the Clergy tiles' wigs known (1 each but 2 on slot 6) and
    the given pieces, counters, Cardinal and shipyard (ships of (hull, influence)); the rules and the saved game."""
    rules = load_rules(BENCH.parent / "rules" / "lisboa", ["lisboa.state_actions"])
    game = Game(rules, players, seed=1)
    game.setup()
    st = game.state
    for i, pid in enumerate(st.zones["church_tiles"].contents):
        st.pieces[pid].props["wigs"] = 2 if i == 5 else 1
    st.markers["cardinal"].pos = cardinal_at
    if shipyard is not None:
        for pid in list(st.zones["shipyard"].contents):
            st.remove_piece(pid)
        for i, (hull, influence) in enumerate(shipyard):
            st.create_piece(f"yard{i + 1}", "ship", "shipyard", None, {"colour": "red", "hull": hull, "period": 1,
                                                                        "price_modifier": 0, "influence": influence})
    for pid, kind, zone, slot, props in pieces:
        st.create_piece(pid, kind, zone, slot, {k: game._m.from_plain(v) for k, v in props.items()})
    st.counters.update(counters)
    st.journal.clear()
    return rules, game.to_json()


# Three ships built in a row: into an empty top slot (trading a good), replacing a same-size ship (visiting the
# Marquis; its cargo is loaded on the new ship), discarding a card first (trading again).
SHIP_ACTIONS: list[tuple[str, list[Any]]] = [
    ("trade", ["gold", "empty_top_slot", ["type_a", "type_b", "type_c"], 3]),
    ("visit", ["replace_a_ship", "$old", ["type_a", "type_d"]]),
    ("trade", ["type_d", "discard_a_card_first", ["type_a", "type_b", "type_c", "gold"]]),
]


def ship_state() -> tuple[Any, dict[str, Any]]:
    old = {"colour": "red", "hull": 2, "period": 1, "price_modifier": 1, "influence": 0}
    return _lisboa(3, [("card1", "card", "p1.top", 1, {"influence": 2}), ("old", "ship", "p1.top", 2, old),
                       ("cargo1", "cargo", "p1.dock", None, {"good": "type_a", "ship": "$old"}),
                       ("cargo2", "cargo", "p1.dock", None, {"good": "gold", "ship": "$old"})],
                   {**{f"p1.goods[{g}]": 3 for g in ("type_a", "type_b", "type_c", "type_d", "gold")},
                    "p1.visiting[marquis]": 1}, shipyard=[(3, 1), (2, 1), (4, 0)])


def ship_runs() -> tuple[Callable[[Game], None], Callable[[Game], None], Callable[[Game], None]]:
    def engine(g: Game) -> None:
        for way, answers in SHIP_ACTIONS:
            g.act("p1", "build_ship", {"way": way}, ScriptedDecider(answers))

    def by_hand(fn: Callable[..., None]) -> Callable[[Game], None]:
        def run(g: Game) -> None:
            for way, answers in SHIP_ACTIONS:
                fn(g, "p1", way, answers)
        return run

    return engine, by_hand(ship.build_ship_as_read), by_hand(ship.build_ship_tuned)


def ship_workload() -> Entry:
    rules, saved = ship_state()
    return (_restorer(rules, saved), 150, len(SHIP_ACTIONS), *ship_runs())


# Meet the Cardinal (visiting the King, 2 spaces onto the Influence icon, the tile on slot 6), then the end of the
# turn: Church scoring from p1 (discards two tiles), p2 declines, p3 has none; the turn is forgotten.
CARDINAL_ANSWERS = [2, "$clergy_tile_6"]
CHURCH_ANSWERS = ["yes", ["$clergy_tile_6", "$a"], "no"]


def cardinal_state() -> tuple[Any, dict[str, Any]]:
    return _lisboa(3, [("a", "clergy_tile", "p1.clergy", None, {"wigs": 1, "face_up": True}),
                       ("b", "clergy_tile", "p2.clergy", None, {"wigs": 2, "face_up": True}),
                       ("k1", "card", "p1.top", 1, {"influence": 3}), ("k2", "card", "p2.top", 1, {"influence": 5})],
                   {"p1.visiting[king]": 1}, cardinal_at=4)


def cardinal_runs() -> tuple[Callable[[Game], None], Callable[[Game], None], Callable[[Game], None]]:
    def engine(g: Game) -> None:
        g.act("p1", "meet_the_cardinal", {"way": "visit"}, ScriptedDecider(CARDINAL_ANSWERS))
        g.end_turn("p1", ScriptedDecider(CHURCH_ANSWERS))

    def as_read(g: Game) -> None:
        cardinal.meet_the_cardinal_as_read(g, "p1", "visit", CARDINAL_ANSWERS)
        cardinal.end_turn_as_read(g, "p1", CHURCH_ANSWERS)

    def tuned(g: Game) -> None:
        cardinal.meet_the_cardinal_tuned(g, "p1", "visit", CARDINAL_ANSWERS)
        cardinal.end_turn_tuned(g, "p1", CHURCH_ANSWERS)

    return engine, as_read, tuned


def cardinal_workload() -> Entry:
    rules, saved = cardinal_state()
    return (_restorer(rules, saved), 250, 2, *cardinal_runs())


def village_state(players: int, *, ceremony: dict[int, str] | None = None,
                  couples: list[tuple[str, str, str]] = (), alone: list[tuple[str, str]] = (),
                  pinks_in_supply: int = 2, counters: dict[str, int] | None = None,
                  final: int = 0) -> tuple[Any, dict[str, Any]]:
    """Village with Marriage after setup: `ceremony` rank -> who ("p2": a farm villager of p2, "pink": a pink from
    the supply); `couples` (zone, a, b) linked in a building; `alone` (zone, who) unpaired there; the rules and
    the saved game."""
    rules = load_rules(BENCH.parent / "rules" / "village", ["village.marriage"])
    game = Game(rules, players, seed=1)
    game.setup()
    st = game.state

    def take(who: str) -> str:
        return st.zones["pink_supply" if who == "pink" else f"{who}.farm"].contents[0]

    for rank, who in (ceremony or {}).items():
        st.move_piece(take(who), "ceremony", rank)
    for zone, a, b in couples:
        pa, pb = take(a), take(b)
        group = st.new_group()
        for pid in (pa, pb):
            st.move_piece(pid, zone, None)
            st.set_group(pid, group)
    for zone, who in alone:
        st.move_piece(take(who), zone, None)
    for pid in st.zones["pink_supply"].contents[pinks_in_supply:]:
        st.remove_piece(pid)
    st.counters.update(counters or {})
    st.counters["final_mass_held"] = final
    st.journal.clear()
    return rules, game.to_json()


# A four-player wedding: the die puts a pink on rank 3; p1 (rank 1) marries p2 and chooses the bakery; the pink
# marries p3 and chance chooses the shop; p4 goes home and pays an influence for a tool; the old couple in the
# bakery moves to the family houses (two children are born), a widow in the shop goes home; income for all.
WEDDING_ANSWERS = ["bakery", "yes", "green", "tool", "two_bread", "bread_and_grain", "tool_and_influence", "pink",
                   "green"]
WEDDING_ROLLS = [3, "shop"]


def wedding_state() -> tuple[Any, dict[str, Any]]:
    return village_state(4, ceremony={1: "p1", 2: "p2", 5: "p3", 6: "p4"},
                         couples=[("bakery_building", "p2", "p3")], alone=[("shop_building", "p1")],
                         pinks_in_supply=1, counters={"p4.influence[green]": 1, "p4.influence[brown]": 1})


def wedding_runs() -> tuple[Callable[[Game], None], Callable[[Game], None], Callable[[Game], None]]:
    def engine(g: Game) -> None:
        g.act(None, "hold_wedding", None, ScriptedDecider(WEDDING_ANSWERS, WEDDING_ROLLS))

    def as_read(g: Game) -> None:
        wedding.hold_wedding_as_read(g, WEDDING_ANSWERS, WEDDING_ROLLS)

    def tuned(g: Game) -> None:
        wedding.hold_wedding_tuned(g, WEDDING_ANSWERS, WEDDING_ROLLS)

    return engine, as_read, tuned


def wedding_workload() -> Entry:
    rules, saved = wedding_state()
    return (_restorer(rules, saved), 150, 1, *wedding_runs())


NAMES: dict[str, Callable[[], Entry]] = {"produce": produce_workload, "ship": ship_workload,
                                         "cardinal": cardinal_workload, "wedding": wedding_workload}
