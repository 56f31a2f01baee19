"""The whole-pack analyses of `boardrules check`: each check fires on a planted mistake and stays silent on the
corrected rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_modules

from boardrules.analysis import check_pack
from boardrules.diagnostics import Diagnostic, Diagnostics, Span
from boardrules.language.pack import Pack, load_modules
from boardrules.tools.scenario import ScenarioRunner


def check(tmp_path: Path, *texts: str) -> list[Diagnostic]:
    diags = Diagnostics()
    check_pack(Pack(tmp_path, write_modules(tmp_path, *texts)), diags)
    return [d for d in diags.sorted() if d.code != "W601"]


def found(tmp_path: Path, *texts: str) -> list[tuple[str, int, str]]:
    return [(d.code, d.span.line if d.span else 0, d.message) for d in check(tmp_path, *texts)]


HEAD = """
module: t
title: T
players: {min: 1, max: 4}
"""

# ---------------------------------------------------------------- read/write

RW_CASES = [
    ("W801", "counters:\n  coins: {per: player, initial: 3}\n  favour: {per: player}\n"
     "actions:\n  a: {cost: '1 coins', do: []}\n",
     "counter 'favour' is declared but never used", ("favour: {per: player}", "favour: {per: player, input: true}")),
    ("W802", "counters:\n  points: {per: player}\nactions:\n  a: {do: ['me.points += 1']}\n",
     "counter 'points' is written but never read", ("{per: player}", "{per: player, output: true}")),
    ("W803", "counters:\n  favour: {per: player}\nactions:\n  a: {allowed_if: me.favour > 0, do: []}\n",
     "counter 'favour' is read, but no rule or setup ever sets it and it starts at 0",
     ("{per: player}", "{per: player, input: true}")),
    ("W804", "counters:\n  wood: {per: player}\nactions:\n  a: {cost: '2 wood', do: []}\n",
     "this cost is paid in 'wood', which starts at 0 and no rule or setup ever increases",
     ("{per: player}", "{per: player, initial: 3}")),
]


def fires_then_silent(tmp_path: Path, code: str, body: str, message: str, fix: tuple[str, str]) -> None:
    """`body` gets exactly one finding, `code` with `message`; with `fix` applied it gets none."""
    got = found(tmp_path / "bad", HEAD + body)
    assert [(c, m) for c, _, m in got] == [(code, message)]
    assert fix[0] in body
    assert found(tmp_path / "good", HEAD + body.replace(*fix)) == []


@pytest.mark.parametrize(("code", "body", "message", "fix"), RW_CASES)
def test_read_write(tmp_path: Path, code: str, body: str, message: str, fix: tuple[str, str]) -> None:
    fires_then_silent(tmp_path, code, body, message, fix)


def test_properties_zones_and_events_are_tracked(tmp_path: Path) -> None:
    body = """
pieces:
  worker: {properties: {age: {type: int}, mood: {type: symbol}}}
zones:
  farm: {per: player}
  yard: {}
events:
  rang: {}
actions:
  a: {do: ['create worker in me.farm with age = 2', 'emit rang()']}
  b: {allowed_if: count(yard) > 0, do: []}
"""
    got = found(tmp_path, HEAD + body)
    codes = {(c, m.split("'")[1]) for c, _, m in got}
    assert codes == {("W802", "age"), ("W801", "mood"), ("W802", "rang"), ("W803", "yard")}


# ---------------------------------------------------------------- events and triggers

EVENTS = """
counters:
  n: {per: game, output: true}
  coins: {per: player, initial: 5, input: true}
events:
  ping: {}
  pong: {}
"""


def test_a_trigger_on_an_event_nothing_emits(tmp_path: Path) -> None:
    body = EVENTS + """triggers:
  t: {on: ping, do: ['n += 1']}
  u: {on: pong, do: ['n += 1']}
actions:
  a: {do: ['emit pong()']}
"""
    fires_then_silent(tmp_path, "W811", body, "triggers.t runs on 'ping', but no rule emits it",
                      ("emit pong()", "emit pong()', 'emit ping()"))


def test_defer_until_an_event_nothing_emits(tmp_path: Path) -> None:
    body = EVENTS + """triggers:
  t: {on: ping, do: ['n += 1']}
actions:
  a: {do: ['defer ping() until pong']}
  b: {do: []}
"""
    fires_then_silent(tmp_path, "W812", body,
                      "this deferred event waits for 'pong', which no rule emits, so it never runs",
                      ("b: {do: []}", "b: {do: ['emit pong()']}"))


CYCLE = EVENTS + """
triggers:
  a: {on: ping, do: ['n += 1', 'emit pong()']}
  b: {on: pong, do: ['call again()']}
procedures:
  again: {do: ['emit ping()']}
actions:
  start: {do: ['emit ping()']}
"""


def test_an_unbounded_trigger_cycle_names_every_rule(tmp_path: Path) -> None:
    (d,) = check(tmp_path, HEAD + CYCLE)
    assert d.code == "E813"
    assert d.message == "these rules can run each other without bound: procedures.again, triggers.a, triggers.b"
    assert d.span is not None and d.span.line == (HEAD + CYCLE).splitlines().index("  a: {on: ping, do: ['n += 1', "
                                                                            "'emit pong()']}") + 1


@pytest.mark.parametrize("bound", ["'limit a to 3 per action', 'emit pong()'", "'pay 1 coins', 'emit pong()'",
                                   "{may: {do: ['emit pong()']}}"])
def test_a_cycle_broken_by_a_limit_a_cost_or_a_may_is_accepted(tmp_path: Path, bound: str) -> None:
    assert check(tmp_path, HEAD + CYCLE.replace("'emit pong()'", bound)) == []


def test_a_countdown_through_an_event_parameter_is_accepted(tmp_path: Path) -> None:
    body = """
counters:
  n: {per: game, output: true}
events:
  echo: {params: {k: int}}
triggers:
  back: {on: echo, if: k > 0, do: ['n += 1', 'emit echo(k - 1)']}
actions:
  a: {do: ['emit echo(3)']}
