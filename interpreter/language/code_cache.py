"""Python code objects of generated rule code (expressions, rule bodies): each distinct source is compiled once
per process, and the code objects are kept on disk (marshal, like Python's own .pyc files) for the next process.

A code object depends only on its source text, file name and mode, and the Python that compiled it, so the memo is
keyed by those themselves; the table on disk (cache_bundle.py, in the per-user cache `code`) is kept per Python and
per boardrules, and is ignored whole if it holds anything but code objects compiled from the file name in their
key.
"""

from __future__ import annotations

from types import CodeType

from ..cache_bundle import MAX_ENTRIES, Bundle

CACHE = "code"
FILENAME = "<rule expression>"


def _is_code(key: str, value: object) -> bool:
    mode, _, rest = key.partition("\0")
    filename, _, _ = rest.partition("\0")
    return type(value) is CodeType and mode in ("eval", "exec") and value.co_filename == filename


_memo: dict[str, CodeType] = {}
_disk = Bundle(CACHE, _is_code)


def compile_expression(source: str) -> CodeType:
    """`compile(source, "<rule expression>", "eval")`, remembered; raises as compile() does."""
    return compile_source(source, FILENAME, "eval")


def compile_source(source: str, filename: str, mode: str) -> CodeType:
    """`compile(source, filename, mode)` for generated rule code ("eval" or "exec"), remembered by all three;
    raises as compile() does."""
    key = f"{mode}\0{filename}\0{source}"
    code = _memo.get(key)
    if code is None:
        stored = _disk.get(key)
        if type(stored) is CodeType:
            code = stored
        else:
            code = compile(source, filename, mode)
            _disk.put(key, code)
        if len(_memo) >= MAX_ENTRIES:
            _memo.clear()
        _memo[key] = code
    return code


def save() -> None:
    """Write what this process compiled to disk now (it is written at exit anyway)."""
    _disk.save()
