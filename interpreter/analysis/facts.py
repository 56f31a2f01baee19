"""What the analyses share: every declaration of the pack with its place, every rule's references, the roles a
pack gives names on purpose (`input: true`, `output: true`), and the linked rules of all modules together."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..diagnostics import Span
from ..engine.rules import Rules
from ..language.linker import Module
from . import linked
from .tree import Linked
from .uses import Index, Ref

# Sections whose entries are names other rules refer to, and what a diagnostic calls them.
KINDS = {"counters": "counter", "zones": "zone", "values": "value", "events": "event", "procedures": "procedure",
         "costs": "cost", "properties": "property"}


@dataclass
class Decl:
    section: str
    name: str
    module: str
    span: Span
    node: Any


@dataclass
class Facts:
    modules: dict[str, Module]
    rules: Rules
    index: Index = field(init=False)
    refs: dict[str, dict[str, list[Ref]]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    decls: dict[str, dict[str, Decl]] = field(default_factory=lambda: defaultdict(dict))
    inputs: set[str] = field(default_factory=set)
    outputs: set[str] = field(default_factory=set)
    triggers: list[tuple[str, str, Span]] = field(default_factory=list)  # (trigger rule, event, span of `on`)
    # The other links (each module with what it requires), indexed only when a name the whole link does not use
    # is asked about: a rule another module replaces, or an option it drops, still uses its names.
    pending: list[Rules] = field(default_factory=list)

    @cached_property
    def linked(self) -> Linked:
        """The linked effect trees, with what each body changes (tree.py)."""
        return Linked(self.rules, self.inputs)

    def used_kind(self, kind: str) -> list[Ref]:
        """The uses of this kind in the whole link: places to report."""
        return [r for table in self.refs.values() for r in table.get(kind, [])]

    def used(self, name: str, *kinds: str, section: str | None = None) -> list[Ref]:
        """The references to `name` of these kinds in any link; with `section`, only those that may mean its
        declaration there (a piece property named like a counter is not a use of the counter)."""
        found = self._used(name, kinds, section)
        while not found and self.pending:  # one more link at a time, until one uses it
            self._add(self.pending.pop())
            found = self._used(name, kinds, section)
        return found

    def _used(self, name: str, kinds: tuple[str, ...], section: str | None) -> list[Ref]:
        table = self.refs.get(name, {})
        return [r for k in kinds for r in table.get(k, []) if section is None or r.section in (None, section)]

    def complete(self) -> None:
        """Add the uses of the other links."""
        while self.pending:
            self._add(self.pending.pop())

    def _add(self, rules: Rules) -> None:
        for ref in Index(rules).refs:
            self.refs[ref.name][ref.kind].append(ref)


def _role(node: Any, facts: Facts, name: str) -> None:
    if isinstance(node, dict):
        if node.get("input") is True:
            facts.inputs.add(name)
        if node.get("output") is True:
            facts.outputs.add(name)


def used_names(links: Iterable[Rules]) -> set[str]:
    """Every name the linked rules use."""
    return {ref.name for rules in _distinct(links) for ref in Index(rules).refs}


def _distinct(links: Iterable[Rules]) -> list[Rules]:
    return list({id(r): r for r in links}.values())


def gather(modules: dict[str, Module], rules: Rules, alone: Iterable[Rules] = ()) -> Facts:
    facts = Facts(modules, rules)
    facts.index = Index(rules)
    for ref in facts.index.refs:
        facts.refs[ref.name][ref.kind].append(ref)
    facts.pending = [r for r in _distinct(alone) if r is not rules]
    facts.triggers = [(f"triggers.{t.name}", t.event, t.on_span or t.span) for ts in rules.triggers.values()
                      for t in ts]
    for ref in linked.declaration_refs(rules):
        facts.refs[ref.name][ref.kind].append(ref)
    for m in modules.values():
        for section in ("counters", "zones", "values", "events", "procedures", "costs", "pieces"):
            table = m.doc.get(section)
            if not isinstance(table, dict):
                continue
            spans = getattr(table, "key_spans", {})
            for name, node in table.items():
                name = str(name)
                span = spans.get(name, m.span)
                if section == "pieces":
                    props = node.get("properties") if isinstance(node, dict) else None
                    pspans = getattr(props, "key_spans", {})
                    for prop, spec in (props.items() if isinstance(props, dict) else []):
                        facts.decls["properties"].setdefault(str(prop), Decl("properties", str(prop), m.id,
                                                                              pspans.get(prop, span), spec))
                        _role(spec, facts, str(prop))
                    continue
                facts.decls[section].setdefault(name, Decl(section, name, m.id, span, node))
                _role(node, facts, name)
        _extended_properties(m, facts)
    return facts


def _extended_properties(m: Module, facts: Facts) -> None:
    """Properties an `extend:` adds to a piece kind are declared there."""
    table = m.doc.get("extend")
    for target, spec in (table.items() if isinstance(table, dict) else []):
        props = spec.get("properties") if str(target).startswith("pieces.") and isinstance(spec, dict) else None
        spans = getattr(props, "key_spans", {})
        for prop, pspec in (props.items() if isinstance(props, dict) else []):
            facts.decls["properties"].setdefault(str(prop), Decl("properties", str(prop), m.id,
                                                                  spans.get(prop, m.span), pspec))
            _role(pspec, facts, str(prop))
