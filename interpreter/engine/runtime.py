"""Helpers that compiled expressions and effect runners call at run time."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..diagnostics import BoardrulesError
from .values import Piece, Player, Ref, Unknown, UnknownCompared, Zone, shown

if TYPE_CHECKING:
    from .interpreter import Frame


def unknown_error(value: Unknown, f: Frame) -> BoardrulesError:
    return BoardrulesError(
        "E601",
        f"the game reached '{value.name}', a value the source leaves unknown: {value.note}",
        f.g.state.cause,
        "fill the value in the pack once it is known, or keep scenarios away from it",
    )


def check_known(value: Any, f: Frame) -> Any:
    if type(value) is Unknown:
        raise unknown_error(value, f)
    return value


def runtime_type_error(message: str, f: Frame) -> BoardrulesError:
    return BoardrulesError("E510", message, f.g.state.cause)


def as_list(value: Any, f: Frame) -> list[Any]:
    """Zones, lists and ranges all iterate as lists. Whoever asks will go through every element, so the work
    budget is charged here, before the work is done."""
    t = type(value)
    if t is list or t is Zone:
        g = f.g
        items = value if t is list else g.state.zones[value.key].contents
        budget = g.budget  # charge's test, written out for the commonest values (as_list is called a lot)
        if budget.work + len(items) > budget.limits.work:
            charge(f, len(items))
        budget.work += len(items)
        if t is list:
            return items
        cached, piece = g.pieces_by_id, g.piece
        return [cached.get(p) or piece(p) for p in items]
    if isinstance(value, tuple | range | list):
        charge(f, len(value))
        return list(value)
    if type(value) is Unknown:
        raise unknown_error(value, f)
    raise runtime_type_error(f"expected a list or a zone, got {shown(value)}", f)


def charge(f: Frame, n: int) -> None:
    budget = f.g.budget
    budget.work += n
    if budget.work > budget.limits.work:
        raise budget.exceeded("work", f"going through {n} element(s)", f.g.state.cause)


def number(f: Frame, value: int) -> int:
    """A number a rule has just computed, within the budget's bounds."""
    return f.g.budget.number(value, f.g.state.cause)


def player_id(p: Any, f: Frame) -> str:
    if type(p) is Player:
        return p.id
    check_known(p, f)
    raise runtime_type_error(f"expected a player, got {shown(p)}", f)


def seat(p: Any, f: Frame) -> int:
    if type(p) is Player:
        return p.seat
    check_known(p, f)
    raise runtime_type_error(f"expected a player, got {shown(p)}", f)


def prop(f: Frame, p: Any, name: str) -> Any:
    if type(p) is not Piece:
        check_known(p, f)
        raise runtime_type_error(f"'.{name}' needs a piece, got {shown(p)}", f)
    rec = f.g.state.pieces.get(p.id)
    if rec is None:
        raise runtime_type_error(f"the piece {p} is no longer in the game", f)
    props = rec.props
    if name in props:
        return props[name]
    return f.g.rules.prop_defaults.get((rec.kind, name))


def me(f: Frame) -> Player:
    if f.me is None:
        raise runtime_type_error("'me' is used, but no player is acting", f)
    return f.me


def player_at(f: Frame, seat: int) -> Player:
    players = f.g.players
    if not 1 <= seat <= len(players):
        raise runtime_type_error(f"there is no player p{seat} in a {len(players)}-player game", f)
    return players[seat - 1]


def piece_ref(f: Frame, pid: str) -> Piece:
    if pid not in f.g.state.pieces:
        raise runtime_type_error(f"there is no piece '${pid}'", f)
    return f.g.piece(pid)


def key_of(f: Frame, k: Any, keys: frozenset[str], counter: str) -> str:
    """A key of a keyed counter, checked against its declared keys."""
    if type(k) is str and k in keys:
        return k
    if isinstance(k, str) and k in keys:
        return str(k)
    check_known(k, f)
    raise runtime_type_error(f"{shown(k)} is not a key of '{counter}' ({', '.join(sorted(keys))})", f)


