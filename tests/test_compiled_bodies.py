"""Rule bodies run as compiled Python functions (language.body_compiler) and, while coverage is recorded, node by
node (engine.interpreter). The two must agree exactly: every scenario of every pack, and random whole games, run
both ways here, and the saved state, the log and every failure must be the same."""

from __future__ import annotations

import random
import traceback
from pathlib import Path
from typing import Any

import pytest
from conftest import HARVEST, compiled, interpreted

from boardrules.diagnostics import BoardrulesError, Diagnostics
from boardrules.engine.rules import Rules
from boardrules.game import Game
from boardrules.language.loader import load_yaml
from boardrules.language.pack import discover, link, load_modules, load_rules
from boardrules.tools.scenario import Result, ScenarioRunner

ROOT = Path(__file__).resolve().parent.parent
PACK_DIRS = [ROOT / "rules", ROOT / "examples", HARVEST, ROOT / "tests" / "packs" / "relay",
             ROOT / "tests" / "packs" / "payments", ROOT / "tests" / "packs" / "finale",
             ROOT / "tests" / "packs" / "limits"]


class CompilingRunner(ScenarioRunner):
    def rules_for(self, roots: list[str], options: Any = None) -> Any:
        rules, errors = super().rules_for(roots, options)
        return compiled(rules), errors


class InterpretingRunner(ScenarioRunner):
    def rules_for(self, roots: list[str], options: Any = None) -> Any:
        rules, errors = super().rules_for(roots, options)
        return interpreted(rules), errors


def _packs() -> list[Any]:
    return discover([p for p in PACK_DIRS if p.exists()], Diagnostics())


def _outcome(runner: ScenarioRunner, path: Path) -> tuple[list[str], str | None, list[Any]]:
    doc = load_yaml(path, Diagnostics(), str(path))
    result = Result(str(path), str(path))
    game = runner._run(doc, result, str(path))
    if game is None:
        return result.failures, None, []
    return result.failures, game.state.dumps(), list(game.log)


@pytest.mark.parametrize("pack", _packs(), ids=lambda p: p.root.name)
def test_every_scenario_runs_the_same_compiled_and_interpreted(pack: Any) -> None:
    modules = load_modules(pack.module_files, Diagnostics())
    compiled, plain = CompilingRunner(modules), InterpretingRunner(modules)
    assert pack.scenario_files
    for path in pack.scenario_files:
        a, b = _outcome(compiled, path), _outcome(plain, path)
        assert a == b, path
    # The compiled runner really compiled: its rules hold compiled bodies.
    assert any(rules.compiled for rules, _ in compiled._rules.values())
    assert not any(rules.compiled for rules, _ in plain._rules.values())


def _pack_rules(path: Path) -> Rules:
    diags = Diagnostics()
    (pack,) = discover([path], diags)
    modules = load_modules(pack.module_files, diags)
    rules = link(modules, list(modules), diags)
    assert not diags.has_errors
    return rules


def _random_game(rules: Rules, seed: int, moves: int) -> tuple[str, list[Any], list[str]]:
    game = Game.new(rules, 3, seed)
    rng = random.Random(seed)
    refused = []
    for _ in range(moves):
        if game.is_terminal():
            break
        pending = game.pending()
        option = pending.sample(rng)
        try:
            game.apply(option.id)
        except BoardrulesError as err:
            refused.append(err.diagnostic.code)
    return game.state.dumps(), list(game.log), refused


@pytest.mark.parametrize("pack", ["village", "lisboa"])
def test_random_whole_games_play_the_same_compiled_and_interpreted(pack: str) -> None:
    path = ROOT / "rules" / pack
    for seed in (1, 2):
        try:
            a = _random_game(compiled(load_rules(path)), seed, 150)
            b = _random_game(interpreted(load_rules(path)), seed, 150)
        except BoardrulesError:
            pytest.fail(traceback.format_exc())
        assert a == b
        assert len(a[1]) >= 20, "the game should have gone on for a while"


def test_a_compiled_body_is_named_after_its_rule_and_a_traceback_shows_the_rule(tmp_path: Path) -> None:
    rules = compiled(_pack_rules(ROOT / "examples" / "market"))
    game = Game(rules, 2, 1)
    game.setup()
    game.act("p1", "buy_apple")
    action = rules.actions["buy_apple"]
    fn = rules.compiled[id(action.body)]
    assert fn.__name__ == f"rule_market_yaml_{action.body[0].span.line}"
    assert fn.__code__.co_filename == f"<rule {action.body[0].span.file}:{action.body[0].span.line}>"


def test_explain_python_shows_the_generated_source_with_the_rule_lines(capsys: pytest.CaptureFixture[str]) -> None:
    from boardrules.tools.cli import main

    assert main(["explain", str(ROOT / "benchmarks" / "produce"), "--python", "actions.produce"]) == 0
    out = capsys.readouterr().out
    assert "def rule_produce_yaml_29(f):" in out
    assert "# produce.yaml:31: - let made = count(street where it.owner == me and it.good == g)" in out
    compile(out, "<explain>", "exec")  # what it shows is the Python that runs, whole
    assert main(["explain", str(ROOT / "benchmarks" / "produce"), "--python", "nothing"]) == 1
    assert "no rule 'nothing'; the rules are setup.stores, actions.produce, actions.sell_all" in capsys.readouterr().err


