"""The grammar's LALR(1) parser run from tables lark made (`lalr_tables.py`), without importing lark.

Importing lark and loading its parser cost about as much as parsing every formula of the shipped packs, and
lark's contextual lexer and parser loop do more per token than these tables need. `lalr_tables.py` holds what
lark's own objects for this grammar hold: the parse table, each parser state's lexer (the very regular
expressions lark compiles, and its keyword table), and for each rule how lark shapes a reduction's children
(filtered tokens, `[optional]` placeholders, inlined `_rules`, `?rule` single children) before it calls the
transformer's method. `parse` replays lark's loop step by step with them, so a text it accepts gets the tree
lark would build, by the same calls in the same order. It stops (`Unparsed`) where lark would raise an error:
the caller then asks lark, whose error message is the one reported. `tests/test_lalr.py` compares the two.

Regenerate with the parser's tables:  python -m boardrules.language.make_tables
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import lalr_tables as tables
from .regex_code import compiled


class Tok(str):
    """A token as the transformer reads it: the matched text, its terminal's name and where it starts."""

    __slots__ = ("column", "line", "type")

    type: str
    line: int
    column: int


class Unparsed(Exception):
    """The text is not in the grammar: lark, asked again, says why."""


# A state's lexer: the match functions of its expressions (tried in order), the terminals it skips, those
# that may hold a line break, and the keywords a terminal's text may turn out to be.
_Lexer = tuple[list[Callable[..., Any]], frozenset[str], frozenset[str], dict[str, dict[str, str]]]
_lexers: list[_Lexer | None] = [None] * len(tables.LEXERS)


def _lexer(index: int) -> _Lexer:
    # Compiled when first needed: a run meets only some of the states.
    patterns, ignore, newline, keywords = tables.LEXERS[index]
    made = _lexers[index] = ([compiled(p).match for p in patterns], frozenset(ignore), frozenset(newline),
                             keywords)
    return made


# A rule's reduction, with the transformer's method bound: (origin, size, method, to_include, append_none,
# expand1), as lalr_tables.RULES, but the method's name replaced by the bound method (None: an inlined rule).
_Rule = tuple[str, int, Callable[..., Any] | None, tuple[tuple[int, bool, int], ...] | None, int, bool]


def bind(transformer: object) -> list[_Rule]:
    """The rules with `transformer`'s methods (its methods are called with the children as arguments)."""
    return [(origin, size, None if name is None else getattr(transformer, name), include, nones, expand1)
            for origin, size, name, include, nones, expand1 in tables.RULES]


def parse(text: str, start: str, rules: list[_Rule]) -> Any:
    """What lark's parser, with the transformer `rules` were bound to, returns for `text` from `start`;
    raises Unparsed where lark would raise an error (exceptions of the transformer's methods pass through)."""
    states, state_lexer, lexers = tables.STATES, tables.STATE_LEXER, _lexers
    stack = [tables.START[start]]
    values: list[Any] = []
    end_state = tables.END[start]
    pos, line, line_start, n = 0, 1, 0, len(text)
    while True:
        # The next token, lexed in the parser's state after the last shift (lark's contextual lexer).
        tok: Tok | None = None
        while pos < n:
            index = state_lexer[stack[-1]]
            lexer = lexers[index] or _lexer(index)
            for match in lexer[0]:
                m = match(text, pos, n)
                if m:
                    break
            else:
                raise Unparsed
            value, kind = m.group(0), m.lastgroup
            ignored = kind in lexer[1]
            if not ignored:
                tok = Tok(value)
                tok.line, tok.column = line, pos - line_start + 1
            if kind in lexer[2]:
                breaks = value.count("\n")
                if breaks:
                    line += breaks
                    line_start = pos + value.rindex("\n") + 1
            pos += len(value)
            if tok is not None:
                keyword = lexer[3].get(kind)
                tok.type = kind if keyword is None else keyword.get(value, kind)
                break
        kind = "$END" if tok is None else tok.type
        # Reduce as the token asks, then shift it (at the end: reduce until the start symbol is complete).
        while True:
            action = states[stack[-1]].get(kind)
            if action is None:
                raise Unparsed
            if action >= 0:
                if tok is None:
                    raise Unparsed
                stack.append(action)
                values.append(tok)
                break
            origin, size, method, include, nones, expand1 = rules[~action]
            if size:
                children = values[-size:]
                del stack[-size:]
                del values[-size:]
            else:
                children = []
            if include is not None:  # lark's ChildFilterLALR
                kept: list[Any] = []
                for i, inline, add_none in include:
                    if add_none:
                        kept += [None] * add_none
                    if not inline:
                        kept.append(children[i])
                    elif kept:
                        kept += children[i]
                    else:
                        kept = children[i]
                if nones:
                    kept += [None] * nones
                children = kept
            if expand1 and len(children) == 1:
                result = children[0]
            elif method is not None:
                result = method(*children)
            else:
                result = children  # an inlined rule: its parent takes its children
            goto = states[stack[-1]][origin]
            stack.append(goto)
            values.append(result)
            if tok is None and goto == end_state:
                return result