"""
    assert check(tmp_path / "ok", HEAD + body) == []
    assert [d.code for d in check(tmp_path / "bad", HEAD + body.replace("k - 1", "k + 1"))] == ["E813"]


# ---------------------------------------------------------------- module combinations and follow-on errors

BASE_MODULE = """
module: b
title: B
players: {min: 1, max: 4}
counters:
  coins: {per: player, initial: 3, input: true, output: true}
  gems: {per: player, input: true, output: true}
"""


def test_two_modules_setting_the_player_counts_without_requiring_each_other(tmp_path: Path) -> None:
    x = "module: x\ntitle: X\nrequires: [b]\nplayers: {min: 1, max: 1}\n"
    y = "module: y\ntitle: Y\nrequires: [b]\nplayers: {min: 2, max: 2}\n"
    got = found(tmp_path / "bad", BASE_MODULE, x, y)
    assert [(c, line) for c, line, _ in got] == [("E831", 4), ("E831", 4)]
    assert got[0][2] == "x sets 'players', and so does y; neither requires the other"
    files = {d.span.file.rsplit("/", 1)[1] for d in check(tmp_path / "bad", BASE_MODULE, x, y) if d.span}
    assert files == {"m1.yaml", "m2.yaml"}
    assert found(tmp_path / "good", BASE_MODULE, x, y.replace("requires: [b]", "requires: [x]")) == []


def test_a_name_from_a_module_that_is_not_required_says_which_to_require(tmp_path: Path) -> None:
    c = "module: c\ntitle: C\nactions:\n  a: {cost: '1 coins', do: []}\n"
    (d,) = check(tmp_path / "one", BASE_MODULE, c)
    assert (d.code, d.message, d.hint) == ("E401", "unknown counter 'coins'",
                                          "'coins' is declared in b: add b to the requires of c")
    many = c + "  z: {cost: '1 gems', do: ['me.coins += 1']}\n"
    (d,) = check(tmp_path / "many", BASE_MODULE, many)
    assert d.message == "c uses names declared in b (coins, gems), but does not require it"
    assert d.span is not None and d.span.line == 1
    assert check(tmp_path / "good", BASE_MODULE, c.replace("title: C\n", "title: C\nrequires: [b]\n")) == []


def test_one_unknown_name_used_in_many_places_is_one_error(tmp_path: Path) -> None:
    body = BASE_MODULE + "actions:\n  a: {do: ['me.coinz += 1', 'me.coinz += 2']}\n  b: {do: ['me.coinz -= 1']}\n" \
        "  c: {cost: '1 coins', do: []}\n"
    (d,) = check(tmp_path, body)
    assert d.code == "E401" and d.span is not None and d.span.line == 9
    assert d.hint is not None and "'coinz' is also used at" in d.hint and ":10:" in d.hint


def test_a_typo_in_a_declaration_is_reported_at_the_declaration(tmp_path: Path) -> None:
    body = HEAD + "counters:\n  coinz: {per: player, initial: 1}\nactions:\n" \
        "  a: {cost: '1 coins', do: ['me.coins += 2']}\n"
    (d,) = check(tmp_path, body)
    assert (d.code, d.span.line if d.span else 0) == ("E401", 6)
    assert d.message == "'coinz' is declared here, but the rules say 'coins' (2 times)"


def test_a_line_that_fails_still_binds_its_name(tmp_path: Path) -> None:
    body = BASE_MODULE + "actions:\n  a: {do: ['let n = me.coinz', 'me.coins += n', 'choose c from me.nope', " \
        "'me.gems += c', 'let k = 1 +', 'me.gems += k']}\n"
    got = found(tmp_path, body)
    assert [m for _, _, m in got] == ["a player has no counter or zone 'coinz'",
                                      "a player has no counter or zone 'nope'", "effect line ends too early"]


def test_a_cost_that_fails_is_one_error_not_one_per_use(tmp_path: Path) -> None:
    body = BASE_MODULE + "costs:\n  fee: '2 coinz'\nactions:\n  a: {cost: fee, do: []}\n  b: {do: ['pay fee']}\n"
    assert [m for _, _, m in found(tmp_path, body)] == ["unknown counter 'coinz'"]


# ---------------------------------------------------------------- scenarios checked at check time

MARKET = HEAD + """
sets:
  fruit: [apple, pear]
counters:
  coins: {per: player, initial: 3}
  basket: {per: player, keys: fruit, output: true}
zones:
  stall: {per: player}
pieces:
  crate: {properties: {fruit: {type: symbol, output: true}}}
actions:
  buy:
    params: {what: symbol}
    cost: "1 coins"
    do:
      - me.basket[what] += 1
      - one_of: {options: {keep: [], share: ['me.basket[what] -= 1']}}
  restock: {do: ['create crate in me.stall with fruit = apple'], allowed_if: count(me.stall) < 3}
"""

GOOD_SCENARIO = """
scenario: buying
modules: [t]
players: 2
state:
  counters:
    p1.coins: 2
  pieces:
    - {id: c1, kind: crate, zone: p1.stall, props: {fruit: pear}}
steps:
  - {action: buy, player: p1, params: {what: apple}, answers: [keep]}
  - {action: restock, player: p2}
  - {end_turn: p1}
expect:
  p1.basket[apple]: 1
  count(p2.stall): 1
