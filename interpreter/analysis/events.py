"""The event and trigger graph: triggers on events nothing emits (W811), `defer ... until` an event nothing emits
(W812), and cycles of triggers and procedures that can run without bound (E813).

A rule reaches the triggers of every event it emits (`emit`, and `end turn` for turn_end), the procedures it
calls and the actions it takes (`take`). An edge written inside a `may`, or after a `limit` or a `pay` in the
same body, is bounded: a cycle through it stops when the limit is used up, the cost cannot be paid, or a player
declines. So is a countdown: a trigger
whose `if:` reads one of its event's parameters re-emitting that event with the parameter decreased (`p - 1`).
"""

from __future__ import annotations

from collections import defaultdict

from ..diagnostics import Diagnostics, Span, did_you_mean
from ..engine import effects as e
from ..language import checked as c
from .facts import Facts
from .uses import place


def _emitted(facts: Facts, event: str) -> bool:
    """Whether a rule emits (or defers) the event, or the game does (a built-in event)."""
    if event not in facts.decls["events"] or facts.used(event, "emit", "defer"):
        return True
    return event == "turn_end" and any(isinstance(eff, e.EndE) and eff.what == "turn"
                                       for _, eff, _ in facts.index.effects)


def check(facts: Facts, diags: Diagnostics) -> None:
    for rule, event, span in facts.triggers:
        if event in facts.rules.events and not _emitted(facts, event) and event not in facts.inputs:
            diags.warning("W811", f"{rule} runs on '{event}', but no rule emits it", span,
                          f"emit {event}(...) where it happens, or mark events.{event} input: true if a program "
                          "emits it")
    for ref in facts.used_kind("until"):
        if ref.name in facts.rules.events and not _emitted(facts, ref.name) and ref.name not in facts.inputs:
            emitted = {r.name for r in facts.used_kind("emit") + facts.used_kind("defer")}
            emitted |= {name for name in facts.rules.events if name not in facts.decls["events"]}
            diags.warning("W812", f"this deferred event waits for '{ref.name}', which no rule emits, so it never runs",
                          ref.span(), did_you_mean(ref.name, sorted(emitted))
                          or f"emit {ref.name}(...) where it happens, or leave out until (the end of the turn)")
    _cycles(facts, diags)


def _targets(facts: Facts, rule: str, eff: e.Effect, on: dict[str, list[str]], guarded: dict[str, set[str]]
             ) -> list[str]:
    """The rules an effect runs right away: the triggers of the event it emits, a procedure, an action."""
    if isinstance(eff, e.EmitE):
        targets = on.get(eff.event, [])
        if _counts_down(eff, facts.rules.events.get(eff.event, ()), guarded.get(rule, set())):
            targets = [t for t in targets if t != rule]
        return targets
    if isinstance(eff, e.EndE) and eff.what == "turn":
        return on.get("turn_end", [])
    if isinstance(eff, e.CallE):
        return [f"procedures.{eff.proc}"]
    if isinstance(eff, e.TakeE):  # take ACTION(...) runs that action here
        return [f"actions.{eff.action}"]
    return []


def _cycles(facts: Facts, diags: Diagnostics) -> None:
    on: dict[str, list[str]] = defaultdict(list)
    for rule, event, _ in facts.triggers:
        on[event].append(rule)
    guarded_params = _guarded_params(facts)
    edges: dict[str, list[tuple[str, Span]]] = defaultdict(list)
    for rule, eff, guarded in facts.index.effects:
        if guarded or not rule.startswith(("triggers.", "procedures.", "actions.")):
            continue
        for t in _targets(facts, rule, eff, on, guarded_params):
            edges[rule].append((t, place(eff)))
    for component in _strong_components(edges):
        first = min(component)
        where = min((span for rule in component for t, span in edges[rule] if t in component),
                    key=lambda sp: (sp.file, sp.line, sp.col))
        names = ", ".join(sorted(component))
        diags.error("E813", f"these rules can run each other without bound: {names}", where,
                    f"bound the cycle with a limit (e.g. 'limit {first.partition('.')[2]} to 1 per action'), a cost "
                    "paid, or a may")


def _guarded_params(facts: Facts) -> dict[str, set[str]]:
    """For each trigger, the names its `if:` guard reads (its event's parameters among them)."""
    out: dict[str, set[str]] = defaultdict(set)
    for f in facts.index.formulas:
        if f.role == "guard" and f.effect is None and f.rule.startswith("triggers."):
            out[f.rule] |= {n.ref.name for n in f.nodes if isinstance(n, c.Name)}
    return out


def _counts_down(emit: e.EmitE, params: tuple[tuple[str, str], ...], guarded: set[str]) -> bool:
    """Whether `emit E(..., p - k, ...)` passes a guarded parameter of E decreased, in E's own place for it."""
    for (name, _), arg in zip(params, emit.args, strict=False):
        tree = arg.tree
        if (name in guarded and isinstance(tree, c.BinOp) and tree.op == "-" and isinstance(tree.left, c.Name)
                and tree.left.ref.name == name):
            return True
    return False


def _strong_components(edges: dict[str, list[tuple[str, Span]]]) -> list[set[str]]:
    """Cycles: strongly connected components with more than one rule, or a rule that reaches itself (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w, _ in edges.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1 or any(t == v for t, _ in edges.get(v, [])):
                out.append(comp)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out
