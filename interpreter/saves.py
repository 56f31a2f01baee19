"""Saved games and failure files, read as untrusted input: a save is read with a bounded size, parsed as strict
JSON with a bounded depth (no NaN or Infinity, no number beyond what the state store keeps), checked against its
JSON Schema (grammar/save.schema.json, grammar/failure.schema.json), and matched against the rules it is loaded
on through its fingerprint, all before anything is replayed. Every refusal is a BoardrulesError E512 with a plain
message; a save never makes boardrules read outside the pack it names or the caller gives.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from itertools import accumulate
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource

from .diagnostics import BoardrulesError
from .engine.rules import Rules
from .resources import grammar_dir

SAVE_FORMAT = "boardrules-game/2"
FAILURE_FORMAT = "boardrules-failure/1"
CODE = "E512"
MAX_BYTES = 64 << 20  # a save of a very long game is a few MB
MAX_DEPTH = 100  # a real save nests about a dozen levels
MAX_DIGITS = 4_000  # the state store refuses longer numbers (SECURITY.md)
MAX_PACK_FILES = 1_000  # module files in the directory a save names
_SHOWN = 120  # characters of a value quoted in a message
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_FORMATS = {"save": SAVE_FORMAT, "failure": FAILURE_FORMAT}
_WHAT = {"save": "a saved game", "failure": "a failure file of `boardrules simulate`"}
# What replaying an edited log can raise where a value of the wrong shape reaches the engine.
_REPLAY_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError, OverflowError)


def refuse(message: str, hint: str | None = None) -> BoardrulesError:
    return BoardrulesError(CODE, message, None, hint)


def read_file(path: str | Path) -> str:
    """The text of a save file: a regular file of at most MAX_BYTES, in UTF-8."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise refuse(f"cannot read the save {path}: not a regular file")
            data = handle.read(MAX_BYTES + 1)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        reason = getattr(exc, "strerror", None) or str(exc)
        raise refuse(f"cannot read the save {path!s}: {reason}") from None
    return _decode(data, str(path))


def _decode(data: bytes, where: str = "the save") -> str:
    if len(data) > MAX_BYTES:
        raise refuse(f"{where} is too large (more than {MAX_BYTES} bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise refuse(f"{where} is not a saved game: it is not UTF-8 text (a binary file?)") from None


def parse(text: str | bytes, kind: str = "save") -> dict[str, Any]:
    """A save (or failure file) as checked data: strict JSON of the right format, valid against its schema."""
    what = _WHAT[kind]
    if isinstance(text, bytes | bytearray):
        text = _decode(bytes(text))
    if not isinstance(text, str):
        raise refuse(f"not {what}: expected JSON text, got {type(text).__name__}")
    if len(text) > MAX_BYTES:
        raise refuse(f"not {what}: more than {MAX_BYTES} characters")
    depth = _depth(text)
    if depth > MAX_DEPTH:
        raise refuse(f"not {what}: nested {depth} levels deep (at most {MAX_DEPTH})")
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_int=_int, parse_float=_float)
    except (ValueError, RecursionError) as exc:
        raise refuse(f"not {what}: {_short(str(exc))}") from None
    if not isinstance(data, dict) or data.get("format") != _FORMATS[kind]:
        found = data.get("format") if isinstance(data, dict) else None
        raise refuse(f"not {what} of this version (format {_FORMATS[kind]})"
                     + (f"; this one is {_short(repr(found))}" if found is not None else ""))
    error = best_match(_validator(kind).iter_errors(data))
    if error is None:
        error = next((_entry_error(e, i) for i, e in enumerate(data["log"]) if not _entry_ok(e)), None)
    if error is not None:
        raise refuse(f"not {what}: {_explain(error)}", "was the file edited by hand?")
    return data


# The log is checked entry by entry with _entry_ok, the schema's `entry` written as Python (jsonschema takes half
# a millisecond an entry, and a long game logs thousands); the schema explains an entry that fails, and a test
# holds the two to the same answers.
_KINDS = frozenset({"setup", "move", "skip", "act", "end_turn", "end_round", "reseed"})
_NAME = 200


