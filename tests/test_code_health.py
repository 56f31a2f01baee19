"""The package type-checks (mypy, with the configuration in pyproject.toml) and its modules import each other
without a cycle, counting imports made inside functions (those hide a cycle, they do not remove it)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "interpreter"
NAME = "boardrules"


def test_mypy_finds_nothing() -> None:
    api = pytest.importorskip("mypy.api")
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir",
                                str(ROOT / ".mypy_cache"), str(PACKAGE)])
    assert status == 0, out + err


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([NAME, *parts])


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The nodes under `if TYPE_CHECKING:`, which never run."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for sub in node.body for n in ast.walk(sub))
    return skip


def imports(source: str, name: str, is_package: bool, modules: set[str]) -> set[str]:
    """The package's modules a module's source imports anywhere in its code, inside functions too (importing a
    module imports its parent packages)."""
    package = name if is_package else name.rsplit(".", 1)[0]
    tree = ast.parse(source)
    skip = _type_checking_only(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        targets: list[str] = []
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            targets = [f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        for target in targets:
            parts = target.split(".")
            found.update(".".join(parts[:i]) for i in range(2, len(parts) + 1) if ".".join(parts[:i]) in modules)
    found.discard(name)
    found.discard(package)  # a module's own package is being imported already when it runs
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, edges = work[-1]
            w = next(edges, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_no_import_cycle() -> None:
    paths = {_module(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: imports(path.read_text(encoding="utf-8"), name, path.name == "__init__.py", set(paths))
             for name, path in paths.items()}
    assert cycles(graph) == []


def test_the_cycle_finder_sees_imports_inside_functions_and_skips_type_checking_ones() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import X\n"
              "def f():\n    from ..tools.c import Y\n")
    modules = {"boardrules.engine.b", "boardrules.tools", "boardrules.tools.c", "boardrules.engine"}
    assert imports(source, "boardrules.engine.probe", False, modules) == {"boardrules.tools", "boardrules.tools.c"}
