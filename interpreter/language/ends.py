"""When the game ends once the flow's `end.when` holds (`end: {when: ..., after: this_round}`).

The same times as the statement `end game [now | after this turn | after this round | after next round]`
(effect_builder.END_TIMES); the engine's side is engine/ending.py.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostics, Span
from ..engine.values import shown
from .ynodes import value_span

AFTER = {"this_turn": "turn", "this_round": "round", "next_round": "next_round"}


def end_after(end: dict, span: Span, diags: Diagnostics) -> str | None:
    """The flow end's `after:` as EndE.at spells it (None: the game ends as soon as `when` holds)."""
    if "after" not in end:
        return None
    raw: Any = end["after"]
    where = value_span(end, "after", span)
    if str(raw) not in AFTER:
        diags.error("E201", f"end.after is one of {', '.join(AFTER)}, not {shown(raw)}", where,
                    "leave it out to end the game as soon as end.when holds")
        return None
    if "when" not in end:
        diags.error("E422", f"end.after: {raw} says when the game ends once end.when holds, and there is no when",
                    where, "add when: CONDITION, or use `end game after ...` in the rule that ends the game")
        return None
    return AFTER[str(raw)]
