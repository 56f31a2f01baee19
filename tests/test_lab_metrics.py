"""Balance metrics: the intervals agree with an independent computation from the rows."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from boardrules.tools.cli import main
from boardrules.tools.metrics import balance, spread, two_proportion, wilson
from boardrules.tools.simulate import Setup, simulate

ROOT = Path(__file__).resolve().parent.parent
RELAY = ROOT / "tests" / "packs" / "relay"


@given(st.integers(1, 5000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_matches_scipy(kn: tuple[int, int]) -> None:
    k, n = kn
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson(k, n)
    assert low == pytest.approx(ci.low, abs=1e-9) and high == pytest.approx(ci.high, abs=1e-9)
    assert low <= k / n <= high


@given(st.integers(1, 400), st.integers(1, 400), st.data())
def test_two_proportion_matches_a_chi_square_test(n1: int, n2: int, data: st.DataObject) -> None:
    k1, k2 = data.draw(st.integers(0, n1)), data.draw(st.integers(0, n2))
    z, p = two_proportion(k1, n1, k2, n2)
    table = [[k1, n1 - k1], [k2, n2 - k2]]
    if 0 in (k1 + k2, n1 + n2 - k1 - k2):
        assert p == 1.0
        return
    chi2, p_ref, _, _ = stats.chi2_contingency(table, correction=False)
    assert p == pytest.approx(p_ref, rel=1e-6, abs=1e-12) and z * z == pytest.approx(chi2, rel=1e-6, abs=1e-9)


@given(st.lists(st.integers(-1000, 1000), min_size=2, max_size=200))
def test_spread_matches_numpy(values: list[int]) -> None:
    s = spread(values)
    assert s["median"] == pytest.approx(float(np.median(values)), abs=1e-3)
    assert s["p10"] == pytest.approx(float(np.percentile(values, 10)), abs=1e-3)
    assert s["p90"] == pytest.approx(float(np.percentile(values, 90)), abs=1e-3)
    half = stats.norm.ppf(0.975) * np.std(values, ddof=1) / math.sqrt(len(values))
    assert s["low"] == pytest.approx(np.mean(values) - half, abs=2e-3)
    assert s["high"] == pytest.approx(np.mean(values) + half, abs=2e-3)


@pytest.fixture(scope="module")
def report() -> dict:
    return simulate(Setup(str(RELAY), None, (("prize", 4),), 3, failures=None), games=30, seed=1)


def test_the_balance_agrees_with_the_rows(report: dict) -> None:
    rows, b = report["rows"], report["balance"]
    n = len(rows)
    assert b["finished"] == n == 30
    for seat in ("p1", "p2", "p3"):
        k = sum(1 for r in rows if r["ranks"][seat] == 1)
        ci = stats.binomtest(k, n).proportion_ci(method="wilson")
        assert b["seats"][seat]["count"] == k == report["wins"][seat]
        assert b["seats"][seat]["low"] == pytest.approx(ci.low, abs=1e-4)
        assert b["seats"][seat]["high"] == pytest.approx(ci.high, abs=1e-4)
    draws = sum(1 for r in rows if list(r["ranks"].values()).count(1) > 1)
    assert b["draws"]["count"] == draws and b["decisive"]["count"] == n - draws
    mean_rate = statistics.fmean(b["seats"][s]["rate"] for s in ("p1", "p2", "p3"))
    assert b["first_player"]["advantage"] == pytest.approx(b["seats"]["p1"]["rate"] - mean_rate, abs=1e-3)
    assert b["length"]["moves"]["median"] == np.median([r["moves"] for r in rows])
    assert b["length"]["decisions"]["max"] == max(r["decisions"] for r in rows)
    assert b["widest"] == pytest.approx(max(v["high"] - v["low"] for v in b["seats"].values()), abs=1e-4)
    # rule firing: games in which it ran, and winners' vs losers' seats whose moves ran it
    buy = b["rules"]["actions.buy"]
    assert buy["count"] == sum(1 for r in rows if "actions.buy" in r["rules"])
    won = [(r, s) for r in rows for s in r["winners"]]
    assert buy["winners"]["of"] == len(won) and buy["losers"]["of"] == 3 * n - len(won)
    assert buy["winners"]["count"] == sum(1 for r, s in won if "actions.buy" in r["rules_by_seat"][s])
    assert "winners" not in b["rules"]["setup.deck"]  # setup is nobody's move
    phases = {p for r in rows for p in r["branching"]}
    assert set(b["branching"]) == phases and all(v["mean"] >= 1 for v in b["branching"].values())


def test_balance_of_no_games_is_empty_not_an_error() -> None:
    b = balance([])
    assert b["finished"] == 0 and b["seats"] == {} and b["widest"] == 1.0


def test_the_text_report_shows_the_intervals(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", str(RELAY), "--games", "6", "--set", "prize=4", "--no-save"]) == 0
    out = capsys.readouterr().out
    assert "balance (6 finished games, 95 % intervals):" in out
    assert "win rate per seat: p1 " in out and "first-player advantage:" in out and "decisive games:" in out
    assert "branching factor" in out


def test_until_ci_plays_until_the_widest_interval_is_narrower(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert main(["simulate", str(RELAY), "--games", "4", "--set", "prize=4", "--no-save", "--until-ci", "0.45",
                 "--json", str(out), "--out", str(tmp_path / "rows.jsonl")]) == 0
    import json

    r = json.loads(out.read_text())
    games = r["until_ci"]["games"]
    assert r["until_ci"]["reached"] and r["balance"]["widest"] < 0.45 and r["games"] == games
    assert games in (4, 8, 16, 32, 64)  # doubling from --games
    # the interval was not narrow enough with half the games
    half = simulate(Setup(str(RELAY), None, (("prize", 4),), 2, failures=None), games=games // 2, seed=1)
    assert games == 4 or half["balance"]["widest"] >= 0.45
    assert len((tmp_path / "rows.jsonl").read_text().splitlines()) == games
    assert main(["simulate", str(RELAY), "--games", "2", "--set", "prize=4", "--no-save", "--until-ci", "0.01",
                 "--max-games", "4", "--json", str(out)]) == 0
    r = json.loads(out.read_text())
    assert r["until_ci"] == {"width": 0.01, "reached": False, "games": 4}
