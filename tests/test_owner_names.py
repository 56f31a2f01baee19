"""A per-player counter or zone written without its owner is an unknown name (E401) whose message gives the fix
(`me.name`), and a marker is E402 with the same words; a keyed counter read with a declared symbol that is not one
of its keys is E401 at link time, not at play."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import link_texts

BASE = """
module: t.base
title: Owners
players: {min: 1, max: 4}
sets:
  colours: [red, blue]
  moods: [calm]
counters:
  coins: {per: player}
  gems: {per: player, keys: colours}
  pool: {per: game, keys: colours}
zones:
  farm: {per: player}
  heap: {}
pieces:
  worker: {}
tracks:
  road: {spaces: 5, markers: {runner: {start: 1, per: player}}}
actions:
  a:
    do: [LINE]
"""


def _errors(tmp_path: Path, line: str) -> list[tuple[str, str]]:
    _, diags = link_texts(tmp_path, BASE.replace("LINE", f'"{line}"'))
    return [(d.code, d.message) for d in diags.sorted() if d.severity == "error"]


@pytest.mark.parametrize(("line", "kind", "name"), [
    ("coins += 1", "counter", "coins"),
    ("let n = count(farm)", "zone", "farm"),
    ("choose w from farm", "zone", "farm"),
    ("let n = gems[red]", "counter", "gems"),
    ("advance runner by 1", "marker", "runner"),
])
def test_a_per_player_name_without_its_owner(tmp_path: Path, line: str, kind: str, name: str) -> None:
    assert _errors(tmp_path, line) == [
        ("E402" if kind == "marker" else "E401", f"each player has a {kind} '{name}': say whose (me.{name}, p.{name})")]


@pytest.mark.parametrize("line", ["me.coins += 1", "let n = count(me.farm) + count(heap)", "pool[red] += 1",
                                  "me.gems[blue] += pool[red]"])
def test_owned_and_shared_names_link(tmp_path: Path, line: str) -> None:
    assert _errors(tmp_path, line) == []


@pytest.mark.parametrize("line", ["me.gems[calm] += 1", "pool[calm] += 1", "let n = me.gems[calm]"])
def test_a_symbol_that_is_not_a_key(tmp_path: Path, line: str) -> None:
    assert _errors(tmp_path, line) == [
        ("E401", f"'calm' is not a key of '{'pool' if 'pool' in line else 'gems'}' (red, blue)")]
