"""What `extend:` adds and nothing uses (W864): a symbol added to a set, or a key added to a counter, that no rule
names and that no rule reaches by going through the set or the counter's keys (a `for` over the set, `[any]`, a
key held in a name). Properties an extension adds to a piece kind are declarations like any other: read/write
(W801-W803) covers them.
"""

from __future__ import annotations

from ..diagnostics import Diagnostics
from ..engine import effects as e
from ..language import checked as c
from .facts import Facts
from .tree import walk


def _mentioned(facts: Facts) -> set[str]:
    """Every word the rules use as a name, a symbol, a key or a `match` label."""
    words: set[str] = set(facts.refs)
    for _, n in facts.index.nodes():
        if isinstance(n, c.Literal) and isinstance(n.value, str):
            words.add(n.value)
    words.update(term.key for term, _ in facts.index.terms if term.key)
    for body in facts.linked.bodies.values():
        for eff in walk(body):
            if isinstance(eff, e.MatchE):
                words.update(str(label) for label, _ in eff.cases)
    return words


def _keyed_by(node: c.Node) -> tuple[str, c.Node] | None:
    """(keyed counter, the key node) of a read or a write of one cell."""
    if isinstance(node, c.Cell):
        return node.counter.name, node.key
    if isinstance(node, c.Index | c.FamilyKey) and not (isinstance(node, c.Index) and node.cell is not None):
        fam = c.declared(node.obj if isinstance(node, c.Index) else node.family, "family")
        return (fam, node.key) if fam is not None else None
    return None


def _keyed_freely(facts: Facts, counter: str, keys: set[str]) -> bool:
    """Whether a rule reaches a counter's cells by a key that is not written out (`[any]`, `[different]`, a
    name that is not one of its keys)."""
    for term, _ in facts.index.terms:
        if term.counter == counter and term.key is not None and term.key not in keys:
            return True
    for _, n in facts.index.nodes():
        found = _keyed_by(n)
        if found is not None and found[0] == counter and not (
                isinstance(found[1], c.Name) and found[1].ref.name in keys):
            return True
    return bool(facts.used(counter, "read", section="counters")) and any(
        isinstance(n, c.Keys) or (isinstance(n, c.Call) and n.fn == "keys") for _, n in facts.index.nodes())


def check(facts: Facts, diags: Diagnostics) -> None:
    added = [(a.section, a.name, a.word, a.span) for a in facts.rules.additions]
    if not added:
        return
    words = _mentioned(facts)
    if facts.pending and any(word not in words for _, _, word, _ in added):
        facts.complete()  # a rule another module replaces may name it
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
