"""`Game.play_random` plans a move's later answers with the proof of its pick: the proofs it makes draw their
witness answers, and the order in which a failed way tries the others, from the caller's generator, so the way a
proof finishes is, decision by decision, the first legal answer of a uniformly random order: what a uniform random
player proving its picks one at a time would play. The next decisions of the move take the planned answers without
running anything (the kept run proves them, and applying it makes its changes again).

Uniformity is checked with chi-square tests on a pack whose first choice has 1 to 4 ways to finish (a pick uniform
over complete ways would favour the answer with the most ways), and exactness differentially: over random whole
games of both shipped packs, a game that re-runs every activity and proves every answer itself accepts every
option played, and both agree at every step (state, log, the decision waited for)."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from boardrules.engine import machine
from boardrules.game import CHANCE, Game
from boardrules.language.pack import load_rules
from tests.conftest import link_texts
from tests.test_sampling import chi_square

ROOT = Path(__file__).resolve().parents[1]
CHI2_3DF_99_9 = 16.266  # the chi-square critical value at p = 0.001 for 3 degrees of freedom
TREE = """
module: tree
title: Answers with unequal numbers of ways to finish
players: {min: 2, max: 2}
counters:
  points: {per: player, initial: 0}
actions:
  go:
    title: Pick a, then b no larger than a (a = 5 never finishes)
    do:
      - choose a from 1..5
      - choose b from 1..6
      - require b <= a
      - require a != 5
      - me.points += 10 * a + b
flow:
  first_player: p1
  phases:
    play:
      turns: {until: each_once}
      actions: [go]
  end:
    when: round_number > 1
  ranking: [me.points]
"""


def no_totality(monkeypatch: pytest.MonkeyPatch) -> None:
    """Prove moves by running them (as in Village, whose flow can refuse): the move's proof plans its answers."""
    monkeypatch.setattr(machine, "for_players", lambda rules, players: None)


@pytest.mark.parametrize("totality", [True, False])
@pytest.mark.parametrize("chance", ["step", "auto"])
def test_planned_answers_are_uniform_decision_by_decision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          chance: str, totality: bool) -> None:
    if not totality:
        no_totality(monkeypatch)
    rules, diags = link_texts(tmp_path, TREE)
    assert not diags.has_errors, [d.message for d in diags.items]
    n, firsts, seconds = 2_000, Counter[int](), Counter[int]()
    for seed in range(n):
        game = Game(rules, 2, 1, flow=True, chance=chance)
        game.setup()
        rng = random.Random(seed)
        move = game.play_random(rng)
        assert move is not None and move.value["action"] == "go"
        a = game.play_random(rng)
        b = game.play_random(rng)
        assert a is not None and b is not None
        assert 1 <= b.value <= a.value <= 4  # only complete ways are played
        firsts[a.value] += 1
        if a.value == 4:
            seconds[b.value] += 1
        assert game.state.counters["p1.points"] == 10 * a.value + b.value
    assert chi_square(firsts, [1, 2, 3, 4], n) < CHI2_3DF_99_9, firsts  # not 1:2:3:4, as over complete ways
    assert chi_square(seconds, [1, 2, 3, 4], seconds.total()) < CHI2_3DF_99_9, seconds


def test_the_later_answers_of_a_move_run_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    no_totality(monkeypatch)
    rules, _ = link_texts(tmp_path, TREE)
    game = Game(rules, 2, 1, flow=True, chance="auto")
    game.setup()
    proofs: list[int] = []
    prove = game._prove

    def counted(pending: object, i: int) -> bool:
        proofs.append(i)
        return prove(pending, i)  # type: ignore[arg-type]

    game._prove = counted  # type: ignore[method-assign]
    rng = random.Random(3)
    game.play_random(rng)
    assert proofs  # the move's proof runs it to the end, answering a and b as drawn
    proofs.clear()
    journal = len(game._m.state.journal)
    game.play_random(rng)
    assert proofs == [] and len(game._m.state.journal) == journal  # planned: no proof, no run
    game.play_random(rng)
    assert proofs == [] and game.state.counters["p1.points"] > 0  # the kept run's changes made again


def test_an_answer_taken_back_is_drawn_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    no_totality(monkeypatch)
    rules, _ = link_texts(tmp_path, TREE)
    picks = Counter[int]()
    for seed in range(40):
        game = Game(rules, 2, 1, flow=True, chance="auto")
        game.setup()
        rng = random.Random(seed)
        game.play_random(rng)
        first = game.play_random(rng)
        assert first is not None and game.undo()
        again = game.play_random(rng)  # not the plan of the first pick: a new draw, proven
        assert again is not None
        picks[again.value == first.value] += 1
    assert picks[False] > 0 and picks[True] > 0


