"""Issue 22, items 5 and 7: constant tables read as `name[key]`, `rank_by(KEY, PLAYERS)`, and costs paid by moving
a track marker. Each runs node by node and compiled (which must agree), and each misuse is refused at its place."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import BOTH, compiled, interpreted, link_texts
from hypothesis import given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import BoardrulesError, Diagnostics, Span
from boardrules.engine.decisions import ScriptedDecider
from boardrules.engine.rules import Rules
from boardrules.game import Game
from boardrules.language.options import set_options

PACK = """
module: t
title: T
players: {min: 1, max: 4}
sets:
  colours: [red, blue, green]
  sizes: [small, big]
values:
  worth: {table: {red: 1, blue: -1, green: 0}, keys: colours}
  bonus: {table: {red: 5}, default: 0}
  grid: {table: {small: {red: 1, blue: 2}, big: {red: 3, blue: 4}}}
  sealed: {table: {red: 2, blue: {unknown: "check the card"}}}
  steps_for: {table: {1: 1, 2: 3, 3: 6}}
counters:
  coins: {per: player, initial: 3}
  points: {per: player}
  place: {per: player}
tracks:
  clock:
    spaces: 6
    markers: {time: {start: 6, per: player}}
  road:
    spaces: 5
    spend: forward
    markers: {walker: 1}
  ring:
    spaces: 4
    circular: true
    markers: {hand: {start: 1, per: player}}
actions:
  score:
    title: Score
    params: {c: {type: symbol, in: colours}, s: {type: symbol, in: sizes}}
    do: ["me.points += worth[c] + bonus[c] + grid[s][c] + steps_for[2] + count(keys(grid)) - count(keys(worth))"]
  peek:
    title: Peek
    params: {c: {type: symbol, in: colours}}
    do: ["me.points += sealed[c]"]
  rank:
    title: Rank
    do: ["for: p in players", ]
  spend:
    title: Spend time
    params: {n: {type: int, in: "0..7"}}
    cost: "(n) time"
    do: []
  walk:
    title: Walk the shared road
    params: {n: {type: int, in: "0..7"}}
    cost: "(n) walker"
    do: []
  turn:
    title: Turn the ring
    params: {n: {type: int, in: "0..9"}}
    cost: "(n) hand"
    do: []
  maybe:
    title: Spend if one can
    params: {n: {type: int, in: "0..7"}}
    do:
      - if: can_pay((n) time)
        then: ["pay (n) time", "me.points += 1"]
"""
PACK = PACK.replace("""  rank:
    title: Rank
    do: ["for: p in players", ]
""", """  rank:
    title: Rank
    do:
      - for: p in players
        do: ["p.place = rank_by(it.coins, players, p)"]
      - me.points = rank_by(-it.coins, players)
