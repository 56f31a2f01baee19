"""A value the game module leaves unknown that whole-game play reads (W867).

W601 lists every value a pack leaves unknown on purpose: a seed module keeps the text's gaps. A pack's game module
(the module with a flow that no other requires, which `Game.new(pack)` plays) must give every such value that a
game reaches, or the game stops with E601 the first time it needs it. This follows what play runs from the flow
(setup, the phases' bodies and conditions, the actions the phases offer with their guards and costs, the end
condition and ranking, final scoring) through the procedures, actions and triggers those run, and reports each
formula there that reads such a value (directly, or through a value computed from it), naming the option that
would give it. An option given to `check` (`--set`, `--options`) gives the value; an unknown declared with the
`type:` its option must have, or `input: true`, is a parameter every game is started with, and is left alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from ..diagnostics import Diagnostics, Span
from ..engine import effects as e
from ..engine.rules import Rules
from ..engine.values import Unknown
from ..language import checked as c
from ..language.checked import Expr
from .facts import Facts
from .tree import Linked, every_effect, rule_bodies


def check(facts: Facts, game: Rules, game_module: str, diags: Diagnostics, options: set[str]) -> None:
    # An unknown that declares the type its option must have (`type: int`), or is marked `input: true`, is a
    # parameter each game is started with, not a gap left by mistake.
    unknown = {name for name, v in game.values.items() if v.kind == "unknown" and name not in options
               and v.type is None and name not in facts.inputs}
    tables = any(v.kind == "table" for v in game.values.values())
    starts = _unknown_starts(facts, game, options)
    if not unknown and not tables and not starts:
        return
    through = _through_values(game, unknown)
    reported: set[str] = set()
    for expr, span in _formulas(game):
        assert expr.tree is not None
        for n in c.nodes(expr.tree):
            if isinstance(n, c.TableRead):
                _table_read(n, expr, span, game_module, options | facts.inputs, reported, diags)
                continue
            counter = _counter_read(n)
            if counter in starts and counter not in reported:
                reported.add(counter)
                diags.warning("W867", f"whole-game play reads counter '{counter}', which the game module "
                              f"'{game_module}' starts unknown and no rule sets, so every game stops with E601 "
                              "here", expr.span(n, span) or span,
                              f"give it a start in the game module, or play with --set {counter}=VALUE")
                continue
            if not isinstance(n, c.Name) or n.ref.kind != "value":
                continue
            reads = through.get(n.ref.name)
            if not reads:
                continue
            for name in sorted(reads - reported):
                reported.add(name)
                via = "" if name == n.ref.name else f" (through '{n.ref.name}')"
                diags.warning("W867", f"whole-game play reads '{name}'{via}, which the game module '{game_module}' "
                              "leaves unknown, so every game stops with E601 here", expr.span(fallback=span) or span,
                              f"give it a value in the game module, or play with --set {name}=VALUE")
    for what, raw, span in _declared_sizes(game):
        for name in sorted(through.get(raw, set()) - reported):
            reported.add(name)
            via = "" if name == raw else f" (through '{raw}')"
            diags.warning("W867", f"{what} is '{name}'{via}, which the game module '{game_module}' leaves unknown, "
                          "so a game stops with E601 as soon as it needs it", span,
                          f"give it a value in the game module, or play with --set {name}=VALUE")


def _declared_sizes(rules: Rules) -> Iterator[tuple[str, Any, Span]]:
    """The values declarations name, which a game needs from its start: counters' starts and limits (per key
    too), zones' capacities and slots, tracks' lengths."""
    for x in rules.counters.values():
        starts = x.initial.values() if isinstance(x.initial, dict) else (x.initial,)
        limits = (x.min, x.max, *(v for pair in x.key_limits.values() for v in pair))
        for raw in (*starts, *limits):
            if isinstance(raw, str):
                yield f"the start or a limit of counter '{x.name}'", raw, x.span
    for z in rules.zones.values():
        for raw in (z.capacity, z.slots):
            if isinstance(raw, str):
                yield f"the size of zone '{z.name}'", raw, z.span
    for track in rules.tracks.values():
        if isinstance(track.spaces, str):
            yield f"the length of track '{track.name}'", track.spaces, track.span


def _unknown_starts(facts: Facts, game: Rules, options: set[str]) -> set[str]:
    """Counters the game starts unknown (`initial: {unknown: ...}`), no option gives, and no rule ever sets with
    `=` (adding to an unknown stops the game too): every read of them in play stops the game."""
    found = {name for name, x in game.counters.items() if isinstance(x.initial, Unknown)
             and name not in options and name not in facts.inputs}
    if found:
        for body in rule_bodies(game).values():
            for eff in every_effect(body):
                if isinstance(eff, e.SetCounterE) and eff.op == "=":
                    found.discard(eff.counter)
    return found


def _counter_read(n: c.Node) -> str | None:
    """The counter a node reads by name (`tokens`, `me.tokens`, `me.stock[wine]`), if any."""
    if isinstance(n, c.Name) and n.ref.kind in ("counter", "family"):
        return n.ref.name
    if isinstance(n, c.Attr) and n.kind in ("counter", "family"):
        return n.name
    return None


def _unknown_entries(entries: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The keys of each entry a table leaves unknown."""
    if isinstance(entries, dict):
        for key, entry in entries.items():
            yield from _unknown_entries(entry, (*path, key))
    elif isinstance(entries, Unknown):
        yield path


