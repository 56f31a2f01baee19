"""The hand-written baselines of benchmarks/baselines/ do exactly what the engine does.

For each benchmarked rule, the engine (`Game.act` with scripted answers) and each hand-written version run on the
same saved states with the same answers; they must agree on legality (both raise, with the same code, or
neither), leave the same state (`State.dumps()`), write the same log, and undo to the same state. A failed action
must leave the state as it was. Without this, a baseline could be fast because it does less.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import BoardrulesError
from boardrules.engine.rules import Rules
from boardrules.engine.state import State
from boardrules.game import Game
from boardrules.language.pack import load_rules

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from baselines import produce  # noqa: E402

Outcome = tuple[str | None, str, list[dict[str, Any]], str]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def outcome(rules: Rules, saved: dict[str, Any], run: Callable[[Game], None]) -> Outcome:
    """Run one implementation on a game restored from `saved`: (error code, state after, log, state after undo)."""
    game = Game.from_json(rules, saved)
    before = game.state.dumps()
    code = None
    try:
        run(game)
    except BoardrulesError as exc:
        code = exc.code
    after = game.state.dumps()
    if code is not None:
        assert after == before, f"a failed action ({code}) changed the state"
    log = game.log
    game.undo()
    return code, after, log, game.state.dumps()


def agree(rules: Rules, saved: dict[str, Any], engine: Callable[[Game], None],
          **by_hand: Callable[[Game], None]) -> str | None:
    """Fail on any difference between the engine and each hand-written version; the engine's error code."""
    expected = outcome(rules, saved, engine)
    for name, run in by_hand.items():
        got = outcome(rules, saved, run)
        assert got[0] == expected[0], f"{name}: legality differs: engine {expected[0]}, {name} {got[0]}"
        assert got[1] == expected[1], f"{name}: the state after the action differs"
        assert got[2] == expected[2], f"{name}: the log differs: {got[2][-1:]} vs {expected[2][-1:]}"
        assert got[3] == expected[3], f"{name}: undo restores a different state"
    return expected[0]


# ---------------------------------------------------------------------------------------------- production rule

@pytest.fixture(scope="module")
def produce_rules() -> Rules:
    return load_rules(ROOT / "benchmarks" / "produce")


def produce_state(rules: Rules, stores: list[tuple[int, str]], counters: dict[str, Any], over: bool = False,
                  players: int = 4) -> dict[str, Any]:
    """A produce game whose street holds `stores` (seat, good) and whose counters are set as given."""
    game = Game(rules, players, seed=1)
    game.setup()
    st = game.state
    for pid in list(st.zones["street"].contents):
        st.remove_piece(pid)
    for seat, good in stores:
        st.create_piece(st.new_id("store"), "store", "street", None, {"owner": game._m.players[seat - 1], "good": good})
    st.counters.update(counters)
    st.vars["game_over"] = over
    st.journal.clear()
    return game.to_json()


def check_produce(rules: Rules, saved: dict[str, Any], player: str = "p1") -> str | None:
    return agree(rules, saved, lambda g: g.act(player, "produce"),
                 as_read=lambda g: produce.produce_as_read(g, player), tuned=lambda g: produce.produce_tuned(g, player))


def test_produce_after_setup(produce_rules: Rules) -> None:
    game = Game(produce_rules, 4, seed=1)
    game.setup()
    assert check_produce(produce_rules, game.to_json()) is None


def test_produce_stores_only_what_fits_and_prices_stop_at_one(produce_rules: Rules) -> None:
    saved = produce_state(produce_rules, [(1, "cloth")] * 5 + [(1, "wine"), (2, "grain")],
                          {"p1.sheds": 0, "p1.stock[cloth]": 1, "price[cloth]": 1, "price[wine]": 3})
    assert check_produce(produce_rules, saved) is None
    game = Game.from_json(produce_rules, saved)
    produce.produce_tuned(game)
    assert game.state.counters["p1.stock[cloth]"] == 2 and game.state.counters["p1.stock[wine]"] == 1
    assert game.state.counters["price[cloth]"] == 1 and game.state.counters["price[wine]"] == 2
    assert game.state.counters["p1.stock[grain]"] == 0 and game.state.counters["price[grain]"] == 5


def test_produce_range_check_fails_below_min(produce_rules: Rules) -> None:
    # stock has min 0: a warehouse already below it stays below after storing, so the write is refused (E508)
    saved = produce_state(produce_rules, [(1, "wine")] * 2, {"p1.stock[wine]": -5})
    assert check_produce(produce_rules, saved) == "E508"


def test_produce_number_bound(produce_rules: Rules) -> None:
    saved = produce_state(produce_rules, [(1, "wine")], {"p1.sheds": 10**18})
    assert check_produce(produce_rules, saved) == "E513"


def test_produce_after_the_game_is_over(produce_rules: Rules) -> None:
    saved = produce_state(produce_rules, [(1, "wine")], {}, over=True)
    assert check_produce(produce_rules, saved) == "E501"


GOODS = list(produce.GOODS)


@SETTINGS
@given(stores=st.lists(st.tuples(st.integers(1, 4), st.sampled_from([*GOODS, "gold"])), max_size=30),
       stock=st.lists(st.integers(-2, 6), min_size=5, max_size=5), sheds=st.integers(-1, 4),
       prices=st.lists(st.integers(0, 6), min_size=5, max_size=5), player=st.sampled_from(["p1", "p2", "p4"]))
def test_produce_random_states(produce_rules: Rules, stores: list[tuple[int, str]], stock: list[int], sheds: int,
                               prices: list[int], player: str) -> None:
    counters = {f"{player}.sheds": sheds, **{f"{player}.stock[{g}]": n for g, n in zip(GOODS, stock, strict=True)},
                **{f"price[{g}]": n for g, n in zip(GOODS, prices, strict=True)}}
    check_produce(produce_rules, produce_state(produce_rules, stores, counters), player)


def test_a_second_action_and_undo_agree(produce_rules: Rules) -> None:
    """Two actions in a row (history and log grow the same way), then two undos."""
    saved = produce_state(produce_rules, [(1, "cloth"), (1, "spice")], {})
    results = []
    for first, second in ((lambda g: g.act("p1", "produce"), lambda g: g.act("p1", "sell_all")),
                          (produce.produce_as_read, produce.sell_all), (produce.produce_tuned, produce.sell_all)):
        game = Game.from_json(produce_rules, saved)
        first(game)
        second(game)
        row = [game.state.dumps(), game.log]
        game.undo()
        row.append(game.state.dumps())
        game.undo()
        row.append(game.state.dumps())
        results.append(row)
    assert results[0] == results[1] == results[2]
    assert results[0][3] == State.from_json(saved["state"]).dumps()

