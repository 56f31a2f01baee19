"""`boardrules diff OLD NEW` on two versions of a small pack that differ in one known rule."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from boardrules.tools.cli import main
from boardrules.tools.diff import side_by_side
from boardrules.tools.simulate import Setup, simulate

ROOT = Path(__file__).resolve().parent.parent
RELAY = ROOT / "tests" / "packs" / "relay"


def _version(tmp_path: Path, name: str, *edits: tuple[str, str]) -> Path:
    pack = tmp_path / name
    shutil.copytree(RELAY, pack)
    text = (pack / "relay.yaml").read_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    (pack / "relay.yaml").write_text(text)
    return pack


BUY_TIMES_3 = ("      - me.points += n\n", "      - me.points += n * 3\n")


def test_one_changed_rule_its_scenarios_and_its_balance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = _version(tmp_path, "old")
    new = _version(tmp_path, "new", BUY_TIMES_3)
    out = tmp_path / "diff.json"
    code = main(["diff", str(old), str(new), "--set", "prize=4", "--games", "20", "--json", str(out)])
    text = capsys.readouterr().out
    assert code == 1, text
    data = json.loads(out.read_text())
    assert [c["name"] for c in data["changed"]] == ["actions.buy"] and not data["added"] and not data["removed"]
    assert "changed relay: actions.buy" in text
    changed = [line for line in text.splitlines() if " | " in line]
    assert len(changed) == 1 and "- me.points += n " in changed[0] and changed[0].endswith("- me.points += n * 3")
    assert {s["file"] for s in data["scenarios"]} == {
        "scenarios/game_ends_when_the_market_is_empty_and_ranks_players.yaml",
        "scenarios/trading_turns_go_round_until_all_pass.yaml"}
    assert all(s["old"] == "pass" and s["new"] == "fail" for s in data["scenarios"])
    assert "scenario scenarios/trading_turns_go_round_until_all_pass.yaml: pass -> fail" in text
    compared = {r["metric"]: r for r in data["balance"]["compared"]}
    assert compared["score p1"]["significant"] and compared["moves per game"]["significant"]
    assert not compared["fires setup.deck"]["significant"]
    assert "* score p1" in text and "  fires setup.deck" in text
    # the same seeds: recompute both versions' moves and the test from the rows, independently
    moves = []
    for pack in (old, new):
        rows = simulate(Setup(str(pack), ("relay",), (("prize", 4),), 2, failures=None), 20, 1)["rows"]
        moves.append(np.array([r["moves"] for r in rows], dtype=float))
    assert compared["moves per game"]["old"] == pytest.approx(moves[0].mean(), abs=1e-3)
    z = (moves[1].mean() - moves[0].mean()) / np.sqrt(moves[0].var(ddof=1) / 20 + moves[1].var(ddof=1) / 20)
    assert compared["moves per game"]["p"] == pytest.approx(2 * stats.norm.sf(abs(z)), abs=1e-3)
    wins = [data["balance"][v]["seats"]["p1"]["count"] for v in ("old", "new")]
    _, p, _, _ = stats.chi2_contingency([[wins[0], 20 - wins[0]], [wins[1], 20 - wins[1]]], correction=False)
    assert compared["win rate p1"]["p"] == pytest.approx(p, abs=1e-3)


def test_added_and_removed_rules_and_no_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = _version(tmp_path, "old")
    same = _version(tmp_path, "same", ("title: Buy from the market\n", "title: Buy from the market   # reworded\n"))
    assert main(["diff", str(old), str(same)]) == 0
    text = capsys.readouterr().out
    assert "rules: no change" in text and "scenarios: every outcome is the same" in text
    new = _version(tmp_path, "new", ("  leave:\n", "  shout:\n    title: Shout\n    do: [pass]\n  leave:\n"))
    assert main(["diff", str(old), str(new), "--no-scenarios"]) == 1
    text = capsys.readouterr().out
    assert "added relay: actions.shout" in text and "  + shout:" in text and "  +   do: [pass]" in text
    assert main(["diff", str(new), str(old), "--no-scenarios"]) == 1
    assert "removed relay: actions.shout" in capsys.readouterr().out


def test_a_path_that_is_not_a_pack_is_trouble(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["diff", str(RELAY), str(tmp_path / "empty")]) == 2
    assert "is not one rule pack" in capsys.readouterr().out


def test_side_by_side_aligns_and_marks() -> None:
    rows = side_by_side(("a", "b", "c"), ("a", "B", "c", "d"), width=5)
    assert rows == ["a       a", "b     | B", "c       c", "      > d"]
    assert side_by_side(("x" * 10,), (), width=4) == ["xxx… <"]