""")


def game(tmp_path: Path, mode: Callable[[Rules], Rules], players: int = 3, text: str = PACK) -> Game:
    rules, diags = link_texts(tmp_path, text)
    assert diags.items == [], [(d.code, d.message) for d in diags.items]
    g = Game(mode(rules), players)
    g.setup()
    return g


# ---------------------------------------------------------------- tables


@BOTH
@pytest.mark.parametrize(("c", "s", "points"), [("red", "small", 1 + 5 + 1 + 3 - 1),
                                                ("blue", "big", -1 + 0 + 4 + 3 - 1), ("green", "big", None)])
def test_a_table_is_read_by_key_with_a_default_and_a_table_of_tables(
        tmp_path: Path, mode: Callable[[Rules], Rules], c: str, s: str, points: int | None) -> None:
    g = game(tmp_path, mode)
    if points is None:  # grid[big] has no green and no default: the action stops, nothing changed
        with pytest.raises(BoardrulesError) as err:
            g.act("p1", "score", {"c": c, "s": s})
        assert err.value.code == "E542" and "grid[big][green]" in err.value.diagnostic.message
        assert g.state.counters["p1.points"] == 0
        return
    g.act("p1", "score", {"c": c, "s": s})
    assert g.state.counters["p1.points"] == points


@BOTH
def test_an_unknown_entry_stops_the_game_only_when_it_is_needed(tmp_path: Path, mode: Callable[[Rules], Rules]) -> None:
    g = game(tmp_path, mode)
    g.act("p1", "peek", {"c": "red"})
    with pytest.raises(BoardrulesError) as err:
        g.act("p1", "peek", {"c": "blue"})
    assert err.value.code == "E601" and g.state.counters["p1.points"] == 2
    rules, _ = link_texts(tmp_path / "again", PACK)
    assert ("sealed[blue]", "check the card") in [(n, note) for n, note, _ in rules.unknowns]


def test_an_option_gives_table_entries_and_no_longer_leaves_them_unknown(tmp_path: Path) -> None:
    rules, _ = link_texts(tmp_path, PACK)
    diags = Diagnostics()
    set_options(rules, {"sealed": ({"blue": 7}, Span("options", 1, 1))}, diags)
    assert diags.items == []
    assert rules.values["sealed"].data.entries == {"red": 2, "blue": 7}
    assert "sealed[blue]" not in [n for n, _, _ in rules.unknowns]
    for wrong, message in [({"green": 1}, "green is not a key of table 'sealed'"),
                           ({"blue": "red"}, "table 'sealed' holds numbers, got red"),
                           (3, "a mapping of key to value")]:
        diags = Diagnostics()
        set_options(rules, {"sealed": (wrong, Span("options", 1, 1))}, diags)
        assert [d.code for d in diags.items] == ["E402"] and message in diags.items[0].message, diags.items


_VALUES = "  worth: {table: {red: 1, blue: -1, green: 0}, keys: colours}\n"


@pytest.mark.parametrize(("replacement", "code", "message"), [
    ("  worth: {table: {red: 1, bleu: -1, green: 0}, keys: colours}\n", "E423",
     "'bleu' is not one of the keys of table 'worth' (red, blue, green)"),
    ("  worth: {table: {red: 1, blue: -1}, keys: colours}\n", "E423", "table 'worth' has no entry for green"),
    ("  worth: {table: {red: 1, blu: -1}}\n", "E423", "'blu' in table 'worth' is not a declared symbol"),
    ("  worth: {table: {red: 1, blue: big}}\n", "E423", "the entries of table 'worth' mix numbers and symbols"),
    ("  worth: {table: {red: 1, blue: {small: 2}}}\n", "E423", "mixes entries and tables"),
    ("  worth: {table: {red: 1, 2: 3}}\n", "E423", "mix numbers and symbols"),
    ("  worth: {table: {red: 1}, default: red}\n", "E423",
     "the default of table 'worth' should be one of its numbers, got red"),
])
def test_a_table_declared_wrong_is_refused_at_its_entry(tmp_path: Path, replacement: str, code: str,
                                                        message: str) -> None:
    text = PACK.replace(_VALUES, replacement).replace("worth[c] + ", "")
    _, diags = link_texts(tmp_path, text)
    errors = [(d.code, d.message) for d in diags.items if d.severity == "error"]
    assert errors and errors[0][0] == code and message in errors[0][1], errors


@pytest.mark.parametrize(("line", "code", "message"), [
    ("me.points += worth[purple]", "E401", "unknown name 'purple'"),
    ("me.points += grid[small][green]", "E424", "table 'grid' has no entry for green"),
    ("me.points += worth[big]", "E424", "table 'worth' has no entry for big"),
    ("me.points += worth[3]", "E424", "the keys of table 'worth' are symbols, but this is a number"),
    ("me.points += steps_for[red]", "E424", "the keys of table 'steps_for' are numbers, but this is a symbol"),
    ("me.points += grid[small]", "E424", "table 'grid' is read with 2 key(s), as grid[KEY][KEY], not 1"),
    ("me.points += count(worth)", "E424", "'worth' is a table: read one entry with worth[KEY]"),
    ("worth[red] = 2", "E424", "'worth' is a table of constants: a rule cannot change it"),
    ("me.points += rank_by(it.coins, [1, 2])", "E425", "rank_by ranks players, but this is a list of numbers"),
    ("me.points += rank_by(it.kind, players)", "E401", "a player has no counter or zone 'kind'"),
    ("me.points += rank_by(red, players)", "E425", "rank_by ranks by a number (or a list of numbers), but this is "
                                                   "a symbol"),
    ("me.points += rank_by(it.coins, players, 3)", "E425", "whose rank: a player, but this is a number"),
    ("me.points += rank_by(it.coins)", "E405", "'rank_by' takes 2 or 3 argument(s), got 1"),
    ("pay 2 clock", "E426", "'clock' is a track: a cost pays a counter or moves a track marker"),
    ("pay 1 time[any]", "E426", "'time' is a track marker: it has no keys"),
    ("pay 1 colours", "E426", "'colours' is a set"),
    ("pay 1 tiem", "E401", "unknown counter 'tiem'"),
])
def test_misuse_is_refused_where_it_is_written(tmp_path: Path, line: str, code: str, message: str) -> None:
    text = PACK + f"""  misuse:
    title: Misuse
    do: ["{line}"]
