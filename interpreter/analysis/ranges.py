"""Range analysis: what numbers can be, from counter ranges, zone capacities and player counts.

- a guard (`if`, `allowed_if`, `require`, ...) comparing numbers that can never hold (W821) or always holds (W822);
- `N x[different]` asking for more keys than the counter has (E823);
- a cost larger than the most its counter can ever hold at some player count (E824);
- limits and capacities that contradict each other (E825): a counter's min above its max, a starting value
  outside its range, a limit of no use at all, creating more pieces than a zone can ever hold;
- a parameter whose domain, a range, is empty at some player count (W869);
- `place` at a space the marker's track never has (E852);
- `take ACTION(v)` with a `v` written out that the parameter's domain never holds (E853).

The guards of an action see its parameters over their domains (`in: "5..8"`), and a trigger's guard its `old`
and `new` over the range of what it watches. Intervals are (low, high) with None for "no bound"; an expression
whose range is not known gives None.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ..diagnostics import Diagnostics, Span
from ..engine import effects as e
from ..engine.rules import ActionDef, Rules
from ..language import checked as c
from .facts import Facts
from .points import at_player_counts, evaluate
from .tree import walk
from .uses import Formula, place

Interval = tuple[float, float]
INF = float("inf")


class Ranges:
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.rules: Rules = facts.rules
        given = [m for m in self.rules.module_info.values() if m.players is not None]
        mins = [_int(m.given("min")) for m in given]
        maxs = [_int(m.given("max")) for m in given]
        self.pmin = min([m for m in mins if m is not None], default=self.rules.players_min)
        self.pmax = max([m for m in maxs if m is not None], default=self.rules.players_max)
        self.counts = range(self.pmin, self.pmax + 1)
        self.params: dict[str, Interval] = {}  # the numbers the rule's parameters range over (their domains)

    def at(self, players: int) -> Ranges:
        """The same ranges in a game of `players` players: a size and a value given per player count then agree."""
        one = copy.copy(self)
        one.pmin = one.pmax = players
        one.counts = range(players, players + 1)
        return one

    # ------------------------------------------------------------ numbers known before play
    def resolve(self, raw: Any) -> dict[int, int] | None:
        """A number or a value name, at each player count of the pack (counts a table leaves out are absent)."""
        if isinstance(raw, bool):
            return None
        if isinstance(raw, int):
            return dict.fromkeys(self.counts, raw)
        v = self.rules.values.get(raw) if isinstance(raw, str) else None
        if v is None:
            return None
        if v.kind == "const" and isinstance(v.data, int) and not isinstance(v.data, bool):
            return dict.fromkeys(self.counts, v.data)
        if v.kind == "by_players" and all(isinstance(x, int) and not isinstance(x, bool) for x in v.data.values()):
            return {n: v.data[n] for n in self.counts if n in v.data}
        return None

    def counter(self, name: str) -> Interval | None:
        c = self.rules.counters.get(name)
        if c is None:
            return None
        low = c.min if c.min is not None else -INF  # `min: null`: no floor
        high = self.resolve(c.max) if c.max is not None else None
        return (low, max(high.values()) if high else INF)

    def zone_size(self, name: str) -> float:
        z = self.rules.zones.get(name)
        if z is None:
            return INF
        sizes: list[float] = []
        if z.capacity is not None:
            cap = self.resolve(z.capacity)
            sizes.append(max(cap.values()) if cap else INF)
        if z.slots is not None:
            slots = self.resolve(z.slots)
            sizes.append(max(slots.values()) * z.slot_capacity if slots else INF)
        return min(sizes, default=INF)

    # ------------------------------------------------------------ expressions
    def of(self, node: c.Node) -> Interval | None:
        """The interval an expression's value lies in, or None when it is not a number known to be bounded."""
        return RANGE_OF[type(node)](self, node)  # every checked kind has its entry (tests/test_dispatch.py)


def _literal(rg: Ranges, node: c.Literal) -> Interval | None:
    v = node.value
    return (v, v) if isinstance(v, int) and not isinstance(v, bool) else None


