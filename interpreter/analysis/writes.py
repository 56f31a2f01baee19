"""A write that is always overwritten before anything reads it (W862): in one body, `x = A` followed at once by
`x = B` (a counter or a local name), where B does not read x and no trigger watches the counter. The first write
does nothing; most often the second was meant to be `+=`, or to name another counter.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from ..diagnostics import Diagnostics
from ..engine import effects as e
from ..language import syntax as s
from ..language.parser import ParseError, parse
from .facts import Facts
from .tree import CHILDREN
from .walk import subnodes


def _bodies(body: e.Body) -> Iterator[e.Body]:
    stack = [body]
    while stack:
        current = stack.pop()
        yield current
        for eff in current:
            children = CHILDREN.get(type(eff))
            if children is not None:
                stack.extend(children(eff))


def _name(node: s.Node) -> str | None:
    if isinstance(node, s.Name):
        return node.id
    if isinstance(node, s.Attr) and isinstance(node.obj, s.Name):
        return f"{node.obj.id}.{node.name}"
    if isinstance(node, s.Index) and isinstance(node.key, s.Name | s.Literal):
        inner = _name(node.obj)
        key = node.key.id if isinstance(node.key, s.Name) else node.key.value
        return None if inner is None else f"{inner}[{key}]"
    return None


def _assignment(eff: e.Effect) -> tuple[str, s.Node] | None:
    """(what is set, the value) for `x = V` or `let x = V` written as one effect line."""
    if not isinstance(eff, e.SetCounterE | e.LetE) or (isinstance(eff, e.SetCounterE) and eff.op != "="):
        return None
    try:
        node = parse(eff.span.text or "", "effect")
    except ParseError:
        return None
    if isinstance(node, s.Let):
        return node.name, node.value
    if isinstance(node, s.Assign) and node.op == "=":
        target = _name(node.target)
        return (target, node.value) if target is not None else None
    return None


def _reads(value: s.Node, target: str) -> bool:
    names = {n.id for n in subnodes(value) if isinstance(n, s.Name)}
    names |= {n.name for n in subnodes(value) if isinstance(n, s.Attr)}
    return bool(names & {target, target.split("[")[0].rsplit(".", 1)[-1]})


def check(facts: Facts, diags: Diagnostics) -> None:
    watched = set(facts.rules.watchers)
    seen: set[int] = set()
    for body in facts.linked.bodies.values():
        for inner in _bodies(body):
            if id(inner) in seen:
                continue
            seen.add(id(inner))
            for first, second in itertools.pairwise(inner):
                a, b = _assignment(first), _assignment(second)
                if a is None or b is None or a[0] != b[0] or _reads(b[1], a[0]):
                    continue
                if isinstance(first, e.SetCounterE) and first.counter in watched:
                    continue  # a trigger on the counter sees the first value
                diags.warning("W862", f"'{a[0]}' is set here and set again by the next line before anything reads "
                              "it, so this write does nothing", first.span,
                              "remove it, or make the next line add to it (+=) or set something else")
