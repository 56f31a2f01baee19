"""Options: values given when a game starts (`--set NAME=VALUE`, an options file, `Game.new(options=...)`).

An option sets a declared value (most often one the source leaves `unknown`), the starting value of a counter
(one number, or one per key), or the default of a piece property (`kind.property`). Options are type-checked
against the declaration, like the rules, and an unknown name is an error with a suggestion.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from ..diagnostics import Diagnostics, Span, did_you_mean
from ..engine.rules import Rules, ValueDecl
from .option_values import TYPE_WORDS, Refused, plain_value, show, shown_name, type_of
from .value_tables import Table, with_entries
from .ynodes import plain

OPTION_SPAN = Span("<options>", 1, 1)


def fingerprint(doc: Any) -> str:
    """A hash of a module's content (not its layout or comments), so a save can tell changed rules."""
    text = json.dumps(plain(doc), sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]



_TABLE_ENTRY = re.compile(r"([a-z_][A-Za-z0-9_]*)\[([A-Za-z0-9_]+)\]")


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
    """Apply options to declarations, before the rules that read them are compiled.

    This is the one checker of options, however they came (`--set`, an options file, a scenario's `options:`,
    `Game.new(options=...)`): each value is first made plain data within the loader's limits, then checked
    against its declaration."""
    for name, (raw, span) in options.items():
        if not isinstance(name, str):
            diags.error("E408", f"an option name is a string, got {show(name)}", span)
            continue
        plain = plain_value(raw)
        if isinstance(plain, Refused):
            diags.error(plain.code, f"option '{shown_name(name)}': {plain.why}", span, plain.hint)
            continue
        value = plain.value
        entry = _TABLE_ENTRY.fullmatch(name)
        if entry is not None and entry[1] in rules.values and rules.values[entry[1]].kind == "table":
            ok = _set_value(rules, entry[1], {entry[2]: value}, span, diags)  # one entry: `--set worth[red]=2`
        elif name in rules.values:
            ok = _set_value(rules, name, value, span, diags)
        elif name in rules.counters:
            ok = _set_counter(rules, name, value, span, diags)
        elif "." in name and tuple(name.split(".", 1)) in rules.prop_defaults:
            ok = _set_default(rules, name, value, span, diags)
        else:
            short = len(name) <= 100  # a suggestion for a name of any length would cost quadratic time
            diags.error("E408", f"there is no value, counter or property default '{shown_name(name)}' to set", span,
                        did_you_mean(name, candidates(rules) + [f"{k}.{p}" for k, p in rules.prop_defaults])
                        if short else None)
            continue
        if ok:
            rules.options[name] = value
            _in_range(rules, name, value, span, diags)


def _in_range(rules: Rules, name: str, value: Any, span: Span, diags: Diagnostics) -> None:
    """E851 for a whole number an option gives a value outside what the value feeds: a counter's starting value
    (the value named as its `initial`) outside its min and max, a counter's max (or a key's) below its min or its
    start, or a size below 0 (an option on the counter itself is checked by _set_counter)."""
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
    for c in rules.counters.values():
        caps = [(None, c.max)] + [(key, cap) for key, (_, cap) in c.key_limits.items()]
        for key, cap in caps:
            if not (isinstance(cap, str) and cap == name):
                continue
            floor = c.limits_of(key)[0]
            start = c.initial.get(key, 0) if isinstance(c.initial, dict) else c.initial
            bounds = [x for x in (floor, start) if type(x) is int]  # its floor (none: min null) and its start
            if bounds and value < max(bounds):
                cell = c.name if key is None else f"{c.name}[{key}]"
                diags.error("E851", f"option '{name}' = {value} gives counter '{cell}' a max below its min or "
                            f"start {max(bounds)}", span, f"give a number of at least {max(bounds)}")
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


def _wrong(name: str, wanted: str, value: Any, span: Span, diags: Diagnostics) -> bool:
    diags.error("E402", f"option '{name}' should be {wanted}, got {show(value)}", span)
    return False


