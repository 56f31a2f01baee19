"""Games built from inline modules: every effect, atomic actions, decisions, limits, events, undo, saving, and
the linker's diagnostics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import build_rules, link_texts

from boardrules.diagnostics import BoardrulesError, Diagnostic
from boardrules.engine.decisions import ScriptedDecider
from boardrules.engine.rules import Rules
from boardrules.engine.state import State
from boardrules.engine.values import Piece, Player, Unknown
from boardrules.game import Game

MAIN = """
module: t.base
title: Test game
players: {min: 1, max: 4}
sets:
  colours: [red, blue, green]
values:
  mystery: {unknown: "the rules never say"}
  bonus: 2
counters:
  coins: {per: player, initial: 5}
  pts:   {per: player, initial: 0}
  grain: {per: player, initial: 1, max: 4}
  gems:  {per: player, keys: colours, initial: 0}
  price: {per: game, keys: colours, initial: 3, min: 1}
  log:   {per: game, initial: 0}
  loops: {per: game, initial: 0}
pieces:
  worker:
    properties:
      age:   {type: int, default: 1}
      owner: {type: player}
  crate:
    properties:
      worth: {type: int, default: 1}
zones:
  farm:   {per: player}
  meadow: {}
  podium: {slots: 2}
  pens:   {slots: 2, slot_capacity: 2}
  pile:   {ordered: true, capacity: 3}
dice:
  d6: {sides: 6}
events:
  ping:    {params: {n: int}}
  forever: {params: {}}
  tick:    {params: {}}
  tock:    {params: {}}
  busy:    {params: {}}
  payday:  {params: {who: player}}
  market:  {params: {}}
costs:
  c_any:  "2 gems[any]"
  c_diff: "2 gems[different]"
  c_or:   "1 grain or 2 coins"
setup:
  workers:
    do:
      - for: p in players
        do: ["create 2 worker in p.farm with owner = p"]
triggers:
  on_ping:
    on: ping
    if: n > 0
    do: ["me.pts += n", "emit ping(n - 1)"]
  runaway:
    on: forever
    do: ["loops += 1", "emit forever()"]
  on_tick: {on: tick, do: ["emit tock()"]}
  on_tock: {on: tock, do: ["emit tick()"]}
  grind:
    on: busy
    do:
      - repeat: 20000
        do: ["loops += 1"]
  on_payday: {on: payday, do: ["who.coins += 10"]}
  on_turn_end: {on: turn_end, do: ["log += player.seat"]}
actions:
  earn:      {do: ["me.coins += 2"]}
  spend:
    params: {n: int}
    do: ["me.pts += 1", "me.coins -= n"]
  overfill:  {do: ["me.pts += 1", "me.grain += 10"]}
  cut_price:
    params: {n: int}
    do: ["price[red] = price[red] - n"]
  trade_any:  {cost: c_any, do: ["me.pts += 1"]}
  trade_diff: {cost: c_diff, do: ["me.pts += 1"]}
  feed:       {cost: c_or, do: ["me.pts += 1"]}
  buy:        {cost: "3 coins + 1 gems[red]", do: ["me.pts += 5"]}
  pay_line:   {do: ["me.pts += 1", "pay 4 coins"]}
  free:       {cost: nothing, do: ["me.pts += 1"]}
  guarded:
    allowed_if: me.coins >= 7
    do: ["me.pts += 1"]
  pair:
    params: {a: piece, b: piece}
    do: ["link a, b"]
  unpair:
    params: {a: piece}
    do: ["unlink a"]
  send:
    params: {w: piece}
    do: ["move w to meadow"]
  crown:
    params: {w: piece, s: int}
    do: ["move w to podium at s"]
  pen:
    params: {w: piece, s: int}
    do: ["move w to pens at s"]
  stack:
    params: {w: piece}
    do: ["move w to pile at 1"]
  hire:      {do: ["create worker in me.farm with owner = me, age = 3 as w", "me.pts += w.age"]}
  hire_fail: {do: ["create crate in meadow", 'fail "changed my mind"']}
  retire:
    params: {w: piece}
    do: ["remove w", "me.pts += 1"]
  pick:      {do: ["choose w from me.farm", "w.age += 1"]}
  pick_opt:
    do:
      - choose c from colours optional
      - if: c == none
        then: ["me.pts += 100"]
        else: ["me.gems[c] += 1"]
  pick_some:
    do:
      - choose ws from me.farm count 1..2
      - for: w in ws
        do: ["w.age += 10"]
  pick_chance:
    do: ["choose c from colours by chance", "me.gems[c] += 1"]
  option:
    do:
      - one_of:
          options:
            cash: ["me.coins += 1"]
            fame: {if: "me.coins >= 10", do: ["me.pts += 3"]}
  donate:
    do:
      - may:
          do: ["me.coins -= 2", "me.pts += 1"]
  beg:
    do:
      - let giver = next_player(me)
      - may:
          by: giver
          do: ["giver.coins -= 1", "me.coins += 1"]
  classify:
    params: {c: symbol}
    do:
      - match: c
        cases:
          red: ["me.pts += 1"]
          blue: ["me.pts += 2"]
        else: ["me.pts += 3"]
  classify_strict:
    params: {c: symbol}
    do:
      - match: c
        cases:
          red: ["me.pts += 1"]
  drill:
    params: {n: int}
    do:
      - repeat: n
        do: ["me.pts += 1"]
  round_robin:
    do:
      - for: p in clockwise(me)
        do: ["log = log * 10 + p.seat"]
  per_action:
    params: {n: int}
    do:
      - repeat: n
        do: ["limit per_action to 2 per action", "me.pts += 1"]
  per_turn:  {do: ["limit per_turn to 1 per turn", "me.pts += 1"]}
  per_round: {do: ["limit per_round to 1 per round", "me.pts += 1"]}
  per_game:  {do: ["limit per_game to 1 per game", "me.pts += 1"]}
  rest:
    params: {w: piece}
    do: ["limit rest[w] to 1 per game", "w.age += 1"]
  ping3:     {do: ["emit ping(3)"]}
  loop:      {do: ["emit forever()"]}
  tick:      {do: ["emit tick()"]}
  busy:      {do: ["emit busy()"]}
  plan:      {do: ["defer payday(me)"]}
  invest:    {do: ["defer payday(me) until market"]}
  open:      {by: game, do: ["emit market()"]}
  finish:    {do: ["me.pts += 1", "end turn"]}
  new_round: {by: game, do: ["end round"]}
  gamble:    {do: ["me.pts += 1", "me.pts += mystery"]}
  peek:      {do: ["let m = mystery", "me.pts += 1"]}
  ask:       {allowed_if: "mystery > 0", do: []}
  half:      {do: ["me.pts += 1", "choose c from colours", "me.gems[c] += 1"]}
  exactly_one:
    params: {n: int}
    do:
      - if: n == 1
        then: ["me.pts += 5"]
  roll:      {do: ["roll d6 as r", "me.pts += r"]}
  roll3:
    do:
      - repeat: 3
        do: ["roll d6 as r", "log = log * 10 + r"]
