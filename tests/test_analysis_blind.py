"""The analyses the blind planted corpus (tests/planted_packs_blind) asked for, over whole classes: loops that
test one zone or key while changing another, substitutes that pay nothing at some player count or stand in for
what no cost asks, `every:` marks no value in range reaches."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_modules

from boardrules.analysis import check_pack
from boardrules.diagnostics import Diagnostics
from boardrules.language.pack import Pack


def _codes(tmp_path: Path, text: str) -> list[tuple[str, int]]:
    diags = Diagnostics()
    check_pack(Pack(tmp_path, write_modules(tmp_path, text)), diags)
    assert not diags.has_errors or all(d.code.startswith("W") or d.code == "E850" for d in diags.items), \
        [str(d.message) for d in diags.items]
    return [(d.code, d.span.line if d.span else 0) for d in diags.items]


LOOP = """
module: t
title: T
sets:
  metals: [tin, zinc]
counters:
  ore: {per: player, keys: metals, output: true, input: true}
  tokens: {per: player, output: true}
zones:
  bench: {per: player, input: true, output: true}
  pile: {input: true, output: true}
  scrap: {output: true}
pieces:
  part: {properties: {}}
actions:
  go:
    do:
      - while: COND
        do: [BODY]
"""


@pytest.mark.parametrize(("cond", "body", "fires"), [
    ("me.ore[tin] >= 2", "'me.ore[zinc] -= 2'", True),
    ("me.ore[tin] >= 2", "'me.ore[tin] -= 2'", False),
    ("me.ore[tin] >= 2", "{for: m in metals, do: ['me.ore[m] -= 1']}", False),
    ("count(me.bench) > 2", "'move first(pile) to scrap'", True),
    ("count(me.bench) > 2", "'move first(me.bench) to scrap'", False),
    ("count(me.bench) > 2", "CHOSEN", False),
    ("count(scrap) < 3", "'move first(pile) to scrap'", False),
    ("count(pile) > 0", "'remove first(pile)'", False),
])
def test_a_loop_testing_one_zone_or_key_while_changing_another(tmp_path: Path, cond: str, body: str,
                                                              fires: bool) -> None:
    if body == "CHOSEN":  # a piece chosen from the bench comes from the bench
        body = "'choose x from me.bench', 'move x to scrap'"
    text = LOOP.replace("COND", cond).replace("do: [BODY]", f"do: [{body}]")
    found = _codes(tmp_path, text)
    assert (("W861", 18) in found) == fires, found


SUBSTITUTE = """
module: t
title: T
players: {min: 2, max: 4}
values:
  spare: {by_players: {2: 0, 3: 1, 4: 1}}
  rates: {table: {a: 1, b: 2}}
sets:
  letters: [a, b]
counters:
  coins: {per: player, output: true, input: true}
  gems: {per: player, output: true, input: true}
  points: {per: player, output: true}
actions:
  buy:
    cost: "2 coins"
    do: ["me.points += 1"]
substitutes:
  swap:
    pay: PAY
    with: WITH
"""


@pytest.mark.parametrize(("pay", "with_", "code"), [
    ("1 coins", "(rates[a] - 1) gems", "W860"),   # 0 from a table
    ("1 coins", "(spare) gems", "W860"),          # 0 with two players
    ("1 coins", "(rates[b] - 1) gems", None),
    ("1 points", "1 gems", "W868"),               # no cost asks points
    ("1 coins", "1 gems", None),
])
def test_a_substitute_that_pays_nothing_or_that_no_cost_uses(tmp_path: Path, pay: str, with_: str,
                                                             code: str | None) -> None:
    found = _codes(tmp_path, SUBSTITUTE.replace("PAY", f'"{pay}"').replace("WITH", f'"{with_}"'))
    assert [c for c, _ in found if c in ("W860", "W868")] == ([code] if code else []), found


EVERY = """
module: t
title: T
counters:
  heat: {per: player, MIN max: 5}
  points: {per: player, output: true}
