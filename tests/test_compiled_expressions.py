"""Arithmetic, min, max and comparisons are written in place in compiled bodies (with `:=` and number checks);
hypothesis writes random formulas over counters and random values, near the number limit too, and the compiled
body must give exactly what the interpreter gives: the same value, or the same error code."""

from __future__ import annotations

from pathlib import Path

from conftest import build_rules
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import BoardrulesError
from boardrules.engine.budget import Limits
from boardrules.game import Game

PACK = """
module: t
title: Formulas
players: {{min: 1, max: 2}}
counters:
  a: {{per: game, min: -1000000000000000000}}
  b: {{per: game, min: -1000000000000000000}}
  c: {{per: game, min: -1000000000000000000}}
  out: {{per: game, min: -5, max: 5000}}
actions:
  go:
    title: Go
    do:
      - let x = {expr}
      - let y = x
      - if: {cond}
        then: ["out = min(y, 5000)"]
        else: ["out = 0 - 1"]
"""

ATOMS = st.sampled_from(["a", "b", "c", "0", "1", "7", "1000000000000000000"])


def formulas(depth: int = 3) -> st.SearchStrategy[str]:
    return st.recursive(
        ATOMS,
        lambda inner: st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(st.sampled_from(["min", "max"]), inner, inner).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        ),
        max_leaves=6,
    )


VALUES = st.one_of(st.integers(-10, 10), st.sampled_from([10**18, -(10**18), 10**18 - 1, 5 * 10**17]))


def outcome(rules_dir: Path, expr: str, cond: str, values: tuple[int, int, int], compiled: bool) -> object:
    rules = build_rules(rules_dir, PACK.format(expr=expr, cond=cond))
    if compiled:
        rules.compile_after = 0
    else:
        rules.compile_body = None
    game = Game(rules, 1, 1, limits=Limits(max_int=10**18))
    game.setup()
    for name, v in zip("abc", values, strict=True):
        game.state.counters[name] = v
    before = game.state.dumps()
    try:
        game.act("p1", "go")
    except BoardrulesError as err:
        assert game.state.dumps() == before
        return err.diagnostic.code
    return game.state.counters["out"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(expr=formulas(), left=formulas(), op=st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), right=formulas(),
       values=st.tuples(VALUES, VALUES, VALUES))
def test_compiled_formulas_agree_with_the_interpreter(tmp_path: Path, expr: str, left: str, op: str, right: str,
                                                      values: tuple[int, int, int]) -> None:
    cond = f"{left} {op} {right}"
    here = tmp_path / "c"
    there = tmp_path / "i"
    assert outcome(here, expr, cond, values, True) == outcome(there, expr, cond, values, False)
