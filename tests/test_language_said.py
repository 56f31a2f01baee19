"""What the language reference says is what the engine does: turns.actions by a value's name, notes on piece
properties, the order of counter triggers when a cap carries, the view a `before` hook has of a count its rule
changes, and `end game` without a flow. Each runs node by node and compiled, which must agree."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import BOTH, link_texts

from boardrules.diagnostics import BoardrulesError
from boardrules.engine.decisions import ScriptedDecider
from boardrules.engine.rules import Rules
from boardrules.game import Game

Build = Callable[..., Rules]


FLOW = """
module: f
title: F
players: {min: 2, max: 2}
values:
  moves: 2
counters:
  acts: {per: player, initial: 0, output: true}
pieces:
  chip:
    properties:
      worth: {type: int, default: 1, note: "what the chip scores at the end"}
zones:
  pile: {}
actions:
  act:
    title: Act
    do: ["me.acts += 1", "create chip in pile"]
flow:
  first_player: p1
  phases:
    play:
      turns: {actions: %s}
      actions: [act]
  end:
    when: round_number > 1
"""


@BOTH
def test_turns_actions_may_name_a_number_value(tmp_path: Path, mode: Callable[[Rules], Rules]) -> None:
    rules, diags = link_texts(tmp_path, FLOW % "moves")
    assert diags.items == []
    phase = rules.flow.phases[0] if rules.flow is not None else None
    assert phase is not None and phase.turns is not None and phase.turns.per_turn == 2
    game = Game(mode(rules), 2, flow=True)
    game.setup()
    for player in ("p1", "p1", "p2", "p2"):
        assert game.current_player() == player
        game.act(player, "act")
    assert game.is_terminal()
    assert [game.state.counters[f"{p}.acts"] for p in ("p1", "p2")] == [2, 2]
    assert rules.kinds["chip"]["worth"] == "int"  # the property's note is for readers only


@pytest.mark.parametrize(("written", "code"), [("nothing_declared", "E201"), ("1.5", "E201"), ("0", "E201")])
def test_turns_actions_that_is_no_count_is_refused(tmp_path: Path, written: str, code: str) -> None:
    _, diags = link_texts(tmp_path, FLOW % written)
    assert [d.code for d in diags.items if d.severity == "error"][:1] == [code]


TRIGGERS = """
module: t
title: T
events:
  seen: {params: {what: int}}
counters:
  stored: {per: player, initial: 0, max: 2, overflow: carry, carry_to: spare}
  spare:  {per: player, initial: 0}
  order:  {per: game, initial: 0, output: true}
triggers:
  on_stored_first:
    on: {change: stored}
    do: ["order = order * 10 + 1"]
  on_spare:
    on: {change: spare}
    do: ["order = order * 10 + 2"]
  on_stored_second:
    on: {change: stored}
    do: ["order = order * 10 + 3"]
actions:
  gain:
    title: Gain
    do: ["me.stored += 3"]
"""


@BOTH
def test_a_carry_targets_trigger_runs_before_the_sources(build: Build, mode: Callable[[Rules], Rules]) -> None:
    game = Game(mode(build(TRIGGERS)), 1)
    game.setup()
    game.act("p1", "gain")
    assert (game.state.counters["p1.stored"], game.state.counters["p1.spare"]) == (2, 1)
    # the carry target's trigger first, then the source's triggers in the order they are declared
    assert game.state.counters["order"] == 213


HOOKS = """
module: base
title: Base
counters:
  rounds: {per: game, initial: 0, output: true}
  seen_before: {per: game, initial: 0, output: true}
  seen_after_step: {per: game, initial: 0, output: true}
actions:
  start_round:
    title: Start a round
    by: game
    do:
      - step: next_round
        do: ["rounds += 1"]
      - seen_after_step = seen_after_step
"""

HOOKING = """
module: hooks
title: Hooks
requires: [base]
wrap:
  actions.start_round:
    before: ["seen_before = rounds"]
  actions.start_round.next_round:
    after: ["seen_after_step = rounds"]
"""


@BOTH
def test_a_before_hook_sees_the_count_its_rule_has_not_yet_changed(build: Build, mode: Callable[[Rules], Rules]
                                                                   ) -> None:
    game = Game(mode(build(HOOKS, HOOKING)), 1)
    game.setup()
    game.act(None, "start_round")
    game.act(None, "start_round")
    counters: dict[str, Any] = game.state.counters
    assert (counters["rounds"], counters["seen_before"], counters["seen_after_step"]) == (2, 1, 2)


ROUNDS = """
module: r
title: R
players: {min: 1, max: 1}
counters:
  seen: {per: game, initial: 0, output: true}
actions:
  act: {title: Act, do: []}
flow:
  first_player: p1
  phases:
    play:
      before: ["seen = seen * 10 + round_number"]
      turns: {}
      actions: [act]
  end:
    when: round_number > 3
"""


@BOTH
def test_a_phase_before_sees_the_new_round(build: Build, mode: Callable[[Rules], Rules]) -> None:
    game = Game(mode(build(ROUNDS)), 1, flow=True)
    game.setup()
    while not game.is_terminal():
        game.act("p1", "act")
    # the round number rises before the round's first phase begins; the end is checked once that phase has
    # begun, so round 4's `before` runs and the game ends before any move in it
    assert game.state.counters["seen"] == 1234


FREE = """
module: g
title: G
counters:
  points: {per: player, initial: 0, output: true}
actions:
  score:
    title: Score
    do: ["me.points += 1"]
  finish:
    title: Finish the game
    do: ["me.points += 5", "end game", "me.points += 100"]
"""


@BOTH
def test_end_game_without_a_flow_ends_it(build: Build, mode: Callable[[Rules], Rules]) -> None:
    game = Game(mode(build(FREE)), 2)
    game.setup()
    game.act("p1", "score")
    game.act("p2", "finish")
    assert game.is_terminal()
    assert game.state.counters["p2.points"] == 5  # `end game` is `end game now`: the rest of the action does not run
    before = game.state.dumps()
    with pytest.raises(BoardrulesError) as refused:
        game.act("p1", "score")
    assert refused.value.code == "E501" and "the game is over" in refused.value.diagnostic.message
    assert game.state.dumps() == before


ONE = """
module: o
title: O
counters:
  got: {per: player, initial: 0, output: true}
actions:
  one:
    title: One
    do: ["choose x from [3]", "me.got += x"]
  all:
    title: All
    do: ["choose xs from [1, 2] count 2", "me.got += count(xs)"]
"""


@BOTH
def test_a_choice_with_one_possible_answer_is_not_asked(build: Build, mode: Callable[[Rules], Rules]) -> None:
    game = Game(mode(build(ONE)), 1)
    game.setup()
    game.act("p1", "one", decider=ScriptedDecider([]))  # no answer scripted, none asked
    game.act("p1", "all", decider=ScriptedDecider([]))
    assert game.state.counters["p1.got"] == 5
