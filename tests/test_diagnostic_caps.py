"""A line or a file with thousands of problems: the first are listed, the rest counted (`E115`/`W115`), and the
work of explaining them is bounded (a line of 4,900 wrong items once took seconds to report)."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardrules.diagnostics import MAX_PER_FILE, MAX_PER_LINE, Diagnostics, Span
from boardrules.language import validate
from boardrules.tools.cli import main

HEAD = "module: m\ntitle: t\ncounters:\n  coins: {per: player, initial: 3, output: true}\n"


def _pack(tmp_path: Path, body: str) -> Path:
    (tmp_path / "m.yaml").write_text(HEAD + body)
    return tmp_path


def test_one_line_of_thousands_of_errors_lists_twenty_and_counts_the_rest(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    explained = 0
    explain = validate._Context.explain

    def counting(self: validate._Context, error: object) -> list:
        nonlocal explained
        explained += 1
        return explain(self, error)

    monkeypatch.setattr(validate._Context, "explain", counting)
    pack = _pack(tmp_path, "actions:\n  a:\n    title: A\n    do: [" + ", ".join(["[]"] * 4_900) + "]\n")
    assert main(["check", str(pack)]) == 1
    out = capsys.readouterr().out
    assert out.count("error E201") == MAX_PER_LINE
    assert "error E115: ... and 4981 more problem(s) on this line (the first 20 are listed)" in out
    assert "checked 1 module file(s) in 1 pack(s): 21 error(s), 0 warning(s)" in out
    # The file is validated a few times (alone and with the pack), each stopping after its limit: not once or
    # twice per wrong item (about 11,000 explanations before).
    assert explained <= 6 * (validate.MAX_SCHEMA_PROBLEMS + 1)


def test_warnings_alone_are_counted_by_a_warning(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pack = _pack(tmp_path, f"values: {{{', '.join(f'v{i}: 1' for i in range(30))}}}\n")
    assert main(["check", str(pack)]) == 0
    out = capsys.readouterr().out
    assert out.count("warning W801") == MAX_PER_LINE
    assert "warning W115: ... and 10 more problem(s) on this line" in out


def test_a_file_lists_at_most_its_limit_then_counts() -> None:
    diags = Diagnostics()
    for line in range(1, MAX_PER_FILE + 51):
        diags.error("E401", "unknown name", Span("a.yaml", line, 3))
    diags.error("E401", "unknown name", Span("b.yaml", 1, 1))
    shown = diags.sorted()
    assert len([d for d in shown if d.code == "E401"]) == MAX_PER_FILE + 1
    more = [d for d in shown if d.code == "E115"]
    assert len(more) == 1 and more[0].span == Span("a.yaml", MAX_PER_FILE + 1, 1)
    assert more[0].message.startswith("... and 50 more problem(s) in this file from here on")
    assert shown[-1].span is not None and shown[-1].span.file == "b.yaml"
