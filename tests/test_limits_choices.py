"""Reacting to what a limit absorbed (`on: {overflow: c}` / `on: {underflow: c}`, `underflow: discard`), paying only
the shortfall (`shortfall: true` substitutes), and `extend` of another module's `one_of`. Run node by node and
compiled, which must agree; the refusals at link time carry their codes at their place."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import BOTH, compiled, interpreted, link_texts, write_modules
from hypothesis import given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import BoardrulesError, Diagnostics
from boardrules.engine.decisions import ScriptedDecider
from boardrules.engine.rules import Rules
from boardrules.game import Game
from boardrules.language import syntax as s
from boardrules.language.pack import discover, link, load_modules
from boardrules.language.parser import parse
from boardrules.tools import explain
from boardrules.tools.cli import main

PACK = Path(__file__).parent / "packs" / "limits"


def pack_rules(*roots: str) -> Rules:
    diags = Diagnostics()
    (pack,) = discover([PACK], diags)
    rules = link(load_modules(pack.module_files, diags), list(roots), diags)
    assert not diags.items, [(d.code, d.message) for d in diags.items]
    return rules


def game(mode: Callable[[Rules], Rules], *roots: str, counters: dict[str, int] | None = None) -> Game:
    g = Game(mode(pack_rules(*(roots or ("limits",)))), 1)
    g.setup()
    g.state.counters.update(counters or {})
    g.state.journal.clear()
    return g


def options_asked(g: Game, action: str) -> list[Any]:
    decider = ScriptedDecider([])
    with pytest.raises(BoardrulesError) as stopped:
        g.act("p1", action, decider=decider)
    assert stopped.value.code == "E506"
    return decider.asked[0].plain_options()


# ------------------------------------------------------------------------------------------- what a limit absorbs

@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 20), max_size=6), st.sampled_from([interpreted, compiled]))
def test_the_cap_turns_every_star_above_it_into_fame(gains: list[int], mode: Callable[[Rules], Rules]) -> None:
    g = game(mode)
    total = 0
    for n in gains:
        g.act("p1", "gain_stars", {"n": n})
        total += n
    assert g.state.counters["p1.stars"] == min(10, total)
    assert g.state.counters["p1.fame"] == max(0, total - 10)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 9), max_size=6), st.sampled_from([interpreted, compiled]))
def test_the_floor_absorbs_a_loss_and_the_trigger_sees_how_much(losses: list[int],
                                                                mode: Callable[[Rules], Rules]) -> None:
    g = game(mode)
    value, bruises = 3, 0
    for n in losses:
        g.act("p1", "tire", {"n": n})
        bruises += value - n < 0 and n - value >= 2
        value = max(0, value - n)
    assert g.state.counters["p1.stamina"] == value and g.state.counters["p1.bruises"] == bruises


@BOTH
def test_triggers_run_carry_target_then_change_then_overflow(mode: Callable[[Rules], Rules]) -> None:
    g = game(mode, counters={"p1.stored": 4})
    g.act("p1", "store", {"n": 3})
    assert g.state.counters["p1.order"] == 123
    g.act("p1", "store", {"n": 2})  # the value stays at 5: no change trigger, the overflow trigger all the same
    assert g.state.counters["p1.order"] == 12313 and g.state.counters["p1.spare"] == 4
    assert g.undo() and g.state.counters["p1.order"] == 123


@BOTH
def test_only_the_capped_key_absorbs(mode: Callable[[Rules], Rules]) -> None:
    g = game(mode)
    g.act("p1", "add_stock", {"c": "red", "n": 5})
    g.act("p1", "add_stock", {"c": "blue", "n": 5})
    assert [g.state.counters[f"p1.{c}"] for c in ("stock[red]", "stock[blue]", "spill[red]", "spill[blue]")] == \
        [3, 5, 2, 0]


LIMIT_PACK = """
module: k
title: K
counters:
  plain: {per: player, max: 5}
  kept:  {per: player, max: 5, overflow: discard}
  floor: {per: player}
  open:  {per: player, min: null, underflow: %s}
triggers:
  t:
    on: %s
    do: []
