"""Expressions' functions made when first called, in links that nothing runs.

`boardrules check` links every module alone and all of them together (a dozen links for the shipped packs) and
runs none of them: writing, compiling and making each expression's function was about a tenth of its CPU. Inside
`deferring()` that waits for the function's first call, where it cannot fail, so a link reports exactly what it
reports without deferring (E301 for an expression too deep to write or to compile):
- an expression whose syntax tree is at most MAX_DEPTH deep waits whole: its checked tree is about as deep, the
  emitter writes at most a few brackets per level, so neither the emitter's recursion nor compile() come near
  their limits (tests/test_deferred.py writes and compiles every shape of expression up to that depth);
- a deeper one is written at once (a recursion too deep is reported there), and its compiling waits only when
  the source is within bounds that compile() always handles: few enough brackets that nesting stays far below
  the tokenizer's limit of 200 ("too many nested parentheses"), and short enough that no chain of operators
  nests the parser deeply. Otherwise it is compiled at once, as without deferring.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

MAX_DEPTH = 8  # syntax levels of an expression that waits whole (the deepest in the repository's packs has 8)
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


_shallow: dict[int, tuple[object, bool]] = {}  # id -> (the syntax node, kept so its id is not reused; answer)


def shallow(node: object) -> bool:
    """Whether the syntax tree `node` is at most MAX_DEPTH nodes deep (parsing is cached by text: each tree is
    looked at once)."""
    hit = _shallow.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    answer = _within(node, MAX_DEPTH)
    if len(_shallow) >= 65_536:
        _shallow.clear()
    _shallow[id(node)] = (node, answer)
    return answer


def _within(node: object, levels: int) -> bool:
    # Bounded by `levels`: a tree as deep as Python's recursion limit is answered without reaching it.
    fields = getattr(node, "__dataclass_fields__", None)
    if fields is not None:
        return levels > 0 and all(_within(getattr(node, name), levels - 1) for name in fields)
    if type(node) is tuple:
        return all(_within(item, levels) for item in node)
    return True


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
