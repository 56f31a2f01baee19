"""Totality (engine/totality.py): which rule bodies always finish, so that listing proves a move from its guard
and cost alone and an option inside it without running it.

The analysis is checked differentially: on every decision of random whole games of the shipped packs and the
neutral test packs, the verdict of the search with the analysis equals the verdict of the full search for every
candidate move and option, and every listed option is carried out to the end of its move by applying it."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from boardrules.engine.moves import Activity, Search, candidate_moves
from boardrules.engine.totality import Totality, for_players
from boardrules.game import CHANCE, Game, _with
from boardrules.language.pack import load_rules

ROOT = Path(__file__).resolve().parents[1]
PACKS = ROOT / "tests" / "packs"
FLOW_PACKS = {"relay": (PACKS / "relay", None, {"prize": 4}), "finale": (PACKS / "finale", None, None),
              "finale.tally": (PACKS / "finale", ["finale.tally"], None),
              "finale.deck": (PACKS / "finale", ["finale.deck"], None),
              "lisboa": (ROOT / "rules" / "lisboa", None, None), "village": (ROOT / "rules" / "village", None, None)}
FREE_PACKS = {"harvest": (PACKS / "harvest", None, {"prize_coins": 3}), "payments": (PACKS / "payments", None, None),
              "limits": (PACKS / "limits", None, None), "finale.free": (PACKS / "finale", ["finale.free"], None)}

MODULE = """
module: t
title: totality
players: {min: 2, max: 3}
sets:
  colours: [red, blue]
values:
  five: {value: 5}
  open: {unknown: "not known", type: int}
  worth: {table: {red: 2, blue: 0}}
  swing: {table: {red: 2, blue: -1}}
counters:
  free: {per: player, initial: 0, min: null}
  coins: {per: player, initial: 0}
  capped: {per: player, initial: 0, max: 3}
  kept: {per: player, initial: 0, max: 3, overflow: discard}
  price: {per: game, keys: colours, initial: 2, min: 1}
  stock: {per: player, keys: colours, initial: 0}
  floored: {per: player, initial: 0, underflow: discard}
pieces:
  token:
    properties:
      worth: {type: int, default: 0}
zones:
  bag: {}
  box: {capacity: 2}
actions:
  gain: {title: gain, do: ["me.coins += 2"]}
  gain_capped: {title: gain capped, do: ["me.capped += 1"]}
  gain_kept: {title: gain kept, do: ["me.kept += 1"]}
  spend: {title: spend, do: ["me.coins -= 1"]}
  spend_free: {title: spend free, do: ["me.free -= 1"]}
  reset: {title: reset, do: ["me.capped = 0"]}
  overset: {title: overset, do: ["me.capped = 4"]}
  by_price: {title: by price, do: ["me.coins += price[red] + five"]}
  by_worth: {title: by worth, do: ["me.coins += sum([t.worth for t in bag])"]}
  make: {title: make, do: ["create token in bag with worth = 2"]}
  make_boxed: {title: make boxed, do: ["create token in box"]}
  needs: {title: needs, do: ["require me.coins > 0 else 'no'"]}
  pays: {title: pays, cost: "1 coins", do: ["me.coins += 1"]}
  picks: {title: picks, do: ["choose c from colours", "me.coins += 1"]}
  maybe_picks: {title: maybe picks, do: ["choose c from colours optional", "me.coins += 1"]}
  may: {title: may, do: [{may: {do: ["me.coins += 1"]}}]}
  sell: {title: sell, params: {c: {type: symbol, in: colours}}, allowed_if: "me.stock[c] > 0 and me.coins >= 0",
         do: ["me.stock[c] -= 1", "me.coins += 1"]}
  sell_two: {title: sell two, params: {c: {type: symbol, in: colours}}, allowed_if: "me.stock[c] > 0",
             do: ["me.stock[c] -= 1", "me.stock[c] -= 1"]}
  sell_other: {title: sell other, params: {c: {type: symbol, in: colours}}, allowed_if: "me.stock[c] > 0",
               do: ["me.stock[blue] -= 1"]}
  sell_enough: {title: sell enough, allowed_if: "2 <= me.stock[red]", do: ["me.stock[red] -= 2"]}
  lose_floored: {title: lose floored, do: ["me.floored -= 5"]}
  checked: {title: checked, do: ["require me.coins > 0 else 'no'", "me.coins -= 1", "me.free += 1"]}
  offered: {title: offered, do: ["require me.coins > 0 else 'no'", {may: {do: ["require me.coins > 5 else 'no'"]}}]}
  loops: {title: loops, do: [{while: "me.coins < 3", do: ["me.coins += 1"]}]}
  by_table: {title: by table, params: {c: {type: symbol, in: colours}}, do: ["me.coins += worth[c]"]}
  by_swing: {title: by swing, params: {c: {type: symbol, in: colours}}, do: ["me.coins += swing[c]"]}
