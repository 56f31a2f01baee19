"""Scenario files checked without running them (E841): their modules, player count, actions, parameters,
answers, expected error codes, and the counters, zones, pieces and markers of `state` and `expect` resolve
against the modules they load, with the place in the scenario file."""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostics, Span, did_you_mean
from ..diagnostics_codes import CODES
from ..engine import effects as e
from ..engine.rules import Rules
from ..engine.values import shown
from ..language import checked as c
from ..language import syntax as s
from ..language.compile_error import CompileError
from ..language.compiler import Scope
from ..language.effect_builder import Builder
from ..language.linker import Module
from ..language.loader import load_yaml_bytes, read_file
from ..language.options import set_options
from ..language.pack import display, link
from ..language.parser import ParseError, parse
from ..language.types import FAMILY, ZONE, Type
from ..language.valid_cache import validate_file
from ..tools.scenario_refusal import code_of
from .answers import Asked, asked
from .tree import Changes, Linked, every_effect, rule_bodies

_PLAYER = re.compile(r"^p([1-9])$")
_WORDS = {"yes", "no", "true", "false", "none", "nothing"}  # nothing: a cost alternative as written


def _vspan(node: Any, key: str, fallback: Span) -> Span:
    return getattr(node, "value_spans", {}).get(key, getattr(node, "key_spans", {}).get(key, fallback))


def _ispan(items: Any, i: int, fallback: Span) -> Span:
    spans = getattr(items, "item_spans", None) or []
    return spans[i] if i < len(spans) else fallback


Linker = Callable[[dict[str, Module], list[str], Diagnostics, Any], Rules]


