"""Safe YAML loading that remembers where every key, value and string came from.

PyYAML's own loaders lose positions, accept duplicate keys, and expand aliases without limit, so this
module builds the document straight from PyYAML's event stream: one pass, no recursion, every limit checked
as soon as it is crossed. Problems become diagnostics; nothing here raises.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import field
from pathlib import Path

import yaml
from yaml.constructor import SafeConstructor
from yaml.error import Mark, MarkedYAMLError
from yaml.events import (
    AliasEvent,
    CollectionStartEvent,
    DocumentStartEvent,
    Event,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode
from yaml.reader import ReaderError
from yaml.resolver import Resolver

from ..dataclass_code import dataclass
from ..diagnostics import Diagnostics, Span, new_span
from ..engine.budget import DEFAULT_LIMITS
from ..internal import INTERNAL, REPORT, describe
from . import yaml_slips
from .ynodes import YList as YList  # re-exported: the node classes were first defined here
from .ynodes import YMap as YMap
from .ynodes import YStr as YStr

# A rule file is data a person writes (the largest shipped module is about 23 KB); checking costs about a second
# per 100 KB of dense formulas, so this bounds `check` to seconds.
MAX_BYTES = 256 * 1024
MAX_DEPTH = 64
# Checking costs up to a millisecond per effect line, so this bounds `check` to seconds; the largest shipped
# module has about 1,000 nodes.
MAX_NODES = 10_000
# Python refuses to convert longer digit strings (and sexagesimal ones would take quadratic time).
_MAX_NUMBER_CHARS = 4300
MAX_INT = DEFAULT_LIMITS.max_int
_SURROGATE = re.compile("[\ud800-\udfff]")

_CORE = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (_CORE + t for t in ("str", "int", "float", "bool", "null"))
_TIMESTAMP, _SEQ, _MAP, _MERGE = (_CORE + t for t in ("timestamp", "seq", "map", "merge"))
_SCALAR_TAGS = {_STR, _INT, _FLOAT, _BOOL, _NULL, _TIMESTAMP}
_ALLOWED_HINT = "only plain YAML is allowed: strings, numbers, booleans, null, lists and mappings"
_LINE_BREAKS = "\n\r\x85\u2028\u2029"


# libyaml when PyYAML was built with it (several times faster); the pure-Python parser gives the same events.
_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

def load_yaml(path: Path, diags: Diagnostics, display: str | None = None) -> object | None:
    """Read and convert one YAML file; None (with diagnostics added) when it cannot be used at all."""
    name = str(path) if display is None else display
    data = read_file(path, diags, name)
    return None if data is None else load_yaml_bytes(data, name, diags)


# The files read, while a command whose result is cached records them (tools/check_cache.py).
reads: set[Path] | None = None


def read_file(path: Path, diags: Diagnostics, name: str) -> bytes | None:
    """The bytes of one rule file, refusing what is not a regular file or is too large (with a diagnostic)."""
    if reads is not None:
        reads.add(path)
    try:
        edited = _buffer(path)
        if edited is not None:
            return _within_limit(edited, diags, name)
        info = path.stat()  # one call: a missing file or a loop of links raises here, as opening would
        if stat.S_ISDIR(info.st_mode):
            diags.error("E105", f"cannot read '{name}': it is a directory", Span(name, 1, 1))
            return None
        if not stat.S_ISREG(info.st_mode):
            # A pipe or a device could block or never end.
            diags.error("E105", f"cannot read '{name}': not a regular file", Span(name, 1, 1))
            return None
        size = info.st_size
        if size > MAX_BYTES:
            diags.error("E104", f"file is too large ({size} bytes, at most {MAX_BYTES})", Span(name, 1, 1))
            return None
        with path.open("rb") as handle:
            # Read one byte past the limit so a file that grew (or a device) cannot make us read forever.
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        diags.error("E105", f"cannot read '{name}': {reason}", Span(name, 1, 1))
        return None
    if len(data) > MAX_BYTES:
        diags.error("E104", f"file is too large (more than {MAX_BYTES} bytes)", Span(name, 1, 1))
        return None
    return data


# An editor's unsaved buffers (real path -> text) that stand in for the files on disk (the language server).
_BUFFERS: ContextVar[Mapping[str, bytes] | None] = ContextVar("buffers", default=None)


@contextmanager
def buffers(texts: Mapping[Path, bytes]) -> Iterator[None]:
    """Inside the block, every rule or scenario file read gets these texts instead of what is on disk, so the
    whole `check` pipeline sees an editor's unsaved buffers."""
    token = _BUFFERS.set({os.path.realpath(path): data for path, data in texts.items()})
    try:
        yield
    finally:
        _BUFFERS.reset(token)


