"""Triggers on counters, markers and zones (`on: {change: c}`, with `crosses:` or `every:`), and checks of counters'
overflow."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..diagnostics import Diagnostics, Span, did_you_mean
from ..engine.rules import CounterDecl, Rules, WatchDef, ZoneDecl
from ..engine.values import shown
from .compile_error import CompileError
from .compiler import Scope
from .effect_builder import Builder, Text
from .types import ANY, INT, NONE, SYMBOL

OVERFLOWS = ("refuse", "discard", "carry")
LIMITS = ("overflow", "underflow")  # on: {overflow: c} runs on what c's cap absorbed, underflow its floor
UNDERFLOWS = ("refuse", "discard")  # a floor refuses a loss below it, or absorbs the rest of it


def build(b: Builder, rules: Rules, name: str, d: Any, n: dict, rule_body: Callable[..., Any]) -> None:
    on = n["on"]
    spans = getattr(n, "value_spans", {})
    here = spans.get("on", d.span)
    limit = next((k for k in LIMITS if k in on), None)
    if limit is not None:
        _build_absorbed(b, rules, name, d, n, rule_body, limit, here)
        return
    counter = str(on.get("change", ""))
    if counter in rules.markers:  # a marker: old and new are spaces; thresholds count the spaces it entered
        names = {"key": NONE, "old": INT, "new": INT}
        watched = f"marker {counter}"
    elif counter in rules.counters:
        c = rules.counters[counter]
        names = {"key": SYMBOL if c.keys is not None else NONE, "old": INT, "new": INT}
        watched = counter
    elif counter in rules.zones:  # a zone: old and new are its numbers of pieces
        names = {"key": NONE, "old": INT, "new": INT}
        watched = f"zone {counter}"
    else:
        b.error("E401", f"unknown counter, marker or zone '{counter}'", here,
                did_you_mean(counter, [*rules.counters, *rules.markers, *rules.zones]))
        return
    # `me` is the counter's owner (none for a game counter).
    scope = Scope(dict(names), True)
    crosses = _number(b, on["crosses"], here, scope) if "crosses" in on else None
    every = _number(b, on["every"], here, scope) if "every" in on else None
    if "crosses" in on and "every" in on:
        b.error("E201", "a counter trigger takes crosses or every, not both", here)
    if crosses or every:
        scope = Scope({**names, "mark": INT}, True)
    guard = b.expression(n["if"], spans.get("if", d.span), scope) if "if" in n else None
    body = rule_body(b, f"triggers.{name}", n.get("do", []), d, scope)
    direction = str(on.get("direction", "up"))
    if direction not in ("up", "down"):
        b.error("E201", f"direction is up or down, not {shown(direction)}", here)
    elif direction == "down" and watched.startswith("marker "):
        b.error("E402", "a marker's thresholds are the spaces it enters: direction is for counters", here)
    rules.watchers.setdefault(watched, []).append(
        WatchDef(name, counter, crosses, every, guard, body, d.span, direction == "down",
                 source=_source(n), guard_text=_guard_text(n), on_spans=_on_spans(on, here)))


def _build_absorbed(b: Builder, rules: Rules, name: str, d: Any, n: dict, rule_body: Callable[..., Any], limit: str,
                    here: Span) -> None:
    """`on: {overflow: c}` / `on: {underflow: c}`: runs on the part of a change that c's cap or floor absorbed."""
    counter = str(n["on"][limit])
    c = rules.counters.get(counter)
    if c is None:
        b.error("E401", f"unknown counter '{counter}'", here, did_you_mean(counter, rules.counters))
        return
    if limit == "overflow":
        capped = c.max is not None or any(high is not None for _, high in c.key_limits.values())
        if c.overflow == "refuse" or not capped:
            why = "it has no max" if not capped else "its overflow refuses (E508)"
            b.error("E427", f"counter '{counter}' never absorbs a gain: {why}", here,
                    "give it a max and overflow: discard (or carry)")
            return
    elif c.underflow != "discard":
        b.error("E427", f"counter '{counter}' never absorbs a loss: its underflow refuses (E508)", here,
                "give it underflow: discard, so its floor absorbs what is below it")
        return
    scope = Scope({"key": SYMBOL if c.keys is not None else NONE, "old": INT, "new": INT, "excess": INT}, True)
    guard = b.expression(n["if"], getattr(n, "value_spans", {}).get("if", d.span), scope) if "if" in n else None
    body = rule_body(b, f"triggers.{name}", n.get("do", []), d, scope)
    rules.watchers.setdefault(f"{limit} {counter}", []).append(
        WatchDef(name, counter, None, None, guard, body, d.span, limit == "underflow", limit, _source(n),
                 _guard_text(n), _on_spans(n["on"], here)))


