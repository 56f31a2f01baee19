"""Check, then emit: linking gives a frozen checked tree (types, names resolved, start and end), effect nodes hold
it beside its function, and the emitter is the one place that writes how the state store is laid out."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import build_rules

from boardrules.engine import effects as e
from boardrules.engine.rules import Rules
from boardrules.language import checked as c
from boardrules.language import syntax as s
from boardrules.language.checker import Checker, CompileError, Scope
from boardrules.language.emitter import Emitter
from boardrules.language.parser import parse
from boardrules.language.types import FAMILY, INT, PIECE, PLAYER, SYMBOL, ZONE

PACKAGE = Path(__file__).resolve().parents[1] / "interpreter"

PACK = """
module: t
title: Tree
players: {min: 1, max: 3}
sets:
  goods: [wine, wool]
values:
  base: 3
counters:
  gold: {per: player}
  stock: {per: player, keys: goods}
  price: {per: game, keys: goods}
  round_bonus: {per: game}
zones:
  market: {per: game}
  hand: {per: player}
pieces:
  barrel: {properties: {grade: {type: int}}}
actions:
  go:
    title: Go
    params: {n: int}
    allowed_if: me.gold + price[wine] >= base
    do:
      - let x = count(market where it.grade > n)
      - if: x > 0
        then: ["me.gold += x", "price[wine] = 2", "me.stock[wool] += 1", "round_bonus = 1"]
      - let fam = price
      - fam[wool] = 3
      - let y = 1
      - y += x
"""


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> Rules:
    return build_rules(tmp_path_factory.mktemp("tree"), PACK)


def _check(rules: Rules, text: str, scope: Scope | None = None) -> c.Node:
    return Checker(rules).check(parse(text, "expr"), scope or Scope({"n": INT}))


def test_names_resolve_to_what_they_denote(rules: Rules) -> None:
    tree = _check(rules, "me.gold + price[wine] >= base")
    assert isinstance(tree, c.Compare) and tree.op == ">=" and tree.type.name == "bool"
    total = tree.left
    assert isinstance(total, c.BinOp) and total.type == INT
    gold, cell = total.left, total.right
    assert isinstance(gold, c.Attr) and gold.kind == "counter" and gold.decl is rules.counters["gold"]
    assert isinstance(gold.obj, c.Name) and gold.obj.ref == c.Ref("me", "me") and gold.obj.type == PLAYER
    assert isinstance(cell, c.Index) and cell.cell is not None and cell.cell.counter is rules.counters["price"]
    assert isinstance(cell.key, c.Name) and cell.key.ref.kind == "symbol" and cell.key.type == SYMBOL
    base = tree.right
    assert isinstance(base, c.Name) and base.ref.kind == "const" and base.ref.decl is rules.values["base"]


def test_every_kind_of_name(rules: Rules) -> None:
    kinds = {text: _check(rules, text) for text in ("n", "me", "players", "p2", "base", "round_bonus", "price",
                                                     "market", "wine")}
    got = {text: (node.ref.kind, node.type) for text, node in kinds.items() if isinstance(node, c.Name)}
    assert got == {"n": ("var", INT), "me": ("me", PLAYER), "players": ("flow", kinds["players"].type),
                   "p2": ("seat", PLAYER), "base": ("const", INT), "round_bonus": ("counter", INT),
                   "price": ("family", FAMILY), "market": ("zone", ZONE), "wine": ("symbol", SYMBOL)}
    where = _check(rules, "market where it.grade > n")
    assert isinstance(where, c.Where)
    grade = where.cond.left  # type: ignore[attr-defined]
    assert isinstance(grade, c.Attr) and grade.kind == "property" and grade.obj.type == PIECE
    assert isinstance(grade.obj, c.Name) and grade.obj.ref.kind == "local" and grade.obj.live


def test_spans_have_a_start_and_an_end(rules: Rules) -> None:
    tree = _check(rules, "me.gold + price[wine] >= base")
    assert tree.left.pos == (1, 9) and tree.left.end == (1, 22)  # type: ignore[attr-defined]
    assert tree.right.pos == (1, 26) and tree.right.end == (1, 30)  # type: ignore[attr-defined]
    call = _check(rules, "max(n, 10)")
    assert call.pos == (1, 1) and call.end == (1, 11)
    for node in c.nodes(_check(rules, "count(market where it.grade > n and n < 3) + sum([1, 2])")):
        assert node.pos <= node.end, node


def test_the_tree_is_frozen(rules: Rules) -> None:
    tree = _check(rules, "n + 1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        tree.type = INT  # type: ignore[misc]


def test_name_and_type_errors_are_raised_by_the_checker(rules: Rules) -> None:
    for text, code in (("me.glod", "E401"), ("n + wine", "E402"), ("nothing", "E401"), ("count(n)", "E402")):
        with pytest.raises(CompileError) as info:
            _check(rules, text)
        assert info.value.code == code, text


def test_each_table_covers_every_kind(rules: Rules) -> None:
    expressions = {cls for cls in vars(s).values() if isinstance(cls, type) and issubclass(cls, s.Node)
                   and cls.__module__ == s.__name__ and _is_expression(cls)}
    assert expressions <= set(Checker(rules)._dispatch)
    kinds = {cls for cls in vars(c).values() if isinstance(cls, type) and issubclass(cls, c.Node) and cls is not c.Node}
    assert kinds == set(Emitter(rules)._dispatch)


def _is_expression(cls: type) -> bool:
    statements = (s.Let, s.Assign, s.Pay, s.Move, s.Create, s.Remove, s.Link, s.Unlink, s.Choose, s.Roll, s.Draw,
                  s.Shuffle, s.Refill, s.Advance, s.Place, s.Proceed, s.Emit, s.Defer, s.CallProc, s.Require,
                  s.Fail, s.Limit, s.End, s.PassTurn, s.Score, s.ForHead, s.Take, s.CostTerm, s.CostSum, s.CostRef,
                  s.Cost)
    return cls is not s.Node and cls not in statements


def _exprs(value: Any) -> list[c.Expr]:
    if isinstance(value, c.Expr):
        return [value]
    if isinstance(value, tuple | list):
        return [x for item in value for x in _exprs(item)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [x for f in dataclasses.fields(value) for x in _exprs(getattr(value, f.name))]
    return []


def test_effect_nodes_hold_the_checked_tree_and_its_function(rules: Rules) -> None:
    from boardrules.analysis.tree import walk

    body = rules.actions["go"].body
    held = [x for eff in walk(body) for x in _exprs(eff)]
    assert held and all(x.fn.__dict__ == {} for x in held)  # nothing hangs off a function
    assert all(x.tree is not None for x in held)  # every function was emitted from a checked tree
    keys = [eff.key.tree for eff in walk(body) if isinstance(eff, e.SetCounterE)]
    assert [type(k) for k in keys] == [c.CounterKey, c.Cell, c.Cell, c.CounterKey, c.FamilyKey]
    update = body[-1]
    assert isinstance(update, e.LetE) and isinstance(update.value.tree, c.BinOp)
    assert isinstance(update.value.tree.left, c.Name) and update.value.tree.left.ref == c.Ref("var", "y")
    let = body[0]
    assert isinstance(let, e.LetE) and isinstance(let.value.tree, c.Call) and let.value.tree.fn == "count"
    guard = rules.actions["go"].guard
    assert guard is not None and isinstance(guard.tree, c.Compare)


def test_nothing_reads_syntax_off_a_function() -> None:
    """The checked tree is held by effect nodes and declarations, never hung on a function as an attribute."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "setattr", "hasattr") and len(node.args) >= 2
                    and isinstance(node.args[1], ast.Constant)
                    and node.args[1].value in ("syntax", "cell", "checked", "tree")):
                found.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr in ("syntax", "cell")
                                                    for t in node.targets):
                found.append(f"{path.name}:{node.lineno}")
    assert found == []


