"""Rule mutation testing: change one thing in a pack's rules, run the scenarios, and see whether any notices.

The sites come from the linked tree (mutation_sites: its effect nodes, checked expressions, costs, guards,
`one_of` options and declared values, each with its span), never from a walk of the YAML. Each mutant is an edit
of the YAML entry written at its site's place, and the edited modules are linked again, so a mutant that no
longer links (a removed `let` that a later line reads) is simply one that `link` rejects; those are counted
apart. The mutations:

- inside a checked expression, effect or cost: a number up or down by one, a comparison negated or its
  strictness toggled, `+=` turned into `-=` and back, a cost alternative removed;
- of the tree's nodes: an effect line removed, a `one_of` option dropped, a guard (an action's, a trigger's, an
  option's or a phase's) removed;
- in `values` (declared or replaced): a number up or down by one.

Each mutant runs the scenarios that could notice it: those whose modules include the mutated module and that,
unmutated, started the mutated rule (a change inside a rule a scenario never starts cannot change that
scenario). A mutant is killed by the first scenario that fails. Mutants are listed in file order, so a run is
deterministic; `--max N` picks N of them with a generator seeded by `--seed`.
"""

from __future__ import annotations

import os
import random
import sys
from concurrent.futures import as_completed
from dataclasses import dataclass
from typing import Any

from ..diagnostics import Diagnostics
from ..language.linker import Module
from ..language.loader import YList, YMap, load_yaml
from ..language.pack import Pack, display, link, load_modules
from .fork_pool import fork_pool
from .mutation_sites import Mutant, find_mutants
from .scenario import Result, ScenarioRunner

# ---------------------------------------------------------------- making a mutant


def _copy(node: Any) -> Any:
    """A shallow copy that keeps the YAML positions."""
    if isinstance(node, YMap):
        new = YMap(node.span)
        new.update(node)
        new.key_spans, new.value_spans = dict(node.key_spans), dict(node.value_spans)
        return new
    if isinstance(node, YList):
        new_list = YList(node.span)
        new_list.extend(node)
        new_list.item_spans = list(node.item_spans)
        return new_list
    return type(node)(node)


def apply(modules: dict[str, Module], m: Mutant) -> dict[str, Module]:
    """The modules with one mutant applied; only the containers on its path are copied."""
    base = modules[m.module]
    root = _copy(base.doc)
    node = root
    for key in m.path:
        node[key] = _copy(node[key])
        node = node[key]
    if m.op == "set":
        node[m.key] = m.arg
    elif isinstance(node, list):
        del node[m.key]
        if hasattr(node, "item_spans") and m.key < len(node.item_spans):
            del node.item_spans[m.key]
    else:
        del node[m.key]
    return {**modules, m.module: Module(base.id, base.file, root, base.requires, base.span)}


# ---------------------------------------------------------------- running
@dataclass
class Scenario:
    file: str
    doc: dict
    roots: tuple[str, ...]
    closure: frozenset[str]
    rules: frozenset[str]  # the rules it started, unmutated


@dataclass(frozen=True)
class Outcome:
    index: int
    status: str  # killed, survived, unlinkable
    by: str | None = None  # the scenario that killed it