def _on_spans(on: Any, here: Span) -> dict[str, Span]:
    """Where `on:` (as "on") and each of its keys' values are written: what a finding about the trigger points at."""
    return {"on": here, **{str(k): v for k, v in getattr(on, "value_spans", {}).items()}}


def _source(n: dict) -> str | None:
    return str(n["source"]) if n.get("source") is not None else None


def _guard_text(n: dict) -> str | None:
    return str(n["if"]) if n.get("if") is not None else None


def _number(b: Builder, value: Any, span: Span, scope: Scope) -> Any:
    """A threshold: an expression whose type must be a number (or known only in play)."""
    text = Text(value, span)
    node = b.parse(text, "expr")
    if node is None:
        return None
    try:
        fn = b.exprs.link(node, scope).at(text.source)
        t = fn.type
    except CompileError as err:
        b.error(err.code, err.message, text.at(err.pos), err.hint)
        return None
    if t not in (INT, ANY):
        b.error("E402", f"a threshold is a number, but this is {t}", text.at(node.pos))
        return None
    return fn


def check_overflow(rules: Rules, c: CounterDecl, span: Span, diags: Diagnostics) -> None:
    if c.underflow not in UNDERFLOWS:
        diags.error("E201", f"underflow is one of {', '.join(UNDERFLOWS)}, not {shown(c.underflow)}", span)
    elif c.underflow == "discard" and c.min is None and all(low is None for low, _ in c.key_limits.values()):
        diags.error("E402", f"counter '{c.name}' has no floor for its underflow to stop at (min: null)", span)
    if c.overflow not in OVERFLOWS:
        diags.error("E201", f"overflow is one of {', '.join(OVERFLOWS)}, not {shown(c.overflow)}", span)
        return
    if c.overflow != "refuse" and c.max is None and all(high is None for _, high in c.key_limits.values()):
        diags.error("E402", f"counter '{c.name}' overflows only above a max, and it has none", span)
    if c.overflow != "carry":
        if c.carry_to is not None:
            diags.error("E402", f"carry_to needs overflow: carry (counter '{c.name}' has {c.overflow})", span)
        return
    target = rules.counters.get(str(c.carry_to))
    if c.carry_to is None:
        diags.error("E402", f"counter '{c.name}' carries its excess, but says nowhere to: give carry_to", span)
    elif target is None:
        diags.error("E401", f"unknown counter '{c.carry_to}'", span, did_you_mean(str(c.carry_to), rules.counters))
    elif target.name == c.name:
        diags.error("E402", f"counter '{c.name}' cannot carry its excess to itself", span)
    elif target.per == "player" and c.per == "game":
        diags.error("E402", f"the excess of game counter '{c.name}' has no owner to go to in '{target.name}'", span)
    elif target.keys is not None and (c.keys is None or not set(c.keys) <= set(target.keys)):
        diags.error("E402", f"'{target.name}' is keyed: the excess of '{c.name}' needs keys it also has", span)
    else:
        chain = [c.name]
        while target is not None and target.name not in chain:
            chain.append(target.name)
            target = rules.counters.get(str(target.carry_to)) if target.overflow == "carry" else None
        if target is not None and target.name == c.name:
            # With every counter of the circle at its max, the excess would go round without end.
            diags.error("E402", f"counter '{c.name}' carries its excess in a circle: {' -> '.join([*chain, c.name])}",
                        span, "let one counter of the circle discard its excess or refuse it")


def check_zone_overflow(rules: Rules, z: ZoneDecl, span: Span, diags: Diagnostics) -> None:
    if z.overflow not in OVERFLOWS:
        diags.error("E201", f"overflow is one of {', '.join(OVERFLOWS)}, not {shown(z.overflow)}", span)
        return
    if z.overflow == "refuse":
        if z.carry_to is not None:
            diags.error("E402", f"carry_to needs overflow: carry (zone '{z.name}' has refuse)", span)
        return
    if z.capacity is None:
        diags.error("E402", f"zone '{z.name}' overflows only beyond a capacity, and it has none", span)
    if z.overflow == "discard":
        if z.carry_to is not None:
            diags.error("E402", f"carry_to needs overflow: carry (zone '{z.name}' has discard)", span)
        return
    target = rules.zones.get(str(z.carry_to))
    if z.carry_to is None:
        diags.error("E402", f"zone '{z.name}' carries what does not fit, but says nowhere to: give carry_to", span)
    elif target is None:
        diags.error("E401", f"unknown zone '{z.carry_to}'", span, did_you_mean(str(z.carry_to), rules.zones))
    elif target.name == z.name:
        diags.error("E402", f"zone '{z.name}' cannot carry its overflow to itself", span)
    elif target.per == "player" and z.per == "game":
        diags.error("E402", f"the overflow of game zone '{z.name}' has no owner to go to in '{target.name}'", span)
