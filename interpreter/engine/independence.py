"""Which answers of a move cannot change how the rest of it fails: so the search need not try them all.

The search proves a move by a depth-first walk through its decisions (moves.Search). When every way on from a
decision has failed inside the action's body (not in the flow after it), those failures depend only on what the
body's statements from that decision's statement on read. An earlier decision whose answers can only change,
through the statements between the two, what those statements never read cannot turn any of them into a way
that finishes: each of its other answers reaches the same statement with the same values read and fails the
same way, so the search skips them (a market that sells to no customer fails whichever cube paid for it).

Worked out once per action, for the body's statements as a run takes them (hooks and steps spread out, as
totality._flat does), each with everything it runs (procedures, taken actions with their guards and costs,
the triggers of the events it emits or defers and of the counters, zones and markers it changes, the actions a
`can(...)` proves):

- where each decision is asked: the statement from which the rule asking it (a choose, may, one_of, a cost
  paid with a choice) is reached; a rule reached from two statements is not placed, and then nothing is skipped;
- what a statement may read: every name written in it or in what it runs (counters, properties, zones, locals,
  values, symbols, flow names), a superset;
- what a statement may change: the counters (and those its costs and substitutes pay), properties and locals it
  names, the track markers it advances or places (named in the statement: `advance me.time by 2`), whether it
  moves, links or removes pieces, and anything else (creating pieces, vars, a marker it does not name, limits'
  usage, deferred events, passing or ending, the random generator, a decision by another chooser), which is
  never taken to be independent.

Moving pieces is independent of the rest only when the rest names no zone the pieces could be in (the zones
named up to the rest, where a moved piece can have been found or put), reads no piece's place in general
(`pieces(...)`, `.zone`, `.slot`, `.linked`, a property holding a piece), and names no local bound before (or
parameter of the action) that could hold one of them. Moving a marker is independent of the rest only when the
rest names neither the marker nor a local bound before it (or a parameter of the action): a marker is read
through its name or a value holding it (`position(...)`, `passed(...)`, `adjacent(...)` all take one).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..diagnostics import Span
from ..language import checked as c
from ..language.checked import Expr
from . import effects as e

if TYPE_CHECKING:
    from .rules import ActionDef, Rules

PLACES = frozenset({"pieces", "zone", "slot", "linked"})  # names that read where pieces are, whichever they are
# Statements whose changes the check never proves independent (vars, markers, usage, ids, the generator, ...).
OTHER = (e.CreateE, e.ShuffleE, e.DrawE, e.RollE, e.EndE, e.PassE, e.SetStartPlayerE,
         e.DeferE, e.LimitE, e.ScoreE)
PIECES = (e.MoveE, e.RemoveE, e.LinkE, e.UnlinkE, e.RefillE)


@dataclass(frozen=True, slots=True)
class Part:
    """What one statement of an action's body (with everything it runs) may read and change."""

    names: frozenset[str]  # every name it may read (a superset)
    counters: frozenset[str]  # counters it may change
    props: frozenset[str]  # properties it may set
    bound: frozenset[str]  # locals it binds
    markers: frozenset[str]  # track markers it may advance or place
    pieces: bool  # moves, links or removes pieces
    other: bool  # changes anything else, or decides by another chooser


class Action:
    """An action's body statements with what each may read and change, and the statement each rule is run from."""

    def __init__(self, rules: Rules, action: ActionDef) -> None:
        from .totality import _flat

        self.rules = rules
        flat = _flat(action.body)
        self.parts: list[Part] = []
        self.place: dict[int, int] = {}  # by id of the rule's span: a decision carries that very span
        ambiguous: set[int] = set()
        self.zones = frozenset(rules.zones)
        self.piece_props = frozenset(p for p, t in rules.properties.items() if t == "piece")
        named: frozenset[str] = frozenset()  # every name of the statements so far
        for i, node in enumerate(flat):
            part, spans = _part(rules, node, named, self.piece_props)
            named |= part.names
            self.parts.append(part)
            for span in spans:
                if self.place.setdefault(id(span), i) != i:
                    ambiguous.add(id(span))
        for key in ambiguous:
            del self.place[key]
        self.params = frozenset(p for p, _ in action.params)

    def places(self, rules: list[Span | None]) -> list[int] | None:
        """The statement each decision (by the rule that asked it) was asked in, in order; None when one is not
        placed or they are out of order."""
        out: list[int] = []
        for span in rules:
            i = self.place.get(id(span)) if span is not None else None
            if i is None or (out and i < out[-1]):
                return None
            out.append(i)
        return out

    def independent(self, start: int, rest: int) -> bool:
        """Whether statements start..rest-1 can change nothing that statements rest.. read."""
        seg = self.parts[start:rest]
        later = self.parts[rest:]
        names = frozenset().union(*(p.names for p in later))
        if any(p.other for p in seg):
            return False
        for p in seg:
            if p.counters & names or p.props & names or p.bound & names:
                return False
        moved = frozenset().union(*(p.markers for p in seg))
        if moved and (moved & names or names & (frozenset().union(*(p.bound for p in self.parts[:rest])) |
                                                 self.params)):
            return False  # the rest names a moved marker, or a local or parameter that may hold one
        if not any(p.pieces for p in seg):
            return True
        before = frozenset().union(*(p.names for p in self.parts[:rest]))
        if names & (PLACES | self.piece_props) or before & ({"pieces", "linked"} | self.piece_props):
            return False  # the rest reads places in general, or a moved piece may have come from anywhere
        bound_before = frozenset().union(*(p.bound for p in self.parts[:start]))
        return not (names & ((before & self.zones) | bound_before | self.params))


