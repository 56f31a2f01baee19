"""Emit Python from checked trees: the one module that knows how the state store is laid out and which runtime
helpers generated code calls.

Each expression becomes Python source (`lambda f: ...`) that is compiled once; at run time an expression is one
call, with filters as list comprehensions and comparisons as Python operators, and nothing walks a tree.
Names bound inside an expression (`it`, a comprehension's variable) are Python locals; names bound by effects
live in the frame's `vars`. A rule body compiled as one function (`body_compiler`) takes its expressions' source
from here too, and asks here for every line that reads or writes the store (`Store`).

Every runtime call generated code makes goes through `_BASE_NS` below (`f.g` is the machine behind the frame):
retargeting generated code at another runtime object changes this module only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..engine import runtime as rt
from ..engine.values import Player, Ref, Zone
from . import checked as c
from . import deferred, ranks
from .builtins import FUNCTIONS, max2, min2
from .code_cache import compile_expression
from .types import BOOL, ZONE, Type

if TYPE_CHECKING:
    from ..engine.rules import Rules

Fn = Callable[[Any], Any]

# What generated code may call: runtime helpers and the built-in functions.
_BASE_NS: dict[str, Any] = {
    "_me": rt.me, "_player_at": rt.player_at, "_piece_ref": rt.piece_ref, "_pid": rt.player_id, "_seat": rt.seat,
    "_prop": rt.prop, "_Player": Player,
    "_key": rt.key_of, "_arith": rt.arith, "_add": rt.add, "_sub": rt.sub, "_min2": min2, "_max2": max2,
    "_ids": rt.zone_ids, "_int": int, "_str": str, "_order": rt.order, "_in": rt.contains, "_neg": rt.negate,
    "_range": rt.int_range, "_sort": rt.sort_pairs, "_truth": rt.known_truth, "_as_list": rt.as_list,
    "_can_pay": rt.can_pay,
    "_can_take": rt.can_take,
    "_attr": rt.attr, "_item": rt.family_item, "_known": rt.check_known, "Zone": Zone, "Ref": Ref,
    "_rank_group": ranks.group, "_rank": ranks.rank,
    **{f"_b_{name}": spec.impl for name, spec in FUNCTIONS.items()},
}

# The only Python built-ins generated code may name. Without this, eval() would hand it all of them (open,
# __import__, ...): nothing YAML-controlled reaches the source unescaped, and this keeps it so if that ever broke.
_BUILTINS: dict[str, Any] = {"bool": bool, "len": len}

# How generated code reaches the runtime: the machine, and the flow's own variables in the store.
_MACHINE = "f.g"
_FLOW = {
    "players": f"{_MACHINE}.players",
    "player_count": f"len({_MACHINE}.players)",
    "chance": "'chance'",
    "turn_player": f"{_MACHINE}.player({_MACHINE}.state.vars['turn_player'])",
    "turn_number": f"{_MACHINE}.state.vars['turn']",
    "round_number": f"{_MACHINE}.state.vars['round']",
    "game_over": f"bool({_MACHINE}.state.vars['game_over'])",
    # engine/ending.py's state
    "final_round": f"({_MACHINE}.state.vars.get('end_after_turn', False) or "
                   f"{_MACHINE}.state.vars.get('end_after_rounds') == 1)",
    "start_player": f"{_MACHINE}.player({_MACHINE}.state.vars['start_player'])",
}


def _local(name: str) -> str:
    return f"_v_{name}"


def record(name: str) -> str:
    """The state record of the piece an expression-bound name iterates, bound next to it."""
    return f"_q_{name}"


_SIMPLE = re.compile(r"^(?:[A-Za-z_]\w*|-?\d+)$")  # a Python name or an integer: safe to repeat in source
_INT_LITERAL = re.compile(r"^-?\d+$")


class _Text(str):
    """Literal text in a key being built (the rest of the parts are Python sources)."""


def _joined(*parts: str) -> str:
    """Source joining texts and string-valued sources: one f-string where the sources allow it (half the cost
    of `+`), `+` otherwise."""
    def unsafe(p: str) -> bool:
        return any(ch in p for ch in '"\\{}#') or not p.isprintable()

    if any(unsafe(p) for p in parts):
        return "(" + " + ".join(repr(str(p)) if isinstance(p, _Text) else p for p in parts) + ")"
    return 'f"' + "".join(p if isinstance(p, _Text) else "{(" + p + ")}" for p in parts) + '"'


class Gen:
    """Source generation state: the constants, and the loop invariants of the comprehension being generated.

    Inside a comprehension, reads of the acting player and of names bound by effects are the same for every
    element: they become parameters of a function wrapped around the outermost comprehension, evaluated once
    (`(lambda _h0: [... _h0 ...])(f.me)`). Such reads cannot fail, so evaluating them early changes nothing."""

    def __init__(self) -> None:
        self.ns: dict[str, Any] = {}
        self.depth = 0  # comprehensions we are inside
        self.hoisted: dict[str, str] = {}  # invariant source -> its parameter name
        self.used: set[str] = set()  # expression-bound names read as values (not only their properties)
        # In a compiled rule body: names bound by effects that are Python locals there, and the local holding
        # the acting player (with `mid`, its id); see body_compiler.
        self.locals: dict[str, str] = {}
        self.me: str | None = None
        self.in_iterable = 0  # generating what a comprehension goes through, where `:=` is not allowed
        self.temps = 0

    def const(self, value: Any) -> str:
        name = f"_k{len(self.ns)}"
        self.ns[name] = value
        return name

    def numbers(self, left: str, right: str) -> tuple[str, str, str] | None:
        """For an operation on two numbers written in place: (left, right, the test that both are numbers),
        each operand evaluated once and in order; None where that cannot be written (outside a compiled body,
        inside a comprehension or what it goes through)."""
        simple = [bool(_SIMPLE.match(x)) for x in (left, right)]
        if not all(simple) and (self.me is None or self.depth or self.in_iterable):
            return None
        names, checks = [], []
        for src, plain in zip((left, right), simple, strict=True):
            if plain:
                names.append(src)
                if not _INT_LITERAL.match(src):
                    checks.append(f"({src}.__class__ is _int)")
            else:
                self.temps += 1
                name = f"_w{self.temps}"
                names.append(name)
                checks.append(f"(({name} := {src}).__class__ is _int)")
        # `&` and not `and`: both operands are evaluated (and bound) even when the first is not a number.
        return names[0], names[1], " & ".join(checks) or "True"

    def state(self) -> str:
        """The state store: a local in a compiled body, read through the frame in an expression's function."""
        return "st" if self.me is not None else f"{_MACHINE}.state"

    def pid(self, player: str) -> str:
        """The id of the player `player` evaluates to (a counter or zone key starts with it)."""
        if player == self.me and self.me is not None:
            return "(mid or _pid(me, f))"
        if _SIMPLE.match(player) and not _INT_LITERAL.match(player):  # a name: read twice, no call for a player
            return f"({player}.id if {player}.__class__ is _Player else _pid({player}, f))"
        return f"_pid({player}, f)"

    def invariant(self, src: str) -> str:
        if src == "f.me" and self.me is not None:
            return self.me
        if self.depth == 0:
            return src
        name = self.hoisted.get(src)
        if name is None:
            name = self.hoisted[src] = f"_h{len(self.hoisted)}"
        return name

    def enter(self) -> set[str]:
        """Start generating a comprehension; returns the names read so far, to restore on leaving."""
        self.depth += 1
        outer, self.used = self.used, set()
        return outer

    def leave(self, src: str, var: str, outer_used: set[str]) -> str:
        """Finish a comprehension binding `var`: close the outermost one over its hoisted invariants."""
        self.depth -= 1
        self.used = outer_used | (self.used - {var})
        if self.depth or not self.hoisted:
            return src
        params, args = ", ".join(self.hoisted.values()), ", ".join(self.hoisted)
        self.hoisted = {}
        return f"(lambda {params}: {src})({args})"


