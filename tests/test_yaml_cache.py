"""Loaded YAML kept on disk by content: a document read back is the document the loader builds, positions and
all, and a changed file is never served."""

from __future__ import annotations

import marshal
import os
from pathlib import Path
from typing import Any

import pytest

from boardrules import cache_bundle, cache_files
from boardrules.diagnostics import Diagnostics, Span
from boardrules.language import loader, yaml_cache
from boardrules.language.loader import YList, YMap, YStr, load_yaml, load_yaml_bytes

ROOT = Path(__file__).resolve().parent.parent
TEXT = b"module: m\ntitle: 'M'\nlist: [1, 2.5, yes, ~, \"x\"]\nnested:\n  a: |\n    block\n  b: &x {c: d}\n  e: *x\n"


def deep(value: Any) -> Any:
    """Everything the loader records about a value, as plain data to compare."""
    def span(s: Span) -> tuple:
        return (type(s).__name__, s.file, s.line, s.col, s.end_line, s.end_col, s.text)

    if isinstance(value, YMap):
        items = [(deep(k), span(value.key_spans[k]), deep(v), span(value.value_spans[k])) for k, v in value.items()]
        return ("map", span(value.span), items, sorted(value.key_spans), sorted(value.value_spans))
    if isinstance(value, YList):
        return ("list", span(value.span), [deep(v) for v in value], [span(s) for s in value.item_spans])
    if isinstance(value, YStr):
        return ("str", str(value), span(value.span), value.style)
    return (type(value).__name__, value)


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """Cache on, in a directory of its own; the files the loader really built."""
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    done: list[str] = []
    real = loader._build

    def counting(text: str, display: str, load: type) -> Any:
        done.append(display)
        return real(text, display, load)

    monkeypatch.setattr(loader, "_build", counting)
    return done


def entries(tmp_path: Path) -> list[Path]:
    directory = tmp_path / "cache" / "boardrules" / yaml_cache.CACHE
    return sorted(directory.iterdir()) if directory.exists() else []


def test_every_yaml_file_in_the_repository_reads_back_exactly() -> None:
    checked = 0
    for path in sorted(ROOT.glob("**/*.yaml")):
        if ".venv" in path.parts:
            continue
        diags = Diagnostics()
        doc = load_yaml(path, diags, "some/name.yaml")
        if doc is None or diags.items:
            continue
        back = yaml_cache._Decoder("some/name.yaml").value(
            marshal.loads(marshal.dumps(yaml_cache._encode(doc, "some/name.yaml"))))
        assert deep(back) == deep(doc), path
        checked += 1
    assert checked > 200


def test_a_clean_file_is_built_once_per_content(built: list[str], tmp_path: Path) -> None:
    first = load_yaml_bytes(TEXT, "a.yaml", Diagnostics())
    again = load_yaml_bytes(TEXT, "a.yaml", Diagnostics())
    elsewhere = load_yaml_bytes(TEXT, "b/other.yaml", Diagnostics())
    assert built == ["a.yaml"]
    assert deep(again) == deep(first) and again is not first
    assert elsewhere["nested"].span == Span("b/other.yaml", 5, 3)  # the spans name the file as it is shown now
    assert len(entries(tmp_path)) == 1
    load_yaml_bytes(TEXT + b"more: 1\n", "a.yaml", Diagnostics())
    assert built == ["a.yaml", "a.yaml"] and len(entries(tmp_path)) == 2


def test_another_python_or_boardrules_is_a_miss(built: list[str], monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    load_yaml_bytes(TEXT, "a.yaml", Diagnostics())
    with monkeypatch.context() as patch:
        patch.setattr(yaml_cache, "python_id", lambda: b"another python")
        load_yaml_bytes(TEXT, "a.yaml", Diagnostics())
    with monkeypatch.context() as patch:
        patch.setattr(cache_files, "code_fingerprint", lambda: "another boardrules")
        load_yaml_bytes(TEXT, "a.yaml", Diagnostics())
    assert built == ["a.yaml"] * 3 and len(entries(tmp_path)) == 3
    assert cache_bundle.python_id is yaml_cache.python_id


def test_a_file_with_diagnostics_is_never_stored(built: list[str], tmp_path: Path) -> None:
    for _ in range(2):
        diags = Diagnostics()
        doc = load_yaml_bytes(b"a: 1\na: 2\n", "dup.yaml", diags)
        assert doc == {"a": 1} and [d.code for d in diags.items] == ["E102"]
    assert built == ["dup.yaml"] * 4 and entries(tmp_path) == []  # (a file with problems is read twice)


@pytest.mark.parametrize("content", [b"garbage", marshal.dumps(("m", (1, 1), [(("v", 1), (1, 1), ("v", 2), (1, 4))])),
                                     marshal.dumps(("l", (1, 1), [("v", 1)], [])), marshal.dumps(("q",)),
                                     marshal.dumps(("s", "x", (1, "one"), None)), marshal.dumps(("v", [1]))])
def test_an_entry_that_does_not_decode_is_loaded_afresh(built: list[str], tmp_path: Path, content: bytes) -> None:
    first = load_yaml_bytes(TEXT, "a.yaml", Diagnostics())
    (entry,) = entries(tmp_path)
    entry.write_bytes(content)
    assert deep(load_yaml_bytes(TEXT, "a.yaml", Diagnostics())) == deep(first)
    assert built == ["a.yaml", "a.yaml"]


def test_an_entry_others_could_write_is_never_read(built: list[str], tmp_path: Path) -> None:
    load_yaml_bytes(TEXT, "a.yaml", Diagnostics())
    (entry,) = entries(tmp_path)
    os.chmod(entry, 0o666)
    load_yaml_bytes(TEXT, "a.yaml", Diagnostics())
    assert built == ["a.yaml", "a.yaml"]


def test_an_unusable_cache_directory_only_costs_the_cache(built: list[str], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "file").write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    first = load_yaml_bytes(TEXT, "a.yaml", Diagnostics())
    assert deep(load_yaml_bytes(TEXT, "a.yaml", Diagnostics())) == deep(first)
    assert built == ["a.yaml", "a.yaml"]


def test_no_cache_builds_every_time(built: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOARDRULES_NO_CACHE", "1")
    load_yaml_bytes(TEXT, "a.yaml", Diagnostics())
    load_yaml_bytes(TEXT, "a.yaml", Diagnostics())
    assert built == ["a.yaml", "a.yaml"] and not (tmp_path / "cache").exists()