def arith(f: Frame, op: str, a: Any, b: Any) -> int:
    if type(a) is int and type(b) is int:
        if op == "+":
            return number(f, a + b)
        if op == "-":
            return number(f, a - b)
        if op == "*":
            return number(f, a * b)
        if b == 0:
            raise runtime_type_error("division by zero", f)
        return a // b if op == "/" else a % b
    check_known(a, f)
    check_known(b, f)
    raise runtime_type_error(f"'{op}' needs two numbers, got {shown(a)} and {shown(b)}", f)


def order(f: Frame, op: str, a: Any, b: Any) -> bool:
    if type(a) is int and type(b) is int:
        return a < b if op == "<" else a <= b if op == "<=" else a > b if op == ">" else a >= b
    check_known(a, f)
    check_known(b, f)
    raise runtime_type_error(f"cannot compare {shown(a)} {op} {shown(b)}", f)


def contains(f: Frame, a: Any, items: Any) -> bool:
    check_known(a, f)
    if type(items) is Zone:  # charged as as_list charges; only a piece is in a zone (Piece equality is by id)
        contents = f.g.state.zones[items.key].contents
        charge(f, len(contents))
        return type(a) is Piece and a.id in contents
    return a in as_list(items, f)


def negate(f: Frame, v: Any) -> int:
    if type(v) is int:
        return -v
    check_known(v, f)
    raise runtime_type_error(f"'-' needs a number, got {shown(v)}", f)


def int_range(f: Frame, low: Any, high: Any) -> list[int]:
    if type(low) is int and type(high) is int:
        f.g.budget.range(max(0, high - low + 1), f"the range {low}..{high}", f.g.state.cause)
        return list(range(low, high + 1))
    check_known(low, f)
    check_known(high, f)
    raise runtime_type_error(f"a range needs two numbers, got {shown(low)}..{shown(high)}", f)


def sort_pairs(f: Frame, pairs: list[tuple[Any, Any]], descending: bool) -> list[Any]:
    for key, _ in pairs:
        check_known(key, f)
    try:
        pairs.sort(key=lambda kx: kx[0], reverse=descending)
    except TypeError:
        raise runtime_type_error("cannot sort values of different types", f) from None
    return [x for _, x in pairs]


def known_truth(f: Frame, v: Any) -> bool:
    try:
        return bool(v)
    except UnknownCompared as exc:
        raise unknown_error(exc.value, f) from None


def can_pay(f: Frame, cost: Any, payer: Any) -> bool:
    if type(payer) is not Player:
        check_known(payer, f)
        raise runtime_type_error(f"a cost is paid by a player, got {shown(payer)}", f)
    return f.g.payable(cost, type(f)(f.g, payer, f.vars))


def can_take(f: Frame, action: str, args: tuple[tuple[str, Any], ...], who: Any) -> bool:
    if type(who) is not Player:
        check_known(who, f)
        raise runtime_type_error(f"an action is taken by a player, got {shown(who)}", f)
    return f.g.can_take(action, dict(args), who)


def attr(f: Frame, obj: Any, name: str) -> Any:
    return f.g.get_attr(obj, name)


def family_item(f: Frame, container: Any, k: Any) -> Any:
    if type(container) is Ref and container.kind == "family":
        return f.g.family_get(container, k)
    items = as_list(container, f)
    if type(k) is not int or not 1 <= k <= len(items):
        raise runtime_type_error(f"index {shown(k)} is outside 1..{len(items)}", f)
    return items[k - 1]


# ---------------------------------------------------------------- fast paths for the commonest operations


def add(f: Frame, a: Any, b: Any) -> int:
    if type(a) is int and type(b) is int:
        r = a + b
        limit = f.g.budget.limits.max_int
        if -limit <= r <= limit:
            return r
    return arith(f, "+", a, b)


def sub(f: Frame, a: Any, b: Any) -> int:
    if type(a) is int and type(b) is int:
        r = a - b
        limit = f.g.budget.limits.max_int
        if -limit <= r <= limit:
            return r
    return arith(f, "-", a, b)


def zone_ids(f: Frame, zone: Any) -> list[str]:
    """The ids of a zone's pieces, for a filter that reads their records directly (charged like as_list)."""
    if type(zone) is Zone:
        contents = f.g.state.zones[zone.key].contents
        charge(f, len(contents))
        return contents
    return [p.id for p in as_list(zone, f)]
