"""Whole games: decisions and games per CPU-second, MCTS simulations, and listing against applying, each beside
OpenSpiel's own `python_tic_tac_toe` measured in the same run.

Every repeat runs every contender once, in a rotating order (`timing.interleaved`), and ratios are taken within
a repeat. All figures are CPU time of this process (`time.process_time`), so time spent waiting for a core that
other work holds is not counted.

- games: random whole games per pack, player count and chance mode, as many as 0.3 CPU-seconds take in each
  repeat (at least one; seeds 1, 2, ... for every contender, going on from repeat to repeat), played with
  `Game.play_random` (as the adapter's rollouts play), or with `--bots` as `simulate` plays random seats
  (`tools.bots.play_next`, which plays them with `play_random` too; before, `pending()` then a sample):
  decisions per CPU-second and games per CPU-second, after one untimed
  warm-up game per contender (seed 0; the first game of a rule set compiles its bodies: see `game_run`);
- ttt: `python_tic_tac_toe` random actions per CPU-second (legal_actions, then a uniform pick);
- mcts: OpenSpiel's `MCTSBot` searching the first player decision of each pack through the adapter, with
  OpenSpiel's `RandomRolloutEvaluator` and with the adapter's `SampleRolloutEvaluator` (if present), and on
  `python_tic_tac_toe` from its start: simulations per CPU-second;
- listing: on every move decision of a random game per repeat, listing every legal move (`Pending.options` on a
  fresh pending, no kept run reused) against one run of the chosen move to its first decision, on the same
  states (benchmarks/bench_listing.py says where a listing's CPU goes).

    python benchmarks/bench_games.py [--repeats 5] [--players 2 3 4] [--skip mcts listing] [--no-totality] [--bots]
"""

from __future__ import annotations

import argparse
import gc
import itertools
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyspiel
from bench_listing import fresh_options
from open_spiel.python.algorithms import mcts as mcts_module
from open_spiel.python.games import tic_tac_toe  # noqa: F401  (registers python_tic_tac_toe)
from timing import interleaved, ratios, show, show_ratio

from boardrules.adapters import openspiel as adapter
from boardrules.engine import machine
from boardrules.engine.moves import Activity, probe
from boardrules.game import Game
from boardrules.language.pack import load_rules
from boardrules.tools.bots import choose, play_next

ROOT = Path(__file__).resolve().parent.parent
PACKS = {"village": ROOT / "rules" / "village", "lisboa": ROOT / "rules" / "lisboa"}
MCTS_SIMS = 2  # simulations per search; searches repeat until the CPU budget is spent
MCTS_CPU = 1.0  # CPU seconds per MCTS contender per repeat
TTT_CPU = 0.3  # CPU seconds of random tic-tac-toe per repeat
GAMES_CPU = 0.3  # CPU seconds of random whole games per contender per repeat (at least one game)
BOUNDS = {"max_actions": 100_000, "max_chance_outcomes": 100_000, "max_game_length": 1_000_000}


def cpu() -> float:
    return time.process_time()


# ---------------------------------------------------------------- random whole games
cold: dict[str, float] = {}  # CPU seconds of each contender's untimed first game


def game_run(rules: object, players: int, chance: str, out: dict[str, list[float]], key: str,
             bots: bool) -> Callable[[], float]:
    seeds = itertools.count(1)

    def run() -> float:
        """Games of the next seeds until GAMES_CPU is spent: decisions per CPU-second over them all."""
        decisions = spent = 0.0
        while spent < GAMES_CPU:
            played, took = play(next(seeds))
            decisions += played
            spent += took
        return decisions / spent

    def play(seed: int) -> tuple[int, float]:
        rng = random.Random(seed)
        gc.collect()  # the garbage of the contender before is not this game's: a Lisboa game is 16 ms of CPU
        t0 = cpu()
        game = Game(rules, players, seed, flow=True, chance=chance)  # type: ignore[arg-type]
        game.setup()
        decisions = 0
        while not game.is_terminal():
            if bots:
                assert play_next(game, {}, rng) is not None
            else:
                assert game.play_random(rng) is not None
            decisions += 1
        spent = cpu() - t0
        out[key].append(spent)
        return decisions, spent

    # Untimed, before the repeats: the first game of a rule set in a process compiles the rule bodies it reaches
    # (body_compiler.py, once per process), about as much CPU as a whole 3-player Lisboa game. Timed, it landed
    # in the first repeat of whichever contender of a pack came first (always `chance=step`), and a median of
    # three per-repeat ratios with one of them cold is the worse of the two warm ones: Lisboa's step row read
    # 1.5-3x slower than its auto row, which plays the same games. Users play many games per process (MCTS,
    # `simulate`, bots), so the warm rate is the one they get; the cold game's CPU is printed on its own line.
    def warm_up() -> None:
        play(0)
        cold[key] = out[key].pop()

    warm_up()
    return run


# ---------------------------------------------------------------- tic-tac-toe baseline
def ttt_actions() -> float:
    game = pyspiel.load_game("python_tic_tac_toe")
    rng = random.Random(1)
    actions = 0
    t0 = cpu()
    while cpu() - t0 < TTT_CPU:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
    return actions / (cpu() - t0)


# ---------------------------------------------------------------- MCTS
def first_decision(game: object, seed: int) -> object:
    """The first state where a player (not chance) decides, chance sampled on the way."""
    state = game.new_initial_state()  # type: ignore[attr-defined]
    rng = random.Random(seed)
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
    return state


