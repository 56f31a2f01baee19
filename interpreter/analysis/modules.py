"""Module combinations and follow-on errors.

- Two modules that set the same top-level fact (the player counts, or another setting a module gives once)
  where neither requires the other: which one wins depends on listing order (E831).
- An unknown name that a module of the pack declares, but that the linked modules do not require, gets the
  hint "declared in X: add X to requires" instead of a guess at a similar name; many such names are one error
  at the module's `requires`.
- One mistake, one error: the same diagnostic found by several links of the pack is reported once; one unknown
  name used in many places is one error that lists the other places; and when every use of a name fails while
  a close name is declared and never used, the error is at that declaration, which is where the typo is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from ..diagnostics import Diagnostic, Diagnostics, Span, did_you_mean
from ..language.linker import Module
from ..language.sections import DECLARING

# Top-level keys that are not settings: metadata, names declared, rule changes, the flow (the linker checks it),
# and sections every module adds to (hooks, additions, invariants, hidden information): the linker checks their
# entries against each other (E407), and sibling modules may each have one.
ADDITIVE = ("wrap", "extend", "invariants", "hidden")
NOT_FACTS = frozenset({"module", "title", "requires", "source", "notes", "note", "replace", "flow", *DECLARING,
                       *ADDITIVE})
_QUOTED = re.compile(r"'([^']+)'")


def closures(modules: dict[str, Module]) -> dict[str, set[str]]:
    """Each module with everything it requires, directly or not (depth first without recursion: a chain of a
    thousand modules must not reach Python's recursion limit)."""
    out: dict[str, set[str]] = {}
    for root in modules:
        if root in out:
            continue
        acc = {root: {root}}
        stack = [(root, iter(modules[root].requires))]
        while stack:
            mid, pending = stack[-1]
            req = next(pending, None)
            if req is None:
                stack.pop()
                out[mid] = acc.pop(mid)
                if stack:
                    acc[stack[-1][0]] |= out[mid]
            elif req in out:
                acc[mid] |= out[req]
            elif req in acc or req not in modules:  # a cycle, or a module the pack does not have
                acc[mid].add(req)
                if req not in modules:
                    out[req] = {req}
            else:
                acc[req] = {req}
                stack.append((req, iter(modules[req].requires)))
    return out


def declarations(modules: dict[str, Module]) -> dict[str, list[tuple[str, Span]]]:
    """Every name any module of the pack declares (sections, set symbols, keys, properties, markers, icons)."""
    out: dict[str, list[tuple[str, Span]]] = {}

    def add(name: object, mid: str, span: Span) -> None:
        out.setdefault(str(name), []).append((mid, span))

    for m in modules.values():
        for section in DECLARING:
            table = m.doc.get(section)
            if not isinstance(table, dict):
                continue
            kspans = getattr(table, "key_spans", {})
            for name, node in table.items():
                span = kspans.get(name, m.span)
                add(name, m.id, span)
                _nested(node, section, m.id, span, add)
    return out


def _nested(node: object, section: str, mid: str, span: Span, add: Callable[[object, str, Span], None]) -> None:
    items: list[tuple[object, Span]] = []
    if section == "sets" and isinstance(node, list):
        ispans = getattr(node, "item_spans", None) or []
        items = [(x, ispans[i] if i < len(ispans) else span) for i, x in enumerate(node)]
    elif isinstance(node, dict):
        for key in ("properties", "markers"):
            sub = node.get(key)
            if isinstance(sub, dict):
                kspans = getattr(sub, "key_spans", {})
                items += [(k, kspans.get(k, span)) for k in sub]
        keys = node.get("keys")
        if isinstance(keys, list):
            ispans = getattr(keys, "item_spans", None) or []
            items += [(x, ispans[i] if i < len(ispans) else span) for i, x in enumerate(keys)]
    for name, where in items:
        add(name, mid, where)


def conflicts(modules: dict[str, Module], diags: Diagnostics) -> None:
    closure = closures(modules)
    setters: dict[str, list[Module]] = {}
    for m in modules.values():
        for key in m.doc:
            if str(key) not in NOT_FACTS:
                setters.setdefault(str(key), []).append(m)
    for key, ms in setters.items():
        for i, later in enumerate(ms):
            for earlier in ms[:i]:
                if earlier.id in closure[later.id] or later.id in closure[earlier.id]:
                    continue
                # Either place may be the mistake, so each gets the error, naming the other.
                for here, there in ((earlier, later), (later, earlier)):
                    span = getattr(here.doc, "key_spans", {}).get(key, here.span)
                    diags.error("E831", f"{here.id} sets '{key}', and so does {there.id}; neither requires the other",
                                span, f"make one require the other (the requiring one wins), or set '{key}' in one "
                                "of them")
                break


def not_required(items: list[Diagnostic], start: int, modules: dict[str, Module], root: str,
                 declared: dict[str, list[tuple[str, Span]]]) -> None:
    """The unknown-name errors of items[start:] (found linking `root`) whose names a module of the pack declares
    that `root` does not require: one such name gets the hint to add the module to requires; several become one
    error at `root`'s requires."""
    linked = closures(modules).get(root, {root})
    missing: dict[str, list[int]] = {}
    for i in range(start, len(items)):
        d = items[i]
        name = _name(d)
        owners = sorted({mid for mid, _ in declared.get(name or "", [])} - linked)
        if d.code == "E401" and owners:
            missing.setdefault(owners[0], []).append(i)
    drop: set[int] = set()
    for owner, idxs in missing.items():
        hint = f"add {owner} to the requires of {root}"
        if len(idxs) == 1:
            d = items[idxs[0]]
            items[idxs[0]] = replace(d, hint=f"'{_name(d)}' is declared in {owner}: {hint}")
            continue
        m = modules[root]
        span = getattr(m.doc, "key_spans", {}).get("requires", m.span)
        names = sorted({_name(items[i]) or "" for i in idxs})
        shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
        items[idxs[0]] = Diagnostic("error", "E401", f"{root} uses names declared in {owner} ({shown}), but does not "
                                    f"require it", span, f"{hint}; first use at {items[idxs[0]].span}")
        drop.update(idxs[1:])
    items[start:] = [d for i, d in enumerate(items[start:], start) if i not in drop]


def _name(d: Diagnostic) -> str | None:
    m = _QUOTED.search(d.message)
    return m.group(1) if m else None


def one_error_per_mistake(items: list[Diagnostic], declared: dict[str, list[tuple[str, Span]]],
                          used: set[str]) -> list[Diagnostic]:
    """Drop repeats of one finding, and fold the unknown-name errors of one name into one (see the module doc)."""
    seen: set[tuple] = set()
    unique: list[Diagnostic] = []
    for d in items:
        key = (d.code, d.span, d.message)
        if key not in seen:
            seen.add(key)
            unique.append(d)
    by_name: dict[str, list[int]] = {}
    for i, d in enumerate(unique):
        name = _name(d)
        if d.code == "E401" and name is not None and d.span is not None:
            by_name.setdefault(name, []).append(i)
    drop: set[int] = set()
    for name, idxs in by_name.items():
        first = unique[idxs[0]]
        close = None if name in declared else did_you_mean(name, [n for n in declared if n not in used])
        typo = close.split("'")[1] if close else None
        if typo is not None and len(declared.get(typo, [])) == 1 and len(idxs) > 1:
            span = declared[typo][0][1]
            unique[idxs[0]] = Diagnostic(
                "error", "E401", f"'{typo}' is declared here, but the rules say '{name}' ({_places(len(idxs))})",
                span, f"rename it to '{name}', or change the uses to '{typo}'; first use at {first.span}")
        elif len(idxs) > 1:
            others = ", ".join(str(unique[i].span) for i in idxs[1:4]) + (", ..." if len(idxs) > 4 else "")
            unique[idxs[0]] = replace(first, hint=f"{first.hint + '; ' if first.hint else ''}"
                                      f"'{name}' is also used at {others}")
        drop.update(idxs[1:])
    return [d for i, d in enumerate(unique) if i not in drop]


def _places(n: int) -> str:
    return "once" if n == 1 else f"{n} times"