def _table_read(n: c.TableRead, expr: Expr, span: Span, game_module: str, given: set[str], reported: set[str],
                diags: Diagnostics) -> None:
    """W867 for a read of a table entry left unknown: the entry itself where every key is written out, else each
    unknown entry the keys may come to (`rates[m]` with `m` a parameter)."""
    if n.table is None or n.name in given:
        return  # an option giving several entries (`rates={lead: 3}`) is taken to give them all
    written = n.constant[1] if n.constant[0] else None
    if n.constant[0] and not isinstance(written, Unknown):
        return
    paths = [tuple(_key_text(k) for k in path) for path in _unknown_entries(n.table.entries)]
    if n.constant[0]:
        keys = tuple(_key_text(_constant_key(k)) for k in n.keys)
        paths = [keys]
    names = [f"{n.name}{''.join(f'[{k}]' for k in path)}" for path in paths]
    for name in sorted(x for x in names if x not in given and x not in reported):
        reported.add(name)
        may = "" if n.constant[0] else ", when the keys come to it"
        diags.warning("W867", f"whole-game play reads '{name}', an entry the game module '{game_module}' leaves "
                      f"unknown, so a game stops with E601 here{may}", expr.span(n, span) or span,
                      f"give the entry a value in the game module, or play with --set '{name}=VALUE'")


def _constant_key(node: c.Node) -> Any:
    """A key written out: a symbol's name or a number."""
    if isinstance(node, c.Name):
        return node.ref.name
    return node.value if isinstance(node, c.Literal) else None


def _key_text(key: Any) -> str:
    return str(key)


def _through_values(rules: Rules, unknown: set[str]) -> dict[str, set[str]]:
    """Each value name with the unknown values reading it reads: an unknown itself, or a value computed from one."""
    out: dict[str, set[str]] = {name: {name} for name in unknown}
    changed = True
    while changed:
        changed = False
        for name, v in rules.values.items():
            node = v.compiled.tree if v.kind == "expr" and v.compiled is not None else None
            if node is None:
                continue
            found = set().union(*(out.get(n.ref.name, set()) for n in c.nodes(node)
                                  if isinstance(n, c.Name) and n.ref.kind == "value"))
            if found - out.get(name, set()):
                out.setdefault(name, set()).update(found)
                changed = True
    return out


def _formulas(rules: Rules) -> Iterator[tuple[Expr, Span]]:
    """Every checked formula whole-game play can evaluate, with the place of its rule (when its own is not
    known)."""
    flow = rules.flow
    if flow is None:
        return
    linked = Linked(rules)
    roots: list[e.Body] = [x.body for x in rules.setup]
    for fn in (flow.end_when, flow.first_player, *(fn for fn, _ in flow.ranking)):
        yield from _fields(fn, flow.span)
    for phase in flow.phases:
        yield from _fields(phase.guard, phase.span)
        roots += [phase.before, phase.body, phase.after]
        for name in phase.actions:
            action = rules.actions.get(name)
            if action is None:
                continue
            yield from _fields(action.guard, action.span)
            yield from _fields(action.cost, action.span)
            roots.append(action.body)
    roots.append(flow.final)
    roots += [x.body for x in rules.scoring]
    seen: set[int] = set()
    for body in roots:
        for eff in linked.reach(body):
            if id(eff) in seen:
                continue
            seen.add(id(eff))
            yield from _fields(eff, eff.span, top=True)


def _fields(obj: Any, span: Span, top: bool = False) -> Iterator[tuple[Expr, Span]]:
    """The formulas an effect (or a cost, a guard) holds, not those of the bodies nested in it (walked apart)."""
    if obj is None:
        return
    if isinstance(obj, Expr):
        if obj.tree is not None:
            yield obj, span
        return
    if isinstance(obj, tuple | list):
        for item in obj:
            if not isinstance(item, e.Effect):
                yield from _fields(item, span)
        return
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type) and (top or not isinstance(obj, e.Effect)):
        for f in dataclasses.fields(obj):
            if f.name not in ("span", "named_at"):
                yield from _fields(getattr(obj, f.name), span)