def _entry_ok(e: Any) -> bool:
    if type(e) is not dict or type(e.get("kind")) is not str or e["kind"] not in _KINDS:
        return False
    if not e.keys() <= _ENTRY_KEYS.keys():
        return False
    for key, value in e.items():
        if not _ENTRY_KEYS[key](value):
            return False
    kind = e["kind"]
    if kind in ("move", "act"):
        return "action" in e
    if kind == "reseed":
        return "seed" in e
    if kind == "end_turn":
        return "player" in e or "end_turn" in e
    return True


def _name(v: Any) -> bool:
    return type(v) is str and len(v) <= _NAME


_ENTRY_KEYS: dict[str, Any] = {
    "kind": lambda v: True, "player": lambda v: v is None or _name(v), "action": _name, "end_turn": _name,
    "params": lambda v: type(v) is dict, "answers": lambda v: type(v) is list, "chance": lambda v: type(v) is list,
    "seed": lambda v: type(v) is int, "flow": lambda v: type(v) is bool, "chance_mode": lambda v: v in ("auto", "step"),
}


def _entry_error(entry: Any, index: int) -> ValidationError:
    error = best_match(_validator("entry").iter_errors(entry))
    if error is None:  # _entry_ok and the schema disagree: a bug, but the entry is refused all the same
        error = ValidationError("is not a log entry", instance=entry)
    error.path.extendleft(reversed(["log", index]))
    return error


def check_state(data: Any) -> None:
    """A state store as `State.to_json` writes it (the schema's `state`), whose pieces and zones agree on where each
    piece is: what `Game.from_json` takes from a program."""
    number = _odd_number(data)
    if number is not None:
        raise refuse(f"not a saved state: {number}", "pass what Game.to_json returned")
    try:
        error = best_match(_validator("state").iter_errors(data))
    except RecursionError:
        raise refuse("not a saved state: nested too deeply", "pass what Game.to_json returned") from None
    if error is not None:
        error.path.appendleft("state")
        raise refuse(f"not a saved state: {_explain(error)}", "pass what Game.to_json returned")
    odd = next((k for k, v in data["counters"].items()
                if type(v) is not int and not (isinstance(v, dict) and "unknown" in v)), None)
    if odd is not None:
        raise refuse(f"not a saved state: counter {_short(repr(odd))} holds {_short(repr(data['counters'][odd]))}, "
                     "not a whole number", "pass what Game.to_json returned")
    for key, piece in data["pieces"].items():
        zone = data["zones"].get(piece["zone"])
        if zone is None or key not in zone["contents"]:
            raise refuse(f"not a saved state: piece {_short(repr(key))} is in zone {_short(repr(piece['zone']))}, "
                         "which does not list it", "pass what Game.to_json returned")
    for name, zone in data["zones"].items():
        for key in zone["contents"]:
            if data["pieces"].get(key, {}).get("zone") != name:
                raise refuse(f"not a saved state: zone {_short(repr(name))} lists {_short(repr(key))}, which is not "
                             "a piece in it", "pass what Game.to_json returned")


def _odd_number(data: Any) -> str | None:
    """A number the state store would not hold (more than MAX_DIGITS digits, or not finite), or data that is no
    JSON tree (it holds itself, or more items than a save may)."""
    stack, seen = [data], 0
    ids: set[int] = set()
    while stack:
        value = stack.pop()
        seen += 1
        if seen > MAX_BYTES // 2:
            return f"more than {MAX_BYTES // 2} items"
        if isinstance(value, dict | list):
            if id(value) in ids:
                return "a list or object appears in it twice (it is not a tree of JSON data)"
            ids.add(id(value))
            stack.extend(value.values() if isinstance(value, dict) else value)
        elif type(value) is int and value.bit_length() > _MAX_BITS:
            return f"a number of more than {MAX_DIGITS} digits"
        elif type(value) is float and not math.isfinite(value):
            return f"{value} is not a finite number"
    return None


_MAX_BITS = int(MAX_DIGITS * math.log2(10)) + 1


