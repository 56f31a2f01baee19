"""Hooks and substitutes that quietly take rules away:

- an `instead` hook that never runs `proceed`, where what it replaces changes counters other rules read or emits
  events triggers wait for: those rules lose their input (W859);
- a substitute that pays nothing for what it stands for (at some player count), or pays it with the very same
  thing (W860);
- a substitute for something no cost of the game asks, which is never offered (W868).
"""

from __future__ import annotations

from ..diagnostics import Diagnostics
from ..engine import effects as e
from ..engine.rules import Rules
from ..engine.substitution import SubstituteDef
from .facts import Facts
from .points import at_player_counts, evaluate
from .tree import every_effect, walk


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
            # A zone the wrapped rule fills or empties (setup dealing a pile) that other rules read.
            zones = sorted(z for z in lost.zone_names if not kept.changes_zone(z)
                           and (z in facts.outputs or facts.used(z, "read", section="zones")))
            if not read and not events and not zones:
                continue
            parts = [(f"changes {', '.join(read)}", read), (f"emits {', '.join(events)}", events),
                     (f"moves pieces in {', '.join(zones)}", zones)]
            what = ", ".join(text for text, names in parts if names)
            diags.warning("W859", f"this instead hook never runs proceed, so '{eff.target}' no longer {what}, "
                          "which other rules rely on", eff.instead_span or eff.span,
                          "add proceed where the original should still happen, or do its part in the hook")


def _cost_terms(facts: Facts) -> list[e.CostTermC]:
    """Every term a cost of the game asks: declared costs, actions' costs and `pay` lines (in any rule, hooks and
    what a hook stands in for included), with what `lacking` pays for each unit lacking."""
    rules = facts.rules
    costs = list(rules.costs.values()) + [a.cost for a in rules.actions.values() if a.cost is not None]
    costs += [x.cost for body in facts.linked.bodies.values() for x in every_effect(body) if isinstance(x, e.PayE)]
    terms = [term for cost in costs for alt in cost.alternatives for term in alt]
    return terms + [term.lacking for term in terms if term.lacking is not None]


def _stands_in(sub: SubstituteDef, term: e.CostTermC) -> bool:
    """Whether a substitute may pay for part of a cost term."""
    if term.counter != sub.counter:
        return False
    return sub.key in (None, "any") or term.key_fn is not None or term.key in (None, sub.key, "any", "different")


def _free_at(sub: SubstituteDef, rules: Rules) -> list[int]:
    """The player counts at which every amount the substitute pays instead is 0 or less."""
    out = []
    for count, consts in at_player_counts(rules).items():
        amounts = [evaluate(term.amount.tree, {}, consts) for term in sub.instead]
        if all(type(a) is int and a <= 0 for a in amounts):
            out.append(count)
    return out


def _substitutes(facts: Facts, diags: Diagnostics) -> None:
    rules = facts.rules
    terms = _cost_terms(facts)
    for sub in rules.substitutes:
        where = sub.instead[0].span(sub.span) if sub.instead else sub.span
        if not any(_stands_in(sub, term) for term in terms):
            what = sub.counter if sub.key in (None, "any") else f"{sub.counter}[{sub.key}]"
            diags.warning("W868", f"substitute '{sub.name}' stands in for {what}, but no cost of the game asks "
                          f"for {what}, so it is never offered", sub.pay_at or sub.span,
                          "name in pay: what a cost asks (a counter or marker in some cost:, costs: or pay line)")
            continue
        free = _free_at(sub, rules)
        if free:
            players = "" if free == list(range(rules.players_min, rules.players_max + 1)) else \
                f" with {', '.join(map(str, free))} players"
            diags.warning("W860", f"substitute '{sub.name}' pays nothing for each {sub.unit} {sub.counter}{players}, "
                          f"so every cost in {sub.counter} can be paid for free", where,
                          "give what is paid instead an amount of at least 1")
        elif any(t.counter == sub.counter and t.key == sub.key for t in sub.instead):
            diags.warning("W860", f"substitute '{sub.name}' pays {sub.counter} with {sub.counter}: it offers "
                          "nothing new", where, "pay with another counter, or remove the substitute")
