"""`boardrules simulate`, `--set` / `--options` on the command line, and the embedding example."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from boardrules.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
RELAY = str(ROOT / "tests" / "packs" / "relay")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_simulate_plays_whole_games_and_writes_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_file = tmp_path / "report.json"
    code, out = run(capsys, "simulate", RELAY, "--games", "6", "--players", "3", "--set", "prize=4",
                    "--json", str(out_file))
    assert code == 0, out
    assert "games 6, finished 6, errors 0" in out
    report = json.loads(out_file.read_text())
    assert report["finished"] == 6 and sum(report["wins"].values()) >= 6
    again = json.loads(out_file.read_text())
    run(capsys, "simulate", RELAY, "--games", "6", "--players", "3", "--set", "prize=4", "--json", str(out_file))
    assert {k: v for k, v in json.loads(out_file.read_text()).items() if k != "seconds"} == \
        {k: v for k, v in again.items() if k != "seconds"}  # the same seed gives the same games


def test_options_from_a_file_and_from_set(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    options = tmp_path / "o.yaml"
    options.write_text("prize: 3\nmarket: 2\n")
    code, out = run(capsys, "check", RELAY, "--options", str(options))
    assert code == 0, out
    code, out = run(capsys, "check", RELAY, "--set", "prise=4")
    assert code == 1 and "error E408" in out and "did you mean 'prize'?" in out
    code, out = run(capsys, "check", RELAY, "--set", "noequals")
    assert code == 1 and "--set takes NAME=VALUE" in out


def test_simulate_refuses_modules_without_a_flow(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "simulate", str(ROOT / "examples" / "market"))
    assert code == 1 and "declare no flow" in out


def test_the_embedding_example_plays_games_to_the_end() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "random_game.py"), RELAY, "--players", "3",
                           "--games", "3"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 3 and all("moves;" in line and "returns [" in line for line in lines)
