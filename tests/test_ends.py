"""When the game ends (`end game now | after this turn | after this round | after next round`, `end.after`) and
triggers on zones (`on: {change: ZONE}`): what scenarios cannot show (the legal-move search, undo, saves and
replays, the order of triggers, a model of the earliest end), both interpreted and compiled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import BOTH, build_rules, link_texts, pack_link
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import BoardrulesError, Diagnostics
from boardrules.engine.rules import Rules
from boardrules.game import Game
from boardrules.language.pack import discover

FINALE = Path(__file__).parent / "packs" / "finale"


def finale(root: str = "finale") -> Rules:
    return pack_link(FINALE, root)


@BOTH
def test_listing_moves_with_an_end_now_among_them_ends_nothing(mode: Any) -> None:
    game = Game.new(mode(finale()), 2, seed=3, chance="auto")
    before = game.state.dumps()
    moves = [m["action"] for m in game.legal_actions()]
    assert "stop_now" in moves and "stop_after_round" in moves  # an action that ends the game can be finished
    assert "stop_then_fail" not in moves  # one that fails after asking for the end cannot
    assert game.state.dumps() == before and not game.is_terminal()


@BOTH
def test_end_now_is_undone_saved_and_replayed_exactly(mode: Any) -> None:
    rules = mode(finale())
    game = Game.new(rules, 2, seed=3, chance="auto")
    game.act("p1", "draw_card")
    before = game.state.dumps()
    game.act("p1", "stop_now")
    assert game.is_terminal() and game.legal_actions() == []
    assert game.state.counters["p1.points"] == 2  # the rest of stop_now did not run; end.do scored the hand
    again = Game.replay(rules, 2, 3, game.log)
    assert again.state.dumps() == game.state.dumps()
    assert game.undo() and game.state.dumps() == before and not game.is_terminal()


@BOTH
def test_a_requested_end_is_kept_by_saves_and_undo(mode: Any) -> None:
    rules = mode(finale())
    game = Game.new(rules, 2, seed=3, chance="auto")
    game.act("p1", "stop_after_next_round")
    restored = Game.deserialize(game.serialize(), rules)
    for g in (game, restored):
        for player, action in (("p1", "rest"), ("p2", "rest"), ("p2", "rest"), ("p1", "rest"), ("p1", "rest"),
                               ("p2", "rest")):
            assert not g.is_terminal()
            g.act(player, action)
        g.act("p2", "rest")
        assert g.is_terminal() and g.state.vars["round"] == 2
    assert restored.state.dumps() == game.state.dumps()
    while game.undo():
        pass
    assert "end_after_rounds" not in game.state.vars


# ---------------------------------------------------------------- the earliest end wins: a model, free play

OPS = ("stop_after_turn", "stop_after_round", "stop_after_next_round", "end_turn", "end_round", "draw_card")


@BOTH
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(st.sampled_from(OPS), max_size=12))
def test_free_play_ends_at_the_first_boundary_any_request_named(mode: Any, ops: list[str]) -> None:
    rules = mode(finale("finale.free"))
    game = Game.new(rules, 2, seed=1, chance="auto")
    turn, rounds = False, None  # the model: the end at the next turn end, and after how many round ends
    over = False
    for op in ops:
        before = game.state.dumps()
        if over:
            with pytest.raises(BoardrulesError) as err:
                game.act("p1", "draw_card")
            assert err.value.code == "E501" and game.state.dumps() == before
            continue
        if op == "end_turn":
            game.end_turn("p1")
            over = turn
        elif op == "end_round":
            game.act(None, "close_round")
            if rounds is not None:
                rounds -= 1
                over = rounds == 0
        elif op == "draw_card":
            try:
                game.act("p1", op)
            except BoardrulesError as exc:
                assert exc.code == "E501" and game.state.dumps() == before
        else:
            game.act("p1", op)
            if op == "stop_after_turn":
                turn = True
            else:
                want = 1 if op == "stop_after_round" else 2
                rounds = want if rounds is None else min(rounds, want)
        assert game.is_terminal() == over, ops


# ---------------------------------------------------------------- zone triggers: one statement is one change

ZONES = """
module: z
title: Zones
counters:
  log: {per: game}
  seen: {per: game, min: null}
  marks: {per: game}
pieces:
  chip: {properties: {}}
zones:
  left: {}
  right: {per: player}
setup:
  chips:
    do: ["create 3 chip in left"]
actions:
  pair:
    title: Move two linked chips at once
    do:
      - link first(left), last(left)
      - move first(left) to me.right
  back:
    title: Put my chips back
    do: ["move me.right to left"]
triggers:
  left_changes:
    on: {change: left}
    do: ["log = log * 10 + 1", "seen += old - new"]
  right_changes:
    on: {change: right}
    do: ["log = log * 10 + 2", "seen += new - old"]
  right_each:
    on: {change: right, every: 1}
    do: ["marks = marks * 10 + mark"]
  left_refilled:
    on: {change: left, crosses: 3}
    do: ["log = log * 10 + 3"]
