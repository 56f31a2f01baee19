"""What the linker resolved a formula's names to, read off the linked tree, for the editor's syntax index.

`x.reward` is a piece's property or a player's counter depending on x's type: the syntax alone cannot tell,
the checked tree can (`Attr.kind`, the state key an assignment writes). The editor's index parses each string
of a module on its own (formulas.py), and the parser's cache makes that the linker's own parse, so a checked
node leads back to the syntax node the index holds through its `syntax`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..analysis.uses import Index
from ..engine import effects as e
from ..engine.rules import Rules
from ..language import checked as c
from ..language import syntax as s
from ..language.types import PIECE

# The declaration section a checked node names, by its kind: reads of a player's counter or a piece's property,
# and the counter cell or key an assignment writes (whose syntax is the name written).
_ATTR_SECTIONS = {"counter": "counters", "family": "counters", "property": "properties"}
_SECTION_OF: dict[type, Callable[[Any], str | None]] = {
    c.Attr: lambda n: _ATTR_SECTIONS.get(n.kind),
    c.Cell: lambda n: "counters",
    c.CounterKey: lambda n: "counters",
}


def sections(rules: Rules) -> Callable[[s.Node], str | None]:
    """The section ("counters", "properties") a syntax node of the rules' formulas was resolved to, or None."""
    found: dict[int, tuple[s.Node, str]] = {}
    written: dict[int, s.Node] = {}  # the piece of each `x.prop = v`: that target is the piece's property
    ix = Index(rules)
    for f in ix.formulas:
        for n in f.nodes:
            say = _SECTION_OF.get(type(n))
            named = say(n) if say is not None else None
            if named is not None:
                found[id(n.syntax)] = (n.syntax, named)
    for _, eff, _ in ix.effects:
        piece = eff.piece.tree if isinstance(eff, e.SetPropE) else None
        if piece is not None and piece.type == PIECE:
            written[id(piece.syntax)] = piece.syntax

    def section(node: s.Node) -> str | None:
        hit = found.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        obj = node.obj if isinstance(node, s.Attr) else None
        return "properties" if obj is not None and written.get(id(obj)) is obj else None

    return section