@pytest.mark.slow
@pytest.mark.parametrize("chance", ["step", "auto"])
@pytest.mark.parametrize("name", ["village", "lisboa"])
def test_planned_games_agree_with_games_that_prove_every_answer(name: str, chance: str) -> None:
    rules = load_rules(ROOT / "rules" / name, None, None)
    for seed in (1, 2):
        planned, proven = (Game(rules, 3, seed=seed, flow=True, chance=chance) for _ in range(2))
        proven.keep_runs = proven.hold_runs = False  # every activity from its start, every answer proven alone
        planned.setup()
        proven.setup()
        rng = random.Random(seed)
        steps = 0
        while not planned.is_terminal():
            option = planned.play_random(rng)
            assert option is not None
            pending = proven.pending()
            assert pending is not None
            assert pending.option(option.id) == option  # legal where every answer is proven alone
            proven.apply(option.id)
            steps += 1
            if steps % 20 == 0 or (pending.player != CHANCE and pending.kind != "move"):
                assert planned.state.dumps() == proven.state.dumps()
                assert planned.log == proven.log and planned._waiting == proven._waiting
        assert proven.is_terminal() and planned.state.dumps() == proven.state.dumps()
        assert planned.log == proven.log


def _count_proofs(game: Game) -> list[int]:
    """A one-item list that counts the proofs of the pendings `game` makes from now on."""
    count = [0]
    prove = game._prove

    def counted(pending: Any, i: int) -> bool:
        count[0] += 1
        return bool(prove(pending, i))

    game._prove = counted  # type: ignore[method-assign]
    return count


@pytest.mark.parametrize("name", ["village", "lisboa"])
def test_play_random_proves_fewer_candidates_than_pending_then_sample(name: str) -> None:
    """A move decision's candidates drawn in random order also prove that the turn has a move (pending() proves
    one first, then sample its own), and a move's planned answers need no proof."""
    rules = load_rules(ROOT / "rules" / name, None, None)
    proofs = {}
    for how in ("play_random", "sample"):
        game = Game(rules, 3, seed=5, flow=True, chance="step")
        game.setup()
        count = _count_proofs(game)
        rng = random.Random(5)
        steps = 0
        while not game.is_terminal() and steps < 200:
            if how == "play_random":
                game.play_random(rng)
            else:
                game.apply(game.pending().sample(rng).id)  # type: ignore[union-attr]
            steps += 1
        proofs[how] = count[0] / steps
    assert proofs["play_random"] < 0.8 * proofs["sample"], proofs


def test_step_and_auto_play_the_same_game_when_no_chance_is_asked() -> None:
    """Lisboa asks no chance decision in play, so `chance="step"` must cost nothing: the same seeds make the same
    picks, states and proofs in both modes, and no run is held (engine/held.py) for a chance that never comes.
    (bench_games.py once showed its step row 1.5-3x slower than its auto row: the rule bodies compiled by the
    first game of the process, which was always the step one; see its `game_run`.)"""
    rules = load_rules(ROOT / "rules" / "lisboa", None, None)
    for seed in (1, 2):
        played: dict[str, list[tuple[str, str, int]]] = {}
        for chance in ("step", "auto"):
            game = Game(rules, 3, seed=seed, flow=True, chance=chance)
            game.setup()
            count = _count_proofs(game)
            rng = random.Random(seed)
            played[chance] = []
            while not game.is_terminal():
                assert game.current_player() != CHANCE
                option = game.play_random(rng)
                assert option is not None
                assert game._held is None
                played[chance].append((option.id, game.state.dumps(), count[0]))
        assert played["step"] == played["auto"]
        assert len(played["step"]) > 20



@pytest.mark.parametrize("chance", ["step", "auto"])
@pytest.mark.parametrize("name", ["village", "lisboa"])
def test_looking_at_the_game_between_calls_plays_the_same_game(name: str, chance: str) -> None:
    """A program that shows each decision between `play_random` calls plays the game it would play without looking.
    `pending()` proves that the turn has a move, and its `options` prove every candidate, without drawing: a
    candidate drawn afterwards is proven again with its answers drawn, so what is drawn from the generator is the
    same. (Village seed 9 played another smuggler's answers from its 22nd move when `pending()` was read.)"""
    rules = load_rules(ROOT / "rules" / name, None, None)

    def play(seed: int, look: str) -> tuple[list[Any], str]:
        game = Game(rules, 3, seed=seed, flow=True, chance=chance)
        game.setup()
        rng = random.Random(seed)
        n = 0
        while not game.is_terminal():
            if look == "pending" and n % 3 == 0:
                game.pending()
            elif look == "options" and n % 5 == 0:
                pending = game.pending()
                if pending is not None:
                    assert pending.options
            elif look == "player" and n % 2 == 0:
                game.current_player()
            assert game.play_random(rng) is not None
            n += 1
        return game.log, game.state.dumps()

    for seed in (9, 10, 11):
        unseen = play(seed, "")
        assert len(unseen[0]) > 20
        for look in ("pending", "options", "player"):
            assert play(seed, look) == unseen, (seed, look)