actions:
  warm:
    do: ["me.heat += 1"]
  cool:
    do: ["me.heat -= 1"]
triggers:
  mark:
    on: {change: heat, every: N DOWN}
    do: ["me.points += 1"]
"""


@pytest.mark.parametrize(("n", "down", "low", "fires"), [
    (6, False, 0, True), (5, False, 0, False), (3, False, 0, False),
    (6, True, 0, False),   # from 1..5 down to 0, a multiple of 6
    (6, True, 1, True),    # 1..5 holds no multiple of 6 to come down to
    (2, True, 1, False),
])
def test_an_every_mark_no_value_in_range_reaches(tmp_path: Path, n: int, down: bool, low: int, fires: bool) -> None:
    text = EVERY.replace("N DOWN", f"{n}, direction: down" if down else str(n)).replace(
        "MIN", f"min: {low}, initial: {low},")
    found = _codes(tmp_path, text)
    assert ("W857" in {c for c, _ in found}) == fires, found
    assert "E850" not in {c for c, _ in found}


def test_a_trigger_that_lowers_what_it_counts_up_is_no_loop(tmp_path: Path) -> None:
    """`every:` going up, and the trigger takes the value down by at most what there is (min with a counter that
    never goes below 0): not a loop."""
    text = EVERY.replace("N DOWN", "2").replace("MIN", "").replace(
        'do: ["me.points += 1"]', 'do: ["me.heat -= min(2, me.heat)"]')
    assert "E850" not in {c for c, _ in _codes(tmp_path, text)}


TYPED = """
module: t
title: T
sets:
  metals: [tin, zinc]
counters:
  tokens: {per: player, output: true}
pieces:
  part: {properties: {owner: {type: player, output: true}}}
zones:
  bench: {per: player, input: true}
actions:
  give:
    params: {PARAM}
    do:
      - choose t from me.bench
      - as: WHO
        do: ["me.tokens += 1"]
"""


@pytest.mark.parametrize(("param", "who", "error"), [
    ("n: {type: int, in: metals}", "t.owner", True),
    ("n: {type: int, in: '1..3'}", "t.owner", False),
    ("m: {type: symbol, in: metals}", "t.owner", False),
    ("w: {type: piece, in: me.bench}", "t.owner", False),
    ("w: {type: piece, in: metals}", "t.owner", True),
    ("n: {type: int, in: '1..3'}", "t", True),                # a piece, meant its owner
    ("n: {type: int, in: '1..3'}", "next_player(me)", False),
    ("n: {type: int, in: '1..3'}", "n", True),
])
def test_a_domain_of_another_type_and_as_given_no_player_are_refused(tmp_path: Path, param: str, who: str,
                                                                     error: bool) -> None:
    diags = Diagnostics()
    check_pack(Pack(tmp_path, write_modules(tmp_path, TYPED.replace("PARAM", param).replace("WHO", who))), diags)
    assert [d.code for d in diags.items if d.severity == "error"] == (["E402"] if error else []), \
        [d.message for d in diags.items]


DOMAIN = """
module: t
title: T
players: {min: 2, max: 4}
values:
  most: {by_players: {2: 0, 3: 2, 4: 3}}
counters:
  tokens: {per: player, max: 4, output: true, input: true}
actions:
  buy:
    params:
      n: {type: int, in: "DOMAIN"}
    allowed_if: GUARD
    do: ["me.tokens -= 0"]
