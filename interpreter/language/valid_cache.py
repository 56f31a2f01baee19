"""JSON Schema validation of a rule or scenario file, done once per content.

A file that validated without a problem is remembered in the per-user cache `valid` (cache_files.py) under a
hash of its bytes, the schema's name and bytes, and this boardrules (its source, grammar and schemas, which
hold the loader and the validator): the same bytes are then known valid without validating again. A file with
problems is never remembered, so its diagnostics are always computed afresh.

Before any of that, the compiled yes/no check (fast_schema.py) is tried: it answers a valid file faster than the
cache can be read, so the cache and jsonschema (validate.py, imported only then) serve the files it rejects (to
word their problems) and schemas it cannot compile. A valid pack never loads jsonschema.
"""

from __future__ import annotations

import hashlib
from functools import cache

from .. import cache_files
from ..diagnostics import Diagnostics
from ..resources import grammar_dir
from . import fast_schema

CACHE = "valid"
KEEP = 20_000  # markers kept (64 bytes each); the directory is pruned once per process that adds one
_pruned = False


def validate_file(doc: object, data: bytes, schema: str, diags: Diagnostics, file: str) -> bool:
    """Check `doc`, loaded from exactly the bytes `data`, against the schema `schema` ("module" or "scenario");
    as `validate.validate`: one E201 per problem, True when there is none."""
    global _pruned
    if fast_schema.valid(doc, schema):
        return True  # cheaper than reading the cache's marker
    key = _key(data, schema)
    if key is not None and cache_files.read(CACHE, key) == key.encode():
        return True
    if schema == "module" and isinstance(doc, dict):
        ok = _validate_sections(doc, diags, file)
    else:
        from .validate import load_schema, validate

        ok = validate(doc, load_schema(schema), diags, file)
    if ok and key is not None:
        cache_files.write(CACHE, key, key.encode(), keep=None if _pruned else KEEP)
        _pruned = True
    return ok


def _key(data: bytes, schema: str) -> str | None:
    schema_bytes = _schema_bytes(schema)
    if schema_bytes is None or cache_files.cache_dir(CACHE) is None:
        return None
    h = hashlib.sha256()
    for part in (cache_files.code_fingerprint().encode(), schema.encode(), schema_bytes, data):
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()


@cache
def _schema_bytes(schema: str) -> bytes | None:
    try:
        return (grammar_dir() / f"{schema}.schema.json").read_bytes()
    except OSError:
        return None


# Top-level sections of modules that validated without a problem in this process, by content (not place).
_VALID_SECTIONS: set[bytes] = set()
_MAX_SECTIONS = 65_536


def _validate_sections(doc: dict, diags: Diagnostics, file: str) -> bool:
    """A module's top-level keys are checked independently of each other (the schema gives each key its own
    schema; `required` and unknown keys look at the keys alone), so a section seen valid before with the same
    content is not validated again: an editor re-checking a file as it is typed validates the section being
    edited, not the whole file. The places of any problem come from the document itself, so they stay right
    however the lines moved."""
    from .loader import YMap
    from .validate import load_schema, validate

    schema = load_schema("module")
    known = schema.get("properties", {})
    part = YMap(getattr(doc, "span", None))  # type: ignore[arg-type]  # a loaded document has its span
    fresh: list[bytes] = []
    for key, value in doc.items():
        digest = _section_digest(key, value)
        if key in known and key not in schema.get("required", ()) and digest in _VALID_SECTIONS:
            continue
        part[key] = value
        for spans in ("key_spans", "value_spans"):
            if key in getattr(doc, spans, {}):
                getattr(part, spans)[key] = getattr(doc, spans)[key]
        fresh.append(digest)
    ok = validate(part, schema, diags, file)
    if ok:
        if len(_VALID_SECTIONS) > _MAX_SECTIONS:
            _VALID_SECTIONS.clear()
        _VALID_SECTIONS.update(fresh)
    return ok


def _section_digest(key: object, value: object) -> bytes:
    h = hashlib.sha256(repr(key).encode())
    stack = [value]
    while stack:  # the content with the type of every node: 1 and "1" validate differently
        node = stack.pop()
        if isinstance(node, dict):
            h.update(b"{%d" % len(node))
            for k, v in node.items():
                h.update(repr(k).encode())
                stack.append(v)
        elif isinstance(node, list):
            h.update(b"[%d" % len(node))
            stack.extend(reversed(node))
        else:
            h.update(f"{type(node).__name__}:{node!r};".encode())
    return h.digest()