"""

SCENARIO_MISTAKES = [
    ("modules: [t]", "modules: [tt]", "unknown module 'tt'"),
    ("players: 2", "players: 5", "5 players, but these modules are for 1 to 4"),
    ("action: buy,", "action: buyy,", "unknown action 'buyy'"),
    ("params: {what: apple}", "params: {wat: apple}", "'buy' has no parameter 'wat'"),
    ("params: {what: apple}", "params: {what: aple}", "parameter 'what' of 'buy' is a symbol, and 'aple' is not "
                                                      "declared"),
    ("answers: [keep]", "answers: [kept]", "the answer 'kept' is no option, symbol or player the modules know"),
    ("p1.coins: 2", "p1.coinz: 2", "a player has no counter or zone 'coinz'"),
    ("kind: crate", "kind: crat", "unknown piece kind 'crat'"),
    ("zone: p1.stall", "zone: p1.stal", "unknown zone 'stal'"),
    ("props: {fruit: pear}", "props: {fruits: pear}", "'crate' has no property 'fruits'"),
    ("p1.basket[apple]: 1", "p1.basket[aple]: 1", "unknown name 'aple'"),
    ("{end_turn: p1}", "{end_turn: p3}", "there is no player 'p3' in a 2-player game"),
    ("answers: [keep]}", "answers: [keep], expect_error: E599}", "'E599' is not a diagnostic code"),
]
# Mistakes the scenario schema finds (E201), in check as in test.
SCHEMA_MISTAKES = [
    ("answers: [keep]}", "answers: [keep], expect_error: E5002}", "'E5002' does not have the expected form "
                                                                 "(^[EW][0-9]{3}$)"),
    ("answers: [keep]}", "answers: [keep], expect_error: 501}", "expected string or mapping, got integer 501"),
]


def _scenario_pack(root: Path, scenario: str) -> list[Diagnostic]:
    write_modules(root, MARKET)
    (root / "scenarios").mkdir()
    path = root / "scenarios" / "s.yaml"
    path.write_text(scenario, encoding="utf-8")
    diags = Diagnostics()
    check_pack(Pack(root, [root / "m0.yaml"], [path]), diags)
    return [d for d in diags.sorted() if d.code != "W601"]


def test_a_correct_scenario_checks_clean(tmp_path: Path) -> None:
    assert _scenario_pack(tmp_path, GOOD_SCENARIO) == []


@pytest.mark.parametrize(("old", "new", "message"), SCENARIO_MISTAKES)
def test_scenario_mistakes_are_found_at_check_time(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert old in GOOD_SCENARIO
    bad = GOOD_SCENARIO.replace(old, new)
    (d,) = _scenario_pack(tmp_path, bad)
    assert (d.code, d.message) == ("E841", message)
    line = next(i for i, text in enumerate(bad.splitlines(), 1) if new in text)
    assert d.span is not None and d.span.file.endswith("s.yaml") and d.span.line == line


@pytest.mark.parametrize(("old", "new", "message"), SCENARIO_MISTAKES + SCHEMA_MISTAKES)
def test_check_and_test_report_a_scenario_mistake_alike(tmp_path: Path, old: str, new: str, message: str) -> None:
    checked = _scenario_pack(tmp_path, GOOD_SCENARIO.replace(old, new))
    result = ScenarioRunner(load_modules([tmp_path / "m0.yaml"], Diagnostics())).run_file(tmp_path / "scenarios"
                                                                                          / "s.yaml")
    placed = [(d.code, d.span, d.message) for d in checked]
    assert [(d.code, d.span, d.message) for d in result.diagnostics] == placed
    (d,) = checked
    assert (d.code, d.message) == ("E201" if (old, new, message) in SCHEMA_MISTAKES else "E841", message)
    assert f"error {d.code}: {message}" in "\n".join(result.failures)


def test_an_unknown_scenario_key_is_e201(tmp_path: Path) -> None:
    (d,) = _scenario_pack(tmp_path, GOOD_SCENARIO.replace("expect:", "expcet:"))
    assert (d.code, d.message, d.hint) == ("E201", "unknown key 'expcet' in scenario", "did you mean 'expect'?")


# ---------------------------------------------------------------- ranges

RANGES = """
values:
  cap: {by_players: {1: 3, 2: 3, 3: 4, 4: 4}}
sets:
  goods: [wine, cloth]
counters:
  coins: {per: player, initial: 2, max: 5, input: true, output: true}
  stock: {per: player, keys: goods, initial: 1, output: true}
  purse: {per: player, initial: 1, max: cap, output: true}
zones:
  shelf: {per: player, capacity: 2, input: true}
"""

RANGE_CASES = [
    ("W821", "  a: {allowed_if: me.coins > 9, do: []}\n", "this comparison can never hold: the left side is from 0 to "
     "5, the right side always 9", ("me.coins > 9", "me.coins > 4")),
    ("W821", "  a: {allowed_if: count(me.shelf) >= 3, do: []}\n", "this comparison can never hold: the left side is "
     "from 0 to 2, the right side always 3", ("count(me.shelf) >= 3", "count(me.shelf) >= 2")),
    ("W822", "  a: {do: [{if: player_count <= 4, then: ['me.coins += 1']}]}\n", "this comparison always holds: the "
     "left side is from 1 to 4, the right side always 4", ("player_count <= 4", "player_count <= 3")),
    ("W822", "  a: {do: ['require me.coins >= 0 else \"poor\"']}\n", "this comparison always holds: the left side is "
     "from 0 to 5, the right side always 0", ("me.coins >= 0", "me.coins >= 1")),
    ("E823", "  a: {cost: '3 stock[different]', do: []}\n", "3 different keys of 'stock' are asked, but it has only 2",
     ("3 stock", "2 stock")),
    ("E824", "  a: {cost: '6 coins', do: []}\n", "this cost asks 6 coins, but 'coins' never holds more than 5",
     ("6 coins", "5 coins")),
    ("E824", "  a: {cost: '4 purse', do: []}\n", "this cost asks 4 purse, but 'purse' never holds more than 3 with 1, "
     "2 player(s)", ("4 purse", "3 purse")),
    ("E825", "  a: {do: ['limit a to 0 per turn']}\n", "limit a to 0 allows no use at all",
     ("to 0 per", "to 1 per")),
    ("E825", "  a: {do: ['create 3 crate in me.shelf']}\n", "this creates 3 crate in 'shelf', which holds at most 2",
     ("create 3", "create 2")),
]


@pytest.mark.parametrize(("code", "action", "message", "fix"), RANGE_CASES)
def test_ranges(tmp_path: Path, code: str, action: str, message: str, fix: tuple[str, str]) -> None:
    body = RANGES + "pieces:\n  crate: {properties: {}}\nactions:\n" + action
    fires_then_silent(tmp_path, code, body, message, fix)


def test_a_counter_without_a_floor_can_go_below_zero(tmp_path: Path) -> None:
    # `min: null` is no floor: a guard on a debt below 0 can hold (it was judged from 0 up, a false W821), while
    # the default floor 0 still makes it impossible.
    body = RANGES.replace("zones:", "  debt: {per: player, min: null, input: true, output: true}\nzones:") + \
        "actions:\n  a: {allowed_if: me.debt < 0, do: []}\n"
    assert found(tmp_path / "open", HEAD + body) == []
    floored = body.replace("min: null, ", "")
    assert [c for c, _, _ in found(tmp_path / "floored", HEAD + floored)] == ["W821"]


@pytest.mark.parametrize(("counter", "message", "fix"), [
    ("{per: player, min: 3, max: 2, input: true, output: true}", "counter 'c' has min 3 above its max 2",
     ("min: 3", "min: 0")),
    ("{per: player, initial: 7, max: 5, input: true, output: true}", "counter 'c' starts at 7, outside its range",
     ("initial: 7", "initial: 5")),
])
def test_counter_ranges_that_contradict(tmp_path: Path, counter: str, message: str, fix: tuple[str, str]) -> None:
    fires_then_silent(tmp_path, "E825", f"counters:\n  c: {counter}\n", message, fix)


# ---------------------------------------------------------------- types

TYPES = """
sets:
  colours: [red, blue]
