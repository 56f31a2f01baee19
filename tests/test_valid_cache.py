"""Schema validation is remembered per content: a repeated file is not validated again, a changed one always is."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from boardrules import cache_files
from boardrules.diagnostics import Diagnostics
from boardrules.language import fast_schema, valid_cache, validate
from boardrules.language.loader import load_yaml_bytes

ROOT = Path(__file__).resolve().parent.parent
GOOD = b"scenario: s\nsource: here\nmodules: [m]\nplayers: 2\n"
BAD = b"scenario: s\nsource: here\nmodules: [m]\nplayers: two\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "boardrules" / valid_cache.CACHE


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files really validated (not answered from the cache). The compiled check, which answers valid files
    before the cache is read (test_fast_schema.py), is off: these tests are about the cache."""
    monkeypatch.setattr(fast_schema, "valid", lambda doc, name: False)
    done: list[str] = []
    real = validate.validate

    def counting(doc: object, schema: dict, diags: Diagnostics, file: str) -> bool:
        done.append(file)
        return real(doc, schema, diags, file)

    monkeypatch.setattr(validate, "validate", counting)
    return done


def check(data: bytes, name: str = "s.yaml") -> tuple[bool, list[str]]:
    diags = Diagnostics()
    doc = load_yaml_bytes(data, name, diags)
    ok = valid_cache.validate_file(doc, data, "scenario", diags, name)
    return ok, [f"{d.code} {d.message}" for d in diags.items]


def test_a_valid_file_is_validated_once_per_content(cache: Path, validations: list[str]) -> None:
    assert check(GOOD, "a.yaml") == (True, [])
    assert check(GOOD, "b.yaml") == (True, [])  # the same bytes under another name
    assert validations == ["a.yaml"]
    (entry,) = cache.iterdir()
    assert entry.read_bytes() == entry.name.encode()
    assert check(GOOD + b"seed: 3\n") == (True, [])
    assert validations == ["a.yaml", "s.yaml"]


def test_a_file_with_problems_is_never_remembered(cache: Path, validations: list[str]) -> None:
    first = check(BAD)
    assert first[0] is False and first[1] and first[1][0].startswith("E201")
    assert check(BAD) == first
    assert validations == ["s.yaml", "s.yaml"]
    assert not cache.exists() or not list(cache.iterdir())


def test_another_schema_or_another_boardrules_is_a_miss(cache: Path, validations: list[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    check(GOOD)
    with monkeypatch.context() as patch:
        patch.setattr(valid_cache, "_schema_bytes", lambda name: b'{"type": "object"}')
        check(GOOD)
    with monkeypatch.context() as patch:
        patch.setattr(cache_files, "code_fingerprint", lambda: "another boardrules")
        check(GOOD)
    check(GOOD)
    assert validations == ["s.yaml"] * 3
    assert len(list(cache.iterdir())) == 3


def test_a_corrupt_or_foreign_entry_is_ignored(cache: Path, validations: list[str]) -> None:
    check(GOOD)
    (entry,) = cache.iterdir()
    entry.write_bytes(b"garbage")
    check(GOOD)
    assert entry.read_bytes() == entry.name.encode()  # validated again and rewritten
    os.chmod(entry, 0o666)  # others could have written it: never trusted
    check(GOOD)
    assert validations == ["s.yaml"] * 3


def test_an_unusable_cache_directory_only_costs_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          validations: list[str]) -> None:
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # mkdir fails: nothing can be written
    assert check(GOOD) == (True, []) and check(BAD)[0] is False
    open_dir = tmp_path / "open" / "boardrules" / valid_cache.CACHE
    open_dir.mkdir(parents=True)
    os.chmod(open_dir, 0o777)  # others could plant entries: the directory is not used
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "open"))
    assert check(GOOD) == (True, []) and check(GOOD) == (True, [])
    assert not list(open_dir.iterdir())
    assert validations == ["s.yaml"] * 4


def test_no_cache_validates_every_time(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                       validations: list[str]) -> None:
    monkeypatch.setenv("BOARDRULES_NO_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    check(GOOD)
    check(GOOD)
    assert validations == ["s.yaml", "s.yaml"] and not (tmp_path / "boardrules").exists()


def test_boardrules_test_never_serves_a_changed_scenario_as_valid(tmp_path: Path) -> None:
    pack = tmp_path / "market"
    shutil.copytree(ROOT / "examples" / "market", pack)
    env = {k: v for k, v in os.environ.items() if k != "BOARDRULES_NO_CACHE"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "boardrules", "test", str(pack)], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)

    first, again = run(), run()
    assert first.returncode == 0 and again.stdout == first.stdout
    marked = tmp_path / "cache" / "boardrules" / valid_cache.CACHE
    assert not marked.exists() or not list(marked.iterdir())  # valid files: the compiled check, not the cache
    assert len(list((tmp_path / "cache" / "boardrules" / "code").iterdir())) == 1  # the linked expressions
    scenario = sorted((pack / "scenarios").glob("*.yaml"))[0]
    scenario.write_text(scenario.read_text().replace("players: 2", "players: two"))
    changed = run()
    assert changed.returncode == 1 and "E201" in changed.stdout, changed.stdout