"""


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> Rules:
    return build_rules(tmp_path_factory.mktemp("main"), MAIN)


@pytest.fixture
def game(rules: Rules) -> Game:
    g = Game(rules, 2, seed=7)
    g.setup()
    return g


def play(g: Game, player: str | None, action: str, params: dict[str, Any] | None = None,
         answers: list[Any] | tuple[Any, ...] = (), rolls: list[Any] | tuple[Any, ...] = ()) -> ScriptedDecider:
    """Take an action that must succeed and use up exactly the scripted answers and rolls."""
    d = ScriptedDecider(list(answers), list(rolls))
    g.act(player, action, params or {}, d)
    assert d.answers == [] and d.rolls == [], "not every scripted answer was asked for"
    return d


def refused(g: Game, player: str | None, action: str, params: dict[str, Any] | None = None,
            answers: list[Any] | tuple[Any, ...] = (), rolls: list[Any] | tuple[Any, ...] = ()) -> Diagnostic:
    """Take an action that must fail; the state must be exactly as before."""
    before = g.state.dumps()
    history = list(g._history)
    with pytest.raises(BoardrulesError) as info:
        g.act(player, action, params or {}, ScriptedDecider(list(answers), list(rolls)))
    assert g.state.dumps() == before
    assert g._history == history
    return info.value.diagnostic


def c(g: Game, key: str) -> Any:
    return g.state.counters[key]


def zone(g: Game, key: str) -> list[str]:
    return list(g.state.zones[key].contents)


# ---- setup and layout ----------------------------------------------------------------------------------------


def test_layout_and_setup(game: Game) -> None:
    assert game.players == ["p1", "p2"]
    assert c(game, "p1.coins") == 5 and c(game, "p2.grain") == 1
    assert c(game, "p1.gems[red]") == 0 and c(game, "price[green]") == 3
    assert zone(game, "p1.farm") == ["worker_1", "worker_2"]
    assert zone(game, "p2.farm") == ["worker_3", "worker_4"]
    assert game.state.pieces["worker_3"].props == {"owner": Player("p2", 2)}
    assert game.state.zones["p2.farm"].owner == "p2"
    assert game._history == []  # setup cannot be undone


def test_player_count_is_checked(rules: Rules) -> None:
    with pytest.raises(BoardrulesError) as info:
        Game(rules, 5)
    assert info.value.code == "E509"
    assert info.value.diagnostic.message == "this game is for 1 to 4 players, not 5"


def test_unknown_action_and_bad_parameters(game: Game) -> None:
    d = refused(game, "p1", "ern")
    assert (d.code, d.message, d.hint) == ("E509", "unknown action 'ern'", "did you mean 'earn'?")
    d = refused(game, "p1", "spend", {})
    assert (d.code, d.message) == ("E509", "'spend' needs the parameter 'n' (int)")
    d = refused(game, "p1", "spend", {"n": 1, "m": 2})
    assert (d.code, d.message) == ("E509", "'spend' has no parameter 'm'")
    d = refused(game, "p1", "spend", {"n": "two"})
    assert (d.code, d.message) == ("E509", "parameter 'n' should be int, got two")
    assert refused(game, None, "earn").code == "E509"
    assert refused(game, "p3", "earn").code == "E509"


def test_bool_is_not_an_int_parameter(game: Game) -> None:
    d = refused(game, "p1", "exactly_one", {"n": True})
    assert d.code == "E509"


class Interrupting:
    """A decider whose caller gives up while a decision is open (an embedding engine cancelling a request)."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def decide(self, decision: Any) -> object:
        raise self.exc

    def chance(self, decision: Any) -> object | None:
        return None


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), SystemExit(1), GeneratorExit()])
def test_an_interrupted_decision_leaves_the_state_as_before(game: Game, exc: BaseException) -> None:
    before = game.state.dumps()
    with pytest.raises(type(exc)):
        game.act("p1", "half", {}, Interrupting(exc))  # pts changes before the question
    assert game.state.dumps() == before
    assert game._history == []
    play(game, "p1", "half", answers=["blue"])
    assert (c(game, "p1.pts"), c(game, "p1.gems[blue]")) == (1, 1)


def test_a_failing_decider_is_an_internal_error_and_changes_nothing(game: Game) -> None:
    class Broken:
        def decide(self, decision: Any) -> object:
            raise ValueError("decider bug")

        def chance(self, decision: Any) -> object | None:
            return None

    before = game.state.dumps()
    with pytest.raises(BoardrulesError) as info:
        game.act("p1", "half", {}, Broken())
    assert info.value.code == "E900"
    assert "decider bug" in info.value.diagnostic.message
    assert game.state.dumps() == before


# ---- counters ----------------------------------------------------------------------------------------------


def test_counter_changes(game: Game) -> None:
    play(game, "p1", "earn")
    play(game, "p2", "spend", {"n": 3})
    assert (c(game, "p1.coins"), c(game, "p2.coins"), c(game, "p2.pts")) == (7, 2, 1)


def test_counter_below_min_is_e508_and_the_whole_action_is_undone(game: Game) -> None:
    d = refused(game, "p1", "spend", {"n": 6})
    assert d.code == "E508"
    assert d.message == "not enough coins: p1.coins would be -1 (at least 0)"
    assert c(game, "p1.pts") == 0  # the first line of the action was undone too
    play(game, "p1", "spend", {"n": 5})
    assert c(game, "p1.coins") == 0


def test_counter_above_max_is_e508(game: Game) -> None:
    d = refused(game, "p1", "overfill")
    assert (d.code, d.message) == ("E508", "too much grain: p1.grain would be 11 (at most 4)")


def test_keyed_game_counter_min(game: Game) -> None:
    play(game, "p1", "cut_price", {"n": 2})
    assert c(game, "price[red]") == 1
    d = refused(game, "p1", "cut_price", {"n": 1})
    assert (d.code, d.message) == ("E508", "not enough price: price[red] would be 0 (at least 1)")


# ---- costs -------------------------------------------------------------------------------------------------


def set_gems(g: Game, player: str, **gems: int) -> None:
    for k, v in gems.items():
        g.state.counters[f"{player}.gems[{k}]"] = v


def test_cost_any_asks_which_key_among_those_that_suffice(game: Game) -> None:
    set_gems(game, "p1", red=2, blue=3, green=1)
    d = play(game, "p1", "trade_any", answers=["blue"])
    assert [q.options for q in d.asked] == [("red", "blue")]  # green has only one
    assert (c(game, "p1.gems[red]"), c(game, "p1.gems[blue]"), c(game, "p1.gems[green]")) == (2, 1, 1)
    assert c(game, "p1.pts") == 1


