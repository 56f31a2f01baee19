"""The triggers that watch a counter or a marker change (`on: {change: ...}`)."""

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

    def marks(step: int | None, mark: int | None, down: bool) -> list[int]:
        if down:  # reached going down: new <= m < old
            if step is not None:
                return list(range(-(-old // step) * step - step, new - 1, -step))[:_MAX_MARKS]
            return [mark] if mark is not None and new <= mark < old else []
        if step is not None:  # reached going up: old < m <= new
            return list(range((old // step + 1) * step, new + 1, step))[:_MAX_MARKS]
        return [mark] if mark is not None and old < mark <= new else []

    _run(g, g.rules.watchers[counter], owner, variables, marks)


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