class ScenarioChecker:
    """The one check of what a scenario names: `boardrules check` runs it on every scenario file, and
    `boardrules test` on each scenario before playing it, so both report a mistake with one code at one place."""

    def __init__(self, modules: dict[str, Module], diags: Diagnostics,
                 linked: dict[tuple[str, ...], Rules] | None = None, linker: Linker = link) -> None:
        self.modules = modules
        self.diags = diags
        self.linker = linker  # the scenario runner passes its own, which keeps the rules it links
        self._labels: set[str] | None = None
        # Links the module checks already made (roots -> rules), so each set of modules is linked once.
        self._rules: dict[tuple, Rules | None] = {(roots, ()): rules for roots, rules in (linked or {}).items()}
        self._trees: dict[int, tuple[Rules, Linked]] = {}
        self._builders: dict[int, tuple[Rules, Builder]] = {}
        # Per builder, what each expression text resolves to: None, or the error (message, hint) it reports.
        self._resolved: dict[int, dict[str, tuple[tuple[str, str | None] | None, Type | None]]] = {}
        self._dirs: dict[str, str] = {}  # real paths of the scenario files' directories, for display()
        self._asked: dict[int, tuple[Rules, Asked]] = {}  # per action: what its decisions accept
        self._known: dict[int, tuple[Rules, set[str]]] = {}  # per link: the names an answer may be

    def _builder(self, rules: Rules) -> Builder:
        """A builder over a link, made once for all the scenarios that use it: the checks use only its
        expression compiler, which gives each expression and scope the same answer every time."""
        hit = self._builders.get(id(rules))
        if hit is None or hit[0] is not rules:
            hit = self._builders[id(rules)] = (rules, Builder(rules, Diagnostics()))
            self._resolved[id(hit[1])] = {}
        return hit[1]

    def _tree(self, rules: Rules) -> Linked:
        """The effect-tree view of a link, made once for all the scenarios that use it."""
        hit = self._trees.get(id(rules))
        if hit is None or hit[0] is not rules:
            hit = self._trees[id(rules)] = (rules, Linked(rules))
        return hit[1]

    def labels(self, file: str) -> set[str]:
        """Every `one_of` option label of the pack's modules, from the linked rules of all of them together
        (check has made that link already; a scenario runner makes it once), so an option only a module the
        scenario does not load offers is known too (answering it is refused when the scenario runs, which a
        scenario may test). When the modules do not link together (alternative expansions), each is read
        linked with what it requires."""
        if self._labels is None:
            whole = self._link({"modules": list(self.modules)}, file)
            links = [whole] if whole is not None else [self._link({"modules": [mid]}, file) for mid in self.modules]
            self._labels = set().union(*(option_labels(rules) for rules in links if rules is not None))
        return self._labels

    def error(self, message: str, span: Span, hint: str | None = None) -> None:
        self.diags.error("E841", message, span, hint or "a scenario names what the modules it loads declare")

    def check_file(self, path: Path) -> None:
        name = display(path, self._dirs)
        found = Diagnostics()
        data = read_file(path, found, name)
        doc = None if data is None else load_yaml_bytes(data, name, found)
        if data is not None and isinstance(doc, dict):
            # The whole schema, as `boardrules test` validates it (and from the same cache), so a mistake in a
            # scenario is one code at one place in both.
            validate_file(doc, data, "scenario", found, name)
        self.diags.extend(found.items)
        if found.has_errors or not isinstance(doc, dict):
            return
        self.check_doc(doc, name)

    def check_doc(self, doc: dict, name: str) -> None:
        """A loaded scenario whose keys are known: its names against the modules it loads."""
        top = Span(name, 1, 1)
        self._code(doc, top)
        self._shape(doc, top)
        mods = doc.get("modules", []) or []
        missing = False
        for i, mid in enumerate(mods):
            if str(mid) not in self.modules:
                self.error(f"unknown module '{mid}'", _ispan(mods, i, top), did_you_mean(str(mid), self.modules))
                missing = True
        if missing:
            return
        rules = self._link(doc, name)
        if rules is None:
            return
        players = doc.get("players", 2)
        if isinstance(players, int) and not rules.players_min <= players <= rules.players_max:
            self.error(f"{players} players, but these modules are for {rules.players_min} to {rules.players_max}",
                       _vspan(doc, "players", top))
            return
        count = players if isinstance(players, int) else 2
        builder = self._builder(rules)
        state = doc.get("state")
        if isinstance(state, dict):
            self._state(rules, builder, state, count, _vspan(doc, "state", top))
        steps = doc.get("steps", []) or []
        for i, step in enumerate(steps):
            if isinstance(step, dict):
                self._step(rules, step, count, _ispan(steps, i, top), doc.get("flow") is True)
        expect = doc.get("expect", {}) or {}
        kspans = getattr(expect, "key_spans", {})
        for key in expect:
            if self._compiles(builder, str(key), kspans.get(key, top)) == ZONE and type(expect[key]) is int:
                self.error(f"'{key}' is a zone, and a zone is never a number", kspans.get(key, top),
                           f"expect its size: count({key})")
        if steps and isinstance(expect, dict) and expect and _holds_at_start(rules, self._tree(rules), doc, count):
            self.diags.warning("W863", "every expectation of this scenario already holds before its steps, so it "
                               "proves nothing about them", getattr(doc, "key_spans", {}).get("expect", top),
                               "expect what the steps change (or add the step that should change it)")

    def _link(self, doc: dict, file: str) -> Rules | None:
        raw = doc.get("options", {}) or {}
        ospans = getattr(raw, "key_spans", {})
        options = {str(k): (v, ospans.get(k, Span(file, 1, 1))) for k, v in raw.items()}
        key = (tuple(str(m) for m in doc.get("modules", []) or []), tuple(sorted((k, repr(v)) for k, (v, _) in
                                                                              options.items())))
        if key not in self._rules:
            found = Diagnostics()
            if options and self.linker is link:
                # `check` only: options change starting values, not names, so the scenario is checked against
                # the modules' own link with its options applied to a copy (set_options reports their mistakes).
                # `test` passes its own linker: it plays the scenario on what it links, options compiled in.
                plain = self._link({"modules": list(key[0])}, file)
                rules = None if plain is None else _with_options(plain, options, found)
            else:
                rules = self.linker(self.modules, list(key[0]), found, options or None)
            # The modules' own errors are reported by checking the modules; an option is the scenario's.
            self.diags.extend(d for d in found.items if d.span is not None and d.span.file == file)
            self._rules[key] = None if found.has_errors else rules
        return self._rules[key]

    def _compiles(self, builder: Builder, text: str, span: Span) -> Type | None:
        """Resolve an expression's names and types (E841 for each problem), without generating its code; its type
        when it resolves. The same text against the same link resolves the same way: many scenarios expect the
        same counters."""
        known = self._resolved[id(builder)]
        if text not in known:
            known[text] = _resolution(builder, text)
        failed, kind = known[text]
        if failed is not None:
            self.error(failed[0], span, failed[1])
        return kind

    def _player(self, raw: Any, count: int, span: Span) -> bool:
        m = _PLAYER.match(str(raw))
        if m is None or int(m.group(1)) > count:
            self.error(f"there is no player '{raw}' in a {count}-player game", span)
            return False
        return True

    def _zone(self, rules: Rules, raw: str, count: int, span: Span) -> None:
        owner, _, zone = raw.rpartition(".")
        decl = rules.zones.get(zone)
        if decl is None:
            self.error(f"unknown zone '{zone}'", span, did_you_mean(zone, rules.zones))
        elif owner and decl.per == "player":
            self._player(owner, count, span)
        elif bool(owner) != (decl.per == "player"):
            self.error(f"zone '{zone}' is {'per player: write p1.' + zone if decl.per == 'player' else 'shared'}"
                       f", not '{raw}'", span)

    def _state(self, rules: Rules, builder: Builder, state: dict, count: int, base: Span) -> None:
        empty = state.get("empty", []) or []
        for i, zone in enumerate(empty):
            self._zone(rules, str(zone), count, _ispan(empty, i, base))
        counters = state.get("counters", {}) or {}
        kspans = getattr(counters, "key_spans", {})
        for key in counters:
            self._compiles(builder, str(key), kspans.get(key, base))
        pieces = state.get("pieces", []) or []
        ids: set[str] = set()
        for i, piece in enumerate(pieces):
            span = _ispan(pieces, i, base)
            if not isinstance(piece, dict):
                continue
            pid = str(piece.get("id"))
            if pid in ids:
                self.diags.error("E403", f"a piece with id '{pid}' already exists", _vspan(piece, "id", span),
                                 "give each piece of the state its own id")
            ids.add(pid)
            kind = str(piece.get("kind"))
            if kind not in rules.kinds:
                self.error(f"unknown piece kind '{kind}'", _vspan(piece, "kind", span),
                           did_you_mean(kind, rules.kinds))
            self._zone(rules, str(piece.get("zone")), count, _vspan(piece, "zone", span))
            if kind not in rules.kinds:
                continue
            props = piece.get("props", {}) or {}
            pspans = getattr(props, "key_spans", {})
            for prop in props:
                if prop not in rules.kinds[kind]:
                    self.error(f"'{kind}' has no property '{prop}'", pspans.get(prop, span),
                               did_you_mean(str(prop), rules.kinds[kind]))
        links = state.get("links", []) or []
        for i, pair in enumerate(links):
            for pid in pair if isinstance(pair, list) else []:
                if str(pid).removeprefix("$") not in ids:
                    self.error(f"links name '{pid}', which the state does not create", _ispan(links, i, base),
                               did_you_mean(str(pid), ids))
        markers = state.get("markers", {}) or {}
        mspans = getattr(markers, "key_spans", {})
        for marker in markers:
            owner, _, own = str(marker).rpartition(".")
            if owner and own in getattr(rules, "player_markers", ()):
                self._player(owner, count, mspans.get(marker, base))
            elif marker not in rules.markers:
                self.error(f"unknown marker '{marker}'", mspans.get(marker, base), did_you_mean(marker, rules.markers))
        turn = state.get("turn", {}) or {}
        if isinstance(turn, dict) and "player" in turn:
            self._player(turn["player"], count, _vspan(turn, "player", base))

    def _step(self, rules: Rules, step: dict, count: int, span: Span, flow: bool = False) -> None:
        if "end_turn" in step:
            self._player(step["end_turn"], count, _vspan(step, "end_turn", span))
        code = self._code(step, span)
        for i, answer in enumerate(step.get("answers", []) or []):
            self._answer(rules, answer, count, _ispan(step.get("answers"), i, span))
        if "action" not in step or code == "E509":  # a step expecting E509 tests that refusal on purpose
            return
        name = str(step["action"])
        action = rules.actions.get(name)
        if action is None:
            self.error(f"unknown action '{name}'", _vspan(step, "action", span), did_you_mean(name, rules.actions))
            return
        if "player" in step:
            self._player(step["player"], count, _vspan(step, "player", span))
        elif action.by == "player" and not flow:
            self.error(f"action '{name}' is taken by a player: say which", _vspan(step, "action", span),
                       "write player: p1 (or the player who takes it) in the step")
        if not flow and code is None:  # with a flow, the phases a move ends may ask with the step's answers too;
            self._fits(rules, name, step, span)  # a refused step may stop before its answers (E712 says so)
        params = step.get("params", {}) or {}
        declared = dict(action.params)
        pspans = getattr(params, "key_spans", {})
        for key, value in params.items():
            where = pspans.get(key, span)
            if key not in declared:
                self.error(f"'{name}' has no parameter '{key}'", where, did_you_mean(str(key), declared))
            elif declared[key] == "int" and (isinstance(value, bool) or not isinstance(value, int)):
                self.error(f"parameter '{key}' of '{name}' is a number, not {shown(value)}", where)
            elif declared[key] == "symbol" and str(value) not in rules.symbols:
                self.error(f"parameter '{key}' of '{name}' is a symbol, and '{value}' is not declared", where,
                           did_you_mean(str(value), rules.symbols))
            elif declared[key] == "bool" and not isinstance(value, bool):
                self.error(f"parameter '{key}' of '{name}' is true or false, not {shown(value)}", where)
            elif declared[key] == "player":
                self._player(value, count, where)
        missing = [f"'{key}' ({kind})" for key, kind in action.params if key not in params]
        if missing and isinstance(params, dict) and all(key in declared for key in params):  # else a typo, said
            self.error(f"'{name}' needs the parameter{'s' if len(missing) > 1 else ''} {', '.join(missing)}",
                       _vspan(step, "params", _vspan(step, "action", span)),
                       "give every parameter under params: (a step that tests the refusal expects E509)")

    def _fits(self, rules: Rules, name: str, step: dict, span: Span) -> None:
        """Each answer (one the modules know) against what the decisions the action can ask accept."""
        action = rules.actions[name]
        hit = self._asked.get(id(action))
        if hit is None or hit[0] is not rules:
            hit = self._asked[id(action)] = (rules, asked(rules, self._tree(rules), action))
        accepts = hit[1]
        if not accepts.asks():
            return  # answers to an action that asks nothing are left over when it runs, and `test` lists them
        answers = step.get("answers", []) or []
        hit_known = self._known.get(id(rules))
        if hit_known is None or hit_known[0] is not rules:
            words = rules.symbols | set(rules.kinds) | set(rules.actions) | self.labels(span.file)
            hit_known = self._known[id(rules)] = (rules, words)
        known = hit_known[1]
        for i, answer in enumerate(answers if isinstance(answers, list) else []):
            where = _ispan(answers, i, span)
            for atom in _atoms(answer):
                if isinstance(atom, bool) or str(atom).lower() in ("yes", "no"):
                    if not (accepts.yes_no or accepts.anything):
                        self.error(f"the answer {shown(atom)} fits no decision '{name}' can ask: it has no `may` "
                                   f"(it asks for: {accepts.wanted()})", where,
                                   "answers go to the step's decisions in order")
                    continue
                if not isinstance(atom, str | int):
                    continue
                text = str(atom)
                player = _PLAYER.match(text) is not None
                if isinstance(atom, str) and (text.lower() in _WORDS or text.startswith("$") or " " in text
                                              or not (player or text in known)):
                    continue  # a word every decision may take, a piece, a way to pay, or a name reported already
                if not accepts.fits(atom, player):
                    self.error(f"the answer {shown(atom)} fits no decision '{name}' can ask (it asks for: "
                               f"{accepts.wanted()})", where, "answers go to the step's decisions in order")

    def _shape(self, doc: dict[str, Any], top: Span) -> None:
        """What a scenario asks that cannot run: a flow without its setup; steps after a setup that must fail."""
        if doc.get("flow") is True and doc.get("setup") is False:
            # A flow starts from its setup (the first phase, the first player's turn): there is nothing to follow
            # without one, and the state a scenario wants is what `state:` sets after the setup.
            self.diags.error("E710", "a scenario with `flow: true` runs the setup: drop `setup: false`, and give "
                             "the starting state with `state:`", _vspan(doc, "setup", top))
        if "expect_error" in doc and any(key in doc for key in ("state", "steps", "expect")):
            self.diags.error("E713", "a scenario whose setup must fail has no `state`, `steps` or `expect`: "
                             "nothing after a failed setup runs", _vspan(doc, "expect_error", top))

    def _code(self, node: dict[str, Any], span: Span) -> str | None:
        """The code of the node's `expect_error` (either form), reported when it is no diagnostic code."""
        code = code_of(node.get("expect_error"))
        if code is not None and code not in CODES:
            self.error(f"'{code}' is not a diagnostic code", _vspan(node, "expect_error", span),
                       did_you_mean(code, CODES))
        return code

    def _answer(self, rules: Rules, answer: Any, count: int, span: Span) -> None:
        if isinstance(answer, dict) and len(answer) == 1:
            (who, value), = answer.items()
            self._player(who, count, span)
            self._answer(rules, value, count, span)
            return
        if isinstance(answer, list):
            for item in answer:
                self._answer(rules, item, count, span)
            return
        if not isinstance(answer, str) or isinstance(answer, bool):
            return
        text = str(answer)
        if text.lower() in _WORDS or text.startswith("$") or " " in text or text in self.labels(span.file):
            return
        if _PLAYER.match(text):
            self._player(text, count, span)
            return
        known = rules.symbols | set(rules.kinds) | set(rules.actions)
        if text not in known:
            self.error(f"the answer '{text}' is no option, symbol or player the modules know", span,
                       did_you_mean(text, known | self.labels(span.file)))


