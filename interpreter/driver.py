"""What boardrules' own tools do to a game beyond the embedding API: evaluate a rule's expression on it, lay out
a scenario's starting state, record coverage, count the rules that fire. `Game.driver()` makes one; programs that
embed boardrules have no need of it (docs/embedding.md is their API).

The tools (scenario runner, invariants, simulate's tallies, bots) used to reach into `Game`'s private fields for
these; tests/test_services.py proves that no module but game.py does any more.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from .engine import flow
from .engine.effects import Body
from .engine.frame import Frame
from .engine.interpreter import run_body
from .engine.machine import Machine
from .engine.rules import PhaseDef
from .language.checked import Expr


class RuleTally(Protocol):
    """Counts the rules that fire (`Machine.covered` is told each rule's `section.name`), and takes back what a
    transaction that did not complete added: a journal of additions, rolled back to a mark."""

    journal: list[Any]

    def add(self, name: str) -> None: ...
    def rollback(self, mark: int) -> None: ...


class Driver:
    __slots__ = ("_m", "_settle")

    def __init__(self, machine: Machine, settle: Callable[[], None] | None = None) -> None:
        self._m = machine
        self._settle = settle  # puts the state as the game shows it (a held run's changes taken back: engine/held.py)

    def frame(self, player: str | None = None) -> Frame:
        """What a rule evaluated now sees, acting as `player` (a player id) or as no one."""
        if self._settle is not None:
            self._settle()
        return Frame(self._m, self._m.player(player))

    def evaluate(self, expr: Expr, player: str | None = None, *, fresh_budget: bool = False) -> Any:
        """A linked rule expression's value now; `fresh_budget` gives it its own budget of work (an expectation
        checked after a step), not what the last step left."""
        if fresh_budget:
            self._m.budget.reset("an expectation")
        return expr.fn(self.frame(player))

    def lay_out(self, body: Body) -> None:
        """Run effects that lay out a starting state (a scenario's `state:`): not a change of the game, so no
        counter trigger runs."""
        if self._settle is not None:
            self._settle()
        m = self._m
        m.quiet_counters = True
        try:
            run_body(body, Frame(m, None))
        finally:
            m.quiet_counters = False
        m.forget_known()

    def laid_out(self) -> None:
        """The state was changed by hand (pieces put in place): what the game knew of its values is asked again."""
        self._m.forget_known()

    def from_plain(self, value: Any, ptype: str = "any") -> Any:
        """A rule value from plain data (`$p1`, a piece id, a number...), as a parameter of type `ptype` takes it."""
        if self._settle is not None:
            self._settle()
        return self._m.from_plain(value, ptype)

    def record_coverage(self, trace: set[Any] | None) -> None:
        """Add the spans and branches that run from now on to `trace` (None: stop recording, which costs nothing)."""
        self._m.coverage = trace

    def phase(self) -> PhaseDef | None:
        """The flow's phase the game is in, or None outside any."""
        if self._settle is not None:
            self._settle()
        return flow.current_phase(self._m)

    def tally_rules(self, tally: RuleTally) -> None:
        """Count each rule that fires in a transaction that completes into `tally` (a bot's copy of the game,
        made by `clone()`, counts nothing)."""
        self._m.__class__ = _TallyingMachine
        self._m.covered = tally  # type: ignore[assignment]  # a set as far as the machine is concerned


def _tallying_transaction(m: Machine, work: Callable[[], None]) -> int:
    tally: Any = m.covered  # a RuleTally, unless a dry run swapped in a plain set
    if not hasattr(tally, "rollback"):  # nothing to count
        return Machine.transaction(m, work)
    mark = len(tally.journal)
    try:
        return Machine.transaction(m, work)
    except BaseException:
        # The game runs an activity again from its start each time it is given one more answer; only the run
        # that completes counts (the others stopped for an answer, or failed, and changed nothing).
        tally.rollback(mark)
        raise


class _TallyingMachine(Machine):
    """The machine of a tallied game: its class, not its instance, carries the hook, so `clone()` (which copies
    the instance's attributes into a plain Machine) gives bots copies that count nothing."""

    transaction = _tallying_transaction
