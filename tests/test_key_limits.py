"""Limits per key: a keyed counter's `max`, `min` and `initial` may be mappings of key to number, `min: null` is
no floor, and overflow applies to each key at its own cap. Run node by node and compiled, which must agree."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import BOTH, compiled, interpreted, link_texts
from hypothesis import given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import BoardrulesError, Diagnostics, Span
from boardrules.engine.decisions import ScriptedDecider
from boardrules.engine.rules import Rules
from boardrules.game import Game
from boardrules.language.options import set_options

PACK = """
module: k
title: K
sets:
  goods: [grain, wood, stone]
counters:
  stock: {per: player, keys: goods, initial: {grain: 2, wood: 1}, max: {grain: 5}, min: {stone: null},
          overflow: %s}
  spare: {per: player, keys: goods, initial: 0}
  debt:  {per: player, min: null, initial: 0}
actions:
  gain:
    title: Gain
    params: {n: int}
    do: ["me.stock[grain] += n", "me.stock[wood] += n"]
  spend:
    title: Spend
    params: {n: int}
    do: ["me.stock[stone] -= n", "me.debt -= n"]
  pay_wood:
    title: Pay wood
    cost: "2 stock[wood]"
    do: []
"""



def game(tmp_path: Path, mode: Callable[[Rules], Rules], overflow: str = "discard") -> Game:
    rules, diags = link_texts(tmp_path, PACK % overflow)
    assert diags.items == [], [(d.code, d.message) for d in diags.items]
    g = Game(mode(rules), 1)
    g.setup()
    return g


def cells(g: Game) -> list[int]:
    return [g.state.counters[f"p1.stock[{k}]"] for k in ("grain", "wood", "stone")]


@BOTH
def test_each_key_has_its_own_cap_floor_and_start(tmp_path: Path, mode: Callable[[Rules], Rules]) -> None:
    g = game(tmp_path, mode)
    assert cells(g) == [2, 1, 0]
    g.act("p1", "gain", {"n": 10})
    assert cells(g) == [5, 11, 0]  # grain stops at its own cap; wood has none
    g.act("p1", "spend", {"n": 3})
    assert cells(g) == [5, 11, -3] and g.state.counters["p1.debt"] == -3  # no floor for stone, nor for debt


@BOTH
def test_a_refusing_cap_per_key_refuses_only_that_key(tmp_path: Path, mode: Callable[[Rules], Rules]) -> None:
    g = game(tmp_path, mode, "refuse")
    before = g.state.dumps()
    with pytest.raises(BoardrulesError) as refused:
        g.act("p1", "gain", {"n": 4})
    assert refused.value.code == "E508" and "at most 5" in refused.value.diagnostic.message
    assert g.state.dumps() == before
    g.act("p1", "gain", {"n": 3})
    assert cells(g) == [5, 4, 0]


@BOTH
def test_a_cap_per_key_carries_each_keys_excess(tmp_path: Path, mode: Callable[[Rules], Rules]) -> None:
    text = (PACK % "carry").replace("overflow: carry}", "overflow: carry, carry_to: spare}")
    rules, diags = link_texts(tmp_path, text)
    assert diags.items == []
    g = Game(mode(rules), 1)
    g.setup()
    g.act("p1", "gain", {"n": 7})
    assert cells(g)[:2] == [5, 8] and g.state.counters["p1.spare[grain]"] == 4
    assert g.state.counters["p1.spare[wood]"] == 0


def test_a_cost_may_take_a_key_below_zero_only_where_it_has_no_floor(tmp_path: Path) -> None:
    g = game(tmp_path, interpreted)
    with pytest.raises(BoardrulesError) as refused:
        g.act("p1", "pay_wood", decider=ScriptedDecider([]))
    assert refused.value.code == "E502"


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=6))
def test_a_discarding_cap_per_key_keeps_each_key_within_it(tmp_path_factory: pytest.TempPathFactory,
                                                            gains: list[int]) -> None:
    g = game(tmp_path_factory.mktemp("k"), compiled)
    for n in gains:
        g.act("p1", "gain", {"n": n})
    assert cells(g)[:2] == [min(5, 2 + sum(gains)), 1 + sum(gains)]


@pytest.mark.parametrize(("counter", "code", "message"), [
    ("{per: player, max: {grain: 5}}", "E415", "'bad' has no keys, so its max is one number"),
    ("{per: player, keys: goods, max: {grian: 5}}", "E416", "'grian' is not a key of 'bad' (grain, wood, stone)"),
    ("{per: player, keys: goods, initial: {wod: 1}}", "E416", "'wod' is not a key of 'bad'"),
    ("{per: player, initial: {grain: 1}}", "E415", "its initial is one number"),
    ("{per: player, keys: goods, max: {grain: 5.5}}", "E201", ""),
])
def test_limits_per_key_that_do_not_fit_are_refused(tmp_path: Path, counter: str, code: str, message: str) -> None:
    text = (PACK % "discard").replace("  debt:  {", f"  bad: {counter}\n  debt:  {{")
    _, diags = link_texts(tmp_path, text)
    errors = [(d.code, d.message) for d in diags.items if d.severity == "error"]
    assert errors and errors[0][0] == code and message in errors[0][1], errors


def test_options_respect_each_keys_limits(tmp_path: Path) -> None:
    rules, _ = link_texts(tmp_path, PACK % "discard")
    diags = Diagnostics()
    span = Span("options", 1, 1)
    set_options(rules, {"stock": ({"grain": 6}, span)}, diags)
    assert [(d.code, d.message) for d in diags.items] == [
        ("E402", "option 'stock.grain' is 6, above the counter's maximum 5")]
    diags = Diagnostics()
    set_options(rules, {"stock": ({"wood": 60, "stone": -2}, span)}, diags)
    assert diags.items == []
    assert rules.counters["stock"].initial == {"grain": 2, "wood": 60, "stone": -2}


TABLES = """
module: t
title: T
players: {min: 1, max: 3}
sets:
  goods: [grain, wood]
