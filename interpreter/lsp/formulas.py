"""Every formula of one module as the editor's index reads it: the names each uses, by what use (read, write,
pay, emit, call, ...), each with the string it sits in, so index.py can give the name its place in the file.

Why a syntax index, and why here: the index is rebuilt module by module as the designer types, also while the
module does not link (an unknown name, a half-written line), and it needs the file place of every name in every
string. The linked tree holds only what linked, and keeps a string's place only for effect lines (a guard, a
value's formula or a flow key keeps its declaration's place). So the editor parses each string of the module on
its own (the parser's cache makes it the linker's own parse), as the first of an effect line, an expression or a
cost that it is: no list of keys says which role a string plays, and a construct added to the language later is
indexed too. Strings under prose keys (pack.PROSE_KEYS: titles, notes, sources) are never formulas. Only the
language server reads this; the checker and its analyses read the linked tree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import fields
from typing import Any

from ..diagnostics import Span
from ..language import syntax as s
from ..language.effect_builder import Text
from ..language.linker import Module
from ..language.pack import PROSE_KEYS
from ..language.parser import ParseError, parse

# How a string is tried: most strings of a module are effect lines; then conditions and values; then costs.
STARTS = ("effect", "expr", "cost")
_PARSED: dict[str, s.Node | None] = {}  # text -> its parse (None: not a formula), across the module's edits


def parsed(text: str) -> s.Node | None:
    """The syntax of a string, as the first start symbol that parses it; None if none does."""
    if text in _PARSED:
        return _PARSED[text]
    node = None
    for start in STARTS:
        try:
            node = parse(text, start)
            break
        except ParseError:
            continue
    if len(_PARSED) > 65_536:  # as many strings as the parser's own cache keeps: a long session stays bounded
        _PARSED.clear()
    _PARSED[text] = node
    return node


def formulas(m: Module) -> Iterator[tuple[str, s.Node, Text]]:
    """(rule, syntax, text) for every string of the module that parses as a formula; rule is section.name."""
    stack: list[tuple[Any, Span, str]] = [(m.doc, m.span, "")]
    while stack:
        node, span, rule = stack.pop()
        if isinstance(node, dict):
            spans = getattr(node, "value_spans", {})
            named = "." in rule  # below section.name, every formula belongs to that rule
            for key, value in node.items():
                if isinstance(value, str | dict | list) and key not in PROSE_KEYS:
                    stack.append((value, spans.get(key, span),
                                  rule if named else f"{rule}.{key}" if rule else str(key)))
        elif isinstance(node, list):
            spans = getattr(node, "item_spans", None) or ()
            for i, item in enumerate(node):
                if isinstance(item, str | dict | list):
                    stack.append((item, spans[i] if i < len(spans) else span, rule))
        else:
            tree = parsed(node)
            if tree is not None:
                yield rule, tree, Text(node, span)


def _subnodes(node: s.Node) -> Iterator[s.Node]:
    """`node` and every syntax node below it, parents before their children."""
    stack: list[Any] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, s.Node):
            yield n
            stack.extend(getattr(n, f.name) for f in fields(n) if f.name != "pos")
        elif isinstance(n, tuple | list):
            stack.extend(n)


Use = tuple[str, str, s.Node]  # (kind, name, the node it is written at)


def _top(node: s.Node) -> s.Node:
    """What an assignment target is about: `me.coins` -> the attribute, `price[t]` -> `price`."""
    return node.obj if isinstance(node, s.Index) else node


def _named(node: s.Node) -> str | None:
    return node.name if isinstance(node, s.Attr) else node.id if isinstance(node, s.Name) else None


def _write(n: s.Assign) -> list[Use]:
    target = _top(n.target)
    name = _named(target)
    return [("write", name, target)] if name is not None else []


# Each syntax class that uses a name -> its uses. A name or an attribute an assignment writes is not also read.
USES_OF: dict[type, Callable[[Any], list[Use]]] = {
    s.Assign: _write,
    s.Create: lambda n: [*(("write", prop, value) for prop, value in n.props), ("read", n.kind, n)],
    s.CostTerm: lambda n: [("pay", n.counter, n)],
    s.CostRef: lambda n: [("cost", n.name, n)],
    s.Emit: lambda n: [("emit", n.event, n)],
    s.Defer: lambda n: [("defer", n.event, n), ("until", n.until or "turn_end", n)],
    s.CallProc: lambda n: [("call", n.proc, n)],
    s.Take: lambda n: [("action", n.action, n)],
    s.CanTake: lambda n: [("action", n.action, n)],
    s.Roll: lambda n: [("read", n.die, n)],
    s.Name: lambda n: [("read", n.id, n)],
    s.Attr: lambda n: [("read", n.name, n)],
}


_USES: dict[int, tuple[s.Node, list[Use]]] = {}


def uses(tree: s.Node) -> list[Use]:
    """(kind, name, node) for every name a formula uses; kind says which declarations it can name (index.NAMED_BY).
    Parsed strings are shared (a YAML alias repeats one line, an edit leaves the other lines as they were), so
    each is read once."""
    hit = _USES.get(id(tree))
    if hit is not None and hit[0] is tree:
        return hit[1]
    if len(_USES) > 65_536:
        _USES.clear()
    out = _uses(tree)
    _USES[id(tree)] = (tree, out)
    return out


def _uses(tree: s.Node) -> list[Use]:
    nodes = list(_subnodes(tree))
    written = {id(_top(n.target)) for n in nodes if isinstance(n, s.Assign)}
    out: list[Use] = []
    for n in nodes:
        say = USES_OF.get(type(n))
        if say is not None and id(n) not in written:
            out += say(n)
    return out
