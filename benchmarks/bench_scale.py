"""Simulation at scale: playouts per second, processes, Ray, and OpenSpiel MCTS, each as a ratio against a
baseline measured in the same run.

- playouts: random games per second per pack in one process, with the invariant checks of `simulate`
  against the same games without them (the baseline);
- workers: `simulate --workers 2` throughput against `--workers 1` (goal: at least 1.8 on two idle cores);
- ray: the Ray backend against the process backend, both on 2 workers (with and without Ray's start-up);
- mcts: milliseconds per OpenSpiel MCTS simulation, against one random playout of the same game.

    python benchmarks/bench_scale.py [--games 200] [--skip ray mcts]

The machine's load is printed first: other work on the cores lowers every ratio that needs idle cores.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

from boardrules.tools.simulate import Setup, play_one, simulate

ROOT = Path(__file__).resolve().parent.parent
PACKS = {"relay": (ROOT / "tests" / "packs" / "relay", (("prize", 4),)), "lisboa": (ROOT / "rules" / "lisboa", ())}


def setup_of(name: str, players: int, check: bool = True) -> Setup:
    pack, options = PACKS[name]
    return Setup(str(pack), None, options, players, check=check)


def playouts(name: str, games: int, players: int) -> str:
    checked, plain = setup_of(name, players), setup_of(name, players, check=False)
    rules = checked.load()
    for s in range(1, min(games, 10) + 1):  # warm up, so neither side pays for first runs
        play_one(plain, s, rules)
    t0 = time.perf_counter()
    for s in range(1, games + 1):
        play_one(plain, s, rules)
    base = time.perf_counter() - t0
    t0 = time.perf_counter()
    for s in range(1, games + 1):
        play_one(checked, s, rules)
    timed = time.perf_counter() - t0
    return (f"playouts {name}: {games / timed:.1f} games/s with invariant checks, {games / base:.1f} without "
            f"(ratio {base / timed:.2f})")


def workers(name: str, games: int, players: int) -> str:
    s = setup_of(name, players)
    s.load()
    c0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    one = simulate(s, games, 1, workers=1, progress=False)["seconds"]
    cpu_one = resource.getrusage(resource.RUSAGE_SELF).ru_utime - c0
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    two = simulate(s, games, 1, workers=2, progress=False)["seconds"]
    cpu_two = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - c0
    # On a loaded machine the wall-clock speed-up says little; the CPU time the workers spent together
    # against one process says what parallel work costs (1.00: none), which is what idle cores would show.
    return (f"workers {name}: {games / one:.1f} games/s on 1 process, {games / two:.1f} on 2 "
            f"(speed-up {one / two:.2f}, goal 1.8 on two idle cores); CPU time of the 2 workers together "
            f"{cpu_two:.2f} s against {cpu_one:.2f} s in 1 process (ratio {cpu_one / cpu_two:.2f})")


def ray(name: str, games: int, players: int) -> str:
    import ray as ray_module

    from boardrules.adapters.ray_backend import run_on_ray
    from boardrules.tools.simulate import _lost, batches, run_batch

    s = setup_of(name, players)
    procs = simulate(s, games, 1, workers=2, progress=False)["seconds"]
    t0 = time.perf_counter()
    ray_module.init(include_dashboard=False, log_to_driver=False, num_cpus=2)
    started = time.perf_counter() - t0
    try:
        warm = time.perf_counter()
        run_on_ray(run_batch, _lost, s, batches(list(range(1, games + 1)), 2), None, lambda n: None)
        on_ray = time.perf_counter() - warm
    finally:
        ray_module.shutdown()
    return (f"ray {name}: {games / on_ray:.1f} games/s on a running instance vs {games / procs:.1f} on 2 processes "
            f"(ratio {procs / on_ray:.2f}); starting Ray took {started:.1f} s (ratio with it "
            f"{procs / (on_ray + started):.2f})")


def mcts(name: str, players: int, sims: int) -> str:
    import numpy as np
    from open_spiel.python.algorithms import mcts as mcts_module

    from boardrules.adapters.openspiel import load

    pack, options = PACKS[name]
    game = load(pack, players=players, options=dict(options))
    rng = np.random.RandomState(1)
    evaluator = mcts_module.RandomRolloutEvaluator(1, rng)
    state, spent, count, rollouts = game.new_initial_state(), 0.0, 0, []
    while not state.is_terminal() and count < 20:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        bot = mcts_module.MCTSBot(game, 2.0, sims, evaluator, random_state=rng)
        t0 = time.perf_counter()
        action = bot.step(state)
        spent += time.perf_counter() - t0
        count += 1
        t0 = time.perf_counter()
        evaluator.evaluate(state)  # the baseline: one random playout from here
        rollouts.append(time.perf_counter() - t0)
        state.apply_action(action)
    per_sim = spent / (count * sims)
    per_rollout = sum(rollouts) / len(rollouts)
    return (f"mcts {name}: {per_sim * 1e3:.2f} ms per MCTS simulation ({count} decisions x {sims} simulations), "
            f"{per_sim / per_rollout:.2f}x one random playout from the same states ({per_rollout * 1e3:.2f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--sims", type=int, default=20)
    parser.add_argument("--packs", nargs="*", default=list(PACKS))
    parser.add_argument("--skip", nargs="*", default=[], choices=["playouts", "workers", "ray", "mcts"])
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    for name in args.packs:
        games = args.games if name == "relay" else max(10, args.games // 10)
        if "playouts" not in args.skip:
            print(playouts(name, games, args.players), flush=True)
        if "workers" not in args.skip:
            print(workers(name, games, args.players), flush=True)
        if "ray" not in args.skip:
            print(ray(name, games, args.players), flush=True)
        if "mcts" not in args.skip:
            print(mcts(name, 2, args.sims), flush=True)


if __name__ == "__main__":
    main()