def test_a_traceback_through_a_compiled_body_shows_the_rule_and_its_line() -> None:
    rules = compiled(_pack_rules(ROOT / "benchmarks" / "produce"))
    game = Game(rules, 2, 1)
    game.setup()

    class Broken(list):
        def append(self, entry: Any) -> None:
            raise ZeroDivisionError("planted")

    game.state.journal = Broken(game.state.journal)
    with pytest.raises(BoardrulesError) as info:
        game.act("p1", "produce")
    assert info.value.code == "E900"
    frames = traceback.extract_tb(info.value.__cause__.__traceback__)
    rule = [fr for fr in frames if fr.filename.startswith("<rule ")]
    assert rule and rule[0].name == "rule_produce_yaml_29" and rule[0].filename.endswith("produce.yaml:29>")
    assert "st.journal.append" in (rule[0].line or "")


def test_a_body_is_interpreted_its_first_runs_then_compiled() -> None:
    rules = _pack_rules(ROOT / "benchmarks" / "produce")
    game = Game(rules, 2, 1)
    game.setup()
    body = rules.actions["sell_all"].body
    for run in range(1, rules.compile_after + 1):
        game.act("p1", "sell_all")
        assert id(body) not in rules.compiled and rules.runs[id(body)][1] == run
    game.act("p1", "sell_all")
    assert id(body) in rules.compiled


GROUPED = """
module: g
title: Counting by kind
players: {min: 1, max: 2}
sets:
  goods: [wine, cloth, grain]
counters:
  made: {per: player, keys: goods}
pieces:
  store:
    properties:
      owner: {type: player}
      good: {type: symbol}
zones:
  street: {}
setup:
  stores:
    do:
      - create 2 store in street with owner = p1, good = wine
      - create store in street with owner = p2, good = wine
      - create store in street with owner = p1, good = grain
actions:
  count_all:
    title: Count
    do:
      - for: g in goods
        do:
          - let n = count(street where it.owner == me and it.good == g)
          - me.made[g] += n
  count_and_build:
    title: Count and build
    do:
      - for: g in goods
        do:
          - let n = count(street where it.owner == me and it.good == g)
          - me.made[g] += n
          - create store in street with owner = me, good = g
"""


def test_a_count_keyed_on_the_loop_variable_is_one_pass_only_where_the_loop_leaves_pieces_alone(
        tmp_path: Path) -> None:
    from conftest import build_rules

    results = []
    for mode in (compiled, interpreted):
        rules = mode(build_rules(tmp_path / mode.__name__, GROUPED))
        game = Game(rules, 2, 1)
        game.setup()
        game.act("p1", "count_all")
        game.act("p1", "count_and_build")
        results.append(game.state.dumps())
        if mode is compiled:
            assert {k: v for k, v in game.state.counters.items() if k.startswith("p1.made")} == {
                "p1.made[wine]": 4, "p1.made[cloth]": 0, "p1.made[grain]": 2}  # cloth is built after it is counted
            assert "groups" in rules.compile_body.source_of(rules.actions["count_all"].body)
            assert "groups" not in rules.compile_body.source_of(rules.actions["count_and_build"].body)
    assert results[0] == results[1]


CALLS = """
module: c
title: Calls and counters set to numbers
players: {min: 2, max: 2}
counters:
  coins: {per: player, min: 0, max: 5}
  calls: {per: player}
procedures:
  gain:
    params: {n: int}
    do:
      - me.coins += n
      - me.calls += 1
actions:
  give:
    title: Give
    params: {to: player}
    do:
      - call gain(2)
      - call gain(1) as to
      - me.calls = 7
  too_many:
    title: Too many
    do:
      - call gain(1) as p2
      - me.coins = 9
"""


def test_a_call_and_a_counter_set_to_a_number_run_the_same_compiled_and_interpreted(tmp_path: Path) -> None:
    from conftest import build_rules

    results = []
    for mode in (compiled, interpreted):
        rules = mode(build_rules(tmp_path / mode.__name__, CALLS))
        game = Game(rules, 2, 1)
        game.setup()
        game.act("p1", "give", {"to": "p2"})
        game.act("p2", "give", {"to": "p1"})
        with pytest.raises(BoardrulesError) as info:  # a number beyond the counter's bounds: the call is undone
            game.act("p1", "too_many")
        results.append((game.state.dumps(), str(info.value)))
        assert {k: game.state.counters[k] for k in ("p1.coins", "p2.coins", "p1.calls", "p2.calls")} == {
            "p1.coins": 3, "p2.coins": 3, "p1.calls": 8, "p2.calls": 7}
        if mode is compiled:
            assert "_call(" in rules.compile_body.source_of(rules.actions["give"].body)
            assert "_acting(" in rules.compile_body.source_of(rules.actions["too_many"].body)
    assert results[0] == results[1]
