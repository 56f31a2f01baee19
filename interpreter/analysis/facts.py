"""What the analyses share: every declaration of the pack with its place, every rule's references, the roles a
pack gives names on purpose (`input: true`, `output: true`), and the linked rules of all modules together."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import field
from functools import cached_property

from ..dataclass_code import dataclass
from ..diagnostics import Span
from ..engine.rules import Rules, Written
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
    written: Written  # the declaration as its module writes it


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
    for mid in modules:  # the first module (in the pack's order) to declare a name is where it is reported
        for w in rules.written.get(mid, ()):
            if w.section in KINDS:
                facts.decls[w.section].setdefault(w.name, Decl(w.section, w.name, w.module, w.span, w))
                if w.get("input") is True:
                    facts.inputs.add(w.name)
                if w.get("output") is True:
                    facts.outputs.add(w.name)
    return facts
