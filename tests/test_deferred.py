"""Links nothing runs (`check`) leave compiling their expressions to the first call (language/deferred.py): the
report is the same, a deferred function computes what the compiled one does, and what is deferred compiles."""

from __future__ import annotations

import random
from pathlib import Path

from conftest import harvest_link

from boardrules.analysis import check_pack
from boardrules.diagnostics import Diagnostics
from boardrules.game import Game
from boardrules.language import deferred
from boardrules.language.pack import discover, link, load_modules

ROOT = Path(__file__).resolve().parent.parent

MODULE = """\
module: deep
title: A value nested deeper than Python can compile
values:
  deep: {{expr: "{expr}"}}
  shallow: {{expr: "-(-(1))"}}
counters:
  coins: {{per: player, initial: 3}}
"""


def report(pack: Path) -> list[str]:
    diags = Diagnostics()
    for found in discover([pack], diags):
        check_pack(found, diags)
    return [f"{d.span}: {d.code} {d.message}" for d in diags.sorted()]


def test_a_formula_too_deep_to_compile_is_reported_by_check_as_by_linking(tmp_path: Path) -> None:
    # Each `-(` is one node and one bracket level of the emitted source: 200 levels pass the checker, not compile().
    (tmp_path / "deep.yaml").write_text(MODULE.format(expr="-(" * 200 + "me.coins" + ")" * 200))
    checked = [line for line in report(tmp_path) if "E301" in line]
    diags = Diagnostics()
    (pack,) = discover([tmp_path], diags)
    link(load_modules(pack.module_files, diags), ["deep"], diags)  # outside check: compiled at once
    linked = [f"{d.span}: {d.code} {d.message}" for d in diags.sorted() if d.code == "E301"]
    assert checked == linked and len(checked) == 1 and "nested too deeply" in checked[0]


def test_a_deferred_function_computes_what_the_compiled_one_computes() -> None:
    eager = harvest_link()
    with deferred.deferring():
        lazy = harvest_link()
    calls = 0
    real = deferred.Deferred.__call__

    def counting(self: deferred.Deferred, frame: object) -> object:
        nonlocal calls
        calls += 1
        return real(self, frame)

    deferred.Deferred.__call__ = counting  # type: ignore[method-assign]
    try:
        games = [Game(rules, 2, seed=5) for rules in (eager, lazy)]
        for game in games:
            game.setup()
            rng = random.Random(7)
            for _ in range(40):
                if game.play_random(rng) is None:
                    break
    finally:
        deferred.Deferred.__call__ = real  # type: ignore[method-assign]
    assert calls > 0
    assert games[0].state.dumps() == games[1].state.dumps()


def test_only_links_made_inside_deferring_defer() -> None:
    assert not deferred.active()
    with deferred.deferring():
        assert deferred.active()
    assert not deferred.active()


def test_every_source_within_the_bounds_compiles() -> None:
    """The worst shapes a source within the bounds can take: brackets nested as deep as the bound allows, and the
    longest chains that nest Python's parser without brackets."""
    n = deferred.MAX_LENGTH
    shapes = [
        "(" * deferred.MAX_BRACKETS + "x" + ")" * deferred.MAX_BRACKETS,
        "[" * 32 + "(" * 32 + "x" + ")" * 32 + "]" * 32,
        "not " * ((n - 1) // 4) + "x",
        "-" * (n - 1) + "x",
        "x" + " if x else x" * ((n - 1) // 12),
        "x" + ".a" * ((n - 1) // 2),
        "x" + "+x" * ((n - 1) // 2),
        "x" + "**x" * ((n - 1) // 3),
        "x" + " and x" * ((n - 1) // 6),
        "x" + " < x" * ((n - 1) // 4),
    ]
    for src in shapes:
        assert deferred.fits(src), src[:40]
        compile(f"lambda f: {src}", "<rule expression>", "eval")
    assert not deferred.fits("(" * (deferred.MAX_BRACKETS + 1) + "x" + ")" * (deferred.MAX_BRACKETS + 1))
    assert not deferred.fits("x" * (n + 1))
