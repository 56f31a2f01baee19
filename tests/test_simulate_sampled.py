"""`simulate` and `play` without proving every option: the random bot's seats play through `Game.play_random`
(`bots.play_next`), and the branching factor is measured on every Nth move decision of a phase
(`--branching-every`), which changes nothing in the games played."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from boardrules.diagnostics import BoardrulesError
from boardrules.game import CHANCE, Game
from boardrules.language.pack import load_rules
from boardrules.tools.bots import play_next
from boardrules.tools.cli import main
from boardrules.tools.metrics import balance
from boardrules.tools.simulate import Setup, simulate

ROOT = Path(__file__).resolve().parent.parent
RELAY = ROOT / "tests" / "packs" / "relay"
LISBOA = ROOT / "rules" / "lisboa"


def _setup(pack: Path, every: int, **kw: Any) -> Setup:
    options = (("prize", 4),) if pack == RELAY else ()
    base: dict[str, Any] = dict(pack=str(pack), modules=None, options=options, players=3, failures=None,
                                branching_every=every)
    base.update(kw)
    return Setup(**base)


def _without_branching(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "branching"} for r in rows]


@pytest.mark.parametrize("chance", ["step", "auto"])
@pytest.mark.parametrize("bots", [(), (("p2", "greedy"),)])
def test_listing_options_or_not_plays_the_same_games(chance: str, bots: tuple) -> None:
    rows = {}
    for every in (0, 1, 3, 10):
        report = simulate(_setup(RELAY, every, chance=chance, bots=bots), games=6, seed=11)
        assert report["finished"] == 6, report["errors"]
        rows[every] = report["rows"]
    assert _without_branching(rows[0]) == _without_branching(rows[1]) == _without_branching(rows[3]) \
        == _without_branching(rows[10])
    for r1, r3, r0 in zip(rows[1], rows[3], rows[0], strict=True):
        assert r1["branching"].keys() == r3["branching"].keys() == r0["branching"].keys()
        for phase, cell in r1["branching"].items():
            d = cell["decisions"]
            assert cell["listed"] == d and cell["options"] >= d  # every decision listed, each with a move
            assert r3["branching"][phase]["decisions"] == d and r3["branching"][phase]["listed"] == -(-d // 3)
            assert r0["branching"][phase] == {"decisions": d, "listed": 0, "options": 0}


@pytest.mark.parametrize("chance", ["step", "auto"])
def test_listing_every_decision_or_none_plays_the_same_village_games(chance: str) -> None:
    """Village holds runs at chance decisions and plans moves' answers: listing between changes neither."""
    village = ROOT / "rules" / "village"
    rows = [simulate(_setup(village, every, players=2, chance=chance, check=False), games=1, seed=21)["rows"]
            for every in (0, 1)]
    assert all(r["finished"] and r["moves"] > 50 for r in rows[0])
    assert _without_branching(rows[0]) == _without_branching(rows[1])
    assert all(c["listed"] == c["decisions"] for r in rows[1] for c in r["branching"].values())


def test_the_branching_factor_of_listed_decisions_is_their_mean_number_of_options() -> None:
    """Every 3rd decision of a phase, from the first, counted on a game replayed by hand."""
    report = simulate(_setup(RELAY, 3), games=1, seed=4)
    row = report["rows"][0]
    rules = load_rules(RELAY, None, {"prize": 4})
    seen: dict[str, list[int]] = {}
    log = simulate_log(rules, 4)
    game = Game(rules, 3, 4, flow=True, chance="step")
    game.setup()
    for entry in log:
        pending = game.pending()
        assert pending is not None
        if pending.kind == "move":
            phase = game.driver().phase()
            name = phase.name if phase is not None else "game"
            seen.setdefault(name, []).append(len(pending.options))
        game.apply(entry)
    assert game.is_terminal()
    expected = {name: {"decisions": len(ns), "listed": len(ns[::3]), "options": sum(ns[::3])}
                for name, ns in seen.items()}
    assert row["branching"] == expected
    b = balance(report["rows"])["branching"]
    assert b == {name: {"decisions": c["decisions"], "listed": c["listed"],
                        "mean": round(c["options"] / c["listed"], 3)} for name, c in sorted(expected.items())}


def simulate_log(rules: Any, seed: int) -> list[int]:
    """The option ids of simulate's seeded all-random game: Game.play_random from a generator seeded alike."""
    game = Game(rules, 3, seed, flow=True, chance="step")
    game.setup()
    rng = random.Random(seed)
    ids = []
    while not game.is_terminal():
        option = game.play_random(rng)
        assert option is not None
        ids.append(option.id)
    return ids


def test_simulate_plays_the_random_seats_as_game_play_random_does() -> None:
    rules = load_rules(LISBOA, None, None)
    report = simulate(_setup(LISBOA, 0, check=False), games=1, seed=2)
    game = Game(rules, 3, 2, flow=True, chance="step")
    game.setup()
    rng = random.Random(2)
    while not game.is_terminal():
        assert game.play_random(rng) is not None
    row = report["rows"][0]
    assert row["decisions"] == len(simulate_log(rules, 2)) and row["keys"] == {
        r["player"]: r["keys"] for r in game.ranking()}
    assert row["actions"] == {a: sum(1 for e in game.log if e.get("action") == a)
                              for a in row["actions"]}


