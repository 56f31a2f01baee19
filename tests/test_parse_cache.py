"""Parsed formulas kept on disk: a tree read back is the tree the parser builds, and a change is never served."""

from __future__ import annotations

import marshal
from pathlib import Path
from typing import Any

import pytest

from boardrules import cache_bundle, cache_files
from boardrules.diagnostics import Diagnostics
from boardrules.language import parse_cache, parser
from boardrules.language import syntax as s
from boardrules.language.pack import discover, link, load_modules

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A fresh process's state of both caches; the texts the parser really parsed."""
    monkeypatch.setattr(parse_cache, "_disk", cache_bundle.Bundle(parse_cache.CACHE, parse_cache._any))
    monkeypatch.setattr(cache_bundle.atexit, "register", lambda fn: None)  # tests save explicitly
    parser.parse.cache_clear()
    done: list[str] = []
    real = parser._parse_afresh

    def counting(text: str, start: str) -> Any:
        done.append(text)
        return real(text, start)

    monkeypatch.setattr(parser, "_parse_afresh", counting)
    yield done
    parser.parse.cache_clear()


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "boardrules" / parse_cache.CACHE


def new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    parse_cache.save()
    monkeypatch.setattr(parse_cache, "_disk", cache_bundle.Bundle(parse_cache.CACHE, parse_cache._any))
    parser.parse.cache_clear()


def test_every_shipped_formula_reads_back_as_the_tree_the_parser_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    trees: list[s.Node] = []
    real = parse_cache.parse

    def recording(text: str, start: str, afresh: Any) -> s.Node:
        node = real(text, start, afresh)
        trees.append(node)
        return node

    monkeypatch.setattr(parse_cache, "parse", recording)
    parser.parse.cache_clear()
    try:
        for pack in discover([ROOT / "rules", ROOT / "tests" / "packs" / "harvest", ROOT / "tests" / "packs" / "relay"],
                             Diagnostics()):
            modules = load_modules(pack.module_files, Diagnostics())
            link(modules, list(modules), Diagnostics())
    finally:
        parser.parse.cache_clear()
    assert len(trees) > 500
    for node in trees:
        back = parse_cache._decode(marshal.loads(marshal.dumps(parse_cache._encode(node))))
        # repr tells True from 1, which == does not
        assert back == node and repr(back) == repr(node)


def test_the_next_process_reads_the_tree_from_disk(cache: Path, parsed: list[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    first = parser.parse("count(me.farm) + 2 * x", "expr")
    effect = parser.parse("me.coins += 1", "effect")
    new_process(monkeypatch)
    again = parser.parse("count(me.farm) + 2 * x", "expr")
    assert again == first and repr(again) == repr(first) and again is not first
    new_process(monkeypatch)
    assert repr(parser.parse("me.coins += 1", "effect")) == repr(effect)
    parser.parse("count(me.farm) + 2 * x", "expr")
    assert parsed == ["count(me.farm) + 2 * x", "me.coins += 1"]
    assert len(list(cache.iterdir())) == 1


def test_another_start_symbol_python_or_boardrules_is_a_miss(cache: Path, parsed: list[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    parser.parse("x", "expr")
    assert list(parse_cache._disk.fresh) == ["expr\0x"]  # the start symbol is part of the key
    new_process(monkeypatch)
    with monkeypatch.context() as patch:
        patch.setattr(cache_bundle, "python_id", lambda: b"another python")
        parser.parse("x", "expr")
        parse_cache.save()
    new_process(monkeypatch)
    with monkeypatch.context() as patch:
        patch.setattr(cache_files, "code_fingerprint", lambda: "another boardrules")
        parser.parse("x", "expr")
        parse_cache.save()
    new_process(monkeypatch)
    parser.parse("x", "expr")
    assert parsed == ["x"] * 3
    assert len(list(cache.iterdir())) == 3


def test_errors_and_trees_too_deep_are_never_stored(cache: Path, parsed: list[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    for _ in range(2):
        with pytest.raises(parser.ParseError):
            parser.parse("1 +", "expr")
        assert isinstance(parser.parse("-" * 1990 + "1", "expr"), s.Neg)
        new_process(monkeypatch)
    assert parsed == ["1 +", "-" * 1990 + "1"] * 2
    assert not cache.exists() or not list(cache.iterdir())


@pytest.mark.parametrize("entry", [["Nope", [1, 1]], ["Name", (1, 1)], ["Name", (1, 1), "x", "extra"], {"a": 1}, 3.5])
def test_an_entry_that_does_not_decode_is_parsed_afresh(cache: Path, parsed: list[str],
                                                        monkeypatch: pytest.MonkeyPatch, entry: object) -> None:
    parser.parse("x", "expr")
    new_process(monkeypatch)
    (bundle,) = cache.iterdir()
    bundle.write_bytes(marshal.dumps({"expr\0x": entry}))
    assert parser.parse("x", "expr") == s.Name((1, 1), "x")
    assert parsed == ["x", "x"]


@pytest.mark.parametrize("content", [b"garbage", marshal.dumps([1, 2]), marshal.dumps({1: ["Name", (1, 1), "x"]})])
def test_a_corrupt_table_is_ignored(cache: Path, parsed: list[str], monkeypatch: pytest.MonkeyPatch,
                                    content: bytes) -> None:
    parser.parse("x", "expr")
    new_process(monkeypatch)
    (bundle,) = cache.iterdir()
    bundle.write_bytes(content)
    assert parser.parse("x", "expr") == s.Name((1, 1), "x")
    assert parsed == ["x", "x"]


def test_an_unusable_cache_directory_only_costs_the_cache(tmp_path: Path, parsed: list[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    (tmp_path / "file").write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    parser.parse("x", "expr")
    new_process(monkeypatch)
    assert parser.parse("x", "expr") == s.Name((1, 1), "x")
    assert parsed == ["x", "x"]


def test_with_caching_off_no_tree_is_encoded(parsed: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOARDRULES_NO_CACHE", "1")
    encoded: list[object] = []
    monkeypatch.setattr(parse_cache, "_encode", lambda node, depth=0: encoded.append(node))
    assert parser.parse("count(me.farm) + 2", "expr") == parser._parse_afresh("count(me.farm) + 2", "expr")
    assert parsed == ["count(me.farm) + 2", "count(me.farm) + 2"] and encoded == []