"""


@pytest.mark.parametrize(("underflow", "on", "code", "message"), [
    ("refuse", "{overflow: plain}", "E427", "counter 'plain' never absorbs a gain: its overflow refuses (E508)"),
    ("refuse", "{overflow: floor}", "E427", "counter 'floor' never absorbs a gain: it has no max"),
    ("refuse", "{underflow: floor}", "E427", "counter 'floor' never absorbs a loss: its underflow refuses (E508)"),
    ("refuse", "{overflow: kep}", "E401", "unknown counter 'kep'"),
    ("refuse", "{overflow: kept, every: 2}", "E201", ""),
    ("refuse", "{overflow: kept, underflow: kept}", "E201", ""),
    ("discard", "{overflow: kept}", "E402", "counter 'open' has no floor for its underflow to stop at (min: null)"),
    ("sometimes", "{overflow: kept}", "E201", ""),
])
def test_triggers_on_limits_that_never_absorb_are_refused(tmp_path: Path, underflow: str, on: str, code: str,
                                                          message: str) -> None:
    _, diags = link_texts(tmp_path, LIMIT_PACK % (underflow, on))
    errors = [(d.code, d.message) for d in diags.items if d.severity == "error"]
    assert errors and errors[0][0] == code, errors
    assert message in errors[0][1]
    if code == "E427":
        assert diags.items[0].span.line == 11  # at the trigger's `on`


# ------------------------------------------------------------------------------------------- paying the shortfall

@settings(max_examples=40, deadline=None)
@given(st.integers(0, 5), st.integers(0, 8), st.sampled_from([interpreted, compiled]))
def test_the_shortfall_is_paid_in_coins_and_can_pay_agrees(grain: int, coins: int,
                                                           mode: Callable[[Rules], Rules]) -> None:
    g = game(mode, counters={"p1.grain": grain, "p1.coins": coins})
    lack = max(0, 3 - grain)
    payable = coins >= 2 * lack
    g.act("p1", "check_buy", decider=ScriptedDecider([]))
    assert g.state.counters["p1.goods"] == (10 if payable else 0)
    assert any(m["action"] == "buy" for m in g.legal_actions("p1")) == payable
    before = g.state.dumps()
    if payable:
        g.act("p1", "buy", decider=ScriptedDecider([]))  # one way to pay: nobody is asked
        assert (g.state.counters["p1.grain"], g.state.counters["p1.coins"]) == (grain - (3 - lack), coins - 2 * lack)
    else:
        with pytest.raises(BoardrulesError) as refused:
            g.act("p1", "buy", decider=ScriptedDecider([]))
        assert refused.value.code == "E502" and g.state.dumps() == before


@BOTH
def test_a_shortfall_of_any_key_pays_the_key_held_most(mode: Callable[[Rules], Rules]) -> None:
    g = game(mode, counters={"p1.gems[red]": 1, "p1.gems[blue]": 0, "p1.coins": 9, "p1.grain": 1})
    g.act("p1", "buy_two_colours", decider=ScriptedDecider([]))  # red only: blue would pay less in gems
    assert [g.state.counters[k] for k in ("p1.gems[red]", "p1.coins", "p1.grain")] == [0, 6, 0]
    g = game(mode, counters={"p1.gems[red]": 1, "p1.gems[blue]": 1, "p1.coins": 9, "p1.grain": 1})
    assert options_asked(g, "buy_two_colours") == ["1 gems[red] + 3 coins + 1 grain",
                                                   "1 gems[blue] + 3 coins + 1 grain"]


SHORT_PACK = """
module: k
title: K
counters:
  grain: {per: player, initial: 1}
  coins: {per: player, initial: 9}
  gems: {per: player, keys: [red, blue]}
substitutes:
  s: {pay: "%s", with: "2 coins", shortfall: true}
actions:
  buy: {title: Buy, cost: "%s", do: []}