def _name(rg: Ranges, node: c.Name) -> Interval | None:
    kind, name = node.ref.kind, node.ref.name
    if kind in ("var", "local") and name in rg.params:
        return rg.params[name]
    if kind == "flow" and name == "player_count":
        return (rg.pmin, rg.pmax)
    if kind in ("const", "value"):
        table = rg.resolve(name)
        return (min(table.values()), max(table.values())) if table else None
    c_ = rg.rules.counters.get(name) if kind == "counter" else None
    if c_ is not None and c_.per == "game" and c_.keys is None:
        return rg.counter(name)
    return None


def _attr(rg: Ranges, node: c.Attr) -> Interval | None:
    c_ = rg.rules.counters.get(node.name) if node.kind == "counter" else None
    if c_ is not None and c_.per == "player" and c_.keys is None:
        return rg.counter(node.name)
    return None


def _index(rg: Ranges, node: c.Index) -> Interval | None:
    if node.cell is not None:
        return rg.counter(node.cell.counter.name)
    c_ = rg.rules.counters.get(c.declared(node.obj, "family") or "")
    return rg.counter(c_.name) if c_ is not None and c_.keys is not None else None


def _cell(rg: Ranges, node: c.Cell) -> Interval | None:
    return rg.counter(node.counter.name)


def _table(rg: Ranges, node: c.TableRead) -> Interval | None:
    """A table: between its least and greatest entry."""
    return node.table.number_range() if node.table is not None else None


def _neg(rg: Ranges, node: c.Neg) -> Interval | None:
    inner = rg.of(node.operand)
    return (-inner[1], -inner[0]) if inner else None


def _binop(rg: Ranges, node: c.BinOp) -> Interval | None:
    if node.op not in "+-*":
        return None
    a, b = rg.of(node.left), rg.of(node.right)
    if a is None or b is None:
        return None
    if node.op == "+":
        return (a[0] + b[0], a[1] + b[1])
    if node.op == "-":
        return (a[0] - b[1], a[1] - b[0])
    products = [x * y for x in a for y in b if not ((x == 0 and abs(y) == INF) or (y == 0 and abs(x) == INF))]
    return (min(products), max(products)) if products else None


def _call(rg: Ranges, node: c.Call) -> Interval | None:
    if node.fn == "count" and len(node.args) == 1:
        zone = c.declared(node.args[0], "zone")
        return (0, rg.zone_size(zone)) if zone is not None else (0, INF)
    if node.fn == "position" and len(node.args) == 1:  # a marker's space: 1 to its track's length
        marker = c.declared(node.args[0], "marker") or c.declared(node.args[0], "player_marker")
        track = rg.rules.tracks.get(rg.rules.markers.get(marker or "", ""))
        spaces = rg.resolve(track.spaces) if track is not None else None
        return (1, max(spaces.values())) if spaces else None
    if node.fn in ("min", "max") and len(node.args) > 1:
        parts = [rg.of(a) for a in node.args]
        if any(p is None for p in parts):
            return None
        pick = min if node.fn == "min" else max
        return (pick(p[0] for p in parts), pick(p[1] for p in parts))  # type: ignore[index]
    return None


def _rank(rg: Ranges, node: c.RankBy) -> Interval | None:
    return (1, rg.pmax)


def _unbounded(rg: Ranges, node: c.Node) -> Interval | None:
    return None


# Checked kind -> its interval. A kind whose value is no bounded number (a list, a truth value, a piece, a
# conditional or a range the analysis does not follow, a state key) says so explicitly; tests/test_dispatch.py
# proves every checked kind has an entry.
RANGE_OF: dict[type[c.Node], Callable[[Ranges, Any], Interval | None]] = {
    c.Literal: _literal,
    c.Name: _name,
    c.Attr: _attr,
    c.Index: _index,
    c.Cell: _cell,
    c.TableRead: _table,
    c.Neg: _neg,
    c.BinOp: _binop,
    c.Call: _call,
    c.RankBy: _rank,
    **{kind: _unbounded for kind in (c.PieceLit, c.ListLit, c.Comprehension, c.Compare, c.BoolOp, c.Not,
                                     c.Conditional, c.Range, c.Where, c.SortedBy, c.CanPay, c.CanTake, c.Keys,
                                     c.CounterKey, c.FamilyKey)},
}


def _int(raw: Any) -> int | None:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else None


