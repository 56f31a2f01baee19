"""`extend:` a module adds options to, and drops options from, a `one_of` of a rule another module declares,
without restating the rule: `actions.sow: {one_of: {options: {...}, drop: [...]}}` for the rule's only `one_of`,
`actions.sow.crop: ...` for the one inside its named step `crop`.

The change is made to the rule's YAML before its body is built, so the options added are checked, compiled and
explained like the rule's own (their errors point into the extending module). Modules apply in `requires` order:
the options a module adds come after those already there, and a module drops only what the rule and the modules
it requires give (an option a module it does not require adds is unknown to it, E429), so the result never
depends on the order of two modules that do not know each other.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..diagnostics import Diagnostics, Span, did_you_mean
from ..engine.rules import ChoiceChange
from .loader import YList, YMap
from .sections import RULE_SECTIONS

CHOOSING = RULE_SECTIONS  # rules whose bodies may hold a one_of
_BODY_KEYS = ("do", "then", "else")


def _copy(node: Any) -> Any:
    """A shallow copy that keeps the node's places (so the other modules' view of the rule is not changed)."""
    if isinstance(node, YMap):
        out = YMap(node.span)
        out.update(node)
        out.key_spans.update(node.key_spans)
        out.value_spans.update(node.value_spans)
        return out
    if isinstance(node, YList):
        lst = YList(node.span)
        lst.extend(node)
        lst.item_spans.extend(node.item_spans)
        return lst
    if isinstance(node, (dict, list)):  # made by another extension, without places
        return type(node)(node)
    return node


def _find(node: Any, path: tuple[Any, ...], step: str | None, inside: bool, out: list[tuple[Any, ...]]) -> None:
    """The paths (keys and indexes from the rule) of every one_of in `node`, inside the named step when one is
    given."""
    if isinstance(node, list):
        for i, item in enumerate(node):
            _find(item, (*path, i), step, inside, out)
        return
    if not isinstance(node, dict):
        return
    if "step" in node and step is not None and str(node["step"]) == step:
        inside = True
    if "one_of" in node and isinstance(node["one_of"], dict) and inside:
        out.append(path)
    for key, value in node.items():
        if key == "one_of" and isinstance(value, dict):
            options = value.get("options")
            for label, opt in (options.items() if isinstance(options, dict) else []):
                _find(opt, (*path, "one_of", "options", label), step, inside, out)
        elif key in _BODY_KEYS or (key == "may" and isinstance(value, dict | list)):
            _find(value, (*path, key), step, inside, out)
        elif key == "cases" and isinstance(value, dict):
            for label, case in value.items():
                _find(case, (*path, key, label), step, inside, out)


def _open(rule: Any, path: tuple[Any, ...]) -> Any:
    """Copy the rule and every node on `path`, and return the copied one_of block's spec (`{options, by}`)."""
    root = _copy(rule)
    node = root
    for key in path:
        child = _copy(node[key])
        node[key] = child
        node = child
    spec = _copy(node["one_of"])
    node["one_of"] = spec
    spec["options"] = _copy(spec.get("options"))
    return root, spec


def target_decl(decls: dict[tuple[str, str], Any], key: tuple[str, str], target: str, sections: Collection[str],
                module: str, closure: dict[str, set[str]], span: Span, diags: Diagnostics,
                hinted: Collection[str] = ()) -> Any:
    """The declaration an `extend` entry of `module` names (`key`, a section and a name), or None after E406: it
    does not exist among `sections`, or belongs to a module that `module` does not require. The hint's guesses
    come from `sections` and `hinted`."""
    d = decls.get(key) if key[0] in sections else None
    if d is None:
        known = [f"{sec}.{n}" for sec, n in decls if sec in sections or sec in hinted]
        diags.error("E406", f"extend target '{target}' does not exist", span, did_you_mean(target, known))
        return None
    if d.module not in closure[module]:
        diags.error("E406", f"'{key[0]}.{key[1]}' belongs to {d.module}, which {module} does not require", span,
                    f"add {d.module} to requires")
        return None
    return d


