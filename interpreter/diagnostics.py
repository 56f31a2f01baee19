"""Diagnostics: every problem boardrules finds, at any stage, as one value with a place in a file."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path


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


@dataclass(frozen=True, slots=True)
class Diagnostic:
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

        seen: set[Diagnostic] = set()
        unique = [d for d in self.items if not (d in seen or seen.add(d))]
        return sorted(unique, key=key)


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the closest known name, or None when nothing is close."""
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


def source_line(file: str, line: int, cache: dict[str, list[str] | None] | None = None) -> str | None:
    """Line `line` (from 1) of a file, or None when it cannot be read."""
    cache = _LINES if cache is None else cache
    if file not in cache:
        try:
            cache[file] = Path(file).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            cache[file] = None
    lines = cache[file]
    if lines is None or not 1 <= line <= len(lines):
        return None
    return lines[line - 1]


_LINES: dict[str, list[str] | None] = {}


def render_text(diagnostics: Iterable[Diagnostic]) -> str:
    """`file:line:col: error CODE: message`, the source line, a caret under the column, then the hint."""
    cache: dict[str, list[str] | None] = {}
    out: list[str] = []
    for d in diagnostics:
        where = f"{d.span}: " if d.span else ""
        out.append(f"{where}{d.severity} {d.code}: {d.message}")
        if d.span:
            text = source_line(d.span.file, d.span.line, cache)
            if text is not None:
                out.append(f"    {text.expandtabs(1)}")
                out.append("    " + " " * (d.span.col - 1) + "^")
        if d.hint:
            out.append(f"  hint: {d.hint}")
    return "\n".join(out)


def render_json(diagnostics: Iterable[Diagnostic]) -> str:
    return json.dumps([d.to_json() for d in diagnostics], indent=2, ensure_ascii=False)
