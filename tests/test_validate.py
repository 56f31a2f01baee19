"""Schema validation: each kind of message, at its place in the YAML, with its hint."""

from __future__ import annotations

from typing import Any

import pytest

from boardrules.diagnostics import Diagnostic, Diagnostics, Span
from boardrules.language.loader import load_yaml_text
from boardrules.language.validate import load_schema, validate
from boardrules.resources import grammar_dir

F = "pack/thing.yaml"

NAME = {"type": "string", "pattern": "^[a-z_][a-z0-9_]*$", "description": "a snake_case name"}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "module": {"type": "string", "pattern": "^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$"},
        "title": {"type": "string", "minLength": 1, "description": "A readable title."},
        "requires": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        "count": {"type": "integer", "minimum": 1, "maximum": 9},
        "per": {"enum": ["player", "game"]},
        "kind": {"const": "rule"},
        "label": {"type": "string"},
        "tags": {"type": "array", "minItems": 1},
        "things": {
            "type": "object",
            "propertyNames": {"$ref": "#/$defs/name"},
            "additionalProperties": {"$ref": "#/$defs/thing"},
        },
        "steps": {"type": "array", "items": {"$ref": "#/$defs/step"}},
        "amount": {"anyOf": [{"type": "integer"}, {"$ref": "#/$defs/name"}]},
        "shape": {"oneOf": [{"type": "integer"}, {"type": "boolean"}, {"type": "array"}]},
        "block": {"$ref": "#/$defs/block"},
    },
    "required": ["module", "title"],
    "additionalProperties": False,
    "$defs": {
        "name": NAME,
        "thing": {
            "type": "object",
            "properties": {"size": {"type": "integer"}, "colour": {"$ref": "#/$defs/name"}},
            "additionalProperties": False,
        },
        "step": {
            "oneOf": [
                {"type": "string"},
                {
                    "type": "object",
                    "properties": {"if": {"type": "string"}, "then": {"$ref": "#/$defs/steps"},
                                   "else": {"$ref": "#/$defs/steps"}},
                    "required": ["if", "then"],
                    "additionalProperties": False,
                },
                {
                    "type": "object",
                    "properties": {"repeat": {"type": "integer"}, "do": {"$ref": "#/$defs/steps"}},
                    "required": ["repeat", "do"],
                    "additionalProperties": False,
                },
            ]
        },
        "steps": {"type": "array", "items": {"$ref": "#/$defs/step"}},
        "block": {
            "type": "object",
            "anyOf": [{"required": ["if"]}, {"required": ["for"]}, {"required": ["repeat"]}],
        },
    },
}


def check(text: str, schema: dict[str, Any] | None = None) -> tuple[bool, list[Diagnostic]]:
    diags = Diagnostics()
    doc = load_yaml_text(text, F, diags)
    assert diags.items == [], diags.items
    valid = validate(doc, SCHEMA if schema is None else schema, diags, F)
    assert valid == (not diags.items)
    return valid, diags.items


def one(text: str, schema: dict[str, Any] | None = None) -> Diagnostic:
    _, items = check(text, schema)
    assert len(items) == 1, items
    assert items[0].code == "E201"
    return items[0]


def where(d: Diagnostic) -> tuple[int, int]:
    assert d.span is not None and d.span.file == F
    return d.span.line, d.span.col


HEAD = "module: demo\ntitle: Demo\n"


def test_a_valid_document_adds_nothing() -> None:
    valid, items = check(HEAD + "count: 3\nsteps: [a, {if: x, then: [b]}, {repeat: 2, do: []}]\n")
    assert valid and items == []


def test_unknown_key_at_the_key_with_a_suggestion() -> None:
    d = one(HEAD + "requirs: [a]\n")
    assert where(d) == (3, 1)
    assert d.message == "unknown key 'requirs' at the top level"
    assert d.hint == "did you mean 'requires'?"


def test_unknown_key_without_a_close_name_lists_the_known_keys() -> None:
    d = one(HEAD + "things:\n  rock: {size: 1, zzz: 2}\n")
    assert where(d) == (4, 19)
    assert d.message == "unknown key 'zzz' in things.rock"
    assert d.hint == "known keys: colour, size"


