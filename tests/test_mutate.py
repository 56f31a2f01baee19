"""Rule mutation testing: a mutant the tool calls killed really changes a scenario's outcome."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardrules.diagnostics import Diagnostics
from boardrules.language.pack import discover, load_modules
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
