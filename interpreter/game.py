"""The public API for programs that embed boardrules: start a game, step through it, save and restore it.

Everything a program needs is here; `docs/embedding.md` documents it. The rules themselves run inside an
`engine.machine.Machine`, which this class drives and which programs never touch.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from . import saves
from .diagnostics import BoardrulesError, Span, source_line
from .driver import Driver
from .engine import flow
from .engine.answers import answers_for
from .engine.budget import Limits
from .engine.choices import Recorder, StopForAnswer
from .engine.decisions import Decider, Decision, ScriptedDecider
from .engine.held import Held
from .engine.machine import Machine
from .engine.moves import SEARCH_BUDGET, Activity, Move, PrefixDecider, Search, candidate_moves, probe
from .engine.resume import Finished, Runs, same
from .engine.rules import Rules
from .engine.state import State
from .engine.values import Piece, Player, plain, shown
from .saves import SAVE_FORMAT

CHANCE = "chance"
TERMINAL = "terminal"
UNDO_DEPTH = 64  # completed activities that undo() can take back
_SHARED_ENTRIES = 4_096  # distinct log entries kept once and shared (see Game._finish)
_PROOF_SETUP = 100  # what a proof costs beyond its work units (starting the run, taking it back), in those units
_TRIM_AT = 4_096  # journal entries older than the undo history are dropped in chunks of at least this many


@dataclass(frozen=True)
class Option:
    """One answer to a pending decision. `id` is what `apply` takes; `value` is plain JSON data."""

    id: int
    value: Any
    label: str
    probability: float | None = None  # for chance: the chance of this outcome


class _Options(Sequence[Option]):
    """A decision's candidate options, each made when first read: a turn offers dozens of moves, a shuffle step
    or a large die many outcomes, and a sample reads one."""

    __slots__ = ("_answers", "_made", "_make")

    def __init__(self, answers: Sequence[Any], make: Callable[[int, Any], Option]) -> None:
        self._answers = answers
        self._made: dict[int, Option] = {}
        self._make = make

    def __len__(self) -> int:
        return len(self._answers)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return tuple(self)[i]
        i = range(len(self._answers))[i]
        o = self._made.get(i)
        if o is None:
            o = self._made[i] = self._make(i, self._answers[i])
        return o


def _move_option(i: int, move: Move) -> Option:
    return Option(i, move.plain(), move.label())


def _answer_option(i: int, answer: Any) -> Option:
    return Option(i, plain(answer), _label(answer))


class Pending:
    """The one decision the game waits for: a move, a player's choice, or a chance outcome.

    A player's options are proven lazily: `options` proves every candidate (once, cached for this decision),
    while `sample`, `option` and `apply` prove only the candidates they touch."""

    __slots__ = ("_candidates", "_options", "_prove", "_proven", "kind", "player", "prompt", "rule", "source")

    def __init__(self, player: str, kind: str, prompt: str, options: Sequence[Option], rule: str | None,
                 source: str | None, prove: Callable[[Pending, int], bool] | None = None) -> None:
        self.player = player  # a player id (p1, p2, ...) or "chance"
        self.kind = kind  # move | one | subset | yesno | chance
        self.prompt = prompt
        self.rule = rule  # file:line:col of the rule that asks
        self.source = source  # that line of the rule file
        self._candidates = options  # with `prove`, only those it accepts are options
        self._prove = prove
        self._proven: dict[int, bool] = {}
        self._options: tuple[Option, ...] | None = options if prove is None and type(options) is tuple else None

    def _key(self) -> tuple[Any, ...]:
        return (self.player, self.kind, self.prompt, self.rule, self.source, self.options)

    def __eq__(self, other: object) -> bool:  # the same decision with the same options (proves them)
        return isinstance(other, Pending) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Pending(player={self.player!r}, kind={self.kind!r}, prompt={self.prompt!r}, rule={self.rule!r})"

    @property
    def options(self) -> tuple[Option, ...]:
        """Every option that can be carried out to the end, in id order (proven on first read, then cached)."""
        if self._options is None:  # a candidate's Option is made only when it is legal (see _Options)
            candidates = self._candidates
            self._options = tuple(candidates[i] for i in range(len(candidates)) if self._legal_at(i))
        return self._options

    def _legal(self, o: Option) -> bool:
        return self._legal_at(o.id)

    def _legal_at(self, i: int) -> bool:
        """Whether the candidate with id (position) `i` can be carried out, without making its Option."""
        if self._prove is None:
            return True
        ok = self._proven.get(i)
        if ok is None:
            ok = self._proven[i] = self._prove(self, i)
        return ok

    @property
    def id_bound(self) -> int:
        """Every option id is below this (ids are positions among the candidates), without proving any."""
        return len(self._candidates)

    def any_legal(self, order: Sequence[int] | None = None) -> bool:
        """Whether at least one option can be carried out (proving candidates in id order, or in `order`, until
        one can: the answer is the same in any order)."""
        if order is None:
            order = range(len(self._candidates))
        return any(self._legal_at(i) for i in order)

    def first(self) -> Option | None:
        """The legal option with the lowest id (None when none is legal), proving candidates in id order only
        until one can be carried out: `options[0]` without the rest of the list."""
        for i in range(len(self._candidates)):
            if self._legal_at(i):
                return self._candidates[i]
        return None

    def rebound(self, prove: Callable[[Pending, int], bool] | None) -> Pending:
        """The same decision for a copy of the game in the same state: what is proven stays proven."""
        other = Pending(self.player, self.kind, self.prompt, self._candidates, self.rule, self.source, prove)
        other._proven = dict(self._proven)
        other._options = self._options
        return other

    def option(self, id_or_value: Any) -> Option:
        """The option with this id, or whose plain value or label equals the argument (or the option itself)."""
        if isinstance(id_or_value, Option):
            id_or_value = id_or_value.id
        if type(id_or_value) is int and 0 <= id_or_value < len(self._candidates):  # ids are positions
            o = self._candidates[id_or_value]
            if self._legal(o):
                return o
        want = plain(id_or_value)
        for o in self._candidates:
            if (o.value == want or o.label == want) and self._legal(o):
                return o
        raise BoardrulesError("E505", f"{shown(id_or_value)} is not an option of '{self.prompt}'; the options are "
                              f"{shown({o.id: o.label for o in self.options})}")

    def sample(self, rng: random.Random) -> Option:
        """A random option: chance outcomes by their probabilities, a player's options uniformly.

        A player's candidates are drawn in random order and proven one at a time until one can be carried out,
        so a sample costs about one proof, not the whole list; the first legal candidate of a uniformly random
        order is uniform over the legal options. The draws depend only on `rng` and the legal set, never on
        what was proven before, so a seeded run picks the same whether or not `options` was read."""
        if self.player == CHANCE:
            if type(self._candidates) is _Options:  # equally likely outcomes: read only the one drawn
                return self._candidates[rng.randrange(len(self._candidates))]
            return rng.choices(self._candidates, [o.probability or 0.0 for o in self._candidates])[0]
        drawn = self._draw(rng)
        if drawn is None:
            raise BoardrulesError("E509", f"no option of '{self.prompt}' can be carried out", None,
                                  "the rules ask a decision none of whose answers can finish the move")
        return drawn

    def _draw(self, rng: random.Random, again: bool = False) -> Option | None:
        """A player's option drawn uniformly among the legal ones, proving candidates in random order; None when
        none is legal. With `again` (Game.play_random, whose proofs draw their answers from `rng` too), each
        candidate drawn is proven again even when it was before, so what is drawn from `rng` does not depend on
        what was read before (a `pending()` proves a move first)."""
        candidates = self._candidates
        order = list(range(len(candidates)))
        prove = self._prove if again else None
        while order:
            i = rng.randrange(len(order))
            k = order[i]
            if prove is not None:
                self._proven[k] = legal = prove(self, k)
            else:
                legal = self._legal_at(k)
            if legal:  # only the option picked is made
                return candidates[k]
            order[i] = order[-1]
            order.pop()
        return None

    def to_json(self) -> dict[str, Any]:
        """Plain data; a decision no longer pending (or whose search stopped) shows the options proven so far."""
        try:
            options = self.options
        except BoardrulesError:
            options = tuple(o for o in self._candidates if self._proven.get(o.id))
        return {"player": self.player, "kind": self.kind, "prompt": self.prompt, "rule": self.rule,
                "options": [{"id": o.id, "value": o.value, "label": o.label, "probability": o.probability}
                            for o in options]}


class _Made(NamedTuple):
    """A run left made in the state by the proof that drew it (Game._made)."""

    mark: int  # the journal mark its changes start from
    run: Finished  # the run, its `redo` None while its changes are made
    kept: bool  # whether `runs` keeps it
    runs: Runs  # the finished runs of the state before it


class Game:
    """A game in progress. Start one with `Game.new`; see docs/embedding.md."""

    # Keep the dry runs that finish and make their changes again instead of running them (engine/resume.py);
    # the differential tests turn it off on one of two games to prove both play alike.
    keep_runs = True
    # Hold a committed run at a chance decision and continue it with the outcome (engine/held.py); the
    # differential tests turn it off on one of two games.
    hold_runs = True

    def __init__(self, rules: Rules, players: int, seed: int = 1, decider: Decider | None = None, *,
                 flow: bool = False, chance: str = "auto", undo_depth: int | None = UNDO_DEPTH,
                 search_budget: int = SEARCH_BUDGET, limits: Limits | None = None) -> None:
        """A game laid out but not set up, in free play unless `flow`: prefer `Game.new`. `limits` bound the work
        of each action (engine/budget.py, SECURITY.md)."""
        if chance not in ("auto", "step"):
            raise BoardrulesError("E509", f"chance is 'auto' or 'step', not {shown(chance)}")
        if flow and rules.flow is None:
            raise BoardrulesError("E509", "these rules declare no flow, so the game cannot follow one")
        self.rules = rules
        self.seed = seed
        self.chance = chance
        self.undo_depth = undo_depth
        self.search_budget = search_budget
        self._m = Machine(rules, players, seed, decider, limits)
        self._m.flow_on = flow
        self._log: list[tuple[Any, ...]] = []  # compact entries (see _log_entry); `log` gives them as dicts
        # Equal log entries are kept once (a long game repeats the same few moves), so the log grows by one
        # reference per activity; at most _SHARED_ENTRIES distinct entries are shared.
        self._shared: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        # (journal mark, log length, the activity) before each completed activity, for undo
        self._history: list[tuple[int, int, Activity | None]] = []
        self._open: Activity | None = None
        self._pending: Pending | None = None
        # The runtime answer behind each pending option id (its position), never changed once set
        self._pending_answers: Sequence[Any] = ()
        # The move decision's prompt, rule and rule line by player and phase (made once, not at every turn)
        self._move_prompts: dict[tuple[str, int], tuple[str, str | None, str | None]] = {}
        self._waiting: Decision | None = None  # the decision the open activity stopped at, when known
        self._stops: dict[int, Decision] = {}  # option id -> the decision its activity stops at next (see apply)
        self._runs: Runs | None = None  # finished dry runs on the state as it is now (engine/resume.py)
        self._held: Held | None = None  # the open activity's committed run, held at a chance decision
        # The open activity's run, made in the state by the proof that drew its answers (play_random), while those
        # answers are given. Anything that reads the state first takes it back (_settle).
        self._made: _Made | None = None
        self._proofs: dict[str, list[int]] = {}  # action -> [proofs, legal ones, their work] (_likely_first)
        self._search = self._new_search()  # proves the pending decision's options, within one work budget
        self._set_up = False

    # ---------------------------------------------------------------- starting
    @classmethod
    def new(cls, pack: Rules | str | Path, players: int, seed: int = 1, options: dict[str, Any] | None = None, *,
            modules: list[str] | None = None, chance: str = "step", undo_depth: int | None = UNDO_DEPTH,
            search_budget: int = SEARCH_BUDGET, limits: Limits | None = None) -> Game:
        """Start a game: load and link the pack (a directory, or rules already linked), lay it out, run setup.

        `options` give values to the pack's values (usually those it leaves `unknown`), counters' starting
        values and property defaults. With `chance="step"` every die, draw and shuffle step is a pending
        decision of the player `chance`; with `chance="auto"` the game's seeded generator decides them."""
        if isinstance(pack, Rules):
            if options:
                raise BoardrulesError("E509", "options are applied when the pack is linked: pass the pack's "
                                      "directory, or link it with these options")
            rules = pack
        else:
            from .language.pack import load_rules

            rules = load_rules(pack, modules, options)
        game = cls(rules, players, seed, flow=rules.flow is not None, chance=chance, undo_depth=undo_depth,
                   search_budget=search_budget, limits=limits)
        game.setup()
        return game

    def setup(self) -> None:
        """Run the setup rules (and, with a flow, everything up to the first move)."""
        if self._set_up:
            raise BoardrulesError("E509", "the game is already set up")
        self._set_up = True
        if self._m.flow_on or self.chance == "step":
            self._start(Activity("setup"))
        else:  # free play, as scenarios use it: a setup decision takes its first option
            self._run_whole(Activity("setup"), None)

    def driver(self) -> Driver:
        """What boardrules' own tools do to the game beyond this API (interpreter/driver.py)."""
        return Driver(self._m, self._settle)

    def at_rest(self) -> bool:
        """No activity begun and no decision asked yet: the game is between activities."""
        return self._open is None and self._pending is None and self._waiting is None

    # ---------------------------------------------------------------- the state of play
    @property
    def players(self) -> list[str]:
        return [p.id for p in self._m.players]

    @property
    def state(self) -> State:
        """The state store, to read (counters, zones, pieces, markers, vars); never write to it."""
        self._settle()
        return self._m.state

    @property
    def log(self) -> list[dict[str, Any]]:
        """What happened, in order: setup, each move with its answers, skipped turns, reseeds (plain data)."""
        return [_entry_dict(e) for e in self._log]

    @property
    def covered(self) -> set[str]:
        return self._m.covered

    def is_terminal(self) -> bool:
        # An activity is open with its run's changes made: the game was not over before it
        if self._made is not None or (self._held is not None and self._held.dirty):
            return False
        return bool(self._m.state.vars.get("game_over"))

    def current_player(self) -> str | None:
        """Who must act now: a player id, "chance", "terminal", or None in free play with nothing pending."""
        if self.is_terminal() and self._open is None:
            return TERMINAL
        pending = self.pending()
        return pending.player if pending is not None else None

    def pending(self) -> Pending | None:
        """The one decision the game waits for now, or None (the game is over, or free play awaits an action)."""
        while self._pending is None:
            if self._open is not None:
                waiting = self._waiting
                if waiting is None:
                    self._settle()
                    result = probe(self._m, self._open, self.chance == "step", runs=self._kept())
                    waiting = result.decision if result.outcome == "stop" else None
                if waiting is not None:
                    self._pending = self._decision(waiting)
                    break
                self._advance()  # it finishes with the answers it has: commit it (or raise its error)
                continue
            if self.is_terminal() or not self._m.flow_on or not self._set_up:
                return None
            moves = self._move_decision()
            if moves and self._pending is not None and self._pending.any_legal(self._likely_first(moves)):
                break
            self._skip_turn()
        return self._pending

    def play_random(self, rng: random.Random, players: Collection[str] | None = None,
                    before: Callable[[Pending, Option], None] | None = None) -> Option | None:
        """Apply a random option and return it (None when nothing is pending): chance by its probabilities, a
        player's option uniformly among the legal ones, as `pending().sample(rng)` draws them, for less work.

        With `players`, only their decisions and chance are played: at another player's decision nothing is drawn
        or applied and None is returned (that decision is then `pending()`). `before(pending, option)` is called
        with the decision and the option drawn, before it is applied: reading `pending.options` there draws
        nothing from `rng`, so the game played is the same whether or not it does.

        At a move decision the candidates drawn in random order also prove that the turn has a move at all
        (pending() proves one first, then sample its own). A proof made here draws its own answers from `rng`
        (engine/moves.py, `Search.draw`), so the way it finishes the move is, decision by decision, the first
        legal answer of a uniformly random order: the move's later decisions take those answers without proving
        or running anything, and applying them makes the kept run's changes again (`_planned`). Seeded, it plays
        other games than `apply(pending().sample(rng).id)`, from the same distribution. Without `before`, the
        run that proves the option drawn is left made, and committed as it is when its answers have been given,
        unless something reads the state first (`_made`; then it is taken back as a proof's run always was).

        Reading the game between calls (`pending()` and its options, `current_player()`, `state`, ...) does not
        change the games played: a candidate drawn is proven again with its answers drawn, even when a read proved
        it before (`Pending._draw` with `again`; a proof's run kept then is not one that drew: `Runs.find`)."""
        option = self._sample(rng, players, before is None)
        if option is not None:
            search = self._search
            made = search.made
            if made is not None:  # the run that proved the option is left made: applying it commits it
                search.made = None
                assert made.made is not None and search.runs is not None
                self._made = _Made(*made.made, search.runs)
            if before is not None:
                assert self._pending is not None
                before(self._pending, option)
            self._apply(option.id)
        return option

    def _sample(self, rng: random.Random, players: Collection[str] | None = None,
                keep: bool = False) -> Option | None:
        while self._pending is None and self._open is None and not self.is_terminal() and self._m.flow_on \
                and self._set_up:
            if players is not None and self._m.state.vars["turn_player"] not in players:
                break  # pending() finds another player's move decision (or skips that turn) as it always does
            moves = self._move_decision()
            if moves and self._pending is not None:
                drawn = self._drawing(self._pending, rng, keep)
                if drawn is not None:
                    return drawn
            self._skip_turn()
        pending = self.pending()
        if pending is None or (players is not None and pending.player != CHANCE and pending.player not in players):
            return None
        if pending.player == CHANCE:
            return pending.sample(rng)
        planned = self._planned(pending)
        if planned is not None:
            return planned
        drawn = self._drawing(pending, rng, keep)
        if drawn is None:
            return pending.sample(rng)  # raises: no option can be carried out
        return drawn

    def _drawing(self, pending: Pending, rng: random.Random, keep: bool = False) -> Option | None:
        """`pending._draw(rng)` with the proofs' own answers drawn from `rng` (Search.draw), so the run that proves
        the pick also plans the move's later answers (see _planned).

        With `keep`, the option drawn is applied next with nothing read in between: the proof that runs the
        activity with the option to its end leaves its changes made (Search.keep, `made`), to be committed when
        the run's answers have been given instead of captured, taken back and made again (see `_made`). Not when
        a traced run must run the rules (coverage), or a held run or kept runs being off make applying it
        something else."""
        self._take_back_made()  # the proofs run from the state before the open activity
        search = self._search
        m = self._m
        search.draw = rng
        search.keep = keep and self.keep_runs and self._held is None and m.coverage is None
        mark = m.state.mark()
        try:
            return pending._draw(rng, again=True)
        except BaseException:
            if search.made is not None:  # a proof left its changes, then the search failed (a work limit)
                search.made = None
                m.state.rollback(mark)
            raise
        finally:
            search.draw = None
            search.keep = False

    def _planned(self, pending: Pending) -> Option | None:
        """The option a finished run drawn at random (Search.draw) took at this decision, when one was kept for
        the open activity's answers so far: it is the first legal answer of a uniformly random order, as `_draw`
        would find it, and it is proven by that run."""
        activity = self._open
        if activity is None or self._held is not None:  # a held run went past the planned answers (a new outcome)
            return None
        runs = self._kept()
        kept = runs.find(activity, drawn=True) if runs is not None else None
        if kept is None or kept.drawn is None:
            return None
        n = len(activity.answers)
        if not kept.drawn <= n < len(kept.answers):
            return None
        want = kept.answers[n]
        for i, answer in enumerate(self._pending_answers):
            if same(answer, want):
                pending._proven[i] = True
                return pending._candidates[i]
        return None

    def _move_decision(self) -> list[Move]:
        """The turn player's move decision as the pending one, its moves not proven yet; the candidates (none: no
        decision)."""
        player = self._m.state.vars["turn_player"]
        moves = candidate_moves(self._m, player)
        self._pending = None
        if moves:
            self._pending_answers = moves
            options = _Options(moves, _move_option)
            phase = flow.current_phase(self._m)
            key = (player, id(phase))
            said = self._move_prompts.get(key)
            if said is None:
                span = phase.span if phase is not None else None
                prompt = f"{player} chooses a move" + (f" (phase {phase.name})" if phase is not None else "")
                said = self._move_prompts[key] = (prompt, str(span) if span else None, _line(span))
            self._search = self._new_search()
            self._stops = {}
            self._pending = Pending(player, "move", said[0], options, said[1], said[2], self._prove)
        return moves

    def _skip_turn(self) -> None:
        """No move can be carried out: the turn passes."""
        self._pending = None
        self._start(Activity("skip", self._m.state.vars["turn_player"]))

    def legal_moves(self, player: str | None = None) -> list[tuple[Move, int]]:
        """(move, option id) for every move of the player that has at least one complete legal way to be played."""
        if self._open is not None:
            return []
        self._settle()
        player = player or self._m.state.vars.get("turn_player")
        if player is None:
            return []
        pending = self._pending
        if pending is not None and pending.kind == "move" and pending.player == player:
            return [(self._pending_answers[o.id], o.id) for o in pending.options]  # proven once for this state
        search = self._new_search()
        out = []
        for i, move in enumerate(candidate_moves(self._m, player)):
            activity = Activity("move" if self._m.flow_on else "act", player, move.action, dict(move.params))
            if search.can_finish(activity):
                out.append((move, i))
        return out

    def _new_search(self) -> Search:
        return Search(self._m, self.chance == "step", self.search_budget, runs=self._kept())

    def _likely_first(self, moves: list[Move]) -> list[int]:
        """The order in which to look for one legal move: by the work a proof of the action has cost so far in
        this game, divided by how often it was legal, least first; actions not proven yet last, in id order.
        Only the cost of the search depends on it (and, in a pack whose proofs overrun the work limit, whether
        E513 is met)."""
        proofs = self._proofs
        spans: list[tuple[float, int, int]] = []  # (rank, start, end): an action's moves are listed together
        start, action = 0, moves[0].action if moves else ""
        for end in range(1, len(moves) + 1):
            if end == len(moves) or moves[end].action != action:
                seen = proofs.get(action)
                if seen is None:
                    rank = float("inf")
                else:
                    n, legal, work = seen
                    rank = (work / n) * (n + 2) / (legal + 1)  # expected work to a legal one (legal rate smoothed)
                spans.append((rank, start, end))
                if end < len(moves):
                    start, action = end, moves[end].action
        spans.sort(key=_first)  # stable: equal ranks (and unproven actions) stay in id order
        return [i for _, start, end in spans for i in range(start, end)]

    def _kept(self) -> Runs | None:
        """The finished runs kept for the state as it is now (a new, empty set once it has changed)."""
        if not self.keep_runs:
            return None
        if self._made is not None:  # the runs of the state before the open activity, whose run is made in it
            return self._made.runs
        runs = self._runs = Runs.current(self._runs, self._m.state)
        return runs

    def _prove(self, pending: Pending, option_id: int) -> bool:
        """Whether the pending decision's candidate can be carried out to the end (one proof, on demand)."""
        if pending is not self._pending:
            raise BoardrulesError("E509", f"'{pending.prompt}' is no longer the pending decision", None,
                                  "ask game.pending() again after every apply")
        self._settle()
        answer = self._pending_answers[option_id]
        if pending.kind == "move":
            activity = Activity("move" if self._m.flow_on else "act", pending.player, answer.action,
                                dict(answer.params))
        else:
            assert self._open is not None
            activity = _with(self._open, answer)
        left = self._search.work_left
        ok = self._search.can_finish(activity)
        if pending.kind == "move":
            seen = self._proofs.setdefault(answer.action, [0, 0, 0])
            seen[0] += 1
            seen[1] += ok
            seen[2] += left - self._search.work_left + _PROOF_SETUP
        first = self._search.first
        if ok and first is not None and first.stop_at is not None:
            self._stops[option_id] = first.stop_at  # apply need not run it again to find where it stops
        return ok

    @property
    def problems(self) -> list[dict[str, Any]]:
        """Dry runs of the legal-move search that failed for a reason other than a refusal (a loop, a work limit,
        an unknown value, a type error), by code and rule location, with how often: rule bugs that made a move or
        option unavailable, which the search reports instead of hiding (see docs/embedding.md)."""
        return [p.plain() for p in self._m.problems.values()]

    def legal_actions(self, player: str | None = None) -> list[dict[str, Any]]:
        """The legal moves as plain data: [{"action": name, "params": {...}}, ...]."""
        return [m.plain() for m, _ in self.legal_moves(player)]

    # ---------------------------------------------------------------- stepping
    def apply(self, option: Any) -> Pending | None:
        """Answer the pending decision with an option id (or its value or label); returns the next one."""
        self._apply(option)
        return self.pending()

    def _apply(self, option: Any) -> None:
        pending = self.pending()
        if pending is None:
            raise BoardrulesError("E509", "nothing is pending: the game is over" if self.is_terminal() else
                                  "nothing is pending: take an action with act() or begin()")
        chosen = pending.option(option)
        answer = self._pending_answers[chosen.id]
        # Where the activity stops next, when proving this option already ran it that far: the same run in the
        # same state, so running it again would only find the same decision (a run that stops changes nothing).
        stop = self._stops.get(chosen.id) if pending.player != CHANCE else None
        if pending.kind == "move":
            activity = Activity("move", pending.player, answer.action, dict(answer.params))
            if stop is None:
                self._start(activity)
            else:
                self._open = activity
        else:
            assert self._open is not None
            self._open.answers.append(answer)
            if stop is None:
                self._advance(pending.player == CHANCE)
        if stop is not None:
            self._pending, self._waiting = None, stop

    def _decision(self, d: Decision) -> Pending:
        answers = answers_for(d)
        chance = d.chooser == CHANCE
        self._pending_answers = answers
        kind = CHANCE if chance else d.kind if d.kind != "order" else "one"
        rule = str(d.rule) if d.rule else None
        if chance:  # chance outcomes are never filtered, and are equally likely
            p = 1 / len(answers) if answers else 0.0
            outcomes = _Options(answers, lambda i, a: Option(i, plain(a), _label(a), p))
            return Pending(d.chooser, kind, d.prompt, outcomes, rule, _line(d.rule))
        options = _Options(answers, _answer_option)
        self._search = self._new_search()  # offer only what can still be finished, proven when asked
        self._stops = {}
        return Pending(d.chooser, kind, d.prompt, options, rule, _line(d.rule), self._prove)

    def _start(self, activity: Activity) -> None:
        self._open = activity
        self._advance()

    def _advance(self, outcome: bool = False) -> None:
        """Run the open activity as far as its answers go; commit it when it finishes. After a chance `outcome`,
        a run held at that decision goes on from there, and a new run is held at its next chance decision
        (engine/held.py), since chance decisions tend to come in series (draws, a shuffle's steps)."""
        self._pending = None
        self._waiting = None
        activity = self._open
        assert activity is not None
        m = self._m
        made = self._made
        if made is not None:  # as below with kept runs, its changes being made already; else taken back first
            kept = made.runs.find(activity)
            n = len(activity.answers)
            if kept is not None and n < len(kept.answers):
                self._waiting = kept.asked[n]
                return
            if (kept is made.run or (kept is None and not made.kept)) and m.coverage is None:
                self._made = None
                for name in made.run.started:
                    m.covered.add(name)
                self._finish(activity, made.mark, None)
                return
            self._settle()
        held, self._held = self._held, None
        if held is not None and not held.continues(activity, m.state):
            held.abandon()
            held = None
        if held is not None and not held.dirty:  # a proof may have finished it with these answers already
            runs = self._kept()
            if runs is not None and runs.find(activity) is not None:
                held.abandon()
                held = None
        runs = self._kept() if held is None else None
        kept = runs.find(activity) if runs is not None else None
        if kept is not None:  # a proof ran it with these answers already: where it stops, or what it does
            n = len(activity.answers)
            if n < len(kept.answers):
                self._waiting = kept.asked[n]
                return
            # A traced run records each rule it runs, and a run committed as it ran kept no changes: run it then
            if m.coverage is None and kept.redo is not None:
                mark = m.state.mark()
                m.state.redo(kept.redo)
                for name in kept.started:
                    m.covered.add(name)
                self._finish(activity, mark, None)
                return
        if held is not None or (outcome and self.hold_runs and m.coverage is None):
            if held is None:
                held = Held(m, activity)
                event = held.start(self)
            else:
                event = held.resume(self)
            if event[0] == "held":
                self._held, self._waiting = held, event[1]
            elif event[0] == "done":
                self._finish(activity, event[1], None)
            elif isinstance(event[1], StopForAnswer):
                self._waiting = event[1].decision
            else:
                if isinstance(event[1], BoardrulesError):
                    self._open = None
                raise event[1]
            return
        saved = m.decider
        m.decider = PrefixDecider(activity.answers, self.chance == "step")
        try:
            mark = m.transaction(activity.work(m))
        except StopForAnswer as stop:
            self._waiting = stop.decision  # what pending() shows next, without running the activity again
            return
        except BoardrulesError:
            self._open = None
            raise
        finally:
            m.decider = saved
        self._finish(activity, mark, None)

    def _drop_held(self) -> None:
        self._take_back_made()
        held, self._held = self._held, None
        if held is not None:
            held.abandon()

    def _settle(self) -> None:
        """The state as the API shows it, before the open activity: a held or made run's changes taken back (the
        made run kept with them, as a proof keeps the runs it takes back)."""
        self._take_back_made()
        held = self._held
        if held is not None and held.dirty:
            held.settle()

    def _take_back_made(self) -> None:
        made = self._made
        if made is not None:
            self._made = None
            st = self._m.state
            made.run.redo = st.capture(made.mark)
            st.rollback(made.mark)

    def _finish(self, activity: Activity, mark: int, recorder: Recorder | None) -> None:
        self._open = None
        self._pending = None
        entry = _log_entry(activity, recorder)
        if activity.kind == "setup":  # how the game was played, so a replay needs only the log
            entry = (*entry, {"flow": self._m.flow_on, "chance_mode": self.chance})
        else:
            self._history.append((mark, len(self._log), activity if recorder is None else None))
        try:
            shared = self._shared
            entry = shared.setdefault(entry, entry) if len(shared) < _SHARED_ENTRIES else shared.get(entry, entry)
        except TypeError:  # an answer holding a list of lists, or a setup entry's dict: kept as it is
            pass
        self._log.append(entry)
        if self.undo_depth is not None and (len(self._history) > self.undo_depth
                                            or len(self._m.state.journal) >= _TRIM_AT):
            self._trim()

    # ---------------------------------------------------------------- conveniences: whole actions at once
    def act(self, player: str | None, action: str, params: dict[str, Any] | None = None,
            decider: Decider | None = None) -> None:
        """Take an action and answer its decisions from `decider` (chance from it too, or the seeded generator).

        With a flow this is a move (it must be the player's turn and phase), and what the game does after it
        runs too. On any error the state is exactly as before, and the error is raised."""
        self._run_whole(Activity("move" if self._m.flow_on else "act", player, action, dict(params or {})), decider)

    def end_turn(self, player: str, decider: Decider | None = None) -> None:
        """End a player's turn in free play: deferred events, then `turn_end` triggers, as one transaction."""
        self._run_whole(Activity("end_turn", player), decider)

    def end_round(self) -> None:
        """End the round in free play: per-round limits start again (and an `end game after this round` ends the
        game here)."""
        self._run_whole(Activity("end_round"), None)

    def _run_whole(self, activity: Activity, decider: Decider | None) -> None:
        if self._open is not None:
            raise BoardrulesError("E509", "a decision is open: answer it or undo() first")
        if activity.kind in ("end_turn", "end_round") and self._m.flow_on:
            raise BoardrulesError("E509", "with a flow, turns and rounds end by the rules, not by the caller")
        m = self._m
        recorder = Recorder(decider or m.decider)
        saved = m.decider
        m.decider = recorder
        try:
            mark = m.transaction(activity.work(m))
        finally:
            m.decider = saved
        self._pending = None
        self._finish(activity, mark, recorder)

    def begin(self, player: str | None, action: str, params: dict[str, Any] | None = None) -> Pending | None:
        """Start an action whose decisions the caller answers one at a time with `answer` (or `apply`).

        Returns the first pending decision, or None when the action needed none and is done."""
        if self._open is not None:
            raise BoardrulesError("E509", "a decision is open: answer it or undo() first")
        self._start(Activity("move" if self._m.flow_on else "act", player, action, dict(params or {})))
        return self._pending_or_none()

    def answer(self, value: Any) -> Pending | None:
        """Answer the open decision (an option, its id, value or label); the next decision, or None when done."""
        if self._open is None:
            raise BoardrulesError("E509", "there is no open decision to answer")
        self.apply(value.id if isinstance(value, Option) else value)
        return self._pending_or_none()

    def _pending_or_none(self) -> Pending | None:
        return self.pending() if self._open is not None else None

    # ---------------------------------------------------------------- undo, results
    def undo(self) -> bool:
        """Take back the last answer given (reopening a finished move at its last decision), or the last move
        or action that asked nothing. Turns the game skipped by itself are taken back with it."""
        self._drop_held()
        if self._open is not None and (self._open.answers or self._open.kind not in ("setup", "skip")):
            self._pending = self._waiting = None
            self._runs = None  # the state is unchanged, but a planned answer taken back is drawn again (_planned)
            if self._open.answers:
                self._open.answers.pop()
            else:
                self._open = None  # a move begun and not yet answered
            return True
        # The game's own steps (setup, a skipped turn) are not answers: they are taken back only with the move
        # before them, and when there is none there is nothing to undo.
        if all(a is not None and a.kind == "skip" and not a.answers for _, _, a in self._history):
            return False
        self._pending = self._waiting = None
        self._open = None
        while self._history:
            mark, log_len, activity = self._history.pop()
            self._m.state.rollback(mark)
            del self._log[log_len:]
            if activity is not None and activity.kind == "skip" and self._history:
                continue  # the game did it by itself after the move being undone
            if activity is not None and activity.answers:
                self._open = _with(activity, None, drop=True)
                self._open.answers.pop()
            return True
        return False

    def ranking(self) -> list[dict[str, Any]]:
        """Players in rank order, with the values of the ranking keys; equal keys share a rank (1, 1, 3)."""
        self._settle()
        return [{"rank": r, "player": p, "keys": [plain(k) for k in keys]} for r, p, keys in flow.ranking(self._m)]

    def returns(self) -> list[float]:
        """One number per player, in seat order: at the end, (players ranked below - players ranked above) /
        (players - 1), so a 2-player win is 1 and a loss -1; before the end, zeros."""
        n = len(self._m.players)
        if not self.is_terminal() or n == 1:
            return [0.0] * n
        ranks = {row["player"]: row["rank"] for row in self.ranking()}
        return [(sum(ranks[q] > ranks[p] for q in ranks) - sum(ranks[q] < ranks[p] for q in ranks)) / (n - 1)
                for p in self.players]

    # ---------------------------------------------------------------- copies, saves, replays
    def clone(self, *, journal: bool = False) -> Game:
        """An independent copy of the game now, without its undo history (for search and simulation); with
        `journal`, the same game in every respect: its journal and undo history, the rules that have run and the
        work spent (the scenario runner starts each scenario from a copy of one set-up game)."""
        self._settle()
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other._m = self._m.copy(journal)
        other._log = list(self._log)
        other._history = list(self._history) if journal else []
        other._open = None if self._open is None else _with(self._open, None, drop=True)
        other._pending = None if self._pending is None else self._pending.rebound(other._prove)
        # The copy keeps the runs kept for this state (so a move's planned answers are played on in the copy as
        # here, and a copy plays on as the original does with the same generator).
        # Not with a held run, which the copy cannot take: this game plays no plan past it (see _planned).
        runs = self._runs
        other._runs = runs.copy_for(other._m.state) \
            if runs is not None and self._held is None and runs.fresh(self._m.state) else None
        other._held = None  # so does a held run
        other._proofs = {k: list(v) for k, v in self._proofs.items()}
        other._search = other._new_search()
        other._stops = dict(self._stops)
        return other

    def reseed(self, seed: int) -> None:
        """Start the seeded generator again from `seed` (to sample other futures in a copy); logged."""
        if self._open is not None:
            raise BoardrulesError("E509", "a decision is open: answer it or undo() first")
        st = self._m.state
        mark = st.mark()
        st.set_var("rng", State([], seed).vars["rng"])
        self._pending = None
        self._history.append((mark, len(self._log), None))
        self._log.append(("reseed", seed))

    def to_json(self) -> dict[str, Any]:
        """The state alone (modules and state store); see `serialize` for a whole game."""
        self._settle()
        return {"modules": self.rules.modules, "state": self._m.state.to_json()}

    @classmethod
    def from_json(cls, rules: Rules, data: dict[str, Any], decider: Decider | None = None) -> Game:
        """A game in free play from a state saved with `to_json`. Data of another shape, another pack's modules,
        or a state these rules do not lay out for its players is refused with E512."""
        if not isinstance(data, dict) or "state" not in data:
            raise saves.refuse("not a saved state: expected the object Game.to_json returns",
                               "pass what Game.to_json returned")
        _check_modules(rules, data.get("modules"))
        saves.check_state(data["state"])
        state = State.from_json(data["state"])
        game = cls(rules, len(state.players), 1, decider)
        saves.check_layout(state, game._m.state, rules)
        game._m.state = state
        game._set_up = True
        return game

    def serialize(self) -> str:
        """The whole game as JSON text: seed, options, modules with a hash of their content, the log, the open
        decision's answers and the state (which `deserialize` checks against a replay of the log)."""
        self._settle()
        data = {
            "format": SAVE_FORMAT, "pack": self.rules.pack, "modules": self.rules.modules,
            "fingerprint": saves.fingerprint(self.rules, len(self._m.players), self.chance, self._m.flow_on),
            "options": self.rules.options,
            "players": len(self._m.players), "seed": self.seed,
            "flow": self._m.flow_on, "chance": self.chance, "undo_depth": self.undo_depth, "log": self.log,
            "open": None if self._open is None else _entry_dict(_log_entry(self._open, None)),
            "state": self._m.state.to_json(),
        }
        plan = self._plan()
        if plan is not None:
            data["plan"] = plan
        return json.dumps(data, sort_keys=True, ensure_ascii=False)

    def _plan(self) -> dict[str, Any] | None:
        """The open activity's later answers as play_random drew and proved them (see _planned), as plain values:
        what a save keeps so that the loaded game plays them too."""
        activity = self._open
        if activity is None or self._held is not None:
            return None
        runs = self._kept()
        kept = runs.find(activity, drawn=True) if runs is not None else None
        n = len(activity.answers)
        if kept is None or kept.drawn is None or len(kept.answers) <= n:
            return None
        return {"answers": [plain(a) for a in kept.answers[n:]], "drawn": kept.drawn}

    def _restore_plan(self, plan: dict[str, Any]) -> None:
        """Keep again the run of a saved plan: the open activity run with the plan's answers, matched by plain
        value as the log's are, proven to finish, and marked drawn as it was. A plan that does not fit is refused
        (E512), as a log that does not replay is."""
        activity = self._open
        if activity is None:
            raise BoardrulesError("E512", "the save has a plan but no open activity")
        whole = _with(activity, None, drop=True)
        for a in plan["answers"]:
            match = self._by_value(whole, a)[1]
            if not match:
                raise BoardrulesError("E512", f"the saved plan's answer {shown(a)} does not fit the open activity")
            whole.answers.append(match[0])
        if plan["drawn"] > len(whole.answers):
            raise BoardrulesError("E512", f"the saved plan is drawn from answer {plan['drawn']} of "
                                  f"{len(whole.answers)}")
        runs = self._kept()
        if probe(self._m, whole, self.chance == "step", runs=runs).outcome != "done":
            raise BoardrulesError("E512", "the saved plan does not finish the open activity")
        kept = runs.find(whole) if runs is not None else None
        if kept is not None:
            kept.drawn = plan["drawn"]

    @classmethod
    def deserialize(cls, text: str | bytes, pack: Rules | str | Path | None = None) -> Game:
        """Rebuild a saved game by replaying its log on the same rules (a pack directory, or linked rules;
        by default the directory the game was started from, whose own module files alone are read).

        The save is checked first (saves.py: strict JSON, grammar/save.schema.json, its fingerprint against the
        rules); a save that is not one, of other modules, changed rules, other options, players or chance mode,
        or one that does not replay to its saved state is refused with a diagnostic (E512)."""
        data = saves.parse(text)
        rules = saves.rules_for(data, pack)
        saves.check(data, rules)
        opts: dict[str, Any] = {"flow": data["flow"], "chance": data["chance"], "undo_depth": data.get("undo_depth")}
        with saves.replaying():
            if (data["open"] or {}).get("kind") == "setup":  # saved before setup finished: nothing to replay
                game = cls(rules, data["players"], data["seed"], **opts)
                game._set_up = True
            else:
                game = cls.replay(rules, data["players"], data["seed"], data["log"], **opts)
            if data["open"]:
                entry = data["open"]
                params = {k: game._m.from_plain(v) for k, v in entry.get("params", {}).items()}
                game._replay_stepwise(Activity(entry["kind"], entry.get("player"), entry.get("action"), params),
                                      entry, finish=False)
            if data.get("plan"):
                game._restore_plan(data["plan"])
            replayed = json.dumps(game._m.state.to_json(), sort_keys=True)
        if replayed != json.dumps(data["state"], sort_keys=True):
            raise BoardrulesError("E512", "the saved state differs from a replay of the saved log",
                                  None, "the save was edited, or made by another version of boardrules")
        return game

    @classmethod
    def replay(cls, rules: Rules, players: int, seed: int, log: list[dict[str, Any]], *, flow: bool | None = None,
               chance: str | None = None, undo_depth: int | None = UNDO_DEPTH) -> Game:
        """A new game with this seed, set up and played through a log (`game.log`); how the game was played
        (with its flow or not, chance stepped or not) is read from the log unless given."""
        setup = log[0] if log and log[0].get("kind") == "setup" else {}
        flow = bool(setup.get("flow", False)) if flow is None else flow
        chance = str(setup.get("chance_mode", "auto")) if chance is None else chance
        game = cls(rules, players, seed, flow=flow, chance=chance, undo_depth=undo_depth)
        entries = list(log)
        first = entries.pop(0) if entries and entries[0].get("kind") == "setup" else None
        game._set_up = True
        if first is not None and "chance" not in first:
            game._replay_stepwise(Activity("setup"), first)
        else:
            decider = ScriptedDecider(first.get("answers", []), first.get("chance", [])) if first else None
            game._run_whole(Activity("setup"), decider)
        for entry in entries:
            kind = entry.get("kind")
            if kind == "reseed":
                game.reseed(int(entry["seed"]))
            elif kind in ("move", "skip") and "chance" not in entry:
                params = {k: game._m.from_plain(v) for k, v in entry.get("params", {}).items()}
                game._replay_stepwise(Activity(kind, entry.get("player"), entry.get("action"), params), entry)
            else:
                decider = ScriptedDecider(entry.get("answers", []), entry.get("chance", []))
                if kind == "end_turn" or "end_turn" in entry:
                    game.end_turn(entry.get("player") or entry["end_turn"], decider)
                elif kind == "end_round":
                    game.end_round()
                else:
                    game.act(entry.get("player"), entry["action"], entry.get("params"), decider)
        return game

    def _by_value(self, activity: Activity, value: Any) -> tuple[Decision | None, list[Any]]:
        """The activity's next decision (None when it asks none more) and its answers whose plain value is
        `value`: how a log or a saved plan, which hold plain values, answer."""
        result = probe(self._m, activity, self.chance == "step")
        decision = result.decision if result.outcome == "stop" else None
        return decision, [x for x in answers_for(decision) if plain(x) == value] if decision is not None else []

    def _replay_stepwise(self, activity: Activity, entry: dict[str, Any], finish: bool = True) -> None:
        """Answer by plain value, without the legality search: the log was legal when it was played.
        With `finish`, the entry must complete the activity; without, it is left open at its next decision."""
        self._open = activity
        for a in entry.get("answers", []):
            decision, match = self._by_value(activity, a)
            if decision is None:
                raise BoardrulesError("E512", f"the log has answers no decision asked for: {shown(entry)}")
            if not match:
                raise BoardrulesError("E512", f"the logged answer {shown(a)} is not an option of '{decision.prompt}'")
            activity.answers.append(match[0])
        self._advance()
        if finish and self._open is not None:
            raise BoardrulesError("E512", f"the log ends in the middle of {shown(entry)}")

    # ---------------------------------------------------------------- memory
    def _trim(self) -> None:
        """Keep `undo_depth` activities of undo history; drop older journal entries in large chunks."""
        if self.undo_depth is None:
            return
        extra = len(self._history) - self.undo_depth
        if extra > 0:
            del self._history[:extra]
        journal = self._m.state.journal
        keep_from = self._history[0][0] if self._history else len(journal)
        if keep_from >= _TRIM_AT:
            del journal[:keep_from]
            self._history = [(mark - keep_from, n, a) for mark, n, a in self._history]


