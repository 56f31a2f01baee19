"""A trigger on a change of something shared (a game counter, a shared marker or zone, what a game counter's cap
absorbed) has no owner, so its `me` is none: a rule there that reads `me` is E401 at link time, not E510 at the
first change. On a player's counter, marker or zone `me` is the owner and may be read."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import link_texts

BASE = """
module: t
title: Watching
players: {min: 2, max: 2}
counters:
  fame: {per: player, output: true}
  stock: {per: game, initial: 5, output: true}
  pool: {per: game, max: 4, overflow: discard, output: true}
  coins: {per: player, max: 9, overflow: discard, output: true}
zones:
  pile: {input: true}
  hand: {per: player, input: true}
tracks:
  sky: {spaces: 6, markers: {sun: 1}}
  road: {spaces: 6, markers: {pawn: {start: 1, per: player}}}
triggers:
  watch:
    on: {ON}
    do: ["me.fame += 1"]
"""


@pytest.mark.parametrize(("on", "shared"), [
    ("{change: stock}", True), ("{change: stock, crosses: 2, direction: down}", True), ("{change: pile}", True),
    ("{change: sun, crosses: 3}", True), ("{overflow: pool}", True),
    ("{change: fame, every: 5}", False), ("{change: hand}", False), ("{change: pawn}", False),
    ("{overflow: coins}", False),
])
def test_me_is_read_only_where_the_change_has_an_owner(tmp_path: Path, on: str, shared: bool) -> None:
    text = BASE.replace("{ON}", on)
    _, diags = link_texts(tmp_path, text)
    found = [(d.code, d.span.line) for d in diags.items if d.span is not None and d.severity == "error"]
    line = text.splitlines().index('    do: ["me.fame += 1"]') + 1
    assert found == ([("E401", line)] if shared else [])
