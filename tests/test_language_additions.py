"""extend, wrap, substitutes, counter triggers and overflow, per-player markers, while, can_pay and block
scopes: what the linker refuses, and the runtime details scenarios cannot see (decision options, composition)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import build_rules, link_texts
from hypothesis import given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import BoardrulesError, Diagnostics, Span
from boardrules.engine.decisions import ScriptedDecider
from boardrules.game import Game
from boardrules.language.compiler import PIECE_BUILTINS
from boardrules.language.options import set_options

BASE = """
module: b
title: Base
sets:
  colours: [red, blue]
counters:
  coins: {per: player, initial: 5}
  pts:   {per: player, initial: 0}
  gems:  {per: player, keys: colours, initial: 0}
  dust:  {per: player, keys: [fine, coarse]}
  cap:   {per: player, initial: 0, max: 3}
pieces:
  tile: {properties: {level: {type: int, default: 1}}}
zones:
  hand: {per: player}
  pile: {capacity: 2}
tracks:
  lane: {spaces: 9, markers: {pawn: 1, runner: {start: 2, per: player}}}
procedures:
  bump:
    params: {n: int}
    do: ["me.pts += n"]
actions:
  act:
    title: Act
    do:
      - step: first
        do: ["me.pts += 1"]
      - me.coins -= 1
  buy:
    title: Buy
    cost: "1 gems[red] + 1 coins"
    do: ["me.pts += 1"]