def check_layout(saved: Any, fresh: Any, rules: Any) -> None:
    """A restored state store has what these rules lay out for its players (counters, zones and markers are fixed
    at the start of a game; the flow's variables are kept), pieces of kinds they declare and deferred events they
    know, so no rule meets a key it declared but the state lacks."""
    hint = "restore a state with the rules and the player count it was saved with"
    for part in ("counters", "zones", "markers"):
        have, want = set(getattr(saved, part)), set(getattr(fresh, part))
        if have != want:
            odd = sorted(have - want) or sorted(want - have)
            what = "not in these rules" if have - want else "missing"
            raise refuse(f"not a state of these rules: {part[:-1]} {_short(repr(odd[0]))} is {what}", hint)
    missing = sorted(set(fresh.vars) - set(saved.vars))
    if missing:
        raise refuse(f"not a state of these rules: variable {_short(repr(missing[0]))} is missing", hint)
    odd_kind = next((p.kind for p in saved.pieces.values() if p.kind not in rules.kinds), None)
    if odd_kind is not None:
        raise refuse(f"not a state of these rules: piece kind {_short(repr(odd_kind))} is not in these rules", hint)
    for item in saved.deferred:
        params = rules.events.get(item["event"])
        if params is None or item["until"] not in rules.events or len(item["args"]) != len(params) \
                or (item["me"] is not None and item["me"] not in saved.players):
            raise refuse(f"not a state of these rules: a deferred event {_short(repr(item['event']))} they cannot "
                         "run", hint)


def _depth(text: str) -> int:
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_DEPTH_STEP.__getitem__, brackets), initial=0))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a save holds")


def _int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"a number of {len(digits)} digits (at most {MAX_DIGITS})")
    return int(digits)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{_short(text)} is too large a number")
    return value


@cache
def _validator(kind: str) -> Draft202012Validator:
    """A save's or failure file's schema, with the log's entries left to _entry_ok; or the schema of an entry or of
    a state store."""
    schemas = {name: json.loads((grammar_dir() / f"{name}.schema.json").read_text(encoding="utf-8"))
               for name in ("save", "failure")}
    if kind in ("entry", "state"):
        part = schemas["save"]["$defs"][kind]
        return Draft202012Validator({**part, "$defs": schemas["save"]["$defs"]})
    log = schemas["save"]["$defs"]["log"]
    schemas["save"]["$defs"]["log"] = {k: v for k, v in log.items() if k != "items"}
    registry: Registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas.values())
    return Draft202012Validator(schemas[kind], registry=registry)


def _explain(error: ValidationError) -> str:
    where = "/".join(str(p) for p in error.absolute_path)
    at = f" at {where}" if where else ""
    if error.validator == "required":
        missing = next((name for name in error.validator_value if name not in error.instance), "?")
        return f"'{missing}' is missing{at}"
    if error.validator == "additionalProperties":
        extra = sorted(k for k in error.instance if k not in error.schema.get("properties", {}))
        return f"unexpected key {_short(repr(extra[0]))}{at}" if extra else f"unexpected key{at}"
    shown = json.dumps(error.instance)
    value = f"{shown}{at}" if len(shown) <= 40 else (where or "the save")
    if error.validator == "type":
        kinds = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        return f"{value} is not {' or '.join(map(str, kinds))}"
    phrase = _PHRASES.get(str(error.validator))
    if phrase is not None:
        return f"{value} {phrase.format(error.validator_value)}"
    return f"{value}: {_short(error.message)}"


_PHRASES = {
    "enum": "is not one of {}", "const": "is not {}", "minimum": "is less than {}", "maximum": "is more than {}",
    "minItems": "has fewer than {} items", "maxItems": "has more than {} items",
    "minLength": "is shorter than {} characters", "maxLength": "is longer than {} characters",
    "minProperties": "has fewer than {} entries",
}


def _short(text: str) -> str:
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


# ---- what a save was made with -----------------------------------------------------------------------------


def fingerprint(rules: Rules, players: int, chance: str, flow: bool) -> dict[str, Any]:
    """What a game is played with: its modules' content, its options, players, chance mode and flow."""
    return {"modules": dict(rules.fingerprint), "options": _plain(rules.options), "players": players,
            "chance": chance, "flow": flow}


