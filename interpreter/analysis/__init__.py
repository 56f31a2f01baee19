"""Static analysis of a whole pack (`boardrules check`): each analysis is one module with a `check` function."""

from __future__ import annotations

from ..diagnostics import Diagnostics
from ..engine.rules import Rules
from ..language.linker import Module
from . import events, readwrite
from .facts import gather

ANALYSES = (readwrite.check, events.check)


def analyse(modules: dict[str, Module], rules: Rules, diags: Diagnostics) -> None:
    """Run every analysis over the pack's modules linked together (`rules`)."""
    facts = gather(modules, rules)
    for check in ANALYSES:
        check(facts, diags)
