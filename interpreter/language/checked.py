"""The checked tree of an expression: what linking makes of its syntax, and what every later phase reads.

Each node is frozen and carries its static `type`, its place in the string it came from (`pos`, where it starts,
and `end`, just after its last token), and the syntax node it was checked from. A name carries a `Ref`: what it
denotes (a local, a counter, a value, a zone, ...) and the declaration that says so; an attribute says which
reading of `x.name` the checker chose (a player's counter, a piece's property, ...). Nothing here knows how the
state store is laid out: `emitter` turns a checked tree into Python, and is the only place that does.

`Expr` pairs a checked tree with the function emitted from it and the place its text is written: what effect
nodes and declarations hold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import fields
from typing import Any

from ..dataclass_code import dataclass
from ..diagnostics import Span
from . import syntax as s
from .places import Source
from .types import Type

Pos = s.Pos
Fn = Callable[[Any], Any]

# What a name can denote (Ref.kind), and what each means.
NAME_KINDS = {
    "local": "a name bound inside the expression (where's `it`, a comprehension's variable)",
    "var": "a name bound by an effect, a block or a parameter (the frame's vars)",
    "me": "the acting player",
    "flow": "a name the game's flow gives (players, player_count, chance, turn_player, turn_number, ...)",
    "seat": "the player in a seat (p1, p2, ...)",
    "const": "a value declared as a constant",
    "value": "a declared value read at run time (by player count, an expression, unknown)",
    "counter": "a game counter",
    "family": "a keyed game counter (indexed by its keys)",
    "zone": "a game zone",
    "marker": "a track marker",
    "track": "a track",
    "die": "a die",
    "set": "a declared set of symbols",
    "symbol": "a declared symbol",
}

# What `x.name` can denote (Attr.kind).
ATTR_KINDS = {
    "counter": "a player's counter",
    "family": "a player's keyed counter",
    "zone": "a player's zone",
    "seat": "a player's seat number",
    "player_marker": "a player's track marker",
    "builtin": "a piece's built-in field (id, kind, zone, slot, linked)",
    "property": "a piece's declared property",
    "owner": "a zone's owner",
    "position": "a marker's position",
    "dynamic": "not known until run time (the object's type is not known)",
}


@dataclass(frozen=True, slots=True)
class Ref:
    """What a name denotes: its kind (NAME_KINDS) and the declaration it resolves to (None for a built-in)."""

    kind: str
    name: str
    decl: Any = None


@dataclass(frozen=True, slots=True, eq=False)
class Node:
    pos: Pos
    end: Pos
    type: Type
    syntax: s.Node


@dataclass(frozen=True, slots=True, eq=False)
class Literal(Node):
    value: object


@dataclass(frozen=True, slots=True, eq=False)
class Name(Node):
    ref: Ref
    live: bool = False  # a local iterating a zone's pieces: its state record is at hand


@dataclass(frozen=True, slots=True, eq=False)
class PieceLit(Node):
    id: str


@dataclass(frozen=True, slots=True, eq=False)
class Attr(Node):
    obj: Node
    name: str
    kind: str  # ATTR_KINDS
    decl: Any = None  # the counter, zone or property declaration it reads


@dataclass(frozen=True, slots=True, eq=False)
class Cell(Node):
    """The state key of one cell of a keyed counter known at link time (`p1.stock[wine]`, `price[wine]`)."""

    counter: Any  # the counter's declaration
    owner: Node | None  # the player, for a player's counter
    key: Node


@dataclass(frozen=True, slots=True, eq=False)
class CounterKey(Node):
    """The state key of a counter that has no keys (`gold`, `p.gold`): what an assignment writes."""

    counter: Any
    owner: Node | None


@dataclass(frozen=True, slots=True, eq=False)
class FamilyKey(Node):
    """The state key of `family[key]` where the keyed counter is known only at run time (what an assignment
    writes)."""

    family: Node
    key: Node


@dataclass(frozen=True, slots=True, eq=False)
class Index(Node):
    obj: Node
    key: Node
    cell: Cell | None  # a keyed counter's cell, when known at link time


@dataclass(frozen=True, slots=True, eq=False)
class Keys(Node):
    """keys(COUNTER) or keys(TABLE): a keyed counter's keys, or a table's first keys, fixed at link time."""

    counter: Any  # the counter's or the table's declaration
    keys: tuple[Any, ...]


@dataclass(frozen=True, slots=True, eq=False)
class Call(Node):
    fn: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True, eq=False)
class ListLit(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True, eq=False)
class Comprehension(Node):
    element: Node
    var: str
    iterable: Node
    cond: Node | None


@dataclass(frozen=True, slots=True, eq=False)
class Where(Node):
    items: Node
    cond: Node


@dataclass(frozen=True, slots=True, eq=False)
class SortedBy(Node):
    items: Node
    key: Node
    descending: bool


@dataclass(frozen=True, slots=True, eq=False)
class BinOp(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True, eq=False)
class Compare(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True, eq=False)
class BoolOp(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True, eq=False)
class Not(Node):
    operand: Node


@dataclass(frozen=True, slots=True, eq=False)
class Neg(Node):
    operand: Node


@dataclass(frozen=True, slots=True, eq=False)
class Conditional(Node):
    then: Node
    test: Node
    other: Node


@dataclass(frozen=True, slots=True, eq=False)
class Range(Node):
    low: Node
    high: Node


@dataclass(frozen=True, slots=True, eq=False)
class CanPay(Node):
    cost: Any  # the checked cost (effects.CostC)
    payer: Node | None  # None: the acting player


@dataclass(frozen=True, slots=True, eq=False)
class CanTake(Node):
    action: str
    args: tuple[tuple[str, Node], ...]
    who: Node | None  # None: the acting player


@dataclass(frozen=True, slots=True, eq=False)
class TableRead(Node):
    """`table[k1][k2]...`: an entry of a constant table (value_tables), fixed at link time when every key is."""

    table: Any  # value_tables.Table; None where its declaration was reported
    keys: tuple[Node, ...]
    constant: tuple[bool, Any]  # (True, the entry) when every key is a constant
    name: str  # the table's name as written


@dataclass(frozen=True, slots=True, eq=False)
class RankBy(Node):
    """rank_by(KEY, PLAYERS[, PLAYER]): KEY is read once per player, as `it` (ranks.py)."""

    key: Node
    group: Node
    subject: Node | None  # None: the acting player


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_NOT_CHILDREN = {"syntax", "type", "pos", "end", "ref", "name", "kind", "decl", "value", "op", "fn", "var", "id",
                 "live", "descending", "action", "counter", "cost", "table"}


def _child_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node kind that may hold nodes, in order: worked out once a kind."""
    found = _CHILD_FIELDS.get(kind)
    if found is None:
        found = _CHILD_FIELDS[kind] = tuple(f.name for f in fields(kind) if f.name not in _NOT_CHILDREN)
    return found


