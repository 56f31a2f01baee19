"""Committed runs held at a chance decision, so that its outcome continues the run instead of starting it again.

With chance stepped, every die, draw and shuffle step is a decision the caller answers, and a run stops at it.
Run again from its start for each outcome, a round's ten draws cost 55 draws and a shuffle of n pieces about
n²/2 steps. A Python function cannot be stopped and continued later, but a greenlet can: the run goes on in a
greenlet of its own (a stack the caller's thread switches to and back), which switches back at the chance
decision and is switched to again with its outcome. The run and its caller take turns, so the machine is never
shared. (Worker threads did this before: a hand-over between two threads cost about 50 us of CPU on this
project's machine, a switch costs under 1 us, and a game with many chance events hands over about once a
decision.)

While a run is held, the game must look as it did before the activity (the public API shows it so, and the
proofs of later decisions run from there). Answering a chance decision reads nothing of the state, so the
state is left as the run left it (`dirty`) until something reads it: then `settle` captures what the run changed
(`State.capture`) and takes it back, and continuing makes those changes again (`State.redo`, which leaves the
state and its journal as the run left them). Continuing puts back the run's own bookkeeping (its stack of
running rules, step and work counts, decider) and switches to it; the run reads the outcome from the activity's
answers. A held run is dropped (`abandon`) when the game does anything else: it unwinds on a detached state, so
the game's state is not touched. At most `MAX_HELD` runs are held per thread (the oldest is dropped), and a game
that is garbage-collected drops its own.

A greenlet belongs to the thread that made it. A held run is continued only in that thread (elsewhere the game
runs the activity from its start, as without holding). Dropped from another thread, it is unwound later in its
own, once nothing else can use its machine (its game is gone): until then it waits, untouched, in `_ORPHANS`.
In a forked child a held run is dropped without unwinding, and kept so that it never unwinds.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import greenlet

from .choices import StopForAnswer
from .decisions import Decision
from .moves import PrefixDecider
from .state import Redo, State

if TYPE_CHECKING:
    from .machine import Machine
    from .moves import Activity

MAX_HELD = 16  # held runs per thread


class _Abandon(BaseException):
    """Unwinds a held run that will not be continued (not an error: nothing of it reaches the game)."""


# Guards _HELD and _ORPHANS; reentrant: a finalizer may run inside, when a collection does.
_LOCK = threading.RLock()
_HELD: dict[int, OrderedDict[int, Held]] = {}  # per owning thread: held runs, oldest first
# Per owning thread: runs dropped from another thread, each with a reference to its game; unwound in their own
# thread once the game is gone (until then the game may still be using their machine).
_ORPHANS: dict[int, list[tuple[Held, Any]]] = {}
# Every run whose greenlet is started and not ended: a suspended greenlet that is collected is unwound by the
# collector (GreenletExit), at any point of the game's own code, and its rollback would take back the game's
# changes. So none is ever collected: it leaves this set only once it has ended (or been unwound by `_unwind`).
_RUNNING: set[Held] = set()


def _after_fork() -> None:
    """In a forked child only the forking thread lives, and the runs held before are never continued or unwound
    there (they stay in _RUNNING)."""
    global _LOCK
    _LOCK = threading.RLock()
    _HELD.clear()
    _ORPHANS.clear()


os.register_at_fork(after_in_child=_after_fork)


def _context(m: Machine) -> tuple[Any, ...]:
    """The run's own bookkeeping on the machine, which another run (a proof) resets."""
    b = m.budget
    return m.decider, m.stack, m.steps, b.work, b.pieces, b.rule, m.state.cause, m.covered


def _put(m: Machine, ctx: tuple[Any, ...]) -> None:
    b = m.budget
    m.decider, m.stack, m.steps, b.work, b.pieces, b.rule, m.state.cause, m.covered = ctx


