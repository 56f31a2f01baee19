"""Python code objects of rule expressions, by source text: each distinct source is compiled once per process,
and the code objects are kept on disk (marshal, like Python's own .pyc files) for the next process.

A code object depends only on its source text and the Python that compiled it, so the memo is keyed by the
source text itself, and the file on disk by the Python version and bytecode magic number and by this boardrules
(cache_files.code_fingerprint). The file is one bundle in the per-user cache `code` (cache_files.py: only the
user's own files are read), loaded at the first compile and written back at exit when a process compiled
something new. A bundle that does not load, or holds anything but source texts and code objects, is ignored.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import marshal
import sys
from types import CodeType

from .. import cache_files

CACHE = "code"
FILENAME = "<rule expression>"
MAX_ENTRIES = 65_536  # like the parser's cache; a memo or bundle past this starts again
KEEP = 8  # bundles kept: each version of boardrules (each edit, while developing it) writes its own

_memo: dict[str, CodeType] = {}
_fresh: dict[str, CodeType] = {}  # compiled by this process, not yet in the bundle on disk
_loaded = False


def compile_expression(source: str) -> CodeType:
    """`compile(source, "<rule expression>", "eval")`, remembered; raises as compile() does."""
    code = _memo.get(source)
    if code is None:
        if not _loaded:
            _load()
            code = _memo.get(source)
        if code is None:
            code = compile(source, FILENAME, "eval")
            if len(_memo) >= MAX_ENTRIES:
                _memo.clear()
            _memo[source] = code
            _remember(source, code)
    return code


def _remember(source: str, code: CodeType) -> None:
    """Note a new code object for the bundle on disk, when there is one."""
    if not _fresh:
        if _bundle_name() is None:
            return
        atexit.register(save)
    if len(_fresh) < MAX_ENTRIES:
        _fresh[source] = code


def _bundle_name() -> str | None:
    if cache_files.cache_dir(CACHE) is None:
        return None
    h = hashlib.sha256()
    h.update(_python() + b"\0")
    h.update(cache_files.code_fingerprint().encode())
    return f"{h.hexdigest()}.marshal"


def _python() -> bytes:
    """This Python: code objects from another version or bytecode format are never loaded."""
    return sys.version.encode() + b"\0" + importlib.util.MAGIC_NUMBER


def _read(name: str) -> dict[str, CodeType]:
    raw = cache_files.read(CACHE, name)
    if raw is None:
        return {}
    try:
        data = marshal.loads(raw)
    except (ValueError, EOFError, TypeError):
        return {}
    if not isinstance(data, dict) or not all(type(k) is str and type(v) is CodeType and v.co_filename == FILENAME
                                                for k, v in data.items()):
        return {}
    return data


def _load() -> None:
    global _loaded
    _loaded = True
    name = _bundle_name()
    if name is not None:
        for source, code in _read(name).items():
            _memo.setdefault(source, code)


def save() -> None:
    """Add what this process compiled to the bundle on disk (run at exit)."""
    name = _bundle_name()
    if name is None or not _fresh:
        return
    bundle = _read(name)  # another process may have added to it meanwhile
    if len(bundle) + len(_fresh) > MAX_ENTRIES:
        bundle = {}
    bundle.update(_fresh)
    _fresh.clear()
    try:
        data = marshal.dumps(bundle)
    except ValueError:
        return
    cache_files.write(CACHE, name, data, keep=KEEP)