def test_each_unknown_key_is_its_own_diagnostic() -> None:
    _, items = check(HEAD + "titel: x\nrequire: []\n")
    assert [(where(d), d.message, d.hint) for d in items] == [
        ((3, 1), "unknown key 'titel' at the top level", "did you mean 'title'?"),
        ((4, 1), "unknown key 'require' at the top level", "did you mean 'requires'?"),
    ]


def test_missing_key_at_the_mapping() -> None:
    d = one("module: demo\ncount: 2\n")
    assert where(d) == (1, 1)
    assert d.message == "missing key 'title'"
    assert d.hint == "A readable title."


def test_missing_keys_are_reported_one_by_one() -> None:
    _, items = check("count: 2\n")
    assert sorted(d.message for d in items) == ["missing key 'module'", "missing key 'title'"]


def test_type_at_the_value() -> None:
    d = one(HEAD + "count: abc\n")
    assert where(d) == (3, 8)
    assert d.message == "expected integer, got string 'abc'"
    d = one(HEAD + "things: [1]\n")
    assert d.message == "expected mapping, got a list" and where(d) == (3, 9)
    d = one(HEAD + "requires: {a: 1}\n")
    assert d.message == "expected list, got a mapping"


def test_type_hint_for_yaml_booleans_and_nulls() -> None:
    d = one(HEAD + "label: yes\n")
    assert d.message == "expected string, got boolean true"
    assert d.hint is not None and "quote" in d.hint
    d = one(HEAD + "label:\n")
    assert d.message == "expected string, got null (an empty value)" and where(d) == (3, 7)


def test_enum_lists_the_allowed_values_and_suggests() -> None:
    d = one(HEAD + "per: plyer\n")
    assert where(d) == (3, 6)
    assert d.message == "expected one of 'player', 'game', got string 'plyer'"
    assert d.hint == "did you mean 'player'?"


def test_const() -> None:
    d = one(HEAD + "kind: rules\n")
    assert d.message == "expected 'rule', got string 'rules'" and where(d) == (3, 7)


def test_pattern_in_words() -> None:
    d = one(HEAD + "things:\n  Bad-Name: {}\n")
    assert where(d) == (4, 3)  # a key's name is wrong: at the key
    assert d.message == (
        "'Bad-Name' is not a valid name (lower-case letters, digits and _, not starting with a digit)"
    )
    assert d.hint == "a snake_case name"
    d = one("module: Demo.x\ntitle: T\n")
    assert where(d) == (1, 9)
    assert d.message == (
        "'Demo.x' is not a valid dotted name (words of lower-case letters, digits and _, joined by dots)"
    )


def test_pattern_that_cannot_be_put_in_words() -> None:
    schema = {"type": "object", "properties": {"p": {"type": "string", "pattern": "^p[1-9]$"}}}
    d = one("p: q1\n", schema)
    assert d.message == "'q1' does not have the expected form (^p[1-9]$)"


def test_bounds_lengths_and_uniqueness() -> None:
    cases = {
        "count: 0": ((3, 8), "expected at least 1, got 0"),
        "count: 12": ((3, 8), "expected at most 9, got 12"),
        "title: ''": ((2, 8), "expected a non-empty string"),
        "tags: []": ((3, 7), "expected at least 1 item, got 0"),
        "requires: [a, b, a]": ((3, 11), "items must be unique: 'a' appears more than once"),
    }
    for line, (place, message) in cases.items():
        text = HEAD.replace("title: Demo", "title: ''") if line.startswith("title") else HEAD + line + "\n"
        d = one(text)
        assert (where(d), d.message) == (place, message), line


def test_typo_deep_in_a_one_of_is_reported_at_the_deepest_path() -> None:
    text = HEAD + "steps:\n  - a\n  - if: x\n    then:\n      - b\n      - {repeat: 2, do: [c], dox: 1}\n"
    d = one(text)
    assert where(d) == (8, 30)
    assert d.message == "unknown key 'dox' in steps[1].then[1]"
    assert d.hint == "did you mean 'do'?"


def test_one_of_picks_the_alternative_that_knows_the_keys() -> None:
    d = one(HEAD + "steps:\n  - {if: x, then: [], els: []}\n")
    assert where(d) == (4, 23)
    assert d.message == "unknown key 'els' in steps[0]" and d.hint == "did you mean 'else'?"
    d = one(HEAD + "steps:\n  - {repeat: x, do: []}\n")
    assert where(d) == (4, 14) and d.message == "expected integer, got string 'x'"
    d = one(HEAD + "steps:\n  - {if: x}\n")
    assert where(d) == (4, 5) and d.message == "missing key 'then'"


