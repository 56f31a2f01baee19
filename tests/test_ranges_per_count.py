"""Guards whose sides move together with the player count (a zone's size against its capacity given per player
count) are judged at each count alone: one that holds at every count is W822, one that holds at none W821. A local
that only `roll` binds ranges over its die's sides."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardrules.analysis import check_pack
from boardrules.diagnostics import Diagnostics
from boardrules.language.pack import discover

MODULE = """
module: t
title: Per count
players: {min: 2, max: 4}
values:
  size: {by_players: {2: 3, 3: 4, 4: 5}}
  extra: {by_players: {2: 1, 3: 2, 4: 3}}
counters:
  coins: {per: player, initial: 1, output: true}
pieces:
  pot: {}
zones:
  kiln: {capacity: size, input: true}
actions:
  a:
    do:
      - require GUARD else "no"
      - me.coins += 1
"""


def _found(tmp_path: Path, guard: str) -> list[tuple[str, str]]:
    (tmp_path / "t.yaml").write_text(MODULE.replace("GUARD", guard), encoding="utf-8")
    diags = Diagnostics()
    for found in discover([tmp_path], diags):
        check_pack(found, diags)
    return [(d.code, d.message) for d in diags.sorted() if d.code in ("W821", "W822")]


@pytest.mark.parametrize(("guard", "code", "said"), [
    ("count(kiln) <= size", "W822", "always holds at every player count: with 2 players the left side is from 0 "
                                    "to 3, the right side always 3, and so on"),
    ("count(kiln) > size", "W821", "can never hold at any player count: with 2 players the left side is from 0 to "
                                   "3, the right side always 3, and so on"),
    ("size - extra == 2", "W822", "always holds at every player count: with 2 players the left side is always 2, "
                                  "the right side always 2, and so on"),
])
def test_a_guard_judged_at_each_player_count(tmp_path: Path, guard: str, code: str, said: str) -> None:
    assert _found(tmp_path, guard) == [(code, f"this comparison {said}")]


@pytest.mark.parametrize("guard", ["count(kiln) < size", "count(kiln) >= size", "count(kiln) + extra <= size",
                                   "size > 3", "me.coins <= size"])
def test_a_guard_that_can_go_either_way_at_some_count(tmp_path: Path, guard: str) -> None:
    assert _found(tmp_path, guard) == []


ROLLS = """
module: t
title: Rolls
players: {min: 2, max: 4}
counters:
  coins: {per: player, initial: 1, output: true}
dice:
  d6: {sides: 6}
  d8: {sides: 8}
actions:
  a:
    do:
      - roll d6 as r
      - if: GUARD
        then: ["me.coins += 1"]
  b:
    do:
      - let r = 9
      - me.coins += r
"""


@pytest.mark.parametrize(("guard", "found"), [
    ("r == 7", [("W821", "this comparison can never hold: the left side is from 1 to 6, the right side always 7")]),
    ("r <= 6", [("W822", "this comparison always holds: the left side is from 1 to 6, the right side always 6")]),
    ("r >= 1", [("W822", "this comparison always holds: the left side is from 1 to 6, the right side always 1")]),
    ("r >= 5", []),
])
def test_a_rolled_local_ranges_over_its_die(tmp_path: Path, guard: str, found: list) -> None:
    (tmp_path / "t.yaml").write_text(ROLLS.replace("GUARD", guard), encoding="utf-8")
    diags = Diagnostics()
    for pack in discover([tmp_path], diags):
        check_pack(pack, diags)
    assert [(d.code, d.message) for d in diags.sorted() if d.code in ("W821", "W822")] == found


def test_a_local_bound_otherwise_somewhere_in_the_rule_is_left_alone(tmp_path: Path) -> None:
    # Sibling blocks may bind one name differently: `r` is a roll in one and a loop's 7 and 8 in the other.
    text = ROLLS.replace("GUARD", "r >= 5") + """  c:
    do:
      - if: me.coins > 0
        then:
          - roll d6 as r
          - me.coins += r
        else:
          - for: r in [7, 8]
            do:
              - if: r == 7
                then: ["me.coins += 1"]
"""
    (tmp_path / "t.yaml").write_text(text, encoding="utf-8")
    diags = Diagnostics()
    for pack in discover([tmp_path], diags):
        check_pack(pack, diags)
    assert [d for d in diags.items if d.severity == "error"] == []
    assert not [d for d in diags.items if d.code in ("W821", "W822")]
