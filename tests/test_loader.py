"""The safe YAML loader: values, positions, limits, and every load error with its exact place."""

from __future__ import annotations

import copy
import itertools
import os
import pickle
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import Diagnostic, Diagnostics, Span
from boardrules.language import loader, yaml_slips
from boardrules.language.loader import YList, YMap, YStr, key_span_at, load_yaml, load_yaml_text, span_at

F = "rules/x.yaml"


def load(text: str) -> tuple[object | None, list[Diagnostic]]:
    diags = Diagnostics()
    value = load_yaml_text(text, F, diags)
    return value, diags.items


def ok(text: str) -> object:
    value, items = load(text)
    assert items == [], items
    return value


def only(text: str) -> tuple[object | None, Diagnostic]:
    value, items = load(text)
    assert len(items) == 1, items
    return value, items[0]


def at(d: Diagnostic) -> tuple[str, int, int]:
    assert d.span is not None
    return d.code, d.span.line, d.span.col


def S(line: int, col: int) -> Span:
    return Span(F, line, col)


# ---- values ------------------------------------------------------------------------------------------------


def test_scalars_convert_as_safe_loader_does() -> None:
    doc = ok(
        "i: 42\nneg: -3\nhex: 0x1f\nf: 1.5\ninf: .inf\nt: true\ny: yes\nn: no\noff: off\n"
        "z: null\ntilde: ~\nempty:\ns: hello\nq: '42'\nd: 2001-12-14\nts: 2001-12-14 21:59:43.10 -5\n"
        "eq: =\nlt: <<\nexplicit: !!str 12\nfloat: !!float 3\n"
    )
    assert doc == {
        "i": 42, "neg": -3, "hex": 31, "f": 1.5, "inf": float("inf"), "t": True, "y": True, "n": False,
        "off": False, "z": None, "tilde": None, "empty": None, "s": "hello", "q": "42", "d": "2001-12-14",
        "ts": "2001-12-14 21:59:43.10 -5", "eq": "=", "lt": "<<", "explicit": "12", "float": 3.0,
    }
    assert isinstance(doc, YMap)
    for key in ("s", "q", "d", "ts", "eq", "explicit"):
        assert isinstance(doc[key], YStr), key
    assert type(doc["i"]) is int and type(doc["t"]) is bool and type(doc["f"]) is float


def test_keys_stay_as_written() -> None:
    # `on:` is a trigger's key and `1:` a player-count row: they must not become True and 1.
    doc = ok("on: round_end\n1: a\nyes: b\nnull: c\n0x10: d\n'quoted': e\n")
    assert list(doc) == ["on", "1", "yes", "null", "0x10", "quoted"]
    assert all(isinstance(k, YStr) for k in doc)


def test_nested_structures_are_ymap_and_ylist() -> None:
    doc = ok("a:\n  - {b: [1, 2]}\n  - []\n")
    assert doc == {"a": [{"b": [1, 2]}, []]}
    assert isinstance(doc["a"], YList) and isinstance(doc["a"][0], YMap)
    assert isinstance(doc["a"][0]["b"], YList)


def test_a_plain_scalar_document_is_returned_as_is() -> None:
    assert ok("just text\n") == "just text"
    assert ok("[1, 2]") == [1, 2]


def test_aliases_expand_to_independent_copies() -> None:
    doc = ok("a: &x {k: [1, 2]}\nb: *x\nc: *x\n")
    assert doc["b"] == {"k": [1, 2]} and doc["c"] == {"k": [1, 2]}
    assert doc["b"] is not doc["a"] and doc["b"]["k"] is not doc["a"]["k"]
    # Where the alias is used, not where the anchor was defined.
    assert doc.value_spans["b"] == S(2, 4)
    assert span_at(doc, ["b"]) == S(2, 4)


def test_alias_of_a_scalar_used_as_a_key() -> None:
    doc = ok("a: &k name\n*k : 2\n")
    assert doc == {"a": "name", "name": 2}


