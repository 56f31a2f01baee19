"""The game's course as a whole (for rules with a `flow:`):

- an action a player can take that no phase offers and no rule takes (W852);
- a phase whose `if:` never holds in a round the game can reach (W853);
- an action whose guard contradicts the guard of every phase that offers it (W854);
- an end condition that can never hold, or that holds before the first round (W855);
- a ranking key that reads only what no rule ever changes (W856);
- scoring rules that never run, because no rule says `score` (W870).

Conditions are judged by trying them at test points (points.py) over what the linked rules let each number be
(domains.py): the rounds before the end, the player counts, counters (keyed ones cell by cell), markers' spaces
and zones' sizes, narrowed to the directions rules move them; `and`, `or` and `not` combine them.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostics, Span
from ..engine import effects as e
from ..engine.rules import PhaseDef
from ..language import checked as c
from ..language.checked import Expr
from . import domains
from .facts import Facts
from .points import INF, Domain, constants, negation, satisfiable, var_key
from .ranges import Ranges
from .tree import Linked, every_effect, walk
from .zone_watch import fills

MAX_ROUNDS = 10_000


def check(facts: Facts, diags: Diagnostics) -> None:
    rules = facts.rules
    flow = rules.flow
    if flow is None:
        return
    linked = facts.linked
    consts = constants(rules)
    ranges = Ranges(facts)
    reach = {**domains.reachable(facts, linked, ranges), "round_number": (1, INF)}
    last = _last_round(flow.end_when, consts)
    end = flow.end_when.tree if flow.end_when is not None else None
    if end is not None and (last == 1 or _always(end, domains.at_start(facts, linked, ranges), consts)):
        diags.warning("W855", "the game ends as soon as it starts: the end condition already holds once setup is "
                      "done, so no phase ever runs", _at(flow.end_when, flow.span), "check the end condition's "
                      "numbers against where the counters, markers and the round start")
        return
    elif _never(end, reach, consts):
        diags.warning("W855", "the end condition can never hold, so the game never ends by it",
                      _at(flow.end_when, flow.span), "check which way the rules move the counters and markers it "
                      "reads (they start where they are declared to), or end the game with 'end game'")
    rounds: Domain = (1, last if last is not None else INF)
    # What the rules let each number be (counters narrowed to the ways rules move them), in the rounds played.
    declared = {**reach, "round_number": rounds}
    offered: set[str] = set()
    for i, phase in enumerate(flow.phases):
        offered.update(phase.actions)
        guard = phase.guard.tree if phase.guard is not None else None
        if guard is not None and satisfiable([guard], declared, consts) is False:
            diags.warning("W853", f"phase '{phase.name}' never runs: its condition holds in no round the game "
                          f"reaches{_before(last)}", _at(phase.guard, phase.span),
                          "check the condition against the end condition and the counters' ranges")
            continue
        if guard is not None and end is not None and _after_end(flow.phases, i, flow.end_after) and \
                satisfiable([guard, negation(end)], declared, consts) is False:
            diags.warning("W853", f"phase '{phase.name}' never runs: its condition holds only when the end "
                          "condition does, and the game ends before the phase begins", _at(phase.guard, phase.span),
                          "check the condition against the end condition")
            continue
        _actions_against(facts, phase, guard, declared, consts, diags)
    _unoffered(facts, linked, offered, diags)
    _ranking(facts, linked, diags)
    _unscored(facts, linked, diags)


def _unscored(facts: Facts, linked: Linked, diags: Diagnostics) -> None:
    """W870 for scoring rules when no rule of the game says `score` (the flow's `end.do` usually does)."""
    if any(isinstance(x, e.ScoreE) for body in linked.bodies.values() for x in every_effect(body)):
        return
    for rule in facts.rules.scoring:
        diags.warning("W870", f"scoring rule '{rule.name}' never runs: no rule of the game says score", rule.span,
                      "add score to the flow's end.do (or to the rule that ends the game)")


def _after_end(phases: list[PhaseDef], i: int, end_after: str | None) -> bool:
    """Whether the end condition is checked on the state a phase's `if:` sees: between phases, when the game ends
    at once (no `after:`), for a phase other than a round's first (the first begins before the end is checked)
    whose previous phase has no `after` steps (they run between the check and the `if:`)."""
    return end_after is None and i > 0 and not phases[i - 1].after


def _before(last: int | None) -> str:
    return f" (the game ends by round {last})" if last is not None else ""


def _at(expr: Expr | None, fallback: Span) -> Span:
    """Where a condition is written."""
    return (expr.span(fallback=fallback) if expr is not None else None) or fallback


def _never(node: c.Node | None, where: dict[str, Domain], consts: dict[str, Any]) -> bool:
    return node is not None and satisfiable([node], where, consts) is False


def _always(node: c.Node, where: dict[str, Domain], consts: dict[str, Any]) -> bool:
    """Whether the condition holds at every point: its negation holds at none."""
    return satisfiable([negation(node)], where, consts) is False


def _last_round(end: Any, consts: dict[str, Any]) -> int | None:
    """The first round in which the end condition certainly holds, from its parts (joined by `or`) that read only
    the round number; None when none does."""
    node = end.tree if end is not None else None
    if node is None:
        return None
    parts: list[c.Node] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, c.BoolOp) and n.op == "or":
            stack += [n.left, n.right]
        else:
            parts.append(n)
    found = None
    for part in parts:
        names = {var_key(n) for n in c.nodes(part)} - {None} - set(consts)
        if names != {"round_number"}:
            continue
        for r in range(1, MAX_ROUNDS):
            if satisfiable([part], {"round_number": (r, r)}, consts):
                found = r if found is None else min(found, r)
                break
    return found


