"""The per-user cache directory every boardrules cache shares: safe reads, atomic writes, bounded size."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from boardrules import cache_files


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "boardrules"


def test_an_entry_is_written_for_the_user_alone_and_read_back(home: Path) -> None:
    cache_files.write("t", "a", b"one")
    assert cache_files.read("t", "a") == b"one"
    assert stat.S_IMODE((home / "t").stat().st_mode) == 0o700
    assert [p.name for p in (home / "t").iterdir()] == ["a"]  # no temporary file left behind
    assert cache_files.read("t", "missing") is None


def test_what_others_could_write_is_never_read(home: Path) -> None:
    cache_files.write("t", "a", b"one")
    os.chmod(home / "t" / "a", 0o622)
    assert cache_files.read("t", "a") is None
    os.chmod(home / "t" / "a", 0o600)
    os.chmod(home / "t", 0o777)
    assert cache_files.read("t", "a") is None
    cache_files.write("t", "b", b"two")  # nor written into
    assert not (home / "t" / "b").exists()
    os.chmod(home / "t", 0o700)
    (home / "t" / "link").symlink_to(home / "t" / "a")
    assert cache_files.read("t", "link") is None


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    (tmp_path / "file").write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    cache_files.write("t", "a", b"one")
    assert cache_files.read("t", "a") is None


def test_no_cache_turns_every_cache_off(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOARDRULES_NO_CACHE", "1")
    assert cache_files.cache_dir("t") is None
    cache_files.write("t", "a", b"one")
    assert cache_files.read("t", "a") is None and not home.exists()


def test_keep_drops_the_oldest_entries(home: Path) -> None:
    for i, name in enumerate("abcd"):
        cache_files.write("t", name, b"x")
        past = time.time() - 100 + i
        os.utime(home / "t" / name, (past, past))
    cache_files.write("t", "e", b"x", keep=3)
    assert sorted(p.name for p in (home / "t").iterdir()) == ["c", "d", "e"]


def test_the_fingerprint_changes_with_any_source_grammar_or_schema_file(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    package, grammar = tmp_path / "package", tmp_path / "grammar"
    (package / "sub").mkdir(parents=True)
    grammar.mkdir()
    files = [package / "a.py", package / "sub" / "b.py", grammar / "rules.lark", grammar / "module.schema.json"]
    for f in files:
        f.write_text("1")
    monkeypatch.setattr(cache_files, "_PACKAGE", package)
    monkeypatch.setattr(cache_files, "grammar_dir", lambda: grammar)
    fingerprint = cache_files.code_fingerprint.__wrapped__
    seen = {fingerprint()}
    for f in files:
        f.write_text("2")
        seen.add(fingerprint())
    (package / "notes.txt").write_text("not source")
    seen.add(fingerprint())
    assert len(seen) == len(files) + 1


def test_a_relative_xdg_cache_home_is_ignored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")
    assert cache_files.cache_dir("t") == tmp_path / ".cache" / "boardrules" / "t"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "abs"))
    assert cache_files.cache_dir("t") == tmp_path / "abs" / "boardrules" / "t"
