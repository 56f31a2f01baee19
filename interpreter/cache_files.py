"""The per-user cache directory, shared by every cache of boardrules (check results, validated files, compiled
expressions): where it lives, how its files are read and written, and what "this boardrules" means in a key.

It is `$XDG_CACHE_HOME/boardrules/<name>` (default `~/.cache/boardrules/<name>`). Every access walks the path
one directory at a time through file descriptors (`openat` with `O_NOFOLLOW | O_DIRECTORY`) and checks each
descriptor it holds (`fstat`), so what was checked is what is used: another user who can rename directories
somewhere on the way cannot swap one in between a check and an open. The walk refuses the cache when
- a directory above the cache (`/` down to `$XDG_CACHE_HOME`) is owned by anyone but root or the user, or is
  writable by others without the sticky bit (then others could rename what is in it);
- `boardrules/`, `<name>/` or an entry is a symbolic link, is not the user's own, or is writable by its group or
  by others; an entry must also be a regular file.
Missing directories are created 0700 whatever the umask (created, then `fchmod`). A file that cannot be read, or
whose content does not check out, is a miss. Writes go to a temporary file renamed into place inside the held
directory, so a reader never sees half a file, and any failure to write (a read-only or full disk) just leaves
the entry out. `BOARDRULES_NO_CACHE=1` turns every cache off.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
from contextlib import suppress
from functools import cache
from pathlib import Path

from .resources import grammar_dir

_PACKAGE = Path(__file__).resolve().parent
_SOURCE_SUFFIXES = (".py", ".lark", ".json")
# Without descriptor-relative opens (Windows) the walk cannot be made safe: there is no cache there.
_SUPPORTED = os.open in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY")
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


def _between_checks() -> None:
    """Called after the directory is checked and before the entry is opened: tests swap directories here to
    show that a rename at that moment cannot change what is read."""


def cache_dir(name: str) -> Path | None:
    """The directory of one cache, or None when caching is off."""
    if os.environ.get("BOARDRULES_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative path is invalid and ignored
        try:
            base = str(Path.home() / ".cache")
        except (RuntimeError, KeyError):  # no home directory to be found: no cache
            return None
    return Path(base) / "boardrules" / name


def read(name: str, entry: str) -> bytes | None:
    """The bytes of one entry, or None (caching off, no such entry, or an entry that is not safe to trust)."""
    directory = _open_cache(name, create=False) if _plain_name(entry) else None
    if directory is None:
        return None
    try:
        _between_checks()
        with os.fdopen(os.open(entry, _FILE_FLAGS, dir_fd=directory), "rb") as handle:
            return handle.read() if _own_file(os.fstat(handle.fileno())) else None
    except OSError:
        return None
    finally:
        os.close(directory)


def write(name: str, entry: str, data: bytes, keep: int | None = None) -> None:
    """Store one entry atomically; silently nothing when caching is off or the directory cannot be used.
    With `keep`, the cache then holds at most that many entries: the least recently written go."""
    directory = _open_cache(name, create=True) if _plain_name(entry) else None
    if directory is None:
        return
    tmp = f".{secrets.token_hex(8)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                     dir_fd=directory)
        try:
            os.fchmod(fd, 0o600)  # a umask that removes the owner's bits would leave it unreadable
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, entry, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException:
            with suppress(OSError):
                os.unlink(tmp, dir_fd=directory)
            raise
        if keep is not None:
            _prune(directory, keep)
    except OSError:
        return
    finally:
        os.close(directory)


def _plain_name(entry: str) -> bool:
    return bool(entry) and "/" not in entry and "\0" not in entry and entry not in (".", "..")


def _open_cache(name: str, create: bool) -> int | None:
    """A descriptor of the cache directory `name`, reached and checked level by level (the caller closes it);
    None when caching is off, or the directory is missing (and not to be created), or it is not safe."""
    path = cache_dir(name)
    if path is None or not _SUPPORTED or not _plain_name(name):
        return None
    base = Path(os.path.realpath(path.parent.parent))
    levels = [(part, _trusted_above) for part in base.parts[1:]]
    levels += [("boardrules", _own_directory), (name, _own_directory)]
    try:
        fd = os.open("/", _DIR_FLAGS)
    except OSError:
        return None
    check = _trusted_above
    try:
        for part, next_check in levels:
            if not check(os.fstat(fd)):
                raise PermissionError(part)
            child = _step(fd, part, create)
            os.close(fd)
            fd, check = child, next_check
        if not check(os.fstat(fd)):
            raise PermissionError(name)
    except OSError:
        os.close(fd)
        return None
    return fd


def _step(parent: int, part: str, create: bool) -> int:
    """Open one level below `parent`, never through a symbolic link; when asked, a missing level is created
    0700 whatever the umask (one that removes the owner's bits would leave it unusable), so its mode is set
    again once it is made."""
    try:
        return os.open(part, _DIR_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise
    try:
        os.mkdir(part, 0o700, dir_fd=parent)
    except FileExistsError:  # made by a concurrent process meanwhile: checked like any other
        return os.open(part, _DIR_FLAGS, dir_fd=parent)
    fd = os.open(part, _DIR_FLAGS, dir_fd=parent)
    try:
        if os.fstat(fd).st_uid == os.geteuid():
            os.fchmod(fd, 0o700)
    except OSError:
        os.close(fd)
        raise
    return fd


def _trusted_above(info: os.stat_result) -> bool:
    """A directory above the cache: owned by root or the user, and others cannot rename what is in it."""
    if info.st_uid not in (0, os.geteuid()):
        return False
    return not info.st_mode & _OTHERS_WRITE or bool(info.st_mode & stat.S_ISVTX)


def _own_directory(info: os.stat_result) -> bool:
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & _OTHERS_WRITE


def _own_file(info: os.stat_result) -> bool:
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & _OTHERS_WRITE


def _prune(directory: int, keep: int) -> None:
    """Every key of a changed input leaves an entry behind: drop the oldest beyond `keep`."""
    entries = []
    with os.scandir(directory) as found:
        for item in found:
            if item.is_file(follow_symlinks=False):
                entries.append((item.stat(follow_symlinks=False).st_mtime_ns, item.name))
    if len(entries) <= keep:
        return
    entries.sort()
    for _, name in entries[: len(entries) - keep]:
        with suppress(OSError):
            os.unlink(name, dir_fd=directory)


@cache
def code_fingerprint() -> str:
    """A hash of this boardrules: every source file of the package, the grammar and the schemas. Stands for
    "the boardrules version" in cache keys, and changes with any edit, not only with a release."""
    h = hashlib.sha256()
    for root in (str(_PACKAGE), str(grammar_dir())):
        for here, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
            # Plain strings and os calls, not pathlib: every process of a cached command hashes ~160 files here.
            inside = os.path.relpath(here, root)
            prefix = "" if inside == "." else inside + os.sep
            for name in sorted(names):
                if name.endswith(_SOURCE_SUFFIXES):
                    try:
                        with open(os.path.join(here, name), "rb") as source:
                            data = source.read()
                    except OSError:
                        data = b"\0unreadable"
                    h.update(f"{prefix}{name}\0{len(data)}\0".encode())
                    h.update(data)
    return h.hexdigest()
