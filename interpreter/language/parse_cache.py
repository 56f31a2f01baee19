"""Parsed formulas kept on disk for the next process, by start symbol and text (parser.py caches them in memory).

A syntax tree is stored as plain marshal data: a node as a list [class name, field, ...], tuples as tuples, and
strings, numbers, booleans and None as themselves; a tree holding anything else is not stored. Decoding builds
the same frozen nodes the parser builds. The table (cache_bundle.py, in the per-user cache `parse`) is kept per
Python and per boardrules (whose fingerprint covers the grammar, the parser and the node classes); an entry
that does not decode is parsed afresh. Texts that do not parse are never stored: their errors are always
computed afresh.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

from ..cache_bundle import Bundle
from . import syntax as s

CACHE = "parse"
_SCALARS = (str, int, bool, type(None))


class _NotPlain(Exception):
    """A tree holding something other than nodes, tuples and plain scalars: it is not stored."""


def _node_classes() -> dict[str, tuple[type[s.Node], int]]:
    return {name: (cls, len(fields(cls))) for name, cls in vars(s).items()
            if isinstance(cls, type) and issubclass(cls, s.Node) and cls.__module__ == s.__name__}


_CLASSES = _node_classes()
# Each node class's field names, in order: dataclasses.fields() would work them out again for every node stored.
_FIELDS = {cls: tuple(f.name for f in fields(cls)) for cls, _ in _CLASSES.values()}


MAX_DEPTH = 200  # nesting stored; a deeper tree is parsed each time (no formula a designer writes comes close)


def _encode(value: Any, depth: int = 0) -> Any:
    # An explicit bound, not RecursionError: how deep Python can recurse depends on the caller's stack, and what
    # is stored must not.
    if depth > MAX_DEPTH:
        raise _NotPlain
    if type(value) in _SCALARS:
        return value
    if type(value) is tuple:
        return tuple(_encode(v, depth + 1) for v in value)
    names = _FIELDS.get(type(value))
    if names is not None:
        return [type(value).__name__, *[_encode(getattr(value, name), depth + 1) for name in names]]
    raise _NotPlain


def _decode(value: Any) -> Any:
    if type(value) is list:
        known = _CLASSES.get(value[0]) if value and type(value[0]) is str else None
        if known is None or len(value) - 1 != known[1]:
            raise _NotPlain
        return known[0](*[_decode(v) for v in value[1:]])
    if type(value) is tuple:
        return tuple(_decode(v) for v in value)
    if type(value) in _SCALARS:
        return value
    raise _NotPlain


def _any(key: str, value: object) -> bool:
    return True  # each entry is checked as it is decoded


_disk = Bundle(CACHE, _any)


def parse(text: str, start: str, parse_afresh: Callable[[], s.Node]) -> s.Node:
    """The tree of `text` from `start`: from disk when an earlier process parsed it, else `parse_afresh()`
    (whose errors pass through) and stored."""
    key = f"{start}\0{text}"
    stored = _disk.get(key)
    if stored is not None:
        try:
            node = _decode(stored)
        except (_NotPlain, TypeError, RecursionError):
            node = None
        if isinstance(node, s.Node):
            return node
    node = parse_afresh()
    if not _disk.storing():  # encoding a tree costs about as much as parsing it
        return node
    try:
        encoded = _encode(node)
    except (_NotPlain, RecursionError):  # a tree nested deeper than Python recurses is parsed each time
        return node
    _disk.put(key, encoded)
    return node


def save() -> None:
    """Write what this process parsed to disk now (it is written at exit anyway)."""
    _disk.save()
