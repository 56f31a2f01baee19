"""The per-user cache of `check` results: a repeated run is answered from it, a changed file never is."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RELAY = ROOT / "tests" / "packs" / "relay"


def check(pack: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "BOARDRULES_NO_CACHE"}
    env["XDG_CACHE_HOME"] = str(cache)
    return subprocess.run([sys.executable, "-m", "boardrules", "check", str(pack), *extra], env=env,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_a_repeated_check_is_answered_from_the_cache_and_a_change_is_not(tmp_path: Path) -> None:
    pack = tmp_path / "relay"
    shutil.copytree(RELAY, pack)
    cache = tmp_path / "cache"
    first = check(pack, cache)
    assert first.returncode == 0, first.stdout + first.stderr
    stored = list((cache / "boardrules" / "check").glob("*.json"))
    assert len(stored) == 1
    assert stat.S_IMODE((cache / "boardrules" / "check").stat().st_mode) == 0o700
    again = check(pack, cache)
    assert (again.stdout, again.returncode) == (first.stdout, first.returncode)
    # A changed byte in a module is a new key: the run is checked afresh, and the error shows.
    text = (pack / "relay.yaml").read_text()
    (pack / "relay.yaml").write_text(text.replace("initial: market_size", "initial: market_sise"))
    changed = check(pack, cache)
    assert changed.returncode == 1 and "market_sise" in changed.stdout
    assert len(list((cache / "boardrules" / "check").glob("*.json"))) == 2
    # Other arguments are another key too.
    as_json = check(pack, cache, "--format", "json")
    assert as_json.stdout.lstrip().startswith("[")


def test_a_result_others_could_write_is_never_read(tmp_path: Path) -> None:
    pack = tmp_path / "relay"
    shutil.copytree(RELAY, pack)
    cache = tmp_path / "cache"
    first = check(pack, cache)
    (stored,) = (cache / "boardrules" / "check").glob("*.json")
    stored.write_text('{"output": "planted\\n", "status": 0}')
    os.chmod(stored, 0o666)
    again = check(pack, cache)
    assert "planted" not in again.stdout and again.stdout == first.stdout


def test_nothing_is_cached_where_the_directory_is_not_safe(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    (cache / "boardrules" / "check").mkdir(parents=True)
    os.chmod(cache / "boardrules" / "check", 0o777)
    check(RELAY, cache)
    assert not list((cache / "boardrules" / "check").glob("*.json"))


def test_every_input_of_a_check_is_in_its_key(tmp_path: Path) -> None:
    """A module given alone, its pack's other files, an options file: a change to any is checked afresh."""
    pack = tmp_path / "relay"
    shutil.copytree(RELAY, pack)
    cache = tmp_path / "cache"
    options = tmp_path / "options.yaml"
    options.write_text("prize: 4\n")
    module = pack / "relay.yaml"
    first = check(module, cache, "--options", str(options))
    assert first.returncode == 0, first.stdout + first.stderr
    assert check(module, cache, "--options", str(options)).stdout == first.stdout
    options.write_text("prize: [1]\n")
    bad_option = check(module, cache, "--options", str(options))
    assert bad_option.returncode == 1 and bad_option.stdout != first.stdout
    options.write_text("prize: 4\n")
    (pack / "other.yaml").write_text("module: other\ntitle: Other\n")
    check(module, cache, "--options", str(options))
    module.write_text(module.read_text().replace("initial: market_size", "initial: market_sise"))
    changed = check(module, cache, "--options", str(options))
    assert changed.returncode == 1 and "market_sise" in changed.stdout
    assert len(list((cache / "boardrules" / "check").glob("*.json"))) == 4
