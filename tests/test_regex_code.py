"""The lexers' patterns made from regex_table.py are the patterns `re.compile` makes (language/regex_code.py)."""

from __future__ import annotations

import re

import pytest

from boardrules.language import regex_code, regex_table


def test_the_table_is_fresh() -> None:
    if regex_code._engine() != regex_table.ENGINE:
        pytest.skip("the table was made for another regular-expression engine (it is not used here)")
    assert regex_code.TABLE_FILE.read_text(encoding="utf-8") == regex_code.generate(regex_code.lexer_patterns()), \
        "run: python -m boardrules.language.regex_code"


@pytest.mark.parametrize("pattern", regex_code.lexer_patterns())
def test_each_entry_makes_the_pattern_re_compile_makes(pattern: str) -> None:
    made, fresh = regex_code.compiled(pattern), re.compile(pattern)
    assert made is not fresh or pattern not in regex_table.CODE  # not re's own cached object
    # Pattern equality compares the pattern, its flags and its whole matching code.
    assert made == fresh
    assert (made.groups, made.groupindex, made.flags) == (fresh.groups, fresh.groupindex, fresh.flags)
    for text in ("me.coins += 1", "'wine' in goods", "$piece_1.zone", "  \n-3 >= count(x)", "\"a b\"", "if"):
        for pos in range(len(text)):
            a, b = made.match(text, pos), fresh.match(text, pos)
            assert (a and (a.group(0), a.lastgroup, a.span())) == (b and (b.group(0), b.lastgroup, b.span()))


def test_another_engine_or_pattern_is_compiled_as_usual(monkeypatch: pytest.MonkeyPatch) -> None:
    pattern = regex_code.lexer_patterns()[0]
    assert regex_code.compiled("(?P<X>ab+)") is re.compile("(?P<X>ab+)")
    monkeypatch.setattr(regex_code, "_engine", lambda: (-1,))
    assert regex_code.compiled(pattern) is re.compile(pattern)