def _closure(modules: dict[str, Module], roots: tuple[str, ...]) -> frozenset[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        mid = todo.pop()
        if mid not in seen and mid in modules:
            seen.add(mid)
            todo.extend(modules[mid].requires)
    return frozenset(seen)


def load_scenarios(pack: Pack, modules: dict[str, Module]) -> list[Scenario]:
    """The pack's scenarios, each with the rules it starts when the rules are not mutated. All must pass."""
    runner = ScenarioRunner(modules)
    out = []
    for path in pack.scenario_files:
        name = display(path)
        doc = load_yaml(path, Diagnostics(), name)
        if not isinstance(doc, dict):
            raise ValueError(f"{name}: not a scenario file")
        result = Result(name, name)
        game = runner._run(doc, result, name)
        if not result.passed or game is None:
            raise ValueError(f"{name}: the scenario fails before any mutation; fix it first")
        roots = tuple(str(m) for m in doc.get("modules", []))
        out.append(Scenario(name, doc, roots, _closure(modules, roots), frozenset(game.covered)))
    return out


def run_mutant(modules: dict[str, Module], scenarios: list[Scenario], m: Mutant, index: int) -> Outcome:
    mutated = apply(modules, m)
    diags = Diagnostics()
    link(mutated, [m.module], diags)
    if diags.has_errors:
        return Outcome(index, "unlinkable")
    runner = ScenarioRunner(mutated)
    for sc in scenarios:
        if m.module not in sc.closure or (m.rule is not None and m.rule not in sc.rules):
            continue
        result = Result(sc.file, sc.file)
        runner._run(sc.doc, result, sc.file)
        if not result.passed:
            if result.failures[0].startswith("the modules do not link"):
                return Outcome(index, "unlinkable")
            return Outcome(index, "killed", sc.file)
    return Outcome(index, "survived")


_WORK: tuple[dict[str, Module], list[Scenario], list[Mutant]] | None = None


def _init(work: tuple[dict[str, Module], list[Scenario], list[Mutant]]) -> None:
    global _WORK
    _WORK = work


def _run_index(index: int) -> Outcome:
    assert _WORK is not None
    modules, scenarios, mutants = _WORK
    return run_mutant(modules, scenarios, mutants[index], index)


@dataclass
class Report:
    mutants: list[Mutant]
    outcomes: list[Outcome]

    def by_module(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for m, o in zip(self.mutants, self.outcomes, strict=True):
            counts = out.setdefault(m.span.file, {"killed": 0, "survived": 0, "unlinkable": 0})
            counts[o.status] += 1
        return out

    def score(self, counts: dict[str, int] | None = None) -> float:
        if counts is None:
            counts = {k: sum(c[k] for c in self.by_module().values()) for k in ("killed", "survived", "unlinkable")}
        tested = counts["killed"] + counts["survived"]
        return 100.0 * counts["killed"] / tested if tested else 100.0

    def render(self) -> str:
        lines = [f"{m.span}: survived: {m.what}" for m, o in zip(self.mutants, self.outcomes, strict=True)
                 if o.status == "survived"]
        for file, c in sorted(self.by_module().items()):
            lines.append(f"{file}: {self.score(c):.1f}% killed ({c['killed']} of {c['killed'] + c['survived']}; "
                         f"{c['unlinkable']} cannot link)")
        total = {k: sum(c[k] for c in self.by_module().values()) for k in ("killed", "survived", "unlinkable")}
        lines.append(f"mutation score {self.score(total):.1f}%: {total['killed']} killed, {total['survived']} "
                     f"survived, {total['unlinkable']} cannot link, of {len(self.mutants)} mutants")
        return "\n".join(lines)


def mutate_pack(pack: Pack, only: list[str] | None = None, workers: int = 1, seed: int = 1,
                limit: int | None = None, progress: bool = False) -> Report:
    modules = load_modules(pack.module_files, Diagnostics())
    scenarios = load_scenarios(pack, modules)
    mutants = find_mutants(modules, only)
    if limit is not None and limit < len(mutants):
        keep = sorted(random.Random(seed).sample(range(len(mutants)), limit))
        mutants = [mutants[i] for i in keep]
    outcomes: list[Outcome | None] = [None] * len(mutants)
    bar = _Progress(len(mutants)) if progress else None
    if workers <= 1:
        for i, m in enumerate(mutants):
            outcomes[i] = run_mutant(modules, scenarios, m, i)
            if bar:
                bar.step(outcomes[i])
    else:
        # fork: the workers inherit the loaded modules and scenarios instead of pickling them per mutant
        with fork_pool(workers, _init, ((modules, scenarios, mutants),)) as pool:
            futures = [pool.submit(_run_index, i) for i in range(len(mutants))]
            for fut in as_completed(futures):
                o = fut.result()
                outcomes[o.index] = o
                if bar:
                    bar.step(o)
    if bar:
        bar.done()
    return Report(mutants, [o for o in outcomes if o is not None])


class _Progress:
    def __init__(self, total: int) -> None:
        self.total, self.n, self.killed = total, 0, 0

    def step(self, o: Outcome | None) -> None:
        self.n += 1
        self.killed += o is not None and o.status == "killed"
        width = 30
        filled = width * self.n // max(self.total, 1)
        sys.stderr.write(f"\rmutants [{'#' * filled}{'.' * (width - filled)}] {self.n}/{self.total}, "
                         f"{self.killed} killed")
        sys.stderr.flush()

    def done(self) -> None:
        sys.stderr.write("\n")


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
