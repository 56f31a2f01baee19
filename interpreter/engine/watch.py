"""The triggers that watch a counter, a marker or a zone change (`on: {change: ...}`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .interpreter import Frame, run_body
from .runtime import check_known

if TYPE_CHECKING:
    from .machine import Machine as Game

_MAX_MARKS = 1000  # `every` on a huge jump still runs a bounded number of times (the step budget bounds the rest)


def changed(g: Game, counter: str, key: str, old: Any, new: Any) -> None:
    """Run the triggers on a counter's change (and on each mark it reaches or passes going up)."""
    if type(old) is not int or type(new) is not int or old == new or g.quiet_counters:
        return
    head, _, cell_key = key.partition("[")
    owner = g.player(head.split(".", 1)[0]) if "." in head else None
    variables = {"key": cell_key[:-1] if cell_key else None, "old": old, "new": new}
    _run(g, g.rules.watchers[counter], owner, variables, _number_marks(old, new))


def _number_marks(old: int, new: int) -> Any:
    """The marks a number passes from old to new: each multiple of `step`, or the one `mark`, up or down."""

    def marks(step: int | None, mark: int | None, down: bool) -> list[int]:
        if down:  # reached going down: new <= m < old
            if step is not None:
                return list(range(-(-old // step) * step - step, new - 1, -step))[:_MAX_MARKS]
            return [mark] if mark is not None and new <= mark < old else []
        if step is not None:  # reached going up: old < m <= new
            return list(range((old // step + 1) * step, new + 1, step))[:_MAX_MARKS]
        return [mark] if mark is not None and old < mark <= new else []

    return marks


def watched_zones(g: Game) -> tuple[tuple[str, str, str | None], ...]:
    """(state key, declared zone, owner) of every zone a trigger watches: in declaration order, a player's in seat
    order. This is also the order their triggers run in after a statement that changed several."""
    watchers = g.rules.watchers
    out = []
    for name, z in g.rules.zones.items():
        if f"zone {name}" in watchers:
            owners = [p.id for p in g.players] if z.per == "player" else [None]
            out += [(f"{pid}.{name}" if pid else name, name, pid) for pid in owners]
    return tuple(out)


def zone_sizes(g: Game) -> list[int]:
    """The number of pieces in each watched zone, before a statement that moves, creates or removes pieces."""
    zones = g.state.zones
    return [len(zones[key].contents) for key, _, _ in g.zone_watch]


def zones_changed(g: Game, before: list[int]) -> None:
    """After such a statement: the triggers of each watched zone whose number of pieces it changed. A statement is
    one change (a list of pieces, linked pieces, a refill): old is the number before it, new after it. Zones that
    lost pieces come first, then zones that gained them; each group in watched_zones' order."""
    if g.quiet_counters:
        return
    zones = g.state.zones
    changed = [(w, old, len(zones[w[0]].contents)) for w, old in zip(g.zone_watch, before, strict=True)
               if len(zones[w[0]].contents) != old]
    changed.sort(key=lambda c: c[2] > c[1])  # stable: the zones that lost pieces, then the ones that gained
    for (_, name, owner), old, new in changed:
        _run(g, g.rules.watchers[f"zone {name}"], g.player(owner), {"key": None, "old": old, "new": new},
             _number_marks(old, new))


def absorbed(g: Game, limit: str, counter: str, key: str, old: Any, new: int, excess: int) -> None:
    """Run the triggers on what a counter's cap (`overflow`) or floor (`underflow`) absorbed of one change, also when
    the value did not move: `excess` is the amount it absorbed (at least 1)."""
    if g.quiet_counters:
        return
    head, _, cell_key = key.partition("[")
    owner = g.player(head.split(".", 1)[0]) if "." in head else None
    variables = {"key": cell_key[:-1] if cell_key else None, "old": old, "new": new, "excess": excess}
    _run(g, g.rules.watchers[f"{limit} {counter}"], owner, variables, lambda *_: [])


def moved(g: Game, marker: str, old: int, entered: list[int]) -> None:
    """Run the triggers on a marker's move: `crosses`/`every` count the spaces it entered (reached or passed)."""
    name = marker.rsplit(".", 1)[-1]
    watchers = g.rules.watchers.get(f"marker {name}")
    new = g.state.markers[marker].pos
    if not watchers or (old == new and not entered) or g.quiet_counters:
        return
    owner = g.player(marker.split(".", 1)[0]) if "." in marker else None

    def marks(step: int | None, mark: int | None, _down: bool) -> list[int]:
        if step is not None:
            return [space for space in entered if space % step == 0]
        return [mark] if mark in entered else []

    _run(g, watchers, owner, {"key": None, "old": old, "new": new}, marks)


def _run(g: Game, watchers: list[Any], owner: Any, variables: dict[str, Any], marks: Any) -> None:
    for w in watchers:
        g.enter(f"triggers.{w.name}", w.span)
        try:
            g.state.cause = w.span
            f = Frame(g, owner, dict(variables))
            found: list[int | None] = [None]
            if w.crosses is not None:
                mark = check_known(w.crosses.fn(f), f)
                found = list(marks(None, mark if type(mark) is int else None, w.down))
            elif w.every is not None:
                step = check_known(w.every.fn(f), f)
                found = list(marks(step, None, w.down)) if type(step) is int and step > 0 else []
            for mark in found:
                if mark is not None:
                    f.vars["mark"] = mark
                if w.guard is None or check_known(w.guard.fn(f), f):
                    run_body(w.body, f)
        finally:
            g.leave()
