"""Whether a game can still meet a value its pack leaves unknown: the condition for proving less (totality.py).

A value left `unknown` stops the game (E601) the first time a rule computes with it, and no analysis of refusals
can vouch for that. But what stops a game is a value the rules actually read while it is unknown, not a value the
pack declares: a pack's seed modules keep the text's unknowns while its game module fills them in its setup
(a counter's starting value, each customer's order) or replaces the rule that read one, and an option
(`--set`, `options=`) gives a value before the rules are linked. So the question is asked of a game, not of a
pack. After setup, a game can no longer meet an unknown when

- no rule that can run after setup (an action with its guard, cost and domains, the flow, scoring, a trigger
  on a change or on `turn_end`, and the procedures and triggers of events those reach) mentions a value that
  is unknown for its player count, directly or through a value computed from one, and no track has an unknown
  number of spaces (`reads_unknown`: once per rule set and player count);
- no such rule creates a piece that leaves a property at an unknown default (the same pass);
- the state holds no unknown: no counter cell, no piece property (given, or left at its default) and no zone
  size (`state_known`: once per state object, after setup). By the two points above, nothing a rule does
  afterwards can bring one back; only a hand-made state can (a scenario's `state:`, see Driver.laid_out).

This is per game rather than treating E601 like the rule bugs the analysis does not count as refusals (E510,
E507): a scenario of a seed module that reaches an unknown must still see the move refused by the search as
before, and whole games of a pack whose game module fills every unknown (W867 checks that) lose nothing.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ..language import checked as c
from ..language.checked import Expr
from . import effects as e
from .state import UNKNOWN_SIZE
from .values import Unknown

if TYPE_CHECKING:
    from .machine import Machine
    from .rules import Rules, ValueDecl
    from .totality import Totality


def reads_unknown(rules: Rules, players: int) -> bool:
    """Whether a rule that can run after setup reads a value that is unknown for this many players, or creates a
    piece with a property left at an unknown default."""
    unknown = {name for name, v in rules.values.items() if _unknown_value(v, players)}
    if any(isinstance(t.spaces, str) and rules.resolve_int(t.spaces, players) is None for t in rules.tracks.values()):
        return True
    through = _through_values(rules, unknown)
    defaults = unknown_defaults(rules)
    for found in _parts(rules):
        if isinstance(found, Expr):
            if through and found.tree is not None and not through.isdisjoint(_names(found.tree)):
                return True
        elif type(found) is e.CreateE:
            given = {p for p, _ in found.props}
            if any(p not in given for p in defaults.get(found.kind, ())):
                return True
    return False


def unknown_defaults(rules: Rules) -> dict[str, tuple[str, ...]]:
    """Each piece kind with the properties whose default is unknown."""
    out: dict[str, list[str]] = {}
    for (kind, prop), default in rules.prop_defaults.items():
        if type(default) is Unknown:
            out.setdefault(kind, []).append(prop)
    return {k: tuple(v) for k, v in out.items()}


def state_known(m: Machine, defaults: dict[str, tuple[str, ...]]) -> bool:
    """Whether the state holds no unknown: counter cells, piece properties (given or by default), zone sizes."""
    st = m.state
    if any(type(v) is Unknown for v in st.counters.values()):
        return False
    if any(UNKNOWN_SIZE in (z.capacity, z.slots) for z in st.zones.values()):
        return False
    for rec in st.pieces.values():
        props = rec.props
        if any(type(v) is Unknown for v in props.values()):
            return False
        need = defaults.get(rec.kind)
        if need and any(p not in props for p in need):
            return False
    return True


def usable(m: Machine, total: Totality) -> Totality | None:
    """The analysis if the machine's state holds no unknown (Machine.analysis, on a state not yet found to):
    a state found to hold one is not scanned again until it changes."""
    st = m.state
    journal = st.journal
    last = journal[-1] if journal else None
    seen = m._unknown_at
    if seen and seen[0] is st and seen[1] is journal and seen[2] == len(journal) and seen[3] is last:
        return None  # the same state as when it held one
    if not state_known(m, total.unknown_defaults):
        m._unknown_at = (st, journal, len(journal), last)
        return None
    m._known = st
    return total


def _unknown_value(v: ValueDecl, players: int) -> bool:
    if v.kind == "unknown":
        return True
    if v.kind == "by_players":
        return players not in v.data or _holds_unknown(v.data[players])
    return v.kind != "expr" and _holds_unknown(v.data)


def _holds_unknown(value: Any) -> bool:
    if type(value) is Unknown:
        return True
    if isinstance(value, dict):
        return any(_holds_unknown(x) for x in value.values())
    if isinstance(value, list | tuple):
        return any(_holds_unknown(x) for x in value)
    entries = getattr(value, "entries", None)  # a value table
    return isinstance(entries, dict) and (_holds_unknown(entries) or _holds_unknown(getattr(value, "default", None)))


def _through_values(rules: Rules, unknown: set[str]) -> set[str]:
    """The unknown values' names and those of the values computed from one of them."""
    out = set(unknown)
    changed = bool(out)
    while changed:
        changed = False
        for name, v in rules.values.items():
            if name in out or v.kind != "expr" or v.compiled is None or v.compiled.tree is None:
                continue
            if not out.isdisjoint(_names(v.compiled.tree)):
                out.add(name)
                changed = True
    return out