def test_one_of_with_no_alternative_of_the_right_type() -> None:
    d = one(HEAD + "steps: [5]\n")
    assert where(d) == (3, 9)
    assert d.message == "expected string or mapping, got integer 5"
    d = one(HEAD + "shape: text\n")
    assert d.message == "expected integer, boolean or list, got string 'text'"


def test_any_of_reports_the_alternative_of_the_right_type() -> None:
    d = one(HEAD + "amount: Big-One\n")
    assert where(d) == (3, 9)
    assert d.message.startswith("'Big-One' is not a valid name")
    d = one(HEAD + "amount: 1.5\n")
    assert d.message == "expected integer or string, got number 1.5"


def test_any_of_required_alternatives_name_the_keys() -> None:
    d = one(HEAD + "block: {iff: x}\n")
    assert where(d) == (3, 8)
    assert d.message == "expected one of the keys 'if', 'for' or 'repeat'"
    assert d.hint == "did you mean 'if'?"


def test_all_problems_are_reported_once_each() -> None:
    text = HEAD + "count: x\nper: p\ntitel: y\nsteps: [1, {if: a, then: [], els: []}]\n"
    _, items = check(text)
    assert [where(d) for d in items] == [(3, 8), (4, 6), (5, 1), (6, 9), (6, 30)]
    assert len(set(items)) == len(items)
    diags = Diagnostics()
    doc = load_yaml_text(HEAD + "count: x\n", F, diags)
    validate(doc, SCHEMA, diags, F)
    validate(doc, SCHEMA, diags, F)
    assert len(diags.sorted()) == 1


def test_a_document_without_positions_is_placed_at_the_file_start() -> None:
    diags = Diagnostics()
    assert not validate({"module": "m", "title": 3}, SCHEMA, diags, "other.yaml")
    [d] = diags.items
    assert d.span == Span("other.yaml", 1, 1) and d.message == "expected string, got integer 3"


def test_the_root_must_be_a_mapping() -> None:
    d = one("- a\n")
    assert where(d) == (1, 1) and d.message == "expected mapping, got a list"


def test_schemas_are_loaded_once() -> None:
    module_schema = grammar_dir() / "module.schema.json"
    if not module_schema.exists():
        pytest.skip("grammar/module.schema.json is not written yet")
    assert load_schema("module") is load_schema("module")


def test_the_module_schema_with_real_messages() -> None:
    if not (grammar_dir() / "module.schema.json").exists():
        pytest.skip("grammar/module.schema.json is not written yet")
    schema = load_schema("module")
    diags = Diagnostics()
    doc = load_yaml_text("module: demo.base\ntitle: Demo\nrequirs: [demo.core]\n", F, diags)
    assert not validate(doc, schema, diags, F)
    [d] = diags.items
    assert where(d) == (3, 1)
    assert d.message == "unknown key 'requirs' in module" and d.hint == "did you mean 'requires'?"
    good = Diagnostics()
    doc = load_yaml_text("module: demo.base\ntitle: Demo\nrequires: [demo.core]\n", F, good)
    assert validate(doc, schema, good, F) and good.items == []


def test_unevaluated_properties_know_keys_from_combined_schemas() -> None:
    schema = {
        "$defs": {"base": {"properties": {"source": {"type": "string"}}}},
        "type": "object",
        "allOf": [{"$ref": "#/$defs/base"}, {"properties": {"title": {"type": "string"}}}],
        "unevaluatedProperties": False,
    }
    d = one("title: x\nsorce: y\n", schema)
    assert where(d) == (2, 1)
    assert d.message == "unknown key 'sorce' at the top level" and d.hint == "did you mean 'source'?"


def test_pattern_properties_are_known_keys() -> None:
    schema = {
        "type": "object",
        "properties": {"title": {"type": "string"}},
        "patternProperties": {"^values\\.[a-z]+$": {"type": "integer"}},
        "additionalProperties": False,
    }
    _, items = check("values.x: 1\ntitle: t\nvalue.y: 2\n", schema)
    assert [(where(d), d.message) for d in items] == [((3, 1), "unknown key 'value.y' at the top level")]
