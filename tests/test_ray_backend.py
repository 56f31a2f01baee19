"""`simulate --backend ray` on a local Ray instance gives the report of the process backend."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("ray")

from boardrules.tools.cli import main
from boardrules.tools.simulate import comparable

RELAY = str(Path(__file__).resolve().parent / "packs" / "relay")


@pytest.mark.slow
def test_ray_and_processes_give_the_same_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reports = {}
    for backend in ("ray", "process"):
        out = tmp_path / f"{backend}.json"
        code = main(["simulate", RELAY, "--games", "30", "--players", "3", "--set", "prize=4", "--seed", "11",
                     "--workers", "2", "--bots", "p2=greedy", "--backend", backend, "--json", str(out)])
        assert code == 0, capsys.readouterr().out
        reports[backend] = json.loads(out.read_text())
    assert reports["ray"]["run"] == {"backend": "ray", "workers": 2}
    assert reports["ray"]["finished"] == 30
    assert comparable(reports["ray"]) == comparable(reports["process"])
