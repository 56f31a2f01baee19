"""Each declaration of a module as it is written, for the checks of a pack's own words (engine.rules.Written):
read from the module's YAML once, by the linker, so that no analysis reads the YAML."""

from __future__ import annotations

from typing import Any

from ..diagnostics import Span
from ..engine.rules import Written
from .sections import DECLARING
from .ynodes import key_span as _kspan


def _given(node: Any) -> tuple[tuple[str, Any, Span | None], ...]:
    if not isinstance(node, dict):
        return ()
    spans = getattr(node, "value_spans", {})
    return tuple((str(k), v, spans.get(k)) for k, v in node.items())


def written(m: Any) -> tuple[Written, ...]:
    """The module's declarations as written, section by section (a piece kind by its properties), then the
    properties its extensions add to a kind."""
    out: list[Written] = []
    for section in DECLARING:
        table = m.doc.get(section)
        for name, node in (table.items() if isinstance(table, dict) else []):
            span = _kspan(table, name, m.span)
            if section != "pieces":
                out.append(Written(section, str(name), m.id, span, _given(node)))
                continue
            props = node.get("properties") if isinstance(node, dict) else None
            for prop, spec in (props.items() if isinstance(props, dict) else []):
                out.append(Written("properties", str(prop), m.id, _kspan(props, prop, span), _given(spec)))
    table = m.doc.get("extend")
    for target, spec in (table.items() if isinstance(table, dict) else []):
        props = spec.get("properties") if str(target).startswith("pieces.") and isinstance(spec, dict) else None
        for prop, pspec in (props.items() if isinstance(props, dict) else []):
            out.append(Written("properties", str(prop), m.id, _kspan(props, prop, m.span), _given(pspec)))
    return tuple(out)