# The declared name a checked node reads by name (a value, a table, a keyed counter), by the node's kind. A name
# the rule binds counts too when it is spelled like a value: the analysis may only err towards "reads it".
_NAMED: dict[type, Any] = {
    c.Name: lambda n: n.ref.name,
    c.TableRead: lambda n: n.name,
    c.Keys: lambda n: getattr(n.counter, "name", None),
    c.Cell: lambda n: n.counter.name,
}


def _names(tree: c.Node) -> set[str]:
    """Every name a checked expression reads, the amounts of a cost it asks about (`can_pay`) included."""
    out: set[str] = set()
    stack = [tree]
    while stack:
        for n in c.nodes(stack.pop()):
            named = _NAMED.get(type(n))
            name = named(n) if named is not None else None
            if name is not None:
                out.add(name)
            elif isinstance(n, c.CanPay):
                stack += [t.tree for alt in n.cost.alternatives for term in alt for x in (term, term.lacking)
                          if x is not None for t in (x.amount, x.key_fn) if t is not None and t.tree is not None]
    return out


def _parts(rules: Rules) -> list[Any]:
    """Every expression and `create` held by what can run after setup: every action (with its guard, cost and
    domains), the flow, scoring, the triggers on changes, the `turn_end` triggers, the triggers of events setup
    defers, and what those reach (the procedures they call, the triggers of the events they emit or defer).
    Setup, what only setup reaches (a trigger of an event only setup emits) and the values are left out."""
    stack: list[Any] = [rules.actions, rules.watchers, rules.flow, rules.scoring, rules.costs, rules.substitutes,
                        rules.triggers.get("turn_end", [])]
    # an event setup defers waits in the state and runs at a turn's end in play
    stack += [rules.triggers.get(x.event, []) for step in rules.setup for x in _effects(step.body)
              if type(x) is e.DeferE]
    out: list[Any] = []
    seen: set[int] = set()
    while stack:
        x = stack.pop()
        if x is None or isinstance(x, str | int | float | bool) or id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, Expr):
            out.append(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list | tuple | set | frozenset):
            stack.extend(x)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            if isinstance(x, e.CreateE):
                out.append(x)
            elif isinstance(x, e.EmitE | e.DeferE):
                stack.append(rules.triggers.get(x.event, []))
            elif isinstance(x, e.CallE):
                stack.append(rules.procedures.get(x.proc))
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x) if f.name != "span")
    return out


def _effects(value: Any) -> list[e.Effect]:
    """Every effect node inside a body, nested ones included."""
    out: list[e.Effect] = []
    stack = [value]
    while stack:
        x = stack.pop()
        if isinstance(x, tuple | list):
            stack.extend(x)
        elif isinstance(x, e.Effect):
            out.append(x)
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x) if f.name != "span")
    return out
