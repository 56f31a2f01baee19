"""The embedding API: decisions answered one at a time, the action log and replay, undo."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardrules.diagnostics import BoardrulesError, Diagnostics
from boardrules.engine.decisions import ScriptedDecider
from boardrules.engine.rules import Rules
from boardrules.engine.values import Piece
from boardrules.game import Game
from boardrules.language.pack import link, load_modules, load_rules

HARVEST = Path(__file__).parent / "packs" / "harvest"


@pytest.fixture(scope="module")
def rules() -> Rules:
    diags = Diagnostics()
    modules = load_modules(sorted(HARVEST.glob("*.yaml")), diags)
    linked = link(modules, ["harvest.plus"], diags)
    assert not diags.has_errors, diags.items
    return linked


def sale_game(rules: Rules) -> Game:
    game = Game(rules, 2, seed=3)
    for pid, worth in (("c1", 1), ("c2", 2)):
        game.state.create_piece(pid, "crate", "p1.barn", None, {"worth": worth})
    return game


def test_begin_answer_walks_through_open_decisions_without_touching_the_state(rules: Rules) -> None:
    game = sale_game(rules)
    before = game.state.dumps()
    first = game.begin("p1", "sell")
    assert first is not None and first.player == "p1"
    assert [o.value for o in first.options] == ["$c1", "$c2"]
    assert game.state.dumps() == before  # nothing happens until the action completes
    second = game.answer("$c2")
    assert second is not None and [o.value for o in second.options] == ["cash", "fame"]
    assert game.pending() is second
    assert game.state.dumps() == before
    assert game.answer("fame") is None
    assert game.pending() is None
    assert game.state.counters["p1.points"] == 2
    assert [Piece(p) for p in game.state.zones["p1.barn"].contents] == [Piece("c1")]


def test_a_bad_answer_is_refused_and_the_decision_stays_open(rules: Rules) -> None:
    game = sale_game(rules)
    before = game.state.dumps()
    first = game.begin("p1", "sell")
    with pytest.raises(BoardrulesError) as err:
        game.answer("$nope")
    assert err.value.code == "E505"
    assert game.state.dumps() == before
    assert game.pending() is first
    assert game.undo() and game.pending() is None  # undo with no answer given closes the action
    with pytest.raises(BoardrulesError):
        game.answer("$c1")  # nothing is open any more


def test_log_replays_to_the_same_state_and_undo_takes_the_entry_back(rules: Rules) -> None:
    game = Game(rules, 2, seed=9)
    game.setup()
    game.act("p1", "stroll")
    game.act("p2", "stroll")
    game.end_turn("p1")
    assert [e.get("action", e["kind"]) for e in game.log] == ["setup", "stroll", "stroll", "end_turn"]
    again = Game.replay(rules, 2, 9, game.log)
    assert again.state.dumps() == game.state.dumps()
    assert game.undo()
    assert len(game.log) == 3


def test_scripted_rolls_are_logged_so_replay_matches(rules: Rules) -> None:
    game = Game(rules, 2, seed=9)
    game.setup()
    game.act("p1", "stroll", decider=ScriptedDecider(rolls=[6]))
    assert game.log[-1]["chance"] == [6]
    assert Game.replay(rules, 2, 9, game.log).state.dumps() == game.state.dumps()


def test_an_answer_can_say_who_must_be_asked(rules: Rules) -> None:
    from boardrules.engine.decisions import WhoAnswers

    game = sale_game(rules)
    before = game.state.dumps()
    with pytest.raises(BoardrulesError) as err:
        game.act("p1", "sell", decider=ScriptedDecider([WhoAnswers("p2", "$c2"), "fame"]))
    assert err.value.code == "E505" and "the answer is for p2, but p1 chooses" in err.value.diagnostic.message
    assert game.state.dumps() == before
    game.act("p1", "sell", decider=ScriptedDecider([WhoAnswers("p1", "$c2"), WhoAnswers("p1", "fame")]))
    assert game.state.counters["p1.points"] == 2


def test_too_many_parameter_combinations_to_list_is_e511(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(
        "module: big\ntitle: Big\nplayers: {min: 1, max: 2}\ncounters:\n  n: {per: player, output: true}\n"
        "actions:\n  pick:\n    params: {a: {type: int, in: '1..200'}, b: {type: int, in: '1..200'}}\n"
        "    do: ['me.n += a + b']\n", encoding="utf-8")
    game = Game.new(load_rules(tmp_path), players=2, seed=1)
    with pytest.raises(BoardrulesError) as err:
        game.legal_moves("p1")
    assert err.value.code == "E511"