_NEVER = {"<": lambda a, b: a[0] >= b[1], "<=": lambda a, b: a[0] > b[1], ">": lambda a, b: a[1] <= b[0],
          ">=": lambda a, b: a[1] < b[0], "==": lambda a, b: a[1] < b[0] or b[1] < a[0],
          "!=": lambda a, b: a[0] == a[1] == b[0] == b[1]}
_ALWAYS = {"<": lambda a, b: a[1] < b[0], "<=": lambda a, b: a[1] <= b[0], ">": lambda a, b: a[0] > b[1],
           ">=": lambda a, b: a[0] >= b[1], "==": lambda a, b: a[0] == a[1] == b[0] == b[1],
           "!=": lambda a, b: a[1] < b[0] or b[1] < a[0]}


def _words(iv: Interval) -> str:
    low, high = (int(x) if abs(x) != INF else None for x in iv)
    if low == high:
        return f"always {low}"
    return f"from {low} to {high}" if high is not None else f"at least {low}"


def check(facts: Facts, diags: Diagnostics) -> None:
    ranges = Ranges(facts)
    domains = {f"actions.{name}": _domains(ranges, a, diags) for name, a in facts.rules.actions.items()}
    domains |= _watched(ranges)
    for rule, rolled in _rolled(facts).items():
        domains[rule] = {**rolled, **domains.get(rule, {})}
    for f in facts.index.formulas:
        if f.role == "guard":
            ranges.params = domains.get(f.rule, {})
            for n in f.nodes:
                if isinstance(n, c.Compare) and n.op in _NEVER:
                    _compare(ranges, f, n, diags)
    ranges.params = {}
    for term, span in facts.index.terms:
        _cost(ranges, term, span, diags)
    for _, eff, _ in facts.index.effects:
        if isinstance(eff, e.LimitE):
            count = ranges.of(eff.count.tree) if eff.count.tree is not None else None
            if count is not None and count[1] <= 0:
                said = int(count[1]) if count[0] == count[1] else f"at most {int(count[1])}"
                diags.error("E825", f"limit {eff.name} to {said} allows no use at all", place(eff),
                            "remove the rule, or allow at least 1")
        elif isinstance(eff, e.CreateE):
            _create(ranges, eff, diags)
        elif isinstance(eff, e.PlaceE):
            _place(ranges, eff, diags)
        elif isinstance(eff, e.TakeE):
            _take(ranges, eff, diags)
    _counters(ranges, facts, diags)
    _marker_starts(ranges, diags)


def _written(node: c.Node | None) -> Any:
    """A whole number or a symbol written out; None for anything else."""
    if isinstance(node, c.Literal) and type(node.value) is int:
        return node.value
    if isinstance(node, c.Name) and node.ref.kind == "symbol":
        return node.ref.name
    return None


def _domain_values(ranges: Ranges, node: c.Node | None) -> dict[int, set[Any]] | None:
    """What a domain holds at each player count, when it is written out: a range of constant ends, a list of
    constants, a set's symbols; None otherwise."""
    counts = at_player_counts(ranges.rules, ranges.counts)
    if isinstance(node, c.Range):
        out: dict[int, set[Any]] = {}
        for n, consts in counts.items():
            low, high = evaluate(node.low, {}, consts), evaluate(node.high, {}, consts)
            if type(low) is not int or type(high) is not int:
                return None
            out[n] = set(range(low, high + 1)) if high - low < 10_000 else set()
        return out
    if isinstance(node, c.ListLit):
        items = [_written(x) for x in node.items]
        return None if any(x is None for x in items) else {n: set(items) for n in counts}
    if isinstance(node, c.Name) and node.ref.kind == "set":
        return {n: set(ranges.rules.sets.get(node.ref.name, ())) for n in counts}
    return None


def _take(ranges: Ranges, eff: e.TakeE, diags: Diagnostics) -> None:
    """E853 for `take ACTION(args)` passing a value written out that is not in the parameter's domain at any
    player count: the take always fails with E509."""
    action = ranges.rules.actions.get(eff.action)
    if action is None:
        return
    for (param, _), arg in zip(action.params, eff.args, strict=False):
        value = _written(arg.tree)
        domain = action.domains.get(param)
        held = _domain_values(ranges, domain.tree) if value is not None and domain is not None else None
        if held is not None and held and all(value not in values for values in held.values()):
            diags.error("E853", f"take {eff.action} passes {value} as '{param}', which its domain never holds",
                        place(eff), f"pass one of the values of actions.{eff.action}.params.{param}.in")


