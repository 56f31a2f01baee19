"""`boardrules check` over a whole pack: link every module alone and all together, then run the analyses, each
one module with a `check(facts, diags)` function."""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostics, Span
from ..engine.rules import Rules
from ..language.deferred import deferring
from ..language.linker import Module
from ..language.pack import LINK_ALONE_MAX, Pack, game_modules, link, load_modules
from ..language.shared_links import sharing
from . import (
    events,
    extensions,
    gameflow,
    hooks,
    loops,
    markers,
    ranges,
    readwrite,
    scenarios,
    search_size,
    sources,
    thresholds,
    unknown_play,
    writes,
)
from . import modules as combos
from .facts import gather, used_names

ANALYSES = (readwrite.check, events.check, ranges.check, sources.check, search_size.check, gameflow.check,
            thresholds.check, markers.check, loops.check, hooks.check, writes.check, extensions.check)


def check_pack(pack: Pack, diags: Diagnostics, options: dict[str, tuple[Any, Span]] | None = None
               ) -> dict[str, Module]:
    # Nothing here runs the links' expressions; the links share what they would build alike (shared_links).
    with deferring(), sharing():
        return _check_pack(pack, diags, options)


def _check_pack(pack: Pack, diags: Diagnostics, options: dict[str, tuple[Any, Span]] | None
                ) -> dict[str, Module]:
    modules = load_modules(pack.module_files, diags)
    declared = combos.declarations(modules)
    found = Diagnostics()
    combos.conflicts(modules, found)
    if options and modules:
        link(modules, game_modules(modules, found, pack.root), found, options)
    rules: Rules | None = None
    linked: dict[tuple[str, ...], Rules] = {}
    alone = list(modules)
    if len(alone) > LINK_ALONE_MAX:
        # Linking each module with its requires costs the square of a long chain of requires; in a large pack
        # only the modules nothing requires are linked alone (the others are linked inside them).
        required = {r for m in modules.values() for r in m.requires}
        alone = [mid for mid in modules if mid not in required]
    closure = combos.closures(modules)
    whole: Rules | None = None  # a module that requires all the others links the same rules as all together
    for mid in alone:
        start = len(found.items)
        rules = linked[(mid,)] = link(modules, [mid], found)
        if closure.get(mid) == set(modules):
            whole = rules
        combos.not_required(found.items, start, modules, mid, declared)
        unknowns(rules, found, options)
    if len(modules) > 1:
        rules = linked[tuple(modules)] = whole if whole is not None else link(modules, list(modules), found)
    if rules is not None and not diags.has_errors and not found.has_errors:
        # Whole-pack analyses read what linked cleanly: after an error they would only add follow-on noise.
        analyse(modules, rules, found, _game(modules, linked, pack), set(options or ()), list(linked.values()))
        try:
            scenarios.check(modules, pack.scenario_files, found, linked)
        except Exception as exc:  # a bug in boardrules must not hide the rest of the report
            _internal("scenario", exc, modules, found)
    # Which names the rules use is needed only to place an unknown name's error.
    unknown = any(d.code == "E401" for d in found.items)
    used = used_names(linked.values()) if unknown else set()
    diags.extend(combos.one_error_per_mistake(found.items, declared, used))
    return modules


def unknowns(rules: Rules, diags: Diagnostics, options: dict[str, Any] | None = None) -> None:
    """W601 for each value the linked rules leave unknown (and no option gives), naming the option that would."""
    for name, note, span in rules.unknowns:
        if options and name in options:
            continue  # the option gives the value the pack leaves open
        base, _, key = name.partition("[")
        given = options.get(base) if options and key else None
        if isinstance(given, tuple) and isinstance(given[0], dict) and key[:-1] in given[0]:
            continue  # a table's entry, given by an option that sets several: {blue: 2}
        diags.warning("W601", f"'{name}' is unknown: {note}", span,
                      f"the game stops with E601 if it ever needs this value; give it with --set {name}=VALUE "
                      "(or a scenario's options:)")


def analyse(modules: dict[str, Module], rules: Rules, diags: Diagnostics,
            game: tuple[str, Rules] | None = None, options: set[str] | None = None,
            alone: list[Rules] | None = None) -> None:
    """Run every analysis over the pack's modules linked together (`rules`); with `game` (the game module and
    its link), also what whole-game play reads. A name is used when any link uses it (`alone`: each module
    linked with what it requires), so a rule another module replaces or drops still counts."""
    try:
        facts = gather(modules, rules, alone or ())
    except Exception as exc:  # a bug in boardrules must not hide the rest of the report
        _internal("gathering the facts", exc, modules, diags)
        return
    for check in ANALYSES:
        try:
            check(facts, diags)
        except Exception as exc:
            _internal(check.__module__.rsplit(".", 1)[-1], exc, modules, diags)
    if game is not None:
        try:
            unknown_play.check(facts, game[1], game[0], diags, options or set())
        except Exception as exc:
            _internal("unknown_play", exc, modules, diags)


def _game(modules: dict[str, Module], linked: dict[tuple[str, ...], Rules], pack: Pack) -> tuple[str, Rules] | None:
    """The pack's game module (the one a whole game plays) with its link, when it has one and it was linked."""
    games = game_modules(modules, Diagnostics(), pack.root)  # a module that gives no flow links none (below)
    if len(games) != 1:
        return None
    rules = linked.get((games[0],))
    return None if rules is None or rules.flow is None else (games[0], rules)


def _internal(what: str, exc: Exception, modules: dict[str, Module], diags: Diagnostics) -> None:
    span = next(iter(modules.values())).span if modules else None
    diags.error("E900", f"internal error in the {what} analysis: {type(exc).__name__}: {exc}", span,
                "please report it with this pack; the other checks ran")