def test_ystr_survives_copy_and_pickle() -> None:
    doc = ok("a: 'x'\nb: [y]\n")
    for other in (copy.deepcopy(doc), pickle.loads(pickle.dumps(doc))):
        assert other == doc
        assert other["a"].span == S(1, 4) and other["a"].style == "'"
        assert other.key_spans == doc.key_spans and other["b"].item_spans == doc["b"].item_spans


# ---- positions ---------------------------------------------------------------------------------------------


def test_key_value_and_item_positions() -> None:
    text = "module: demo\nlist:\n  - one\n  - two: 2\n    three: 3\nflow: {x: 1, y: [a, b]}\n"
    doc = ok(text)
    assert doc.span == S(1, 1)
    assert doc.key_spans == {"module": S(1, 1), "list": S(2, 1), "flow": S(6, 1)}
    assert doc.value_spans == {"module": S(1, 9), "list": S(3, 3), "flow": S(6, 7)}
    assert doc["list"].span == S(3, 3)
    assert doc["list"].item_spans == [S(3, 5), S(4, 5)]
    inner = doc["list"][1]
    assert inner.key_spans == {"two": S(4, 5), "three": S(5, 5)}
    assert inner.value_spans == {"two": S(4, 10), "three": S(5, 12)}
    assert doc["flow"].span == S(6, 7)
    assert doc["flow"].key_spans == {"x": S(6, 8), "y": S(6, 14)}
    assert doc["flow"]["y"].item_spans == [S(6, 18), S(6, 21)]
    assert doc["module"].span == S(1, 9)


def test_string_positions_and_styles() -> None:
    text = (
        "plain: some text\n"
        "single: 'it''s'\n"
        "double: \"a\\tb\"\n"
        "literal: |\n  line one\n  line two\n"
        "folded: >-\n  folded\n  text\n"
        "items: [x, 'y', \"z\"]\n"
    )
    doc = ok(text)
    expected = {
        "plain": (S(1, 8), None, "some text"),
        "single": (S(2, 9), "'", "it's"),
        "double": (S(3, 9), '"', "a\tb"),
        "literal": (S(4, 10), "|", "line one\nline two\n"),
        "folded": (S(7, 9), ">", "folded text"),
    }
    for key, (span, style, value) in expected.items():
        assert doc[key] == value
        assert doc[key].span == span, key
        assert doc[key].style == style, key
    items = doc["items"]
    assert [s.span for s in items] == [S(10, 9), S(10, 12), S(10, 17)]
    assert [s.style for s in items] == [None, "'", '"']


def test_string_span_skips_anchor_and_tag() -> None:
    doc = ok("a: &x !!str 'v'\nb: !!str\n  w\nc: &y\n  k: 1\n")
    assert doc["a"].span == S(1, 13)
    assert doc["b"].span == S(3, 3)
    assert doc["c"].span == S(5, 3)


def test_crlf_and_byte_order_mark() -> None:
    doc = ok("\ufeffa: 1\r\nb:\r\n  - x\r\n")
    assert doc.key_spans == {"a": S(1, 1), "b": S(2, 1)}
    assert doc["b"][0].span == S(3, 5)


def test_span_at_and_key_span_at() -> None:
    doc = ok("actions:\n  marry:\n    cost: 3\n    do: [a, {x: 1}]\n")
    assert span_at(doc, []) == S(1, 1)
    assert span_at(doc, ["actions", "marry", "cost"]) == S(3, 11)
    assert key_span_at(doc, ["actions", "marry", "cost"]) == S(3, 5)
    assert span_at(doc, ["actions", "marry", "do", 1, "x"]) == S(4, 17)
    assert key_span_at(doc, ["actions", "marry", "do", 1, "x"]) == S(4, 14)
    # Unknown steps fall back to the nearest ancestor that exists.
    assert span_at(doc, ["actions", "marry", "nothing", 3]) == S(3, 5)
    assert span_at(doc, ["actions", "marry", "do", 7]) == S(4, 9)
    assert key_span_at(doc, ["actions", "missing"]) == S(2, 3)
    # A list index asked of a list: key_span_at has no key there, so it gives the item.
    assert key_span_at(doc, ["actions", "marry", "do", 0]) == S(4, 10)
    assert span_at({"plain": "dict"}, ["plain"]) is None


