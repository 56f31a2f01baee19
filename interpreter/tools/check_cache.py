"""A per-user cache of `boardrules check` and `boardrules test` results, so an unchanged pack re-checks and
re-tests in milliseconds.

The key hashes everything a result depends on: the boardrules source, grammar and schemas (by cache_files'
fingerprint of them); every regular file under the given paths and the options files; the arguments; the working
directory (diagnostics show paths relative to it); and the Python and the installed libraries (yaml, lark and
jsonschema do part of the work). A changed byte anywhere gives another key, so a result is never served stale.
Results are JSON (never pickle) in the per-user cache directories `check` and `test` (see cache_files.py: only
the user's own files are read; `BOARDRULES_NO_CACHE=1` turns them off).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .. import cache_files

MAX_FILE = 1 << 20  # a bigger file is refused by the loader anyway: such a run is not cached
MAX_FILES = 5_000
KEEP = 512  # results kept per command; each changed input leaves one behind
_LIBRARIES = ("yaml", "lark", "jsonschema", "referencing", "jsonschema_specifications")


class Key(str):
    """A run's key, with the files it hashed: a result is stored only if the run read no other file."""

    # Absolute path strings (os.path.abspath): making ~200 Path objects was a third of the key's time.
    names: frozenset[str]

    @property
    def files(self) -> frozenset[Path]:
        return frozenset(map(Path, self.names))

    @files.setter
    def files(self, files: frozenset[Path]) -> None:
        self.names = frozenset(map(os.path.abspath, files))

    def covers(self, read: set[Path]) -> bool:
        return all(os.path.abspath(f) in self.names for f in read)


def key(argv: dict[str, Any], paths: list[Path], extra_files: list[Path], data_dirs: list[Path]) -> Key | None:
    """The hash of a run's inputs, or None when they cannot be read cheaply and safely (then nothing is cached).

    A file given alone brings in the files of its pack: the modules beside it, or beside the `scenarios/` folder
    it is in (a scenario runs on them), so a changed module is another key."""
    if cache_files.cache_dir("check") is None:
        return None  # caching is off: hashing every input would be for nothing
    h = hashlib.sha256()
    # boardrules itself by its fingerprint, which the other caches' names need too: its files are hashed once.
    h.update(json.dumps({"args": argv, "cwd": os.getcwd(), "python": sys.version, "libraries": _libraries(),
                         "boardrules": cache_files.code_fingerprint()}, sort_keys=True, default=str).encode())
    files: list[str | Path] = []
    for root in [*data_dirs, *paths]:
        found = _regular_files(root)
        if found is None:
            return None
        files += found
    for root in sorted({_pack_root(p) for p in paths if p.is_file()}):
        modules = _pack_files(root)
        if modules is None:
            return None
        files += modules
    for f in extra_files:
        if not f.is_file():
            return None
        files.append(f)
    if len(files) > MAX_FILES:
        return None
    for file in files:
        name = os.fsencode(file)  # a file name need not be UTF-8
        try:  # plain os calls rather than pathlib's: this runs for every input file
            info = os.stat(name)
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE:
                return None  # before opening: a FIFO would block
            with open(name, "rb") as handle:
                h.update(name + b"\0" + handle.read() + b"\0")
        except OSError:
            return None
    digest = Key(h.hexdigest())
    digest.names = frozenset(map(os.path.abspath, files))
    return digest


def _pack_root(file: Path) -> Path:
    """The pack a file belongs to, found as `discover` finds it: the folder above `scenarios/`, else its own."""
    parents = file.parent.parts
    if "scenarios" in parents:
        return Path(*parents[: len(parents) - parents[::-1].index("scenarios") - 1])
    return file.parent


def _pack_files(root: Path) -> list[Path] | None:
    """The module files of a pack (its top-level YAML files); None when there are too many to hash."""
    try:
        with os.scandir(root) as found:
            out = []
            for entry in found:
                if entry.name.endswith((".yaml", ".yml")):
                    out.append(Path(entry.path))
                    if len(out) > MAX_FILES:
                        return None
    except OSError:
        return None
    return sorted(out)


def _libraries() -> list[str]:
    """Where the libraries are and every distribution installed beside them, with its version: an upgrade (or
    another environment) is another key. Found without importing them."""
    found, dirs = [], set()
    for name in _LIBRARIES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        origin = spec.origin if spec is not None else None
        found.append(f"{name}={origin}")
        if origin:
            dirs.add(Path(origin).parent.parent)
    for directory in sorted(dirs):
        try:
            found += sorted(n for n in os.listdir(directory) if n.endswith((".dist-info", ".egg-info")))
        except OSError:
            found.append(f"{directory}: unreadable")
    return found


def _regular_files(root: Path) -> list[str] | None:
    if root.is_file():
        return [os.fspath(root)]
    if not root.is_dir():
        return [] if not root.exists() else None
    out = []
    for here, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(names):
            if name.endswith((".yaml", ".yml", ".py", ".lark", ".json")):
                out.append(os.path.join(here, name))
                if len(out) > MAX_FILES:
                    return None
    return out


@contextmanager
def recording() -> Iterator[set[Path]]:
    """The files the rule loader reads inside the block."""
    from ..language import loader

    read: set[Path] = set()
    outer, loader.reads = loader.reads, read
    try:
        yield read
    finally:
        loader.reads = outer
        if outer is not None:
            outer |= read


def load(digest: str, cache: str = "check") -> tuple[str, int, str] | None:
    """A stored result: what was printed to stdout, the exit status, and what was printed to stderr."""
    raw = cache_files.read(cache, f"{digest}.json")
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
        output, status, errors = data["output"], data["status"], data.get("errors", "")
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if not (isinstance(output, str) and type(status) is int and isinstance(errors, str)):
        return None
    return output, status, errors


def store(digest: str, output: str, status: int, cache: str = "check", errors: str = "") -> None:
    """Keep a result; the caller checks first that its key covers every file the run read (`Key.covers`)."""
    data = json.dumps({"output": output, "status": status, "errors": errors}).encode("utf-8")
    cache_files.write(cache, f"{digest}.json", data, keep=KEEP)
