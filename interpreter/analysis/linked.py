"""What the linked declarations name outside any formula: a counter's start and range, a zone's size, a track's
length (a value's name), where an overflow goes, and what a trigger watches.

These come from the linked `Rules` (after `extend`, with each formula as the linker checked it), not from the YAML:
a capacity an extension gives a zone, or a counter's `carry_to`, is exactly what the game uses.
"""

from __future__ import annotations

from ..engine.rules import Rules
from .uses import Ref


def declaration_refs(rules: Rules) -> list[Ref]:
    """Names the declarations themselves use: a counter's starting value, range and keys; a zone's size; a track's
    length (each may name a value or a set); where an overflow goes (it writes there); what a trigger watches."""
    out: list[Ref] = []

    def use(kind: str, raw: object, section: str | None = None) -> None:
        if isinstance(raw, str):
            out.append(Ref(kind, raw, None, section))

    for c in rules.counters.values():
        for raw in (c.initial, c.max, c.min):
            use("read", raw)
        for raw in (*(c.initial.values() if isinstance(c.initial, dict) else ()),
                    *(x for limits in c.key_limits.values() for x in limits)):
            use("read", raw)  # a key's own start or cap, named by a value
        if c.overflow == "carry":
            use("write", c.carry_to, "counters")
            use("increase", c.carry_to, "counters")
    for z in rules.zones.values():
        use("read", z.capacity)
        use("read", z.slots)
        if z.overflow == "carry":
            use("fill", z.carry_to)
    for t in rules.tracks.values():
        use("read", t.spaces)
    for watched in rules.watchers:
        name = watched.rpartition(" ")[2]  # "marker m", "zone z", "overflow c", "underflow c"
        use("read", name, "counters" if name in rules.counters else None)
    return out
