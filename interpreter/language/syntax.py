"""Parse-tree nodes of the strings inside rule YAML: expressions, costs and effect lines.

Every node is immutable and carries `pos`, its (line, column) inside the string it came from; the linker turns
that into a file position when it reports a problem.
"""

from __future__ import annotations

from ..dataclass_code import dataclass

Pos = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Node:
    pos: Pos


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class Literal(Node):
    value: object


@dataclass(frozen=True, slots=True)
class Name(Node):
    id: str


@dataclass(frozen=True, slots=True)
class PieceRef(Node):
    id: str


@dataclass(frozen=True, slots=True)
class Attr(Node):
    obj: Node
    name: str


@dataclass(frozen=True, slots=True)
class Index(Node):
    obj: Node
    key: Node


@dataclass(frozen=True, slots=True)
class Call(Node):
    fn: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class ListLit(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Comprehension(Node):
    element: Node
    var: str
    iterable: Node
    cond: Node | None


@dataclass(frozen=True, slots=True)
class BinOp(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Compare(Node):
    op: str  # == != < <= > >= in notin
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class BoolOp(Node):
    op: str  # and / or
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Not(Node):
    operand: Node


@dataclass(frozen=True, slots=True)
class Neg(Node):
    operand: Node


@dataclass(frozen=True, slots=True)
class Conditional(Node):
    then: Node
    test: Node
    other: Node


@dataclass(frozen=True, slots=True)
class Range(Node):
    low: Node
    high: Node


@dataclass(frozen=True, slots=True)
class Where(Node):
    items: Node
    cond: Node


@dataclass(frozen=True, slots=True)
class SortedBy(Node):
    items: Node
    key: Node
    descending: bool


@dataclass(frozen=True, slots=True)
class CanTake(Node):
    """can(ACTION, args... [by PLAYER]): whether the action has a complete legal way to be taken now."""

    action: str
    args: tuple[Node, ...]
    by: Node | None


@dataclass(frozen=True, slots=True)
class Take(Node):
    """take ACTION(args) [as PLAYER]: an action taken inside another rule (guard, cost, effects)."""

    action: str
    args: tuple[Node, ...]
    as_player: Node | None


@dataclass(frozen=True, slots=True)
class CanPay(Node):
    """can_pay(COST [by PLAYER]): whether the cost could be paid now (substitutions included)."""

    cost: Cost
    by: Node | None


# ---------------------------------------------------------------- costs


@dataclass(frozen=True, slots=True)
class CostTerm(Node):
    amount: Node
    counter: str
    key: str | None  # None, a key symbol or variable, "any" or "different"
    lacking: CostTerm | None = None  # `lacking N c each`: what pays each unit the payer lacks


@dataclass(frozen=True, slots=True)
class CostSum(Node):
    terms: tuple[CostTerm, ...]


@dataclass(frozen=True, slots=True)
class CostRef(Node):
    name: str


@dataclass(frozen=True, slots=True)
class Cost(Node):
    alternatives: tuple[CostSum | CostRef, ...]


# ---------------------------------------------------------------- effect lines


@dataclass(frozen=True, slots=True)
class Let(Node):
    name: str
    value: Node


@dataclass(frozen=True, slots=True)
class Assign(Node):
    target: Node
    op: str  # = += -=
    value: Node


@dataclass(frozen=True, slots=True)
class Pay(Node):
    cost: Cost
    by: Node | None


@dataclass(frozen=True, slots=True)
class Move(Node):
    what: Node
    to: Node
    at: Node | None


@dataclass(frozen=True, slots=True)
class Create(Node):
    count: Node | None
    kind: str
    zone: Node
    at: Node | None
    props: tuple[tuple[str, Node], ...]
    bind: str | None


@dataclass(frozen=True, slots=True)
class Remove(Node):
    what: Node


@dataclass(frozen=True, slots=True)
class Link(Node):
    a: Node
    b: Node


@dataclass(frozen=True, slots=True)
class Unlink(Node):
    what: Node


@dataclass(frozen=True, slots=True)
class Choose(Node):
    var: str
    options: Node
    by: Node | None
    optional: bool
    count: Node | None  # an int expression or a Range


@dataclass(frozen=True, slots=True)
class Roll(Node):
    die: str
    var: str


@dataclass(frozen=True, slots=True)
class Draw(Node):
    var: str
    zone: Node


@dataclass(frozen=True, slots=True)
class Shuffle(Node):
    zone: Node


@dataclass(frozen=True, slots=True)
class Refill(Node):
    zone: Node
    source: Node


@dataclass(frozen=True, slots=True)
class Advance(Node):
    marker: Node  # an expression giving a marker (a name, or a player's marker: me.pawn)
    by: Node


@dataclass(frozen=True, slots=True)
class Place(Node):
    marker: Node
    at: Node


@dataclass(frozen=True, slots=True)
class Proceed(Node):
    """In an `instead` hook: run the wrapped rule (or the next inner hook)."""


@dataclass(frozen=True, slots=True)
class Emit(Node):
    event: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Defer(Node):
    event: str
    args: tuple[Node, ...]
    until: str | None


@dataclass(frozen=True, slots=True)
class CallProc(Node):
    proc: str
    args: tuple[Node, ...]
    as_player: Node | None = None  # `call p(...) as q`: the procedure runs with q as `me`


@dataclass(frozen=True, slots=True)
class Require(Node):
    cond: Node
    message: str | None


@dataclass(frozen=True, slots=True)
class Fail(Node):
    message: str


@dataclass(frozen=True, slots=True)
class Limit(Node):
    name: str
    key: Node | None
    count: Node
    scope: str


@dataclass(frozen=True, slots=True)
class End(Node):
    what: str  # turn / round / game
    time: str | None = None  # for `end game`: now, this turn, this round, next round (None: now)


@dataclass(frozen=True, slots=True)
class PassTurn(Node):
    pass


@dataclass(frozen=True, slots=True)
class Score(Node):
    pass


@dataclass(frozen=True, slots=True)
class ForHead(Node):
    var: str
    iterable: Node


# Every expression node class: a table over expressions (compiling, explaining, ranges) has an entry for each,
# which tests/test_dispatch.py checks.
EXPRESSIONS: tuple[type[Node], ...] = (
    Literal, Name, PieceRef, Attr, Index, Call, ListLit, Comprehension, BinOp, Compare, BoolOp, Not, Neg,
    Conditional, Range, Where, SortedBy, CanPay, CanTake,
)