# ---- errors ------------------------------------------------------------------------------------------------


def test_e101_an_error_no_slip_explains_keeps_the_problem_mark_and_context() -> None:
    value, d = only("a: [1, 2]\nb: @c\n")
    assert value is None
    assert at(d) == ("E101", 2, 4)
    assert d.message == "found character '@' that cannot start any token"
    assert d.hint == "while scanning for the next token"


# Each common slip: where it is reported, in what words, and the hint's advice.
SLIPS = [
    ("a:\n\tb: 1\n", (2, 1), "a tab indents this line, and YAML cannot read tabs there",
     "tabs cannot indent YAML; use spaces"),
    ("counters:\n  coins: {per: player}\n    gems: {per: player}\n", (3, 5),
     "'gems' is indented more than 'coins' above it, which already has a value",
     "line 'gems' up with 'coins' (2 spaces)"),
    ("actions:\n  buy:\n    title: Buy\n   cost: 1 coins\n", (4, 4),
     "'cost' is indented less than 'title' above it, but not as little as any key it could belong with",
     "line 'cost' up with 'title' (4 spaces) or with a key further out (2 spaces)"),
    ("actions:\n  buy:\n    title: Buy\n      cost: 1 coins\n", (4, 7),
     "'cost' is indented more than 'title' above it, so YAML reads it as more of the value of 'title'",
     "line 'cost' up with 'title' (4 spaces)"),
    ("a: b: c\n", (1, 5), "a second ': ' on one line: YAML cannot tell which is the key", "in quotes"),
    ("steps:\n  - action: a\n    player: p1\n   - action: b\n", (4, 4),
     "this list item is indented 3 spaces, but the items above it are at 2 spaces",
     "line its '-' up with the '-' of the item above (2 spaces), on line 2"),
    ("x:\n  do:\n    - a\n  - b\n", (4, 3), "this list item is indented 2 spaces, less than the items above it",
     "(4 spaces), on line 3"),
    ("buy:\n  title: x\n  - a\n", (3, 3), "a list item among the keys of a mapping (next to 'title')",
     "end the line above it with 'key:'"),
    ("do:\n  - a\n  b: 1\n", (3, 3), "'b' is a key among the items of a list", "start it with '- '"),
    ("module: m\ntitle T\nplayers: 2\n", (2, 1), "'title T' has no ':' after its key", "as in: title: T"),
    ("counters:\n  coins {per: player}\n", (2, 3), "'coins' has no ':' before its '{'",
     "as in: coins: {per: player}"),
    ("a:\n  title: \"Buy\n  cost: 1\n", (2, 10), "the quote \" opened here is never closed",
     "end the text with \" on the same line"),
    ("a: [1, 2\nb: 3\n", (1, 4), "the '[' opened here is not closed before line 2", "close it with ']'"),
    ("a: {b: 1 c: 2}\n", (1, 10), "a ',' is missing between two items of this list or mapping", "with commas"),
]


@pytest.mark.parametrize(("text", "where", "message", "hint"), SLIPS)
def test_e101_common_slips_in_a_designers_words(text: str, where: tuple[int, int], message: str,
                                                hint: str) -> None:
    _, d = only(text)
    assert at(d) == ("E101", *where)
    assert d.message == message
    assert d.hint is not None and hint in d.hint


