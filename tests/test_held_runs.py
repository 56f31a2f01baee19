"""A committed run held at a chance decision goes on with its outcome instead of running again (engine/held.py).

Differential: a game that holds runs and one that runs every activity from its start, answered alike, agree at
every step (state, log, the decision waited for), through undo, clones made while a run is held, runs dropped
for the per-thread bound, a game collected while it holds one, a run that fails after an outcome, and a game
used or collected in another thread than the one its run was held in.
"""

from __future__ import annotations

import gc
import random
import threading
from pathlib import Path
from typing import Any

import pytest

from boardrules.diagnostics import BoardrulesError
from boardrules.engine import held as held_module
from boardrules.engine.state import State
from boardrules.game import CHANCE, Game
from boardrules.language.pack import load_rules

ROOT = Path(__file__).resolve().parents[1]
DICE = """
module: dice
title: Three dice, each a held stop
source: tests/test_held_runs.py (no game text)
players: {min: 2, max: 2}
counters:
  total: {per: player, initial: 0}
dice:
  d6: {sides: 6}
actions:
  throw:
    title: Throw three dice; more than 9 in all is refused
    do:
      - roll d6 as a
      - me.total += a
      - roll d6 as b
      - me.total += b
      - roll d6 as c
      - me.total += c
      - require me.total <= 9
"""


def _agree(a: Game, b: Game) -> None:
    assert a.state.dumps() == b.state.dumps()
    assert a.log == b.log and a._waiting == b._waiting
    assert len(a.state.journal) == len(b.state.journal)


def _pair(path: Path, seed: int) -> tuple[Game, Game]:
    rules = load_rules(path, None, None)
    held, rerun = (Game(rules, 3, seed=seed, flow=True, chance="step") for _ in range(2))
    rerun.hold_runs = False
    held.setup()
    rerun.setup()
    return held, rerun


@pytest.mark.parametrize("seed", [1, 2])
def test_held_and_rerun_games_agree_through_undo_and_clones(seed: int) -> None:
    held, rerun = _pair(ROOT / "rules" / "village", seed)
    rng = random.Random(seed)
    resumed = steps = 0
    while not held.is_terminal() and steps < 400:
        p, q = held.pending(), rerun.pending()
        assert p is not None and q is not None
        assert (p.player, p.kind, p.prompt) == (q.player, q.kind, q.prompt)
        option = p.sample(rng)
        if p.player == CHANCE and held._held is not None:
            resumed += 1
            if resumed % 5 == 0:  # a copy made while a run is held plays on alike, and so does the original
                copy = held.clone()
                assert copy._held is None
                copy.apply(option.id)
                twin = rerun.clone()
                twin.apply(option.id)
                _agree(copy, twin)
        held.apply(option.id)
        rerun.apply(option.id)
        _agree(held, rerun)
        steps += 1
        if steps % 23 == 0:  # undo drops a held run and takes back exactly what the other game does
            for _ in range(2):
                assert held.undo() == rerun.undo()
                _agree(held, rerun)
    assert resumed > 10


@pytest.mark.parametrize("name", ["village", "relay"])
def test_a_run_left_dirty_between_outcomes_plays_alike(name: str) -> None:
    """Between chance outcomes nothing reads the state, so a held run is continued on the state it left (no
    rollback and redo); the state is settled only when read (every seventh step here), and agrees then."""
    path = ROOT / "rules" / name if name == "village" else ROOT / "tests" / "packs" / name
    held, rerun = _pair(path, 3)
    rng = random.Random(3)
    dirty = steps = 0
    while not held.is_terminal() and steps < 600:
        p = held.pending()
        assert p is not None
        if p.player == CHANCE and held._held is not None:
            dirty += held._held.dirty
            assert held.is_terminal() is False and held.returns() == rerun.returns()
        option = p.sample(rng)
        held.apply(option.id)
        rerun.apply(option.id)
        steps += 1
        if steps % 7 == 0:
            _agree(held, rerun)
    _agree(held, rerun)
    assert dirty >= 2  # relay: the steps of its setup shuffle


def test_runs_past_the_bound_are_dropped_and_replay_alike() -> None:
    games = []
    for seed in range(held_module.MAX_HELD + 4):
        held, rerun = _pair(ROOT / "tests" / "packs" / "relay", seed)
        games.append((held, rerun, random.Random(seed)))
    for held, rerun, rng in games:  # setup's shuffle: each game is held at a step of it
        while held.pending() is not None and held.pending().player == CHANCE and held._held is None:
            option = held.pending().sample(rng)
            held.apply(option.id)
            rerun.apply(option.id)
    with held_module._LOCK:
        count = len(held_module._HELD.get(threading.get_ident(), {}))
    assert count <= held_module.MAX_HELD
    dropped = [g for g, _, _ in games if g._held is not None and g._held.dropped]
    assert len(dropped) >= 4
    for held, rerun, rng in games:  # dropped or not, each plays to its end as the rerun game does
        while not held.is_terminal():
            option = held.pending().sample(rng)
            held.apply(option.id)
            rerun.apply(option.id)
            _agree(held, rerun)


def test_a_collected_game_drops_its_held_run() -> None:
    held, _ = _pair(ROOT / "tests" / "packs" / "relay", 5)
    rng = random.Random(5)
    while held._held is None:
        held.apply(held.pending().sample(rng).id)
    run = held._held
    del held
    gc.collect()
    assert run.dropped and not run.held
    with held_module._LOCK:
        assert id(run) not in held_module._HELD.get(threading.get_ident(), {})


