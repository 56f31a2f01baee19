"""Compose modules in `requires` order, collect their declarations, apply `replace`, and build the rule set.

Every problem becomes a diagnostic; a module with broken parts still gets the rest of it checked, so one run
reports everything.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..diagnostics import Diagnostics, Span, did_you_mean
from ..engine.budget import CODE as BUDGET_CODE
from ..engine.budget import check_constant
from ..engine.effects import CostC
from ..engine.rules import (
    ActionDef,
    CounterDecl,
    FlowDef,
    ModuleInfo,
    PhaseDef,
    ProcDef,
    Replacement,
    Rules,
    StepDef,
    TrackDecl,
    TriggerDef,
    TurnsDef,
    ValueDecl,
    Written,
    ZoneDecl,
)
from ..engine.values import Unknown, shown
from . import deferred, ends, extend, extend_choices, hooks, shared_links, substitutes, value_tables, watch
from . import syntax as s
from .body_compiler import BodyCompiler
from .checked import made
from .compiler import PIECE_BUILTINS, Scope
from .effect_builder import Builder, Text
from .options import fingerprint, set_options
from .play_decls import link_play_decls
from .sections import DECLARING, REPLACEABLE
from .written import written
from .ynodes import key_span as _kspan
from .ynodes import value_span as _vspan

READABLE = {"sets": "set", "values": "value", "counters": "counter", "pieces": "piece kind", "zones": "zone",
            "tracks": "track", "dice": "die"}
def _unbuilt(frame: Any) -> Any:
    raise AssertionError("a focused link checks rules; it never runs them")


PARAM_TYPES = {
    "int": "int", "bool": "bool", "symbol": "symbol", "player": "player", "piece": "piece", "list": "list"
}


@dataclass
class Module:
    id: str
    file: str
    doc: dict
    requires: list[str]
    span: Span

    @cached_property
    def fingerprint(self) -> str:
        """A hash of the module's content, made once: every link of the module records it, and nothing changes
        a loaded document (extend and replace work on copies; a mutant is a Module of its own)."""
        return fingerprint(self.doc)

    @cached_property
    def written(self) -> tuple[Written, ...]:
        """Its declarations as written (written.py), read once: every link of the module keeps them."""
        return written(self)


@dataclass
class Decl:
    module: str
    node: Any
    span: Span  # of the name
    replaced_by: str | None = None


def _fits(default: Any, ptype: str) -> bool:
    """Whether a property's declared default suits its type (none and unknown suit every type)."""
    if default is None or (isinstance(default, dict) and "unknown" in default):
        return True
    return {
        "int": isinstance(default, int) and not isinstance(default, bool),
        "bool": isinstance(default, bool),
        "symbol": isinstance(default, str),
    }.get(ptype, ptype == "any")