counters:
  coins: {per: player, initial: 1, input: true, output: true}
pieces:
  gem: {properties: {colour: {type: symbol, input: true}}}
zones:
  pile: {input: true}
events:
  paid: {params: {amount: int}}
procedures:
  give: {params: {n: int}, do: ['me.coins += n']}
triggers:
  t: {on: paid, do: ['me.coins += amount']}
"""

TYPE_CASES = [
    ("a: {allowed_if: me.coins == red, do: []}", "'==' compares a number with a symbol: they are never equal",
     ("me.coins == red", "me.coins == 1")),
    ("a: {do: [{for: g in pile, do: [{if: 'g.colour == \"gren\"', then: ['me.coins += 1']}]}]}",
     "'gren' is not a declared symbol, so this is never equal", ('"gren"', '"red"')),
    ("a: {allowed_if: me.coins in colours, do: []}", "a number is never in a list of symbols",
     ("me.coins in colours", "red in colours")),
    ("a: {do: ['call give(red)']}", "parameter 'n' of procedure 'give' is a number, but this is a symbol",
     ("give(red)", "give(2)")),
    ("a: {do: ['emit paid(blue)']}", "parameter 'amount' of event 'paid' is a number, but this is a symbol",
     ("paid(blue)", "paid(3)")),
    ("a: {do: [{for: g in pile, do: [{match: g.colour, cases: {red: [], bleu: []}}]}]}",
     "'bleu' is not a declared symbol, so this case never matches", ("bleu", "blue")),
    ("a: {do: [{match: me.coins, cases: {1: [], many: []}}]}", "this match is on a number, but 'many' is not one",
     ("many", "2")),
]


@pytest.mark.parametrize(("action", "message", "fix"), TYPE_CASES)
def test_types(tmp_path: Path, action: str, message: str, fix: tuple[str, str]) -> None:
    code = "E401" if "case never matches" in message else "E402"
    body = TYPES + "actions:\n  z: {do: ['call give(1)', 'emit paid(1)']}\n  " + action + "\n"
    fires_then_silent(tmp_path, code, body, message, fix)


# ---------------------------------------------------------------- numbers against their sources


def test_numbers_in_quotes() -> None:
    from boardrules.analysis.sources import quoted_numbers

    assert quoted_numbers('rules.txt, "Setup" 2: "roll the four-sided die, then take 2 tiles"') == {4, 2}
    assert quoted_numbers("002_3bf3a9902b2b3705.txt, ranks") == set()
    assert quoted_numbers('r.txt, "ranks 1 to 6, twice"') == {1, 6, 2}


SOURCE_CASES = [
    ("dice:\n  d4: {sides: 6, source: 'r.txt, \"roll the four-sided die\"'}\nactions:\n  a: {do: ['roll d4 as r']}\n",
     "dice.d4 says 6, but its source quotes 4", ("sides: 6", "sides: 4")),
    ("values:\n  bonus: {value: 3, source: 'r.txt, \"two points per tile\"'}\ncounters:\n"
     "  points: {per: player, output: true}\nactions:\n  a: {do: ['me.points += bonus']}\n",
     "values.bonus says 3, but its source quotes 2", ("value: 3", "value: 2")),
    ("dice:\n  d4: {sides: 6}\nactions:\n  a: {do: ['roll d4 as r']}\n", "dice.d4 has 6 sides, but its name says 4",
     ("sides: 6", "sides: 4")),
    ("counters:\n  points: {per: player, output: true}\nactions:\n"
     "  a: {source: 'r.txt, \"score two points\"', do: ['me.points += 3']}\n",
     "actions.a uses 3, but its source quotes 2", ("+= 3", "+= 2")),
]


@pytest.mark.parametrize(("body", "message", "fix"), SOURCE_CASES)
def test_numbers_against_their_sources(tmp_path: Path, body: str, message: str, fix: tuple[str, str]) -> None:
    fires_then_silent(tmp_path, "W851", body, message, fix)


def test_a_failing_analysis_is_an_internal_error_and_the_others_still_run(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import boardrules.analysis as analysis

    def broken(facts: object, diags: Diagnostics) -> None:
        raise ValueError("boom")

    broken.__module__ = "boardrules.analysis.broken"
    monkeypatch.setattr(analysis, "ANALYSES", (broken, *analysis.ANALYSES))
    body = "counters:\n  points: {per: player}\nactions:\n  a: {do: ['me.points += 1']}\n"
    got = [(c, m) for c, _, m in found(tmp_path, HEAD + body)]
    assert got == [("E900", "internal error in the broken analysis: ValueError: boom"),
                   ("W802", "counter 'points' is written but never read")]


@pytest.mark.parametrize(("line", "message"), [
    ("'take buy(red)'", "parameter 'n' of action 'buy' is a number, but this is a symbol"),
    ("{if: 'can(buy, red)', then: []}", "parameter 'n' of action 'buy' is a number, but this is a symbol"),
])
def test_action_arguments_against_their_parameters(tmp_path: Path, line: str, message: str) -> None:
    body = TYPES + "actions:\n  z: {do: ['call give(1)', 'emit paid(1)']}\n  buy: {params: {n: int}, do: []}\n" \
        f"  a: {{do: [{line}]}}\n"
    fires_then_silent(tmp_path, "E402", body, message, ("red)", "2)"))


def test_a_cycle_through_an_action_taken_by_a_trigger(tmp_path: Path) -> None:
    body = EVENTS.replace("  pong: {}\n", "") + "triggers:\n  t: {on: ping, do: ['take go()']}\nactions:\n" \
        "  go: {do: ['n += 1', 'emit ping()']}\n"
    (d,) = check(tmp_path / "bad", HEAD + body)
    assert (d.code, d.message) == ("E813", "these rules can run each other without bound: actions.go, triggers.t")
    assert check(tmp_path / "good", HEAD + body.replace("'take go()'", "{may: {do: ['take go()']}}")) == []


# ---------------------------------------------------------------- no false alarms: reads outside rule bodies

SIBLING_BASE = """
module: b
title: B
players: {min: 1, max: 4}
counters:
  coins: {per: player, initial: 2}
  points: {per: player, output: true}