def _count_proofs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    count = [0]
    prove = Game._prove

    def counted(self: Game, pending: Any, i: int) -> bool:
        count[0] += 1
        return prove(self, pending, i)

    monkeypatch.setattr(Game, "_prove", counted)
    return count


def test_simulate_proves_far_fewer_options_when_it_lists_fewer(monkeypatch: pytest.MonkeyPatch) -> None:
    count = _count_proofs(monkeypatch)
    proofs = {}
    for every in (1, 10):
        count[0] = 0
        report = simulate(_setup(LISBOA, every, check=False), games=2, seed=1)
        proofs[every] = count[0] / sum(r["decisions"] for r in report["rows"])
    # Lisboa offers about 27 candidate moves a turn: listing each move decision is most of the proofs
    assert proofs[10] < 0.4 * proofs[1], proofs


def test_play_random_for_some_players_leaves_the_others_decisions_alone() -> None:
    rules = load_rules(RELAY, None, {"prize": 4})
    game = Game(rules, 2, 3, flow=True, chance="step")
    game.setup()
    rng = random.Random(3)
    played = {"p1": 0, "p2": 0}
    while not game.is_terminal():
        before = (len(game.log), game.state.dumps(), rng.getstate())
        option = game.play_random(rng, ["p2"])
        pending = game.pending()
        if option is None:  # p1's decision: nothing drawn, nothing applied
            assert pending is not None and pending.player == "p1"
            assert (len(game.log), game.state.dumps(), rng.getstate()) == before
            game.apply(pending.options[0].id)
            played["p1"] += 1
        elif game.log and game.log[-1].get("player") == "p2":
            played["p2"] += 1
    assert played["p1"] >= 2 and played["p2"] >= 2, played


def test_play_next_calls_other_bots_and_stops_at_a_persons_seat() -> None:
    game = Game.new(RELAY, 2, 3, {"prize": 4})
    rng = random.Random(1)
    seen: list[tuple[str, int]] = []
    while True:
        option = play_next(game, {"p2": "greedy"}, rng, None, lambda p, o: seen.append((p.player, o.id)))
        if option is None:
            break
    pending = game.pending()
    assert pending is not None and pending.player == "p1"  # the person's seat
    assert seen and all(player in (CHANCE, "p2") for player, _ in seen)
    assert len(game.log) >= 1


def test_branching_every_is_refused_below_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", str(RELAY), "--games", "1", "--set", "prize=4", "--branching-every", "-1"]) == 1
    assert "E509" in capsys.readouterr().out


def test_the_report_says_how_many_decisions_were_listed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", str(RELAY), "--games", "2", "--set", "prize=4", "--no-save",
                 "--branching-every", "4"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "branching factor" in x)
    assert "listed of all" in line and " of " in line.split(":", 1)[1]


def test_a_bot_that_fails_is_reported_at_its_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(game: Game, pending: Any, rng: random.Random) -> Any:
        raise BoardrulesError("E501", "the bot failed", None)

    from boardrules.tools import bots
    monkeypatch.setitem(bots.BOTS, "failing", failing)
    bots.bot.cache_clear()
    try:
        report = simulate(_setup(RELAY, 10, bots=(("p2", "failing"),), players=2), games=1, seed=1)
    finally:
        bots.bot.cache_clear()
    err = report["errors"][0]
    # it failed before any answer was drawn: the rule that asked (relay's trading phase) is named
    assert "E501: the bot failed" in err["message"] and err["rule"].endswith("relay.yaml:97:5")


def test_first_is_the_first_option_listed_without_proving_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    """What greedy's look-ahead plays for its own later choices."""
    rules = load_rules(LISBOA, None, None)
    game = Game(rules, 2, 5, flow=True, chance="step")
    game.setup()
    count = _count_proofs(monkeypatch)
    rng = random.Random(5)
    by_first = by_list = 0
    while not game.is_terminal():
        pending = game.pending()
        assert pending is not None
        if pending.player != CHANCE:
            count[0] = 0
            first = pending.first()
            by_first += count[0]
            count[0] = 0
            assert first == pending.options[0]
            by_list += count[0]
        game.apply(pending.sample(rng).id)
    assert 0 < by_first < by_list / 2, (by_first, by_list)


def test_play_with_random_bots_plays_the_game_play_random_plays() -> None:
    """`play` and `simulate` let random seats play alike (bots.play_next): seeded, the same game."""
    from boardrules.tools.play import Session, start

    game = start(str(RELAY), 2, 6, {"prize": 4}, None, None)
    lines: list[str] = []
    session = Session(game, {"p1": "random", "p2": "random"}, random.Random(6), lambda _: None, lines.append)
    assert session.run() == 0 and lines[-1].startswith("returns:")
    ref = Game(load_rules(RELAY, None, {"prize": 4}), 2, 6, flow=True, chance="step")
    ref.setup()
    rng = random.Random(6)
    while not ref.is_terminal():
        assert ref.play_random(rng) is not None
    assert game.log == ref.log and game.state.dumps() == ref.state.dumps()
    moves = [x for x in lines if x.startswith(("p1 (random): ", "p2 (random): "))]
    assert len(moves) >= sum(1 for e in ref.log if e["kind"] == "move")  # each move and answer shown