def _atoms(answer: Any) -> list[Any]:
    """The single values of one answer: `{p2: x}` is x, a list for a `count` choice is its items."""
    if isinstance(answer, dict) and len(answer) == 1:
        return _atoms(next(iter(answer.values())))
    if isinstance(answer, list):
        return [atom for item in answer for atom in _atoms(item)]
    return [answer]


def _resolution(builder: Builder, text: str) -> tuple[tuple[str, str | None] | None, Type | None]:
    """(None, its type) when `text` is an expression whose names and types resolve; else (its error's message
    and hint, None)."""
    try:
        kind = builder.exprs.resolve(parse(text, "expr"), Scope({}, False))
    except (ParseError, CompileError) as err:
        return (err.message, err.hint), None
    if kind == FAMILY:  # a keyed counter as a whole holds no one number to set or expect
        return (f"'{text}' is a keyed counter: name one key", f"write {text}[key]"), None
    return None, kind


def option_labels(rules: Rules) -> set[str]:
    """The label of every `one_of` option written in the linked modules: those their rules hold (one an `instead`
    hook stands in for too), and those an extension adds or drops (a later one may drop what another added)."""
    labels = {label for body in rule_bodies(rules).values() for eff in every_effect(body)
              if isinstance(eff, e.OneOfE) for label, _, _ in eff.options}
    for change in rules.choice_changes:
        labels.update(change.added or ())
        labels.update(change.dropped or ())
    return labels


