"""A write that is always overwritten before anything reads it (W862): in one body, `x = A` followed by `x = B`
(a counter or a local name), where B does not read x, no trigger watches the counter, and only plain assignments
that neither read x nor start a trigger come between. The first write does nothing; most often the second was
meant to be `+=`, or to name another counter.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..diagnostics import Diagnostics
from ..engine import effects as e
from ..language import checked as c
from .facts import Facts
from .tree import CHILDREN


def _bodies(body: e.Body) -> Iterator[e.Body]:
    stack = [body]
    while stack:
        current = stack.pop()
        yield current
        for eff in current:
            children = CHILDREN.get(type(eff))
            if children is not None:
                stack.extend(children(eff))


def _key(node: c.Node) -> str | None:
    """A key written out: a symbol's name or a number."""
    if isinstance(node, c.Name):
        return node.ref.name
    if isinstance(node, c.Literal) and not isinstance(node.value, bool):
        return str(node.value)
    return None


def _owner(owner: c.Node | None, name: str) -> str | None:
    if owner is None:
        return name
    return f"{owner.ref.name}.{name}" if isinstance(owner, c.Name) else None


def _target(eff: e.Effect) -> str | None:
    """What a counter assignment or a local binding sets, by name: `x`, `gold`, `me.coins`, `me.stock[wine]`."""
    if isinstance(eff, e.LetE):
        return eff.name
    assert isinstance(eff, e.SetCounterE)
    key = eff.key.tree
    if isinstance(key, c.CounterKey):
        return _owner(key.owner, key.counter.name)
    if isinstance(key, c.Cell):
        base, word = _owner(key.owner, key.counter.name), _key(key.key)
        return None if base is None or word is None else f"{base}[{word}]"
    return None


def _reads(value: c.Node | None, target: str) -> bool:
    """Whether a formula reads what `target` names (its counter, or the local name)."""
    if value is None:
        return True  # not known: it may
    names = set()
    for n in c.nodes(value):
        if isinstance(n, c.Name):
            names.add(n.ref.name)
        elif isinstance(n, c.Attr):
            names.add(n.name)
        elif isinstance(n, c.Cell | c.CounterKey):
            names.add(n.counter.name)
    return bool(names & {target, target.split("[")[0].rsplit(".", 1)[-1]})


def _assignment(eff: e.Effect) -> tuple[str, c.Node | None] | None:
    """(what is set, the value) for `x = V` or `let x = V`; a binding that reads its own name (`x += V`) is
    not one."""
    if not isinstance(eff, e.SetCounterE | e.LetE) or (isinstance(eff, e.SetCounterE) and eff.op != "="):
        return None
    target = _target(eff)
    if target is None or (isinstance(eff, e.LetE) and _reads(eff.value.tree, target)):
        return None
    return target, eff.value.tree


def _touches(eff: e.SetCounterE | e.LetE, target: str) -> bool:
    """Whether a plain line in between reads the target, or writes it otherwise than by `=`."""
    if isinstance(eff, e.LetE):
        return _reads(eff.value.tree, target) or eff.name == target
    written = _target(eff)
    return _reads(eff.value.tree, target) or (written == target and eff.op != "=") or written is None or \
        (_reads(eff.key.tree, target) and written != target)


def _overwrite(inner: e.Body, i: int, target: str, watched: set[str], facts: Facts) -> int | None:
    """The index of the line that sets `target` again with `=` before anything can read it, if any: only plain
    assignments that neither read it nor start a trigger may come between."""
    for j in range(i + 1, len(inner)):
        eff = inner[j]
        if not isinstance(eff, e.SetCounterE | e.LetE):
            return None  # anything else may read it
        if isinstance(eff, e.SetCounterE):
            c = facts.rules.counters.get(eff.counter)
            if eff.counter in watched or (c is not None and c.overflow == "carry"):
                return None  # a trigger may read what the first line wrote
        again = _assignment(eff)
        if again is not None and again[0] == target:
            return None if _reads(again[1], target) else j
        if _touches(eff, target):
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