class _Counted:
    """A counting `covered` (driver.RuleTally: `simulate` counts each start of a rule) seen through a held run:
    what the run has counted is taken back while it is held and counted again when it goes on, so the count is
    the rerun game's, where only the run that completes counts."""

    def __init__(self, tally: Any) -> None:
        self.tally = tally
        self.journal = tally.journal
        self.start = len(tally.journal)
        self.names: list[str] = []

    def add(self, name: str) -> None:
        self.tally.add(name)
        self.names.append(name)

    def rollback(self, mark: int) -> None:
        del self.names[max(0, len(self.names) - (len(self.journal) - mark)):]
        self.tally.rollback(mark)

    def hide(self) -> None:
        self.tally.rollback(self.start)

    def show(self) -> None:
        for name in self.names:
            self.tally.add(name)


class _HoldingDecider(PrefixDecider):
    """A committed run's decider: answers from the activity's list; past it, a player's decision stops the run
    (StopForAnswer, as before) and a chance decision holds it until the outcome is appended to the list."""

    def __init__(self, answers: list[Any], run: Held) -> None:
        super().__init__(answers, True)
        # Weak: the run keeps its decider, and a cycle would leave a dropped run (with its machine and the whole
        # state) to the cyclic collector.
        self.run = weakref.ref(run)

    def chance(self, decision: Decision) -> object | None:
        if len(decision.options) == 1 and decision.kind != "subset":
            return None
        if self.used == len(self.answers):
            run = self.run()
            assert run is not None  # the run's own greenlet holds it while it runs
            run.hold(decision)
        return self.decide(decision)


