"""What each number a flow condition reads can be, for trying conditions at test points (points.py).

A number is named as points.var_key names it: `round_number`, `player_count`, a game counter `market`, the acting
player's `me.coins`, a cell of a keyed counter `stock[wine]` / `me.crop[apple]`, a marker's space
`position(sun)` / `position(me.runner)`, and how many pieces a zone holds `count(market)` / `count(me.hand)`.

- `declared`: each number over its whole declared range (a counter's min and max, per key when the key has its
  own; a track's spaces; 0 to a zone's capacity);
- `reachable`: narrowed by the way the rules move it: a counter no rule lowers stays at or above where it starts,
  a marker on a straight track that is only advanced stays at or after its starting space, a marker nothing
  moves stays where it starts;
- `at_start`: what each is once setup is done, before the first phase: a counter or marker setup does not move is
  at its start (the round is 1); a zone keeps its whole range (pieces may start in it).

A name whose range is not known (a value left unknown, a counter set from outside by `input: true` or an option)
is left out, so conditions reading it are not judged.
"""

from __future__ import annotations

from typing import Any

from ..engine import effects as e
from ..engine.rules import CounterDecl, Rules
from ..language import checked as ck
from .facts import Facts
from .points import INF, Domain
from .ranges import Ranges
from .tree import Linked, step, walk


def _bound(ranges: Ranges, raw: Any, pick: Any, default: float) -> float | None:
    if raw is None:
        return default
    found = ranges.resolve(raw)
    return pick(found.values()) if found else None


def _cell(ranges: Ranges, c: CounterDecl, key: str | None) -> Domain | None:
    low_raw, high_raw = c.limits_of(key)
    low = _bound(ranges, low_raw, min, -INF)
    high = _bound(ranges, high_raw, max, INF)
    return None if low is None or high is None else (low, high)


def _start(ranges: Ranges, c: CounterDecl, key: str | None) -> Domain | None:
    raw = c.initial if c.initial is not None else 0
    if isinstance(raw, dict):
        raw = raw.get(key, 0) if key is not None else None
    found = ranges.resolve(raw)
    return (min(found.values()), max(found.values())) if found else None


def _counter_keys(rules: Rules, name: str, c: CounterDecl) -> list[tuple[str, str | None]]:
    """(number name, key) of each cell of a counter a condition can read without a loop."""
    base = name if c.per == "game" else f"me.{name}"
    if c.keys is None:
        return [(base, None)]
    return [(f"{base}[{k}]", k) for k in c.keys]


def declared(rules: Rules, ranges: Ranges) -> dict[str, Domain]:
    out: dict[str, Domain] = {"player_count": (ranges.pmin, ranges.pmax), "turn_number": (1, INF)}
    for name, c in rules.counters.items():
        if name in rules.properties or c.per not in ("game", "player"):
            continue
        for var, key in _counter_keys(rules, name, c):
            cell = _cell(ranges, c, key)
            if cell is not None:
                out[var] = cell
    for marker, track_name in rules.markers.items():
        track = rules.tracks.get(track_name)
        spaces = ranges.resolve(track.spaces) if track is not None else None
        if spaces:
            var = f"position(me.{marker})" if marker in rules.player_markers else f"position({marker})"
            out[var] = (1, max(spaces.values()))
    for name, z in rules.zones.items():
        size = ranges.zone_size(name)
        if z.per in ("game", "player"):
            out[f"count({name})" if z.per == "game" else f"count(me.{name})"] = (0, size)
    return out


def marker_moves(linked: Linked) -> dict[str, set[str]]:
    """Each marker with how rules move it: "up"/"down" by `advance` (by a number written out) or by a cost paid in
    its spaces, "any" by an `advance` whose amount is not known before play (or a cost on a ring), "place" by
    `place`."""
    out: dict[str, set[str]] = {}
    for body in linked.bodies.values():
        for eff in walk(body):
            if not isinstance(eff, e.AdvanceE | e.PlaceE):
                continue
            node = eff.marker.tree
            name = node.ref.name if isinstance(node, ck.Name) else node.name if isinstance(node, ck.Attr) else None
            if name is None:
                return {m: {"any", "place"} for m in linked.rules.markers}  # a marker given by an expression
            if isinstance(eff, e.PlaceE):
                out.setdefault(name, set()).add("place")
                continue
            ways = step("+=", eff.by, linked.consts)
            out.setdefault(name, set()).update(ways if len(ways) == 1 else {"any"} if ways else set())
    # A cost paid in a marker's spaces moves it (back, or forward on a track spent forward).
    rules = linked.rules
    costs = [a.cost for a in rules.actions.values() if a.cost is not None] + list(rules.costs.values())
    costs += [eff.cost for body in linked.bodies.values() for eff in walk(body) if isinstance(eff, e.PayE)]
    terms = [term for cost in costs for alt in cost.alternatives for term in alt]
    terms += [term for sub in rules.substitutes for term in sub.instead]
    for term in terms:
        track = rules.tracks.get(rules.markers.get(term.counter, ""))
        if term.marker and track is not None:  # its track's `spend` way; on a ring, either
            out.setdefault(term.counter, set()).add("any" if track.circular else
                                                    "up" if track.spend == "forward" else "down")
    return out


def _marker_start(rules: Rules, marker: str) -> int | None:
    track = rules.tracks.get(rules.markers.get(marker, ""))
    start = track.markers.get(marker) if track is not None else None
    return start if type(start) is int else None


def reachable(facts: Facts, linked: Linked, ranges: Ranges) -> dict[str, Domain]:
    rules = facts.rules
    moves = linked.counter_moves()
    out = declared(rules, ranges)
    for name, c in rules.counters.items():
        if name in facts.inputs or name in rules.options:
            continue
        ways = moves.get(name, set())
        for var, key in _counter_keys(rules, name, c):
            start = _start(ranges, c, key)
            if var not in out or start is None:
                continue
            low, high = out[var]
            out[var] = (low if "down" in ways else max(low, start[0]), high if "up" in ways else min(high, start[1]))
    markers = marker_moves(linked)
    for marker in rules.markers:
        var = f"position(me.{marker})" if marker in rules.player_markers else f"position({marker})"
        space = _marker_start(rules, marker)
        track = rules.tracks.get(rules.markers[marker])
        if var not in out or space is None or track is None:
            continue
        ways = markers.get(marker, set())
        low, high = out[var]
        if not ways:
            out[var] = (space, space)
        elif ways == {"up"} and not track.circular:
            out[var] = (max(low, space), high)
        elif ways == {"down"} and not track.circular:
            out[var] = (low, min(high, space))
    return out


def at_start(facts: Facts, linked: Linked, ranges: Ranges) -> dict[str, Domain]:
    """Each number once setup is done: setup's own moves are taken from `reachable`."""
    rules = facts.rules
    out = reachable(facts, linked, ranges)
    out["round_number"] = (1, 1)
    out["turn_number"] = (1, 1)
    setup = [x.body for x in rules.setup]
    moved: set[str] = set()
    markers_moved = False
    for body in setup:
        ch = linked.changes(body)
        moved |= set(ch.counters)
        markers_moved = markers_moved or ch.markers
    for name, c in rules.counters.items():
        if name in moved or name in facts.inputs or name in rules.options:
            continue
        for var, key in _counter_keys(rules, name, c):
            start = _start(ranges, c, key)
            if var in out and start is not None:
                out[var] = start
    if not markers_moved:
        for marker in rules.markers:
            var = f"position(me.{marker})" if marker in rules.player_markers else f"position({marker})"
            space = _marker_start(rules, marker)
            if var in out and space is not None:
                out[var] = (space, space)
    return out