def _actions_against(facts: Facts, phase: PhaseDef, guard: c.Node | None, domains: dict[str, Domain],
                     consts: dict[str, Any], diags: Diagnostics) -> None:
    if guard is None:
        return
    for name in phase.actions:
        action = facts.rules.actions.get(name)
        own = action.guard.tree if action is not None and action.guard is not None else None
        if own is None or satisfiable([own], domains, consts) is not True:
            continue  # an action that never holds by itself is W821's; one that cannot be judged is left alone
        if satisfiable([guard, own], domains, consts) is False:
            assert action is not None
            diags.warning("W854", f"action '{name}' can never be taken in phase '{phase.name}': its guard "
                          "contradicts the phase's condition", _at(action.guard, action.span),
                          f"check allowed_if against flow.phases.{phase.name}.if")


def _unoffered(facts: Facts, linked: Linked, offered: set[str], diags: Diagnostics) -> None:
    taken = {eff.action for body in linked.bodies.values() for eff in walk(body) if isinstance(eff, e.TakeE)}
    taken |= {n.action for _, n in facts.index.nodes() if isinstance(n, c.CanTake)}
    for name, action in facts.rules.actions.items():
        if action.by != "player" or name in offered or name in taken or name in facts.inputs:
            continue
        diags.warning("W852", f"action '{name}' is in no phase of the flow, and no rule takes it, so no player can "
                      "ever take it", action.span, "add it to a phase's actions, or take it from a rule")


def _ranking(facts: Facts, linked: Linked, diags: Diagnostics) -> None:
    rules = facts.rules
    flow = rules.flow
    assert flow is not None
    moves = linked.counter_moves()
    for key, text in flow.ranking:
        if key.tree is None:
            continue
        # Each name as the checker resolved it: a counter, or something else a rule may change.
        read = [(n.ref.kind, n.ref.name) if isinstance(n, c.Name) else (n.kind, n.name)
                for n in c.nodes(key.tree) if isinstance(n, c.Name | c.Attr)]
        counters = {name for kind, name in read if kind in ("counter", "family")}
        zones = {name for kind, name in read if kind == "zone"}  # read by their sizes: count(me.trophies)
        others = {kind for kind, _ in read} & {"property", "marker", "player_marker", "position", "builtin"}
        if not (counters | zones) or others or {name for _, name in read} & facts.inputs:
            continue  # reads something else too (a piece, a marker), or is set from outside the rules
        if any(n in moves for n in counters) or any(fills(facts, z) for z in zones):
            continue
        names = sorted(counters | zones)
        nothing = "changes it" if len(names) == 1 else "changes any of them"
        diags.warning("W856", f"the ranking key '{text}' reads {', '.join(names)}, but no rule {nothing}, "
                      "so it ranks nobody", _at(key, _span(text, flow.span)),
                      "score into the counter the ranking reads, or rank by another")


def _span(text: object, fallback: Span) -> Span:
    return getattr(text, "span", None) or fallback
