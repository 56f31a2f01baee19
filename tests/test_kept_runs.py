"""Finished dry runs are kept and made again instead of run again (engine/resume.py).

Two proofs: on the store, a captured run made again on the state it started from (`State.redo`) leaves the state,
the linked-piece index and the journal exactly as the run left them, so rollback and undo still restore the
start, for any sequence of primitive operations (hypothesis); and on whole games, a game that keeps runs and one
that runs every activity (and takes no stop from a proof) agree at every step on every pack and both chance
modes: state, log, the decision waited for, the rules started (counted per start, as `simulate` counts them),
and what each undo restores. The game that keeps runs also looks for a turn's first legal move in its own order
(`Game._likely_first`), the other in id order: the same play either way.
"""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import BoardrulesError
from boardrules.engine.moves import Activity, Search
from boardrules.engine.state import State, ZoneRec
from boardrules.game import Game
from boardrules.language.pack import load_rules
from boardrules.tools.sim_rows import Tally

ROOT = Path(__file__).resolve().parents[1]
PACKS = {"relay": (ROOT / "tests" / "packs" / "relay", {"prize": 4}), "lisboa": (ROOT / "rules" / "lisboa", None),
         "village": (ROOT / "rules" / "village", None), "finale": (ROOT / "tests" / "packs" / "finale", None),
         "endless": (ROOT / "benchmarks" / "endless", None)}
STEPS = {"endless": 300}  # a game that never ends is played this far; the others to their end (or 1,500)

# ---------------------------------------------------------------- the store


def _state() -> State:
    s = State(["p1", "p2"], 3)
    s.add_zone("farm", ZoneRec(owner="p1"))
    s.add_zone("queue", ZoneRec(ordered=True, capacity=4))
    s.add_zone("podium", ZoneRec(slots=3, slot_capacity=2))
    s.add_marker("pawn", "ring", 1)
    s.init_counter("coins", 3)
    for pid in ("a", "b", "c"):
        s.create_piece(pid, "worker", "farm", None, {"age": 1})
    s.create_piece("q", "crate", "queue", None, {})
    s.journal.clear()
    return s


ZONES = ("farm", "queue", "podium")
PIDS = ("a", "b", "c", "q", "x", "worker_1", "worker_2")
OPS = st.lists(st.tuples(st.integers(0, 11), st.integers(0, 6), st.integers(0, 6), st.integers(-2, 9)),
               max_size=25)


def _do(s: State, op: int, i: int, j: int, n: int) -> None:
    pid, other, zone = PIDS[i], PIDS[j], ZONES[j % 3]
    slot = (n % 3) + 1 if zone == "podium" else (n if zone == "queue" and n > 0 else None)
    try:
        if op == 0:
            s.set_counter("coins" if i % 2 else f"gems[{i}]", n)
        elif op == 1:
            s.set_prop(pid, "age", n)
        elif op == 2:
            s.move_piece(pid, zone, slot)
        elif op == 3:
            s.create_piece(pid if n % 2 else s.new_id("worker"), "worker", zone, slot, {"age": n})
        elif op == 4:
            s.remove_piece(pid)
        elif op == 5:
            group = s.pieces[other].group or s.new_group()
            s.set_group(pid, group)
        elif op == 6:
            s.set_group(pid, None)
        elif op == 7:
            s.set_marker("pawn", n, [n, n + 1])
        elif op == 8:
            s.set_var("turn", n) if n % 2 else s.set_var(f"v{i}", [n])
        elif op == 9:
            s.use(("turn", "round")[n % 2], f"limit{i}")
        elif op == 10:
            s.clear_usage(("turn", "round")[n % 2])
        else:
            s.set_deferred([*s.deferred, {"event": f"e{i}", "args": [n], "until": "end", "me": None}])
    except (KeyError, ValueError, BoardrulesError):  # no such piece, or a full zone: nothing written
        pass


def _whole(s: State) -> tuple[str, dict[str, set[str]]]:
    return s.dumps(), {g: set(m) for g, m in s.groups.items()}


@settings(max_examples=300, deadline=None)
@given(before=OPS, run=OPS)
@example(before=[], run=[(2, 2, 1, 1), (2, 1, 0, 0), (4, 2, 0, 0)])  # a removed piece's record outlived its undo
def test_a_captured_run_made_again_is_the_run(before: list[tuple[int, ...]], run: list[tuple[int, ...]]) -> None:
    s = _state()
    start = _whole(s)
    for op in before:  # history, which the run's undo must not disturb
        _do(s, *op)
    base, mark = _whole(s), s.mark()
    for op in run:
        _do(s, *op)
    after, entries = _whole(s), list(s.journal)
    redo = s.capture(mark)
    s.rollback(mark)
    assert _whole(s) == base
    s.redo(redo)
    assert _whole(s) == after
    assert s.journal == entries
    for op in run[:3]:  # play on from the made-again state, then undo it all
        _do(s, *op)
    s.rollback(mark)
    assert _whole(s) == base
    s.redo(redo)  # kept runs are made again as often as asked
    assert _whole(s) == after
    s.rollback(0)
    assert _whole(s) == start