"""


@pytest.mark.parametrize(("domain", "guard", "codes"), [
    ("5..8", "me.tokens >= n", ["W821"]),   # at most 4 tokens, 5 to 8 asked
    ("1..3", "me.tokens >= n", []),
    ("[5, 6]", "me.tokens >= n", ["W821"]),
    ("1..most", "me.tokens >= n", ["W869"]),  # empty with two players
    ("3..1", "me.tokens >= 0 and n > 0", ["W869"]),
    ("1..3", "n > 3", ["W821"]),
])
def test_an_action_guard_over_its_parameter_domain(tmp_path: Path, domain: str, guard: str,
                                                   codes: list[str]) -> None:
    found = _codes(tmp_path, DOMAIN.replace("DOMAIN", domain).replace("GUARD", guard))
    assert sorted(c for c, _ in found if c in ("W821", "W869")) == codes, found


SCENARIO_RULES = """
module: t
title: T
players: {min: 2, max: 2}
counters:
  tokens: {per: player, output: true}
  ore: {per: player, keys: [tin, zinc], output: true}
pieces:
  part: {properties: {}}
zones:
  pile: {output: true}
  bench: {per: player, output: true}
tracks:
  dial:
    spaces: 6
    markers: {gauge: {start: 1, per: player}, hand: 2}
actions:
  wait:
    do: ["me.tokens += 1"]
  tick:
    do: ["advance me.gauge by 1"]
  make:
    do: ["create part in me.bench"]
  dig:
    do: ["me.ore[tin] += 1"]
  spend:
    cost: "1 ore[zinc]"
    do: []
substitutes:
  tokens_for_zinc: {pay: "1 ore[zinc]", with: "1 tokens"}
"""


@pytest.mark.parametrize(("action", "expect", "fires"), [
    ("wait", "position(p1.gauge): 1", True),
    ("wait", "position(hand): 2", True),
    ("tick", "position(p1.gauge): 1", False),   # the step could move it
    ("wait", "position(p1.gauge): 3", False),   # it fails, but proves something
    ("wait", "count(p1.bench): 0", True),
    ("wait", "count(pile): 1", False),
    ("make", "count(p2.bench): 0", False),      # zones of other players are not told apart
    ("make", "count(pile): 0", True),
    ("dig", "p1.ore[zinc]: 0", True),          # keys are told apart
    ("dig", "p1.ore[tin]: 0", False),
    ("spend", "p1.tokens: 0", False),          # a substitute may pay the cost in tokens
])
def test_a_scenario_expecting_a_marker_or_a_zone_no_step_changes_proves_nothing(
        tmp_path: Path, action: str, expect: str, fires: bool) -> None:
    write_modules(tmp_path, SCENARIO_RULES)
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "s.yaml").write_text(
        f"scenario: S\nmodules: [t]\nplayers: 2\nsteps:\n  - {{action: {action}, player: p1}}\nexpect:\n  {expect}\n")
    diags = Diagnostics()
    check_pack(Pack(tmp_path, sorted(tmp_path.glob("*.yaml")), [tmp_path / "scenarios" / "s.yaml"]), diags)
    assert ("W863" in {d.code for d in diags.items}) == fires, [d.message for d in diags.items]


TABLE_GAME = """
module: t
title: T
players: {min: 2, max: 2}
sets:
  metals: [tin, lead]
values:
  rates:
    table:
      tin: 1
      lead: {unknown: "smudged on the card"}
counters:
  points: {per: player, output: true}
actions:
  sell:
    params: {m: {type: symbol, in: metals}}
    do: [READ]
flow:
  phases:
    work:
      turns: {until: each_once}
      actions: [sell]
  end:
    when: round_number > 2
  ranking: [me.points]
"""


@pytest.mark.parametrize(("read", "options", "fires"), [
    ("me.points += rates[lead]", None, True),
    ("me.points += rates[m]", None, True),      # m may be lead
    ("me.points += rates[tin]", None, False),
    ("me.points += rates[m]", {"rates[lead]": 2}, False),
    ("me.points += rates[m]", {"rates": {"lead": 2}}, False),
])
def test_an_unknown_table_entry_whole_game_play_reads(tmp_path: Path, read: str, options: dict | None,
                                                      fires: bool) -> None:
    diags = Diagnostics()
    given = {k: (v, None) for k, v in options.items()} if options else None
    check_pack(Pack(tmp_path, write_modules(tmp_path, TABLE_GAME.replace("READ", f'"{read}"'))), diags,
               given)  # type: ignore[arg-type]
    found = [d for d in diags.items if d.code == "W867"]
    assert bool(found) == fires, [d.message for d in diags.items]
    assert all("rates[lead]" in d.message and d.span is not None and d.span.line == 17 for d in found)


def test_an_option_for_a_key_the_counter_does_not_have(tmp_path: Path) -> None:
    text = """