def _place(ranges: Ranges, eff: e.PlaceE, diags: Diagnostics) -> None:
    """E852 for `place MARKER at N` where N is never a space of the marker's track (the game would stop with
    E510 there)."""
    marker = c.declared(eff.marker.tree, "marker") or c.declared(eff.marker.tree, "player_marker")
    track = ranges.rules.tracks.get(ranges.rules.markers.get(marker or "", ""))
    spaces = ranges.resolve(track.spaces) if track is not None else None
    at = ranges.of(eff.at.tree) if eff.at.tree is not None else None
    if track is None or not spaces or at is None:
        return
    if at[1] < 1 or at[0] > max(spaces.values()):
        diags.error("E852", f"this places '{marker}' at {_words(at).removeprefix('always ')}, but its track "
                    f"'{track.name}' has spaces 1 to {max(spaces.values())}", place(eff),
                    f"place it on a space of tracks.{track.name}, or give the track more spaces")


def _watched(ranges: Ranges) -> dict[str, dict[str, Interval]]:
    """For each trigger on a counter, marker or zone: the numbers its `old` and `new` range over (the counter's
    range, the track's spaces, the zone's sizes), and `excess` (at least 1) for one on what a limit absorbed."""
    rules = ranges.rules
    out: dict[str, dict[str, Interval]] = {}
    for watched, watchers in rules.watchers.items():
        kind, _, name = watched.rpartition(" ")
        iv: Interval | None
        if kind == "marker":
            track = rules.tracks.get(rules.markers.get(name, ""))
            spaces = ranges.resolve(track.spaces) if track is not None else None
            iv = (1, max(spaces.values())) if spaces else None
        elif kind == "zone":
            iv = (0, ranges.zone_size(name))
        else:
            iv = ranges.counter(name)
        if iv is None:
            continue
        for w in watchers:
            out[f"triggers.{w.name}"] = {"old": iv, "new": iv, **({"excess": (1, INF)} if w.limit else {})}
    return out


def _rolled(facts: Facts) -> dict[str, dict[str, Interval]]:
    """Per rule, the local names only `roll DIE as x` binds there (in every block that binds them), from 1 to the
    most sides of those dice: `if: r == 7` after `roll d6 as r` never holds."""
    sides: dict[str, dict[str, list[int | None]]] = {}
    for rule, eff, _ in facts.index.effects:
        if isinstance(eff, e.RollE | e.ChooseE | e.DrawE | e.ForE):
            name: str | None = eff.var
        else:
            name = eff.name if isinstance(eff, e.LetE) else eff.bind if isinstance(eff, e.CreateE) else None
        if name is not None:
            sides.setdefault(rule, {}).setdefault(name, []).append(eff.sides if isinstance(eff, e.RollE) else None)
    return {rule: {name: (1, max(s for s in ns if s is not None)) for name, ns in names.items() if None not in ns}
            for rule, names in sides.items()}


def _domains(ranges: Ranges, action: ActionDef, diags: Diagnostics) -> dict[str, Interval]:
    """The numbers each parameter of an action ranges over, from a domain written as a range (`1..n`) or a list of
    numbers, for the guards of the action; a parameter the body assigns again is left out. W869 for a domain
    that is empty at some player count."""
    assigned = {x.name for x in walk(action.body) if isinstance(x, e.LetE) and x.op != "let"}
    out: dict[str, Interval] = {}
    for name, fn in action.domains.items():
        tree = fn.tree
        if isinstance(tree, c.Range):
            ends = {n: (evaluate(tree.low, {}, consts), evaluate(tree.high, {}, consts))
                    for n, consts in at_player_counts(ranges.rules, ranges.counts).items()}
            empty = [n for n, (low, high) in ends.items() if type(low) is int and type(high) is int and high < low]
            if empty:
                at = "" if len(empty) == len(ranges.counts) else f" with {', '.join(map(str, empty))} players"
                diags.warning("W869", f"parameter '{name}' of '{action.name}' ranges over no value{at}, so the "
                              "action can never be taken", fn.span(tree, action.span) or action.span,
                              "check the range's ends (a range low..high with high below low is empty)")
                continue
            low, high = ranges.of(tree.low), ranges.of(tree.high)
            iv = (low[0], high[1]) if low is not None and high is not None else None
        elif isinstance(tree, c.ListLit) and tree.items:
            parts = [ranges.of(x) for x in tree.items]
            iv = (min(p[0] for p in parts), max(p[1] for p in parts)) if all(parts) else None  # type: ignore[index]
        else:
            iv = None
        if iv is not None and name not in assigned:
            out[name] = iv
    return out


