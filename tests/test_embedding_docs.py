"""What docs/embedding.md and the scenario section of docs/language.md say, held against behaviour: where the
error class comes from, what `legal_actions()` answers in each situation, which code a call after the end gets,
what `undo()` does before anything was answered, and the order in which a scenario applies `flow:` and `state:`."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from boardrules.diagnostics import BoardrulesError, Diagnostics
from boardrules.game import CHANCE, Game
from boardrules.language.pack import load_modules
from boardrules.tools.scenario import ScenarioRunner

RELAY = Path(__file__).resolve().parent / "packs" / "relay"


def _relay(seed: int = 1) -> Game:
    return Game.new(RELAY, 3, seed=seed, options={"prize": 4})


class _NeverCameUp(AssertionError):
    pass


def _play_until(game: Game, rng: random.Random, wanted: Callable[[Game], object]) -> None:
    for _ in range(500):
        if wanted(game):
            return
        if game.is_terminal():
            break
        game.apply(game.pending().sample(rng).id)  # type: ignore[union-attr]
    raise _NeverCameUp("the situation never came up")


def test_the_error_class_comes_from_boardrules_diagnostics() -> None:
    with pytest.raises(BoardrulesError) as caught:
        Game.new(RELAY / "nowhere", 2)
    assert caught.value.diagnostics and caught.value.diagnostic.code == "E105"


def test_legal_actions_are_the_moves_pending_and_nothing_in_any_other_situation() -> None:
    for seed in range(3, 40):  # a random game that goes through every situation below
        try:
            _legal_actions_in_each_situation(_relay(), random.Random(seed))
            return
        except _NeverCameUp:
            continue
    raise AssertionError("no random game went through every situation")


def _kind(game: Game) -> str | None:
    pending = game.pending()
    return None if pending is None else pending.kind


def _legal_actions_in_each_situation(game: Game, rng: random.Random) -> None:
    assert game.pending().player == CHANCE and game.legal_actions() == []  # a chance step of the setup
    _play_until(game, rng, lambda g: _kind(g) == "move")
    pending = game.pending()
    assert game.legal_actions() == [o.value for o in pending.options] == game.legal_actions(pending.player)
    assert len(game.legal_actions()) >= 2
    others = [seat for seat in game.players if seat != pending.player]
    assert [game.legal_actions(seat) for seat in others] == [[], []]  # seats not to move
    # inside a move: a player's choice (`may` in a favour, asked of another player) and a chance draw (rest)
    _play_until(game, rng, lambda g: _kind(g) == "yesno")
    assert game.pending().player != game.state.vars["turn_player"]
    assert [game.legal_actions(seat) for seat in (None, *game.players)] == [[], [], [], []]
    _play_until(game, rng, lambda g: g.log and _kind(g) == CHANCE)  # a card drawn at random in `rest`
    assert game.log[-1]["kind"] != "setup" and game.legal_actions() == []
    _play_until(game, rng, lambda g: g.is_terminal())
    assert [game.legal_actions(seat) for seat in (None, *game.players)] == [[], [], [], []]


def test_calls_after_the_end_fail_with_their_codes_and_change_nothing() -> None:
    game = _relay()
    _play_until(game, random.Random(5), lambda g: g.is_terminal())
    saved = game.state.dumps()
    with pytest.raises(BoardrulesError) as applied:
        game.apply(0)
    assert applied.value.diagnostic.code == "E509"
    assert applied.value.diagnostic.message == "nothing is pending: the game is over"
    with pytest.raises(BoardrulesError) as acted:
        game.act("p1", "give_up")
    assert acted.value.diagnostic.code == "E501" and "the game is over" in acted.value.diagnostic.message
    assert game.state.dumps() == saved and game.current_player() == "terminal"


def test_undo_before_any_answer_has_nothing_to_undo_and_every_undo_ends() -> None:
    game = _relay()
    before, pending = game.state.dumps(), game.pending()
    assert pending.player == CHANCE  # the setup's shuffle is under way
    assert game.undo() is False
    assert game.state.dumps() == before and game.pending() == pending
    rng = random.Random(1)
    for _ in range(20):
        game.apply(game.pending().sample(rng).id)  # type: ignore[union-attr]
    assert not game.is_terminal()
    undone = 0
    while game.undo():
        undone += 1
        assert undone <= 30
    assert [entry["kind"] for entry in game.log] == ["setup"]  # setup is never taken back once finished
    assert game.pending().kind == "move"


def _scenario(tmp_path: Path, text: str) -> list[str]:
    pack = tmp_path / "relay"
    (pack / "scenarios").mkdir(parents=True)
    (pack / "relay.yaml").write_text((RELAY / "relay.yaml").read_text())
    path = pack / "scenarios" / "s.yaml"
    path.write_text(text)
    result = ScenarioRunner(load_modules([pack / "relay.yaml"], Diagnostics())).run_file(path)
    return result.failures


def test_with_flow_the_flow_starts_before_the_scenario_state_is_applied(tmp_path: Path) -> None:
    base = "scenario: s\nmodules: [relay]\nplayers: 2\noptions: {prize: 4}\nflow: true\n"
    # the first phase (income: everyone gains a token) has run when state: is applied, and is not run again
    assert _scenario(tmp_path / "a", base + "expect:\n  p1.tokens: 2\n") == []
    assert _scenario(tmp_path / "b", base + "state:\n  counters:\n    p1.tokens: 5\nexpect:\n  p1.tokens: 5\n") == []


def test_an_expect_formula_has_no_me(tmp_path: Path) -> None:
    failures = _scenario(tmp_path, "scenario: s\nmodules: [relay]\nplayers: 2\nexpect:\n  me.tokens: 1\n")
    assert len(failures) == 1 and "'me' is not available here: no player is acting" in failures[0]