class Held:
    """One committed run of an activity in a greenlet: `start` it, then `resume` it after each outcome."""

    def __init__(self, m: Machine, activity: Activity) -> None:
        self.m = m
        self.activity = activity
        self.decider = _HoldingDecider(activity.answers, self)
        self.mark = 0
        self.event: tuple[Any, ...] = ()
        self.redo: Redo | None = None
        self.ctx: tuple[Any, ...] = ()
        self.held = False  # the run waits at a chance decision
        self.dirty = False  # held, with the state as the run left it (see settle)
        self.dropped = False
        self._run_in: Any = None  # the run's greenlet
        self._seen: tuple[Any, ...] = ()  # the journal as the run left it when held (see continues)
        self._owner = threading.get_ident()
        self._pid = os.getpid()  # a forked child has a copy of the game and of the run, which it never continues
        self._finalizer: weakref.finalize | None = None
        self._game: weakref.ref[Any] | None = None

    # ------------------------------------------------------------ the caller's side
    def start(self, game: object) -> tuple[Any, ...]:
        """Run the activity from its start: ("held", decision) with the run waiting at a chance decision,
        ("done", mark) with its changes made, or ("error", exception) with none made (a StopForAnswer at a
        player's decision, or the run's error)."""
        _reap()
        m = self.m
        mine = _context(m)
        m.decider, m.stack = self.decider, []  # its own stack: a proof made while it is held clears the caller's
        if hasattr(m.covered, "rollback"):
            m.covered = _Counted(m.covered)  # type: ignore[assignment]  # only `add` is called on it
        self.mark = m.state.mark()
        self._run_in = greenlet.greenlet(self._run)
        return self._switch(mine, game)

    def continues(self, activity: Activity, state: State) -> bool:
        """Whether the activity is this run's with one more answer, on the state it was held on, in its thread."""
        journal = state.journal
        return self.held and self._pid == os.getpid() and threading.get_ident() == self._owner and \
            activity is self.activity and len(activity.answers) == self.decider.used + 1 and \
            (state, journal, len(journal), journal[-1] if journal else None) == self._seen

    def settle(self) -> None:
        """Take the held run's changes back, keeping them to make again when it goes on."""
        if not self.dirty:
            return
        st = self.m.state
        self.redo = st.capture(self.mark)
        st.rollback(self.mark)
        self.dirty = False
        journal = st.journal
        self._seen = (st, journal, len(journal), journal[-1] if journal else None)

    def resume(self, game: object) -> tuple[Any, ...]:
        """Continue the held run with the outcome appended to the activity's answers (see start)."""
        m = self.m
        mine = _context(m)
        self._forget()
        if not self.dirty:
            assert self.redo is not None
            m.state.redo(self.redo)
            self.redo = None
        self.dirty = False
        _put(m, self.ctx)
        if isinstance(m.covered, _Counted):
            m.covered.show()
        self.held = False
        return self._switch(mine, game)

    def abandon(self) -> None:
        """Drop the held run: it unwinds on a detached state, and the game's state is not touched."""
        if not self.held:
            return
        m = self.m
        self._forget()
        if self.dirty:
            m.state.rollback(self.mark)
            self.dirty = False
        self.held, self.dropped, self.redo = False, True, None
        if self._pid != os.getpid():  # forked: never unwound here (it stays in _RUNNING)
            return
        if threading.get_ident() != self._owner:
            # Its greenlet can be switched to only in its own thread, and there it may not touch the machine while
            # the game may still use it (from this thread): it waits until the game is gone.
            game = self._game() if self._game is not None else None
            with _LOCK:
                _ORPHANS.setdefault(self._owner, []).append((self, _gone if game is None else weakref.ref(game)))
            return
        self._unwind()

    def _unwind(self) -> None:
        m = self.m
        mine, state = _context(m), m.state
        m.state = State([], 0)  # the run's rollback on unwinding finds nothing to take back
        _put(m, self.ctx)
        run = self._run_in
        try:
            if run is not None:
                run.parent = greenlet.getcurrent()
                run.throw(_Abandon)
        finally:
            m.state = state
            _put(m, mine)

    def _switch(self, mine: tuple[Any, ...], game: object) -> tuple[Any, ...]:
        """Let the run go on until it is held or ends; then the caller's bookkeeping is put back. An interrupt
        (Ctrl-C) that comes while the run goes on is raised in the run: it takes the run back as any error does,
        and reaches the caller as the run's ("error", exception)."""
        run = self._run_in
        run.parent = greenlet.getcurrent()  # where the run switches back to, as the caller may be another greenlet
        with _LOCK:
            _RUNNING.add(self)
        run.switch()
        m = self.m
        _put(m, mine)
        if self.held:
            journal = m.state.journal
            self._seen = (m.state, journal, len(journal), journal[-1] if journal else None)
            self._remember(game)
        return self.event

    def _remember(self, game: object) -> None:
        """Count the held run against its thread's bound, and drop it with its game."""
        self._game = weakref.ref(game)
        self._finalizer = weakref.finalize(game, self.abandon)
        self._finalizer.atexit = False
        oldest: list[Held] = []
        with _LOCK:
            held = _HELD.setdefault(self._owner, OrderedDict())
            held[id(self)] = self
            while len(held) > MAX_HELD:
                oldest.append(held.popitem(last=False)[1])
        for run in oldest:
            run.abandon()

    def _forget(self) -> None:
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        with _LOCK:
            held = _HELD.get(self._owner)
            if held is not None:
                held.pop(id(self), None)

    # ------------------------------------------------------------ the run's side
    def _run(self) -> None:
        try:
            self.event = ("done", self.m.transaction(self.activity.work(self.m)))
        except _Abandon:
            self.event = ("dropped",)
        except StopForAnswer as stop:  # the caller reads its decision: without its traceback, whose frames
            self.event = ("error", stop.with_traceback(None))  # (this one's `self`) would make a cycle with it
        except BaseException as exc:  # the caller raises it (an error, or an interrupt)
            self.event = ("error", exc)
        self.held = False  # an interrupt between `held` and the switch in `hold` ends the run too
        self._run_in = None
        with _LOCK:
            _RUNNING.discard(self)

    def hold(self, decision: Decision) -> None:
        """In the run, at a chance decision past the answers: switch back to the caller, and wait for the outcome
        (or to be dropped: `_Abandon` is thrown in here)."""
        m = self.m
        self.dirty = True
        if isinstance(m.covered, _Counted):
            m.covered.hide()
        self.ctx = _context(m)
        self.event = ("held", decision)
        self.held = True
        self._run_in.parent.switch()


def _gone() -> None:
    """A game reference that is always dead (see abandon)."""
    return None


def _reap() -> None:
    """Unwind this thread's runs dropped from another thread whose games are gone."""
    me = threading.get_ident()
    with _LOCK:
        orphans = _ORPHANS.get(me)
        if not orphans:
            return
        ready = [run for run, game in orphans if game() is None]
        orphans[:] = [(run, game) for run, game in orphans if game() is not None]
    for run in ready:
        run._unwind()
