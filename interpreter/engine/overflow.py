"""Caps that do more than refuse. A counter above its max keeps the max (discard) or passes the excess to
another counter (carry). A full zone refuses one more piece (E504, the default), discards it (the piece leaves
the game, or is never created), or carries it to another zone (`carry_to`, the same owner's for a per-player
zone).

Only a zone's `capacity` overflows; numbered slots always refuse. A carry goes on to the next zone's own overflow,
and a chain that comes back to a zone it passed refuses as the state's own check does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .frame import Frame
from .runtime import check_known

if TYPE_CHECKING:
    from .services import Services


def counter_value(g: Services, key: str, counter: str, value: int, high: int) -> int:
    """The value a counter keeps above its max (discard or carry), after carrying the excess on."""
    c = g.rules.counters[counter]
    if c.overflow == "carry" and c.carry_to is not None:
        owner, _, rest = key.rpartition(".") if "." in key.split("[", 1)[0] else ("", "", key)
        target = g.rules.counters[c.carry_to]
        cell = (f"{owner}." if target.per == "player" else "") + c.carry_to
        if target.keys is not None and "[" in rest:
            cell += "[" + rest.split("[", 1)[1]
        old = check_known(g.state.counters[cell], Frame(g, None))
        g.set_counter(cell, c.carry_to, old + value - high)
    return high


def destination(g: Services, key: str, pid: str | None) -> str | None:
    """Where a piece sent to zone `key` ends up: a zone key, or None when it is discarded."""
    seen: set[str] = set()
    while True:
        z = g.state.zones[key]
        decl = g.rules.zones.get(key.rsplit(".", 1)[-1])
        full = type(z.capacity) is int and pid not in z.contents and len(z.contents) >= z.capacity
        if decl is None or decl.overflow == "refuse" or not full or key in seen:
            return key
        if decl.overflow == "discard" or decl.carry_to is None:
            return None
        seen.add(key)
        target = g.rules.zones[decl.carry_to]
        key = f"{z.owner}.{target.name}" if target.per == "player" and z.owner else target.name