def for_action(rules: Rules, name: str) -> Action:
    """The action's statements (worked out once per rule set)."""
    kept: dict[str, Action] | None = rules.independence
    if kept is None:
        kept = rules.independence = {}
    hit = kept.get(name)
    if hit is None:
        hit = kept[name] = Action(rules, rules.actions[name])
    return hit


def _part(rules: Rules, node: e.Effect, before: frozenset[str], piece_props: frozenset[str]) -> tuple[Part, list[Span]]:
    """What a statement and everything it runs may read and change, and the spans of every rule it runs. The
    triggers on zones it runs are those of the zones a piece it moves can be in or go to: the zones named in it
    or before it (`before`: the names of the statements before), or all of them when a piece may come from
    anywhere."""
    names: set[str] = set()
    counters: set[str] = set()
    props: set[str] = set()
    bound: set[str] = set()
    markers: set[str] = set()
    pieces = other = False
    spans: list[Span] = []
    seen: set[int] = set()
    stack: list[Any] = [node]
    zone_watchers = [(key.removeprefix("zone "), ws) for key, ws in rules.watchers.items() if key.startswith("zone ")]
    while stack or (pieces and zone_watchers):
        if not stack:  # the triggers on the zones its pieces can be in, and then those their pieces can be in
            anywhere = bool((names | before) & ({"pieces", "linked"} | piece_props))
            fire = [ws for zone, ws in zone_watchers if anywhere or zone in names or zone in before]
            zone_watchers = [(zone, ws) for zone, ws in zone_watchers if not (anywhere or zone in names or
                                                                             zone in before)]
            if not fire:
                break
            stack.extend(fire)
            continue
        x = stack.pop()
        if x is None or id(x) in seen or isinstance(x, Span | int | float | bool):
            continue
        if isinstance(x, str):
            names.add(x)
            continue
        seen.add(id(x))
        if isinstance(x, Expr):
            if x.tree is None:
                other = True  # a function without a checked expression: what it reads is not known
            else:
                for n in c.nodes(x.tree):
                    stack.extend(_WORDS.get(type(n), _no_words)(n))
                    if isinstance(n, c.CanTake) and n.action in rules.actions:
                        stack.append(rules.actions[n.action])  # a dry run of the action reads what it reads
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list | tuple | set | frozenset):
            stack.extend(x)
        elif isinstance(x, e.Effect):
            spans.append(x.span)
            stack.extend(_runs(rules, x))
            if isinstance(x, e.SetCounterE):
                counters.update(_carried(rules, x.counter))
            elif isinstance(x, e.PayE | e.TakeE):
                cost = x.cost if isinstance(x, e.PayE) else rules.actions[x.action].cost
                if cost is not None:
                    found = _counters(cost)
                    other = other or None in found
                    for paid in found - {None}:
                        counters.update(_carried(rules, str(paid)))
                    for sub in rules.substitutes:
                        for paid in _counters(sub) - {None}:
                            counters.update(_carried(rules, str(paid)))
            elif isinstance(x, e.SetPropE):
                props.add(x.prop)
            elif isinstance(x, PIECES):
                pieces = True
            elif isinstance(x, e.AdvanceE | e.PlaceE):
                named = _marker_names(rules, x.marker)
                other = other or not named  # a marker held by a local or parameter: which one is not known
                markers.update(named)
            elif isinstance(x, OTHER):
                other = True
                pieces = pieces or isinstance(x, e.CreateE | e.ShuffleE | e.DrawE)
                if isinstance(x, e.CreateE):
                    props.update(p for p, _ in x.props)
            if isinstance(x, e.ChooseE | e.MayE | e.OneOfE | e.PayE) and x.by is not None:
                other = True  # chance may decide (or pay): the random generator moves
            if not isinstance(x, e.LimitE | e.StepE):
                for attr in ("var", "name", "bind"):
                    value = getattr(x, attr, None)
                    if type(value) is str:
                        bound.add(value)
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x) if f.name != "span")
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):  # a cost, an action, a trigger
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x) if f.name != "span")
        else:
            other = True  # a value this walk does not know: nothing is proven of the statement
    names |= _through_values(rules, names)
    return Part(frozenset(names), frozenset(counters), frozenset(props), frozenset(bound), frozenset(markers), pieces,
                other), spans


