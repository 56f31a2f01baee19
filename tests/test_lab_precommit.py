"""The pre-commit hooks of .pre-commit-hooks.yaml, run by `pre-commit try-repo` on a scratch repository.

Slow (about 100 s): pre-commit builds a virtual environment with boardrules installed from this checkout.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]


def test_the_hooks_file_declares_check_and_test_on_yaml() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["boardrules-check"]["entry"] == "boardrules check --changed"
    assert hooks["boardrules-test"]["entry"] == "boardrules test --changed"
    assert all(h["language"] == "python" and h["files"] == r"\.yaml$" for h in hooks.values())


@pytest.mark.skipif(importlib.util.find_spec("pre_commit") is None,
                    reason="pre-commit is not installed (pip install pre-commit)")
@pytest.mark.slow
def test_try_repo_checks_and_tests_the_packs_of_a_scratch_repository(tmp_path: Path) -> None:
    repo = tmp_path / "designs"
    shutil.copytree(ROOT / "tests" / "packs" / "relay", repo / "relay")
    shutil.copytree(ROOT / "tests" / "packs" / "relay", repo / "broken")
    module = repo / "broken" / "relay.yaml"
    module.write_text(module.read_text().replace("module: relay", "module: broken").replace(
        "me.points += n\n", "me.pionts += n\n").replace("modules: [relay]", "modules: [broken]"))
    for scenario in (repo / "broken" / "scenarios").glob("*.yaml"):
        scenario.write_text(scenario.read_text().replace("modules: [relay]", "modules: [broken]"))
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "packs"]):
        subprocess.run(cmd, cwd=repo, check=True, env=env)
    proc = subprocess.run([*PRE_COMMIT, "try-repo", str(ROOT), "--all-files", "--color", "never"], cwd=repo,
                          capture_output=True, text=True, env=env, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "boardrules check" in out and "boardrules test" in out
    assert "Failed" in out
    assert "broken/relay.yaml:" in out and "error E401" in out and "'pionts'" in out
    assert "FAIL " in out and "5 passed, 5 failed" in out  # the broken copy's five scenarios fail
    sound = out.replace("broken/relay.yaml", "")
    assert "relay/relay.yaml:17:3: warning W601" in sound and "relay/relay.yaml" not in sound.replace(
        "relay/relay.yaml:17:3: warning W601", "")  # the sound pack has only its documented unknown to say