zones:
  pile: {per: game}
actions:
  a: {cost: '1 coins', do: ['me.points += 1']}
  c: {do: ['me.coins += 1', 'create token in pile']}
pieces:
  token: {}
"""


@pytest.mark.parametrize(("x", "y"), [
    ("wrap:\n  actions.a: {after: ['me.points += 1']}\n", "wrap:\n  actions.c: {before: ['me.points += 1']}\n"),
    ("wrap:\n  actions.a: {after: ['me.points += 1']}\n", "wrap:\n  actions.a: {before: ['me.points += 1']}\n"),
    ("extend:\n  zones.pile: {capacity: 9}\n", "extend:\n  counters.coins: {max: 9}\n"),
    ("invariants:\n  x_ok: 'count(pile) >= 0'\n", "invariants:\n  y_ok: {check: 'me.coins >= 0', per: player}\n"),
    ("hidden:\n  pile: all\n", "hidden:\n  coins: others\n"),
])
def test_sibling_modules_may_each_add_hooks_extensions_invariants_and_hidden(tmp_path: Path, x: str, y: str) -> None:
    mx = "module: x\ntitle: X\nrequires: [b]\n" + x
    my = "module: y\ntitle: Y\nrequires: [b]\n" + y
    assert found(tmp_path, SIBLING_BASE, mx, my) == []


def test_reads_by_the_ranking_invariants_thresholds_overflow_and_extensions_count(tmp_path: Path) -> None:
    base = HEAD + """
values:
  goal: 10
  limit_value: 0
  room: 5
counters:
  points: {per: player}
  level: {per: player}
  coins: {per: player, initial: 1, max: 5, overflow: carry, carry_to: fame}
  fame: {per: player}
  stock: {per: game, initial: 3}
zones:
  pile: {per: game}
pieces:
  token: {}
triggers:
  milestone:
    on: {change: points, crosses: goal}
    do: ['me.coins += 1']
actions:
  gain: {cost: '1 coins', do: ['me.points += 1', 'me.level += 1', 'stock -= 1', 'create token in pile']}
flow:
  phases:
    play: {turns: {until: each_once}, actions: [gain]}
  end: {when: round_number > 3}
  ranking: [me.points, me.level, me.fame]
invariants:
  stock_ok: 'stock >= limit_value'
"""
    ext = "module: e\ntitle: E\nrequires: [t]\nextend:\n  zones.pile: {capacity: room}\n"
    assert found(tmp_path / "ok", base, ext) == []
    # The same pack without those reads: each one was what kept its name from a warning.
    bare = (base.replace("  ranking: [me.points, me.level, me.fame]\n", "").replace("crosses: goal", "crosses: 10")
            .replace("invariants:\n  stock_ok: 'stock >= limit_value'\n", "")
            .replace(", max: 5, overflow: carry, carry_to: fame", ""))
    got = {(c, m.split("'")[1]) for c, _, m in found(tmp_path / "bare", bare, ext.replace("room", "5"))}
    assert got == {("W801", "goal"), ("W801", "limit_value"), ("W801", "room"), ("W802", "level"),
                   ("W802", "stock"), ("W801", "fame")}


def test_a_piece_property_named_like_a_counter_is_not_a_use_of_the_counter(tmp_path: Path) -> None:
    body = """
counters:
  tally: {per: player}
pieces:
  token: {properties: {tally: {type: int, default: 0}}}
zones:
  pile: {per: game}
actions:
  a: {do: ['me.tally += 1', 'create token in pile']}
  b: {do: [choose t from pile, '$t.tally += 1', 'require $t.tally < 9 else "full"']}
"""
    got = found(tmp_path, HEAD + body)
    assert [(c, m) for c, _, m in got] == [("W802", "counter 'tally' is written but never read")]
    both = body.replace("'me.tally += 1'", "'me.tally += 1', 'require me.tally < 9 else \"full\"'")
    assert found(tmp_path / "read", HEAD + both) == []


@pytest.mark.parametrize(("default", "words"), [("0", "0"), ("false", "false")])
def test_a_property_with_a_default_is_not_said_to_have_none(tmp_path: Path, default: str, words: str) -> None:
    kind = "int" if default == "0" else "bool"
    body = f"""
pieces:
  token: {{properties: {{worn: {{type: {kind}, default: {default}}}}}}}
zones:
  pile: {{per: game}}
actions:
  a: {{do: ['create token in pile']}}
  b: {{do: [choose t from pile, 'require $t.worn == $t.worn else "never"']}}
"""
    got = [(c, m) for c, _, m in found(tmp_path, HEAD + body)]
    assert got == [("W803", f"property 'worn' is read, but no rule or setup ever sets it and it is always its "
                            f"default ({words})")]


# ---------------------------------------------------------------- the whole game: flow, triggers, loops, hooks

FLOW_RULES = """
counters:
  points: {per: player, output: true}
  market: {per: game, initial: 5, output: true}
actions:
  buy: {do: ['me.points += 1', 'market += 1']}
  rest: {do: ['me.points += 1']}
flow:
  phases:
    play:
      turns: {until: each_once}
      actions: [buy, rest]
  end:
    when: round_number > 4
  ranking: [me.points]