# How generated code would name the store and the runtime behind the frame: the emitter's business only.
_LAYOUT = re.compile(r"\bst\.|\bf\.g\b|\bg\.(state|steps|budget|piece|set_counter|step_budget|loop_error)\b|\bV\[|"
                     r"\bf\.vars\b|\.journal\b|\.counters\[|\.pieces\b|\bstate\.vars\[")


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def test_only_the_emitter_writes_the_store_layout_into_code() -> None:
    """Generated Python reaches the store (counters, pieces, vars, the journal) only through text the emitter
    writes: no other module of the language or the engine holds such a string."""
    found = []
    for folder in ("language", "engine"):
        for path in sorted((PACKAGE / folder).glob("*.py")):
            if path.name == "emitter.py":
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            skip = _docstrings(tree)
            for node in ast.walk(tree):
                if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
                        and _LAYOUT.search(node.value)):
                    found.append(f"{folder}/{path.name}:{node.lineno}: {node.value[:60]!r}")
    assert found == []
    emitter = (PACKAGE / "language" / "emitter.py").read_text(encoding="utf-8")
    assert _LAYOUT.search(emitter)  # the pattern still finds what it is looking for


def test_each_linked_formula_knows_where_it_is_written(tmp_path: Path) -> None:
    """One checked tree may be written in many places (equal texts link once): each effect's Expr carries its own
    place, so a node is placed at its file, line and column without going back to the YAML."""
    rules = build_rules(tmp_path, """
        module: t
        title: Places
        counters:
          gold: {per: player}
        actions:
          a:
            do:
              - me.gold += 2
              - "me.gold += 2"
              - if: me.gold > 3
                then: [me.gold -= 1]
              - pay 1 gold
        """)
    plain, quoted, block, pay = rules.actions["a"].body
    assert isinstance(plain, e.SetCounterE) and isinstance(quoted, e.SetCounterE) and isinstance(block, e.IfE)
    assert plain.value.tree is quoted.value.tree  # one tree, linked once
    file = str(tmp_path / "m0.yaml")
    assert plain.value.span() == dataclasses.replace(plain.value.span(), file=file, line=9, col=9)  # its text
    placed = [(x.line, x.col) for x in (x.span(x.tree) for x in (plain.value, quoted.value, plain.key, block.cond))]
    assert placed == [(9, 20), (10, 21), (9, 12), (11, 21)]  # a name by its word, a comparison by its operator
    assert (block.cond.span().line, block.cond.span().col) == (11, 13)
    assert isinstance(pay, e.PayE)
    term = pay.cost.alternatives[0][0]
    assert (term.span(pay.span).line, term.span(pay.span).col) == (13, 15)
    gt = next(n for n in c.nodes(block.cond.tree) if isinstance(n, c.Compare))
    assert (block.cond.span(gt.right).line, block.cond.span(gt.right).col) == (11, 23)
