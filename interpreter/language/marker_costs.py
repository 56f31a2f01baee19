"""Cost terms that move a track marker: `2 time`, with `time` a marker, is paid by moving it 2 spaces.

The marker is the payer's when each player has one (`per: player`), else the shared one; it moves the way its
track's `spend` says (back toward space 1 by default, or forward). Paying is `Machine.spend_marker`, and whether
it fits is `Machine.marker_room`: a straight track's end makes the payment impossible, a circular one wraps.
"""

from __future__ import annotations

from ..diagnostics import did_you_mean
from ..engine.rules import Rules
from . import syntax as s
from .compile_error import CompileError

# Declarations a cost term may name by mistake, with the words for them.
_NOT_PAYABLE = (("tracks", "a track"), ("zones", "a zone"), ("values", "a value"), ("dice", "a die"),
                ("sets", "a set"), ("kinds", "a kind of piece"))


def marker_term(rules: Rules, term: s.CostTerm) -> str | CompileError:
    """For a cost term that names no counter: `player` or `game` (whose marker it moves), or the error to report."""
    name = term.counter
    if name in rules.markers:
        if term.key is not None:
            return CompileError("E426", f"'{name}' is a track marker: it has no keys, so '[{term.key}]' does not "
                                "apply", term.pos, f"write '{name}' alone: the marker moves by the amount")
        return "player" if name in rules.player_markers else "game"
    for section, words in _NOT_PAYABLE:
        if name in getattr(rules, section):
            hint = None
            if section == "tracks":
                markers = [m for m, track in rules.markers.items() if track == name]
                hint = f"pay with a marker on it: {', '.join(markers)}" if markers else "give the track a marker"
            return CompileError("E426", f"'{name}' is {words}: a cost pays a counter or moves a track marker",
                                term.pos, hint)
    return CompileError("E401", f"unknown counter '{name}'", term.pos,
                        did_you_mean(name, [*rules.counters, *rules.markers]))
