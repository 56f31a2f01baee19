"""Option values made plain: whatever an option's value came as (YAML from `--set` or a file, or Python objects
from `Game.new(options=...)`), it becomes ints, booleans, strings, None, and lists or mappings of them, within
the loader's limits, before `options.py` checks it against its declaration.

The walk is iterative and counts as it goes, so a value nested thousands deep, or a list that contains itself,
is refused without recursion; an integer is measured by its bits, never converted to text.
"""

from __future__ import annotations

from typing import Any

from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from ..dataclass_code import dataclass
from ..diagnostics import magnitude
from ..diagnostics import show as show  # re-exported for the option readers
from .loader import MAX_DEPTH, MAX_INT, MAX_NODES, YStr

TYPE_WORDS = {"int": "a whole number", "bool": "true or false", "symbol": "a symbol", "list": "a list"}
_SHOWN = 60  # characters of a name shown in a message
_INT_TAG = "tag:yaml.org,2002:int"
_LIMIT_HINT = "numbers are bounded so no option can make a game slow or unsavable"


@dataclass(frozen=True)
class Plain:
    value: Any


@dataclass(frozen=True)
class Refused:
    code: str
    why: str
    hint: str | None = None


def plain_value(raw: Any) -> Plain | Refused:
    """The value as plain data, or why it cannot be an option's value."""
    nodes = 0
    root: list[Any] = [None]
    # Each entry: the value to convert, the container to put it in, the key or index there, its depth.
    todo: list[tuple[Any, Any, Any, int]] = [(raw, root, 0, 0)]
    while todo:
        value, into, at, depth = todo.pop()
        nodes += 1
        if nodes > MAX_NODES:
            return Refused("E104", f"the value is too large (more than {MAX_NODES} items)")
        if depth > MAX_DEPTH:
            return Refused("E104", f"the value is nested too deep (more than {MAX_DEPTH} levels)")
        if isinstance(value, bool) or value is None:
            into[at] = value
        elif isinstance(value, int):
            if value.bit_length() > MAX_INT.bit_length() or not -MAX_INT <= value <= MAX_INT:
                return Refused("E104", f"the number {magnitude(value)} is too large (at most 10^18 in size)",
                               _LIMIT_HINT)
            into[at] = int(value)
        elif isinstance(value, str):
            if _unconverted_number(value):
                return Refused("E104", f"the number {show(str(value))} is too large (at most 10^18 in size)",
                               _LIMIT_HINT)
            into[at] = str(value)
        elif isinstance(value, float):
            into[at] = value  # kept, so the type check says a whole number was wanted
        elif isinstance(value, list | tuple):
            new: list[Any] = [None] * len(value) if len(value) <= MAX_NODES else []
            if len(value) > MAX_NODES:
                return Refused("E104", f"the value is too large (more than {MAX_NODES} items)")
            into[at] = new
            todo.extend((item, new, i, depth + 1) for i, item in enumerate(value))
        elif isinstance(value, dict):
            if len(value) > MAX_NODES:
                return Refused("E104", f"the value is too large (more than {MAX_NODES} items)")
            mapping: dict[str, Any] = {}
            into[at] = mapping
            for key, item in value.items():
                if not isinstance(key, str):
                    return Refused("E402", f"a mapping's keys are names, got {show(key)}")
                mapping[str(key)] = None
                todo.append((item, mapping, str(key), depth + 1))
        else:
            return Refused("E402", f"{type(value).__name__} is not a value an option can take",
                           "an option is a number, true/false, a symbol, or a list or mapping of them")
    return Plain(root[0])


def _unconverted_number(value: str) -> bool:
    """A plain YAML scalar that reads as an integer but was left as text: one too long to convert."""
    if not isinstance(value, YStr) or value.style is not None:
        return False
    return Resolver().resolve(ScalarNode, str(value), (True, False)) == _INT_TAG


def type_of(value: Any) -> str | None:
    """The declaration word of a plain value: int, bool, symbol, or list (of scalars); None for anything else."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, str):
        return "symbol"
    if isinstance(value, list) and all(isinstance(v, int | str) for v in value):
        return "list"
    return None


def shown_name(name: str) -> str:
    return name if len(name) <= _SHOWN else name[: _SHOWN - 3] + "..."