def _first(item: tuple[float, int, int]) -> float:
    return item[0]


def _label(answer: Any) -> str:
    if answer is None or type(answer) is bool:
        return {None: "none", True: "yes", False: "no"}[answer]
    if isinstance(answer, list):
        return ", ".join(str(plain(a)) for a in answer) or "nothing"
    return str(plain(answer))


def _with(activity: Activity, answer: Any, drop: bool = False) -> Activity:
    answers = list(activity.answers) if drop else [*activity.answers, answer]
    return Activity(activity.kind, activity.player, activity.action, dict(activity.params), answers)


def _log_entry(activity: Activity, recorder: Recorder | None) -> tuple[Any, ...]:
    """A log entry as a tuple of plain values: small, and the collector stops tracking it (memory stays flat)."""
    params = tuple((k, _frozen(plain(v))) for k, v in activity.params.items()) if activity.params else ()
    if recorder is not None:
        return (activity.kind, activity.player, activity.action, params,
                tuple(map(_frozen, recorder.answers)) if recorder.answers else (),
                tuple(map(_frozen, recorder.chance_results)) if recorder.chance_results else ())
    answers = tuple(_frozen(plain(a)) for a in activity.answers) if activity.answers else ()
    return (activity.kind, activity.player, activity.action, params, answers, None)


def _frozen(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _entry_dict(entry: tuple[Any, ...]) -> dict[str, Any]:
    if entry[0] == "reseed":
        return {"kind": "reseed", "seed": entry[1]}
    kind, player, action, params, answers, chance = entry[:6]
    out: dict[str, Any] = {"kind": kind}
    if len(entry) > 6:
        out.update(entry[6])
    if player is not None:
        out["player"] = player
    if action is not None:
        out["action"] = action
        out["params"] = {k: list(v) if isinstance(v, tuple) else v for k, v in params}
    out["answers"] = [list(a) if isinstance(a, tuple) else a for a in answers]
    if chance is not None:
        out["chance"] = [list(c) if isinstance(c, tuple) else c for c in chance]
    return out


def _line(span: Span | None) -> str | None:
    if span is None:
        return None
    text = source_line(span.file, span.line)
    return text.strip() if text else None


def _check_modules(rules: Rules, modules: Any) -> None:
    if modules is not None and (type(modules) is not list or modules != list(rules.modules)):
        raise BoardrulesError("E512", f"the save is of modules {modules}, not {rules.modules}", None,
                              "load it with the pack it was saved from")


__all__ = ["CHANCE", "TERMINAL", "Game", "Option", "Pending", "Piece", "Player"]
