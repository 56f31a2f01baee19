"""The per-user cache of `test` results: a repeated run is answered from it, a change to any input never is."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from boardrules import cache_files
from boardrules.tools import check_cache, cli

ROOT = Path(__file__).resolve().parent.parent
MARKET = ROOT / "examples" / "market"


@pytest.fixture
def pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    shutil.copytree(MARKET, tmp_path / "market")
    return tmp_path / "market"


def stored(tmp_path: Path) -> list[Path]:
    directory = tmp_path / "cache" / "boardrules" / "test"
    return sorted(directory.glob("*.json")) if directory.exists() else []


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = cli.main(["test", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_repeated_run_is_answered_from_the_cache(pack: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "market")
    assert first[0] == 0 and first[1].endswith("passed, 0 failed\n")
    (entry,) = stored(tmp_path)
    assert json.loads(entry.read_text()) == {"output": first[1], "status": 0, "errors": ""}
    assert run(capsys, "market") == first
    # Proof that the second answer came from the entry: change what it says (as only the user could).
    entry.write_text(json.dumps({"output": "from the cache\n", "status": 1, "errors": "note\n"}))
    assert run(capsys, "market") == (1, "from the cache\n", "note\n")
    assert run(capsys, "market", "--no-cache") == first


def test_a_changed_scenario_or_module_is_run_afresh(pack: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "market")
    scenario = sorted((pack / "scenarios").glob("*.yaml"))[0]
    scenario.write_text(scenario.read_text().replace("p1.coins: 1", "p1.coins: 2"))
    changed = run(capsys, "market")
    assert changed[0] == 1 and "expected: 2" in changed[1]
    module = pack / "market.yaml"
    module.write_text(module.read_text().replace('cost: "2 coins"', 'cost: "1 coins"'))
    again = run(capsys, "market")
    assert again[0] == 1 and again[1] != changed[1]
    assert len(stored(tmp_path)) == 3
    scenario.write_text(scenario.read_text().replace("p1.coins: 2", "p1.coins: 1"))
    module.write_text(module.read_text().replace('cost: "1 coins"', 'cost: "2 coins"'))
    assert run(capsys, "market") == first


def test_other_arguments_are_another_key(pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = run(capsys, "market")
    verbose = run(capsys, "market", "-v")
    assert "PASS" in verbose[1] and "PASS" not in plain[1]
    as_json = run(capsys, "market", "--coverage=json")
    assert json.loads(as_json[1])[0]["pack"] == "market" and "1 passed" in as_json[2]
    assert run(capsys, "market", "--coverage=json") == as_json  # stdout and stderr both come back
    assert len(stored(tmp_path)) == 3


def test_the_key_covers_boardrules_the_grammar_the_libraries_and_the_place(
        pack: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package, grammar = tmp_path / "package", tmp_path / "grammar"
    package.mkdir()
    grammar.mkdir()
    (package / "engine.py").write_text("x = 1\n")
    (grammar / "rules.lark").write_text("start: x\n")
    monkeypatch.setattr(cache_files, "_PACKAGE", package)  # boardrules' own files, by its fingerprint
    monkeypatch.setattr(cache_files, "code_fingerprint", cache_files.code_fingerprint.__wrapped__)

    def key() -> str | None:
        return check_cache.key({"command": "test"}, [pack], [], [grammar])

    first = key()
    assert first is not None and key() == first
    keys = {first}
    (package / "engine.py").write_text("x = 2\n")
    keys.add(key())
    (grammar / "rules.lark").write_text("start: y\n")
    keys.add(key())
    with monkeypatch.context() as patch:
        patch.setattr(check_cache, "_libraries", lambda: ["lark-9.9.dist-info"])
        keys.add(key())
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # the output shows paths relative to here
    keys.add(key())
    assert len(keys) == 5
    assert any(name.startswith("lark-") for name in check_cache._libraries())


def test_a_corrupt_entry_is_ignored_and_replaced(pack: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "market")
    (entry,) = stored(tmp_path)
    for garbage in ("{not json", '{"output": 3, "status": 0}', '["a list"]', '{"output": "x", "status": "0"}'):
        entry.write_text(garbage)
        assert run(capsys, "market") == first
        assert json.loads(entry.read_text())["output"] == first[1]


def test_an_entry_others_could_write_is_never_read(pack: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "market")
    (entry,) = stored(tmp_path)
    entry.write_text(json.dumps({"output": "planted\n", "status": 0}))
    os.chmod(entry, 0o666)
    assert run(capsys, "market") == first


def test_an_unusable_cache_directory_only_costs_the_cache(pack: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    first = run(capsys, "market")
    assert first[0] == 0 and run(capsys, "market") == first


def test_an_internal_error_is_never_stored(pack: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(cli, "_test", lambda args, paths, printed: 3)
    assert run(capsys, "market")[0] == 3
    assert stored(tmp_path) == []


def test_a_scenario_given_alone_is_run_afresh_when_a_module_of_its_pack_changes(
        pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = str(pack / "scenarios" / "buy_apple.yaml")
    first = run(capsys, scenario)
    assert first[0] == 0 and first[1].endswith("1 passed, 0 failed\n")
    assert run(capsys, scenario) == first and len(stored(tmp_path)) == 1
    module = pack / "market.yaml"
    module.write_text(module.read_text().replace("initial: 3", "initial: 4"))
    changed = run(capsys, scenario)
    assert changed[0] == 1 and changed[1].endswith("0 passed, 1 failed\n")
    (pack / "extra.yaml").write_text("module: extra\ntitle: Extra\n")  # a new module of the pack is read too
    run(capsys, scenario)
    assert len(stored(tmp_path)) == 3


def test_commands_answered_from_the_file_caches_see_a_changed_module(
        pack: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """explain (like simulate and play) keeps no result, but reads modules through the YAML, validation, parse
    and code caches, which are keyed by the bytes they were made from."""
    cli.main(["explain", "market"])
    first = capsys.readouterr().out
    module = pack / "market.yaml"
    module.write_text(module.read_text().replace('cost: "2 coins"', 'cost: "1 coins"'))
    cli.main(["explain", "market"])
    again = capsys.readouterr().out
    assert "2 coins" in first and "1 coin" in again and "2 coins" not in again


def test_a_result_is_stored_only_when_its_key_covers_every_file_the_run_read(
        pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    real = check_cache.key

    def narrow(*args: object, **kwargs: object) -> check_cache.Key | None:
        digest = real(*args, **kwargs)  # type: ignore[arg-type]
        if digest is not None:
            digest.files = frozenset(f for f in digest.files if f.name != "market.yaml")
        return digest

    monkeypatch.setattr(check_cache, "key", narrow)
    assert run(capsys, "market")[0] == 0
    assert stored(tmp_path) == []
    monkeypatch.setattr(check_cache, "key", real)
    assert run(capsys, "market")[0] == 0
    assert len(stored(tmp_path)) == 1
