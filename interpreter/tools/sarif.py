"""Diagnostics as SARIF 2.1.0, the format code hosts read to annotate pull requests."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .. import __version__
from ..diagnostics import Diagnostic
from ..diagnostics_codes import CODES

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _uri(file: str) -> str:
    path = Path(file)
    return path.as_uri() if path.is_absolute() else path.as_posix()


def _rule(code: str) -> dict[str, Any]:
    c = CODES.get(code)
    if c is None:
        return {"id": code}
    return {
        "id": c.code,
        "shortDescription": {"text": c.summary},
        "fullDescription": {"text": c.explanation},
        "help": {"text": f"{c.explanation}\n\nWrong:\n{c.wrong}\n\nRight:\n{c.right}"},
        "defaultConfiguration": {"level": "error" if c.severity == "error" else "warning"},
    }


def _result(d: Diagnostic, rule_index: int) -> dict[str, Any]:
    text = d.message if not d.hint else f"{d.message} (hint: {d.hint})"
    result: dict[str, Any] = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": "error" if d.severity == "error" else "warning",
        "message": {"text": text},
    }
    if d.span is not None:
        region: dict[str, int] = {"startLine": max(1, d.span.line), "startColumn": max(1, d.span.col)}
        result["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": _uri(d.span.file)},
                                                     "region": region}}]
    return result


def render_sarif(diagnostics: Iterable[Diagnostic]) -> dict[str, Any]:
    items = list(diagnostics)
    codes = sorted({d.code for d in items})
    index = {code: i for i, code in enumerate(codes)}
    driver = {"name": "boardrules", "version": __version__,
              "rules": [_rule(c) for c in codes]}
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": [_result(d, index[d.code]) for d in items]}],
    }