module: t
title: T
sets: {metals: [tin, zinc], wares: [rope]}
counters:
  ore: {per: player, keys: metals, output: true}
"""
    diags = Diagnostics()
    check_pack(Pack(tmp_path, write_modules(tmp_path, text)), diags,
               {"ore": ({"tin": 1, "rope": 2}, None)})  # type: ignore[dict-item]
    assert [d.code for d in diags.items if d.severity == "error"] == ["E416"], [d.message for d in diags.items]


@pytest.mark.parametrize(("decl", "message"), [
    ("c: {per: player, overflow: discard}", "counter 'c' overflows only above a max, and it has none"),
    ("c: {per: player, max: 3, overflow: carry}", "counter 'c' carries its excess, but says nowhere to: give "
     "carry_to"),
])
def test_an_overflow_that_can_never_apply_is_refused(tmp_path: Path, decl: str, message: str) -> None:
    text = f"module: t\ntitle: T\ncounters:\n  {decl}\nactions:\n  go: {{do: ['me.c += 1']}}\n"
    diags = Diagnostics()
    check_pack(Pack(tmp_path, write_modules(tmp_path, text)), diags)
    assert [(d.code, d.message) for d in diags.items if d.severity == "error"] == [("E402", message)]


def test_a_zone_that_carries_nowhere_is_refused(tmp_path: Path) -> None:
    text = "module: t\ntitle: T\npieces: {p: {properties: {}}}\nzones:\n  z: {capacity: 2, overflow: carry}\n" \
           "actions:\n  go: {do: ['create p in z']}\n"
    diags = Diagnostics()
    check_pack(Pack(tmp_path, write_modules(tmp_path, text)), diags)
    assert [d.code for d in diags.items if d.severity == "error"] == ["E402"], [d.message for d in diags.items]


@pytest.mark.parametrize(("setup", "fires"), [("[]", True), ('["orders = 3"]', False)])
def test_a_counter_that_starts_unknown_and_is_read_in_play(tmp_path: Path, setup: str, fires: bool) -> None:
    text = TABLE_GAME.replace("  points: {per: player, output: true}",
                              '  points: {per: player, output: true}\n  orders: {per: game, initial: {unknown: "n"}}')
    text = text.replace('do: [READ]', 'do: ["me.points += orders"]') + f"setup:\n  deal: {{do: {setup}}}\n"
    diags = Diagnostics()
    check_pack(Pack(tmp_path, write_modules(tmp_path, text)), diags)
    assert any(d.code == "W867" and "'orders'" in d.message for d in diags.items) == fires, \
        [d.message for d in diags.items]


FLOW = """
module: t
title: T
players: {min: 2, max: 2}
counters:
  orders: {per: game, initial: 8}
  points: {per: player, output: true}
actions:
  sell:
    allowed_if: orders > 0
    do: ["orders -= 1", "me.points += 1"]
flow:
  phases:
    extra:
      if: PHASE
      do: ["orders -= 0"]
    work:
      turns: {until: each_once}
      actions: [sell]
  end:
    when: END
  ranking: [me.points]