def _set_value(rules: Rules, name: str, value: Any, span: Span, diags: Diagnostics) -> bool:
    v = rules.values[name]
    if v.kind == "expr":
        diags.error("E402", f"'{name}' is a formula; an option can only set a value fixed before play", span)
        return False
    if v.kind == "table":
        if not isinstance(value, dict) or not isinstance(v.data, Table):
            return _wrong(name, "a mapping of key to value (the table's entries it changes)", value, span, diags)
        table = with_entries(v.data, value)
        if isinstance(table, str):
            diags.error("E402", f"option '{name}': {table}", span)
            return False
        rules.values[name] = ValueDecl(name, "table", table, v.span, v.source)
        given = {f"{name}[{k}]" for k in value}  # entries the option gives are no longer unknown
        rules.unknowns = [u for u in rules.unknowns if u[0] not in given]
        return True
    got, want = type_of(value), _sample_type(rules, name)
    if got is None or (want is not None and want != "any" and got != want):
        return _wrong(name, TYPE_WORDS.get(want or "", "a number, true/false, a symbol or a list of them"), value,
                      span, diags)
    if got == "symbol" and value not in rules.symbols:
        diags.error("E401", f"option '{name}': {show(value)} is not a declared symbol", span,
                    did_you_mean(value, rules.symbols) if len(value) <= 100 else None)
        return False
    rules.values[name] = ValueDecl(name, "const", value, v.span, v.source)
    return True


def _set_counter(rules: Rules, name: str, value: Any, span: Span, diags: Diagnostics) -> bool:
    c = rules.counters[name]
    if isinstance(value, dict) and c.keys is not None:
        bad = [k for k in value if k not in c.keys]
        if bad:
            diags.error("E416", f"option '{name}': {show(bad[0])} is not a key of '{name}'", span,
                        did_you_mean(bad[0], c.keys) if len(bad[0]) <= 100 else None)
            return False
        if any(type_of(v) != "int" for v in value.values()):
            diags.error("E402", f"option '{name}' gives each key a whole number", span)
            return False
        if not all(_in_bounds(rules, name, f"{name}.{k}", n, span, diags, str(k)) for k, n in value.items()):
            return False
        declared = c.initial
        # A key the option leaves out keeps the starting value the rules give it.
        c.initial = {k: value[k] if k in value else declared.get(k, 0) if isinstance(declared, dict) else declared
                     for k in c.keys}
        return True
    if type_of(value) != "int":
        form = " (one for every key, or a mapping of key to number)" if c.keys is not None else ""
        diags.error("E402", f"option '{name}' is the counter's starting value: a whole number{form}, got "
                    f"{show(value)}", span)
        return False
    if not _in_bounds(rules, name, name, value, span, diags):
        return False
    c.initial = value
    return True


def _in_bounds(rules: Rules, name: str, shown: str, value: int, span: Span, diags: Diagnostics,
               key: str | None = None) -> bool:
    """A counter's starting value within the counter's own `min` and `max` (of that key, when it has limits per
    key; of every key, when one value starts them all), as the rules' own would have to be."""
    c = rules.counters[name]
    if key is None and c.key_limits:
        return all(_in_bounds(rules, name, shown, value, span, diags, k) for k in c.key_limits)
    low, high = c.limits_of(key)
    if isinstance(high, str):
        v = rules.values.get(high)
        high = v.data if v is not None and v.kind == "const" and type_of(v.data) == "int" else None
    if low is not None and value < low:
        diags.error("E402", f"option '{shown}' is {value}, below the counter's minimum {low}", span)
        return False
    if high is not None and value > high:
        diags.error("E402", f"option '{shown}' is {value}, above the counter's maximum {high}", span)
        return False
    return True


def _set_default(rules: Rules, name: str, value: Any, span: Span, diags: Diagnostics) -> bool:
    kind, prop = name.split(".", 1)
    want = rules.kinds[kind][prop]
    # As in a rule file (linker._fits), none suits every property. A player or piece exists only once a game
    # runs, and a default is fixed before it, so none is the only default such a property can have.
    if value is None:
        pass
    elif want in ("player", "piece"):
        return _wrong(name, f"none (a {want} exists only once the game starts)", value, span, diags)
    elif want in TYPE_WORDS and type_of(value) != want:
        return _wrong(name, TYPE_WORDS[want], value, span, diags)
    rules.prop_defaults[(kind, prop)] = value
    return True