"""

WHOLE_GAME_CASES = [
    ("W852", FLOW_RULES.replace("actions: [buy, rest]", "actions: [buy]"),
     "action 'rest' is in no phase of the flow, and no rule takes it, so no player can ever take it",
     ("actions: [buy]", "actions: [buy, rest]")),
    ("W853", FLOW_RULES.replace("  end:", "    bonus:\n      if: round_number > 6\n      do: ['market += 1']\n  end:"),
     "phase 'bonus' never runs: its condition holds in no round the game reaches (the game ends by round 5)",
     ("round_number > 6", "round_number > 3")),
    ("W854", FLOW_RULES.replace("      actions: [buy, rest]", "      actions: [rest]\n    late:\n      if: "
                                "round_number > 2\n      turns: {until: each_once}\n      actions: [buy]")
     .replace("  buy: {do:", "  buy: {allowed_if: round_number == 1, do:"),
     "action 'buy' can never be taken in phase 'late': its guard contradicts the phase's condition",
     ("round_number == 1", "round_number == 3")),
    ("W855", FLOW_RULES.replace("round_number > 4", "market == 0"),
     "the end condition can never hold, so the game never ends by it", ("market += 1", "market -= 1")),
    ("W855", FLOW_RULES.replace("round_number > 4", "round_number >= 1"),
     "the game ends as soon as it starts: the end condition already holds once setup is done, so no phase ever runs",
     ("round_number >= 1", "round_number >= 2")),
    ("W855", FLOW_RULES.replace("round_number > 4", "market >= 5 or round_number > 9"),
     "the game ends as soon as it starts: the end condition already holds once setup is done, so no phase ever runs",
     ("market >= 5", "market >= 9")),
    ("W855", FLOW_RULES.replace("  market: {per: game, initial: 5, output: true}",
                                "  market: {per: game, keys: [wool, salt], initial: 5, output: true}")
     .replace("'market += 1'", "'market[wool] += 1'").replace("round_number > 4", "market[salt] < 2")
     .replace("counters:", "sets:\n  goods: [wool, salt]\ncounters:").replace("keys: [wool, salt]", "keys: goods"),
     "the end condition can never hold, so the game never ends by it", ("market[salt] < 2", "market[wool] > 9")),
    ("W855", FLOW_RULES.replace("round_number > 4", "position(sun) == 1 and round_number > 1")
     .replace("counters:", "tracks:\n  sky: {spaces: 6, markers: {sun: 2}}\ncounters:")
     .replace("'market += 1'", "'market += 1', 'advance sun by 1'"),
     "the end condition can never hold, so the game never ends by it",
     ("position(sun) == 1", "position(sun) == 6")),
    ("W855", FLOW_RULES.replace("round_number > 4", "not (market > 3) and round_number > 2"),
     "the end condition can never hold, so the game never ends by it", ("not (market > 3)", "not (market > 9)")),
    ("W856", FLOW_RULES.replace("ranking: [me.points]", "ranking: [me.points, me.fame]")
     .replace("  market: {", "  fame: {per: player, input: true}\n  market: {").replace("input: true", "input: false"),
     "the ranking key 'me.fame' reads fame, but no rule changes it, so it ranks nobody",
     ("  rest: {do: ['me.points += 1']}", "  rest: {do: ['me.points += 1', 'me.fame += 1']}")),
    ("W857", "counters:\n  points: {per: player, max: 20}\n  fame: {per: player, output: true}\ntriggers:\n"
     "  big: {on: {change: points, crosses: 25}, do: ['me.fame += 1']}\nactions:\n  a: {do: ['me.points += 2']}\n",
     "triggers.big waits for 'points' to cross 25, but it never holds more than 20", ("crosses: 25", "crosses: 15")),
    ("W857", "tracks:\n  road: {spaces: 10, markers: {runner: 1}}\ncounters:\n  fame: {per: game, output: true}\n"
     "triggers:\n  far: {on: {change: runner, crosses: 12}, do: ['fame += 1']}\nactions:\n"
     "  a: {do: ['advance runner by 1']}\n",
     "triggers.far waits for 'runner' to reach space 12, but its track 'road' has spaces 1 to 10",
     ("crosses: 12", "crosses: 9")),
    ("W866", "tracks:\n  road: {spaces: 10, markers: {cart: 3}}\ncounters:\n  fame: {per: game, output: true}\n"
     "triggers:\n  start: {on: {change: cart, crosses: 2}, do: ['fame += 1']}\nactions:\n"
     "  a: {do: ['advance cart by 2']}\n",
     "triggers.start waits for marker 'cart' to reach space 2, but it starts on space 3 and only moves forward on a "
     "straight track, so it never runs", ("crosses: 2", "crosses: 5")),
    ("W866", "tracks:\n  road: {spaces: 10, markers: {cart: 1}}\ncounters:\n  fame: {per: game, output: true}\n"
     "triggers:\n  far: {on: {change: cart, every: 3}, do: ['fame += 1']}\nactions:\n"
     "  a: {do: ['place cart at 7']}\n",
     "triggers.far counts the spaces marker 'cart' passes, but rules only place it (place passes no space), so it "
     "never runs", ("'place cart at 7'", "'advance cart by 6'")),
    ("W866", "tracks:\n  road: {spaces: 10, markers: {cart: 1}}\ncounters:\n  fame: {per: game, output: true}\n"
     "triggers:\n  moved: {on: {change: cart}, do: ['fame += 1']}\nactions:\n  a: {allowed_if: position(cart) < 9, "
     "do: []}\n",
     "triggers.moved runs when marker 'cart' moves, but no rule advances or places it, so it never runs",
     ("do: []}", "do: ['advance cart by 1']}")),
    ("W858", "counters:\n  coins: {per: player, initial: 5}\n  fame: {per: player, output: true}\ntriggers:\n"
     "  broke: {on: {change: coins, crosses: 0, direction: down}, do: ['me.fame += 1']}\nactions:\n"
     "  a: {allowed_if: me.coins < 9, do: ['me.coins += 1']}\n",
     "triggers.broke counts 'coins' going down, but no rule ever moves it down, so it never runs",
     ("do: ['me.coins += 1']", "do: ['me.coins += 1'], cost: '2 coins'")),
    ("W858", "counters:\n  coins: {per: player, initial: 5}\n  fame: {per: player, output: true}\nprocedures:\n"
     "  gain: {params: {n: int}, do: ['me.coins += n']}\ntriggers:\n"
     "  broke: {on: {change: coins, crosses: 0, direction: down}, do: ['me.fame += 1']}\nactions:\n"
     "  a: {allowed_if: me.coins < 9, do: ['call gain(2)']}\n  b: {allowed_if: me.coins < 9, do: ['call gain(1)']}\n",
     "triggers.broke counts 'coins' going down, but no rule ever moves it down, so it never runs",
     ("'call gain(1)'", "'call gain(-1)'")),
    ("W858", "counters:\n  points: {per: player, output: true}\n  fame: {per: player, output: true}\nzones:\n"
     "  yard: {per: player}\npieces:\n  hen: {properties: {}}\ntriggers:\n"
     "  shame: {on: {change: points, crosses: 0, direction: down}, do: ['me.fame += 1']}\nactions:\n"
     "  a: {do: ['create hen in me.yard', 'me.points += 2 * count(me.yard) + 1']}\n",
     "triggers.shame counts 'points' going down, but no rule ever moves it down, so it never runs",
     ("'me.points += 2 * count(me.yard) + 1'", "'me.points += 2 * count(me.yard) - 3'")),
    ("W858", "counters:\n  heat: {per: game, initial: 2}\n  fame: {per: game, output: true}\ntriggers:\n"
     "  warm: {on: {change: heat}, do: ['fame += 1']}\nactions:\n  a: {allowed_if: heat > 1, do: []}\n",
     "triggers.warm runs when 'heat' changes, but no rule ever changes it, so it never runs",
     ("do: []}", "do: ['heat -= 1']}")),
    ("E850", "counters:\n  heat: {per: game, output: true}\ntriggers:\n"
     "  loop: {on: {change: heat}, do: ['heat += 1']}\nactions:\n  a: {do: ['heat += 1']}\n",
     "triggers.loop runs on every change of 'heat' and changes 'heat' itself, so each run starts the next",
     ("{on: {change: heat}, do:", "{on: {change: heat}, if: new < 5, do:")),
    ("W861", "counters:\n  points: {per: player, output: true}\nactions:\n  a:\n    do:\n      - let n = 3\n"
     "      - while: n > 0\n        do: ['me.points += 1']\n",
     "nothing in this loop's body (nor what it calls or starts) can change its condition, so it runs forever or never",
     ("do: ['me.points += 1']", "do: ['me.points += 1', 'n -= 1']")),
    ("W862", "counters:\n  coins: {per: player, initial: 5}\nactions:\n  a: {allowed_if: me.coins < 9, do: ["
     "'me.coins = 2', 'me.coins = 5']}\n",
     "'me.coins' is set here and set again by the next line before anything reads it, so this write does nothing",
     ("'me.coins = 5'", "'me.coins += 5'")),
    ("W862", "counters:\n  coins: {per: player, initial: 5}\n  fame: {per: player, output: true}\nactions:\n"
     "  a:\n    allowed_if: me.coins < 9\n    do:\n      - me.coins = 2\n      - me.fame += 1\n      - let n = 3\n"
     "      - me.coins = n\n",
     "'me.coins' is set here and set again by line 15 before anything reads it, so this write does nothing",
     ("- let n = 3", "- let n = me.coins")),
    ("W860", "counters:\n  coins: {per: player, initial: 5}\n  gems: {per: player, initial: 1}\nsubstitutes:\n"
     "  gift: {pay: 1 coins, with: 0 gems}\nactions:\n  a: {cost: '2 coins + 1 gems', do: []}\n",
     "substitute 'gift' pays nothing for each 1 coins, so every cost in coins can be paid for free",
     ("with: 0 gems", "with: 1 gems")),
]


@pytest.mark.parametrize(("code", "body", "message", "fix"), WHOLE_GAME_CASES)
def test_whole_game_analyses(tmp_path: Path, code: str, body: str, message: str, fix: tuple[str, str]) -> None:
    fires_then_silent(tmp_path, code, body, message, fix)


def test_a_loop_that_calls_a_procedure_changing_its_condition_is_fine_until_a_hook_replaces_it(
        tmp_path: Path) -> None:
    base = HEAD + """
