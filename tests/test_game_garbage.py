"""A copied game that is played and dropped (an MCTS rollout) leaves little for the cyclic collector.

Each rollout plays a copy of the searched state to its end and drops it. Whatever of a copy sits in a reference
cycle waits for the collector instead of being freed as it is dropped, with every object it reaches: the machine's
cache of action runs once held closures over the machine (about 1,000 objects per Lisboa rollout, most of them the
copy's state and journal).
"""

from __future__ import annotations

import contextlib
import gc
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from boardrules.game import Game
from boardrules.language.pack import load_rules

ROOT = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def saved_garbage() -> Iterator[list[object]]:
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield gc.garbage
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


@pytest.mark.parametrize("pack", ["lisboa", "village"])
def test_dropped_rollout_copies_leave_few_objects_in_cycles(pack: str) -> None:
    game = Game(load_rules(ROOT / "rules" / pack, None, None), 3, seed=1, flow=True, chance="step")
    game.setup()
    rng = random.Random(1)
    copies = 6
    with saved_garbage() as garbage:
        _play_copies(game, rng, copies)
        kinds = Counter(type(o).__name__ for o in garbage)
        closures = [o for o in garbage if callable(o) and getattr(o, "__name__", "") == "work"]
        assert closures == []
        assert len(garbage) < 150 * copies, kinds.most_common(8)


def _play_copies(game: Game, rng: random.Random, copies: int) -> None:
    for _ in range(copies):
        copy = game.clone()
        for _ in range(40):
            if copy.is_terminal():
                break
            copy.play_random(rng)
        del copy
    gc.collect()
