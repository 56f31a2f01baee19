"""Diagnostics: every problem boardrules finds, at any stage, as one value with a place in a file."""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import field
from typing import Any

import yaml

from .dataclass_code import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    """A place in a source file; lines and columns count from 1."""

    file: str
    line: int
    col: int
    end_line: int | None = None
    end_col: int | None = None
    # The source text of what the span covers (an effect line, a condition); not part of the place itself.
    text: str | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


_new = object.__new__
_FILE, _LINE, _COL, _END_LINE, _END_COL, _TEXT = (
    Span.__dict__[name].__set__ for name in ("file", "line", "col", "end_line", "end_col", "text"))


def new_span(file: str, line: int, col: int) -> Span:
    """`Span(file, line, col)`: the same object, made without the frozen dataclass's `__init__`, which sets each
    field through `object.__setattr__` (a check of the shipped packs makes about 30,000 spans, most of them
    here: one per YAML node and per place inside a formula)."""
    span = _new(Span)
    _FILE(span, file)
    _LINE(span, line)
    _COL(span, col)
    _END_LINE(span, None)
    _END_COL(span, None)
    _TEXT(span, None)
    return span


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found: how severe, its code and message, where, and a hint."""

    severity: str  # "error" or "warning"
    code: str
    message: str
    span: Span | None = None
    hint: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.span.file if self.span else None,
            "line": self.span.line if self.span else None,
            "column": self.span.col if self.span else None,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
        }


class BoardrulesError(Exception):
    """An error that stops a stage (a failed action, a fatal load problem); it carries its diagnostic."""

    def __init__(self, code: str, message: str, span: Span | None = None, hint: str | None = None):
        super().__init__(message)
        self.diagnostic = Diagnostic("error", code, message, span, hint)
        self.diagnostics = [self.diagnostic]  # a failed load carries every error of the run

    @property
    def code(self) -> str:
        return self.diagnostic.code


class Diagnostics:
    """Collects every problem of a run, so all of them are reported together."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []

    def error(self, code: str, message: str, span: Span | None = None, hint: str | None = None) -> None:
        self.items.append(Diagnostic("error", code, message, span, hint))

    def warning(self, code: str, message: str, span: Span | None = None, hint: str | None = None) -> None:
        self.items.append(Diagnostic("warning", code, message, span, hint))

    def add(self, diagnostic: Diagnostic) -> None:
        self.items.append(diagnostic)

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.items.extend(diagnostics)

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        def key(d: Diagnostic) -> tuple[str, int, int, str]:
            s = d.span
            return (s.file, s.line, s.col, d.code) if s else ("", 0, 0, d.code)

        unique = list(dict.fromkeys(self.items))
        return _capped(sorted(unique, key=key))


_SHOWN_VALUE = 60  # characters of a value shown in a message
MAX_PER_LINE = 20  # diagnostics listed for one source line; the rest are counted
MAX_PER_FILE = 1_000  # and for one file


def _capped(items: list[Diagnostic]) -> list[Diagnostic]:
    """At most MAX_PER_LINE diagnostics for a source line and MAX_PER_FILE for a file (`items` sorted by place),
    each cut followed by one `E115` (`W115` when only warnings were cut) counting the rest: a line of 10,000
    wrong items must neither take seconds to print nor bury the first problems."""
    out: list[Diagnostic] = []
    line_cut: list[Diagnostic] = []
    file_cut: list[Diagnostic] = []
    here: tuple[str, int] | None = None
    in_line = in_file = 0

    def flush(cut: list[Diagnostic], where: str, limit: int) -> None:
        if cut:
            first = cut[0].span or Span("", 1, 1)
            severity, code = ("error", "E115") if any(d.severity == "error" for d in cut) else ("warning", "W115")
            out.append(Diagnostic(severity, code, f"... and {len(cut)} more problem(s) {where} (the first {limit} "
                                  "are listed)", Span(first.file, first.line, 1), "fix these and check again"))
            cut.clear()

    for d in items:
        if d.span is None:
            out.append(d)
            continue
        place = (d.span.file, d.span.line)
        if place != here:
            flush(line_cut, "on this line", MAX_PER_LINE)
            if here is None or place[0] != here[0]:
                flush(file_cut, "in this file from here on", MAX_PER_FILE)
                in_file = 0
            here, in_line = place, 0
        if in_file >= MAX_PER_FILE:
            file_cut.append(d)
        elif in_line >= MAX_PER_LINE:
            line_cut.append(d)
        else:
            out.append(d)
            in_file += 1
            in_line += 1
    flush(line_cut, "on this line", MAX_PER_LINE)
    flush(file_cut, "in this file from here on", MAX_PER_FILE)
    return out


def magnitude(value: int) -> str:
    # str() of a number past Python's digit limit raises, and would take quadratic time before it.
    return str(value) if value.bit_length() < 200 else f"~10^{int(value.bit_length() * 0.30103)}"


def show(value: Any) -> str:
    """A value as a message shows it: as YAML writes it, cut to a few dozen characters."""
    if not isinstance(value, bool | int | float | str | list | dict) and value is not None:
        return f"a {type(value).__name__}"
    text = _repr(value, _SHOWN_VALUE + 1)
    return text if len(text) <= _SHOWN_VALUE else text[: _SHOWN_VALUE - 3] + "..."


