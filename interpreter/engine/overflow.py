"""What a full zone does with one more piece: refuse it (E504, the default), discard it (the piece leaves the
game, or is never created), or carry it to another zone (`carry_to`, the same owner's for a per-player zone).

Only a zone's `capacity` overflows; numbered slots always refuse. A carry goes on to the next zone's own overflow,
and a chain that comes back to a zone it passed refuses as the state's own check does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .machine import Machine


def destination(g: Machine, key: str, pid: str | None) -> str | None:
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
