"""Random play on every shipped pack and the test pack, seeded and bounded in time: a refused action changes
nothing (byte for byte), undo restores exactly, a saved game reloads identically, and replaying the log from the
seed gives a byte-identical state after every logged step. boardrules itself never fails (no E900).

Written against the whole-action API (legal_actions, act, end_turn, end_round, undo, Game.replay, state.dumps).
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import HARVEST

from boardrules.diagnostics import BoardrulesError, Diagnostics
from boardrules.engine.decisions import Decision
from boardrules.engine.rules import Rules
from boardrules.game import Game
from boardrules.internal import INTERNAL
from boardrules.language.pack import discover, link, load_modules

RULES = Path(__file__).resolve().parents[1] / "rules"
PACKS = {"harvest": HARVEST, "village": RULES / "village", "lisboa": RULES / "lisboa"}
SEEDS = (1, 2, 3)
STEPS = 60
SECONDS_PER_GAME = 4.0  # a slow machine plays fewer steps, never for longer


class RandomDecider:
    """Answers every decision at random from a seeded generator; chance is left to the game's own generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def decide(self, decision: Decision) -> object:
        options = list(decision.options)
        if decision.kind == "yesno":
            return self.rng.random() < 0.5
        if decision.kind == "subset":
            sizes = [n for n in decision.sizes or range(len(options) + 1) if n <= len(options)] or [0]
            return self.rng.sample(options, self.rng.choice(sizes))
        if not options:
            return None
        # Now and then a wrong answer, so refusals (E505) are exercised too.
        return "no-such-option" if self.rng.random() < 0.05 else self.rng.choice(options)

    def chance(self, decision: Decision) -> object | None:
        return None


def pack_rules(path: Path) -> Rules:
    diags = Diagnostics()
    (pack,) = discover([path], diags)
    modules = load_modules(pack.module_files, diags)
    rules = link(modules, list(modules), diags)
    assert not diags.has_errors, [str(d) for d in diags.items]
    return rules


@pytest.fixture(scope="module", params=sorted(PACKS))
def rules(request: Any) -> Rules:
    return pack_rules(PACKS[request.param])


@pytest.mark.parametrize("seed", SEEDS)
def test_random_play_is_exact(rules: Rules, seed: int) -> None:
    rng = random.Random(seed)
    players = min(max(rules.players_min, 2), rules.players_max)
    game = Game(rules, players, seed)
    game.setup()
    trail: list[tuple[int, str]] = []  # (log length, state) after each completed step
    undo_to: list[str] = []  # the state before each entry in the undo history
    taken = refused = 0
    deadline = time.perf_counter() + SECONDS_PER_GAME
    for _ in range(STEPS):
        if time.perf_counter() > deadline:
            break
        before = game.state.dumps()
        player = rng.choice(game.players)
        roll = rng.random()
        try:
            if roll < 0.1 and undo_to:
                assert game.undo() is True
                assert game.state.dumps() == undo_to.pop()
                trail.pop()
                continue
            if roll < 0.17:
                game.end_turn(player, RandomDecider(rng))
            elif roll < 0.2:
                game.end_round()
            else:
                legal = [(m["action"], m["params"]) for m in game.legal_actions(player)]
                every = [(a, {}) for a in sorted(rules.actions) if not rules.actions[a].params]
                pool = legal if legal and rng.random() < 0.8 else every
                if not pool:
                    continue
                action, params = pool[rng.randrange(len(pool))]
                game.act(player, action, params, RandomDecider(rng))
        except BoardrulesError as err:
            assert err.code != INTERNAL, err.diagnostic
            assert game.state.dumps() == before, err.diagnostic
            refused += 1
            continue
        taken += 1
        trail.append((len(game.log), game.state.dumps()))
        undo_to.append(before)
        if rng.random() < 0.1:  # a save reloads to the same game, which goes on the same way
            again = Game.from_json(rules, json.loads(json.dumps(game.to_json())))
            assert again.state.dumps() == game.state.dumps()
    for length, expected in trail:  # replay is exact at every step, not only at the end
        assert Game.replay(rules, players, seed, game.log[:length]).state.dumps() == expected, game.log[length - 1]
    assert Game.replay(rules, players, seed, game.log).state.dumps() == game.state.dumps()
    assert taken > 0, (taken, refused)
