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
from .facts import Facts
from .tree import Changes, key_symbol, walk

# Calls whose result depends only on their arguments, or on zones (their pieces).
_PURE = {"min", "max", "abs", "len", "sum", "first", "last", "keys", "floor", "ceil"}
_ZONE = {"count", "any", "all", "pieces", "first", "last"}
_LOCAL = ("var", "local")  # names a rule or the expression itself binds
# Names whose value no rule changes: values fixed before play, symbols, sets, the acting player.
_FIXED = {"const", "value", "symbol", "set", "me"}
_FIXED_FLOW = {"players", "player_count"}


def _can_change(tree: c.Node, ch: Changes) -> bool | None:
    """Whether running the body can change what `tree` reads; None when it reads something not judged here.
    Each name is judged by what the checker resolved it to: a zone by its name, a keyed counter's cell by its key
    when the key is written out."""
    unknown = False
    stack = [tree]
    while stack:
        n = stack.pop()
        if isinstance(n, c.Index) and n.cell is not None and (key := key_symbol(n.cell.key)) is not None:
            counter = getattr(n.cell.counter, "name", None)
            if counter is None or ch.changes_cell(counter, key):
                return True
            stack.extend(x for x in (n.cell.owner,) if x is not None)
            continue
        stack.extend(c.children(n))
        if isinstance(n, c.Name):
            kind = n.ref.kind
            if kind in _LOCAL:
                if n.ref.name in ch.locals:
                    return True
            elif kind in ("counter", "family"):
                if n.ref.name in ch.counters:
                    return True
            elif kind == "zone":
                if ch.changes_zone(n.ref.name):
                    return True
            elif kind == "marker":
                if ch.markers:
                    return True
            elif kind not in _FIXED and not (kind == "flow" and n.ref.name in _FIXED_FLOW):
                unknown = True
        elif isinstance(n, c.Attr):
            if (n.kind in ("counter", "family") and n.name in ch.counters) or (
                    n.kind == "property" and n.name in ch.props):
                return True
            if (n.kind == "zone" and ch.changes_zone(n.name)) or (n.kind == "player_marker" and ch.markers):
                return True
            if n.kind not in ("counter", "family", "property", "zone", "player_marker"):
                unknown = True
        elif isinstance(n, c.PieceLit | c.Index | c.TableRead | c.CanPay | c.CanTake | c.RankBy) or (
                isinstance(n, c.Call) and n.fn not in _PURE | _ZONE):
            unknown = True
    return None if unknown else False


def check(facts: Facts, diags: Diagnostics) -> None:
    linked = facts.linked
    seen: set[int] = set()
    for body in linked.bodies.values():
        for eff in walk(body):
            if not isinstance(eff, e.WhileE) or id(eff) in seen:
                continue
            seen.add(id(eff))
            tree = eff.cond.tree
            if tree is None or not any(isinstance(n, c.Name | c.Attr) for n in c.nodes(tree)):
                continue  # `while: true` is a loop on purpose (the step budget stops it)
            if _can_change(tree, linked.changes(eff.body)) is False:
                diags.warning("W861", "nothing in this loop's body (nor what it calls or starts) can change its "
                              "condition, so it runs forever or never", eff.cond.span(fallback=eff.span),
                              "change what the condition reads inside the loop (a local flag, a counter), or "
                              "use repeat: N or if:")
