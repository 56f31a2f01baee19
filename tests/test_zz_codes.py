"""The registry of diagnostic codes: the docs table is generated from it, and it matches what tests emit.

This file runs last (see conftest.py): it compares the codes every other test emitted with the registry.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import COLLECTED_FILES, EMITTED

from boardrules.diagnostics_codes import CODES, explain, with_table
from boardrules.tools.cli import main

ROOT = Path(__file__).parent.parent


def test_the_docs_table_is_generated_from_the_registry() -> None:
    doc = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    assert doc == with_table(doc), "run: python -m boardrules.diagnostics_codes docs/language.md"


def test_every_code_has_a_severity_a_summary_and_examples() -> None:
    for code, c in CODES.items():
        assert code[0] in "EW" and code[1:].isdigit() and len(code) == 4
        assert (c.severity == "error") == (code[0] == "E"), code
        assert c.summary and c.explanation and c.wrong and c.right, code
        assert c.wrong != c.right, code


def test_explain_prints_the_wrong_and_the_right_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--explain", "e401"]) == 0
    out = capsys.readouterr().out
    assert out == explain("E401")
    assert "Wrong:\n    cost: \"2 coin\"" in out and "Right:\n    cost: \"2 coins\"" in out
    assert main(["check", "--explain", "E999"]) == 2


def test_every_emitted_code_is_registered() -> None:
    assert EMITTED - set(CODES) == set()


def test_every_registered_code_is_emitted_by_some_test() -> None:
    every_file = {p.name for p in Path(__file__).parent.glob("test_*.py")}
    if not every_file <= COLLECTED_FILES:
        pytest.skip("only meaningful when the whole suite runs")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("under pytest-xdist, conftest.py checks the codes of all workers together at the end")
    assert set(CODES) - EMITTED == set()
