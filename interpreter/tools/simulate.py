"""`boardrules simulate`: play many whole games with bots, check invariants after every step, report how
they went. Games run in this process, on K worker processes, or on Ray (`adapters/ray_backend.py`); game i
always has seed S + i and the report is built from the games in seed order, so it is the same whatever runs them.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import saves
from ..diagnostics import BoardrulesError, Diagnostic
from ..engine.rules import Rules
from ..game import Game, Option, Pending
from .bots import play_next
from .invariants import Checker, Violation
from .metrics import balance
from .metrics import render as render_balance
from .sim_outputs import UNWRITABLE, reason, write_atomic
from .sim_pool import Interrupted, run_pool
from .sim_rows import Outcome, Tally, row

FAILURE_FORMAT = saves.FAILURE_FORMAT

MAX_STEPS = 100_000  # decisions in one game before it counts as a game that never ends
# Listing a move decision's options proves every candidate, where playing it proves about one: the branching
# factor is measured on the 1st, 11th, 21st... move decision of each phase of a game (sim_rows.Tally).
BRANCHING_EVERY = 10


@dataclass(frozen=True)
class Setup:
    """Everything a worker needs to play games: plain data, so it crosses process and machine boundaries."""

    pack: str
    modules: tuple[str, ...] | None
    options: tuple[tuple[str, Any], ...]
    players: int
    chance: str = "step"
    bots: tuple[tuple[str, str], ...] = ()
    max_steps: int = MAX_STEPS
    failures: str | None = None  # a directory for the logs of failed games; None: do not save them
    check: bool = True
    branching_every: int = BRANCHING_EVERY  # list the options of every Nth move decision of a phase (0: none)

    def load(self) -> Rules:
        from ..language.pack import load_rules

        key = (self.pack, self.modules, json.dumps(self.options, sort_keys=True, default=str))
        if key not in _RULES:
            _RULES[key] = load_rules(self.pack, list(self.modules) if self.modules else None, dict(self.options))
            if len(_RULES) > MAX_LOADED:  # a program that simulates many setups keeps only the latest
                del _RULES[next(iter(_RULES))]
        return _RULES[key]


_RULES: dict[Any, Rules] = {}  # linked rules per (pack, modules, options), one load per process, oldest first
MAX_LOADED = 8


def play_one(setup: Setup, seed: int, rules: Rules | None = None, step: Callable[[], None] | None = None) -> Outcome:
    """One game with the setup's bots (random for seats without one; chance by its probabilities), seeded;
    random seats and chance play through `Game.play_random` (bots.play_next), so an all-random game with seed S
    is the game `play_random` plays with `random.Random(S)`. `step` is called after every decision (the
    progress bar)."""
    rules = rules or setup.load()
    out = Outcome(seed)
    rng = random.Random(seed)
    bots = dict(setup.bots)
    checker = Checker(rules, setup.players) if setup.check else None
    game: Game | None = None
    pending: Pending | None = None
    chosen: Option | None = None
    playing = False

    def seen(p: Pending, o: Option) -> None:  # before an answer is applied
        nonlocal pending, chosen
        pending, chosen = p, o
        tally.step(game, p)  # type: ignore[arg-type]  # (game is set by then)

    try:
        game = Game(rules, setup.players, seed, flow=True, chance=setup.chance)
        tally = Tally(game, out, setup.branching_every)
        game.setup()
        playing = True
        while not game.is_terminal():
            if checker is not None:
                bad = checker.check(game)
                if bad is not None:
                    return _failed(out, setup, game, "invariant", bad, None)
            pending = chosen = None
            if play_next(game, bots, rng, seen=seen) is None:
                raise BoardrulesError("E509", "the game waits for nothing but is not over")
            assert pending is not None
            out.steps += 1
            if step is not None:
                step()
            if out.steps >= setup.max_steps:
                rule = pending.rule or "flow"
                return _failed(out, setup, game, "step_limit", Violation(
                    "flow", rule, f"the game did not end within {setup.max_steps} decisions"), pending)
        if checker is not None:
            bad = checker.check(game)
            if bad is not None:
                return _failed(out, setup, game, "invariant", bad, None)
    except BoardrulesError as err:
        if pending is None and playing:  # it failed before an answer was drawn: the decision it was at
            with contextlib.suppress(BoardrulesError):
                pending = game.pending()  # type: ignore[union-attr]
        d = err.diagnostic
        v = Violation(_rule_of(pending, chosen), str(d.span) if d.span else pending.rule if pending else None,
                      f"{d.code}: {d.message}")
        return _failed(out, setup, game, "error", v, pending)
    finally:
        if game is not None:
            out.problems = game.problems
    out.moves = sum(1 for e in game.log if e["kind"] == "move")
    out.actions = dict(Counter(e["action"] for e in game.log if e["kind"] == "move"))
    out.rules = sorted(game.covered)
    out.returns = game.returns()
    tally.finish(game)
    ranking = game.ranking()
    out.winners = [r["player"] for r in ranking if r["rank"] == 1]
    first = {r["player"]: (r["keys"][0] if r["keys"] else None) for r in ranking}
    out.scores = [first[p] for p in game.players]
    return out


def _rule_of(pending: Any, chosen: Any) -> str:
    """The rule a failing step was in: the action of a move, or the rule that asked the decision."""
    if pending is None:
        return "setup"
    if pending.kind == "move" and chosen is not None and isinstance(chosen.value, dict):
        return f"actions.{chosen.value.get('action')}"
    return pending.rule or "flow"


def _failed(out: Outcome, setup: Setup, game: Game | None, kind: str, v: Violation, pending: Any) -> Outcome:
    """Record why the game failed and save a log `Game.replay` can play back to the state where it happened."""
    out.error = f"{kind}: {v.rule}: {v.message}"
    out.failure = {"kind": kind, "rule": v.rule, "where": v.where, "message": v.message, "file": None}
    if game is not None:
        out.rules = sorted(game.covered)
    if setup.failures is None or game is None:
        return out
    record = {
        "format": FAILURE_FORMAT, "kind": kind, "rule": v.rule, "where": v.where, "message": v.message,
        "pack": setup.pack, "modules": game.rules.modules, "options": game.rules.options,
        "players": setup.players, "seed": out.seed, "bots": dict(setup.bots), "steps": out.steps,
        "pending": pending.to_json() if pending is not None else None, "log": game.log,
        "save": game.serialize(),  # what `play --load` and `view` open (game_files.py)
    }
    folder = Path(setup.failures)
    path = folder / f"{Path(setup.pack).name}-seed{out.seed}-{kind}.json"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(record, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    except OSError as exc:  # a full disk loses the log, never the game's result
        out.failure["save_error"] = f"{UNWRITABLE}: the log could not be saved in {folder}: {reason(exc)}"
        return out
    out.failure["file"] = str(path)
    return out


def replay_failure(path: str | Path, rules: Rules | None = None) -> Game:
    """The game of a saved failure, played back through its log (to the last completed step)."""
    data = saves.parse(saves.read_file(path), "failure")
    rules = saves.rules_for(data, rules)
    if list(data["modules"]) != list(rules.modules):
        raise saves.refuse(f"the failure is of modules {', '.join(data['modules'])}, not {', '.join(rules.modules)}")
    with saves.replaying():
        return Game.replay(rules, data["players"], data["seed"], data["log"])


def run_batch(setup: Setup, seeds: list[int]) -> list[Outcome]:
    """A batch of games in one worker (one rules load per worker process)."""
    rules = setup.load()
    return [play_one(setup, s, rules) for s in seeds]


def batches(seeds: list[int], workers: int, size: int | None = None) -> list[list[int]]:
    """Consecutive seeds in batches: several per worker, so the work stays balanced and the bar moves."""
    size = size or max(1, min(64, math.ceil(len(seeds) / (workers * 4))))
    return [seeds[i:i + size] for i in range(0, len(seeds), size)]


def _local(setup: Setup, work: list[list[int]], workers: int, done: Callable[[int], None],
           step: Callable[[], None] | None = None) -> list[Outcome]:
    if workers <= 1:
        rules = setup.load()
        out: list[Outcome] = []
        try:
            for batch in work:
                for s in batch:
                    out.append(play_one(setup, s, rules, step))
                    done(1)
        except KeyboardInterrupt:
            raise Interrupted(out) from None
        return out
    setup.load()  # linked once here; forked workers inherit it
    return run_pool(run_batch, _lost, setup, work, workers, done)


def _lost(seed: int, why: str) -> Outcome:
    return Outcome(seed, error=f"lost: {why}",
                   failure={"kind": "lost", "rule": None, "where": None, "message": why, "file": None})


def simulate(setup: Setup, games: int, seed: int, workers: int = 1, backend: str = "process",
             address: str | None = None, progress: bool | None = None) -> dict[str, Any]:
    """Play `games` games with seeds seed .. seed + games - 1 and return the report (see `summarise`)."""
    started = time.perf_counter()
    seeds = list(range(seed, seed + games))
    bar = Progress(games, sys.stderr.isatty() if progress is None else progress)
    interrupted = False
    try:
        if backend == "ray":
            from ..adapters.ray_backend import run_on_ray

            outcomes = run_on_ray(run_batch, _lost, setup, batches(seeds, max(workers, 1)), address, bar.advance)
        else:
            outcomes = _local(setup, batches(seeds, workers), workers, bar.advance, bar.step)
    except Interrupted as stop:  # Ctrl-C: the report of the games that finished
        outcomes, interrupted = stop.outcomes, True
    bar.close()
    outcomes = sorted(outcomes, key=lambda o: o.seed)
    report = summarise(setup.load(), setup.players, outcomes)
    report["rows"] = [row(setup, o) for o in outcomes]
    report["balance"] = balance(report["rows"])
    report["seconds"] = round(time.perf_counter() - started, 3)
    report["run"] = {"backend": backend, "workers": workers}
    if interrupted:
        report["interrupted"] = {"requested": games, "played": len(outcomes)}
    return report


def summarise(rules: Rules, players: int, outcomes: list[Outcome]) -> dict[str, Any]:
    """The report of games in seed order: the same games give the same report, byte for byte."""
    seats = [f"p{i}" for i in range(1, players + 1)]
    finished = [o for o in outcomes if o.error is None]
    wins = Counter(w for o in finished for w in o.winners)
    actions: Counter[str] = Counter()
    fired: Counter[str] = Counter()
    problems: dict[tuple[str, str], dict[str, Any]] = {}
    for o in outcomes:
        actions.update(o.actions)
        fired.update(o.rules)
        for p in o.problems:
            seen = problems.setdefault((p["where"], p["code"]), {**p, "count": 0, "games": 0})
            seen["count"] += p["count"]
            seen["games"] += 1
    scores = {}
    for i, seat in enumerate(seats):
        values = [o.scores[i] for o in finished if isinstance(o.scores[i], int | float)]
        scores[seat] = _spread(values)
    return {
        "games": len(outcomes), "finished": len(finished),
        "errors": [{"seed": o.seed, "error": o.error, **(o.failure or {})} for o in outcomes if o.error],
        "moves": _spread([o.moves for o in finished]),
        "steps": _spread([o.steps for o in finished]),
        "scores": scores,
        "wins": {s: wins.get(s, 0) for s in seats},
        "win_rate": {s: round(wins.get(s, 0) / len(finished), 4) if finished else 0.0 for s in seats},
        "actions": dict(sorted(actions.items())),
        "rules_fired": dict(sorted(fired.items())),
        "never_fired": [name for name in rules.rule_names() if name not in fired],
        # W520: dry runs of the legal-move search that failed for a rule bug, not a refusal, per rule
        "search_problems": [problems[k] for k in sorted(problems)],
    }


def _spread(values: list[Any]) -> dict[str, Any]:
    if not values:
        return {"min": 0, "mean": 0, "max": 0}
    return {"min": min(values), "mean": round(sum(values) / len(values), 3), "max": max(values)}


class Progress:
    """A one-line bar on a terminal, drawn at once and redrawn at least every second while games run (with the
    decisions played so far in one process); silent otherwise."""

    EVERY = 0.5  # seconds between redraws while a game is being played

    def __init__(self, total: int, on: bool) -> None:
        self.total, self.on, self.done = total, on and total > 0, 0
        self.decisions = 0
        self.drawn = time.monotonic()
        self._draw()

    def advance(self, n: int) -> None:
        self.done += n
        self._draw()

    def step(self) -> None:
        self.decisions += 1
        if self.on and time.monotonic() - self.drawn >= self.EVERY:
            self._draw()

    def _draw(self) -> None:
        if self.on:
            width = 30
            fill = width * self.done // self.total
            moving = f", {self.decisions} decisions" if self.decisions else ""
            sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} games{moving}")
            sys.stderr.flush()
            self.drawn = time.monotonic()

    def close(self) -> None:
        if self.on:
            sys.stderr.write("\n")


def render(report: dict[str, Any]) -> str:
    m, s = report["moves"], report["steps"]
    lines = [f"games {report['games']}, finished {report['finished']}, errors {len(report['errors'])}",
             f"moves per game: min {m['min']}, mean {m['mean']:.1f}, max {m['max']}",
             f"decisions per game: min {s['min']}, mean {s['mean']:.1f}, max {s['max']}",
             "wins (ties count for each): " + ", ".join(f"{p} {n}" for p, n in report["wins"].items()),
             "win rate: " + ", ".join(f"{p} {r:.1%}" for p, r in report["win_rate"].items()),
             "score (first ranking key) per seat:"]
    lines += [f"  {p}: min {v['min']}, mean {v['mean']}, max {v['max']}" for p, v in report["scores"].items()]
    lines += ["actions taken:", *_columns(report["actions"])]
    lines += ["rules fired (games in which each ran):", *_columns(report["rules_fired"])]
    lines.append("rules that never fired: " + (", ".join(report["never_fired"]) or "none"))
    if "balance" in report:
        lines += render_balance(report["balance"])
    lines.append(f"{report['seconds']} s")
    for e in report["errors"]:
        saved = f" (log: {e['file']})" if e.get("file") else f" ({e['save_error']})" if e.get("save_error") else ""
        lines.append(f"seed {e['seed']}: {e['error']}{saved}")
    lines += [f"{p['where']}: warning {d.code}: {d.message}" for p, d in search_warnings(report)]
    return "\n".join(lines)


def search_warnings(report: dict[str, Any]) -> list[tuple[dict[str, Any], Diagnostic]]:
    """W520 for each rule where the legal-move search met a rule bug (its place is `where`, a file:line:col)."""
    return [(p, Diagnostic("warning", "W520", f"a move or option was dropped from play: {p['code']}: {p['message']} "
                           f"({p['count']} dry run(s) in {p['games']} game(s))"))
            for p in report.get("search_problems", ())]


def _columns(table: dict[str, int]) -> list[str]:
    width = max((len(k) for k in table), default=0)
    return [f"  {k.ljust(width)}  {v}" for k, v in table.items()] or ["  none"]


def dumps(report: dict[str, Any]) -> str:
    """The report as JSON; the per-game rows go to `--out`, not here."""
    return json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=2, sort_keys=True)


def comparable(report: dict[str, Any]) -> dict[str, Any]:
    """The report without what depends on the run (time, backend, workers): equal for the same games."""
    return {k: v for k, v in report.items() if k not in ("seconds", "run")}


__all__ = ["Outcome", "Setup", "comparable", "play_one", "render", "replay_failure", "run_batch", "simulate"]
