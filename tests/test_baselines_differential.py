"""The hand-written baselines of benchmarks/baselines/ do exactly what the engine does.

For each benchmarked rule, the engine (`Game.act` with scripted answers) and each hand-written version run on the
same saved states with the same answers; they must agree on legality (both raise, with the same code, or
neither), leave the same state (`State.dumps()`), write the same log, and undo to the same state. A failed action
must leave the state as it was. Without this, a baseline could be fast because it does less.
"""

from __future__ import annotations

import contextlib
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import BoardrulesError
from boardrules.engine.choices import Recorder
from boardrules.engine.decisions import Decision, ScriptedDecider
from boardrules.engine.rules import Rules
from boardrules.engine.state import State
from boardrules.game import Game
from boardrules.language.pack import load_rules

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from baselines import cardinal, produce, ship, wedding, workloads  # noqa: E402
from baselines.lisboa_state_action import GOODS as GOODS_LISBOA  # noqa: E402

Step = Callable[[Game], None]
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                          HealthCheck.function_scoped_fixture])


def outcome(rules: Rules, saved: dict[str, Any], steps: list[Step]) -> list[Any]:
    """Run one implementation's steps on a game restored from `saved`, stopping at the first error: per step its
    error code and the state after it; then the log; then the state after each undo, back to the start."""
    game = Game.from_json(rules, saved)
    seen: list[Any] = []
    for step in steps:
        before = game.state.dumps()
        code = None
        try:
            step(game)
        except BoardrulesError as exc:
            code = exc.code
        after = game.state.dumps()
        if code is not None:
            assert after == before, f"a failed action ({code}) changed the state"
        seen.append((code, after))
        if code is not None:
            break
    seen.append(game.log)
    while game.undo():
        seen.append(game.state.dumps())
    assert game.state.dumps() == State.from_json(saved["state"]).dumps(), "undo does not lead back to the start"
    return seen


def agree(rules: Rules, saved: dict[str, Any], engine: list[Step], **by_hand: list[Step]) -> list[str | None]:
    """Fail on any difference between the engine and each hand-written version; the engine's error codes."""
    expected = outcome(rules, saved, engine)
    for name, steps in by_hand.items():
        got = outcome(rules, saved, steps)
        for i, (want, have) in enumerate(zip(expected, got, strict=False)):
            if isinstance(want, tuple) and isinstance(have, tuple):
                assert have[0] == want[0], f"{name}, step {i + 1}: legality differs: engine {want[0]}, {name} {have[0]}"
                assert have[1] == want[1], f"{name}, step {i + 1}: the state after it differs"
            else:
                assert have == want, f"{name}: the log or what undo restores differs (item {i})"
        assert len(got) == len(expected), f"{name}: a different number of steps ran or were undone"
    return [x[0] for x in expected if isinstance(x, tuple)]