def namespace(gen: Gen) -> dict[str, Any]:
    """The globals of generated code: the runtime helpers, then the constants of `gen`."""
    return {**_BASE_NS, **gen.ns, "__builtins__": _BUILTINS}


def function(src: str, gen: Gen) -> Fn:
    """The function of the frame that evaluates `src`."""
    return eval(compile_expression(f"lambda f: {src}"), namespace(gen))


class Emitter:
    """Checked tree -> Python source, for one set of linked rules."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.defer = deferred.active()  # a link nothing runs: functions compiled at their first call
        self._dispatch: dict[type, Callable[[Any, Gen], str]] = {
            c.Literal: self._literal,
            c.Name: self._name,
            c.PieceLit: self._piece_lit,
            c.Attr: self._attr,
            c.Cell: self._cell,
            c.CounterKey: self._counter_key,
            c.FamilyKey: self._family_key,
            c.Index: self._index,
            c.Keys: self._keys,
            c.Call: self._call,
            c.ListLit: self._list,
            c.Comprehension: self._comprehension,
            c.BinOp: self._binop,
            c.Compare: self._compare,
            c.BoolOp: self._boolop,
            c.Not: self._not,
            c.Neg: self._neg,
            c.Conditional: self._conditional,
            c.Range: self._range,
            c.Where: self._where,
            c.SortedBy: self._sorted_by,
            c.CanPay: self._can_pay,
            c.CanTake: self._can_take,
            c.TableRead: self._table_read,
            c.RankBy: self._rank_by,
        }

    def function(self, node: c.Node) -> Fn:
        gen = Gen()
        src = self.src(node, gen)
        if self.defer and deferred.fits(src):
            return deferred.Deferred(function, src, gen)
        return function(src, gen)

    def src(self, node: c.Node, gen: Gen) -> str:
        return self._dispatch[type(node)](node, gen)

    def truth(self, node: c.Node, gen: Gen) -> str:
        src = self.src(node, gen)
        return src if node.type == BOOL else f"_truth(f, {src})"

    # ---------------------------------------------------------------- leaves
    def _literal(self, node: c.Literal, gen: Gen) -> str:
        return repr(node.value)

    def _piece_lit(self, node: c.PieceLit, gen: Gen) -> str:
        return f"_piece_ref(f, {node.id!r})"

    def _name(self, node: c.Name, gen: Gen) -> str:
        return NAME_SRC[node.ref.kind](self, node.ref, gen)

    # ---------------------------------------------------------------- attributes, cells and indexing
    def _attr(self, node: c.Attr, gen: Gen) -> str:
        name, kind, obj_node = node.name, node.kind, node.obj
        if isinstance(obj_node, c.Name) and obj_node.live:
            rec = record(obj_node.ref.name)
            if kind == "property":
                # A piece being iterated out of a zone exists, and its record is bound next to it: read the
                # property without the checks. The default is its own kind's (a kind that does not declare it
                # gives none).
                r = self.rules
                defaults = {k: r.prop_defaults.get((k, name)) for k in r.kinds}
                if len({repr(v) for v in defaults.values()}) == 1:
                    return f"{rec}.props.get({name!r}, {gen.const(next(iter(defaults.values())))})"
                # The kinds without a default are left out (get gives None for them too): a module that adds a
                # kind without this property leaves the source as it was (shared_links shares it).
                given = {k: v for k, v in defaults.items() if v is not None}
                return f"{rec}.props.get({name!r}, {gen.const(given)}.get({rec}.kind))"
            if name == "kind":
                return f"{rec}.kind"
            if name == "linked":
                piece = self.src(obj_node, gen)  # most pieces are linked to none: no call for them
                return f"([] if {rec}.group is None else {_MACHINE}.piece_builtin({piece}, 'linked'))"
        return ATTR_SRC[kind](self.src(obj_node, gen), name, gen)

    def _cell(self, node: c.Cell, gen: Gen) -> str:
        name = node.counter.name
        if node.owner is None:
            parts: list[str] = [_Text(name + "[")]
        else:
            parts = [gen.pid(self.src(node.owner, gen)), _Text("." + name + "[")]
        keys = gen.const(frozenset(node.counter.keys))
        key = self.src(node.key, gen)
        checked = f"_key(f, {key}, {keys}, {name!r})"
        if _SIMPLE.match(key):
            checked = f"({key} if {key}.__class__ is _str and {key} in {keys} else {checked})"
        return _joined(*parts, checked, _Text("]"))

    def _counter_key(self, node: c.CounterKey, gen: Gen) -> str:
        name = node.counter.name
        if node.owner is None:
            return repr(name)
        return _joined(gen.pid(self.src(node.owner, gen)), _Text("." + name))

    def _family_key(self, node: c.FamilyKey, gen: Gen) -> str:
        return f"{_MACHINE}.family_key({self.src(node.family, gen)}, {self.src(node.key, gen)})"

    def _index(self, node: c.Index, gen: Gen) -> str:
        if node.cell is not None:
            return f"{gen.state()}.counters[{self._cell(node.cell, gen)}]"
        obj = self.src(node.obj, gen)
        key = self.src(node.key, gen)
        return f"_item(f, {obj}, {key})"

    def _keys(self, node: c.Keys, gen: Gen) -> str:
        return gen.const(list(node.keys))

    # ---------------------------------------------------------------- compound expressions
    def _list(self, node: c.ListLit, gen: Gen) -> str:
        return "[" + ", ".join(self.src(i, gen) for i in node.items) + "]"

    def _comprehension(self, node: c.Comprehension, gen: Gen) -> str:
        items = self._iterable(node.iterable, gen)
        outer_used = gen.enter()
        element = self.src(node.element, gen)
        cond = self.truth(node.cond, gen) if node.cond is not None else None
        src = self.loop(node.var, items, node.iterable.type, element if element != _local(node.var) else None,
                        cond, gen)
        return gen.leave(src, node.var, outer_used)

    def loop(self, var: str, items: str, it: Type, element: str | None, cond: str | None, gen: Gen) -> str:
        """A list comprehension over `items` binding `var`, keeping `element` (the item itself when None) where
        `cond` holds. Over a zone it goes through piece ids once, binding each piece's record, and makes a piece
        value only for an item it keeps, unless the element or condition reads the piece itself."""
        local = _local(var)
        test = f" if {cond}" if cond is not None else ""
        if it != ZONE:
            return f"[{element or local} for {local} in _as_list({items}, f){test}]"
        pid, rec = f"_p{local}", record(var)
        records, make = gen.invariant(f"{gen.state()}.pieces"), gen.invariant(f"{_MACHINE}.piece")
        head = f"for {pid} in _ids(f, {items}) for {rec} in ({records}[{pid}],)"
        if var in gen.used:
            return f"[{element or local} {head} for {local} in ({make}({pid}),){test}]"
        return f"[{element or f'{make}({pid})'} {head}{test}]"

    def _iterable(self, node: c.Node, gen: Gen) -> str:
        gen.in_iterable += 1
        try:
            return self.src(node, gen)
        finally:
            gen.in_iterable -= 1

    def _where(self, node: c.Where, gen: Gen) -> str:
        items = self._iterable(node.items, gen)
        outer_used = gen.enter()
        cond = self.truth(node.cond, gen)
        src = self.loop("it", items, node.items.type, None, cond, gen)
        return gen.leave(src, "it", outer_used)

    def _sorted_by(self, node: c.SortedBy, gen: Gen) -> str:
        items = self._iterable(node.items, gen)
        outer_used = gen.enter()
        key = self.src(node.key, gen)
        gen.used.add("it")  # the pair holds the piece itself
        pairs = self.loop("it", items, node.items.type, f"({key}, {_local('it')})", None, gen)
        return f"_sort(f, {gen.leave(pairs, 'it', outer_used)}, {node.descending!r})"

    def _binop(self, node: c.BinOp, gen: Gen) -> str:
        left = self.src(node.left, gen)
        right = self.src(node.right, gen)
        if node.op in ("+", "-"):
            helper = "_add" if node.op == "+" else "_sub"
            inline = gen.numbers(left, right)
            if inline is not None and gen.me is not None:  # in a compiled body, where MI is the number limit
                a, b, test = inline
                result = f"{a} {node.op} {b}"
                return f"({result} if {test} and -MI <= {result} <= MI else {helper}(f, {a}, {b}))"
            return f"{helper}(f, {left}, {right})"
        return f"_arith(f, {node.op!r}, {left}, {right})"

    def _compare(self, node: c.Compare, gen: Gen) -> str:
        left = self.src(node.left, gen)
        right = self.src(node.right, gen)
        if node.op == "in":
            return f"_in(f, {left}, {right})"
        if node.op == "notin":
            return f"(not _in(f, {left}, {right}))"
        if node.op in ("==", "!="):
            # An Unknown raises when compared, and the transaction turns that into E601 at the rule's span.
            return f"({left} {node.op} {right})"
        inline = gen.numbers(left, right)
        if inline is not None:
            # Compared in place, the general path only for what is not two numbers.
            a, b, test = inline
            return f"({a} {node.op} {b} if {test} else _order(f, {node.op!r}, {a}, {b}))"
        return f"_order(f, {node.op!r}, {left}, {right})"

    def _boolop(self, node: c.BoolOp, gen: Gen) -> str:
        left = self.truth(node.left, gen)
        right = self.truth(node.right, gen)
        return f"({left} {node.op} {right})"

    def _not(self, node: c.Not, gen: Gen) -> str:
        return f"(not {self.truth(node.operand, gen)})"

    def _neg(self, node: c.Neg, gen: Gen) -> str:
        return f"_neg(f, {self.src(node.operand, gen)})"

    def _conditional(self, node: c.Conditional, gen: Gen) -> str:
        then = self.src(node.then, gen)
        test = self.truth(node.test, gen)
        other = self.src(node.other, gen)
        return f"({then} if {test} else {other})"

    def _range(self, node: c.Range, gen: Gen) -> str:
        return f"_range(f, {self.src(node.low, gen)}, {self.src(node.high, gen)})"

    def _who(self, node: c.Node | None, gen: Gen) -> str:
        return self.src(node, gen) if node is not None else "f.me"

    def _can_pay(self, node: c.CanPay, gen: Gen) -> str:
        payer = self._who(node.payer, gen)
        return f"_can_pay(f, {gen.const(node.cost)}, {payer})"

    def _can_take(self, node: c.CanTake, gen: Gen) -> str:
        parts = [f"({name!r}, {self.src(a, gen)})" for name, a in node.args]
        args = ", ".join(parts)
        who = self._who(node.who, gen)
        return f"_can_take(f, {node.action!r}, ({args}{',' if args else ''}), {who})"

    def _table_read(self, node: c.TableRead, gen: Gen) -> str:
        if node.table is None:
            return "None"  # its declaration was reported: no second error at each read
        known, hit = node.constant
        if known:
            return repr(hit) if type(hit) in (int, bool, str) else gen.const(hit)
        args = "".join(f", {self.src(k, gen)}" for k in node.keys)
        return f"{gen.const(node.table.reader())}(f{args})"

    def _rank_by(self, node: c.RankBy, gen: Gen) -> str:
        gen.in_iterable += 1  # what the ranking goes through, as a comprehension's iterable
        try:
            group = self.src(node.group, gen)
            subject = self._who(node.subject, gen)
        finally:
            gen.in_iterable -= 1
        outer_used = gen.enter()
        key = self.src(node.key, gen)
        items = f"_rank_group(f, {group}, {subject})"
        keys = gen.leave(self.loop("it", items, node.group.type, key, None, gen), "it", outer_used)
        return f"_rank(f, {keys})"

    # ---------------------------------------------------------------- function calls
    def _call(self, node: c.Call, gen: Gen) -> str:
        compiled = [self.src(a, gen) for a in node.args]
        args = "".join(f", {x}" for x in compiled)
        if node.fn in ("min", "max") and len(compiled) == 2:  # two numbers: in place, or a fast path
            inline = gen.numbers(compiled[0], compiled[1])
            if inline is not None:
                a, b, test = inline
                pick = f"({a} if {a} {'<=' if node.fn == 'min' else '>='} {b} else {b})"
                return f"({pick} if {test} else _{node.fn}2(f, {a}, {b}))"
            return f"_{node.fn}2(f{args})"
        return f"_b_{node.fn}(f{args})"



def _var(em: Emitter, ref: c.Ref, gen: Gen) -> str:
    if ref.name in gen.locals:
        return gen.locals[ref.name]
    return gen.invariant(f"f.vars[{ref.name!r}]")


def _local_name(em: Emitter, ref: c.Ref, gen: Gen) -> str:
    gen.used.add(ref.name)
    return _local(ref.name)


def _const(em: Emitter, ref: c.Ref, gen: Gen) -> str:
    data = ref.decl.data
    return repr(data if not isinstance(data, str) else str(data))


# What each kind of name (checked.NAME_KINDS) reads. tests/test_dispatch.py proves it covers every kind.
NAME_SRC: dict[str, Callable[[Emitter, c.Ref, Gen], str]] = {
    "local": _local_name,
    "var": _var,
    # With me in scope, f.me is read directly; anything that needs its id goes through _pid, which reports a
    # missing acting player.
    "me": lambda em, ref, gen: gen.invariant("f.me"),
    "flow": lambda em, ref, gen: _FLOW[ref.name],
    "seat": lambda em, ref, gen: f"_player_at(f, {ref.decl})",
    "const": _const,
    "value": lambda em, ref, gen: f"{gen.const(em.rules.value_reader(ref.name))}(f)",
    "family": lambda em, ref, gen: gen.const(Ref("family", ref.name)),
    "counter": lambda em, ref, gen: f"{gen.state()}.counters[{ref.name!r}]",
    "zone": lambda em, ref, gen: gen.const(Zone(ref.name)),
    "marker": lambda em, ref, gen: gen.const(Ref("marker", ref.name)),
    "track": lambda em, ref, gen: gen.const(Ref("track", ref.name)),
    "die": lambda em, ref, gen: gen.const(Ref("die", ref.name)),
    "set": lambda em, ref, gen: gen.const(list(ref.decl)),
    "symbol": lambda em, ref, gen: repr(ref.name),
}

# What each reading of `obj.name` (checked.ATTR_KINDS) reads, given obj's source. tests/test_dispatch.py proves it
# covers every kind.
ATTR_SRC: dict[str, Callable[[str, str, Gen], str]] = {
    "counter": lambda obj, name, gen: f"{gen.state()}.counters[{_joined(gen.pid(obj), _Text('.' + name))}]",
    "family": lambda obj, name, gen: f"Ref('family', {gen.pid(obj)} + {'.' + name!r})",
    "zone": lambda obj, name, gen: f"Zone({gen.pid(obj)} + {'.' + name!r})",
    "seat": lambda obj, name, gen: f"_seat({obj}, f)",
    "player_marker": lambda obj, name, gen: f"Ref('marker', {gen.pid(obj)} + {'.' + name!r})",
    "builtin": lambda obj, name, gen: f"{_MACHINE}.piece_builtin({obj}, {name!r})",
    "property": lambda obj, name, gen: f"_prop(f, {obj}, {name!r})",
    "owner": lambda obj, name, gen: f"{_MACHINE}.zone_owner({obj})",
    "position": lambda obj, name, gen: f"{_MACHINE}.state.markers[({obj}).name].pos",
    "dynamic": lambda obj, name, gen: f"_attr(f, {obj}, {name!r})",
}


# ---------------------------------------------------------------- rule bodies compiled as one function
# What a compiled rule body (body_compiler) writes that touches the runtime: its locals, the step and work
# budgets, the cause of each change, counters and pieces in the store. body_compiler decides the shape of the
# function; every line that knows where something lives in the store comes from here.

# The locals a compiled body may read, set once at its start (only those it reads), in the order they are set.
PROLOGUE = (
    ("g", _MACHINE), ("st", "g.state"), ("V", "f.vars"),
    # numbers above this are refused (E513); it is also below what the state store can save
    ("MI", "_min(g.budget.limits.max_int, _SAVABLE_MAX)"),
    # the acting player never changes inside one body (`as` runs a body of its own)
    ("me", "f.me"), ("mid", "me.id if me.__class__ is _Player else None"),
)


def body_namespace(gen: Gen) -> dict[str, Any]:
    """The globals of a compiled rule body: those of an expression, the runners and the store's helpers."""
    from ..engine.interpreter import RUNNERS, acting, call, case_key, counter_change, illegal
    from ..engine.state import _MISSING, _SAVABLE

    out = namespace(gen)
    # Integer fast paths test types; the generated code still sees no Python built-ins beyond the minimal set.
    out.update(_RUNNERS=RUNNERS, _illegal=illegal, _change=counter_change, _case_key=case_key, _call=call,
               _acting=acting, _type=type, _charge=rt.charge,
               _isinstance=isinstance, _MISSING=_MISSING, _SAVABLE_MAX=_SAVABLE - 1, _min=min)
    return out


