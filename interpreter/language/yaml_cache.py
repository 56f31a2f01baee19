"""Loaded YAML documents, with every position, kept on disk by file content for the next process.

Loading a file builds mappings, lists and strings that remember where each key, value and item came from
(loader.py); that is a fifth of a `boardrules test` run. A file that loaded without any diagnostic is stored in
the per-user cache `yaml` (cache_files.py) under a hash of its bytes, this Python and this boardrules (whose
fingerprint covers the loader), as plain marshal data: a mapping as ("m", span, [(key, key span, value, value
span), ...]), a list as ("l", span, [item, ...], [item span, ...]), a string as ("s", text, span, style), any
other scalar as ("v", value), a span as (line, column); the file name in spans is the one the caller shows,
as when loading. A document that cannot be written down exactly so (a span of another file or with an end, an
unexpected type) is not stored, and an entry that does not decode is loaded afresh. Files with diagnostics are
never stored: their diagnostics are always computed afresh.
"""

from __future__ import annotations

import hashlib
import marshal
from typing import Any

from .. import cache_files
from ..cache_bundle import python_id
from ..diagnostics import Span
from .ynodes import YList, YMap, YStr

CACHE = "yaml"
KEEP = 20_000  # entries kept; the directory is pruned once per process that adds one
_SCALARS = (int, float, bool, type(None))
_pruned = False


class _NotPlain(Exception):
    """A document that cannot be written down exactly as plain data: it is not stored."""


def key(data: bytes) -> str | None:
    if cache_files.cache_dir(CACHE) is None:
        return None
    h = hashlib.sha256()
    for part in (python_id(), cache_files.code_fingerprint().encode(), data):
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()


def load(digest: str, display: str) -> object | None:
    """The document stored under `digest`, with spans in `display`; None on a miss or an entry that is wrong."""
    raw = cache_files.read(CACHE, digest)
    if raw is None:
        return None
    try:
        return _Decoder(display).value(marshal.loads(raw))
    except (_NotPlain, ValueError, EOFError, TypeError, IndexError, KeyError, RecursionError):
        return None


def store(digest: str, doc: object, display: str) -> None:
    global _pruned
    try:
        data = marshal.dumps(_encode(doc, display))
    except (_NotPlain, ValueError, RecursionError):
        return
    cache_files.write(CACHE, digest, data, keep=None if _pruned else KEEP)
    _pruned = True


def _span(span: object, display: str) -> tuple[int, int]:
    if (type(span) is not Span or span.file != display or span.end_line is not None or span.end_col is not None
            or span.text is not None):
        raise _NotPlain
    return (span.line, span.col)


def _encode(value: Any, display: str) -> Any:
    kind = type(value)
    if kind is YStr:
        return ("s", str(value), _span(value.span, display), value.style)
    if kind is YMap:
        if value.key_spans.keys() != value.keys() or value.value_spans.keys() != value.keys():
            raise _NotPlain
        items = []
        for k, v in value.items():
            if type(k) is not YStr:
                raise _NotPlain
            items.append((_encode(k, display), _span(value.key_spans[k], display), _encode(v, display),
                          _span(value.value_spans[k], display)))
        return ("m", _span(value.span, display), items)
    if kind is YList:
        if len(value.item_spans) != len(value):
            raise _NotPlain
        return ("l", _span(value.span, display), [_encode(v, display) for v in value],
                [_span(s, display) for s in value.item_spans])
    if kind in _SCALARS:
        return ("v", value)
    raise _NotPlain


class _Decoder:
    def __init__(self, display: str) -> None:
        self.display = display
        self.spans: dict[tuple[int, int], Span] = {}  # equal spans may share one object: spans are frozen
        self.ymap, self.ylist, self.ystr = YMap, YList, YStr

    def span(self, raw: Any) -> Span:
        span = self.spans.get(raw)
        if span is None:
            line, col = raw
            if type(line) is not int or type(col) is not int:
                raise _NotPlain
            span = self.spans[raw] = Span(self.display, line, col)
        return span

    def value(self, raw: Any) -> object:
        tag = raw[0]
        if tag == "s":
            _, text, span, style = raw
            if type(text) is not str or not (style is None or type(style) is str):
                raise _NotPlain
            return self.ystr(text, self.span(span), style)
        if tag == "m":
            _, span, items = raw
            out = self.ymap(self.span(span))
            for k, kspan, v, vspan in items:
                name = self.value(k)
                if type(name) is not self.ystr or name in out:
                    raise _NotPlain
                out[name] = self.value(v)
                out.key_spans[name] = self.span(kspan)
                out.value_spans[name] = self.span(vspan)
            return out
        if tag == "l":
            _, span, items, spans = raw
            if len(items) != len(spans):
                raise _NotPlain
            out_list = self.ylist(self.span(span))
            out_list.extend(self.value(v) for v in items)
            out_list.item_spans.extend(self.span(s) for s in spans)
            return out_list
        if tag == "v" and len(raw) == 2 and type(raw[1]) in _SCALARS:
            return raw[1]
        raise _NotPlain
