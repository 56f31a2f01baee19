"""Project rules checked as tests: no game in the engine, ruff clean, and a wheel that works on its own."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAME_WORDS = re.compile(
    r"villager|bread|\bships?\b|cardinal|wedding|clergy|r[ée]is|\bwigs?\b|\bmass\b|smuggler|marquis|treasury|"
    r"influence|\bpink\b|noble|\bgrain\b|\bbeer\b|brewery|stables|ceremony|church|lisboa|village",
    re.IGNORECASE,
)


def test_no_game_words_in_engine() -> None:
    hits = []
    for folder in ("interpreter", "grammar"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".py", ".lark", ".json"):
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if GAME_WORDS.search(line):
                    hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not hits, "game words belong in rules/:\n" + "\n".join(hits)


def test_ruff_clean() -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed")
    proc = subprocess.run([ruff, "check", "interpreter", "tests", "benchmarks"], cwd=ROOT, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_wheel_carries_grammar_schemas_and_packs_and_runs_outside_the_repo(tmp_path: Path) -> None:
    # Built from a copy: setuptools writes build/ into the tree it builds, and the checkout must stay as cloned.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "tests", "benchmarks", "*.egg-info", "__pycache__", ".*_cache",
        ".hypothesis", ".boardrules_cache"))
    dist = tmp_path / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)],
        capture_output=True, text=True, timeout=600,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    (wheel,) = dist.glob("boardrules-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"boardrules/grammar/rules.lark", "boardrules/grammar/module.schema.json",
            "boardrules/grammar/scenario.schema.json", "boardrules/tools/cli.py", "boardrules/game.py",
            "boardrules/engine/machine.py", "boardrules/analysis/uses.py", "boardrules/diagnostics_codes.py"} <= names
    assert any(n.startswith("boardrules/rules/village/scenarios/") for n in names)
    assert any(n.startswith("boardrules/rules/lisboa/") and n.endswith(".yaml") for n in names)

    # Install into a bare target directory and run from elsewhere: nothing may come from the checkout.
    target = tmp_path / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        capture_output=True, text=True, timeout=600,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target)}
    code = "import boardrules, sys; print(boardrules.__file__)"
    where = subprocess.run([sys.executable, "-c", code], cwd=elsewhere, env=env, capture_output=True, text=True)
    assert where.stdout.startswith(str(target)), where.stdout + where.stderr
    check = subprocess.run([sys.executable, "-m", "boardrules", "check"], cwd=elsewhere, env=env,
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stdout + check.stderr
    assert " 0 error(s)" in check.stdout
    test = subprocess.run([sys.executable, "-m", "boardrules", "test"], cwd=elsewhere, env=env,
                          capture_output=True, text=True, timeout=300)
    assert test.returncode == 0, test.stdout[-3000:] + test.stderr
    assert re.search(r"^\d+ passed, 0 failed$", test.stdout, re.M)


def test_shipped_yaml_points_editors_at_the_right_schema() -> None:
    files = [*(ROOT / "rules").rglob("*.yaml"), *(ROOT / "examples").rglob("*.yaml")]
    assert len(files) > 100
    for path in files:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        match = re.fullmatch(r"# yaml-language-server: \$schema=(\S+)", first)
        assert match, f"{path.relative_to(ROOT)} does not start with the yaml-language-server line"
        kind = "scenario" if "scenarios" in path.parts else "module"
        target = (path.parent / match.group(1)).resolve()
        assert target == (ROOT / "grammar" / f"{kind}.schema.json").resolve(), path


def test_every_subpackage_is_in_the_wheel() -> None:
    """An editable install finds modules in the checkout, so the wheel test alone cannot see a missing package."""
    import tomllib

    declared = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {"boardrules" + ("." + ".".join(p.parent.relative_to(ROOT / "interpreter").parts) if p.parent !=
                             ROOT / "interpreter" else "") for p in (ROOT / "interpreter").rglob("__init__.py")}
    assert found <= declared, sorted(found - declared)
