"""Declarations for tools that play whole games: invariants, the bots' score, what players cannot see, and
piece kinds whose count never changes. Linked after the flow, from every module in requires order."""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostics, did_you_mean
from ..engine.rules import InvariantDef, Rules
from .compiler import Scope
from .effect_builder import Builder
from .ynodes import key_span as _kspan
from .ynodes import value_span as _vspan


def link_play_decls(rules: Rules, ordered: list[Any], diags: Diagnostics) -> None:
    b = Builder(rules, diags)
    for m in ordered:
        table = m.doc.get("invariants")
        for name, node in (table.items() if isinstance(table, dict) else []):
            span = _kspan(table, name, m.span)
            spec = node if isinstance(node, dict) else {"check": node}
            per = str(spec.get("per", "game"))
            where = _vspan(spec, "check", _vspan(table, name, span)) if isinstance(node, dict) else _vspan(
                table, name, span)
            fn = b.expression(spec.get("check"), where, Scope({}, per == "player"))
            if fn is not None:
                check = spec.get("check")  # a YAML string keeps its place
                rules.invariants.append(InvariantDef(f"{m.id}.{name}", per, fn,
                                                     check if isinstance(check, str) else str(check), span))
        if "bot_score" in m.doc:
            fn = b.expression(m.doc["bot_score"], _vspan(m.doc, "bot_score", m.span), Scope({}, True))
            if fn is not None:
                rules.bot_score = fn
        hidden = m.doc.get("hidden")
        for name, whom in (hidden.items() if isinstance(hidden, dict) else []):
            span = _kspan(hidden, name, m.span)
            known = {**rules.zones, **rules.counters}
            if name not in known:
                diags.error("E401", f"unknown zone or counter '{name}'", span, did_you_mean(str(name), known))
            else:
                rules.hidden[str(name)] = str(whom)
        pieces = m.doc.get("pieces")
        for kind, node in (pieces.items() if isinstance(pieces, dict) else []):
            if isinstance(node, dict) and node.get("conserved") is True:
                rules.conserved.add(str(kind))
