"""Answers the search skips because they cannot change how the rest of a move fails (engine/independence.py).

The whole-game differential test (test_totality.py) compares the search that skips them with the one that tries
every answer on every decision of random games of the shipped packs; these pin down what is and is not skipped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from boardrules.engine import independence
from boardrules.engine.moves import Activity, Search
from boardrules.game import Game
from boardrules.language.pack import load_rules

ROOT = Path(__file__).resolve().parents[1]

MODULE = """
module: ind
title: independence
players: {min: 2, max: 2}
sets:
  colours: [red, blue, green]
counters:
  tokens: {per: player, keys: colours, initial: 0}
  gems: {per: player, initial: 0}
zones:
  bag: {}
  box: {}
tracks:
  road: {spaces: 10, markers: {cart: 1}}
pieces:
  stone: {}
setup:
  stones: {do: ["create 3 stone in bag"]}
actions:
  spend:
    title: the colour cannot matter to paying gems
    do: ["choose k from colours", "me.tokens[k] += 1", "choose n from [1, 2]", "me.gems -= n"]
  spend_tokens:
    title: the rest reads what the colour changed
    do: ["choose k from colours", "me.tokens[k] += 1", "choose n from [1, 2]", "require me.tokens[blue] > 5 else 'no'"]
  pick_green:
    title: only green finishes
    do: ["choose k from colours", "me.tokens[k] += 1", "choose n from [1, 2]", "require me.tokens[green] > 0 else 'no'"]
  uses_k:
    title: the rest reads the local the first choice binds
    do: ["choose k from colours", "choose n from [1, 2]", "require k != k else 'no'"]
  moves_then_counts:
    title: a moved piece the rest counts
    do: ["choose k from colours", "move first(bag) to box", "choose n from [1, 2]", "require count(box) > 5 else 'no'"]
  moves_then_pays:
    title: a moved piece the rest never reads
    do: ["choose k from colours", "move first(bag) to box", "choose n from [1, 2]", "me.gems -= n"]
  advances_then_pays:
    title: a moved marker the rest never reads
    do: ["choose k from colours", "advance cart by 1", "choose n from [1, 2]", "me.gems -= n"]
  advances_then_reads:
    title: a moved marker the rest reads
    do: ["choose k from colours", "advance cart by 1", "choose n from [1, 2]", "require position(cart) > 5 else 'no'"]
  advances_held:
    title: a marker held by a local, which the rest reads
    do: ["choose k from colours", "let c = cart", "advance c by 1", "choose n from [1, 2]",
         "require position(c) > 5 else 'no'"]
"""


def _runs(game: Game, action: str, prune: bool) -> tuple[bool, int]:
    """(verdict, dry runs tried) of a fresh search of the action, knowing no answer that finished before."""
    game._m.answer_wins = {}
    search = Search(game._m, False)
    search.prune = prune
    ok = search.can_finish(Activity("act", "p1", action, {}))
    return ok, search.budget - search.left


@pytest.mark.parametrize("action, legal, pruned, full", [
    ("spend", False, 2, 6),  # one colour's two amounts fail; the other colours are skipped
    ("spend_tokens", False, 6, 6),
    ("pick_green", True, 5, 5),  # red and blue fail, then green with its first amount finishes
    ("uses_k", False, 6, 6),
    ("moves_then_counts", False, 6, 6),
    ("moves_then_pays", False, 2, 6),
    ("advances_then_pays", False, 2, 6),
    ("advances_then_reads", False, 6, 6),
    ("advances_held", False, 6, 6),
])
@pytest.mark.parametrize("compiled", [True, False])
def test_answers_that_cannot_matter_are_skipped(build: Any, action: str, legal: bool, pruned: int,
                                               full: int, compiled: bool) -> None:
    rules = build(MODULE)
    if compiled:  # a decision names its rule the same way from a compiled body
        rules.compile_after = 0
    else:
        rules.compile_body = None
    game = Game(rules, 2, 1)
    game.setup()
    assert _runs(game, action, True) == (legal, pruned)
    assert _runs(game, action, False) == (legal, full)


def test_a_proof_first_takes_the_answers_that_finished_before(build: Any) -> None:
    game = Game(build(MODULE), 2, 1)
    game.setup()
    assert _runs(game, "pick_green", True) == (True, 5)
    search = Search(game._m, False)  # green (with 1) finished the last proof: it is taken first now
    assert search.can_finish(Activity("act", "p1", "pick_green", {}))
    assert search.budget - search.left == 1
    assert search.first is not None and search.first.extra == ["green", 1]


def test_what_each_statement_reads_and_changes(build: Any) -> None:
    rules = build(MODULE)
    spend = independence.for_action(rules, "spend")
    assert spend.independent(0, 2)  # choose k, tokens[k] += 1 change nothing `choose n`, `gems -= n` read
    assert not spend.independent(2, 3)  # `choose n` binds n, which the last statement reads
    assert not independence.for_action(rules, "spend_tokens").independent(0, 2)
    assert not independence.for_action(rules, "moves_then_counts").independent(0, 2)
    assert independence.for_action(rules, "moves_then_pays").independent(0, 2)
    assert independence.for_action(rules, "advances_then_pays").independent(0, 2)
    assert not independence.for_action(rules, "advances_then_reads").independent(0, 2)
    held = independence.for_action(rules, "advances_held")
    assert held.parts[2].other and not held.parts[2].markers  # which marker `c` holds is not known
    assert not held.independent(0, 3)
    assert spend.places([rules.actions["spend"].body[0].span, rules.actions["spend"].body[2].span]) == [0, 2]
    assert spend.places([rules.actions["spend"].body[2].span, rules.actions["spend"].body[0].span]) is None


FLOW = """
module: indflow
title: independence and the flow
players: {min: 2, max: 2}
sets:
  colours: [blue, red, green]
counters:
  tokens: {per: player, keys: colours, initial: 0}
  gems: {per: player, initial: 0}
actions:
  pay: {title: pay, do: ["choose k from colours", "me.tokens[k] += 1", "choose n from [1, 2]", "me.gems += n"]}
  leave: {title: leave, do: [pass]}
triggers:
  no_blue:
    on: turn_end
    do: ["require player.tokens[blue] == 0 else 'no blue'"]
flow:
  first_player: p1
  phases:
    play:
      turns: {until: all_passed}
      actions: [pay, leave]
"""


def test_a_way_that_failed_in_the_flow_skips_nothing(build: Any) -> None:
    # Blue fails only in the flow after the move (a turn_end trigger reads what the colour changed), which the
    # statements after `choose n` never read: the other colours must still be tried, and red finishes.
    game = Game(build(FLOW), 2, 1, flow=True)
    game.setup()
    for prune in (True, False):
        game._m.answer_wins = {}
        search = Search(game._m, False)
        search.prune = prune
        assert search.can_finish(Activity("move", "p1", "pay", {}))
        assert search.budget - search.left == 3  # blue with 1, blue with 2, then red with 1


def test_a_village_market_skips_the_other_cube_colours() -> None:
    # Taking the cube (`advance me.time by plague_time` for a black one, influence for the others) changes nothing
    # that serving a customer reads: a market no customer can be served at is refused after one colour's
    # customers. Pinned on the shipped pack, which lost this once when time became a marker.
    rules = load_rules(ROOT / "rules" / "village", None, None)
    market = independence.for_action(rules, "market_action")
    assert market.parts[1].markers == {"time"} and not market.parts[1].other
    assert market.independent(0, 2)
