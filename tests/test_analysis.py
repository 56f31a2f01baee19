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


# ---------------------------------------------------------------- events and triggers

EVENTS = """
counters:
  n: {per: game, output: true}
  coins: {per: player, initial: 5, input: true}
events:
  ping: {}
  pong: {}
"""


def test_a_trigger_on_an_event_nothing_emits(tmp_path: Path) -> None:
    body = EVENTS + """triggers:
  t: {on: ping, do: ['n += 1']}
  u: {on: pong, do: ['n += 1']}
actions:
  a: {do: ['emit pong()']}
"""
    fires_then_silent(tmp_path, "W811", body, "triggers.t runs on 'ping', but no rule emits it",
                      ("emit pong()", "emit pong()', 'emit ping()"))


def test_defer_until_an_event_nothing_emits(tmp_path: Path) -> None:
    body = EVENTS + """triggers:
  t: {on: ping, do: ['n += 1']}
actions:
  a: {do: ['defer ping() until pong']}
  b: {do: []}
"""
    fires_then_silent(tmp_path, "W812", body,
                      "this deferred event waits for 'pong', which no rule emits, so it never runs",
                      ("b: {do: []}", "b: {do: ['emit pong()']}"))


CYCLE = EVENTS + """
triggers:
  a: {on: ping, do: ['n += 1', 'emit pong()']}
  b: {on: pong, do: ['call again()']}
procedures:
  again: {do: ['emit ping()']}
actions:
  start: {do: ['emit ping()']}
"""


def test_an_unbounded_trigger_cycle_names_every_rule(tmp_path: Path) -> None:
    (d,) = check(tmp_path, HEAD + CYCLE)
    assert d.code == "E813"
    assert d.message == "these rules can run each other without bound: procedures.again, triggers.a, triggers.b"
    assert d.span is not None and d.span.line == (HEAD + CYCLE).splitlines().index("  a: {on: ping, do: ['n += 1', "
                                                                            "'emit pong()']}") + 1


@pytest.mark.parametrize("bound", ["'limit a to 3 per action', 'emit pong()'", "'pay 1 coins', 'emit pong()'",
                                   "{may: {do: ['emit pong()']}}"])
def test_a_cycle_broken_by_a_limit_a_cost_or_a_may_is_accepted(tmp_path: Path, bound: str) -> None:
    assert check(tmp_path, HEAD + CYCLE.replace("'emit pong()'", bound)) == []


def test_a_countdown_through_an_event_parameter_is_accepted(tmp_path: Path) -> None:
    body = """
counters:
  n: {per: game, output: true}
events:
  echo: {params: {k: int}}
triggers:
  back: {on: echo, if: k > 0, do: ['n += 1', 'emit echo(k - 1)']}
actions:
  a: {do: ['emit echo(3)']}
"""
    assert check(tmp_path / "ok", HEAD + body) == []
    assert [d.code for d in check(tmp_path / "bad", HEAD + body.replace("k - 1", "k + 1"))] == ["E813"]
