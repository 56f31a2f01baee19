"""Every formula of the linked rules with the rule it belongs to, and every use of a declared name, as the linker
resolved it: what the analyses read instead of the YAML.

A formula is a checked expression (`Expr`) held by an effect node or a declaration; its names carry what they
denote (`Name.ref.kind`, `Attr.kind`), so a piece property named like a counter is never taken for the counter.
An effect's own uses (the counter it sets, the event it emits, the procedure it calls, the cost it pays) come from
the effect node. Hooks, extensions and replacements are already in place in the linked tree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..dataclass_code import dataclass
from ..diagnostics import Span
from ..engine import effects as e
from ..engine.rules import Rules
from ..language import checked as c
from ..language.checked import Expr
from .tree import CHILDREN


@dataclass(slots=True)
class Formula:
    """One checked expression of a rule, where it is written."""

    rule: str  # section.name: actions.hire, flow.phases.market.do, values.total
    expr: Expr
    role: str  # effect (a line's own formula), guard (a condition), expr, cost
    guarded: bool  # inside a `may`, or after a `limit` or a `pay` in the same body: a loop through it is bounded
    fallback: Span  # where its effect or declaration is, when the text's own place is not known
    effect: e.Effect | None = None
    nodes: tuple[c.Node, ...] = ()  # every node of its tree, depth first

    @property
    def tree(self) -> c.Node:
        assert self.expr.tree is not None
        return self.expr.tree

    def span(self, node: c.Node | None = None) -> Span:
        return self.expr.span(node, self.fallback) or self.fallback


@dataclass(slots=True)
class Ref:
    kind: str  # read, write, increase, fill, pay, emit, defer, until, call, cost, on
    name: str
    rule: str | None  # None for a use by a declaration (a zone's capacity names a value) or a trigger's `on`
    section: str | None = None  # what the linker resolved the name to (counters, properties), when it says
    formula: Formula | None = None  # the formula holding the use, and its node
    node: c.Node | None = None
    at: Span | e.Effect | None = None  # where an effect's own use is: a cost term's place, or the effect
    lacked: bool = False  # a cost term whose shortfall is paid another way (`lacking`): it can always be paid

    def span(self) -> Span | None:
        if self.formula is not None:
            return self.formula.span(self.node)
        return place(self.at) if isinstance(self.at, e.Effect) else self.at


# ------------------------------------------------------------------------------------------------ formulas
def place(eff: e.Effect) -> Span:
    """Where a diagnostic about an effect points: the name it uses (an event, a procedure), else its line."""
    named = getattr(eff, "named_at", None)
    sp = named if named is not None else eff.span
    return Span(sp.file, sp.line, sp.col)


# The role of each field of an effect that holds a formula (a field not named is an `effect` line's own).
_ROLES = {(e.IfE, "cond"): "guard", (e.WhileE, "cond"): "guard", (e.RequireE, "cond"): "guard",
          (e.ForE, "items"): "expr", (e.RepeatE, "count"): "expr", (e.MatchE, "subject"): "expr",
          (e.OneOfE, "by"): "expr", (e.OneOfE, "options"): "guard", (e.MayE, "by"): "expr", (e.AsE, "who"): "expr"}


def _exprs(obj: object) -> Iterator[tuple[str, Expr]]:
    """(field, expression) of an effect's own formulas, a cost's terms included (not its nested bodies)."""
    for name in getattr(obj, "__slots__", ()):
        value = getattr(obj, name)
        if isinstance(value, Expr):
            yield name, value
        elif isinstance(value, e.CostC):
            yield from _cost_exprs(value)
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, Expr):
                    yield name, item
                elif isinstance(item, tuple):  # (name, Expr) pairs: a creation's properties, one_of's options
                    yield from ((name, x) for x in item if isinstance(x, Expr))


def _cost_exprs(cost: e.CostC) -> Iterator[tuple[str, Expr]]:
    for alt in cost.alternatives:
        for term in alt:
            for t in (term, term.lacking):
                if t is not None:
                    yield "cost", t.amount
                    if t.key_fn is not None:
                        yield "cost", t.key_fn


class Index:
    """The formulas and uses of one linked rule set."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.formulas: list[Formula] = []
        self.refs: list[Ref] = []
        self.effects: list[tuple[str, e.Effect, bool]] = []  # (rule, effect, guarded), nested ones included
        self.terms: list[tuple[e.CostTermC, Span]] = []  # every cost term once, with where it is written
        self._terms: set[int] = set()
        self._walked: dict[int, tuple[c.Node, ...]] = {}  # id(tree) -> its nodes: one tree is written in many places
        self._build()

    # ---------------------------------------------------------------- building
    def _formula(self, rule: str, expr: Expr | None, role: str, fallback: Span, guarded: bool = False,
                 effect: e.Effect | None = None) -> None:
        if expr is None or expr.tree is None:
            return
        f = Formula(rule, expr, role, guarded, fallback, effect, self._nodes(expr.tree))
        self.formulas.append(f)
        self._reads(f)

    def _nodes(self, tree: c.Node) -> tuple[c.Node, ...]:
        found = self._walked.get(id(tree))
        if found is None:
            found = self._walked[id(tree)] = tuple(c.nodes(tree))
        return found

    def _build(self) -> None:
        r = self.rules
        for name, cost in r.costs.items():  # first: a declared cost's terms belong to its declaration
            self._cost(f"costs.{name}", cost, cost.span, False)
        for x in r.setup:
            self._body(f"setup.{x.name}", x.body, False)
        for name, a in r.actions.items():
            rule = f"actions.{name}"
            self._formula(rule, a.guard, "guard", a.span)
            for expr in a.domains.values():
                self._formula(rule, expr, "expr", a.span)
            if a.cost is not None:
                self._cost(rule, a.cost, a.span, False)
            self._body(rule, a.body, False)
        for ts in r.triggers.values():
            for t in ts:
                self.refs.append(Ref("on", t.event, None, at=t.on_span or t.span))  # reads its event
                self._formula(f"triggers.{t.name}", t.guard, "guard", t.span)
                self._body(f"triggers.{t.name}", t.body, False)
        for ws in r.watchers.values():
            for w in ws:
                rule = f"triggers.{w.name}"
                self._formula(rule, w.guard, "guard", w.span)
                for mark in (w.crosses, w.every):
                    self._formula(rule, mark, "expr", w.span)
                self._body(rule, w.body, False)
        for name, p in r.procedures.items():
            self._body(f"procedures.{name}", p.body, False)
        for x in r.scoring:
            self._body(f"scoring.{x.name}", x.body, False)
        for name, v in r.values.items():
            if v.kind == "expr":
                self._formula(f"values.{name}", v.compiled, "expr", v.span)
        for sub in r.substitutes:
            rule = f"substitutes.{sub.name}"
            self._formula(rule, sub.guard if isinstance(sub.guard, Expr) else None, "guard", sub.span)
            for term in sub.instead:  # what is paid instead: a use of its counter, not a cost of its own
                self.refs.append(Ref("read", term.counter, rule, "counters" if not term.marker else None,
                                     at=term.span(sub.span)))
                self._formula(rule, term.amount, "cost", sub.span)
        for inv in r.invariants:
            self._formula(f"invariants.{inv.name}", inv.check, "expr", inv.span)  # meant to always hold
        if r.bot_score is not None:
            self._formula("bot_score", r.bot_score, "expr", Span("", 1, 1))
        self._flow()

    def _flow(self) -> None:
        flow = self.rules.flow
        if flow is None:
            return
        self._formula("flow", flow.first_player, "expr", flow.span)
        self._formula("flow", flow.end_when, "guard", flow.span)
        for key, text in flow.ranking:
            self._formula("flow.ranking", key, "expr", getattr(text, "span", None) or flow.span)
        for phase in flow.phases:
            rule = f"flow.phases.{phase.name}"
            self._formula(rule, phase.guard, "guard", phase.span)
            if phase.turns is not None:
                self._formula(rule, phase.turns.first, "expr", phase.span)
                self._formula(rule, phase.turns.until_fn, "guard", phase.span)
            for part, body in (("before", phase.before), ("do", phase.body), ("after", phase.after)):
                self._body(f"{rule}.{part}", body, False)
        self._body("flow.end.do", flow.final, False)

    def _body(self, rule: str, body: e.Body, guarded: bool) -> None:
        for eff in body:
            self.effects.append((rule, eff, guarded))
            self._effect(rule, eff, guarded)
            children = CHILDREN.get(type(eff))
            if children is not None:
                for inner in children(eff):
                    self._body(rule, inner, guarded or isinstance(eff, e.MayE))
            if isinstance(eff, e.LimitE | e.PayE):
                guarded = True

    def _effect(self, rule: str, eff: e.Effect, guarded: bool) -> None:
        line = eff
        for name, expr in _exprs(eff):
            if name == "cost":
                continue  # a cost's terms are placed by _cost
            if isinstance(eff, e.SetCounterE) and name == "key":
                self._target(rule, eff, expr, guarded, line)
                continue
            if isinstance(eff, e.MoveE | e.CreateE) and name in ("to", "zone"):
                self._fill(rule, eff, expr, guarded, line)
                continue
            self._formula(rule, expr, _ROLES.get((type(eff), name), "effect"), eff.span, guarded, eff)
        _EFFECT_USES.get(type(eff), _no_uses)(self, rule, eff, line)
        if isinstance(eff, e.PayE):
            self._cost(rule, eff.cost, place(eff), guarded)

    def _target(self, rule: str, eff: e.SetCounterE, key: Expr, guarded: bool, line: e.Effect) -> None:
        """The counter an assignment sets is written (and increased, unless it only goes down); what its key and
        owner read is read."""
        self.refs.append(Ref("write", eff.counter, rule, "counters", at=line))
        if eff.op != "-=":
            self.refs.append(Ref("increase", eff.counter, rule, "counters", at=line))
        if key.tree is None:
            return
        f = Formula(rule, key, "effect", guarded, eff.span, eff, self._nodes(key.tree))
        self.formulas.append(f)
        self._reads(f, skip=_written_node(key.tree))

    def _fill(self, rule: str, eff: e.MoveE | e.CreateE, zone: Expr, guarded: bool, line: e.Effect) -> None:
        """The zone pieces are put into is filled (not read)."""
        tree = zone.tree
        if tree is None:
            return
        named = tree if isinstance(tree, c.Name | c.Attr) else None
        name = named.ref.name if isinstance(named, c.Name) else named.name if isinstance(named, c.Attr) else None
        if name is not None:
            self.refs.append(Ref("fill", name, rule, "zones", at=line))
        f = Formula(rule, zone, "effect", guarded, eff.span, eff, self._nodes(tree))
        self.formulas.append(f)
        self._reads(f, skip=named)

    def _cost(self, rule: str, cost: e.CostC, fallback: Span, guarded: bool) -> None:
        for name in cost.named:
            self.refs.append(Ref("cost", name, rule, "costs", at=fallback))
        for alt in cost.alternatives:
            for term in alt:
                for t in (term, term.lacking):
                    if t is None or id(t) in self._terms:
                        continue  # a declared cost's terms are placed once, where the cost is declared
                    self._terms.add(id(t))
                    at = t.span(fallback)
                    self.terms.append((t, at))
                    section = None if t.marker else "counters"
                    self.refs += [Ref("pay", t.counter, rule, section, at=at, lacked=t.lacking is not None),
                                  Ref("read", t.counter, rule, section, at=at)]
                    self._formula(rule, t.amount, "cost", fallback, guarded)
                    self._formula(rule, t.key_fn, "cost", fallback, guarded)

    def _reads(self, f: Formula, skip: c.Node | None = None) -> None:
        """Each declared name a formula reads, as the checker resolved it."""
        for n in f.nodes:
            if n is skip:
                continue
            found = _READS.get(type(n))
            if found is not None:
                for name, section in found(n):
                    self.refs.append(Ref("read", name, f.rule, section, f, n))
            if isinstance(n, c.CanPay):
                for alt in n.cost.alternatives:
                    for term in alt:
                        section = None if term.marker else "counters"
                        if id(term) not in self._terms:
                            self._terms.add(id(term))
                            self.terms.append((term, term.span(f.span(n))))
                        self.refs += [Ref("pay", term.counter, f.rule, section, f, n),
                                      Ref("read", term.counter, f.rule, section, f, n)]
                self.refs += [Ref("cost", name, f.rule, "costs", f, n) for name in n.cost.named]

    # ---------------------------------------------------------------- reading
    def nodes(self) -> Iterator[tuple[Formula, c.Node]]:
        """Every checked node of every formula, with its formula."""
        for f in self.formulas:
            for n in f.nodes:
                yield f, n


