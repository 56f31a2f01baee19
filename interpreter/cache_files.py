"""The per-user cache directory, shared by every cache of boardrules (check results, validated files, compiled
expressions): where it lives, how its files are read and written, and what "this boardrules" means in a key.

It is `$XDG_CACHE_HOME/boardrules/<name>` (default `~/.cache/boardrules/<name>`), created only the user can
write. A file in it is read only when it is a regular file the user owns and nobody else can write, so another
user cannot plant an entry; a file that cannot be read, or whose content does not check out, is a miss.
Writes go to a temporary file renamed into place, so a reader never sees half a file, and any failure to write
(a read-only or full disk) just leaves the entry out. `BOARDRULES_NO_CACHE=1` turns every cache off.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from functools import cache
from pathlib import Path

from .resources import grammar_dir

_PACKAGE = Path(__file__).resolve().parent
_SOURCE_SUFFIXES = (".py", ".lark", ".json")


def cache_dir(name: str) -> Path | None:
    """The directory of one cache, or None when caching is off."""
    if os.environ.get("BOARDRULES_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative path is invalid and ignored
        base = str(Path.home() / ".cache")
    return Path(base) / "boardrules" / name


def read(name: str, entry: str) -> bytes | None:
    """The bytes of one entry, or None (caching off, no such entry, or an entry that is not safe to trust)."""
    directory = cache_dir(name)
    if directory is None or not is_safe(directory):
        return None
    path = directory / entry
    try:
        if not is_safe(path):
            return None
        return path.read_bytes()
    except OSError:
        return None


def write(name: str, entry: str, data: bytes, keep: int | None = None) -> None:
    """Store one entry atomically; silently nothing when caching is off or the directory cannot be used.
    With `keep`, the cache then holds at most that many entries: the least recently written go."""
    directory = cache_dir(name)
    if directory is None:
        return
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not is_safe(directory):
            return
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, directory / entry)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        if keep is not None:
            _prune(directory, keep)
    except OSError:
        return


def _prune(directory: Path, keep: int) -> None:
    """Every key of a changed input leaves an entry behind: drop the oldest beyond `keep`."""
    entries = []
    with os.scandir(directory) as found:
        for item in found:
            if item.is_file(follow_symlinks=False):
                entries.append((item.stat(follow_symlinks=False).st_mtime_ns, item.path))
    if len(entries) <= keep:
        return
    entries.sort()
    for _, path in entries[: len(entries) - keep]:
        try:
            os.unlink(path)
        except OSError:
            continue


def is_safe(path: Path) -> bool:
    """Owned by this user and writable by nobody else: another user cannot plant an entry."""
    try:
        info = path.lstat()
    except OSError:
        return False
    if stat.S_ISLNK(info.st_mode):
        return False
    return info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


@cache
def code_fingerprint() -> str:
    """A hash of this boardrules: every source file of the package, the grammar and the schemas. Stands for
    "the boardrules version" in cache keys, and changes with any edit, not only with a release."""
    h = hashlib.sha256()
    for root in (_PACKAGE, grammar_dir()):
        for here, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
            for name in sorted(names):
                if name.endswith(_SOURCE_SUFFIXES):
                    path = Path(here) / name
                    try:
                        data = path.read_bytes()
                    except OSError:
                        data = b"\0unreadable"
                    h.update(f"{path.relative_to(root)}\0{len(data)}\0".encode())
                    h.update(data)
    return h.hexdigest()
