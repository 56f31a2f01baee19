"""The listing (`Pending.options`, with every shortcut the search takes: kept runs, the totality analysis, answers
skipped as independent, answers that finished before tried first) lists exactly the options the plain full proof
finds, in the same order, on every decision of seeded random whole games of the shipped packs and the neutral
test packs (a move decision's candidate moves and an open move's answers alike)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from boardrules.engine.moves import Activity, Search
from boardrules.game import CHANCE, Game, _with
from boardrules.language.pack import load_rules

ROOT = Path(__file__).resolve().parents[1]
PACKS = ROOT / "tests" / "packs"
GAMES = {"relay": (PACKS / "relay", None, {"prize": 4}, 150), "finale": (PACKS / "finale", None, None, 150),
         "finale.tally": (PACKS / "finale", ["finale.tally"], None, 150),
         "finale.deck": (PACKS / "finale", ["finale.deck"], None, 150),
         "lisboa": (ROOT / "rules" / "lisboa", None, None, 200),
         "village": (ROOT / "rules" / "village", None, None, 120)}


def _plain(game: Game) -> list[int]:
    """The ids of the pending decision's candidates that a plain full proof finds legal: every answer of every
    decision tried, every move run to its end with the flow after it, nothing kept or read from an earlier run."""
    pending = game._pending
    assert pending is not None
    m = game._m
    activities: list[Activity] = []
    for i in range(pending.id_bound):
        answer = game._pending_answers[i]
        if pending.kind == "move":
            activities.append(Activity("move", pending.player, answer.action, dict(answer.params)))
        else:
            assert game._open is not None
            activities.append(_with(game._open, answer))
    total, wins, m.totality, m.answer_wins = m.totality, m.answer_wins, None, {}
    try:
        search = Search(m, game.chance == "step", game.search_budget)
        search.prune = False
        legal = [i for i, a in enumerate(activities) if search.can_finish(a)]
        assert not search.exhausted  # the plain proof decided every candidate within its budget
    finally:
        m.totality, m.answer_wins = total, wins
    return legal


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("chance", ["step", "auto"])
def test_the_listing_is_the_plain_full_proof_on_whole_games(name: str, chance: str) -> None:
    path, modules, options, decisions = GAMES[name]
    rules = load_rules(path, modules, options)
    listed = 0
    for seed in (1, 2, 3):
        game = Game(rules, 3, seed, flow=True, chance=chance)
        game.setup()
        rng = random.Random(seed)
        for _ in range(decisions):
            if game.is_terminal():
                break
            pending = game.pending()
            assert pending is not None
            if pending.player != CHANCE:
                ids = [o.id for o in pending.options]
                assert ids == _plain(game), (pending.prompt, seed)
                listed += len(ids)
            game.apply(pending.sample(rng).id)
    assert listed > 0
