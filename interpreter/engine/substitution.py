"""Payment substitutions: part of any cost may be paid another way ("any 1 gem may be paid with 2 coins").

A substitution names one unit of what costs ask for (`1 gems[any]`, `1 tokens`) and what may be paid instead of
each such unit. When a cost is paid, every term it matches may have 0, 1, ... of its units paid the other way;
each mix is one more way to pay, offered beside the cost's own alternatives in the payer's Decision. Only the
cost's own terms are substituted (what is paid instead is not substituted again), and one substitution applies
to a term at a time.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, NamedTuple

from ..dataclass_code import dataclass
from ..diagnostics import Span
from .effects import CostC, CostTermC
from .runtime import check_known
from .values import plain

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
    shortfall: bool = False  # only the units the payer lacks are paid instead: one way, not every mix
    texts: tuple[str, str] = ("", "")  # `pay` and `with` as written, for explain
    pay_at: Span | None = None  # where `pay`'s term is written


class Due(NamedTuple):
    """One term of a way to pay, worked out before anything is paid: its amount and key are values, not rules."""

    counter: str
    base: str  # the counter's state key: "p1.coins", or "market" for a game counter
    amount: int
    key: Any  # None, "any", "different", or a key
    marker: bool = False  # a track marker moved by `amount` spaces, not a counter
    lacking: Due | None = None  # `lacking N c each`: what pays one unit the payer lacks (a way's dues have none)


@dataclass(frozen=True, slots=True)
class Way:
    """One way to pay a cost: one of its alternatives (`alternative` is its index), maybe with substitutions."""

    alternative: int
    dues: tuple[Due, ...]

    def label(self) -> str:
        return " + ".join(f"{d.amount} {d.counter}" + (f"[{plain(d.key)}]" if d.key is not None else "")
                          for d in self.dues) or "nothing"


def _matches(sub: SubstituteDef, due: Due) -> bool:
    if sub.counter != due.counter:
        return False
    return sub.key in (None, "any") or (due.key not in ("any", "different") and str(due.key) == sub.key)


def _merge(dues: list[Due]) -> tuple[Due, ...]:
    """One way to pay, with dues of the same counter and fixed key added together (2 coins + 1 coins)."""
    totals: dict[tuple[str, str | None], int] = {}
    first: dict[tuple[str, str | None], Due] = {}
    order: list[Due | tuple[str, str | None]] = []
    for d in dues:
        if d.key in ("any", "different"):
            order.append(d)
            continue
        slot = (d.base, None if d.key is None else str(d.key))
        if slot not in totals:
            order.append(slot)
            totals[slot] = 0
            first[slot] = d
        totals[slot] += d.amount
    out = []
    for item in order:
        d = item if isinstance(item, Due) else first[item]._replace(amount=totals[item])
        if d.amount:
            out.append(d)
    return tuple(out)


def _shortfall(g: Any, unit: int, d: Due, others: list[Due], instead: list[Due], f: Frame) -> list[list[Due]]:
    """What a shortfall substitute offers for one due: the payer pays what they hold of it (above its floor, and
    after the way's other dues of the same cell) and the rest in whole units paid instead; nothing when they hold
    enough. For `[any]`, the keys they hold the most of (a decision when several tie), so that as much as they can
    is paid with what the cost asks."""
    if d.key == "different":
        return []  # one each of several keys: there is no one part to lack
    if d.marker:
        return _marker_shortfall(g, unit, d, others, instead)
    keys = [k for k, _, _ in g._cells(d.base, d.counter)] if d.key == "any" else [d.key]
    out: list[list[Due]] = []
    most = None
    for key in keys:
        cell = d.base if key is None else f"{d.base}[{plain(key)}]"
        held = g._have(cell, f) - g._floor(cell) - sum(
            o.amount for o in others if o.base == d.base and o.key not in ("any", "different")
            and (None if o.key is None else str(plain(o.key))) == (None if key is None else str(plain(key))))
        lack = d.amount - max(held, 0)
        if lack <= 0:
            return []  # what the cost asks can be paid as it is
        if most is not None and lack > most:
            continue
        if most is None or lack < most:
            most, out = lack, []
        way = _covered(d._replace(key=key), lack, unit, instead)
        if way is not None:
            out.append(way)
    return out


def _covered(d: Due, lack: int, unit: int, instead: list[Due]) -> list[Due] | None:
    """The due with what is lacking of it paid instead, in whole units of `unit`; None when no whole number of
    units fits in what it asks."""
    units = -(-lack // unit)
    if units * unit > d.amount:
        return None
    rest = d.amount - units * unit
    return ([d._replace(amount=rest)] if rest else []) + [w._replace(amount=w.amount * units) for w in instead]


def _marker_shortfall(g: Any, unit: int, d: Due, others: list[Due], instead: list[Due]) -> list[list[Due]]:
    """A shortfall substitute for a marker's move: the spaces it can still move (after the way's other moves of
    it) are paid with it, the rest instead. A circular track lacks nothing."""
    reach = g.marker_reach(d.base)
    if reach is None:
        return []
    held = reach - sum(o.amount for o in others if o.marker and o.base == d.base)
    lack = d.amount - max(held, 0)
    way = _covered(d, lack, unit, instead) if lack > 0 else None
    return [] if way is None else [way]


def ways(g: Any, cost: CostC, f: Frame) -> list[Way]:
    """The cost's alternatives, then every way substitutions and `lacking` terms add to them, all worked out in the
    state as it is now: paying one term never changes what another asks for."""
    own = [[g.due(term, f) for term in alt] for alt in cost.alternatives]
    lacking = any(d.lacking is not None for dues in own for d in dues)
    # A due without `lacking` is kept as it is (most are: a namedtuple's _replace per due per pay showed in
    # profiles of failed dry runs).
    plain = [Way(i, tuple(d if d.lacking is None else d._replace(lacking=None) for d in dues) if lacking
                 else tuple(dues)) for i, dues in enumerate(own)]
    subs = g.rules.substitutes
    if subs:
        subs = [s for s in subs if s.guard is None or check_known(s.guard.fn(f), f)]
    if not subs and not lacking:
        return plain
    out = list(plain)
    for way, dues in zip(plain, own, strict=True):
        per_due: list[list[list[Due]]] = []
        for i, d in enumerate(way.dues):
            options = [[d]]
            others = [o for j, o in enumerate(way.dues) if j != i]
            if dues[i].lacking is not None:
                options += _shortfall(g, 1, d, others, [dues[i].lacking], f)
            for sub in subs:
                if not _matches(sub, d):
                    continue
                instead = [g.due(w, f) for w in sub.instead]
                if sub.shortfall:
                    options += _shortfall(g, sub.unit, d, others, instead, f)
                    continue
                for k in range(1, d.amount // sub.unit + 1):
                    rest = d.amount - k * sub.unit
                    options.append(([d._replace(amount=rest)] if rest else [])
                                   + [w._replace(amount=w.amount * k) for w in instead])
            per_due.append(options)
        for combo in itertools.islice(itertools.product(*per_due), 1, None):  # the first is the way itself
            if len(out) >= MAX_WAYS:
                return out
            out.append(Way(way.alternative, _merge([d for part in combo for d in part])))
    return out
