"""Branch coverage: which effect lines and which branches of a pack's rules the scenarios ran.

A run records, in `Game.coverage`, the span of every effect node it runs and a (span, branch) pair for every
branch it takes: an `if` side, a `match` case (or its `else`), a `one_of` option, a `may` answer, a cost
alternative. Here the pack's rules are walked to list everything that could be recorded, grouped by module file
and rule, and compared with what was.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Diagnostics, Span
from ..engine import effects as e
from ..engine.rules import Rules
from ..language.linker import Module
from ..language.pack import link


@dataclass(frozen=True)
class Point:
    """One line or one branch that coverage counts."""

    kind: str  # "line" or "branch"
    key: Any  # what a run records: a span, or (span, branch)
    rule: str  # section.name
    span: Span
    what: str


@dataclass
class RuleCoverage:
    rule: str
    points: list[Point] = field(default_factory=list)
    ran: set[Any] = field(default_factory=set)

    def count(self, kind: str) -> tuple[int, int]:
        points = [p for p in self.points if p.kind == kind]
        return sum(1 for p in points if p.key in self.ran), len(points)

    def missed(self) -> list[Point]:
        return [p for p in self.points if p.key not in self.ran]


# ---------------------------------------------------------------- what can be covered


Branches = Iterator[tuple[Any, str, e.Body]]  # (the branch into a body or None, its words, the body)


def _if(n: e.IfE) -> Branches:
    yield "then", "then", n.then
    yield "else", "else", n.other


def _match(n: e.MatchE) -> Branches:
    for case, body in n.cases:
        yield case, f"case {case}", body
    yield "else", "else", n.other


def _one_of(n: e.OneOfE) -> Branches:
    for label, _, body in n.options:
        yield label, f"option {label}", body


def _may(n: e.MayE) -> Branches:
    yield "yes", "taken", n.body
    yield "no", "declined", ()


def _plain(n: Any) -> Branches:
    yield None, "", n.body


def _wrap(n: e.WrapE) -> Branches:
    for body in (n.before, n.instead or (), n.after, n.inner):
        yield None, "", body


# Each effect class with bodies inside -> those bodies with the branches into them. tests/test_dispatch.py proves
# it names every class analysis.tree.CHILDREN does.
BRANCHES: dict[type, Callable[[Any], Branches]] = {
    e.IfE: _if, e.MatchE: _match, e.OneOfE: _one_of, e.MayE: _may, e.WrapE: _wrap,
    e.ForE: _plain, e.RepeatE: _plain, e.AsE: _plain, e.WhileE: _plain, e.StepE: _plain,
}


def children(node: e.Effect) -> Branches:
    """The bodies under a block node, each with the branch that leads into it (None when it is not a branch)."""
    say = BRANCHES.get(type(node))
    return say(node) if say is not None else iter(())


def _cost_points(cost: e.CostC | None, rule: str) -> Iterator[Point]:
    if cost is not None and len(cost.alternatives) > 1:
        for i in range(len(cost.alternatives)):
            yield Point("branch", (cost.span, i), rule, cost.span, f"cost {cost.text}: alternative {i + 1}")


_BLOCK_WORDS = {e.OneOfE: "one_of", e.MayE: "may"}


def body_points(body: e.Body, rule: str) -> Iterator[Point]:
    for node in body:
        text = " ".join((node.span.text or _BLOCK_WORDS.get(type(node), "")).split())
        yield Point("line", node.span, rule, node.span, text)
        if isinstance(node, e.PayE):
            yield from _cost_points(node.cost, rule)
        for branch, words, inner in children(node):
            if branch is not None:
                yield Point("branch", (node.span, branch), rule, node.span, f"{text}: {words}")
            yield from body_points(inner, rule)


def rule_bodies(rules: Rules) -> Iterator[tuple[str, e.CostC | None, e.Body]]:
    """Every runnable rule as (section.name, its cost, its body), in rulebook order."""
    for s in rules.setup:
        yield f"setup.{s.name}", None, s.body
    for name, a in rules.actions.items():
        yield f"actions.{name}", a.cost, a.body
    for ts in rules.triggers.values():
        for t in ts:
            yield f"triggers.{t.name}", None, t.body
    for name, p in rules.procedures.items():
        yield f"procedures.{name}", None, p.body
    for s in rules.scoring:
        yield f"scoring.{s.name}", None, s.body
    if rules.flow is not None:
        for ph in rules.flow.phases:
            for part, body in (("before", ph.before), ("do", ph.body), ("after", ph.after)):
                if body:
                    yield f"flow.{ph.name}.{part}", None, body
        if rules.flow.final:
            yield "flow.end", None, rules.flow.final


def pack_points(modules: dict[str, Module]) -> dict[str, dict[str, RuleCoverage]]:
    """file -> rule -> its points, over every module linked with what it requires (so a rule that another
    module replaces is counted too), each point once."""
    seen: set[Any] = set()
    out: dict[str, dict[str, RuleCoverage]] = {}
    for mid in modules:
        rules = link(modules, [mid], Diagnostics())
        for rule, cost, body in rule_bodies(rules):
            for p in [*_cost_points(cost, rule), *body_points(body, rule)]:
                if p.key in seen:
                    continue
                seen.add(p.key)
                out.setdefault(p.span.file, {}).setdefault(rule, RuleCoverage(rule)).points.append(p)
    return out


# ---------------------------------------------------------------- reports


def measure(modules: dict[str, Module], ran: set[Any]) -> dict[str, dict[str, RuleCoverage]]:
    table = pack_points(modules)
    for rules in table.values():
        for rc in rules.values():
            rc.ran = {p.key for p in rc.points if p.key in ran}
    return table


def _percent(run: int, total: int) -> float:
    return round(100.0 * run / total, 1) if total else 100.0


def to_json(table: dict[str, dict[str, RuleCoverage]]) -> list[dict[str, Any]]:
    out = []
    for file in sorted(table):
        rules = table[file].values()
        lines = [sum(x) for x in zip(*(rc.count("line") for rc in rules), strict=True)] or [0, 0]
        branches = [sum(x) for x in zip(*(rc.count("branch") for rc in rules), strict=True)] or [0, 0]
        out.append({
            "file": file,
            "lines": {"run": lines[0], "total": lines[1]},
            "branches": {"run": branches[0], "total": branches[1]},
            "percent": _percent(lines[0] + branches[0], lines[1] + branches[1]),
            "rules": [{
                "rule": rc.rule,
                "line": rc.points[0].span.line if rc.points else None,
                "lines": dict(zip(("run", "total"), rc.count("line"), strict=True)),
                "branches": dict(zip(("run", "total"), rc.count("branch"), strict=True)),
                "missed": [{"file": p.span.file, "line": p.span.line, "column": p.span.col, "kind": p.kind,
                            "what": p.what} for p in rc.missed()],
            } for rc in rules],
        })
    return out


def render_text(table: dict[str, dict[str, RuleCoverage]], verbose: bool = False) -> str:
    out = []
    for mod in to_json(table):
        ln, br = mod["lines"], mod["branches"]
        out.append(f"{mod['file']}: {mod['percent']}% (lines {ln['run']}/{ln['total']}, "
                   f"branches {br['run']}/{br['total']})")
        for rc in mod["rules"]:
            ln, br = rc["lines"], rc["branches"]
            if rc["missed"] or verbose:
                out.append(f"  {rc['rule']}: lines {ln['run']}/{ln['total']}, branches {br['run']}/{br['total']}")
            for m in rc["missed"]:
                verb = "not run" if m["kind"] == "line" else "not taken"
                out.append(f"    {m['file']}:{m['line']}: {verb}: {m['what']}")
    return "\n".join(out)


def dumps(packs: dict[str, list[dict[str, Any]]]) -> str:
    return json.dumps([{"pack": pack, "modules": mods} for pack, mods in packs.items()], indent=2,
                      ensure_ascii=False)
