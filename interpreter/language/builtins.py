"""Built-in functions of the expression language: one table, name -> arity, implementation, result type."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..dataclass_code import dataclass
from ..diagnostics import BoardrulesError
from ..engine.runtime import as_list, charge, check_known, number, runtime_type_error
from ..engine.values import UNKNOWN_SIZE, Piece, Player, Ref, Unknown, Zone, shown
from .types import ANY, BOOL, INT, PIECE, PLAYER, SYMBOL, Type, list_of

if TYPE_CHECKING:
    from ..engine.interpreter import Frame


@dataclass(frozen=True)
class Spec:
    min_args: int
    max_args: int
    impl: Callable[..., Any]
    result: Callable[[list[Type]], Type]
    # What each argument must be, checked at link time (the last entry covers any further arguments):
    # "list" (a list or a zone), "number", "numbers" (a number or a list), "zone", "player", "marker", "track",
    # "symbol", or "any".
    args: tuple[str, ...] = ("any",)


def _const(t: Type) -> Callable[[list[Type]], Type]:
    return lambda _types: t


def _first_elem(types: list[Type]) -> Type:
    return types[0].element() if types else ANY


def _numbers(f: Frame, args: tuple[Any, ...]) -> list[int]:
    items = as_list(args[0], f) if len(args) == 1 else list(args)
    for v in items:
        check_known(v, f)
        if type(v) is not int:
            raise runtime_type_error(f"expected numbers, got {shown(v)}", f)
    return items


def _count(f: Frame, items: Any) -> int:
    if type(items) is Zone:  # charged as as_list charges, without making a value per piece to count them
        g = f.g
        n = len(g.state.zones[items.key].contents)
        budget = g.budget
        if budget.work + n > budget.limits.work:
            charge(f, n)
        budget.work += n
        return n
    return len(as_list(items, f))


def _sum(f: Frame, items: Any) -> int:
    return number(f, sum(_numbers(f, (items,))))


def _min(f: Frame, *args: Any) -> int:
    nums = _numbers(f, args)
    if not nums:
        raise runtime_type_error("min() of an empty list", f)
    return min(nums)


def _max(f: Frame, *args: Any) -> int:
    nums = _numbers(f, args)
    if not nums:
        raise runtime_type_error("max() of an empty list", f)
    return max(nums)


def min2(f: Frame, a: Any, b: Any) -> int:
    """min of two numbers, the commonest call: a fast path, and the general one to say what is wrong."""
    if type(a) is int and type(b) is int:
        return a if a <= b else b
    return _min(f, a, b)


def max2(f: Frame, a: Any, b: Any) -> int:
    if type(a) is int and type(b) is int:
        return a if a >= b else b
    return _max(f, a, b)


def _abs(f: Frame, x: Any) -> int:
    return abs(_numbers(f, (x, 0))[0])


def _first(f: Frame, items: Any) -> Any:
    items = as_list(items, f)
    return items[0] if items else None


def _last(f: Frame, items: Any) -> Any:
    items = as_list(items, f)
    return items[-1] if items else None


def _any(f: Frame, items: Any) -> bool:
    return any(check_known(v, f) for v in as_list(items, f))


def _all(f: Frame, items: Any) -> bool:
    return all(check_known(v, f) for v in as_list(items, f))


def _player(f: Frame, p: Any) -> Player:
    if type(p) is not Player:
        raise runtime_type_error(f"expected a player, got {shown(p)}", f)
    return p


def _clockwise(f: Frame, p: Any) -> list[Player]:
    seat = _player(f, p).seat
    players = f.g.players
    return players[seat - 1 :] + players[: seat - 1]


def _next_player(f: Frame, p: Any) -> Player:
    players = f.g.players
    return players[_player(f, p).seat % len(players)]


def _rank(f: Frame, p: Any) -> int:
    from ..engine.flow import ranking

    pid = _player(f, p).id
    return next(rank for rank, who, _ in ranking(f.g) if who == pid)


def _known(f: Frame, x: Any) -> bool:
    return type(x) is not Unknown


def _has_passed(f: Frame, p: Any) -> bool:
    return _player(f, p).id in f.g.state.vars.get("passed", ())


def _zone(f: Frame, z: Any) -> str:
    if type(z) is not Zone:
        raise runtime_type_error(f"expected a zone, got {shown(z)}", f)
    rec = f.g.state.zones[z.key]
    if UNKNOWN_SIZE in (rec.slots, rec.capacity):
        raise BoardrulesError("E601", f"the size of zone '{z.key}' is unknown", f.g.state.cause)
    return z.key


def _slot(f: Frame, z: Any, n: Any) -> list[Piece]:
    key = _zone(f, z)
    st = f.g.state
    rec = st.zones[key]
    if rec.slots is None:
        contents = rec.contents
        return [Piece(contents[n - 1])] if type(n) is int and 1 <= n <= len(contents) else []
    return [Piece(p) for p in rec.contents if st.pieces[p].slot == n]


def _occupied(f: Frame, z: Any) -> list[int]:
    key = _zone(f, z)
    st = f.g.state
    rec = st.zones[key]
    if rec.slots is None:
        return list(range(1, len(rec.contents) + 1))
    return sorted({slot for p in rec.contents if (slot := st.pieces[p].slot) is not None})


def _free_slots(f: Frame, z: Any) -> list[int]:
    key = _zone(f, z)
    st = f.g.state
    rec = st.zones[key]
    if rec.slots is None:
        raise runtime_type_error(f"zone '{key}' has no slots", f)
    counts: dict[int | None, int] = {}
    for p in rec.contents:
        slot = st.pieces[p].slot
        counts[slot] = counts.get(slot, 0) + 1
    return [n for n in range(1, int(rec.slots) + 1) if counts.get(n, 0) < rec.slot_capacity]


def _capacity(f: Frame, z: Any) -> int | None:
    rec = f.g.state.zones[_zone(f, z)]
    if rec.slots is not None:
        return int(rec.slots) * rec.slot_capacity
    return None if rec.capacity is None else int(rec.capacity)


def _marker(f: Frame, m: Any) -> str:
    if type(m) is not Ref or m.kind != "marker":
        raise runtime_type_error(f"expected a track marker, got {shown(m)}", f)
    return m.name


def _position(f: Frame, m: Any) -> int:
    return f.g.state.markers[_marker(f, m)].pos


def _passed(f: Frame, m: Any) -> list[str]:
    rec = f.g.state.markers[_marker(f, m)]
    icons = f.g.rules.tracks[rec.track].icons
    return [icon for space in rec.last for icon in icons.get(space, ())]


def _icons(f: Frame, track: Any, n: Any) -> list[str]:
    if type(track) is not Ref or track.kind != "track":
        raise runtime_type_error(f"expected a track, got {shown(track)}", f)
    return list(f.g.rules.tracks[track.name].icons.get(n, ()))


def _adjacent(f: Frame, m: Any, z: Any) -> list[Piece]:
    name = _marker(f, m)
    rec = f.g.state.markers[name]
    spaces, _ = f.g.track_spaces(name)
    after = rec.pos % spaces + 1
    return _slot(f, z, rec.pos) + _slot(f, z, after)


def _pieces(f: Frame, kind: Any) -> list[Piece]:
    return [f.g.piece(pid) for pid in f.g.state.of_kind(kind)]


def _owner(f: Frame, z: Any) -> Player | None:
    return f.g.zone_owner(z)


def _keys(f: Frame, family: Any) -> list[str]:
    if type(family) is not Ref or family.kind != "family":
        raise runtime_type_error(f"expected a keyed counter, got {shown(family)}", f)
    name = family.name.rsplit(".", 1)[-1]
    return list(f.g.rules.counters[name].keys or ())


def _rank_by(f: Frame, *_args: Any) -> int:
    """Never called: rank_by reads its key once per player, so the compiler writes it in place (ranks.py). Its
    entry here is what completion and suggestions list."""
    raise BoardrulesError("E900", "rank_by reached the table of functions", f.g.state.cause)


FUNCTIONS: dict[str, Spec] = {
    "count": Spec(1, 1, _count, _const(INT), ("list",)),
    "sum": Spec(1, 1, _sum, _const(INT), ("number_list",)),
    "min": Spec(1, 16, _min, _const(INT), ("numbers", "number")),
    "max": Spec(1, 16, _max, _const(INT), ("numbers", "number")),
    "abs": Spec(1, 1, _abs, _const(INT), ("number",)),
    "first": Spec(1, 1, _first, _first_elem, ("list",)),
    "last": Spec(1, 1, _last, _first_elem, ("list",)),
    "any": Spec(1, 1, _any, _const(BOOL), ("list",)),
    "all": Spec(1, 1, _all, _const(BOOL), ("list",)),
    "clockwise": Spec(1, 1, _clockwise, _const(list_of(PLAYER)), ("player",)),
    "next_player": Spec(1, 1, _next_player, _const(PLAYER), ("player",)),
    "has_passed": Spec(1, 1, _has_passed, _const(BOOL), ("player",)),
    "known": Spec(1, 1, _known, _const(BOOL), ("any",)),
    "rank": Spec(1, 1, _rank, _const(INT), ("player",)),
    "rank_by": Spec(2, 3, _rank_by, _const(INT), ("number", "list", "player")),
    "slot": Spec(2, 2, _slot, _const(list_of(PIECE)), ("zone", "number")),
    "occupied": Spec(1, 1, _occupied, _const(list_of(INT)), ("zone",)),
    "free_slots": Spec(1, 1, _free_slots, _const(list_of(INT)), ("zone",)),
    "capacity": Spec(1, 1, _capacity, _const(INT), ("zone",)),
    "position": Spec(1, 1, _position, _const(INT), ("marker",)),
    "passed": Spec(1, 1, _passed, _const(list_of(SYMBOL)), ("marker",)),
    "icons": Spec(2, 2, _icons, _const(list_of(SYMBOL)), ("track", "number")),
    "adjacent": Spec(2, 2, _adjacent, _const(list_of(PIECE)), ("marker", "zone")),
    "pieces": Spec(1, 1, _pieces, _const(list_of(PIECE)), ("symbol",)),
    "owner": Spec(1, 1, _owner, _const(PLAYER), ("zone",)),
    "keys": Spec(1, 1, _keys, _const(list_of(SYMBOL)), ("any",)),
}
