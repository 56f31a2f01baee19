"""What the linked rules read and write outside rule bodies: the ranking, invariants, the bot's score, counter
thresholds (`crosses:`, `every:`), overflow targets, and the value names that sizes and ranges are given by.

These come from the linked `Rules` (after `extend`, with each formula as the linker checked it), not from the YAML:
a capacity an extension gives a zone, or a counter's `carry_to`, is exactly what the game uses.
"""

from __future__ import annotations

from ..diagnostics import Span
from ..engine.rules import Rules
from ..language.checked import Expr
from ..language.effect_builder import Text
from .uses import Ref
from .walk import Site


def _site(rule: str, expr: Expr, text: object, span: Span, role: str = "expr") -> Site | None:
    """A site for a formula the linker checked."""
    if expr.tree is None:
        return None
    return Site("", rule, expr.tree.syntax, Text(text, span), role, False)


def sites(rules: Rules) -> list[Site]:
    """The formulas of the linked rules that no rule body holds."""
    out: list[Site | None] = []
    if rules.flow is not None:
        out += [_site("flow.ranking", fn, text, rules.flow.span) for fn, text in rules.flow.ranking]
    out += [_site(f"invariants.{inv.name}", inv.check, inv.text, inv.span) for inv in rules.invariants]
    if rules.bot_score is not None:
        out.append(_site("bot_score", rules.bot_score, "", Span("", 1, 1)))
    for watchers in rules.watchers.values():
        for w in watchers:
            for fn in (w.crosses, w.every):
                if fn is not None:
                    out.append(_site(f"triggers.{w.name}", fn, "", w.span))
    return [site for site in out if site is not None]


def declaration_refs(rules: Rules) -> list[Ref]:
    """Names the declarations themselves use: a counter's starting value, range and keys; a zone's size; a track's
    length (each may name a value or a set); where an overflow goes (it writes there); what a trigger watches."""
    out: list[Ref] = []

    def use(kind: str, raw: object, section: str | None = None) -> None:
        if isinstance(raw, str):
            out.append(Ref(kind, raw, None, section))

    for c in rules.counters.values():
        for raw in (c.initial, c.max, c.min):
            use("read", raw)
        if c.overflow == "carry":
            use("write", c.carry_to, "counters")
            use("increase", c.carry_to, "counters")
    for z in rules.zones.values():
        use("read", z.capacity)
        use("read", z.slots)
        if z.overflow == "carry":
            use("fill", z.carry_to)
    for t in rules.tracks.values():
        use("read", t.spaces)
    for watched in rules.watchers:
        name = watched.rpartition(" ")[2]  # "marker m", "zone z", "overflow c", "underflow c"
        use("read", name, "counters" if name in rules.counters else None)
    return out