values:
  start_grain: {by_players: {1: 4, 2: 3, 3: 2}}
  grain_cap: {by_players: {1: 6, 2: 5, 3: 4}}
counters:
  stock: {per: player, keys: goods, initial: {grain: start_grain, wood: 1}, max: {grain: grain_cap},
          overflow: discard}
actions:
  gain:
    title: Gain
    do: ["me.stock[grain] += 9"]
"""


@BOTH
@pytest.mark.parametrize(("players", "start", "cap"), [(1, 4, 6), (3, 2, 4)])
def test_a_keys_start_and_cap_may_be_player_count_tables(tmp_path: Path, mode: Callable[[Rules], Rules],
                                                         players: int, start: int, cap: int) -> None:
    rules, diags = link_texts(tmp_path, TABLES)
    assert diags.items == []
    g = Game(mode(rules), players)
    g.setup()
    assert (g.state.counters["p1.stock[grain]"], g.state.counters["p1.stock[wood]"]) == (start, 1)
    g.act("p1", "gain")
    assert g.state.counters["p1.stock[grain]"] == cap


@pytest.mark.parametrize(("written", "code", "message"), [
    ("initial: {grain: strat_grain}", "E401", "unknown value 'strat_grain'"),
    ("max: {grain: colour}", "E402", "'colour' is not a number fixed before play"),
])
def test_a_keys_value_must_be_a_fixed_number(tmp_path: Path, written: str, code: str, message: str) -> None:
    text = TABLES.replace("  grain_cap:", "  colour: red\n  grain_cap:").replace(
        "initial: {grain: start_grain, wood: 1}, max: {grain: grain_cap}", written)
    _, diags = link_texts(tmp_path, text)
    errors = [(d.code, d.message) for d in diags.items if d.severity == "error"]
    assert errors and errors[0] == (code, message), errors


def test_simulates_invariant_check_uses_each_keys_limits(tmp_path: Path) -> None:
    from boardrules.tools.invariants import Checker

    g = game(tmp_path, compiled)
    g.act("p1", "gain", {"n": 9})
    g.act("p1", "spend", {"n": 2})
    checker = Checker(g.rules, 1)
    assert checker.check(g) is None  # wood above grain's cap, stone below zero: both allowed for their key
    g.state.counters["p1.stock[grain]"] = 7
    found = checker.check(g)
    assert found is not None and found.message == "counter p1.stock[grain] is 7, outside 0..5"


def test_explain_says_each_keys_start_and_limits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from boardrules.tools.cli import main

    (tmp_path / "k.yaml").write_text(PACK % "discard", encoding="utf-8")
    assert main(["explain", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert ("Each player has stock of each of grain, wood, stone, starting at 2 grain, 1 wood (others 0); a gain "
            "above a limit stops there; grain at most 5; stone without a floor.") in out
    assert "Each player has debt, starting at 0, without a floor." in out
