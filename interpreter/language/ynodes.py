"""YAML nodes that keep their place in the file: the loader builds them, every later stage reads their spans."""

from __future__ import annotations

from typing import Any

from ..diagnostics import Span


class YMap(dict):
    """A YAML mapping whose keys are strings, with the place of the mapping, of each key and of each value."""

    span: Span
    key_spans: dict[str, Span]
    value_spans: dict[str, Span]

    def __init__(self, span: Span) -> None:
        super().__init__()
        self.span = span
        self.key_spans = {}
        self.value_spans = {}


class YList(list):
    """A YAML sequence with the place of the sequence and of each item."""

    span: Span
    item_spans: list[Span]

    def __init__(self, span: Span) -> None:
        super().__init__()
        self.span = span
        self.item_spans = []


class YStr(str):
    """A string scalar with the place of its first character (the quote or `|`/`>` indicator if any)."""

    span: Span
    style: str | None

    def __new__(cls, value: str, span: Span, style: str | None = None) -> YStr:
        obj = super().__new__(cls, value)
        obj.span = span
        obj.style = style
        return obj

    def __reduce__(self) -> tuple[object, ...]:
        # str's default reduce would drop the span and style when pickled or copied.
        return (YStr, (str(self), self.span, self.style))


def value_span(node: Any, key: str, fallback: Span) -> Span:
    """Where the value of `key` is written in a mapping (the fallback for a node without places)."""
    return getattr(node, "value_spans", {}).get(key, fallback)


def key_span(node: Any, key: str, fallback: Span) -> Span:
    """Where `key` itself is written in a mapping."""
    return getattr(node, "key_spans", {}).get(key, fallback)


def plain(node: Any) -> Any:
    """Loaded YAML without its places (YMap, YList, YStr -> dict, list, str): its content alone."""
    if isinstance(node, dict):
        return {str(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    if isinstance(node, str):
        return str(node)
    return node
