"""Where a trigger's `on:` is written and the mark it watches for: shared by the checks of counters, markers and
zones (thresholds.py, zone_watch.py)."""

from __future__ import annotations

from typing import Any

from ..diagnostics import Span
from ..engine.rules import WatchDef
from ..language import checked as c
from ..language.checked import Expr
from .facts import Facts


def on_span(facts: Facts, w: WatchDef, key: str) -> Span:
    """Where a watcher's `on:` (or one of its keys) is written."""
    for m in facts.modules.values():
        table = m.doc.get("triggers")
        node = table.get(w.name) if isinstance(table, dict) else None
        on = node.get("on") if isinstance(node, dict) else None
        if isinstance(on, dict):
            spans = getattr(on, "value_spans", {})
            return spans.get(key) or getattr(node, "value_spans", {}).get("on", w.span)
    return w.span


def threshold(expr: Expr, consts: dict[str, Any]) -> int | None:
    """A `crosses:` mark written as a number, or a value fixed before play (as the checker resolved the name);
    None for anything else."""
    tree = expr.tree
    if isinstance(tree, c.Literal) and type(tree.value) is int:
        return tree.value
    found = consts.get(tree.ref.name) if isinstance(tree, c.Name) and tree.ref.kind in ("const", "value") else None
    return found if type(found) is int else None
