"""Rule mutation testing: a mutant the tool calls killed really changes a scenario's outcome."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from boardrules.analysis.tree import every_effect, rule_bodies
from boardrules.diagnostics import Diagnostics
from boardrules.language.pack import discover, link, load_modules
from boardrules.language.places import Source
from boardrules.tools import mutation_sites
from boardrules.tools.cli import main
from boardrules.tools.mutate import apply, find_mutants, mutate_pack
from boardrules.tools.scenario import ScenarioRunner

HARVEST = Path(__file__).resolve().parent / "packs" / "harvest"
SAMPLE = 16  # mutants per run: enough to meet every kind, small enough to stay a few seconds


def _pack():
    (pack,) = discover([HARVEST], Diagnostics())
    return pack


def test_every_kind_of_mutation_is_made() -> None:
    modules = load_modules(sorted(HARVEST.glob("*.yaml")), Diagnostics())
    whats = [m.what for m in find_mutants(modules)]
    for kind in ("-> ", "'>' -> '>='", "'+=' -> '-='", "line removed", "option ", "cost alternative",
                 "guard removed"):
        assert any(kind in w for w in whats), kind
    assert any("'<' -> '<='" in w or "'<=' -> '<'" in w or "'>' -> '>='" in w for w in whats)


@pytest.mark.slow
def test_killed_mutants_really_change_a_scenario_and_survivors_do_not() -> None:
    pack = _pack()
    report = mutate_pack(pack, workers=2, seed=7, limit=SAMPLE)
    modules = load_modules(pack.module_files, Diagnostics())
    statuses = {o.status for o in report.outcomes}
    assert "killed" in statuses
    for m, o in zip(report.mutants, report.outcomes, strict=True):
        if o.status == "unlinkable":
            continue
        runner = ScenarioRunner(apply(modules, m))  # the ordinary scenario path, from the files
        if o.status == "killed":
            assert o.by is not None and not runner.run_file(Path(o.by)).passed, m
            assert ScenarioRunner(modules).run_file(Path(o.by)).passed  # and the unmutated rules pass it
        else:
            assert all(runner.run_file(p).passed for p in pack.scenario_files), m


@pytest.mark.slow
def test_the_same_seed_gives_the_same_mutants_and_outcomes() -> None:
    pack = _pack()
    one = mutate_pack(pack, workers=1, seed=3, limit=8)
    two = mutate_pack(pack, workers=2, seed=3, limit=8)
    assert one.mutants == two.mutants and one.outcomes == two.outcomes
    assert mutate_pack(pack, workers=1, seed=4, limit=8).mutants != one.mutants


def test_cli_reports_survivors_with_places_and_a_score_per_module(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutate", str(HARVEST), "--max", "12", "--workers", "2", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "mutation score " in out
    assert "tests/packs/harvest/base.yaml: " in out and "% killed (" in out
    for line in out.splitlines():
        if ": survived: " in line:
            file, row, col = line.split(":")[:3]
            assert file.endswith(".yaml") and row.isdigit() and col.isdigit()


def test_a_cost_alternative_is_removed_with_its_or_and_the_payer_kept(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(
        "module: m\ntitle: M\ncounters:\n  grain: {per: player}\n  coins: {per: player}\n"
        "actions:\n  feed:\n    title: Feed\n    source: here\n    do: ['pay 1 grain or 2 coins by p2']\n",
        encoding="utf-8")
    modules = load_modules([tmp_path / "m.yaml"], Diagnostics())
    removed = sorted(str(m.arg) for m in find_mutants(modules) if "cost alternative" in m.what)
    assert removed == ["pay 1 grain by p2", "pay 2 coins by p2"]
    numbers = sorted(str(m.arg) for m in find_mutants(modules) if m.what.startswith(("1 ->", "2 ->")))
    assert numbers == ["pay 0 grain or 2 coins by p2", "pay 1 grain or 1 coins by p2",
                       "pay 1 grain or 3 coins by p2", "pay 2 grain or 2 coins by p2"]


SMALL = """module: t
title: Level 2 of 3
source: "invented: 1 < 2"
notes: ["me.gold += 1", "pay 1 gold or 2 coins"]
players: {min: 2, max: 4}
counters:
  gold: {per: player, initial: 3, max: 10}
  coins: {per: player}