def _marker_names(rules: Rules, marker: Expr) -> set[str]:
    """The markers an `advance` or `place` names (`me.time`, `pawn`); empty when its expression names none, or
    names anything but markers and the players that own them (a local, a parameter, a value that picks one)."""
    if marker.tree is None:
        return set()
    found = {x for n in c.nodes(marker.tree) for x in _WORDS.get(type(n), _no_words)(n) if isinstance(x, str)}
    named = found & set(rules.markers)
    return named if named and found - named <= {"me"} else set()


def _through_values(rules: Rules, names: set[str]) -> set[str]:
    """The names the values computed by an expression (`cubes_left: count(...) + ...`) among `names` read."""
    out: set[str] = set()
    todo = [n for n in names if n in rules.values]
    while todo:
        v = rules.values[todo.pop()]
        if v.kind != "expr" or v.compiled is None or v.compiled.tree is None:
            continue
        for n in c.nodes(v.compiled.tree):
            for x in _WORDS.get(type(n), _no_words)(n):
                if isinstance(x, str) and x not in out and x not in names:
                    out.add(x)
                    if x in rules.values:
                        todo.append(x)
    return out


def _no_words(_node: Any) -> tuple[Any, ...]:
    return ()


# What a checked node says by name, by its kind: the names it reads (as the linker resolved them: a counter's cell,
# a table, a property), the functions and operators it applies, the symbols it writes, the variables it binds, and
# the cost a `can_pay` asks about (walked as costs are). Every word counts: what may be read is a superset.
_WORDS: dict[type, Callable[[Any], tuple[Any, ...]]] = {
    c.Literal: lambda n: (n.value,) if isinstance(n.value, str) else (),
    c.Name: lambda n: (n.ref.name,),
    c.PieceLit: lambda n: (n.id,),
    c.Attr: lambda n: (n.name,),
    c.Cell: lambda n: (n.counter.name,),
    c.CounterKey: lambda n: (n.counter.name,),
    c.Keys: lambda n: ("keys", getattr(n.counter, "name", None)),
    c.TableRead: lambda n: (n.name,),
    c.Call: lambda n: (n.fn,),
    c.RankBy: lambda n: ("rank_by",),
    c.Comprehension: lambda n: (n.var,),
    c.BinOp: lambda n: (n.op,),
    c.Compare: lambda n: (n.op,),
    c.BoolOp: lambda n: (n.op,),
    c.CanPay: lambda n: (n.cost,),
    c.CanTake: lambda n: (n.action,),
}


def _runs(rules: Rules, x: e.Effect) -> list[Any]:
    """The rules an effect runs elsewhere: a procedure, an action (and the triggers on what its cost pays), the
    triggers of an event, of a turn's end, or of a counter's or a marker's change."""
    watchers = rules.watchers
    counters = [ws for key, ws in watchers.items() if not key.startswith(("zone ", "marker "))]
    if isinstance(x, e.CallE):
        return [rules.procedures.get(x.proc)]
    if isinstance(x, e.TakeE):
        return [rules.actions.get(x.action), *counters]
    if isinstance(x, e.EmitE | e.DeferE):
        return [rules.triggers.get(x.event, [])]
    if isinstance(x, e.EndE):
        return [rules.triggers.get("turn_end", []), rules.flow]
    if isinstance(x, e.SetCounterE | e.PayE):
        return counters
    if isinstance(x, e.AdvanceE | e.PlaceE):
        return [ws for key, ws in watchers.items() if key.startswith("marker ")]
    return []


def _counters(cost: Any) -> set[str | None]:
    """The counters a cost (or a substitute) pays, and None when it pays with a marker."""
    out: set[str | None] = set()
    stack = [cost]
    while stack:
        x = stack.pop()
        if isinstance(x, list | tuple):
            stack.extend(x)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            if getattr(x, "marker", False):
                out.add(None)
            counter = getattr(x, "counter", None)
            if type(counter) is str:
                out.add(counter)
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x)
                         if f.name not in ("span", "counter"))
    return out


def _carried(rules: Rules, counter: str) -> set[str]:
    """The counter and those its overflow carries into."""
    out = {counter}
    c = rules.counters.get(counter)
    while c is not None and c.overflow == "carry" and c.carry_to and c.carry_to not in out:
        out.add(c.carry_to)
        c = rules.counters.get(c.carry_to)
    return out
