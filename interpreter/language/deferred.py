"""Expressions' functions compiled when first called, in links that nothing runs.

`boardrules check` links every module alone and all of them together (a dozen links for the shipped packs) and
runs none of them: compiling and making each expression's function was about a tenth of its CPU. Inside
`deferring()` the emitter still writes every expression's Python source at link time (where a tree too deep to
write is reported, E301), but leaves compiling it to the function's first call, when the source is within
bounds that compile() always handles: few enough brackets that nesting stays far below the tokenizer's limit
of 200 (which raises "too many nested parentheses"), and short enough that no chain of operators nests the
parser deeply. A source outside the bounds is compiled at once, as without deferring.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

MAX_BRACKETS = 64  # opening brackets in the whole source: bounds its nesting (the shipped packs have 22 at most)
MAX_LENGTH = 1_000  # characters (the shipped packs' longest is 387)

_on: ContextVar[bool] = ContextVar("boardrules_deferring", default=False)


@contextmanager
def deferring() -> Iterator[None]:
    """Inside: links made leave compiling their expressions to the first call."""
    token = _on.set(True)
    try:
        yield
    finally:
        _on.reset(token)


def active() -> bool:
    return _on.get()


def fits(src: str) -> bool:
    """Whether compiling `src` cannot fail for its size or nesting (so it may wait)."""
    return len(src) <= MAX_LENGTH and src.count("(") + src.count("[") + src.count("{") <= MAX_BRACKETS


class Deferred:
    """An expression's function: made from its source by `make` at the first call, then called directly."""

    __slots__ = ("_args", "_fn", "_make")

    def __init__(self, make: Callable[..., Callable[[Any], Any]], *args: Any) -> None:
        self._make: Callable[..., Callable[[Any], Any]] | None = make
        self._args: tuple[Any, ...] | None = args
        self._fn: Callable[[Any], Any] | None = None

    def __call__(self, frame: Any) -> Any:
        fn = self._fn
        if fn is None:
            assert self._make is not None and self._args is not None
            fn = self._fn = self._make(*self._args)
            self._make = self._args = None
        return fn(frame)
