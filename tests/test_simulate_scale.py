"""`simulate` at scale: workers, bots, invariants checked after every step, saved logs of failed games."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from boardrules.diagnostics import BoardrulesError
from boardrules.game import Game
from boardrules.tools.bots import parse_bots
from boardrules.tools.cli import main
from boardrules.tools.invariants import Checker
from boardrules.tools.simulate import Setup, comparable, replay_failure, simulate

ROOT = Path(__file__).resolve().parent.parent
RELAY = ROOT / "tests" / "packs" / "relay"


def relay_setup(**kw: object) -> Setup:
    base = dict(pack=str(RELAY), modules=None, options=(("prize", 4),), players=3)
    base.update(kw)
    return Setup(**base)  # type: ignore[arg-type]


def test_the_report_is_the_same_whatever_the_number_of_workers(capsys: pytest.CaptureFixture[str],
                                                                tmp_path: Path) -> None:
    reports = []
    for k in ("1", "2"):
        out = tmp_path / f"r{k}.json"
        code = main(["simulate", str(RELAY), "--games", "24", "--players", "3", "--set", "prize=4", "--seed", "5",
                     "--workers", k, "--bots", "p3=greedy", "--json", str(out)])
        assert code == 0, capsys.readouterr().out
        reports.append(json.loads(out.read_text()))
    assert comparable(reports[0]) == comparable(reports[1])
    assert reports[1]["run"] == {"backend": "process", "workers": 2}
    r = reports[0]
    assert r["finished"] == 24 and r["errors"] == []
    assert set(r["scores"]) == {"p1", "p2", "p3"} and sum(r["win_rate"].values()) >= 1.0
    assert r["actions"]["buy"] > 0 and r["rules_fired"]["setup.deck"] == 24
    assert r["never_fired"] == []  # every rule of relay runs in 24 games
    text = capsys.readouterr().out
    assert "rules that never fired: none" in text and "win rate: p1" in text


def test_a_rule_that_never_fires_is_listed(tmp_path: Path) -> None:
    report = simulate(relay_setup(), games=2, seed=7)  # seeds 7 and 8: no one leaves
    assert report["never_fired"] == ["actions.buy_large", "actions.leave"]
    assert report["rules_fired"].get("actions.leave", 0) == 0 and report["rules_fired"]["actions.buy"] > 0


def test_bots_are_parsed_and_checked() -> None:
    assert parse_bots("p2=random,p3=greedy", 3) == {"p2": "random", "p3": "greedy"}
    with pytest.raises(BoardrulesError, match="unknown bot 'clever'"):
        parse_bots("p2=clever", 3)
    with pytest.raises(BoardrulesError, match="SEAT=BOT"):
        parse_bots("p4=random", 3)


def test_the_greedy_bot_beats_random_players_on_the_declared_score() -> None:
    greedy = simulate(relay_setup(players=2, bots=(("p1", "greedy"),)), games=30, seed=1)
    plain = simulate(relay_setup(players=2), games=30, seed=1)
    assert greedy["finished"] == 30
    assert greedy["win_rate"]["p1"] > plain["win_rate"]["p1"]


def _pack_with(tmp_path: Path, extra: str) -> Path:
    pack = tmp_path / "relay"
    shutil.copytree(RELAY, pack)
    text = (pack / "relay.yaml").read_text()
    (pack / "relay.yaml").write_text(text.replace("invariants:\n", "invariants:\n" + extra, 1))
    return pack


def test_a_designer_invariant_that_breaks_saves_a_replayable_log(tmp_path: Path) -> None:
    pack = _pack_with(tmp_path, "  short_game: \"round_number <= 1\"\n")
    setup = Setup(str(pack), None, (("prize", 4),), 2, failures=str(tmp_path / "fails"))
    report = simulate(setup, games=3, seed=1)
    assert report["finished"] + len(report["errors"]) == 3 and report["errors"]
    err = report["errors"][0]
    assert err["kind"] == "invariant" and err["rule"] == "relay.short_game"
    assert err["where"].endswith("relay.yaml:119:3") or "relay.yaml:" in err["where"]
    saved = json.loads(Path(err["file"]).read_text())
    assert saved["seed"] == 1 and saved["rule"] == "relay.short_game"
    game = replay_failure(err["file"])  # the log plays back to the state that broke the invariant
    assert game.state.vars["round"] == 2
    bad = Checker(game.rules, 2).check(game)
    assert bad is not None and bad.rule == "relay.short_game"


def test_an_error_and_a_game_that_never_ends_are_saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_apply = Game._apply

    def failing_apply(self: Game, option: object) -> None:  # apply and play_random both apply through it
        if len(self.log) > 2:  # the third move fails (a random game may end after three)
            raise BoardrulesError("E501", "a rule failed", None)
        real_apply(self, option)

    monkeypatch.setattr(Game, "_apply", failing_apply)
    report = simulate(relay_setup(failures=str(tmp_path)), games=2, seed=1)
    monkeypatch.undo()
    assert [e["kind"] for e in report["errors"]] == ["error", "error"]
    err = report["errors"][0]
    assert "E501: a rule failed" in err["message"] and err["rule"].startswith("actions.")  # the move it failed in
    data = json.loads(Path(err["file"]).read_text())
    assert data["pending"]["options"] and len(replay_failure(err["file"]).log) == len(data["log"]) == 3
    endless = simulate(relay_setup(max_steps=4, failures=str(tmp_path)), games=2, seed=1)
    assert [e["kind"] for e in endless["errors"]] == ["step_limit", "step_limit"]
    data = json.loads(Path(endless["errors"][0]["file"]).read_text())
    assert data["seed"] == 1 and data["steps"] == 4
    assert len(replay_failure(endless["errors"][0]["file"]).log) == len(data["log"])


def test_builtin_invariants_counters_zones_and_conserved_pieces() -> None:
    game = Game.new(RELAY, 2, 1, {"prize": 4}, chance="auto")
    checker = Checker(game.rules, 2)
    assert checker.check(game) is None
    game.state.counters["p1.tokens"] = -1
    bad = checker.check(game)
    assert bad is not None and bad.rule == "counters.tokens" and "outside 0..inf" in bad.message
    game.state.counters["p1.tokens"] = 1
    game.state.zones["p1.hand"].capacity = 0
    game.state.zones["p1.hand"].contents.append(next(iter(game.state.pieces)))
    bad = checker.check(game)
    assert bad is not None and bad.rule == "zones.hand"
    game.state.zones["p1.hand"].contents.clear()
    game.state.zones["p1.hand"].capacity = None
    game.state.pieces.pop(next(iter(game.state.pieces)))
    bad = checker.check(game)
    assert bad is not None and bad.rule == "pieces.card" and "conserved" in bad.message


def test_a_progress_bar_on_a_terminal_and_silence_otherwise(capsys: pytest.CaptureFixture[str]) -> None:
    simulate(relay_setup(), games=3, seed=1, progress=True)
    assert "3/3 games" in capsys.readouterr().err
    simulate(relay_setup(), games=3, seed=1)  # stderr is not a terminal under pytest
    assert capsys.readouterr().err == ""


def test_a_game_saved_during_a_stepped_setup_comes_back() -> None:
    game = Game.new(RELAY, 2, 1, {"prize": 4})  # chance="step": the setup's shuffle waits for outcomes
    game.apply(game.pending().option(2).id)
    assert game.log == [] and game.pending().player == "chance"
    back = Game.deserialize(game.serialize(), RELAY)
    assert back.pending() == game.pending() and back.serialize() == game.serialize()


def test_play_declarations_are_checked_when_linking(tmp_path: Path) -> None:
    pack = tmp_path / "relay"
    shutil.copytree(RELAY, pack)
    text = (pack / "relay.yaml").read_text()
    text = text.replace("  hand: others\n", "  hnad: others\n").replace('bot_score: "me.points * 10 + me.tokens"',
                                                                        'bot_score: "me.pionts"')
    (pack / "relay.yaml").write_text(text)
    with pytest.raises(BoardrulesError) as caught:
        Game.new(pack, 2, 1, {"prize": 4})
    messages = [f"{d.code} {d.message} {d.hint}" for d in caught.value.diagnostics]
    assert any("unknown zone or counter 'hnad'" in m and "hand" in m for m in messages)
    assert any("pionts" in m for m in messages)