"""


@pytest.fixture
def analysis(build: Any) -> Totality:
    rules = build(MODULE)
    return Totality(rules)


@pytest.mark.parametrize("action, total", [
    ("gain", True), ("gain_capped", False), ("gain_kept", True), ("spend", False), ("spend_free", True),
    ("reset", True), ("overset", False), ("by_price", True), ("by_worth", True), ("make", True),
    ("make_boxed", False), ("needs", False), ("pays", True), ("picks", False), ("maybe_picks", True),
    ("may", True), ("loops", False), ("sell", True), ("sell_two", False), ("sell_other", False),
    ("sell_enough", True), ("lose_floored", True), ("by_table", True), ("by_swing", False)])
def test_which_bodies_always_finish(analysis: Totality, action: str, total: bool) -> None:
    # A cost is not part of the body: the search still pays it (see Search._total).
    assert analysis.action(action) is total


def test_a_proof_runs_the_body_up_to_what_always_finishes(analysis: Totality) -> None:
    body = analysis.rules.actions["checked"].body
    assert analysis.head("checked") == body[:2]  # the require and the loss it guards; `free` has no floor
    assert analysis.head("checked") is analysis.head("checked")  # one tuple: compiled once
    assert analysis.head("needs") is analysis.rules.actions["needs"].body
    assert analysis.head("gain") == ()
    # A `may` whose step can refuse: an answer to it needs a run, but the move always has a way on (decline it).
    offered = analysis.rules.actions["offered"].body
    assert analysis.head("offered") is offered and analysis.reach.head("offered") == offered[:1]


def test_an_unknown_value_switches_the_analysis_off_only_where_a_rule_reads_it(build: Any) -> None:
    rules = build(MODULE)
    assert for_players(rules, 2) is not None  # `open` is unknown, but no rule reads it
    assert for_players(rules, 2) is for_players(rules, 3)  # made once per rule set
    guess = '\n  guess: {title: guess, do: ["me.coins += open"]}'
    reads = build(MODULE.replace('  gain: {title: gain, do: ["me.coins += 2"]}',
                                 '  gain: {title: gain, do: ["me.coins += 2"]}' + guess))
    assert for_players(reads, 2) is None  # an action computes with it: any game may stop there (E601)
    known = build(MODULE.replace('open: {unknown: "not known", type: int}', "open: {value: 1}"))
    assert for_players(known, 2) is not None


FILLED = """
module: k
title: known after setup
players: {min: 2, max: 3}
values:
  per_player: {by_players: {2: 1}}
counters:
  card: {per: game, initial: {unknown: "printed on the card"}}
  coins: {per: player, initial: 0}
pieces:
  order:
    properties:
      good: {type: int, default: {unknown: "printed on the order"}}
zones:
  queue: {}
setup:
  fill: {do: ["card = 2", "create order in queue with good = 1"]}
actions:
  gain: {title: gain, do: ["me.coins += card"]}
"""


@pytest.mark.parametrize("change, players, on", [
    ((), 2, True),  # setup fills the counter and gives the order its good
    (('"card = 2", ', ""), 2, False),  # the counter keeps its unknown starting value
    (("with good = 1", ""), 2, False),  # the order keeps its unknown default
    (('do: ["me.coins += card"]', 'do: ["me.coins += card + per_player"]'), 2, True),
    (('do: ["me.coins += card"]', 'do: ["me.coins += card + per_player"]'), 3, False),  # no entry for 3 players
    (('do: ["me.coins += card"]', 'do: ["create order in queue"]'), 2, False),  # made in play at its default
    (('do: ["me.coins += card"]', 'do: ["create order in queue with good = 2"]'), 2, True),
])
def test_the_analysis_is_used_once_setup_has_filled_every_unknown(link_diags: Any, change: tuple[str, ...],
                                                                  players: int, on: bool) -> None:
    rules, diags = link_diags(FILLED.replace(*change) if change else FILLED)
    assert not diags.has_errors, [d.message for d in diags.items]
    game = Game(rules, players, 1)
    assert game._m.analysis() is None  # before setup the card's count is unknown
    game.setup()
    assert (game._m.analysis() is not None) is on
    assert (game.clone()._m.analysis() is not None) is on


def test_a_property_given_a_negative_value_is_not_a_gain(build: Any) -> None:
    rules = build(MODULE.replace("make: {title: make, do: [\"create token in bag with worth = 2\"]}",
                                 "make: {title: make, do: [\"create token in bag with worth = -2\"]}"))
    assert not Totality(rules).action("by_worth")


# ---------------------------------------------------------------- differential: the packs' own states
def _verdicts(game: Game, activities: list[Activity]) -> tuple[list[bool], list[bool]]:
    """(with the analysis and the answers skipped as independent, with neither) for each activity, each proven by
    a fresh search as listing does."""
    m = game._m
    fast = Search(m, game.chance == "step", game.search_budget)
    fast_out = [fast.can_finish(a) for a in activities]
    total, m.totality = m.totality, None
    try:
        slow = Search(m, game.chance == "step", game.search_budget)
        slow.prune = False
        slow_out = [slow.can_finish(a) for a in activities]
    finally:
        m.totality = total
    return fast_out, slow_out


def _finish(game: Game, rng: random.Random) -> None:
    """Answer the open move's decisions at random until it is carried out (sample fails on a dead end)."""
    while game._open is not None:
        pending = game.pending()
        if pending is None:
            return
        game.apply(pending.sample(rng).id)


