"""Per-game data of `simulate`: what each game did, as one plain row, written as JSON Lines or Parquet.

A `Tally` rides along one game (simulate.play_one calls it) and counts what the report's summary throws away:
how often each rule started running, which player's move it ran in, and how many options each move decision
offered in each phase. `row` turns a finished (or failed) game into a dict of plain values; the balance
metrics (metrics.py) are computed from rows alone, so anyone can recompute them from the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..diagnostics import BoardrulesError

if TYPE_CHECKING:
    from ..game import Game, Pending
    from .simulate import Setup

ROW_FORMAT = "boardrules-game-row/1"


@dataclass
class Outcome:
    seed: int
    moves: int = 0
    steps: int = 0
    returns: list[float] = field(default_factory=list)
    winners: list[str] = field(default_factory=list)
    scores: list[Any] = field(default_factory=list)  # the first ranking key of each seat at the end
    actions: dict[str, int] = field(default_factory=dict)
    rules: list[str] = field(default_factory=list)  # the rules that fired in this game
    problems: list[dict[str, Any]] = field(default_factory=list)  # Game.problems: rule bugs the search met (W520)
    error: str | None = None
    failure: dict[str, Any] | None = None  # kind, rule, where, message, file
    data: dict[str, Any] = field(default_factory=dict)  # per-game counts for the rows (sim_rows.Tally)


class FiredCounter(dict[str, int]):
    """Stands in for the machine's `covered` set (which only says whether a rule ran): counts each start, and
    the same per player whose move it ran in (`owner`); setup, the flow's own rules and what runs after the
    game ends belong to no player. A run that is taken back is uncounted (see driver.Driver.tally_rules)."""

    def __init__(self) -> None:
        super().__init__()
        self.owner: str | None = None
        self.by: dict[str, dict[str, int]] = {}
        self.journal: list[tuple[str | None, str]] = []

    def add(self, name: str) -> None:
        self[name] = self.get(name, 0) + 1
        owner = self.owner
        if name.startswith(("flow.", "setup.")):
            if name == "flow.end":  # what runs after the end (final scoring) is nobody's move
                self.owner = None
            owner = None
        elif owner is not None:
            mine = self.by.setdefault(owner, {})
            mine[name] = mine.get(name, 0) + 1
        self.journal.append((owner, name))

    def __reduce__(self) -> tuple[Any, ...]:
        # crossing to another process (workers, Ray) only the counts matter: send a plain dict, not the journal
        return (dict, (dict(self),))

    def rollback(self, mark: int) -> None:
        while len(self.journal) > mark:
            owner, name = self.journal.pop()
            self[name] -= 1
            if not self[name]:
                del self[name]
            if owner is not None:
                mine = self.by[owner]
                mine[name] -= 1
                if not mine[name]:
                    del mine[name]


class Tally:
    """Counts of one game, filled in as it is played; `data` is kept on the game's Outcome."""

    def __init__(self, game: Game, out: Outcome, branching_every: int = 1) -> None:
        self.fired = FiredCounter()
        game.driver().tally_rules(self.fired)
        self.every = branching_every
        self.branching: dict[str, dict[str, int]] = {}
        self.data: dict[str, Any] = {"fired": self.fired, "fired_by": self.fired.by, "branching": self.branching}
        out.data = self.data

    def step(self, game: Game, pending: Pending) -> None:
        """Before a decision is answered: a move starts a new owner for what runs next, and the options of every
        `branching_every`-th move decision of a phase (the 1st, then N + 1st...; none with 0) count towards its
        branching factor. Listing them proves every candidate, where playing proves about one; it draws nothing
        from the game's generator, so the game played is the same whatever N is."""
        if pending.kind != "move":
            return
        self.fired.owner = pending.player
        phase = game.driver().phase()
        name = phase.name if phase is not None else "game"
        cell = self.branching.get(name)
        if cell is None:
            cell = self.branching[name] = {"decisions": 0, "listed": 0, "options": 0}
        if self.every > 0 and cell["decisions"] % self.every == 0:
            cell["listed"] += 1
            cell["options"] += len(pending.options)
        cell["decisions"] += 1

    def finish(self, game: Game) -> None:
        self.fired.owner = None
        self.data["keys"] = {r["player"]: r["keys"] for r in game.ranking()}
        self.data["ranks"] = {r["player"]: r["rank"] for r in game.ranking()}


