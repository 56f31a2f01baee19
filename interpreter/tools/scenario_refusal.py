"""What a scenario says about an error it expects: a code alone, or the code with the message, the rule text or the
place of the refusal, so that a refusal cannot pass for the wrong reason (another guard refusing with the same code).
"""

from __future__ import annotations

from typing import Any

from ..dataclass_code import dataclass
from ..diagnostics import Diagnostic, source_line


@dataclass(frozen=True, slots=True)
class ExpectedError:
    code: str
    message: str | None = None  # text the refusal's message must contain
    rule: str | None = None  # text the refusing rule must contain: its condition, else its source line
    at: str | None = None  # the refusing rule's place: `file:line` or `file:line:col`, the file as a path's tail

    @classmethod
    def of(cls, raw: Any) -> ExpectedError | None:
        """The expectation a scenario wrote (`E501`, or `{code: E501, message: ..., rule: ..., at: ...}`)."""
        if raw is None:
            return None
        if isinstance(raw, dict):
            def text(key: str) -> str | None:
                return None if raw.get(key) is None else str(raw[key])
            return cls(str(raw.get("code")), text("message"), text("rule"), text("at"))
        return cls(str(raw))

    def mismatch(self, d: Diagnostic) -> str | None:
        """Why `d` is not the refusal expected (its code aside), or None when it is."""
        if self.message is not None and self.message not in d.message:
            return f"its message '{d.message}' does not contain '{self.message}'"
        source = _source(d)
        if self.rule is not None and (source is None or self.rule not in source):
            what = f"'{source}'" if source is not None else "a place with no rule text"
            return f"it was refused by {what}, not by a rule containing '{self.rule}'"
        if self.at is not None and not _placed_at(d, self.at):
            return f"it was refused at {d.span if d.span is not None else 'no place'}, not at {self.at}"
        return None


def code_of(raw: Any) -> str | None:
    """The code of an `expect_error` in either form."""
    expected = ExpectedError.of(raw)
    return None if expected is None else expected.code


def _source(d: Diagnostic) -> str | None:
    """The refusing rule's text: what its place covers (a guard's condition), else its source line."""
    if d.span is None:
        return None
    return d.span.text if d.span.text is not None else source_line(d.span.file, d.span.line)


def _placed_at(d: Diagnostic, at: str) -> bool:
    if d.span is None:
        return False
    places = (str(d.span), f"{d.span.file}:{d.span.line}")
    return any(place == at or place.endswith("/" + at) for place in places)
