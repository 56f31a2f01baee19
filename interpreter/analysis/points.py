"""Whether conditions can hold together, by trying them at test points.

A checked condition over a few numbers known to the analyses (the round number, the player count, game counters, the
acting player's counters, keyed counters' cells, markers' spaces, zones' sizes, constant values; domains.py) is
evaluated at every point of a small grid: each number's whole range when it is short, else its bounds and the
constants of the conditions with their neighbours. For comparisons of sums and differences against constants that
grid meets every region where the truth can change, so "no point holds" means "never holds". A condition with
anything else in it (a piece, a function, a product of two unknowns) is not judged: `satisfiable` answers None.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable
from typing import Any

from ..engine.rules import Rules
from ..language import checked as c

Domain = tuple[float, float]
INF = float("inf")
MAX_POINTS = 20_000
SHORT = 64  # a range this short is tried at every integer

_ARITH: dict[str, Callable[[Any, Any], Any]] = {"+": operator.add, "-": operator.sub, "*": operator.mul,
                                               "//": operator.floordiv, "/": operator.floordiv, "%": operator.mod}
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {"==": operator.eq, "!=": operator.ne, "<": operator.lt,
                                                  "<=": operator.le, ">": operator.gt, ">=": operator.ge}


class _Opaque(Exception):
    """The condition holds something the grid cannot stand for."""


def _key_word(node: c.Node) -> str | None:
    """A key written out: a symbol's name or a number."""
    if isinstance(node, c.Name):
        return node.ref.name
    if isinstance(node, c.Literal) and isinstance(node.value, str | int) and not isinstance(node.value, bool):
        return str(node.value)
    return None


def var_key(node: c.Node) -> str | None:
    """The name a number is tried under: `round_number`, `market`, `me.coins`, a keyed counter's cell
    `me.crop[apple]`, a marker's space `position(sun)`, a zone's size `count(me.hand)` (domains.py)."""
    if isinstance(node, c.Name):
        return node.ref.name
    if isinstance(node, c.Attr) and isinstance(node.obj, c.Name) and node.obj.ref.kind == "me":
        return f"me.{node.name}"
    if isinstance(node, c.Index) and node.cell is not None:
        owner, key = node.cell.owner, _key_word(node.cell.key)
        base = node.cell.counter.name if owner is None else \
            f"me.{node.cell.counter.name}" if isinstance(owner, c.Name) and owner.ref.kind == "me" else None
        return None if base is None or key is None else f"{base}[{key}]"
    if isinstance(node, c.Call) and node.fn in ("position", "count") and len(node.args) == 1 \
            and isinstance(node.args[0], c.Name | c.Attr):
        inner = var_key(node.args[0])
        return None if inner is None else f"{node.fn}({inner})"
    return None


def _eval(node: c.Node, env: dict[str, Any], consts: dict[str, Any]) -> Any:
    if isinstance(node, c.Literal):
        if isinstance(node.value, bool | int):
            return node.value
        raise _Opaque
    key = var_key(node)
    if key is not None:
        if key in env:
            return env[key]
        if key in consts:
            return consts[key]
        raise _Opaque
    if isinstance(node, c.BinOp) and node.op in _ARITH:
        left, right = _eval(node.left, env, consts), _eval(node.right, env, consts)
        if node.op in ("//", "/", "%") and right == 0:
            raise _Opaque
        return _ARITH[node.op](left, right)
    if isinstance(node, c.Compare) and node.op in _COMPARE:
        return _COMPARE[node.op](_eval(node.left, env, consts), _eval(node.right, env, consts))
    if isinstance(node, c.BoolOp):
        left = bool(_eval(node.left, env, consts))
        if node.op == "and":
            return left and bool(_eval(node.right, env, consts))
        return left or bool(_eval(node.right, env, consts))
    if isinstance(node, c.Not):
        return not _eval(node.operand, env, consts)
    if isinstance(node, c.Neg):
        return -_eval(node.operand, env, consts)
    if isinstance(node, c.Call) and node.fn in ("min", "max", "abs") and node.args:
        args = [_eval(a, env, consts) for a in node.args]
        return min(args) if node.fn == "min" else max(args) if node.fn == "max" else abs(args[0])
    if isinstance(node, c.TableRead) and node.constant[0] and type(node.constant[1]) in (bool, int):
        return node.constant[1]  # an entry of a constant table, every key written out
    raise _Opaque


