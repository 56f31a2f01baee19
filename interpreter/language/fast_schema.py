"""A yes/no JSON Schema check compiled to plain Python closures, for the files that are valid.

Validating a scenario with jsonschema costs a few milliseconds (each keyword evolves a validator and resolves
`$ref`s through `referencing`); a pack holds hundreds of scenarios and nearly all of them are valid. The schemas
are compiled here once per process into closures that answer only "valid or not", for the keywords the shipped
schemas use, with Draft 2020-12's meaning (as jsonschema applies it: `integer` admits 2.0, booleans are not
numbers, `pattern` searches, `enum`/`const` tell true from 1). A file found valid needs nothing else; a file that
is not is handed to jsonschema (validate.py), which words its problems, so every diagnostic is unchanged. A schema
with a keyword this module does not know is not compiled at all (`compiled` gives None): jsonschema then checks
every file, as before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from typing import Any

from ..resources import grammar_dir
from .regex_code import compiled as regex

Check = Callable[[Any], bool]

# Keywords that annotate and never make a document invalid (jsonschema checks no `format` unless asked).
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "examples", "default", "format",
                          "deprecated", "readOnly", "writeOnly", "$defs", "definitions"})


class Unsupported(Exception):
    """The schema uses a keyword or a form this compiler does not know."""


def _is_int(x: Any) -> bool:
    t = type(x)
    return (t is int or (isinstance(x, int) and not isinstance(x, bool))
            or (isinstance(x, float) and x.is_integer()))


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


_TYPES: dict[str, Check] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "integer": _is_int,
    "number": _is_number,
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
}


def equal(a: Any, b: Any) -> bool:
    """JSON equality as jsonschema's `enum`, `const` and `uniqueItems` see it: true is not 1, 1.0 is 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if isinstance(a, list) or isinstance(b, list):
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                and all(equal(x, y) for x, y in zip(a, b, strict=True)))
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys()
                and all(equal(a[k], b[k]) for k in a))
    return bool(a == b) and (a is None) == (b is None)


def _unique(items: list) -> bool:
    return all(not equal(items[i], items[j]) for i in range(len(items)) for j in range(i + 1, len(items)))


class _Compiler:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.refs: dict[str, Check] = {}

    def ref(self, target: str) -> Check:
        if not target.startswith("#/"):
            raise Unsupported(target)
        hit = self.refs.get(target)
        if hit is not None:
            return hit
        box: list[Check] = []
        # A recursive definition ("expected" holds lists of itself) reaches its own check through the box.
        self.refs[target] = lambda x: box[0](x)
        node: Any = self.root
        for part in target[2:].split("/"):
            if not isinstance(node, dict) or part not in node:
                raise Unsupported(target)
            node = node[part]
        box.append(self.schema(node))
        # Later uses call the check itself (only those made while building it go through the box): a call less
        # for every node a reference reaches.
        self.refs[target] = box[0]
        return box[0]

    def schema(self, sch: Any) -> Check:
        if sch is True or sch == {}:
            return lambda x: True
        if sch is False:
            return lambda x: False
        if not isinstance(sch, dict):
            raise Unsupported(repr(sch))
        checks: list[Check] = []
        for key, value in sch.items():
            if key in _ANNOTATIONS:
                continue
            make = _KEYWORDS.get(key)
            if make is None:
                if key in _SILENT:  # read by its partner keyword
                    continue
                raise Unsupported(key)
            checks.append(make(self, value, sch))
        if not checks:
            return lambda x: True
        if len(checks) == 1:
            return checks[0]
        if len(checks) == 2:
            first, second = checks
            return lambda x: first(x) and second(x)

        # Loops, not all() over a generator (SIM110): these run for every node of every file, and a generator per
        # node was a third of validating.
        def every(x: Any) -> bool:
            for c in checks:  # noqa: SIM110
                if not c(x):
                    return False
            return True
        return every


def _type(c: _Compiler, value: Any, sch: dict) -> Check:
    names = value if isinstance(value, list) else [value]
    tests = [_TYPES[n] for n in names if n in _TYPES]
    if len(tests) != len(names):
        raise Unsupported(f"type {value}")
    if len(tests) == 1:
        return tests[0]

    def either(x: Any) -> bool:
        for t in tests:  # noqa: SIM110  (a loop, not any() over a generator: see every() above)
            if t(x):
                return True
        return False
    return either


def _properties(c: _Compiler, value: Any, sch: dict) -> Check:
    props = {k: c.schema(v) for k, v in value.items()}

    def check(x: Any) -> bool:
        if not isinstance(x, dict):
            return True
        for k, test in props.items():  # noqa: SIM110
            if k in x and not test(x[k]):
                return False
        return True
    return check


def _pattern_properties(c: _Compiler, value: Any, sch: dict) -> Check:
    pats = [(regex(p), c.schema(v)) for p, v in value.items()]
    return lambda x: not isinstance(x, dict) or all(t(v) for k, v in x.items() for p, t in pats if p.search(k))


