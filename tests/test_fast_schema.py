"""The compiled yes/no schema check (fast_schema.py) says "valid" exactly when jsonschema does: on every YAML file
of the repository against each schema, on documents changed at random, and on the edge cases of JSON equality."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from boardrules.diagnostics import Diagnostics
from boardrules.language import fast_schema
from boardrules.language.loader import load_yaml_bytes
from boardrules.language.validate import _validator, load_schema

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ("module", "scenario", "save")
FILES = sorted(p for d in ("rules", "tests", "examples") for p in (ROOT / d).rglob("*.yaml"))


def _loaded() -> list[tuple[str, Any]]:
    out = []
    for path in FILES:
        doc = load_yaml_bytes(path.read_bytes(), path.name, Diagnostics())
        if doc is not None:
            out.append((str(path.relative_to(ROOT)), doc))
    return out


DOCS = _loaded()


def jsonschema_valid(doc: object, name: str) -> bool:
    return _validator(load_schema(name)).is_valid(doc)


def test_every_shipped_schema_compiles() -> None:
    for name in SCHEMAS:
        assert fast_schema.compiled(name) is not None, name


def test_it_agrees_with_jsonschema_on_every_file_of_the_repository() -> None:
    assert len(DOCS) > 200
    valid = 0
    for name in SCHEMAS:
        for path, doc in DOCS:
            expected = jsonschema_valid(doc, name)
            assert fast_schema.valid(doc, name) == expected, (path, name)
            valid += expected
    assert valid > 150  # both answers are exercised


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 12) | st.floats(allow_nan=False, width=16)
                    | st.sampled_from(["", "p1", "p0", "E201", "x", "coins", "a.b", "m:3", "Ab"]),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.sampled_from(["action", "player", "end_turn", "end_round", "code", "id", "kind", "zone",
                                         "x", "p1", "players", "modules", "scenario", "counters", "note"]),
                        inner, max_size=3), max_leaves=8)


def _paths(doc: Any, here: tuple = ()) -> list[tuple]:
    out = [here]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*here, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _paths(v, (*here, i))
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(DOCS))), st.data(), st.sampled_from(SCHEMAS))
def test_it_agrees_with_jsonschema_on_changed_documents(index: int, data: st.DataObject, name: str) -> None:
    doc = copy.deepcopy(DOCS[index][1])
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        *parent_path, last = data.draw(st.sampled_from(paths))
        parent = doc
        for step in parent_path:
            parent = parent[step]
        if data.draw(st.booleans()) and isinstance(parent, dict):
            del parent[last]
        else:
            parent[last] = data.draw(JSON)
    assert fast_schema.valid(doc, name) == jsonschema_valid(doc, name)


@pytest.mark.parametrize(("a", "b", "same"), [
    (True, 1, False), (False, 0, False), (1, 1.0, True), (None, 0, False), (None, None, True),
    ([1, True], [1, True], True), ([1], [True], False), ({"a": 1}, {"a": 1.0}, True), ("1", 1, False)])
def test_json_equality_tells_true_from_one(a: object, b: object, same: bool) -> None:
    assert fast_schema.equal(a, b) is same
    schema = {"const": a}
    assert fast_schema.compile_schema(schema)(b) is Draft202012Validator(schema).is_valid(b)  # type: ignore[misc]


def test_a_schema_with_an_unknown_keyword_is_left_to_jsonschema() -> None:
    assert fast_schema.compile_schema({"type": "object", "dependentRequired": {"a": ["b"]}}) is None
    assert fast_schema.compile_schema({"items": [{"type": "string"}]}) is None
    assert fast_schema.compile_schema({"$ref": "https://elsewhere/x"}) is None


def test_integers_and_numbers_as_jsonschema_types_them() -> None:
    check = fast_schema.compile_schema({"type": "integer", "minimum": 1})
    assert check is not None
    assert [check(x) for x in (1, 2.0, 2.5, True, 0, "3")] == [True, True, False, False, False, False]
