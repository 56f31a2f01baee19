"""The commonest YAML slips in a designer's words, found by example (as lark's `match_examples` does for parse
errors): a key indented too far or not far enough, a tab, a missing colon, an unclosed quote or bracket, a list
item at the wrong level.

`EXAMPLES` holds small bad documents for each slip. PyYAML's error for each is reduced to a signature (its problem
and context, with the token it found left out), and a real error whose signature matches one of them is told by
that slip's function, which reads the offending lines to say where and what to write instead. An error matching
no example keeps PyYAML's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import yaml
from yaml.error import MarkedYAMLError

from ..dataclass_code import dataclass


@dataclass(frozen=True, slots=True)
class Said:
    message: str
    line: int  # 1-based
    col: int
    hint: str


# Each slip, with bad documents that show it. Every example must be told as its own slip (tests/test_loader.py).
EXAMPLES: dict[str, tuple[str, ...]] = {
    "tab": ("counters:\n\tcoins: {per: player}\n", "actions:\n  buy:\n\t\ttitle: x\n",
            "counters:\n  coins:\n  \tper: player\n"),
    "indent": ("counters:\n  coins: {per: player}\n    gems: {per: player}\n",
               "actions:\n  buy:\n    title: Buy\n   cost: 1 coins\n"),
    "indent_into_value": ("actions:\n  buy:\n    title: Buy\n      cost: 1 coins\n",),
    "list_item_level": ("actions:\n  buy:\n    do:\n      - a\n     - b\n",
                        "steps:\n  - action: a\n    player: p1\n   - action: b\n"),
    "list_item_among_keys": ("actions:\n  buy:\n    do:\n      - a\n    - b\n",
                             "actions:\n  buy:\n    title: x\n    - a\n"),
    "key_among_items": ("do:\n  - a\n  b: 1\n",),
    "missing_colon": ("module: m\ntitle T\nplayers: 2\n",),
    "unclosed_quote": ("actions:\n  buy:\n    title: \"Buy\n    cost: 1 coins\n",
                       "actions:\n  buy:\n    title: 'Buy\n    cost: 1 coins\n"),
    "unclosed_bracket": ("counters:\n  coins: {per: player\n  gems: {per: player}\n",
                         "actions:\n  buy:\n    do: [a, b\n    title: x\n"),
}


def _signature(exc: MarkedYAMLError) -> tuple[str, str]:
    problem = re.sub(r"'[^']*'$|but got .*$", "", exc.problem or "").strip()
    context = re.sub(r"'.*'", "", exc.context or "").strip()
    return problem, context


@cache
def _known() -> dict[tuple[str, str], str]:
    """Signature -> slip, from the examples (made once, on the first YAML error)."""
    known: dict[tuple[str, str], str] = {}
    for slip, texts in EXAMPLES.items():
        for text in texts:
            try:
                yaml.safe_load(text)
            except MarkedYAMLError as exc:
                known.setdefault(_signature(exc), slip)
    return known


def classify(exc: MarkedYAMLError) -> str | None:
    """Which slip an error is, by the examples it looks like; None when it looks like none."""
    slip = _known().get(_signature(exc))
    if slip in ("indent", "list_item_level", "list_item_among_keys", "key_among_items"):
        return _block_slip(exc)  # these share PyYAML's words; what follows 'found' tells them apart
    if slip == "indent_into_value" and exc.problem_mark is not None:
        return slip  # `mapping values are not allowed here`: on a line indented past its key, or `a: b: c`
    return slip


def _block_slip(exc: MarkedYAMLError) -> str:
    found = (exc.problem or "").rsplit("found", 1)[-1]
    if "<block mapping start>" in found:
        return "indent"
    if "<block sequence start>" in found:
        return "list_item_level"
    if "'-'" in found:
        return "list_item_among_keys"
    return "key_among_items"


def explain(exc: MarkedYAMLError, text: str) -> Said | None:
    """The error in a designer's words at the offending line, or None to keep PyYAML's."""
    slip = classify(exc)
    if slip is None or exc.problem_mark is None:
        return None
    lines = text.splitlines()
    if not lines or exc.problem_mark.line > len(lines):
        return None
    return _SAY[slip](exc, lines)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _key(line: str) -> str:
    body = line.strip().removeprefix("- ").strip()
    return body.split(":", 1)[0].strip() if ":" in body else body


def _above(lines: list[str], index: int) -> int | None:
    """The line (0-based) above `index` that holds something, skipping blank lines and comments."""
    for i in range(index - 1, -1, -1):
        if lines[i].strip() and not lines[i].lstrip().startswith("#"):
            return i
    return None


def _levels(lines: list[str], index: int) -> list[int]:
    """The indents a line at `index` could line up with: the line above it, then each one it is nested in."""
    levels: list[int] = []
    i = _above(lines, index)
    while i is not None:
        indent = _indent(lines[i])
        if not levels or indent < levels[-1]:
            levels.append(indent)
        i = _above(lines, i)
    return levels


def _spaces(n: int) -> str:
    return f"{n} space{'s' if n != 1 else ''}"


def _tab(exc: MarkedYAMLError, lines: list[str]) -> Said:
    mark = exc.problem_mark
    assert mark is not None
    line = lines[mark.line] if mark.line < len(lines) else ""
    leading = not line[:mark.column].strip(" ")
    where = "indents this line" if leading else "separates these words"
    return Said(f"a tab {where}, and YAML cannot read tabs there", mark.line + 1, mark.column + 1,
                "tabs cannot indent YAML; use spaces (set your editor to insert spaces for the Tab key)")


def _line_of(exc: MarkedYAMLError, lines: list[str]) -> int:
    """The line the problem is on: PyYAML's mark may sit on the next token's line, after blank lines."""
    mark = exc.problem_mark
    assert mark is not None
    i = min(mark.line, len(lines) - 1)
    while i > 0 and not lines[i].strip():
        i -= 1
    return i


def _indentation(exc: MarkedYAMLError, lines: list[str]) -> Said:
    i = _line_of(exc, lines)
    above = _above(lines, i)
    line, indent = lines[i], _indent(lines[i])
    key = _key(line)
    if above is None:
        return Said(f"'{key}' is indented, but nothing above it can hold it", i + 1, indent + 1,
                    "start the first key of the file at column 1")
    up, up_indent = _key(lines[above]), _indent(lines[above])
    if indent > up_indent:
        return Said(f"'{key}' is indented more than '{up}' above it, which already has a value", i + 1, indent + 1,
                    f"line '{key}' up with '{up}' ({_spaces(up_indent)}), or give it a key of its own that ends "
                    "with ':' on the line above")
    levels = [n for n in _levels(lines, i) if n < indent] or [0]
    return Said(f"'{key}' is indented less than '{up}' above it, but not as little as any key it could belong with",
                i + 1, indent + 1, f"line '{key}' up with '{up}' ({_spaces(up_indent)}) or with a key further out "
                f"({_spaces(levels[0])})")


def _into_value(exc: MarkedYAMLError, lines: list[str]) -> Said:
    i = _line_of(exc, lines)
    above = _above(lines, i)
    line, indent = lines[i], _indent(lines[i])
    key = _key(line)
    if above is not None and indent > _indent(lines[above]) and ":" in lines[above]:
        up = _key(lines[above])
        return Said(f"'{key}' is indented more than '{up}' above it, so YAML reads it as more of the value of "
                    f"'{up}'", i + 1, indent + 1, f"line '{key}' up with '{up}' ({_spaces(_indent(lines[above]))})")
    mark = exc.problem_mark
    assert mark is not None
    return Said("a second ': ' on one line: YAML cannot tell which is the key", mark.line + 1, mark.column + 1,
                "put a value that holds ': ' in quotes: title: \"Buy: one coin\"")


def _list_level(exc: MarkedYAMLError, lines: list[str]) -> Said:
    i = _line_of(exc, lines)
    indent = _indent(lines[i])
    items = [j for j in range(i - 1, -1, -1) if lines[j].lstrip().startswith("- ") or lines[j].strip() == "-"]
    if items:
        col = _indent(lines[items[0]])
        return Said(f"this list item is indented {_spaces(indent)}, but the items above it are at {_spaces(col)}",
                    i + 1, indent + 1, f"line its '-' up with the '-' of the item above ({_spaces(col)}), on line "
                    f"{items[0] + 1}")
    return _indentation(exc, lines)


def _item_among_keys(exc: MarkedYAMLError, lines: list[str]) -> Said:
    i = _line_of(exc, lines)
    indent = _indent(lines[i])
    above = _above(lines, i)
    items = [j for j in range(i - 1, -1, -1) if lines[j].lstrip().startswith("-") and _indent(lines[j]) > indent]
    if items and above is not None and lines[above].lstrip().startswith("-"):
        col = _indent(lines[items[0]])
        return Said(f"this list item is indented {_spaces(indent)}, less than the items above it", i + 1, indent + 1,
                    f"line its '-' up with the '-' of the item above ({_spaces(col)}), on line {items[0] + 1}")
    up = _key(lines[above]) if above is not None else "the key above"
    return Said(f"a list item among the keys of a mapping (next to '{up}')", i + 1, indent + 1,
                "a list belongs under a key: end the line above it with 'key:' and indent the items under it")


def _key_among_items(exc: MarkedYAMLError, lines: list[str]) -> Said:
    i = _line_of(exc, lines)
    indent = _indent(lines[i])
    return Said(f"'{_key(lines[i])}' is a key among the items of a list", i + 1, indent + 1,
                "start it with '- ' to make it an item, or indent it under the item it belongs to")


def _missing_colon(exc: MarkedYAMLError, lines: list[str]) -> Said:
    mark = exc.context_mark or exc.problem_mark
    assert mark is not None
    line = lines[mark.line] if mark.line < len(lines) else ""
    words = line.strip().split(None, 1)
    fixed = f"{words[0]}: {words[1]}" if len(words) == 2 else f"{line.strip()}:"
    return Said(f"'{line.strip()}' has no ':' after its key", mark.line + 1, mark.column + 1,
                f"a key and its value are written 'key: value', as in: {fixed}")


def _unclosed_quote(exc: MarkedYAMLError, lines: list[str]) -> Said:
    mark = exc.context_mark or exc.problem_mark
    assert mark is not None
    line = lines[mark.line] if mark.line < len(lines) else ""
    quote = line[mark.column] if mark.column < len(line) else '"'
    return Said(f"the quote {quote} opened here is never closed", mark.line + 1, mark.column + 1,
                f"end the text with {quote} on the same line")


def _unclosed_bracket(exc: MarkedYAMLError, lines: list[str]) -> Said:
    opened, found = exc.context_mark, exc.problem_mark
    assert found is not None
    if opened is None or opened.line == found.line:
        # PyYAML stops at the ':' of the key after the missing ','; point at that key.
        before = (lines[found.line] if found.line < len(lines) else "")[:found.column].rstrip()
        word = re.search(r"[^\s,{\[]*$", before)
        col = word.start() if word is not None and word.group() else found.column
        return Said("a ',' is missing between two items of this list or mapping", found.line + 1, col + 1,
                    "separate the items of [a, b] or {a: 1, b: 2} with commas")
    line = lines[opened.line] if opened.line < len(lines) else ""
    bracket = line[opened.column] if opened.column < len(line) else "{"
    close = {"{": "}", "[": "]"}.get(bracket, "}")
    return Said(f"the '{bracket}' opened here is not closed before line {found.line + 1}", opened.line + 1,
                opened.column + 1, f"close it with '{close}' at the end of its items")


_GLUED = re.compile(r"([a-z_][\w.]*)[ \t]+([{\[])")


def glued_key(key: str, text: str, line: int, col: int) -> Said | None:
    """`coins {per: player}` is valid YAML (the key 'coins {per' with the value 'player}'), but it is always a
    missing ':' before a '{' or '['."""
    m = _GLUED.match(key)
    if m is None:
        return None
    lines = text.splitlines()
    source = lines[line - 1][col - 1:].strip() if line <= len(lines) else key
    fixed = source.replace(m.group(0), f"{m.group(1)}: {m.group(2)}", 1)
    return Said(f"'{m.group(1)}' has no ':' before its '{m.group(2)}'", line, col,
                f"a key and its value are written 'key: value', as in: {fixed}")


_SAY: dict[str, Callable[[MarkedYAMLError, list[str]], Said]] = {
    "tab": _tab,
    "indent": _indentation,
    "indent_into_value": _into_value,
    "list_item_level": _list_level,
    "list_item_among_keys": _item_among_keys,
    "key_among_items": _key_among_items,
    "missing_colon": _missing_colon,
    "unclosed_quote": _unclosed_quote,
    "unclosed_bracket": _unclosed_bracket,
}