counters:
  coins: {per: player, initial: 5}
  points: {per: player, output: true}
events:
  spent: {}
procedures:
  spend: {do: ['me.coins -= 1', 'emit spent()']}
triggers:
  t: {on: spent, do: ['me.points += 1']}
actions:
  a:
    do:
      - while: me.coins > 0
        do: ['call spend()']
"""
    assert found(tmp_path / "alone", base) == []
    hook = "module: h\ntitle: H\nrequires: [t]\nwrap:\n  procedures.spend:\n    instead: ['me.points += 2']\n"
    got = {(c, line) for c, line, _ in found(tmp_path / "hooked", base, hook)}
    assert got == {("W859", 6), ("W861", 18)}
    kept = hook.replace("['me.points += 2']", "['proceed', 'me.points += 2']")
    assert found(tmp_path / "kept", base, kept) == []


def test_the_effect_tree_walk_knows_every_nested_body() -> None:
    import dataclasses

    from boardrules.analysis.tree import CHILDREN
    from boardrules.engine import effects as e

    nested = {cls for cls in vars(e).values() if isinstance(cls, type) and issubclass(cls, e.Effect)
              and any("Body" in str(f.type) for f in dataclasses.fields(cls))}
    assert nested <= set(CHILDREN), nested - set(CHILDREN)


def test_a_scenario_whose_expectations_hold_before_its_steps(tmp_path: Path) -> None:
    body = HEAD + """
counters:
  coins: {per: player, initial: 3}
  points: {per: player, output: true}
actions:
  plant: {cost: '2 coins', do: []}
  score: {do: ['me.points += 1']}
