"""The editor's view of a module's formulas: every string of its YAML parsed, with the rule it belongs to, and
what each reads, writes, pays, emits and calls, by name.

`boardrules check` reads the linked tree (analysis/uses.py). The editor cannot: a module being typed rarely links,
and completion, hover and go-to-definition must still find every name in it. So this walk goes over the YAML
itself, generically: a key it does not know is walked into, strings under body keys are effect lines, strings
under expression keys are expressions, and a line that does not parse is skipped (the linker reports it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from ..diagnostics import Span
from ..language import syntax as s
from ..language.effect_builder import Text
from ..language.linker import Module
from ..language.parser import ParseError, parse

BODY_KEYS = frozenset({"do", "then", "else", "before", "after", "instead", "cases", "options"})
EXPR_KEYS = frozenset({"if", "allowed_if", "match", "repeat", "by", "while", "as", "when", "first_player", "from",
                       "until", "expr", "in"})
GUARD_KEYS = frozenset({"if", "allowed_if", "while", "when"})
EXPR_LIST_KEYS = frozenset({"ranking"})
SKIP_KEYS = frozenset({"title", "source", "note", "notes", "type", "default", "unknown", "on", "per",
                       "keys", "module", "requires", "players", "sets", "pieces", "tracks", "dice", "events",
                       "counters", "zones", "value", "by_players", "actions_per_turn", "input", "output"})
RULE_SECTIONS = ("procedures", "setup", "actions", "triggers", "scoring", "costs", "values")
WORDS = frozenset({"each_once", "all_passed", "any", "game", "player"})


@dataclass(frozen=True, slots=True)
class Site:
    """One parsed string of a rule."""

    module: str
    rule: str  # section.name, e.g. actions.hire; flow.<path> for the game flow
    node: s.Node
    text: Text
    role: str  # effect, expr, guard, cost
    guarded: bool  # inside a `may`, or after a `limit` or `pay` in the same body: a loop through it is bounded

    def span(self, node: s.Node | None = None) -> Span:
        return self.text.at((node or self.node).pos)


def _parse(value: Any, fallback: Span, start: str) -> tuple[s.Node, Text] | None:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = Text(value, fallback)
    try:
        return parse(text.text, start), text
    except ParseError:
        return None


def _is_bound(node: s.Node) -> bool:
    """A statement after which the rest of its body runs a bounded number of times in a loop."""
    return isinstance(node, s.Limit | s.Pay)


class Walker:
    def __init__(self, module: Module) -> None:
        self.module = module
        self.sites: list[Site] = []

    def walk(self) -> list[Site]:
        doc = self.module.doc
        for section, table in doc.items():
            if section in SKIP_KEYS or section == "replace" or not isinstance(table, dict):
                continue
            spans = getattr(table, "key_spans", {})
            for name, node in table.items():
                self.rule(f"{section}.{name}", section, node, spans.get(name, self.module.span))
        replace = doc.get("replace")
        if isinstance(replace, dict):
            spans = getattr(replace, "key_spans", {})
            for target, node in replace.items():
                section = str(target).partition(".")[0]
                self.rule(str(target), section, node, spans.get(target, self.module.span))
        return self.sites

    def rule(self, rule: str, section: str, node: Any, span: Span) -> None:
        if section == "costs":
            raw = node.get("cost") if isinstance(node, dict) else node
            self._add(rule, raw, span, "cost", "cost", False)
        elif section == "values":
            if isinstance(node, dict) and "expr" in node:
                self._add(rule, node["expr"], getattr(node, "value_spans", {}).get("expr", span), "expr", "expr", False)
        elif section in ("procedures", "setup", "actions", "triggers", "scoring") and not isinstance(node, dict):
            self.body(rule, node, span, False)
        elif isinstance(node, dict | list):
            self.mapping(rule, node, span, False)

    def _add(self, rule: str, raw: Any, span: Span, start: str, role: str, guarded: bool) -> s.Node | None:
        parsed = _parse(raw, span, start)
        if parsed is None:
            return None
        self.sites.append(Site(self.module.id, rule, parsed[0], parsed[1], role, guarded))
        return parsed[0]

    def mapping(self, rule: str, node: Any, span: Span, guarded: bool) -> None:
        if isinstance(node, list):
            spans = getattr(node, "item_spans", None) or []
            for i, item in enumerate(node):
                if isinstance(item, dict | list):
                    self.mapping(rule, item, spans[i] if i < len(spans) else span, guarded)
            return
        if not isinstance(node, dict):
            return
        vspans = getattr(node, "value_spans", {})
        for key, value in node.items():
            key = str(key)
            here = vspans.get(key, span)
            if key in SKIP_KEYS:
                continue
            if key == "cost":
                self._add(rule, value, here, "cost", "cost", guarded)
            elif key == "for":
                self._add(rule, value, here, "for_head", "expr", guarded)
            elif key in EXPR_KEYS and not isinstance(value, dict | list):
                if not (isinstance(value, str) and value in WORDS):
                    self._add(rule, value, here, "expr", "guard" if key in GUARD_KEYS else "expr", guarded)
            elif key in EXPR_LIST_KEYS and isinstance(value, list):
                ispans = getattr(value, "item_spans", None) or []
                for i, item in enumerate(value):
                    self._add(rule, item, ispans[i] if i < len(ispans) else here, "expr", "expr", guarded)
            elif key == "may":
                self.body(rule, value.get("do", []) if isinstance(value, dict) else value, here, True)
                if isinstance(value, dict) and "by" in value:
                    self._add(rule, value["by"], here, "expr", "expr", guarded)
            elif key in ("cases", "options") and isinstance(value, dict):
                ospans = getattr(value, "value_spans", {})
                for label, opt in value.items():
                    self.body(rule, opt, ospans.get(label, here), guarded)
            elif key in BODY_KEYS:
                self.body(rule, value, here, guarded)
            elif isinstance(value, dict | list):
                self.mapping(rule, value, here, guarded)

    def body(self, rule: str, items: Any, span: Span, guarded: bool) -> None:
        if isinstance(items, dict):  # a guarded option {if: ..., do: [...]}, or a block
            self.mapping(rule, items, span, guarded)
            return
        if not isinstance(items, list):
            items = [items]
        spans = getattr(items, "item_spans", None) or []
        for i, item in enumerate(items):
            here = spans[i] if i < len(spans) else span
            if isinstance(item, dict | list):
                self.mapping(rule, item, here, guarded)
                continue
            node = self._add(rule, item, here, "effect", "effect", guarded)
            if node is not None and _is_bound(node):
                guarded = True


def walk_modules(modules: dict[str, Module]) -> list[Site]:
    sites: list[Site] = []
    for m in modules.values():
        sites.extend(Walker(m).walk())
    return sites


_SUBNODES: dict[int, tuple[Any, tuple[s.Node, ...]]] = {}


def subnodes(node: Any) -> tuple[s.Node, ...]:
    """`node` and every syntax node below it, found through the dataclass fields (so new node kinds are walked).
    Parsed lines are shared (the parser caches by text, a YAML alias repeats one line), so each is walked once."""
    hit = _SUBNODES.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, s.Node):
            out.append(n)
            stack.extend(getattr(n, f.name) for f in fields(n) if f.name != "pos")
        elif isinstance(n, tuple | list):
            stack.extend(n)
    found = tuple(out)
    if isinstance(node, s.Node):
        if len(_SUBNODES) > 65_536:  # as many lines as the parser's own cache keeps: a long process stays bounded
            _SUBNODES.clear()
        _SUBNODES[id(node)] = (node, found)
    return found


@dataclass(frozen=True, slots=True)
class Ref:
    kind: str  # read, write, increase, fill, pay, emit, defer, until, call, cost, on
    name: str
    site: Site | None  # None for a use by a declaration (a zone's capacity names a value) or a trigger's `on`
    node: s.Node | None
    section: str | None = None  # what the linker resolved the name to (counters, properties), when it said


def _top_name(node: s.Node) -> str | None:
    """The declared name an assignment target or a zone expression is about: `me.coins`, `price[t]`, `farm`."""
    if isinstance(node, s.Index):
        node = node.obj
    if isinstance(node, s.Attr):
        return node.name
    if isinstance(node, s.Name):
        return node.id
    return None


def site_refs(site: Site, denotes: Callable[[s.Node], str | None] | None = None) -> list[Ref]:
    """The references of one site; `denotes` (Rules.denotes) tells a piece property from a player's counter of the
    same name."""
    out: list[Ref] = []
    skip: set[int] = set()  # ids of nodes already accounted for as written

    def add(kind: str, name: str | None, node: s.Node, section: str | None = None) -> None:
        if name:
            out.append(Ref(kind, name, site, node, section or (denotes(node) if denotes is not None else None)))

    for n in subnodes(site.node):
        if isinstance(n, s.Assign):
            target = n.target.obj if isinstance(n.target, s.Index) else n.target
            skip.add(id(target))
            add("write", _top_name(n.target), n.target)
            if n.op != "-=":
                add("increase", _top_name(n.target), n.target)
        elif isinstance(n, s.Create):
            for prop, value in n.props:
                add("write", prop, value, "properties")
            add("fill", _top_name(n.zone), n.zone)
            skip.add(id(n.zone))
            add("read", n.kind, n)
        elif isinstance(n, s.Move):
            add("fill", _top_name(n.to), n.to)
            skip.add(id(n.to))
        elif isinstance(n, s.Refill):
            add("fill", _top_name(n.zone), n.zone)
        elif isinstance(n, s.CostTerm):
            add("pay", n.counter, n)
            add("read", n.counter, n)
        elif isinstance(n, s.CostRef):
            add("cost", n.name, n)
        elif isinstance(n, s.Emit):
            add("emit", n.event, n)
        elif isinstance(n, s.Defer):
            add("defer", n.event, n)
            add("until", n.until or "turn_end", n)
        elif isinstance(n, s.CallProc):
            add("call", n.proc, n)
        elif isinstance(n, s.Advance | s.Place):
            add("read", _top_name(n.marker), n)
        elif isinstance(n, s.Roll):
            add("read", n.die, n)
        elif isinstance(n, s.Name) and id(n) not in skip:
            add("read", n.id, n)
        elif isinstance(n, s.Attr) and id(n) not in skip:
            add("read", n.name, n)
    return out
