"""A home in the designer's repository: --version, init, check/test without a path, --changed, and what
`test` gives CI services (-k, -x, --lf, --durations, JUnit XML, lcov)."""

from __future__ import annotations

import re
import shutil
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from boardrules.resources import rules_dir
from boardrules.tools.cli import main
from boardrules.tools.init_pack import module_name
from boardrules.tools.pack_repo import default_paths, packs_of

ROOT = Path(__file__).resolve().parent.parent
RELAY = ROOT / "tests" / "packs" / "relay"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert capsys.readouterr().out.strip() == f"boardrules {version}"


def test_pyproject_has_a_license_and_classifiers() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "MIT"} and (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert "License :: OSI Approved :: MIT License" in project["classifiers"]
    assert any(c.startswith("Topic :: Games") for c in project["classifiers"])
    extras = project["optional-dependencies"]
    assert "boardrules[openspiel,ray,bench,lsp,report]" in extras["test"] and "pyarrow>=14" in extras["report"]


def test_init_writes_a_pack_that_checks_tests_and_plays(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "My Game"
    assert main(["init", str(target)]) == 0
    module = target / "my_game.yaml"
    scenario = target / "scenarios" / "my_game_gain_a_point.yaml"
    assert {p.name for p in target.iterdir()} == {"my_game.yaml", "scenarios", "README.md", "schemas", ".gitignore"}
    for path in (module, scenario):  # the schema line points at the copy beside the pack
        first = path.read_text().splitlines()[0]
        ref = re.fullmatch(r"# yaml-language-server: \$schema=(\S+)", first)
        assert ref and (path.parent / ref.group(1)).resolve().is_file()
    assert (target / "schemas" / "module.schema.json").read_bytes() == \
        (ROOT / "grammar" / "module.schema.json").read_bytes()
    capsys.readouterr()
    monkeypatch.chdir(target)  # no .git above tmp_path: the working directory is the pack
    assert main(["check", "--no-cache"]) == 0
    assert "checked 1 module file(s) in 1 pack(s): 0 error(s), 0 warning(s)" in capsys.readouterr().out
    assert main(["test", "--no-cache"]) == 0 and "1 passed, 0 failed" in capsys.readouterr().out
    assert main(["simulate", ".", "--games", "3", "--no-save"]) == 0
    assert "games 3, finished 3, errors 0" in capsys.readouterr().out
    assert main(["init", str(target)]) == 1 and "is not empty" in capsys.readouterr().err
    assert module_name(Path("3 fine-days")) == "game_3_fine_days"


def _repository(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    shutil.copytree(RELAY, repo / "packs" / "relay")
    shutil.copytree(ROOT / "tests" / "packs" / "harvest", repo / "packs" / "harvest")
    (repo / ".pre-commit-config.yaml").write_text("repos: []\n")
    (repo / ".venv" / "lib").mkdir(parents=True)
    (repo / ".venv" / "lib" / "x.yaml").write_text("module: not_a_pack\n")  # hidden folders are not packs
    (repo / "docs").mkdir()
    (repo / "docs" / "notes.yaml").write_text("just: data\n")  # YAML without `module:` is no pack
    return repo


def test_without_a_path_check_reads_the_repository_it_runs_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repository(tmp_path)
    inside = repo / "packs" / "relay" / "scenarios"
    assert default_paths(inside) == [repo / "packs" / "harvest", repo / "packs" / "relay"]
    monkeypatch.chdir(inside)
    main(["check", "--no-cache"])
    assert re.search(r"checked \d+ module file\(s\) in 2 pack\(s\)", capsys.readouterr().out)
    assert default_paths(ROOT / "interpreter") == [rules_dir()]  # boardrules' own checkout: its shipped packs
    alone = tmp_path / "alone"
    alone.mkdir()
    assert default_paths(alone) == [rules_dir()]


def test_changed_files_check_and_test_their_packs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repository(tmp_path)
    relay = repo / "packs" / "relay"
    files = [relay / "scenarios" / "end_game_ends_it_for_everyone.yaml", repo / ".pre-commit-config.yaml",
             repo / "docs" / "notes.yaml"]
    assert packs_of(files) == [relay]
    monkeypatch.chdir(repo)
    assert main(["test", "--changed", "--no-cache", *map(str, files)]) == 0
    assert "5 passed, 0 failed" in capsys.readouterr().out  # the whole pack, not only the changed scenario
    assert main(["check", "--changed", "--no-cache", str(repo / "docs" / "notes.yaml")]) == 0
    assert "no pack holds the changed files" in capsys.readouterr().out
    (relay / "relay.yaml").write_text((relay / "relay.yaml").read_text().replace("me.points += n", "me.pints += n"))
    assert main(["check", "--changed", "--no-cache", str(relay / "relay.yaml")]) == 1
    assert "error E401" in capsys.readouterr().out


def _broken_relay(tmp_path: Path) -> Path:
    pack = tmp_path / "relay"
    shutil.copytree(RELAY, pack)
    scenario = pack / "scenarios" / "trading_turns_go_round_until_all_pass.yaml"
    scenario.write_text(scenario.read_text().replace("market: 4", "market: 5"))
    return pack


def test_keyword_exitfirst_last_failed_and_durations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    pack = _broken_relay(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BOARDRULES_NO_CACHE")  # --lf needs the record of the last failures
    assert main(["test", str(pack), "-k", "trading or end_game", "-v"]) == 1
    out = capsys.readouterr().out
    assert "1 passed, 1 failed" in out and "3 scenario(s) deselected" in out
    assert main(["test", str(pack), "-k", "not trading"]) == 0 and "4 passed, 0 failed" in capsys.readouterr().out
    assert main(["test", str(pack), "-x"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and re.search(r"(\d+) passed, 1 failed", out)  # stopped at the first failure
    assert main(["test", str(pack), "--lf", "-v"]) == 1
    out = capsys.readouterr().out
    assert "0 passed, 1 failed" in out and "4 scenario(s) deselected" in out
    assert (tmp_path / ".boardrules_cache" / "lastfailed.json").is_file()
    assert main(["test", str(pack), "--durations", "2"]) == 1
    out = capsys.readouterr().out
    slow = out[out.index("slowest 2 scenario(s):"):].splitlines()[1:3]
    assert all(re.fullmatch(r"\s+\d+\.\d{3}s  \S+\.yaml", line) for line in slow), slow


def test_junit_xml_and_lcov(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    pack = _broken_relay(tmp_path)
    junit, lcov = tmp_path / "results.xml", tmp_path / "coverage.info"
    assert main(["test", str(pack), "--junit-xml", str(junit), "--lcov", str(lcov)]) == 1
    capsys.readouterr()
    suites = ET.parse(junit).getroot()
    assert suites.tag == "testsuites" and suites.get("tests") == "5" and suites.get("failures") == "1"
    cases = suites.findall("testsuite/testcase")
    assert len(cases) == 5 and all(float(c.get("time") or -1) >= 0 for c in cases)
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(failed) == 1 and "E701" in (failed[0].find("failure").text or "")  # type: ignore[union-attr]
    # lcov agrees with --coverage=json
    main(["test", str(pack), "--coverage=json", "--no-cache"])
    import json

    table = json.loads(capsys.readouterr().out)[0]["modules"][0]
    text = lcov.read_text()
    assert text.startswith("TN:") and text.rstrip().endswith("end_of_record")
    record = dict(line.split(":", 1) for line in text.splitlines() if line.startswith(("LF", "LH", "BRF", "BRH")))
    assert (int(record["LH"]), int(record["LF"])) == (table["lines"]["run"], table["lines"]["total"])
    assert (int(record["BRH"]), int(record["BRF"])) == (table["branches"]["run"], table["branches"]["total"])
    assert f"SF:{table['file']}" in text
