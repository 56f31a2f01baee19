"""Scenarios start from a copy of one shared setup: the copy must be the fresh setup exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from boardrules.diagnostics import Diagnostics
from boardrules.game import Game
from boardrules.language.loader import load_yaml
from boardrules.language.pack import discover, load_modules
from boardrules.tools import scenario_setup
from boardrules.tools.scenario import ScenarioRunner
from boardrules.tools.scenario_setup import SetUpGames

ROOT = Path(__file__).resolve().parent.parent
PACK_DIRS = [ROOT / "rules", ROOT / "examples", ROOT / "tests" / "packs"]


def _packs() -> list[Any]:
    return [p for p in discover(PACK_DIRS, Diagnostics()) if p.scenario_files]


def _snapshot(game: Game) -> dict[str, Any]:
    """Everything a scenario can observe of a game, and what the runner reports from it."""
    m = game._m
    return {
        "state": game.state.to_json(),
        "journal": [repr(e) for e in game.state.journal],  # an unknown value refuses ==
        "cause": game.state.cause,
        "log": game.log,
        "history": list(game._history),
        "covered": set(m.covered),
        "budget": (m.budget.work, m.budget.pieces, m.budget.rule),
        "steps": m.steps,
    }


@pytest.mark.parametrize("pack", _packs(), ids=lambda p: p.root.name)
def test_a_copied_setup_equals_a_fresh_setup_for_every_scenario_configuration(pack: Any) -> None:
    runner = ScenarioRunner(load_modules(pack.module_files, Diagnostics()))
    shared = SetUpGames()
    seen = set()
    for path in pack.scenario_files:
        doc = load_yaml(path, Diagnostics())
        if not doc.get("setup", True) or "expect_error" in doc:  # no setup, or one that must fail: nothing shared
            continue
        players, seed, flow = int(doc.get("players", 2)), int(doc.get("seed", 1)), bool(doc.get("flow", False))
        options = {str(k): (v, None) for k, v in (doc.get("options") or {}).items()}
        rules, errors = runner.rules_for([str(m) for m in doc.get("modules", [])], options)
        assert not errors
        fresh = Game(rules, players, seed, flow=flow)
        fresh.setup()
        first, set_up = shared.start(rules, players, seed, flow, None)
        second, _ = shared.start(rules, players, seed, flow, None)
        assert set_up, f"{path}: its setup is not shared"
        assert _snapshot(first) == _snapshot(fresh) == _snapshot(second)
        seen.add((id(rules), players, seed, flow))
        # The copies are independent of each other and of the template.
        first.state.counters[next(iter(first.state.counters))] = 12345
        first.state.journal.append(None)
        assert _snapshot(second) == _snapshot(fresh)
    assert len(shared._templates) == len(seen)


def _played(monkeypatch: pytest.MonkeyPatch, pack: Any, share: bool) -> tuple[Any, ...]:
    """Run every scenario of the pack; each result with a snapshot of its game after the last expectation."""
    with monkeypatch.context() as patch:
        if not share:
            patch.setattr(scenario_setup, "_template", lambda *args: None)
        games: list[dict[str, Any]] = []
        play = ScenarioRunner._play

        def recording_play(self: ScenarioRunner, game: Game, *args: Any) -> None:
            try:
                play(self, game, *args)
            finally:
                games.append(_snapshot(game))

        patch.setattr(ScenarioRunner, "_play", recording_play)
        runner = ScenarioRunner(load_modules(pack.module_files, Diagnostics()))
        runner.trace = set()
        results = [runner.run_file(path) for path in pack.scenario_files]
        return results, games, runner.covered, runner.trace


@pytest.mark.slow
@pytest.mark.parametrize("pack", _packs(), ids=lambda p: p.root.name)
def test_every_scenario_plays_the_same_from_a_shared_setup(monkeypatch: pytest.MonkeyPatch, pack: Any) -> None:
    shared = _played(monkeypatch, pack, share=True)
    fresh = _played(monkeypatch, pack, share=False)
    assert shared[0] == fresh[0]
    assert shared[1] == fresh[1]
    assert shared[2] == fresh[2] and shared[3] == fresh[3] and shared[3]


def _module(directory: Path, most: int) -> Path:
    path = directory / "m.yaml"
    path.write_text("module: m\ntitle: M\nplayers: {min: 1, max: 4}\n"
                    f"counters:\n  coins: {{per: player, max: {most}, output: true}}\n"
                    "setup:\n  start_money:\n    do:\n      - p1.coins += 3\n"
                    "actions:\n  nothing:\n    title: Nothing\n    source: here\n    do:\n      - me.coins += 0\n",
                    encoding="utf-8")
    return path


def _scenario(path: Path, coins: int) -> Path:
    path.write_text(f"scenario: {path.stem}\nsource: here\nmodules: [m]\nplayers: 2\nexpect:\n  p1.coins: {coins}\n",
                    encoding="utf-8")
    return path


def test_a_failed_expectation_names_the_setup_rule_from_a_shared_setup(tmp_path: Path) -> None:
    runner = ScenarioRunner(load_modules([_module(tmp_path, 9)], Diagnostics()))
    a = runner.run_file(_scenario(tmp_path / "a.yaml", 3))
    b = runner.run_file(_scenario(tmp_path / "b.yaml", 4))
    assert a.passed
    assert len(runner._set_up._templates) == 1
    assert b.failures == [f"{tmp_path / 'b.yaml'}:6:3: error E701: expect p1.coins\n    expected: 4\n    actual:   3\n"
                          f"    last changed by the rule at {tmp_path / 'm.yaml'}:9:9"]


def test_a_setup_that_fails_is_not_shared_and_fails_in_each_scenario(tmp_path: Path) -> None:
    runner = ScenarioRunner(load_modules([_module(tmp_path, 2)], Diagnostics()))
    first = runner.run_file(_scenario(tmp_path / "a.yaml", 0))
    second = runner.run_file(tmp_path / "a.yaml")
    assert "error E508: too much coins: p1.coins would be 3 (at most 2)" in first.failures[0]
    assert first.failures == second.failures
    assert list(runner._set_up._templates.values()) == [None]
