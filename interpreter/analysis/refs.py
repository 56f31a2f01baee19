"""What each parsed string of a rule reads, writes, pays, emits and calls, by name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..language import syntax as s
from .walk import Site, subnodes


@dataclass(frozen=True, slots=True)
class Ref:
    kind: str  # read, write, increase, fill, pay, emit, defer, until, call, cost, on
    name: str
    site: Site | None  # None for a use by a declaration (a zone's capacity names a value) or a trigger's `on`
    node: s.Node | None
    section: str | None = None  # what the linker resolved the name to (counters, properties), when it said


def _top_name(node: s.Node) -> str | None:
    """The declared name an assignment target or a zone expression is about: `me.coins`, `price[t]`, `farm`."""
    if isinstance(node, s.Index):
        node = node.obj
    if isinstance(node, s.Attr):
        return node.name
    if isinstance(node, s.Name):
        return node.id
    return None


def site_refs(site: Site, denotes: Callable[[s.Node], str | None] | None = None) -> list[Ref]:
    """The references of one site; `denotes` (Rules.denotes) tells a piece property from a player's counter of the
    same name."""
    out: list[Ref] = []
    skip: set[int] = set()  # ids of nodes already accounted for as written

    def add(kind: str, name: str | None, node: s.Node, section: str | None = None) -> None:
        if name:
            out.append(Ref(kind, name, site, node, section or (denotes(node) if denotes is not None else None)))

    for n in subnodes(site.node):
        if isinstance(n, s.Assign):
            target = n.target.obj if isinstance(n.target, s.Index) else n.target
            skip.add(id(target))
            add("write", _top_name(n.target), n.target)
            if n.op != "-=":
                add("increase", _top_name(n.target), n.target)
        elif isinstance(n, s.Create):
            for prop, value in n.props:
                add("write", prop, value, "properties")
            add("fill", _top_name(n.zone), n.zone)
            skip.add(id(n.zone))
            add("read", n.kind, n)
        elif isinstance(n, s.Move):
            add("fill", _top_name(n.to), n.to)
            skip.add(id(n.to))
        elif isinstance(n, s.Refill):
            add("fill", _top_name(n.zone), n.zone)
        elif isinstance(n, s.CostTerm):
            add("pay", n.counter, n)
            add("read", n.counter, n)
        elif isinstance(n, s.CostRef):
            add("cost", n.name, n)
        elif isinstance(n, s.Emit):
            add("emit", n.event, n)
        elif isinstance(n, s.Defer):
            add("defer", n.event, n)
            add("until", n.until or "turn_end", n)
        elif isinstance(n, s.CallProc):
            add("call", n.proc, n)
        elif isinstance(n, s.Advance | s.Place):
            add("read", _top_name(n.marker), n)
        elif isinstance(n, s.Roll):
            add("read", n.die, n)
        elif isinstance(n, s.Name) and id(n) not in skip:
            add("read", n.id, n)
        elif isinstance(n, s.Attr) and id(n) not in skip:
            add("read", n.name, n)
    return out