def check(data: dict[str, Any], rules: Rules) -> None:
    """Refuse (E512) a parsed save that the rules it is loaded on, or its own fields, no longer match."""
    if list(data["modules"]) != list(rules.modules):
        raise refuse(f"the save is of modules {', '.join(data['modules'])}, not {', '.join(rules.modules)}",
                     "load it with the pack it was saved from")
    made = data["fingerprint"]
    now = fingerprint(rules, data["players"], data["chance"], data["flow"])
    changes = [f"module {m} changed" for m in sorted(set(made["modules"]) | set(now["modules"]))
               if made["modules"].get(m) != now["modules"].get(m)]
    changes += _option_changes(made["options"], now["options"])
    if made["players"] != now["players"]:
        changes.append(f"the save was made for {made['players']} players; this game has {now['players']}")
    if made["chance"] != now["chance"]:
        changes.append(f"the save was made with chance '{made['chance']}'; this game has '{now['chance']}'")
    if made["flow"] != now["flow"]:
        changes.append(f"the save was made {'with' if made['flow'] else 'without'} the flow; this game is played "
                       f"{'with' if now['flow'] else 'without'} it")
    if changes:
        shown = "; ".join(changes[:4]) + (f"; and {len(changes) - 4} more" if len(changes) > 4 else "")
        raise refuse(f"the save does not fit this game: {shown}",
                     "a save replays only on the rules, options, players and chance mode it was made with")
    low, high = rules.players_min, rules.players_max
    if not low <= data["players"] <= high:
        raise refuse(f"the save is for {data['players']} players; these rules allow {low} to {high}")


def _option_changes(made: dict[str, Any], now: dict[str, Any]) -> list[str]:
    out = []
    for name in sorted(set(made) | set(now)):
        before, after = made.get(name, _UNSET), now.get(name, _UNSET)
        if _canonical(before) != _canonical(after):
            out.append(f"the save was made with option {name} {_setting(before)}; this game "
                       + ("leaves it unset" if after is _UNSET else f"sets it to {_short(json.dumps(after))}"))
    return out


class _Unset:
    pass


_UNSET = _Unset()


def _canonical(value: Any) -> str | None:
    return None if value is _UNSET else json.dumps(value, sort_keys=True)


def _setting(value: Any) -> str:
    return "unset" if value is _UNSET else f"= {_short(json.dumps(value))}"


def _plain(value: Any) -> Any:
    """As JSON gives it back (tuples as lists, keys as strings), so a live value compares with a saved one."""
    return json.loads(json.dumps(value, sort_keys=True, default=str))


# ---- the rules a save is loaded on -------------------------------------------------------------------------


def rules_for(data: dict[str, Any], pack: Rules | str | Path | None) -> Rules:
    """The rules the caller gives, or those of the pack directory the save names: only the module files
    directly in it are read (a save never makes boardrules search a directory tree)."""
    if isinstance(pack, Rules):
        return pack
    from .language.pack import load_rules

    shallow = pack is None
    if pack is None:
        pack = data.get("pack")
        if not isinstance(pack, str):
            raise refuse("the save does not say which pack it is of: pass the pack")
        _check_named_pack(pack)
    try:
        return load_rules(pack, list(data["modules"]), dict(data["options"]), shallow=shallow)
    except BoardrulesError as err:
        wrapped = refuse(f"the save's modules {', '.join(data['modules'])} with its options do not load from "
                         f"{pack}: {err.code} {err.diagnostic.message}", "load it with the pack it was saved from")
        wrapped.diagnostics = [wrapped.diagnostic, *[d for d in err.diagnostics if d is not err.diagnostic]]
        raise wrapped from None


def _check_named_pack(pack: str) -> None:
    root = Path(pack)
    try:
        with os.scandir(root) as entries:
            # a hidden file (a repository's .pre-commit-hooks.yaml) is never a module file
            count = sum(1 for e in entries if e.name.endswith(".yaml") and not e.name.startswith(".")
                        and e.is_file(follow_symlinks=False))
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        reason = getattr(exc, "strerror", None) or str(exc)
        raise refuse(f"the save names the pack {_short(repr(pack))}, which cannot be read: {reason}",
                     "pass the pack directory") from None
    if not count or count > MAX_PACK_FILES:
        raise refuse(f"the save names {_short(repr(pack))}, which is not a pack directory (it holds {count} module "
                     "files)",
                     "pass the pack directory")


@contextmanager
def replaying() -> Iterator[None]:
    """Errors of a log that does not replay, as E512: an edited log can hand the engine any value."""
    try:
        yield
    except BoardrulesError as err:
        if err.code == CODE:
            raise
        raise refuse(f"the saved log does not replay: {err.code} {err.diagnostic.message}",
                     "the save was edited, or made on other rules") from None
    except _REPLAY_ERRORS as exc:
        raise refuse(f"the saved log does not replay: {_short(f'{type(exc).__name__}: {exc}')}",
                     "the save was edited, or made on other rules") from None
