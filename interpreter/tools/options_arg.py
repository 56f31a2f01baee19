"""Options from the command line: `--set NAME=VALUE` (repeatable) and `--options FILE.yaml`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from ..diagnostics import Diagnostics, Span
from ..language.loader import load_yaml, load_yaml_text
from ..language.option_values import show, shown_name

_NULL = "tag:yaml.org,2002:null"


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
            diags.error("E201", f"--set takes NAME=VALUE, got {show(item)}", where)
            continue
        name = name.strip()
        value = _set_value(shown_name(name), text, diags)
        if value is _BAD:
            continue
        out[name] = (value, Span(f"--set {shown_name(name)}", 1, 1))
    return out


_BAD = object()


def _set_value(name: str, text: str, diags: Diagnostics) -> Any:
    """The value of one `--set`, read by the same bounded loader as an options file (aliases, depth, size and
    numbers all limited), so a command line can give nothing a file could not."""
    if Resolver().resolve(ScalarNode, text.strip(), (True, False)) == _NULL:
        return None  # `NAME=`, `NAME=null`: the loader would call an empty document an error
    found = Diagnostics()
    value = load_yaml_text(text, f"--set {name}", found)
    diags.extend(found.items)
    return _BAD if value is None or found.has_errors else value
