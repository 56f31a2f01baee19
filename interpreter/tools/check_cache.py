"""A per-user cache of `boardrules check` results, so an unchanged pack re-checks in milliseconds.

The key hashes everything a result depends on: the boardrules source, grammar and schemas; every regular file
under the checked paths and the options files; the arguments; and the working directory (diagnostics show paths
relative to it). A changed byte anywhere gives another key, so a result is never served stale. Results are JSON
(never pickle) in a directory only the user can write; a file that is not the user's own, or that others could
write, is never read. `BOARDRULES_NO_CACHE=1` turns the cache off.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

MAX_FILE = 1 << 20  # a bigger file is refused by the loader anyway: such a run is not cached
MAX_FILES = 5_000
_PACKAGE = Path(__file__).resolve().parent.parent


def cache_dir() -> Path | None:
    if os.environ.get("BOARDRULES_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "boardrules" / "check"


def key(argv: dict[str, Any], paths: list[Path], extra_files: list[Path], data_dirs: list[Path]) -> str | None:
    """The hash of a run's inputs, or None when they cannot be read cheaply and safely (then nothing is cached)."""
    h = hashlib.sha256()
    h.update(json.dumps({"args": argv, "cwd": os.getcwd()}, sort_keys=True, default=str).encode())
    files: list[Path] = []
    for root in [_PACKAGE, *data_dirs, *paths]:
        found = _regular_files(root)
        if found is None:
            return None
        files += found
    for f in extra_files:
        if not f.is_file():
            return None
        files.append(f)
    if len(files) > MAX_FILES:
        return None
    for f in files:
        try:
            info = f.stat()
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE:
                return None
            h.update(str(f).encode() + b"\0" + f.read_bytes() + b"\0")
        except OSError:
            return None
    return h.hexdigest()


def _regular_files(root: Path) -> list[Path] | None:
    if root.is_file():
        return [root]
    if not root.is_dir():
        return [] if not root.exists() else None
    out = []
    for here, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(names):
            if name.endswith((".yaml", ".yml", ".py", ".lark", ".json")):
                out.append(Path(here) / name)
                if len(out) > MAX_FILES:
                    return None
    return out


def load(digest: str) -> tuple[str, int] | None:
    directory = cache_dir()
    if directory is None or not _safe(directory):
        return None
    path = directory / f"{digest}.json"
    try:
        if not _safe(path):
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        return str(data["output"]), int(data["status"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(digest: str, output: str, status: int) -> None:
    directory = cache_dir()
    if directory is None:
        return
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not _safe(directory):
            return
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"output": output, "status": status}, out)
        os.replace(tmp, directory / f"{digest}.json")
    except OSError:
        return


def _safe(path: Path) -> bool:
    """Owned by this user and writable by nobody else: another user cannot plant a result."""
    try:
        info = path.lstat()
    except OSError:
        return False
    if stat.S_ISLNK(info.st_mode):
        return False
    return info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
