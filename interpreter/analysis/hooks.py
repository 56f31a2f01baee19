"""Hooks and substitutes that quietly take rules away:

- an `instead` hook that never runs `proceed`, where what it replaces changes counters other rules read or emits
  events triggers wait for: those rules lose their input (W859);
- a substitute that pays nothing for what it stands for, or pays it with the very same thing (W860).
"""

from __future__ import annotations

from ..diagnostics import Diagnostics
from ..engine import effects as e
from ..language import checked as c
from .facts import Facts
from .tree import walk


def check(facts: Facts, diags: Diagnostics) -> None:
    _instead(facts, diags)
    _substitutes(facts, diags)


def _instead(facts: Facts, diags: Diagnostics) -> None:
    linked = facts.linked
    seen: set[int] = set()
    for body in linked.bodies.values():
        for eff in walk(body):
            if not isinstance(eff, e.WrapE) or eff.instead is None or id(eff) in seen:
                continue
            seen.add(id(eff))
            if any(isinstance(x, e.ProceedE) for x in walk(eff.instead)):
                continue
            lost = linked.changes(eff.inner)
            kept = linked.changes(eff.instead)
            # A counter the pack marks as an output (points a program reads) is relied on like one a rule reads.
            read = sorted(c for c in lost.counters if c not in kept.counters
                          and (c in facts.outputs or facts.used(c, "read", "pay", "cost", section="counters")))
            events = sorted(ev for ev in lost.events if ev not in kept.events and facts.rules.triggers.get(ev))
            if not read and not events:
                continue
            what = ", ".join([f"changes {', '.join(read)}" if read else "", f"emits {', '.join(events)}"
                              if events else ""]).strip(", ")
            diags.warning("W859", f"this instead hook never runs proceed, so '{eff.target}' no longer {what}, "
                          "which other rules rely on", eff.span,
                          "add proceed where the original should still happen, or do its part in the hook")


def _amount(term: e.CostTermC) -> int | None:
    tree = term.amount.tree
    return tree.value if isinstance(tree, c.Literal) and type(tree.value) is int else None


def _substitutes(facts: Facts, diags: Diagnostics) -> None:
    for sub in facts.rules.substitutes:
        amounts = [_amount(t) for t in sub.instead]
        if all(a is not None and a <= 0 for a in amounts):
            diags.warning("W860", f"substitute '{sub.name}' pays nothing for each {sub.unit} {sub.counter}, so "
                          f"every cost in {sub.counter} can be paid for free", sub.span,
                          "give what is paid instead an amount of at least 1")
        elif any(t.counter == sub.counter and t.key == sub.key for t in sub.instead):
            diags.warning("W860", f"substitute '{sub.name}' pays {sub.counter} with {sub.counter}: it offers "
                          "nothing new", sub.span, "pay with another counter, or remove the substitute")
