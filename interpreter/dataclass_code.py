"""The node classes' generated methods, compiled once into a module instead of at every start.

`dataclasses` writes each class's `__init__`, `__repr__`, `__eq__`, `__hash__` and frozen `__setattr__` as
source text and compiles it when the class is made. For the ~130 classes of the syntax tree, the checked tree,
the effect tree and the linked rules that was most of the package's own import time, paid again by every
process (`boardrules check` of the shipped packs spent about 150 ms on it); the ~30 classes of the other modules
`check` imports (MODULES) cost another ~20 ms until they came from the table too. `dataclass_table.py` holds those
texts compiled as ordinary functions, so Python keeps their bytecode like any module's; `dataclass` below is the
standard decorator, which finds each text it would compile in that table and takes the function made from it.
A text the table does not hold is compiled as usual, so a class is always exactly what `dataclasses` makes of it
(only a traceback inside a generated method names `dataclass_table.py`), and a stale table costs only speed;
`tests/test_dataclass_code.py` says when it is stale. Regenerate after changing a class of MODULES:

    python -m boardrules.dataclass_code
"""

from __future__ import annotations

import builtins
import dataclasses
import hashlib
import sys
import threading
from functools import cache
from pathlib import Path
from types import FunctionType
from typing import Any, TypeVar, cast, dataclass_transform

MODULES = ("boardrules.language.syntax", "boardrules.language.checked", "boardrules.engine.effects",
           "boardrules.engine.rules",
           # and the other modules `check` imports that make dataclasses (each class compiled from source costs
           # about five times one from the table; together they were a twentieth of an uncached check), but the
           # linker, whose Module holds a module's YAML document (test_analysis_tree lists who reads one)
           "boardrules.diagnostics", "boardrules.diagnostics_codes", "boardrules.engine.values",
           "boardrules.engine.budget", "boardrules.engine.substitution", "boardrules.language.option_values",
           "boardrules.language.loader", "boardrules.language.builtins",
           "boardrules.language.yaml_slips", "boardrules.language.types", "boardrules.language.places",
           "boardrules.language.value_tables", "boardrules.language.pack", "boardrules.language.checker",
           "boardrules.language.hooks", "boardrules.analysis.uses", "boardrules.analysis.facts",
           "boardrules.analysis.tree", "boardrules.tools.scenario_refusal")
TABLE_FILE = Path(__file__).with_name("dataclass_table.py")
_WRAPPER = "def __create_fn__("  # how every text dataclasses compiles begins (Python 3.11 and 3.12)

T = TypeVar("T")
_lock = threading.RLock()
recorded: list[str] | None = None  # while generating: every text dataclasses compiled
recorded_docs: dict[str, str] | None = None  # while generating: the docstring dataclasses wrote for each class


@cache
def _table() -> dict[str, FunctionType]:
    try:
        from . import dataclass_table
    except ImportError:
        return {}
    return cast("dict[str, FunctionType]", dataclass_table.TABLE)  # mypy calls generated functions 'function'


@cache
def _docs() -> dict[str, str]:
    try:
        from . import dataclass_table
    except ImportError:
        return {}
    return cast("dict[str, str]", getattr(dataclass_table, "DOCS", {}))


def key(text: str) -> str:
    """A text's entry in the table: the hash of the whole text (the table does not repeat the texts)."""
    return hashlib.sha256(text.encode()).hexdigest()


def _exec(source: object, globals: dict[str, Any] | None = None, locals: dict[str, Any] | None = None) -> None:
    """`exec` as dataclasses calls it (`exec(text, globals, ns)`, then it reads `ns["__create_fn__"]`)."""
    if recorded is not None and isinstance(source, str):
        recorded.append(source)
    made = _table().get(key(source)) if isinstance(source, str) else None
    if made is None or not isinstance(globals, dict) or locals is None:
        # Compiled as dataclasses' own exec would: without this module's `from __future__ import annotations`.
        code = compile(source, "<string>", "exec", dont_inherit=True) if isinstance(source, str) else source
        builtins.exec(code, globals, locals)  # type: ignore[arg-type]
        return
    # The same code with the class module's globals: what exec would have defined.
    locals["__create_fn__"] = FunctionType(made.__code__, globals, "__create_fn__")


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def dataclass(cls: type[T] | None = None, /, **options: Any) -> Any:
    """`dataclasses.dataclass(cls, **options)`, with the methods' code taken from the table when it is there."""
    def make(target: type[T]) -> type[T]:
        name = f"{target.__module__}.{target.__qualname__}"
        # A class without a docstring gets "Name(field: type, ...)", which dataclasses works out with
        # inspect.signature (~0.1 ms a class): the table holds the text it wrote when the table was made.
        undocumented = not target.__doc__
        if undocumented and name in _docs():
            target.__doc__ = _docs()[name]
        with _lock:
            dataclasses.exec = _exec  # type: ignore[attr-defined]  # found before the builtin, in its module only
            try:
                made = dataclasses.dataclass(target, **options)
            finally:
                del dataclasses.exec  # type: ignore[attr-defined]
        if undocumented and recorded_docs is not None and made.__doc__:
            recorded_docs[name] = made.__doc__
        return made
    return make if cls is None else make(cls)


def _recorded() -> tuple[list[str], dict[str, str]]:
    """Every text dataclasses compiles for the classes of MODULES, and the docstrings it writes for them, from a
    fresh process that imports them."""
    import json
    import subprocess

    program = ("import json, boardrules.dataclass_code as d\nd.recorded = []\nd.recorded_docs = {}\n"
               "d._docs = dict\n"  # every docstring worked out afresh, not read from the table
               + "".join(f"import {m}\n" for m in MODULES) + "print(json.dumps([d.recorded, d.recorded_docs]))")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    found, docs = json.loads(out.stdout)
    return list(dict.fromkeys(found)), docs


def texts() -> list[str]:
    """Every text dataclasses compiles for the classes of MODULES."""
    return _recorded()[0]


def docs() -> dict[str, str]:
    """The docstring dataclasses writes for each class of MODULES that has none of its own, by module.qualname."""
    return _recorded()[1]


def generate(found: list[str], written: dict[str, str] | None = None) -> str:
    """The source of dataclass_table.py: each text as a function of its own, the table from text to it, and the
    docstrings dataclasses wrote (`written`)."""
    parts = ["# ruff: noqa\n# mypy: ignore-errors\n"
             '"""Generated by `python -m boardrules.dataclass_code` from the node classes: do not edit."""\n\n'
             ]
    names = []
    for i, text in enumerate(found):
        if not text.startswith(_WRAPPER):
            continue
        names.append((text, f"_f{i}"))
        parts.append(f"def _f{i}(" + text[len(_WRAPPER):] + "\n\n\n")
    parts.append("TABLE = {\n" + "".join(f"    {key(text)!r}: {name},\n" for text, name in names) + "}\n")
    parts.append("DOCS = {\n" + "".join(f"    {k!r}: {v!r},\n" for k, v in sorted((written or {}).items())) + "}\n")
    return "".join(parts)


def main() -> None:
    found, written = _recorded()
    TABLE_FILE.write_text(generate(found, written), encoding="utf-8")
    print(f"wrote {TABLE_FILE}")


if __name__ == "__main__":
    main()
