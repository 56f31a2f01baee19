"""Each dispatch table (kind -> function) covers every kind: every effect class has its runner, every
expression class its range and its prose, every declaration kind its declaring function and its place in the
rulebook's components. A kind added without its entry fails here, not in a designer's game."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from conftest import HARVEST

from boardrules.analysis.ranges import RANGE_OF
from boardrules.analysis.tree import CHILDREN
from boardrules.diagnostics import Diagnostics
from boardrules.engine import effects as e
from boardrules.engine.interpreter import RUNNERS
from boardrules.language import checked as c
from boardrules.language import syntax as s
from boardrules.language.checker import ATTRS_OF
from boardrules.language.effect_builder import ASSIGN_TO, BLOCKS
from boardrules.language.emitter import ATTR_SRC, NAME_SRC
from boardrules.language.linker import BUILT, DECLARE, DECLARED
from boardrules.language.pack import discover, load_modules
from boardrules.language.sections import BLOCK_KEYS, DECLARING
from boardrules.language.types import MARKER, PIECE, PLAYER, ZONE
from boardrules.tools import prose, prose_effects
from boardrules.tools.coverage import BRANCHES
from boardrules.tools.explain import COMPONENTS, ENTRY_TITLES, Book

ROOT = Path(__file__).resolve().parent.parent


def _effect_classes() -> set[type]:
    return {c for _, c in inspect.getmembers(e, inspect.isclass)
            if issubclass(c, e.Effect) and c is not e.Effect and c.__module__ == e.__name__}


def test_every_effect_class_has_its_runner() -> None:
    kinds = _effect_classes()
    assert len(kinds) >= 38
    assert set(RUNNERS) == kinds


def _expression_section() -> set[str]:
    """The classes syntax.py defines under its 'expressions' heading, before 'costs'."""
    source = (ROOT / "interpreter" / "language" / "syntax.py").read_text(encoding="utf-8")
    lines = source.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("# ---") and "expressions" in line)
    end = next(i for i, line in enumerate(lines) if line.startswith("# ---") and "costs" in line)
    return {n.name for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and start < n.lineno <= end}


def test_the_expression_kinds_are_every_expression_class() -> None:
    # `take ACTION(...)` is a statement, written beside can_take which it resembles
    assert {c.__name__ for c in s.EXPRESSIONS} == _expression_section() - {"Take"}
    assert len(set(s.EXPRESSIONS)) == len(s.EXPRESSIONS)


def test_every_checked_kind_has_its_range() -> None:
    assert set(RANGE_OF) == _checked_classes()


def _checked_classes() -> set[type]:
    return {k for _, k in inspect.getmembers(c, inspect.isclass)
            if issubclass(k, c.Node) and k is not c.Node and k.__module__ == c.__name__}


def test_the_prose_says_every_checked_node_every_name_kind_and_every_effect() -> None:
    assert len(_checked_classes()) >= 25
    assert set(prose.EXPRESSIONS) == _checked_classes()
    assert set(prose.NAMES) == set(c.NAME_KINDS)
    assert set(prose_effects.EFFECTS) == _effect_classes()


def test_every_declaration_kind_is_declared_or_built() -> None:
    assert (*DECLARE, *BUILT) == DECLARING
    assert set(DECLARED) <= set(DECLARE)


def test_the_rulebook_tells_every_component_kind() -> None:
    # the components section tells every declaration, and the ways to pay; each other rule kind has a section
    assert set(COMPONENTS) == set(DECLARE) | {"costs", "substitutes"}
    diags = Diagnostics()
    (pack,) = discover([HARVEST], diags)
    modules = load_modules(pack.module_files, diags)
    book = Book(modules, list(modules))
    said = {kind: say(book) for kind, say in COMPONENTS.items()}
    assert all(entry in ENTRY_TITLES for entry, _ in said.values())
    assert all(lines for kind, (_, lines) in said.items() if kind in ("sets", "values", "counters", "zones"))
    # the book's order: kinds of things, then numbers, then the rest
    entries = [e.id for e in book.components().entries]
    assert entries == ["components.sets", "components.values", "components.pieces", "components.substitutes"]
    assert {sec.id for sec in book.document().sections} >= set(BUILT) - set(COMPONENTS)


def test_the_emitter_reads_every_kind_of_name_and_attribute() -> None:
    assert set(ATTR_SRC) == set(c.ATTR_KINDS)
    assert set(NAME_SRC) == set(c.NAME_KINDS)


def test_every_block_kind_is_built() -> None:
    assert list(BLOCKS) == list(BLOCK_KEYS)


def test_the_checker_reads_the_attributes_of_every_type_that_has_them() -> None:
    # a player's counters, zones, seat and markers; a piece's fields and properties; a zone's owner; a marker's
    # position (every ATTR_KINDS entry but `dynamic`, which an object of a type known only at run time gives)
    assert set(ATTRS_OF) == {PLAYER, PIECE, ZONE, MARKER}


def test_every_assignable_target_has_its_builder() -> None:
    # what `TARGET op= VALUE` can set: a name (a local, the start player, a game counter), a keyed counter's cell,
    # a player's counter or a piece's property
    assert set(ASSIGN_TO) == {s.Name, s.Index, s.Attr}


def test_coverage_knows_the_bodies_of_every_block_effect() -> None:
    assert set(BRANCHES) == set(CHILDREN)