def _buffer(path: Path) -> bytes | None:
    edited = _BUFFERS.get()
    return edited.get(os.path.realpath(path)) if edited else None


def _within_limit(data: bytes, diags: Diagnostics, name: str) -> bytes | None:
    if len(data) > MAX_BYTES:
        diags.error("E104", f"file is too large ({len(data)} bytes, at most {MAX_BYTES})", Span(name, 1, 1))
        return None
    return data


def load_yaml_bytes(data: bytes, name: str, diags: Diagnostics) -> object | None:
    """Convert the bytes of one YAML file (UTF-8, with or without a byte-order mark). Nothing is kept on disk:
    building a document from libyaml's events costs about what reading one back from a per-user cache did."""
    return _load_bytes(data, name, diags)


def _load_bytes(data: bytes, name: str, diags: Diagnostics) -> object | None:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        diags.error("E105", "file is not UTF-8 text", _byte_span(data, exc.start, name),
                    hint=f"byte 0x{data[exc.start]:02x} cannot start or continue a UTF-8 character")
        return None
    return load_yaml_text(text, name, diags)


def load_yaml_text(text: str, display: str, diags: Diagnostics) -> object | None:
    """Convert one YAML document given as text; `display` is the file name put in spans."""
    if text.startswith("\ufeff"):
        # Columns on the first line would otherwise count the byte-order mark.
        text = text[1:]
    # Every character is at least one byte, so only a text near the limit needs encoding to be measured.
    if len(text) > MAX_BYTES or (
        len(text) * 4 > MAX_BYTES and len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES
    ):
        diags.error("E104", f"file is too large (more than {MAX_BYTES} bytes)", Span(display, 1, 1))
        return None
    value, local = _build(text, display, _FAST_LOADER)
    if local.items and _FAST_LOADER is not yaml.SafeLoader:
        # libyaml words its errors less helpfully: a file with any problem is read again by the Python parser.
        value, local = _build(text, display, yaml.SafeLoader)
    diags.extend(local.items)
    return value


def _build(text: str, display: str, loader: type) -> tuple[object | None, Diagnostics]:
    local = Diagnostics()
    try:
        value = _Builder(text, display, local, loader).run()
    except Exception as exc:  # a bug here must still come out as a diagnostic, not a traceback
        local.error(INTERNAL, f"internal error while reading YAML: {describe(exc)}", Span(display, 1, 1), REPORT)
        value = None
    return value, local


def span_at(root: object, path: Sequence[str | int]) -> Span | None:
    """The span of the value at `path` (a jsonschema error's absolute_path), or of its nearest ancestor."""
    span = _own_span(root)
    node = root
    for element in path:
        if isinstance(node, YMap) and isinstance(element, str) and element in node:
            # The value span, not the value's own: for an alias it is where the alias is used.
            span = node.value_spans.get(element, span)
            node = node[element]
        elif isinstance(node, YList) and isinstance(element, int) and 0 <= element < len(node):
            span = node.item_spans[element]
            node = node[element]
        else:
            break
    return span


def key_span_at(root: object, path: Sequence[str | int]) -> Span | None:
    """Like span_at, but when the path ends in a mapping key, the span of the key itself."""
    if path:
        *parent_path, last = path
        parent = root
        for element in parent_path:
            parent = _child(parent, element)
        if isinstance(parent, YMap) and isinstance(last, str) and last in parent.key_spans:
            return parent.key_spans[last]
    return span_at(root, path)


def _own_span(node: object) -> Span | None:
    span = getattr(node, "span", None)
    return span if isinstance(span, Span) else None


