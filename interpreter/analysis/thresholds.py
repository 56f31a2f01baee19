"""Triggers on counters and markers (`on: {change: ...}`) that cannot work (zones: zone_watch.py):

- a `crosses:` threshold the counter can never reach from the side it counts from: beyond its max (going up) or
  at or below its min (going up, it never comes from below), or outside the marker's track; an `every: N` whose
  range holds no multiple of N to reach that way (W857);
- a threshold trigger on a counter that no rule moves the way it counts (up, or `direction: down`) (W858);
- a trigger on a counter's changes that changes the same counter the way it watches, with nothing to stop it: a
  plain `change` without `if:`, or `every:` moved further in its direction. Each run starts the next (E850).
"""

from __future__ import annotations

from ..diagnostics import Diagnostics
from ..engine import effects as e
from ..engine.rules import WatchDef
from ..language import checked as c
from . import zone_watch as zones
from .facts import Facts
from .points import INF, constants
from .ranges import Ranges
from .watch_marks import on_span as _on_span
from .watch_marks import threshold as _threshold


def check(facts: Facts, diags: Diagnostics) -> None:
    rules = facts.rules
    ranges = Ranges(facts)
    consts = constants(rules)
    moves = facts.linked.counter_moves()
    for watched, watchers in rules.watchers.items():
        if watched.startswith("zone "):
            zones.check(facts, ranges, consts, watchers, diags)
        if watched.startswith(("zone ", "marker ")):
            for w in watchers:
                _resizes_itself(facts, w, watched, diags)
        if watched.startswith("zone "):
            continue
        for w in watchers:
            if w.limit:  # runs on what a cap or floor absorbed, which the linker checked can happen
                _reabsorbs(facts, w, diags)
                continue
            marker = watched.startswith("marker ")
            moved = not marker and w.counter not in facts.inputs and w.counter not in rules.options
            if moved and w.crosses is None and w.every is None:
                if not moves.get(w.counter):
                    diags.warning("W858", f"triggers.{w.name} runs when '{w.counter}' changes, but no rule ever "
                                  "changes it, so it never runs", _on_span(w, "change"),
                                  "check the counter it watches")
                    continue
                _retriggers(facts, w, diags)
                continue
            # The way the counter moves first: a threshold counted the wrong way (a `direction:` left out) is
            # often also at the edge of the range from the side it counts from.
            way = "down" if w.down else "up"
            if moved and way not in moves.get(w.counter, set()):
                diags.warning("W858", f"triggers.{w.name} counts '{w.counter}' going {way}, but no rule ever "
                              f"moves it {way}, so it never runs", _on_span(w, "change"),
                              "check the counter it watches and its direction")
                continue
            mark = _threshold(w.crosses, consts) if w.crosses is not None else None
            if mark is not None and _beyond(facts, ranges, w, marker, mark, diags):
                continue
            every = _threshold(w.every, consts) if w.every is not None else None
            if every is not None and every > 0 and marker:
                _every_space(facts, ranges, w, every, diags)
                continue
            if every is not None and every > 0 and _no_multiple(facts, ranges, w, every, diags):
                continue
            if not marker:
                _retriggers(facts, w, diags)


def _beyond(facts: Facts, ranges: Ranges, w: WatchDef, marker: bool, mark: int, diags: Diagnostics) -> bool:
    rules = facts.rules
    where = _on_span(w, "crosses")
    if marker:
        track = rules.tracks.get(rules.markers.get(w.counter, ""))
        spaces = ranges.resolve(track.spaces) if track is not None else None
        if spaces and not 1 <= mark <= max(spaces.values()):
            diags.warning("W857", f"triggers.{w.name} waits for '{w.counter}' to reach space {mark}, but its track "
                          f"'{track.name}' has spaces 1 to {max(spaces.values())}", where,  # type: ignore[union-attr]
                          "check the space number against the track's length")
            return True
        return False
    iv = ranges.counter(w.counter)
    if iv is None:
        return False
    low, high = iv
    if w.down:  # fires going from above the mark to at or below it
        never = mark < low or mark >= high
        words = (f"it never gets below {low:g}" if mark < low else
                 f"it is never above {high:g}, so it never comes down to it")
    else:  # fires going from below the mark to at or above it
        never = mark > high or mark <= low
        words = (f"it never holds more than {high:g}" if mark > high else
                 f"it is never below {low:g}, so it never comes up to it")
    if never:
        diags.warning("W857", f"triggers.{w.name} waits for '{w.counter}' to cross {mark}, but {words}", where,
                      f"check the threshold against counters.{w.counter}'s min and max")
    return never


