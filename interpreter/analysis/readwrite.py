"""Read/write analysis: for every counter, zone, value, property, event, procedure and cost, which rules write it
and which read it; warn on what is declared but unused (W801), written but never read (W802), read but never
written (W803), and a cost paid in something no rule or setup ever provides (W804).

`input: true` on a declaration says scenarios or an embedding program set it; `output: true` says it exists to be
scored or shown. Both silence the warnings they explain.
"""

from __future__ import annotations

from ..diagnostics import Diagnostics
from .facts import KINDS, Decl, Facts

_START = {"counters": "starts at 0", "properties": "has no default", "zones": "starts empty"}
_W802 = ("counters", "properties", "events")
_ANY_USE = ("read", "write", "increase", "fill", "pay", "emit", "defer", "until", "call", "cost", "on")


def _starts_provided(decl: Decl) -> bool:
    """Whether a counter starts above zero (or at a value, a table or an unknown), or a property has a default."""
    raw = decl.written.get("initial" if decl.section == "counters" else "default")
    if raw is None or raw is False:
        return False
    return not (isinstance(raw, int) and raw <= 0)


def check(facts: Facts, diags: Diagnostics) -> None:
    paid_unprovided = _costs(facts, diags)
    for section in ("counters", "zones", "values", "events", "procedures", "costs", "properties"):
        what = KINDS[section]
        for name, decl in facts.decls[section].items():
            unmarked = name not in facts.inputs and name not in facts.outputs
            if unmarked and not facts.used(name, *_ANY_USE, section=section):
                diags.warning("W801", f"{what} '{name}' is declared but never used", decl.span,
                              "remove it, or mark it input: true if only scenarios or a program use it")
                continue
            # Each question is asked only where its answer decides a warning: a name the whole link does not use
            # makes every link count.
            unread = name not in facts.outputs and section in _W802
            unwritten = name not in facts.inputs and name not in paid_unprovided and section in _START \
                and not _starts_provided(decl)
            if not (unread or unwritten):
                continue
            if _written(facts, section, name):
                if unread and not _read(facts, section, name):
                    verb = "emitted, but no trigger reacts to it" if section == "events" else "written but never read"
                    diags.warning("W802", f"{what} '{name}' is {verb}", decl.span,
                                  "mark it output: true if it exists to be scored or shown")
            elif unwritten and _read(facts, section, name) and not (section == "counters"
                                                                    and _only_ranked(facts, name)):
                diags.warning("W803", f"{what} '{name}' is read, but no rule or setup ever sets it and it "
                              f"{_start(decl)}", decl.span, "mark it input: true if scenarios or a program set it")


def _start(decl: Decl) -> str:
    """How a declaration starts, in words: a property with a default of 0 or false has one."""
    default = decl.written.get("default")
    if decl.section == "properties" and default is not None:
        return f"is always its default ({str(default).lower() if isinstance(default, bool) else default})"
    return _START[decl.section]


def _only_ranked(facts: Facts, name: str) -> bool:
    """Whether only the ranking reads a counter: W856 reports that at the ranking key."""
    reads = facts.used(name, "read", "pay", "call", "cost", section="counters")
    return bool(reads) and all(r.rule == "flow.ranking" for r in reads)


def _written(facts: Facts, section: str, name: str) -> bool:
    if section == "zones":
        return bool(facts.used(name, "fill"))
    if section == "events":
        return bool(facts.used(name, "emit", "defer"))
    return bool(facts.used(name, "write", "increase", section=section))


def _read(facts: Facts, section: str, name: str) -> bool:
    if section == "events":
        return bool(facts.used(name, "on", "until"))
    return bool(facts.used(name, "read", "pay", "call", "cost", section=section))


def _costs(facts: Facts, diags: Diagnostics) -> set[str]:
    """W804 for each cost term paid in a counter nothing provides; the counters reported."""
    reported: set[str] = set()
    for ref in facts.used_kind("pay"):
        name = ref.name
        decl = facts.decls["counters"].get(name)
        if decl is None or name in facts.inputs or _starts_provided(decl) or facts.used(name, "increase"):
            continue
        if ref.rule is None or ref.span() is None or ref.lacked:
            continue  # what the payer lacks is paid the other way: the cost can be paid all the same
        reported.add(name)
        diags.warning("W804", f"this cost is paid in '{name}', which starts at 0 and no rule or setup ever increases",
                      ref.span(), f"give counters.{name} an initial value, add a rule that gives it, "
                      "or mark it input: true")
    return reported
