"""A budget of work per action, so no rule pack can make one action hang or exhaust memory.

The step budget (E507) counts effect lines; it cannot see a loop whose body is empty or a comprehension over a
huge range. This budget counts the work itself, charged before it is done: loop iterations and comprehension
elements (everything that iterates goes through `as_list` or `int_range`), pieces created, track steps, and
the size of every range. Numbers are bounded too, so no rule can build an integer that takes seconds to
multiply or that cannot be saved. Going over any limit stops the action with E513, naming the rule and the
limit, and the transaction leaves the state as it was.
"""

from __future__ import annotations

from ..dataclass_code import dataclass
from ..diagnostics import BoardrulesError, Span

CODE = "E513"


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-action limits; `Game(..., limits=Limits(work=...))` changes them for one game."""

    work: int = 1_000_000  # loop iterations, comprehension/filter elements, track steps, shuffled pieces
    pieces: int = 10_000  # pieces created by one action
    range_size: int = 100_000  # elements of one range, one die's sides
    max_int: int = 10**18  # largest magnitude of a number a rule computes or stores


DEFAULT_LIMITS = Limits()
# One listing of legal moves may spend the work budget of this many whole actions (here, not in moves.py, so
# `check` can bound a listing without importing the engine's move search).
SEARCH_WORK = 10

# What each limit is called in a message and in SECURITY.md.
_WORDS = {
    "work": "units of work (loop iterations, elements, track steps)",
    "pieces": "pieces created",
    "range_size": "elements in one range",
    "max_int": "as the largest number",
}


class Budget:
    """What the running action has spent; reset at the start of every transaction."""

    __slots__ = ("limits", "pieces", "rule", "work")

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        self.work = 0
        self.pieces = 0
        self.rule: str | None = None

    def reset(self, rule: str | None = None) -> None:
        self.work = 0
        self.pieces = 0
        self.rule = rule

    def spend(self, n: int, what: str, span: Span | None) -> None:
        """Charge `n` units of work, before doing it."""
        self.work += n
        if self.work > self.limits.work:
            raise self.exceeded("work", f"{what} needs {n:,}", span)

    def create(self, n: int, span: Span | None) -> None:
        self.pieces += n
        if self.pieces > self.limits.pieces:
            raise self.exceeded("pieces", f"creating {n} piece(s)", span)
        self.spend(n, "creating pieces", span)

    def range(self, n: int, what: str, span: Span | None) -> None:
        if n > self.limits.range_size:
            raise self.exceeded("range_size", f"{what} has {n:,} elements", span)
        self.spend(n, what, span)

    def number(self, value: int, span: Span | None) -> int:
        limit = self.limits.max_int
        if -limit <= value <= limit:
            return value
        raise self.exceeded("max_int", f"a number with {value.bit_length()} bits", span)

    def exceeded(self, limit: str, what: str, span: Span | None) -> BoardrulesError:
        value = getattr(self.limits, limit)
        shown = f"10^{len(str(value)) - 1}" if limit == "max_int" else f"{value:,}"
        rule = f" in {self.rule}" if self.rule else ""
        return BoardrulesError(
            CODE, f"work limit exceeded{rule}: {what}; the limit '{limit}' is {shown} {_WORDS[limit]} per action",
            span, "bound the loop, range or number; an embedding engine may raise the limit (see SECURITY.md)",
        )


def check_constant(limit: str, value: int, what: str) -> str | None:
    """At check time: the message when a constant already exceeds a default limit, else None."""
    allowed = getattr(DEFAULT_LIMITS, limit)
    if value <= allowed:
        return None
    shown = f"10^{len(str(allowed)) - 1}" if limit == "max_int" else f"{allowed:,}"
    return f"{what} is {_shorten(value)}, over the limit '{limit}' of {shown} {_WORDS[limit]} per action"


def _shorten(value: int) -> str:
    if value.bit_length() > 60:
        return f"about 2^{value.bit_length() - 1}"
    return f"{value:,}"