def mcts_rate(game: object, evaluator_of: Callable[[np.random.RandomState], object]) -> Callable[[], float]:
    state = first_decision(game, 1)

    def run() -> float:
        rng = np.random.RandomState(1)
        bot = mcts_module.MCTSBot(game, 2.0, MCTS_SIMS, evaluator_of(rng), random_state=rng)
        sims = 0
        t0 = cpu()
        while cpu() - t0 < MCTS_CPU:
            bot.mcts_search(state)
            sims += MCTS_SIMS
        return sims / (cpu() - t0)

    return run


def random_rollouts(rng: np.random.RandomState) -> object:
    return mcts_module.RandomRolloutEvaluator(1, rng)


def sample_rollouts(rng: np.random.RandomState) -> object:
    return adapter.SampleRolloutEvaluator(1, rng)  # type: ignore[attr-defined]


# ---------------------------------------------------------------- listing against applying
def listing(rules: object, players: int, seed: int, moves: int = 10_000) -> tuple[list[float], list[float]]:
    """(CPU s to list a move decision's legal moves, CPU s of one run of the chosen move), per move decision of a
    whole game (or its first `moves`). The listing proves every candidate from nothing: no run kept before (the
    turn's existence proof keeps some) answers for one."""
    game = Game(rules, players, seed, flow=True, chance="auto")  # type: ignore[arg-type]
    game.setup()
    rng = random.Random(seed)
    lists, runs = [], []
    while not game.is_terminal() and len(lists) < moves:
        pending = game.pending()
        assert pending is not None
        if pending.kind == "move":
            t0 = cpu()
            options = fresh_options(game)
            lists.append(cpu() - t0)
            player = pending.player
            option = rng.choice(options)
            move = game._pending_answers[option.id]
            t0 = cpu()
            probe(game._m, Activity("move", player, move.action, dict(move.params)), False)
            runs.append(cpu() - t0)
            game.apply(option.id)
        else:
            game.apply(choose(game, pending, {}, rng).id)
    return lists, runs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4])
    parser.add_argument("--chance", nargs="*", default=["step", "auto"])
    parser.add_argument("--packs", nargs="*", default=list(PACKS))
    parser.add_argument("--skip", nargs="*", default=[], choices=["games", "mcts", "listing"])
    parser.add_argument("--bots", action="store_true",
                        help="play the random games as simulate does (tools.bots.play_next)")
    parser.add_argument("--no-totality", action="store_true",
                        help="prove every move by running it, as before engine/totality.py (for before/after figures)")
    args = parser.parse_args(argv)
    if args.no_totality:
        machine.for_players = lambda rules, players: None
    rules = {name: load_rules(PACKS[name], None, None) for name in args.packs}

    contenders: dict[str, Callable[[], float]] = {"ttt random actions/s": ttt_actions}
    game_cpu: dict[str, list[float]] = {}
    if "games" not in args.skip:
        for name in args.packs:
            for players in args.players:
                for chance in args.chance:
                    key = f"{name} {players}p chance={chance}"
                    game_cpu[key] = []
                    contenders[key] = game_run(rules[name], players, chance, game_cpu, key, args.bots)
    if "mcts" not in args.skip:
        ttt = pyspiel.load_game("python_tic_tac_toe")
        contenders["ttt MCTS sims/s"] = mcts_rate(ttt, random_rollouts)
        for name in args.packs:
            game = adapter.load(PACKS[name], players=3, **BOUNDS)
            contenders[f"{name} MCTS sims/s (random rollouts)"] = mcts_rate(game, random_rollouts)
            if hasattr(adapter, "SampleRolloutEvaluator"):
                contenders[f"{name} MCTS sims/s (sample rollouts)"] = mcts_rate(game, sample_rollouts)
    results = interleaved(contenders, args.repeats)

    ttt_rate = results["ttt random actions/s"]
    print("random games played with " + ("tools.bots.play_next" if args.bots else "Game.play_random"))
    print(f"python_tic_tac_toe: {show(ttt_rate, ' random actions/CPU-s', 0)}")
    for key, cpus in game_cpu.items():
        rates = results[key]
        print(f"{key}: {show(rates, ' decisions/CPU-s', 0)}; {show([1 / c for c in cpus], ' games/CPU-s', 2)}; "
              f"tic-tac-toe actions / these decisions {show_ratio(ratios(ttt_rate, rates))}")
    for key, spent in cold.items():
        print(f"{key}: untimed warm-up game (seed 0; a pack's first compiles its bodies): {spent * 1000:.0f} ms CPU")
    if "mcts" not in args.skip:
        base = results["ttt MCTS sims/s"]
        print(f"python_tic_tac_toe MCTS: {show(base, ' sims/CPU-s', 0)}")
        for key, rates in results.items():
            if "MCTS" in key and not key.startswith("ttt"):
                print(f"{key}: {show(rates, ' sims/CPU-s', 1)}; tic-tac-toe / this "
                      f"{show_ratio(ratios(base, rates))}")
    if "listing" not in args.skip:
        for name in args.packs:
            per_state: list[float] = []
            for seed in range(1, args.repeats + 1):
                lists, runs = listing(rules[name], 3, seed)
                per_state += ratios(lists, runs)
            print(f"{name} 3p: listing a turn's legal moves / one run of the chosen move: "
                  f"{show(per_state, 'x', 1)} over {len(per_state)} move decisions "
                  f"(median of per-state ratios {statistics.median(per_state):.1f}x)")


if __name__ == "__main__":
    main()
