"""Built rules shared between the links of one `check`, where a fresh build could not differ.

`check` links every module with what it requires, and all of them together: a shipped pack's base is linked eleven
times, and each link used to build its rule bodies again. Inside `sharing()` a link hands each rule body, action,
named cost and value formula it builds (a unit) to `Shared`, which answers with the result of an earlier link when
that result is exactly what building it again would give:

- the unit is the same YAML (the very node, kept so its id is not reused: a copy that `extend` made is another
  unit), with the same rule name, span, scope, and the same hooks of other modules around it and inside it;
- every word written in it (and in its hooks) means the same in both links: for each table a build reads by
  name (values, counters, zones, tracks and their markers, dice, sets, symbols, piece kinds, properties with
  every kind's default, events, named costs, actions' and procedures' parameters) the entry is equal, or for
  what was built in the link (a value's formula, a named cost) the very same object; the player counts, the
  options and whether functions wait for their first call are equal;
- its first build reported nothing (an error's message and hint may read any name), and what it left in the
  builder (the formula text counted per file, a rule's named steps, the hooks used) is replayed, with a fresh
  build instead where replaying would change what is reported (a step named twice, too much formula text).

A value formula that reads a value whose formula is not built yet is never shared (what it reads is not known
until later). tests/test_shared_links.py compares every shared link with the same link built afresh.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

from ..diagnostics import Span
from ..engine.values import Unknown

if TYPE_CHECKING:
    from ..engine.rules import Rules
    from .effect_builder import Builder

T = TypeVar("T")

_on: ContextVar[Shared | None] = ContextVar("boardrules_shared_links", default=None)
_SEATS = frozenset(f"p{n}" for n in range(1, 1000))  # the names the checker reads as seats (p1 to p999)
_WORD = re.compile(r"[A-Za-z0-9_]+|'[^'\n]*'|\"[^\"\n]*\"")


@contextmanager
def sharing() -> Iterator[Shared]:
    """Inside: links share the units they build (one memo for them all, dropped at the end)."""
    shared = Shared()
    token = _on.set(shared)
    try:
        yield shared
    finally:
        _on.reset(token)


def current() -> Shared | None:
    return _on.get()


class _Unit:
    __slots__ = ("hooks_used", "nodes", "parsed", "result", "sig", "steps")

    def __init__(self, nodes: tuple[object, ...], sig: tuple, result: Any, parsed: list, steps: list[str],
                 hooks_used: list[str]) -> None:
        self.nodes, self.sig, self.result = nodes, sig, result
        self.parsed, self.steps, self.hooks_used = parsed, steps, hooks_used


class Shared:
    def __init__(self) -> None:
        self._units: dict[tuple, list[_Unit]] = {}
        self._words: dict[int, tuple[object, frozenset[str]]] = {}
        self._depth = 0  # inside a unit being built: what it builds is part of it
        self.reused = 0
        self.built = 0

    # ---------------------------------------------------------------- the memo
    def unit(self, b: Builder, key: tuple, nodes: tuple[object, ...], build: Callable[[], T],
             own: str | None = None) -> T:
        """What `build()` gives in `b`'s link: an earlier link's result when it is exactly that. `key` says
        which unit (hashable), `nodes` are the YAML it is written in; `own` is the value a value formula is of."""
        if self._depth:
            return build()
        words = self._words_of(nodes)
        sig = _signature(b, words, own)
        full = (*key, *map(id, nodes))
        if sig is not None:
            for unit in self._units.get(full, ()):
                if _same_nodes(unit.nodes, nodes) and _equal(unit.sig, sig) and _replay(b, unit):
                    self.reused += 1
                    return unit.result
        start = (len(b.diags.items), len(b.parse_log), len(b.step_log), len(b.hook_log))
        self._depth += 1
        try:
            result = build()
        finally:
            self._depth -= 1
        self.built += 1
        if sig is not None and len(b.diags.items) == start[0]:
            self._units.setdefault(full, []).append(_Unit(
                nodes, sig, result, b.parse_log[start[1]:], b.step_log[start[2]:], b.hook_log[start[3]:]))
        return result

    def _words_of(self, nodes: tuple[object, ...]) -> frozenset[str]:
        if len(nodes) == 1:
            return self._node_words(nodes[0])
        return frozenset().union(*map(self._node_words, nodes))

    def _node_words(self, node: object) -> frozenset[str]:
        hit = self._words.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        found: set[str] = set()
        stack = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                stack.extend(item.keys())
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
            elif item is not None:
                _scalar_words(item, found)
        words = frozenset(found)
        self._words[id(node)] = (node, words)
        return words


def _scalar_words(item: object, found: set[str]) -> None:
    """Every name a scalar may be read as: itself (a label, a symbol), as a bool's label, and each word and each
    quoted string in it (a superset: a word that is no name means nothing in every link)."""
    text = str(item)
    found.add(text)
    found.add(text.strip())
    if isinstance(item, bool):
        found.add(text.lower())
    for word in _WORD.findall(text):
        found.add(word[1:-1] if word[:1] in "'\"" else word)


def _same_nodes(kept: tuple[object, ...], nodes: tuple[object, ...]) -> bool:
    return all(a is b for a, b in zip(kept, nodes, strict=True))


def _equal(a: tuple, b: tuple) -> bool:
    try:
        return a == b
    except Exception:  # an unknown value refuses to be compared (engine.values.Unknown): not the same
        return False


def _replay(b: Builder, unit: _Unit) -> bool:
    """Leave in `b` what building the unit there would have left; False (nothing changed) where that build
    would report something the first did not."""
    if any(step in b.steps_seen for step in unit.steps):
        return False
    if not b.replay_parses(unit.parsed):
        return False
    b.steps_seen.update(unit.steps)
    b.step_log.extend(unit.steps)
    b.hooks_used.update(unit.hooks_used)
    b.hook_log.extend(unit.hooks_used)
    return True


# ---------------------------------------------------------------- what a word means in one link
def _signature(b: Builder, words: frozenset[str], own: str | None) -> tuple | None:
    """Each word with what it means in `b`'s link, for the words that mean something there (one that means
    nothing in both links is the same in both), with the link's global settings; None when it cannot be known
    yet."""
    view = b.names_view
    if view is None:
        view = b.names_view = _View(b)
    static, dynamic, rules = view.static, view.dynamic, b.rules
    # A seat (p3) exists up to the link's largest player count.
    out: list[Any] = [view.settings, view.players_max if not words.isdisjoint(_SEATS) else None]
    for w in sorted(view.names.intersection(words)):
        meaning = static.get(w)
        if w in dynamic:
            v = rules.values.get(w)
            if v is not None and v.kind == "expr" and v.compiled is None and w != own:
                return None  # a formula read before it is built: what it will be is not known here
            cost, action, proc = rules.costs.get(w), rules.actions.get(w), rules.procedures.get(w)
            meaning = (meaning, v.compiled if v is not None else None, cost,
                       (action.params, action.by) if action is not None else None,
                       proc.params if proc is not None else None)
        out.append((w, meaning))
    return tuple(out)


class _View:
    """The meanings of the names a link declares that do not change while its rules are built."""

    def __init__(self, b: Builder) -> None:
        r: Rules = b.rules
        parts: dict[str, list[Any]] = {}

        def put(name: str, slot: int, value: Any) -> None:
            parts.setdefault(name, [None] * 12)[slot] = value

        for name, v in r.values.items():
            put(name, 0, (v.kind, _plain(v.data) if v.kind == "table" else v.data, v.span, v.source, v.type))
        for name, counter in r.counters.items():
            put(name, 1, _plain(counter) if isinstance(counter.initial, Unknown) else counter)
        for name, zone in r.zones.items():
            put(name, 2, zone)
        for name, track in r.tracks.items():
            put(name, 3, (track, tuple(m for m, t in r.markers.items() if t == name)))
        for name, track_name in r.markers.items():
            put(name, 4, (track_name, name in r.player_markers))
        for name in r.player_markers:
            put(name, 5, True)
        for name, sides in r.dice.items():
            put(name, 6, sides)
        for name, items in r.sets.items():
            put(name, 7, items)
        for name in r.symbols:
            put(name, 8, True)
        for name, kind in r.kinds.items():
            put(name, 9, kind)
        for name, ptype in r.properties.items():
            put(name, 10, (ptype, _defaults(r, name)))
        for name, params in r.events.items():
            put(name, 11, params)
        self.static = {name: tuple(p) for name, p in parts.items()}
        # Tables filled while the rules are built (value formulas, named costs, actions, procedures): read live.
        self.dynamic = {*r.values, *b.built_names}
        self.names = frozenset(self.static).union(self.dynamic)
        self.settings = (repr(sorted(r.options.items())), b.exprs.emitter.defer)
        self.players_max = r.players_max


def _plain(value: Any) -> Any:
    """A declaration as plain data that compares by what it says: an unknown value by its name and note (each link
    makes its own, and they refuse to be compared), a linked table by its fields."""
    if isinstance(value, Unknown):
        return ("unknown", value.name, value.note)
    if isinstance(value, Span):
        return value
    names = getattr(type(value), "__dataclass_fields__", None)
    if names is not None:
        return (type(value).__name__, *(_plain(getattr(value, name, None)) for name in names))
    if isinstance(value, dict):
        return ("dict", *((_plain(k), _plain(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (type(value).__name__, *(_plain(v) for v in value))
    if isinstance(value, frozenset | set):
        return (type(value).__name__, *sorted(map(repr, value)))
    return value


def _defaults(r: Rules, prop: str) -> tuple:
    """What reading a property of a piece gives where its kind does not set it, as the emitter writes it: one
    default for every kind when they agree, else each kind's that gives one."""
    defaults = [(k, r.prop_defaults.get((k, prop))) for k in r.kinds]
    if len({repr(v) for _, v in defaults}) == 1:
        return ("every kind", repr(defaults[0][1]))
    return tuple((k, repr(v)) for k, v in defaults if v is not None)
