"""Branch coverage: what the scenarios ran, line by line and branch by branch, per module and rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boardrules.diagnostics import Diagnostics
from boardrules.language.pack import load_modules
from boardrules.tools import coverage
from boardrules.tools.cli import main
from boardrules.tools.scenario import ScenarioRunner

HARVEST = Path(__file__).resolve().parent / "packs" / "harvest"


def _measure(*scenarios: str) -> dict:
    modules = load_modules(sorted(HARVEST.glob("*.yaml")), Diagnostics())
    runner = ScenarioRunner(modules)
    runner.trace = set()
    for name in scenarios:
        assert runner.run_file(HARVEST / "scenarios" / name).passed
    return {m["file"].rsplit("/", 1)[-1]: m for m in coverage.to_json(coverage.measure(modules, runner.trace))}


def _rule(table: dict, file: str, rule: str) -> dict:
    return next(r for r in table[file]["rules"] if r["rule"] == rule)


def test_one_scenario_covers_the_alternatives_it_paid_and_nothing_else() -> None:
    table = _measure("cost_or.yaml")
    feed = _rule(table, "base.yaml", "actions.feed")
    # Both alternatives of "1 grain or 2 coins" were paid, and every line of the action ran.
    assert feed["branches"] == {"run": 2, "total": 2}
    assert feed["lines"]["run"] == feed["lines"]["total"] > 0
    # A rule the scenario never reached is listed line by line, as file:line.
    never = [r for r in table["base.yaml"]["rules"] if r["lines"]["run"] == 0 and r["lines"]["total"]]
    assert never and all(m["file"].endswith("base.yaml") and m["line"] > 0 for m in never[0]["missed"])
    assert 0 < table["base.yaml"]["percent"] < 100


def test_if_sides_are_counted_apart() -> None:
    table = _measure(*(p.name for p in sorted((HARVEST / "scenarios").glob("*.yaml"))))
    ifs = [m for f in table.values() for r in f["rules"] for m in r["missed"] if m["what"].endswith(": then")]
    # Every branch point is either run or listed with its place and which side was never taken.
    for f in table.values():
        for r in f["rules"]:
            run, total = r["branches"]["run"], r["branches"]["total"]
            assert total - run == sum(1 for m in r["missed"] if m["kind"] == "branch")
    assert all(m["line"] > 0 for m in ifs)


def test_cli_coverage_json_is_the_whole_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["test", str(HARVEST), "--coverage=json"])
    out = capsys.readouterr()
    assert code == 0
    packs = json.loads(out.out)
    (pack,) = packs
    files = {m["file"].rsplit("/", 1)[-1]: m for m in pack["modules"]}
    assert {"base.yaml", "plus.yaml"} <= set(files)
    assert all(0 <= m["percent"] <= 100 for m in files.values())
    assert "passed" in out.err


def test_cli_coverage_text_names_percentages_and_never_run_places(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["test", str(HARVEST), "--coverage"]) == 0
    out = capsys.readouterr().out
    assert "% (lines " in out and "branches " in out


@pytest.mark.parametrize("argv", [["--coverage", "PACK"], ["--coverage=json", "PACK"],
                                  ["--coverage-format", "json", "PACK"], ["PACK", "--coverage"]])
def test_cli_coverage_never_takes_the_pack_for_its_format(argv: list[str],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    payments = HARVEST.parent / "payments"
    assert main(["test", *[str(payments) if a == "PACK" else a for a in argv]]) == 0
    out = capsys.readouterr()
    if "json" in argv or "--coverage=json" in argv:
        assert json.loads(out.out)[0]["pack"].endswith("payments")
    else:
        assert "coverage tests/packs/payments: " in out.out and "5 passed, 0 failed" in out.out
