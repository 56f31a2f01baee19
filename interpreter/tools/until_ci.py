"""`simulate --until-ci W`: play games in rounds until every seat's win-rate interval is narrower than W.

Round after round takes the next seeds (so the games are those `--games N` would play for the final N), doubling
the games played so far each time, and stops at `max_games` even if the intervals are still wider.
"""

from __future__ import annotations

import time
from typing import Any

from .metrics import balance
from .sim_rows import outcome
from .simulate import Setup, simulate, summarise

MAX_GAMES = 100_000


def simulate_until(setup: Setup, width: float, first: int, seed: int, workers: int = 1, backend: str = "process",
                   address: str | None = None, max_games: int = MAX_GAMES) -> dict[str, Any]:
    """The report of the games played until balance()["widest"] < width (or max_games were played)."""
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    batch = max(1, min(first, max_games))
    while True:
        part = simulate(setup, batch, seed + len(rows), workers, backend, address)
        rows += part["rows"]
        widest = balance(rows)["widest"]
        if widest < width or len(rows) >= max_games:
            break
        batch = min(len(rows), max_games - len(rows))
    report = summarise(setup.load(), setup.players, [outcome(r) for r in rows])
    report["rows"] = rows
    report["balance"] = balance(rows)
    report["until_ci"] = {"width": width, "reached": report["balance"]["widest"] < width, "games": len(rows)}
    report["seconds"] = round(time.perf_counter() - started, 3)
    report["run"] = part["run"]
    return report


__all__ = ["MAX_GAMES", "simulate_until"]