@pytest.mark.parametrize("chance", ["step", "auto"])
@pytest.mark.parametrize("name", ["village", "lisboa"])
def test_a_clone_or_a_loaded_save_plays_on_as_the_original(name: str, chance: str) -> None:
    """Stopped anywhere, in the middle of a move too (its later answers planned by the proof of its pick), a copy of
    the game and a game loaded from its save play on exactly as the game itself does with the same generator:
    the copy keeps the runs kept for the state, and the save keeps the plan (`plan`)."""
    rules = load_rules(ROOT / "rules" / name, None, None)
    planned = 0
    for seed in range(1, 9):
        game = Game(rules, 3, seed=seed, flow=True, chance=chance)
        game.setup()
        rng = random.Random(seed)
        for _ in range(random.Random(seed).randrange(5, 60)):
            game.play_random(rng)
        text = game.serialize()
        planned += "plan" in json.loads(text)
        others = [game.clone(), Game.deserialize(text, rules)]
        rngs = [random.Random() for _ in range(3)]
        for r in rngs:
            r.setstate(rng.getstate())
        for _ in range(150):
            if game.is_terminal():
                break
            for g, r in zip([game, *others], rngs, strict=True):
                g.play_random(r)
        assert others[0].log == game.log and others[1].log == game.log, seed
        assert others[0].state.dumps() == game.state.dumps() == others[1].state.dumps()
    if name == "village" and chance == "auto":  # (stepped, these seeds happen to stop in no planned move)
        assert planned >= 2  # some games stopped in the middle of a planned move


def _made_applies(game: Game) -> list[int]:
    """A one-item list that counts the options `game` applies with its run's changes made (Game._made)."""
    count = [0]
    apply = game._apply

    def counted(option: Any) -> None:
        count[0] += game._made is not None
        apply(option)

    game._apply = counted  # type: ignore[method-assign]
    return count


@pytest.mark.parametrize("name", ["village", "lisboa"])
def test_a_proof_left_made_plays_and_undoes_as_one_made_again(name: str) -> None:
    """play_random leaves the run that proved the option drawn made, and commits it as it ran once its answers
    are given (no capture, rollback and redo), unless the state is read first. A `before` callback reads the
    state before the option is applied, so with one every run is taken back: both play the same game. A game
    that proves every answer alone and re-runs every activity (kept and held runs off) accepts each option and
    agrees step by step. Taking back a move committed as it ran (undo) restores the state and log exactly, and
    drawn again from the same generator state it plays on as before (the run kept for it, without its changes,
    is run again). Reading the state in the middle of a move takes its made run back exactly."""
    rules = load_rules(ROOT / "rules" / name, None, None)
    for seed in (1, 2):
        made, seen, plain, undone, read = (Game(rules, 3, seed=seed, flow=True, chance="step") for _ in range(5))
        plain.keep_runs = plain.hold_runs = False
        for game in (made, seen, plain, undone, read):
            game.setup()
        made_count, seen_count, undone_count = _made_applies(made), _made_applies(seen), _made_applies(undone)
        rngs = {id(game): random.Random(seed) for game in (made, seen, undone, read)}
        befores: list[str] = []

        def before(pending: Any, option: Any, game: Game = seen, befores: list[str] = befores) -> None:
            befores.append(game.state.dumps())
            assert option in pending.options

        steps = undos = 0
        while not made.is_terminal():
            state, log, at_rest = plain.state.dumps(), plain.log, plain._open is None  # plain has nothing made
            drawn_from = rngs[id(undone)].getstate()
            option = made.play_random(rngs[id(made)])
            assert option is not None
            assert seen.play_random(rngs[id(seen)], before=before) == option and befores[-1] == state
            pending = plain.pending()
            assert pending is not None and pending.option(option.id) == option
            plain.apply(option.id)
            assert read.play_random(rngs[id(read)]) == option
            if steps % 3 == 0:
                assert read.state.dumps() == plain.state.dumps()  # taken back, if made, and made again on
            elif steps % 3 == 1:
                copy = read.clone(journal=True)  # a copy and a save, as the plain game's
                assert copy.state.dumps() == plain.state.dumps() and copy.log == plain.log
                saved = json.loads(read.serialize())
                saved.pop("plan", None)  # the plain game plans nothing: it keeps no runs
                assert saved == json.loads(plain.serialize())
            made_before = undone_count[0]
            assert undone.play_random(rngs[id(undone)]) == option
            if at_rest and undone._open is None and undone_count[0] > made_before:
                assert undone.undo() and undone.state.dumps() == state and undone.log == log
                rngs[id(undone)].setstate(drawn_from)
                assert undone.play_random(rngs[id(undone)]) == option
                undos += 1
            steps += 1
            if steps % 5 == 0 or made._open is None:  # at rest: nothing made to take back
                after = plain.state.dumps()
                assert made.state.dumps() == seen.state.dumps() == undone.state.dumps() == after
                assert made.log == seen.log == plain.log == undone.log == read.log
                assert made.covered == seen.covered == plain.covered == read.covered  # the rules that have run
        assert plain.is_terminal() and read.is_terminal() and undone.is_terminal() and steps > 20
        assert made.state.dumps() == plain.state.dumps() == read.state.dumps() == undone.state.dumps()
        assert made.log == plain.log == read.log == undone.log
        assert made_count[0] > 0 and undos > 0 and seen_count[0] == 0, (made_count, undos, seen_count)
