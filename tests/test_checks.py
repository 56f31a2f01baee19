"""Link-time checks a designer relies on, and the language features added for the rule packs."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import build_rules, link_texts, write_modules

from boardrules.diagnostics import BoardrulesError, Diagnostics
from boardrules.engine.decisions import ScriptedDecider
from boardrules.game import Game
from boardrules.language.pack import load_modules
from boardrules.tools.scenario import ScenarioRunner

BASE = """
module: t.base
title: Checks
players: {min: 1, max: 4}
values:
  crew: {value: 2, source: 'rules.txt, "Crew"'}
  shelf_size: {by_players: {1: 2, 2: 2, 3: 3, 4: 3}}
  room: {expr: "1 + me.coins"}
  mystery: {unknown: "not printed"}
sets:
  colours: [red, blue]
counters:
  coins: {per: player, initial: 3}
  gems: {per: player, keys: colours}
pieces:
  worker:
    properties:
      owner: {type: player}
      age: {type: int, default: 1}
zones:
  farm: {per: player}
  shelf: {per: player, capacity: shelf_size}
  bin: {capacity: mystery}
  heap: {}
"""


def codes(diags: Diagnostics) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in diags.sorted() if d.severity == "error"]


def test_a_constant_may_carry_its_source(tmp_path: Path) -> None:
    rules = build_rules(tmp_path, BASE + "actions:\n  a: {do: ['me.coins += crew']}\n")
    g = Game(rules, 2)
    g.act("p1", "a")
    assert g.state.counters["p1.coins"] == 5
    assert rules.values["crew"].source == 'rules.txt, "Crew"'


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("zones:\n  bad: {capacity: room}\n", ("E402", "'room' is a formula, but a size is fixed before play")),
        ("actions:\n  a: {do: ['refill heap from farm']}\n",
         ("E402", "refill fills a zone up to its capacity, and 'heap' has none")),
        ("actions:\n  a: {do: ['let n = count(me.coins)']}\n",
         ("E402", "argument 1 of 'count' should be a list or a zone, but it is a number")),
        ("actions:\n  a: {do: ['create worker in me.farm with age = red']}\n",
         ("E402", "property 'age' is int, but the value is symbol")),
        ("actions:\n  a: {do: ['me.coins = p0.seat']}\n", ("E401", "unknown name 'p0'")),
    ],
)
def test_link_time_refusals(tmp_path: Path, extra: str, expected: tuple[str, str]) -> None:
    # A zone joins BASE's zones (a second `zones:` key would be a duplicate key); anything else is appended.
    text = BASE.replace("zones:\n", extra, 1) if extra.startswith("zones:") else BASE + extra
    _, diags = link_texts(tmp_path, text)
    assert expected in codes(diags)


def test_a_wrong_default_type_is_reported(tmp_path: Path) -> None:
    _, diags = link_texts(tmp_path, BASE.replace("default: 1", 'default: "old"'))
    assert ("E402", "the default of 'worker.age' should be int, got old") in codes(diags)


def test_capacity_from_a_player_count_table_and_an_unknown_size(tmp_path: Path) -> None:
    rules = build_rules(tmp_path, BASE + "actions:\n  stash: {do: ['create worker in bin']}\n"
                        "  stock: {do: ['create 3 worker in me.shelf']}\n")
    three = Game(rules, 3)
    three.act("p1", "stock")
    assert len(three.state.zones["p1.shelf"].contents) == 3
    two = Game(rules, 2)
    with pytest.raises(BoardrulesError) as err:
        two.act("p1", "stock")  # a shelf holds 2 at two players
    assert err.value.code == "E504"
    with pytest.raises(BoardrulesError) as err:
        two.act("p1", "stash")
    assert err.value.code == "E601"


def test_pay_by_another_player_who_also_answers(tmp_path: Path) -> None:
    rules = build_rules(tmp_path, BASE + "actions:\n  tax: {do: ['pay 1 gems[any] by next_player(me)']}\n")
    g = Game(rules, 2)
    g.state.set_counter("p2.gems[red]", 1)
    g.state.set_counter("p2.gems[blue]", 1)
    decider = ScriptedDecider(answers=["blue"])
    g.act("p1", "tax", decider=decider)
    assert decider.asked[0].chooser == "p2"
    assert (g.state.counters["p2.gems[red]"], g.state.counters["p2.gems[blue]"]) == (1, 0)


def test_scenario_links(tmp_path: Path) -> None:
    (module,) = write_modules(tmp_path, BASE + "actions:\n  go: {do: ['move $a to heap']}\n")
    scenario = tmp_path / "scenarios" / "s.yaml"
    scenario.parent.mkdir()
    scenario.write_text(
        "scenario: linked pieces move together\nmodules: [t.base]\nplayers: 1\n"
        "state:\n  pieces:\n    - {id: a, kind: worker, zone: p1.farm}\n    - {id: b, kind: worker, zone: p1.farm}\n"
        "  links: [[a, $b]]\nsteps:\n  - {action: go, player: p1}\nexpect:\n  $b.zone: heap\n  count(p1.farm): 0\n"
    )
    result = ScenarioRunner(load_modules([module], Diagnostics())).run_file(scenario)
    assert result.passed, result.failures


def test_turn_context_is_readable_and_passes_clockwise(tmp_path: Path) -> None:
    rules = build_rules(tmp_path, BASE + "actions:\n  note: {do: ['me.coins = turn_number * 10 + turn_player.seat']}\n")
    g = Game(rules, 3)
    g.state.set_var("turn_player", "p3")
    g.end_turn("p3")
    g.act("p1", "note")
    assert g.state.counters["p1.coins"] == 21  # turn 2, and after p3 comes p1
