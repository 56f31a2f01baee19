"""Build the `substitutes:` section: ways to pay part of any cost with something else."""

from __future__ import annotations

from typing import Any

from ..engine.rules import Rules
from ..engine.substitution import SubstituteDef
from . import syntax as s
from .compile_error import CompileError
from .compiler import Scope
from .effect_builder import Builder, Text, _Reported
from .marker_costs import marker_term


def build(b: Builder, rules: Rules, name: str, d: Any) -> None:
    if not isinstance(d.node, dict):
        return  # the schema reports it
    n = d.node
    spans = getattr(n, "value_spans", {})
    pay_text = Text(n.get("pay", ""), spans.get("pay", d.span))
    pay = b.parse(pay_text, "cost")
    with_text = Text(n.get("with", ""), spans.get("with", d.span))
    instead = b.parse(with_text, "cost")
    if pay is None or instead is None:
        return
    assert isinstance(pay, s.Cost) and isinstance(instead, s.Cost)  # what the "cost" start symbol gives
    alts = pay.alternatives
    if len(alts) != 1 or not isinstance(alts[0], s.CostSum) or len(alts[0].terms) != 1:
        b.error("E402", "a substitution stands in for one term: 'N counter', 'N counter[key]' or "
                "'N counter[any]'", pay_text.at(pay.pos))
        return
    term = alts[0].terms[0]
    if term.lacking is not None or any(isinstance(a, s.CostSum) and any(x.lacking for x in a.terms)
                                       for a in instead.alternatives):
        b.error("E402", "'lacking' belongs in a cost; a substitute says it with shortfall: true",
                pay_text.at(term.pos) if term.lacking is not None else with_text.at(instead.pos))
        return
    counter = rules.counters.get(term.counter)
    unit = term.amount.value if isinstance(term.amount, s.Literal) else None
    marker = marker_term(rules, term) if counter is None else None
    if isinstance(marker, CompileError):
        b.error(marker.code, marker.message, pay_text.at(term.pos), marker.hint)
        return
    if type(unit) is not int or unit < 1:
        b.error("E402", "the unit a substitution stands in for is a whole number of at least 1", pay_text.at(term.pos))
        return
    if counter is not None and (term.key == "different" or (term.key is None) != (counter.keys is None) or (
            term.key not in (None, "any") and term.key not in (counter.keys or ()))):
        b.error("E402", f"write '{term.counter}' with [any] or one of its keys" if counter.keys else
                f"counter '{term.counter}' has no keys", pay_text.at(term.pos))
        return
    if len(instead.alternatives) != 1:
        b.error("E402", "what is paid instead is one sum, without 'or'", with_text.at(instead.pos))
        return
    scope = Scope({}, True)
    try:
        paid = b.cost(instead, scope, with_text)
    except _Reported as err:
        b.error(err.err.code, err.err.message, err.text.at(err.err.pos), err.err.hint)
        return
    guard = b.expression(n["if"], spans.get("if", d.span), scope) if "if" in n else None
    rules.substitutes.append(SubstituteDef(name, term.counter, term.key, unit, paid.alternatives[0], guard, d.span,
                                           n.get("shortfall") is True, (str(n.get("pay")), str(n.get("with"))),
                                           pay_text.at(term.pos)))