"""


@pytest.mark.parametrize(("phase", "end", "codes"), [
    ("orders > 10", "round_number > 3", ["W853"]),   # orders only go down from 8
    ("orders > 5", "round_number > 3", []),
    ("round_number == 2", "round_number < 0", ["W855"]),  # the round is never below 1
    ("round_number == 2", "orders == 0 or round_number > 3", []),
])
def test_phase_and_end_conditions_over_what_the_rules_let_numbers_be(tmp_path: Path, phase: str, end: str,
                                                                    codes: list[str]) -> None:
    found = _codes(tmp_path, FLOW.replace("PHASE", phase).replace("END", end))
    assert sorted(c for c, _ in found if c in ("W853", "W855")) == codes, found


MARKERS = """
module: t
title: T
counters:
  heat: {per: player, max: 5, overflow: carry, carry_to: spare}
  spare: {per: player, max: 3, SPARE}
  points: {per: player, output: true}
tracks:
  dial:
    spaces: 10
    markers: {gauge: 1}
actions:
  go:
    do: ["advance gauge by 1", "me.heat += 1", "me.points += me.spare"]
  reset:
    do: ["place gauge at AT"]
triggers:
  turn:
    on: {change: gauge, every: EVERY}
    do: ["me.points += 1"]
"""


@pytest.mark.parametrize(("spare", "at", "every", "codes"), [
    ("overflow: discard", "1", "5", []),
    ("overflow: discard", "11", "5", ["E852"]),
    ("overflow: discard", "0", "5", ["E852"]),
    ("overflow: discard", "position(gauge) - 1", "5", []),
    ("overflow: discard", "1", "12", ["W857"]),
    ("overflow: carry, carry_to: heat", "1", "5", ["E402", "E402"]),   # heat -> spare -> heat
])
def test_marker_places_every_marks_and_carry_circles(tmp_path: Path, spare: str, at: str, every: str,
                                                     codes: list[str]) -> None:
    diags = Diagnostics()
    text = MARKERS.replace("SPARE", spare).replace("AT", at).replace("EVERY", every)
    check_pack(Pack(tmp_path, write_modules(tmp_path, text)), diags)
    assert sorted(d.code for d in diags.items if d.code in ("E852", "W857", "E402")) == codes, \
        [d.message for d in diags.items]


def test_an_instead_hook_that_no_longer_fills_a_zone_others_read(tmp_path: Path) -> None:
    base = """
module: base
title: B
pieces: {part: {properties: {}}}
zones:
  pile: {}
  hand: {per: player, output: true}
counters:
  orders: {per: game, output: true}
setup:
  deal: {do: ["create 3 part in pile"]}
actions:
  take: {do: ["move first(pile) to me.hand"]}
"""
    extra = """
module: extra
title: E
requires: [base]
wrap:
  setup.deal:
    instead: ["orders += 1"]
"""
    diags = Diagnostics()
    check_pack(Pack(tmp_path, write_modules(tmp_path, base, extra)), diags)
    assert [d.code for d in diags.items if d.code == "W859"] == ["W859"], [d.message for d in diags.items]
    assert "moves pieces in pile" in next(d.message for d in diags.items if d.code == "W859")


@pytest.mark.parametrize(("guard", "fires"), [("new > 7", True), ("new > old", False), ("old >= 5", False),
                                              ("old < 0", True)])
def test_a_counter_trigger_guard_over_the_counter_range(tmp_path: Path, guard: str, fires: bool) -> None:
    text = EVERY.replace("MIN", "").replace("every: N DOWN", "crosses: 3").replace(
        'do: ["me.points += 1"]', f'if: {guard}\n    do: ["me.points += 1"]')
    assert ("W821" in {c for c, _ in _codes(tmp_path, text)}) == fires


@pytest.mark.parametrize(("end_do", "fires"), [("[]", True), ("[score]", False)])
def test_scoring_rules_nothing_runs(tmp_path: Path, end_do: str, fires: bool) -> None:
    text = FLOW.replace("PHASE", "round_number == 2").replace("    when: END", f"    when: round_number > 3\n"
                                                              f"    do: {end_do}")
    text += "scoring:\n  tally:\n    do: ['me.points += 1']\n"
    assert ("W870" in {c for c, _ in _codes(tmp_path, text)}) == fires


@pytest.mark.parametrize(("zone_fill", "fires"), [("", True), ("create part in me.trophies", False)])
def test_a_ranking_key_reading_a_zone_nothing_fills(tmp_path: Path, zone_fill: str, fires: bool) -> None:
    text = FLOW.replace("PHASE", "round_number == 2").replace("END", "round_number > 3").replace(
        "  ranking: [me.points]", "  ranking: [me.points, count(me.trophies)]").replace(
        'do: ["orders -= 1", "me.points += 1"]', f'do: ["orders -= 1", "me.points += 1"{", " if zone_fill else ""}'
        f'{chr(34) + zone_fill + chr(34) if zone_fill else ""}]')
    text += "pieces: {part: {properties: {}}}\nzones:\n  trophies: {per: player}\n"
    assert ("W856" in {c for c, _ in _codes(tmp_path, text)}) == fires


CAPS = """
module: t
title: T
values:
  cap: 4
