"""Every place that goes through a list (a `for`, a choice, a filter, a parameter's domain) accepts and refuses
the same expressions at link time, so a domain or a loop over a counter, a number or a piece is E402 at its line,
not E510 when a game first lists the action's moves."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import link_texts

from boardrules.analysis import check_pack
from boardrules.diagnostics import Diagnostics
from boardrules.language.pack import discover

BASE = """
module: t
title: Iterables
players: {min: 2, max: 2}
sets:
  colours: [red, blue]
counters:
  coins: {per: player, initial: 3, output: true}
  gems: {per: player, keys: colours, output: true}
pieces:
  worker: {}
zones:
  farm: {per: player}
tracks:
  road: {spaces: 5, markers: {pawn: 1}}
actions:
"""
# expression -> what it is in the messages, or None when it can be gone through
CASES = {
    "colours": None, "1..3": None, "me.farm": None, "me.farm where it.kind == worker": None,
    "[red, blue]": None, "keys(gems)": None, "players": None,
    "me.gems": "a keyed counter", "me.coins": "a number", "3": "a number", "first(me.farm)": "a piece",
    "pawn": "a track marker", "red": "a symbol", "true": "true or false",
}
FORMS = {
    "for": "    do:\n      - for: x in {e}\n        do: []\n",
    "choose": '    do: ["choose x from {e}"]\n',
    "filter": '    do: ["let n = count([x for x in {e}])"]\n',
    "domain": '    params:\n      x: {{type: symbol, in: "{e}"}}\n    do: []\n',
}


def _errors(tmp_path: Path, expr: str, form: str) -> list[str]:
    _, diags = link_texts(tmp_path, BASE + "  a:\n" + FORMS[form].format(e=expr))
    return [d.message for d in diags.items if d.code == "E402"]


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("expr", sorted(CASES))
def test_every_form_goes_through_the_same_things(tmp_path: Path, expr: str, form: str) -> None:
    words = CASES[expr]
    refusals = [m for m in _errors(tmp_path, expr, form) if "list or a zone" in m]
    if words is None:
        assert refusals == []
    else:
        assert len(refusals) == 1 and refusals[0].endswith(f"but this is {words}"), refusals


def test_a_domain_that_is_not_a_list_is_said_as_such(tmp_path: Path) -> None:
    assert _errors(tmp_path, "me.gems", "domain") == [
        "parameter 'x' takes its values from its domain, which must be a list or a zone (a set, a range, a zone, a "
        "filter), but this is a keyed counter"]


def test_a_parameter_without_a_domain_is_reported_once_where_it_is_declared(tmp_path: Path) -> None:
    text = BASE + """  a:
    params:
      w: piece
    do: []
flow:
  phases:
    one: {turns: {}, actions: [a]}
    two: {turns: {}, actions: [a]}
"""
    _, diags = link_texts(tmp_path, text)
    found = [(d.span.line, d.message) for d in diags.items if d.code == "E402" and d.span is not None]
    assert found == [(text.splitlines().index("      w: piece") + 1,
                      "parameter 'w' of 'a' has no domain, but phase 'one' offers the action, so its moves cannot "
                      "be listed")]



def test_the_parameter_is_named_also_when_check_shares_links_between_modules() -> None:
    # check links each module with what it requires, then all together; later links reuse the action first built
    pack = Path(__file__).parent / "planted_packs_fresh" / "domain_load_camel"
    diags = Diagnostics()
    for found in discover([pack], diags):
        check_pack(found, diags)
    assert [(Path(d.span.file).name, d.span.line) for d in diags.items if d.code == "E402" and d.span] == [
        ("base.yaml", 100)]