def check(modules: dict[str, Module], files: list[Path], diags: Diagnostics,
          linked: dict[tuple[str, ...], Rules] | None = None) -> None:
    checker = ScenarioChecker(modules, diags, linked)
    for path in files:
        checker.check_file(path)


def _with_options(rules: Rules, options: dict[str, tuple[Any, Span]], diags: Diagnostics) -> Rules:
    """A copy of linked rules with options set on it (the declarations options change are copied first)."""
    out = copy.copy(rules)
    out.values = dict(rules.values)
    out.counters = {name: dataclasses.replace(c) for name, c in rules.counters.items()}
    out.prop_defaults = dict(rules.prop_defaults)
    out.options = dict(rules.options)
    out.totality = None  # options change counters' limits, so what always finishes is worked out again
    set_options(out, options, diags)
    return out


def _start_value(rules: Rules, key: str, count: int, state: dict[str, Any]) -> object:
    """A counter cell's value before the steps, when the scenario's state or the counter's declaration fixes it
    and no setup rule changes it; _UNSURE otherwise."""
    if key in state:
        return state[key]
    try:
        node = parse(key, "expr")
    except ParseError:
        return _UNSURE
    cell = None
    if isinstance(node, s.Index) and isinstance(node.key, s.Name | s.Literal):
        cell = node.key.id if isinstance(node.key, s.Name) else node.key.value
        node = node.obj
    name = node.name if isinstance(node, s.Attr) and isinstance(node.obj, s.Name) else \
        node.id if isinstance(node, s.Name) else None
    c = rules.counters.get(name or "")
    if c is None or (c.keys is None) != (cell is None) or name in rules.options:
        return _UNSURE
    initial = c.initial if c.initial is not None else 0
    if isinstance(initial, dict):
        initial = initial.get(str(cell), 0)
    found = rules.resolve_int(initial, count) if isinstance(initial, str | int) else None
    return _UNSURE if found is None or isinstance(found, bool) else found


