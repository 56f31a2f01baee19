"""Triggers on a zone's number of pieces (`on: {change: ZONE}`) that cannot work:

- a `crosses:` mark the zone's size can never reach from the side it counts from: above its capacity, or (going
  up) at or below 0 (W857, as for a counter);
- a trigger counting pieces coming in on a zone no rule fills, or pieces going out of a zone no rule ever takes a
  piece out of (W865): no `move`, `remove` or `refill ... from` whose pieces may come from it (tree.Linked.emptied:
  `first(pile)`, a piece chosen from a zone, or one that may have been moved since; a piece given any other way
  may come from any zone).
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostics
from ..engine.rules import WatchDef
from .facts import Facts
from .ranges import INF, Ranges
from .watch_marks import on_span as _on_span
from .watch_marks import threshold as _threshold


def check(facts: Facts, ranges: Ranges, consts: dict[str, Any], watchers: list[WatchDef], diags: Diagnostics) -> None:
    for w in watchers:
        zone = w.counter
        size = ranges.zone_size(zone)
        mark = _threshold(w.crosses, consts) if w.crosses is not None else None
        if mark is not None:
            never = (mark < 0 or mark >= size) if w.down else (mark <= 0 or mark > size)
            if never:
                words = f"it holds at most {size:g} pieces" if size != INF and mark >= size else \
                    "a zone never holds fewer than 0 pieces"
                diags.warning("W857", f"triggers.{w.name} waits for the number of pieces in '{zone}' to cross "
                              f"{mark}, but {words}", _on_span(w, "crosses"),
                              f"check the threshold against zones.{zone}'s capacity")
                continue
        if zone in facts.inputs:
            continue
        emptied = facts.linked.emptied
        ins, outs = fills(facts, zone), emptied is None or zone in emptied
        plain = w.crosses is None and w.every is None
        if plain and not ins and not outs:
            way = "no rule puts a piece in it or takes one out"
        elif not plain and not w.down and not ins:
            way = "no rule puts a piece in it (move ... to, create ... in, refill)"
        elif not plain and w.down and not outs:
            way = "no rule takes a piece out of it (move, remove, refill ... from)"
        else:
            continue
        diags.warning("W865", f"triggers.{w.name} watches the pieces in zone '{zone}', but {way}, so it never runs",
                      _on_span(w, "change"), "check the zone it watches and its direction")


def fills(facts: Facts, zone: str) -> bool:
    """Whether some rule puts pieces in the zone: names it as a move's, create's or refill's target, or another
    zone carries its overflow there."""
    if facts.used(zone, "fill"):
        return True
    return any(z.overflow == "carry" and z.carry_to == zone for z in facts.rules.zones.values())