def _additional(c: _Compiler, value: Any, sch: dict) -> Check:
    known = set(sch.get("properties", {}))
    pats = [regex(p) for p in sch.get("patternProperties", {})]
    test = c.schema(value)

    def check(x: Any) -> bool:
        if not isinstance(x, dict):
            return True
        for k, v in x.items():
            if k in known or any(p.search(k) for p in pats):
                continue
            if not test(v):
                return False
        return True
    return check


def _property_names(c: _Compiler, value: Any, sch: dict) -> Check:
    test = c.schema(value)
    return lambda x: not isinstance(x, dict) or all(test(k) for k in x)


def _required(c: _Compiler, value: Any, sch: dict) -> Check:
    names = list(value)
    return lambda x: not isinstance(x, dict) or all(n in x for n in names)


def _items(c: _Compiler, value: Any, sch: dict) -> Check:
    if not isinstance(value, dict | bool):
        raise Unsupported("items as a list")
    test = c.schema(value)
    def check(x: Any) -> bool:
        if not isinstance(x, list):
            return True
        for v in x:  # noqa: SIM110
            if not test(v):
                return False
        return True
    return check


def _bound(attr: str, op: Callable[[Any, Any], bool], kind: Check, size: Callable[[Any], Any]) -> Callable:
    def make(c: _Compiler, value: Any, sch: dict) -> Check:
        return lambda x: not kind(x) or op(size(x), value)
    make.__name__ = attr
    return make


def _unique_items(c: _Compiler, value: Any, sch: dict) -> Check:
    if not value:
        return lambda x: True
    return lambda x: not isinstance(x, list) or _unique(x)


def _pattern(c: _Compiler, value: Any, sch: dict) -> Check:
    pat = regex(value)
    return lambda x: not isinstance(x, str) or pat.search(x) is not None


def _enum(c: _Compiler, value: Any, sch: dict) -> Check:
    options = list(value)
    return lambda x: any(equal(x, o) for o in options)


def _const(c: _Compiler, value: Any, sch: dict) -> Check:
    return lambda x: equal(x, value)


def _any_of(c: _Compiler, value: Any, sch: dict) -> Check:
    tests = [c.schema(v) for v in value]
    return lambda x: any(t(x) for t in tests)


def _all_of(c: _Compiler, value: Any, sch: dict) -> Check:
    tests = [c.schema(v) for v in value]
    return lambda x: all(t(x) for t in tests)


def _one_of(c: _Compiler, value: Any, sch: dict) -> Check:
    tests = [c.schema(v) for v in value]
    return lambda x: sum(1 for t in tests if t(x)) == 1


def _not(c: _Compiler, value: Any, sch: dict) -> Check:
    test = c.schema(value)
    return lambda x: not test(x)


def _if(c: _Compiler, value: Any, sch: dict) -> Check:
    cond = c.schema(value)
    then = c.schema(sch.get("then", True))
    other = c.schema(sch.get("else", True))
    return lambda x: then(x) if cond(x) else other(x)


def _ref(c: _Compiler, value: Any, sch: dict) -> Check:
    return c.ref(value)


_KEYWORDS: dict[str, Callable[[_Compiler, Any, dict], Check]] = {
    "type": _type,
    "properties": _properties,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional,
    "propertyNames": _property_names,
    "required": _required,
    "items": _items,
    "minItems": _bound("minItems", lambda n, v: n >= v, _TYPES["array"], len),
    "maxItems": _bound("maxItems", lambda n, v: n <= v, _TYPES["array"], len),
    "minLength": _bound("minLength", lambda n, v: n >= v, _TYPES["string"], len),
    "maxLength": _bound("maxLength", lambda n, v: n <= v, _TYPES["string"], len),
    "minProperties": _bound("minProperties", lambda n, v: n >= v, _TYPES["object"], len),
    "maxProperties": _bound("maxProperties", lambda n, v: n <= v, _TYPES["object"], len),
    "minimum": _bound("minimum", lambda n, v: n >= v, _is_number, lambda x: x),
    "maximum": _bound("maximum", lambda n, v: n <= v, _is_number, lambda x: x),
    "uniqueItems": _unique_items,
    "pattern": _pattern,
    "enum": _enum,
    "const": _const,
    "anyOf": _any_of,
    "allOf": _all_of,
    "oneOf": _one_of,
    "not": _not,
    "if": _if,
    "$ref": _ref,
}
# Read by another keyword (`then`/`else` by `if`); alone they do nothing.
_SILENT = frozenset({"then", "else"})


def compile_schema(schema: dict[str, Any]) -> Check | None:
    """The yes/no check of `schema`; None when it uses what this module does not know."""
    try:
        return _Compiler(schema).schema(schema)
    except (Unsupported, re.error, TypeError, AttributeError):
        return None


@cache
def compiled(name: str) -> Check | None:
    """The check of the shipped schema `grammar/{name}.schema.json`, compiled once per process."""
    try:
        schema = json.loads((grammar_dir() / f"{name}.schema.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return compile_schema(schema) if isinstance(schema, dict) else None


def valid(doc: object, name: str) -> bool:
    """Whether `doc` certainly satisfies the schema `name` (False also when it cannot be told here)."""
    check = compiled(name)
    if check is None:
        return False
    try:
        return check(doc)
    except (RecursionError, TypeError):  # a key that is not text, nesting too deep: jsonschema says which
        return False