@settings(max_examples=500, deadline=None)
@given(st.text(" \t\n:-{}[]'\"#,ab", max_size=40))
def test_e101_any_slip_is_said_without_failing(text: str) -> None:
    _, items = load(text)
    assert all(d.code in {"E101", "E102", "E103", "E104", "E105", "E201"} for d in items), items


def test_e101_every_example_of_a_slip_is_told_as_that_slip() -> None:
    for slip, texts in yaml_slips.EXAMPLES.items():
        for text in texts:
            with pytest.raises(yaml.MarkedYAMLError) as caught:
                yaml.safe_load(text)
            assert yaml_slips.classify(caught.value) == slip, text
            _, d = only(text)
            assert d.code == "E101" and "expected <block end>" not in d.message and "'\\t'" not in d.message


def test_e101_more_than_one_document() -> None:
    value, d = only("a: 1\n---\nb: 2\n")
    assert value is None
    assert at(d) == ("E101", 2, 1) and d.message == "a rule file holds one YAML document"


def test_e101_aliases() -> None:
    _, d = only("a: *nope\n")
    assert at(d) == ("E101", 1, 4) and d.message == "unknown alias '*nope'"
    _, d = only("a: &r [1, *r]\n")
    assert at(d) == ("E101", 1, 11) and "contains it" in d.message
    _, d = only("a: &x 1\nb: &x 2\n")
    assert at(d) == ("E101", 2, 4) and d.message == "duplicate anchor '&x' (first at line 1)"


def test_e101_control_characters() -> None:
    _, d = only("a: 1\nb: x\x07y\n")
    assert at(d) == ("E101", 2, 5) and "#x0007" in d.message


def test_e102_duplicate_key_at_the_second_key() -> None:
    value, d = only("a: 1\nb: 2\n  # note\na: 3\n")
    assert at(d) == ("E102", 4, 1)
    assert d.message == "duplicate key 'a' (first at line 1)"
    assert value == {"a": 1, "b": 2}


def test_e102_nested_and_in_flow_and_by_text() -> None:
    _, items = load("x:\n  y: {k: 1, k: 2}\n  1: a\n  '1': b\n")
    assert [(at(d), d.message) for d in items] == [
        (("E102", 2, 13), "duplicate key 'k' (first at line 2)"),
        (("E102", 4, 3), "duplicate key '1' (first at line 3)"),
    ]


@pytest.mark.parametrize(
    ("text", "where", "tag"),
    [
        ("a: !!python/object/apply:os.system ['echo hacked']\n", (1, 4), "!!python/object/apply:os.system"),
        ("a: !!python/name:os.system\n", (1, 4), "!!python/name:os.system"),
        ("a: !!python/object:builtins.dict {x: 1}\n", (1, 4), "!!python/object:builtins.dict"),
        ("a:\n  - !foo bar\n", (2, 5), "!foo"),
        ("a: !!binary aGVsbG8=\n", (1, 4), "!!binary"),
        ("a: !!set {x, y}\n", (1, 4), "!!set"),
        ("a: !!omap [x: 1]\n", (1, 4), "!!omap"),
        ("a: !!map [1]\n", (1, 4), "!!map"),
        ("a: !!seq x\n", (1, 4), "!!seq"),
        ("? !!python/tuple [1]\n: v\n", (1, 3), "!!python/tuple"),
        ("!!python/name:os.system k: v\n", (1, 1), "!!python/name:os.system"),
    ],
)
def test_e103_tags_are_rejected_and_their_value_dropped(text: str, where: tuple[int, int], tag: str) -> None:
    value, d = only(text)
    assert at(d) == ("E103", *where)
    assert d.message == f"tag '{tag}' is not allowed"
    assert value in ({}, {"a": []})


def test_e103_python_object_apply_does_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    value, d = only(f"x: !!python/object/apply:os.system ['touch {marker}']\n")
    assert d.code == "E103" and not marker.exists() and value == {}
    assert ok("ok: true") == {"ok": True}
    assert not os.path.exists(marker)


