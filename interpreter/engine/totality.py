"""Which rule bodies always finish: computed once per rule set, so the legal-move search can prove less.

A body is *total* when, from any state and whatever its decisions are answered with, it runs to its end without
a refusal (a `require`, a cost, a limit, a full zone, a counter's range) and without a decision that can be left
with no answer. Then a move whose action body is total, followed by a flow that is total too, can be carried
out exactly when its parameters, guard and cost pass, and every answer to a decision inside its body completes
it: the search need not run the body to prove either.

The analysis is conservative: an effect it cannot vouch for makes its body not total, and so does every body
it reaches (procedures, triggers of the events it emits or defers, triggers on the counters and markers it
changes, actions it takes, the scoring it runs, the end of the game). It relies on what `check` already
establishes (names and types are right), so it does not count the failures that mean a bug in the rules
(E510, E507, E513, a number too large to keep) as refusals: a rule set with such a bug sees it when the move is
carried out instead of when it is listed. A game that may still meet a value the pack leaves unknown (E601)
does not use it: engine/known.py says when a game can (per rule set and player count, then per state).
tests/test_totality.py checks it differentially: on every state of random whole games of the shipped and the
neutral packs, the verdict from the guard and cost alone equals the verdict of the full search.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

from ..language import checked as c
from ..language.value_tables import MISSING
from . import effects as e
from . import known
from .rules import ActionDef, Rules

_Check = Callable[[Any, frozenset[str]], bool]


def _always(_node: Any, _held: frozenset[str]) -> bool:
    return True


def _never(_node: Any, _held: frozenset[str]) -> bool:
    return False


def _nonneg_entries(entries: dict[Any, Any]) -> bool:
    """Whether every entry of a table (of tables) is a whole number of at least 0."""
    return all(_nonneg_entries(v) if isinstance(v, dict) else type(v) is int and v >= 0 for v in entries.values())


def _tree(fn: Any) -> c.Node | None:
    """The checked tree of an expression, or None for a function made without one."""
    return fn.tree if isinstance(fn, c.Expr) else None


def _one_piece(fn: Any, held: frozenset[str]) -> bool:
    node = _tree(fn)
    return isinstance(node, c.Name) and node.ref.name in held


def _checked(cond: Any) -> frozenset[str]:
    """The name an `if:` condition `x != none` proves to hold something, inside its `then`."""
    node = _tree(cond)
    if not isinstance(node, c.Compare) or node.op != "!=":
        return frozenset()
    for a, b in ((node.left, node.right), (node.right, node.left)):
        if isinstance(a, c.Name) and isinstance(b, c.Literal) and b.value is None:
            return frozenset({a.ref.name})
    return frozenset()


# Where a checked node stands and what it was checked from: not what it means.
_PLACE = frozenset({"pos", "end", "syntax"})


def _same(a: Any, b: Any) -> bool:
    """Whether two checked expressions mean the same, wherever they stand."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if not isinstance(a, c.Node):
        return bool(a == b)
    return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a) if f.name not in _PLACE)


def _lower_bounds(node: c.Node | None) -> list[tuple[c.Node, int]]:
    """(expression, the least it can be) for each `x > n`, `x >= n` (or `n < x`, `n <= x`) the condition
    requires, through `and`."""
    if isinstance(node, c.BoolOp):
        return _lower_bounds(node.left) + _lower_bounds(node.right) if node.op == "and" else []
    if not isinstance(node, c.Compare):
        return []
    flipped = {"<": ">", "<=": ">="}
    target, op, bound = node.left, node.op, node.right
    if node.op in flipped:
        target, op, bound = node.right, flipped[node.op], node.left
    if op not in (">", ">=") or not isinstance(bound, c.Literal) or type(bound.value) is not int:
        return []
    return [(target, bound.value + (op == ">"))]


