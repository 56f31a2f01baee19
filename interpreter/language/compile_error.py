"""The error linking raises for an expression or a statement: a code, a message and a (line, column) inside the
string it came from, which the caller turns into a file position."""

from __future__ import annotations

from .syntax import Pos


class CompileError(Exception):
    def __init__(self, code: str, message: str, pos: Pos, hint: str | None = None):
        super().__init__(message)
        self.code, self.message, self.pos, self.hint = code, message, pos, hint