def _holds_at_start(rules: Rules, linked: Linked, doc: dict[str, Any], count: int) -> bool:
    """Whether every expectation is a counter (or a marker's position, or a zone's size) whose start (state, or
    declaration untouched by setup) is already the expected value, and which no step's action can change: the
    steps could be left out and it would pass. (A scenario whose steps could change what it expects, and do not,
    proves that they do not.)"""
    steps = doc.get("steps") or []
    if doc.get("flow") is True or any(not isinstance(st, dict) or "expect_error" in st or "action" not in st
                                      for st in steps):
        return False
    state = doc.get("state", {}) or {}
    counters = {str(k): v for k, v in (state.get("counters", {}) or {}).items()} if isinstance(state, dict) else {}
    markers = {str(k): v for k, v in (state.get("markers", {}) or {}).items()} if isinstance(state, dict) else {}
    touched: set[str] = set()
    setup = [step.body for step in rules.setup] if doc.get("setup", True) is not False else []
    touched.update(name for body in setup for name in linked.changes(body).counters)
    if any(linked.changes(body).markers for body in setup):
        touched.add(_MARKERS)
    pieces = state.get("pieces", []) if isinstance(state, dict) else []
    placed = [str(x.get("zone")) for x in pieces or [] if isinstance(x, dict)]
    emptied = {str(z) for z in (state.get("empty") or [])} if isinstance(state, dict) else set()
    # (who acts, the counters the step may change, the action, what its body changes, the cost terms it may pay)
    acts: list[tuple[str, set[str], Any, Changes, list[e.CostTermC]]] = []
    for st in steps:
        action = rules.actions.get(str(st["action"]))
        if action is None:
            return False
        paid = [term for alt in (action.cost.alternatives if action.cost is not None else ()) for term in alt]
        paid += [term.lacking for term in paid if term.lacking is not None]
        paid += [term for sub in rules.substitutes for term in sub.instead] if paid else []
        ch = linked.changes(action.body)
        changed = {term.counter for term in paid} | set(ch.counters)
        if any(term.marker for term in paid) or ch.markers:
            changed.add(_MARKERS)  # which marker, and whose, is not told apart
        acts.append((str(st.get("player", "")), changed, action, ch, paid))
    moved_zones = [linked.changes(rules.actions[str(st["action"])].body) for st in steps]
    for key, want in doc["expect"].items():
        zone = _zone_count(rules, str(key))
        if zone is not None:
            name, written = zone
            if written not in emptied and any(linked.changes(body).changes_zone(name) for body in setup):
                return False  # setup may put pieces in it
            if placed.count(written) != want or type(want) is not int or any(ch.changes_zone(name)
                                                                            for ch in moved_zones):
                return False
            continue
        space = _marker_space(rules, str(key), markers)
        if space is not None:
            if space is _UNSURE or space != want or type(space) is not type(want) or _MARKERS in touched or any(
                    _MARKERS in act[1] for act in acts):
                return False
            continue
        start = _start_value(rules, str(key), count, counters)
        owner, _, name = str(key).split("[")[0].rpartition(".")
        if start is _UNSURE or name in touched or start != want or type(start) is not type(want):
            return False
        cell = str(key).partition("[")[2].rstrip("]") or None
        for actor, changed, action, ch, paid in acts:
            if cell is not None and not _may_change_cell(ch, paid, name, cell):
                continue  # it changes other keys of the counter only
            # Another player's step changes this player's counter only if the action reaches past its own.
            if name in changed and (not owner or owner == actor or not _only_own(linked, action.body, name)):
                return False
    return True