def _compare(ranges: Ranges, f: Formula, n: c.Compare, diags: Diagnostics) -> None:
    a, b = ranges.of(n.left), ranges.of(n.right)
    if a is None or b is None or (a[0] == a[1] and b[0] == b[1] and isinstance(n.left, c.Literal)
                                  and isinstance(n.right, c.Literal)):
        return
    sides = f"the left side is {_words(a)}, the right side {_words(b)}"
    if _NEVER[n.op](a, b):
        diags.warning("W821", f"this comparison can never hold: {sides}", f.span(n),
                      "check the numbers against the counters' min and max, the zones' capacities and the players")
    elif _ALWAYS[n.op](a, b):
        diags.warning("W822", f"this comparison always holds: {sides}", f.span(n), _CHECKS_NOTHING)
    elif len(ranges.counts) > 1:
        _per_count(ranges, f, n, diags)


def _per_count(ranges: Ranges, f: Formula, n: c.Compare, diags: Diagnostics) -> None:
    """The comparison at each player count alone, where its sides move together (`count(z) <= z_size`, with z's
    capacity z_size a player-count table): what holds at every count, or at none, is reported as above."""
    sides = []
    for players in ranges.counts:
        one = ranges.at(players)
        a, b = one.of(n.left), one.of(n.right)
        if a is None or b is None:
            return
        sides.append((players, a, b))
    players, a, b = sides[0]
    said = f"with {players} players the left side is {_words(a)}, the right side {_words(b)}, and so on"
    if all(_NEVER[n.op](a, b) for _, a, b in sides):
        diags.warning("W821", f"this comparison can never hold at any player count: {said}", f.span(n),
                      "check the numbers against the counters' min and max, the zones' capacities and the players")
    elif all(_ALWAYS[n.op](a, b) for _, a, b in sides):
        diags.warning("W822", f"this comparison always holds at every player count: {said}", f.span(n),
                      _CHECKS_NOTHING)


_CHECKS_NOTHING = "it checks nothing: check the numbers, or remove the condition"


def _cost(ranges: Ranges, term: e.CostTermC, span: Span, diags: Diagnostics) -> None:
    amount = ranges.of(term.amount.tree) if term.amount.tree is not None else None
    c_ = ranges.rules.counters.get(term.counter)
    if amount is not None and amount[0] == amount[1] and term.counter in ranges.rules.markers:
        _marker_cost(ranges, term, span, int(amount[0]), diags)
    if amount is None or c_ is None or amount[0] != amount[1]:
        return
    n = int(amount[0])
    if term.key == "different" and c_.keys is not None and n > len(c_.keys):
        diags.error("E823", f"{n} different keys of '{c_.name}' are asked, but it has only {len(c_.keys)}",
                    span, f"its keys are {', '.join(c_.keys)}")
        return
    if c_.max is None:
        return
    highs = ranges.resolve(c_.max) or {}
    short = sorted(p for p, high in highs.items() if high < n)
    if short:
        at = "" if len(short) == len(highs) else f" with {', '.join(map(str, short))} player(s)"
        diags.error("E824", f"this cost asks {n} {c_.name}, but '{c_.name}' never holds more than "
                    f"{min(highs[p] for p in short)}{at}", span,
                    f"lower the cost, or raise counters.{c_.name}.max")


