"""Rule mutation testing: change one thing in a pack's rules, run the scenarios, and see whether any notices.

Mutants are made on the loaded YAML tree, before linking, so a mutant that no longer links (a removed `let`
that a later line reads) is simply one that `link` rejects; those are counted apart. The mutations:

- inside expression, effect and cost strings (found with the grammar's lexer): a number up or down by one, a
  comparison negated or its strictness toggled, `+=` turned into `-=` and back, a cost alternative removed;
- in the YAML structure: an effect line removed, a `one_of` option dropped, a guard (`allowed_if`, a trigger's
  or an option's `if`) removed;
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

from ..diagnostics import Diagnostics, Span
from ..language.effect_builder import Text
from ..language.linker import Module
from ..language.loader import YList, YMap, YStr, load_yaml
from ..language.pack import Pack, display, link, load_modules
from ..language.parser import _parser
from ..language.sections import BLOCK_KEYS, RULE_SECTIONS
from .fork_pool import fork_pool
from .scenario import Result, ScenarioRunner

COMPARISONS = {"<": (">=", "<="), "<=": (">", "<"), ">": ("<=", ">="), ">=": ("<", ">"), "==": ("!=",),
               "!=": ("==",)}
Path_ = tuple[Any, ...]  # keys and indexes from a module's root to the mutated node


@dataclass(frozen=True)
class Mutant:
    module: str  # module id
    rule: str | None  # section.name of the rule it changes; None for a declaration (every scenario may notice)
    span: Span
    what: str
    path: Path_  # to the container holding the changed node
    op: str  # "set" (container[key] = arg), "drop" (delete container[key])
    key: Any
    arg: Any = None


# ---------------------------------------------------------------- finding mutants


def _lex(text: str) -> list[Any]:
    try:
        return list(_parser().lex(text))
    except Exception:  # a string the lexer cannot read has nothing to mutate; check reports it
        return []


def _quote(text: str) -> str:
    short = " ".join(text.split())
    return short if len(short) <= 60 else short[:57] + "..."


class _Finder:
    def __init__(self, module: Module) -> None:
        self.module = module
        self.out: list[Mutant] = []
        self.rule: str | None = None

    def add(self, span: Span, what: str, path: Path_, op: str, key: Any, arg: Any = None) -> None:
        self.out.append(Mutant(self.module.id, self.rule, span, what, path, op, key, arg))

    def string(self, path: Path_, key: Any, value: Any, fallback: Span, cost: bool = False) -> None:
        """Token mutations of one expression, effect or cost string."""
        if not isinstance(value, str):
            if isinstance(value, int) and not isinstance(value, bool):
                self.number(path, key, value, fallback)
            return
        text = Text(value, fallback)
        src = str(value)
        tokens = _lex(src)
        starts = _offsets(src)
        for tok in tokens:
            at = text.at((tok.line, tok.column))
            start = starts[tok.line - 1] + tok.column - 1
            end = start + len(tok.value)

            def changed(new: str, start: int = start, end: int = end) -> YStr:
                return YStr(src[:start] + new + src[end:], text.span, text.style)

            if tok.type == "INT":
                n = int(tok.value)
                for m in (n + 1, n - 1):
                    if m >= 0:
                        self.add(at, f"{n} -> {m} in `{_quote(src)}`", path, "set", key, changed(str(m)))
            elif tok.type == "COMP_OP":
                for op in COMPARISONS[tok.value]:
                    self.add(at, f"'{tok.value}' -> '{op}' in `{_quote(src)}`", path, "set", key, changed(op))
            elif tok.type == "ASSIGN_OP" and tok.value in ("+=", "-="):
                op = "-=" if tok.value == "+=" else "+="
                self.add(at, f"'{tok.value}' -> '{op}' in `{_quote(src)}`", path, "set", key, changed(op))
        if cost or (tokens and tokens[0].type == "PAY"):
            self.alternatives(path, key, src, tokens, starts, text)

    def alternatives(self, path: Path_, key: Any, src: str, tokens: list[Any], starts: list[int],
                     text: Text) -> None:
        """One mutant per alternative of a cost with `or`, that alternative removed."""
        def at(tok: Any) -> int:
            return starts[tok.line - 1] + tok.column - 1

        depth, cuts = 0, []
        lo, hi = 0, len(src)
        for tok in tokens:
            depth += (tok.type == "LPAR") - (tok.type == "RPAR")
            if tok.type == "PAY":
                lo = at(tok) + len(tok.value)
            elif tok.type == "OR" and depth == 0:
                cuts.append(at(tok))
            elif tok.type == "BY" and depth == 0:
                hi = at(tok)
        if not cuts:
            return
        bounds = [lo, *cuts, hi]
        for i in range(len(cuts) + 1):
            a, b = bounds[i], bounds[i + 1]
            alt = src[a:b].strip().removeprefix("or ").strip()
            rest = src[b:].lstrip().removeprefix("or ") if i == 0 else src[b:].lstrip()
            new = " ".join(x for x in (src[:a].rstrip(), rest.strip()) if x)
            where = a + len(src[a:b]) - len(src[a:b].lstrip())
            line = src[:where].count("\n") + 1
            self.add(text.at((line, where - starts[line - 1] + 1)),
                     f"cost alternative `{_quote(alt)}` removed from `{_quote(src)}`", path, "set", key,
                     YStr(new, text.span, text.style))

    def number(self, path: Path_, key: Any, value: int, span: Span) -> None:
        for m in (value + 1, value - 1):
            if m >= 0:
                self.add(span, f"{value} -> {m}", path, "set", key, m)

    # ---------------------------------------------------------------- structure
    def body(self, path: Path_, items: Any, fallback: Span) -> None:
        if isinstance(items, str | YMap):
            return  # a single effect in place of a list: its tokens are mutated by the caller
        if not isinstance(items, list):
            return
        spans = getattr(items, "item_spans", [])
        for i, item in enumerate(items):
            span = spans[i] if i < len(spans) else fallback
            shown = item if isinstance(item, str) else next(
                (k if isinstance(item[k], dict | list) else f"{k}: {item[k]}" for k in BLOCK_KEYS if k in item), "")
            self.add(span, f"line removed: `{_quote(str(shown))}`", path, "drop", i)
            if isinstance(item, str):
                self.string(path, i, item, span)
            elif isinstance(item, dict):
                self.block((*path, i), item, span)

    def block(self, path: Path_, block: dict, span: Span) -> None:
        vspan = getattr(block, "value_spans", {})
        kind = next((k for k in BLOCK_KEYS if k in block), None)
        if kind in ("if", "for", "repeat", "match", "as", "while"):
            self.string(path, kind, block[kind], vspan.get(kind, span))
        for sub in ("then", "else", "do"):
            if sub in block:
                self.sub_body(path, block, sub, vspan.get(sub, span))
        if kind == "match" and isinstance(block.get("cases"), dict):
            cases = block["cases"]
            cspans = getattr(cases, "value_spans", {})
            for case in cases:
                self.sub_body((*path, "cases"), cases, case, cspans.get(case, span))
        if kind == "one_of" and isinstance(block["one_of"], dict) and isinstance(block["one_of"].get("options"), dict):
            options = block["one_of"]["options"]
            opath = (*path, "one_of", "options")
            ospans = getattr(options, "key_spans", {})
            for label, opt in options.items():
                ospan = ospans.get(label, span)
                if len(options) > 1:
                    self.add(ospan, f"option '{label}' dropped", opath, "drop", label)
                if isinstance(opt, dict):
                    self.guarded((*opath, label), opt, ospan, "if")
                    if "do" in opt:
                        self.sub_body((*opath, label), opt, "do", getattr(opt, "value_spans", {}).get("do", ospan))
                else:
                    self.sub_body(opath, options, label, ospan)
        if kind == "may":
            spec = block["may"]
            if isinstance(spec, list):
                self.sub_body(path, block, "may", vspan.get("may", span))
            elif isinstance(spec, dict) and "do" in spec:
                self.sub_body((*path, "may"), spec, "do", getattr(spec, "value_spans", {}).get("do", span))

    def sub_body(self, path: Path_, container: dict, key: Any, span: Span) -> None:
        items = container[key]
        if isinstance(items, str):
            self.string(path, key, items, span)
        elif isinstance(items, dict):
            self.block((*path, key), items, span)
        else:
            self.body((*path, key), items, span)

    def guarded(self, path: Path_, node: dict, span: Span, key: str) -> None:
        if key in node:
            kspan = getattr(node, "key_spans", {}).get(key, span)
            self.add(kspan, f"guard removed: `{key}: {_quote(str(node[key]))}`", path, "drop", key)
            self.string(path, key, node[key], getattr(node, "value_spans", {}).get(key, span))

    def rule_node(self, path: Path_, node: Any, span: Span) -> None:
        if isinstance(node, dict):
            for guard in ("allowed_if", "if"):
                self.guarded(path, node, span, guard)
            if "cost" in node:
                self.string(path, "cost", node["cost"], getattr(node, "value_spans", {}).get("cost", span), cost=True)
            if "do" in node:
                self.sub_body(path, node, "do", getattr(node, "value_spans", {}).get("do", span))
        elif isinstance(node, list):
            self.body(path, node, span)

    def value(self, path: Path_, key: Any, node: Any, span: Span) -> None:
        if isinstance(node, int) and not isinstance(node, bool):
            self.number(path, key, node, span)
        elif isinstance(node, dict):
            vspans = getattr(node, "value_spans", {})
            if isinstance(node.get("value"), int) and not isinstance(node["value"], bool):
                self.number((*path, key), "value", node["value"], vspans.get("value", span))
            if "expr" in node:
                self.string((*path, key), "expr", node["expr"], vspans.get("expr", span))
            table = node.get("by_players")
            if isinstance(table, dict):
                tspans = getattr(table, "value_spans", {})
                for n, v in table.items():
                    if isinstance(v, int) and not isinstance(v, bool):
                        self.number((*path, key, "by_players"), n, v, tspans.get(n, span))

    def find(self) -> list[Mutant]:
        doc = self.module.doc
        for section in ("values", *RULE_SECTIONS, "costs", "replace"):
            table = doc.get(section)
            if not isinstance(table, dict):
                continue
            vspans = getattr(table, "value_spans", {})
            for name, node in table.items():
                span = vspans.get(name, self.module.span)
                target = str(name) if section == "replace" else f"{section}.{name}"
                kind, _, _ = target.partition(".")
                self.rule = target if kind in RULE_SECTIONS else None
                if kind == "values":
                    self.value((section,), name, node, span)
                elif kind == "costs":
                    text = node.get("cost") if isinstance(node, dict) else node
                    where = (section, name) if isinstance(node, dict) else (section,)
                    self.string(where, "cost" if isinstance(node, dict) else name, text, span, cost=True)
                elif kind in RULE_SECTIONS:
                    self.rule_node((section, name), node, span)
        self.rule = None
        self.flow(doc.get("flow"))
        self.hooks(doc.get("wrap"))
        self.rule = None
        return self.out

    def hooks(self, table: Any) -> None:
        """`wrap:` hooks: their before / instead / after bodies belong to the rule they wrap."""
        if not isinstance(table, dict):
            return
        vspans = getattr(table, "value_spans", {})
        for target, spec in table.items():
            if not isinstance(spec, dict):
                continue
            section, _, rest = str(target).partition(".")
            self.rule = f"{section}.{rest.split('.')[0]}"
            span = vspans.get(target, self.module.span)
            for kind in ("before", "instead", "after"):
                if kind in spec:
                    self.sub_body(("wrap", target), spec, kind, getattr(spec, "value_spans", {}).get(kind, span))

    def flow(self, node: Any) -> None:
        """The game's course: phase guards and bodies, the end condition and the final steps."""
        if not isinstance(node, dict):
            return
        span = getattr(node, "span", self.module.span)
        phases = node.get("phases")
        for name, ph in (phases.items() if isinstance(phases, dict) else []):
            if isinstance(ph, dict):
                path = ("flow", "phases", name)
                pspan = getattr(phases, "value_spans", {}).get(name, span)
                self.guarded(path, ph, pspan, "if")
                for part in ("before", "do", "after"):
                    if part in ph:
                        self.sub_body(path, ph, part, getattr(ph, "value_spans", {}).get(part, pspan))
        end = node.get("end")
        if isinstance(end, dict):
            espan = getattr(node, "value_spans", {}).get("end", span)
            if "when" in end:
                self.string(("flow", "end"), "when", end["when"], getattr(end, "value_spans", {}).get("when", espan))
            if "do" in end:
                self.sub_body(("flow", "end"), end, "do", getattr(end, "value_spans", {}).get("do", espan))


def _offsets(text: str) -> list[int]:
    starts, at = [], 0
    for line in text.split("\n"):
        starts.append(at)
        at += len(line) + 1
    return starts


def find_mutants(modules: dict[str, Module], only: list[str] | None = None) -> list[Mutant]:
    out: list[Mutant] = []
    for mid, module in modules.items():
        if only is None or mid in only:
            out.extend(_Finder(module).find())
    return out


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
