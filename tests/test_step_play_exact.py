"""Whole games through the step API on every pack with a flow: a refused answer changes nothing, undo then the
same answer gives the same state byte for byte, a save in the middle of a move reloads to the same game, and
the log replays to a byte-identical state. Bounded in steps so the suite stays fast."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from boardrules.diagnostics import BoardrulesError
from boardrules.game import Game
from boardrules.language.pack import load_rules

ROOT = Path(__file__).resolve().parents[1]
PACKS = {"relay": (ROOT / "tests" / "packs" / "relay", {"prize": 4}), "lisboa": (ROOT / "rules" / "lisboa", None),
         "village": (ROOT / "rules" / "village", None)}
STEPS = 120


@pytest.mark.parametrize("name", list(PACKS))
def test_stepping_is_exact(name: str) -> None:
    path, options = PACKS[name]
    rules = load_rules(path, None, options)
    game = Game(rules, 3, seed=11, flow=True, chance="step")
    game.setup()
    rng = random.Random(11)
    saved_mid_move = None
    for step in range(STEPS):
        if game.is_terminal():
            break
        pending = game.pending()
        assert pending is not None and pending.options
        before = game.state.dumps()
        with pytest.raises(BoardrulesError) as err:
            game.apply(10_000)  # not an option
        assert err.value.code == "E505" and game.state.dumps() == before and game.pending() == pending
        option = pending.sample(rng)  # chance by its probabilities, a player uniformly
        in_setup = game._open is not None and game._open.kind == "setup"
        game.apply(option.id)
        after = game.state.dumps()
        if in_setup and game._open is None:
            continue  # the last answer of setup: setup cannot be undone
        assert game.undo()
        assert game.state.dumps() == before
        game.apply(option.id)
        assert game.state.dumps() == after
        if saved_mid_move is None and pending.kind != "move" and game._open is not None:
            saved_mid_move = (game.serialize(), after, step)
    if saved_mid_move is not None:
        text, state, _ = saved_mid_move
        assert Game.deserialize(text, rules).state.dumps() == state
    again = Game.replay(rules, 3, 11, game.log)
    assert again.state.dumps() == game.state.dumps()