sets:
  metals: [tin, zinc]
counters:
  heat: {per: player, initial: 2, max: cap, output: true}
  ore: {per: player, keys: metals, max: {tin: cap}, output: true}
actions:
  go: {do: ["me.heat += 1", "me.ore[tin] += 1"]}
"""


@pytest.mark.parametrize(("cap", "error"), [(4, False), (2, False), (1, True), (-1, True)])
def test_an_option_giving_a_counter_max_below_its_start(tmp_path: Path, cap: int, error: bool) -> None:
    diags = Diagnostics()
    check_pack(Pack(tmp_path, write_modules(tmp_path, CAPS)), diags, {"cap": (cap, None)})  # type: ignore[dict-item]
    assert ("E851" in {d.code for d in diags.items}) == error, [d.message for d in diags.items]
    assert "W801" not in {d.code for d in diags.items}  # a key's cap named by a value uses the value


@pytest.mark.parametrize(("domain", "taken", "error"), [
    ("1..2", "3", True), ("1..2", "2", False), ("'[1, 4]'", "4", False), ("'[1, 4]'", "2", True),
    ("letters", "c", True), ("letters", "a", False), ("1..most", "3", False), ("1..most", "5", True),
])
def test_a_take_passing_a_value_the_domain_never_holds(tmp_path: Path, domain: str, taken: str, error: bool) -> None:
    text = f"""
module: t
title: T
players: {{min: 2, max: 3}}
sets: {{letters: [a, b], others: [c]}}
values:
  most: {{by_players: {{2: 2, 3: 3}}}}
counters:
  points: {{per: player, output: true}}
actions:
  buy:
    params: {{n: {{type: {'symbol' if domain == 'letters' else 'int'}, in: {domain}}}}}
    do: ["me.points += 1"]
  twice:
    do: ["take buy({taken})"]
"""
    diags = Diagnostics()
    check_pack(Pack(tmp_path, write_modules(tmp_path, text)), diags)
    assert ("E853" in {d.code for d in diags.items}) == error, [d.message for d in diags.items]


@pytest.mark.parametrize(("circular", "on", "body", "loops"), [
    ("true", "{change: hand}", "advance hand by 1", True),
    ("false", "{change: hand}", "advance hand by 1", False),     # it stops at the end of a straight track
    ("true", "{change: hand, crosses: 3}", "advance hand by 1", False),
    ("true", "{change: heap}", "create part in heap", True),
    ("true", "{change: tray}", "create part in tray", False),    # a capacity stops it
])
def test_a_marker_or_zone_trigger_that_starts_itself(tmp_path: Path, circular: str, on: str, body: str,
                                                     loops: bool) -> None:
    text = f"""
module: t
title: T
pieces: {{part: {{properties: {{}}}}}}
zones:
  heap: {{output: true}}
  tray: {{capacity: 3, output: true}}
tracks:
  ring:
    spaces: 6
    circular: {circular}
    markers: {{hand: 1}}
