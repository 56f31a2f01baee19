"""Apply without running again what a proof already ran: when proving an option ran its activity to the next
decision, `apply` resumes there instead of re-running the activity from its start. Differential: a game that
resumes and one that re-runs every activity, answered alike, agree at every step (state, log, next decision)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from boardrules.game import Game
from boardrules.language.pack import load_rules

ROOT = Path(__file__).resolve().parents[1]
PACKS = {"relay": (ROOT / "tests" / "packs" / "relay", {"prize": 4}), "lisboa": (ROOT / "rules" / "lisboa", None),
         "village": (ROOT / "rules" / "village", None)}
STEPS = 80


@pytest.mark.parametrize("chance", ["step", "auto"])
@pytest.mark.parametrize("name", list(PACKS))
def test_resumed_and_rerun_games_agree(name: str, chance: str) -> None:
    path, options = PACKS[name]
    rules = load_rules(path, None, options)
    resumed, rerun = (Game(rules, 3, seed=7, flow=True, chance=chance) for _ in range(2))
    rerun.hold_runs = False  # every activity from its start, chance outcomes too (engine/held.py)
    resumed.setup()
    rerun.setup()
    rng = random.Random(7)
    skipped = 0
    for _ in range(STEPS):
        if resumed.is_terminal():
            break
        a, b = resumed.pending(), rerun.pending()
        assert a is not None and b is not None
        assert (a.player, a.kind, a.prompt, a.rule) == (b.player, b.kind, b.prompt, b.rule)
        option = a.sample(rng)
        assert b.option(option.id) == option  # legal in the re-run game too
        skipped += option.id in resumed._stops
        rerun._stops.clear()  # the re-run game runs every activity from its start
        resumed.apply(option.id)
        rerun.apply(option.id)
        assert resumed.state.dumps() == rerun.state.dumps()
        assert resumed.log == rerun.log and resumed._waiting == rerun._waiting
    assert rerun.is_terminal() == resumed.is_terminal()
    if name != "relay":  # relay's moves ask nothing, so there is nothing to resume
        assert skipped > 0
