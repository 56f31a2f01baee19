"""The work budget: an action that would run without bound stops with E513, naming the rule and the limit, and
changes nothing; constants that already exceed a limit are reported by `check`; boardrules' own failures are
E900, never a rule's code."""

from __future__ import annotations

import time
from typing import Any

import pytest

from boardrules.diagnostics import BoardrulesError
from boardrules.engine import effects as e
from boardrules.engine.budget import Limits
from boardrules.engine.interpreter import RUNNERS
from boardrules.engine.machine import Machine
from boardrules.game import Game

HEAD = """
module: t
title: Bounded
players: {min: 1, max: 2}
values:
  big: 1000000000000
counters:
  c: {per: game, initial: 2, max: 1000000000000000000}
pieces:
  token: {properties: {level: {type: int, default: 1}}}
zones:
  pool: {}
tracks:
  ring: {spaces: 8, circular: true, markers: {pawn: 1}}
dice:
  d6: {sides: 6}
actions:
"""

# Each action uses `big` (a value, so check cannot see it) to ask for far more work than the budget allows.
ACTIONS = {
    "empty_repeat": '{title: R, do: [{repeat: big, do: []}]}',
    "nested": '{title: N, do: ["let xs = [count([y for y in 1..1000]) for x in 1..1000]"]}',
    "many_pieces": '{title: P, do: ["create big token in pool"]}',
    "far": '{title: F, do: ["advance pawn by big"]}',
    "range_guard": '{title: G, allowed_if: "count(1..big) > 0", do: []}',
    "squares": '{title: S, do: [{repeat: 100, do: ["c = c * c"]}]}',
    "prop_squares": '{title: Q, do: ["create token in pool as t", "t.level = 2",'
                    ' {repeat: 100, do: ["t.level = t.level * t.level"]}]}',
    "let_grows": '{title: L, do: ["let x = 2", "let y = ' + " * ".join(["x"] * 70) + '"]}',
}


@pytest.fixture
def game(build: Any) -> Game:
    text = HEAD + "".join(f"  {name}: {spec}\n" for name, spec in ACTIONS.items())
    g = Game(build(text), 2, 1)
    g.setup()
    return g


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_unbounded_work_stops_with_e511_and_changes_nothing(game: Game, action: str) -> None:
    before = game.state.dumps()
    start = time.perf_counter()
    with pytest.raises(BoardrulesError) as info:
        game.act("p1", action)
    assert time.perf_counter() - start < 3
    assert info.value.code == "E513", info.value.diagnostic
    message = info.value.diagnostic.message
    assert f"actions.{action}" in message and "the limit '" in message
    assert info.value.diagnostic.span is not None
    assert game.state.dumps() == before
    assert game.legal_actions("p1") is not None  # the game goes on


def test_limits_are_configurable_per_game(build: Any) -> None:
    rules = build(HEAD + '  loop: {title: L, do: [{repeat: 50, do: ["c += 1"]}]}\n')
    small = Game(rules, 2, 1, limits=Limits(work=10))
    small.setup()
    with pytest.raises(BoardrulesError) as info:
        small.act("p1", "loop")
    assert info.value.code == "E513" and "'work' is 10 " in info.value.diagnostic.message
    roomy = Game(rules, 2, 1)
    roomy.setup()
    roomy.act("p1", "loop")
    assert roomy.state.counters["c"] == 52


def test_a_die_with_too_many_sides_and_constant_bounds_are_found_by_check(link_diags: Any) -> None:
    text = HEAD.replace("d6: {sides: 6}", "d6: {sides: 1000000000}") + (
        '  a: {title: A, do: [{repeat: 1000000000000, do: []}, "create 100000000 token in pool",'
        ' "let r = [x for x in 1..100000000]"]}\n'
    )
    _, diags = link_diags(text)
    found = sorted((d.code, d.span.line) for d in diags.items)
    assert [code for code, _ in found] == ["E513"] * 4, found


def test_a_number_too_large_to_keep_is_refused_where_it_is_written(link_diags: Any) -> None:
    _, diags = link_diags(HEAD.replace("initial: 2", "initial: 0x" + "f" * 4000) + "  a: {title: A, do: []}\n")
    assert [d.code for d in diags.items] == ["E104"]


