"""`boardrules simulate`: play whole games with random players and report how they went."""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import BoardrulesError
from ..engine.rules import Rules
from ..game import CHANCE, Game

MAX_STEPS = 100_000  # decisions in one game before it counts as a game that never ends


@dataclass
class Outcome:
    seed: int
    moves: int = 0
    steps: int = 0
    returns: list[float] = field(default_factory=list)
    winners: list[str] = field(default_factory=list)
    error: str | None = None


def play_random(rules: Rules, players: int, seed: int, chance: str) -> Outcome:
    """One game, every decision chosen uniformly at random (chance by its probabilities), seeded."""
    out = Outcome(seed)
    rng = random.Random(seed)
    try:
        game = Game(rules, players, seed, flow=True, chance=chance)
        game.setup()
        while not game.is_terminal():
            pending = game.pending()
            if pending is None or not pending.options:
                raise BoardrulesError("E509", "the game waits for nothing but is not over")
            if pending.player == CHANCE:
                option = rng.choices(pending.options, [o.probability or 0 for o in pending.options])[0]
            else:
                option = rng.choice(pending.options)
            game.apply(option.id)
            out.steps += 1
            if out.steps >= MAX_STEPS:
                raise BoardrulesError("E507", f"the game did not end within {MAX_STEPS} decisions")
    except BoardrulesError as err:
        d = err.diagnostic
        out.error = f"{d.span}: {d.code}: {d.message}" if d.span else f"{d.code}: {d.message}"
        return out
    out.moves = sum(1 for e in game.log if e["kind"] == "move")
    out.returns = game.returns()
    out.winners = [r["player"] for r in game.ranking() if r["rank"] == 1]
    return out


def simulate(rules: Rules, players: int, games: int, seed: int, chance: str) -> dict[str, Any]:
    started = time.perf_counter()
    outcomes = [play_random(rules, players, seed + i, chance) for i in range(games)]
    seconds = time.perf_counter() - started
    finished = [o for o in outcomes if o.error is None]
    wins = Counter(w for o in finished for w in o.winners)
    return {
        "games": games, "finished": len(finished), "errors": [{"seed": o.seed, "error": o.error}
                                                           for o in outcomes if o.error],
        "moves": {"min": min((o.moves for o in finished), default=0), "max": max((o.moves for o in finished),
                                                                                  default=0),
                  "mean": sum(o.moves for o in finished) / len(finished) if finished else 0},
        "wins": {f"p{i}": wins.get(f"p{i}", 0) for i in range(1, players + 1)},
        "seconds": round(seconds, 3),
    }


def render(report: dict[str, Any]) -> str:
    m = report["moves"]
    lines = [f"games {report['games']}, finished {report['finished']}, errors {len(report['errors'])}",
             f"moves per game: min {m['min']}, mean {m['mean']:.1f}, max {m['max']}",
             "wins (ties count for each): " + ", ".join(f"{p} {n}" for p, n in report["wins"].items()),
             f"{report['seconds']} s"]
    lines += [f"seed {e['seed']}: {e['error']}" for e in report["errors"]]
    return "\n".join(lines)


def dumps(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=True)
