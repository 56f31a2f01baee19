"""Runs that finished, kept so that the same run is never made twice on the same state.

A dry run that carries an activity to its end (a proof) is exactly the run that applying the activity with the
same answers would make: the state it starts from is the same, and every answer, draw and die comes from the
answers or from the journaled generator. So when a proof finishes, what it changed is captured (`State.capture`)
before the journal takes it back; applying the activity with those answers then makes the change again
(`State.redo`) instead of running the rules, and any prefix of those answers is known to stop at the decision
the run met there. A proof of such a prefix needs no run either: the run is its witness.

Kept runs belong to one state of the game: the first change of the state (a journal entry written or taken
back, another state, a trimmed journal) makes them all stale, and `Runs.current` starts afresh.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .decisions import Decision
from .state import Redo, State

if TYPE_CHECKING:
    from .moves import Activity

KEEP = 64  # finished runs kept for one state (a turn proves a few dozen candidates)


@dataclass(slots=True)
class Finished:
    answers: list[Any]  # every answer the run took, in order (the activity's own, then its witness answers)
    asked: list[Decision]  # the decision each answer answered
    # None: its changes were left made (Game.play_random) and committed as they were: an apply (after an undo) runs it
    redo: Redo | None
    started: list[str]  # the rules it started, each time, in order (what a committed run adds to `covered`)
    # With a search that drew its answers at random (Search.draw): the answers from this index on are what a
    # uniform random player would have picked (see Game.play_random); None otherwise.
    drawn: int | None = None


def same(a: Any, b: Any) -> bool:
    """Equal answers of the same type: 1 and True compare equal in Python, but are not the same answer."""
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


class Runs:
    """The finished runs of activities on one state, by the activity's kind, player, action and parameters."""

    __slots__ = ("_by_head", "_journal", "_last", "_length", "_state", "count")

    def __init__(self, state: State) -> None:
        self._state = state
        self._journal = state.journal
        self._length = len(state.journal)
        self._last = state.journal[-1] if state.journal else None
        self._by_head: dict[Any, list[Finished]] = {}
        self.count = 0

    def fresh(self, state: State) -> bool:
        """Whether the state is still the one these runs started from."""
        journal = state.journal
        return state is self._state and journal is self._journal and len(journal) == self._length and \
            (journal[-1] if journal else None) is self._last

    def copy_for(self, state: State) -> Runs:
        """The same runs for a copy of their state (Game.clone): a run's redo is only read when it is made again,
        so both games may share them."""
        other = Runs(state)
        other._by_head = {head: list(runs) for head, runs in self._by_head.items()}
        other.count = self.count
        return other

    @staticmethod
    def current(runs: Runs | None, state: State) -> Runs:
        return runs if runs is not None and runs.fresh(state) else Runs(state)

    def add(self, activity: Activity, run: Finished) -> bool:
        """Keep the run, unless enough are kept or the activity's parameters cannot be a key; whether it was."""
        if self.count >= KEEP:
            return False
        head = _head(activity)
        if head is None:
            return False
        self._by_head.setdefault(head, []).append(run)
        self.count += 1
        return True

    def find(self, activity: Activity, drawn: bool = False) -> Finished | None:
        """A finished run whose answers begin with the activity's answers (the same run, carried further); with
        `drawn`, only a run whose answers past the given ones were drawn at random (Finished.drawn)."""
        head = _head(activity)
        if head is None:
            return None
        runs = self._by_head.get(head)
        if not runs:
            return None
        answers = activity.answers
        n = len(answers)
        for run in runs:
            kept = run.answers
            if (not drawn or run.drawn is not None) and len(kept) >= n and \
                    all(a is b or same(a, b) for a, b in zip(answers, kept[:n], strict=True)):
                return run
        return None


def _head(activity: Activity) -> Any:
    if not activity.params:
        return (activity.kind, activity.player, activity.action)
    try:
        params = tuple((k, type(v), v) for k, v in activity.params.items())
        key = (activity.kind, activity.player, activity.action, params)
        hash(key)
    except TypeError:  # a parameter that is a list: not kept
        return None
    return key
