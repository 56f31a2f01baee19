"""Check an expression's syntax against the linked rules: every name resolved to what it denotes, every type
checked, every name and type error raised (as CompileError) here and nowhere later. The result is a checked tree
(`checked`), which `emitter` turns into Python and the analyses read.

Static types are values of `types.Type` (int, bool, symbol, player, piece, zone, ..., a list of T, and ANY: not
known until run time).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any

from ..dataclass_code import dataclass
from ..diagnostics import did_you_mean
from ..engine.budget import CODE as BUDGET_CODE
from ..engine.budget import check_constant
from . import checked as c
from . import syntax as s
from . import value_tables
from .builtins import FUNCTIONS
from .compile_error import CompileError
from .ranks import check_rank_by
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
    iterable,
    list_of,
    member_of,
)

if TYPE_CHECKING:
    from ..engine.rules import Rules

PIECE_BUILTINS = {"id": SYMBOL, "kind": SYMBOL, "zone": ZONE, "slot": INT, "linked": list_of(PIECE)}
NUMERIC = {INT, ANY}

# Static types each kind of built-in argument accepts (ANY and lists are handled where they are checked).
_ACCEPTS = {
    "list": {ZONE}, "numbers": {INT}, "number_list": set(), "number": {INT}, "zone": {ZONE}, "player": {PLAYER},
    "marker": {MARKER}, "track": {TRACK}, "symbol": {SYMBOL}, "any": None,
}
_ARG_WORDS = {"list": "a list or a zone", "numbers": "a number or a list of numbers", "number": "a number",
              "number_list": "a list of numbers",
              "zone": "a zone", "player": "a player", "marker": "a track marker", "track": "a track",
              "symbol": "a symbol", "any": "anything"}

# Names the game's flow gives, with their types. The last three give way to a pack's own declarations.
FLOW_NAMES = {"players": list_of(PLAYER), "player_count": INT, "chance": CHANCE, "turn_player": PLAYER,
              "turn_number": INT, "round_number": INT, "game_over": BOOL, "final_round": BOOL, "start_player": PLAYER}
_YIELDING = ("round_number", "game_over", "final_round", "start_player")


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

    def key(self) -> tuple:
        """What checking an expression in this scope depends on."""
        return tuple(self.names.items()), self.has_me, self.py_locals, self.live_pieces, self.outer


def _short(text: str) -> str:
    return text if len(text) <= 20 else text[:17] + "..."


def _after(pos: s.Pos, width: int) -> s.Pos:
    return (pos[0], pos[1] + width)


def _last(*parts: c.Node | None, default: s.Pos) -> s.Pos:
    """Where the last of `parts` ends (their order in the source)."""
    ends = [p.end for p in parts if p is not None]
    return max(ends) if ends else default


def _attr_of(node: s.Attr, obj: c.Node, kind: str, t: Type, decl: Any = None) -> c.Attr:
    return c.Attr(node.pos, _after(node.pos, len(node.name)), t, node, obj, node.name, kind, decl)


class Checker:
    """Syntax -> checked tree, against one set of linked rules."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._dispatch: dict[type, Callable[[Any, Scope], c.Node]] = {
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
        # Set by the effect builder: checks a cost for can_pay (costs are built there, with their own checks).
        self.cost_checker: Callable[[s.Cost, Scope], Any] | None = None

    def check(self, node: s.Node, scope: Scope) -> c.Node:
        return self._dispatch[type(node)](node, scope)

    def cell(self, family: s.Node, key_node: s.Node, scope: Scope) -> c.Cell | None:
        """One cell of a keyed counter (`p1.stock[wine]`, `price[wine]`) when the counter is known at link time;
        None otherwise."""
        r = self.rules
        owner: c.Node | None = None
        if isinstance(family, s.Name) and family.id not in scope.names:
            decl = r.counters.get(family.id)
            if decl is None or decl.per != "game" or decl.keys is None:
                return None
        elif isinstance(family, s.Attr):
            decl = r.counters.get(family.name)
            if decl is None or decl.per != "player" or decl.keys is None:
                return None
            owner = self.check(family.obj, scope)
            if owner.type != PLAYER:
                return None
        else:
            return None
        key = self.check(key_node, scope)
        if key.type not in (SYMBOL, ANY):
            raise CompileError("E402", f"the keys of '{decl.name}' are symbols ({', '.join(decl.keys)}), but this is "
                               f"{key.type.words()}", key_node.pos)
        if isinstance(key, c.Name) and key.ref.kind == "symbol" and key.ref.name not in decl.keys:
            raise CompileError("E401", f"'{key.ref.name}' is not a key of '{decl.name}' ({', '.join(decl.keys)})",
                               key_node.pos, did_you_mean(key.ref.name, decl.keys))
        return c.Cell(family.pos, _after(key.end, 1), SYMBOL, family, decl, owner, key)

    def _expect(self, node: s.Node, scope: Scope, wanted: set[Type], what: str) -> c.Node:
        out = self.check(node, scope)
        t = out.type
        if t != ANY and t not in wanted:
            names = sorted(w.words() for w in wanted if w != ANY)
            raise CompileError("E402", f"{what} should be {' or '.join(names)}, but it is {t.words()}", node.pos)
        return out

    # ---------------------------------------------------------------- leaves
    def _literal(self, node: s.Literal, scope: Scope) -> c.Node:
        v = node.value
        if type(v) is int:
            over = check_constant("max_int", abs(v), "this number")
            if over:
                raise CompileError(BUDGET_CODE, over, node.pos)
        t = BOOL if isinstance(v, bool) else INT if isinstance(v, int) else NONE if v is None else SYMBOL
        width = len(str(v)) + 2 if isinstance(v, str) else len(str(v)) if v is not None else 4
        return c.Literal(node.pos, _after(node.pos, width), t, node, v if not isinstance(v, str) else str(v))

    def _piece_ref(self, node: s.PieceRef, scope: Scope) -> c.Node:
        return c.PieceLit(node.pos, _after(node.pos, len(node.id) + 1), PIECE, node, node.id)

    def _name(self, node: s.Name, scope: Scope) -> c.Node:
        name = node.id
        ref, t = self._resolve(node, scope)
        live = ref.kind == "local" and name in scope.live_pieces
        return c.Name(node.pos, _after(node.pos, len(name)), t, node, ref, live)

    def _resolve(self, node: s.Name, scope: Scope) -> tuple[c.Ref, Type]:
        name = node.id
        if name in scope.names:
            return c.Ref("local" if name in scope.py_locals else "var", name), scope.names[name]
        r = self.rules
        if name == "me":
            if not scope.has_me:
                raise CompileError("E401", "'me' is not available here: no player is acting", node.pos,
                                   "a game step, or a trigger on a shared counter, marker or zone (whose `me` is "
                                   "none): name the player, or watch a player's counter")
            return c.Ref("me", name), PLAYER
        if name in FLOW_NAMES and (name not in _YIELDING or (name not in r.counters and name not in r.values)):
            return c.Ref("flow", name), FLOW_NAMES[name]
        if len(name) >= 2 and name[0] == "p" and name[1:].isascii() and name[1:].isdigit() and name[1] != "0":
            if len(name) > 4 or int(name[1:]) > r.players_max:
                raise CompileError("E401", f"there is no player '{_short(name)}': this game is for at most "
                                   f"{r.players_max} players", node.pos)
            return c.Ref("seat", name, int(name[1:])), PLAYER
        if name in r.values:
            v = r.values[name]
            if v.kind == "table":
                raise value_tables.bare_name_error(name, node.pos)
            kind = "const" if v.kind == "const" and isinstance(v.data, int | str | bool) else "value"
            return c.Ref(kind, name, v), declared(r.value_type(name))
        counter = r.counters.get(name)
        if counter is not None and counter.per == "game":
            if counter.keys is not None:
                return c.Ref("family", name, counter), FAMILY
            return c.Ref("counter", name, counter), INT
        if name in r.zones and r.zones[name].per == "game":
            return c.Ref("zone", name, r.zones[name]), ZONE
        if name in r.player_markers:
            raise CompileError("E402", f"each player has a marker '{name}': say whose (me.{name}, p.{name})", node.pos)
        for table, t in ((r.markers, MARKER), (r.tracks, TRACK), (r.dice, DIE)):
            if name in table:
                return c.Ref(t.name, name, table[name]), t
        if name in r.sets:
            return c.Ref("set", name, tuple(r.sets[name])), list_of(SYMBOL)
        if name in r.symbols:
            return c.Ref("symbol", name), SYMBOL
        own = "zone" if name in r.zones else "counter" if name in r.counters else None
        if own is not None:  # declared per player (a shared one was found above): the bare name is unknown
            raise CompileError("E401", f"each player has a {own} '{name}': say whose (me.{name}, p.{name})", node.pos)
        hint = did_you_mean(name, [*scope.names, *r.global_names()])
        raise CompileError("E401", f"unknown name '{name}'", node.pos, hint)

    # ---------------------------------------------------------------- attributes and indexing
    def _attr(self, node: s.Attr, scope: Scope) -> c.Node:
        name = node.name
        r = self.rules
        obj = self.check(node.obj, scope)
        if isinstance(obj, c.Name) and obj.live:
            if name in r.properties and name not in PIECE_BUILTINS:
                return _attr_of(node, obj, "property", declared(r.properties[name]), r.properties[name])
            if name in ("kind", "linked"):
                return _attr_of(node, obj, "builtin", PIECE_BUILTINS[name])
        read = ATTRS_OF.get(obj.type)
        if read is not None:
            return read(self, node, obj)
        if obj.type != ANY:
            raise CompileError("E402", f"a value of type {obj.type} has no attribute '{name}'", node.pos)
        return _attr_of(node, obj, "dynamic", ANY)

    def _player_attr(self, node: s.Attr, obj: c.Node) -> c.Node:
        name, r = node.name, self.rules
        counter = r.counters.get(name)
        if counter is not None and counter.per == "player":
            if counter.keys is not None:
                return _attr_of(node, obj, "family", FAMILY, counter)
            return _attr_of(node, obj, "counter", INT, counter)
        if name in r.zones and r.zones[name].per == "player":
            return _attr_of(node, obj, "zone", ZONE, r.zones[name])
        if name == "seat":
            return _attr_of(node, obj, "seat", INT)
        if name in r.player_markers:
            return _attr_of(node, obj, "player_marker", MARKER, r.markers.get(name))
        candidates = [*r.player_counter_names(), *r.player_zone_names(), *r.player_markers, "seat"]
        raise CompileError("E401", f"a player has no counter or zone '{name}'", node.pos,
                           did_you_mean(name, candidates))

    def _piece_attr(self, node: s.Attr, obj: c.Node) -> c.Node:
        name, r = node.name, self.rules
        if name in PIECE_BUILTINS:
            return _attr_of(node, obj, "builtin", PIECE_BUILTINS[name])
        if name in r.properties:
            return _attr_of(node, obj, "property", declared(r.properties[name]), r.properties[name])
        candidates = [*PIECE_BUILTINS, *r.properties]
        raise CompileError("E401", f"no piece has a property '{name}'", node.pos, did_you_mean(name, candidates))

    def _only_attr(self, node: s.Attr, obj: c.Node) -> c.Node:
        """A zone's owner, a marker's position: the one attribute each has."""
        kind, t = _ONLY_ATTR[obj.type]
        if node.name != kind:
            raise CompileError("E402", f"a value of type {obj.type} has no attribute '{node.name}'", node.pos)
        return _attr_of(node, obj, kind, t)

    def _index(self, node: s.Index, scope: Scope) -> c.Node:
        table = value_tables.check_read(self, node, scope)
        if table is not None:
            return table
        cell = self.cell(node.obj, node.key, scope)
        if cell is not None:
            return c.Index(node.pos, cell.end, INT, node, cell.owner or self.check(node.obj, scope), cell.key, cell)
        obj = self.check(node.obj, scope)
        key = self.check(node.key, scope)
        t = obj.type
        if t in (FAMILY, ANY) or t.is_list:
            return c.Index(node.pos, _after(key.end, 1), INT if t == FAMILY else t.element(), node, obj, key, None)
        raise CompileError("E402", f"a value of type {t} cannot be indexed", node.pos)

    # ---------------------------------------------------------------- compound expressions
    def _list(self, node: s.ListLit, scope: Scope) -> c.Node:
        items = tuple(self.check(i, scope) for i in node.items)
        types = {i.type for i in items}
        t = list_of(types.pop()) if len(types) == 1 else list_of(ANY)
        return c.ListLit(node.pos, _after(_last(*items, default=node.pos), 1), t, node, items)

    def iterable(self, node: s.Node, scope: Scope) -> c.Node:
        out = self.check(node, scope)
        t = out.type
        if not iterable(t):
            raise CompileError("E402", f"only a list or a zone can be gone through, but this is {t.words()}",
                               node.pos)
        return out

    def _comprehension(self, node: s.Comprehension, scope: Scope) -> c.Node:
        items = self.iterable(node.iterable, scope)
        inner = scope.inner(items.type == ZONE, {node.var: items.type.element()})
        element = self.check(node.element, inner)
        cond = self._truthy(node.cond, inner) if node.cond is not None else None
        end = _after(_last(items, cond, default=node.pos), 1)
        return c.Comprehension(node.pos, end, list_of(element.type), node, element, node.var, items, cond)

    def _where(self, node: s.Where, scope: Scope) -> c.Node:
        items = self.iterable(node.items, scope)
        cond = self._truthy(node.cond, scope.inner(items.type == ZONE, {"it": items.type.element()}))
        return c.Where(node.pos, cond.end, list_of(items.type.element()), node, items, cond)

    def _sorted_by(self, node: s.SortedBy, scope: Scope) -> c.Node:
        items = self.iterable(node.items, scope)
        key = self.check(node.key, scope.inner(items.type == ZONE, {"it": items.type.element()}))
        return c.SortedBy(node.pos, key.end, list_of(items.type.element()), node, items, key, node.descending)

    def _binop(self, node: s.BinOp, scope: Scope) -> c.Node:
        left = self._expect(node.left, scope, NUMERIC, f"the left side of '{node.op}'")
        right = self._expect(node.right, scope, NUMERIC, f"the right side of '{node.op}'")
        return c.BinOp(node.pos, right.end, INT, node, node.op, left, right)

    def _compare(self, node: s.Compare, scope: Scope) -> c.Node:
        left = self.check(node.left, scope)
        right = self.check(node.right, scope)
        self._can_hold(node, left.type, right.type)
        if node.op not in ("in", "notin", "==", "!="):
            for side, t in ((node.left, left.type), (node.right, right.type)):
                if t not in NUMERIC:
                    raise CompileError("E402", f"'{node.op}' compares numbers, but this is {t}", side.pos)
        return c.Compare(node.pos, right.end, BOOL, node, node.op, left, right)

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

    def _truthy(self, node: s.Node, scope: Scope) -> c.Node:
        """A condition: any value (the emitter tests the truth of what is not a bool)."""
        return self.check(node, scope)

    def _boolop(self, node: s.BoolOp, scope: Scope) -> c.Node:
        left = self._truthy(node.left, scope)
        right = self._truthy(node.right, scope)
        return c.BoolOp(node.pos, right.end, BOOL, node, node.op, left, right)

    def _not(self, node: s.Not, scope: Scope) -> c.Node:
        operand = self._truthy(node.operand, scope)
        return c.Not(node.pos, operand.end, BOOL, node, operand)

    def _neg(self, node: s.Neg, scope: Scope) -> c.Node:
        operand = self._expect(node.operand, scope, NUMERIC, "the operand of -")
        return c.Neg(node.pos, operand.end, INT, node, operand)

    def _conditional(self, node: s.Conditional, scope: Scope) -> c.Node:
        then = self.check(node.then, scope)
        test = self._truthy(node.test, scope)
        other = self.check(node.other, scope)
        t = then.type if then.type == other.type else ANY
        return c.Conditional(node.pos, other.end, t, node, then, test, other)

    def _range(self, node: s.Range, scope: Scope) -> c.Node:
        low = self._expect(node.low, scope, NUMERIC, "the start of a range")
        high = self._expect(node.high, scope, NUMERIC, "the end of a range")
        first, last = node.low, node.high
        if isinstance(first, s.Literal) and isinstance(last, s.Literal) and type(first.value) is int \
                and type(last.value) is int:
            over = check_constant("range_size", last.value - first.value + 1, "the size of this range")
            if over:
                raise CompileError(BUDGET_CODE, over, node.pos)
        return c.Range(node.pos, high.end, list_of(INT), node, low, high)

    def _can_pay(self, node: s.CanPay, scope: Scope) -> c.Node:
        if self.cost_checker is None:
            raise CompileError("E402", "can_pay is not available here", node.pos)
        payer = self.who(node.by, node.pos, scope, "who pays", "can_pay(COST by PLAYER)")
        cost = self.cost_checker(node.cost, scope)
        end = _after(payer.end if payer is not None else node.pos, 1)
        return c.CanPay(node.pos, end, BOOL, node, cost, payer)

    def who(self, by: s.Node | None, pos: s.Pos, scope: Scope, what: str, form: str) -> c.Node | None:
        """The player a predicate asks about: the one after `by`; None for the acting player."""
        if by is not None:
            return self._expect(by, scope, {PLAYER}, what)
        if scope.has_me:
            return None
        raise CompileError("E401", f"'me' is not available here: write {form}", pos)

    def _can_take(self, node: s.CanTake, scope: Scope) -> c.Node:
        action = self.rules.actions.get(node.action)
        if action is None:
            raise CompileError("E401", f"unknown action '{node.action}'", node.pos,
                               did_you_mean(node.action, self.rules.actions))
        if len(node.args) != len(action.params):
            raise CompileError("E405", f"action '{node.action}' takes {len(action.params)} argument(s), got "
                               f"{len(node.args)}", node.pos)
        args = []
        for (name, word), a in zip(action.params, node.args, strict=True):
            arg = self.check(a, scope)
            if not comparable(declared(word), arg.type):
                raise CompileError("E402", f"parameter '{name}' of action '{node.action}' is "
                                   f"{declared(word).words()}, but this is {arg.type.words()}", a.pos)
            args.append((name, arg))
        who = self.who(node.by, node.pos, scope, "who would take it", "can(ACTION, ... by PLAYER)")
        end = _after(_last(who, *(a for _, a in args), default=_after(node.pos, 4 + len(node.action))), 1)
        return c.CanTake(node.pos, end, BOOL, node, node.action, tuple(args), who)

    # ---------------------------------------------------------------- function calls
    def _call(self, node: s.Call, scope: Scope) -> c.Node:
        if node.fn == "keys" and len(node.args) == 1 and isinstance(node.args[0], s.Name):
            # keys(stock) names the counter itself, per-player or not: its keys are fixed at link time.
            counter = self.rules.counters.get(node.args[0].id)
            end = _after(node.args[0].pos, len(node.args[0].id) + 1)
            if counter is not None and counter.keys is not None:
                return c.Keys(node.pos, end, list_of(SYMBOL), node, counter, tuple(counter.keys))
            table = value_tables.table_of(self.rules, node.args[0], scope)
            if table is not None:  # a table's first keys, in the order it is written
                t = list_of(SYMBOL if table.key_kinds[0] == "symbol" else INT)
                return c.Keys(node.pos, end, t, node, table, tuple(table.entries))
        if node.fn == "rank_by":  # its key is read per player, as `it`
            return check_rank_by(self, node, scope)
        spec = FUNCTIONS.get(node.fn)
        if spec is None:
            raise CompileError("E401", f"unknown function '{node.fn}'", node.pos, did_you_mean(node.fn, FUNCTIONS))
        args = tuple(self.check(a, scope) for a in node.args)
        if not spec.min_args <= len(args) <= spec.max_args:
            want = str(spec.min_args) if spec.min_args == spec.max_args else f"{spec.min_args} to {spec.max_args}"
            raise CompileError("E405", f"'{node.fn}' takes {want} argument(s), got {len(args)}", node.pos)
        for i, (syntax, arg) in enumerate(zip(node.args, args, strict=True)):
            want = spec.args[min(i, len(spec.args) - 1)]
            accepted = _ACCEPTS[want]
            t = arg.type
            listy = want in ("list", "numbers", "number_list") and t.is_list
            if listy and want != "list" and t.element() not in NUMERIC:
                listy = False  # a list, but of something that is not a number
            if accepted is not None and t != ANY and t not in accepted and not listy:
                raise CompileError("E402", f"argument {i + 1} of '{node.fn}' should be {_ARG_WORDS[want]}, "
                                   f"but it is {t.words()}", syntax.pos)
        end = _after(_last(*args, default=_after(node.pos, len(node.fn) + 1)), 1)
        return c.Call(node.pos, end, spec.result([a.type for a in args]), node, node.fn, args)


_ONLY_ATTR = {ZONE: ("owner", PLAYER), MARKER: ("position", INT)}
# The static type of `x` in `x.name` -> what reads its attributes. An object of any other known type has none.
ATTRS_OF: dict[Type, Callable[[Checker, s.Attr, c.Node], c.Node]] = {
    PLAYER: Checker._player_attr,
    PIECE: Checker._piece_attr,
    ZONE: Checker._only_attr,
    MARKER: Checker._only_attr,
}