def _marker_cost(ranges: Ranges, term: e.CostTermC, span: Span, n: int, diags: Diagnostics) -> None:
    """E824 for a cost that moves a marker further than its straight track reaches from any space."""
    track = ranges.rules.tracks.get(ranges.rules.markers[term.counter])
    if track is None or track.circular:
        return
    spaces = ranges.resolve(track.spaces)
    if spaces and n > max(spaces.values()) - 1:
        diags.error("E824", f"this cost moves '{term.counter}' {n} spaces, but its track '{track.name}' has only "
                    f"{max(spaces.values())} spaces, so it can never be paid", span,
                    f"lower the cost, or give tracks.{track.name} more spaces")


def _create(ranges: Ranges, eff: e.CreateE, diags: Diagnostics) -> None:
    count = ranges.of(eff.count.tree) if eff.count is not None and eff.count.tree is not None else \
        (1, 1) if eff.count is None else None
    zone = c.declared(eff.zone.tree, "zone")
    if count is None or zone not in ranges.rules.zones or count[0] != count[1]:
        return
    if getattr(ranges.rules.zones[zone], "overflow", "refuse") != "refuse":  # the rest goes somewhere on purpose
        return
    size = ranges.zone_size(zone)
    if count[0] > size:
        diags.error("E825", f"this creates {int(count[0])} {eff.kind} in '{zone}', which holds at most {int(size)}",
                    place(eff), f"raise zones.{zone}'s capacity or slots, or create fewer")


def _counters(ranges: Ranges, facts: Facts, diags: Diagnostics) -> None:
    for name, decl in facts.decls["counters"].items():
        node = decl.written
        low = _int(node.get("min", 0))
        highs = ranges.resolve(node.get("max")) if node.get("max") is not None else None
        where = node.at("max", decl.span)
        if low is not None and highs and any(h < low for h in highs.values()):
            diags.error("E825", f"counter '{name}' has min {low} above its max {min(highs.values())}", where,
                        "swap them, or lower min")
            continue
        declared = ranges.rules.counters.get(name)
        if declared is not None and (declared.key_limits or isinstance(declared.initial, dict)):
            _per_key(ranges, declared, node, decl.span, diags)
            continue
        initial = ranges.resolve(node.get("initial", 0))
        if not initial or low is None:
            continue
        outside = [v for p, v in initial.items() if v < low or (highs and p in highs and v > highs[p])]
        if outside:
            diags.error("E825", f"counter '{name}' starts at {outside[0]}, outside its range",
                        node.at("initial", decl.span), "change the starting value, min or max")


def _per_key(ranges: Ranges, counter: Any, node: Any, span: Span, diags: Diagnostics) -> None:
    """E825 for a keyed counter whose limits or start are given per key: a key's min above its max, or a key
    starting outside its own range."""
    for key in counter.keys or ():
        low, high = counter.key_limits.get(key, (counter.min, counter.max))
        highs = ranges.resolve(high) if high is not None else None
        if low is not None and highs and any(h < low for h in highs.values()):
            diags.error("E825", f"counter '{counter.name}' has min {low} above its max {min(highs.values())} for "
                        f"{key}", node.at("max", span), "swap them, or lower min")
            return
        raw = counter.initial.get(key, 0) if isinstance(counter.initial, dict) else counter.initial
        start = ranges.resolve(raw if raw is not None else 0)
        outside = [v for p, v in (start or {}).items()
                   if (low is not None and v < low) or (highs and p in highs and v > highs[p])]
        if outside:
            diags.error("E825", f"counter '{counter.name}' starts at {outside[0]} for {key}, outside its range",
                        node.at("initial", span), "change the starting value, min or max")
            return


def _marker_starts(ranges: Ranges, diags: Diagnostics) -> None:
    """E852 for a marker that starts on a space its track does not have (at some player count)."""
    written = {w.name: w for ws in ranges.rules.written.values() for w in ws if w.section == "tracks"}
    for name, track in ranges.rules.tracks.items():
        spaces = ranges.resolve(track.spaces)
        if not spaces:
            continue
        for marker, start in track.markers.items():
            if start < 1 or start > min(spaces.values()):
                where = written[name].at("markers", track.span) if name in written else track.span
                diags.error("E852", f"marker '{marker}' starts on space {start}, but its track '{name}' has spaces "
                            f"1 to {min(spaces.values())}", where,
                            f"start it on a space of tracks.{name}, or give the track more spaces")
