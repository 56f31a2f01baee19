"""Village with Marriage as a whole game (rules/village/game.yaml, stand-ins): random games through the public
step API reach the end, every listed option goes through, and the log replays to the same state."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from boardrules.engine.rules import Rules
from boardrules.game import CHANCE, TERMINAL, Game

VILLAGE = Path(__file__).resolve().parent.parent / "rules" / "village"
MOVE_LIMIT = 2_000  # pending decisions in one game; a stand-in game takes a few hundred


@pytest.fixture(scope="module")
def rules() -> Rules:
    return Game.new(VILLAGE, 2, seed=1, chance="auto").rules


def play_randomly(game: Game, rng: random.Random, stop_after: int = MOVE_LIMIT) -> int:
    """Uniform among the options, chance by its probabilities, until the end; every option must go through."""
    steps = 0
    while not game.is_terminal() and steps < stop_after:
        pending = game.pending()
        assert pending is not None and pending.options, "a running game always waits for something"
        if pending.player == CHANCE:
            probabilities = [o.probability for o in pending.options]
            assert all(p is not None and p > 0 for p in probabilities)
            assert abs(sum(probabilities) - 1) < 1e-9  # type: ignore[arg-type]
            option = rng.choices(pending.options, probabilities)[0]  # type: ignore[arg-type]
        else:
            option = rng.choice(pending.options)
        game.apply(option.id)  # raises if a listed option cannot be carried out
        steps += 1
        assert steps < MOVE_LIMIT
    return steps


def test_the_pack_plays_its_game_module() -> None:
    game = Game.new(VILLAGE, 3, seed=2, chance="auto")
    assert game.rules.modules == ["village.base", "village.marriage", "village.game"]
    assert game.current_player() == "p1"
    assert [o.label for o in game.pending().options] == ["lay_out_cubes"]  # type: ignore[union-attr]
    game.apply(0)
    labels = [o.label for o in game.pending().options]  # type: ignore[union-attr]
    # round one: no cubes on Family (Marriage), the stand-in card's cubes elsewhere
    assert "family_action" not in labels and "crafts_action" in labels and "pass_round" in labels
    assert game.state.counters["round_number"] == 1
    assert game.state.counters["card_cubes[crafts]"] == 2
    assert len(game.state.zones["crafts_cubes"].contents) == 2


@pytest.mark.parametrize(("players", "seed", "chance"), [
    (2, 1, "step"), (3, 2, "step"), (4, 3, "step"),
    (2, 4, "auto"), (3, 5, "auto"), (4, 6, "auto"), (5, 7, "auto"),
])
def test_random_games_reach_the_end_and_replay_exactly(rules: Rules, players: int, seed: int, chance: str) -> None:
    game = Game.new(rules, players, seed=seed, chance=chance)
    rng = random.Random(seed)
    play_randomly(game, rng, stop_after=60)
    saved = game.serialize()
    game = Game.deserialize(saved, rules)  # a save in mid-game continues as the same game
    assert game.serialize() == saved
    play_randomly(game, rng)
    assert game.current_player() == TERMINAL and game.pending() is None
    assert game.state.counters["final_mass_held"] == 1
    returns = game.returns()
    assert len(returns) == players and abs(sum(returns)) < 1e-9
    assert sorted(r["player"] for r in game.ranking()) == game.players
    again = Game.replay(game.rules, players, seed, game.log, flow=True, chance=chance)
    assert again.state.dumps() == game.state.dumps()


def test_a_stand_in_can_be_changed_by_an_option() -> None:
    game = Game.new(VILLAGE, 2, seed=3, options={"max_rounds": 1}, chance="auto")
    play_randomly(game, random.Random(3))
    assert game.state.counters["round_number"] == 1


def test_no_tool_is_offered_after_a_council_privilege(rules: Rules) -> None:
    game = Game.new(rules, 2, seed=1, chance="auto")
    game.apply(game.pending().option("lay_out_cubes").id)  # type: ignore[union-attr]
    game.state.counters["p1.tiles[tool]"] = 2
    game._pending = None  # the state was edited behind the game's back: look again
    pending = game.pending()
    assert pending is not None
    game.apply(pending.option({"action": "council_action", "params": {}}).id)
    while game.current_player() == "p1" and game.pending().kind != "move":  # type: ignore[union-attr]
        pending = game.pending()
        assert pending is not None
        assert pending.kind != "yesno", "a tool must not be offered after a council privilege"
        wanted = [o for o in pending.options if o.label in ("third_privilege", "grain")]
        game.apply((wanted or list(pending.options))[0].id)
    assert game.state.counters["p1.goods[grain]"] == 1  # the privilege was taken once
    assert game.state.counters["p1.tiles[tool]"] == 2