def _child(node: object, element: str | int) -> object:
    if isinstance(node, dict):
        return node.get(element)
    if isinstance(node, list) and isinstance(element, int) and 0 <= element < len(node):
        return node[element]
    return None


def _byte_span(data: bytes, offset: int, name: str) -> Span:
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return Span(name, data.count(b"\n", 0, offset) + 1, column)


def _show_tag(tag: str) -> str:
    return "!!" + tag[len(_CORE):] if tag.startswith(_CORE) else tag


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Stop(Exception):
    """Raised inside the builder after a diagnostic that makes the rest of the file pointless to read."""


_DROPPED = object()  # the value of a node that was rejected; its entry is left out of the parent


@dataclass
class _Anchor:
    value: object
    size: int  # nodes in the anchored subtree, aliases expanded
    height: int  # collection levels in it (0 for a scalar)
    text: str | None  # a scalar's source text, for when the alias is used as a key
    span: Span


@dataclass
class _Frame:
    container: YMap | YList | None  # None while building a rejected collection
    span: Span
    start_count: int
    anchor: str | None
    height: int = 1
    # Mapping state: the key read and waiting for its value; `has_key` tells a key from a value event.
    has_key: bool = False
    key: str | None = None  # None when the key was rejected
    key_span: Span | None = None
    first_lines: dict[str, int] = field(default_factory=dict)


# A decimal integer as most numbers in a rule file are written: YAML 1.1 reads it as int() does (a leading 0 would
# make it octal, `_` and `:` other forms).
_PLAIN_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")
_RESOLVER = Resolver()
# The first characters PyYAML's implicit resolvers are registered for; a scalar starting otherwise (most long
# formulas and prose, which the table below does not keep) resolves to the default tag when no resolver is
# registered for every character or for a path.
_FIRSTS = frozenset(k for k in _RESOLVER.yaml_implicit_resolvers if k)
_PLAIN_RESOLVER = not _RESOLVER.yaml_implicit_resolvers.get(None) and not _RESOLVER.yaml_path_resolvers
_DEFAULT_TAG = _RESOLVER.DEFAULT_SCALAR_TAG
_RESOLVED: dict[tuple[str, tuple[bool, bool]], str] = {}
_MAX_RESOLVED = 65_536


def _resolve(value: str, implicit: tuple[bool, bool]) -> str:
    """PyYAML's implicit tag of a scalar (regular expressions per first character), remembered by text: the
    same words and numbers come back in every file."""
    if (not implicit[0] or (value and value[0] not in _FIRSTS)) and _PLAIN_RESOLVER:
        return _DEFAULT_TAG  # no implicit resolver looks at it: what Resolver.resolve returns, without its loop
    key = (value, implicit)
    tag = _RESOLVED.get(key)
    if tag is None:
        tag = _RESOLVER.resolve(ScalarNode, value, implicit)
        if len(_RESOLVED) < _MAX_RESOLVED and len(value) < 64:
            _RESOLVED[key] = tag
    return tag


new_str = str.__new__


