"""Loading games again and again keeps memory flat: a server, a notebook or a test suite that loads a pack many
times holds only the games it still has. Measured after a full collection, as resident memory and as the
interpreter's count of allocated blocks; and directly, every rule set loaded is freed once its game is gone."""

from __future__ import annotations

import gc
import itertools
import linecache
import random
import shutil
import statistics
import sys
import weakref
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import HARVEST

from boardrules import diagnostics
from boardrules.game import Game
from boardrules.language.pack import load_rules

ROOT = Path(__file__).resolve().parent.parent
LOADS = 24
STATUS = Path("/proc/self/status")


def _rss() -> int | None:
    if not STATUS.exists():
        return None
    for line in STATUS.read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return None


def _save(pack: str) -> str:
    game = Game.new(ROOT / "rules" / pack, 3, seed=1)
    rng = random.Random(1)
    for _ in range(10):
        game.apply(game.pending().sample(rng).id)  # type: ignore[union-attr]
    return game.serialize()


def _new(pack: str) -> Callable[[], Game]:
    return lambda: Game.new(ROOT / "rules" / pack, 3, seed=1)


def _deserialize(pack: str) -> Callable[[], Game]:
    text = _save(pack)
    return lambda: Game.deserialize(text)


# Loading Village is also what restoring a Village save does first, so these two cover both packs.
@pytest.mark.slow
@pytest.mark.parametrize(("how", "pack"), [(_new, "lisboa"), (_deserialize, "village")])
def test_repeated_loads_keep_flat_memory(how: Callable[[str], Callable[[], Game]], pack: str) -> None:
    load = how(pack)
    rss: list[int | None] = []
    blocks: list[int] = []
    alive: list[weakref.ref] = []
    for _ in range(LOADS):
        game = load()
        alive.append(weakref.ref(game.rules))
        del game
        gc.collect()
        rss.append(_rss())
        blocks.append(sys.getallocatedblocks())
    assert [r for r in alive if r() is not None] == []  # every rule set loaded was freed with its game
    block_growth = [b - a for a, b in itertools.pairwise(blocks)][-12:]
    assert statistics.median(block_growth) < 100, block_growth  # a load's rules are about 5,000 blocks
    if rss[0] is not None:
        growth = [b - a for a, b in itertools.pairwise(rss)][-12:]  # type: ignore[operator]
        assert statistics.median(growth) < 50 * 1024, growth  # a leaking load kept 650 KiB to 1.9 MiB


def _compile_every_body(rules: object) -> set[str]:
    bodies = [a.body for a in rules.actions.values()]  # type: ignore[attr-defined]
    for body in bodies:
        rules.compile_body(body)  # type: ignore[attr-defined]
    return set(rules.compile_body.registered)  # type: ignore[attr-defined]


def test_generated_sources_leave_linecache_with_the_last_rules_that_registered_them(tmp_path: Path) -> None:
    pack = tmp_path / "harvest"  # a copy: rules of the shared pack that other tests keep alive register the same names
    shutil.copytree(HARVEST, pack)
    first = load_rules(pack)
    names = _compile_every_body(first)
    assert names and names <= set(linecache.cache)  # a traceback through a compiled body shows its source
    second = load_rules(pack)
    assert _compile_every_body(second) == names
    del first
    gc.collect()
    assert names <= set(linecache.cache)  # the second rule set still runs them
    del second
    gc.collect()
    assert not names & set(linecache.cache)


def test_source_lines_are_cached_for_a_bounded_number_of_files(tmp_path: Path) -> None:
    for i in range(diagnostics.MAX_CACHED_FILES + 10):
        path = tmp_path / f"f{i}.yaml"
        path.write_text(f"line {i}\n", encoding="utf-8")
        assert diagnostics.source_line(str(path), 1) == f"line {i}"
    assert len(diagnostics._LINES) <= diagnostics.MAX_CACHED_FILES
    assert str(tmp_path / f"f{diagnostics.MAX_CACHED_FILES + 9}.yaml") in diagnostics._LINES
