"""Compile expression syntax into Python functions, resolving every name and checking types once, at link time.

Each expression becomes Python source (`lambda f: ...`) that is compiled once; at run time an expression is one
call, with filters as list comprehensions and comparisons as Python operators, and nothing walks syntax.
Names bound inside an expression (`it`, a comprehension's variable) are Python locals; names bound by effects
live in the frame's `vars`.

Static types are values of `types.Type` (int, bool, symbol, player, piece, zone, ..., a list of T, and ANY: not
known until run time).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..diagnostics import Span, did_you_mean, source_line
from ..engine import runtime as rt
from ..engine.budget import CODE as BUDGET_CODE
from ..engine.budget import check_constant
from ..engine.values import Ref, Zone
from . import syntax as s
from . import value_tables
from .builtins import FUNCTIONS, max2, min2
from .code_cache import compile_expression
from .compile_error import CompileError
from .ranks import compile_rank_by
from .types import (
    ANY,
    BOOL,
    CHANCE,
    DIE,
    FAMILY,
    INT,
    MARKER,
    NONE,
    PIECE,
    PLAYER,
    SYMBOL,
    TRACK,
    ZONE,
    Type,
    comparable,
    declared,
    list_of,
    member_of,
)

if TYPE_CHECKING:
    from ..engine.interpreter import Frame
    from ..engine.rules import Rules

Fn = Callable[["Frame"], Any]

PIECE_BUILTINS = {"id": SYMBOL, "kind": SYMBOL, "zone": ZONE, "slot": INT, "linked": list_of(PIECE)}
NUMERIC = {INT, ANY}

# Static types each kind of built-in argument accepts (ANY and lists are handled where they are checked).
_ACCEPTS = {
    "list": {ZONE}, "numbers": {INT}, "number": {INT}, "zone": {ZONE}, "player": {PLAYER},
    "marker": {MARKER}, "track": {TRACK}, "symbol": {SYMBOL}, "any": None,
}
_ARG_WORDS = {"list": "a list or a zone", "numbers": "a number or a list of numbers", "number": "a number",
              "zone": "a zone", "player": "a player", "marker": "a track marker", "track": "a track",
              "symbol": "a symbol", "any": "anything"}

# What generated code may call: runtime helpers and the built-in functions.
_BASE_NS: dict[str, Any] = {
    "_me": rt.me, "_player_at": rt.player_at, "_piece_ref": rt.piece_ref, "_pid": rt.player_id, "_seat": rt.seat,
    "_prop": rt.prop,
    "_key": rt.key_of, "_arith": rt.arith, "_add": rt.add, "_sub": rt.sub, "_min2": min2, "_max2": max2,
    "_ids": rt.zone_ids, "_int": int, "_str": str, "_order": rt.order, "_in": rt.contains, "_neg": rt.negate,
    "_range": rt.int_range, "_sort": rt.sort_pairs, "_truth": rt.known_truth, "_as_list": rt.as_list,
    "_can_pay": rt.can_pay,
    "_can_take": rt.can_take,
    "_attr": rt.attr, "_item": rt.family_item, "_known": rt.check_known, "Zone": Zone, "Ref": Ref,
    **{f"_b_{name}": spec.impl for name, spec in FUNCTIONS.items()},
}


# The only Python built-ins generated code may name. Without this, eval() would hand it all of them (open,
# __import__, ...): nothing YAML-controlled reaches the source unescaped, and this keeps it so if that ever broke.
_BUILTINS: dict[str, Any] = {"bool": bool, "len": len}


@dataclass
class Scope:
    """Local names visible at a point of a rule, with their static types."""

    names: dict[str, Type]
    has_me: bool = True
    py_locals: frozenset[str] = field(default_factory=frozenset)  # bound inside the expression itself
    live_pieces: frozenset[str] = field(default_factory=frozenset)  # py_locals iterating a zone's pieces
    outer: frozenset[str] = field(default_factory=frozenset)  # names bound by enclosing blocks: not rebindable

    @staticmethod
    def of(params: tuple[tuple[str, str], ...], has_me: bool = True) -> Scope:
        """A scope holding declared parameters (written as type words in the pack)."""
        return Scope({name: declared(word) for name, word in params}, has_me)

    def snapshot(self) -> Scope:
        """A copy that later bindings in the rule (which add to `names`) do not change."""
        return Scope(dict(self.names), self.has_me, self.py_locals, self.live_pieces, self.outer)

    def child(self, extra: Mapping[str, Type] | None = None) -> Scope:
        """The scope of a nested block: it sees every name bound so far, and what it binds stays inside it.

        Bound names come as a mapping, never as keyword arguments: a rule may name its variable `self`."""
        extra = extra or {}
        return Scope({**self.names, **extra}, self.has_me, self.py_locals - set(extra), self.live_pieces - set(extra),
                     frozenset(self.names))

    def inner(self, from_zone: bool, extra: Mapping[str, Type]) -> Scope:
        """A scope for an expression's own bound names (where's `it`, a comprehension's variable)."""
        live = self.live_pieces | set(extra) if from_zone else self.live_pieces - set(extra)
        return Scope({**self.names, **extra}, self.has_me, self.py_locals | set(extra), live, self.outer)