def _count(value: Any) -> int | None:
    """A whole number written as a YAML int or ASCII digits; None for anything else (the schema reports it)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 10:
        return int(value)
    return None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _bare(value: Any) -> Any:
    """YAML data without its position wrappers, as it may be stored in a game state."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, list):
        return [_bare(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _bare(v) for k, v in value.items()}
    return value


def _source(node: Any) -> str | None:
    return str(node["source"]) if isinstance(node, dict) and "source" in node else None


# What each built-in piece field reads, for E409 (compiler.PIECE_BUILTINS gives their types).
_PIECE_FIELDS = {"id": "the piece's id", "kind": "its kind", "zone": "the zone it is in",
                 "slot": "its slot or place in its zone", "linked": "the pieces linked to it"}


class Linker:
    def __init__(self, diags: Diagnostics) -> None:
        self.diags = diags
        self._grouped: tuple[dict, int, dict[str, list[tuple[str, Decl]]]] | None = None
        # (action, parameter) -> where a parameter without `in:` is declared: a phase offering the action is
        # reported there, where the domain is missing
        self._undomained: dict[tuple[str, str], Span] = {}

    # ---------------------------------------------------------------- module order
    def order(self, modules: dict[str, Module], roots: list[str]) -> list[Module]:
        """Modules with each after what it requires (depth first, without recursion: a chain of a thousand
        modules must not reach Python's recursion limit)."""
        ordered: list[Module] = []
        state: dict[str, str] = {}

        def enter(mid: str, via: Module | None, chain: list[str]) -> Module | None:
            """Mark `mid` as being visited and return it, or report why it cannot be (None)."""
            if state.get(mid) == "done":
                return None
            span = via.span if via else None  # where `via` names `mid` in its requires, when it does
            reqs = via.doc.get("requires") if via is not None else None
            if isinstance(reqs, list) and mid in reqs and hasattr(reqs, "item_spans"):
                span = reqs.item_spans[reqs.index(mid)]
            if state.get(mid) == "visiting":
                cycle = " -> ".join([*chain[chain.index(mid):], mid])
                self.diags.error("E404", f"modules require each other in a cycle: {cycle}", span)
                return None
            m = modules.get(mid)
            if m is None:
                self.diags.error("E404", f"unknown module '{mid}'", span, did_you_mean(mid, modules))
                return None
            state[mid] = "visiting"
            return m

        for root in roots:
            first = enter(root, None, [])
            if first is None:
                continue
            chain = [root]
            stack = [(first, iter(first.requires))]
            while stack:
                m, pending = stack[-1]
                req = next(pending, None)
                if req is None:
                    stack.pop()
                    chain.pop()
                    state[m.id] = "done"
                    ordered.append(m)
                    continue
                nxt = enter(req, m, chain)
                if nxt is not None:
                    chain.append(req)
                    stack.append((nxt, iter(nxt.requires)))
        return ordered

    # ---------------------------------------------------------------- linking
    def link(self, modules: dict[str, Module], roots: list[str],
             options: dict[str, tuple[Any, Span]] | None = None, focus: set[str] | None = None) -> Rules:
        """The rules of `roots` and what they require. With `focus` (module ids), only the rule bodies those
        modules declare, replace or hook into are built: every declaration is still known, so the focused
        modules are checked in full at a fraction of the cost (an editor re-checking the module being typed)."""
        ordered = self.order(modules, roots)
        closure = self._closures(ordered)
        decls: dict[tuple[str, str], Decl] = {}
        for m in ordered:
            for section in DECLARING:
                table = m.doc.get(section)
                if not isinstance(table, dict):
                    continue
                for name, node in table.items():
                    span = _kspan(table, name, m.span)
                    key = (section, str(name))
                    if key in decls:
                        first = decls[key]
                        self.diags.error(
                            "E403",
                            f"{section[:-1] if section.endswith('s') else section} '{name}' is already declared "
                            f"in {first.module} ({first.span})",
                            span,
                            f"to change it from this module, use replace: {section}.{name}",
                        )
                        continue
                    decls[key] = Decl(m.id, node, span)
        replaced: dict[str, Replacement] = {}
        for m in ordered:
            table = m.doc.get("replace")
            if not isinstance(table, dict):
                continue
            for target, node in table.items():
                span = _kspan(table, target, m.span)
                section, _, name = str(target).partition(".")
                key = (section, name)
                if section not in REPLACEABLE or key not in decls:
                    known = [f"{sec}.{n}" for sec, n in decls if sec in REPLACEABLE]
                    self.diags.error("E406", f"replace target '{target}' does not exist", span,
                                     did_you_mean(str(target), known))
                    continue
                d = decls[key]
                if d.module not in closure[m.id]:
                    self.diags.error("E406", f"'{target}' belongs to {d.module}, which {m.id} does not require",
                                     span, f"add {d.module} to requires")
                    continue
                if d.replaced_by and d.replaced_by not in closure[m.id] and m.id not in closure[d.replaced_by]:
                    self.diags.error("E407", f"'{target}' is replaced by both {d.replaced_by} and {m.id}", span,
                                     "make one module require the other, so the order is explicit")
                    continue
                decls[key] = Decl(d.module, node, span, m.id)
                replaced[str(target)] = Replacement(str(target), m.id, d.module, span)
        additions = extend.apply(ordered, closure, decls, self.diags)
        changes = extend_choices.apply(ordered, closure, decls, self.diags)
        rules = Rules(modules=[m.id for m in ordered], additions=additions, written={m.id: m.written for m in ordered},
                      replacements=replaced, choice_changes=changes)
        for m in ordered:
            players = m.doc.get("players")
            rules.module_info[m.id] = ModuleInfo(m.id, str(m.doc.get("title", m.id)), tuple(
                (str(k), v) for k, v in players.items()) if isinstance(players, dict) else None, m.span)
            if isinstance(players, dict):
                rules.players_min = _count(players.get("min")) or rules.players_min
                rules.players_max = _count(players.get("max")) or rules.players_max
                low, high = _count(players.get("min")), _count(players.get("max"))
                if low is not None and high is not None and low > high:
                    self.diags.error("E825", f"players: min {low} is above max {high}, so no game can start",
                                     _vspan(m.doc, "players", m.span), "swap them, or fix the one mistyped")
        self._one_meaning(decls)
        self._declare(rules, decls)
        if options:
            set_options(rules, options, self.diags)
        self._build(rules, decls, hooks.collect(ordered, closure, decls, self.diags), focus)
        if options:
            rules.unknowns = [u for u in rules.unknowns if u[0] not in rules.options]
        self._flow(rules, ordered, closure)
        link_play_decls(rules, ordered, self.diags)
        if not deferred.active():  # a save of a game names them; nothing plays the links `check` makes
            rules.fingerprint = {m.id: m.fingerprint for m in ordered}
        return rules

    @staticmethod
    def _closures(ordered: list[Module]) -> dict[str, set[str]]:
        closure: dict[str, set[str]] = {}
        for m in ordered:  # requires come first, so their closures exist already
            c = {m.id}
            for req in m.requires:
                c |= closure.get(req, {req})
            closure[m.id] = c
        return closure

    # ---------------------------------------------------------------- vocabulary
    def _section(self, decls: dict[tuple[str, str], Decl], section: str) -> list[tuple[str, Decl]]:
        # Asked for every section, often several times, once `decls` is complete (after replace and extend):
        # grouped once per link instead of a pass over every declaration each time.
        grouped = self._grouped
        if grouped is None or grouped[0] is not decls or grouped[1] != len(decls):
            groups: dict[str, list[tuple[str, Decl]]] = {}
            for (sec, name), d in decls.items():
                groups.setdefault(sec, []).append((name, d))
            grouped = self._grouped = (decls, len(decls), groups)
        return list(grouped[2].get(section, ()))

    def _one_meaning(self, decls: dict[tuple[str, str], Decl]) -> None:
        """A name an expression can read (a value, counter, zone, ...) may be declared in one section only:
        otherwise one declaration silently hides the other."""
        bare: dict[str, tuple[str, Decl]] = {}
        mine: dict[str, tuple[str, Decl]] = {}  # read through a player (me.goods): a namespace of their own
        for (section, name), d in decls.items():
            if section not in READABLE:
                continue
            per_player = section in ("counters", "zones") and isinstance(d.node, dict) and d.node.get("per") == "player"
            seen = mine if per_player else bare
            if name in seen:
                other, first = seen[name]
                self.diags.error("E403", f"'{name}' is declared as a {READABLE[section]} here and as a "
                                 f"{READABLE[other]} in {first.module} ({first.span})", d.span,
                                 "names are global to the composed game: rename one")
                continue
            seen[name] = (section, d)

    def _per_key(self, rules: Rules, name: str, mapping: dict[Any, Any], keys: tuple[str, ...] | None, what: str,
                 span: Span) -> dict[str, Any]:
        """A mapping of key -> number for a keyed counter's `initial`, `min` or `max` (keys checked)."""
        if keys is None:
            self.diags.error("E415", f"'{name}' has no keys, so its {what} is one number, not a mapping of key "
                             f"to number", span, f"write {what}: N, or give '{name}' keys")
            return {}
        out: dict[str, Any] = {}
        for key, value in mapping.items():
            if str(key) not in keys:
                self.diags.error("E416", f"'{key}' is not a key of '{name}' ({', '.join(keys)})",
                                 _kspan(mapping, key, span), did_you_mean(str(key), keys))
            elif isinstance(value, str) and self._fixed_number(rules, value, _vspan(mapping, key, span)) is None:
                continue
            else:
                out[str(key)] = value
        return out

    def _fixed_number(self, rules: Rules, value: str, span: Span) -> str | None:
        """A value name that a key's start or limit may use: a number or a player-count table, fixed before play."""
        v = rules.values.get(value)
        if v is None:
            self.diags.error("E401", f"unknown value '{value}'", span, did_you_mean(value, rules.values))
            return None
        if v.kind not in ("const", "by_players", "unknown") or rules.value_type(value) not in ("int", "any"):
            self.diags.error("E402", f"'{value}' is not a number fixed before play", span,
                             "use a number or a player-count table")
            return None
        return value

    def _limits(self, rules: Rules, name: str, n: dict[str, Any], keys: tuple[str, ...] | None, span: Span
                ) -> tuple[int | None, int | str | None, dict[str, tuple[int | None, int | str | None]]]:
        """A counter's (min, max), and for a keyed counter whose `min` or `max` is a mapping, its limits per key.

        `min: null` is no floor; a key a `min` mapping leaves out keeps the floor 0, one a `max` mapping leaves out
        has no cap. The (min, max) returned for such a counter is the widest over its keys."""
        raw_low: Any = n.get("min", 0)
        raw_high: Any = n.get("max")
        per_low = isinstance(raw_low, dict)
        per_high = isinstance(raw_high, dict)
        low: int | None = raw_low if _whole(raw_low) else None if raw_low is None or per_low else 0
        high: int | str | None = raw_high if _whole(raw_high) or isinstance(raw_high, str) else None
        if not (per_low or per_high):
            return low, high, {}
        lows = self._per_key(rules, name, raw_low, keys, "min", _vspan(n, "min", span)) if per_low else {}
        highs = self._per_key(rules, name, raw_high, keys, "max", _vspan(n, "max", span)) if per_high else {}
        if not keys:
            return (0 if per_low else low), (None if per_high else high), {}
        limits: dict[str, tuple[int | None, int | str | None]] = {}
        for key in keys:
            k_low = (lows.get(key, 0) if per_low else low)
            k_high = (highs.get(key) if per_high else high)
            limits[key] = (k_low if _whole(k_low) else None,
                           k_high if _whole(k_high) or isinstance(k_high, str) else None)
        floors: list[int | None] = [k_low for k_low, _ in limits.values()]
        caps = [k_high for _, k_high in limits.values()]
        widest_low = None if any(f is None for f in floors) else min(f for f in floors if f is not None)
        widest_high = None if any(c is None for c in caps) or any(isinstance(c, str) for c in caps) else \
            max(int(c) for c in caps if c is not None)
        return widest_low, widest_high, limits

    def _declare(self, rules: Rules, decls: dict[tuple[str, str], Decl]) -> None:
        """The components, section by section in DECLARE's order (a counter's keys name a set, a default may
        name a value), each section then checked as a whole where an entry refers to another of its kind."""
        rules.events["turn_end"] = (("player", "player"),)  # a declared event of that name replaces it
        for section, declare in DECLARE.items():
            for name, d in self._section(decls, section):
                declare(self, rules, name, d)
            after = DECLARED.get(section)
            if after is not None:
                for name, d in self._section(decls, section):
                    after(rules, name, d, self.diags)
        for v in rules.values.values():  # a table's keys are symbols that every other section may declare
            if v.kind == "table":
                v.data = value_tables.declare(rules, v, v.data, self.diags)

    def _declare_set(self, rules: Rules, name: str, d: Decl) -> None:
        items = tuple(str(x) for x in d.node) if isinstance(d.node, list) else ()
        rules.sets[name] = items
        rules.symbols.update(items)

    def _declare_value(self, rules: Rules, name: str, d: Decl) -> None:
        rules.values[name] = self._value(name, d)

    def _declare_counter(self, rules: Rules, name: str, d: Decl) -> None:
        n = d.node if isinstance(d.node, dict) else {}
        keys = n.get("keys")
        if isinstance(keys, str):
            if keys not in rules.sets:
                self.diags.error("E401", f"unknown set '{keys}'", _vspan(n, "keys", d.span),
                                 did_you_mean(keys, rules.sets))
            keys = rules.sets.get(keys, ())
        elif isinstance(keys, list):
            keys = tuple(str(k) for k in keys)
            rules.symbols.update(keys)
        initial = n.get("initial", 0)
        if isinstance(initial, dict) and "unknown" not in initial:
            initial = self._per_key(rules, name, initial, keys, "initial", _vspan(n, "initial", d.span))
        elif isinstance(initial, dict) and "unknown" in initial:
            initial = Unknown(name, str(initial["unknown"]))
            rules.unknowns.append((name, initial.note, _vspan(n, "initial", d.span)))
        elif isinstance(initial, str) and initial not in rules.values:
            self.diags.error("E401", f"unknown value '{initial}'", _vspan(n, "initial", d.span),
                             did_you_mean(initial, rules.values))
        elif isinstance(initial, str) and rules.values[initial].kind == "expr":
            self.diags.error("E402", f"'{initial}' is a formula, but a starting value is fixed before play",
                             _vspan(n, "initial", d.span), "use a number or a player-count table")
        elif isinstance(initial, str):
            self._fixed_number(rules, initial, _vspan(n, "initial", d.span))
        low, high, key_limits = self._limits(rules, name, n, keys, d.span)
        rules.counters[name] = CounterDecl(name, str(n.get("per", "player")), keys, initial, low, high, d.span,
                                           str(n.get("overflow", "refuse")), n.get("carry_to"),
                                           str(n.get("underflow", "refuse")), key_limits)

    def _declare_piece(self, rules: Rules, name: str, d: Decl) -> None:
        props = d.node.get("properties", {}) if isinstance(d.node, dict) else {}
        kind: dict[str, str] = {}
        for prop, spec in (props.items() if isinstance(props, dict) else []):
            if prop in PIECE_BUILTINS:  # `$x.zone` reads the built-in field: the property could never be read
                self.diags.error("E409", f"'{name}' cannot have a property '{prop}': every piece has a built-in "
                                 f"'{prop}' ({_PIECE_FIELDS[prop]}), and `.{prop}` always reads that",
                                 _kspan(props, prop, d.span), f"give the property another name, such as "
                                 f"'{name}_{prop}'")
                continue
            ptype = PARAM_TYPES.get(str(spec.get("type")) if isinstance(spec, dict) else "", "any")
            kind[prop] = ptype
            if prop in rules.properties and rules.properties[prop] != ptype:
                rules.properties[prop] = "any"
            else:
                rules.properties[prop] = ptype
            default = spec.get("default") if isinstance(spec, dict) else None
            if not _fits(default, ptype):
                self.diags.error("E402", f"the default of '{name}.{prop}' should be {ptype}, got {shown(default)}",
                                 _vspan(spec, "default", d.span))
                default = None
            elif isinstance(default, dict) and "unknown" in default:
                default = Unknown(f"{name}.{prop}", str(default["unknown"]))
                rules.unknowns.append((f"{name}.{prop}", default.note, _vspan(spec, "default", d.span)))
            rules.prop_defaults[(name, prop)] = default
        rules.kinds[name] = kind
        rules.symbols.add(name)

    def _declare_zone(self, rules: Rules, name: str, d: Decl) -> None:
        n = d.node if isinstance(d.node, dict) else {}
        rules.zones[name] = ZoneDecl(
            name, str(n.get("per", "game")), bool(n.get("ordered", False)), n.get("slots"),
            _count(n.get("slot_capacity")) or 1, n.get("capacity"), d.span,
            str(n.get("overflow", "refuse")), n.get("carry_to"),
        )

    def _declare_track(self, rules: Rules, name: str, d: Decl) -> None:
        n = d.node if isinstance(d.node, dict) else {}
        icons: dict[int, tuple[str, ...]] = {}
        raw_icons = n.get("icons", {})
        for space, names in (raw_icons.items() if isinstance(raw_icons, dict) else []):
            number = _count(space)
            if number is not None:
                icons[number] = tuple(str(i) for i in (names if isinstance(names, list) else [names]))
                rules.symbols.update(icons[number])
        markers = n.get("markers", {})
        markers = markers if isinstance(markers, dict) else {}
        for k, v in markers.items():
            if isinstance(v, dict) and v.get("per") == "player":  # each player has one: me.pawn
                rules.player_markers.add(str(k))
        markers = {str(k): _count(v.get("start", 1) if isinstance(v, dict) else v) or 1 for k, v in markers.items()}
        rules.tracks[name] = TrackDecl(name, n.get("spaces", 1), bool(n.get("circular", False)), icons, markers,
                                       d.span, "forward" if n.get("spend") == "forward" else "back")
        for marker in markers:
            rules.markers[marker] = name

    def _declare_die(self, rules: Rules, name: str, d: Decl) -> None:
        sides = d.node.get("sides") if isinstance(d.node, dict) else None
        rules.dice[name] = sides if isinstance(sides, int) and sides >= 1 else 6
        over = check_constant("range_size", rules.dice[name], "the number of sides")
        if over:
            self.diags.error(BUDGET_CODE, over, d.span)

    def _declare_event(self, rules: Rules, name: str, d: Decl) -> None:
        rules.events[name] = self._params(d.node)

    def _value(self, name: str, d: Decl) -> ValueDecl:
        node = d.node
        if isinstance(node, dict):
            source = node.get("source")
            if "unknown" in node:
                declared = str(node["type"]) if "type" in node else None
                return ValueDecl(name, "unknown", str(node["unknown"]), d.span, source, type=declared)
            if "value" in node:
                return ValueDecl(name, "const", _bare(node["value"]), d.span, source)
            if value_tables.is_table(node):
                return ValueDecl(name, "table", node, d.span, source)  # linked once every symbol is declared
            if "by_players" in node and isinstance(node["by_players"], dict):
                table = {_count(k): _bare(v) for k, v in node["by_players"].items() if _count(k) is not None}
                return ValueDecl(name, "by_players", table, d.span, source)
            if "expr" in node:
                return ValueDecl(name, "expr", node["expr"], _vspan(node, "expr", d.span), source)
        return ValueDecl(name, "const", _bare(node), d.span)

    @staticmethod
    def _params(node: Any) -> tuple[tuple[str, str], ...]:
        params = node.get("params", {}) if isinstance(node, dict) else {}
        if not isinstance(params, dict):
            return ()
        return tuple((str(k), PARAM_TYPES.get(str(v.get("type") if isinstance(v, dict) else v), "any"))
                     for k, v in params.items())

    # ---------------------------------------------------------------- rules
    def _build(self, rules: Rules, decls: dict[tuple[str, str], Decl], wraps: dict[str, list] | None = None,
               focus: set[str] | None = None) -> None:
        b = Builder(rules, self.diags)
        b.hooks = wraps or {}
        hooked = {".".join(t.split(".")[:2]) for t in b.hooks}

        def wanted(section: str) -> list[tuple[str, Decl]]:
            """The entries whose bodies are built: all, or those of the focused modules and what they hook."""
            return [(name, d) for name, d in self._section(decls, section)
                    if focus is None or d.module in focus or d.replaced_by in focus
                    or f"{section}.{name}" in hooked]

        if os.environ.get("BOARDRULES_INTERPRET") != "1":  # the interpreter alone, to compare the two ways
            rules.compile_body = BodyCompiler(rules, b.exprs)
        shared = shared_links.current()
        b.built_names = {name for section, name in decls if section in ("costs", "actions", "procedures")}
        for name, v in rules.values.items():
            if v.kind == "unknown":
                rules.unknowns.append((name, v.data, v.span))
        # Value formulas see `me` and declared names; compile them before the rules that read them.
        for name, v in rules.values.items():
            if v.kind == "expr":
                def formula(v: ValueDecl = v) -> Any:
                    return b.expression(v.data, v.span, Scope({}, True))
                compiled = formula() if shared is None else \
                    shared.unit(b, ("value", name, v.span), (v.data,), formula, own=name)
                v.compiled = compiled or made(lambda f: 0)
        for name, d in self._section(decls, "costs"):
            node = d.node.get("cost") if isinstance(d.node, dict) else d.node

            def cost(node: Any = node, d: Decl = d) -> CostC | None:
                text = Text(node, d.span)
                parsed = b.parse(text, "cost")
                if isinstance(parsed, s.Cost):
                    try:
                        return b.cost(parsed, Scope({}, True), text)
                    except Exception as err:  # a _Reported carries its diagnostic
                        self._report(b, err)
                return None

            paid = cost() if shared is None else shared.unit(b, ("cost", name, d.span), (d.node,), cost)
            if paid is not None:
                rules.costs[name] = paid
            if name not in rules.costs:  # reported once here; its uses need no error of their own
                rules.costs[name] = CostC(d.span, (), str(node))
        for name, d in self._section(decls, "substitutes"):
            substitutes.build(b, rules, name, d)
        # Actions are known by name and parameters before any body is built, so a procedure can `take` or ask
        # `can` of one; each is replaced by the full action below.
        for name, d in self._section(decls, "actions"):
            n = d.node if isinstance(d.node, dict) else {}
            rules.actions[name] = ActionDef(name, str(n.get("title", name)), str(n.get("by", "player")),
                                            self._params(n), None, None, None, (), d.span, None)
        # Procedures first (their names are checked by calls), with empty bodies filled in afterwards.
        procs = self._section(decls, "procedures")
        for name, d in procs:
            rules.procedures[name] = ProcDef(name, self._params(d.node), (), d.span, _source(d.node))
        for name, d in wanted("procedures"):
            params = rules.procedures[name].params
            scope = Scope.of(params)
            rules.procedures[name].body = self._rule_body(b, f"procedures.{name}", self._do(d), d, scope)
        for name, d in wanted("setup"):
            body = self._rule_body(b, f"setup.{name}", self._do(d), d, Scope({}, False))
            rules.setup.append(StepDef(name, body, d.span, _source(d.node)))
        built = wanted("actions")
        for name, d in built:
            b.rule = f"actions.{name}"
            rules.actions[name] = self._shared_action(b, name, d, shared)
        for name, d in self._section(decls, "actions") if focus is not None else ():
            # An action left unbuilt still says which parameters have a domain (the flow asks); never run.
            raw = d.node.get("params") if isinstance(d.node, dict) else None
            if (name, d) not in built and isinstance(raw, dict):
                rules.actions[name].domains = {str(p): made(_unbuilt) for p, spec in raw.items()
                                               if isinstance(spec, dict) and "in" in spec}
        for name, d in wanted("triggers"):
            n = d.node if isinstance(d.node, dict) else {}
            if isinstance(n.get("on"), dict):  # {change: counter}: runs when the counter changes
                watch.build(b, rules, name, d, n, self._rule_body)
                continue
            event = str(n.get("on", ""))
            if event not in rules.events:
                self.diags.error("E401", f"unknown event '{event}'", _vspan(n, "on", d.span),
                                 did_you_mean(event, rules.events))
                continue
            scope = Scope.of(rules.events[event])
            guard = b.expression(n["if"], _vspan(n, "if", d.span), scope) if "if" in n else None
            body = self._rule_body(b, f"triggers.{name}", self._do(d), d, scope)
            rules.triggers.setdefault(event, []).append(
                TriggerDef(name, event, guard, body, d.span, str(n["if"]) if "if" in n else None, _source(n),
                           _vspan(n, "on", d.span)))
        for name, d in wanted("scoring"):
            rules.scoring.append(StepDef(name, self._rule_body(b, f"scoring.{name}", self._do(d), d, Scope({}, True)),
                                         d.span, _source(d.node)))
        if focus is None:  # a hook's step lives in a body that focusing may have left unbuilt
            hooks.report_unused(b, self.diags)
        self._check_counts(rules)

    @staticmethod
    def _rule_body(b: Builder, rule: str, items: Any, d: Decl, scope: Scope) -> Any:
        """A rule's `do:`, with the hooks of every module that wraps it."""
        shared = shared_links.current()
        if shared is None:
            return Linker._fresh_body(b, rule, items, d, scope)
        wrapped, specs = _hooks_of(b, rule)
        key = ("body", rule, d.span, scope.key(), wrapped, b.instead_depth, b.game_over)
        body = shared.unit(b, key, (d.node, *specs), lambda: Linker._fresh_body(b, rule, items, d, scope))
        b.rule = rule
        return body

    @staticmethod
    def _fresh_body(b: Builder, rule: str, items: Any, d: Decl, scope: Scope) -> Any:
        b.rule = rule
        outside = scope.child()  # hooks see the rule's parameters, not the names its body binds
        return hooks.wrap_body(b, rule, b.body(items, _vspan(d.node, "do", d.span), scope), outside)

    @staticmethod
    def _do(d: Decl) -> Any:
        return d.node.get("do", []) if isinstance(d.node, dict) else d.node

    def _shared_action(self, b: Builder, name: str, d: Decl, shared: shared_links.Shared | None) -> ActionDef:
        """An action, its parts shared with an earlier link where they are exactly what building gives here (each
        link gets an ActionDef of its own: a focused link fills in `domains`)."""
        raw = d.node.get("params") if isinstance(d.node, dict) else None
        for pname, spec in (raw.items() if isinstance(raw, dict) else []):
            if not (isinstance(spec, dict) and "in" in spec):  # each link, shared or not, for the flow's E402
                self._undomained[(name, str(pname))] = _kspan(raw, pname, d.span)
        if shared is None:
            return self._action(b, name, d)
        wrapped, specs = _hooks_of(b, f"actions.{name}")
        key = ("action", name, d.span, wrapped, b.instead_depth, b.game_over)
        a = shared.unit(b, key, (d.node, *specs), lambda: self._action(b, name, d))
        b.rule = f"actions.{name}"
        return ActionDef(a.name, a.title, a.by, a.params, a.guard, a.guard_text, a.cost, a.body, a.span, a.source,
                         dict(a.domains))

    def _action(self, b: Builder, name: str, d: Decl) -> ActionDef:
        n = d.node if isinstance(d.node, dict) else {}
        by = str(n.get("by", "player"))
        params = self._params(n)
        scope = Scope.of(params, by != "game")
        guard = b.expression(n["allowed_if"], _vspan(n, "allowed_if", d.span), scope) if "allowed_if" in n else None
        cost = None
        if "cost" in n:
            text = Text(n["cost"], _vspan(n, "cost", d.span))
            parsed = b.parse(text, "cost")
            if isinstance(parsed, s.Cost):
                try:
                    cost = b.cost(parsed, scope, text)
                except Exception as err:
                    self._report(b, err)
        body = self._rule_body(b, f"actions.{name}", n.get("do", []), d, scope)
        domains = {}
        raw = n.get("params", {})
        for pname, spec in (raw.items() if isinstance(raw, dict) else []):
            if isinstance(spec, dict) and "in" in spec:
                fn = b.expression(spec["in"], _vspan(spec, "in", d.span), Scope({}, by != "game"))
                if fn is not None:
                    domains[str(pname)] = fn
                    b.domain(str(pname), dict(params).get(str(pname), "any"), fn, _vspan(spec, "in", d.span))
        return ActionDef(name, str(n.get("title", name)), by, params, guard,
                         str(n["allowed_if"]) if "allowed_if" in n else None, cost, body, d.span, n.get("source"),
                         domains)

    def _report(self, b: Builder, err: Exception) -> None:
        from .effect_builder import _Reported

        if not isinstance(err, _Reported):
            raise err
        b.error(err.err.code, err.err.message, err.text.at(err.err.pos), err.err.hint)

    def _check_counts(self, rules: Rules) -> None:
        """Sizes written as value names (slots, capacity, spaces) must name numbers fixed before play."""
        sized = [(z.span, z.slots) for z in rules.zones.values()] + [(z.span, z.capacity) for z in rules.zones.values()]
        sized += [(t.span, t.spaces) for t in rules.tracks.values()]
        counted = [(z.span, z.slots, "zone slots") for z in rules.zones.values()]
        counted += [(t.span, t.spaces, "track spaces") for t in rules.tracks.values()]
        for span, raw, what in counted:
            over = check_constant("range_size", raw, f"the number of {what}") if type(raw) is int else None
            if over:
                self.diags.error(BUDGET_CODE, over, span, "rules go through every space, slot and side")
        for span, raw in sized:
            if raw is None or (isinstance(raw, int) and not isinstance(raw, bool)):
                continue
            if not isinstance(raw, str):
                self.diags.error("E402", "a size is a number or the name of a value", span)
            elif raw not in rules.values:
                self.diags.error("E401", f"unknown value '{raw}'", span, did_you_mean(raw, rules.values))
            elif rules.values[raw].kind == "expr":
                self.diags.error("E402", f"'{raw}' is a formula, but a size is fixed before play", span,
                                 "use a number or a player-count table; check a changing limit with require")
            elif rules.values[raw].kind == "table" or rules.value_type(raw) not in ("int", "any"):
                self.diags.error("E402", f"'{raw}' is not a number, but a size is a number", span,
                                 "use a number or a player-count table")

    # ---------------------------------------------------------------- game flow
    def _flow(self, rules: Rules, ordered: list[Module], closure: dict[str, set[str]]) -> None:
        """The last module in requires order that declares `flow` gives the game's course."""
        owner: Module | None = None
        for m in ordered:
            if not isinstance(m.doc.get("flow"), dict):
                continue
            if owner is not None and owner.id not in closure[m.id]:
                self.diags.error("E407", f"both {owner.id} and {m.id} declare the game flow",
                                 _kspan(m.doc, "flow", m.span), "make one module require the other, so the order is "
                                 "explicit")
            owner = m
        if owner is None:
            return
        node = owner.doc["flow"]
        span = _kspan(owner.doc, "flow", owner.span)
        b = Builder(rules, self.diags)
        game = Scope({}, False)
        phases: list[PhaseDef] = []
        undomained: set[tuple[str, str]] = set()  # one error for a parameter, however many phases offer it
        raw_phases = node.get("phases", {})
        for pname, ph in (raw_phases.items() if isinstance(raw_phases, dict) else []):
            pspan = _kspan(raw_phases, pname, span)
            ph = ph if isinstance(ph, dict) else {}
            guard = b.expression(ph["if"], _vspan(ph, "if", pspan), game) if "if" in ph else None
            turns = None
            if isinstance(ph.get("turns"), dict):
                turns = self._turns(b, ph["turns"], _vspan(ph, "turns", pspan))
            actions = tuple(str(a) for a in ph.get("actions", []) or [])
            aspans = getattr(ph.get("actions"), "item_spans", None)
            for i, a in enumerate(actions):
                act = rules.actions.get(a)
                where = aspans[i] if aspans and i < len(aspans) else pspan
                if act is None:
                    self.diags.error("E401", f"unknown action '{a}'", where, did_you_mean(a, rules.actions))
                    continue
                if act.by != "player":
                    self.diags.error("E402", f"'{a}' is taken by the game, not by a player in a turn", where)
                for param, ptype in act.params:
                    if param not in act.domains and ptype not in ("bool", "player") \
                            and (a, param) not in undomained:
                        undomained.add((a, param))
                        self.diags.error("E402", f"parameter '{param}' of '{a}' has no domain, but phase '{pname}' "
                                         "offers the action, so its moves cannot be listed",
                                         self._undomained.get((a, param), where), f"declare params: {{{param}: "
                                         f"{{type: {ptype}, in: EXPR}}}} with the values it may take")
            if turns is None and actions:
                self.diags.error("E402", f"phase '{pname}' lists actions but has no turns", pspan,
                                 "add turns: {} so the players take turns in it")
            before = b.body(ph.get("before", []), _vspan(ph, "before", pspan), game.child())
            body = b.body(ph.get("do", []), _vspan(ph, "do", pspan), game.child())
            after = b.body(ph.get("after", []), _vspan(ph, "after", pspan), game.child())
            phases.append(PhaseDef(str(pname), guard, turns, actions, before, body, after, pspan))
        if not phases:
            self.diags.error("E201", "a flow needs at least one phase", span)
        first = b.expression(node["first_player"], _vspan(node, "first_player", span), game) \
            if "first_player" in node else None
        end = node.get("end", {}) if isinstance(node.get("end"), dict) else {}
        espan = _vspan(node, "end", span)
        end_when = b.expression(end["when"], _vspan(end, "when", espan), game) if "when" in end else None
        end_after = ends.end_after(end, espan, self.diags)
        b.game_over = True
        final = b.body(end.get("do", []), _vspan(end, "do", espan), game.child())
        b.game_over = False
        ranking = []
        raw_rank = node.get("ranking", [])
        rspans = getattr(raw_rank, "item_spans", None)
        for i, key in enumerate(raw_rank if isinstance(raw_rank, list) else []):
            kspan = rspans[i] if rspans and i < len(rspans) else span
            fn = b.expression(key, kspan, Scope({}, True))
            if fn is not None:
                ranking.append((fn, key if isinstance(key, str) else str(key)))  # a YAML string keeps its place
        rules.flow = FlowDef(phases, first, end_when, str(end["when"]) if "when" in end else None, final,
                             tuple(ranking), span, end_after)

    def _turns(self, b: Builder, node: dict, span: Span) -> TurnsDef:
        game = Scope({}, False)
        first = b.expression(node["from"], _vspan(node, "from", span), game) if "from" in node else None
        until = str(node.get("until", "each_once"))
        until_fn = None
        if until not in ("each_once", "all_passed"):
            until_fn = b.expression(node["until"], _vspan(node, "until", span), game)
            until = "expr"
        per = node.get("actions", 1)
        if isinstance(per, str) and per != "any" and per in b.rules.values:  # a value: fixed before play
            per = b.rules.values[per].data if b.rules.values[per].kind == "const" else None
        per_turn = None if per == "any" else _count(per)
        if per != "any" and (per_turn is None or per_turn < 1):
            self.diags.error("E201", "turns.actions is a whole number of at least 1, the name of a number value, "
                             "or 'any'",
                             _vspan(node, "actions", span))
            per_turn = 1
        return TurnsDef(first, until, until_fn, per_turn, span)


def _hooks_of(b: Builder, rule: str) -> tuple[tuple, list[Any]]:
    """The hooks around `rule` and its named steps (target, module and place of each), and their YAML."""
    inside = rule + "."
    targets = sorted(t for t in b.hooks if t == rule or t.startswith(inside))
    wrapped = tuple((t, tuple((h.module, h.span) for h in b.hooks[t])) for t in targets)
    return wrapped, [h.spec for t in targets for h in b.hooks[t]]


# What each component section declares, in the order they are declared: kind -> function. The rule sections
# (BUILT) are built afterwards, from these (Linker._build). tests/test_dispatch.py proves the two cover DECLARING.
DECLARE: dict[str, Callable[[Linker, Rules, str, Decl], None]] = {
    "sets": Linker._declare_set,
    "values": Linker._declare_value,
    "counters": Linker._declare_counter,
    "pieces": Linker._declare_piece,
    "zones": Linker._declare_zone,
    "tracks": Linker._declare_track,
    "dice": Linker._declare_die,
    "events": Linker._declare_event,
}
BUILT = ("costs", "procedures", "setup", "actions", "triggers", "scoring", "substitutes")


def _check_counter_overflow(rules: Rules, name: str, d: Decl, diags: Diagnostics) -> None:
    watch.check_overflow(rules, rules.counters[name], _vspan(d.node, "carry_to", d.span), diags)


def _check_zone_overflow(rules: Rules, name: str, d: Decl, diags: Diagnostics) -> None:
    watch.check_zone_overflow(rules, rules.zones[name], _vspan(d.node, "carry_to", d.span), diags)


# Checks that need the whole section declared first (a carry goes to another counter or zone).
DECLARED: dict[str, Callable[[Rules, str, Decl, Diagnostics], None]] = {
    "counters": _check_counter_overflow,
    "zones": _check_zone_overflow,
}