"""


@pytest.mark.parametrize(("pay", "cost", "paid"), [
    ("1 grain", "3 grain", (0, 5)),          # 1 grain held, 2 lacking: 4 coins
    ("2 grain", "3 grain", (0, 7)),          # units of 2: 2 lacking is one unit for 2 coins, 1 grain paid
    ("2 grain", "4 grain", (1, 5)),          # 3 lacking is two whole units: they cover all 4, the grain is kept
])
def test_a_shortfall_is_covered_in_whole_units(tmp_path: Path, pay: str, cost: str, paid: tuple[int, int]) -> None:
    rules, diags = link_texts(tmp_path, SHORT_PACK % (pay, cost))
    assert not diags.items
    g = Game(rules, 1)
    g.setup()
    g.act("p1", "buy", decider=ScriptedDecider([]))
    assert (g.state.counters["p1.grain"], g.state.counters["p1.coins"]) == paid


@pytest.mark.parametrize(("pay", "message"), [
    ("1 gems[different]", "write 'gems' with [any] or one of its keys"),
    ("1 gem", "unknown counter 'gem'"),
])
def test_shortfall_substitutes_that_do_not_fit_are_refused(tmp_path: Path, pay: str, message: str) -> None:
    _, diags = link_texts(tmp_path, SHORT_PACK % (pay, "3 grain"))
    assert [d.message for d in diags.items if d.severity == "error"] == [message]


# ------------------------------------------------------------------------------------------- extending a one_of

@BOTH
@pytest.mark.parametrize(("roots", "labels"), [
    (["limits"], ["grain", "coins", "gems"]),
    (["limits.more"], ["grain", "gems", "star"]),
    (["limits.other"], ["grain", "coins", "gems", "rest"]),
    (["limits.more", "limits.other"], ["grain", "gems", "star", "rest"]),
    (["limits.other", "limits.more"], ["grain", "gems", "rest", "star"]),
    (["limits.last"], ["gems", "rest", "grain"]),
])
def test_added_options_come_after_in_requires_order(mode: Callable[[Rules], Rules], roots: list[str],
                                                   labels: list[str]) -> None:
    g = game(mode, *roots, counters={"p1.coins": 1, "p1.stamina": 1})
    assert options_asked(g, "harvest") == labels


BASE = """
module: base
title: Base
counters:
  a: {per: player}
actions:
  pick:
    title: Pick
    do:
      - step: first
        do:
          - one_of: {options: {x: ["me.a += 1"], y: ["me.a += 2"]}}
      - one_of: {options: {z: ["me.a += 3"], w: ["me.a += 4"]}}
  plain:
    title: Plain
    do: ["me.a += 1"]
"""
SIDE = """
module: side
title: Side
requires: [base]
extend:
  actions.pick.first: {one_of: {options: {v: ["me.a += 5"]}}}
