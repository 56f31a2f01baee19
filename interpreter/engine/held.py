"""Committed runs held at a chance decision, so that its outcome continues the run instead of starting it again.

With chance stepped, every die, draw and shuffle step is a decision the caller answers, and a run stops at it.
Run again from its start for each outcome, a round's ten draws cost 55 draws and a shuffle of n pieces about
n²/2 steps. A Python function cannot be stopped and continued later, but a thread can: the run goes on in a
worker thread, which blocks at the chance decision until its outcome comes. One of the two threads runs at a
time (each hands over, then waits), so the machine is never shared.

While a run is held, the game must look as it did before the activity (the public API shows it so, and the
proofs of later decisions run from there). Answering a chance decision reads nothing of the state, so the
state is left as the run left it (`dirty`) until something reads it: then `settle` captures what the run changed
(`State.capture`) and takes it back, and continuing makes those changes again (`State.redo`, which leaves the
state and its journal as the run left them). Continuing puts back the run's own bookkeeping (its stack of
running rules, step and work counts, decider) and hands over; the run reads the outcome from the activity's
answers. A held run is dropped (`abandon`) when the game does anything else: its worker unwinds on a detached
state, so the game's state is not touched. At most `MAX_HELD` runs are held per thread (the oldest is dropped),
and a game that is garbage-collected drops its own.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from .choices import StopForAnswer
from .decisions import Decision
from .moves import PrefixDecider
from .state import Redo, State

if TYPE_CHECKING:
    from .machine import Machine
    from .moves import Activity

MAX_HELD = 16  # held runs per thread
MAX_IDLE = 4  # idle worker threads kept for the next run


class _Abandon(BaseException):
    """Unwinds a held run that will not be continued (not an error: nothing of it reaches the game)."""


class _Worker:
    """A thread that runs one job at a time; back in the idle pool when its job ends."""

    def __init__(self) -> None:
        self.go = threading.Lock()
        self.go.acquire()
        self.job: Any = None
        threading.Thread(target=self._loop, name="boardrules-run", daemon=True).start()

    def _loop(self) -> None:
        while True:
            self.go.acquire()
            job, self.job = self.job, None
            if job is None:
                return
            job()


_IDLE: list[_Worker] = []
# Guards _HELD; reentrant: a finalizer may run inside, when a collection does. A worker never takes it (the pool's
# list is changed by single operations the interpreter makes whole), so a finalizer that waits for a worker to
# unwind cannot wait on a lock its own thread holds.
_LOCK = threading.RLock()
_HELD: dict[int, OrderedDict[int, Held]] = {}  # per owning thread: held runs, oldest first


def _after_fork() -> None:
    """In a forked child only the forking thread lives: no worker is idle there, and no run is held."""
    global _LOCK
    _LOCK = threading.RLock()
    _IDLE.clear()
    _HELD.clear()


os.register_at_fork(after_in_child=_after_fork)


def _worker() -> _Worker:
    try:
        return _IDLE.pop()
    except IndexError:
        return _Worker()


def _release(worker: _Worker) -> bool:
    """Back to the pool; False when the pool is full and the thread should end."""
    if len(_IDLE) < MAX_IDLE:
        _IDLE.append(worker)
        return True
    return False


def _wait(lock: Any) -> BaseException | None:
    """Wait for the other thread to hand back. An interrupt meanwhile (Ctrl-C) is returned once it has, for the
    caller to raise when the machine is its own again (never while the other thread still runs on it)."""
    interrupted: BaseException | None = None
    while True:
        try:
            lock.acquire()
            return interrupted
        except BaseException as exc:  # returned, to be raised after the hand-back
            interrupted = exc


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
        self.run = run

    def chance(self, decision: Decision) -> object | None:
        if len(decision.options) == 1 and decision.kind != "subset":
            return None
        if self.used == len(self.answers):
            self.run.hold(decision)
        return self.decide(decision)


class Held:
    """One committed run of an activity in a worker thread: `start` it, then `resume` it after each outcome."""

    def __init__(self, m: Machine, activity: Activity) -> None:
        self.m = m
        self.activity = activity
        self.decider = _HoldingDecider(activity.answers, self)
        self.mark = 0
        self.event: tuple[Any, ...] = ()
        self.redo: Redo | None = None
        self.ctx: tuple[Any, ...] = ()
        self.held = False  # the worker waits at a chance decision
        self.dirty = False  # held, with the state as the run left it (see settle)
        self.dropped = False
        self._to_run = threading.Lock()
        self._to_run.acquire()
        self._to_caller = threading.Lock()
        self._to_caller.acquire()
        self._seen: tuple[Any, ...] = ()  # the journal as the run left it when held (see continues)
        self._owner = threading.get_ident()
        self._pid = os.getpid()  # a forked child has a copy of the game, but not the worker thread
        self._finalizer: weakref.finalize | None = None

    # ------------------------------------------------------------ the caller's side
    def start(self, game: object) -> tuple[Any, ...]:
        """Run the activity from its start: ("held", decision) with the run waiting at a chance decision,
        ("done", mark) with its changes made, or ("error", exception) with none made (a StopForAnswer at a
        player's decision, or the run's error)."""
        m = self.m
        mine = _context(m)
        m.decider, m.stack = self.decider, []  # its own stack: a proof made while it is held clears the caller's
        if hasattr(m.covered, "rollback"):
            m.covered = _Counted(m.covered)  # type: ignore[assignment]  # only `add` is called on it
        self.mark = m.state.mark()
        worker = _worker()
        worker.job = lambda: self._run(worker)
        worker.go.release()
        return self._after(mine, game)

    def continues(self, activity: Activity, state: State) -> bool:
        """Whether the activity is this run's with one more answer, on the state it was held on."""
        journal = state.journal
        return self.held and self._pid == os.getpid() and activity is self.activity and \
            len(activity.answers) == self.decider.used + 1 and \
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
        self._to_run.release()
        return self._after(mine, game)

    def abandon(self) -> None:
        """Drop the held run: its worker unwinds on a detached state, and the game's state is not touched."""
        if not self.held:
            return
        m = self.m
        self._forget()
        if self.dirty:
            m.state.rollback(self.mark)
            self.dirty = False
        if self._pid != os.getpid():  # forked: the worker is not in this process, so nothing is left to unwind
            self.held, self.dropped, self.redo = False, True, None
            return
        mine, state = _context(m), m.state
        m.state = State([], 0)  # the run's rollback on unwinding finds nothing to take back
        _put(m, self.ctx)
        self.held, self.dropped, self.redo = False, True, None
        self._to_run.release()
        interrupted = _wait(self._to_caller)
        m.state = state
        _put(m, mine)
        if interrupted is not None:
            raise interrupted

    def _after(self, mine: tuple[Any, ...], game: object) -> tuple[Any, ...]:
        interrupted = _wait(self._to_caller)
        m = self.m
        counted = m.covered
        _put(m, mine)
        if interrupted is not None:  # as a run interrupted in the caller's thread: nothing of it stays
            if self.held:
                self.abandon()
            elif self.event[0] == "done":
                m.state.rollback(self.mark)
                if isinstance(counted, _Counted):
                    counted.hide()
            raise interrupted
        if self.held:
            journal = m.state.journal
            self._seen = (m.state, journal, len(journal), journal[-1] if journal else None)
            self._remember(game)
        return self.event

    def _remember(self, game: object) -> None:
        """Count the held run against its thread's bound, and drop it with its game."""
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

    # ------------------------------------------------------------ the worker's side
    def _run(self, worker: _Worker) -> None:
        try:
            self.event = ("done", self.m.transaction(self.activity.work(self.m)))
        except _Abandon:
            self.event = ("dropped",)
        except StopForAnswer as stop:  # the caller reads its decision: without its traceback, whose frames
            self.event = ("error", stop.with_traceback(None))  # (this one's `self`) would make a cycle with it
        except BaseException as exc:  # the caller raises it (an error)
            self.event = ("error", exc)
        if not _release(worker):
            worker.job = None  # no room in the pool: the thread ends
            worker.go.release()
        self._to_caller.release()

    def hold(self, decision: Decision) -> None:
        """In the worker, at a chance decision past the answers: hand over, and wait for the outcome (or to be
        dropped)."""
        m = self.m
        self.dirty = True
        if isinstance(m.covered, _Counted):
            m.covered.hide()
        self.ctx = _context(m)
        self.event = ("held", decision)
        self.held = True
        self._to_caller.release()
        _wait(self._to_run)  # the caller is waiting for this thread, so no interrupt is delivered here
        if self.dropped:
            raise _Abandon