"""


def codes(diags) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in diags.items]


def module(mid: str, body: str, requires: str = "[b]") -> str:
    return f"module: {mid}\ntitle: {mid}\nrequires: {requires}\n{body}"


# ---------------------------------------------------------------- extend


def test_extend_adds_to_sets_counters_kinds_and_zones(tmp_path: Path) -> None:
    x = module("x", "extend:\n  sets.colours: [green]\n  counters.dust: {keys: [grit], max: 9}\n"
               "  pieces.tile: {properties: {face: {type: symbol, default: up}}}\n  zones.hand: {capacity: 4}\n")
    rules = build_rules(tmp_path, BASE, x)
    assert rules.sets["colours"] == ("red", "blue", "green")
    assert rules.counters["gems"].keys == ("red", "blue", "green")
    assert rules.counters["dust"].keys == ("fine", "coarse", "grit") and rules.counters["dust"].max == 9
    assert rules.kinds["tile"] == {"level": "int", "face": "symbol"}
    assert rules.prop_defaults[("tile", "face")] == "up"
    assert rules.zones["hand"].capacity == 4
    game = Game(rules, 2)
    assert game.state.counters["p2.gems[green]"] == 0 and game.state.counters["p1.dust[grit]"] == 0


def test_extend_refusals(tmp_path: Path) -> None:
    x = module("x", "extend:\n  sets.nope: [a]\n  counters.gems: {keys: [green]}\n  counters.coins: {keys: [a]}\n"
               "  counters.cap: {max: 5}\n  zones.pile: {capacity: 3}\n"
               "  pieces.tile: {properties: {level: {type: bool}}}\n")
    _, diags = link_texts(tmp_path, BASE, x)
    got = codes(diags)
    assert ("E406", "extend target 'sets.nope' does not exist") in got
    assert ("E402", "counters.gems takes its keys from the set 'colours'") in got
    assert ("E402", "counters.coins has no keys, so keys cannot be added to it") in got
    assert ("E407", "counters.cap already has max 3 (from b); x gives 5") in got
    assert ("E407", "zones.pile already has capacity 2 (from b); x gives 3") in got
    assert any(c == "E407" and "property 'level'" in m for c, m in got)


def test_extend_needs_requires_and_two_modules_may_not_disagree(tmp_path: Path) -> None:
    x = module("x", "extend:\n  counters.coins: {max: 8}\n")
    y = module("y", "extend:\n  counters.coins: {max: 9}\n  sets.colours: [green]\n")
    _, diags = link_texts(tmp_path, BASE, x, y, roots=["x", "y"])
    assert codes(diags) == [("E407", "counters.coins already has max 8 (from x); y gives 9")]
    lone = "module: z\ntitle: z\nextend:\n  sets.colours: [green]\n"
    _, diags = link_texts(tmp_path / "2", BASE, lone, roots=["b", "z"])
    assert codes(diags) == [("E406", "'sets.colours' belongs to b, which z does not require")]


# ---------------------------------------------------------------- wrap


def test_wraps_compose_in_requires_order(tmp_path: Path) -> None:
    x = module("x", "wrap:\n  actions.act.first:\n    before: ['me.pts += 10']\n    after: ['me.pts += 100']\n")
    y = module("y", "wrap:\n  actions.act.first:\n    instead: ['me.pts = me.pts * 2', proceed]\n"
               "  procedures.bump: {after: ['me.coins += n']}\n", requires="[x]")
    rules = build_rules(tmp_path, BASE, x, y)
    game = Game(rules, 1)
    game.act("p1", "act")
    # y is outermost: pts 0 * 2 = 0, then x: +10, the step +1, +100
    assert game.state.counters["p1.pts"] == 111
    assert game.state.counters["p1.coins"] == 4


def test_wrap_refusals(tmp_path: Path) -> None:
    x = module("x", "wrap:\n  actions.act.second: {before: []}\n  actions.nope: {after: []}\n"
               "  procedures.bump: {before: [proceed]}\n")
    _, diags = link_texts(tmp_path, BASE, x)
    got = codes(diags)
    assert ("E406", "wrap target 'actions.nope' does not exist") in got
    assert ("E406", "'actions.act' has no step 'second'") in got
    assert ("E402", "proceed runs the wrapped rule, so it belongs in a wrap's instead hook") in got


def test_hooks_see_the_rules_parameters_but_not_its_locals(tmp_path: Path) -> None:
    base = BASE + "  take:\n    title: Take\n    params: {n: int}\n    do: ['let k = n * 2', 'me.pts += k']\n"
    x = module("x", "wrap:\n  actions.take: {before: ['me.coins += n']}\n")
    game = Game(build_rules(tmp_path, base, x), 1)
    game.act("p1", "take", {"n": 2})
    assert (game.state.counters["p1.coins"], game.state.counters["p1.pts"]) == (7, 4)
    y = module("y", "wrap:\n  actions.take: {after: ['me.coins += k']}\n")
    _, diags = link_texts(tmp_path / "2", base, y)
    assert [c for c, _ in codes(diags)] == ["E401"]


def test_setup_steps_scoring_rules_and_triggers_can_be_wrapped(tmp_path: Path) -> None:
    base = BASE + ("setup:\n  deal: {do: [{for: p in players, do: [p.pts += 1]}]}\n"
                   "scoring:\n  tally: {do: ['me.coins += me.pts']}\n"
                   "events:\n  ping: {params: {n: int}}\n"
                   "triggers:\n  echo: {on: ping, do: ['me.pts += n']}\n")
    base = base.replace("  buy:\n", "  shout:\n    title: Shout\n    do: ['emit ping(3)', score]\n  buy:\n")
    x = module("x", "wrap:\n  setup.deal: {after: [{for: p in players, do: [p.pts += 10]}]}\n"
               "  scoring.tally: {instead: [proceed, proceed]}\n  triggers.echo: {before: ['me.pts += n * 100']}\n")
    game = Game(build_rules(tmp_path, base, x), 1)
    game.setup()
    assert game.state.counters["p1.pts"] == 11
    game.act("p1", "shout")
    assert game.state.counters["p1.pts"] == 11 + 303
    assert game.state.counters["p1.coins"] == 5 + 2 * 314


def test_two_unrelated_modules_may_not_both_wrap_one_step_when_one_replaces_it(tmp_path: Path) -> None:
    x = module("x", "wrap:\n  actions.act: {instead: [proceed]}\n")
    y = module("y", "wrap:\n  actions.act: {before: ['me.pts += 1']}\n")
    _, diags = link_texts(tmp_path, BASE, x, y, roots=["x", "y"])
    assert codes(diags) == [
        ("E407", "'actions.act' is wrapped by both x and y, and one of them replaces it (instead)")]
    y2 = module("y", "wrap:\n  actions.act: {before: ['me.pts += 1']}\n  actions.act.first: {after: []}\n")
    x2 = module("x", "wrap:\n  actions.act: {after: ['me.pts += 1']}\n")
    build_rules(tmp_path / "ok", BASE, x2, y2, roots=["x", "y"])  # before/after from both: no conflict


# ---------------------------------------------------------------- substitutes


def test_substitution_ways_are_options_of_the_cost_decision(tmp_path: Path) -> None:
    x = module("x", "substitutes:\n  coin_gem: {pay: '1 gems[any]', with: '2 coins'}\n")
    rules = build_rules(tmp_path, BASE, x)
    game = Game(rules, 1)
    game.state.set_counter("p1.gems[red]", 1)
    decider = ScriptedDecider(["3 coins"])
    game.act("p1", "buy", decider=decider)
    (asked,) = decider.asked
    assert asked.chooser == "p1"
    assert asked.plain_options() == ["1 gems[red] + 1 coins", "3 coins"]
    assert game.state.counters["p1.coins"] == 2 and game.state.counters["p1.gems[red]"] == 1


def test_substitution_refusals(tmp_path: Path) -> None:
    x = module("x", "substitutes:\n  a: {pay: '1 gems[any] + 1 coins', with: '1 pts'}\n"
               "  b: {pay: '1 coins', with: '1 pts or 1 coins'}\n  c: {pay: '1 dust', with: '1 pts'}\n"
               "  d: {pay: '1 nope', with: '1 pts'}\n")
    _, diags = link_texts(tmp_path, BASE, x)
    got = [c for c, _ in codes(diags)]
    assert got == ["E402", "E402", "E402", "E401"]


# ---------------------------------------------------------------- counters


def test_counter_trigger_and_overflow_refusals(tmp_path: Path) -> None:
    x = module("x", "counters:\n  a: {per: game, max: 3, overflow: carry, carry_to: coins}\n"
               "  c: {per: player, overflow: carry, carry_to: coins}\n"
               "  d: {per: player, max: 1, overflow: carry, carry_to: gems}\n"
               "triggers:\n  t: {on: {change: nope}, do: []}\n  u: {on: {change: pts, crosses: 3, every: 2}, do: []}\n"
               "  v: {on: {change: pts, crosses: me}, do: []}\n")
    _, diags = link_texts(tmp_path, BASE, x)
    got = codes(diags)
    assert ("E402", "the excess of game counter 'a' has no owner to go to in 'coins'") in got
    assert ("E402", "counter 'c' overflows only above a max, and it has none") in got
    assert ("E402", "'gems' is keyed: the excess of 'd' needs keys it also has") in got
    assert ("E401", "unknown counter, marker or zone 'nope'") in got
    assert ("E201", "a counter trigger takes crosses or every, not both") in got
    assert ("E402", "a threshold is a number, but this is player") in got


def test_zone_overflow_refusals(tmp_path: Path) -> None:
    x = module("x", "zones:\n  a: {overflow: discard}\n  c: {capacity: 1, overflow: carry, carry_to: hand}\n"
               "  d: {capacity: 1, overflow: carry, carry_to: d}\n  e: {capacity: 1, carry_to: pile}\n"
               "extend:\n  zones.pile: {capacity: 5}\n  zones.hand: {overflow: discard}\n")
    _, diags = link_texts(tmp_path, BASE, x)
    assert codes(diags) == [
        ("E407", "zones.pile already has capacity 2 (from b); x gives 5"),
        ("E402", "zone 'hand' overflows only beyond a capacity, and it has none"),
        ("E402", "zone 'a' overflows only beyond a capacity, and it has none"),
        ("E402", "the overflow of game zone 'c' has no owner to go to in 'hand'"),
        ("E402", "zone 'd' cannot carry its overflow to itself"),
        ("E402", "carry_to needs overflow: carry (zone 'e' has refuse)"),
    ]


def test_a_trigger_loop_on_a_counter_is_stopped(tmp_path: Path) -> None:
    x = module("x", "triggers:\n  again: {on: {change: pts}, do: ['me.pts += 1']}\n")
    game = Game(build_rules(tmp_path, BASE, x), 1)
    try:
        game.act("p1", "act")
    except BoardrulesError as err:
        assert err.code == "E507"
    else:
        raise AssertionError("a trigger that always changes what it watches must stop")
    assert game.state.counters["p1.pts"] == 0 and game.state.counters["p1.coins"] == 5


# ---------------------------------------------------------------- markers, scopes, can_pay


def test_player_markers_need_an_owner(tmp_path: Path) -> None:
    x = module("x", "actions:\n  go: {title: Go, do: ['advance runner by 1', 'advance me.runner by 1',"
               " 'me.pts += position(runner)']}\n")
    _, diags = link_texts(tmp_path, BASE, x)
    assert codes(diags) == [("E402", "each player has a marker 'runner': say whose (me.runner, p.runner)")] * 2
    rules = build_rules(tmp_path / "ok", BASE)
    game = Game(rules, 3)
    assert [game.state.markers[f"p{i}.runner"].pos for i in (1, 2, 3)] == [2, 2, 2]
    assert "runner" not in game.state.markers


def test_a_block_cannot_rebind_an_enclosing_name(tmp_path: Path) -> None:
    x = module("x", "actions:\n  a:\n    title: A\n    do:\n      - let n = 1\n      - if: true\n"
               "        then: ['let n = 2']\n      - for: n in [1, 2]\n        do: []\n"
               "      - if: true\n        then: ['choose n from [1]']\n")
    _, diags = link_texts(tmp_path, BASE, x)
    assert [c for c, _ in codes(diags)] == ["E403", "E403", "E403"]
    assert all(m == "'n' is already bound outside this block" for _, m in codes(diags))


def test_sibling_blocks_and_updates_of_outer_names(tmp_path: Path) -> None:
    x = module("x", "actions:\n  a:\n    title: A\n    do:\n      - let total = 0\n"
               "      - for: k in [1, 2, 3]\n        do: ['let twice = k * 2', 'total += twice']\n"
               "      - for: k in [4]\n        do: ['let twice = k', 'total += twice']\n"
               "      - me.pts = total\n")
    game = Game(build_rules(tmp_path, BASE, x), 1)
    game.act("p1", "a")
    assert game.state.counters["p1.pts"] == 16


def test_can_pay_needs_a_payer_and_a_known_cost(tmp_path: Path) -> None:
    x = module("x", "setup:\n  s: {do: ['require can_pay(1 coins)']}\n"
               "actions:\n  a: {title: A, allowed_if: 'can_pay(2 nope)', do: []}\n")
    _, diags = link_texts(tmp_path, BASE, x)
    assert codes(diags) == [
        ("E401", "'me' is not available here: write can_pay(COST by PLAYER)"),
        ("E401", "unknown counter 'nope'"),
    ]


# ---------------------------------------------------------------- properties

WATCHED = BASE + """
  set_pts:
    title: Set
    params: {n: int}
    do: ["me.pts = n"]
  add_cap:
    title: Add
    params: {n: int}
    do: ["me.cap += n"]
