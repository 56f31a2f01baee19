"""Where a formula's text sits in the YAML, and the file position of a place inside it.

A checked tree's positions count from the start of its own string; `Source` is that string's place (the scalar's
span and its YAML style), so `Source.at(pos)` is a file position. Effect nodes and declarations keep a `Source`
with each formula (checked.Expr.src): every later phase places a node without the YAML.
"""

from __future__ import annotations

from ..dataclass_code import dataclass
from ..diagnostics import Span, new_span, source_line

Pos = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Source:
    """The place of a YAML string: the scalar's span and its style (None, a quote, `|` or `>`)."""

    span: Span
    style: str | None = None

    def at(self, pos: Pos) -> Span:
        return span_in(self.span, pos, self.style)


def _folded_span(base: Span, indent: int, col: int) -> Span:
    """In a folded (>) block, source lines were joined with spaces: find the line that holds column `col`."""
    offset, line_no = 0, base.line + 1
    while True:
        text = source_line(base.file, line_no)
        if text is None:
            break
        width = len(text) - indent
        if col - 1 - offset <= width or source_line(base.file, line_no + 1) is None:
            break
        nxt = source_line(base.file, line_no + 1) or ""
        if len(nxt) - len(nxt.lstrip(" ")) < indent or not nxt.strip():
            break
        offset += width + 1
        line_no += 1
    return Span(base.file, line_no, indent + col - offset)


def span_in(base: Span, pos: Pos, style: str | None) -> Span:
    """The file position of `pos` inside a YAML string that starts at `base`."""
    line, col = pos
    if style in ("|", ">"):
        # The text starts on the line after the indicator, at the block's indentation.
        first = source_line(base.file, base.line + 1)
        indent = len(first) - len(first.lstrip(" ")) if first is not None else base.col + 1
        if style == ">" and line == 1:
            return _folded_span(base, indent, col)
        return new_span(base.file, base.line + line, indent + col)
    offset = 1 if style in ("'", '"') else 0
    if line == 1:
        return new_span(base.file, base.line, base.col + offset + col - 1)
    return new_span(base.file, base.line + line - 1, col)
