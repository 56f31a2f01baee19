"""When boardrules itself fails: one code and one exit status that no rule mistake ever produces.

A rule's own runtime type error is E510; a bug in boardrules (an exception no runner expected) is E900, so a
designer is never told to fix a rule that is not wrong, and tests can assert that E900 never appears.
"""

from __future__ import annotations

from .diagnostics import BoardrulesError, Span

INTERNAL = "E900"
EXIT_INTERNAL = 3  # 1 is "the pack has errors", 2 is argparse's "bad command line"
REPORT = "this is a bug in boardrules, not in the rules: please report it with the pack and the command that caused it"


def describe(exc: BaseException) -> str:
    """The exception's type and message, never so long that printing it hurts."""
    try:
        text = str(exc)
    except Exception:  # str() of a huge integer inside the message may itself fail
        text = "(message cannot be shown)"
    if len(text) > 300:
        text = text[:300] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def internal_error(exc: BaseException, rule: str | None, span: Span | None) -> BoardrulesError:
    where = f" while running {rule}" if rule else ""
    return BoardrulesError(INTERNAL, f"internal error{where}: {describe(exc)}", span, REPORT)