values:
  bonus: 2
actions:
  dig:
    title: Dig 3 times
    allowed_if: me.gold < 5
    cost: "1 gold or 2 coins"
    do:
      - me.gold += bonus
      - if: me.gold >= 3
        then: ["me.coins -= 1"]
      - one_of:
          options:
            a: ["me.gold += 1"]
            b: ["me.coins += 1"]
triggers:
  rich:
    on: {change: gold, crosses: 8}
    do: ["me.coins += 1"]
"""


def _small(tmp_path: Path) -> dict:
    (tmp_path / "t.yaml").write_text(SMALL, encoding="utf-8")
    return load_modules([tmp_path / "t.yaml"], Diagnostics())


def test_the_sites_are_the_linked_trees_nodes_and_nothing_else_the_yaml_holds(tmp_path: Path) -> None:
    """A line removed for every effect node, numbers and comparisons of the checked expressions, the guard, the
    cost's alternatives, the options, the declared value; nothing in the title, source, notes, player counts,
    counter declarations or a trigger's `on:`, though numbers, comparisons and `+=` are written there too."""
    modules = _small(tmp_path)
    rules = link(modules, ["t"], Diagnostics())
    mutants = find_mutants(modules)
    effects = [x for body in rule_bodies(rules).values() for x in every_effect(body)]
    assert len(effects) == 7
    removed = sorted((m.span.line, m.span.col) for m in mutants if m.what.startswith("line removed"))
    written = sorted((x.span.line, x.span.col - (x.span.line in (19, 22, 23, 27))) for x in effects)  # "quoted"
    assert removed == written
    assert not {m.span.line for m in mutants} & {2, 3, 4, 5, 7, 8, 13, 26}
    assert [(m.span.line, m.span.col, m.rule, m.what) for m in mutants if not m.what.startswith("line removed")] == [
        (10, 10, None, "2 -> 3"), (10, 10, None, "2 -> 1"),
        (14, 5, "actions.dig", "guard removed: `allowed_if: me.gold < 5`"),
        (14, 25, "actions.dig", "'<' -> '>=' in `me.gold < 5`"),
        (14, 25, "actions.dig", "'<' -> '<=' in `me.gold < 5`"),
        (14, 27, "actions.dig", "5 -> 6 in `me.gold < 5`"), (14, 27, "actions.dig", "5 -> 4 in `me.gold < 5`"),
        (15, 12, "actions.dig", "1 -> 2 in `1 gold or 2 coins`"),
        (15, 12, "actions.dig", "1 -> 0 in `1 gold or 2 coins`"),
        (15, 12, "actions.dig", "cost alternative `1 gold` removed from `1 gold or 2 coins`"),
        (15, 19, "actions.dig", "cost alternative `2 coins` removed from `1 gold or 2 coins`"),
        (15, 22, "actions.dig", "2 -> 3 in `1 gold or 2 coins`"),
        (15, 22, "actions.dig", "2 -> 1 in `1 gold or 2 coins`"),
        (17, 17, "actions.dig", "'+=' -> '-=' in `me.gold += bonus`"),
        (18, 21, "actions.dig", "'>=' -> '<' in `me.gold >= 3`"),
        (18, 21, "actions.dig", "'>=' -> '>' in `me.gold >= 3`"),
        (18, 24, "actions.dig", "3 -> 4 in `me.gold >= 3`"), (18, 24, "actions.dig", "3 -> 2 in `me.gold >= 3`"),
        (19, 26, "actions.dig", "'-=' -> '+=' in `me.coins -= 1`"),
        (19, 29, "actions.dig", "1 -> 2 in `me.coins -= 1`"), (19, 29, "actions.dig", "1 -> 0 in `me.coins -= 1`"),
        (22, 13, "actions.dig", "option 'a' dropped"),
        (22, 26, "actions.dig", "'+=' -> '-=' in `me.gold += 1`"),
        (22, 29, "actions.dig", "1 -> 2 in `me.gold += 1`"), (22, 29, "actions.dig", "1 -> 0 in `me.gold += 1`"),
        (23, 13, "actions.dig", "option 'b' dropped"),
        (23, 27, "actions.dig", "'+=' -> '-=' in `me.coins += 1`"),
        (23, 30, "actions.dig", "1 -> 2 in `me.coins += 1`"), (23, 30, "actions.dig", "1 -> 0 in `me.coins += 1`"),
        (27, 20, "triggers.rich", "'+=' -> '-=' in `me.coins += 1`"),
        (27, 23, "triggers.rich", "1 -> 2 in `me.coins += 1`"), (27, 23, "triggers.rich", "1 -> 0 in `me.coins += 1`")]