def test_cost_any_with_a_single_fitting_key_is_not_asked(game: Game) -> None:
    set_gems(game, "p1", red=0, blue=2, green=1)
    d = play(game, "p1", "trade_any")
    assert d.asked == []
    assert c(game, "p1.gems[blue]") == 0


def test_cost_any_unpayable_is_e502(game: Game) -> None:
    set_gems(game, "p1", red=1, blue=1, green=1)
    d = refused(game, "p1", "trade_any")
    assert d.code == "E502"
    assert d.message == "cannot pay c_any"
    assert d.hint == "p1 has gems red=1, blue=1, green=1"


def test_a_dry_run_refuses_a_cost_without_its_hint(game: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dry run's refusal is a verdict nobody reads as text: it leaves out the payer's holdings (costly to
    write), and the same refusal taken for real still says them (above)."""
    from boardrules.engine.moves import Activity, probe

    set_gems(game, "p1", red=1, blue=1, green=1)
    written: list[int] = []
    holdings = type(game._m)._holdings
    monkeypatch.setattr(type(game._m), "_holdings", lambda self, *a: written.append(1) or holdings(self, *a))
    result = probe(game._m, Activity("move", "p1", "trade_any", {}), False)
    assert result.outcome == "fail" and result.error is not None
    assert (result.error.code, result.error.diagnostic.message, result.error.diagnostic.hint) == \
        ("E502", "cannot pay c_any", None)
    assert written == [] and game._m.dry is False
    assert refused(game, "p1", "trade_any").hint == "p1 has gems red=1, blue=1, green=1"
    assert written == [1]


def test_cost_different_asks_for_a_subset(game: Game) -> None:
    set_gems(game, "p1", red=1, blue=1, green=1)
    d = play(game, "p1", "trade_diff", answers=[["red", "green"]])
    (q,) = d.asked
    assert (q.kind, q.options, q.sizes) == ("subset", ("red", "blue", "green"), (2,))
    assert (c(game, "p1.gems[red]"), c(game, "p1.gems[blue]"), c(game, "p1.gems[green]")) == (0, 1, 0)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (["red", "red"], "red is chosen twice for 'pay 2 different gems'"),
        (["red"], "choose [2] item(s) for 'pay 2 different gems', not 1"),
        (["red", "pink"], "answer pink is not among the options [red, blue, green] for 'pay 2 different gems'"),
    ],
)
def test_cost_different_bad_answers_are_e505(game: Game, answer: list[str], message: str) -> None:
    set_gems(game, "p1", red=1, blue=1, green=1)
    d = refused(game, "p1", "trade_diff", answers=[answer])
    assert (d.code, d.message) == ("E505", message)


def test_cost_different_needs_enough_distinct_keys(game: Game) -> None:
    set_gems(game, "p1", red=5)
    assert refused(game, "p1", "trade_diff").code == "E502"


def test_cost_alternatives_chosen_by_the_payer(game: Game) -> None:
    d = play(game, "p1", "feed", answers=["2 coins"])
    assert d.asked[0].options == ("1 grain", "2 coins")
    assert d.asked[0].chooser == "p1"
    assert (c(game, "p1.coins"), c(game, "p1.grain")) == (3, 1)
    play(game, "p1", "feed", answers=["1 grain"])
    assert (c(game, "p1.coins"), c(game, "p1.grain")) == (3, 0)
    d = play(game, "p1", "feed")  # only coins are left: no question
    assert d.asked == []
    assert (c(game, "p1.coins"), c(game, "p1.grain"), c(game, "p1.pts")) == (1, 0, 3)
    d2 = refused(game, "p1", "feed")
    assert (d2.code, d2.message) == ("E502", "cannot pay c_or")


def test_cost_alternative_answer_not_offered_is_e505(game: Game) -> None:
    d = refused(game, "p1", "feed", answers=["3 coins"])
    assert d.code == "E505"


def test_cost_missing_answer_is_e506(game: Game) -> None:
    d = refused(game, "p1", "feed", answers=[])
    assert d.code == "E506"
    assert "p1 chooses one of [1 grain, 2 coins]" in d.message


def test_cost_sum_of_terms(game: Game) -> None:
    assert refused(game, "p1", "buy").code == "E502"  # no red gem
    set_gems(game, "p1", red=1)
    play(game, "p1", "buy")
    assert (c(game, "p1.coins"), c(game, "p1.gems[red]"), c(game, "p1.pts")) == (2, 0, 5)


def test_pay_statement_and_nothing(game: Game) -> None:
    play(game, "p1", "pay_line")
    assert (c(game, "p1.coins"), c(game, "p1.pts")) == (1, 1)
    d = refused(game, "p1", "pay_line")
    assert d.code == "E502"
    play(game, "p1", "free")
    assert c(game, "p1.pts") == 2


def test_pay_statement_error_message(game: Game) -> None:
    game.state.counters["p1.coins"] = 0
    d = refused(game, "p1", "pay_line")
    assert d.message == "cannot pay 4 coins"


def test_guard_false_is_e501(game: Game) -> None:
    d = refused(game, "p1", "guarded")
    assert (d.code, d.message) == ("E501", "guarded is not allowed now: needs me.coins >= 7")
    play(game, "p1", "earn")
    play(game, "p1", "guarded")
    assert c(game, "p1.pts") == 1


# ---- pieces: create, remove, move, link, slots -------------------------------------------------------------


def test_create_with_properties_and_as(game: Game) -> None:
    play(game, "p1", "hire")
    assert zone(game, "p1.farm") == ["worker_1", "worker_2", "worker_5"]
    assert game.state.pieces["worker_5"].props == {"owner": Player("p1", 1), "age": 3}
    assert c(game, "p1.pts") == 3


def test_a_failed_action_leaves_ids_and_order_untouched(game: Game) -> None:
    d = refused(game, "p1", "hire_fail")  # a first crate is created, then the action fails
    assert (d.code, d.message) == ("E501", "changed my mind")
    assert "crate" not in game.state.id_counters


def test_remove(game: Game) -> None:
    play(game, "p1", "retire", {"w": "$worker_1"})
    assert "worker_1" not in game.state.pieces
    assert zone(game, "p1.farm") == ["worker_2"]
    d = refused(game, "p1", "retire", {"w": "$worker_1"})
    assert d.code == "E510"


def test_move_carries_linked_pieces(game: Game) -> None:
    play(game, "p1", "pair", {"a": "$worker_1", "b": "$worker_3"})
    play(game, "p1", "send", {"w": "$worker_3"})
    assert zone(game, "meadow") == ["worker_1", "worker_3"]
    assert zone(game, "p1.farm") == ["worker_2"] and zone(game, "p2.farm") == ["worker_4"]
    play(game, "p1", "unpair", {"a": "$worker_1"})
    assert game.state.pieces["worker_1"].group is None and game.state.pieces["worker_3"].group is None
    play(game, "p1", "crown", {"w": "$worker_3", "s": 1})
    assert zone(game, "meadow") == ["worker_1"]


def test_linking_joins_whole_groups(game: Game) -> None:
    play(game, "p1", "pair", {"a": "$worker_1", "b": "$worker_2"})
    play(game, "p1", "pair", {"a": "$worker_3", "b": "$worker_4"})
    play(game, "p1", "pair", {"a": "$worker_2", "b": "$worker_3"})
    play(game, "p1", "send", {"w": "$worker_4"})
    assert zone(game, "meadow") == ["worker_1", "worker_2", "worker_3", "worker_4"]


def test_relinking_an_unlinked_piece_makes_a_new_group(game: Game) -> None:
    play(game, "p1", "pair", {"a": "$worker_1", "b": "$worker_2"})
    play(game, "p1", "pair", {"a": "$worker_2", "b": "$worker_3"})
    play(game, "p1", "unpair", {"a": "$worker_1"})
    play(game, "p1", "pair", {"a": "$worker_1", "b": "$worker_4"})
    play(game, "p1", "send", {"w": "$worker_4"})
    assert zone(game, "meadow") == ["worker_1", "worker_4"]


def test_slots(game: Game) -> None:
    play(game, "p1", "crown", {"w": "$worker_1", "s": 2})
    assert game.state.pieces["worker_1"].slot == 2
    d = refused(game, "p1", "crown", {"w": "$worker_2", "s": 2})
    assert (d.code, d.message) == ("E504", "slot 2 of zone 'podium' is full")
    d = refused(game, "p1", "crown", {"w": "$worker_2", "s": 3})
    assert (d.code, d.message) == ("E504", "zone 'podium' has slots 1..2; got 3")
    play(game, "p1", "crown", {"w": "$worker_1", "s": 2})  # onto its own slot
    play(game, "p1", "pen", {"w": "$worker_1", "s": 1})
    play(game, "p1", "pen", {"w": "$worker_2", "s": 1})
    assert refused(game, "p1", "pen", {"w": "$worker_3", "s": 1}).code == "E504"


def test_linked_pieces_need_room_together(game: Game) -> None:
    play(game, "p1", "pair", {"a": "$worker_1", "b": "$worker_2"})
    d = refused(game, "p1", "crown", {"w": "$worker_1", "s": 1})
    assert (d.code, d.message) == ("E504", "slot 1 of zone 'podium' is full")
    play(game, "p1", "pen", {"w": "$worker_1", "s": 2})  # two to a pen
    assert [game.state.pieces[p].slot for p in zone(game, "pens")] == [2, 2]


def test_ordered_zone_capacity_and_front(game: Game) -> None:
    for w in ("worker_1", "worker_2", "worker_3"):
        play(game, "p1", "stack", {"w": f"${w}"})
    assert zone(game, "pile") == ["worker_3", "worker_2", "worker_1"]
    d = refused(game, "p1", "stack", {"w": "$worker_4"})
    assert (d.code, d.message) == ("E504", "zone 'pile' is full (3 pieces)")
    play(game, "p1", "stack", {"w": "$worker_1"})  # already in: it may move to the front
    assert zone(game, "pile") == ["worker_1", "worker_3", "worker_2"]


# ---- decisions -----------------------------------------------------------------------------------------------


def test_choose_one(game: Game) -> None:
    d = play(game, "p1", "pick", answers=["$worker_2"])
    (q,) = d.asked
    assert (q.chooser, q.kind, q.options) == ("p1", "one", (Piece("worker_1"), Piece("worker_2")))
    assert q.prompt == "choose w from me.farm"
    assert game.state.pieces["worker_2"].props["age"] == 2
    d = refused(game, "p1", "pick", answers=["$worker_3"])
    assert d.code == "E505"
    assert d.message == "answer $worker_3 is not among the options [$worker_1, $worker_2] for " \
                        "'choose w from me.farm'"
    assert refused(game, "p1", "pick").code == "E506"


def test_choose_with_one_option_is_automatic(game: Game) -> None:
    play(game, "p1", "retire", {"w": "$worker_1"})
    d = play(game, "p1", "pick")
    assert d.asked == []
    assert game.state.pieces["worker_2"].props["age"] == 2


def test_choose_from_nothing_is_e501(game: Game) -> None:
    play(game, "p1", "retire", {"w": "$worker_1"})
    play(game, "p1", "retire", {"w": "$worker_2"})
    d = refused(game, "p1", "pick")
    assert d.code == "E501"
    assert d.message == "nothing to choose from for 'choose w from me.farm'"


@pytest.mark.parametrize("decline", [None, "none"])
def test_choose_optional(game: Game, decline: Any) -> None:
    d = play(game, "p1", "pick_opt", answers=[decline])
    assert d.asked[0].optional is True
    assert c(game, "p1.pts") == 100
    play(game, "p1", "pick_opt", answers=["blue"])
    assert c(game, "p1.gems[blue]") == 1


def test_choose_count_range(game: Game) -> None:
    d = play(game, "p1", "pick_some", answers=[["$worker_2"]])
    assert (d.asked[0].kind, d.asked[0].sizes) == ("subset", (1, 2))
    assert game.state.pieces["worker_2"].props["age"] == 11
    play(game, "p1", "pick_some", answers=[["$worker_1", "$worker_2"]])
    assert [game.state.pieces[w].props["age"] for w in ("worker_1", "worker_2")] == [11, 21]
    d2 = refused(game, "p1", "pick_some", answers=[[]])
    assert (d2.code, d2.message) == ("E505", "choose [1, 2] item(s) for 'choose ws from me.farm count 1..2', not 0")


def test_choose_by_chance_uses_rolls_or_the_seeded_generator(game: Game) -> None:
    play(game, "p1", "pick_chance", rolls=["green"])
    assert c(game, "p1.gems[green]") == 1
    assert refused(game, "p1", "pick_chance", rolls=["pink"]).code == "E505"
    play(game, "p1", "pick_chance")
    assert sum(c(game, f"p1.gems[{k}]") for k in ("red", "blue", "green")) == 2


def test_one_of_offers_only_open_options(game: Game) -> None:
    d = play(game, "p1", "option")  # fame needs 10 coins: cash is the only option, taken without asking
    assert d.asked == []
    assert c(game, "p1.coins") == 6
    game.state.counters["p1.coins"] = 10
    d = play(game, "p1", "option", answers=["fame"])
    assert d.asked[0].options == ("cash", "fame")
    assert (c(game, "p1.coins"), c(game, "p1.pts")) == (10, 3)
    assert refused(game, "p1", "option", answers=["glory"]).code == "E505"


def test_may(game: Game) -> None:
    d = play(game, "p1", "donate", answers=["no"])
    assert d.asked[0].kind == "yesno" and d.asked[0].chooser == "p1"
    assert c(game, "p1.coins") == 5
    play(game, "p1", "donate", answers=["yes"])
    play(game, "p1", "donate", answers=[True])
    assert (c(game, "p1.coins"), c(game, "p1.pts")) == (1, 2)
    d2 = refused(game, "p1", "donate", answers=["maybe"])
    assert d2.code == "E505"
    assert d2.message.startswith("answer maybe should be yes or no for 'may")
    d3 = refused(game, "p1", "donate", answers=["yes"])  # only one coin left: the yes is undone with E508
    assert d3.code == "E508"


def test_may_by_another_player(game: Game) -> None:
    d = play(game, "p1", "beg", answers=["yes"])
    assert d.asked[0].chooser == "p2"
    assert (c(game, "p1.coins"), c(game, "p2.coins")) == (6, 4)


def test_match(game: Game) -> None:
    for colour, pts in (("red", 1), ("blue", 3), ("green", 6), ("BLUE", 8)):
        play(game, "p1", "classify", {"c": colour})
        assert c(game, "p1.pts") == pts
    play(game, "p1", "classify_strict", {"c": "green"})  # no case and no else: nothing happens
    assert c(game, "p1.pts") == 8


def test_repeat(game: Game) -> None:
    play(game, "p1", "drill", {"n": 3})
    play(game, "p1", "drill", {"n": 0})
    assert c(game, "p1.pts") == 3


def test_for_over_clockwise(rules: Rules) -> None:
    g = Game(rules, 4)
    g.setup()
    play(g, "p3", "round_robin")
    assert c(g, "log") == 3412
    g.state.counters["log"] = 0
    play(g, "p1", "round_robin")
    assert c(g, "log") == 1234


# ---- limits ------------------------------------------------------------------------------------------------


def test_limit_per_action(game: Game) -> None:
    play(game, "p1", "per_action", {"n": 2})
    play(game, "p1", "per_action", {"n": 2})  # a new action starts a new count
    d = refused(game, "p1", "per_action", {"n": 3})
    assert (d.code, d.message) == ("E503", "limit reached: per_action at most 2 per action")
    assert c(game, "p1.pts") == 4


def test_limit_per_turn(game: Game) -> None:
    play(game, "p1", "per_turn")
    assert refused(game, "p1", "per_turn").code == "E503"
    game.end_turn("p1")
    play(game, "p1", "per_turn")
    assert c(game, "p1.pts") == 2


def test_limit_per_round(game: Game) -> None:
    play(game, "p1", "per_round")
    game.end_turn("p1")
    assert refused(game, "p1", "per_round").code == "E503"
    play(game, None, "new_round")
    play(game, "p1", "per_round")
    assert c(game, "p1.pts") == 2


def test_limit_per_game(game: Game) -> None:
    play(game, "p1", "per_game")
    game.end_turn("p1")
    play(game, None, "new_round")
    d = refused(game, "p1", "per_game")
    assert (d.code, d.message) == ("E503", "limit reached: per_game at most 1 per game")
    assert refused(game, "p2", "per_game").code == "E503"  # a limit without a key is shared


def test_limit_per_entity(game: Game) -> None:
    play(game, "p1", "rest", {"w": "$worker_1"})
    d = refused(game, "p1", "rest", {"w": "$worker_1"})
    assert (d.code, d.message) == ("E503", "limit reached: rest[$worker_1] at most 1 per game")
    play(game, "p1", "rest", {"w": "$worker_2"})
    assert game.state.usage["game"] == {"rest[$worker_1]": 1, "rest[$worker_2]": 1}


# ---- events, triggers, defer -------------------------------------------------------------------------------


def test_emit_runs_triggers_with_guards_and_parameters(game: Game) -> None:
    play(game, "p2", "ping3")  # ping(3) -> 3, ping(2) -> 2, ping(1) -> 1, ping(0) stops at the guard
    assert (c(game, "p2.pts"), c(game, "p1.pts")) == (6, 0)


def test_trigger_loop_is_e507_and_names_the_trigger(game: Game) -> None:
    d = refused(game, "p1", "loop")
    assert d.code == "E507"
    assert "runaway" in d.message
    assert c(game, "loops") == 0


def test_two_triggers_in_a_loop_are_both_named(game: Game) -> None:
    d = refused(game, "p1", "tick")
    assert d.code == "E507"
    assert "triggers.on_tick -> triggers.on_tock" in d.message


def test_step_budget_is_e507(game: Game) -> None:
    d = refused(game, "p1", "busy")
    assert d.code == "E507"
    assert d.message == "step budget of 10000 exceeded; rules running: triggers.grind"


def test_defer_until_turn_end(game: Game) -> None:
    play(game, "p1", "plan")
    play(game, "p1", "plan")
    assert c(game, "p1.coins") == 5
    assert [d["event"] for d in game.state.deferred] == ["payday", "payday"]
    game.end_turn("p1")
    assert c(game, "p1.coins") == 25  # once per defer
    assert game.state.deferred == []
    assert c(game, "log") == 1  # turn_end(p1) ran its trigger
    game.end_turn("p2")
    assert (c(game, "p1.coins"), c(game, "log")) == (25, 3)
    assert game.state.vars["turn"] == 3


def test_defer_until_another_event(game: Game) -> None:
    play(game, "p2", "invest")
    game.end_turn("p2")
    assert c(game, "p2.coins") == 5
    play(game, None, "open")
    assert c(game, "p2.coins") == 15
    play(game, None, "open")
    assert c(game, "p2.coins") == 15


def test_end_turn_inside_an_action(game: Game) -> None:
    play(game, "p1", "per_turn")
    play(game, "p1", "plan")
    play(game, "p1", "finish")
    assert (c(game, "p1.pts"), c(game, "p1.coins"), c(game, "log")) == (2, 15, 1)
    play(game, "p1", "per_turn")  # a new turn


# ---- unknown values ----------------------------------------------------------------------------------------


def test_unknown_value_reached_is_e601(game: Game) -> None:
    d = refused(game, "p1", "gamble")
    assert d.code == "E601"
    assert d.message == "the game reached 'mystery', a value the source leaves unknown: the rules never say"
    assert c(game, "p1.pts") == 0


def test_unknown_value_may_be_stored(game: Game) -> None:
    play(game, "p1", "peek")
    assert c(game, "p1.pts") == 1


def test_unknown_value_in_a_guard_is_e601(game: Game) -> None:
    assert refused(game, "p1", "ask").code == "E601"


# ---- undo ----------------------------------------------------------------------------------------------------


def test_undo_restores_the_previous_state(game: Game) -> None:
    states = [game.state.dumps()]
    play(game, "p1", "hire")
    states.append(game.state.dumps())
    play(game, "p1", "pair", {"a": "$worker_1", "b": "$worker_5"})
    states.append(game.state.dumps())
    play(game, "p1", "send", {"w": "$worker_5"})
    states.append(game.state.dumps())
    refused(game, "p1", "spend", {"n": 99})  # a failed action is not in the history
    game.end_turn("p1")
    assert game.undo() is True
    assert game.state.dumps() == states[3]
    for expected in reversed(states[:3]):
        assert game.undo() is True
        assert game.state.dumps() == expected
    assert game.undo() is False
    assert game.state.dumps() == states[0]


def test_undo_then_replay_gives_the_same_rolls(game: Game) -> None:
    play(game, "p1", "roll3")
    after = game.state.dumps()
    game.undo()
    play(game, "p1", "roll3")
    assert game.state.dumps() == after


# ---- saving and restoring --------------------------------------------------------------------------------


def script(g: Game) -> None:
    play(g, "p1", "roll3")
    play(g, "p1", "hire")
    play(g, "p2", "pick_chance")
    play(g, "p2", "plan")
    g.end_turn("p2")
    play(g, "p1", "rest", {"w": "$worker_5"})
    play(g, "p1", "pick_some", answers=[["$worker_5"]])


def test_to_json_from_json_then_play_matches_uninterrupted_play(rules: Rules) -> None:
    straight = Game(rules, 2, seed=3)
    straight.setup()
    play(straight, "p1", "earn")
    play(straight, "p2", "pick_chance")
    saved = json.loads(json.dumps(straight.to_json()))
    assert saved["modules"] == ["t.base"]
    script(straight)

    restored = Game.from_json(rules, saved)
    assert restored.state.dumps() == State.from_json(saved["state"]).dumps()
    script(restored)
    assert restored.state.dumps() == straight.state.dumps()
    assert c(restored, "log") != 0


def test_from_json_with_sorted_keys_still_plays_the_same(rules: Rules) -> None:
    straight = Game(rules, 1, seed=3)
    straight.setup()
    for _ in range(10):  # worker_1 .. worker_12: id order and creation order differ
        play(straight, "p1", "hire")
    text = json.dumps(straight.to_json(), sort_keys=True)
    restored = Game.from_json(rules, json.loads(text))
    for g in (straight, restored):
        play(g, "p1", "pick_some", answers=[["$worker_12", "$worker_9"]])
    assert restored.state.dumps() == straight.state.dumps()
    assert [p for p in restored.state.of_kind("worker")] == [f"worker_{i}" for i in range(1, 13)]


def test_from_json_has_no_history(game: Game, rules: Rules) -> None:
    play(game, "p1", "earn")
    restored = Game.from_json(rules, game.to_json())
    assert restored.undo() is False


# ---- seeds --------------------------------------------------------------------------------------------------


def rolls_for(rules: Rules, seed: int) -> int:
    g = Game(rules, 1, seed=seed)
    g.setup()
    play(g, "p1", "roll3")
    play(g, "p1", "roll3")
    return c(g, "log")


def test_seeded_rolls_are_reproducible(rules: Rules) -> None:
    first = rolls_for(rules, 11)
    assert first == rolls_for(rules, 11)
    assert all(1 <= int(d) <= 6 for d in str(first))
    assert len({rolls_for(rules, seed) for seed in range(1, 6)}) > 1


def test_scripted_rolls(game: Game) -> None:
    play(game, "p1", "roll", rolls=[4])
    assert c(game, "p1.pts") == 4
    d = refused(game, "p1", "roll", rolls=[7])
    assert (d.code, d.message) == ("E505", "scripted roll 7 is not a result of d6 (1..6)")


# ---- legal actions -----------------------------------------------------------------------------------------

LEGAL = """
module: t.legal
title: Legal actions
values:
  mystery: {unknown: "never said"}
counters:
  coins: {per: player, initial: 1}
  grain: {per: player, initial: 0}
actions:
  always:   {do: []}
  rich:     {allowed_if: me.coins >= 3, do: []}
  costly:   {cost: "2 coins", do: []}
  either:   {cost: "2 coins or 1 coins", do: []}
  grainy:   {cost: "1 grain", do: []}
  with_arg: {params: {n: int}, do: []}
  unknown:  {allowed_if: mystery > 0, do: []}
  tidy:     {by: game, do: []}
"""

LEGAL_EQ = LEGAL.replace("module: t.legal", "module: t.legal_eq").replace(
    "mystery > 0", "mystery == 1"
)


def names(g: Game, player: str) -> list[str]:
    return [m["action"] for m in g.legal_actions(player)]


def test_legal_actions(tmp_path: Path) -> None:
    rules = build_rules(tmp_path, LEGAL)
    g = Game(rules, 2)
    assert names(g, "p1") == ["always", "either"]  # with_arg: an int parameter without a domain is not listed
    g.state.counters["p1.coins"] = 3
    g.state.counters["p1.grain"] = 1
    assert names(g, "p1") == ["always", "rich", "costly", "either", "grainy"]
    assert names(g, "p2") == ["always", "either"]


def test_legal_actions_skip_a_guard_on_an_unknown_value(tmp_path: Path) -> None:
    rules = build_rules(tmp_path, LEGAL_EQ)
    assert names(Game(rules, 1), "p1") == ["always", "either"]


# ---- players ------------------------------------------------------------------------------------------------

PLAYERS = """
module: t.players
title: Player names
counters:
  pts: {per: player, initial: 0}
actions:
  zero:  {do: ["me.pts += p0.seat"]}
  third: {do: ["me.pts += p3.seat"]}
  next:  {do: ["me.pts += next_player(me).seat"]}
"""


def test_player_names(tmp_path: Path) -> None:
    g = Game(build_rules(tmp_path, PLAYERS.replace('  zero:  {do: ["me.pts += p0.seat"]}\n', "")), 2)
    play(g, "p2", "next")
    assert c(g, "p2.pts") == 1
    d = refused(g, "p1", "third")
    assert (d.code, d.message) == ("E510", "there is no player p3 in a 2-player game")


def test_p0_is_not_a_player(tmp_path: Path) -> None:
    _, diags = link_texts(tmp_path, PLAYERS)
    assert [(d.code, d.message) for d in diags.items] == [("E401", "unknown name 'p0'")]


# ---- unknown initial values -----------------------------------------------------------------------------------


def test_unknown_counter_initial(tmp_path: Path) -> None:
    rules = build_rules(tmp_path, """
        module: t.init
        title: Unknown initial
        values:
          start: {unknown: "the box does not say"}
        counters:
          coins: {per: player, initial: start}
        actions:
          spend: {do: ["me.coins -= 1"]}
          keep:  {do: []}
    """)
    g = Game(rules, 1)
    value = c(g, "p1.coins")
    assert type(value) is Unknown and value.name == "start"
    play(g, "p1", "keep")
    assert refused(g, "p1", "spend").code == "E601"
    assert State.loads(g.state.dumps()).dumps() == g.state.dumps()


# ---- linker diagnostics ------------------------------------------------------------------------------------

BASE = """
module: b
title: Base
counters:
  time:   {per: player, initial: 0}
  supply: {per: game, initial: 0}
values:
  v: 1
costs:
  c: "1 time"
procedures:
  pr:
    params: {n: int}
    do: ["me.time += n"]
events:
  ev: {params: {n: int}}
actions:
  a: {do: ["me.time += v"]}
"""


def codes(diags: Any) -> list[str]:
    return [d.code for d in diags.items]


def test_base_module_links_cleanly(tmp_path: Path) -> None:
    rules = build_rules(tmp_path, BASE)
    assert rules.modules == ["b"]
    assert set(rules.actions) == {"a"}


@pytest.mark.parametrize(
    ("line", "message", "hint", "col"),
    [
        ('"me.tiem += 1"', "a player has no counter 'tiem'", "did you mean 'time'?", 18),
        ('"supply += suply"', "unknown name 'suply'", "did you mean 'supply'?", 25),
        ('"pay 2 tiem"', "unknown counter 'tiem'", "did you mean 'time'?", 21),
        ('"call pro(1)"', "unknown procedure 'pro'", "did you mean 'pr'?", 20),
        ('"emit evv(1)"', "unknown event 'evv'", "did you mean 'ev'?", 20),
        ('"me.time += cont([])"', "unknown function 'cont'", "did you mean 'count'?", 26),
    ],
)
def test_e401_unknown_name_with_suggestion(tmp_path: Path, line: str, message: str, hint: str, col: int) -> None:
    _, diags = link_texts(tmp_path, BASE + f"  bad: {{do: [{line}]}}\n")
    (d,) = diags.items
    assert (d.code, d.message, d.hint) == ("E401", message, hint)
    assert d.span is not None and (d.span.line, d.span.col) == (19, col)
    assert d.span.file.endswith("m0.yaml")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('"supply += true"', "'+=' needs a number, but this is bool"),
        ('"me.time += me"', "'+=' needs a number, but this is player"),
        ('{if: "me.time > me", then: []}', "'>' compares numbers, but this is player"),
        ('"move me to supply"', "pieces move to a zone, but this is int"),
        ('"supply = 1 + players"', "the right side of '+' should be a number, but it is a list of players"),
    ],
)
def test_e402_wrong_type(tmp_path: Path, line: str, message: str) -> None:
    _, diags = link_texts(tmp_path, BASE + f"  bad: {{do: [{line}]}}\n")
    (d,) = diags.items
    assert d.code == "E402"
    assert d.message.startswith(message)


def test_e403_duplicate_declaration(tmp_path: Path) -> None:
    other = """
        module: x
        title: X
        requires: [b]
        counters:
          time: {per: game}
        actions:
          a: {do: []}
    """
    _, diags = link_texts(tmp_path, BASE, other)
    assert codes(diags) == ["E403", "E403"]
    first, second = diags.items
    assert first.message.startswith("counter 'time' is already declared in b (")
    assert first.hint == "to change it from this module, use replace: counters.time"
    assert second.message.startswith("action 'a' is already declared in b (")
    assert first.span is not None and first.span.file.endswith("m1.yaml") and first.span.line == 6


def test_e403_duplicate_module_id(tmp_path: Path) -> None:
    _, diags = link_texts(tmp_path, BASE, BASE, roots=["b"])
    assert codes(diags) == ["E403"]
    assert diags.items[0].message.startswith("module 'b' is already defined in ")


def test_e404_unknown_module(tmp_path: Path) -> None:
    _, diags = link_texts(tmp_path, BASE, "module: x\ntitle: X\nrequires: [bb]\n")
    (d,) = diags.items
    assert (d.code, d.message, d.hint) == ("E404", "unknown module 'bb'", "did you mean 'b'?")
    assert d.span is not None and (d.span.line, d.span.col) == (3, 12)


def test_e404_requires_cycle(tmp_path: Path) -> None:
    _, diags = link_texts(tmp_path, "module: x\ntitle: X\nrequires: [y]\n", "module: y\ntitle: Y\nrequires: [x]\n",
                          roots=["x"])
    (d,) = diags.items
    assert (d.code, d.message) == ("E404", "modules require each other in a cycle: x -> y -> x")


def test_e405_wrong_number_of_arguments(tmp_path: Path) -> None:
    _, diags = link_texts(tmp_path, BASE + '  bad: {do: ["call pr()", "emit ev(1, 2)", "supply += count(1, 2)"]}\n')
    assert [(d.code, d.message) for d in diags.items] == [
        ("E405", "procedure 'pr' takes 1 argument(s), got 0"),
        ("E405", "event 'ev' takes 1 argument(s), got 2"),
        ("E405", "'count' takes 1 argument(s), got 2"),
    ]


def test_e406_bad_replace_target(tmp_path: Path) -> None:
    other = """
        module: x
        title: X
        requires: [b]
        replace:
          actions.nope: {do: []}
          values.w: 3
    """
    _, diags = link_texts(tmp_path, BASE, other)
    assert [(d.code, d.message, d.hint) for d in diags.items] == [
        ("E406", "replace target 'actions.nope' does not exist", "did you mean 'actions.a'?"),
        ("E406", "replace target 'values.w' does not exist", "did you mean 'values.v'?"),
    ]


def test_e406_replace_of_a_module_not_required(tmp_path: Path) -> None:
    other = """
        module: x
        title: X
        replace:
          values.v: 3
    """
    _, diags = link_texts(tmp_path, BASE, other, roots=["b", "x"])
    assert [(d.code, d.message, d.hint) for d in diags.items] == [
        ("E406", "'values.v' belongs to b, which x does not require", "add b to requires"),
    ]


def test_e407_two_modules_replace_one_rule(tmp_path: Path) -> None:
    x = "module: x\ntitle: X\nrequires: [b]\nreplace:\n  values.v: 2\n"
    y = "module: y\ntitle: Y\nrequires: [b]\nreplace:\n  values.v: 3\n"
    _, diags = link_texts(tmp_path, BASE, x, y, roots=["x", "y"])
    (d,) = diags.items
    assert (d.code, d.message) == ("E407", "'values.v' is replaced by both x and y")
    assert d.hint == "make one module require the other, so the order is explicit"


def test_replace_applies_in_requires_order(tmp_path: Path) -> None:
    x = "module: x\ntitle: X\nrequires: [b]\nreplace:\n  values.v: 2\n"
    y = ("module: y\ntitle: Y\nrequires: [x]\nreplace:\n  values.v: 3\n"
         "  procedures.pr:\n    params: {n: int}\n    do: ['me.time += n * 10']\n")
    for roots in (["y"], ["x", "y"], ["y", "x"], ["b", "y"]):
        rules = build_rules(tmp_path / "-".join(roots), BASE, x, y, roots=roots)
        assert rules.modules == ["b", "x", "y"]
        g = Game(rules, 1)
        play(g, "p1", "a")
        assert c(g, "p1.time") == 3
    only_x = build_rules(tmp_path / "x", BASE, x, y, roots=["x"])
    g = Game(only_x, 1)
    play(g, "p1", "a")
    assert c(g, "p1.time") == 2


def test_replaced_procedure_is_the_one_that_runs(tmp_path: Path) -> None:
    y = ("module: y\ntitle: Y\nrequires: [b]\nactions:\n  go: {do: ['call pr(2)']}\nreplace:\n"
         "  procedures.pr:\n    params: {n: int}\n    do: ['me.time += n * 10']\n")
    g = Game(build_rules(tmp_path, BASE, y), 1)
    play(g, "p1", "go")
    assert c(g, "p1.time") == 20


def test_harvest_plus_replaces_base_rules(harvest_rules: Rules) -> None:
    assert harvest_rules.modules == ["harvest.base", "harvest.plus"]
    assert harvest_rules.values["start_workers"].data == 3
    g = Game(harvest_rules, 2, seed=1)
    g.setup()
    assert len(g.state.zones["p1.farm"].contents) == 3


@pytest.mark.parametrize(
    "doc",
    [
        "module: m\ntitle: M\nplayers: {min: abc, max: 3}\n",
        "module: m\ntitle: M\nzones: {z: {slots: 2, slot_capacity: abc}}\n",
        "module: m\ntitle: M\nvalues: {v: {by_players: {'\u00b2': 1}}}\n",
        "module: m\ntitle: M\ntracks: {t: {spaces: 3, icons: {'\u00b3': [a]}}}\n",
    ],
    ids=["players_min", "slot_capacity", "by_players_superscript_key", "icons_superscript_key"],
)
def test_link_survives_badly_typed_numbers(tmp_path: Path, doc: str) -> None:
    _, diags = link_texts(tmp_path, doc)
    assert "E201" in codes(diags)


def test_block_scalar_expressions_parse(tmp_path: Path) -> None:
    build_rules(tmp_path, """
        module: t.block
        title: Block scalars
        counters:
          time: {per: player, initial: 0}
        actions:
          a:
            allowed_if: >
              me.time >= 0
            do:
              - |
                me.time += 1
    """)


def test_block_scalar_positions(tmp_path: Path) -> None:
    _, diags = link_texts(tmp_path, """\
module: t.pos
title: Positions
counters:
  time: {per: player, initial: 0}
actions:
  b:
    do:
      - |-
        me.tiem += 1
""")
    (d,) = diags.items
    assert d.span is not None and (d.code, d.span.line, d.span.col) == ("E401", 9, 12)


@pytest.mark.parametrize("text", [" + ".join(["1"] * 250), "-" * 300 + "1", "not " * 300 + "true"],
                         ids=["sum_of_250", "minus_300", "not_300"])
def test_deeply_nested_expression_links_or_reports(tmp_path: Path, text: str) -> None:
    link_texts(tmp_path, f"module: t.deep\ntitle: Deep\nvalues:\n  v: {{expr: '{text}'}}\n")


# ---- tracks and zone statements ------------------------------------------------------------------------------

TRACKS = """
module: t.tracks
title: Tracks
counters:
  pts: {per: player, initial: 0}
  log: {per: game, initial: 0}
pieces:
  crate: {properties: {}}
zones:
  stock:  {ordered: true}
  market: {ordered: true, capacity: 2}
  bag:    {}
  field:  {slots: 4}
tracks:
  ring: {spaces: 4, circular: true, icons: {1: [start], 3: [bonus, party]}, markers: {pawn: 2}}
  lane: {spaces: 3, markers: {walker: 1}}
setup:
  s:
    do:
      - create 4 crate in stock
      - 'create crate in field at 3 with id = "f3"'
      - 'create crate in field at 1 with id = "f1"'
actions:
  adv:
    params: {n: int}
    do: ["advance pawn by n", "log = count(passed(pawn))", "me.pts = position(pawn)"]
  walk:
    params: {n: int}
    do: ["advance walker by n", "me.pts = position(walker)"]
  put:
    params: {n: int}
    do: ["place pawn at n", "log = count(passed(pawn))"]
  near: {do: ["me.pts = sum([c.slot for c in adjacent(pawn, field)])"]}
  fill: {do: ["refill market from stock"]}
  mix:  {do: ["shuffle stock"]}
  grab:
    do:
      - draw c from bag
      - if: c == none
        then: ["log = 99"]
"""


def test_tracks_and_zone_statements(tmp_path: Path) -> None:
    g = Game(build_rules(tmp_path, TRACKS), 1, seed=3)
    g.setup()
    markers = g.state.markers
    play(g, "p1", "adv", {"n": 3})  # 2 -> 3, 4, 1 on a circular track
    assert (markers["pawn"].pos, markers["pawn"].last) == (1, [3, 4, 1])
    assert (c(g, "log"), c(g, "p1.pts")) == (3, 1)  # bonus, party, start
    play(g, "p1", "walk", {"n": 5})  # a straight track stops at its end
    assert (markers["walker"].pos, markers["walker"].last, c(g, "p1.pts")) == (3, [2, 3], 3)
    play(g, "p1", "put", {"n": 3})
    assert (markers["pawn"].pos, markers["pawn"].last, c(g, "log")) == (3, [], 0)
    assert refused(g, "p1", "put", {"n": 5}).message == "space 5 is not on the track (1..4)"
    assert refused(g, "p1", "adv", {"n": -1}).code == "E510"
    play(g, "p1", "near")  # pawn on 3: slots 3 and 4
    assert c(g, "p1.pts") == 3
    play(g, "p1", "put", {"n": 4})
    play(g, "p1", "near")  # pawn on 4: slots 4 and 1 (wrapping)
    assert c(g, "p1.pts") == 1
    play(g, "p1", "fill")
    assert zone(g, "market") == ["crate_1", "crate_2"] and zone(g, "stock") == ["crate_3", "crate_4"]
    play(g, "p1", "grab")  # an empty bag draws none
    assert c(g, "log") == 99
    play(g, "p1", "mix")
    assert sorted(zone(g, "stock")) == ["crate_3", "crate_4"]


# ---- properties of pieces of several kinds ----------------------------------------------------------------

MIXED = """
module: t.mixed
title: Mixed kinds
counters:
  by_zone: {per: game, initial: 0}
  by_kind: {per: game, initial: 0}
pieces:
  worker: {properties: {age: {type: int, default: 1}}}
  crate:  {properties: {}}
zones:
  meadow: {}
setup:
  s:
    do: ['create crate in meadow with id = "c1"', 'create worker in meadow with id = "w1"']
actions:
  count_old:
    by: game
    do:
      - by_zone = count(meadow where it.age == 1)
      - by_kind = count([x for x in pieces(crate) if x.age == 1]) + count([x for x in pieces(worker) if x.age == 1])
"""


def test_a_property_of_another_kind_reads_the_same_everywhere(tmp_path: Path) -> None:
    g = Game(build_rules(tmp_path, MIXED), 1)
    g.setup()
    play(g, None, "count_old")
    assert (c(g, "by_zone"), c(g, "by_kind")) == (1, 1)