def children(node: Node) -> Iterator[Node]:
    """The checked nodes directly inside `node`, in source order."""
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, Node):
                    yield item
                elif isinstance(item, tuple):
                    yield from (x for x in item if isinstance(x, Node))


def declared(node: Node | None, kind: str) -> str | None:
    """The name of the declaration of `kind` ("zone", "family", ...) that `node` reads by name: the game's (`stock`)
    or a player's (`me.stock`); None for any other node."""
    if isinstance(node, Name) and node.ref.kind == kind:
        return node.ref.name
    if isinstance(node, Attr) and node.kind == kind:
        return node.name
    return None


def nodes(node: Node) -> Iterator[Node]:
    """`node` and every node inside it, depth first, in source order."""
    out: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        out.append(current)
        kind = type(current)
        names = _CHILD_FIELDS.get(kind) or _child_fields(kind)
        if not names:
            continue
        inner: list[Node] = []
        for name in names:
            value = getattr(current, name)
            if isinstance(value, Node):
                inner.append(value)
            elif isinstance(value, tuple):
                for item in value:
                    if isinstance(item, Node):
                        inner.append(item)
                    elif isinstance(item, tuple):
                        inner.extend(x for x in item if isinstance(x, Node))
        if inner:
            inner.reverse()
            stack.extend(inner)
    return iter(out)


@dataclass(frozen=True, slots=True, eq=False)
class Expr:
    """A checked expression and the function emitted from it (`fn(frame)` evaluates it). `tree` is None for a
    function the linker made without an expression (a counter's fixed key, a local's update)."""

    tree: Node | None
    fn: Fn
    src: Source | None = None  # where its text is written: one linked tree may be written in many places

    @property
    def type(self) -> Type | None:
        return self.tree.type if self.tree is not None else None

    def at(self, src: Source) -> Expr:
        """This expression as written at `src`."""
        return Expr(self.tree, self.fn, src) if self.tree is not None else self

    def span(self, node: Node | None = None, fallback: Span | None = None) -> Span | None:
        """The file position of `node`, or of the whole text by default; `fallback` when its place is not known
        (a function made without text)."""
        if self.src is None or self.tree is None:
            return fallback
        return self.src.at(node.pos if node is not None else (1, 1))


def made(fn: Fn) -> Expr:
    """An Expr for a function that no expression was checked into."""
    return Expr(None, fn)
