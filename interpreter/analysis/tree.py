"""The linked rules as the whole-game analyses see them: every rule's effect tree (hooks included), each compiled
formula's checked tree, and what a body changes together with everything it runs (the procedures it calls,
the actions it takes, the triggers its events and counter changes start).

It walks the effect nodes the linker made, not the YAML: a name here is what the linker resolved it to, and an
extension, a replacement or a hook is already in place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import field
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
    (`props`), sums and products of such."""
    amount = _literal(node, consts)
    if amount is not None:
        return amount >= 0
    if isinstance(node, c.Attr):
        return node.kind == "property" and node.name in props
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


@dataclass
class Changes:
    """What running a body can change."""

    counters: dict[str, set[str]] = field(default_factory=dict)  # counter -> the directions it can move
    props: set[str] = field(default_factory=set)
    locals: set[str] = field(default_factory=set)
    markers: bool = False
    zones: bool = False
    turn: bool = False  # ends the turn, round or game, passes, or sets the start player
    events: set[str] = field(default_factory=set)

    def counter(self, name: str, ways: set[str]) -> None:
        self.counters.setdefault(name, set()).update(ways)


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
        """Whole-number properties no rule makes negative: each default is 0 or more, and every rule sets them
        to, or adds to them, an amount that is never negative (worked out together: one may be set from
        another)."""
        r = self.rules
        props = {p for p, t in r.properties.items() if t == "int" and p not in self.inputs}
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
        for eff in self.reach(body):
            if isinstance(eff, e.SetCounterE):
                params = self._param_consts.get(id(eff))
                ways = direction(eff, {**self.consts, **params} if params else self.consts, self.never_negative)
                out.counter(eff.counter, ways)
                c = self.rules.counters.get(eff.counter)
                if c is not None and c.overflow == "carry" and c.carry_to and "up" in ways:
                    out.counter(c.carry_to, {"up"})
            elif isinstance(eff, e.PayE):
                for alt in eff.cost.alternatives:
                    for term in alt:
                        if term.marker:
                            out.markers = True
                        else:
                            out.counter(term.counter, {"down"})
            elif isinstance(eff, e.SetPropE):
                out.props.add(eff.prop)
            elif isinstance(eff, e.LetE | e.ChooseE | e.RollE):
                out.locals.add(eff.name if isinstance(eff, e.LetE) else eff.var)
            elif isinstance(eff, ZONE_CHANGES):
                out.zones = True
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
