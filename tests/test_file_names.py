"""File names that are not UTF-8 (any bytes but `/` and NUL are a valid name on Linux): every command takes them,
shows them escaped, and never fails with E900."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

RELAY = Path(__file__).parent / "packs" / "relay"


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    base = os.fsencode(tmp_path_factory.mktemp("names"))
    root = base + b"/pack\xff"
    shutil.copytree(os.fsencode(RELAY), root)
    os.rename(root + b"/relay.yaml", root + b"/\xferelay.yaml")
    first = sorted(os.listdir(root + b"/scenarios"))[0]
    os.rename(root + b"/scenarios/" + first, root + b"/scenarios/\xfd" + first)
    return root


def _run(*argv: bytes | str, stdin: str = "") -> tuple[int, str]:
    env = {**os.environ, "BOARDRULES_NO_CACHE": ""}  # the caches hash file names too
    proc = subprocess.run([sys.executable, "-m", "boardrules", *argv], capture_output=True, env=env, timeout=300,
                          input=stdin.encode())
    return proc.returncode, (proc.stdout + proc.stderr).decode("utf-8", "backslashreplace")


@pytest.mark.parametrize("argv", [
    ["check"], ["check"], ["check", "--format", "json"], ["check", "--format", "sarif"], ["test"], ["test"],
    ["test", "--coverage=json"], ["explain"],
])
def test_every_command_takes_a_pack_whose_names_are_not_utf8(pack: bytes, argv: list[str]) -> None:
    code, out = _run(argv[0], pack, *argv[1:])  # run twice: once filling the caches, once answered from them
    assert code in (0, 1), out
    assert "E900" not in out and "Traceback" not in out, out


def test_simulate_writes_into_a_directory_whose_name_is_not_utf8(pack: bytes) -> None:
    out_dir = pack + b"/out\xfc"
    os.makedirs(out_dir, exist_ok=True)
    code, out = _run("simulate", pack, "--games", "2", "--set", "prize=2", "--json", out_dir + b"/r\xfb.json",
                     "--failures", out_dir)
    assert code == 0, out
    assert os.path.getsize(out_dir + b"/r\xfb.json") > 0


def test_a_scenario_file_with_a_non_utf8_name_runs(pack: bytes) -> None:
    name = next(n for n in os.listdir(pack + b"/scenarios") if n.startswith(b"\xfd"))
    code, out = _run("test", pack + b"/scenarios/" + name)
    assert code == 0 and "1 passed, 0 failed" in out, out
