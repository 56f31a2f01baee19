"""Hover text (Markdown): a name's declaration, type, range and note; a rule read back as prose (tools.prose,
through `explain`'s document) with its `source:` quote; an error code's entry in the code registry."""

from __future__ import annotations

import re
from typing import Any

from ..diagnostics_codes import CODES, explain
from ..engine.rules import Rules
from ..tools.explain import Document
from .complete import describe
from .index import RULES, Declaration

CODE = re.compile(r"^[EW]\d{3}$")


def code_text(code: str) -> str | None:
    """The registry's explanation of an error code, as `check --explain` prints it."""
    if not CODE.match(code) or code not in CODES:
        return None
    return f"```text\n{explain(code)}```"


def _where(d: Declaration) -> str:
    return f"{d.module}, line {d.place.line}"


def _range(d: Declaration, rules: Rules) -> str | None:
    """The numbers a name can hold, as declared."""
    name = d.name
    if d.section == "counters" and name in rules.counters:
        c = rules.counters[name]
        low = c.min if c.min is not None else 0
        high = c.max if c.max is not None else "no maximum"
        start = c.initial if c.initial is not None else 0
        return f"from {low} to {high}, starting at {start}" + (f"; above the maximum: {c.overflow}"
                                                               if c.max is not None else "")
    if d.section == "values" and name in rules.values:
        v = rules.values[name]
        if v.kind == "by_players":
            return "by player count: " + ", ".join(f"{k} players: {x}" for k, x in sorted(v.data.items()))
        if v.kind == "const":
            return f"= {v.data}"
        if v.kind == "expr":
            return f"= `{' '.join(str(v.data).split())}`"
        return f"unknown: {v.data}"
    if d.section == "zones" and name in rules.zones:
        z = rules.zones[name]
        parts = ["ordered" if z.ordered else "unordered"]
        if z.capacity is not None:
            parts.append(f"capacity {z.capacity}")
        if z.slots is not None:
            parts.append(f"{z.slots} slots")
        return ", ".join(parts)
    if d.section == "markers" and d.parent in rules.tracks:
        t = rules.tracks[d.parent]
        way = "wraps" if t.circular else f"a cost moves it {t.spend}"
        return f"spaces 1 to {t.spaces}, starting on {t.markers.get(name, 1)}; {way}"
    if d.section == "sets" and isinstance(d.node, list):
        return ", ".join(str(x) for x in d.node)
    return None


def _notes(node: Any) -> list[str]:
    if not isinstance(node, dict):
        return []
    out = []
    for key in ("title", "note", "notes"):
        raw = node.get(key)
        for text in (raw if isinstance(raw, list) else [raw] if raw else []):
            out.append(" ".join(str(text).split()))
    return out


def declaration_text(d: Declaration, rules: Rules, book: Document | None) -> str:
    out = [f"**{d.name}**: {describe(d, rules)}, declared in {_where(d)}"]
    span = _range(d, rules)
    if span:
        out.append(f"Range: {span}")
    if d.section == "pieces" and d.name in rules.kinds:
        props = rules.kinds[d.name]
        if props:
            out.append("Properties: " + ", ".join(f"{p} ({t})" for p, t in props.items()))
    out += _notes(d.node)
    if d.section in RULES and book is not None:
        out += _prose(book, f"{d.section}.{d.name}")
    elif isinstance(d.node, dict) and d.node.get("source"):
        out.append(f"Source: {' '.join(str(d.node['source']).split())}")
    return "\n\n".join(out)


def _prose(book: Document, key: str) -> list[str]:
    """The rule read back in plain words, as `boardrules explain` prints it."""
    entry = next((e for sec in book.sections for e in sec.entries if e.id == key), None)
    if entry is None:
        return []
    lines = [f"{'  ' * line.depth}- {line.text}" for line in entry.lines]
    out = ["\n".join(lines)] if lines else []
    if entry.change:
        out.append(f"*{entry.change}*")
    if entry.source:
        out.append(f"Source: {' '.join(entry.source.split())}")
    return out
