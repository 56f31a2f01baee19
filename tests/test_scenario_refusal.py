"""A scenario names what it expects to fail: a refusal with its code and the rule or message that refused, a
setup that fails, and no answers left unasked; `flow: true` without a setup is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardrules.diagnostics import Diagnostic, Diagnostics, Span
from boardrules.language.pack import load_modules
from boardrules.tools.scenario import Result, ScenarioRunner
from boardrules.tools.scenario_refusal import ExpectedError, code_of

HARVEST = Path(__file__).parent / "packs" / "harvest"
_runner: list[ScenarioRunner] = []


def run(tmp_path: Path, body: str, modules: str = "[harvest.base]") -> Result:
    if not _runner:
        _runner.append(ScenarioRunner(load_modules(sorted(HARVEST.glob("*.yaml")), Diagnostics())))
    path = tmp_path / "s.yaml"
    path.write_text(f"scenario: t\nmodules: {modules}\nplayers: 1\n" + body, encoding="utf-8")
    return _runner[0].run_file(path)


def codes(result: Result) -> list[str]:
    return [d.code for d in result.diagnostics]


WORK_REFUSED = """setup: false
state:
  pieces: [{id: b, kind: worker, zone: p1.farm, props: {owner: p1, age: 1, tired: true}}]
steps:
  - action: work
    player: p1
    expect_error: %s
"""


def test_a_refusal_named_by_its_rule_passes(tmp_path: Path) -> None:
    named = '{code: E501, rule: "not it.tired", message: "is not allowed now", at: "harvest/base.yaml:140"}'
    assert run(tmp_path, WORK_REFUSED % named).passed


@pytest.mark.parametrize(("named", "why"), [
    ('{code: E501, rule: "w.age >= 3"}', "not by a rule containing 'w.age >= 3'"),
    ('{code: E501, message: "only workers of age 3"}', "does not contain 'only workers of age 3'"),
    ('{code: E501, at: "base.yaml:203"}', "not at base.yaml:203"),
])
def test_a_refusal_by_another_rule_fails_with_e711(tmp_path: Path, named: str, why: str) -> None:
    result = run(tmp_path, WORK_REFUSED % named)
    assert codes(result) == ["E711"]
    assert why in result.diagnostics[0].message
    assert "failed with E501 as expected" in result.diagnostics[0].message


def test_the_wrong_code_is_still_e702(tmp_path: Path) -> None:
    result = run(tmp_path, WORK_REFUSED % '{code: E503, rule: "not it.tired"}')
    assert codes(result) == ["E702"]


def test_answers_left_after_the_expected_refusal_fail_with_e712(tmp_path: Path) -> None:
    body = """setup: false
state:
  pieces:
    - {id: a, kind: worker, zone: p1.farm, props: {owner: p1, age: 1}}
    - {id: b, kind: worker, zone: p1.farm, props: {owner: p1, age: 1}}
steps:
  - action: retire
    player: p1
    answers: [$a, 3]
    expect_error: E501
"""
    result = run(tmp_path, body)
    assert codes(result) == ["E712"]
    assert "never asked for: [3]" in result.diagnostics[0].message
    assert run(tmp_path, body.replace("[$a, 3]", "[$a]")).passed


def test_a_setup_expected_to_fail(tmp_path: Path) -> None:
    failing = "options: {market_size: 9}\nexpect_error: %s\n"
    assert run(tmp_path, failing % "E501", "[harvest.strict]").passed
    result = run(tmp_path, failing % "E504", "[harvest.strict]")
    assert codes(result) == ["E702"] and "expected error E504, got E501" in result.diagnostics[0].message
    result = run(tmp_path, failing % '{code: E501, message: "too many"}', "[harvest.strict]")
    assert codes(result) == ["E711"]
    result = run(tmp_path, "expect_error: E501\n", "[harvest.strict]")
    assert codes(result) == ["E702"] and "but it succeeded" in result.diagnostics[0].message
    assert result.diagnostics[0].span is not None and result.diagnostics[0].span.line == 4


def test_a_setup_expected_to_fail_takes_no_steps(tmp_path: Path) -> None:
    result = run(tmp_path, "expect_error: E501\nexpect: {p1.coins: 3}\n")
    assert codes(result) == ["E713"]


def test_flow_without_setup_is_refused_with_e710(tmp_path: Path) -> None:
    result = run(tmp_path, "flow: true\nsetup: false\n")
    assert codes(result) == ["E710"]
    assert result.diagnostics[0].span is not None and result.diagnostics[0].span.line == 5
    assert "state:" in result.diagnostics[0].message


def test_an_unknown_code_of_a_setup_expectation_is_reported(tmp_path: Path) -> None:
    result = run(tmp_path, "expect_error: {code: E999}\n", "[harvest.strict]")
    assert codes(result) == ["E841"]


def test_expected_error_forms() -> None:
    assert code_of(None) is None and code_of("E501") == "E501" and code_of({"code": "E502"}) == "E502"
    expected = ExpectedError.of({"code": "E501", "rule": "x > 1"})
    assert expected == ExpectedError("E501", None, "x > 1", None)
    nowhere = Diagnostic("error", "E501", "refused")
    assert expected.mismatch(nowhere) == "it was refused by a place with no rule text, not by a rule containing 'x > 1'"
    guard = Diagnostic("error", "E501", "refused", Span("pack/a.yaml", 3, 5, text="x > 1 and y"))
    assert expected.mismatch(guard) is None
    assert ExpectedError("E501", at="a.yaml:3").mismatch(guard) is None
    assert ExpectedError("E501", at="pack/a.yaml:3:5").mismatch(guard) is None
    assert ExpectedError("E501", at="ck/a.yaml:3").mismatch(guard) is not None  # a path's tail, whole names only


def test_check_reports_what_cannot_run_at_its_place(tmp_path: Path) -> None:
    from boardrules.analysis.scenarios import ScenarioChecker

    modules = load_modules(sorted(HARVEST.glob("*.yaml")), Diagnostics())
    path = tmp_path / "s.yaml"
    path.write_text("scenario: t\nmodules: [harvest.base]\nplayers: 1\nflow: true\nsetup: false\n"
                    "expect_error: E501\nsteps: []\n", encoding="utf-8")
    diags = Diagnostics()
    ScenarioChecker(modules, diags).check_file(path)
    assert [(d.code, d.span.line if d.span else 0) for d in diags.sorted()] == [("E710", 5), ("E713", 6)]
