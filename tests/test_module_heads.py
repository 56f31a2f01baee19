"""Mistakes in a module's head are reported where they are written: a `requires` cycle at the entry that closes
it, and player counts whose min is above their max (E825: no game can start)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import link_texts


def test_a_requires_cycle_is_at_the_entry_that_closes_it(tmp_path: Path) -> None:
    _, diags = link_texts(tmp_path, "module: x\ntitle: X\nrequires: [w, y]\n", "module: w\ntitle: W\n",
                          "module: y\ntitle: Y\nrequires: [x]\n", roots=["x"])
    (d,) = diags.items
    assert (d.code, d.message) == ("E404", "modules require each other in a cycle: x -> y -> x")
    assert d.span is not None and d.span.file.endswith("m2.yaml") and (d.span.line, d.span.col) == (3, 12)


@pytest.mark.parametrize(("players", "errors"), [
    ("{min: 4, max: 2}", [("E825", "players: min 4 is above max 2, so no game can start", 3)]),
    ("{min: 2, max: 2}", []),
    ("{min: 2}", []),
])
def test_player_counts_that_admit_no_game(tmp_path: Path, players: str, errors: list) -> None:
    _, diags = link_texts(tmp_path, f"module: x\ntitle: X\nplayers: {players}\n")
    assert [(d.code, d.message, d.span.line if d.span else 0) for d in diags.items] == errors