def _literal(fn: Any) -> object:
    """The value of an expression written as a literal, else None."""
    node = _tree(fn)
    return node.value if isinstance(node, c.Literal) else None


def _zone_name(fn: Any) -> str | None:
    """The declared zone an expression names (`z` or `x.z`), when it is written as a name."""
    tree = fn.tree if isinstance(fn, c.Expr) else None
    if isinstance(tree, c.Name):
        return tree.ref.name if tree.ref.kind == "zone" else None
    if isinstance(tree, c.Attr):
        return tree.name
    return None


def _no_counter(_node: Any) -> Any:
    return None


# The counter's declaration a checked node reads, by the node's kind: a game counter by name, a player's counter
# (`p.gold`, or `p.stock` indexed), a keyed counter's cell known at link time.
_COUNTER_OF: dict[type, Callable[[Any], Any]] = {
    c.Name: lambda n: n.ref.decl if n.ref.kind in ("counter", "family") else None,
    c.Attr: lambda n: n.decl if n.kind in ("counter", "family") else None,
    c.Cell: lambda n: n.counter,
}


class Totality:
    """Total bodies, actions and the flow of one rule set; each answer is worked out once, on first ask."""

    def __init__(self, rules: Rules, exists: bool = False) -> None:
        """With `exists`, the weaker question: whether some answers to the body's decisions always finish it (a
        `may` can be declined, an optional choice answered with none, a `one_of` take an open option)."""
        self.rules = rules
        self.exists = exists
        self._reach: Totality | None = None
        self._bodies: dict[tuple[int, frozenset[str]], bool] = {}
        self._busy: set[tuple[int, frozenset[str]]] = set()  # bodies being analysed: a cycle is not proven total
        self._actions: dict[str, bool] = {}
        self._heads: dict[str, e.Body] = {}
        self._flow: bool | None = None
        self._props: dict[str, bool] = {}
        self._writes: dict[str, list[tuple[str, Any]]] | None = None
        self._unknown: dict[int, bool] = {}  # by player count: see known.reads_unknown
        self.unknown_defaults = known.unknown_defaults(rules)
        # Each check gets the node and the local names known to hold a piece (see body).
        self._checks: dict[type, _Check] = {
            e.LetE: _always, e.RollE: _always, e.DrawE: _always, e.ShuffleE: _always,
            e.RefillE: lambda n, held: self._zones(),
            e.PassE: _always, e.SetStartPlayerE: _always, e.ProceedE: _always,
            e.PayE: _never, e.RequireE: _never, e.FailE: _never, e.LimitE: _never, e.WhileE: _never,
            e.RemoveE: lambda n, held: self._pieces(n.what, held) and self._zones(),
            e.UnlinkE: lambda n, held: self._pieces(n.what, held),
            e.LinkE: lambda n, held: _one_piece(n.a, held) and _one_piece(n.b, held),
            e.SetPropE: self._set_prop, e.SetCounterE: lambda n, held: self._set_counter(n),
            e.MoveE: lambda n, held: self._pieces(n.what, held) and self._room(_zone_name(n.to)) and self._zones(),
            e.CreateE: lambda n, held: self._room(_zone_name(n.zone)) and self._zones(),
            e.ChooseE: lambda n, held: n.optional and n.count is None,  # a required choice may find nothing
            e.AdvanceE: lambda n, held: self._markers(), e.PlaceE: lambda n, held: self._markers(),
            e.EmitE: lambda n, held: self._event(n.event), e.DeferE: lambda n, held: self._event(n.event),
            e.CallE: lambda n, held: self.body(self.rules.procedures[n.proc].body),
            e.EndE: lambda n, held: self._end(n), e.ScoreE: lambda n, held: self._scoring(),
            e.TakeE: lambda n, held: self._take(n.action),
            e.AsE: lambda n, held: self.body(n.body, held), e.StepE: lambda n, held: self.body(n.body, held),
            e.IfE: lambda n, held: self.body(n.then, held | _checked(n.cond)) and self.body(n.other, held),
            e.ForE: lambda n, held: self.body(n.body, held - {n.var}),
            e.RepeatE: lambda n, held: self.body(n.body, held),
            e.MatchE: lambda n, held: all(self.body(b, held) for _, b in n.cases) and self.body(n.other, held),
            e.OneOfE: self._one_of, e.MayE: lambda n, held: exists or self.body(n.body, held),
            e.WrapE: lambda n, held: all(self.body(b, held) for b in (n.before, n.inner, n.after, n.instead or ())),
        }

    # ---------------------------------------------------------------- what the search asks
    def action(self, name: str) -> bool:
        """Whether the action's body (after its parameters, guard and cost pass) always finishes."""
        hit = self._actions.get(name)
        if hit is None:
            a = self.rules.actions[name]
            first = self._guarded_losses(a)
            hit = self._actions[name] = self._nodes_finish(a.body[first:], frozenset())
        return hit

    @property
    def reach(self) -> Totality:
        """The same rule set's analysis of bodies that some answers always finish (see __init__)."""
        if self._reach is None:
            self._reach = self if self.exists else Totality(self.rules, exists=True)
        return self._reach

    def head(self, name: str) -> e.Body:
        """The shortest start of the action's body after which the rest always finishes: what a proof runs (the
        whole body when its last statement may refuse, nothing when all of it always finishes). The same tuple
        each time, so a compiled body is made for it once."""
        hit = self._heads.get(name)
        if hit is None:
            body = self.rules.actions[name].body
            if self.action(name):
                hit = ()
            else:  # hooks around the body run in its frame, one after the other: their `after` can be left out
                flat = _flat(body)
                cut = 1 + max(i for i, node in enumerate(flat) if not self._checks.get(type(node), _never)(
                    node, frozenset()))
                hit = body if cut == len(flat) else tuple(flat[:cut])
            self._heads[name] = hit
        return hit

    def plain_cost(self, name: str) -> bool:
        """Whether the action's cost is paid exactly when it can be, without a choice or a trigger: one way to pay,
        counters with fixed keys, nothing paid for a shortfall, no substitutes (what Payments.payable then checks
        is what paying needs)."""
        cost = self.rules.actions[name].cost
        if cost is None:
            return True
        if self.rules.substitutes or len(cost.alternatives) != 1:
            return False
        watchers = self.rules.watchers
        return all(not t.marker and t.lacking is None and t.key not in ("any", "different") and not any(
            k in watchers for k in (t.counter, f"overflow {t.counter}", f"underflow {t.counter}"))
            for t in cost.alternatives[0])

    def _guarded_losses(self, a: ActionDef) -> int:
        """How many of the body's first statements are losses of a counter cell that the action's guard proves
        it holds enough for (`allowed_if: me.stock[g] > 0` then `me.stock[g] -= 1`)."""
        bounds = _lower_bounds(_tree(a.guard))
        first = 0
        for node in a.body:
            if type(node) is not e.SetCounterE or node.op != "-=" or any(  # a trigger could change the cell
                    k in self.rules.watchers for k in (node.counter, f"overflow {node.counter}",
                                                       f"underflow {node.counter}")):
                break
            cell = _tree(node.key)
            amount = _literal(node.value)
            decl = self.rules.counters[node.counter]
            floor = max([low for low in [decl.min, *(lo for lo, _ in decl.key_limits.values())] if low is not None],
                        default=None)
            if type(amount) is not int or not isinstance(cell, c.Cell) or floor is None or amount < 0 or not any(
                    _same(target.cell, cell) and at_least - amount >= floor
                    for target, at_least in bounds if isinstance(target, c.Index)):
                break
            # a second loss of the same cell would need the guard to cover both: only distinct cells are proven
            bounds = [(t, b) for t, b in bounds if not (isinstance(t, c.Index) and _same(t.cell, cell))]
            first += 1
        return first

    def flow(self) -> bool:
        """Whether everything the flow does after a move (turn ends, phases, rounds, the end) always finishes."""
        if self._flow is None:
            flow = self.rules.flow
            self._flow = flow is not None and self._event("turn_end") and self.body(flow.final) and all(
                self.body(p.before) and self.body(p.body) and self.body(p.after) for p in flow.phases)
        return self._flow

    def after_move(self, deferred: list[dict[str, Any]]) -> bool:
        """Whether the flow after a move always finishes, given the events earlier moves deferred (they wait
        in the state and run when the flow ends a turn); a total move defers only total events itself."""
        return self.flow() and all(self._event(d["event"]) for d in deferred)

    def reads_unknown(self, players: int) -> bool:
        hit = self._unknown.get(players)
        if hit is None:
            hit = self._unknown[players] = known.reads_unknown(self.rules, players)
        return hit

    # ---------------------------------------------------------------- bodies
    def body(self, body: e.Body, held: frozenset[str] = frozenset()) -> bool:
        """Whether the body always finishes; `held` are the local names known to hold a piece where it starts
        (an `if: x != none` around it), which a name bound again inside no longer is."""
        key = (id(body), held)
        hit = self._bodies.get(key)
        if hit is not None:
            return hit
        if key in self._busy:
            return False
        self._busy.add(key)
        try:
            hit = self._nodes_finish(body, held)
        finally:
            self._busy.discard(key)
        self._bodies[key] = hit
        return hit

    def _nodes_finish(self, nodes: tuple[e.Effect, ...], held: frozenset[str]) -> bool:
        for node in nodes:
            if not self._checks.get(type(node), _never)(node, held):  # a statement it does not know: no
                return False
            bound = getattr(node, "var", None) or getattr(node, "name", None) or getattr(node, "bind", None)
            if type(bound) is str and bound in held:
                held = held - {bound}
        return True

    def _pieces(self, fn: Any, held: frozenset[str]) -> bool:
        """Whether an expression always gives live pieces: a name known to hold one, a zone, or a filter."""
        if _one_piece(fn, held):
            return True
        node = _tree(fn)
        if isinstance(node, c.Where) or (isinstance(node, c.Call) and node.fn == "pieces"):
            return True
        return _zone_name(fn) in self.rules.zones

    def _set_prop(self, n: e.SetPropE, held: frozenset[str]) -> bool:
        if not _one_piece(n.piece, held):
            return False
        defaults = [v for (_, name), v in self.rules.prop_defaults.items() if name == n.prop]
        return n.op == "=" or (bool(defaults) and all(type(v) is int for v in defaults))

    def _set_counter(self, n: e.SetCounterE) -> bool:
        if not self._watchers(n.counter):
            return False
        value = _literal(n.value)
        if n.op == "=":
            return (type(value) is int and self._within(n.counter, value)) or self._free(n.counter)
        if type(value) is int:
            up = (value >= 0) == (n.op == "+=")
        elif self._nonneg(_tree(n.value)):
            up = n.op == "+="
        else:
            return self._free(n.counter)
        return self._counter_moves(n.counter, up, set())

    def _within(self, counter: str, value: int) -> bool:
        """Whether every cell of the counter may hold this number (limits that name a value are not read)."""
        c = self.rules.counters[counter]
        for low, high in [(c.min, c.max), *c.key_limits.values()]:
            if (low is not None and value < low) or (high is not None and (type(high) is not int or value > high)):
                return False
        return True

    def _nonneg(self, node: c.Node | None) -> bool:
        """Whether an expression is never below zero: numbers, counters with a floor of 0 or more, counts, entries
        of constant tables, and sums and products of those."""
        if isinstance(node, c.Literal):
            return type(node.value) is int and node.value >= 0
        if isinstance(node, c.BinOp):
            return node.op in ("+", "*") and self._nonneg(node.left) and self._nonneg(node.right)
        if isinstance(node, c.Call):
            return node.fn in ("count", "len") or (
                node.fn in ("sum", "max", "min") and len(node.args) == 1 and self._nonneg_items(node.args[0]))
        if isinstance(node, c.Attr) and node.kind == "property":
            return self._nonneg_prop(node.name)
        if isinstance(node, c.TableRead):  # a constant table: every entry it can give
            table = node.table
            return table is not None and (table.default is MISSING or (
                type(table.default) is int and table.default >= 0)) and _nonneg_entries(table.entries)
        if isinstance(node, c.Index):
            return self._nonneg_counter(node.cell if node.cell is not None else node.obj)
        return self._nonneg_counter(node)

    def _nonneg_items(self, node: c.Node) -> bool:
        if isinstance(node, c.Comprehension):
            return self._nonneg(node.element)
        return isinstance(node, c.ListLit) and all(self._nonneg(item) for item in node.items)

    def _nonneg_prop(self, prop: str) -> bool:
        """Whether a number property is never below zero: its defaults, and every value a rule gives it."""
        hit = self._props.get(prop)
        if hit is None:
            self._props[prop] = False  # while looking: a value computed from the property itself is not proof
            defaults = [v for (_, name), v in self.rules.prop_defaults.items() if name == prop]
            hit = all(v is None or (type(v) is int and v >= 0) for v in defaults) and all(
                self._nonneg(_tree(fn)) and op in ("=", "+=")
                for op, fn in self._prop_writes().get(prop, ()))
            self._props[prop] = hit
        return hit

    def _prop_writes(self) -> dict[str, list[tuple[str, Any]]]:
        """Every value a rule gives a property (`create ... with p = v`, `x.p = v`, `x.p += v`), by property."""
        if self._writes is None:
            self._writes = {}
            for body in self._roots():
                for node in _nodes(body):
                    if type(node) is e.CreateE:
                        for name, fn in node.props:
                            self._writes.setdefault(name, []).append(("=", fn))
                    elif type(node) is e.SetPropE:
                        self._writes.setdefault(node.prop, []).append((node.op, node.value))
        return self._writes

    def _roots(self) -> list[e.Body]:
        r = self.rules
        roots = [s.body for s in [*r.setup, *r.scoring]] + [a.body for a in r.actions.values()]
        roots += [t.body for ts in r.triggers.values() for t in ts] + [w.body for ws in r.watchers.values() for w in ws]
        roots += [p.body for p in r.procedures.values()]
        if r.flow is not None:
            roots += [r.flow.final] + [b for p in r.flow.phases for b in (p.before, p.body, p.after)]
        return roots

    def _nonneg_counter(self, node: c.Node | None) -> bool:
        """Whether a counter (or a keyed counter's cell), or a number value, is never below zero."""
        if isinstance(node, c.Name) and node.ref.kind in ("const", "value"):
            v = node.ref.decl
            data = v.data.values() if v.kind == "by_players" else [v.data] if v.kind == "const" else [None]
            return all(type(x) is int and x >= 0 for x in data)
        counter = _COUNTER_OF.get(type(node), _no_counter)(node)
        return counter is not None and all(low is not None and low >= 0
                                           for low, _ in [(counter.min, None), *counter.key_limits.values()])

    def _free(self, counter: str) -> bool:
        c = self.rules.counters[counter]
        return not c.key_limits and c.min is None and self._counter_moves(counter, True, set())

    def _counter_moves(self, counter: str, up: bool, seen: set[str]) -> bool:
        """Whether a counter can always move this way: no floor going down, no refusing cap going up."""
        c = self.rules.counters[counter]
        if not up:
            return c.underflow == "discard" or (c.min is None and not any(low is not None for low, _ in
                                                                            c.key_limits.values()))
        capped = c.max is not None or any(high is not None for _, high in c.key_limits.values())
        if not capped or c.overflow == "discard":
            return True
        if c.overflow != "carry" or c.carry_to is None or counter in seen:
            return False
        seen.add(counter)
        return self._counter_moves(c.carry_to, True, seen) and self._watchers(c.carry_to)

    def _watchers(self, counter: str) -> bool:
        """The triggers on the counter's changes and on what its cap or floor absorbs."""
        watchers = self.rules.watchers
        return all(self.body(w.body) for key in (counter, f"overflow {counter}", f"underflow {counter}")
                   for w in watchers.get(key, ()))

    def _zones(self) -> bool:
        """The triggers on zones' numbers of pieces (any zone: where a statement puts a piece is not always known)."""
        return self._watched("zone ")

    def _room(self, zone: str | None, seen: frozenset[str] = frozenset()) -> bool:
        """Whether a piece can always be put in the zone (no slots, no refusing capacity)."""
        z = self.rules.zones.get(zone) if zone is not None else None
        if z is None or z.slots is not None:
            return False
        if z.capacity is None or z.overflow == "discard":
            return True
        if z.overflow != "carry" or z.carry_to is None or z.name in seen:
            return False
        return self._room(z.carry_to, seen | {z.name})

    def _markers(self) -> bool:
        return self._watched("marker ")

    def _watched(self, prefix: str) -> bool:
        return all(self.body(w.body) for name, ws in self.rules.watchers.items() if name.startswith(prefix)
                   for w in ws)

    def _event(self, event: str) -> bool:
        return all(self.body(t.body) for t in self.rules.triggers.get(event, ()))

    def _end(self, n: e.EndE) -> bool:
        # Ending the turn or the round may end a game whose end was asked for: `end.do` runs then too.
        flow = self.rules.flow
        return flow is None or self.body(flow.final)

    def _scoring(self) -> bool:
        return all(self.body(s.body) for s in self.rules.scoring)

    def _take(self, name: str) -> bool:
        a: ActionDef = self.rules.actions[name]
        return a.guard is None and a.cost is None and not a.domains and self.action(name)

    def _one_of(self, n: e.OneOfE, held: frozenset[str]) -> bool:
        # Some option must always be open (one without a guard), and every option (or, for `exists`, such an open
        # one) must finish.
        if self.exists:
            return any(guard is None and self.body(b, held) for _, guard, b in n.options)
        return any(guard is None for _, guard, _ in n.options) and all(self.body(b, held) for _, _, b in n.options)


