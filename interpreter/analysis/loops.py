"""A `while` whose condition nothing in its body, nor anything the body runs (procedures, actions taken, the
triggers it starts), can change (W861): the loop runs forever or never.

The condition's names are judged by what the linker resolved them to: a local name, a counter, a piece
property, a zone (its pieces), a marker. A condition that reads anything else (the turn, a function of the
game) is left alone.
"""

from __future__ import annotations

from ..diagnostics import Diagnostics
from ..engine import effects as e
from ..language import checked as c
from ..language import syntax as s
from .facts import Facts
from .tree import Changes, syntax, walk
from .walk import subnodes

# Calls whose result depends only on their arguments, or on zones (their pieces).
_PURE = {"min", "max", "abs", "len", "sum", "first", "last", "keys", "floor", "ceil"}
_ZONE = {"count", "any", "all", "pieces", "first", "last"}
_LOCAL = ("var", "local")  # names a rule or the expression itself binds


def _can_change(node: s.Node, scope_names: set[str], ch: Changes, facts: Facts) -> bool | None:
    """Whether running the body can change what `node` reads; None when it reads something not judged here."""
    r = facts.rules
    for n in subnodes(node):
        if isinstance(n, s.Name):
            name = n.id
            if name in scope_names:
                if name in ch.locals:
                    return True
            elif name in r.counters:
                if name in ch.counters:
                    return True
            elif name in r.zones:
                if ch.zones:
                    return True
            elif name in r.markers:
                if ch.markers:
                    return True
            elif name not in r.values and name not in r.symbols and name not in r.sets and name not in (
                    "me", "players", "player_count", "true", "false", "none"):
                return None
        elif isinstance(n, s.Attr):
            if (n.name in r.counters and n.name in ch.counters) or (n.name in r.properties and n.name in ch.props):
                return True
            if (n.name in r.zones or n.name in r.player_markers) and (ch.zones or ch.markers):
                return True
            if n.name not in r.counters and n.name not in r.properties and n.name not in r.zones:
                return None
        elif isinstance(n, s.PieceRef | s.Index | s.CanPay | s.CanTake) or (
                isinstance(n, s.Call) and n.fn not in _PURE | _ZONE):
            return None
    return False


def check(facts: Facts, diags: Diagnostics) -> None:
    linked = facts.linked
    seen: set[int] = set()
    for rule, body in linked.bodies.items():
        for eff in walk(body):
            if not isinstance(eff, e.WhileE) or id(eff) in seen:
                continue
            seen.add(id(eff))
            node = syntax(eff.cond)
            if node is None or not any(isinstance(n, s.Name | s.Attr) for n in subnodes(node)):
                continue  # `while: true` is a loop on purpose (the step budget stops it)
            assert eff.cond.tree is not None
            names = {n.ref.name for n in c.nodes(eff.cond.tree) if isinstance(n, c.Name) and n.ref.kind in _LOCAL}
            if _can_change(node, names, linked.changes(eff.body), facts) is False:
                diags.warning("W861", "nothing in this loop's body (nor what it calls or starts) can change its "
                              "condition, so it runs forever or never", facts.where(node, eff.span, rule),
                              "change what the condition reads inside the loop (a local flag, a counter), or "
                              "use repeat: N or if:")