"""


def _watched_game(tmp_path: Path) -> Game:
    x = module("x", "extend:\n  counters.cap: {overflow: discard}\n"
               "triggers:\n  m: {on: {change: pts, every: 4}, do: ['me.coins += 1']}\n"
               "  d: {on: {change: pts, every: 4, direction: down}, do: ['me.gems[red] += 1']}\n")
    return Game(build_rules(tmp_path, WATCHED, x), 1)


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.integers(0, 40), max_size=12), adds=st.lists(st.integers(0, 5), max_size=8))
def test_every_runs_once_per_multiple_passed_and_discard_keeps_max(
        tmp_path_factory: pytest.TempPathFactory, values: list[int], adds: list[int]) -> None:
    game = _watched_game(tmp_path_factory.mktemp("w"))
    old, marks, downs, cap = 0, 0, 0, 0
    for n in values:
        game.act("p1", "set_pts", {"n": n})
        marks += sum(1 for m in range(old + 1, n + 1) if m % 4 == 0)
        downs += sum(1 for m in range(n, old) if m % 4 == 0)
        old = n
    for n in adds:
        game.act("p1", "add_cap", {"n": n})
        cap = min(3, cap + n)
    assert game.state.counters["p1.coins"] == 5 + marks
    assert game.state.counters["p1.gems[red]"] == downs
    assert game.state.counters["p1.cap"] == cap


# ---------------------------------------------------------------- built-in piece fields


def test_a_property_named_like_a_built_in_piece_field_is_refused_where_declared(tmp_path: Path) -> None:
    # Every built-in field the language reads as `$x.NAME`: a property of that name could never be read.
    assert set(PIECE_BUILTINS) == {"id", "kind", "zone", "slot", "linked"}
    props = "".join(f"\n      {name}: {{type: int}}" for name in PIECE_BUILTINS)
    own = module("x", f"pieces:\n  crate:\n    properties:{props}\n      weight: {{type: int}}\n")
    rules, diags = link_texts(tmp_path / "own", BASE, own)
    got = [(d.code, d.span.line, d.span.col) for d in diags.items]
    assert got == [("E409", 7 + i, 7) for i in range(len(PIECE_BUILTINS))]
    assert diags.items[2].message == ("'crate' cannot have a property 'zone': every piece has a built-in 'zone' "
                                      "(the zone it is in), and `.zone` always reads that")
    assert diags.items[2].hint == "give the property another name, such as 'crate_zone'"
    assert rules.kinds["crate"] == {"weight": "int"}  # the rest of the kind is declared as written

    # Added by extend: reported at the extending module's key.
    ext = module("x", "extend:\n  pieces.tile: {properties: {kind: {type: symbol}, face: {type: symbol}}}\n")
    rules, diags = link_texts(tmp_path / "ext", BASE, ext)
    (d,) = diags.items
    assert (d.code, d.span.file.endswith("m1.yaml"), d.span.line) == ("E409", True, 5)
    assert rules.kinds["tile"] == {"level": "int", "face": "symbol"}


def test_a_refused_built_in_property_cannot_be_set_by_an_option(tmp_path: Path) -> None:
    x = module("x", "pieces:\n  crate: {properties: {slot: {type: int, default: 1}}}\n")
    rules, _ = link_texts(tmp_path, BASE, x)
    diags = Diagnostics()
    set_options(rules, {"crate.slot": (2, Span("cli", 1, 1))}, diags)
    assert [d.code for d in diags.items] == ["E408"]