def row(setup: Setup, out: Outcome) -> dict[str, Any]:
    """One game as plain data (see docs/embedding.md, "Per-game rows")."""
    seats = [f"p{i}" for i in range(1, setup.players + 1)]
    bots = dict(setup.bots)
    data = out.data or {}
    fired = dict(data.get("fired") or {})
    if not fired and out.rules:  # a game played without a Tally still says which rules ran
        fired = dict.fromkeys(out.rules, 1)
    winners = list(out.winners) if out.error is None else []
    return {
        "format": ROW_FORMAT,
        "seed": out.seed,
        "players": setup.players,
        "bots": {s: bots.get(s, "random") for s in seats},
        "moves": out.moves,
        "decisions": out.steps,
        "finished": out.error is None,
        "scores": {s: (out.scores[i] if i < len(out.scores) else None) for i, s in enumerate(seats)},
        "keys": {s: list((data.get("keys") or {}).get(s, [])) for s in seats},
        "ranks": {s: (data.get("ranks") or {}).get(s) for s in seats},
        "winners": winners,
        "winner": winners[0] if len(winners) == 1 else None,
        "returns": {s: (out.returns[i] if i < len(out.returns) else None) for i, s in enumerate(seats)},
        "actions": dict(sorted(out.actions.items())),
        "rules": dict(sorted(fired.items())),
        "rules_by_seat": {s: dict(sorted((data.get("fired_by") or {}).get(s, {}).items())) for s in seats},
        "branching": {k: dict(v) for k, v in sorted((data.get("branching") or {}).items())},
        "error": {**(out.failure or {}), "text": out.error} if out.error else None,
        "problems": [dict(p) for p in getattr(out, "problems", [])],  # W520: moves dropped for a rule bug
    }


def outcome(r: dict[str, Any]) -> Outcome:
    """The simulate Outcome a row was made from (for summarising games run in several batches)."""
    seats = list(r["bots"])
    error = r["error"]
    failure = {k: v for k, v in error.items() if k != "text"} if error else None
    return Outcome(r["seed"], r["moves"], r["decisions"], [r["returns"][s] for s in seats] if r["finished"] else [],
                   list(r["winners"]), [r["scores"][s] for s in seats] if r["finished"] else [], dict(r["actions"]),
                   sorted(r["rules"]), error=error["text"] if error else None, failure=failure or None,
                   problems=[dict(p) for p in r.get("problems", [])],
                   data={"fired": dict(r["rules"]), "fired_by": {s: dict(c) for s, c in r["rules_by_seat"].items()},
                         "branching": dict(r["branching"]), "keys": r["keys"], "ranks": r["ranks"]})


def write(path: str | Path, rows: list[dict[str, Any]]) -> Path:
    """JSON Lines, or Parquet for a `.parquet` name (needs pyarrow: pip install 'boardrules[report]')."""
    path = Path(path)
    if path.suffix == ".parquet":
        _write_parquet(path, rows)
    else:
        with path.open("w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n")
    return path


def read(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a JSON Lines file written by `write`."""
    with Path(path).open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def require_parquet(path: str | Path) -> Any:
    """pyarrow, or E760 saying how to get it."""
    try:
        import pyarrow  # type: ignore[import-untyped]
        import pyarrow.parquet  # type: ignore[import-untyped]
    except ImportError:
        raise BoardrulesError("E760", f"cannot write {path}: Parquet needs pyarrow", None,
                              "pip install 'boardrules[report]', or write JSON Lines (any other file name)") from None
    return pyarrow


def _write_parquet(path: Path, rows: list[dict[str, Any]]) -> None:
    require_parquet(path)
    import pyarrow as pa
    import pyarrow.parquet as pq
    # Parquet columns have one type: the count tables become maps (a rule missing from a game is absent, not
    # a column of nulls); a score that is not a number is null, and the ranking keys, which a pack may make
    # numbers or text, are kept as JSON text.
    counts = pa.map_(pa.string(), pa.int64())
    seat_counts = pa.map_(pa.string(), counts)
    schema = pa.schema([
        ("format", pa.string()), ("seed", pa.int64()), ("players", pa.int64()),
        ("bots", pa.map_(pa.string(), pa.string())), ("moves", pa.int64()), ("decisions", pa.int64()),
        ("finished", pa.bool_()), ("scores", pa.map_(pa.string(), pa.float64())), ("keys", pa.string()),
        ("ranks", pa.map_(pa.string(), pa.int64())), ("winners", pa.list_(pa.string())), ("winner", pa.string()),
        ("returns", pa.map_(pa.string(), pa.float64())), ("actions", counts), ("rules", counts),
        ("rules_by_seat", seat_counts), ("branching", pa.map_(pa.string(), counts)), ("error", pa.string()),
    ])
    flat = []
    for r in rows:
        flat.append({
            **r, "keys": json.dumps(r["keys"]),
            "scores": [(s, v if isinstance(v, int | float) and not isinstance(v, bool) else None)
                       for s, v in r["scores"].items()],
            "error": json.dumps(r["error"]) if r["error"] else None,
            "bots": list(r["bots"].items()), "ranks": list(r["ranks"].items()),
            "returns": list(r["returns"].items()), "actions": list(r["actions"].items()),
            "rules": list(r["rules"].items()),
            "rules_by_seat": [(s, list(c.items())) for s, c in r["rules_by_seat"].items()],
            "branching": [(p, list(c.items())) for p, c in r["branching"].items()],
        })
    pq.write_table(pa.Table.from_pylist(flat, schema=schema), path)


__all__ = ["ROW_FORMAT", "FiredCounter", "Tally", "outcome", "read", "row", "write"]