class RandomPolicy:
    """Answers every decision with a random legal option (and chance too, or leaves it to the seeded generator),
    so random states are played with answers that mostly fit; the log then gives the answers to replay."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def decide(self, decision: Decision) -> object:
        options = list(decision.options)
        if decision.kind == "yesno":
            return self.rng.random() < 0.7
        if decision.kind == "subset":
            sizes = [k for k in decision.sizes if k <= len(options)] or [0]
            return self.rng.sample(options, self.rng.choice(sizes))
        return self.rng.choice(options)

    def chance(self, decision: Decision) -> object | None:
        if decision.kind == "order" or self.rng.random() < 0.5:
            return None
        return self.rng.choice(list(decision.options))


def played_answers(rules: Rules, saved: dict[str, Any], act: Callable[[Game, Any], None],
                   seed: int) -> tuple[list[Any], list[Any]]:
    """The answers and chance results a random policy gave when the engine took the action (whatever its end)."""
    game = Game.from_json(rules, saved)
    recorder = Recorder(RandomPolicy(seed))
    with contextlib.suppress(BoardrulesError):
        act(game, recorder)
    return recorder.answers, recorder.chance_results


def prepared(rules: Rules, players: int, edit: Callable[[Game, State], None]) -> dict[str, Any]:
    """A saved free-play game after setup, changed directly by `edit` (not journaled: it is the starting point)."""
    game = Game(rules, players, seed=1)
    game.setup()
    edit(game, game.state)
    game.state.journal.clear()
    return game.to_json()


# ------------------------------------------------------------------------------------------- production rule

@pytest.fixture(scope="module")
def produce_rules() -> Rules:
    return load_rules(ROOT / "benchmarks" / "produce")


def produce_state(rules: Rules, stores: list[tuple[int, str]], counters: dict[str, Any],
                  over: bool = False) -> dict[str, Any]:
    """A produce game whose street holds `stores` (seat, good) and whose counters are set as given."""
    def edit(game: Game, st: State) -> None:
        for pid in list(st.zones["street"].contents):
            st.remove_piece(pid)
        for seat, good in stores:
            st.create_piece(st.new_id("store"), "store", "street", None,
                            {"owner": game._m.players[seat - 1], "good": good})
        st.counters.update(counters)
        st.vars["game_over"] = over

    return prepared(rules, 4, edit)


def check_produce(rules: Rules, saved: dict[str, Any], player: str = "p1") -> str | None:
    return agree(rules, saved, [lambda g: g.act(player, "produce")],
                 as_read=[lambda g: produce.produce_as_read(g, player)],
                 tuned=[lambda g: produce.produce_tuned(g, player)])[0]


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
    assert agree(produce_rules, saved, [lambda g: g.act("p1", "produce"), lambda g: g.act("p1", "sell_all")],
                 as_read=[produce.produce_as_read, produce.sell_all],
                 tuned=[produce.produce_tuned, produce.sell_all_tuned]) == [None, None]


# ------------------------------------------------------------------------------------------- Lisboa

@pytest.fixture(scope="module")
def lisboa_rules() -> Rules:
    return load_rules(ROOT / "rules" / "lisboa", ["lisboa.state_actions"])


def lisboa_state(rules: Rules, players: int = 3, *, cardinal: int = 1, wigs: list[Any] | None = None,
                 pieces: tuple[tuple[str, str, str, int | None, dict[str, Any]], ...] = (),
                 counters: dict[str, Any] | None = None, shipyard: list[tuple[int, Any]] | None = None,
                 church_empty: tuple[int, ...] = (), cardinal_down: int = 0) -> dict[str, Any]:
    """A Lisboa game after setup: the Cardinal on `cardinal`; the tiles on the Church track with `wigs` (slot
    order; missing slots in `church_empty`); extra `pieces` (id, kind, zone, slot, props); the shipyard remade as
    ships of (hull, influence) when given."""
    def edit(game: Game, st: State) -> None:
        st.markers["cardinal"].pos = cardinal
        for i, pid in enumerate(list(st.zones["church_tiles"].contents)):
            if i + 1 in church_empty:
                st.remove_piece(pid)
            elif wigs is not None:
                st.pieces[pid].props["wigs"] = wigs[i]
        if shipyard is not None:
            for pid in list(st.zones["shipyard"].contents):
                st.remove_piece(pid)
            for i, (hull, influence) in enumerate(shipyard):
                st.create_piece(f"yard{i + 1}", "ship", "shipyard", None,
                                {"colour": "red", "hull": hull, "period": 1, "price_modifier": 1,
                                 "influence": influence})
        for pid, kind, zone, slot, props in pieces:
            st.create_piece(pid, kind, zone, slot, {k: game._m.from_plain(v) for k, v in props.items()})
        st.counters.update(counters or {})
        st.counters["cardinal_down"] = cardinal_down

    return prepared(rules, players, edit)


def cardinal_steps(player: str, way: str, answers: list[Any], end: list[Any] | None) -> dict[str, list[Step]]:
    """The engine's and the baselines' steps: meet the Cardinal, then (unless `end` is None) end the turn."""
    def engine_end(g: Game) -> None:
        g.end_turn(player, ScriptedDecider(end or []))

    out: dict[str, list[Step]] = {
        "engine": [lambda g: g.act(player, "meet_the_cardinal", {"way": way}, ScriptedDecider(answers))],
        "as_read": [lambda g: cardinal.meet_the_cardinal_as_read(g, player, way, answers)],
        "tuned": [lambda g: cardinal.meet_the_cardinal_tuned(g, player, way, answers)],
    }
    if end is not None:
        out["engine"].append(engine_end)
        out["as_read"].append(lambda g: cardinal.end_turn_as_read(g, player, end))
        out["tuned"].append(lambda g: cardinal.end_turn_tuned(g, player, end))
    return out


def check_cardinal(rules: Rules, saved: dict[str, Any], player: str, way: str, answers: list[Any],
                   end: list[Any] | None = None) -> list[str | None]:
    steps = cardinal_steps(player, way, answers, end)
    return agree(rules, saved, steps["engine"], as_read=steps["as_read"], tuned=steps["tuned"])


CHURCH_WIGS = [1, 1, 1, 1, 1, 2, 3, 1]
TWO_PLAYERS_CHURCH = (("a", "clergy_tile", "p1.clergy", None, {"wigs": 1, "face_up": True}),
                      ("b", "clergy_tile", "p2.clergy", None, {"wigs": 2, "face_up": True}),
                      ("k1", "card", "p1.top", 1, {"influence": 3}), ("k2", "card", "p2.top", 1, {"influence": 5}))


def test_cardinal_and_church_scoring_as_the_scenario_plays_them(lisboa_rules: Rules) -> None:
    # rules/lisboa/scenarios/church_scoring_two_players.yaml
    saved = lisboa_state(lisboa_rules, 2, cardinal=4, wigs=CHURCH_WIGS, pieces=TWO_PLAYERS_CHURCH,
                         counters={"p1.visiting[king]": 1})
    assert check_cardinal(lisboa_rules, saved, "p1", "visit", [2, "$clergy_tile_6"],
                          ["yes", ["$clergy_tile_6", "$a"], "no"]) == [None, None]
    game = Game.from_json(lisboa_rules, saved)
    cardinal.meet_the_cardinal_tuned(game, "p1", "visit", [2, "$clergy_tile_6"])
    cardinal.end_turn_tuned(game, "p1", ["yes", ["$clergy_tile_6", "$a"], "no"])
    assert [game.state.counters[k] for k in ("p1.wigs", "p1.influence", "p2.wigs", "cardinal_down")] == [3, 3, 0, 0]


@pytest.mark.parametrize("cardinal_at, answers", [(1, [1, "$clergy_tile_3"]), (7, [2, "$clergy_tile_2"]),
                                                  (2, [2, "$clergy_tile_4"]), (5, [1, "$clergy_tile_7"])])
def test_cardinal_icons_trade_and_wrapping(lisboa_rules: Rules, cardinal_at: int, answers: list[Any]) -> None:
    saved = lisboa_state(lisboa_rules, 3, cardinal=cardinal_at, wigs=CHURCH_WIGS, pieces=TWO_PLAYERS_CHURCH,
                         counters={"p2.goods[type_b]": 2, "p2.goods[gold]": 1, "treasury": 4})
    assert check_cardinal(lisboa_rules, saved, "p2", "trade", ["gold", *answers],
                          ["yes", "$b", "no", "yes", "$a"]) == [None, None]


@pytest.mark.parametrize("way, counters, answers, code", [
    ("boat", {}, [1, "$clergy_tile_2"], "E509"),
    ("visit", {}, [1, "$clergy_tile_2"], "E501"),
    ("trade", {}, [1, "$clergy_tile_2"], "E502"),
    ("follow", {}, [1], "E501"),
    ("follow", {"p2.took[cardinal_meeting]": 1}, [1], "E601"),
    ("follow", {"p1.took[cardinal_meeting]": 1, "p2.took[cardinal_meeting]": 1}, [1], "E501"),
    ("visit", {"p1.visiting[king]": 1}, [3], "E505"),
    ("visit", {"p1.visiting[king]": 1}, [1, "$clergy_tile_5"], "E505"),
    ("visit", {"p1.visiting[king]": 1}, [1], "E506"),
    ("trade", {"p1.goods[type_a]": 1, "p1.goods[type_b]": 1}, ["type_c"], "E505"),
])
def test_cardinal_refused(lisboa_rules: Rules, way: str, counters: dict[str, int], answers: list[Any],
                          code: str) -> None:
    saved = lisboa_state(lisboa_rules, 3, wigs=CHURCH_WIGS, counters=counters)
    assert check_cardinal(lisboa_rules, saved, "p1", way, answers) == [code]


def test_cardinal_refused_with_four_clergy_tiles_and_without_a_tile_next_to_him(lisboa_rules: Rules) -> None:
    four = tuple((f"c{i}", "clergy_tile", "p1.clergy", None, {"wigs": 1}) for i in range(4))
    saved = lisboa_state(lisboa_rules, 2, wigs=CHURCH_WIGS, pieces=four, counters={"p1.visiting[king]": 1})
    assert check_cardinal(lisboa_rules, saved, "p1", "visit", [1]) == ["E501"]
    saved = lisboa_state(lisboa_rules, 2, cardinal=1, church_empty=(2, 3), counters={"p1.visiting[king]": 1})
    assert check_cardinal(lisboa_rules, saved, "p1", "visit", [1]) == ["E501"]


def test_church_scoring_reaches_an_unknown(lisboa_rules: Rules) -> None:
    # the shipped pack leaves the tiles' wigs unknown: scoring them stops the game (E601), as the engine says
    saved = lisboa_state(lisboa_rules, 2, cardinal=4, counters={"p1.visiting[king]": 1})
    assert check_cardinal(lisboa_rules, saved, "p1", "visit", [2, "$clergy_tile_6"],
                          ["yes", "$clergy_tile_6"]) == [None, "E601"]


def test_church_scoring_answers_refused(lisboa_rules: Rules) -> None:
    saved = lisboa_state(lisboa_rules, 2, cardinal=4, wigs=CHURCH_WIGS, pieces=TWO_PLAYERS_CHURCH,
                         counters={"p1.visiting[king]": 1})
    for end, code in ((["yes", ["$a", "$a"]], "E505"), (["maybe"], "E505"), (["yes", []], "E505"),
                      (["yes", ["$b"]], "E505"), (["yes"], "E506")):
        assert check_cardinal(lisboa_rules, saved, "p1", "visit", [2, "$clergy_tile_6"], end) == [None, code]


SLOTS = [f"$clergy_tile_{i}" for i in range(1, 9)]


@SETTINGS
@given(players=st.integers(2, 4), cardinal_at=st.integers(1, 8), empty=st.sets(st.integers(1, 8), max_size=5),
       clergy=st.lists(st.integers(0, 4), min_size=4, max_size=4), down=st.integers(0, 1),
       goods=st.lists(st.integers(0, 2), min_size=5, max_size=5), visiting=st.integers(0, 1),
       way=st.sampled_from(["trade", "visit", "visit", "follow"]), good=st.sampled_from(GOODS_LISBOA),
       steps=st.sampled_from([1, 2, 2, 3]), tile=st.sampled_from(SLOTS),
       end=st.lists(st.one_of(st.sampled_from(["yes", "no", "yes"]), st.lists(st.sampled_from(
           ["$k0_0", "$k0_1", "$k1_0", "$k2_0", "$k3_0", "$k1_1"]), min_size=1, max_size=2)), max_size=6))
def test_cardinal_random_states(lisboa_rules: Rules, players: int, cardinal_at: int, empty: set[int],
                                clergy: list[int], down: int, goods: list[int], visiting: int, way: str,
                                good: str, steps: int, tile: str, end: list[Any]) -> None:
    extra = tuple((f"k{s}_{i}", "clergy_tile", f"p{s + 1}.clergy", None, {"wigs": 1 + i})
                  for s in range(players) for i in range(clergy[s]))
    counters = {**{f"p1.goods[{g}]": n for g, n in zip(GOODS_LISBOA, goods, strict=True)},
                "p1.visiting[king]": visiting}
    saved = lisboa_state(lisboa_rules, players, cardinal=cardinal_at, wigs=CHURCH_WIGS, pieces=extra,
                         counters=counters, church_empty=tuple(empty), cardinal_down=down)
    answers = ([good] if way == "trade" else []) + [steps, tile]
    check_cardinal(lisboa_rules, saved, "p1", way, answers, end)


def check_ship(rules: Rules, saved: dict[str, Any], player: str, way: str, answers: list[Any]) -> str | None:
    return agree(rules, saved, [lambda g: g.act(player, "build_ship", {"way": way}, ScriptedDecider(answers))],
                 as_read=[lambda g: ship.build_ship_as_read(g, player, way, answers)],
                 tuned=[lambda g: ship.build_ship_tuned(g, player, way, answers)])[0]


OLD_SHIP = ("old", "ship", "p1.top", 2, {"colour": "red", "hull": 2, "period": 1, "price_modifier": 1, "influence": 0})
CARGO = (("cargo1", "cargo", "p1.dock", None, {"good": "type_a", "ship": "$old"}),
         ("cargo2", "cargo", "p1.dock", None, {"good": "type_b"}))
CARDS = (("card1", "card", "p1.top", 1, {"influence": 2}), ("card2", "card", "p1.top", 4, {}))
RICH = {"p1.goods[type_a]": 1, "p1.goods[type_b]": 2, "p1.goods[gold]": 1, "p1.visiting[marquis]": 1}


@pytest.mark.parametrize("answers", [
    ["replace_a_ship", ["type_a", "gold"]],  # an upgrade of 2 to 3 pays the difference, 1 good: E505
    ["replace_a_ship", "gold"],
    ["empty_top_slot", ["type_a", "type_b", "gold"], 3],
    ["discard_a_card_first", "$card2", ["type_a", "type_b", "gold"]],
    ["discard_a_card_first", "$card1", ["gold", "type_b", "type_a"]],
    ["empty_top_slot", ["type_a", "type_b", "gold"], 2],  # slot 2 is taken: E505
    ["empty_top_slot", ["type_a", "type_a", "gold"]],  # twice the same good: E505
    ["sink_it"],
])
def test_ship_ways_to_build(lisboa_rules: Rules, answers: list[Any]) -> None:
    saved = lisboa_state(lisboa_rules, 2, pieces=(OLD_SHIP, *CARDS, *CARGO), counters=RICH,
                         shipyard=[(3, 1), (4, 0)])
    check_ship(lisboa_rules, saved, "p1", "visit", answers)


def test_ship_upgrade_as_the_scenario_plays_it(lisboa_rules: Rules) -> None:
    # rules/lisboa/scenarios/ship_upgrade_pays_the_difference.yaml, with cargo on the replaced ship
    saved = lisboa_state(lisboa_rules, 2, pieces=(OLD_SHIP, *CARGO), shipyard=[(3, 1)],
                         counters={"p1.goods[type_a]": 1, "p1.visiting[marquis]": 1})
    assert check_ship(lisboa_rules, saved, "p1", "visit", ["replace_a_ship"]) is None
    game = Game.from_json(lisboa_rules, saved)
    ship.build_ship_tuned(game, "p1", "visit", ["replace_a_ship"])
    st_ = game.state
    assert st_.pieces["yard1"].slot == 2 and "old" not in st_.pieces and st_.counters["p1.goods[type_a]"] == 0
    assert st_.pieces["cargo1"].props["ship"].id == "yard1" and st_.counters["treasury"] == 1


THREE = [["type_a", "type_b", "gold"], 1]
RICH4 = {**RICH, "p1.goods[type_c]": 1}  # four types held: paying three asks which


@pytest.mark.parametrize("shipyard, counters, answers, code", [
    (None, RICH, ["gold", 1], "E601"),  # the shipped blue ship's Influence is unknown
    ([], RICH, THREE, "E501"),  # an empty shipyard
    ([(4, 0)], RICH, THREE, "E502"),  # four different goods needed, three held
    ([(3, 1)], {"p1.visiting[marquis]": 1}, THREE, "E502"),
    ([(3, 1)], {**RICH, "p1.visiting[marquis]": 0}, THREE, "E501"),
    ([(3, None)], RICH4, THREE, "E510"),  # a ship without Influence: not a number
    ([(3, 1)], RICH4, [["type_a", "type_b"], 1], "E505"),
    ([(3, 1)], RICH4, [["type_a", "type_b", "gold"]], "E506"),
    ([(3, 1)], RICH4, THREE, None),
])
def test_ship_refused_or_not(lisboa_rules: Rules, shipyard: list[tuple[int, Any]] | None, counters: dict[str, int],
                      answers: list[Any], code: str) -> None:
    saved = lisboa_state(lisboa_rules, 2, shipyard=shipyard, counters=counters)
    assert check_ship(lisboa_rules, saved, "p1", "visit", answers) == code


TOP_SPECS = st.lists(st.tuples(st.sampled_from(["card", "ship"]), st.integers(1, 4), st.integers(0, 3)),
                     max_size=5)


@SETTINGS
@given(top=TOP_SPECS, yard=st.lists(st.tuples(st.integers(1, 4), st.integers(0, 2)), max_size=2),
       goods=st.lists(st.integers(0, 2), min_size=5, max_size=5), way=st.sampled_from(["trade", "visit"]),
       answers=st.lists(st.one_of(st.sampled_from(["empty_top_slot", "discard_a_card_first", "replace_a_ship",
                                                   "type_a", "gold", "$top0", "$top1", "$top2", 1, 2, 5]),
                                  st.lists(st.sampled_from(GOODS_LISBOA), max_size=4, unique=True)), max_size=5))
def test_ship_random_states(lisboa_rules: Rules, top: list[tuple[str, int, int]], yard: list[tuple[int, int]],
                            goods: list[int], way: str, answers: list[Any]) -> None:
    pieces, used = [], set()
    for i, (kind, hull, influence) in enumerate(top):
        slot = 1 + (i * 2) % 5
        if slot in used:
            continue
        used.add(slot)
        props = {"influence": influence} if kind == "card" else {
            "colour": "red", "hull": hull, "period": 1, "price_modifier": 0, "influence": influence}
        pieces.append((f"top{i}", kind, "p1.top", slot, props))
    pieces.append(("cargo0", "cargo", "p1.dock", None, {"good": "gold", "ship": "$top0"}))
    counters = {**{f"p1.goods[{g}]": n for g, n in zip(GOODS_LISBOA, goods, strict=True)},
                "p1.visiting[marquis]": 1}
    saved = lisboa_state(lisboa_rules, 3, pieces=tuple(pieces), counters=counters, shipyard=yard)
    check_ship(lisboa_rules, saved, "p1", way, answers)


@pytest.mark.parametrize("name", list(workloads.NAMES))
def test_the_benchmarked_runs_agree(name: str) -> None:
    """What bench_interpreter.py times is itself checked: the same states, answers, logs and undo."""
    make, _, _, engine, as_read, tuned = workloads.NAMES[name]()
    game = make()
    assert set(agree(game.rules, game.to_json(), [engine], as_read=[as_read], tuned=[tuned])) == {None}


# ------------------------------------------------------------------------------------------- Village wedding

@pytest.fixture(scope="module")
def village_rules() -> Rules:
    return load_rules(ROOT / "rules" / "village", ["village.marriage"])


def fits(ceremony: dict[int, str], couples: list[tuple[str, str, str]], alone: list[tuple[str, str]],
         players: int) -> bool:
    """Whether a Village layout can be made: two pinks, five villagers per player on the farm, no missing player."""
    who = [*ceremony.values(), *(w for _, w in alone), *(x for _, a, b in couples for x in (a, b))]
    return who.count("pink") <= 2 and all(who.count(f"p{s}") <= 5 for s in range(1, 6)) \
        and all(w == "pink" or int(w[1:]) <= players for w in who)


def village_state(rules: Rules, players: int, *, ceremony: dict[int, str] | None = None,
                  couples: list[tuple[str, str, str]] = (), alone: list[tuple[str, str]] = (),
                  pinks_in_supply: int = 2, influence: dict[str, int] | None = None,
                  final: int = 0) -> dict[str, Any]:
    """See workloads.village_state (the same builder the benchmark uses)."""
    return workloads.village_state(players, ceremony=ceremony, couples=couples, alone=alone,
                                   pinks_in_supply=pinks_in_supply, counters=influence, final=final)[1]


def check_wedding(rules: Rules, saved: dict[str, Any], answers: list[Any], rolls: list[Any]) -> str | None:
    return agree(rules, saved, [lambda g: g.act(None, "hold_wedding", None, ScriptedDecider(answers, rolls))],
                 as_read=[lambda g: wedding.hold_wedding_as_read(g, answers, rolls)],
                 tuned=[lambda g: wedding.hold_wedding_tuned(g, answers, rolls)])[0]


@pytest.mark.parametrize("players, ceremony, answers, rolls, code", [
    (3, {1: "p1", 2: "p2"}, ["bakery", "two_bread", "two_bread"], [4], None),
    (3, {1: "p1", 2: "p2"}, ["shop", "tool_and_influence", "green", "pink", "two_tools"], [1], None),
    (3, {2: "p3"}, ["bread_and_grain"], [1, "bakery"], None),  # a pink on rank 1 marries p3's: chance chooses
    (3, {2: "p3"}, ["bread_and_grain"], [], "?"),  # the seeded generator rolls and chooses
    (4, {1: "p1", 2: "p2", 5: "p3", 6: "p4"}, ["shop", "two_tools", "two_tools", "two_bread"], [3, "bakery"], None),
    (3, {1: "p1", 2: "p2"}, ["mill"], [4], "E505"),
    (3, {1: "p1", 2: "p2"}, ["bakery"], [7], "E505"),
    (3, {1: "p1", 2: "p2"}, ["bakery"], [4], "E506"),
    (5, {1: "p1", 2: "p2", 3: "p3", 4: "p4", 5: "p5", 6: "p1"}, ["bakery", "shop"] + ["two_bread"] * 2
     + ["two_tools"] * 2, [], None),
])
def test_wedding(village_rules: Rules, players: int, ceremony: dict[int, str], answers: list[Any],
                 rolls: list[Any], code: str | None) -> None:
    saved = village_state(village_rules, players, ceremony=ceremony)
    got = check_wedding(village_rules, saved, answers, rolls)
    assert got == code or code == "?"


def test_wedding_after_the_final_mass_and_without_a_pink(village_rules: Rules) -> None:
    assert check_wedding(village_rules, village_state(village_rules, 3, final=1), [], [1]) == "E501"
    saved = village_state(village_rules, 3, pinks_in_supply=0, alone=[("family_houses", "pink")])
    assert check_wedding(village_rules, saved, [], [1]) is None
    saved = village_state(village_rules, 3, pinks_in_supply=0)
    assert check_wedding(village_rules, saved, [], [1]) == "E601"


@pytest.mark.slow
@SETTINGS
@given(players=st.integers(2, 5), ceremony=st.dictionaries(st.integers(1, 6), st.sampled_from(
           ["p1", "p2", "p3", "pink"]), max_size=5),
       couples=st.lists(st.tuples(st.sampled_from(["bakery_building", "shop_building", "family_houses"]),
                                  st.sampled_from(["p1", "p2", "pink"]), st.sampled_from(["p1", "p2", "p3"])),
                        max_size=3),
       alone=st.lists(st.tuples(st.sampled_from(["bakery_building", "shop_building", "family_houses"]),
                                st.sampled_from(["p1", "p2", "pink"])), max_size=2),
       pinks=st.integers(0, 2), influence=st.lists(st.integers(0, 2), min_size=4, max_size=4),
       answers=st.lists(st.sampled_from(["bakery", "shop", "yes", "no", "green", "brown", "bread", "tool",
                                         "two_bread", "bread_and_grain", "two_tools", "tool_and_influence"]),
                        max_size=12),
       rolls=st.lists(st.one_of(st.integers(1, 4), st.sampled_from(["bakery", "shop"])), max_size=3))
def test_wedding_random_states(village_rules: Rules, players: int, ceremony: dict[int, str],
                               couples: list[tuple[str, str, str]], alone: list[tuple[str, str]], pinks: int,
                               influence: list[int], answers: list[Any], rolls: list[Any]) -> None:
    assume(fits(ceremony, couples, alone, players))
    wanted_pinks = [*ceremony.values(), *(w for _, w in alone), *(a for _, a, _ in couples)].count("pink")
    counters = {f"p{s}.influence[{k}]": n for s in range(1, players + 1)
                for k, n in zip(wedding.COLOURS, influence, strict=True)}
    saved = village_state(village_rules, players, ceremony=ceremony, couples=couples, alone=alone,
                          pinks_in_supply=max(0, pinks - wanted_pinks) + wanted_pinks, influence=counters)
    check_wedding(village_rules, saved, answers, rolls)


@pytest.mark.slow
@SETTINGS
@given(players=st.integers(2, 5), ceremony=st.dictionaries(st.integers(1, 6), st.sampled_from(
           ["p1", "p2", "p3", "pink"]), max_size=6),
       couples=st.lists(st.tuples(st.sampled_from(["bakery_building", "shop_building", "family_houses"]),
                                  st.sampled_from(["p1", "p2", "pink"]), st.sampled_from(["p1", "p2"])),
                        max_size=3),
       alone=st.lists(st.tuples(st.sampled_from(["bakery_building", "shop_building", "family_houses"]),
                                st.sampled_from(["p1", "p2", "pink"])), max_size=2),
       influence=st.lists(st.integers(0, 2), min_size=4, max_size=4), seed=st.integers(0, 10**6))
def test_wedding_random_states_played_by_a_random_policy(village_rules: Rules, players: int,
                                                         ceremony: dict[int, str],
                                                         couples: list[tuple[str, str, str]],
                                                         alone: list[tuple[str, str]], influence: list[int],
                                                         seed: int) -> None:
    assume(fits(ceremony, couples, alone, players))
    counters = {f"p{s}.influence[{k}]": n for s in range(1, players + 1)
                for k, n in zip(wedding.COLOURS, influence, strict=True)}
    saved = village_state(village_rules, players, ceremony=ceremony, couples=couples, alone=alone,
                          pinks_in_supply=seed % 3, influence=counters)
    answers, rolls = played_answers(village_rules, saved, lambda g, d: g.act(None, "hold_wedding", None, d), seed)
    check_wedding(village_rules, saved, answers, rolls)


@SETTINGS
@given(players=st.integers(2, 4), cardinal_at=st.integers(1, 8), empty=st.sets(st.integers(1, 8), max_size=5),
       clergy=st.lists(st.integers(0, 4), min_size=4, max_size=4), down=st.integers(0, 1),
       goods=st.lists(st.integers(0, 2), min_size=5, max_size=5), way=st.sampled_from(["trade", "visit"]),
       seed=st.integers(0, 10**6))
def test_cardinal_random_states_played_by_a_random_policy(lisboa_rules: Rules, players: int, cardinal_at: int,
                                                          empty: set[int], clergy: list[int], down: int,
                                                          goods: list[int], way: str, seed: int) -> None:
    extra = tuple((f"k{s}_{i}", "clergy_tile", f"p{s + 1}.clergy", None, {"wigs": 1 + i})
                  for s in range(players) for i in range(clergy[s]))
    counters = {**{f"p1.goods[{g}]": n for g, n in zip(GOODS_LISBOA, goods, strict=True)}, "p1.visiting[king]": 1}
    saved = lisboa_state(lisboa_rules, players, cardinal=cardinal_at, wigs=CHURCH_WIGS, pieces=extra,
                         counters=counters, church_empty=tuple(empty), cardinal_down=down)
    answers, _ = played_answers(lisboa_rules, saved, lambda g, d: g.act("p1", "meet_the_cardinal", {"way": way}, d),
                                seed)

    def both(g: Game, d: Any) -> None:
        g.act("p1", "meet_the_cardinal", {"way": way}, ScriptedDecider(answers))
        g.end_turn("p1", d)

    end, _ = played_answers(lisboa_rules, saved, both, seed + 1)
    check_cardinal(lisboa_rules, saved, "p1", way, answers, end)


@SETTINGS
@given(top=TOP_SPECS, yard=st.lists(st.tuples(st.integers(1, 4), st.integers(0, 2)), min_size=1, max_size=2),
       goods=st.lists(st.integers(0, 2), min_size=5, max_size=5), way=st.sampled_from(["trade", "visit"]),
       seed=st.integers(0, 10**6))
def test_ship_random_states_played_by_a_random_policy(lisboa_rules: Rules, top: list[tuple[str, int, int]],
                                                      yard: list[tuple[int, int]], goods: list[int], way: str,
                                                      seed: int) -> None:
    pieces, used = [], set()
    for i, (kind, hull, influence) in enumerate(top):
        slot = 1 + (i * 2) % 5
        if slot in used:
            continue
        used.add(slot)
        props = {"influence": influence} if kind == "card" else {
            "colour": "red", "hull": hull, "period": 1, "price_modifier": 0, "influence": influence}
        pieces.append((f"top{i}", kind, "p1.top", slot, props))
    pieces.append(("cargo0", "cargo", "p1.dock", None, {"good": "gold", "ship": "$top0"}))
    counters = {**{f"p1.goods[{g}]": n + 1 for g, n in zip(GOODS_LISBOA, goods, strict=True)},
                "p1.visiting[marquis]": 1}
    saved = lisboa_state(lisboa_rules, 3, pieces=tuple(pieces), counters=counters, shipyard=yard)
    answers, _ = played_answers(lisboa_rules, saved, lambda g, d: g.act("p1", "build_ship", {"way": way}, d), seed)
    check_ship(lisboa_rules, saved, "p1", way, answers)