# ---------------------------------------------------------------- whole games


def _pair(name: str, chance: str, seed: int) -> tuple[Game, Game, dict[str, Any], dict[str, Any]]:
    path, options = PACKS[name]
    rules = load_rules(path, None, options)
    kept, rerun = (Game(rules, 3, seed=seed, flow=True, chance=chance) for _ in range(2))
    rerun.keep_runs = False
    rerun.hold_runs = False  # and runs each chance outcome's activity from its start (engine/held.py)
    for game in (kept, rerun):  # proving less (test_totality.py) would leave relay's and endless's moves no run to keep
        game._m.totality = None
    rerun._likely_first = lambda moves: list(range(len(moves)))  # type: ignore[method-assign]  # id order
    counts = []
    for game in (kept, rerun):
        out = SimpleNamespace(data=None)
        Tally(game, out)  # type: ignore[arg-type]  # counts each start of a rule, as simulate does
        counts.append(out.data)
        game.setup()
    return kept, rerun, counts[0], counts[1]


def _agree(kept: Game, rerun: Game, a: dict[str, Any], b: dict[str, Any]) -> None:
    assert kept.state.dumps() == rerun.state.dumps()
    assert kept.log == rerun.log and kept._waiting == rerun._waiting
    assert dict(a["fired"]) == dict(b["fired"]) and a["fired_by"] == b["fired_by"]


@pytest.mark.parametrize("chance", ["step", "auto"])
@pytest.mark.parametrize("name", list(PACKS))
def test_kept_and_rerun_games_agree(name: str, chance: str) -> None:
    kept, rerun, a, b = _pair(name, chance, 11)
    rng = random.Random(11)
    made_again = 0
    steps = 0
    while not kept.is_terminal() and steps < STEPS.get(name, 1_500):
        p, q = kept.pending(), rerun.pending()
        assert p is not None and q is not None
        assert (p.player, p.kind, p.prompt, p.rule) == (q.player, q.kind, q.prompt, q.rule)
        option = p.sample(rng)
        assert q.option(option.id) == option  # legal in the game that runs everything too
        rerun._stops.clear()
        journal = len(kept.state.journal)
        runs = kept._runs
        kept.apply(option.id)
        rerun.apply(option.id)
        made_again += runs is not None and runs.count > 0 and len(kept.state.journal) > journal
        _agree(kept, rerun, a, b)
        steps += 1
        if steps % 37 == 0:  # undo takes back exactly what a made-again run wrote
            for _ in range(3):
                assert kept.undo() == rerun.undo()
                _agree(kept, rerun, a, b)
    assert rerun.is_terminal() == kept.is_terminal()
    assert made_again > 0 or name == "finale"  # finale's games are a few moves long


def test_a_proof_of_a_kept_prefix_needs_no_run() -> None:
    """A move proven by a run that took its first answers is proven for each of those answers without a run,
    and the run tells where it stops."""
    kept, _, _, _ = _pair("village", "step", 3)
    rng = random.Random(3)
    while True:
        pending = kept.pending()
        assert pending is not None
        if pending.kind != "move" and pending.player != "chance" and len(pending.options) > 1:
            break
        kept.apply(pending.sample(rng).id)
    runs = kept._kept()
    assert runs is not None
    open_ = kept._open
    assert open_ is not None
    m = kept._m
    search = Search(m, True, runs=runs)
    runs_before = runs.count
    assert search.can_finish(Activity(open_.kind, open_.player, open_.action, open_.params, list(open_.answers)))
    steps = m.steps
    first = search.first
    assert first is not None and first.kept  # read from a kept run: nothing ran
    assert m.steps == steps and runs.count == runs_before


def test_kept_runs_are_dropped_when_the_state_changes() -> None:
    kept, _, _, _ = _pair("relay", "step", 5)
    pending = kept.pending()
    while pending is not None and pending.kind != "move":  # the setup's shuffle first
        pending = kept.apply(0)
    assert pending is not None
    pending.options  # noqa: B018  (proves every move: keeps their runs)
    runs = kept._runs
    assert runs is not None and runs.count > 0 and runs.fresh(kept.state)
    kept.apply(pending.options[0].id)
    assert not runs.fresh(kept.state)
    assert kept._kept() is not runs