actions:
  go: {{do: ["advance hand by 1", "create part in heap", "create part in tray"]}}
triggers:
  again:
    on: {on}
    do: ["{body}"]
"""
    assert ("E850" in {c for c, _ in _codes(tmp_path, text)}) == loops


@pytest.mark.parametrize(("rule", "fires"), [
    ("create part in heap", True),                                              # nothing takes one out
    ("remove first(heap)", False),
    ("choose t from tray', 'remove t", True),                                    # the tray's, not the heap's
    ("choose t from tray', 'move t to heap', 'remove t", False),                 # it may be in the heap by then
    ("choose t from heap', 'move t to tray", False),
    ("create part in tray as a', 'create part in tray as b', 'link a, b', 'move a to heap', 'remove a", False),
])
def test_a_zone_trigger_counting_pieces_out_of_a_zone_nothing_empties(tmp_path: Path, rule: str,
                                                                      fires: bool) -> None:
    text = f"""
module: t
title: T
pieces: {{part: {{properties: {{}}}}}}
zones:
  heap: {{output: true}}
  tray: {{output: true, input: true}}
counters:
  points: {{per: player, output: true}}
actions:
  go: {{do: ['create part in heap', '{rule}']}}
triggers:
  gone:
    on: {{change: heap, crosses: 0, direction: down}}
    do: ["me.points += 1"]
"""
    assert ("W865" in {c for c, _ in _codes(tmp_path, text)}) == fires


@pytest.mark.parametrize(("guard", "code"), [("position(gauge) > 10", "W821"), ("position(gauge) <= 10", "W822"),
                                             ("position(gauge) > 5", None)])
def test_a_guard_on_a_marker_space_against_its_track(tmp_path: Path, guard: str, code: str | None) -> None:
    text = MARKERS.replace("SPARE", "overflow: discard").replace("AT", "1").replace("EVERY", "5").replace(
        "  reset:\n", f"  reset:\n    allowed_if: {guard}\n")
    found = {c for c, _ in _codes(tmp_path, text)} & {"W821", "W822"}
    assert found == ({code} if code else set())


@pytest.mark.parametrize(("decl", "fires"), [
    ("tray: {capacity: size}", True),
    ("tray: {capacity: 3}", False),
])
def test_an_unknown_value_a_declaration_of_the_game_needs(tmp_path: Path, decl: str, fires: bool) -> None:
    text = TABLE_GAME.replace("do: [READ]", 'do: ["me.points += 1"]').replace(
        "values:\n", 'values:\n  size: {unknown: "printed on the board"}\n') + \
        f"pieces: {{part: {{properties: {{}}}}}}\nzones:\n  {decl}\nsetup:\n  deal: {{do: ['create part in tray']}}\n"
    found = [d for d in _diags(tmp_path, text) if d.code == "W867"]
    assert bool(found) == fires and all("zone 'tray'" in d.message for d in found), [d.message for d in found]


def _diags(tmp_path: Path, text: str) -> list:
    diags = Diagnostics()
    check_pack(Pack(tmp_path, write_modules(tmp_path, text)), diags)
    return diags.items


@pytest.mark.parametrize(("closing", "end", "fires"), [
    ("orders == 0", "orders <= 0", True),             # when it would hold, the game has ended
    ("orders <= 2", "orders <= 0", False),
    ("orders == 0", "orders <= 0\n    after: this_round", False),   # the round is played out
])
def test_a_phase_the_end_condition_always_comes_before(tmp_path: Path, closing: str, end: str, fires: bool) -> None:
    text = FLOW.replace("    extra:\n      if: PHASE\n      do: [\"orders -= 0\"]\n", "").replace(
        "      actions: [sell]\n", f"      actions: [sell]\n    closing:\n      if: {closing}\n"
                                 "      do: [\"orders -= 0\"]\n").replace("END", end)
    assert ("W853" in {c for c, _ in _codes(tmp_path, text)}) == fires
