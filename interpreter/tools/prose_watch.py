"""What a trigger on a counter, a marker or a zone (`on: {change: ...}`) waits for, in words."""

from __future__ import annotations

from ..engine.rules import WatchDef
from ..language import checked as c
from .prose import Speaker, words


def watch_words(watched: str, w: WatchDef, sp: Speaker) -> str:
    kind, _, name = watched.rpartition(" ")
    what = {"zone": f"the number of pieces in {words(name)}", "marker": f"{words(name)}'s space"}.get(kind, words(name))
    down = w.down
    if w.crosses is not None:
        mark = w.crosses.tree
        if kind == "zone" and down and isinstance(mark, c.Literal) and mark.value == 0:
            return f"when {words(name)} becomes empty"
        way = "goes down to {} or less" if down else "reaches {} or more"
        return f"when {what} {way.format(sp.formula(w.crosses))}"
    if w.every is not None:
        return f"each time {what} {'goes down to' if down else 'reaches'} a multiple of {sp.formula(w.every)}"
    return f"whenever {what} changes"
