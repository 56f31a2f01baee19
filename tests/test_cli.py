"""The `boardrules` command as a user meets it: check, test, schema, their output and exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from boardrules.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
BROKEN = ROOT / "tests" / "packs" / "broken"
MARKET = ROOT / "examples" / "market"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def test_shipped_packs_check_clean(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "check")
    assert code == 0, out
    assert " 0 error(s)" in out
    # The only findings on shipped packs are the values the sources leave open.
    codes = set(re.findall(r"(?:error|warning) ([EW]\d{3}):", out))
    assert codes <= {"W601"}


def test_broken_pack_reports_every_problem_with_places(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "check", str(BROKEN))
    assert code == 1
    found = re.findall(r"^(tests/packs/broken/\S+?):(\d+):(\d+): error (E\d{3}):", out, re.M)
    assert ("tests/packs/broken/broken.yaml", "15", "15", "E201") in found  # wrong type in YAML
    assert ("tests/packs/broken/broken.yaml", "22", "25", "E401") in found  # misspelt name
    assert ("tests/packs/broken/broken.yaml", "28", "32", "E402") in found  # wrong type in an expression
    assert ("tests/packs/broken/broken.yaml", "34", "16", "E301") in found  # grammar error
    assert any(f[0].endswith("unreadable.yaml") and f[3] == "E101" for f in found)  # YAML syntax error
    assert "hint: did you mean 'time'?" in out
    # The source line and a caret under the column follow each diagnostic.
    assert "\n          - me.points += me.tiem\n" + " " * 28 + "^\n" in out


def test_json_format(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "check", "--format", "json", str(BROKEN))
    assert code == 1
    items = json.loads(out)
    assert {"file", "line", "column", "severity", "code", "message"} <= set(items[0])
    assert {i["code"] for i in items} >= {"E101", "E201", "E301", "E401", "E402"}


def test_scenario_pass_and_summary_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "test", str(MARKET))
    assert code == 0
    assert out.strip().splitlines()[-1] == "1 passed, 0 failed"


def test_wrong_expectation_fails_with_a_readable_diff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "market"
    (pack / "scenarios").mkdir(parents=True)
    (pack / "market.yaml").write_text((MARKET / "market.yaml").read_text())
    text = (MARKET / "scenarios" / "buy_apple.yaml").read_text().replace("p1.coins: 1", "p1.coins: 2")
    (pack / "scenarios" / "wrong.yaml").write_text(text)
    code, out = run(capsys, "test", str(pack))
    assert code == 1
    assert "expect p1.coins\n      expected: 2\n      actual:   1" in out
    assert "last changed by the rule at" in out and "market.yaml:12:" in out
    assert out.strip().splitlines()[-1] == "0 passed, 1 failed"


def test_expected_error_that_does_not_happen_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "market"
    (pack / "scenarios").mkdir(parents=True)
    (pack / "market.yaml").write_text((MARKET / "market.yaml").read_text())
    (pack / "scenarios" / "s.yaml").write_text(
        "scenario: s\nmodules: [market]\nplayers: 1\nsteps:\n  - {action: buy_apple, player: p1, expect_error: E502}\n"
    )
    code, out = run(capsys, "test", str(pack))
    assert code == 1
    assert "expected error E502, but it succeeded" in out


def test_expected_error_that_does_not_happen_names_unused_answers(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "market"
    (pack / "scenarios").mkdir(parents=True)
    (pack / "market.yaml").write_text((MARKET / "market.yaml").read_text())
    (pack / "scenarios" / "s.yaml").write_text(
        "scenario: s\nmodules: [market]\nplayers: 1\n"
        "steps:\n  - {action: buy_apple, player: p1, answers: [yes], expect_error: E502}\n"
    )
    code, out = run(capsys, "test", str(pack))
    assert code == 1
    assert "expected error E502, but it succeeded; answers or rolls never asked for: [true]" in out


def test_schema_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "schema")
    assert code == 0
    schema = json.loads(out)
    assert schema["$schema"].endswith("2020-12/schema") and "$id" in schema
    code, out = run(capsys, "schema", "scenario")
    assert json.loads(out)["properties"]["scenario"]


@pytest.mark.parametrize("command", ["check", "test", "schema"])
def test_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    assert "usage: boardrules" in capsys.readouterr().out


def test_missing_path_is_a_diagnostic(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "check", "no/such/dir")
    assert code == 1
    assert "error E105: no such file or directory" in out


@pytest.mark.parametrize(
    "text",
    [
        b"\x00\x01\x02binary",
        b"module: x\ntitle: t\nactions: {a: {do: [!!python/object/apply:os.system [echo hi]]}}\n",
        b"a: &a [*a, *a]\n",
        b"module: [\n",
        b"- just\n- a list\n",
        b"module: m\ntitle: t\nactions:\n  a:\n    do: ['me.x += ', {if: '(', then: [3]}]\n",
    ],
)
def test_no_traceback_on_bad_files(tmp_path: Path, text: bytes) -> None:
    (tmp_path / "bad.yaml").write_bytes(text)
    proc = subprocess.run(
        [sys.executable, "-m", "boardrules", "check", str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    assert re.search(r"bad\.yaml:\d+:\d+: error E\d{3}:", proc.stdout)


def test_every_rule_of_the_shipped_packs_is_run_by_some_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "test", "--coverage")
    assert code == 0
    assert "never run:" not in out, out
    assert re.search(r"coverage \S*village: (\d+) of \1 rules run by a scenario", out)
    assert re.search(r"coverage \S*lisboa: (\d+) of \1 rules run by a scenario", out)


def test_a_failed_expectation_names_the_rule_behind_any_value_it_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    harvest = ROOT / "tests" / "packs" / "harvest"
    pack = tmp_path / "harvest"
    (pack / "scenarios").mkdir(parents=True)
    for module in harvest.glob("*.yaml"):
        (pack / module.name).write_text(module.read_text())
    text = (harvest / "scenarios" / "move_list.yaml").read_text().replace("count(p1.farm): 2", "count(p1.farm): 3")
    (pack / "scenarios" / "wrong.yaml").write_text(text)
    code, out = run(capsys, "test", str(pack))
    assert code == 1
    line = next(n for n, t in enumerate((pack / "base.yaml").read_text().splitlines(), 1) if "move home to" in t)
    assert "expect count(p1.farm)\n      expected: 3\n      actual:   2\n      last changed by the rule at " in out
    assert f"base.yaml:{line}:" in out


def test_a_pack_after_modules_is_read_as_the_pack(capsys: pytest.CaptureFixture[str]) -> None:
    harvest = str(ROOT / "tests" / "packs" / "harvest")
    code, out = run(capsys, "explain", "--modules", "harvest.base", harvest)
    assert code == 0 and "Modules: harvest.base\n" in out
    code, out = run(capsys, "explain", "--modules", "harvest.base", "harvest.more", harvest)
    assert code == 0 and "Harvest, the Market Town expansion" in out
    with pytest.raises(SystemExit) as stop:
        main(["explain", "--modules", "harvest.base"])
    assert stop.value.code == 2
    assert "explain needs a PACK (a pack directory)" in capsys.readouterr().err


RELAY = ROOT / "tests" / "packs" / "relay"


def _market_with_scenarios(tmp_path: Path) -> Path:
    pack = tmp_path / "market"
    (pack / "scenarios" / "buying").mkdir(parents=True)
    (pack / "market.yaml").write_text((MARKET / "market.yaml").read_text())
    text = (MARKET / "scenarios" / "buy_apple.yaml").read_text()
    (pack / "scenarios" / "top.yaml").write_text(text)
    (pack / "scenarios" / "buying" / "inner.yaml").write_text(text)
    return pack


def test_a_folder_of_scenarios_runs_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = _market_with_scenarios(tmp_path)
    for folder, count in ((pack / "scenarios", 2), (pack / "scenarios" / "buying", 1)):
        code, out = run(capsys, "test", "-v", str(folder))
        assert code == 0, out
        assert out.strip().splitlines()[-1] == f"{count} passed, 0 failed"
    code, out = run(capsys, "test", str(RELAY / "scenarios"))
    assert code == 0 and out.strip().splitlines()[-1] == "5 passed, 0 failed"
    code, out = run(capsys, "check", str(pack / "scenarios"))  # checked against the pack's modules
    assert code == 0 and "checked 1 module file(s) in 1 pack(s): 0 error(s)" in out


def test_a_folder_named_scenarios_above_a_pack_is_only_a_folder(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    pack = _market_with_scenarios(tmp_path / "scenarios")
    code, out = run(capsys, "test", str(pack))
    assert code == 0 and out.strip().splitlines()[-1] == "2 passed, 0 failed"


def test_a_run_that_finds_no_scenario_says_so_and_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = _market_with_scenarios(tmp_path)
    for scenario in (pack / "scenarios").rglob("*.yaml"):
        scenario.unlink()
    for path in (pack, pack / "scenarios", tmp_path / "market" / "market.yaml"):
        code, out = run(capsys, "test", str(path))
        assert code == 5, out
        assert out.strip() == (f"no scenario found in {path} (scenarios are the .yaml files under a pack's "
                               "scenarios/ directory)")
    code, out = run(capsys, "test", str(tmp_path / "nowhere"))
    assert code == 1  # a path that does not exist is an error, not an empty run


def test_test_help_lists_its_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["test", "--help"])
    assert "5 when no scenario was found" in " ".join(capsys.readouterr().out.split())


def test_an_option_that_sets_an_unknown_value_silences_its_warning(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "check", str(RELAY))
    assert code == 0 and "warning W601: 'prize' is unknown" in out
    code, out = run(capsys, "check", str(RELAY), "--set", "prize=4")
    assert code == 0 and "W601" not in out and "0 error(s), 0 warning(s)" in out
    options = tmp_path / "options.yaml"
    options.write_text("prize: 4\n")
    code, out = run(capsys, "check", str(RELAY), "--options", str(options))
    assert code == 0 and "W601" not in out
    code, out = run(capsys, "check", str(RELAY), "--set", "prize=yes")  # a wrong value is still an error
    assert code == 1 and "error E402: option 'prize' should be a whole number" in out
