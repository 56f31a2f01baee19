"""What a trigger on a counter, a marker or a zone (`on: {change: ...}`) waits for, in words."""

from __future__ import annotations

from typing import Any

from ..engine.rules import WatchDef
from .prose import Speaker, words


def watch_words(watched: str, w: WatchDef, on: dict, sp: Speaker) -> str:
    kind, _, name = watched.rpartition(" ")
    what = {"zone": f"the number of pieces in {words(name)}", "marker": f"{words(name)}'s space"}.get(kind, words(name))
    down = w.down
    if "crosses" in on:
        mark: Any = on["crosses"]
        if kind == "zone" and down and str(mark) == "0":
            return f"when {words(name)} becomes empty"
        way = "goes down to {} or less" if down else "reaches {} or more"
        return f"when {what} {way.format(sp.text(mark))}"
    if "every" in on:
        return f"each time {what} {'goes down to' if down else 'reaches'} a multiple of {sp.text(on['every'])}"
    return f"whenever {what} changes"
