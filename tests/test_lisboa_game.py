"""Lisboa as a whole game: the pack's stand-in game module played at random through the public API."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from boardrules.analysis import check_pack
from boardrules.diagnostics import Diagnostics
from boardrules.game import TERMINAL, Game
from boardrules.language.pack import Pack, load_rules

LISBOA = Path(__file__).resolve().parent.parent / "rules" / "lisboa"
LAST_ROUND = 8  # game.yaml: values.last_round
TURN_ACTIONS = 2  # game.yaml: flow.phases.turns.turns.actions


def play_randomly(game: Game, rng: random.Random) -> int:
    """Uniform random answers (chance by its probabilities) until the end; every option must go through."""
    moves = steps = 0
    while not game.is_terminal():
        pending = game.pending()
        assert pending is not None and pending.options, "a running game always waits for something"
        option = pending.sample(rng)  # chance by its probabilities, a player uniformly
        if pending.kind == "move":
            moves += 1
            # following needs another player's State action in the same turn: never possible in this flow
            assert option.value["params"].get("way") != "follow"
        game.apply(option.id)
        steps += 1
        assert steps < 1_000
    return moves


@pytest.mark.parametrize("chance", ["step", "auto"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_reach_the_end_and_replay_byte_for_byte(players: int, chance: str) -> None:
    seed = 10 * players + (chance == "auto")
    game = Game.new(LISBOA, players, seed, chance=chance)
    assert game.rules.modules[-1] == "lisboa.game"
    moves = play_randomly(game, random.Random(seed))
    assert game.is_terminal() and game.current_player() == TERMINAL and game.pending() is None
    assert 0 < moves <= LAST_ROUND * players * TURN_ACTIONS
    returns = game.returns()
    assert len(returns) == players and abs(sum(returns)) < 1e-9
    assert sorted(r["player"] for r in game.ranking()) == game.players
    again = Game.replay(game.rules, players, seed, game.log, flow=True, chance=chance)
    assert again.state.dumps() == game.state.dumps()


def test_more_seeds_of_short_games_all_end() -> None:
    rules = load_rules(LISBOA, options={"last_round": 2})
    for seed in range(6):
        players = 2 + seed % 3
        game = Game.new(rules, players, seed, chance="auto")
        play_randomly(game, random.Random(seed))
        assert game.is_terminal() and len(game.returns()) == players
        assert game.state.vars["round"] <= 3


def test_the_stand_ins_fill_every_unknown_only_in_the_game_module() -> None:
    diags = Diagnostics()
    check_pack(Pack(LISBOA, sorted(LISBOA.glob("*.yaml"))), diags)
    assert not diags.has_errors
    unknown = {d.message.split("'")[1] for d in diags.items if d.code == "W601"}
    assert unknown == {"start_price", "clergy_wigs", "follow_price", "ship_price_modifier[blue]",
                       "ship_influence[blue]", "ship_influence[red]", "ship_price_modifier[purple]",
                       "ship_price_modifier[brown]"}
    assert all("game.yaml" not in d.span.file for d in diags.items)
    assert load_rules(LISBOA, ["lisboa.game"]).unknowns == []
    assert {name for name, _, _ in load_rules(LISBOA, ["lisboa.state_actions"]).unknowns} == unknown


def test_gold_is_a_good_and_a_clergy_tile_has_one_printed_number() -> None:
    rules = load_rules(LISBOA, ["lisboa.state_actions"])
    assert "gold" in rules.sets["goods"] and "gold" not in rules.sets["street_goods"]
    assert rules.counters["goods"].keys == rules.sets["goods"]
    assert set(rules.kinds["clergy_tile"]) >= {"wigs"} and "dots" not in rules.kinds["clergy_tile"]
    assert "clergy_dots" not in rules.values


def test_a_saved_game_continues_the_same_way() -> None:
    game = Game.new(LISBOA, 3, seed=7)
    rng = random.Random(7)
    for _ in range(40):
        pending = game.pending()
        assert pending is not None
        game.apply(rng.choice(pending.options).id)
    back = Game.deserialize(game.serialize(), LISBOA)
    assert back.state.dumps() == game.state.dumps() and back.pending() == game.pending()
    play_randomly(game, random.Random(70))
    play_randomly(back, random.Random(70))
    assert back.state.dumps() == game.state.dumps() and back.returns() == game.returns()


def test_options_override_the_stand_ins() -> None:
    game = Game.new(LISBOA, 2, seed=1, options={"clergy_wigs": 2, "start_reis": 9})
    tiles = [p for p in game.state.pieces.values() if p.kind == "clergy_tile"]
    assert len(tiles) == 8 and {t.props["wigs"] for t in tiles} == {2}
    assert game.state.counters["p1.reis"] == 9