"""
    _, diags = link_texts(tmp_path, text)
    errors = [(d.code, d.message, d.span.col) for d in diags.items if d.severity == "error"]
    assert errors and errors[0][0] == code and message in errors[0][1], errors
    assert errors[0][2] > 1  # at its place inside the line, not at the line's start


def test_a_substitute_on_something_that_cannot_be_paid_is_refused(tmp_path: Path) -> None:
    text = PACK + """substitutes:
  odd:
    pay: "1 ring"
    with: "1 coins"
"""
    _, diags = link_texts(tmp_path, text)
    assert [(d.code, d.message) for d in diags.items] == [
        ("E426", "'ring' is a track: a cost pays a counter or moves a track marker")]


# ---------------------------------------------------------------- rank_by


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=4), st.sampled_from([interpreted, compiled]))
def test_rank_by_is_one_plus_the_players_with_more(tmp_path_factory: pytest.TempPathFactory, coins: list[int],
                                                   mode: Callable[[Rules], Rules]) -> None:
    g = game(tmp_path_factory.mktemp("r"), mode, players=len(coins))
    for i, c in enumerate(coins, 1):
        g._m.state.counters[f"p{i}.coins"] = c
    g.act("p1", "rank")
    for i, c in enumerate(coins, 1):
        assert g.state.counters[f"p{i}.place"] == 1 + sum(1 for x in coins if x > c)
    assert g.state.counters["p1.points"] == 1 + sum(1 for x in coins if x < coins[0])  # lowest first, negated


# ---------------------------------------------------------------- marker costs


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["spend", "walk", "turn"]), st.integers(1, 6), st.integers(0, 9),
       st.sampled_from([interpreted, compiled]))
def test_a_marker_cost_is_paid_exactly_when_the_marker_can_move_that_far(
        tmp_path_factory: pytest.TempPathFactory, action: str, start: int, n: int,
        mode: Callable[[Rules], Rules]) -> None:
    g = game(tmp_path_factory.mktemp("m"), mode, players=2)
    marker, spaces, step = {"spend": ("p1.time", 6, -1), "walk": ("walker", 5, 1), "turn": ("p1.hand", 4, -1)}[action]
    start = min(start, spaces)
    g._m.state.markers[marker].pos = start
    if action == "spend" and n <= 7:  # can_pay agrees with paying
        g.act("p1", "maybe", {"n": n})
        assert g.state.counters["p1.points"] == (1 if start - n >= 1 else 0)
        g._m.state.markers[marker].pos = start
    fits = action == "turn" or 1 <= start + step * n <= spaces
    legal = {m["params"]["n"] for m in g.legal_actions("p1") if m["action"] == action}
    before = g.state.dumps()
    if n > (9 if action == "turn" else 7):
        return
    assert (n in legal) == fits
    if not fits:
        with pytest.raises(BoardrulesError) as err:
            g.act("p1", action, {"n": n})
        assert err.value.code == "E502" and g.state.dumps() == before
        return
    g.act("p1", action, {"n": n})
    expected = (start - 1 + step * n) % spaces + 1 if action == "turn" else start + step * n
    assert g.state.markers[marker].pos == expected


@BOTH
def test_a_substitute_pays_part_of_a_marker_cost_and_the_options_are_the_ways_that_fit(
        tmp_path: Path, mode: Callable[[Rules], Rules]) -> None:
    text = PACK + """substitutes:
  time_for_coins:
    pay: "1 time"
    with: "1 coins"
