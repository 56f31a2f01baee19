"""The whole-pack analyses of `boardrules check`: each check fires on a planted mistake and stays silent on the
corrected rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_modules

from boardrules.diagnostics import Diagnostic, Diagnostics
from boardrules.language.pack import Pack, check_pack


def check(tmp_path: Path, *texts: str) -> list[Diagnostic]:
    diags = Diagnostics()
    check_pack(Pack(tmp_path, write_modules(tmp_path, *texts)), diags)
    return [d for d in diags.sorted() if d.code != "W601"]


def found(tmp_path: Path, *texts: str) -> list[tuple[str, int, str]]:
    return [(d.code, d.span.line if d.span else 0, d.message) for d in check(tmp_path, *texts)]


HEAD = """
module: t
title: T
players: {min: 1, max: 4}
"""

# ---------------------------------------------------------------- read/write

RW_CASES = [
    ("W801", "counters:\n  coins: {per: player, initial: 3}\n  favour: {per: player}\n"
     "actions:\n  a: {cost: '1 coins', do: []}\n",
     "counter 'favour' is declared but never used", ("favour: {per: player}", "favour: {per: player, input: true}")),
    ("W802", "counters:\n  points: {per: player}\nactions:\n  a: {do: ['me.points += 1']}\n",
     "counter 'points' is written but never read", ("{per: player}", "{per: player, output: true}")),
    ("W803", "counters:\n  favour: {per: player}\nactions:\n  a: {allowed_if: me.favour > 0, do: []}\n",
     "counter 'favour' is read, but no rule or setup ever sets it and it starts at 0",
     ("{per: player}", "{per: player, input: true}")),
    ("W804", "counters:\n  wood: {per: player}\nactions:\n  a: {cost: '2 wood', do: []}\n",
     "this cost is paid in 'wood', which starts at 0 and no rule or setup ever increases",
     ("{per: player}", "{per: player, initial: 3}")),
]


def fires_then_silent(tmp_path: Path, code: str, body: str, message: str, fix: tuple[str, str]) -> None:
    """`body` gets exactly one finding, `code` with `message`; with `fix` applied it gets none."""
    got = found(tmp_path / "bad", HEAD + body)
    assert [(c, m) for c, _, m in got] == [(code, message)]
    assert fix[0] in body
    assert found(tmp_path / "good", HEAD + body.replace(*fix)) == []


@pytest.mark.parametrize(("code", "body", "message", "fix"), RW_CASES)
def test_read_write(tmp_path: Path, code: str, body: str, message: str, fix: tuple[str, str]) -> None:
    fires_then_silent(tmp_path, code, body, message, fix)


def test_properties_zones_and_events_are_tracked(tmp_path: Path) -> None:
    body = """
pieces:
  worker: {properties: {age: {type: int}, mood: {type: symbol}}}
zones:
  farm: {per: player}
  yard: {}
events:
  rang: {}
actions:
  a: {do: ['create worker in me.farm with age = 2', 'emit rang()']}
  b: {allowed_if: count(yard) > 0, do: []}
"""
    got = found(tmp_path, HEAD + body)
    codes = {(c, m.split("'")[1]) for c, _, m in got}
    assert codes == {("W802", "age"), ("W801", "mood"), ("W802", "rang"), ("W803", "yard")}
