"""What `extend:` adds and nothing uses (W864): a symbol added to a set, or a key added to a counter, that no rule
names and that no rule reaches by going through the set or the counter's keys (a `for` over the set, `[any]`, a
key held in a name). Properties an extension adds to a piece kind are declarations like any other: read/write
(W801-W803) covers them.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostics, Span
from ..engine import effects as e
from ..language import syntax as s
from .facts import Facts
from .tree import walk
from .walk import subnodes


def _mentioned(facts: Facts) -> set[str]:
    """Every word the rules use as a name, a symbol, a key or a `match` label."""
    words: set[str] = set(facts.refs)
    for site in facts.sites:
        for n in subnodes(site.node):
            if isinstance(n, s.Literal) and isinstance(n.value, str):
                words.add(n.value)
            elif isinstance(n, s.CostTerm) and n.key:
                words.add(n.key)
    for body in facts.linked.bodies.values():
        for eff in walk(body):
            if isinstance(eff, e.MatchE):
                words.update(str(label) for label, _ in eff.cases)
    return words


def _keyed_freely(facts: Facts, counter: str, keys: set[str]) -> bool:
    """Whether a rule reaches a counter's cells by a key that is not written out (`[any]`, `[different]`, a
    name that is not one of its keys)."""
    for site in facts.sites:
        for n in subnodes(site.node):
            if isinstance(n, s.CostTerm) and n.counter == counter and n.key is not None and n.key not in keys:
                return True
            if isinstance(n, s.Index):
                fam = n.obj.name if isinstance(n.obj, s.Attr) else n.obj.id if isinstance(n.obj, s.Name) else None
                if fam == counter and not (isinstance(n.key, s.Name) and n.key.id in keys):
                    return True
    return bool(facts.used(counter, "read", section="counters")) and any(
        isinstance(n, s.Call) and n.fn == "keys" for site in facts.sites for n in subnodes(site.node))


def _added(facts: Facts) -> list[tuple[str, str, str, Span]]:
    """(section, name, added word, place) for each symbol or key an extension adds."""
    out: list[tuple[str, str, str, Span]] = []
    for m in facts.modules.values():
        table = m.doc.get("extend")
        if not isinstance(table, dict):
            continue
        for target, spec in table.items():
            section, _, name = str(target).partition(".")
            items: Any = spec if section == "sets" else spec.get("keys") if section == "counters" and isinstance(
                spec, dict) else None
            if not isinstance(items, list):
                continue
            spans = getattr(items, "item_spans", None) or []
            fallback = getattr(table, "key_spans", {}).get(target, m.span)
            for i, word in enumerate(items):
                out.append((section, name, str(word), spans[i] if i < len(spans) else fallback))
    return out


def check(facts: Facts, diags: Diagnostics) -> None:
    added = _added(facts)
    if not added:
        return
    words = _mentioned(facts)
    rules = facts.rules
    for section, name, word, span in added:
        if word in words:
            continue
        if section == "sets":
            keyed = [c for c in rules.counters.values() if c.keys is not None and word in c.keys]
            if facts.used(name, "read") or any(_keyed_freely(facts, c.name, set(c.keys or ())) for c in keyed):
                continue
            what = f"sets.{name}"
        else:
            if _keyed_freely(facts, name, set(rules.counters[name].keys or ()) - {word}):
                continue
            what = f"counters.{name}"
        diags.warning("W864", f"'{word}' is added to {what}, but no rule names it or goes through {what}",
                      span, f"use '{word}' in a rule, or leave it out of the extension")
