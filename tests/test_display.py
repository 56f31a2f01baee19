"""Places in diagnostics: display() with the directories' real paths remembered says what it says without them;
new_span() makes the Span its class makes."""

from __future__ import annotations

import os
from dataclasses import FrozenInstanceError, fields
from pathlib import Path

import pytest

from boardrules.diagnostics import Span, new_span
from boardrules.language.pack import display


def test_remembered_directories_change_no_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pack" / "scenarios").mkdir(parents=True)
    (tmp_path / "pack" / "scenarios" / "a.yaml").write_text("x: 1\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "b.yaml").write_text("x: 1\n")
    os.symlink(tmp_path / "elsewhere" / "b.yaml", tmp_path / "pack" / "scenarios" / "linked.yaml")
    os.symlink(tmp_path / "elsewhere", tmp_path / "pack" / "linkdir")
    monkeypatch.chdir(tmp_path / "pack")
    names = ["scenarios/a.yaml", "scenarios/linked.yaml", "linkdir/b.yaml", "./scenarios/../scenarios/a.yaml",
             "scenarios/missing.yaml", "missing/x.yaml", "linkdir/../scenarios/a.yaml", "scenarios/", ".", "..",
             str(tmp_path / "pack" / "scenarios" / "a.yaml"), str(tmp_path / "elsewhere" / "b.yaml"), "/"]
    dirs: dict[str, str] = {}
    for _ in range(2):  # the second time from what the first remembered
        for name in names:
            assert display(Path(name), dirs) == display(Path(name)), name
    assert display(Path("scenarios/linked.yaml"), dirs) == "scenarios/linked.yaml"  # its real path is outside
    assert display(Path("scenarios/a.yaml"), dirs) == "scenarios/a.yaml"


def test_a_span_made_fast_is_the_span_made_by_its_class() -> None:
    fast, made = new_span("rules/x.yaml", 3, 7), Span("rules/x.yaml", 3, 7)
    assert fast == made and hash(fast) == hash(made) and repr(fast) == repr(made) and str(fast) == str(made)
    assert [getattr(fast, f.name) for f in fields(Span)] == [getattr(made, f.name) for f in fields(Span)]
    with pytest.raises(FrozenInstanceError):
        fast.line = 4  # type: ignore[misc]