"""


@pytest.mark.parametrize(("entry", "code", "message"), [
    ("actions.pick: {one_of: {drop: [x]}}", "E428",
     "'actions.pick' holds 2 one_of blocks, so which one to extend is unclear"),
    ("actions.plain: {one_of: {drop: [x]}}", "E428", "'actions.plain' holds no one_of to extend"),
    ("actions.pick.first: {one_of: {drop: [x, y]}}", "E428", "'actions.pick.first' would have no option left"),
    ("actions.pick.frist: {one_of: {drop: [x]}}", "E406", "step 'frist' of 'actions.pick' does not exist"),
    ("actions.pik.first: {one_of: {drop: [x]}}", "E406", "extend target 'actions.pik.first' does not exist"),
    ("actions.pick.first: {one_of: {drop: [q]}}", "E429", "'actions.pick.first' has no option 'q' to drop"),
    ("actions.pick.first: {one_of: {drop: [v]}}", "E429", "'actions.pick.first' has no option 'v' to drop"),
    ("actions.pick.first: {one_of: {options: {y: []}}}", "E430",
     "'actions.pick.first' already has an option 'y' (from base)"),
    ("actions.pick.first: {one_of: {options: {v: []}}}", "E430",
     "'actions.pick.first' already has an option 'v' (from side)"),
    ("actions.pick.first: {one_of: {options: {a: ['me.b += 1']}}}", "E401", "a player has no counter 'b'"),
    ("actions.pick.first: {one_of: {}}", "E201", ""),
])
def test_extending_a_one_of_wrongly_is_refused_at_the_entry(tmp_path: Path, entry: str, code: str,
                                                             message: str) -> None:
    ext = f"module: ext\ntitle: Ext\nrequires: [base]\nextend:\n  {entry}\n"
    _, diags = link_texts(tmp_path, BASE, SIDE, ext, roots=["side", "ext"] if "v" in entry else ["ext"])
    errors = [d for d in diags.items if d.severity == "error"]
    assert errors and errors[0].code == code, [(d.code, d.message) for d in errors]
    assert message in errors[0].message
    assert errors[0].span.file.endswith("m2.yaml") and errors[0].span.line == 5


def test_sibling_modules_may_drop_one_option_both(tmp_path: Path) -> None:
    one, two = (f"module: {m}\ntitle: {m}\nrequires: [base]\nextend:\n  actions.pick.first: {{one_of: {{drop: [x]}}}}\n"
                for m in ("one", "two"))
    rules, diags = link_texts(tmp_path, BASE, one, two, roots=["one", "two"])
    assert not diags.items
    g = Game(rules, 1)
    g.setup()
    g.act("p1", "pick", decider=ScriptedDecider(["z"]))  # only y is left in the first: not asked
    assert g.state.counters["p1.a"] == 5


def test_explain_says_what_limits_absorb_the_triggers_on_it_and_the_shortfall() -> None:
    modules = load_modules(sorted(PACK.glob("*.yaml")), Diagnostics())
    text = explain.render_text(explain.build(modules, ["limits.last"]))
    assert "Each player has stars, starting at 0, at most 10 (a gain above it stops there)." in text
    assert "Each player has stored, starting at 0, at most 5 (the excess goes to spare)." in text
    assert "Each player has stamina, starting at 3; a loss below its floor stops at the floor." in text
    assert ("Each player has stock of each of red, blue, starting at 0; a gain above a limit stops there; red at "
            "most 3.") in text
    assert "The part of a cost's grain you lack may be paid with 2 coins for each 1 grain." in text
    assert ("Fame instead  [triggers.fame_instead]\n  When the cap of stars absorbs part of a gain (the excess is the "
            "amount it absorbs).\n  Add excess to your fame.\n") in text
    assert "When the floor of stamina absorbs part of a loss" in text and "Only if excess is at least 2." in text
    assert ("  The module limits.more adds star and drops coins among the options.\n"
            "  The module limits.other adds rest among the options.\n") in text
    # the extended choice reads as the composed game has it: gems, rest, then the re-added grain
    assert text.index("      Gems (only if") < text.index("      Rest (only if") < text.index("      Grain:\n")


@pytest.mark.parametrize(("on", "body", "found"), [
    ("{overflow: kept}", "me.kept += 1", True),
    ("{overflow: kept}", "me.plain += 1", False),
    ("{underflow: open}", "me.open -= 1", True),
    ("{underflow: open}", "me.open += 1", False),
])
def test_check_finds_a_trigger_that_feeds_the_limit_it_watches(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              on: str, body: str, found: bool) -> None:
    text = (LIMIT_PACK % ("discard", on)).replace("  open:  {per: player, min: null,", "  open:  {per: player,")
    write_modules(tmp_path, text.replace("do: []", f'do: ["{body}"]'))
    main(["check", "--format", "json", str(tmp_path)])
    codes = [d["code"] for d in json.loads(capsys.readouterr().out)]
    assert ("E850" in codes) == found, codes


# ------------------------------------------------------------------------------------------- a cost's own shortfall

def test_lacking_parses_as_a_part_of_one_cost_term() -> None:
    cost = parse("4 wood lacking 2 coins each + 1 gems[any] or 3 coins", "cost")
    first = cost.alternatives[0]
    assert isinstance(first, s.CostSum)
    wood, gems = first.terms
    assert (wood.counter, wood.lacking and wood.lacking.counter, gems.lacking) == ("wood", "coins", None)
    assert parse("lacking + each", "expr") == s.BinOp((1, 9), "+", s.Name((1, 1), "lacking"), s.Name((1, 11), "each"))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 6), st.integers(0, 10), st.sampled_from([interpreted, compiled]))
def test_a_lacking_term_pays_the_wood_held_and_coins_for_the_rest(wood: int, coins: int,
                                                                  mode: Callable[[Rules], Rules]) -> None:
    g = game(mode, counters={"p1.wood": wood, "p1.coins": coins})
    lack = max(0, 4 - wood)
    payable = coins >= 2 * lack
    g.act("p1", "check_wood", decider=ScriptedDecider([]))
    assert g.state.counters["p1.goods"] == (10 if payable else 0)
    assert any(m["action"] == "buy_with_wood" for m in g.legal_actions("p1")) == payable
    before = g.state.dumps()
    if payable:
        g.act("p1", "buy_with_wood", decider=ScriptedDecider([]))
        assert (g.state.counters["p1.wood"], g.state.counters["p1.coins"]) == (wood - (4 - lack), coins - 2 * lack)
    else:
        with pytest.raises(BoardrulesError) as refused:
            g.act("p1", "buy_with_wood", decider=ScriptedDecider([]))
        assert refused.value.code == "E502" and g.state.dumps() == before


@pytest.mark.parametrize(("cost", "code", "message"), [
    ("3 gems[different] lacking 2 coins each", "E402", "one each of several keys has no one part to lack"),
    ("3 grain lacking 2 coin each", "E401", "unknown counter 'coin'"),
    ("3 grain lacking 2 coins", "E301", "cost ends too early"),
    ("2 hours lacking 2 coins each", "E402", "a marker's spaces has no one part to lack"),
])
def test_lacking_terms_that_do_not_fit_are_refused(tmp_path: Path, cost: str, code: str, message: str) -> None:
    text = SHORT_PACK.replace('  s: {pay: "%s", with: "2 coins", shortfall: true}\n', "").replace("substitutes:\n", "")
    text += "tracks:\n  clock: {spaces: 6, markers: {hours: {start: 6, per: player}}}\n"
    _, diags = link_texts(tmp_path, text % cost)
    errors = [(d.code, d.message) for d in diags.items if d.severity == "error"]
    assert errors and errors[0][0] == code and message in errors[0][1], errors


def test_a_substitute_says_shortfall_true_not_lacking(tmp_path: Path) -> None:
    _, diags = link_texts(tmp_path, SHORT_PACK % ("1 grain lacking 1 coins each", "3 grain"))
    assert [d.message for d in diags.items] == [
        "'lacking' belongs in a cost; a substitute says it with shortfall: true"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["x", "y", "z"]), unique=True), st.lists(st.sampled_from(["u", "v", "x", "y"]),
                                                                         unique=True))
def test_any_extension_keeps_the_rest_in_order_and_appends_the_added(tmp_path_factory: pytest.TempPathFactory,
                                                                      drop: list[str], add: list[str]) -> None:
    base = BASE.replace('{x: ["me.a += 1"], y: ["me.a += 2"]}', '{x: ["me.a += 1"], y: ["me.a += 2"], z: []}')
    options = "{" + ", ".join(f"{label}: []" for label in add) + "}"
    change = ", ".join(([f"drop: [{', '.join(drop)}]"] if drop else []) + ([f"options: {options}"] if add else []))
    ext = f"module: ext\ntitle: Ext\nrequires: [base]\nextend:\n  actions.pick.first: {{one_of: {{{change}}}}}\n"
    rules, diags = link_texts(tmp_path_factory.mktemp("e"), base, ext, roots=["ext"])
    errors = {d.code for d in diags.items}
    kept = [x for x in ["x", "y", "z"] if x not in drop]
    if not drop and not add:
        assert errors == {"E201"}  # an empty change says nothing
    elif any(label in kept for label in add):
        assert errors == {"E430"}
    elif not kept and not add:
        assert errors == {"E428"}
    else:
        assert not errors
        step = rules.actions["pick"].body[0]
        assert [label for label, _, _ in step.body[0].options] == kept + add
