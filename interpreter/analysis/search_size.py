"""Actions too large for the legal-move search (W521).

A move is listed only when a dry run proves it can finish, so in the worst case (no way finishes) the search
tries every combination of the action's parameter values and every answer of every choice inside it. When the
product of the sizes known before play (literal ranges and lists; a `repeat` with a literal count multiplies the
choices inside it) is beyond the search's work budget, listing the legal moves will stop with E513 at run time:
say so now. Sizes that depend on the state (a zone, a counter) are not counted, so the warning is never raised
on a guess.
"""

from __future__ import annotations

import math
from typing import Any

from ..diagnostics import Diagnostics, Span
from ..engine.budget import DEFAULT_LIMITS, SEARCH_WORK
from ..language import syntax as s
from ..language.effect_builder import Text
from ..language.parser import ParseError, parse
from .facts import Facts
from .walk import subnodes

BUDGET = SEARCH_WORK * DEFAULT_LIMITS.work  # units of work one listing may spend
NESTED = ("do", "then", "else", "may")


def check(facts: Facts, diags: Diagnostics) -> None:
    players = facts.rules.players_max
    for module in facts.modules.values():
        actions = module.doc.get("actions")
        if not isinstance(actions, dict):
            continue
        spans = getattr(actions, "key_spans", {})
        for name, spec in actions.items():
            if not isinstance(spec, dict):
                continue
            span = spans.get(name, module.span)
            moves = _moves(spec.get("params"), span, players)
            answers, widest = _answers(spec.get("do"), span, 1)
            # each way through is at least one dry run that lists the answers of a choice
            if moves + answers + math.log10(1 + widest) > math.log10(BUDGET):
                diags.warning(
                    "W521", f"'{name}' has about {_power(moves)} parameter combinations and about {_power(answers)} "
                    f"ways through its choices: proving which of its moves are legal can need more than the "
                    f"search's {BUDGET:,} units of work, and listing the legal moves would stop with E513", span,
                    "narrow the parameters' domains (`in:`) or the choices inside the action")


def _moves(params: Any, span: Span, players: int) -> float:
    """log10 of the number of parameter combinations known before play."""
    if not isinstance(params, dict):
        return 0.0
    total = 0.0
    for spec in params.values():
        if not isinstance(spec, dict):
            continue
        size = _size(_parse(spec.get("in"), span, "expr")) if "in" in spec else None
        if size is None:
            size = {"bool": 2, "player": players}.get(str(spec.get("type")))
        total += math.log10(size) if size else 0.0
    return total


def _answers(body: Any, span: Span, times: float) -> tuple[float, int]:
    """log10 of the number of ways through the choices of a body, each `repeat` multiplying what it holds, and
    the size of its widest choice."""
    if isinstance(body, str):
        node = _parse(body, span, "effect")
        out, widest = 0.0, 0
        for n in subnodes(node) if node is not None else ():
            if isinstance(n, s.Choose):
                size = _size(n.options)
                if size:
                    out += times * math.log10(size)
                    widest = max(widest, size)
        return out, widest
    parts: list[tuple[float, int]] = []
    if isinstance(body, list):
        parts = [_answers(item, span, times) for item in body]
    elif isinstance(body, dict):
        count = body.get("repeat")
        if count is not None:
            repeat = count if type(count) is int else _literal(_parse(count, span, "expr"))
            times = times * repeat if repeat is not None and repeat > 0 else times
        parts = [_answers(body[key], span, times) for key in NESTED if key in body]
        for key in ("options", "cases"):
            if isinstance(body.get(key), dict):
                branches = [_answers(v, span, times) for v in body[key].values()]
                parts.append((max((b[0] for b in branches), default=0.0), max((b[1] for b in branches), default=0)))
    return sum(p[0] for p in parts), max((p[1] for p in parts), default=0)


def _parse(raw: Any, span: Span, start: str) -> s.Node | None:
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        return None
    try:
        return parse(Text(raw, span).text, start)
    except ParseError:
        return None


def _literal(node: s.Node | None) -> int | None:
    if isinstance(node, s.Literal) and type(node.value) is int:
        return node.value
    return None


def _size(node: s.Node | None) -> int | None:
    """How many values a literal range or list has; None when it depends on the game."""
    if isinstance(node, s.Range):
        low, high = _literal(node.low), _literal(node.high)
        return max(high - low + 1, 0) if low is not None and high is not None else None
    if isinstance(node, s.ListLit):
        return len(node.items)
    return None


def _power(log10: float) -> str:
    return f"{10 ** log10:,.0f}" if log10 < 7 else f"10^{log10:.0f}"
