"""The step API over a whole game: pending decisions, chance steps, legal moves, undo, clone, saves, replay."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from boardrules.diagnostics import BoardrulesError
from boardrules.game import CHANCE, TERMINAL, Game

RELAY = Path(__file__).parent / "packs" / "relay"
OPTIONS = {"prize": 5}


def play_randomly(game: Game, rng: random.Random, limit: int = 2_000) -> int:
    """Random moves and answers until the game ends; every listed option must go through."""
    steps = 0
    while not game.is_terminal():
        pending = game.pending()
        assert pending is not None and pending.options, "a running game always waits for something"
        option = pending.sample(rng)  # chance by its probabilities, a player uniformly
        game.apply(option.id)
        steps += 1
        assert steps < limit
    return steps


def test_setup_shuffle_is_a_chance_step_with_probabilities() -> None:
    game = Game.new(RELAY, 2, seed=1, options=OPTIONS)
    pending = game.pending()
    assert game.current_player() == CHANCE
    assert pending is not None and pending.kind == "chance"
    assert [o.id for o in pending.options] == [0, 1, 2, 3]
    assert [o.probability for o in pending.options] == [0.25] * 4
    assert pending.rule is not None and pending.rule.startswith("tests/packs/relay/relay.yaml:")
    assert pending.source == "- shuffle deck"


def test_auto_chance_reaches_the_first_move_and_lists_exact_moves() -> None:
    game = Game.new(RELAY, 3, seed=1, options=OPTIONS, chance="auto")
    assert game.current_player() == "p1"
    pending = game.pending()
    assert pending is not None and pending.kind == "move"
    labels = [o.label for o in pending.options]
    # 2 tokens: buy 1 or 2; buy_large costs 2 and needs 3 in the market; leave needs 5 points
    assert labels == ["buy(n=1)", "buy(n=2)", "buy_large(size=large)", "give_up"]
    assert pending.options[0].value == {"action": "buy", "params": {"n": 1}}
    assert game.legal_actions("p2") == []  # not p2's turn


def test_a_decision_offers_only_options_that_can_finish() -> None:
    game = Game.new(RELAY, 2, seed=4, options=OPTIONS, chance="auto")
    game.state.counters["p1.tokens"] = 1
    game._pending = None  # the state was edited behind the game's back: look again
    labels = [o.label for o in game.pending().options]  # type: ignore[union-attr]
    assert "buy(n=2)" not in labels and "buy_large(size=large)" not in labels
    assert "buy(n=1)" in labels


def test_random_games_reach_the_end_and_replay_exactly() -> None:
    for seed in range(12):
        players = 2 + seed % 3
        game = Game.new(RELAY, players, seed=seed, options=OPTIONS)
        play_randomly(game, random.Random(seed))
        assert game.current_player() == TERMINAL
        assert game.pending() is None
        returns = game.returns()
        assert len(returns) == players and abs(sum(returns)) < 1e-9
        ranking = game.ranking()
        assert sorted(r["player"] for r in ranking) == game.players
        again = Game.replay(game.rules, players, seed, game.log)  # flow and chance mode come from the log
        assert again.state.dumps() == game.state.dumps()


def test_returns_and_ranking_share_ranks_on_ties() -> None:
    game = Game.new(RELAY, 3, seed=2, options=OPTIONS, chance="auto")
    game.state.counters.update({"p1.points": 3, "p2.points": 3, "p3.points": 1})
    game.state.counters.update({"p1.tokens": 2, "p2.tokens": 2, "p3.tokens": 9})
    game.state.vars["game_over"] = True
    assert [(r["rank"], r["player"]) for r in game.ranking()] == [(1, "p1"), (1, "p2"), (3, "p3")]
    assert game.returns() == [0.5, 0.5, -1.0]


def test_serialize_then_deserialize_continues_the_same_game_even_mid_decision() -> None:
    game = Game.new(RELAY, 2, seed=5, options=OPTIONS)
    rng = random.Random(5)
    for _ in range(9):
        pending = game.pending()
        assert pending is not None
        game.apply(rng.choice(pending.options).id)
    text = game.serialize()
    back = Game.deserialize(text)  # the save knows the pack directory it was started from
    assert back.state.dumps() == game.state.dumps()
    assert back.pending() == game.pending()
    assert back.log == game.log
    play_randomly(game, random.Random(77))
    play_randomly(back, random.Random(77))
    assert back.state.dumps() == game.state.dumps()


def test_a_save_of_other_rules_or_edited_state_is_refused(tmp_path: Path) -> None:
    game = Game.new(RELAY, 2, seed=5, options=OPTIONS)
    text = game.serialize()
    changed = tmp_path / "relay"
    changed.mkdir()
    (changed / "relay.yaml").write_text((RELAY / "relay.yaml").read_text().replace("initial: 1}", "initial: 2}"))
    with pytest.raises(BoardrulesError) as err:
        Game.deserialize(text, changed)
    assert err.value.code == "E512" and "changed" in err.value.diagnostic.message
    data = json.loads(text)
    data["state"]["counters"]["p1.tokens"] = 99
    with pytest.raises(BoardrulesError) as err:
        Game.deserialize(json.dumps(data), RELAY)
    assert err.value.code == "E512"
    with pytest.raises(BoardrulesError) as err:
        Game.deserialize("{not json", RELAY)
    assert err.value.code == "E512"
    other = Path(__file__).parent / "packs" / "harvest"
    with pytest.raises(BoardrulesError) as err:
        Game.deserialize(text, other)
    assert err.value.code == "E512"


def test_undo_takes_back_answers_then_moves() -> None:
    game = Game.new(RELAY, 2, seed=3, options=OPTIONS, chance="auto")
    before = game.state.dumps()
    game.apply(game.pending().option({"action": "buy", "params": {"n": 1}}).id)  # type: ignore[union-attr]
    assert game.state.dumps() != before
    assert game.undo()
    assert game.state.dumps() == before
    assert game.current_player() == "p1"


def test_clone_is_independent_and_has_no_history() -> None:
    game = Game.new(RELAY, 2, seed=3, options=OPTIONS, chance="auto")
    copy = game.clone()
    assert copy.state.dumps() == game.state.dumps()
    assert copy.state.journal == [] and not copy.undo()
    play_randomly(copy, random.Random(1))
    assert copy.is_terminal() and not game.is_terminal()


def test_reseed_changes_the_future_and_is_replayed() -> None:
    game = Game.new(RELAY, 2, seed=3, options=OPTIONS, chance="auto")
    game.reseed(99)
    play_randomly(game, random.Random(3))
    again = Game.replay(game.rules, 2, 3, game.log, flow=True, chance="auto")
    assert again.state.dumps() == game.state.dumps()


def test_options_are_type_checked_and_unknown_names_get_a_suggestion() -> None:
    with pytest.raises(BoardrulesError) as err:
        Game.new(RELAY, 2, options={"prise": 5})
    assert err.value.code == "E408" and "prize" in (err.value.diagnostic.hint or "")
    with pytest.raises(BoardrulesError) as err:
        Game.new(RELAY, 2, options={"prize": "lots"})
    assert err.value.code == "E402"
    game = Game.new(RELAY, 2, options={"market": 1, "tokens": 4})
    assert game.state.counters["market"] == 1


def test_actions_outside_their_turn_or_phase_are_not_legal() -> None:
    game = Game.new(RELAY, 2, seed=1, options=OPTIONS, chance="auto")
    with pytest.raises(BoardrulesError) as err:
        game.act("p2", "give_up")
    assert err.value.code == "E501" and "p1's turn" in err.value.diagnostic.message
    with pytest.raises(BoardrulesError) as err:
        game.act("p1", "rest")
    assert err.value.code == "E501" and "phase 'trading'" in err.value.diagnostic.message


def test_undo_depth_bounds_the_journal() -> None:
    game = Game.new(RELAY, 4, seed=8, options=OPTIONS, undo_depth=3)
    play_randomly(game, random.Random(8))
    assert len(game._history) <= 3


def test_a_parameter_outside_its_declared_values_is_refused() -> None:
    game = Game.new(RELAY, 2, seed=1, options=OPTIONS, chance="auto")
    before = game.state.dumps()
    with pytest.raises(BoardrulesError) as err:
        game.act("p1", "buy", {"n": 3})
    assert err.value.code == "E509" and "not one of [1, 2]" in err.value.diagnostic.message
    assert game.state.dumps() == before


def test_a_save_in_the_middle_of_a_move_with_a_number_answer_loads() -> None:
    game = Game.new(RELAY, 2, seed=1, options=OPTIONS, chance="auto")
    for _ in range(30):  # play until a favour's yes/no (a bool answer) or the end
        pending = game.pending()
        if pending is None or pending.kind == "yesno":
            break
        game.apply(pending.options[0].id)
    if game.pending() is not None:
        game.apply(1)  # yes
    back = Game.deserialize(game.serialize(), RELAY)
    assert back.state.dumps() == game.state.dumps() and back.pending() == game.pending()


NUMBERS = """
module: numbers
title: A move that asks for a number
counters:
  total: {per: player}
actions:
  count_up:
    title: Count up
    do:
      - choose n from [3, 1, 2]
      - me.total += n
flow:
  phases:
    play:
      turns: {}
      actions: [count_up]
  end:
    when: round_number > 3
  ranking: [me.total]
"""


def test_a_save_in_the_middle_of_a_move_with_a_number_answer_loads_and_continues(tmp_path: Path) -> None:
    (tmp_path / "numbers.yaml").write_text(NUMBERS)
    game = Game.new(tmp_path, 2, seed=1)
    game.apply(0)  # the move count_up
    pending = game.pending()
    assert pending is not None and [(o.id, o.value) for o in pending.options] == [(0, 3), (1, 1), (2, 2)]
    game.apply(2)  # the option with id 2: the number 2
    game.apply(0)
    assert game.pending().kind == "one"  # type: ignore[union-attr]
    back = Game.deserialize(game.serialize(), tmp_path)
    assert back.state.dumps() == game.state.dumps() and back.pending() == game.pending()
    assert back.state.counters["p1.total"] == 2
    back.apply(0)
    assert back.state.counters["p2.total"] == 3