"""


@BOTH
def test_a_statement_is_one_change_and_zones_that_lost_pieces_come_first(tmp_path: Path, mode: Any) -> None:
    game = Game.new(mode(build_rules(tmp_path, ZONES)), 2, seed=1, chance="auto")
    vars_ = game.state.counters
    assert (vars_["log"], vars_["seen"]) == (13, -3)  # setup made 3 chips in left at once: one change, 0 to 3
    game.act("p2", "pair")  # two linked chips leave left together, then arrive in p2.right together
    assert (vars_["log"], vars_["seen"], vars_["marks"]) == (1312, 1, 12)
    game.act("p2", "back")  # p2.right lost them (first), then left gained them and crossed 3
    assert (vars_["log"], vars_["seen"]) == (1312213, -3)


def test_zone_trigger_and_end_refusals_are_at_their_place(tmp_path: Path) -> None:
    _, diags = link_texts(tmp_path, """
    module: r
    title: Refusals
    zones: {deck: {}}
    triggers:
      gone: {on: {change: dekc, crosses: 0, direction: down}, do: ["end game after this round"]}
    actions:
      a: {title: A, do: ["end turn after this round", "end game after this game"]}
    """)
    found = sorted((d.code, d.span.line, d.message) for d in diags.items)
    assert [(c, line) for c, line, _ in found] == [("E401", 6), ("E420", 8), ("E420", 8)]
    assert "did you mean 'deck'" in (next(d for d in diags.items if d.code == "E401").hint or "")


@BOTH
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(moves=st.lists(st.tuples(st.sampled_from(["p1", "p2"]), st.sampled_from(["draw_card", "play_cards"])),
                      max_size=14))
def test_zone_triggers_agree_with_a_count_of_the_pieces_moved(mode: Any, moves: list[tuple[str, str]]) -> None:
    game = Game.new(mode(finale("finale.free")), 2, seed=2, chance="auto")
    hands = {"p1": 0, "p2": 0}
    played = {"p1": 0, "p2": 0}
    full = discard = 0
    for player, action in moves:
        before = game.state.dumps()
        try:
            game.act(player, action)
        except BoardrulesError as exc:  # an empty deck or hand: refused, and nothing changed
            assert exc.code == "E501" and game.state.dumps() == before
            continue
        if action == "draw_card":
            hands[player] += 1
            full += hands[player] == 3
        else:
            played[player] += hands[player]
            discard += hands[player]
            hands[player] = 0
    c = game.state.counters
    assert c["piles"] == discard // 2  # every: 2 on a pile that only grows
    assert c["emptied"] == (1 if sum(hands.values()) + discard == 4 else 0)
    assert c["full_hands"] == full
    assert (c["p1.hand_changes"], c["p2.hand_changes"]) == (played["p1"], played["p2"])


WATCHED = """
module: w
title: W
counters: {n: {per: game, output: true}}
pieces: {chip: {properties: {}}}
zones:
  box: {}
  bin: {}
setup:
  chips: {do: ["create 2 chip in box"]}
triggers:
  box_empty: {on: {change: box, crosses: 0, direction: down}, do: ["n += 1"]}
  box_any: {on: {change: box}, do: ["n += 1"]}
  bin_two: {on: {change: bin, crosses: 2}, do: ["n += 1"]}
  bin_big: {on: {change: bin, crosses: 9}, do: ["n += 1"]}
"""


def _zone_findings(directory: Path, text: str) -> list[tuple[str, str]]:
    from boardrules.analysis import check_pack

    directory.mkdir()
    (directory / "w.yaml").write_text(text, encoding="utf-8")
    diags = Diagnostics()
    for pack in discover([directory], diags):
        check_pack(pack, diags)
    return sorted((d.code, d.message.split()[0]) for d in diags.items if d.code in ("W857", "W865"))


def test_a_trigger_on_a_zone_nothing_changes_that_way_is_a_warning(tmp_path: Path) -> None:
    # Nothing takes a piece out of any zone and nothing puts one in bin: only box's plain watch can run (setup).
    assert _zone_findings(tmp_path / "a", WATCHED) == [
        ("W865", "triggers.bin_big"), ("W865", "triggers.bin_two"), ("W865", "triggers.box_empty")]
    moving = WATCHED + "actions:\n  tip: {title: Tip, do: [move box to bin]}\n"
    assert _zone_findings(tmp_path / "b", moving) == []
    # A mark above the zone's capacity can never be reached.
    assert _zone_findings(tmp_path / "c", moving.replace("bin: {}", "bin: {capacity: 3}")) == [
        ("W857", "triggers.bin_big")]
