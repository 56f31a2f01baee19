"""`take ACTION(args) [as p]` and `can(ACTION, args [by p])`: actions inside rules, and whether one could be taken."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardrules.diagnostics import BoardrulesError
from boardrules.engine.decisions import ScriptedDecider
from boardrules.game import Game
from boardrules.language.pack import load_rules

PACK = """
module: shop
title: A shop where others may buy at the same price
counters:
  coins: {per: player, initial: 3}
  goods: {per: player, initial: 0}
  stock: {per: game, initial: 2}
actions:
  buy:
    title: Buy one
    params:
      price: {type: int, in: "1..3"}
    allowed_if: stock > 0
    cost: "price coins"
    do:
      - stock -= 1
      - me.goods += 1
  open_sale:
    title: Buy one, then each other player in turn may buy one at the same price
    params:
      price: {type: int, in: "1..3"}
    do:
      - take buy(price)
      - for: p in clockwise(next_player(me))
        do:
          - if: p != me and can(buy, price by p)
            then:
              - as: p
                do:
                  - may:
                      do: ["take buy(price)"]
  gift:
    title: The next player buys one for 1
    do:
      - take buy(1) as next_player(me)
  check:
    title: Only if the next player could buy at 3
    allowed_if: can(buy, 3 by next_player(me))
    do: []
"""


@pytest.fixture()
def rules(tmp_path: Path):
    (tmp_path / "shop.yaml").write_text(PACK)
    return load_rules(tmp_path)


def test_others_take_the_action_when_they_can(rules) -> None:
    game = Game(rules, 3, seed=1)
    game.setup()
    game.state.counters["p3.coins"] = 1
    game.act("p1", "open_sale", {"price": 2}, ScriptedDecider(["yes"]))  # p2 may buy; p3 cannot pay 2
    assert [game.state.counters[f"p{i}.goods"] for i in (1, 2, 3)] == [1, 1, 0]
    assert [game.state.counters[f"p{i}.coins"] for i in (1, 2, 3)] == [1, 1, 1]
    assert game.state.counters["stock"] == 0


def test_take_as_another_player_pays_with_their_counters_and_fails_whole(rules) -> None:
    game = Game(rules, 2, seed=1)
    game.setup()
    game.act("p1", "gift")
    assert game.state.counters["p2.coins"] == 2 and game.state.counters["p2.goods"] == 1
    game.state.counters["p2.coins"] = 0
    before = game.state.dumps()
    with pytest.raises(BoardrulesError) as err:
        game.act("p1", "gift")
    assert err.value.code == "E502" and game.state.dumps() == before


def test_can_is_a_dry_run_that_changes_nothing(rules) -> None:
    game = Game(rules, 2, seed=1)
    game.setup()
    before = game.state.dumps()
    game.act("p1", "check")
    assert game.state.dumps() == before
    game.state.counters["p2.coins"] = 2
    with pytest.raises(BoardrulesError) as err:
        game.act("p1", "check")
    assert err.value.code == "E501"


def test_take_and_can_are_checked_when_linked(tmp_path: Path) -> None:
    bad = PACK.replace("take buy(1)", "take buy(1, 2)").replace("can(buy, 3", "can(bye, 3")
    (tmp_path / "bad.yaml").write_text(bad)
    with pytest.raises(BoardrulesError) as err:
        load_rules(tmp_path)
    codes = sorted(d.code for d in err.value.diagnostics)
    assert codes == ["E401", "E405"]


def test_take_of_a_game_action_needs_no_player_and_of_a_player_action_says_who(tmp_path: Path) -> None:
    text = PACK + """
  restock:
    title: Restock (the game's)
    by: game
    do: ["stock += 1"]
  tidy:
    title: Tidy up
    by: game
    do: ["take restock()"]
"""
    (tmp_path / "shop.yaml").write_text(text)
    game = Game(load_rules(tmp_path), 2, seed=1)
    game.setup()
    game.act(None, "tidy")
    assert game.state.counters["stock"] == 3
    (tmp_path / "shop.yaml").write_text(text.replace("take restock()", "take buy(1)"))
    with pytest.raises(BoardrulesError) as err:
        load_rules(tmp_path)
    assert err.value.code == "E401" and "as PLAYER" in (err.value.diagnostic.hint or "")


def test_a_value_named_like_a_zone_is_one_name_declared_twice(tmp_path: Path) -> None:
    (tmp_path / "twice.yaml").write_text(
        "module: twice\ntitle: Twice\nvalues:\n  pile: 3\nzones:\n  pile: {}\n  hand: {per: player}\n"
        "counters:\n  hand: {per: player}\n")
    with pytest.raises(BoardrulesError) as err:
        load_rules(tmp_path)
    messages = sorted(d.message for d in err.value.diagnostics if d.code == "E403")
    assert len(messages) == 2
    assert messages[0].startswith("'hand' is declared as a zone here and as a counter")
    assert messages[1].startswith("'pile' is declared as a zone here and as a value")


def test_known_tells_an_unknown_value_apart(tmp_path: Path) -> None:
    (tmp_path / "k.yaml").write_text(
        "module: k\ntitle: K\nvalues:\n  open: {unknown: never said}\n  shut: 2\ncounters:\n  n: {per: game}\n"
        "actions:\n  look:\n    title: Look\n    by: game\n    do:\n      - if: known(open)\n        then: ['n += 1']\n"
        "      - if: known(shut)\n        then: ['n += 10']\n")
    game = Game(load_rules(tmp_path), 1)
    game.setup()
    game.act(None, "look")
    assert game.state.counters["n"] == 10
    assert Game.new(tmp_path, 1, options={"open": 5}).rules.options == {"open": 5}