class _Builder:
    def __init__(self, text: str, display: str, diags: Diagnostics, loader: type) -> None:
        self.loader = loader
        self.text = text
        self.display = display
        self.diags = diags
        self.constructor = SafeConstructor()
        self.stack: list[_Frame] = []
        self.anchors: dict[str, _Anchor] = {}
        self.open_anchors: set[str] = set()
        self.count = 0
        self.root: object = _DROPPED
        self.documents = 0

    # -- driving ---------------------------------------------------------------------------------------------

    def run(self) -> object | None:
        try:
            self._drive()
        except _Stop:
            return None
        except MarkedYAMLError as exc:
            self._syntax_error(exc)
            return None
        except ReaderError as exc:
            self._reader_error(exc)
            return None
        if self.documents == 0:
            self.diags.error("E105", "file is empty", Span(self.display, 1, 1),
                             hint="a rule file holds one YAML mapping")
            return None
        if self.root is _DROPPED:
            return None  # the root itself was rejected, with its diagnostic already given
        if self.root is None:
            self.diags.error("E105", "file holds no data (the document is null)", Span(self.display, 1, 1),
                             hint="a rule file holds one YAML mapping")
            return None
        return self.root

    def _drive(self) -> None:
        """Feed every event to the builder. Nearly every event is a plain scalar (no anchor, no tag) in a
        mapping or a list, or the start or end of a collection without anchor or tag: it is built here, inline,
        with the same result `_event` gives it; any other event, and any that needs a check the inline path does
        not make, goes through `_event`."""
        loader = self.loader(self.text)
        try:
            get, stack, display, resolved = loader.get_event, self.stack, self.display, _RESOLVED
            source, size = self.text, len(self.text)
            while True:
                event = get()
                kind = type(event)
                if kind is StreamEndEvent or event is None:
                    return
                if kind is MappingStartEvent or kind is SequenceStartEvent:
                    # A collection without anchor or tag, within the bounds: what `_start` makes of it.
                    mark = event.start_mark
                    if event.anchor is None and event.tag is None and self.count < MAX_NODES and \
                            len(stack) < MAX_DEPTH and (mark.index >= size or source[mark.index] not in "&!"):
                        self.count += 1
                        span = new_span(display, mark.line + 1, mark.column + 1)
                        made = YMap(span) if kind is MappingStartEvent else YList(span)
                        stack.append(_Frame(made, span, self.count, None))
                        continue
                elif (kind is MappingEndEvent or kind is SequenceEndEvent) and len(stack) > 1:
                    # A collection without anchor ending as an item or a mapping's value: what `_end` does.
                    done, frame = stack[-1], stack[-2]
                    container = frame.container
                    if done.anchor is None and done.container is not None and container is not None and \
                            (isinstance(container, YList) or frame.has_key):
                        stack.pop()
                        frame.height = max(frame.height, done.height + 1)
                        if isinstance(container, YList):
                            container.append(done.container)
                            container.item_spans.append(done.span)
                        else:
                            self._put(frame, container, done.container, done.span)
                        continue
                if kind is not ScalarEvent or event.anchor is not None or event.tag is not None or not stack:
                    self._event(event)
                    continue
                frame = stack[-1]
                container = frame.container
                text = event.value
                if container is None or self.count >= MAX_NODES or not text.isascii():
                    self._event(event)  # inside a rejected collection, at the node limit, or maybe a surrogate
                    continue
                tag = resolved.get((text, event.implicit))
                if tag is None:
                    tag = _resolve(text, event.implicit)
                if type(container) is YMap and not frame.has_key:
                    # A key: kept as written unless it is a merge key, or glued to its '{' or '[' (both checked
                    # in `_event`); one without a blank cannot be glued.
                    if tag not in _SCALAR_TAGS or " " in text or "\t" in text:
                        self._event(event)
                        continue
                    self.count += 1
                    mark = event.start_mark
                    span = new_span(display, mark.line + 1, mark.column + 1)
                    frame.has_key = True
                    frame.key_span = span
                    frame.key = YStr(text, span, event.style or None)
                    continue
                if tag == _STR:
                    value: object = None
                elif tag == _INT and _PLAIN_INT.fullmatch(text):
                    value = int(text)  # at most 18 digits: within the bound on numbers
                else:
                    self._event(event)  # other numbers, booleans and null are converted (and bounded) there
                    continue
                self.count += 1
                mark = event.start_mark
                span = new_span(display, mark.line + 1, mark.column + 1)
                if value is None:  # YStr(text, span, style), without a call of its __new__
                    value = new_str(YStr, text)
                    value.span = span
                    value.style = event.style or None
                if isinstance(container, YList):
                    container.append(value)
                    container.item_spans.append(span)
                    continue
                # What `_put` does, for a key that is new in its mapping (the usual case).
                key, key_span = frame.key, frame.key_span
                if key is None or key_span is None or key in container:
                    self._put(frame, container, value, span)
                    continue
                frame.has_key = False
                frame.first_lines[key] = key_span.line
                container[key] = value
                container.key_spans[key] = key_span
                container.value_spans[key] = span
        finally:
            loader.dispose()

    def _event(self, event: Event) -> None:
        kind = type(event)
        if kind is ScalarEvent:  # nearly every event: straight to it
            self._scalar(event)
        elif isinstance(event, DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                self.diags.error("E101", "a rule file holds one YAML document", self._span(event.start_mark),
                                 hint="remove the second '---' and what follows, or split the file")
                raise _Stop
        elif isinstance(event, ScalarEvent):
            self._scalar(event)
        elif isinstance(event, AliasEvent):
            self._alias(event)
        elif isinstance(event, CollectionStartEvent):
            self._start(event)
        elif isinstance(event, SequenceEndEvent | MappingEndEvent):
            self._end()
        # Stream start and document end carry nothing to convert.

    # -- positions -------------------------------------------------------------------------------------------

    def _span(self, mark: Mark) -> Span:
        return new_span(self.display, mark.line + 1, mark.column + 1)

    def _content_span(self, start: Mark, end: Mark, inclusive: bool) -> Span:
        """Where a node's content starts: its start mark is at its anchor or tag, when it has them."""
        text, i, line, col = self.text, start.index, start.line, start.column
        if i >= len(text) or text[i] not in "&!":
            return self._span(start)
        n = len(text)
        while i < n:
            if text[i] in "&!":
                while i < n and text[i] not in " \t,[]{}" and text[i] not in _LINE_BREAKS:
                    i += 1
                    col += 1
            elif text[i] in " \t":
                i += 1
                col += 1
            elif text[i] in _LINE_BREAKS:
                i += 2 if text.startswith("\r\n", i) else 1
                line, col = line + 1, 0
            elif text[i] == "#":
                while i < n and text[i] not in _LINE_BREAKS:
                    i += 1
            else:
                break
        # An empty scalar has no content of its own: keep the property's place.
        if i < end.index or (inclusive and i == end.index):
            return Span(self.display, line + 1, col + 1)
        return self._span(start)

    # -- nodes -----------------------------------------------------------------------------------------------

    def _count(self, n: int, mark: Mark) -> None:
        # Keys, values and collections each count as a node; an alias counts its anchor's whole subtree again.
        self.count += n
        if self.count > MAX_NODES:
            self.diags.error("E104", f"too many nodes (more than {MAX_NODES}, counting each alias use)",
                             self._span(mark), hint="aliases repeating large parts of a file multiply it")
            raise _Stop

    def _check_anchor(self, anchor: str | None, mark: Mark) -> None:
        if anchor is None:
            return
        first = self.anchors.get(anchor)
        if first is not None or anchor in self.open_anchors:
            where = f" (first at line {first.span.line})" if first else ""
            self.diags.error("E101", f"duplicate anchor '&{anchor}'{where}", self._span(mark))
            raise _Stop

    def _scalar(self, event: ScalarEvent) -> None:
        self._count(1, event.start_mark)
        if event.anchor is None and event.tag is None:
            # Without an anchor or a tag the node starts at its content.
            mark = event.start_mark
            span = new_span(self.display, mark.line + 1, mark.column + 1)
        else:
            self._check_anchor(event.anchor, event.start_mark)
            span = self._content_span(event.start_mark, event.end_mark, inclusive=False)
        surrogate = _SURROGATE.search(event.value)
        if surrogate is not None:
            # An escape ("\ud800") can make one: text that no file, terminal or JSON encoder can carry.
            self.diags.error("E101", f"escape gives a lone surrogate #x{ord(surrogate.group()):04x}", span,
                             hint="control characters and lone surrogates cannot appear in a rule file")
            event.value = _SURROGATE.sub("\ufffd", event.value)
        implicit = event.tag is None or event.tag == "!"
        tag = _resolve(event.value, event.implicit) if implicit else event.tag
        if self._expecting_key():
            # Keys stay as written: `on:` and `1:` are the names "on" and "1", not a boolean and a number.
            if tag == _MERGE and implicit:
                self.diags.error("E201", "merge keys are not supported", span,
                                 hint="write the keys out in full; there is no '<<' merging")
                value: object = _DROPPED
            elif tag not in _SCALAR_TAGS:
                value = self._bad_tag(tag, self._span(event.start_mark))
            else:
                value = YStr(event.value, span, event.style or None)
        else:
            value = self._convert(event, tag, implicit, span)
        if event.anchor is not None:
            self.anchors[event.anchor] = _Anchor(value, 1, 0, event.value, span)
        self._add(value, span, 0)

    def _convert(self, event: ScalarEvent, tag: str, implicit: bool, span: Span) -> object:
        text = event.value
        if tag in (_STR, _TIMESTAMP) or (implicit and tag not in _SCALAR_TAGS):
            # Implicit `=` and `<<` resolve to PyYAML's value and merge tags; as values they are just text.
            return YStr(text, span, event.style or None)
        # Tag problems are shown at the tag, not at the text after it.
        tag_span = self._span(event.start_mark)
        if tag not in _SCALAR_TAGS:
            return self._bad_tag(tag, tag_span)
        node = ScalarNode(tag, text)
        try:
            if tag in (_INT, _FLOAT) and len(text) > _MAX_NUMBER_CHARS:
                raise ValueError("number too long")
            if tag == _INT:
                number = self.constructor.construct_yaml_int(node)
                if not -MAX_INT <= number <= MAX_INT:
                    self.diags.error("E104", f"the number '{_short(text)}' is too large (at most 10^18 in size)",
                                     span, hint="numbers are bounded so no rule can make a game slow or unsavable")
                    return _DROPPED
                return number
            if tag == _FLOAT:
                return self.constructor.construct_yaml_float(node)
            if tag == _BOOL:
                return self.constructor.construct_yaml_bool(node)
            return None
        except (ValueError, KeyError, IndexError, OverflowError):
            if implicit:
                # The resolver's patterns admit a few texts (`0b_`, huge numbers) that do not convert.
                return YStr(text, span, event.style or None)
            self.diags.error("E103", f"'{_short(text)}' is not a valid {_show_tag(tag)}", tag_span,
                             hint="remove the tag, or write a value of that type")
            return _DROPPED

    def _bad_tag(self, tag: str, span: Span) -> object:
        self.diags.error("E103", f"tag '{_show_tag(tag)}' is not allowed", span, hint=_ALLOWED_HINT)
        return _DROPPED

    def _alias(self, event: AliasEvent) -> None:
        name = event.anchor
        span = self._span(event.start_mark)
        if name in self.open_anchors:
            self.diags.error("E101", f"alias '*{name}' refers to a node that contains it", span,
                             hint="a recursive structure cannot be a rule file")
            raise _Stop
        anchor = self.anchors.get(name)
        if anchor is None:
            self.diags.error("E101", f"unknown alias '*{name}'", span,
                             hint="an alias must come after its anchor '&name'")
            raise _Stop
        self._count(anchor.size, event.start_mark)
        if len(self.stack) + anchor.height > MAX_DEPTH:
            self._too_deep(event.start_mark)
        if self._expecting_key():
            if anchor.value is _DROPPED:
                value = _DROPPED
            elif anchor.height or anchor.text is None:
                value = _NONSCALAR_KEY
            else:
                value = YStr(anchor.text, span)
        else:
            value = _copy(anchor.value)
        self._add(value, span, anchor.height)

    def _too_deep(self, mark: Mark) -> None:
        self.diags.error("E104", f"nesting is too deep (more than {MAX_DEPTH} levels)", self._span(mark))
        raise _Stop

    def _start(self, event: CollectionStartEvent) -> None:
        self._count(1, event.start_mark)
        if len(self.stack) >= MAX_DEPTH:
            self._too_deep(event.start_mark)
        self._check_anchor(event.anchor, event.start_mark)
        span = self._content_span(event.start_mark, event.end_mark, inclusive=True)
        is_map = isinstance(event, MappingStartEvent)
        wanted = _MAP if is_map else _SEQ
        container: YMap | YList | None = YMap(span) if is_map else YList(span)
        if event.tag not in (None, "!", wanted):
            self._bad_tag(event.tag, self._span(event.start_mark))
            container = None
        if event.anchor is not None:
            self.open_anchors.add(event.anchor)
        self.stack.append(_Frame(container, span, self.count, event.anchor))

    def _end(self) -> None:
        frame = self.stack.pop()
        value: object = _DROPPED if frame.container is None else frame.container
        if frame.anchor is not None:
            self.open_anchors.discard(frame.anchor)
            size = self.count - frame.start_count + 1
            self.anchors[frame.anchor] = _Anchor(value, size, frame.height, None, frame.span)
        self._add(value, frame.span, frame.height)

    def _expecting_key(self) -> bool:
        return bool(self.stack) and isinstance(self.stack[-1].container, YMap) and not self.stack[-1].has_key

    def _add(self, value: object, span: Span, height: int) -> None:
        if not self.stack:
            self.root = value
            return
        frame = self.stack[-1]
        frame.height = max(frame.height, height + 1)
        container = frame.container
        if container is None:
            return  # inside a rejected collection
        if isinstance(container, YList):
            if value is not _DROPPED:
                container.append(value)
                container.item_spans.append(span)
            return
        if not frame.has_key:
            frame.has_key = True
            frame.key_span = span
            if value is _NONSCALAR_KEY or isinstance(value, YMap | YList):
                self.diags.error("E201", "a mapping key must be a plain string or number", span)
                frame.key = None
            else:
                frame.key = value if isinstance(value, str) else None
                if frame.key is not None:
                    said = yaml_slips.glued_key(frame.key, self.text, span.line, span.col)
                    if said is not None:  # the entry is unreadable as meant: dropped, as a syntax error would
                        self.diags.error("E101", said.message, span, said.hint)
                        frame.key = None
            return
        self._put(frame, container, value, span)

    def _put(self, frame: _Frame, container: YMap, value: object, span: Span) -> None:
        """A mapping's value under the key its frame read last (E102 for a key it already has)."""
        frame.has_key = False
        key, key_span = frame.key, frame.key_span
        if key is None or key_span is None or value is _DROPPED:
            return
        if key in container:
            first = frame.first_lines[key]
            self.diags.error("E102", f"duplicate key '{_short(key)}' (first at line {first})", key_span,
                             hint="each key may appear once in a mapping")
            return
        frame.first_lines[key] = key_span.line
        container[key] = value
        container.key_spans[key] = key_span
        container.value_spans[key] = span

    def _syntax_error(self, exc: MarkedYAMLError) -> None:
        said = yaml_slips.explain(exc, self.text)
        if said is not None:  # a common slip, in a designer's words at the offending line
            self.diags.error("E101", said.message, Span(self.display, said.line, said.col), said.hint)
            return
        mark = exc.problem_mark or exc.context_mark
        span = self._span(mark) if mark is not None else Span(self.display, 1, 1)
        message = exc.problem or exc.context or "YAML syntax error"
        hint = None
        if exc.problem and exc.context:
            hint = exc.context
            if exc.context_mark is not None:
                hint += f" at line {exc.context_mark.line + 1}, column {exc.context_mark.column + 1}"
        self.diags.error("E101", message, span, hint)

    def _reader_error(self, exc: ReaderError) -> None:
        position = exc.position if isinstance(exc.position, int) else 0
        before = self.text[:position]
        line = len(re.findall(r"\r\n|[\n\r\x85\u2028\u2029]", before)) + 1
        line_start = max(before.rfind(c) for c in _LINE_BREAKS) + 1
        character = exc.character if isinstance(exc.character, int) else 0
        self.diags.error("E101", f"character #x{character:04x} is not allowed in YAML",
                         Span(self.display, line, position - line_start + 1),
                         hint="control characters and lone surrogates cannot appear in a rule file")


_NONSCALAR_KEY = object()  # an alias to a collection used as a mapping key


def _copy(value: object) -> object:
    """A deep copy of a converted value, so each alias use is its own tree (the depth is already bounded)."""
    if isinstance(value, YMap):
        new_map = YMap(value.span)
        for key, item in value.items():
            new_map[key] = _copy(item)
        new_map.key_spans.update(value.key_spans)
        new_map.value_spans.update(value.value_spans)
        return new_map
    if isinstance(value, YList):
        new_list = YList(value.span)
        new_list.extend(_copy(item) for item in value)
        new_list.item_spans.extend(value.item_spans)
        return new_list
    return value  # strings and numbers are immutable