def _flat(body: e.Body) -> list[e.Effect]:
    """The body's statements with its hooks and steps spread out: a wrap without `instead` runs before, the
    wrapped body and after in the same frame, as a step runs its body, so running them in a row is the same."""
    out: list[e.Effect] = []
    for node in body:
        if type(node) is e.WrapE and node.instead is None:
            out += [*_flat(node.before), *_flat(node.inner), *_flat(node.after)]
        elif type(node) is e.StepE:
            out += _flat(node.body)
        else:
            out.append(node)
    return out


def _nodes(value: Any) -> Iterator[e.Effect]:
    """Every effect node inside a body, a node, or the tuples that hold them (cases, options), depth first."""
    if isinstance(value, e.Effect):
        yield value
        for f in dataclasses.fields(value):
            yield from _nodes(getattr(value, f.name))
    elif isinstance(value, tuple):
        for item in value:
            yield from _nodes(item)


def for_players(rules: Rules, players: int) -> Totality | None:
    """The rule set's analysis (made once and kept on it), or None when a game of this many players may meet a
    value the pack leaves unknown whatever its setup does (engine/known.py): that stops the game (E601), which
    no analysis of refusals can vouch for. Whether this game's state still holds one is asked per state
    (Machine.analysis)."""
    if rules.totality is None:
        rules.totality = Totality(rules)
    total: Totality = rules.totality
    return None if total.reads_unknown(players) else total
