"""Python code objects of rule expressions, by source text: each distinct source is compiled once per process,
and the code objects are kept on disk (marshal, like Python's own .pyc files) for the next process.

A code object depends only on its source text and the Python that compiled it, so the memo is keyed by the
source text itself; the table on disk (cache_bundle.py, in the per-user cache `code`) is kept per Python and
per boardrules, and is ignored whole if it holds anything but code objects of rule expressions.
"""

from __future__ import annotations

from types import CodeType

from ..cache_bundle import MAX_ENTRIES, Bundle

CACHE = "code"
FILENAME = "<rule expression>"


def _is_code(source: str, value: object) -> bool:
    return type(value) is CodeType and value.co_filename == FILENAME


_memo: dict[str, CodeType] = {}
_disk = Bundle(CACHE, _is_code)


def compile_expression(source: str) -> CodeType:
    """`compile(source, "<rule expression>", "eval")`, remembered; raises as compile() does."""
    code = _memo.get(source)
    if code is None:
        stored = _disk.get(source)
        if type(stored) is CodeType:
            code = stored
        else:
            code = compile(source, FILENAME, "eval")
            _disk.put(source, code)
        if len(_memo) >= MAX_ENTRIES:
            _memo.clear()
        _memo[source] = code
    return code


def save() -> None:
    """Write what this process compiled to disk now (it is written at exit anyway)."""
    _disk.save()
