"""A write that is always overwritten before anything reads it (W862): in one body, `x = A` followed by `x = B`
(a counter or a local name), where B does not read x, no trigger watches the counter, and only plain assignments
that neither read x nor start a trigger come between. The first write does nothing; most often the second was
meant to be `+=`, or to name another counter.
"""

from __future__ import annotations

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


def _plain_line(eff: e.Effect) -> s.Node | None:
    """The parsed line of a counter or local assignment (any operator), which runs nothing else."""
    if not isinstance(eff, e.SetCounterE | e.LetE):
        return None
    try:
        node = parse(eff.span.text or "", "effect")
    except ParseError:
        return None
    return node if isinstance(node, s.Let | s.Assign) else None


def _touches(node: s.Node, target: str) -> bool:
    """Whether a plain line in between reads the target, or writes it otherwise than by `=`."""
    if isinstance(node, s.Let):
        return _reads(node.value, target) or node.name == target
    assert isinstance(node, s.Assign)
    written = _name(node.target)
    return _reads(node.value, target) or (written == target and node.op != "=") or written is None or \
        (_reads(node.target, target) and written != target)


def _overwrite(inner: e.Body, i: int, target: str, watched: set[str], facts: Facts) -> int | None:
    """The index of the line that sets `target` again with `=` before anything can read it, if any: only plain
    assignments that neither read it nor start a trigger may come between."""
    for j in range(i + 1, len(inner)):
        eff = inner[j]
        node = _plain_line(eff)
        if node is None:
            return None
        if isinstance(eff, e.SetCounterE):
            c = facts.rules.counters.get(eff.counter)
            if eff.counter in watched or (c is not None and c.overflow == "carry"):
                return None  # a trigger may read what the first line wrote
        again = _assignment(eff)
        if again is not None and again[0] == target:
            return None if _reads(again[1], target) else j
        if _touches(node, target):
            return None
    return None


def check(facts: Facts, diags: Diagnostics) -> None:
    watched = set(facts.rules.watchers)
    seen: set[int] = set()
    for body in facts.linked.bodies.values():
        for inner in _bodies(body):
            if id(inner) in seen:
                continue
            seen.add(id(inner))
            for i, first in enumerate(inner):
                a = _assignment(first)
                if a is None:
                    continue
                if isinstance(first, e.SetCounterE) and first.counter in watched:
                    continue  # a trigger on the counter sees the first value
                j = _overwrite(inner, i, a[0], watched, facts)
                if j is None:
                    continue
                later = "the next line" if j == i + 1 else f"line {inner[j].span.line}"
                diags.warning("W862", f"'{a[0]}' is set here and set again by {later} before anything reads "
                              "it, so this write does nothing", first.span,
                              "remove it, or make the later line add to it (+=) or set something else")
