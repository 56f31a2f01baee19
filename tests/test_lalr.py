"""The lark-free parser (language/lalr.py) builds the tree lark builds, and leaves every text lark rejects to it."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from boardrules.language import lalr, lalr_tables, parser, tables
from boardrules.language import syntax as s
from boardrules.language.pack import PROSE_KEYS

ROOT = Path(__file__).resolve().parent.parent
PACK_DIRS = ("rules", "tests/packs", "tests/broken_packs", "examples")


def same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (a lark Token where a str belongs would differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, s.Node):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return bool(a == b)


def both(text: str, start: str) -> tuple[object, object]:
    """What lark and the fast parser make of a text: a tree, or the type of lark's error / None."""
    fast = parser._fast()
    assert fast is not None
    try:
        want: object = parser._parser().parse(text, start=start)
    except Exception as exc:  # any error: the fast parser must leave the text to lark
        want = type(exc)
    try:
        got: object = fast(text, start)
    except Exception as exc:  # the transformer's own errors pass through, as in lark
        got = type(exc)
    return want, got


def agree(text: str, start: str) -> bool:
    """Assert the two agree; whether the text parsed."""
    want, got = both(text, start)
    if isinstance(want, type) and issubclass(want, Exception) and want.__module__.startswith("lark"):
        assert got is None, (text, start, got)
        return False
    assert same(got, want), (text, start, got, want)
    return isinstance(got, s.Node)


def test_the_tables_are_regenerated_from_the_grammar() -> None:
    source = tables.lalr_source(tables.grammar_text(), parser.lark_transformer())
    assert tables.LALR_FILE.read_text(encoding="utf-8") == source, "run: python -m boardrules.language.make_tables"
    assert tables.grammar_fingerprint(tables.grammar_text()) == lalr_tables.FINGERPRINT


def test_an_edited_grammar_is_parsed_by_lark_alone(monkeypatch: Any) -> None:
    monkeypatch.setattr(tables, "grammar_text", lambda: "// edited\n" + (ROOT / "grammar" / "rules.lark").read_text())
    parser._fast.cache_clear()
    try:
        assert parser._fast() is None
    finally:
        monkeypatch.undo()
        parser._fast.cache_clear()
    assert parser._fast() is not None


def pack_strings() -> list[str]:
    """Every distinct string of the repository's packs that is not prose (and every mapping key)."""
    found: set[str] = set()

    def walk(node: object, key: str | None) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                found.add(str(k))
                walk(v, str(k))
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, str) and key not in PROSE_KEYS:
            found.add(node)

    for folder in PACK_DIRS:
        for path in sorted((ROOT / folder).rglob("*.yaml")):
            try:
                walk(yaml.safe_load(path.read_text(encoding="utf-8")), None)
            except yaml.YAMLError:
                continue  # a broken pack's broken file
    return sorted(found)


def test_every_string_of_every_pack_parses_as_lark_parses_it_from_every_start() -> None:
    strings = pack_strings()
    assert len(strings) > 1500
    parsed = 0
    for text in strings:
        for start in parser.START_SYMBOLS:
            parsed += agree(text, start)
    assert parsed > 1000  # the formulas themselves, not only texts both refuse


WORDS = ["let", "pay", "by", "move", "to", "at", "create", "in", "with", "as", "remove", "link", "unlink", "choose",
         "from", "roll", "draw", "shuffle", "refill", "advance", "place", "emit", "defer", "until", "call", "require",
         "else", "fail", "limit", "per", "end", "now", "after", "this", "next", "turn", "round", "game", "action",
         "score", "proceed", "take", "pass", "count", "optional", "or", "nothing", "lacking", "each", "where",
         "sorted", "desc", "if", "and", "not", "can_pay", "can", "for", "true", "false", "none", "me", "x", "a_1",
         "trueish", "note", "forx", "0", "7", "12345", "99999999999999999999", '"text"', "'t'", '"', "$p1", "$",
         "+", "-", "*", "/", "%", "==", "!=", "<=", ">=", "<", ">", "=", "+=", "-=", "..", ".", ",", "(", ")", "[",
         "]", "@", "#", "é", "A", "_"]
SPACES = [" ", " ", " ", "", "\n", "\t", "  \n ", "\r\n"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SPACES)), max_size=14),
       st.sampled_from(parser.START_SYMBOLS))
def test_texts_made_of_the_grammars_words_parse_as_lark_parses_them(words: list[tuple[str, str]], start: str) -> None:
    agree("".join(w + sp for w, sp in words), start)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40), st.sampled_from(parser.START_SYMBOLS))
def test_any_text_parses_as_lark_parses_it(text: str, start: str) -> None:
    agree(text, start)


def test_a_number_too_long_for_int_fails_in_both_as_the_transformer_fails() -> None:
    assert both("1" * 5000, "expr") == (ValueError, ValueError)


def test_tokens_carry_their_line_and_column_across_line_breaks() -> None:
    node = parser._parse_afresh("1 +\n  foo", "expr")
    assert node == s.BinOp((1, 3), "+", s.Literal((1, 1), 1), s.Name((2, 3), "foo"))


def test_a_text_lark_rejects_stops_the_fast_parser() -> None:
    rules = lalr.bind(parser._ToSyntax())
    for text in ("1 +", "@", "", "let = 3", "move x"):
        try:
            lalr.parse(text, "effect", rules)
        except lalr.Unparsed:
            continue
        raise AssertionError(text)


def test_check_never_imports_lark_for_packs_that_parse() -> None:
    code = ("import sys, io, contextlib\nfrom boardrules.tools import cli\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    cli.main(['check', '--no-cache', 'rules'])\n"
            "print('lark' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                          env={"BOARDRULES_NO_CACHE": "1", "PATH": ""}, timeout=120)
    assert done.stdout.strip() == "False"