def _short(text: str) -> str:
    return text if len(text) <= 20 else text[:17] + "..."


def _local(name: str) -> str:
    return f"_v_{name}"


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


def _record(name: str) -> str:
    """The state record of the piece an expression-bound name iterates, bound next to it."""
    return f"_q_{name}"


class _Gen:
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
        return "st" if self.me is not None else "f.g.state"

    def pid(self, player: str) -> str:
        """The id of the player `player` evaluates to (a counter or zone key starts with it)."""
        if player == self.me and self.me is not None:
            return "(mid or _pid(me, f))"
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


class ExprCompiler:
    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        # Parsing is cached by text, so equal texts (a YAML alias used thousands of times) give the same node:
        # compile each (node, scope) once. The node is kept in the value so its id cannot be reused while cached.
        self._compiled: dict[tuple, tuple[s.Node, tuple[Fn, Type] | CompileError]] = {}
        self._dispatch: dict[type, Callable[[Any, Scope, _Gen], tuple[str, Type]]] = {
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
            s.CanPay: self._can_pay,
            s.CanTake: self._can_take,
        }
        # Set by the effect builder: compiles a cost for can_pay (costs are built there, with their own checks).
        self.cost_compiler: Callable[[s.Cost, Scope], Any] | None = None

    # ---------------------------------------------------------------- entry points
    def compile(self, node: s.Node, scope: Scope) -> tuple[Fn, Type]:
        key = (id(node), tuple(scope.names.items()), scope.has_me, scope.py_locals, scope.live_pieces, scope.outer)
        hit = self._compiled.get(key)
        if hit is None:
            try:
                compiled = self._compile(node, scope)
                # What compiled it, so a rule body can be compiled later with this expression inline.
                compiled[0].syntax = (node, scope.snapshot())  # type: ignore[attr-defined]
                result: tuple[Fn, Type] | CompileError = compiled
            except CompileError as err:
                result = err
            hit = self._compiled[key] = (node, result)
        if isinstance(hit[1], CompileError):
            raise hit[1]
        return hit[1]

    def _compile(self, node: s.Node, scope: Scope) -> tuple[Fn, Type]:
        gen = _Gen()
        try:
            src, t = self._src(node, scope, gen)
            return self._function(src, gen), t
        except (RecursionError, MemoryError, SyntaxError) as exc:
            if isinstance(exc, SyntaxError) and "nested" not in str(exc):
                raise
            raise CompileError("E301", "expression is nested too deeply", node.pos,
                               "split it with let, or into a value or a procedure") from None

    def resolve(self, node: s.Node, scope: Scope) -> Type:
        """Resolve names and check types (raising CompileError) without generating code: for static checks."""
        return self._src(node, scope, _Gen())[1]

    def counter_key(self, family: s.Node, key_node: s.Node, scope: Scope) -> Fn | None:
        """The state key of one cell of a keyed counter (`p1.stock[wine]`, `price[wine]`), when the counter is
        known at link time; None otherwise."""
        gen = _Gen()
        src = self._cell(family, key_node, scope, gen)
        if src is None:
            return None
        fn = self._function(src, gen)
        fn.cell = (family, key_node, scope.snapshot())  # type: ignore[attr-defined]
        return fn

    def source(self, fn: Fn, gen: _Gen) -> tuple[str, Type] | None:
        """The Python source of a compiled expression or counter key, with its constants in `gen` (for a rule
        body compiled as one function); None for a function not compiled from an expression."""
        syntax = getattr(fn, "syntax", None)
        if syntax is not None:
            return self._src(syntax[0], syntax[1], gen)
        cell = getattr(fn, "cell", None)
        if cell is not None:
            src = self._cell(cell[0], cell[1], cell[2], gen)
            return (src, SYMBOL) if src is not None else None
        return None

    @staticmethod
    def _function(src: str, gen: _Gen) -> Fn:
        namespace = {**_BASE_NS, **gen.ns, "__builtins__": _BUILTINS}
        return eval(compile_expression(f"lambda f: {src}"), namespace)

    @staticmethod
    def namespace(gen: _Gen) -> dict[str, Any]:
        """The globals of generated code: the runtime helpers, then the constants of `gen`."""
        return {**_BASE_NS, **gen.ns, "__builtins__": _BUILTINS}

    def _src(self, node: s.Node, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        return self._dispatch[type(node)](node, scope, gen)

    def _expect(self, node: s.Node, scope: Scope, gen: _Gen, wanted: set[Type], what: str) -> str:
        src, t = self._src(node, scope, gen)
        if t != ANY and t not in wanted:
            names = sorted(w.words() for w in wanted if w != ANY)
            raise CompileError("E402", f"{what} should be {' or '.join(names)}, but it is {t.words()}", node.pos)
        return src

    # ---------------------------------------------------------------- leaves
    def _literal(self, node: s.Literal, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        v = node.value
        if type(v) is int:
            over = check_constant("max_int", abs(v), "this number")
            if over:
                raise CompileError(BUDGET_CODE, over, node.pos)
        t = BOOL if isinstance(v, bool) else INT if isinstance(v, int) else NONE if v is None else SYMBOL
        return repr(v if not isinstance(v, str) else str(v)), t

    def _piece_ref(self, node: s.PieceRef, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        return f"_piece_ref(f, {node.id!r})", PIECE

    def _name(self, node: s.Name, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        name = node.id
        if name in scope.names:
            if name in scope.py_locals:
                gen.used.add(name)
                return _local(name), scope.names[name]
            if name in gen.locals:
                return gen.locals[name], scope.names[name]
            return gen.invariant(f"f.vars[{name!r}]"), scope.names[name]
        r = self.rules
        if name == "me":
            if not scope.has_me:
                raise CompileError("E401", "'me' is not available here: no player is acting", node.pos)
            # With me in scope, f.me is read directly; anything that needs its id goes through _pid, which
            # reports a missing acting player.
            return gen.invariant("f.me"), PLAYER
        if name == "players":
            return "f.g.players", list_of(PLAYER)
        if name == "player_count":
            return "len(f.g.players)", INT
        if name == "chance":
            return "'chance'", CHANCE
        if name == "turn_player":
            return "f.g.player(f.g.state.vars['turn_player'])", PLAYER
        if name == "turn_number":
            return "f.g.state.vars['turn']", INT
        # Flow names give way to a pack's own declarations of the same name.
        if name == "round_number" and name not in r.counters and name not in r.values:
            return "f.g.state.vars['round']", INT
        if name == "game_over" and name not in r.counters and name not in r.values:
            return "bool(f.g.state.vars['game_over'])", BOOL
        if name == "final_round" and name not in r.counters and name not in r.values:  # engine/ending.py's state
            return "(f.g.state.vars.get('end_after_turn', False) or f.g.state.vars.get('end_after_rounds') == 1)", BOOL
        if name == "start_player" and name not in r.counters and name not in r.values:
            return "f.g.player(f.g.state.vars['start_player'])", PLAYER
        if len(name) >= 2 and name[0] == "p" and name[1:].isascii() and name[1:].isdigit() and name[1] != "0":
            if len(name) > 4 or int(name[1:]) > r.players_max:
                raise CompileError("E401", f"there is no player '{_short(name)}': this game is for at most "
                                   f"{r.players_max} players", node.pos)
            return f"_player_at(f, {int(name[1:])})", PLAYER
        if name in r.values:
            v = r.values[name]
            if v.kind == "table":
                raise value_tables.bare_name_error(name, node.pos)
            if v.kind == "const" and isinstance(v.data, int | str | bool):
                return repr(v.data if not isinstance(v.data, str) else str(v.data)), declared(r.value_type(name))
            return f"{gen.const(r.value_reader(name))}(f)", declared(r.value_type(name))
        if name in r.counters and r.counters[name].per == "game":
            if r.counters[name].keys is not None:
                return gen.const(Ref("family", name)), FAMILY
            return f"{gen.state()}.counters[{name!r}]", INT
        if name in r.zones and r.zones[name].per == "game":
            return gen.const(Zone(name)), ZONE
        if name in r.player_markers:
            raise CompileError("E402", f"each player has a marker '{name}': say whose (me.{name}, p.{name})", node.pos)
        for table, kind in ((r.markers, MARKER), (r.tracks, TRACK), (r.dice, DIE)):
            if name in table:
                return gen.const(Ref(kind.name, name)), kind
        if name in r.sets:
            return gen.const(list(r.sets[name])), list_of(SYMBOL)
        if name in r.symbols:
            return repr(name), SYMBOL
        hint = did_you_mean(name, [*scope.names, *r.global_names()])
        raise CompileError("E401", f"unknown name '{name}'", node.pos, hint)

    # ---------------------------------------------------------------- attributes and indexing
    def _attr(self, node: s.Attr, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        name = node.name
        r = self.rules
        if (isinstance(node.obj, s.Name) and node.obj.id in scope.live_pieces and name in r.properties
                and name not in PIECE_BUILTINS):
            r.denote(node, "properties")
            # A piece being iterated out of a zone exists, and its record is bound next to it: read the property
            # without the checks. The default is its own kind's (a kind that does not declare it gives none).
            ptype = declared(r.properties[name])
            rec = _record(node.obj.id)
            defaults = {k: r.prop_defaults.get((k, name)) for k in r.kinds}
            if len({repr(v) for v in defaults.values()}) == 1:
                return f"{rec}.props.get({name!r}, {gen.const(next(iter(defaults.values())))})", ptype
            return f"{rec}.props.get({name!r}, {gen.const(defaults)}.get({rec}.kind))", ptype
        if isinstance(node.obj, s.Name) and node.obj.id in scope.live_pieces and name in ("kind", "linked"):
            rec = _record(node.obj.id)
            if name == "kind":
                return f"{rec}.kind", PIECE_BUILTINS[name]
            piece = self._src(node.obj, scope, gen)[0]  # most pieces are linked to none: no call for them
            return f"([] if {rec}.group is None else f.g.piece_builtin({piece}, 'linked'))", PIECE_BUILTINS[name]
        obj, t = self._src(node.obj, scope, gen)
        if t == PLAYER:
            if name in r.counters and r.counters[name].per == "player":
                r.denote(node, "counters")
                if r.counters[name].keys is not None:
                    return f"Ref('family', {gen.pid(obj)} + {'.' + name!r})", FAMILY
                return f"{gen.state()}.counters[{_joined(gen.pid(obj), _Text('.' + name))}]", INT
            if name in r.zones and r.zones[name].per == "player":
                return f"Zone({gen.pid(obj)} + {'.' + name!r})", ZONE
            if name == "seat":
                return f"_seat({obj}, f)", INT
            if name in r.player_markers:
                return f"Ref('marker', {gen.pid(obj)} + {'.' + name!r})", MARKER
            candidates = [*r.player_counter_names(), *r.player_zone_names(), *r.player_markers, "seat"]
            raise CompileError(
                "E401", f"a player has no counter or zone '{name}'", node.pos, did_you_mean(name, candidates)
            )
        if t == PIECE:
            if name in PIECE_BUILTINS:
                return f"f.g.piece_builtin({obj}, {name!r})", PIECE_BUILTINS[name]
            if name in r.properties:
                r.denote(node, "properties")
                return f"_prop(f, {obj}, {name!r})", declared(r.properties[name])
            candidates = [*PIECE_BUILTINS, *r.properties]
            raise CompileError("E401", f"no piece has a property '{name}'", node.pos, did_you_mean(name, candidates))
        if t == ZONE and name == "owner":
            return f"f.g.zone_owner({obj})", PLAYER
        if t == MARKER and name == "position":
            return f"f.g.state.markers[({obj}).name].pos", INT
        if t != ANY:
            raise CompileError("E402", f"a value of type {t} has no attribute '{name}'", node.pos)
        return f"_attr(f, {obj}, {name!r})", ANY

    def _cell(self, family: s.Node, key_node: s.Node, scope: Scope, gen: _Gen) -> str | None:
        r = self.rules
        if isinstance(family, s.Name) and family.id not in scope.names:
            name = family.id
            c = r.counters.get(name)
            if c is None or c.per != "game" or c.keys is None:
                return None
            parts: list[str] = [_Text(name + "[")]
        elif isinstance(family, s.Attr):
            name = family.name
            c = r.counters.get(name)
            if c is None or c.per != "player" or c.keys is None:
                return None
            owner, ot = self._src(family.obj, scope, gen)
            if ot != PLAYER:
                return None
            parts = [gen.pid(owner), _Text("." + name + "[")]
        else:
            return None
        keys = gen.const(frozenset(c.keys))
        key = self._src(key_node, scope, gen)[0]
        checked = f"_key(f, {key}, {keys}, {name!r})"
        if _SIMPLE.match(key):
            checked = f"({key} if {key}.__class__ is _str and {key} in {keys} else {checked})"
        return _joined(*parts, checked, _Text("]"))

    def _index(self, node: s.Index, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        table = value_tables.compile_read(self, node, scope, gen)
        if table is not None:
            return table
        cell = self._cell(node.obj, node.key, scope, gen)
        if cell is not None:
            return f"{gen.state()}.counters[{cell}]", INT
        obj, t = self._src(node.obj, scope, gen)
        key = self._src(node.key, scope, gen)[0]
        if t in (FAMILY, ANY) or t.is_list:
            return f"_item(f, {obj}, {key})", INT if t == FAMILY else t.element()
        raise CompileError("E402", f"a value of type {t} cannot be indexed", node.pos)

    # ---------------------------------------------------------------- compound expressions
    def _list(self, node: s.ListLit, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        parts = [self._src(i, scope, gen) for i in node.items]
        types = {p[1] for p in parts}
        t = list_of(types.pop()) if len(types) == 1 else list_of(ANY)
        return "[" + ", ".join(p[0] for p in parts) + "]", t

    def _comprehension(self, node: s.Comprehension, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        items, it = self._iterable(node.iterable, scope, gen)
        inner = scope.inner(it == ZONE, {node.var: it.element()})
        outer_used = gen.enter()
        element, et = self._src(node.element, inner, gen)
        cond = None
        if node.cond is not None:
            cond = self._truthy(node.cond, inner, gen)
        src = self._loop(node.var, items, it, element if element != _local(node.var) else None, cond, gen)
        return gen.leave(src, node.var, outer_used), list_of(et)

    def _loop(self, var: str, items: str, it: Type, element: str | None, cond: str | None, gen: _Gen) -> str:
        """A list comprehension over `items` binding `var`, keeping `element` (the item itself when None) where
        `cond` holds. Over a zone it goes through piece ids once, binding each piece's record, and makes a piece
        value only for an item it keeps, unless the element or condition reads the piece itself."""
        local = _local(var)
        test = f" if {cond}" if cond is not None else ""
        if it != ZONE:
            return f"[{element or local} for {local} in _as_list({items}, f){test}]"
        pid, rec = f"_p{local}", _record(var)
        records, make = gen.invariant(f"{gen.state()}.pieces"), gen.invariant("f.g.piece")
        head = f"for {pid} in _ids(f, {items}) for {rec} in ({records}[{pid}],)"
        if var in gen.used:
            return f"[{element or local} {head} for {local} in ({make}({pid}),){test}]"
        return f"[{element or f'{make}({pid})'} {head}{test}]"

    def _iterable(self, node: s.Node, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        gen.in_iterable += 1
        try:
            src, t = self._src(node, scope, gen)
        finally:
            gen.in_iterable -= 1
        if t not in (ANY, ZONE) and not t.is_list:
            raise CompileError("E402", f"only a list or a zone can be gone through, but this is {t.words()}",
                               node.pos)
        return src, t

    def _where(self, node: s.Where, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        items, it = self._iterable(node.items, scope, gen)
        outer_used = gen.enter()
        cond = self._truthy(node.cond, scope.inner(it == ZONE, {"it": it.element()}), gen)
        src = self._loop("it", items, it, None, cond, gen)
        return gen.leave(src, "it", outer_used), list_of(it.element())

    def _sorted_by(self, node: s.SortedBy, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        items, it = self._iterable(node.items, scope, gen)
        outer_used = gen.enter()
        key = self._src(node.key, scope.inner(it == ZONE, {"it": it.element()}), gen)[0]
        gen.used.add("it")  # the pair holds the piece itself
        pairs = self._loop("it", items, it, f"({key}, {_local('it')})", None, gen)
        return f"_sort(f, {gen.leave(pairs, 'it', outer_used)}, {node.descending!r})", list_of(it.element())

    def _binop(self, node: s.BinOp, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        left = self._expect(node.left, scope, gen, NUMERIC, f"the left side of '{node.op}'")
        right = self._expect(node.right, scope, gen, NUMERIC, f"the right side of '{node.op}'")
        if node.op in ("+", "-"):
            helper = "_add" if node.op == "+" else "_sub"
            inline = gen.numbers(left, right)
            if inline is not None and gen.me is not None:  # in a compiled body, where MI is the number limit
                a, b, test = inline
                result = f"{a} {node.op} {b}"
                return f"({result} if {test} and -MI <= {result} <= MI else {helper}(f, {a}, {b}))", INT
            return f"{helper}(f, {left}, {right})", INT
        return f"_arith(f, {node.op!r}, {left}, {right})", INT

    def _compare(self, node: s.Compare, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        left, lt = self._src(node.left, scope, gen)
        right, rt_ = self._src(node.right, scope, gen)
        self._can_hold(node, lt, rt_)
        if node.op == "in":
            return f"_in(f, {left}, {right})", BOOL
        if node.op == "notin":
            return f"(not _in(f, {left}, {right}))", BOOL
        if node.op in ("==", "!="):
            # An Unknown raises when compared, and the transaction turns that into E601 at the rule's span.
            return f"({left} {node.op} {right})", BOOL
        for side, t in ((node.left, lt), (node.right, rt_)):
            if t not in NUMERIC:
                raise CompileError("E402", f"'{node.op}' compares numbers, but this is {t}", side.pos)
        inline = gen.numbers(left, right)
        if inline is not None:
            # Compared in place, the general path only for what is not two numbers.
            a, b, test = inline
            return f"({a} {node.op} {b} if {test} else _order(f, {node.op!r}, {a}, {b}))", BOOL
        return f"_order(f, {node.op!r}, {left}, {right})", BOOL

    def _can_hold(self, node: s.Compare, lt: Type, rt_: Type) -> None:
        """`==`, `!=`, `in` between values that can never be equal are mistakes, not a quiet false."""
        if node.op in ("in", "notin"):
            if not member_of(lt, rt_):
                raise CompileError("E402", f"{lt.words()} is never in {rt_.words()}", node.pos,
                                   "look for it in a list of the same kind of value")
            return
        if node.op not in ("==", "!="):
            return
        if not comparable(lt, rt_):
            raise CompileError("E402", f"'{node.op}' compares {lt.words()} with {rt_.words()}: they are never equal",
                               node.pos, "compare values of one kind: a number with a number, a symbol with a symbol")
        for side, other, t in ((node.left, node.right, rt_), (node.right, node.left, lt)):
            text = side.value if isinstance(side, s.Literal) and isinstance(side.value, str) else None
            if (text is not None and t == SYMBOL and text not in self.rules.symbols
                    and not (isinstance(other, s.Attr) and other.name == "id")):
                raise CompileError("E402", f"'{text}' is not a declared symbol, so this is never equal", side.pos,
                                   did_you_mean(text, self.rules.symbols))

    def _truthy(self, node: s.Node, scope: Scope, gen: _Gen) -> str:
        src, t = self._src(node, scope, gen)
        return src if t == BOOL else f"_truth(f, {src})"

    def _boolop(self, node: s.BoolOp, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        left = self._truthy(node.left, scope, gen)
        right = self._truthy(node.right, scope, gen)
        return f"({left} {node.op} {right})", BOOL

    def _not(self, node: s.Not, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        return f"(not {self._truthy(node.operand, scope, gen)})", BOOL

    def _neg(self, node: s.Neg, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        return f"_neg(f, {self._expect(node.operand, scope, gen, NUMERIC, 'the operand of -')})", INT

    def _conditional(self, node: s.Conditional, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        then, tt = self._src(node.then, scope, gen)
        test = self._truthy(node.test, scope, gen)
        other, ot = self._src(node.other, scope, gen)
        return f"({then} if {test} else {other})", tt if tt == ot else ANY

    def _range(self, node: s.Range, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        low = self._expect(node.low, scope, gen, NUMERIC, "the start of a range")
        high = self._expect(node.high, scope, gen, NUMERIC, "the end of a range")
        first, last = node.low, node.high
        if isinstance(first, s.Literal) and isinstance(last, s.Literal) and type(first.value) is int \
                and type(last.value) is int:
            over = check_constant("range_size", last.value - first.value + 1, "the size of this range")
            if over:
                raise CompileError(BUDGET_CODE, over, node.pos)
        return f"_range(f, {low}, {high})", list_of(INT)

    def _can_pay(self, node: s.CanPay, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        if self.cost_compiler is None:
            raise CompileError("E402", "can_pay is not available here", node.pos)
        payer = self._who(node.by, node.pos, scope, gen, "who pays", "can_pay(COST by PLAYER)")
        return f"_can_pay(f, {gen.const(self.cost_compiler(node.cost, scope))}, {payer})", BOOL

    def _who(self, by: s.Node | None, pos: s.Pos, scope: Scope, gen: _Gen, what: str, form: str) -> str:
        """The player a predicate asks about: the one after `by`, or the acting player."""
        if by is not None:
            return self._expect(by, scope, gen, {PLAYER}, what)
        if scope.has_me:
            return "f.me"
        raise CompileError("E401", f"'me' is not available here: write {form}", pos)

    def _can_take(self, node: s.CanTake, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        action = self.rules.actions.get(node.action)
        if action is None:
            raise CompileError("E401", f"unknown action '{node.action}'", node.pos,
                               did_you_mean(node.action, self.rules.actions))
        if len(node.args) != len(action.params):
            raise CompileError("E405", f"action '{node.action}' takes {len(action.params)} argument(s), got "
                               f"{len(node.args)}", node.pos)
        parts = []
        for (name, word), a in zip(action.params, node.args, strict=True):
            src, at = self._src(a, scope, gen)
            if not comparable(declared(word), at):
                raise CompileError("E402", f"parameter '{name}' of action '{node.action}' is {declared(word).words()}, "
                                   f"but this is {at.words()}", a.pos)
            parts.append(f"({name!r}, {src})")
        args = ", ".join(parts)
        who = self._who(node.by, node.pos, scope, gen, "who would take it", "can(ACTION, ... by PLAYER)")
        return f"_can_take(f, {node.action!r}, ({args}{',' if args else ''}), {who})", BOOL

    # ---------------------------------------------------------------- function calls
    def _call(self, node: s.Call, scope: Scope, gen: _Gen) -> tuple[str, Type]:
        if node.fn == "keys" and len(node.args) == 1 and isinstance(node.args[0], s.Name):
            # keys(stock) names the counter itself, per-player or not: its keys are fixed at link time.
            counter = self.rules.counters.get(node.args[0].id)
            if counter is not None and counter.keys is not None:
                return gen.const(list(counter.keys)), list_of(SYMBOL)
        if node.fn == "rank_by":  # its key is read per player, as `it`: compiled in place
            return compile_rank_by(self, node, scope, gen)
        spec = FUNCTIONS.get(node.fn)
        if spec is None:
            raise CompileError("E401", f"unknown function '{node.fn}'", node.pos, did_you_mean(node.fn, FUNCTIONS))
        compiled = [self._src(a, scope, gen) for a in node.args]
        if not spec.min_args <= len(compiled) <= spec.max_args:
            want = str(spec.min_args) if spec.min_args == spec.max_args else f"{spec.min_args} to {spec.max_args}"
            raise CompileError("E405", f"'{node.fn}' takes {want} argument(s), got {len(compiled)}", node.pos)
        for i, (arg, (_, t)) in enumerate(zip(node.args, compiled, strict=True)):
            want = spec.args[min(i, len(spec.args) - 1)]
            accepted = _ACCEPTS[want]
            listy = want in ("list", "numbers") and t.is_list
            if accepted is not None and t != ANY and t not in accepted and not listy:
                raise CompileError("E402", f"argument {i + 1} of '{node.fn}' should be {_ARG_WORDS[want]}, "
                                   f"but it is {t.words()}", arg.pos)
        args = "".join(f", {c[0]}" for c in compiled)
        if node.fn in ("min", "max") and len(compiled) == 2:  # two numbers: in place, or a fast path
            inline = gen.numbers(compiled[0][0], compiled[1][0])
            if inline is not None:
                a, b, test = inline
                pick = f"({a} if {a} {'<=' if node.fn == 'min' else '>='} {b} else {b})"
                return f"({pick} if {test} else _{node.fn}2(f, {a}, {b}))", INT
            return f"_{node.fn}2(f{args})", spec.result([c[1] for c in compiled])
        return f"_b_{node.fn}(f{args})", spec.result([c[1] for c in compiled])


def _folded_span(base: Span, indent: int, col: int) -> Span:
    """In a folded (>) block, source lines were joined with spaces: find the line that holds column `col`."""
    offset, line_no = 0, base.line + 1
    while True:
        text = source_line(base.file, line_no)
        if text is None:
            break
        width = len(text) - indent
        if col - 1 - offset <= width or source_line(base.file, line_no + 1) is None:
            break
        nxt = source_line(base.file, line_no + 1) or ""
        if len(nxt) - len(nxt.lstrip(" ")) < indent or not nxt.strip():
            break
        offset += width + 1
        line_no += 1
    return Span(base.file, line_no, indent + col - offset)


def span_in(base: Span, pos: s.Pos, style: str | None) -> Span:
    """The file position of `pos` inside a YAML string that starts at `base`."""
    line, col = pos
    if style in ("|", ">"):
        # The text starts on the line after the indicator, at the block's indentation.
        first = source_line(base.file, base.line + 1)
        indent = len(first) - len(first.lstrip(" ")) if first is not None else base.col + 1
        if style == ">" and line == 1:
            return _folded_span(base, indent, col)
        return Span(base.file, base.line + line, indent + col)
    offset = 1 if style in ("'", '"') else 0
    if line == 1:
        return Span(base.file, base.line, base.col + offset + col - 1)
    return Span(base.file, base.line + line - 1, col)