def _walk(node: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        node = node[key]
    return node


def _said(m: Any, target: Any, change: Any, table: Any) -> ChoiceChange:
    options, drop = change.get("options"), change.get("drop")
    return ChoiceChange(m.id, str(target), tuple(str(o) for o in options) if isinstance(options, dict) else None,
                        tuple(str(o) for o in drop) if isinstance(drop, list) else None,
                        getattr(table, "key_spans", {}).get(target))


def apply(ordered: list[Any], closure: dict[str, set[str]], decls: dict[tuple[str, str], Any],
          diags: Diagnostics) -> list[ChoiceChange]:
    """Fold every module's `extend:` of a rule's one_of into the rule (in requires order); what each says."""
    origin: dict[tuple[str, str], str] = {}  # (target, option) -> the module that added it, or dropped it
    said: list[ChoiceChange] = []
    for m in ordered:
        table = m.doc.get("extend")
        if not isinstance(table, dict):
            continue
        for target, spec in table.items():
            section, _, rest = str(target).partition(".")
            if section not in CHOOSING:
                continue
            change = spec.get("one_of") if isinstance(spec, dict) else None
            if isinstance(change, dict):
                said.append(_said(m, target, change, table))
            span = getattr(table, "key_spans", {}).get(target, m.span)
            rule, _, step = rest.partition(".")
            d = target_decl(decls, (section, rule), str(target), CHOOSING, m.id, closure, span, diags)
            if d is None:
                continue
            if not isinstance(change, dict) or not isinstance(d.node, dict):
                continue  # the schema reports it
            _change(str(target), step or None, change, d, m, closure, origin, span, diags)
    return said


def _change(target: str, step: str | None, change: dict, d: Any, m: Any, closure: dict[str, set[str]],
            origin: dict[tuple[str, str], str], span: Span, diags: Diagnostics) -> None:
    found: list[tuple[Any, ...]] = []
    _find(d.node.get("do"), ("do",), step, step is None, found)
    if len(found) != 1:
        where = f"step '{step}' of '{'.'.join(target.split('.')[:2])}'" if step else f"'{target}'"
        if not found and step is not None and not _has_step(d.node.get("do"), step):
            diags.error("E406", f"{where} does not exist", span, "name a step with a block {step: NAME, do: [...]}")
        elif not found:
            diags.error("E428", f"{where} holds no one_of to extend", span)
        else:
            diags.error("E428", f"{where} holds {len(found)} one_of blocks, so which one to extend is unclear", span,
                        "put the one meant in a named step ({step: NAME, do: [...]}) and extend section.rule.NAME")
        return
    options = _walk(d.node, found[0])["one_of"].get("options")
    labels = [str(k) for k in options] if isinstance(options, dict) else []
    raw = change.get("drop", [])
    raw_spans = getattr(raw, "item_spans", None) or []
    pairs = [(x, raw_spans[i] if i < len(raw_spans) else span)  # the schema reports what is not a label
             for i, x in enumerate(raw if isinstance(raw, list) else []) if isinstance(x, str)]
    drop = [x for x, _ in pairs]
    add = change.get("options", {})
    add = add if isinstance(add, dict) else YMap(span)
    add_spans = getattr(add, "key_spans", {})
    ok = True
    for label, here in pairs:
        by = origin.get((target, str(label)))
        if str(label) not in labels and by is not None and by.startswith("-"):
            continue  # dropped already, by another module: dropping it twice is harmless
        if str(label) not in labels or (by is not None and by not in closure[m.id]):
            hint = (f"'{label}' is added by {by}, which {m.id} does not require" if by is not None and str(label)
                    in labels else did_you_mean(str(label), labels) or f"its options: {', '.join(labels)}")
            diags.error("E429", f"'{target}' has no option '{label}' to drop", here, hint)
            ok = False
    for label in add:
        if str(label) in labels and str(label) not in [str(x) for x in drop]:
            by = origin.get((target, str(label)), d.module)
            diags.error("E430", f"'{target}' already has an option '{label}' (from {by})", add_spans.get(label, span),
                        "give the added option a new label, or drop the old one in the same entry")
            ok = False
    if not ok:
        return
    kept = [x for x in labels if x not in {str(y) for y in drop}]
    if not kept and not add:
        diags.error("E428", f"'{target}' would have no option left", span, "keep or add at least one option")
        return
    root, spec = _open(d.node, found[0])
    new = spec["options"]
    for label in drop:
        if str(label) in labels:
            origin[(target, str(label))] = "-" + m.id
        new.pop(label, None)
        new.key_spans.pop(label, None)
        new.value_spans.pop(label, None)
    for label, opt in add.items():
        new[label] = opt
        new.key_spans[label] = add_spans.get(label, span)
        new.value_spans[label] = getattr(add, "value_spans", {}).get(label, span)
        origin[(target, str(label))] = m.id
    d.node = root


def _has_step(node: Any, step: str) -> bool:
    if isinstance(node, list):
        return any(_has_step(item, step) for item in node)
    if isinstance(node, dict):
        if "step" in node and str(node["step"]) == step:
            return True
        return any(_has_step(v, step) for v in node.values() if isinstance(v, dict | list))
    return False
