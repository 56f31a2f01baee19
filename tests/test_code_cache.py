"""Code objects of rule expressions: compiled once per source text, kept on disk for the next process."""

from __future__ import annotations

import marshal
import os
from pathlib import Path
from types import CodeType

import pytest

from boardrules import cache_bundle, cache_files
from boardrules.language import code_cache


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A fresh process's state of the cache; the sources really compiled."""
    monkeypatch.setattr(code_cache, "_memo", {})
    monkeypatch.setattr(code_cache, "_disk", cache_bundle.Bundle(code_cache.CACHE, code_cache._is_code))
    monkeypatch.setattr(cache_bundle.atexit, "register", lambda fn: None)  # tests save explicitly
    done: list[str] = []

    def counting(source: str, filename: str, mode: str) -> CodeType:
        done.append(source)
        return compile(source, filename, mode)

    monkeypatch.setattr(code_cache, "compile", counting, raising=False)
    return done


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "boardrules" / code_cache.CACHE


def new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    code_cache.save()
    monkeypatch.setattr(code_cache, "_memo", {})
    monkeypatch.setattr(code_cache, "_disk", cache_bundle.Bundle(code_cache.CACHE, code_cache._is_code))


def run(source: str, arg: int) -> object:
    return eval(code_cache.compile_expression(source), {})(arg)


def test_each_source_is_compiled_once_per_process(compiled: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOARDRULES_NO_CACHE", "1")
    assert run("lambda f: f + 1", 1) == 2
    assert run("lambda f: f + 1", 5) == 6
    assert run("lambda f: f * 2", 5) == 10
    assert compiled == ["lambda f: f + 1", "lambda f: f * 2"]
    new_process(monkeypatch)  # nothing on disk without the cache
    run("lambda f: f + 1", 1)
    assert compiled == ["lambda f: f + 1", "lambda f: f * 2", "lambda f: f + 1"]


def test_the_next_process_loads_the_code_from_disk(cache: Path, compiled: list[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    run("lambda f: f + 1", 1)
    new_process(monkeypatch)
    assert run("lambda f: f + 1", 2) == 3
    assert run("lambda f: f - 1", 2) == 1  # a new source is compiled and added
    new_process(monkeypatch)
    assert run("lambda f: f - 1", 2) == 1 and run("lambda f: f + 1", 2) == 3
    assert compiled == ["lambda f: f + 1", "lambda f: f - 1"]
    assert len(list(cache.iterdir())) == 1


def test_another_python_or_boardrules_is_a_miss(cache: Path, compiled: list[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    run("lambda f: f + 1", 1)
    new_process(monkeypatch)
    with monkeypatch.context() as patch:
        patch.setattr(cache_bundle, "python_id", lambda: b"another python")
        run("lambda f: f + 1", 1)
        code_cache.save()
    new_process(monkeypatch)
    with monkeypatch.context() as patch:
        patch.setattr(cache_files, "code_fingerprint", lambda: "another boardrules")
        run("lambda f: f + 1", 1)
        code_cache.save()
    new_process(monkeypatch)
    run("lambda f: f + 1", 1)
    assert compiled == ["lambda f: f + 1"] * 3
    assert len(list(cache.iterdir())) == 3


@pytest.mark.parametrize("content", [b"garbage", marshal.dumps({"lambda f: f + 1": 1}), marshal.dumps([1, 2]),
                                     marshal.dumps({"eval\0<rule expression>\0lambda f: f + 1":
                                                    compile("lambda f: 0", "elsewhere", "eval")})])
def test_a_corrupt_or_strange_bundle_is_ignored(cache: Path, compiled: list[str], monkeypatch: pytest.MonkeyPatch,
                                               content: bytes) -> None:
    run("lambda f: f + 1", 1)
    new_process(monkeypatch)
    (bundle,) = cache.iterdir()
    bundle.write_bytes(content)
    assert run("lambda f: f + 1", 1) == 2
    assert compiled == ["lambda f: f + 1"] * 2


def test_a_bundle_others_could_write_is_ignored(cache: Path, compiled: list[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    run("lambda f: f + 1", 1)
    new_process(monkeypatch)
    (bundle,) = cache.iterdir()
    os.chmod(bundle, 0o664)
    assert run("lambda f: f + 1", 1) == 2
    assert compiled == ["lambda f: f + 1"] * 2


def test_an_unusable_cache_directory_only_costs_the_cache(tmp_path: Path, compiled: list[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert run("lambda f: f + 1", 1) == 2
    new_process(monkeypatch)
    assert run("lambda f: f + 1", 1) == 2
    assert compiled == ["lambda f: f + 1"] * 2


def test_an_expression_python_refuses_still_raises(compiled: list[str]) -> None:
    with pytest.raises(SyntaxError):
        code_cache.compile_expression("lambda f: (")
    assert not code_cache._disk.fresh


def test_rule_bodies_are_kept_by_file_name_and_mode_too(cache: Path, compiled: list[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    body = "def rule(f):\n    return f + 1\n"
    first = code_cache.compile_source(body, "<rule a.yaml:3>", "exec")
    assert code_cache.compile_source(body, "<rule b.yaml:3>", "exec").co_filename == "<rule b.yaml:3>"
    new_process(monkeypatch)
    again = code_cache.compile_source(body, "<rule a.yaml:3>", "exec")
    assert again.co_filename == "<rule a.yaml:3>" and again == first
    namespace: dict = {}
    exec(again, namespace)
    assert namespace["rule"](1) == 2
    assert compiled == [body, body]
