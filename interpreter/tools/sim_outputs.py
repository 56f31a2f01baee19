"""The files `simulate` writes (the `--json` report, the logs of failed games in `--failures`): checked before
the run, so a path that cannot be written is refused before any game is played (`E116`), and written whole or
not at all (a temporary file renamed into place), so a full disk never leaves a 0-byte log behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from ..diagnostics import BoardrulesError

UNWRITABLE = "E116"
_HINT = "choose a path in a directory you can write to"


def reason(exc: OSError) -> str:
    """An OSError in words (\"No space left on device\")."""
    return exc.strerror or type(exc).__name__


def check_file(path: str, option: str) -> None:
    """Refuse (E116) a file path that cannot be written: its directory missing, not a directory, or not writable,
    or the path itself a directory. Nothing is left behind."""
    target = Path(path)
    if target.is_dir():
        raise BoardrulesError(UNWRITABLE, f"{option} {path}: cannot write the report there: it is a directory",
                              None, _HINT)
    _probe(target.parent if str(target.parent) else Path("."), f"{option} {path}")


def check_dir(path: str, option: str) -> None:
    """Refuse (E116) a directory that could not be created or written, without creating it."""
    folder = Path(path).absolute()
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    hint = f"choose another {option} DIR, or --no-save to keep no logs of failed games"
    if not existing.is_dir():
        raise BoardrulesError(UNWRITABLE, f"{option} {path}: cannot create the directory: {existing} is not a "
                              "directory", None, hint)
    _probe(existing, f"{option} {path}", hint)


def _probe(folder: Path, what: str, hint: str = _HINT) -> None:
    # Permission bits say little (root ignores them, a read-only mount ignores them): try to create a file.
    try:
        fd, name = tempfile.mkstemp(prefix=".boardrules-probe-", dir=folder)
    except OSError as exc:
        raise BoardrulesError(UNWRITABLE, f"{what}: cannot write in {folder}: {reason(exc)}", None,
                              hint) from None
    os.close(fd)
    os.unlink(name)


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` whole, or leave `path` as it was (raises OSError)."""
    data = text.encode("utf-8", "surrogateescape")
    if path.exists() and not path.is_file():  # a device or a pipe (`--json /dev/stdout`) cannot be renamed over
        with path.open("wb") as handle:
            handle.write(data)
        return
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            _write(fd, data)
        finally:
            os.close(fd)
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
