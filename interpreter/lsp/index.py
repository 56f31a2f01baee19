"""The pack index: every name a pack declares and every place a rule uses one, with exact spans.

Built from the loaded modules (their key spans), the linker's declaring sections, and every formula of each
module parsed on its own (formulas.py, which says why the editor keeps a syntax index). Go to definition, find
references, hover, completion and the outline all answer from it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..analysis.modules import closures
from ..diagnostics import Span
from ..language import syntax as s
from ..language.effect_builder import Text
from ..language.linker import Module
from ..language.sections import DECLARING, RULE_SECTIONS
from .formulas import formulas
from .formulas import uses as formula_uses

# What a use of each kind can name (the sections searched for its declaration, in order).
NAMED_BY = {
    "pay": ("counters", "markers"), "cost": ("costs",), "emit": ("events",), "defer": ("events",), "on": ("events",),
    "call": ("procedures",), "action": ("actions",), "module": ("modules",), "until": ("events",),
}
READABLE = ("counters", "values", "zones", "sets", "symbols", "properties", "tracks", "markers", "dice", "pieces",
            "costs", "events", "actions", "procedures")
RULES = RULE_SECTIONS


@dataclass(frozen=True, slots=True)
class Place:
    """A run of text on one line of a file (lines and columns from 1, end exclusive)."""

    file: str  # real path
    line: int
    col: int
    end: int

    def holds(self, file: str, line: int, col: int) -> bool:
        return file == self.file and line == self.line and self.col <= col <= self.end


@dataclass(frozen=True, slots=True)
class Declaration:
    section: str  # a declaring section, or properties, markers, symbols, modules, phases
    name: str
    module: str
    place: Place
    node: Any
    parent: str | None = None  # the piece kind of a property, the track of a marker, the set of a symbol


@dataclass(frozen=True, slots=True)
class Use:
    kind: str  # read, write, pay, cost, call, emit, defer, on, action, module, replace, ...
    name: str
    module: str
    rule: str
    place: Place
    section: str | None = None  # for a `replace:` key, the section it names


@lru_cache(maxsize=4096)
def real(file: str) -> str:
    """The real path of a file as a diagnostic or a module names it (display() makes it relative to the
    working directory, which the server never changes)."""
    return os.path.realpath(file)


_IDENT = "A-Za-z0-9_"


def _place(span: Span, name: str) -> Place:
    return Place(real(span.file), span.line, span.col, span.col + len(name))


@lru_cache(maxsize=4096)
def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![{_IDENT}$]){re.escape(name)}(?![{_IDENT}])")


def name_in(site_text: str, pos: s.Pos, name: str) -> tuple[int, int] | None:
    """Where `name` starts (line, col inside the string) at or after `pos`; the first place anywhere if not."""
    lines = site_text.split("\n")
    line, col = pos
    offset = sum(len(x) + 1 for x in lines[:line - 1]) + col - 1
    pattern = _word(name)
    found = pattern.search(site_text, max(offset, 0)) or pattern.search(site_text)
    if found is None:
        return None
    before = site_text[:found.start()]
    return before.count("\n") + 1, found.start() - (before.rfind("\n") + 1) + 1


def _text_place(text: Text, node: s.Node, name: str) -> Place | None:
    at = name_in(text.text, node.pos, name)
    if at is None:
        return None
    return _place(text.at(at), name)


def _kspans(node: Any) -> dict:
    return getattr(node, "key_spans", {})


def _vspans(node: Any) -> dict:
    return getattr(node, "value_spans", {})


def _ispans(node: Any) -> list:
    return getattr(node, "item_spans", None) or []


def declarations(m: Module) -> list[Declaration]:
    out: list[Declaration] = []
    file = real(m.file)

    def add(section: str, name: object, span: Span, node: Any, parent: str | None = None) -> None:
        if span.file and real(span.file) == file:
            out.append(Declaration(section, str(name), m.id, _place(span, str(name)), node, parent))

    add("modules", m.id, m.span, m.doc)
    for section in DECLARING:
        table = m.doc.get(section)
        if not isinstance(table, dict):
            continue
        for name, node in table.items():
            span = _kspans(table).get(name, m.span)
            add(section, name, span, node)
            _nested(section, str(name), node, span, add)
    flow = m.doc.get("flow")
    phases = flow.get("phases") if isinstance(flow, dict) else None
    if isinstance(phases, dict):
        for name, node in phases.items():
            add("phases", name, _kspans(phases).get(name, m.span), node)
    return out


def _nested(section: str, name: str, node: Any, span: Span, add: Any) -> None:
    if section == "sets" and isinstance(node, list):
        for i, item in enumerate(node):
            spans = _ispans(node)
            add("symbols", item, spans[i] if i < len(spans) else span, node, name)
    if not isinstance(node, dict):
        return
    for key, sub_section in (("properties", "properties"), ("markers", "markers")):
        sub = node.get(key)
        if isinstance(sub, dict):
            for prop, spec in sub.items():
                add(sub_section, prop, _kspans(sub).get(prop, span), spec, name)
    keys = node.get("keys")
    if section == "counters" and isinstance(keys, list):
        for i, item in enumerate(keys):
            spans = _ispans(keys)
            add("symbols", item, spans[i] if i < len(spans) else span, keys, name)


def uses(m: Module, denotes: Callable[[s.Node], str | None] | None = None) -> list[Use]:
    """Every use of a name in the module. `denotes` (resolved.sections, when the module linked) says what the linker
    resolved a name to, where the syntax alone cannot: `x.reward` is a piece's property or a player's counter."""
    # Names written as YAML values first: where a formula's reading of the same place is vaguer (a trigger's
    # `on: festival` is an event, not any name), the structural use is the one kept.
    out = _structural_uses(m)
    for rule, tree, text in formulas(m):
        for kind, name, node in formula_uses(tree):
            place = _text_place(text, node, name)
            if place is not None:
                section = denotes(node) if denotes is not None and kind in ("read", "write") else None
                out.append(Use(kind, name, m.id, rule, place, section))
    # A cost term is both paid and read, a structural value may parse as a formula: one place, one use.
    seen: set[tuple[str, Place]] = set()
    unique = []
    for use in out:
        if (use.name, use.place) not in seen:
            seen.add((use.name, use.place))
            unique.append(use)
    return unique


def _structural_uses(m: Module) -> list[Use]:
    """Names written as YAML values rather than inside formulas: requires, `on:`, a phase's actions,
    `replace:` targets, and the values or sets a counter, zone or track declaration names."""
    out: list[Use] = []
    file = real(m.file)

    def add(kind: str, name: object, span: Span | None, rule: str, section: str | None = None,
            shift: int = 0) -> None:
        if isinstance(name, str) and span is not None and real(span.file) == file:
            place = Place(file, span.line, span.col + shift, span.col + shift + len(name))
            out.append(Use(kind, str(name), m.id, rule, place, section))

    reqs = m.doc.get("requires")
    if isinstance(reqs, list):
        for i, req in enumerate(reqs):
            add("module", req, _ispans(reqs)[i] if i < len(_ispans(reqs)) else None, "requires")
    triggers = m.doc.get("triggers")
    for name, node in (triggers.items() if isinstance(triggers, dict) else []):
        if isinstance(node, dict) and isinstance(node.get("on"), str):
            add("on", node["on"], _vspans(node).get("on"), f"triggers.{name}")
    flow = m.doc.get("flow")
    phases = flow.get("phases") if isinstance(flow, dict) else None
    for name, node in (phases.items() if isinstance(phases, dict) else []):
        acts = node.get("actions") if isinstance(node, dict) else None
        for i, act in enumerate(acts if isinstance(acts, list) else []):
            spans = _ispans(acts)
            add("action", act, spans[i] if i < len(spans) else None, f"flow.phases.{name}")
    replace = m.doc.get("replace")
    for target in (replace if isinstance(replace, dict) else []):
        section, _, name = str(target).partition(".")
        add("replace", name, _kspans(replace).get(target), f"replace.{target}", section, len(section) + 1)
    for section, keys in (("counters", ("initial", "max", "keys")), ("zones", ("capacity", "slots")),
                          ("tracks", ("spaces",))):
        table = m.doc.get(section)
        for name, node in (table.items() if isinstance(table, dict) else []):
            for key in keys:
                raw = node.get(key) if isinstance(node, dict) else None
                if isinstance(raw, str) and re.fullmatch(r"[a-z_][A-Za-z0-9_]*", raw):
                    add("read", raw, _vspans(node).get(key), f"{section}.{name}")
    return out


_NAME = re.compile(r"(?<![\w$])[a-z_][A-Za-z0-9_]*")


def scenario_uses(doc: Any, lines: list[str]) -> list[Use]:
    """The names a scenario file uses: its modules, each step's action, and every name in its `state` and
    `expect` (`p1.stock[wood]`, a piece's kind and zone). Names are found on the file's own lines, from the
    place the loader gives each key or value."""
    out: list[Use] = []
    if not isinstance(doc, dict):
        return out

    def add(kind: str, text: object, span: Span | None, names: bool = False) -> None:
        if not isinstance(text, str) or span is None or not 0 < span.line <= len(lines):
            return
        line = lines[span.line - 1]
        start = line.find(text, span.col - 1)
        if start < 0:
            return
        found = [(m.group(), start + m.start()) for m in _NAME.finditer(text)] if names else [(text, start)]
        for name, col in found:
            if not re.fullmatch(r"p[1-9]", name):
                place = Place(real(span.file), span.line, col + 1, col + 1 + len(name))
                out.append(Use(kind, name, "", "scenario", place))

    mods = doc.get("modules")
    for i, mid in enumerate(mods if isinstance(mods, list) else []):
        add("module", mid, _ispans(mods)[i] if i < len(_ispans(mods)) else None)
    steps = doc.get("steps")
    for step in steps if isinstance(steps, list) else []:
        if isinstance(step, dict):
            add("action", step.get("action"), _vspans(step).get("action"))
    state = doc.get("state")
    state = state if isinstance(state, dict) else {}
    for section in ("counters", "markers"):
        table = state.get(section)
        for key in table if isinstance(table, dict) else []:
            add("read", key, _kspans(table).get(key), names=True)
    empty = state.get("empty")
    for i, zone in enumerate(empty if isinstance(empty, list) else []):
        add("read", zone, _ispans(empty)[i] if i < len(_ispans(empty)) else None, names=True)
    pieces = state.get("pieces")
    for piece in pieces if isinstance(pieces, list) else []:
        if isinstance(piece, dict):
            add("read", piece.get("kind"), _vspans(piece).get("kind"))
            add("read", piece.get("zone"), _vspans(piece).get("zone"), names=True)
    expect = doc.get("expect")
    for key in expect if isinstance(expect, dict) else []:
        add("read", key, _kspans(expect).get(key), names=True)
    return out


class Index:
    """Declarations and uses of every module of one pack (and of the scenario files seen)."""

    def __init__(self, modules: dict[str, Module], per_module: dict[str, tuple[list[Declaration], list[Use]]],
                 scenarios: dict[str, list[Use]] | None = None):
        self.modules = modules
        self.closure = closures(modules) if modules else {}
        self.decls = [d for ds, _ in per_module.values() for d in ds]
        self.uses = [u for _, us in per_module.values() for u in us]
        self.uses += [u for us in (scenarios or {}).values() for u in us]
        self.by_name: dict[str, list[Declaration]] = {}
        for d in self.decls:
            self.by_name.setdefault(d.name, []).append(d)

    def module_of(self, file: str) -> str | None:
        return next((mid for mid, m in self.modules.items() if real(m.file) == file), None)

    def visible(self, file: str) -> list[Declaration]:
        """What a rule of this file can name: its module and every module it requires (all, for a file that is
        not a module, like a scenario)."""
        mid = self.module_of(file)
        if mid is None:
            return self.decls
        seen = self.closure.get(mid, {mid})
        return [d for d in self.decls if d.module in seen]

    def at(self, file: str, line: int, col: int) -> Use | Declaration | None:
        for use in self.uses:
            if use.place.holds(file, line, col):
                return use
        for d in self.decls:
            if d.place.holds(file, line, col):
                return d
        return None

    def definitions(self, target: Use | Declaration) -> list[Declaration]:
        if isinstance(target, Declaration):
            return [target]
        sections = (target.section,) if target.section else NAMED_BY.get(target.kind, READABLE)
        found = [d for d in self.by_name.get(target.name, []) if d.section in sections]
        # A scenario's use sees the whole pack (the modules it loads are its choice).
        seen = self.closure.get(target.module, {target.module}) if target.module else set(self.modules)
        near = [d for d in found if d.module in seen]
        # The declaration in the modules the use can see wins; a name the module forgot to require still leads
        # somewhere (the checker says to require it).
        ranked = near or found
        return sorted(ranked, key=lambda d: sections.index(d.section))[:1] if near else ranked

    def references(self, decl: Declaration) -> list[Use]:
        out = []
        for use in self.uses:
            if use.name != decl.name:
                continue
            if decl in self.definitions(use):
                out.append(use)
        return out
