"""The error an expression's checker raises: a code and a message at a place in the expression's text. Its own module
so that the helpers the compiler calls (tables, ranks) can raise it without importing the compiler."""

from __future__ import annotations

from . import syntax as s


class CompileError(Exception):
    def __init__(self, code: str, message: str, pos: s.Pos, hint: str | None = None):
        super().__init__(message)
        self.code, self.message, self.pos, self.hint = code, message, pos, hint
