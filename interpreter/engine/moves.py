"""Activities, and which of their moves and options can still be carried out to the end.

An activity is one atomic unit of play: setup, a move (an action and everything the game does after it until
the next move), a skipped turn. It runs from its start with the answers given so far; at the first decision
it has no answer for it stops, and the journal takes the state back. That makes a dry run exact and cheap to
undo, so the legal moves and options are found by trying them: a bounded depth-first search for one way to
finish, over the journal.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..diagnostics import BoardrulesError
from ..internal import INTERNAL
from ..language import checked as c
from . import flow, independence
from .answers import answers_for, first_answer, likeliest
from .budget import CODE as budget_code
from .budget import SEARCH_WORK
from .choices import StopForAnswer
from .decisions import Decision
from .effects import Body
from .interpreter import Frame
from .resume import Finished, Runs, same
from .runtime import as_list
from .values import Player, UnknownCompared, plain

if TYPE_CHECKING:
    from .machine import Machine

SEARCH_BUDGET = 2_000  # dry runs spent to prove one move or option can finish
MAX_MOVES_PER_ACTION = 10_000  # parameter combinations of one action
_REREAD = 8  # moves of an action run unread before one is read again (see Search._worth_reading)
MAX_MOVES_KEPT = (512, 64)  # lists of Move values kept per game for reuse, and their length (see _combinations)


@dataclass(frozen=True)
class Move:
    action: str
    params: tuple[tuple[str, Any], ...] = ()

    def plain(self) -> dict[str, Any]:
        return {"action": self.action, "params": {k: plain(v) for k, v in self.params}}

    def label(self) -> str:
        inside = ", ".join(f"{k}={plain(v)}" for k, v in self.params)
        return f"{self.action}({inside})" if inside else self.action


@dataclass(slots=True)
class Activity:
    kind: str  # setup | move | skip | act | take | end_turn | end_round
    player: str | None = None
    action: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    answers: list[Any] = field(default_factory=list)

    def work(self, m: Machine, head: Body | None = None) -> Callable[[], None]:
        """What running the activity does; with `head`, a move or action with only that start of its body (after
        its parameters, the flow's permission, its guard and cost), and not the flow after it."""
        if self.kind == "setup":
            def setup() -> None:
                m.run_setup()
                if m.flow_on:
                    flow.start(m)
            return setup
        if self.kind == "skip":
            return lambda: flow.skip_turn(m)
        if self.kind == "end_turn":
            me = m.player(self.player)
            return lambda: m.end_turn_here(me)
        if self.kind == "end_round":
            return m.end_round_here
        if self.kind == "take":  # inside a running rule: no per-action reset, no flow
            me = m.player(self.player)
            return lambda: m.run_action(str(self.action), self.params, me, head)
        action_work = m.action_work(self.player, str(self.action), self.params, head)
        if self.kind == "act" or not m.flow_on:
            return action_work

        def move() -> None:
            why = flow.can_move(m, self.player, str(self.action))
            if why is not None:
                raise BoardrulesError("E501", f"{self.action} cannot be taken now: {why}",
                                      m.rules.actions[str(self.action)].span)
            action_work()
            if head is None:
                m.flow_ran = True  # a failure from here on is the flow's, not the body's (see Search._finishes)
                flow.after_move(m)

        return move


class PrefixDecider:
    """Answers from the activity's list, in order; stops the run at the first decision it has no answer for.

    With `chance_steps`, chance decisions (dice, draws, each step of a shuffle) are answered from the same list
    and stop the run too; otherwise the game's seeded generator decides them. With `witness`, a decision past
    the list does not stop the run: it takes its first answer (with `wins`, the likeliest: see `likeliest`) and
    records it in `extra`, so a proof walks through a move's decisions, a round of draws or a shuffle in one
    run instead of one run per decision;
    `stop_at` is the decision where a run without `witness` would have stopped. `asked` is every decision
    answered, in order."""

    def __init__(self, answers: list[Any], chance_steps: bool, witness: bool = False,
                 wins: dict[Any, int] | None = None, draw: random.Random | None = None) -> None:
        self.answers = answers
        self.wins = wins  # with `witness`: take the answer that finished proofs most often (see Search)
        self.draw = draw  # with `witness`: take an answer drawn uniformly instead (see Search.draw)
        self.used = 0
        self.chance_steps = chance_steps
        self.witness = witness
        self.extra: list[Any] = []
        self.stop_at: Decision | None = None
        self.asked: list[Decision] = []

    def decide(self, decision: Decision) -> object:
        if self.used == len(self.answers):
            if not self.witness:
                raise StopForAnswer(decision)
            if self.draw is not None:
                answer = self.draw.choice(answers_for(decision) or [None])
            else:
                answer = first_answer(decision) if self.wins is None else likeliest(decision, self.wins)
            if self.stop_at is None:
                self.stop_at = decision
            self.extra.append(answer)
            self.asked.append(decision)
            return answer
        self.used += 1
        self.asked.append(decision)
        return self.answers[self.used - 1]

    def chance(self, decision: Decision) -> object | None:
        if not self.chance_steps or (len(decision.options) == 1 and decision.kind != "subset"):
            return None
        return self.decide(decision)


@dataclass
class Probe:
    outcome: str  # done | stop | fail
    decision: Decision | None = None
    error: BoardrulesError | None = None
    extra: list[Any] = field(default_factory=list)  # answers taken past the activity's own (witness runs)
    stop_at: Decision | None = None  # where the run stops (or would, without witness answers)
    kept: bool = False  # read from a kept finished run, without running
    asked: list[Decision] = field(default_factory=list)  # the decision each of `extra` answered
    in_flow: bool = False  # it failed in the flow after the move's body
    answered: list[Decision] = field(default_factory=list)  # every decision it answered, when it finished
    # With `keep`: the run's changes are left in the state for the caller (see probe): the journal mark they
    # start from, the run (its redo None), and whether `runs` keeps it.
    made: tuple[int, Finished, bool] | None = None


def probe(m: Machine, activity: Activity, chance_steps: bool, witness: bool = False, runs: Runs | None = None,
          head: Body | None = None, wins: dict[Any, int] | None = None, draw: random.Random | None = None,
          drawn: int | None = None, keep: bool = False) -> Probe:
    """Run the activity with its answers and take every change back: what would happen. With `runs` (of this
    state), a run that finishes is kept there, and a run kept there already answers without running. With `head`,
    only that start of a move's body runs (see Activity.work), and nothing is kept: it is not the move's run.

    With `keep` (and `runs`, drawing), a run that finishes and changes the state is exactly the run that applying
    the activity with its answers makes (Game.play_random): its changes are left in the state (`made`) instead of
    being captured and taken back, for the caller to commit, or to capture and take back (Finished.redo) if the
    state is read before. It is kept in `runs` all the same (without witness answers it need not be: the caller
    commits it at once)."""
    if runs is not None and not runs.fresh(m.state):
        runs = None  # kept for a state that has changed since
    if runs is not None:
        # Drawing, a witness run answers with the run that drew its answers (so the game played does not depend on
        # a proof made before, with the first answers, for `pending()`).
        kept = runs.find(activity, draw is not None and witness)
        if kept is not None:
            return _from_kept(kept, len(activity.answers), witness)
    if head is not None:
        runs = None
    saved, covered, mark, flow_ran, dry = m.decider, m.covered, m.state.mark(), m.flow_ran, m.dry
    decider = m.decider = PrefixDecider(activity.answers, chance_steps, witness, wins, draw)
    m.flow_ran, m.dry = False, True
    started = _Started()  # a dry run is not play: it must not count for coverage
    m.covered = started  # type: ignore[assignment]  # only `add` is called on it
    traced, m.coverage = m.coverage, None
    try:
        m.transaction(activity.work(m, head))
        result = Probe("done")
        if runs is not None:
            if keep and draw is not None and len(m.state.journal) > mark:
                run = Finished([*activity.answers, *decider.extra], decider.asked, None, started, drawn)
                added = runs.add(activity, run)
                if added or not decider.extra:
                    result.made = (mark, run, added)
            if result.made is None:
                runs.add(activity, Finished([*activity.answers, *decider.extra], decider.asked,
                                            m.state.capture(mark), started, drawn if draw is not None else None))
    except StopForAnswer as stop:
        result = Probe("stop", stop.decision)
    except BoardrulesError as err:
        if err.code == INTERNAL:  # a bug in boardrules is never "this move is not legal"
            m.decider, m.covered, m.flow_ran = saved, covered, flow_ran
            m.state.rollback(mark)
            raise
        # Kept without its traceback: its frames hold `result`, a cycle left to the garbage collector otherwise
        # (a refused dry run's error is read for its code and message only, see Search._note)
        result = Probe("fail", error=err.with_traceback(None), in_flow=m.flow_ran)
    finally:
        m.decider, m.covered, m.coverage, m.flow_ran, m.dry = saved, covered, traced, flow_ran, dry
    if result.made is None:
        m.state.rollback(mark)
    result.extra = decider.extra
    if result.outcome == "done":
        result.answered = decider.asked
    if decider.extra:
        result.asked = decider.asked[len(decider.asked) - len(decider.extra):]
    result.stop_at = result.decision if result.outcome == "stop" else decider.stop_at
    return result


class _Started(list[str]):
    """Stands in for the machine's `covered` during a dry run: the rules it starts, each time, in order, so a
    kept run adds to `covered` what the run would have (a counting `covered` counts each start)."""

    add = list.append


def _from_kept(kept: Finished, n: int, witness: bool) -> Probe:
    """What a run of the first `n` of a kept run's answers does, read from the kept run."""
    if n == len(kept.answers):
        return Probe("done", kept=True)
    if not witness:
        return Probe("stop", kept.asked[n], stop_at=kept.asked[n], kept=True)
    return Probe("done", extra=kept.answers[n:], stop_at=kept.asked[n], kept=True)


# Why a dry run may fail and the move (or option) simply is not legal now: a guard or `require`, a cost, a limit,
# a full zone, a counter's range, a wrong answer or parameter. Any other failure is a bug in the rules (a loop,
# a work limit, an unknown value, a type error), and the search reports it instead of hiding it as illegality.
REFUSALS = frozenset({"E501", "E502", "E503", "E504", "E505", "E508", "E509"})


@dataclass
class Problem:
    """A dry run that failed for a reason that is not a refusal: the rule's location, and how often."""

    code: str
    where: str  # file:line:col of the failing rule, or the move's label
    message: str
    count: int = 0

    def plain(self) -> dict[str, Any]:
        return {"code": self.code, "where": self.where, "message": self.message, "count": self.count}


class Search:
    """Bounded depth-first search for one way to finish an activity.

    With `prune` (the default), answers that cannot change how a decision's failing ways fail are not tried
    (engine/independence.py); the differential tests turn it off to compare.

    Two bounds: `budget` dry runs per proof, past which it assumes there is a way (optimistic, as documented),
    and a budget of work shared by every proof made with this search (one pending decision's listing), in the
    units of an action's work budget (SEARCH_WORK whole actions' worth): each dry run costs its effect lines,
    its work units and the answers it enumerates. Past that the search stops with E513 at the rule being
    searched, so no pack can make listing hang."""

    prune = True
    # Set by Game.play_random around its proofs: witness runs draw each answer uniformly, and a failed way tries
    # the other answers in a uniformly random order, so the first way that finishes is, decision by decision, what
    # a uniform random player proving its picks one at a time would play (kept runs say so: Finished.drawn).
    draw: random.Random | None = None
    # Set by Game.play_random with `draw` when the option drawn is applied next with nothing read in between: the
    # run that proves it, when it is the whole activity, is left made (probe's `keep`); `made` is then its Probe.
    keep = False
    made: Probe | None = None

    def __init__(self, m: Machine, chance_steps: bool, budget: int = SEARCH_BUDGET, work: int | None = None,
                 runs: Runs | None = None) -> None:
        self.m = m
        self.runs = runs  # finished runs on this state: kept, and read instead of running again
        self.chance_steps = chance_steps
        self.budget = budget
        self.left = budget
        self.work_limit = SEARCH_WORK * m.budget.limits.work if work is None else work
        self.work_left = self.work_limit
        self.exhausted = False
        self.given = 0  # the answers the activity being proven came with (see Finished.drawn)
        self.first: Probe | None = None
        self.flow_failures = 0  # dry runs that failed in the flow after a move's body

    def can_finish(self, activity: Activity) -> bool:
        """Whether the activity has at least one complete legal way to be carried out. Afterwards `first` is
        what the activity itself did with its answers (its first dry run), for a caller that will run it."""
        self.left = self.budget
        self.first = None
        self.given = len(activity.answers)
        return self._finishes(activity)

    def _finishes(self, activity: Activity) -> bool:
        if self.left <= 0:
            self.exhausted = True
            return True
        self.left -= 1
        verdict = self._total(activity)
        if verdict is False or (verdict is True and self.draw is None):
            return verdict
        # Drawing (Game.play_random), a move the analysis proves is run all the same: the run is the commit's,
        # made again from the kept run, and it plans the move's answers, which need no proof then.
        # Walk through every decision with one answer (the one that finished proofs there most often, else the
        # first; with chance stepped, every chance event with its first outcome): one run, however many
        # decisions, draws or shuffle steps. If that way fails, its
        # run has met every decision on the way: try their other answers, the last decision first (what failed
        # came after it, so it is the likeliest to matter), each the same way. Every way is tried at most once,
        # and the one that failed is not run again; a way that finishes proves the activity.
        result = self._probe(activity, True)
        if self.first is None:
            self.first = result
        if result.outcome == "done":  # a witness run never stops: it finishes or fails
            return True
        self._note(result.error, activity)
        self.flow_failures += result.in_flow
        taken, asked = result.extra, result.asked
        # When every way on from the decisions already tried failed inside the body, from the statement of the
        # last of them on (`explained`), an earlier decision whose statements up to there change nothing those
        # statements read cannot help: its other answers are skipped (engine/independence.py).
        statements = self._statements(activity, asked)
        explained = None
        for i in range(len(taken) - 1, -1, -1):
            here = statements[i] if statements is not None else None
            if explained is not None and here is not None and here < explained and \
                    self._action(activity).independent(here, explained):
                continue
            answers = self._ordered(asked[i])
            self._charge(len(answers), activity)
            base = _with_all(activity, taken[:i])
            failed = taken[i]
            before = self.flow_failures
            if any(self._finishes(_with(base, answer)) for answer in answers if not same(answer, failed)):
                return True
            if statements is None or self.flow_failures != before or result.in_flow:
                statements = None  # a way failed in the flow, which reads anything: nothing more is skipped
            else:
                explained = here
        return False

    def _ordered(self, decision: Decision) -> list[Any]:
        """The decision's answers, those that finished the most proofs at its rule first (stable)."""
        answers = answers_for(decision)
        if self.draw is not None:
            answers = list(answers)
            self.draw.shuffle(answers)
            return answers
        rule, wins = id(decision.rule), self.m.answer_wins
        if decision.kind == "subset" or decision.chooser == "chance" or len(answers) < 2 or rule not in wins:
            return answers
        try:
            return sorted(answers, key=lambda a: -wins.get((rule, a), 0))
        except TypeError:
            return answers

    def _action(self, activity: Activity) -> Any:
        return independence.for_action(self.m.rules, str(activity.action))

    def _statements(self, activity: Activity, asked: list[Decision]) -> list[int] | None:
        """The body statement each decision was asked in, when all are placed (see engine/independence.py)."""
        if not self.prune or len(asked) < 2 or activity.kind not in ("move", "act", "take") \
                or activity.action not in self.m.rules.actions:
            return None
        return self._action(activity).places([d.rule for d in asked])

    def _total(self, activity: Activity) -> bool | None:
        """The verdict without running what always finishes (engine.totality): the end of the action's body
        after which nothing can refuse or be left without an answer, and the flow after the move when all of it
        always finishes. The move (or the answers given so far) can be carried out exactly when the rest, its
        parameters, guard, cost and the start of its body, finishes with them. None when the analysis saves
        nothing or cannot tell."""
        m, kind = self.m, activity.kind
        total = m.analysis()
        if total is None or kind not in ("move", "act", "take") or activity.action not in m.rules.actions:
            return None
        name = str(activity.action)
        skips_flow = kind == "move" and m.flow_on
        if skips_flow and not total.after_move(m.state.deferred):
            return None
        # Without answers, the rest need only have some way to finish; an answer given to a decision in it needs
        # every way to (what an answer to a decision in the head needs is checked by running the head).
        answers = len(activity.answers)
        head = total.head(name) if answers else total.reach.head(name)
        if not skips_flow and head is m.rules.actions[name].body:
            return None
        if not head and total.plain_cost(name) and (not answers or not total.head(name)) and \
                (self.draw is None or self._worth_reading(name)):
            verdict = self._read(activity, skips_flow)
            if self.draw is not None:
                self._readings(name, verdict is False)
            if verdict is not None:
                return verdict
        if self.draw is not None:
            # Drawing, the whole run follows whatever the head says, and it runs the head's path up to where the
            # head would refuse: a head that refuses does so before any decision (one it met would make the
            # verdict None), so the whole run refuses there too, having drawn nothing. The head's run would only
            # be made twice.
            return None
        result = self._probe(activity, True, head=head)
        if result.outcome == "done":
            if self.first is None and result.stop_at is not None:
                self.first = result  # the same run to the same decision: apply can resume there
            return True
        if result.extra:  # a way through a choice in the cost failed: another answer may pay
            return None
        self._note(result.error, activity)
        return False

    def _worth_reading(self, action: str) -> bool:
        """Drawing, whether to read a move of the action before its run. The run follows a read that finds the
        move legal, which is then made for nothing: while reads of the action lately found its moves legal, its
        moves are run unread, and read again now and then (see `_readings`). Only the cost depends on it: a read
        refuses exactly where the run would, having drawn nothing."""
        seen = self.m.read_refuted
        score = seen.get(action, 1)
        if score > 0:
            return True
        seen[action] = score - 1 if score > -_REREAD else 1
        return False

    def _readings(self, action: str, refuted: bool) -> None:
        """Drawing, a read of a move of the action refuted it or not: reads of it go on while they refute."""
        seen = self.m.read_refuted
        score = seen.get(action, 1)
        seen[action] = min(score + 1, 3) if refuted else score - 1

    def _read(self, activity: Activity, skips_flow: bool) -> bool | None:
        """The verdict on a move whose body always finishes and whose cost is paid without a choice, by reading
        the state as a run would check it (the flow's permission, the game's end, the parameters, the guard,
        whether the cost can be paid), without a transaction. None to leave it to a dry run."""
        m = self.m
        budget, name = m.budget, str(activity.action)
        saved = m.steps, budget.work, budget.pieces, budget.rule, m.state.cause
        m.steps = budget.work = budget.pieces = 0  # as a run starts (Machine.transaction)
        try:
            a = m.rules.actions[name]
            why = flow.can_move(m, activity.player, name) if skips_flow else None
            if why is not None:
                raise BoardrulesError("E501", f"{name} cannot be taken now: {why}", a.span)
            if activity.kind == "take":
                me, variables = m.player(activity.player), activity.params
            else:
                if m.state.vars.get("game_over"):
                    raise BoardrulesError("E501", "the game is over: no action can be taken", a.span)
                me = m.player(activity.player)
                if a.by == "player" and me is None:
                    return None
                variables = m.params(a.name, a.params, activity.params, a.span)
            f = m.allowed(a, variables, me)
            if a.cost is not None and not m.payable(a.cost, f):
                raise BoardrulesError("E502", f"cannot pay {a.cost.text}", a.cost.span)
            verdict, error = True, None
        except BoardrulesError as err:
            if err.code == INTERNAL:
                raise
            verdict, error = False, err.with_traceback(None)  # no cycle through this frame (see probe)
        except (UnknownCompared, RecursionError):  # what a run turns into its own diagnostic: let a run say it
            return None
        finally:
            self._charge(1 + min(m.steps, m.step_budget) + min(budget.work, budget.limits.work), activity)
            m.steps, budget.work, budget.pieces, budget.rule, m.state.cause = saved
        if error is not None:
            self._note(error, activity)
        return verdict

    def _probe(self, activity: Activity, witness: bool, head: Body | None = None) -> Probe:
        m = self.m
        wins = m.answer_wins
        result = probe(m, activity, self.chance_steps, witness, self.runs, head, wins if witness else None,
                       self.draw if witness and head is None else None, self.given,
                       self.keep and head is None and self.made is None and len(activity.answers) == self.given)
        if result.made is not None:
            self.made = result
        if result.outcome == "done" and result.answered:  # these answers finished a move: try them first next time
            for decision, answer in zip(result.answered, [*activity.answers, *result.extra], strict=False):
                if decision.chooser == "chance":
                    continue
                try:
                    rule = id(decision.rule)
                    key = (rule, answer)
                    wins[key] = wins.get(key, 0) + 1
                    wins[rule] = 1  # the rule has answers that finished (see likeliest)
                except TypeError:
                    pass
        if result.kept:
            self._charge(1, activity)
            return result
        # what the dry run did, as far as its own limits let it (one that overran them failed with E513)
        self._charge(1 + min(m.steps, m.step_budget) + min(m.budget.work, m.budget.limits.work), activity)
        return result

    def _charge(self, units: int, activity: Activity) -> None:
        self.work_left -= units
        if self.work_left < 0:
            action = self.m.rules.actions.get(str(activity.action)) if activity.action else None
            what = f"'{activity.action}'" if activity.action else f"the {activity.kind}"
            raise BoardrulesError(
                budget_code, f"work limit exceeded in the legal-move search: proving which moves and options of "
                f"{what} can be carried out needs more than {self.work_limit:,} units of work (dry runs, effect "
                "lines, elements, answers tried)", action.span if action is not None else None,
                "a parameter's domain times the choices inside the move is too large to search: narrow them, or "
                "raise Limits(work=...) (see SECURITY.md)")

    def _note(self, error: BoardrulesError | None, activity: Activity) -> None:
        if error is None or error.code in REFUSALS:
            return
        d = error.diagnostic
        where = str(d.span) if d.span is not None else \
            Move(str(activity.action), tuple(activity.params.items())).label()
        problem = self.m.problems.get((d.code, where))
        if problem is None:
            problem = self.m.problems[(d.code, where)] = Problem(d.code, where, d.message)
        problem.count += 1


def _with_all(activity: Activity, answers: list[Any]) -> Activity:
    if not answers:
        return activity
    return Activity(activity.kind, activity.player, activity.action, activity.params, [*activity.answers, *answers])


def _with(activity: Activity, answer: Any) -> Activity:
    return Activity(activity.kind, activity.player, activity.action, activity.params, [*activity.answers, answer])


def candidate_moves(m: Machine, player: str) -> list[Move]:
    """Every (action, parameters) the player could try now: the phase's actions (or all of them without a flow)
    with each parameter ranging over its declared domain. Actions whose parameters have no domain are left out."""
    me = m.player(player)
    rules = m.rules
    if m.flow_on:
        v = m.state.vars
        phase = flow.current_phase(m)
        if v["game_over"] or phase is None or phase.turns is None or not v["phase_live"] \
                or v["turn_player"] != player:
            return []
        names = tuple(phase.actions)
    else:
        names = tuple(a for a, d in rules.actions.items() if d.by == "player")
    made = m.moves_made
    whole = made.get((_ALL, names))
    if whole is not None:
        return whole
    out: list[Move] = []
    for name in names:
        out.extend(_combinations(m, me, name))
    if all(name in made for name in names) and len(made) < MAX_MOVES_KEPT[0]:  # each action's moves are fixed
        made[(_ALL, names)] = out
    return out


_ALL = object()  # keys the moves of all of some actions in Machine.moves_made, when each action's are fixed


def _combinations(m: Machine, me: Player | None, name: str) -> list[Move]:
    made = m.moves_made
    fixed = made.get(name)  # the moves of an action whose parameters' domains never change
    if fixed is not None:
        return fixed
    action = m.rules.actions[name]
    domains: list[list[Any]] = []
    for pname, ptype in action.params:
        fn = action.domains.get(pname)
        if fn is not None:
            try:
                domains.append(as_list(fn.fn(Frame(m, me)), Frame(m, me)))
            except BoardrulesError:
                return []
        elif ptype == "bool":
            domains.append([False, True])
        elif ptype == "player":
            domains.append(list(m.players))
        else:
            return []
    # A turn lists the same moves again and again: the moves of the same domains are made once per game (1 and
    # True are equal keys, so the types are part of the key), and once for all of an action whose domains are
    # declared sets (or players, or yes and no).
    key: Any = name
    if not all(_fixed(action.domains.get(p)) for p, _ in action.params):
        try:
            key = (name, *((tuple(d), tuple(map(type, d))) for d in domains))
            moves = made.get(key)
        except TypeError:  # a value that is a list
            key, moves = None, None
        if moves is not None:
            return moves
    names = [p for p, _ in action.params]
    moves = []
    for i, combo in enumerate(itertools.product(*domains)):
        if i >= MAX_MOVES_PER_ACTION:
            raise BoardrulesError("E511", f"'{name}' has more than {MAX_MOVES_PER_ACTION} parameter combinations",
                                  action.span, "narrow the parameters' domains")
        moves.append(Move(name, tuple(zip(names, combo, strict=True))))
    if key is not None and len(made) < MAX_MOVES_KEPT[0] and len(moves) <= MAX_MOVES_KEPT[1]:
        made[key] = moves
    return moves


def _fixed(domain: c.Expr | None) -> bool:
    """Whether a parameter's domain is the same all game: none (players, yes and no) or a declared set."""
    if domain is None:
        return True
    tree = domain.tree
    return type(tree) is c.Name and tree.ref.kind == "set"