def _written_node(tree: c.Node) -> c.Node | None:
    """The node of an assignment's target that names the counter itself (not read by the assignment)."""
    if isinstance(tree, c.FamilyKey):
        return tree.family
    return tree if isinstance(tree, c.Cell | c.CounterKey) else None


# What a name reads: (declared name, the section it denotes), by its kind (checked.NAME_KINDS / ATTR_KINDS).
_NAME_SECTIONS = {"counter": "counters", "family": "counters", "zone": "zones", "const": "values",
                  "value": "values", "marker": None, "track": None, "die": None, "set": None, "symbol": None}
_ATTR_SECTIONS = {"counter": "counters", "family": "counters", "zone": "zones", "property": "properties",
                  "player_marker": None, "dynamic": None}


def _name_reads(n: c.Name) -> list[tuple[str, str | None]]:
    kind = n.ref.kind
    return [(n.ref.name, _NAME_SECTIONS[kind])] if kind in _NAME_SECTIONS else []


def _attr_reads(n: c.Attr) -> list[tuple[str, str | None]]:
    return [(n.name, _ATTR_SECTIONS[n.kind])] if n.kind in _ATTR_SECTIONS else []


_READS: dict[type, Callable[[Any], list[tuple[str, str | None]]]] = {
    c.Name: _name_reads,
    c.Attr: _attr_reads,
    c.Cell: lambda n: [(n.counter.name, "counters")],  # a keyed counter's cell known at link time
    c.Keys: lambda n: [(getattr(n.counter, "name", ""), None)],
    c.TableRead: lambda n: [(n.table.name, "values")] if n.table is not None else [],
}