def _every_space(facts: Facts, ranges: Ranges, w: WatchDef, every: int, diags: Diagnostics) -> None:
    """`every: N` on a marker counts the spaces it enters that are multiples of N: a track shorter than N has
    none."""
    track = facts.rules.tracks.get(facts.rules.markers.get(w.counter, ""))
    spaces = ranges.resolve(track.spaces) if track is not None else None
    if track is not None and spaces and every > max(spaces.values()):
        diags.warning("W857", f"triggers.{w.name} runs on every {every}th space '{w.counter}' enters, but its track "
                      f"'{track.name}' has spaces 1 to {max(spaces.values())}", _on_span(w, "every"),
                      "check every: against the track's length")


def _no_multiple(facts: Facts, ranges: Ranges, w: WatchDef, every: int, diags: Diagnostics) -> bool:
    """`every: N` runs once for each multiple of N the value reaches or passes (going up; going down with
    `direction: down`): none lies in the counter's range from the side it counts from."""
    iv = ranges.counter(w.counter)
    if iv is None:
        return False
    low, high = iv
    if w.down:  # a multiple m with low <= m < high: the value comes down to it from above
        never = high != INF and low != -INF and ((high - 1) // every) * every < low
    else:  # a multiple m with low < m <= high: the value comes up to it from below
        never = high != INF and low != -INF and (low // every + 1) * every > high
    if never:
        diags.warning("W857", f"triggers.{w.name} runs for every {every} '{w.counter}' "
                      f"{'loses' if w.down else 'gains'}, but it stays between {low:g} and {high:g}, which holds "
                      f"no multiple of {every} to {'come down' if w.down else 'come up'} to", _on_span(w, "every"),
                      f"check every: against counters.{w.counter}'s min and max")
    return never


def _resizes_itself(facts: Facts, w: WatchDef, watched: str, diags: Diagnostics) -> None:
    """E850 for a plain change trigger (no threshold, no `if:`) on a marker of a circular track that advances the
    same marker by a number written out, or on a zone without a capacity that creates pieces in it: each run
    starts the next."""
    if w.guard is not None or w.crosses is not None or w.every is not None:
        return
    kind, _, name = watched.partition(" ")
    rules = facts.rules
    for eff in facts.linked.reach(w.body):
        if kind == "marker" and isinstance(eff, e.AdvanceE):
            node = eff.marker.tree
            moved = c.declared(node, "marker") or c.declared(node, "player_marker")
            amount = _threshold(eff.by, {}) if eff.by.tree is not None else None
            track = rules.tracks.get(rules.markers.get(name, ""))
            # On a straight track the marker stops at the end, and a move that enters no space runs nothing.
            again = moved == name and amount not in (None, 0) and track is not None and track.circular
        elif kind == "zone" and isinstance(eff, e.CreateE):
            zone = rules.zones.get(name)
            again = c.declared(eff.zone.tree, "zone") == name and zone is not None and zone.capacity is None \
                and zone.slots is None
        else:
            continue
        if again:
            what = "marker" if kind == "marker" else "zone"
            diags.error("E850", f"triggers.{w.name} runs on every change of {what} '{name}' and changes it itself, "
                        "so each run starts the next", _on_span(w, "change"),
                        "add an if: that stops it, or watch a threshold with crosses:")
            return


def _retriggers(facts: Facts, w: WatchDef, diags: Diagnostics) -> None:
    ways = facts.linked.changes(w.body).counters.get(w.counter, set())
    if w.crosses is not None or not ways:
        return
    if w.every is not None:
        if ("down" if w.down else "up") not in ways:
            return
    elif w.guard is not None:
        return  # its `if:` may stop the chain (a countdown, a cap)
    diags.error("E850", f"triggers.{w.name} runs on every change of '{w.counter}' and changes '{w.counter}' itself, "
                "so each run starts the next", _on_span(w, "change"),
                "add an if: that stops it, change another counter, or watch a threshold with crosses:")


def _reabsorbs(facts: Facts, w: WatchDef, diags: Diagnostics) -> None:
    """A trigger on what a cap absorbed that adds to the capped counter itself (or on a floor, takes from it):
    at the cap every run is absorbed again and starts the next."""
    way = "down" if w.limit == "underflow" else "up"
    if w.guard is not None or way not in facts.linked.changes(w.body).counters.get(w.counter, set()):
        return
    diags.error("E850", f"triggers.{w.name} runs on what the {'floor' if way == 'down' else 'cap'} of '{w.counter}' "
                f"absorbs and moves '{w.counter}' {way} itself, so at the limit each run starts the next",
                _on_span(w, w.limit), "add an if: that stops it, or change another counter")
