"""What an embedding program relies on, over whole random games of both shipped packs through the public API
(`pending`, `options`, `apply`, `clone`, `serialize`/`deserialize`, `Game.replay`), both chance modes:

- no dead option: every option listed at a player's decision can be applied (checked on a copy, at every
  seventh decision);
- a save taken along the way reloads to the same state, and replaying the log from the seed gives it too.

The held-out check of issue 20 runs this on 100 games per pack; here ten, so CI's time stays small.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from boardrules.diagnostics import BoardrulesError
from boardrules.game import CHANCE, Game
from boardrules.language.pack import load_rules

RULES = Path(__file__).resolve().parents[1] / "rules"
GAMES = 10


@pytest.mark.slow
@pytest.mark.parametrize("chance", ["step", "auto"])
@pytest.mark.parametrize("pack", ["lisboa", "village"])
def test_no_dead_option_and_saves_and_replays_agree(pack: str, chance: str) -> None:
    rules = load_rules(RULES / pack, None, None)
    dead: list[str] = []
    tried = checked = 0
    for seed in range(1, GAMES + 1):
        rng = random.Random(seed * 7919)
        game = Game(rules, 3, seed, flow=True, chance=chance)
        game.setup()
        n = 0
        while not game.is_terminal():
            pending = game.pending()
            assert pending is not None
            options = pending.options
            if n % 7 == 0 and pending.player != CHANCE:
                for option in options:
                    tried += 1
                    try:
                        game.clone().apply(option.id)
                    except BoardrulesError as err:
                        dead.append(f"seed {seed}, decision {n}: {pending.prompt}: {option.label}: {err}")
            option = pending.sample(rng) if pending.player == CHANCE else rng.choice(options)
            game.apply(option.id)
            n += 1
            if n % 97 == 0 or game.is_terminal():
                checked += 1
                assert Game.deserialize(game.serialize(), rules).state.dumps() == game.state.dumps()
                assert Game.replay(rules, 3, seed, game.log).state.dumps() == game.state.dumps()
    assert dead == []
    assert tried > 100 and checked >= GAMES
