"""Compile expression syntax into Python closures, resolving every name and checking types once, at link time.

A compiled expression is a function of one argument, the running `Frame`; it never walks syntax at run time.
Static types are small strings: int, bool, symbol, player, piece, zone, marker, track, die, family, list:<T>,
none and any (not known until run time).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import syntax as s
from .diagnostics import BoardrulesError, Span, did_you_mean
from .values import Piece, Player, Ref, Unknown, UnknownCompared, Zone

if TYPE_CHECKING:
    from .interpreter import Frame
    from .rules import Rules

Fn = Callable[["Frame"], Any]

PIECE_BUILTINS = {"id": "symbol", "kind": "symbol", "zone": "zone", "slot": "int", "linked": "list:piece"}
NUMERIC = {"int", "any"}
_TYPE_WORDS = {"int": "a number", "bool": "true or false", "symbol": "a symbol", "player": "a player",
               "piece": "a piece", "zone": "a zone", "none": "none"}


class CompileError(Exception):
    def __init__(self, code: str, message: str, pos: s.Pos, hint: str | None = None):
        super().__init__(message)
        self.code, self.message, self.pos, self.hint = code, message, pos, hint


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


@dataclass
class Scope:
    """Local names visible at a point of a rule, with their static types."""

    names: dict[str, str]
    has_me: bool = True

    def child(self, **extra: str) -> Scope:
        return Scope({**self.names, **extra}, self.has_me)


def elem_type(t: str) -> str:
    if t.startswith("list:"):
        return t[5:]
    if t == "zone":
        return "piece"
    return "any"


def as_list(value: Any, f: Frame) -> list[Any]:
    """Zones, lists and ranges all iterate as lists."""
    if type(value) is list:
        return value
    if type(value) is Zone:
        piece = f.g.piece
        return [piece(p) for p in f.g.state.zones[value.key].contents]
    if isinstance(value, tuple | range):
        return list(value)
    if type(value) is Unknown:
        raise unknown_error(value, f)
    if type(value) is Ref and value.kind == "set":
        return list(f.g.rules.sets[value.name])
    raise runtime_type_error(f"expected a list or a zone, got {value!r}", f)


_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.floordiv, "%": operator.mod}
_COMPARE = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge
}


class ExprCompiler:
    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._dispatch: dict[type, Callable[[Any, Scope], tuple[Fn, str]]] = {
            s.Literal: self._literal,
            s.Name: self._name,
            s.PieceRef: self._piece_ref,
            s.Attr: self._attr,
            s.Index: self._index,
            s.Call: self._call,
            s.ListLit: self._list,
            s.Comprehension: self._comprehension,
            s.BinOp: self._binop,
            s.Compare: self._compare,
            s.BoolOp: self._boolop,
            s.Not: self._not,
            s.Neg: self._neg,
            s.Conditional: self._conditional,
            s.Range: self._range,
            s.Where: self._where,
            s.SortedBy: self._sorted_by,
        }

    def compile(self, node: s.Node, scope: Scope) -> tuple[Fn, str]:
        return self._dispatch[type(node)](node, scope)

    def expect(self, node: s.Node, scope: Scope, wanted: set[str], what: str) -> Fn:
        fn, t = self.compile(node, scope)
        base = t.split(":")[0] if t.startswith("list:") else t
        if t != "any" and t not in wanted and base not in wanted:
            names = sorted(_TYPE_WORDS.get(w, w) for w in wanted if w != "any")
            raise CompileError("E402", f"{what} should be {' or '.join(names)}, but it is {_TYPE_WORDS.get(t, t)}",
                               node.pos)
        return fn

    # ---------------------------------------------------------------- leaves
    def _literal(self, node: s.Literal, scope: Scope) -> tuple[Fn, str]:
        v = node.value
        t = "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "none" if v is None else "symbol"
        return (lambda f: v), t

    def _piece_ref(self, node: s.PieceRef, scope: Scope) -> tuple[Fn, str]:
        piece = Piece(node.id)

        def get(f: Frame) -> Piece:
            if node.id not in f.g.state.pieces:
                raise runtime_type_error(f"there is no piece '${node.id}'", f)
            return piece

        return get, "piece"

    def _name(self, node: s.Name, scope: Scope) -> tuple[Fn, str]:
        name = node.id
        if name in scope.names:
            return (lambda f: f.vars[name]), scope.names[name]
        r = self.rules
        if name == "me":
            if not scope.has_me:
                raise CompileError("E401", "'me' is not available here: no player is acting", node.pos)
            return _me, "player"
        if name == "players":
            return (lambda f: f.g.players), "list:player"
        if name == "player_count":
            return (lambda f: len(f.g.players)), "int"
        if name == "chance":
            return (lambda f: "chance"), "chance"
        if len(name) >= 2 and name[0] == "p" and name[1:].isdigit():
            seat = int(name[1:])

            def player(f: Frame) -> Player:
                if seat > len(f.g.players):
                    raise runtime_type_error(f"there is no player {name} in a {len(f.g.players)}-player game", f)
                return f.g.players[seat - 1]

            return player, "player"
        if name in r.values:
            return r.value_reader(name, self), r.value_type(name)
        if name in r.counters and r.counters[name].per == "game":
            c = r.counters[name]
            if c.keys is not None:
                ref = Ref("family", name)
                return (lambda f: ref), "family"
            return (lambda f: f.g.state.counters[name]), "int"
        if name in r.zones and r.zones[name].per == "game":
            z = Zone(name)
            return (lambda f: z), "zone"
        for table, kind in ((r.markers, "marker"), (r.tracks, "track"), (r.dice, "die")):
            if name in table:
                return _constant(Ref(kind, name)), kind
        if name in r.sets:
            items = list(r.sets[name])
            return (lambda f: items), "list:symbol"
        if name in r.symbols:
            return (lambda f: name), "symbol"
        hint = did_you_mean(name, [*scope.names, *r.global_names()])
        raise CompileError("E401", f"unknown name '{name}'", node.pos, hint)

    # ---------------------------------------------------------------- attributes and indexing
    def _attr(self, node: s.Attr, scope: Scope) -> tuple[Fn, str]:
        obj, t = self.compile(node.obj, scope)
        name = node.name
        r = self.rules
        if t == "player":
            if name in r.counters and r.counters[name].per == "player":
                if r.counters[name].keys is not None:
                    return (lambda f: Ref("family", f"{obj(f).id}.{name}")), "family"
                return (lambda f: f.g.state.counters[f"{obj(f).id}.{name}"]), "int"
            if name in r.zones and r.zones[name].per == "player":
                return (lambda f: Zone(f"{obj(f).id}.{name}")), "zone"
            if name == "seat":
                return (lambda f: obj(f).seat), "int"
            candidates = [*r.player_counter_names(), *r.player_zone_names(), "seat"]
            raise CompileError(
                "E401", f"a player has no counter or zone '{name}'", node.pos, did_you_mean(name, candidates)
            )
        if t == "piece":
            if name in PIECE_BUILTINS:
                return self._piece_builtin(obj, name), PIECE_BUILTINS[name]
            if name in r.properties:
                local = node.obj.id if isinstance(node.obj, s.Name) and node.obj.id in scope.names else None
                return self._piece_prop(obj, name, local), r.properties[name]
            candidates = [*PIECE_BUILTINS, *r.properties]
            raise CompileError("E401", f"no piece has a property '{name}'", node.pos, did_you_mean(name, candidates))
        if t == "zone" and name == "owner":
            return (lambda f: f.g.zone_owner(obj(f))), "player"
        if t == "marker" and name == "position":
            return (lambda f: f.g.state.markers[obj(f).name].pos), "int"
        if t != "any":
            raise CompileError("E402", f"a value of type {t} has no attribute '{name}'", node.pos)
        return (lambda f: f.g.get_attr(obj(f), name)), "any"

    @staticmethod
    def _piece_builtin(obj: Fn, name: str) -> Fn:
        def get(f: Frame) -> Any:
            return f.g.piece_builtin(obj(f), name)

        return get

    def _piece_prop(self, obj: Fn, name: str, local: str | None) -> Fn:
        defaults = self.rules.prop_defaults

        def get(f: Frame) -> Any:
            # A property of a local name (it.owner, w.generation) is the hot path of every filter.
            p = f.vars[local] if local is not None else obj(f)
            if type(p) is not Piece:
                raise runtime_type_error(f"'.{name}' needs a piece, got {p!r}", f)
            rec = f.g.state.pieces.get(p.id)
            if rec is None:
                raise runtime_type_error(f"the piece {p} is no longer in the game", f)
            props = rec.props
            if name in props:
                return props[name]
            return defaults.get((rec.kind, name))

        return get

    def counter_key(self, family: s.Node, key_node: s.Node, scope: Scope) -> Fn | None:
        """The state key of one cell of a keyed counter (`p1.stock[wine]`, `price[wine]`), when the counter is
        known at link time; None otherwise. The key is checked against the declared keys with a set lookup."""
        r = self.rules
        owner: Fn | None = None
        if isinstance(family, s.Name) and family.id not in scope.names:
            name = family.id
            c = r.counters.get(name)
            if c is None or c.per != "game" or c.keys is None:
                return None
        elif isinstance(family, s.Attr):
            name = family.name
            c = r.counters.get(name)
            if c is None or c.per != "player" or c.keys is None:
                return None
            owner, ot = self.compile(family.obj, scope)
            if ot != "player":
                return None
        else:
            return None
        keys = frozenset(c.keys)
        key = self.compile(key_node, scope)[0]

        def checked(f: Frame) -> str:
            k = key(f)
            if type(k) is str and k in keys:
                return k
            if isinstance(k, str) and k in keys:
                return str(k)
            check_known(k, f)
            raise runtime_type_error(f"{k!r} is not a key of '{name}' ({', '.join(c.keys)})", f)

        if owner is None:
            return lambda f: f"{name}[{checked(f)}]"
        return lambda f: f"{owner(f).id}.{name}[{checked(f)}]"

    def _index(self, node: s.Index, scope: Scope) -> tuple[Fn, str]:
        cell = self.counter_key(node.obj, node.key, scope)
        if cell is not None:
            return (lambda f: f.g.state.counters[cell(f)]), "int"
        obj, t = self.compile(node.obj, scope)
        key = self.compile(node.key, scope)[0]
        if t == "family":
            return (lambda f: f.g.family_get(obj(f), key(f))), "int"
        if t.startswith("list:") or t == "any":

            def item(f: Frame) -> Any:
                container, k = obj(f), key(f)
                if type(container) is Ref and container.kind == "family":
                    return f.g.family_get(container, k)
                items = as_list(container, f)
                if type(k) is not int or not 1 <= k <= len(items):
                    raise runtime_type_error(f"index {k!r} is outside 1..{len(items)}", f)
                return items[k - 1]

            return item, elem_type(t)
        raise CompileError("E402", f"a value of type {t} cannot be indexed", node.pos)

    # ---------------------------------------------------------------- compound expressions
    def _list(self, node: s.ListLit, scope: Scope) -> tuple[Fn, str]:
        parts = [self.compile(i, scope) for i in node.items]
        fns = [p[0] for p in parts]
        types = {p[1] for p in parts}
        t = f"list:{types.pop()}" if len(types) == 1 else "list:any"
        return (lambda f: [fn(f) for fn in fns]), t

    def _comprehension(self, node: s.Comprehension, scope: Scope) -> tuple[Fn, str]:
        items, it = self.compile(node.iterable, scope)
        inner = scope.child(**{node.var: elem_type(it)})
        element, et = self.compile(node.element, inner)
        cond = self.compile(node.cond, inner)[0] if node.cond else None
        var = node.var

        def comp(f: Frame) -> list[Any]:
            out = []
            saved = f.vars.get(var, _UNSET)
            for x in as_list(items(f), f):
                f.vars[var] = x
                if cond is None or check_known(cond(f), f):
                    out.append(element(f))
            _restore(f, var, saved)
            return out

        return comp, f"list:{et}"

    def _where(self, node: s.Where, scope: Scope) -> tuple[Fn, str]:
        items, it = self.compile(node.items, scope)
        cond, ct = self.compile(node.cond, scope.child(it=elem_type(it)))
        checked = ct == "bool"  # comparisons and logic never yield an unknown

        def where(f: Frame) -> list[Any]:
            variables = f.vars
            saved = variables.get("it", _UNSET)
            out = []
            for x in as_list(items(f), f):
                variables["it"] = x
                if cond(f) if checked else check_known(cond(f), f):
                    out.append(x)
            _restore(f, "it", saved)
            return out

        return where, f"list:{elem_type(it)}"

    def _sorted_by(self, node: s.SortedBy, scope: Scope) -> tuple[Fn, str]:
        items, it = self.compile(node.items, scope)
        key = self.compile(node.key, scope.child(it=elem_type(it)))[0]
        desc = node.descending

        def sort(f: Frame) -> list[Any]:
            saved = f.vars.get("it", _UNSET)
            keyed = []
            for x in as_list(items(f), f):
                f.vars["it"] = x
                keyed.append((check_known(key(f), f), x))
            _restore(f, "it", saved)
            try:
                keyed.sort(key=lambda kx: kx[0], reverse=desc)
            except TypeError:
                raise runtime_type_error("cannot sort values of different types", f) from None
            return [x for _, x in keyed]

        return sort, f"list:{elem_type(it)}"

    def _binop(self, node: s.BinOp, scope: Scope) -> tuple[Fn, str]:
        left = self.expect(node.left, scope, NUMERIC, f"the left side of '{node.op}'")
        right = self.expect(node.right, scope, NUMERIC, f"the right side of '{node.op}'")
        op = _ARITH[node.op]
        sym = node.op

        def arith(f: Frame) -> int:
            a, b = left(f), right(f)
            if type(a) is int and type(b) is int:
                if sym in "/%" and b == 0:
                    raise runtime_type_error("division by zero", f)
                return op(a, b)
            check_known(a, f)
            check_known(b, f)
            raise runtime_type_error(f"'{sym}' needs two numbers, got {a!r} and {b!r}", f)

        return arith, "int"

    def _compare(self, node: s.Compare, scope: Scope) -> tuple[Fn, str]:
        left, lt = self.compile(node.left, scope)
        right, rt = self.compile(node.right, scope)
        if node.op in ("in", "notin"):
            negate = node.op == "notin"

            def contains(f: Frame) -> bool:
                a = check_known(left(f), f)
                items = as_list(right(f), f)
                return (a not in items) if negate else (a in items)

            return contains, "bool"
        if node.op in ("<", "<=", ">", ">="):
            for side, t in ((node.left, lt), (node.right, rt)):
                if t not in NUMERIC:
                    raise CompileError("E402", f"'{node.op}' compares numbers, but this is {t}", side.pos)
        op = _COMPARE[node.op]
        sym = node.op
        if sym in ("==", "!="):
            equal = sym == "=="

            def equality(f: Frame) -> bool:
                try:
                    return (left(f) == right(f)) is equal
                except UnknownCompared as exc:
                    raise unknown_error(exc.value, f) from None

            return equality, "bool"

        def compare(f: Frame) -> bool:
            a, b = left(f), right(f)
            if type(a) is Unknown or type(b) is Unknown:
                raise unknown_error(a if type(a) is Unknown else b, f)
            try:
                return op(a, b)
            except TypeError:
                raise runtime_type_error(f"cannot compare {a!r} {sym} {b!r}", f) from None

        return compare, "bool"

    def _boolop(self, node: s.BoolOp, scope: Scope) -> tuple[Fn, str]:
        left = self.compile(node.left, scope)[0]
        right = self.compile(node.right, scope)[0]
        if node.op == "and":

            def both(f: Frame) -> bool:
                a = left(f)
                if type(a) is Unknown:
                    raise unknown_error(a, f)
                if not a:
                    return False
                b = right(f)
                if type(b) is Unknown:
                    raise unknown_error(b, f)
                return bool(b)

            return both, "bool"

        def either(f: Frame) -> bool:
            a = left(f)
            if type(a) is Unknown:
                raise unknown_error(a, f)
            if a:
                return True
            b = right(f)
            if type(b) is Unknown:
                raise unknown_error(b, f)
            return bool(b)

        return either, "bool"

    def _not(self, node: s.Not, scope: Scope) -> tuple[Fn, str]:
        operand = self.compile(node.operand, scope)[0]
        return (lambda f: not check_known(operand(f), f)), "bool"

    def _neg(self, node: s.Neg, scope: Scope) -> tuple[Fn, str]:
        operand = self.expect(node.operand, scope, NUMERIC, "the operand of '-'")

        def neg(f: Frame) -> int:
            v = check_known(operand(f), f)
            if type(v) is not int:
                raise runtime_type_error(f"'-' needs a number, got {v!r}", f)
            return -v

        return neg, "int"

    def _conditional(self, node: s.Conditional, scope: Scope) -> tuple[Fn, str]:
        then, tt = self.compile(node.then, scope)
        test = self.compile(node.test, scope)[0]
        other, ot = self.compile(node.other, scope)
        return (lambda f: then(f) if check_known(test(f), f) else other(f)), tt if tt == ot else "any"

    def _range(self, node: s.Range, scope: Scope) -> tuple[Fn, str]:
        low = self.expect(node.low, scope, NUMERIC, "the start of a range")
        high = self.expect(node.high, scope, NUMERIC, "the end of a range")
        return (lambda f: list(range(check_known(low(f), f), check_known(high(f), f) + 1))), "list:int"

    # ---------------------------------------------------------------- function calls
    def _call(self, node: s.Call, scope: Scope) -> tuple[Fn, str]:
        from .builtins import FUNCTIONS

        if node.fn == "keys" and len(node.args) == 1 and isinstance(node.args[0], s.Name):
            # keys(gems) names the counter itself, per-player or not: its keys are fixed at link time.
            counter = self.rules.counters.get(node.args[0].id)
            if counter is not None and counter.keys is not None:
                return _constant(list(counter.keys)), "list:symbol"
        spec = FUNCTIONS.get(node.fn)
        if spec is None:
            raise CompileError("E401", f"unknown function '{node.fn}'", node.pos, did_you_mean(node.fn, FUNCTIONS))
        compiled = [self.compile(a, scope) for a in node.args]
        if not spec.min_args <= len(compiled) <= spec.max_args:
            want = str(spec.min_args) if spec.min_args == spec.max_args else f"{spec.min_args} to {spec.max_args}"
            raise CompileError("E405", f"'{node.fn}' takes {want} argument(s), got {len(compiled)}", node.pos)
        fns = tuple(c[0] for c in compiled)
        impl = spec.impl
        result_type = spec.result([c[1] for c in compiled])
        if len(fns) == 1:
            (a,) = fns
            return (lambda f: impl(f, a(f))), result_type
        if len(fns) == 2:
            a, b = fns
            return (lambda f: impl(f, a(f), b(f))), result_type
        return (lambda f: impl(f, *[fn(f) for fn in fns])), result_type


_UNSET = object()


def _constant(value: Any) -> Fn:
    return lambda f: value


def _restore(f: Frame, var: str, saved: Any) -> None:
    if saved is _UNSET:
        f.vars.pop(var, None)
    else:
        f.vars[var] = saved


def _me(f: Frame) -> Player:
    if f.me is None:
        raise runtime_type_error("'me' is used, but no player is acting", f)
    return f.me


def span_in(base: Span, pos: s.Pos, style: str | None) -> Span:
    """The file position of `pos` inside a YAML string that starts at `base`."""
    line, col = pos
    if style in ("|", ">"):
        return Span(base.file, base.line + line, base.col + col + 1)
    offset = 1 if style in ("'", '"') else 0
    if line == 1:
        return Span(base.file, base.line, base.col + offset + col - 1)
    return Span(base.file, base.line + line - 1, col)