"""
    write_modules(tmp_path, body)
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    (scenarios / "s.yaml").write_text("scenario: S\nmodules: [t]\nplayers: 2\nsteps:\n  - {action: plant, player: p1}\n"
                                      "expect:\n  p1.points: 0\n", encoding="utf-8")
    diags = Diagnostics()
    check_pack(Pack(tmp_path, sorted(tmp_path.glob("*.yaml")), sorted(scenarios.glob("*.yaml"))), diags)
    assert [(d.code, d.span.line if d.span else 0) for d in diags.items] == [("W863", 6)]
    # Expecting what the step changes, or what a step could change and does not, proves something.
    original = (scenarios / "s.yaml").read_text(encoding="utf-8")
    for expect in ("p1.coins: 1", "p1.coins: 3"):
        text = original.replace("p1.points: 0", expect)
        (scenarios / "s.yaml").write_text(text, encoding="utf-8")
        diags = Diagnostics()
        check_pack(Pack(tmp_path, sorted(tmp_path.glob("*.yaml")), sorted(scenarios.glob("*.yaml"))), diags)
        assert diags.items == [], expect


@pytest.mark.parametrize(("option", "message"), [
    (("start", 0), "option 'start' = 0 starts counter 'season' outside its range (from 1 to 4)"),
    (("room", -1), "option 'room' = -1 gives zone 'pile' -1 capacity"),
])
def test_an_option_outside_the_range_it_feeds(tmp_path: Path, option: tuple[str, int], message: str) -> None:
    body = HEAD + """
values:
  start: 1
  room: 5
counters:
  season: {per: game, initial: start, min: 1, max: 4, output: true}
zones:
  pile: {per: game, capacity: room}
pieces:
  token: {}
actions:
  a: {do: ['season = 2', 'create token in pile']}
"""
    name, value = option
    diags = Diagnostics()
    check_pack(Pack(tmp_path, write_modules(tmp_path, body)), diags, {name: (value, Span("--set", 1, 1))})
    assert [(d.code, d.message) for d in diags.items] == [("E851", message)]
    diags = Diagnostics()
    check_pack(Pack(tmp_path, write_modules(tmp_path, body)), diags, {name: (2, Span("--set", 1, 1))})
    assert diags.items == []


def test_what_an_extension_adds_and_nothing_uses(tmp_path: Path) -> None:
    base = HEAD + """
sets:
  moods: [calm, cross]
  colours: [red, blue]
counters:
  gems: {per: player, keys: colours, input: true}
  dust: {per: player, keys: [grit, sand], input: true}
  points: {per: player, output: true}
actions:
  a: {cost: '1 gems[red]', do: ['me.points += 1']}
  b: {cost: '1 dust[grit]', do: ['me.points += 1']}
  c: {do: [{match: calm, cases: {calm: ['me.points += 1'], cross: []}}]}
"""
    ext = "module: e\ntitle: E\nrequires: [t]\nextend:\n  sets.moods: [sulky]\n  counters.dust: {keys: [ash]}\n"
    got = [(c, line, m) for c, line, m in found(tmp_path / "bad", base, ext)]
    assert got == [("W864", 5, "'sulky' is added to sets.moods, but no rule names it or goes through sets.moods"),
                   ("W864", 6, "'ash' is added to counters.dust, but no rule names it or goes through counters.dust")]
    used = base.replace("'1 dust[grit]'", "'1 dust[any]'")
    goes_through = ext + "actions:\n  d: {do: [{for: m in moods, do: ['me.points += 1']}]}\n"
    assert found(tmp_path / "good", used, goes_through) == []


GAME_WITH_UNKNOWN = """
module: g
title: G
requires: [t]
values:
  stand_in_bonus: {value: 2, note: stand-in}
actions:
  harvest: {do: ['me.grain += harvest_size']}
flow:
  phases:
    play:
      turns: {until: each_once}
      actions: [harvest, rest]
  end:
    when: round_number > 3
  ranking: [me.grain]
"""
BASE_WITH_UNKNOWN = HEAD + """
values:
  harvest_size: {unknown: printed on the card}
  bigger: {expr: harvest_size + 1}
counters:
  grain: {per: player, output: true}
actions:
  rest: {do: ['me.grain += 1']}
"""


def test_whole_game_play_reading_a_value_the_game_module_leaves_unknown(tmp_path: Path) -> None:
    got = [(c, line, m) for c, line, m in found(tmp_path / "bad", BASE_WITH_UNKNOWN, GAME_WITH_UNKNOWN)
           if c == "W867"]
    assert got == [("W867", 8, "whole-game play reads 'harvest_size', which the game module 'g' leaves unknown, so "
                               "every game stops with E601 here")]
    through = GAME_WITH_UNKNOWN.replace("me.grain += harvest_size", "me.grain += bigger")
    got = [m for c, _, m in found(tmp_path / "through", BASE_WITH_UNKNOWN, through) if c == "W867"]
    assert got == ["whole-game play reads 'harvest_size' (through 'bigger'), which the game module 'g' leaves "
                   "unknown, so every game stops with E601 here"]
    # An action no phase offers is not play; a value the game gives is known.
    unplayed = GAME_WITH_UNKNOWN.replace("actions: [harvest, rest]", "actions: [rest]")
    assert [c for c, _, _ in found(tmp_path / "unplayed", BASE_WITH_UNKNOWN, unplayed) if c == "W867"] == []
    given = GAME_WITH_UNKNOWN.replace("me.grain += harvest_size", "me.grain += stand_in_bonus")
    assert [c for c, _, _ in found(tmp_path / "given", BASE_WITH_UNKNOWN, given) if c == "W867"] == []


def test_an_instead_hook_dropping_an_output_counter_is_reported(tmp_path: Path) -> None:
    base = HEAD + """
counters:
  points: {per: player, output: true}
  luck: {per: player, output: true}
procedures:
  score: {params: {n: int}, do: ['me.points += n']}
actions:
  a: {do: ['call score(2)']}
"""
    hook = "module: h\ntitle: H\nrequires: [t]\nwrap:\n  procedures.score:\n    instead: ['me.luck += 1']\n"
    got = [(c, line, m) for c, line, m in found(tmp_path / "hooked", base, hook) if c == "W859"]
    assert got == [("W859", 6, "this instead hook never runs proceed, so 'procedures.score' no longer changes "
                               "points, which other rules rely on")]
    kept = hook.replace("['me.luck += 1']", "['proceed', 'me.luck += 1']")
    assert found(tmp_path / "kept", base, kept) == []
