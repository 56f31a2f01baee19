"""`extend:` a module adds to what a required module declares: symbols to a set, keys to a keyed counter, a range
or an overflow behaviour to a counter, properties to a piece kind, a capacity to a zone.

Additions never change what is there: giving a counter a `max` it already has (with another value), a property
another type or default, or a zone a second capacity is a conflict (E407), whichever modules say it. Symbols and
keys added by several modules are simply joined. Everything downstream (the linker's checks, keyed counters on
an extended set, every place that iterates the set, `keys(...)`) sees the extended declaration.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostics, Span
from ..engine.rules import Addition
from ..engine.values import shown
from .extend_choices import CHOOSING, target_decl
from .loader import YList, YMap

EXTENDABLE = ("sets", "counters", "pieces", "zones")
_COUNTER_FIELDS = ("min", "max", "overflow", "carry_to", "underflow")
_ZONE_FIELDS = ("capacity", "overflow", "carry_to")


def _copy_map(node: Any, span: Any) -> YMap:
    out = YMap(getattr(node, "span", span))
    if isinstance(node, dict):
        out.update(node)
        out.key_spans.update(getattr(node, "key_spans", {}))
        out.value_spans.update(getattr(node, "value_spans", {}))
    return out


def _copy_list(node: Any, span: Any) -> YList:
    out = YList(getattr(node, "span", span))
    if isinstance(node, list):
        out.extend(node)
        out.item_spans.extend(getattr(node, "item_spans", []) or [span] * len(node))
    return out


def _append(target: YList, items: Any, span: Any) -> None:
    spans = getattr(items, "item_spans", None) or [span] * len(items)
    for item, item_span in zip(items, spans, strict=False):
        if item not in target:
            target.append(item)
            target.item_spans.append(item_span)


def _add_fields(node: Any, spec: Any, fields: tuple[str, ...], span: Span, conflict: Any,
                origin: dict[tuple[str, str, str], str], where: tuple[str, str], module: str) -> None:
    """Copy the fields `spec` gives onto a declaration that lacks them; a field it has with another value is a
    conflict (extend only adds)."""
    for key in fields:
        if key not in spec:
            continue
        if key in node and node[key] != spec[key]:
            conflict(key, node[key], spec[key])
            continue
        node[key] = spec[key]
        node.value_spans[key] = getattr(spec, "value_spans", {}).get(key, span)
        origin[(*where, key)] = module


def _words(module: str, section: str, name: str, items: Any, span: Span) -> list[Addition]:
    """The symbols or keys an extension writes, each with its place."""
    spans = getattr(items, "item_spans", None) or []
    return [Addition(module, section, name, str(word), spans[i] if i < len(spans) else span)
            for i, word in enumerate(items if isinstance(items, list) else [])]


def apply(ordered: list[Any], closure: dict[str, set[str]], decls: dict[tuple[str, str], Any],
          diags: Diagnostics) -> list[Addition]:
    """Fold every module's `extend:` into the declarations it extends (in requires order); what they add to sets
    and keyed counters."""
    origin: dict[tuple[str, str, str], str] = {}  # (section, name, field) -> the module that gave it
    additions: list[Addition] = []
    for m in ordered:
        table = m.doc.get("extend")
        if not isinstance(table, dict):
            continue
        for target, spec in table.items():
            span = getattr(table, "key_spans", {}).get(target, m.span)
            section, _, name = str(target).partition(".")
            if section in CHOOSING:
                continue  # a rule's one_of: extend_choices
            d = target_decl(decls, (section, name), str(target), EXTENDABLE, m.id, closure, span, diags,
                            CHOOSING)
            if d is None:
                continue

            def conflict(what: str, old: Any, new: Any, _t: tuple = (section, name, target, span, d, m)) -> None:
                sec, nm, tgt, sp, decl, mod = _t
                by = origin.get((sec, nm, what), decl.module)
                diags.error("E407", f"{tgt} already has {what} {shown(old)} (from {by}); {mod.id} gives {shown(new)}",
                            sp, "extend only adds; to change a value, replace the rule that uses it")

            if section == "sets":
                additions += _words(m.id, section, name, spec, span)
                merged = _copy_list(d.node, span)
                _append(merged, spec if isinstance(spec, list) else [], span)
                d.node = merged
            elif section == "counters":
                node = _copy_map(d.node, span)
                spec = spec if isinstance(spec, dict) else {}
                if "keys" in spec:
                    keys = node.get("keys")
                    if isinstance(keys, str):
                        diags.error("E402", f"{target} takes its keys from the set '{keys}'", span,
                                    f"extend sets.{keys} instead: every counter keyed by it gets the keys")
                    elif not isinstance(keys, list):
                        diags.error("E402", f"{target} has no keys, so keys cannot be added to it", span)
                    else:
                        additions += _words(m.id, section, name, spec["keys"], span)
                        merged = _copy_list(keys, span)
                        _append(merged, spec["keys"], span)
                        node["keys"] = merged
                _add_fields(node, spec, _COUNTER_FIELDS, span, conflict, origin, (section, name), m.id)
                d.node = node
            elif section == "pieces":
                node = _copy_map(d.node, span)
                props = _copy_map(node.get("properties", {}), span)
                added = spec.get("properties", {}) if isinstance(spec, dict) else {}
                for prop, pspec in (added.items() if isinstance(added, dict) else []):
                    if prop in props and props[prop] != pspec:
                        conflict(f"property '{prop}'", props[prop], pspec)
                        continue
                    props[prop] = pspec
                    props.key_spans[prop] = getattr(added, "key_spans", {}).get(prop, span)
                    origin[(section, name, f"property '{prop}'")] = m.id
                node["properties"] = props
                d.node = node
            else:  # zones
                node = _copy_map(d.node, span)
                spec = spec if isinstance(spec, dict) else {}
                _add_fields(node, spec, _ZONE_FIELDS, span, conflict, origin, (section, name), m.id)
                d.node = node
    return additions
