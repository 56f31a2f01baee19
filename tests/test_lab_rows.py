"""`simulate --out`: one row per game, as JSON Lines or Parquet, and the same rows from the Python API."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from boardrules.diagnostics import BoardrulesError
from boardrules.tools import sim_rows
from boardrules.tools.cli import main
from boardrules.tools.sim_rows import outcome, read, row, write
from boardrules.tools.simulate import Setup, simulate

ROOT = Path(__file__).resolve().parent.parent
RELAY = ROOT / "tests" / "packs" / "relay"
SETUP = Setup(str(RELAY), None, (("prize", 4),), 3, bots=(("p3", "greedy"),), failures=None)


@pytest.fixture(scope="module")
def report() -> dict:
    return simulate(SETUP, games=8, seed=3)


def test_the_api_returns_one_row_per_game_in_seed_order(report: dict) -> None:
    rows = report["rows"]
    assert [r["seed"] for r in rows] == list(range(3, 11))
    first = rows[0]
    assert first["players"] == 3 and first["bots"] == {"p1": "random", "p2": "random", "p3": "greedy"}
    assert first["finished"] and first["error"] is None
    assert set(first["scores"]) == set(first["keys"]) == set(first["ranks"]) == {"p1", "p2", "p3"}
    assert first["winners"] == [p for p, rank in first["ranks"].items() if rank == 1]
    assert first["winner"] == (first["winners"][0] if len(first["winners"]) == 1 else None)
    assert all(r["scores"][p] == r["keys"][p][0] for r in rows for p in r["scores"])
    # the summary is made of the same games: moves, decisions and actions add up
    assert sum(r["moves"] for r in rows) == round(report["moves"]["mean"] * 8)
    assert {a: sum(r["actions"].get(a, 0) for r in rows) for a in report["actions"]} == report["actions"]
    assert {n: sum(1 for r in rows if n in r["rules"]) for n in report["rules_fired"]} == report["rules_fired"]


def test_rule_counts_count_every_start_and_the_seat_whose_move_ran_it(report: dict) -> None:
    for r in report["rows"]:
        assert r["rules"]["setup.deck"] == 1
        for action, n in r["actions"].items():  # each move starts its action once (a `take` may start more)
            assert r["rules"][f"actions.{action}"] >= n
        for counts in r["rules_by_seat"].values():
            assert not any(name.startswith(("setup.", "flow.")) for name in counts)
            for name, n in counts.items():
                assert n <= r["rules"][name]
        moved = {name: sum(c.get(name, 0) for c in r["rules_by_seat"].values()) for name in r["rules"]}
        assert all(moved[f"actions.{a}"] == r["rules"][f"actions.{a}"] for a in r["actions"])
        assert sum(c["decisions"] for c in r["branching"].values()) == r["moves"]


def test_out_writes_json_lines_that_read_back_as_the_api_rows(tmp_path: Path, report: dict,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    code = main(["simulate", str(RELAY), "--games", "8", "--seed", "3", "--players", "3", "--set", "prize=4",
                 "--bots", "p3=greedy", "--no-save", "--out", str(out), "--json", str(tmp_path / "r.json")])
    assert code == 0, capsys.readouterr().out
    assert read(out) == report["rows"]
    assert len(out.read_text().splitlines()) == 8
    assert "rows" not in json.loads((tmp_path / "r.json").read_text())  # the summary stays a summary


def test_the_docs_pandas_example_loads_the_rows(tmp_path: Path, report: dict,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    pd = pytest.importorskip("pandas")
    write(tmp_path / "games.jsonl", report["rows"])
    monkeypatch.chdir(tmp_path)
    games = pd.read_json(tmp_path / "games.jsonl", lines=True)
    assert len(games) == 8 and list(games["seed"]) == list(range(3, 11))
    flat = pd.json_normalize(report["rows"])
    assert (flat["scores.p1"] == [r["scores"]["p1"] for r in report["rows"]]).all()
    assert flat.groupby("winner").size().sum() == sum(1 for r in report["rows"] if r["winner"])
    # the example in docs/embedding.md, as written there (with this pack's rule)
    doc = (ROOT / "docs" / "embedding.md").read_text(encoding="utf-8")
    example = doc[doc.index("import pandas as pd"):]
    example = example[:example.index("```")].replace("build_ship", "buy").replace("print(", "said.append(")
    said: list = []
    exec(example, {"said": said, "__name__": "example"}, None)  # our own docs, run as a reader would
    shares, spread, per_game = said
    assert shares.sum() <= 1
    assert round(per_game, 6) == round(sum(r["rules"].get("actions.buy", 0) for r in report["rows"]) / 8, 6)
    assert spread.loc["count", "moves"] == 8


def test_parquet_rows_hold_the_same_values(tmp_path: Path, report: dict) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    write(tmp_path / "games.parquet", report["rows"])
    table = pq.read_table(tmp_path / "games.parquet").to_pylist()
    assert [t["seed"] for t in table] == [r["seed"] for r in report["rows"]]
    for t, r in zip(table, report["rows"], strict=True):
        assert dict(t["rules"]) == r["rules"] and dict(t["bots"]) == r["bots"]
        assert dict(t["scores"]) == r["scores"] and json.loads(t["keys"]) == r["keys"]
        assert t["moves"] == r["moves"] and t["winners"] == r["winners"]


def test_parquet_without_pyarrow_is_a_diagnostic(tmp_path: Path, report: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real = builtins.__import__

    def no_pyarrow(name: str, *args: object, **kw: object) -> object:
        if name.startswith("pyarrow"):
            raise ImportError(name)
        return real(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    with pytest.raises(BoardrulesError) as err:
        write(tmp_path / "games.parquet", report["rows"])
    assert err.value.diagnostic.code == "E760" and "boardrules[report]" in (err.value.diagnostic.hint or "")


def test_a_failed_game_has_its_error_and_rule_location(tmp_path: Path) -> None:
    pack = tmp_path / "relay"
    shutil.copytree(RELAY, pack)
    text = (pack / "relay.yaml").read_text()
    (pack / "relay.yaml").write_text(text.replace("invariants:\n", "invariants:\n  short: \"round_number <= 1\"\n", 1))
    rows = simulate(Setup(str(pack), None, (("prize", 4),), 2, failures=None), games=2, seed=1)["rows"]
    bad = [r for r in rows if not r["finished"]]
    assert bad and bad[0]["winners"] == [] and bad[0]["winner"] is None
    err = bad[0]["error"]
    assert err["kind"] == "invariant" and err["rule"] == "relay.short" and "relay.yaml:" in err["where"]
    assert err["text"].startswith("invariant: relay.short")
    assert row(Setup(str(pack), None, (("prize", 4),), 2), outcome(bad[0])) == bad[0]


def test_rows_round_trip_through_outcomes(report: dict) -> None:
    assert [row(SETUP, outcome(r)) for r in report["rows"]] == report["rows"]
    assert report["rows"][0]["format"] == sim_rows.ROW_FORMAT


def test_rows_are_the_same_whatever_the_number_of_workers(report: dict) -> None:
    assert simulate(SETUP, games=8, seed=3, workers=2)["rows"] == report["rows"]
