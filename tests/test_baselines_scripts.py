"""The benchmark scripts run and print what they promise (with tiny repeat counts; no timing is asserted)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_expressions  # noqa: E402
import bench_games  # noqa: E402
import bench_interpreter  # noqa: E402
import bench_listing  # noqa: E402
import bench_processes  # noqa: E402
import listing_carry  # noqa: E402
from timing import interleaved, spread  # noqa: E402


def test_interleaved_repeats_rotate_the_order() -> None:
    order: list[str] = []
    got = interleaved({name: (lambda name=name: order.append(name) or 1.0) for name in "abc"}, 3)
    assert order == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]
    assert got == {"a": [1.0] * 3, "b": [1.0] * 3, "c": [1.0] * 3}
    assert spread([5.0, 1.0, 3.0, 2.0, 4.0])[:3] == (3.0, 1.0, 5.0)


def test_bench_interpreter_prints_each_rule_and_its_ratios(capsys: pytest.CaptureFixture[str]) -> None:
    bench_interpreter.main(["--repeats", "1", "--scale", "0.02"])
    out = capsys.readouterr().out
    for rule in bench_interpreter.workloads.NAMES:
        assert f"{rule} (1 interleaved repeats" in out
    assert out.count("engine / as read:") == out.count("engine / tuned:") == len(bench_interpreter.workloads.NAMES)
    assert "engine / floor (plain dicts" in out


@pytest.mark.slow
def test_bench_expressions_agrees_with_rule_engine_and_prints_ratios(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("rule_engine")
    assert bench_expressions.main(["--repeats", "1", "--scale", "0.005"]) == 0
    out = capsys.readouterr().out
    assert out.count("rule-engine / boardrules:") == len(bench_expressions.EXPRESSIONS)
    assert "all expressions: rule-engine / boardrules" in out


def test_bench_expressions_without_rule_engine_says_how_to_install(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "rule_engine", None)  # import fails as if it were not installed
    assert bench_expressions.main(["--repeats", "1"]) == 0
    assert "pip install" in capsys.readouterr().out


@pytest.mark.slow
def test_bench_processes_measures_check_against_bare_imports(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_processes.main(["--repeats", "1", "--skip-test"]) == 0
    out = capsys.readouterr().out
    for name in ("bare imports", "check, cold", "check, repeated", "check, no cache"):
        assert name in out
    assert bench_processes.scenario_count() > 100


def test_bench_games_prints_rates_against_tic_tac_toe(capsys: pytest.CaptureFixture[str]) -> None:
    bench_games.main(["--repeats", "1", "--packs", "lisboa", "--players", "2", "--chance", "auto", "--skip", "mcts"])
    out = capsys.readouterr().out
    assert "python_tic_tac_toe:" in out and "random actions/CPU-s" in out
    assert "lisboa 2p chance=auto:" in out and "decisions/CPU-s" in out and "games/CPU-s" in out
    assert "tic-tac-toe actions / these decisions" in out
    assert "listing a turn's legal moves / one run of the chosen move" in out


def test_bench_listing_prints_the_ratios_and_the_ceilings_of_sharing(capsys: pytest.CaptureFixture[str]) -> None:
    bench_listing.main(["--games", "1", "--moves", "4", "--packs", "lisboa"])
    out = capsys.readouterr().out
    assert "lisboa, 3 players: 4 move decisions of 1 random games" in out
    for line in ("listing / head run of the chosen move (the goal, <= 3x):",
                 "listing / whole dry run of the chosen move and the flow after it:",
                 "floor (every candidate's head run) / head run of the chosen move:",
                 "dry runs per listing", "ceiling of sharing prefixes", "ceiling of sharing the flow"):
        assert line in out


def test_listing_carry_finds_no_wrong_verdict_and_prints_the_share(capsys: pytest.CaptureFixture[str]) -> None:
    got = listing_carry.measure(listing_carry.load_rules(listing_carry.PACKS["lisboa"], None, None), 1)
    assert got["proofs"] > 100 and 0 < got["carried"] <= got["earlier"] < got["proofs"]
    assert got["wrong"] == 0  # a carried verdict that differs would be a read the notes missed
    listing_carry.main(["--games", "1", "--packs", "lisboa"])
    out = capsys.readouterr().out
    assert "verdicts that could be carried" in out and "the most carrying could save" in out