def test_e103_a_rejected_root_gives_none() -> None:
    value, d = only("!!python/object:x {a: 1}\n")
    assert value is None and at(d) == ("E103", 1, 1)


def test_e103_a_value_that_does_not_fit_its_core_tag() -> None:
    value, d = only("a: !!int abc\nb: !!int 0x10\n")
    assert at(d) == ("E103", 1, 4) and d.message == "'abc' is not a valid !!int"
    assert value == {"b": 16}
    value, d = only("a: !!bool maybe\n")
    assert d.message == "'maybe' is not a valid !!bool" and value == {}


def test_e104_nesting_deeper_than_64() -> None:
    assert ok("[" * 64 + "]" * 64) is not None
    value, d = only("[" * 65 + "]" * 65)
    assert value is None and at(d) == ("E104", 1, 65)
    block = "".join("  " * i + "-\n" for i in range(70))
    _, d = only(block)
    assert at(d) == ("E104", 65, 129)


def test_e104_nesting_reached_through_an_alias() -> None:
    deep = "[" * 40 + "]" * 40
    _, d = only(f"a: &x {deep}\nb: " + "[" * 30 + "*x" + "]" * 30 + "\n")
    assert at(d) == ("E104", 2, 34) and "nesting" in d.message


def test_e104_billion_laughs_stops_early() -> None:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    names = "abcdefghi"
    for prev, name in itertools.pairwise(names):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    value, d = only("\n".join(lines) + "\n")
    assert value is None
    # a=10 nodes, b=91, c=820, d=7381, e=66430: the count passes 10 000 in the first alias-row that could.
    assert at(d) == ("E104", 5, 8) and "too many nodes" in d.message


def test_e104_node_limit_counts_plain_nodes_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader, "MAX_NODES", 1000)  # the real limit takes seconds of parsing to reach
    assert isinstance(ok("- a\n" * 999), list)  # 999 items and the list: exactly at the limit
    value, d = only("- a\n" * 1000)
    assert value is None and at(d) == ("E104", 1000, 3)


def test_node_limit_is_10_000() -> None:
    assert loader.MAX_NODES == 10_000 and loader.MAX_DEPTH == 64 and loader.MAX_BYTES == 256 * 1024