def test_a_rule_the_linked_tree_does_not_hold_gives_no_mutant(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The sites are read off the tree: take a rule out of the linked rules and its YAML, still there, is left
    alone."""
    modules = _small(tmp_path)

    def without_dig(*args: Any, **kwargs: Any) -> Any:
        rules = link(*args, **kwargs)
        del rules.actions["dig"]
        return rules

    monkeypatch.setattr(mutation_sites, "link", without_dig)
    assert {m.rule for m in find_mutants(modules)} == {None, "triggers.rich"}
    assert not [m for m in find_mutants(modules) if 12 <= m.span.line <= 23]


def test_each_edit_is_made_in_the_entry_at_the_sites_place(tmp_path: Path) -> None:
    """A token's mutant replaces, in the string the container on its path holds, the word written at its span by
    the word it names, and leaves the rest of the string as it was."""
    modules = _small(tmp_path)
    checked = 0
    for m in find_mutants(modules):
        if " in `" not in m.what or m.what.startswith("cost alternative"):
            continue
        node: Any = modules[m.module].doc
        for key in m.path:
            node = node[key]
        old, new, src = str(node[m.key]), str(m.arg), Source(node[m.key].span, node[m.key].style)
        [at] = [i for i in range(len(old)) if (src.at((1, i + 1)).line, src.at((1, i + 1)).col) == (m.span.line,
                                                                                                   m.span.col)]
        was, now = (word.strip("'") for word in m.what.split(" in `")[0].split(" -> "))
        assert (old[at:].startswith(was), new) == (True, old[:at] + now + old[at + len(was):]), m
        assert apply(modules, m)[m.module].doc[m.path[0]] is not modules[m.module].doc[m.path[0]]
        checked += 1
    assert checked == 25


def test_an_option_an_extension_adds_is_mutated_in_the_extension() -> None:
    """The tree holds what `extend:` adds to another module's `one_of`; the mutant edits the extending module."""
    pack = Path(__file__).resolve().parent / "packs" / "limits"
    modules = load_modules(sorted(pack.glob("*.yaml")), Diagnostics())
    added = {(m.module, m.what) for m in find_mutants(modules) if m.path[:1] == ("extend",)}
    assert ("limits.more", "line removed: `me.stars += 1`") in added
    assert ("limits.other", "guard removed: `if: me.stamina < 3`") in added


def test_the_mutation_score_of_a_small_game_is_what_it_was_when_sites_came_from_the_yaml() -> None:
    """relay: 76 mutants, the same list the YAML walk made (52 killed, 23 survived, 1 cannot link)."""
    (pack,) = discover([Path(__file__).resolve().parent / "packs" / "relay"], Diagnostics())
    report = mutate_pack(pack, workers=2)
    counts = {s: sum(o.status == s for o in report.outcomes) for s in ("killed", "survived", "unlinkable")}
    assert (len(report.mutants), counts) == (76, {"killed": 52, "survived": 23, "unlinkable": 1})
    assert f"{report.score():.1f}" == "69.3"


def test_each_modules_own_link_holds_all_it_writes() -> None:
    """`--modules M` links only M (with what it requires): the mutants are those of M in the whole pack's list,
    also for a module whose rules another replaces, wraps or extends."""
    modules = load_modules(sorted(HARVEST.glob("*.yaml")), Diagnostics())
    everything = find_mutants(modules)
    for mid in modules:
        assert find_mutants(modules, [mid]) == [m for m in everything if m.module == mid], mid
