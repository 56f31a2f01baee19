"""Links nothing runs (`check`) leave compiling their expressions to the first call (language/deferred.py): the
report is the same, a deferred function computes what the compiled one does, and what is deferred compiles."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

from conftest import harvest_link
from hypothesis import given, settings
from hypothesis import strategies as st

from boardrules.analysis import check_pack
from boardrules.diagnostics import Diagnostics
from boardrules.engine.rules import Rules
from boardrules.game import Game
from boardrules.language import deferred
from boardrules.language.compile_error import CompileError
from boardrules.language.compiler import ExprCompiler, Scope
from boardrules.language.emitter import Emitter, Gen
from boardrules.language.pack import discover, link, load_modules
from boardrules.language.parser import ParseError, parse

ROOT = Path(__file__).resolve().parent.parent

MODULE = """\
module: deep
title: A value nested deeper than Python can compile
values:
  deep: {{expr: "{expr}"}}
  shallow: {{expr: "-(-(1))"}}
counters:
  coins: {{per: player, initial: 3}}
"""


def report(pack: Path) -> list[str]:
    diags = Diagnostics()
    for found in discover([pack], diags):
        check_pack(found, diags)
    return [f"{d.span}: {d.code} {d.message}" for d in diags.sorted()]


def test_a_formula_too_deep_to_compile_is_reported_by_check_as_by_linking(tmp_path: Path) -> None:
    # Each `-(` is one node and one bracket level of the emitted source: 200 levels pass the checker, not compile().
    (tmp_path / "deep.yaml").write_text(MODULE.format(expr="-(" * 200 + "me.coins" + ")" * 200))
    checked = [line for line in report(tmp_path) if "E301" in line]
    diags = Diagnostics()
    (pack,) = discover([tmp_path], diags)
    link(load_modules(pack.module_files, diags), ["deep"], diags)  # outside check: compiled at once
    linked = [f"{d.span}: {d.code} {d.message}" for d in diags.sorted() if d.code == "E301"]
    assert checked == linked and len(checked) == 1 and "nested too deeply" in checked[0]


def test_a_deferred_function_computes_what_the_compiled_one_computes() -> None:
    eager = harvest_link()
    with deferred.deferring():
        lazy = harvest_link()
    calls = 0
    real = deferred.Deferred.__call__

    def counting(self: deferred.Deferred, frame: object) -> object:
        nonlocal calls
        calls += 1
        return real(self, frame)

    deferred.Deferred.__call__ = counting  # type: ignore[method-assign]
    try:
        games = [Game(rules, 2, seed=5) for rules in (eager, lazy)]
        for game in games:
            game.setup()
            rng = random.Random(7)
            for _ in range(40):
                if game.play_random(rng) is None:
                    break
    finally:
        deferred.Deferred.__call__ = real  # type: ignore[method-assign]
    assert calls > 0
    assert games[0].state.dumps() == games[1].state.dumps()


def test_only_links_made_inside_deferring_defer() -> None:
    assert not deferred.active()
    with deferred.deferring():
        assert deferred.active()
    assert not deferred.active()


def test_every_source_within_the_bounds_compiles() -> None:
    """The worst shapes a source within the bounds can take: brackets nested as deep as the bound allows, and the
    longest chains that nest Python's parser without brackets."""
    n = deferred.MAX_LENGTH
    shapes = [
        "(" * deferred.MAX_BRACKETS + "x" + ")" * deferred.MAX_BRACKETS,
        "[" * 32 + "(" * 32 + "x" + ")" * 32 + "]" * 32,
        "not " * ((n - 1) // 4) + "x",
        "-" * (n - 1) + "x",
        "x" + " if x else x" * ((n - 1) // 12),
        "x" + ".a" * ((n - 1) // 2),
        "x" + "+x" * ((n - 1) // 2),
        "x" + "**x" * ((n - 1) // 3),
        "x" + " and x" * ((n - 1) // 6),
        "x" + " < x" * ((n - 1) // 4),
    ]
    for src in shapes:
        assert deferred.fits(src), src[:40]
        compile(f"lambda f: {src}", "<rule expression>", "eval")
    assert not deferred.fits("(" * (deferred.MAX_BRACKETS + 1) + "x" + ")" * (deferred.MAX_BRACKETS + 1))
    assert not deferred.fits("x" * (n + 1))


LEAVES = ["me.coins", "price[wheat]", "me.gems[jade]", "3", "true", "start_workers", "storage_space", "$w1.age"]
WRAPS = ["-({})", "not ({})", "({}) + me.grain", "({}) * 2", "max({}, 1)", "min(me.coins, {})", "abs({})",
         "({}) if me.coins > 1 else 0", "[{}, 1]", "[y + 1 for y in [{}] if y > 0]", "sum([{}, 2])", "({}) >= 1",
         "({}) in [1, 2]", "count([{}])", "({}) and true", "[{}][0]", "({}) .. 5", "[{}] where it > 1",
         "[{}] sorted by it desc"]


@cache
def _harvest() -> Rules:
    return harvest_link()


def nesting(src: str) -> int:
    deepest = level = 0
    for ch in src:
        if ch in "([{":
            level += 1
            deepest = max(deepest, level)
        elif ch in ")]}":
            level -= 1
    return deepest


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(LEAVES), st.lists(st.sampled_from(WRAPS), max_size=deferred.MAX_DEPTH))
def test_every_expression_that_waits_whole_writes_and_compiles(leaf: str, wraps: list[str]) -> None:
    """What a deferred expression's first call does cannot fail: at most MAX_DEPTH deep, its source is nested far
    below compile()'s limit of 200 brackets and the emitter's recursion stays small."""
    text = leaf
    for wrap in wraps:
        text = wrap.format(text)
    try:
        node = parse(text, "expr")
    except ParseError:
        return
    if not deferred.shallow(node):
        return
    rules = _harvest()
    try:
        expr = ExprCompiler(rules).link(node, Scope({}, True))  # outside deferring(): compiled at once
    except CompileError:
        return
    assert expr.tree is not None and callable(expr.fn)
    assert nesting(Emitter(rules).src(expr.tree, Gen())) <= 100, text
