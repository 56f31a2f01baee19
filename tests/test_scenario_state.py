"""A scenario's `state:` block is checked as strictly as a rule file, before anything is applied, and a pack
whose modules do not validate has none of its scenarios run."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import HARVEST

from boardrules.diagnostics import Diagnostics
from boardrules.language.pack import load_modules
from boardrules.tools.scenario import ScenarioRunner

HEAD = "scenario: s\nmodules: [harvest.base]\nplayers: 2\nstate:\n"


@pytest.fixture(scope="module")
def runner() -> ScenarioRunner:
    return ScenarioRunner(load_modules(sorted(HARVEST.glob("*.yaml")), Diagnostics()))


CASES = {
    # counter keys are counter references, never effects that would run
    "  counters: {'create 10000000 worker in meadow with age': 7}\n": [("E841", 5)],
    "  counters: {'festivals = 3 + 0; remove x': 1}\n": [("E841", 5)],
    "  counters: {'p1.coins + 1': 3}\n": [("E841", 5)],
    "  counters: {nothing: 3}\n": [("E841", 5)],
    "  counters: {p7.coins: 3}\n": [("E841", 5)],
    "  counters: {coins: 3}\n": [("E841", 5)],
    "  counters: {'p1.gems[purple]': 3}\n": [("E841", 5)],
    "  counters: {'p1.gems[[x for x in 1..100000000]]': 3}\n": [("E841", 5)],
    # values of the right type, pieces where they can be
    "  pieces: [{id: w, kind: worker, zone: meadow, props: {age: ruby}}]\n": [("E402", 5)],
    "  pieces: [{id: w, kind: worker, zone: meadow, props: {tired: 3}}]\n": [("E402", 5)],
    "  pieces: [{id: w, kind: worker, zone: meadow, props: {owner: p9}}]\n": [("E402", 5)],
    "  pieces: [{id: w, kind: worker, zone: meadow, props: {partner: nobody}}]\n": [("E402", 5)],
    "  pieces: [{id: w, kind: worker, zone: meadow, props: {colour: red}}]\n": [("E841", 5)],
    "  pieces: [{id: w, kind: ghost, zone: nowhere}]\n": [("E841", 5), ("E841", 5)],
    "  pieces: [{id: s, kind: statue, zone: podium, slot: 9}]\n": [("E402", 5)],
    "  pieces: [{id: w, kind: worker, zone: meadow}, {id: w, kind: worker, zone: meadow}]\n": [("E403", 5)],
    # markers on their track, links between pieces, a seat the game has
    "  markers: {pawn: 99}\n": [("E402", 5)],
    "  markers: {nobody: 2}\n": [("E841", 5)],
    "  links: [[$a, $b]]\n": [("E841", 5), ("E841", 5)],
    "  turn: {player: p4}\n": [("E841", 5)],
}


@pytest.mark.parametrize("state", list(CASES))
def test_bad_state_blocks_are_located_diagnostics(runner: ScenarioRunner, tmp_path: Path, state: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + state + "steps: []\n", encoding="utf-8")
    start = time.perf_counter()
    result = runner.run_file(path)
    assert time.perf_counter() - start < 3
    assert not result.passed and not result.internal
    text = "\n".join(result.failures)
    found = [(code, int(line)) for line, code in re.findall(r":(\d+):\d+: error (E\d+)", text)]
    assert found == CASES[state], text


def test_a_marker_written_as_a_counter_is_told_where_it_goes(runner: ScenarioRunner, tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + "  counters: {pawn: 3}\nsteps: []\n", encoding="utf-8")
    text = "\n".join(runner.run_file(path).failures)
    assert "s.yaml:5:14: error E841: 'pawn' is a track marker, not a counter" in text
    assert "hint: give its space under markers: (markers: {pawn: SPACE})" in text
    path.write_text(HEAD + "  markers: {pawn: 3}\nsteps: []\nexpect: {pawn: 3}\n", encoding="utf-8")
    text = "\n".join(runner.run_file(path).failures)
    assert "error E701: expect pawn" in text and "hint: 'pawn' is a track marker; its space is position(pawn)" in text


def test_a_good_state_block_still_applies(runner: ScenarioRunner, tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + "  counters: {p1.coins: 9, 'p2.gems[ruby]': 2, festivals: 1, 'price[oats]': 5}\n"
                    "  pieces: [{id: w, kind: worker, zone: p1.farm, props: {owner: p1, age: 3, tired: true}},\n"
                    "           {id: v, kind: worker, zone: p1.farm, props: {partner: $w}}]\n"
                    "  links: [[$w, $v]]\n  markers: {pawn: 4}\n  turn: {player: p2}\nsteps: []\n"
                    "expect: {p1.coins: 9, 'p2.gems[ruby]': 2, festivals: 1, 'price[oats]': 5, $w.age: 3,"
                    " turn_player: p2, pawn.position: 4}\n", encoding="utf-8")
    result = runner.run_file(path)
    assert result.passed, result.failures


def test_test_refuses_the_scenarios_of_a_pack_whose_modules_do_not_validate(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("module: m\ntitle: t\nplayers: {min: 1, max: 2}\n"
                                     "counters:\n  c: {per: game, initial: true}\n", encoding="utf-8")
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "s.yaml").write_text("scenario: s\nmodules: [m]\nplayers: 2\nsteps: []\n",
                                                   encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "boardrules", "test", str(tmp_path)], capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 1
    assert "were not run" in result.stdout and "E201" in result.stdout and "0 passed, 1 failed" in result.stdout
