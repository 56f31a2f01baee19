"""Options: values given when a game starts (`--set NAME=VALUE`, an options file, `Game.new(options=...)`).

An option sets a declared value (most often one the source leaves `unknown`), the starting value of a counter
(one number, or one per key), or the default of a piece property (`kind.property`). Options are type-checked
against the declaration, like the rules, and an unknown name is an error with a suggestion.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..diagnostics import Diagnostics, Span, did_you_mean
from ..engine.rules import Rules, ValueDecl
from ..engine.values import shown

OPTION_SPAN = Span("<options>", 1, 1)
_TYPES = {"int": "a whole number", "bool": "true or false", "symbol": "a symbol", "list": "a list"}


def fingerprint(doc: Any) -> str:
    """A hash of a module's content (not its layout or comments), so a save can tell changed rules."""
    text = json.dumps(_plain(doc), sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value


def _type_of(value: Any) -> str | None:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, str):
        return "symbol"
    if isinstance(value, list) and all(_type_of(v) in ("int", "bool", "symbol") for v in value):
        return "list"
    return None


def _sample_type(rules: Rules, name: str) -> str | None:
    v = rules.values[name]
    if v.kind == "unknown":
        return v.type
    return rules.value_type(name) if v.kind in ("const", "by_players") else None


def candidates(rules: Rules) -> list[str]:
    """Names an option may set: unknowns first (what options are usually for), then every other value."""
    unknown = [name for name, _, _ in rules.unknowns] + [n for n, v in rules.values.items() if v.kind == "unknown"]
    return list(dict.fromkeys([*unknown, *rules.values, *rules.counters]))


def set_options(rules: Rules, options: dict[str, tuple[Any, Span]], diags: Diagnostics) -> None:
    """Apply options to declarations, before the rules that read them are compiled."""
    for name, (value, span) in options.items():
        value = _plain(value)
        if name in rules.values:
            _set_value(rules, name, value, span, diags)
        elif name in rules.counters:
            _set_counter(rules, name, value, span, diags)
        elif "." in name and tuple(name.split(".", 1)) in rules.prop_defaults:
            kind, prop = name.split(".", 1)
            want = rules.kinds[kind][prop]
            if want in _TYPES and _type_of(value) != want and not (want == "list" and _type_of(value) == "list"):
                diags.error("E402", f"option '{name}' should be {_TYPES[want]}, got {shown(value)}", span)
                continue
            rules.prop_defaults[(kind, prop)] = value
        else:
            diags.error("E408", f"there is no value, counter or property default '{name}' to set", span,
                        did_you_mean(name, candidates(rules) + [f"{k}.{p}" for k, p in rules.prop_defaults]))
            continue
        rules.options[name] = value
        _in_range(rules, name, value, span, diags)


def _in_range(rules: Rules, name: str, value: Any, span: Span, diags: Diagnostics) -> None:
    """E851 for a whole number an option gives outside what it feeds: a counter's starting value (given
    directly or by the value named as its `initial`) outside its min and max, or a size below 0."""
    if type(value) is not int:
        return
    for c in rules.counters.values():
        if c.name != name and not (isinstance(c.initial, str) and c.initial == name):  # an unknown refuses ==
            continue
        high = c.max if type(c.max) is int else None
        low = c.min if type(c.min) is int else 0
        if value < low or (high is not None and value > high):
            where = f"from {low} to {high}" if high is not None else f"at least {low}"
            diags.error("E851", f"option '{name}' = {value} starts counter '{c.name}' outside its range ({where})",
                        span, f"give a number {where}, or change counters.{c.name}'s min or max")
            return
    sizes: list[tuple[Any, str, Any]] = [(z, "capacity", z.capacity) for z in rules.zones.values()]
    sizes += [(z, "slots", z.slots) for z in rules.zones.values()]
    sizes += [(t, "spaces", t.spaces) for t in rules.tracks.values()]
    for decl, what, raw in sizes:
        if not (isinstance(raw, str) and raw == name):
            continue
        if value < (1 if what == "spaces" else 0):
            kind = "track" if what == "spaces" else "zone"
            diags.error("E851", f"option '{name}' = {value} gives {kind} '{decl.name}' {value} {what}", span,
                        f"give it {'at least 1' if what == 'spaces' else '0 or more'} {what}")
            return


def _set_value(rules: Rules, name: str, value: Any, span: Span, diags: Diagnostics) -> None:
    v = rules.values[name]
    if v.kind == "expr":
        diags.error("E402", f"'{name}' is a formula; an option can only set a value fixed before play", span)
        return
    got, want = _type_of(value), _sample_type(rules, name)
    if got is None or (want is not None and got != want):
        wanted = _TYPES.get(want or "", "a number, true/false, a symbol or a list of them")
        diags.error("E402", f"option '{name}' should be {wanted}, got {shown(value)}", span)
        return
    if got == "symbol" and value not in rules.symbols:
        diags.error("E401", f"option '{name}': '{value}' is not a declared symbol", span,
                    did_you_mean(value, rules.symbols))
        return
    rules.values[name] = ValueDecl(name, "const", value, v.span, v.source)


def _set_counter(rules: Rules, name: str, value: Any, span: Span, diags: Diagnostics) -> None:
    c = rules.counters[name]
    if isinstance(value, dict) and c.keys is not None:
        bad = [k for k in value if k not in c.keys]
        if bad:
            diags.error("E401", f"option '{name}': {shown(bad[0])} is not a key of '{name}'", span,
                        did_you_mean(bad[0], c.keys))
            return
        if any(_type_of(v) != "int" for v in value.values()):
            diags.error("E402", f"option '{name}' gives each key a whole number", span)
            return
        c.initial = {k: value.get(k, 0) for k in c.keys}
        return
    if _type_of(value) != "int":
        form = " (one for every key, or a mapping of key to number)" if c.keys is not None else ""
        diags.error("E402", f"option '{name}' is the counter's starting value: a whole number{form}", span)
        return
    c.initial = value