def _may_change_cell(ch: Changes, paid: list[e.CostTermC], counter: str, key: str) -> bool:
    """Whether a step may change one key of a keyed counter: its body writes that key (or a key not known before
    play), or a cost it pays asks that key (or any key)."""
    return ch.changes_cell(counter, key) or any(
        term.counter == counter and (term.key_fn is not None or term.key in (None, "any", "different", key))
        for term in paid)


def _marker_space(rules: Rules, key: str, state: dict[str, Any]) -> object:
    """A marker's space before the steps (`position(pawn)`, `position(p1.runner)`): the scenario's state, else its
    track's start; None when `key` is no marker's position, _UNSURE when the space is not known."""
    try:
        node = parse(key, "expr")
    except ParseError:
        return None
    if not isinstance(node, s.Call) or node.fn != "position" or len(node.args) != 1:
        return None
    arg = node.args[0]
    if isinstance(arg, s.Name):
        marker, written = arg.id, arg.id
    elif isinstance(arg, s.Attr) and isinstance(arg.obj, s.Name):
        marker, written = arg.name, f"{arg.obj.id}.{arg.name}"
    else:
        return None
    track = rules.tracks.get(rules.markers.get(marker, ""))
    if track is None:
        return None
    if written in state:
        return state[written]
    start = track.markers.get(marker)
    return start if type(start) is int else _UNSURE