def test_e104_file_too_large(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("a: '" + "x" * (1024 * 1024) + "'\n", encoding="utf-8")
    diags = Diagnostics()
    assert load_yaml(path, diags, display="big.yaml") is None
    [d] = diags.items
    assert d.code == "E104" and d.span == Span("big.yaml", 1, 1) and "too large" in d.message
    _, d = only("a: '" + "é" * (150 * 1024) + "'")  # under the limit in characters, over it in bytes
    assert d.code == "E104"


def test_e105_unreadable_files(tmp_path: Path) -> None:
    cases = {
        "missing": tmp_path / "nope.yaml",
        "directory": tmp_path,
    }
    binary = tmp_path / "image.yaml"
    binary.write_bytes(b"a: 1\nb: \x89PNG\r\n\x1a\n\x00\x00")
    cases["binary"] = binary
    for name, path in cases.items():
        diags = Diagnostics()
        assert load_yaml(path, diags) is None, name
        [d] = diags.items
        assert d.code == "E105", name
        assert d.span is not None and d.span.file == str(path)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.yaml"
        os.mkfifo(fifo)
        diags = Diagnostics()
        assert load_yaml(fifo, diags) is None  # and does not block waiting for a writer
        assert diags.items[0].message.endswith("not a regular file")
    diags = Diagnostics()
    load_yaml(binary, diags, display="image.yaml")
    assert diags.items[0].span == Span("image.yaml", 2, 4)
    assert diags.items[0].message == "file is not UTF-8 text"


@pytest.mark.parametrize("text", ["", "   \n", "# only a comment\n", "---\n", "~\n", "null\n"])
def test_e105_empty_or_null_file(text: str) -> None:
    value, d = only(text)
    assert value is None and at(d) == ("E105", 1, 1)


def test_load_yaml_reads_a_file_and_names_it(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text("\ufeffmodule: m\ntitle: T\n", encoding="utf-8")
    diags = Diagnostics()
    doc = load_yaml(path, diags, display="pack/m.yaml")
    assert diags.items == [] and doc == {"module": "m", "title": "T"}
    assert doc.key_spans["title"] == Span("pack/m.yaml", 2, 1)
    assert load_yaml(path, Diagnostics()).span.file == str(path)


def test_e201_merge_key_at_the_key() -> None:
    value, d = only("base: &b {x: 1}\nother:\n  <<: *b\n  y: 2\n")
    assert at(d) == ("E201", 3, 3) and d.message == "merge keys are not supported"
    assert value == {"base": {"x": 1}, "other": {"y": 2}}
    assert ok("'<<': quoted is a plain key\n") == {"<<": "quoted is a plain key"}


def test_e201_collection_as_key() -> None:
    value, d = only("? [a, b]\n: 1\nc: 2\n")
    assert at(d) == ("E201", 1, 3) and value == {"c": 2}


def test_all_problems_of_a_file_are_reported() -> None:
    value, items = load("a: 1\na: 2\nb: !!binary eA==\n<<: {}\n")
    assert [at(d) for d in items] == [("E102", 2, 1), ("E103", 3, 4), ("E201", 4, 1)]
    assert value == {"a": 1}


def test_an_internal_failure_is_e900_not_a_yaml_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(loader._Builder, "run", broken)
    value, d = only("a: 1\n")
    assert value is None and at(d) == ("E900", 1, 1) and "boom" in d.message


# ---- never raises ------------------------------------------------------------------------------------------

VALID = """\
module: demo.base
title: Demo
requires: [demo.core]
values:
  start: 4
  table: {by_players: {1: 2, 2: 3}}
actions:
  take:
    source: 'rules.txt, "Take" 1'
    allowed_if: count(me.farm) > 0
    do:
      - "me.time += 2"
      - if: me.time >= 2
        then: [pay "2 time"]
        else:
          - fail "no"
      - |
        let x = 1
anchors: &a [1, 2, {k: v}]
again: *a
"""


def _check(text: str) -> None:
    diags = Diagnostics()
    value = load_yaml_text(text, F, diags)
    if value is None:
        assert diags.items, "None must come with a diagnostic"
    for d in diags.items:
        assert d.span is not None and d.span.file == F
        assert d.span.line >= 1 and d.span.col >= 1
        assert d.code in {"E101", "E102", "E103", "E104", "E105", "E201"}


YAML_ALPHABET = st.sampled_from([*"ab:-?&*!|>'\"#{}[],.<= \n\t\r%@`\\~01", "\x00", "\x85", "\u2028", "é"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_random_text_never_raises(text: str) -> None:
    _check(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=YAML_ALPHABET, max_size=80))
def test_yaml_like_text_never_raises(text: str) -> None:
    _check(text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_decoded_leniently_never_raise(data: bytes) -> None:
    _check(data.decode("utf-8", errors="surrogateescape"))
    _check(data.decode("latin-1"))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_valid_yaml_never_raises(data: st.DataObject) -> None:
    text = VALID
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(text)))
        op = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = data.draw(st.text(alphabet=YAML_ALPHABET, min_size=1, max_size=4))
        if op == "insert":
            text = text[:pos] + piece + text[pos:]
        elif op == "delete":
            text = text[:pos] + text[pos + len(piece):]
        else:
            text = text[:pos] + piece + text[pos + len(piece):]
    _check(text)


def test_the_valid_sample_loads() -> None:
    doc = ok(VALID)
    assert doc["again"] == [1, 2, {"k": "v"}]
    assert doc["values"]["table"]["by_players"] == {"1": 2, "2": 3}