def evaluate(node: c.Node | None, env: dict[str, Any], consts: dict[str, Any]) -> Any:
    """The value of a formula over the numbers of `env` and `consts`; None when it reads anything else."""
    if node is None:
        return None
    try:
        return _eval(node, env, consts)
    except _Opaque:
        return None


def at_player_counts(rules: Rules, counts: range | None = None) -> dict[int, dict[str, Any]]:
    """For each player count (the pack's, unless `counts` says): the values fixed before play at that count
    (constants and player-count tables), and `player_count` itself."""
    fixed = constants(rules)
    out: dict[int, dict[str, Any]] = {}
    for count in counts if counts is not None else range(rules.players_min, rules.players_max + 1):
        out[count] = {**fixed, "player_count": count}
        for name, v in rules.values.items():
            if v.kind == "by_players" and isinstance(v.data, dict) and type(v.data.get(count)) is int:
                out[count][name] = v.data[count]
    return out


def negation(node: c.Node) -> c.Node:
    """`not node`, as a checked node."""
    return c.Not(node.pos, node.end, node.type, node.syntax, node)


def constants(rules: Rules) -> dict[str, Any]:
    """Values fixed before play (a number or a truth value, the same at every player count)."""
    out: dict[str, Any] = {}
    for name, v in rules.values.items():
        if v.kind == "const" and isinstance(v.data, bool | int):
            out[name] = v.data
    return out


def _numbers(nodes: list[c.Node], consts: dict[str, Any]) -> set[int]:
    found = set()
    for node in nodes:
        for n in c.nodes(node):
            if isinstance(n, c.Literal) and type(n.value) is int:
                found.add(n.value)
            elif isinstance(n, c.Name) and type(consts.get(n.ref.name)) is int:
                found.add(consts[n.ref.name])
    return found


def _linear(nodes: list[c.Node], free: set[str]) -> bool:
    """Whether no product, quotient or remainder involves a number that is not tried at every integer."""
    for node in nodes:
        for n in c.nodes(node):
            if isinstance(n, c.BinOp) and n.op in ("*", "/", "//", "%") and {var_key(x) for x in c.nodes(n)} & free:
                return False
    return True


def satisfiable(nodes: list[c.Node], domains: dict[str, Domain], consts: dict[str, Any]) -> bool | None:
    """Whether some point of the numbers' domains makes every condition hold; None when it cannot be judged (a
    name without a domain, or too many points)."""
    names = sorted({k for node in nodes for n in c.nodes(node) if (k := var_key(n)) in domains})
    numbers = _numbers(nodes, consts)
    axes: list[list[int]] = []
    wide: set[str] = set()
    for name in names:
        low, high = domains[name]
        if high - low < SHORT:
            axes.append(list(range(int(low), int(high) + 1)))
            continue
        wide.add(name)
        points = {int(low)} if low != -INF else set()
        if high != INF:
            points.add(int(high))
        for num in numbers:
            points.update(p for p in (num - 1, num, num + 1) if low <= p <= high)
        if not points:
            points = {0}
        axes.append(sorted(points))
    if wide and not _linear(nodes, wide):
        return None
    total = 1
    for axis in axes:
        total *= max(len(axis), 1)
    if total > MAX_POINTS:
        return None
    try:
        for point in itertools.product(*axes):
            env = dict(zip(names, point, strict=True))
            if all(_eval(node, env, consts) for node in nodes):
                return True
    except _Opaque:
        return None
    return False