"""
    g = game(tmp_path, mode, text=text)
    g._m.state.markers["p1.time"].pos = 2
    asked: list[list[str]] = []

    class Recording(ScriptedDecider):
        def decide(self, d):  # type: ignore[no-untyped-def]
            asked.append([str(o) for o in d.options])
            return super().decide(d)

    g.act("p1", "spend", {"n": 2}, Recording(["1 time + 1 coins"]))
    assert asked == [["1 time + 1 coins", "2 coins"]]  # 2 time does not fit: the marker is on space 2
    assert g.state.markers["p1.time"].pos == 1 and g.state.counters["p1.coins"] == 2


def test_an_option_gives_one_entry_by_name_and_key_and_check_stops_listing_it(tmp_path: Path) -> None:
    rules, _ = link_texts(tmp_path, PACK)
    diags = Diagnostics()
    set_options(rules, {"sealed[blue]": (4, Span("options", 1, 1))}, diags)
    assert diags.items == [] and rules.values["sealed"].data.entries == {"red": 2, "blue": 4}
    from boardrules.analysis import unknowns

    for options in ({"sealed[blue]": (4, None)}, {"sealed": ({"blue": 4}, None)}):
        found = Diagnostics()
        unknowns(link_texts(tmp_path / "plain", PACK)[0], found, options)
        assert [d.code for d in found.items] == []


@BOTH
@pytest.mark.parametrize(("start", "n", "paid"), [(2, 3, (1, 1)), (6, 3, (3, 3)), (1, 2, (1, -1))])
def test_a_shortfall_substitute_pays_the_spaces_a_marker_cannot_move(
        tmp_path: Path, mode: Callable[[Rules], Rules], start: int, n: int, paid: tuple[int, int]) -> None:
    text = PACK + """substitutes:
  missing_time:
    pay: "1 time"
    with: "1 coins"
    shortfall: true
