"""Options from the command line: `--set NAME=VALUE` (repeatable) and `--options FILE.yaml`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ..diagnostics import Diagnostics, Span
from ..language.loader import load_yaml


def read_options(sets: list[str], files: list[str], diags: Diagnostics) -> dict[str, tuple[Any, Span]]:
    """Each option with where it was given; a later one wins. Problems become diagnostics."""
    out: dict[str, tuple[Any, Span]] = {}
    for name in files:
        doc = load_yaml(Path(name), diags, name)
        if doc is None:
            continue
        if not isinstance(doc, dict):
            diags.error("E105", "an options file holds a mapping of option name to value", Span(name, 1, 1))
            continue
        spans = getattr(doc, "key_spans", {})
        for key, value in doc.items():
            out[str(key)] = (value, spans.get(key, Span(name, 1, 1)))
    for i, item in enumerate(sets, 1):
        where = Span(f"--set #{i}", 1, 1)
        name, eq, text = item.partition("=")
        if not eq or not name.strip():
            diags.error("E201", f"--set takes NAME=VALUE, got {item!r}", where)
            continue
        try:
            value = yaml.safe_load(text) if text.strip() else None
        except yaml.YAMLError:
            diags.error("E201", f"--set {name}: {text!r} is not a value (a number, true/false, a name or a list)",
                        where)
            continue
        out[name.strip()] = (value, Span(f"--set {name.strip()}", 1, len(name) + 2))
    return out
