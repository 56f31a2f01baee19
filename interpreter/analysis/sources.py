"""Numbers against their sources (W851), a heuristic: where a declaration or a rule carries a `source` whose
quoted words name numbers ("two points per tile", "the four-sided die", "ranks 1 to 6"), the number written next
to it should be one of them.

Only the quoted part of a source is read (file names and section numbers are not quotes). A declaration's number
(a value, a die's sides, a track's spaces, a zone's slots or capacity, a counter's start or max) must be among
the quote's numbers. A rule's amounts other than 0 and 1 (not the bounds in its conditions) must share at least
one with the quote's numbers.
"""

from __future__ import annotations

import re
from typing import Any

from ..diagnostics import Diagnostics, Span
from ..engine.rules import Written
from ..language import checked as c
from .facts import Facts

_WORDS = {w: i for i, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                                      "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
                                      "sixteen", "seventeen", "eighteen", "nineteen", "twenty"))}
_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "once": 1, "twice": 2, "single": 1, "double": 2,
               "triple": 3, "pair": 2, "dozen": 12})
_DIE_NAME = re.compile(r"d(\d+)")
_QUOTE = re.compile(r"\"([^\"]*)\"|“([^”]*)”")
_TOKEN = re.compile(r"[a-z]+|\d+")
# Where a declaration keeps its number, by section.
_NUMBERS = {"dice": ("sides",), "tracks": ("spaces",), "zones": ("slots", "capacity"), "counters": ("initial", "max"),
            "values": ("value", "by_players")}


def quoted_numbers(source: Any) -> set[int]:
    """The numbers, in digits or in words, inside the quotes of a source."""
    if not isinstance(source, str):
        return set()
    found: set[int] = set()
    for m in _QUOTE.finditer(source):
        for token in _TOKEN.findall((m.group(1) or m.group(2) or "").lower()):
            if token.isdigit():
                found.add(int(token))
            elif token in _WORDS:
                found.add(_WORDS[token])
    return found


def _declared(node: Written, key: str) -> set[int]:
    raw = node.get(key)
    if isinstance(raw, dict):
        return {v for v in raw.values() if isinstance(v, int) and not isinstance(v, bool)}
    return {raw} if isinstance(raw, int) and not isinstance(raw, bool) else set()


def check(facts: Facts, diags: Diagnostics) -> None:
    written = facts.rules.written
    for mid in facts.modules:
        fallback = facts.modules[mid].span
        for section, keys in _NUMBERS.items():
            for node in (w for w in written.get(mid, ()) if w.section == section):
                quote = quoted_numbers(node.get("source"))
                if not quote:
                    continue
                for key in keys:
                    numbers = _declared(node, key)
                    if numbers and not numbers & quote:
                        diags.warning("W851", f"{section}.{node.name} says {_list(numbers)}, but its source quotes "
                                      f"{_list(quote)}", node.at(key, fallback),
                                      "read the source again: is the number right?")
    _dice_names(facts, diags)
    _rules(facts, diags)


def _dice_names(facts: Facts, diags: Diagnostics) -> None:
    """A die named for its sides (d4, d6) says its number too (when no quote says it already)."""
    for mid in facts.modules:
        for node in (w for w in facts.rules.written.get(mid, ()) if w.section == "dice"):
            match = _DIE_NAME.fullmatch(node.name)
            sides = node.get("sides")
            if match and isinstance(sides, int) and sides != int(match.group(1)) and not quoted_numbers(
                    node.get("source")):
                diags.warning("W851", f"dice.{node.name} has {sides} sides, but its name says {match.group(1)}",
                              node.at("sides", facts.modules[mid].span),
                              "read the source again: is the number right?")


def _sources(facts: Facts) -> dict[str, Any]:
    """Each rule's `source`, as the linked rules carry it (a declared cost's from its declaration)."""
    r = facts.rules
    out: dict[str, Any] = {f"actions.{n}": a.source for n, a in r.actions.items()}
    out |= {f"triggers.{t.name}": t.source for ts in r.triggers.values() for t in ts}
    out |= {f"triggers.{w.name}": w.source for ws in r.watchers.values() for w in ws}
    out |= {f"procedures.{n}": p.source for n, p in r.procedures.items()}
    out |= {f"setup.{x.name}": x.source for x in r.setup} | {f"scoring.{x.name}": x.source for x in r.scoring}
    out |= {f"costs.{n}": d.written.get("source") for n, d in facts.decls["costs"].items()}
    return {rule: source for rule, source in out.items() if source}


def _rules(facts: Facts, diags: Diagnostics) -> None:
    sources = _sources(facts)
    literals: dict[str, list[tuple[int, Span]]] = {}
    for f in facts.index.formulas:
        if f.role == "guard" or f.rule not in sources:
            continue
        # A bound in a comparison is a condition, not an amount the source states.
        compared = {id(m) for n in f.nodes if isinstance(n, c.Compare) for m in c.nodes(n)}
        for n in f.nodes:
            if id(n) in compared:
                continue
            if isinstance(n, c.Literal) and isinstance(n.value, int) and not isinstance(n.value, bool) \
                    and n.value > 1:
                literals.setdefault(f.rule, []).append((n.value, f.span(n)))
    for rule, found in literals.items():
        quote = quoted_numbers(sources[rule])
        numbers = {v for v, _ in found}
        if quote and not numbers & quote:
            span = min((sp for _, sp in found), key=lambda sp: (sp.line, sp.col))
            diags.warning("W851", f"{rule} uses {_list(numbers)}, but its source quotes {_list(quote)}", span,
                          "read the source again: is the number right?")


def _list(numbers: set[int]) -> str:
    items = sorted(numbers)
    return " and ".join(map(str, items)) if len(items) <= 2 else ", ".join(map(str, items[:-1])) + f" and {items[-1]}"
