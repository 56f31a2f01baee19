"""The MCTS bot, and bots plugged in from other packages through the entry-point group `boardrules.bots`."""

from __future__ import annotations

import math
import random
import sys
import textwrap
from pathlib import Path

import pytest

from boardrules.diagnostics import BoardrulesError
from boardrules.game import Game
from boardrules.tools import bots
from boardrules.tools.mcts import MCTS
from boardrules.tools.simulate import Setup, simulate

ROOT = Path(__file__).resolve().parent.parent
RELAY = ROOT / "tests" / "packs" / "relay"


def test_mcts_is_a_bot_with_a_budget() -> None:
    assert "mcts" in bots.names()
    assert bots.bot("mcts").iterations == 32  # type: ignore[attr-defined]
    assert bots.bot("mcts:5").iterations == 5  # type: ignore[attr-defined]
    assert bots.parse_bots("p1=mcts:5,p2=greedy", 2) == {"p1": "mcts:5", "p2": "greedy"}
    for wrong, said in (("p1=mcts:lots", "takes a number"), ("p1=greedy:3", "takes no setting"),
                        ("p1=clever", "unknown bot 'clever'")):
        with pytest.raises(BoardrulesError, match=said):
            bots.parse_bots(wrong, 2)


def test_mcts_leaves_the_game_as_it_was_and_answers_with_an_option() -> None:
    game = Game.new(RELAY, 2, 3, {"prize": 4}, chance="auto")
    before = game.serialize()
    pending = game.pending()
    assert pending is not None and len(pending.options) > 1
    choice = MCTS(6)(game, pending, random.Random(1))
    assert choice in pending.options and game.serialize() == before
    again = MCTS(6)(game, pending, random.Random(1))
    assert again == choice  # seeded: the same answer


def _wins(pack: Path | str, players: tuple[tuple[str, str], ...], games: int, options: tuple = ()) -> dict:
    report = simulate(Setup(str(pack), None, options, 2, bots=players, failures=None, check=False), games, 1)
    assert report["finished"] == games, report["errors"]
    return report


@pytest.mark.parametrize("seat", ["p1", "p2"])
def test_mcts_beats_random_on_relay_from_either_seat(seat: str) -> None:
    other = "p2" if seat == "p1" else "p1"
    r = _wins(RELAY, ((seat, "mcts:16"), (other, "random")), 4, (("prize", 4),))
    assert r["wins"][seat] == 4 and r["wins"][other] < 4, r["wins"]


def _binomial_below(n: int, p: float, k: int) -> float:
    """P(X < k) for X ~ Binomial(n, p)."""
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k))


def _bar(n: int, p: float, miss: float = 1e-3) -> int:
    """The most wins out of n a bot that wins each game with probability p reaches with probability 1 - miss."""
    return max(k for k in range(n + 1) if _binomial_below(n, p, k) <= miss)


# (pack, options, budget, opponent, games, a win rate a correct mcts has there: below the rate measured beforehand,
# the most often a bot no better than its opponent may pass)
# Measured on 2-player games, seats alternated, counting wins alone: one-round Village, mcts:4 won 53 of 64
# against greedy and 54 of 64 against random (0.83, 0.84); Lisboa, mcts:8 won 139 of 200 against random (0.70),
# but only 17 of 40 against greedy (and mcts:32 16 of 32): at budgets a test can afford, mcts is not stronger
# than greedy on Lisboa, so that is not claimed (the single seeded game this test played there was luck).
# CI's time decides the rows: against random only on Lisboa, with 100 games (a bot no better than random still
# passes there about one run in three, so it guards against a badly broken search; 200 games cut that to one in
# 25 at twice the CPU), and on Village only against greedy, the stronger opponent.
STRENGTH = [
    ("village", (("max_rounds", 1),), "mcts:4", "greedy", 60, 0.8, 0.04),
    ("lisboa", (), "mcts:8", "random", 100, 0.67, 0.4),
]


@pytest.mark.slow
@pytest.mark.parametrize(("pack", "options", "budget", "opponent", "games", "rate", "luck"), STRENGTH)
def test_mcts_wins_more_often_than_luck_allows(pack: str, options: tuple, budget: str, opponent: str,
                                               games: int, rate: float, luck: float) -> None:
    """A bound, not one lucky game: mcts must win (alone) at least `bar` of `games` games, half from each seat.
    A correct mcts, winning each game with probability `rate`, falls short once in a thousand runs; a broken
    one no better than its opponent (at most a half) reaches the bar in at most `luck` of the runs. About 60 s of
    CPU for the Village row and 50 s for Lisboa (0.5 s a game)."""
    bar = _bar(games, rate)
    assert 1 - _binomial_below(games, 0.5, bar) < luck  # the bound itself
    wins = 0
    for mine, theirs in (("p1", "p2"), ("p2", "p1")):
        r = _wins(ROOT / "rules" / pack, ((mine, budget), (theirs, opponent)), games // 2, options)
        wins += sum(row["winners"] == [mine] for row in r["rows"])
    assert wins >= bar, (wins, games, bar)


def test_a_bot_from_another_package_plugs_in_by_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # An installed distribution, as pip leaves it: a module and a dist-info with entry_points.txt
    (tmp_path / "lastbot.py").write_text(textwrap.dedent('''
        def last(game, pending, rng):
            """Always the last option."""
            return pending.options[-1]

        class Nth:
            def __init__(self, n=0):
                self.n = n
            def configured(self, arg):
                return Nth(int(arg))
            def __call__(self, game, pending, rng):
                return pending.options[min(self.n, len(pending.options) - 1)]

        nth = Nth()
        broken = 42
    '''))
    info = tmp_path / "lastbot-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lastbot\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[boardrules.bots]\nlast = lastbot:last\nnth = lastbot:nth\n"
                                           "broken = lastbot:broken\nmissing = lastbot:nowhere\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    bots.bot.cache_clear()
    try:
        assert {"last", "nth"} <= set(bots.names())
        assert bots.parse_bots("p2=last,p1=nth:1", 2) == {"p2": "last", "p1": "nth:1"}
        game = Game.new(RELAY, 2, 1, {"prize": 4}, chance="auto")
        pending = game.pending()
        assert pending is not None and pending.player == "p1" and len(pending.options) > 2
        assert bots.choose(game, pending, {"p1": "last"}, random.Random(1)) == pending.options[-1]
        assert bots.choose(game, pending, {"p1": "nth:1"}, random.Random(1)) == pending.options[1]
        r = _wins(RELAY, (("p1", "last"), ("p2", "nth:1")), 2, (("prize", 4),))
        assert r["rows"][0]["bots"] == {"p1": "last", "p2": "nth:1"}
        with pytest.raises(BoardrulesError, match="not callable"):
            bots.bot("broken")
        with pytest.raises(BoardrulesError, match="cannot be loaded"):
            bots.bot("missing")
    finally:
        bots.bot.cache_clear()
        sys.modules.pop("lastbot", None)
