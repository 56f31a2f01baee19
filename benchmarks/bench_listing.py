"""What a listing of a turn's legal moves costs, against what one move costs, and where a listing's CPU goes: the
profile behind issue 20's listing goal (listing <= 3x one run of the chosen move), which is not met.

On the move decisions of random 3-player games (`chance="auto"`, seeds 1..--games, every move decision of
each, or its first --moves), each state is measured four ways, in a rotating order, with the state
restored between them:

- listing: `Pending.options` on a fresh pending (every legal move proven, no finished run kept from before), as
  bench_games.py measures it;
- head: one run of the chosen move to its first decision (bench_games.py's baseline, the goal's "one run");
- whole: one complete dry run of the chosen move, its decisions answered as a proof answered them, and the flow
  after it (what carrying the move out costs; a second, gentler baseline, printed beside the first);
- floor: every candidate move run to its first decision or refusal, summed: what a listing costs that runs each
  candidate at all. Sharing the prefixes of the ways tried inside a move cannot take a listing below it.

Ratios are per state; medians and spread over states. Then, in a separate pass (timers around the engine's
functions distort the CPU a little, so these are shares, not times): the share of a listing's CPU spent in the
prefixes of runs that a failed way made the search repeat (each measured as its own run to the decision that the
retry answers differently) and in the flow after every finished run but the first. Sharing prefixes and flows
between sibling runs (issue 20, item 3) can save at most those shares.

    python benchmarks/bench_listing.py [--games 5] [--moves N] [--packs village lisboa]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from timing import show

from boardrules.engine import flow, moves
from boardrules.engine.moves import Activity, candidate_moves, probe
from boardrules.game import Game
from boardrules.language.pack import load_rules
from boardrules.tools.bots import choose

ROOT = Path(__file__).resolve().parent.parent
PACKS = {"village": ROOT / "rules" / "village", "lisboa": ROOT / "rules" / "lisboa"}


def cpu() -> float:
    return time.process_time()


def move_states(rules: Any, seed: int, count: int) -> Iterator[tuple[Game, Any]]:
    """(the game, its rng) at each move decision of a random game, the pending decision fresh (nothing proven);
    the caller lists it before taking the next."""
    game = Game(rules, 3, seed, flow=True, chance="auto")
    game.setup()
    rng = random.Random(seed)
    seen = 0
    while not game.is_terminal() and seen < count:
        pending = game.pending()
        assert pending is not None
        if pending.kind != "move":
            game.apply(choose(game, pending, {}, rng).id)
            continue
        game._pending = None  # a fresh pending: its options not proven yet
        yield game, rng
        seen += 1


def fresh_options(game: Game) -> list[Any]:
    """The pending move decision's options, proven from nothing: no pending, and no finished runs kept."""
    game._runs = None
    game._search = game._new_search()
    game._pending = None
    pending = game.pending()
    assert pending is not None
    return list(pending.options)


def measure_state(game: Game, rng: random.Random) -> dict[str, float] | None:
    """The four figures of one state (CPU seconds), or None when no complete run of the chosen move was found."""
    m = game._m
    options = fresh_options(game)  # untimed: which move is chosen, and a complete way to carry it out
    option = rng.choice(options)
    move = game._pending_answers[option.id]
    pending = game._pending
    assert pending is not None
    player = pending.player
    activity = Activity("move", player, move.action, dict(move.params))
    way = probe(m, activity, False, witness=True)
    if way.outcome != "done":  # the first answers are not a way: find one the search kept
        kept = game._search.runs.find(activity) if game._search.runs is not None else None
        if kept is None:
            return None
        way_answers = list(kept.answers)
    else:
        way_answers = list(way.extra)
    whole_activity = Activity("move", player, move.action, dict(move.params), way_answers)
    candidates = candidate_moves(m, player)

    def listing() -> float:
        t0 = cpu()
        fresh_options(game)
        return cpu() - t0

    def head() -> float:
        t0 = cpu()
        probe(m, activity, False)
        return cpu() - t0

    def whole() -> float:
        t0 = cpu()
        result = probe(m, whole_activity, False)
        spent = cpu() - t0
        assert result.outcome == "done", result.error
        return spent

    def floor() -> float:
        t0 = cpu()
        for c in candidates:
            probe(m, Activity("move", player, c.action, dict(c.params)), False)
        return cpu() - t0

    ways: dict[str, Callable[[], float]] = {"listing": listing, "head": head, "whole": whole, "floor": floor}
    names = list(ways)
    turn = rng.randrange(len(names))
    out: dict[str, float] = {}
    for name in names[turn:] + names[:turn]:
        out[name] = ways[name]()
    out["candidates"] = len(candidates)
    game._pending = None
    game.pending()
    game.apply(option.id)
    return out


