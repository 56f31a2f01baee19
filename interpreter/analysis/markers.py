"""Triggers on a marker (`on: {change: MARKER}`) that can never run given how the rules move it (W866):

- no rule advances or places the marker;
- a threshold (`crosses:`, `every:`) on a marker no rule advances: thresholds count the spaces an `advance`
  enters, and `place` passes none;
- on a straight track, a `crosses:` mark at or before the marker's starting space when it only moves forward: it
  is never below the mark, so it never comes up to it.

The marker's own range (a mark off its track) is W857 (thresholds.py).
"""

from __future__ import annotations

from ..diagnostics import Diagnostics
from ..engine.rules import WatchDef
from .domains import marker_moves
from .facts import Facts
from .points import constants
from .watch_marks import on_span, threshold


def check(facts: Facts, diags: Diagnostics) -> None:
    rules = facts.rules
    moves = marker_moves(facts.linked)
    consts = constants(rules)
    for watched, watchers in rules.watchers.items():
        if not watched.startswith("marker "):
            continue
        marker = watched.removeprefix("marker ")
        ways = moves.get(marker, set())
        for w in watchers:
            said = _never(facts, w, marker, ways, consts)
            if said is not None:
                diags.warning("W866", f"triggers.{w.name} {said}, so it never runs", on_span(w, "change"),
                              "check how the rules move the marker (advance by a positive number goes forward; "
                              "place passes no space), or watch another")


def _never(facts: Facts, w: WatchDef, marker: str, ways: set[str], consts: dict) -> str | None:
    if not ways:
        return f"runs when marker '{marker}' moves, but no rule advances or places it"
    if w.crosses is None and w.every is None:
        return None
    advanced = ways - {"place"}
    if not advanced:
        return f"counts the spaces marker '{marker}' passes, but rules only place it (place passes no space)"
    if "any" in advanced:
        return None
    rules = facts.rules
    track = rules.tracks.get(rules.markers.get(marker, ""))
    mark = threshold(w.crosses, consts) if w.crosses is not None else None
    start = track.markers.get(marker) if track is not None else None
    if (mark is not None and type(start) is int and track is not None and not track.circular and "place" not in ways
            and advanced == {"up"} and mark <= start):
        return (f"waits for marker '{marker}' to reach space {mark}, but it starts on space {start} and only moves "
                "forward on a straight track")
    return None