def _dice_game(tmp_path: Path) -> Game:
    """A set-up game of the DICE pack with chance stepped, so that its throws are held."""
    (tmp_path / "dice.yaml").write_text(DICE)
    game = Game(load_rules(tmp_path, None, None), 2, seed=1, chance="step")
    game.setup()
    return game


def test_a_run_that_fails_after_an_outcome_leaves_the_state_as_it_was(tmp_path: Path) -> None:
    game = _dice_game(tmp_path)
    before = game.state.dumps()
    pending = game.begin("p1", "throw")
    assert pending is not None and pending.player == CHANCE
    pending = game.answer(pending.option("6"))  # held at the second die
    assert game._held is not None and game.state.dumps() == before
    pending = game.answer(pending.option("3"))  # and at the third
    assert game._held is not None and game.state.dumps() == before
    with pytest.raises(BoardrulesError) as err:
        game.answer(pending.option("5"))  # 14: refused
    assert err.value.code == "E501"
    assert game.state.dumps() == before and game._open is None and game._held is None
    pending = game.begin("p1", "throw")  # and the game plays on: 1 + 2 + 3 is allowed
    for die in ("1", "2", "3"):
        assert pending is not None
        pending = game.answer(pending.option(die))
    assert pending is None and game.state.counters["p1.total"] == 6


def test_an_interrupt_while_a_run_goes_on_takes_it_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while a held run goes on is raised in the run (it is the code running): the run takes back what it
    did, as a run in the caller's own frames does, the interrupt reaches the caller, and the game plays on."""
    game = _dice_game(tmp_path)
    before = game.state.dumps()
    pending = game.begin("p1", "throw")
    assert pending is not None
    pending = game.answer(pending.option("1"))
    assert game._held is not None
    set_counter = State.set_counter
    calls: list[int] = []

    def interrupted(self: State, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return set_counter(self, *args, **kwargs)

    monkeypatch.setattr(State, "set_counter", interrupted)
    with pytest.raises(KeyboardInterrupt):
        game.answer(pending.option("2"))  # the run goes on from the second die, and is interrupted there
    monkeypatch.setattr(State, "set_counter", set_counter)
    assert calls and game._held is None and game.state.dumps() == before
    assert not [run for run in held_module._RUNNING if run.m is game._m]
    assert game.undo() and game.undo()  # the outcome given and the first die
    pending = game.begin("p1", "throw") if game._open is None else game.pending()
    for die in ("1", "2", "3"):
        assert pending is not None
        pending = game.answer(pending.option(die))
    assert pending is None and game.state.counters["p1.total"] == 6


def _held_pair(seed: int) -> tuple[Game, Game, random.Random]:
    held, rerun = _pair(ROOT / "tests" / "packs" / "relay", seed)
    rng = random.Random(seed)
    while held._held is None:
        option = held.pending().sample(rng)
        held.apply(option.id)
        rerun.apply(option.id)
    return held, rerun, rng


def _in_thread(job: Any) -> None:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            job()
        except BaseException as exc:  # reported in the test's own thread
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=120)
    assert not thread.is_alive() and not errors, errors


def _reaped(run: held_module.Held) -> bool:
    """Start and end a held run in this thread (which unwinds its orphans whose games are gone); whether `run`
    was unwound."""
    other, _, rng = _held_pair(9)
    while not other.is_terminal():
        other.apply(other.pending().sample(rng).id)
    return run not in held_module._RUNNING and run._run_in is None


def test_a_game_moved_to_another_thread_plays_on_and_its_run_is_unwound_once_it_is_gone() -> None:
    """A greenlet can be continued only in the thread that made it: in another thread the game runs the
    activity from its start, as the rerun game does. Its held run waits, untouched, until the game is gone, and
    is unwound in its own thread then."""
    held, rerun, rng = _held_pair(6)
    run = held._held
    assert run is not None and run in held_module._RUNNING
    games = [held]
    del held

    def elsewhere() -> None:
        game = games[0]
        while not game.is_terminal():
            option = game.pending().sample(rng)
            game.apply(option.id)
            rerun.apply(option.id)
            _agree(game, rerun)

    _in_thread(elsewhere)
    assert run.dropped and run in held_module._RUNNING  # its game lives: not unwound yet
    assert not _reaped(run)
    _agree(games[0], rerun)
    games.clear()
    gc.collect()
    assert _reaped(run)


def test_a_game_collected_in_another_thread_has_its_run_unwound_in_its_own() -> None:
    held, _, _ = _held_pair(7)
    run = held._held
    assert run is not None
    box = [held]
    del held

    def drop() -> None:
        box.clear()
        gc.collect()

    _in_thread(drop)
    assert run.dropped and run in held_module._RUNNING
    assert _reaped(run)


def test_a_forked_child_plays_on_without_continuing_the_run() -> None:
    """A child process forked while a run is held has a copy of the game and of the run's greenlet, which it
    never continues or unwinds: the run is dropped there and the move runs again from its start, so the child
    plays on as the rerun game does."""
    import multiprocessing

    held, rerun = _pair(ROOT / "tests" / "packs" / "relay", 4)
    rng = random.Random(4)
    while held._held is None:
        option = held.pending().sample(rng)
        held.apply(option.id)
        rerun.apply(option.id)
    assert held._held.dirty

    def child(out: Any) -> None:
        while not held.is_terminal():
            option = held.pending().sample(rng)
            held.apply(option.id)
            rerun.apply(option.id)
        out.put(held.state.dumps() == rerun.state.dumps() and held.log == rerun.log)

    context = multiprocessing.get_context("fork")
    out = context.Queue()
    process = context.Process(target=child, args=(out,))
    process.start()
    assert out.get(timeout=120) is True
    process.join(timeout=60)
    assert process.exitcode == 0
    _agree(held, rerun)  # and the parent's held run is still its own