# ------------------------------------------------------------------------------------------ an effect's own uses
def _no_uses(ix: Index, rule: str, eff: e.Effect, line: e.Effect) -> None:
    return None


def _set_prop(ix: Index, rule: str, eff: e.SetPropE, line: e.Effect) -> None:
    ix.refs.append(Ref("write", eff.prop, rule, "properties", at=line))
    if eff.op != "-=":
        ix.refs.append(Ref("increase", eff.prop, rule, "properties", at=line))


def _create(ix: Index, rule: str, eff: e.CreateE, line: e.Effect) -> None:
    ix.refs += [Ref("write", prop, rule, "properties", at=line) for prop, _ in eff.props]
    ix.refs.append(Ref("read", eff.kind, rule, None, at=line))


def _refill(ix: Index, rule: str, eff: e.RefillE, line: e.Effect) -> None:
    tree = eff.zone.tree
    name = tree.ref.name if isinstance(tree, c.Name) else tree.name if isinstance(tree, c.Attr) else None
    if name is not None:
        ix.refs.append(Ref("fill", name, rule, "zones", at=line))


def _defer(ix: Index, rule: str, eff: e.DeferE, line: e.Effect) -> None:
    ix.refs += [Ref("defer", eff.event, rule, None, at=line),
                Ref("until", eff.until or "turn_end", rule, None, at=line)]


_EFFECT_USES: dict[type, Callable[[Index, str, Any, e.Effect], None]] = {
    e.SetPropE: _set_prop,
    e.CreateE: _create,
    e.RefillE: _refill,
    e.EmitE: lambda ix, rule, eff, line: ix.refs.append(Ref("emit", eff.event, rule, None, at=line)),
    e.DeferE: _defer,
    e.CallE: lambda ix, rule, eff, line: ix.refs.append(Ref("call", eff.proc, rule, None, at=line)),
    e.RollE: lambda ix, rule, eff, line: ix.refs.append(Ref("read", eff.die, rule, None, at=line)),
}