class Shares:
    """Timers around the engine's probe and flow during listings: the ceilings of sharing (see the module doc)."""

    def __init__(self) -> None:
        self.on = False
        self.listing = self.prefixes = self.flows = self.flow_first = 0.0
        self.finished_flows = 0
        self.retries = self.runs = self.listings = 0
        self._probe, self._after = moves.probe, flow.after_move

    def __enter__(self) -> Shares:
        moves.probe = self.probe
        flow.after_move = self.after_move
        return self

    def __exit__(self, *exc: object) -> None:
        moves.probe, flow.after_move = self._probe, self._after

    def after_move(self, m: Any) -> None:
        t0 = cpu()
        self._after(m)
        if self.on:
            spent = cpu() - t0
            self.flows += spent
            if self.finished_flows == 0:
                self.flow_first += spent
            self.finished_flows += 1

    def probe(self, m: Any, activity: Activity, chance_steps: bool, *args: Any, **kwargs: Any) -> Any:
        result = self._probe(m, activity, chance_steps, *args, **kwargs)
        if self.on:
            self.runs += 1
            if activity.answers and kwargs.get("head") is None:  # a way the search tries after a failed one
                self.retries += 1
                prefix = Activity(activity.kind, activity.player, activity.action, activity.params,
                                  activity.answers[:-1])
                self.on = False
                t0 = cpu()
                self._probe(m, prefix, chance_steps)
                self.prefixes += cpu() - t0
                self.on = True
        return result

    def list_once(self, game: Game) -> None:
        self.finished_flows = 0
        self.on = True
        t0 = cpu()
        fresh_options(game)
        self.on = False
        self.listing += cpu() - t0
        self.listings += 1


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--packs", nargs="*", default=list(PACKS))
    parser.add_argument("--moves", type=int, default=10_000, help="move decisions measured per game, at most")
    args = parser.parse_args(argv)
    for name in args.packs:
        rules = load_rules(PACKS[name], None, None)
        # warm-up: the first game compiles the rule bodies it reaches
        for game, rng in move_states(rules, 0, args.moves):
            measure_state(game, rng)
        figures: list[dict[str, float]] = []
        skipped = 0
        for seed in range(1, args.games + 1):
            for game, rng in move_states(rules, seed, args.moves):
                got = measure_state(game, rng)
                if got is None:
                    skipped += 1
                    game.apply(random.Random(seed).choice(fresh_options(game)).id)
                else:
                    figures.append(got)
        per = {k: [f[k] for f in figures] for k in ("listing", "head", "whole", "floor")}
        print(f"{name}, 3 players: {len(figures)} move decisions of {args.games} random games"
              + (f" ({skipped} without a complete run found, left out)" if skipped else ""))
        print(f"  listing: {show([x * 1e6 for x in per['listing']], ' us', 0)}")
        print(f"  listing / head run of the chosen move (the goal, <= 3x): "
              f"{show([f['listing'] / f['head'] for f in figures], 'x', 1)}")
        print(f"  listing / whole dry run of the chosen move and the flow after it: "
              f"{show([f['listing'] / f['whole'] for f in figures], 'x', 1)}")
        print(f"  floor (every candidate's head run) / head run of the chosen move: "
              f"{show([f['floor'] / f['head'] for f in figures], 'x', 1)}, "
              f"{statistics.median(f['candidates'] for f in figures):.0f} candidate moves a turn (median)")
        with Shares() as shares:
            for seed in range(1, args.games + 1):
                for game, rng in move_states(rules, seed, args.moves):
                    shares.list_once(game)
                    game.apply(rng.choice(fresh_options(game)).id)
        total = shares.listing
        listings = max(shares.listings, 1)
        print(f"  dry runs per listing {shares.runs / listings:.1f}, of them ways retried after a failed one "
              f"{shares.retries / listings:.1f}")
        print(f"  share of listing CPU in retried ways' prefixes (ceiling of sharing prefixes): "
              f"{shares.prefixes / total * 100:.1f} %")
        print(f"  share in the flow after each finished run but a listing's first (ceiling of sharing the flow): "
              f"{(shares.flows - shares.flow_first) / total * 100:.1f} %")


if __name__ == "__main__":
    main()
