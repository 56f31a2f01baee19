"""Where a trigger's `on:` is written and the mark it watches for: shared by the checks of counters, markers and
zones (thresholds.py, zone_watch.py)."""

from __future__ import annotations

from typing import Any

from ..diagnostics import Span
from ..engine.rules import WatchDef
from ..language import checked as c
from ..language.checked import Expr


def on_span(w: WatchDef, key: str) -> Span:
    """Where a watcher's `on:` key (or `on:` itself) is written, as the linker kept it."""
    return w.on_spans.get(key) or w.on_spans.get("on") or w.span


def threshold(expr: Expr, consts: dict[str, Any]) -> int | None:
    """A `crosses:` mark written as a number, or a value fixed before play (as the checker resolved the name);
    None for anything else."""
    tree = expr.tree
    if isinstance(tree, c.Literal) and type(tree.value) is int:
        return tree.value
    found = consts.get(tree.ref.name) if isinstance(tree, c.Name) and tree.ref.kind in ("const", "value") else None
    return found if type(found) is int else None