def _zone_count(rules: Rules, key: str) -> tuple[str, str] | None:
    """(zone, the zone as a scenario writes it) for an expectation on a zone's size (`count(pile)`,
    `count(p1.hand)`); None for anything else."""
    try:
        node = parse(key, "expr")
    except ParseError:
        return None
    if not isinstance(node, s.Call) or node.fn != "count" or len(node.args) != 1:
        return None
    arg = node.args[0]
    if isinstance(arg, s.Name) and arg.id in rules.zones:
        return arg.id, arg.id
    if isinstance(arg, s.Attr) and isinstance(arg.obj, s.Name) and arg.name in rules.zones:
        return arg.name, f"{arg.obj.id}.{arg.name}"
    return None


def _only_own(linked: Linked, body: Any, counter: str) -> bool:
    """Whether running `body` for a player changes `counter` only for that player: every write of it is to the
    acting player's (`me.counter`), and nothing it runs acts for someone else or starts a trigger."""
    for eff in linked.reach(body):
        if isinstance(eff, e.AsE | e.DeferE) or (isinstance(eff, e.CallE | e.TakeE) and eff.as_player is not None):
            return False
        if not isinstance(eff, e.CallE | e.TakeE) and linked.run_by(eff):
            return False  # a trigger runs for whoever it watches
        if isinstance(eff, e.PayE) and eff.by is not None:
            return False
        if isinstance(eff, e.SetCounterE) and eff.counter == counter:
            key = eff.key.tree
            owner = key.owner if isinstance(key, c.CounterKey | c.Cell) else None
            if not (isinstance(owner, c.Name) and owner.ref.kind == "me"):
                return False
    return True


_UNSURE = object()
_MARKERS = " markers"  # in a set of counter names: some marker moves (no counter has this name)
