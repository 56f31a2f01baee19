"""JSON Schema validation of loaded rule files, reported as E201 diagnostics placed in the YAML source.

jsonschema's own messages describe the schema ("Additional properties are not allowed ('x' was unexpected)");
a rule author needs to hear what is wrong with their file and where, so each error kind gets its own wording,
and for anyOf/oneOf the alternative the author most likely meant is picked and explained.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource

from ..diagnostics import Diagnostic, Diagnostics, Span, did_you_mean
from ..resources import grammar_dir
from .loader import key_span_at, span_at

_CODE = "E201"
_TYPE_WORDS = {"object": "mapping", "array": "list"}
_MAX_LISTED = 12

# Schemas handed out by load_schema, by id(), so messages can say "in module" and refs between them resolve.
_SCHEMA_NAMES: dict[int, str] = {}
# id(schema) -> (schema, validator); the schema is held so its id cannot be reused by another dict.
_VALIDATORS: dict[int, tuple[dict[str, Any], Draft202012Validator]] = {}


@cache
def _load_schema_file(name: str) -> dict[str, Any]:
    path = grammar_dir() / f"{name}.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(schema, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    _SCHEMA_NAMES[id(schema)] = name
    return schema


def load_schema(name: str) -> dict[str, Any]:
    """The schema `grammar/{name}.schema.json` ("module" or "scenario"), read once."""
    return _load_schema_file(name)


MAX_SCHEMA_PROBLEMS = 200  # per file, as many as text output shows in full


def validate(doc: object, schema: dict[str, Any], diags: Diagnostics, file: str) -> bool:
    """Check `doc` against `schema`, adding one E201 per problem; True when there is none.

    `file` places problems on values that carry no position (a document not built by the loader).
    """
    validator = _validator(schema)
    context = _Context(doc, file, _SCHEMA_NAMES.get(id(schema)), validator.schema)
    found: list[Diagnostic] = []
    seen: set[Diagnostic] = set()
    stopped_at: Span | None = None
    for error in validator.iter_errors(doc):
        if len(found) >= MAX_SCHEMA_PROBLEMS:
            # Explaining one problem costs about a millisecond and a file of 10,000 wrong nodes has 20,000 of
            # them: stop, and say so, rather than take seconds to print what nobody reads.
            stopped_at = context.value_span(error.absolute_path)
            break
        for diagnostic in context.explain(error):
            if diagnostic not in seen:
                seen.add(diagnostic)
                found.append(diagnostic)
    found = context.drop_narrower_type_errors(found)
    found.sort(key=lambda d: (d.span.line, d.span.col) if d.span else (0, 0))
    if stopped_at is not None:
        found.append(Diagnostic("error", "E201", f"... and more problems from here on: the schema check of this "
                                f"file stops after {MAX_SCHEMA_PROBLEMS}", stopped_at,
                                "fix the problems listed and check again"))
    diags.extend(found)
    return not found


def _validator(schema: dict[str, Any]) -> Draft202012Validator:
    cached = _VALIDATORS.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    # The shipped schemas are checked against the meta-schema by tests/test_schema.py, not on every run.
    validator = Draft202012Validator(schema, registry=_registry(schema))
    _VALIDATORS[id(schema)] = (schema, validator)
    return validator


def _registry(schema: dict[str, Any]) -> Registry:
    """The shipped schemas by $id, so one may refer to another without any network access."""
    resources = []
    for known in _shipped_schemas():
        if isinstance(known.get("$id"), str):
            resources.append((known["$id"], Resource.from_contents(known)))
    if isinstance(schema.get("$id"), str):
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


def _shipped_schemas() -> list[dict[str, Any]]:
    try:
        names = sorted(p.name.removesuffix(".schema.json") for p in grammar_dir().glob("*.schema.json"))
    except FileNotFoundError:
        return []
    schemas = []
    for name in names:
        try:
            schemas.append(load_schema(name))
        except (OSError, ValueError):
            continue  # a broken neighbour must not stop validation against another schema
    return schemas


# ---- explaining errors -------------------------------------------------------------------------------------


class _Context:
    def __init__(self, doc: object, file: str, kind: str | None, root_schema: dict[str, Any]) -> None:
        self.doc = doc
        self.file = file
        self.kind = kind
        self.root_schema = root_schema
        # Type mismatches and how many types each one names: several schema keywords may reject the same
        # value (a `type` list and an anyOf beside it), and only the widest statement of it is worth showing.
        self.type_width: dict[Diagnostic, int] = {}

    # -- places ----------------------------------------------------------------------------------------------

    def value_span(self, path: Sequence[str | int]) -> Span:
        return span_at(self.doc, path) or Span(self.file, 1, 1)

    def key_span(self, path: Sequence[str | int]) -> Span:
        return key_span_at(self.doc, path) or Span(self.file, 1, 1)

    def where(self, path: Sequence[str | int]) -> str:
        if not path:
            return f"in {self.kind}" if self.kind else "at the top level"
        return "in " + _show_path(path)

    def diagnostic(self, message: str, span: Span, hint: str | None = None) -> Diagnostic:
        return Diagnostic("error", _CODE, message, span, hint)

    def type_mismatch(self, expected: list[str], instance: object, span: Span) -> Diagnostic:
        message = f"expected {_or_list(expected)}, got {_describe(instance)}"
        diagnostic = self.diagnostic(message, span, _type_hint(instance, expected))
        self.type_width[diagnostic] = len(expected)
        return diagnostic

    def drop_narrower_type_errors(self, found: list[Diagnostic]) -> list[Diagnostic]:
        widest: dict[Span | None, Diagnostic] = {}
        for d in found:
            if d in self.type_width:
                best = widest.get(d.span)
                if best is None or self.type_width[d] > self.type_width[best]:
                    widest[d.span] = d
        return [d for d in found if d not in self.type_width or widest.get(d.span) is d]

    # -- dispatch --------------------------------------------------------------------------------------------

    def explain(self, error: ValidationError) -> Iterator[Diagnostic]:
        path = list(error.absolute_path)
        kind = error.validator
        if "propertyNames" in error.absolute_schema_path and isinstance(error.instance, str):
            # The instance is a key of the mapping at `path`; the error belongs on that key.
            yield from self._key_name(error, path)
        elif kind in ("additionalProperties", "unevaluatedProperties"):
            yield from self._unknown_keys(error, path)
        elif kind == "required":
            yield from self._missing_keys(error, path)
        elif kind in ("anyOf", "oneOf"):
            yield from self._alternatives(error, path)
        else:
            span = self.value_span(path)
            if kind == "type":
                yield self.type_mismatch(_expected_types(error), error.instance, span)
            else:
                message, hint = self._simple(error)
                yield self.diagnostic(message, span, hint)

    def _key_name(self, error: ValidationError, path: list[str | int]) -> Iterator[Diagnostic]:
        key = error.instance
        span = self.key_span([*path, key])
        if error.validator == "pattern":
            yield self.diagnostic(_pattern_message(key, error), span, _description(error.schema))
        else:
            message, hint = self._simple(error)
            yield self.diagnostic(f"key '{_short(key)}': {message}", span, hint)

    def _unknown_keys(self, error: ValidationError, path: list[str | int]) -> Iterator[Diagnostic]:
        instance = error.instance
        if not isinstance(instance, dict):
            return
        names, patterns = _known_keys(error.schema, self.root_schema)
        for key in instance:
            if not isinstance(key, str) or key in names or any(re.search(p, key) for p in patterns):
                continue
            hint = did_you_mean(key, names)
            if hint is None and names:
                listed = sorted(names)
                more = ", ..." if len(listed) > _MAX_LISTED else ""
                hint = "known keys: " + ", ".join(listed[:_MAX_LISTED]) + more
            yield self.diagnostic(f"unknown key '{_short(key)}' {self.where(path)}",
                                  self.key_span([*path, key]), hint)

    def _missing_keys(self, error: ValidationError, path: list[str | int]) -> Iterator[Diagnostic]:
        instance = error.instance
        required = error.validator_value if isinstance(error.validator_value, list) else []
        span = self.value_span(path)
        for key in required:
            if isinstance(instance, dict) and key not in instance:
                yield self.diagnostic(f"missing key '{key}'", span, _key_description(error.schema, key))

    def _alternatives(self, error: ValidationError, path: list[str | int]) -> Iterator[Diagnostic]:
        span = self.value_span(path)
        if not error.context:
            # oneOf fails this way when several alternatives match: a schema ambiguity more than a user error.
            what = _describe(error.instance)
            yield self.diagnostic(f"{what} matches more than one of the allowed forms", span)
            return
        groups = _group_by_alternative(error)
        if all(_is_type_mismatch(e) for errors in groups.values() for e in errors):
            expected = _unique(t for errors in groups.values() for e in errors for t in _expected_types(e))
            yield self.type_mismatch(expected, error.instance, span)
            return
        every = [e for errors in groups.values() for e in errors]
        if all(e.validator == "required" and not e.relative_path for e in every):
            yield self._needs_one_of_keys(groups, error.instance, span)
            return
        candidates = {i: errors for i, errors in groups.items()
                      if not any(_is_type_mismatch(e) for e in errors)} or groups
        alternatives = error.validator_value if isinstance(error.validator_value, list) else []
        best = min(candidates, key=lambda i: self._rank(i, candidates[i], alternatives, error.instance))
        for sub in candidates[best]:
            yield from self.explain(sub)

    def _needs_one_of_keys(self, groups: dict[int, list[ValidationError]], instance: object,
                           span: Span) -> Diagnostic:
        keys = _unique(k for errors in groups.values() for e in errors
                       for k in (e.validator_value if isinstance(e.validator_value, list) else [])
                       if not (isinstance(instance, dict) and k in instance))
        hint = None
        if isinstance(instance, dict):
            hint = next((h for k in instance if isinstance(k, str) and (h := did_you_mean(k, keys))), None)
        return self.diagnostic(f"expected one of the keys {_or_list([repr(k) for k in keys])}", span, hint)

    def _rank(self, index: int, errors: list[ValidationError], alternatives: list[Any],
              instance: object) -> tuple[int, int, int, int]:
        # The alternative the author meant is the one that knows most of their keys, then the one whose
        # errors are deepest (it matched furthest), then the one with the fewest problems.
        known = 0
        if isinstance(instance, dict) and index < len(alternatives):
            names, patterns = _known_keys(alternatives[index], self.root_schema)
            known = sum(1 for k in instance if isinstance(k, str)
                        and (k in names or any(re.search(p, k) for p in patterns)))
        depth = max((_depth(e) for e in errors), default=0)
        return (-known, -depth, sum(_weight(e) for e in errors), index)

    def _simple(self, error: ValidationError) -> tuple[str, str | None]:
        """Message and hint for the keywords that concern one value."""
        kind, value, instance = error.validator, error.validator_value, error.instance
        if kind == "type":
            expected = _expected_types(error)
            return f"expected {_or_list(expected)}, got {_describe(instance)}", _type_hint(instance, expected)
        if kind == "enum" and isinstance(value, list):
            allowed = ", ".join(_show_value(v) for v in value[:_MAX_LISTED])
            hint = did_you_mean(instance, [v for v in value if isinstance(v, str)]) \
                if isinstance(instance, str) else None
            return f"expected one of {allowed}, got {_describe(instance)}", hint
        if kind == "const":
            return f"expected {_show_value(value)}, got {_describe(instance)}", None
        if kind == "pattern" and isinstance(instance, str):
            return _pattern_message(instance, error), _description(error.schema)
        if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            words = {"minimum": "at least", "maximum": "at most",
                     "exclusiveMinimum": "more than", "exclusiveMaximum": "less than"}
            return f"expected {words[kind]} {value}, got {_show_value(instance)}", None
        if kind == "multipleOf":
            return f"expected a multiple of {value}, got {_show_value(instance)}", None
        if kind in ("minLength", "maxLength") and isinstance(instance, str):
            if kind == "minLength" and value == 1:
                return "expected a non-empty string", None
            bound = "at least" if kind == "minLength" else "at most"
            return f"expected {bound} {_plural(value, 'character')}, got {len(instance)}", None
        if kind in ("minItems", "maxItems") and isinstance(instance, list):
            bound = "at least" if kind == "minItems" else "at most"
            return f"expected {bound} {_plural(value, 'item')}, got {len(instance)}", None
        if kind in ("minProperties", "maxProperties") and isinstance(instance, dict):
            bound = "at least" if kind == "minProperties" else "at most"
            return f"expected {bound} {_plural(value, 'key')}, got {len(instance)}", None
        if kind == "uniqueItems" and isinstance(instance, list):
            return f"items must be unique: {_first_repeat(instance)} appears more than once", None
        if kind == "dependentRequired" and isinstance(value, dict) and isinstance(instance, dict):
            for key, needed in value.items():
                missing = [n for n in needed if key in instance and n not in instance]
                if missing:
                    return f"key '{key}' needs {_and_list([repr(n) for n in missing])} too", None
        if kind == "not":
            return f"{_describe(instance)} is not allowed here", _description(error.schema)
        return error.message, _description(error.schema)


# ---- schema helpers ---------------------------------------------------------------------------------------


def _resolve(schema: Any, root: dict[str, Any]) -> Any:
    """Follow a local `$ref` (or one into another shipped schema) one step; anything else is returned."""
    if not isinstance(schema, dict) or not isinstance(schema.get("$ref"), str):
        return schema
    ref = schema["$ref"]
    base, _, pointer = ref.partition("#")
    target: Any = root
    if base:
        target = next((s for s in _shipped_schemas() if s.get("$id") == base), None)
    for part in pointer.split("/")[1:] if pointer else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and part in target:
            target = target[part]
        elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
        else:
            return None
    return target


def _known_keys(schema: Any, root: dict[str, Any]) -> tuple[set[str], list[str]]:
    """Property names and patterns a schema knows, through $ref and the combinators around it."""
    names: set[str] = set()
    patterns: list[str] = []
    stack, seen = [schema], set()
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node.get("properties"), dict):
            names.update(node["properties"])
        if isinstance(node.get("patternProperties"), dict):
            patterns.extend(node["patternProperties"])
        for keyword in ("allOf", "anyOf", "oneOf"):
            if isinstance(node.get(keyword), list):
                stack.extend(node[keyword])
        for keyword in ("then", "else"):
            stack.append(node.get(keyword))
        if "$ref" in node:
            stack.append(_resolve(node, root))
    return names, patterns


def _description(schema: Any) -> str | None:
    if isinstance(schema, dict) and isinstance(schema.get("description"), str):
        return schema["description"]
    return None


def _key_description(schema: Any, key: str) -> str | None:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if isinstance(properties, dict):
        return _description(properties.get(key))
    return None


def _group_by_alternative(error: ValidationError) -> dict[int, list[ValidationError]]:
    groups: dict[int, list[ValidationError]] = {}
    for sub in error.context:
        index = sub.relative_schema_path[0] if sub.relative_schema_path else 0
        groups.setdefault(index if isinstance(index, int) else 0, []).append(sub)
    return groups


def _is_type_mismatch(error: ValidationError) -> bool:
    """The value is of a kind the (sub)schema does not take at all, as opposed to a flaw inside it."""
    if error.relative_path:
        return False
    if error.validator == "type":
        return True
    if error.validator in ("anyOf", "oneOf") and error.context:
        return all(_is_type_mismatch(sub) for sub in error.context)
    return False


def _expected_types(error: ValidationError) -> list[str]:
    if error.validator == "type":
        value = error.validator_value
        names = value if isinstance(value, list) else [value]
        return [_TYPE_WORDS.get(n, n) for n in names if isinstance(n, str)]
    return _unique(t for sub in error.context for t in _expected_types(sub))


def _depth(error: ValidationError) -> int:
    return len(error.relative_path) + max((_depth(sub) for sub in error.context), default=0)


def _weight(error: ValidationError) -> int:
    if error.validator == "required" and isinstance(error.validator_value, list):
        return max(1, sum(1 for k in error.validator_value
                          if isinstance(error.instance, dict) and k not in error.instance))
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        props = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        return max(1, sum(1 for k in error.instance if k not in props))
    return 1


_CLASS_WORDS = (("a-zA-Z", "letters"), ("A-Za-z", "letters"), ("a-z", "lower-case letters"),
                ("A-Z", "upper-case letters"), ("0-9", "digits"), (r"\d", "digits"),
                ("_", "_"), (r"\-", "-"), ("-", "-"), (r"\.", "."))
_NAME_PATTERN = re.compile(r"\^\[([^\]]+)\]\[([^\]]+)\]\*\$|\^\[([^\]]+)\]\+\$")
_DOTTED_PATTERN = re.compile(r"\^\[([^\]]+)\]\[([^\]]+)\]\*\(\\\.\[([^\]]+)\]\[([^\]]+)\]\*\)\*\$")


def _pattern_message(text: str, error: ValidationError) -> str:
    pattern = error.validator_value if error.validator == "pattern" else ""
    description = _describe_pattern(pattern) if isinstance(pattern, str) else None
    if description is None:
        return f"'{_short(text)}' does not have the expected form ({pattern})"
    noun, chars = description
    return f"'{_short(text)}' is not a valid {noun} ({chars})"


def _describe_pattern(pattern: str) -> tuple[str, str] | None:
    """Name-like patterns in words: `^[a-z_][a-z0-9_]*$` is lower-case letters, digits and _."""
    dotted = _DOTTED_PATTERN.fullmatch(pattern)
    match = dotted or _NAME_PATTERN.fullmatch(pattern)
    if match is None:
        return None
    first, rest = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(3))
    rest_words = _class_words(rest)
    if rest_words is None:
        return None
    chars = _and_list(rest_words)
    if dotted:
        return "dotted name", f"words of {chars}, joined by dots"
    if "digits" in rest_words and "digits" not in (_class_words(first) or []):
        chars += ", not starting with a digit"
    return "name", chars


def _class_words(char_class: str) -> list[str] | None:
    words: list[str] = []
    rest = char_class
    while rest:
        for text, word in _CLASS_WORDS:
            if rest.startswith(text):
                if word not in words:
                    words.append(word)
                rest = rest[len(text):]
                break
        else:
            return None  # a character class this description does not cover
    return words


# ---- wording ----------------------------------------------------------------------------------------------


def _show_path(path: Sequence[str | int]) -> str:
    out = ""
    for element in path:
        out += f"[{element}]" if isinstance(element, int) else (f".{element}" if out else str(element))
    return out


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _show_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"'{_short(value)}'"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return _short(repr(value))


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return f"boolean {_show_value(value)}"
    if isinstance(value, int):
        return f"integer {value}" if abs(value) < 10**40 else "a very large integer"
    if isinstance(value, float):
        return f"number {value}"
    if isinstance(value, str):
        return f"string {_show_value(value)}"
    if value is None:
        return "null (an empty value)"
    return _show_value(value)


def _type_hint(instance: object, expected: list[str]) -> str | None:
    if "string" not in expected:
        return None
    if isinstance(instance, bool):
        return "YAML reads true/false/yes/no/on/off as booleans: quote the value to make it text"
    if instance is None:
        return "YAML reads an empty value, ~ or null as null: quote the value to make it text"
    return None


def _first_repeat(items: list[Any]) -> str:
    seen: list[Any] = []
    for item in items:
        if item in seen:
            return _show_value(item)
        seen.append(item)
    return "an item"


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _plural(n: object, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _and_list(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _or_list(words: Sequence[str]) -> str:
    if not words:
        return "something else"
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
