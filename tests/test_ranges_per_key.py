"""Contradicting limits given per key of a keyed counter (E825): a key whose min is above its max, a key starting
outside its own range; and a limit whose count is at most 0 however it is written (`to -1`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardrules.analysis import check_pack
from boardrules.diagnostics import Diagnostics
from boardrules.language.pack import discover

MODULE = """
module: t
title: Per key
players: {min: 2, max: 3}
sets:
  colours: [red, blue]
counters:
  gems: COUNTER
actions:
  a:
    do:
      - limit a to LIMIT per turn
      - me.gems[red] += me.gems[blue]
"""


def _e825(tmp_path: Path, counter: str, limit: str = "1") -> list[tuple[int, str]]:
    (tmp_path / "t.yaml").write_text(MODULE.replace("COUNTER", counter).replace("LIMIT", limit), encoding="utf-8")
    diags = Diagnostics()
    for found in discover([tmp_path], diags):
        check_pack(found, diags)
    return [(d.span.line if d.span else 0, d.message) for d in diags.sorted() if d.code == "E825"]


@pytest.mark.parametrize(("counter", "found"), [
    ("{per: player, keys: colours, min: {blue: 2}, max: {blue: 1}}",
     [(8, "counter 'gems' has min 2 above its max 1 for blue")]),
    ("{per: player, keys: colours, initial: {red: 8}, max: 6}", [(8, "counter 'gems' starts at 8 for red, outside "
                                                                   "its range")]),
    ("{per: player, keys: colours, initial: {red: 3}, max: {red: 2, blue: 5}}",
     [(8, "counter 'gems' starts at 3 for red, outside its range")]),
    ("{per: player, keys: colours, initial: {red: 1}, min: {red: 1}, max: {red: 2, blue: 5}}", []),
    ("{per: player, keys: colours, initial: {red: 2}, max: 6}", []),
])
def test_limits_per_key(tmp_path: Path, counter: str, found: list) -> None:
    assert _e825(tmp_path, counter) == found


@pytest.mark.parametrize(("limit", "found"), [("-1", [(12, "limit a to -1 allows no use at all")]),
                                              ("0", [(12, "limit a to 0 allows no use at all")]), ("2", [])])
def test_a_limit_of_no_use(tmp_path: Path, limit: str, found: list) -> None:
    assert _e825(tmp_path, "{per: player, keys: colours}", limit) == found



TRACK = """
module: t
title: Track
players: {min: 2, max: 3}
counters:
  coins: {per: player, output: true}
tracks:
  road:
    spaces: 5
    markers: {pawn: START}
actions:
  a:
    do: ["advance pawn by 1", "me.coins += position(pawn)"]
"""


@pytest.mark.parametrize(("start", "found"), [
    ("6", [(10, "marker 'pawn' starts on space 6, but its track 'road' has spaces 1 to 5")]),
    ("5", []),
    ("1", []),
])
def test_a_marker_starting_off_its_track(tmp_path: Path, start: str, found: list) -> None:
    (tmp_path / "t.yaml").write_text(TRACK.replace("START", start), encoding="utf-8")
    diags = Diagnostics()
    for pack in discover([tmp_path], diags):
        check_pack(pack, diags)
    assert [(d.span.line if d.span else 0, d.message) for d in diags.sorted() if d.code == "E852"] == found