"""
    g = game(tmp_path, mode, text=text)
    g._m.state.markers["p1.time"].pos = start
    if paid[1] < 0:  # on space 1 the marker cannot move: both spaces are lacking, and there are no coins
        g._m.state.counters["p1.coins"] = 0
        with pytest.raises(BoardrulesError) as err:
            g.act("p1", "spend", {"n": n})
        assert err.value.code == "E502"
        return
    g.act("p1", "spend", {"n": n})  # one way only: nobody is asked
    assert g.state.markers["p1.time"].pos == paid[0]
    assert g.state.counters["p1.coins"] == paid[1]


def test_completion_lists_a_tables_keys_and_markers_among_what_a_cost_pays(tmp_path: Path) -> None:
    import os
    import shutil

    from boardrules.lsp.complete import complete
    from boardrules.lsp.workspace import Workspace
    from boardrules.resources import rules_dir

    target = tmp_path / "lisboa"
    shutil.copytree(rules_dir() / "lisboa", target)
    path = str(target / "state_actions.yaml")
    text = Path(path).read_text(encoding="utf-8")
    ws = Workspace()
    ws.open(path, text)
    ws.quick(path)
    st_ = ws.state(path)
    ws.reindex(st_)
    rules = ws.rules_for(st_, "lisboa.state_actions")

    def first(line: str) -> set[str]:
        lines = [*text.split("\n"), "actions:", "  z:", "    do:", line]
        items = complete(st_.index, rules, os.path.realpath(path), lines, len(lines), len(line) + 1)
        return {i.label for i in items if i.rank == min(i.rank for i in items)}

    assert first("      - me.wigs += ship_hull[") == {"blue", "red", "purple", "brown"}
    assert "cardinal" in first('    cost: "2 ') and "wigs" in first('    cost: "2 ')


@pytest.mark.parametrize(("guard", "code"), [("worth[c] > 1", "W821"), ("rank_by(it.coins, players) >= 1", "W822"),
                                             ("worth[c] >= 0", None)])
def test_range_analysis_knows_a_tables_entries_and_the_places_of_rank_by(tmp_path: Path, guard: str,
                                                                         code: str | None) -> None:
    from boardrules.analysis import check_pack
    from boardrules.language.pack import discover

    text = PACK.replace("  worth: {table: {red: 1, blue: -1, green: 0}, keys: colours}",
                        "  worth: {table: {red: 1, blue: -1, green: 0}, keys: colours, output: true}")
    text += f"""  guarded:
    title: Guarded
    params: {{c: {{type: symbol, in: colours}}}}
    allowed_if: {guard}
    do: []
"""
    from conftest import write_modules

    write_modules(tmp_path / "p", text)
    diags = Diagnostics()
    (pack,) = discover([tmp_path / "p"], diags)
    check_pack(pack, diags)
    codes = {d.code for d in diags.items if d.code in ("W821", "W822")}
    assert codes == ({code} if code else set()), [(d.code, d.message) for d in diags.items]


@BOTH
def test_a_shortfall_substitute_on_a_marker_pays_in_steps_until_nothing_fits(
        tmp_path: Path, mode: Callable[[Rules], Rules]) -> None:
    text = PACK + "substitutes:\n  coins_for_time:\n    pay: '1 time'\n    with: '2 coins'\n    shortfall: true\n"
    g = game(tmp_path, mode, 2, text)
    g.act("p1", "spend", {"n": 4})  # room enough: the marker pays it all, no coins
    assert (g.state.markers["p1.time"].pos, g.state.counters["p1.coins"]) == (2, 3)
    g.act("p1", "spend", {"n": 2})  # one space left on the track, the other paid with 2 coins
    assert (g.state.markers["p1.time"].pos, g.state.counters["p1.coins"]) == (1, 1)
    with pytest.raises(BoardrulesError) as err:  # no space left and 1 coin: refused, nothing moves
        g.act("p1", "spend", {"n": 1})
    assert err.value.code == "E502"
    assert (g.state.markers["p1.time"].pos, g.state.counters["p1.coins"]) == (1, 1)


_KEYS = ["red", "blue", "green"]


@settings(max_examples=25, deadline=None)
@given(st.dictionaries(st.sampled_from(_KEYS), st.integers(-9, 9), min_size=1), st.none() | st.integers(-9, 9),
       st.lists(st.sampled_from(_KEYS), min_size=1, max_size=4))
def test_a_table_read_is_its_entry_or_default_or_e542_both_ways(tmp_path_factory: pytest.TempPathFactory,
                                                                entries: dict[str, int], default: int | None,
                                                                reads: list[str]) -> None:
    body = ", ".join(f"{k}: {v}" for k, v in entries.items())
    table = f"  worth: {{table: {{{body}}}" + (f", default: {default}}}\n" if default is not None else "}\n")
    text = PACK.replace(_VALUES, table).replace("worth[c] + ", "")
    text = text.replace("counters:\n", "counters:\n  sum: {per: player, min: null}\n")  # a sum may go below 0
    text += """  tally:
    title: Tally
    params: {c: {type: symbol, in: colours}}
    do: ["me.sum += worth[c]"]