class Body:
    """Source lines of a compiled rule body that read or write the runtime."""

    @staticmethod
    def charge_steps(count: int, span: str) -> list[str]:
        """Charge the step budget for `count` statements at once; past it, the loop error at `span`."""
        return [f"g.steps += {count}", f"if g.steps > g.step_budget: raise g.loop_error({span})"]

    @staticmethod
    def cause(span: str) -> str:
        """The statement whose changes the journal records next."""
        return f"st.cause = {span}"

    @staticmethod
    def bind(name: str, value: str, local: str | None) -> str:
        """Bind a name in the frame's vars (and in a Python local, when there is one)."""
        return f"V[{name!r}] = {local} = {value}" if local is not None else f"V[{name!r}] = {value}"

    @staticmethod
    def number(value: str) -> str:
        """A number within the budget's bounds, or E513."""
        return f"if {value}.__class__ is _int and not -MI <= {value} <= MI: g.budget.number({value}, st.cause)"

    @staticmethod
    def counter(key: str) -> str:
        return f"st.counters[{key}]"

    @staticmethod
    def counter_or_missing(key: str) -> str:
        return f"st.counters.get({key}, _MISSING)"

    @staticmethod
    def set_counter(key: str, counter: str, value: str) -> str:
        """The machine's general way: range checks, overflow, watchers."""
        return f"g.set_counter({key}, {counter!r}, {value})"

    @staticmethod
    def write_counter(key: str, old: str, value: str) -> list[str]:
        """The store's journal entry and write, for a number the caller checked is within range."""
        return [f"st.journal.append(('counter', {key}, {old}, st.cause))", f"st.counters[{key}] = {value}"]

    @staticmethod
    def records() -> str:
        """The pieces' state records, by id."""
        return "st.pieces"

    @staticmethod
    def piece(pid: str) -> str:
        return f"g.piece({pid})"

    @staticmethod
    def refund_work(size: str) -> str:
        return f"g.budget.work -= {size}"

    @staticmethod
    def charge_work(amount: str) -> list[str]:
        """Charge work, raising E513 past the limit, as going through the elements would."""
        return [f"g.budget.work += {amount}", "if g.budget.work > g.budget.limits.work: _charge(f, 0)"]

    @staticmethod
    def run(kind: str, node: str) -> str:
        """A statement run by its runner, looked up when it runs: RUNNERS stays the one table of what each does."""
        return f"_RUNNERS[{kind}]({node}, f)"

    @staticmethod
    def refuse(message: str) -> str:
        return f"raise _illegal({message}, f)"