def test_a_bug_in_a_runner_is_e900_not_a_rule_error(game: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(node: Any, f: Any) -> None:
        raise ZeroDivisionError("planted")

    monkeypatch.setitem(RUNNERS, e.RepeatE, broken)
    before = game.state.dumps()
    with pytest.raises(BoardrulesError) as info:
        game.act("p1", "squares")
    d = info.value.diagnostic
    assert d.code == "E900" and "actions.squares" in d.message and "ZeroDivisionError" in d.message
    assert "report" in (d.hint or "")
    assert game.state.dumps() == before


def test_generated_code_sees_only_a_minimal_set_of_builtins(build: Any) -> None:
    from boardrules.language import emitter

    assert set(emitter._BUILTINS) == {"bool", "len"}
    fn = emitter.function("__builtins__", emitter.Gen())
    assert fn(None) == {"bool": bool, "len": len}
    with pytest.raises(NameError):
        emitter.function("open('/etc/passwd')", emitter.Gen())(None)


def test_check_exits_3_when_boardrules_itself_fails(tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: Any) -> None:
    from boardrules.language import loader
    from boardrules.tools.cli import main

    def broken(self: object) -> object:
        raise RuntimeError("planted")

    (tmp_path / "m.yaml").write_text("module: m\n", encoding="utf-8")
    monkeypatch.setattr(loader._Builder, "run", broken)
    assert main(["check", str(tmp_path)]) == 3
    out = capsys.readouterr().out
    assert "error E900: internal error while reading YAML: RuntimeError: planted" in out and "report" in out


@pytest.mark.slow
def test_generated_code_names_nothing_outside_its_namespace(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every global name any expression of the shipped packs loads is a helper, a constant or an allowed built-in,
    so a missing built-in shows here, not as E900 in the middle of a game."""
    import dis
    import types
    from pathlib import Path

    from boardrules.analysis import check_pack
    from boardrules.diagnostics import Diagnostics
    from boardrules.language import emitter
    from boardrules.language.pack import discover
    from boardrules.tools.cli import main

    missing: set[str] = set()
    original = emitter.function

    def checked(src: str, gen: Any) -> Any:
        fn = original(src, gen)
        names = {**emitter._BASE_NS, **gen.ns, **emitter._BUILTINS}
        codes = [fn.__code__]
        while codes:
            code = codes.pop()
            codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
            missing.update(i.argval for i in dis.get_instructions(code)
                           if i.opname == "LOAD_GLOBAL" and i.argval not in names)
        return fn

    monkeypatch.setattr(emitter, "function", checked)
    root = Path(__file__).resolve().parents[1]
    diags = Diagnostics()
    paths = [root / "rules", root / "tests" / "packs" / "harvest", root / "tests" / "hostile" / "runtime",
             root / "examples"]
    for pack in discover(paths, diags):
        if pack.module_files:
            check_pack(pack, diags)
    main(["test", *map(str, paths)])  # scenario expectations are compiled too
    assert missing == set()


def test_a_bug_found_while_listing_legal_moves_is_reported_not_hidden(harvest_rules: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game(harvest_rules, 2, 1)
    game.setup()
    before = game.state.dumps()

    def broken(*args: Any) -> None:
        raise KeyError("planted")

    # Every counter change goes through the machine, whether a body runs compiled or interpreted.
    monkeypatch.setattr(Machine, "set_counter", broken)
    with pytest.raises(BoardrulesError) as info:
        game.legal_actions("p1")
    assert info.value.code == "E900"
    assert game.state.dumps() == before


def test_game_new_takes_limits_and_a_clone_has_its_own_budget() -> None:
    from pathlib import Path

    pack = Path(__file__).resolve().parents[1] / "examples" / "market"
    game = Game.new(pack, 2, 1, limits=Limits(work=7), chance="auto")
    assert game._m.budget.limits.work == 7
    assert game.clone()._m.budget is not game._m.budget
    assert game.clone()._m.budget.limits.work == 7
