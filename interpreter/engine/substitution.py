"""Payment substitutions: part of any cost may be paid another way ("any 1 gem may be paid with 2 coins").

A substitution names one unit of what costs ask for (`1 gems[any]`, `1 tokens`) and what may be paid instead of
each such unit. When a cost is paid, every term it matches may have 0, 1, ... of its units paid the other way;
each mix is one more way to pay, offered beside the cost's own alternatives in the payer's Decision. Only the
cost's own terms are substituted (what is paid instead is not substituted again), and one substitution applies
to a term at a time.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..diagnostics import Span
from .effects import CostC, CostTermC
from .runtime import check_known

if TYPE_CHECKING:
    from .interpreter import Frame

MAX_WAYS = 256  # ways to pay one cost, substitutions included: beyond it the rest are not offered


@dataclass(frozen=True)
class SubstituteDef:
    name: str
    counter: str
    key: str | None  # None (an unkeyed counter), a key, or "any"
    unit: int  # how many of the counter one substitution stands for
    instead: tuple[CostTermC, ...]  # what is paid for each unit
    guard: Any  # Fn | None, seen by the payer
    span: Span


def _fixed(term: CostTermC, amount: int, key: Any) -> CostTermC:
    def fixed(f: Any) -> int:
        return amount

    return CostTermC(fixed, term.counter, term.per, key, None)


def _matches(sub: SubstituteDef, term: CostTermC, key: Any) -> bool:
    if sub.counter != term.counter:
        return False
    return sub.key in (None, "any") or (key not in ("any", "different") and str(key) == sub.key)


def _merge(terms: list[tuple[CostTermC, int, Any]]) -> tuple[CostTermC, ...]:
    """One way to pay, with terms of the same counter and fixed key added together (2 coins + 1 coins)."""
    totals: dict[tuple[str, str | None], int] = {}
    order: list[tuple[CostTermC, Any, tuple[str, str | None] | None]] = []
    for term, amount, key in terms:
        if key in ("any", "different"):
            order.append((term, (amount, key), None))
            continue
        slot = (term.counter, None if key is None else str(key))
        if slot not in totals:
            order.append((term, key, slot))
        totals[slot] = totals.get(slot, 0) + amount
    out = []
    for term, key, where in order:
        if where is None:
            amount, key = key
        else:
            amount = totals[where]
        if amount:
            out.append(_fixed(term, amount, key))
    return tuple(out)


def alternatives(g: Any, cost: CostC, f: Frame) -> list[tuple[CostTermC, ...]]:
    """The cost's alternatives, then every way substitutions add to them."""
    subs = [s for s in g.rules.substitutes if s.guard is None or check_known(s.guard(f), f)]
    if not subs:
        return list(cost.alternatives)
    out: list[tuple[CostTermC, ...]] = list(cost.alternatives)
    for alt in cost.alternatives:
        per_term: list[list[list[tuple[CostTermC, int, Any]]]] = []
        for term in alt:
            amount = check_known(term.amount(f), f)
            key = term.key_fn(f) if term.key_fn else term.key
            if type(amount) is not int:
                return out  # the payment itself reports the bad amount
            ways = [[(term, amount, key)]]
            for sub in subs:
                if not _matches(sub, term, key):
                    continue
                for k in range(1, amount // sub.unit + 1):
                    rest = amount - k * sub.unit
                    way = [(term, rest, key)] if rest else []
                    for w in sub.instead:
                        w_amount = check_known(w.amount(f), f)
                        way.append((w, w_amount * k, w.key_fn(f) if w.key_fn else w.key))
                    ways.append(way)
            per_term.append(ways)
        for combo in itertools.islice(itertools.product(*per_term), 1, None):  # the first is the cost itself
            if len(out) >= MAX_WAYS:
                return out
            out.append(_merge([t for part in combo for t in part]))
    return out
