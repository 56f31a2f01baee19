"""Rules reach the game only through `engine.services.Services`: every `frame.g.X` in the package's source, and
in every function the compilers generate for the shipped packs, names a member of the protocol, and every
`frame.g.state.X` a member of `Store`, the part of the state store a rule may use. mypy checks the
typed code (tests/test_code_health.py); this test also covers untyped frames and the generated Python, which no
type checker sees."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from conftest import HARVEST

from boardrules.diagnostics import Diagnostics
from boardrules.engine import effects as e
from boardrules.engine.services import Services, Store
from boardrules.language import code_cache
from boardrules.language.body_compiler import BodyCompiler
from boardrules.language.pack import discover, link, load_modules

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "interpreter"


def _members(protocol: type) -> set[str]:
    return set(protocol.__annotations__) | {n for n, v in vars(protocol).items()
                                            if (callable(v) or isinstance(v, property)) and n[0] != "_"}


MEMBERS = _members(Services)
STORE = _members(Store)


def outside_protocol(source: str) -> list[tuple[int, str]]:
    """(line, member) for each `<x>.g.member` (or `g.member` after `g = <x>.g`) that Services does not declare,
    and each `<x>.g.state.member` (or `st.member` after `st = g.state`) that Store does not declare."""
    tree = ast.parse(source)
    out = []
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))]:
        assigns = [n for n in ast.walk(scope) if isinstance(n, ast.Assign)]
        games = {t.id for n in assigns if _is_g(n.value) for t in n.targets if isinstance(t, ast.Name)}
        stores = {t.id for n in assigns if _is_state(n.value, games) for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(scope):
            if not isinstance(node, ast.Attribute):
                continue
            name = node.value.id if isinstance(node.value, ast.Name) else None
            if _is_g(node.value) or name in games:
                if node.attr not in MEMBERS:
                    out.append((node.lineno, node.attr))
            elif (_is_state(node.value, games) or name in stores) and node.attr not in STORE:
                out.append((node.lineno, f"state.{node.attr}"))
    return sorted(set(out))


def _is_g(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "g"


def _is_state(node: ast.AST, games: set[str]) -> bool:
    """`<x>.g.state`, or `g.state` with g an alias of `<x>.g`."""
    return isinstance(node, ast.Attribute) and node.attr == "state" and (
        _is_g(node.value) or (isinstance(node.value, ast.Name) and node.value.id in games))


def test_the_check_sees_a_member_outside_the_protocol() -> None:
    assert {"state", "rules", "budget", "choose", "set_counter", "payable"} <= MEMBERS
    assert "transaction" not in MEMBERS and "run_setup" not in MEMBERS
    assert outside_protocol("def r(n, f):\n    f.g.state.cause = 1\n    f.g.transaction(n)\n") == [(3, "transaction")]
    assert outside_protocol("def r(f):\n    g = f.g\n    g.steps += 1\n    g.decider.x\n") == [(4, "decider")]
    assert {"counters", "move_piece", "cause"} <= STORE and not {"rollback", "mark", "copy", "dumps"} & STORE
    assert outside_protocol("def r(f):\n    f.g.state.set_var('a', 1)\n    f.g.state.rollback(0)\n") == [
        (3, "state.rollback")]
    assert outside_protocol("def r(f):\n    g = f.g\n    st = g.state\n    st.cause = 1\n    st.copy()\n") == [
        (5, "state.copy")]


def test_the_package_reads_the_game_only_through_the_protocol() -> None:
    found = {str(p.relative_to(ROOT)): bad for p in sorted(PACKAGE.rglob("*.py"))
             if (bad := outside_protocol(p.read_text(encoding="utf-8")))}
    assert found == {}


def _bodies(value: Any, seen: set[int]) -> list[e.Body]:
    """Every non-empty body (a tuple of effects) in the linked rules, outermost first."""
    if id(value) in seen or callable(value) or isinstance(value, str | int | float | bool | type(None)):
        return []
    seen.add(id(value))
    if isinstance(value, tuple) and value and all(isinstance(x, e.Effect) for x in value):
        return [value]
    if isinstance(value, dict):
        items: Any = list(value.values())
    elif isinstance(value, list | tuple | set | frozenset):
        items = list(value)
    elif hasattr(value, "__dataclass_fields__"):
        items = [getattr(value, name) for name in value.__dataclass_fields__]
    else:
        return []
    return [b for item in items for b in _bodies(item, seen)]


def test_generated_code_reads_the_game_only_through_the_protocol(monkeypatch: pytest.MonkeyPatch) -> None:
    sources: list[str] = []
    compile_source = code_cache.compile_source

    def spy(source: str, filename: str, mode: str) -> Any:
        sources.append(source)
        return compile_source(source, filename, mode)

    monkeypatch.setattr(code_cache, "compile_source", spy)
    diags = Diagnostics()
    packs = discover([ROOT / "rules", ROOT / "examples", HARVEST], diags)
    assert len(packs) >= 4
    bodies = 0
    for pack in packs:
        modules = load_modules(pack.module_files, diags)
        rules = link(modules, list(modules), diags)
        assert not diags.has_errors, [f"{d.code} {d.message}" for d in diags.items]
        compiler = rules.compile_body
        assert isinstance(compiler, BodyCompiler)
        for body in _bodies(rules, set()):
            sources += compiler.sources_of(body)
            bodies += 1
    assert bodies > 100 and len(sources) > 1_000
    assert any("g.state" in s for s in sources) and any("f.g." in s for s in sources)
    found = {s: bad for s in sources if (bad := outside_protocol(s))}
    assert found == {}