"""
    root = tmp_path_factory.mktemp("t")
    outcomes = []
    for mode in (interpreted, compiled):
        g = game(root / mode.__name__, mode, players=1, text=text)
        seen = []
        for c in reads:
            try:
                g.act("p1", "tally", {"c": c})
                seen.append(g.state.counters["p1.sum"])
            except BoardrulesError as err:
                seen.append(err.code)
        outcomes.append(seen)
    total, expected = 0, []
    for c in reads:
        value = entries.get(c, default)
        if value is None:
            expected.append("E542")
        else:
            total += value
            expected.append(total)
    assert outcomes == [expected, expected]


FLOW = """
module: f
title: F
players: {min: 1, max: 2}
counters:
  points: {per: player, output: true}
tracks:
  road:
    spaces: 5
    spend: %s
    markers: {walker: %d}
actions:
  walk:
    title: Walk
    cost: "1 walker"
    do: ["me.points += 1"]
flow:
  phases:
    main:
      turns: {until: each_once}
      actions: [walk]
  end:
    when: position(walker) >= 5
  ranking: [me.points]
"""


@pytest.mark.parametrize(("spend", "start", "warned"), [("forward", 1, False), ("back", 1, True), ("back", 5, True)])
def test_the_end_condition_check_knows_which_way_a_cost_moves_a_marker(tmp_path: Path, spend: str, start: int,
                                                                        warned: bool) -> None:
    from conftest import write_modules

    from boardrules.analysis import check_pack
    from boardrules.language.pack import discover

    write_modules(tmp_path / "p", FLOW % (spend, start))
    diags = Diagnostics()
    (pack,) = discover([tmp_path / "p"], diags)
    check_pack(pack, diags)
    assert ("W855" in {d.code for d in diags.items}) == warned, [(d.code, d.message) for d in diags.items]


def test_explain_says_tables_ranks_and_marker_costs_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import HARVEST

    from boardrules.tools.cli import main

    assert main(["explain", str(HARVEST)]) == 0
    out = capsys.readouterr().out
    for said in ("Crop worth: a table: wheat: 3, barley: 2, oats: 1.",
                 "Gem bonus: a table: ruby: 2 (any other: 0).",
                 "Grid: a table: wheat: (amber: 1, jade: 2, ruby: 3), barley: (amber: 4, jade: 5, ruby: 6).",
                 "Add the crop worth of crop to your points.",
                 "the place of p among the players by its coins, highest first (equal share a place)",
                 "Cost: 2 hours (the hours marker moves 2 spaces back).",
                 "Cost: 1 strides (the strides marker moves 1 space forward) and 1 coins.",
                 "A cost's move of the hours marker may be paid with 2 coins for each space instead.",
                 "The stride track has 5 spaces; paying with its markers moves them forward"):
        assert said in out, said


@pytest.mark.parametrize(("cost", "found"), [('"6 time"', True), ('"5 time"', False), ('"9 hand"', False)])
def test_a_marker_cost_beyond_its_straight_track_is_e824(tmp_path: Path, cost: str, found: bool) -> None:
    from conftest import write_modules

    from boardrules.analysis import check_pack
    from boardrules.language.pack import discover

    write_modules(tmp_path / "p", PACK + f"  far:\n    title: Far\n    cost: {cost}\n    do: []\n")
    diags = Diagnostics()
    (pack,) = discover([tmp_path / "p"], diags)
    check_pack(pack, diags)
    e824 = [d.message for d in diags.items if d.code == "E824"]
    assert bool(e824) == found, e824
    if found:
        assert e824 == ["this cost moves 'time' 6 spaces, but its track 'clock' has only 6 spaces, so it can never "
                        "be paid"]