_BARE = re.compile(r"[A-Za-z0-9_$][A-Za-z0-9_ .$/+-]*")
_RESOLVER = yaml.resolver.Resolver()  # how YAML would type a plain scalar: 3, 1e5, 0x1A, yes, null, ...


def bare(text: str) -> bool:
    """Whether a string reads back as itself unquoted in a YAML flow collection. Only a name-like text is left
    bare: YAML gives meaning to so many characters in flow context (`?`, `:`, `#`, `&`, ...) that anything else
    is quoted rather than guessed at."""
    return (_BARE.fullmatch(text) is not None and text[-1] != " "
            and _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == "tag:yaml.org,2002:str")


def _repr(value: Any, budget: int) -> str:
    """The value in YAML flow style, as a designer writes it (never a Python repr), stopping once `budget`
    characters are written (a plain value may hold 10,000 items)."""
    if isinstance(value, list | dict):
        opening, closing = ("[", "]") if isinstance(value, list) else ("{", "}")
        pairs = (("", v) for v in value) if isinstance(value, list) else \
            ((f"{_repr(k, budget)}: ", v) for k, v in value.items())
        parts: list[str] = []
        used = 1
        for prefix, item in pairs:
            text = prefix + _repr(item, budget - used)
            parts.append(text)
            used += len(text) + 2
            if used >= budget:
                return opening + ", ".join(parts)
        return opening + ", ".join(parts) + closing
    if isinstance(value, int) and not isinstance(value, bool):
        return magnitude(value)
    if isinstance(value, str):
        return value if len(value) <= budget and bare(value) else json.dumps(value[:budget], ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, float):
        return str(value)
    return f"a {type(value).__name__}"  # its repr could be anything, of any length


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the closest known name, or None when nothing is close."""
    import difflib  # here: a clean check never asks, and importing it is ~2 ms of every process

    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


def source_line(file: str, line: int, cache: dict[str, list[str] | None] | None = None) -> str | None:
    """Line `line` (from 1) of a file, or None when it cannot be read.

    Only regular files are read, and at most MAX_SOURCE_BYTES of them: a diagnostic about a FIFO or a link to
    /dev/zero must not hang or fill memory while it is printed."""
    cache = _LINES if cache is None else cache
    if file not in cache:
        cache[file] = _read_lines(file)
        if cache is _LINES and len(_LINES) > MAX_CACHED_FILES:  # a process reading many packs keeps the latest
            del _LINES[next(iter(_LINES))]
    lines = cache[file]
    if lines is None or not 1 <= line <= len(lines):
        return None
    return lines[line - 1]


def _read_lines(file: str) -> list[str] | None:
    try:
        if not stat.S_ISREG(os.stat(file).st_mode):
            return None
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except (OSError, ValueError):
        return None
    if len(data) > MAX_SOURCE_BYTES:
        return None
    return data.decode("utf-8", errors="replace").splitlines()


_LINES: dict[str, list[str] | None] = {}  # oldest read first
MAX_CACHED_FILES = 64
MAX_SOURCE_BYTES = 1024 * 1024  # four times the loader's own limit on a file
SHOWN_WIDTH = 120  # a longer source line is cut around the caret
MAX_SHOWN = 200  # diagnostics printed in full by render_text; the rest are counted


def excerpt(text: str, col: int, width: int = SHOWN_WIDTH) -> tuple[str, int]:
    """The part of a source line worth showing, and the caret's column in it (from 1)."""
    text = text.expandtabs(1)
    if len(text) <= width:
        return text, col
    start = max(0, min(col - 1 - width // 2, len(text) - width))
    shown = text[start:start + width]
    caret = col - start
    if start > 0:
        shown, caret = "..." + shown, caret + 3
    if start + width < len(text):
        shown += "..."
    return shown, caret


def render_text(diagnostics: Iterable[Diagnostic], limit: int | None = None) -> str:
    """`file:line:col: error CODE: message`, the source line (cut around the column when long), a caret under
    the column, then the hint. With `limit`, only that many are shown and the rest are counted."""
    cache: dict[str, list[str] | None] = {}
    out: list[str] = []
    left = 0
    for i, d in enumerate(diagnostics):
        if limit is not None and i >= limit:
            left += 1
            continue
        where = f"{d.span}: " if d.span else ""
        out.append(f"{where}{d.severity} {d.code}: {_cut(d.message)}")
        if d.span:
            text = source_line(d.span.file, d.span.line, cache)
            if text is not None:
                shown, caret = excerpt(text, d.span.col)
                out.append(f"    {shown}")
                out.append("    " + " " * max(caret - 1, 0) + "^")
        if d.hint:
            out.append(f"  hint: {_cut(d.hint)}")
    if left:
        out.append(f"... and {left} more diagnostic(s) not shown (--format json lists them all)")
    return "\n".join(out)


def _cut(text: str, width: int = 4 * SHOWN_WIDTH) -> str:
    return text if len(text) <= width else text[:width] + "..."


def render_json(diagnostics: Iterable[Diagnostic]) -> str:
    return json.dumps([d.to_json() for d in diagnostics], indent=2, ensure_ascii=False)
