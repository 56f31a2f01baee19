"""Faults injected into the state store: the k-th primitive operation of an action fails, for every k, before it
journals, after it journals but before it writes, and inside the placing of a piece. Each time the saved game
must be byte-identical to before the action, and the game must go on exactly as if nothing had happened."""

from __future__ import annotations

import json
from typing import Any

import pytest

from boardrules.diagnostics import BoardrulesError
from boardrules.engine.decisions import FirstOptionDecider
from boardrules.engine.rules import Rules
from boardrules.engine.state import State
from boardrules.game import Game

MODES = ("before_journal", "after_journal", "inside_place")


class Fault(Exception):
    """The injected failure; any exception a bug could raise."""


def saved(game: Game) -> str:
    # No sort_keys: the order of pieces, zones and counters in the saved game must come back too.
    return json.dumps(game.to_json(), ensure_ascii=False)


class Injector:
    """Counts journal appends (every primitive operation that changes something journals once, whether the
    store's own methods or compiled rule code write it) or calls to State._place, and fails the k-th."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, mode: str, k: int, game: Game) -> None:
        self.calls = 0
        self.k = k
        if mode == "inside_place":
            original = State._place

            def wrapped(state: State, *args: Any) -> Any:
                self.calls += 1
                result = original(state, *args)
                if self.calls == self.k:
                    raise Fault(f"fault at operation {self.k}")  # inside the write
                return result

            monkeypatch.setattr(State, "_place", wrapped)
            return
        injector = self

        class FaultyJournal(list):
            def append(self, entry: Any) -> None:
                injector.calls += 1
                if injector.calls == injector.k and mode == "before_journal":
                    raise Fault(f"fault at operation {injector.k}")
                super().append(entry)
                if injector.calls == injector.k:
                    raise Fault(f"fault at operation {injector.k}")  # after the journal entry, before the write

        game.state.journal = FaultyJournal(game.state.journal)


def count_operations(rules: Rules, start: str, player: str, action: str, mode: str) -> int:
    game = Game.from_json(rules, json.loads(start), FirstOptionDecider())
    with pytest.MonkeyPatch.context() as mp:
        probe = Injector(mp, mode, 0, game)
        try:
            game.act(player, action)
        except BoardrulesError:
            return 0
    return probe.calls


def played_actions(rules: Rules) -> list[tuple[str, str]]:
    """Actions p1 can take after setup with the first option of every choice, each of which changes something."""
    game = Game(rules, 2, 7, FirstOptionDecider())
    game.setup()
    start = saved(game)
    out = []
    for move in game.legal_actions("p1"):
        if move["params"]:
            continue
        action = move["action"]
        try:
            game.act("p1", action)
        except BoardrulesError:
            continue
        if saved(game) != start:
            out.append(("p1", action))
        game.undo()
    return out


@pytest.fixture(scope="module")
def start_and_actions(harvest_rules: Rules) -> tuple[str, list[tuple[str, str]]]:
    game = Game(harvest_rules, 2, 7, FirstOptionDecider())
    game.setup()
    return json.dumps(game.to_json(), ensure_ascii=False), played_actions(harvest_rules)


def test_there_are_actions_to_break(start_and_actions: Any) -> None:
    assert len(start_and_actions[1]) >= 10


@pytest.mark.parametrize("mode", MODES)
def test_a_fault_at_every_operation_leaves_the_saved_game_unchanged(harvest_rules: Rules, start_and_actions: Any,
                                                                     mode: str) -> None:
    start, actions = start_and_actions
    tried = 0
    for player, action in actions:
        reference = Game.from_json(harvest_rules, json.loads(start), FirstOptionDecider())
        reference.act(player, action)
        after = saved(reference)
        n = count_operations(harvest_rules, start, player, action, mode)
        for k in range(1, n + 1):
            game = Game.from_json(harvest_rules, json.loads(start), FirstOptionDecider())
            before = saved(game)
            with pytest.MonkeyPatch.context() as mp:
                Injector(mp, mode, k, game)
                with pytest.raises(BoardrulesError) as info:
                    game.act(player, action)
            assert info.value.code == "E900", (action, k, info.value.diagnostic)
            assert saved(game) == before, (mode, action, k)
            game.act(player, action)  # the game goes on, exactly as if the fault never happened
            assert saved(game) == after, (mode, action, k)
            tried += 1
    assert tried > 0
