"""Where a designer's packs are when `check` and `test` are given no path, or given the files a commit changed
(pre-commit passes those).

With no path, inside a git repository other than boardrules' own checkout, the packs are that repository's:
every directory holding a module file (a YAML file with a top-level `module:` key), hidden directories and
virtual environments left out. Outside one, a working directory that is itself a pack is checked; failing both,
the packs shipped with boardrules.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..resources import rules_dir

SCENARIO_DIR = "scenarios"
_SKIP = {"node_modules", "venv", "env", "site-packages", "__pycache__", "build", "dist"}
_MODULE_KEY = re.compile(rb"^module:[ \t]*\S", re.MULTILINE)


def is_module_file(path: Path) -> bool:
    if path.suffix != ".yaml" or SCENARIO_DIR in path.parts[:-1]:
        return False
    try:
        with path.open("rb") as f:
            return bool(_MODULE_KEY.search(f.read(256 * 1024)))
    except OSError:
        return False


def is_pack(directory: Path) -> bool:
    return directory.is_dir() and any(is_module_file(p) for p in directory.glob("*.yaml"))


def packs_under(root: Path) -> list[Path]:
    """The pack directories below `root` (itself included), sorted."""
    found = []
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP and d != SCENARIO_DIR)
        if any(f.endswith(".yaml") and is_module_file(Path(here) / f) for f in files):
            found.append(Path(here))
    return sorted(found)


def repository_root(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def default_paths(cwd: Path | None = None) -> list[Path]:
    """What `check` and `test` read when given no path."""
    cwd = (cwd or Path.cwd()).resolve()
    root = repository_root(cwd)
    own_checkout = root is not None and (root / "grammar" / "rules.lark").is_file()  # its packs include broken ones
    if root is not None and not own_checkout:
        packs = packs_under(root)
        if packs:
            return packs
    if is_pack(cwd):
        return [cwd]
    return [rules_dir()]


def packs_of(files: list[Path]) -> list[Path]:
    """The packs that hold these files (a module, a scenario, any file in a pack's folders); files in no pack
    (a README at the top, the pre-commit configuration) are left out."""
    out: list[Path] = []
    for file in files:
        for directory in Path(file).resolve().parents:
            if directory.name != SCENARIO_DIR and is_pack(directory):
                if directory not in out:
                    out.append(directory)
                break
    return sorted(out)


__all__ = ["default_paths", "is_module_file", "is_pack", "packs_of", "packs_under", "repository_root"]
