"""`boardrules check --format sarif` is valid SARIF 2.1.0 (the official schema, see tests/schemas/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from boardrules.tools.cli import main

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
PACKS = Path(__file__).parent / "packs"
MARKET = """
module: market
title: A tiny market
players: {min: 1, max: 4}
counters:
  coins: {per: player, initial: 3}
  apples: {per: player, output: true}
actions:
  buy_apple: {cost: "2 coins", do: ["me.apples += 1"]}
"""


def _sarif(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    status = main(["check", "--format", "sarif", *args])
    return status, json.loads(capsys.readouterr().out)


def test_errors_and_warnings_are_valid_sarif(capsys: pytest.CaptureFixture[str]) -> None:
    status, log = _sarif(capsys, str(PACKS / "broken"), "rules")
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert status == 1
    (run,) = log["runs"]
    results = run["results"]
    levels = {r["level"] for r in results}
    assert levels == {"error", "warning"}
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in results)
    located = [r for r in results if "locations" in r]
    region = located[0]["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] >= 1 and region["startColumn"] >= 1


def test_a_clean_run_is_valid_sarif_with_no_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "m.yaml").write_text(MARKET, encoding="utf-8")
    status, log = _sarif(capsys, str(tmp_path))
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert status == 0
    assert log["runs"][0]["results"] == []


def test_strict_fails_on_warnings_but_not_on_documented_unknowns(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--strict", str(PACKS / "harvest")]) == 0  # W601 only
    (tmp_path / "m.yaml").write_text(MARKET.replace(", output: true", ""), encoding="utf-8")
    assert main(["check", str(tmp_path)]) == 0
    assert main(["check", "--strict", str(tmp_path)]) == 1
    assert "warning W802: counter 'apples' is written but never read" in capsys.readouterr().out
