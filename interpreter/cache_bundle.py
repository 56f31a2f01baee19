"""A table of small entries kept on disk as one marshal file in a per-user cache (cache_files.py), for the next
process: loaded whole at the first lookup, written back whole at exit when the process added to it.

The file is named by a hash of this Python (version and bytecode magic: marshal's format and code objects
depend on them) and this boardrules (cache_files.code_fingerprint), so another version never reads it. Keys
are the full inputs (texts), not hashes of them. A file that does not load, or holds one entry that its
`valid` test refuses, is ignored whole.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import marshal
import sys
from collections.abc import Callable

from . import cache_files

MAX_ENTRIES = 65_536  # a table past this starts again from what the writing process added
KEEP = 8  # files kept per cache: each version of boardrules (each edit, while developing it) writes its own


def python_id() -> bytes:
    """This Python: data from another version or bytecode format is never loaded."""
    return sys.version.encode() + b"\0" + importlib.util.MAGIC_NUMBER


class Bundle:
    def __init__(self, cache: str, valid: Callable[[str, object], bool]) -> None:
        self.cache = cache
        self.valid = valid
        self.entries: dict[str, object] = {}
        self.fresh: dict[str, object] = {}  # added by this process, not yet on disk
        self.loaded = False
        self.on = False  # whether caching was on when the table was loaded

    def get(self, key: str) -> object | None:
        if not self.loaded:
            self.loaded = True
            name = self.file_name()
            self.on = name is not None
            if name is not None:
                self.entries = self.read(name)
        return self.entries.get(key)

    def put(self, key: str, value: object) -> None:
        """Add an entry, to be written at exit; nothing at all when caching is off."""
        if not self.fresh:
            if self.file_name() is None:
                return
            atexit.register(self.save)
        if len(self.fresh) < MAX_ENTRIES:
            self.fresh[key] = value
        if len(self.entries) >= MAX_ENTRIES:
            self.entries.clear()
        self.entries[key] = value

    def storing(self) -> bool:
        """Whether `put` keeps anything (caching is on): a caller may then skip making what it would put. Asked
        per entry, so it is the answer of the table's loading when it is loaded."""
        return self.on if self.loaded else cache_files.cache_dir(self.cache) is not None

    def file_name(self) -> str | None:
        if cache_files.cache_dir(self.cache) is None:
            return None
        h = hashlib.sha256(python_id() + b"\0" + cache_files.code_fingerprint().encode())
        return f"{h.hexdigest()}.marshal"

    def read(self, name: str) -> dict[str, object]:
        raw = cache_files.read(self.cache, name)
        if raw is None:
            return {}
        try:
            data = marshal.loads(raw)
        except (ValueError, EOFError, TypeError):
            return {}
        if not isinstance(data, dict) or not all(type(k) is str and self.valid(k, v) for k, v in data.items()):
            return {}
        return data

    def save(self) -> None:
        """Add what this process added to the file on disk (run at exit)."""
        name = self.file_name()
        if name is None or not self.fresh:
            return
        table = self.read(name)  # another process may have added to it meanwhile
        if len(table) + len(self.fresh) > MAX_ENTRIES:
            table = {}
        table.update(self.fresh)
        self.fresh.clear()
        try:
            data = marshal.dumps(table)
        except ValueError:
            return
        cache_files.write(self.cache, name, data, keep=KEEP)
