"""The linked rules as the whole-game analyses see them: every rule's effect tree (hooks included), each compiled
formula's checked tree, and what a body changes together with everything it runs (the procedures it calls,
the actions it takes, the triggers its events and counter changes start).

It walks the effect nodes the linker made, not the YAML: a name here is what the linker resolved it to, and an
extension, a replacement or a hook is already in place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import field
from functools import cached_property
from typing import Any

from ..dataclass_code import dataclass
from ..engine import effects as e
from ..engine.rules import Rules
from ..language import checked as c
from ..language.checked import Expr

# Each effect class with nested bodies -> those bodies (a test checks that every class with a Body field is here).
CHILDREN: dict[type, Callable[[Any], tuple[e.Body, ...]]] = {
    e.AsE: lambda x: (x.body,),
    e.IfE: lambda x: (x.then, x.other),
    e.ForE: lambda x: (x.body,),
    e.RepeatE: lambda x: (x.body,),
    e.MatchE: lambda x: (*(body for _, body in x.cases), x.other),
    e.OneOfE: lambda x: tuple(body for _, _, body in x.options),
    e.MayE: lambda x: (x.body,),
    e.WhileE: lambda x: (x.body,),
    e.StepE: lambda x: (x.body,),
    e.WrapE: lambda x: (x.before, x.instead or (), x.after, *(() if _replaces(x) else (x.inner,))),
}


def _replaces(wrap: e.WrapE) -> bool:
    """Whether an `instead` hook stands in for what it wraps without ever running it (no `proceed`)."""
    return wrap.instead is not None and not any(isinstance(x, e.ProceedE) for x in walk(wrap.instead))
# Effects that change which pieces are in which zone.
ZONE_CHANGES = (e.MoveE, e.CreateE, e.RemoveE, e.DrawE, e.RefillE, e.ShuffleE)


def rule_bodies(rules: Rules) -> dict[str, e.Body]:
    """Every body of the linked rules, by rule (section.name; a phase's parts and the end of the game too)."""
    bodies: dict[str, e.Body] = {f"setup.{x.name}": x.body for x in rules.setup}
    bodies |= {f"actions.{n}": a.body for n, a in rules.actions.items()}
    bodies |= {f"triggers.{t.name}": t.body for ts in rules.triggers.values() for t in ts}
    bodies |= {f"triggers.{w.name}": w.body for ws in rules.watchers.values() for w in ws}
    bodies |= {f"procedures.{n}": p.body for n, p in rules.procedures.items()}
    bodies |= {f"scoring.{x.name}": x.body for x in rules.scoring}
    if rules.flow is not None:
        for phase in rules.flow.phases:
            for part, body in (("before", phase.before), ("do", phase.body), ("after", phase.after)):
                bodies[f"flow.phases.{phase.name}.{part}"] = body
        bodies["flow.end.do"] = rules.flow.final
    return bodies


def every_effect(body: e.Body) -> Iterator[e.Effect]:
    """Every effect written in a body, nested blocks included, and what an `instead` hook stands in for too
    (walk leaves that out: it never runs)."""
    for eff in walk(body):
        yield eff
        if isinstance(eff, e.WrapE) and _replaces(eff):
            yield from every_effect(eff.inner)


def walk(body: e.Body) -> Iterator[e.Effect]:
    """Every effect of a body, nested blocks included, in order."""
    stack = list(reversed(body))
    while stack:
        eff = stack.pop()
        yield eff
        children = CHILDREN.get(type(eff))
        if children is not None:
            for inner in reversed(children(eff)):
                stack.extend(reversed(inner))


def _literal(node: c.Node | None, consts: dict[str, int]) -> int | None:
    """A number written out, or a value fixed before play."""
    if isinstance(node, c.Literal) and type(node.value) is int:
        return node.value
    if isinstance(node, c.Name) and node.ref.kind == "const" and node.ref.name in consts:
        return consts[node.ref.name]
    if isinstance(node, c.Name) and node.ref.kind == "var" and node.ref.name in consts:
        return consts[node.ref.name]  # a procedure's parameter every call passes a number of one sign
    if isinstance(node, c.Neg):
        inner = _literal(node.operand, consts)
        return None if inner is None else -inner
    return None


def _never_negative(node: c.Node, consts: dict[str, int], props: frozenset[str] = frozenset()) -> bool:
    """Whether an amount is 0 or more whatever the state: a count, a length, a property no rule makes negative
    (`props`: a property's name), a counter whose floor is 0 or more (`props`: `counters.NAME`), sums and
    products of such."""
    amount = _literal(node, consts)
    if amount is not None:
        return amount >= 0
    if isinstance(node, c.Attr):
        if node.kind == "counter":
            return f"counters.{node.name}" in props
        return node.kind == "property" and node.name in props
    if isinstance(node, c.Name) and node.ref.kind == "counter":
        return f"counters.{node.ref.name}" in props
    if isinstance(node, c.Index) and node.cell is not None:
        return f"counters.{getattr(node.cell.counter, 'name', '')}" in props
    if isinstance(node, c.Call):
        if node.fn in ("count", "len", "abs"):
            return True
        if node.fn in ("min", "max", "sum") and node.args:
            return all(_never_negative(a, consts, props) for a in node.args)
    if isinstance(node, c.Comprehension):  # its items, whichever pass the filter
        return _never_negative(node.element, consts, props)
    if isinstance(node, c.ListLit):
        return all(_never_negative(x, consts, props) for x in node.items)
    if isinstance(node, c.BinOp) and node.op in ("+", "*", "//"):
        return _never_negative(node.left, consts, props) and _never_negative(node.right, consts, props)
    return False


def direction(eff: e.SetCounterE, consts: dict[str, int] | None = None, props: frozenset[str] = frozenset()
              ) -> set[str]:
    """Which way a counter assignment can move the counter: {"up"}, {"down"}, or both."""
    return step(eff.op, eff.value, consts, props)


def step(op: str, value: Any, consts: dict[str, int] | None = None, props: frozenset[str] = frozenset()
         ) -> set[str]:
    """Which way `x op value` (`+=`, `-=`, `=`; `advance` is `+=`) can move x: {"up"}, {"down"}, both, or none."""
    node = value.tree if isinstance(value, Expr) else None
    amount = _literal(node, consts or {})
    if amount is None and op in ("+=", "-=") and node is not None and _never_negative(node, consts or {}, props):
        return {"up" if op == "+=" else "down"}  # or no move at all, when it is 0
    if op == "=" or amount is None:
        return {"up", "down"}
    if amount == 0:
        return set()
    up = (amount > 0) == (op == "+=")
    return {"up" if up else "down"}


def key_symbol(node: c.Node | None) -> str | None:
    """A key written as a declared symbol (`stock[wine]`); None for any other key."""
    if isinstance(node, c.Name) and node.ref.kind == "symbol":
        return node.ref.name
    if isinstance(node, c.Literal) and isinstance(node.value, str):
        return node.value
    return None


def _source(node: c.Node | None, origins: dict[str, str | None]) -> str | None:
    """The one zone whose pieces `node` gives (`me.bench`, `first(pile)`, `hand where ...`, a local name bound
    to pieces of one zone); None when not known before play."""
    zone = c.declared(node, "zone")
    if zone is not None:
        return zone
    if isinstance(node, c.Call) and node.fn in ("first", "last", "slot") and node.args:
        return _source(node.args[0], origins)
    if isinstance(node, c.Where | c.SortedBy):
        return _source(node.items, origins)
    if isinstance(node, c.Index):
        return _source(node.obj, origins)
    if isinstance(node, c.Name) and node.ref.kind == "var":
        return origins.get(node.ref.name)
    return None


@dataclass
class Changes:
    """What running a body can change."""

    counters: dict[str, set[str]] = field(default_factory=dict)  # counter -> the directions it can move
    props: set[str] = field(default_factory=set)
    locals: set[str] = field(default_factory=set)
    markers: bool = False
    zones: bool = False  # some zone's pieces change
    zone_names: set[str] = field(default_factory=set)  # the zones whose pieces change, when known
    any_zone: bool = False  # a change to a zone not known before play (any zone may change)
    cells: dict[str, set[str] | None] = field(default_factory=dict)  # keyed counter -> keys changed (None: any)
    turn: bool = False  # ends the turn, round or game, passes, or sets the start player
    events: set[str] = field(default_factory=set)

    def counter(self, name: str, ways: set[str], key: str | None = None) -> None:
        """`name` moves `ways`; `key`: the one key changed, when it is known before play."""
        self.counters.setdefault(name, set()).update(ways)
        if key is None:
            self.cells[name] = None
        elif name not in self.cells:
            self.cells[name] = {key}
        elif (keys := self.cells[name]) is not None:
            keys.add(key)

    def changes_cell(self, name: str, key: str) -> bool:
        """Whether the body can change the `key` cell of a counter."""
        if name not in self.counters:
            return False
        keys = self.cells.get(name)
        return keys is None or key in keys

    def zone(self, names: set[str] | None) -> None:
        """Pieces of these zones change (None: of any zone)."""
        self.zones = True
        if names is None:
            self.any_zone = True
        else:
            self.zone_names |= names

    def changes_zone(self, name: str) -> bool:
        return self.any_zone or name in self.zone_names


class Linked:
    """The linked rules with the bodies each rule runs and what running them changes."""

    def __init__(self, rules: Rules, inputs: set[str] | frozenset[str] = frozenset()) -> None:
        self.rules = rules
        self.inputs = inputs  # names a program or a scenario sets from outside the rules
        self.bodies = rule_bodies(rules)
        self._changes: dict[int, tuple[e.Body, Changes]] = {}
        self.consts = {n: v.data for n, v in rules.values.items() if v.kind == "const" and type(v.data) is int}
        self._param_consts = self._parameter_signs()
        self.never_negative = self._never_negative_props()

    def _never_negative_props(self) -> frozenset[str]:
        """Counters whose floor is 0 or more (as `counters.NAME`), and whole-number properties no rule makes
        negative: each default is 0 or more, and every rule sets them
        to, or adds to them, an amount that is never negative (worked out together: one may be set from
        another)."""
        r = self.rules
        floored = {f"counters.{n}" for n, x in r.counters.items()
                   if x.min is not None and x.min >= 0 and all(low is not None and low >= 0
                                                                  for low, _ in x.key_limits.values())}
        props = {p for p, t in r.properties.items() if t == "int" and p not in self.inputs} | floored
        props -= {p for (_, p), default in r.prop_defaults.items() if not (type(default) is int and default >= 0)}
        writes: list[tuple[str, str, Expr]] = []
        for body in self.bodies.values():
            for eff in walk(body):
                if isinstance(eff, e.SetPropE):
                    writes.append((eff.prop, eff.op, eff.value))
                elif isinstance(eff, e.CreateE):
                    writes += [(p, "=", v) for p, v in eff.props]
        changed = True
        while changed:
            changed = False
            for prop, op, value in writes:
                if prop in props and (op == "-=" or value.tree is None
                                      or not _never_negative(value.tree, self.consts, frozenset(props))):
                    props.discard(prop)
                    changed = True
        return frozenset(props)

    def _parameter_signs(self) -> dict[int, dict[str, int]]:
        """For each effect inside a procedure: the procedure's parameters that every call passes a number of one
        sign (written out, or a constant), as a stand-in number of that sign, so `who.points += n` in a
        procedure only ever called with 1 or 2 is known to move points up. A parameter the body binds again (a
        `let`, a loop, a choice of the same name) is left out."""
        passed: dict[str, dict[int, set[int]]] = {}
        for body in self.bodies.values():
            for eff in walk(body):
                if isinstance(eff, e.CallE) and eff.proc in self.rules.procedures:
                    into = passed.setdefault(eff.proc, {})
                    for i, arg in enumerate(eff.args):
                        amount = _literal(arg.tree, self.consts)
                        into.setdefault(i, set()).add(0 if amount is None else (1 if amount > 0 else -1
                                                                                if amount < 0 else 0))
        out: dict[int, dict[str, int]] = {}
        for name, proc in self.rules.procedures.items():
            effects = list(walk(proc.body))
            bound = {getattr(x, "name", None) or getattr(x, "var", None) for x in effects
                     if isinstance(x, e.LetE | e.ForE | e.ChooseE | e.RollE | e.DrawE)}
            signs = {param: next(iter(passed[name][i])) for i, (param, _) in enumerate(proc.params)
                     if name in passed and len(passed[name].get(i, ())) == 1 and 0 not in passed[name][i]
                     and param not in bound and param not in self.consts}
            if signs:
                for x in effects:
                    out[id(x)] = signs
        return out

    def run_by(self, eff: e.Effect) -> list[e.Body]:
        """The bodies an effect starts elsewhere: a procedure, an action, the triggers of an event or a change."""
        r = self.rules
        if isinstance(eff, e.CallE) and eff.proc in r.procedures:
            return [r.procedures[eff.proc].body]
        if isinstance(eff, e.TakeE) and eff.action in r.actions:
            return [r.actions[eff.action].body]
        if isinstance(eff, e.EmitE):
            return [t.body for t in r.triggers.get(eff.event, [])]
        if isinstance(eff, e.EndE) and eff.what == "turn":
            return [t.body for t in r.triggers.get("turn_end", [])]
        if isinstance(eff, e.SetCounterE):
            return [w.body for watched in (eff.counter, f"overflow {eff.counter}", f"underflow {eff.counter}")
                    for w in r.watchers.get(watched, [])]
        if isinstance(eff, e.AdvanceE | e.PlaceE):
            return [w.body for key, ws in r.watchers.items() if key.startswith("marker ") for w in ws]
        if isinstance(eff, e.MoveE | e.CreateE | e.RemoveE | e.RefillE):  # any watched zone may change
            return [w.body for key, ws in r.watchers.items() if key.startswith("zone ") for w in ws]
        return []

    def reach(self, body: e.Body) -> Iterator[e.Effect]:
        """Every effect running `body` can run, through calls, takes and triggers (each body once)."""
        seen: set[int] = set()
        todo = [body]
        while todo:
            current = todo.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            for eff in walk(current):
                yield eff
                todo.extend(self.run_by(eff))

    def changes(self, body: e.Body) -> Changes:
        hit = self._changes.get(id(body))
        if hit is not None and hit[0] is body:
            return hit[1]
        out = Changes()
        own = {id(x) for x in walk(body)}  # the body's own effects: where its local names' zones are known
        origins = self._origins(body)
        for eff in self.reach(body):
            if isinstance(eff, e.SetCounterE):
                params = self._param_consts.get(id(eff))
                ways = direction(eff, {**self.consts, **params} if params else self.consts, self.never_negative)
                key = eff.key.tree.key if isinstance(eff.key, Expr) and isinstance(eff.key.tree, c.Cell) else None
                out.counter(eff.counter, ways, key_symbol(key))
                counter = self.rules.counters.get(eff.counter)
                if counter is not None and counter.overflow == "carry" and counter.carry_to and "up" in ways:
                    out.counter(counter.carry_to, {"up"})
            elif isinstance(eff, e.PayE):
                self._paid(eff.cost, out)
            elif isinstance(eff, e.TakeE) and eff.action in self.rules.actions:
                cost = self.rules.actions[eff.action].cost
                if cost is not None:
                    self._paid(cost, out)
            elif isinstance(eff, e.SetPropE):
                out.props.add(eff.prop)
            elif isinstance(eff, e.LetE | e.ChooseE | e.RollE):
                out.locals.add(eff.name if isinstance(eff, e.LetE) else eff.var)
            elif isinstance(eff, ZONE_CHANGES):
                out.zone(self._zones_changed(eff, origins if id(eff) in own else {}))
                if isinstance(eff, e.DrawE):
                    out.locals.add(eff.var)
                if isinstance(eff, e.CreateE):
                    out.props.update(p for p, _ in eff.props)
                    if eff.bind:
                        out.locals.add(eff.bind)
            elif isinstance(eff, e.AdvanceE | e.PlaceE):
                out.markers = True
            elif isinstance(eff, e.EndE | e.PassE | e.SetStartPlayerE):
                out.turn = True
            elif isinstance(eff, e.EmitE | e.DeferE):
                out.events.add(eff.event)
        self._changes[id(body)] = (body, out)
        return out

    def _paid(self, cost: e.CostC, out: Changes) -> None:
        """What paying a cost can change: its terms, and what a substitute pays instead of any of them."""
        terms = [term for alt in cost.alternatives for term in alt]
        terms += [term.lacking for term in terms if term.lacking is not None]
        terms += [x for sub in self.rules.substitutes for x in sub.instead]
        for term in terms:
            if term.marker:
                out.markers = True
            else:
                out.counter(term.counter, {"down"}, term.key if term.key not in (None, "any", "different")
                            and term.key_fn is None else None)

    @cached_property
    def _links(self) -> bool:
        """Whether some rule links pieces."""
        return any(isinstance(x, e.LinkE) for b in self.bodies.values() for x in walk(b))

    def _origins(self, body: e.Body) -> dict[str, str | None]:
        """The local names `body` binds to pieces of one zone (`choose t from me.bench`, `for t in pile`), by
        name; None for a name bound twice, or to anything else. Only while no rule links pieces: a moved piece
        takes its linked pieces along, from wherever they are."""
        if self._links:
            return {}
        out: dict[str, str | None] = {}
        for eff in walk(body):
            bound: tuple[str, Any] | None = None
            if isinstance(eff, e.ChooseE):
                bound = (eff.var, eff.options)
            elif isinstance(eff, e.ForE):
                bound = (eff.var, eff.items)
            elif isinstance(eff, e.DrawE):
                bound = (eff.var, eff.zone)
            elif isinstance(eff, e.LetE):
                bound = (eff.name, eff.value if eff.op == "let" else None)
            elif isinstance(eff, e.CreateE) and eff.bind:
                decl = self.rules.zones.get(c.declared(eff.zone.tree, "zone") or "")
                # A piece made in a full zone that carries its overflow is in another zone.
                bound = (eff.bind, eff.zone if decl is not None and decl.overflow != "carry" else None)
            if bound is None:
                continue
            name, fn = bound
            zone = _source(fn.tree if isinstance(fn, Expr) else None, out)
            out[name] = zone if name not in out or out[name] == zone else None
        return out

    @cached_property
    def emptied(self) -> set[str] | None:
        """The zones some rule may take a piece out of (`move`, `remove`, `refill ... from`); None when any zone
        may lose one. A piece a local name holds was in the zone it was taken from, or in a zone a `move` or
        `refill` has put some piece in since (and where their overflows carry)."""
        if self._links:
            return None  # a moved piece takes its linked pieces along, from wherever they are
        moved_to: set[str] = set()
        for body in self.bodies.values():
            for eff in walk(body):
                if isinstance(eff, e.MoveE | e.RefillE):
                    zone = c.declared((eff.to if isinstance(eff, e.MoveE) else eff.zone).tree, "zone")
                    if zone is None:
                        return None
                    while zone is not None and zone not in moved_to:
                        moved_to.add(zone)
                        decl = self.rules.zones.get(zone)
                        zone = decl.carry_to if decl is not None and decl.overflow == "carry" else None
        out: set[str] = set()
        for body in self.bodies.values():
            origins = self._origins(body)
            for eff in walk(body):
                if isinstance(eff, e.RefillE):
                    node = eff.source.tree
                elif isinstance(eff, e.MoveE | e.RemoveE):
                    node = eff.what.tree
                else:
                    continue
                zone = _source(node, origins)
                if zone is None:
                    return None
                out.add(zone)
                if _source(node, {}) is None:  # through a local name: the piece may have moved since
                    out |= moved_to
        return out

    def _zones_changed(self, eff: e.Effect, origins: dict[str, str | None]) -> set[str] | None:
        """The zones whose pieces an effect changes (None: any zone may change)."""
        if isinstance(eff, e.DrawE):
            return set()  # a draw binds a piece without moving it
        if self._links and isinstance(eff, e.MoveE | e.RemoveE):
            return None  # linked pieces go along, from wherever they are
        fns: list[Any]
        if isinstance(eff, e.MoveE):
            fns = [eff.what, eff.to]
        elif isinstance(eff, e.CreateE | e.ShuffleE):
            fns = [eff.zone]
        elif isinstance(eff, e.RemoveE):
            fns = [eff.what]
        elif isinstance(eff, e.RefillE):
            fns = [eff.zone, eff.source]
        else:
            return None
        out: set[str] = set()
        for fn in fns:
            zone = _source(fn.tree if isinstance(fn, Expr) else None, origins)
            if zone is None:
                return None
            while zone is not None and zone not in out:  # a full zone's overflow carries pieces on
                out.add(zone)
                decl = self.rules.zones.get(zone)
                zone = decl.carry_to if decl is not None and decl.overflow == "carry" else None
        return out

    def counter_moves(self) -> dict[str, set[str]]:
        """Each counter with the directions any rule (setup, the flow, actions, triggers, scoring) moves it."""
        out: dict[str, set[str]] = {}
        for body in self.bodies.values():
            for name, ways in self.changes(body).counters.items():
                out.setdefault(name, set()).update(ways)
        for action in self.rules.actions.values():
            for alt in (action.cost.alternatives if action.cost is not None else ()):
                for term in alt:
                    if not term.marker:
                        out.setdefault(term.counter, set()).add("down")
        for sub in self.rules.substitutes:  # what is paid instead of part of a cost
            for term in sub.instead:
                if not term.marker:
                    out.setdefault(term.counter, set()).add("down")
        return out
