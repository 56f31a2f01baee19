"""Links that share built units (language/shared_links.py) equal the same links built afresh: every declaration,
rule body, checked tree, the Python source each expression's function is made from, and every diagnostic."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from boardrules.diagnostics import Diagnostics, Span
from boardrules.engine.values import Unknown
from boardrules.language import shared_links
from boardrules.language.checked import Expr
from boardrules.language.deferred import Deferred, deferring
from boardrules.language.emitter import Emitter, Gen
from boardrules.language.linker import Module
from boardrules.language.pack import discover, link, load_modules

ROOT = Path(__file__).resolve().parent.parent
PACKS = [pytest.param(ROOT / "rules" / "village", marks=pytest.mark.slow), ROOT / "rules" / "lisboa",
         *sorted(p for p in (ROOT / "tests" / "packs").iterdir() if p.is_dir()),
         *sorted(p for p in (ROOT / "tests" / "planted_packs").iterdir() if p.is_dir())[:12]]
SKIPPED = {"compile_body", "compiled", "runs", "floors", "cost_cells", "totality", "independence"}


def _source(fn: Any) -> Any:
    """The Python source an expression's function is (or will be) made from, with its constants."""
    if isinstance(fn, Deferred):
        make, args = fn._make, fn._args
        if make is None or args is None:
            return "made"
        if isinstance(getattr(make, "__self__", None), Emitter):  # waits whole: write it as its link would
            gen = Gen()
            return make.__self__.src(args[0], gen), _dump(gen.ns)
        return args[0], _dump(args[1].ns)
    return "compiled"


def _dump(value: Any, seen: frozenset[int] = frozenset()) -> Any:
    """Plain data of everything linked (callables by the source they are made from where known)."""
    if isinstance(value, Expr):
        return ("Expr", _dump(value.tree, seen), _dump(value.src, seen), _source(value.fn))
    if isinstance(value, Unknown):
        return ("unknown", value.name, value.note)
    if isinstance(value, Span | str | int | float | bool | type(None)):
        return value
    if id(value) in seen:
        return ("cycle", type(value).__name__)
    seen = seen | {id(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, *((f.name, _dump(getattr(value, f.name), seen))
                                        for f in dataclasses.fields(value) if f.name not in SKIPPED))
    if isinstance(value, dict):
        return ("dict", *((_dump(k, seen), _dump(v, seen)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (type(value).__name__, *(_dump(v, seen) for v in value))
    if isinstance(value, set | frozenset):
        return ("set", *sorted(repr(_dump(v, seen)) for v in value))
    if callable(value):
        return "fn"
    return repr(value)


def _modules(pack: Path) -> dict[str, Module]:
    diags = Diagnostics()
    found = discover([pack], diags)
    return load_modules([f for p in found for f in p.module_files], diags)


def _root_sets(modules: dict[str, Module]) -> list[list[str]]:
    """The links `check` makes: each module with what it requires, then all together (and again, reversed)."""
    return [[mid] for mid in modules] + [list(modules), list(reversed(modules))]


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: f"{p.parent.name}/{p.name}" if isinstance(p, Path) else None)
def test_shared_links_equal_fresh_ones(pack: Path) -> None:
    modules = _modules(pack)
    assert modules
    with deferring(), shared_links.sharing() as shared:
        shared_runs = []
        for roots in _root_sets(modules):
            diags = Diagnostics()
            shared_runs.append((link(modules, roots, diags), diags.items))
    for roots, (rules, said) in zip(_root_sets(modules), shared_runs, strict=True):
        with deferring():
            diags = Diagnostics()
            fresh = link(modules, roots, diags)
        assert said == diags.items, roots
        assert _dump(rules) == _dump(fresh), roots
    if pack.name in ("village", "lisboa"):
        assert shared.reused > shared.built  # most of what a pack's links build is shared


BASE = """\
module: t.base
title: Base
sets:
  goods: [wood, stone]
counters:
  stock: {per: player, keys: goods}
  coins: {per: player}
pieces:
  worker: {properties: {tired: {type: int, default: 0}}}
zones:
  yard: {per: player}
actions:
  gather:
    do:
      - for: g in goods
        do: ["me.stock[g] += 1"]
  rest:
    do:
      - for: w in me.yard
        do: ["me.coins += w.tired"]
  earn:
    do: ["me.coins += 1"]
  work:
    do: ["me.coins += 2"]
"""
MORE = """\
module: t.more
title: More
requires: [t.base]
extend:
  sets.goods: [clay]
pieces:
  horse: {properties: {tired: {type: int, default: 2}}}
wrap:
  actions.work:
    after: ["me.coins += 1"]
"""


def test_a_changed_meaning_is_not_shared(tmp_path: Path) -> None:
    """A module that extends a set a base rule reads, gives a property a default, or wraps the rule: the
    base's rule is built again in its link, and a rule that reads none of that is shared."""
    (tmp_path / "base.yaml").write_text(BASE)
    (tmp_path / "more.yaml").write_text(MORE)
    modules = _modules(tmp_path)
    with deferring(), shared_links.sharing() as shared:
        alone = link(modules, ["t.base"], Diagnostics())
        both = link(modules, ["t.more"], Diagnostics())
    assert both.actions["earn"].body is alone.actions["earn"].body
    for changed in ("gather", "rest", "work"):
        assert both.actions[changed].body is not alone.actions[changed].body
    assert shared.reused == 1
    with deferring():
        fresh = link(modules, ["t.more"], Diagnostics())
    assert _dump(both) == _dump(fresh)