def _candidates(game: Game) -> list[Activity]:
    pending = game._pending
    assert pending is not None
    answers = [game._pending_answers[i] for i in range(pending.id_bound)]
    if pending.kind == "move":
        return [Activity("move", pending.player, a.action, dict(a.params)) for a in answers]
    assert game._open is not None
    return [_with(game._open, a) for a in answers]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FLOW_PACKS))
@pytest.mark.parametrize("chance", ["step", "auto"])
def test_the_fast_verdict_is_the_full_search_on_whole_games(name: str, chance: str) -> None:
    path, modules, options = FLOW_PACKS[name]
    rules = load_rules(path, modules, options)
    fast_seen = 0
    for seed in (1, 2):
        game = Game(rules, 3, seed, flow=True, chance=chance)
        game.setup()
        rng = random.Random(seed)
        for _ in range(400 if name != "village" else 250):
            if game.is_terminal():
                break
            pending = game.pending()
            assert pending is not None
            if pending.player != CHANCE:
                assert game._m.analysis() is not None  # Village's game module fills its seed modules' unknowns
                activities = _candidates(game)
                fast, slow = _verdicts(game, activities)
                assert fast == slow, [(a.action, a.params, a.answers) for a, f, s in
                                      zip(activities, fast, slow, strict=True) if f != s]
                fast_seen += sum(1 for a in activities if Search(game._m, game.chance == "step")._total(a) is not None)
                for option in pending.options:  # every listed option is carried out to the end of its move
                    trial = game.clone()
                    trial.apply(option.id)
                    _finish(trial, random.Random(option.id))
            game.apply(pending.sample(rng).id)
    # Village's flow after a move can refuse (its Mass, a death when time runs out), so every proof runs it there;
    # elsewhere the fast path was taken, so the comparison means something.
    assert fast_seen > 0 or name == "village"


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FREE_PACKS))
def test_the_fast_verdict_is_the_full_search_in_free_play(name: str) -> None:
    path, modules, options = FREE_PACKS[name]
    rules = load_rules(path, modules, options)
    for seed in (1, 2, 3):
        game = Game(rules, 2, seed)
        game.setup()
        assert game._m.totality is not None
        rng = random.Random(seed)
        for _ in range(40):
            player = rng.choice(game.players)
            moves = candidate_moves(game._m, player)
            activities = [Activity("act", player, mv.action, dict(mv.params)) for mv in moves]
            fast, slow = _verdicts(game, activities)
            assert fast == slow
            legal = [mv for mv, ok in zip(moves, fast, strict=True) if ok]
            for mv in legal:  # every listed move is carried out to its end
                trial = game.clone()
                pending = trial.begin(player, mv.action, dict(mv.params))
                while pending is not None:
                    pending = trial.answer(pending.sample(rng))
            if not legal:
                continue
            move = rng.choice(legal)
            pending = game.begin(player, move.action, dict(move.params))
            while pending is not None:
                activities = _candidates(game)
                fast, slow = _verdicts(game, activities)
                assert fast == slow
                pending = game.answer(pending.sample(rng))


@pytest.mark.parametrize("change, action, total", [
    # `me.stock[red]` is the keyed counter's cell (floor 0), though a piece has a property named `stock` too
    (("      worth: {type: int, default: 0}", "      worth: {type: int, default: 0}\n      stock: {type: int}"),
     'by_stock: {title: by stock, do: ["me.coins += me.stock[red]"]}', True),
    # a name bound by the rule is not the counter it is named like: `coins` here may be below zero
    ((), 'by_local: {title: by local, do: [{for: "coins in [0 - 5]", do: ["me.coins += coins"]}]}', False),
])
def test_a_name_is_judged_by_what_the_checked_tree_says_it_denotes(build: Any, change: tuple[str, ...], action: str,
                                                                 total: bool) -> None:
    text = MODULE.replace(*change) if change else MODULE
    rules = build(text.replace('  gain: {title: gain, do: ["me.coins += 2"]}',
                               f'  gain: {{title: gain, do: ["me.coins += 2"]}}\n  {action}'))
    assert Totality(rules).action(action.split(":")[0]) is total
