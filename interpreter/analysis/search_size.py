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

from ..diagnostics import Diagnostics
from ..engine import effects as e
from ..engine.budget import DEFAULT_LIMITS, SEARCH_WORK
from ..engine.rules import ActionDef
from ..language import checked as c
from .facts import Facts
from .tree import CHILDREN

BUDGET = SEARCH_WORK * DEFAULT_LIMITS.work  # units of work one listing may spend


def check(facts: Facts, diags: Diagnostics) -> None:
    players = facts.rules.players_max
    for name, action in facts.rules.actions.items():
        moves = _moves(action, players)
        answers, widest = _answers(action.body, 1)
        # each way through is at least one dry run that lists the answers of a choice
        if moves + answers + math.log10(1 + widest) > math.log10(BUDGET):
            diags.warning(
                "W521", f"'{name}' has about {_power(moves)} parameter combinations and about {_power(answers)} "
                f"ways through its choices: proving which of its moves are legal can need more than the "
                f"search's {BUDGET:,} units of work, and listing the legal moves would stop with E513",
                action.span, "narrow the parameters' domains (`in:`) or the choices inside the action")


def _moves(action: ActionDef, players: int) -> float:
    """log10 of the number of parameter combinations known before play."""
    total = 0.0
    for param, type_ in action.params:
        domain = action.domains.get(param)
        size = _size(domain.tree) if domain is not None else None
        if size is None:
            size = {"bool": 2, "player": players}.get(type_)
        total += math.log10(size) if size else 0.0
    return total


def _answers(body: e.Body, times: float) -> tuple[float, int]:
    """log10 of the number of ways through the choices of a body, each `repeat` multiplying what it holds, and
    the size of its widest choice."""
    out, widest = 0.0, 0
    for eff in body:
        parts: list[tuple[float, int]] = []
        if isinstance(eff, e.ChooseE):
            size = _size(eff.options.tree)
            if size:
                parts.append((times * math.log10(size), size))
        elif isinstance(eff, e.MatchE | e.OneOfE):  # one branch runs
            branches = [_answers(b, times) for b in CHILDREN[type(eff)](eff)]
            parts.append((max((b[0] for b in branches), default=0.0), max((b[1] for b in branches), default=0)))
        elif type(eff) in CHILDREN:
            inner = times
            if isinstance(eff, e.RepeatE):
                repeat = _literal(eff.count.tree)
                inner = times * repeat if repeat is not None and repeat > 0 else times
            parts += [_answers(b, inner) for b in CHILDREN[type(eff)](eff)]
        out += sum(p[0] for p in parts)
        widest = max([widest, *(p[1] for p in parts)])
    return out, widest


def _literal(node: c.Node | None) -> int | None:
    if isinstance(node, c.Literal) and type(node.value) is int:
        return node.value
    return None


def _size(node: c.Node | None) -> int | None:
    """How many values a literal range or list has; None when it depends on the game."""
    if isinstance(node, c.Range):
        low, high = _literal(node.low), _literal(node.high)
        return max(high - low + 1, 0) if low is not None and high is not None else None
    if isinstance(node, c.ListLit):
        return len(node.items)
    return None


def _power(log10: float) -> str:
    return f"{10 ** log10:,.0f}" if log10 < 7 else f"10^{log10:.0f}"
