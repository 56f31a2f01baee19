"""Tools drive a game through `Game`'s declared API and its `Driver` (interpreter/driver.py), never through
`Game`'s private fields: no module of the package but game.py touches a `Game._*` attribute."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import harvest_link

from boardrules.diagnostics import Diagnostics, Span
from boardrules.driver import Driver
from boardrules.engine.interpreter import run_body
from boardrules.game import Game
from boardrules.language import syntax as s
from boardrules.language.checked import made
from boardrules.language.compiler import Scope
from boardrules.language.effect_builder import Builder, Text
from boardrules.language.parser import parse

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "interpreter"


def game_private_names() -> set[str]:
    """The `_name` attributes and methods class Game defines (assigned as `self._name`, or `def _name`)."""
    tree = ast.parse((PACKAGE / "game.py").read_text(encoding="utf-8"))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Game"]
    names = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    names |= {n.attr for n in ast.walk(cls) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
              and n.value.id == "self"}
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def private_reads(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, name) for each `x._name` with `_name` one of `names` and `x` anything but `self` or `cls`."""
    return sorted({(n.lineno, n.attr) for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Attribute)
                   and n.attr in names and not (isinstance(n.value, ast.Name) and n.value.id in ("self", "cls"))})


def test_no_module_but_game_touches_game_private_fields() -> None:
    names = game_private_names()
    assert {"_m", "_open", "_pending", "_waiting", "_history", "_advance"} <= names
    assert private_reads("def f(game):\n    game._m.coverage = None\n    self._m\n", names) == [(2, "_m")]
    found = {str(p.relative_to(ROOT)): bad for p in sorted(PACKAGE.rglob("*.py"))
             if p.name != "game.py" and (bad := private_reads(p.read_text(encoding="utf-8"), names))}
    assert found == {}


def test_a_clone_with_its_journal_is_the_same_game() -> None:
    game = Game(harvest_link(), 2, seed=3)
    game.setup()
    assert game.at_rest()
    other = game.clone(journal=True)
    assert other.state.dumps() == game.state.dumps() and other.covered == game.covered
    assert other.state.journal == game.state.journal and other.state.journal is not game.state.journal
    assert game.clone().state.journal == []
    # the copy is independent: what it does leaves the original as it was
    before = game.state.dumps()
    other.state.set_var("round", 99)
    assert game.state.dumps() == before


def test_the_driver_evaluates_rules_and_records_coverage() -> None:
    game = Game(harvest_link(), 2, seed=3)
    game.setup()
    driver = game.driver()
    assert isinstance(driver, Driver)
    assert driver.evaluate(made(lambda f: f.me.id), "p2") == "p2"
    assert driver.frame().me is None
    assert driver.from_plain("$p1").id == "p1" and driver.from_plain(3) == 3
    village = Game.new(ROOT / "rules" / "village", 2, seed=3)  # set up, stopped at a chance step of its setup
    assert not village.at_rest()
    trace: set[object] = set()
    village.driver().record_coverage(trace)
    village.apply(village.pending().options[0].id)  # type: ignore[union-attr]
    assert trace


def test_laying_out_a_starting_state_starts_no_counter_trigger() -> None:
    rules = harvest_link("harvest.more")  # full_barn: fame +1 when grain goes from below 8 to 8 or more
    game = Game(rules, 1, seed=1)
    game.setup()
    target = parse("p1.grain", "expr")
    assign = s.Assign((1, 1), target, "=", s.Literal((1, 1), 9))
    effect = Builder(rules, Diagnostics()).statement(assign, Scope({}, False), Text("p1.grain", Span("t", 1, 1)))
    assert effect is not None
    fame = game.state.counters["p1.fame"]
    game.driver().lay_out((effect,))
    assert game.state.counters["p1.grain"] == 9 and game.state.counters["p1.fame"] == fame
    # the same effect run as a rule's step is a change, and the trigger runs
    other = Game(rules, 1, seed=1)
    other.setup()
    other.driver().evaluate(made(lambda f: run_body((effect,), f)))
    assert other.state.counters["p1.grain"] == 9 and other.state.counters["p1.fame"] == fame + 1
