"""Constant tables: a value keyed by symbols (or numbers), read in any expression as `name[key]`.

```yaml
values:
  modifier: {table: {red: 1, blue: -1}, keys: colours, default: 0}
  grid:     {table: {small: {red: 1, blue: 2}, big: {red: 3, blue: 4}}}   # grid[size][colour]
```

A table is checked once, after every declaration is known (its symbol keys must be declared, `keys:` names the
set its first level is keyed by), and a read is checked where it is written: the number of keys, each key's type,
and a constant key the table has no entry for. A key known only at run time that the table lacks gives the
table's `default`, or stops the action with E542.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..dataclass_code import dataclass
from ..diagnostics import BoardrulesError, Diagnostics, Span, did_you_mean
from ..engine.runtime import check_known
from ..engine.values import Unknown, shown
from . import checked as c
from . import syntax as s
from .compile_error import CompileError
from .option_values import type_of
from .types import ANY, BOOL, INT, SYMBOL
from .ynodes import key_span, value_span

if TYPE_CHECKING:
    from ..engine.interpreter import Frame
    from ..engine.rules import Rules, ValueDecl
    from .checker import Checker, Scope

MISSING: Any = object()  # a table without a default
_UNKNOWN_KEYS = {"unknown", "source", "note", "type"}
_LEAF_TYPES = {"int": INT, "bool": BOOL, "symbol": SYMBOL, "any": ANY}
_LEAF_WORDS = {"int": "numbers", "bool": "true or false", "symbol": "symbols", "any": "values"}
_KEY_TYPES = {"number": INT, "symbol": SYMBOL}
_CONST_NAME = re.compile(r"^[a-z_][A-Za-z0-9_]*$")  # a symbol a key can be
_CONST_INT = re.compile(r"^-?\d+$")
_ADD_HINT = "add the key to the table, or give the table a default (default: VALUE)"


@dataclass(frozen=True, eq=False)
class Table:
    """A linked table: its entries (nested dicts for a table of tables), the key kind and keys of each level."""

    name: str
    entries: dict[Any, Any]
    key_kinds: tuple[str, ...]  # "symbol" or "number", one per level
    keys: tuple[frozenset[Any], ...]  # every key written at each level
    leaf: str  # int, bool, symbol, or any (only unknowns)
    default: Any = MISSING
    domain: frozenset[Any] = frozenset()  # the symbols of its `keys:` set, which an option may give entries for

    @property
    def depth(self) -> int:
        return len(self.key_kinds)

    def lookup(self, keys: tuple[Any, ...]) -> Any:
        """The entry at `keys`, the default where the table has none, or MISSING."""
        entry: Any = self.entries
        for k in keys:
            if type(entry) is not dict or isinstance(k, bool) or not isinstance(k, str | int):
                return self.default
            entry = entry.get(k, MISSING)
            if entry is MISSING:
                return self.default
        return entry

    def number_range(self) -> tuple[int, int] | None:
        """The least and the greatest entry (and default) of a table of numbers with no unknown entry."""
        if self.leaf != "int":
            return None
        found: list[Any] = [] if self.default is MISSING else [self.default]
        todo = [self.entries]
        while todo:
            for v in todo.pop().values():
                if type(v) is dict:
                    todo.append(v)
                else:
                    found.append(v)
        if not found or any(type(v) is not int for v in found):
            return None
        return min(found), max(found)

    def reader(self) -> Callable[..., Any]:
        """What a compiled read calls with the frame and the keys."""
        def read(f: Frame, *keys: Any) -> Any:
            for k in keys:
                check_known(k, f)
            hit = self.lookup(keys)
            if hit is MISSING:
                written = "][".join(shown(k) for k in keys)
                raise BoardrulesError("E542", f"table '{self.name}' has no entry for {self.name}[{written}]",
                                      f.g.state.cause, _ADD_HINT)
            return hit
        return read


# ---------------------------------------------------------------- declaring


def is_table(node: Any) -> bool:
    return isinstance(node, dict) and "table" in node


def _is_unknown(node: Any) -> bool:
    return isinstance(node, dict) and "unknown" in node and set(map(str, node)) <= _UNKNOWN_KEYS


def _leaf_kind(value: Any) -> str | None:
    """An entry's kind: int, bool or symbol (a list is no table entry)."""
    kind = type_of(value)
    return None if kind == "list" else kind


class _Linker:
    """Checks one table's declaration, reporting E423 at the entry that is wrong."""

    def __init__(self, rules: Rules, name: str, diags: Diagnostics) -> None:
        self.rules, self.name, self.diags = rules, name, diags
        self.leaves: set[str] = set()
        self.levels: list[set[str]] = []  # key kinds seen at each level
        self.keys: list[set[Any]] = []
        self.depths: set[int] = set()
        self.unknowns: list[tuple[str, str, Span]] = []
        self.ok = True

    def error(self, message: str, span: Span, hint: str | None = None) -> None:
        self.diags.error("E423", message, span, hint)
        self.ok = False

    def entries(self, node: dict[Any, Any], span: Span, path: str, level: int) -> dict[Any, Any]:
        if len(self.levels) <= level:
            self.levels.append(set())
            self.keys.append(set())
        out: dict[Any, Any] = {}
        for raw_key, value in node.items():
            kspan, vspan = key_span(node, raw_key, span), value_span(node, raw_key, span)
            text = str(raw_key)
            key: Any = int(text) if _CONST_INT.match(text) else text
            kind = "number" if type(key) is int else "symbol"
            self.levels[level].add(kind)
            if kind == "symbol" and level > 0 and key not in self.rules.symbols:
                self.error(f"'{text}' in table '{self.name}' is not a declared symbol", kspan,
                           did_you_mean(text, self.rules.symbols) or "declare it in a set")
            self.keys[level].add(key)
            where = f"{path}[{text}]"
            if isinstance(value, dict) and not _is_unknown(value):
                if not value:
                    self.error(f"{where} is an empty table", vspan)
                    continue
                out[key] = self.entries(value, vspan, where, level + 1)
            else:
                self.depths.add(level + 1)
                out[key] = self.leaf(value, vspan, where)
        return out

    def leaf(self, value: Any, span: Span, where: str) -> Any:
        if _is_unknown(value):
            note = str(value["unknown"])
            self.unknowns.append((where, note, span))
            return Unknown(where, note)
        kind = _leaf_kind(value)
        if kind is None:
            self.error(f"{where} should be a number, true/false, a symbol or {{unknown: ...}}, got {shown(value)}",
                       span)
            return None
        self.leaves.add(kind)
        return str(value) if kind == "symbol" else value


def declare(rules: Rules, v: ValueDecl, node: dict[Any, Any], diags: Diagnostics) -> Table | None:
    """The linked table of a `{table: ...}` value, or None after reporting what is wrong with it."""
    name = v.name
    raw = node.get("table")
    tspan = value_span(node, "table", v.span)
    if not isinstance(raw, dict) or not raw:
        diags.error("E423", f"table '{name}' needs a mapping of key to value", tspan)
        return None
    lk = _Linker(rules, name, diags)
    set_keys = _set_keys(rules, name, node, v.span, diags)
    entries = lk.entries(raw, tspan, name, 0)
    first = {str(k) for k in lk.keys[0]}
    if set_keys is None:
        for k in raw:
            if lk.levels[0] == {"symbol"} and str(k) not in rules.symbols:
                lk.error(f"'{k}' in table '{name}' is not a declared symbol", key_span(raw, k, tspan),
                         did_you_mean(str(k), rules.symbols) or "declare it in a set (or give the table keys: SET)")
    else:
        for k in raw:
            if str(k) not in set_keys:
                lk.error(f"'{k}' is not one of the keys of table '{name}' ({', '.join(set_keys)})",
                         key_span(raw, k, tspan), did_you_mean(str(k), set_keys))
        missing = [k for k in set_keys if k not in first]
        if missing and "default" not in node:
            lk.error(f"table '{name}' has no entry for {', '.join(missing)}", tspan,
                     "add them, or give the table a default for the keys it leaves out")
    for level, kinds in enumerate(lk.levels):
        if len(kinds) > 1:
            lk.error(f"the keys of table '{name}' at level {level + 1} mix numbers and symbols", tspan)
    if len(lk.depths) > 1:
        lk.error(f"table '{name}' mixes entries and tables at one level: every entry needs the same number of keys",
                 tspan)
    if len(lk.leaves) > 1:
        kinds_said = " and ".join(_LEAF_WORDS[k] for k in sorted(lk.leaves))
        lk.error(f"the entries of table '{name}' mix {kinds_said}: a table holds one kind", tspan)
    leaf = next(iter(lk.leaves)) if len(lk.leaves) == 1 else "any"
    default = MISSING
    if "default" in node:
        default = node["default"]
        kind = _leaf_kind(default)
        if kind is None or (leaf != "any" and kind != leaf):
            lk.error(f"the default of table '{name}' should be one of its {_LEAF_WORDS[leaf]}, got {shown(default)}",
                     value_span(node, "default", v.span))
        else:
            default = str(default) if kind == "symbol" else default
            leaf = kind if leaf == "any" and not lk.unknowns else leaf
    if not lk.ok:
        return None
    rules.unknowns.extend(lk.unknowns)
    key_kinds = tuple(next(iter(k)) for k in lk.levels[: max(lk.depths)])
    return Table(name, entries, key_kinds, tuple(frozenset(k) for k in lk.keys[: len(key_kinds)]), leaf, default,
                 frozenset(set_keys or ()))


def _set_keys(rules: Rules, name: str, node: dict[Any, Any], span: Span, diags: Diagnostics) -> list[str] | None:
    raw = node.get("keys")
    if raw is None:
        return None
    if isinstance(raw, str):
        if raw not in rules.sets:
            diags.error("E401", f"unknown set '{raw}'", value_span(node, "keys", span), did_you_mean(raw, rules.sets))
            return []
        return list(rules.sets[raw])
    return [str(k) for k in raw] if isinstance(raw, list) else []


def with_entries(table: Table, given: dict[str, Any]) -> Table | str:
    """The table with the first-level entries an option gives (a key -> value mapping), or why it cannot be."""
    if table.depth != 1:
        return "an option can set a table of one level only"
    entries = dict(table.entries)
    for raw, value in given.items():
        key: Any = int(raw) if table.key_kinds[0] == "number" and _CONST_INT.match(raw) else raw
        if key not in table.keys[0] | table.domain:
            return f"{shown(raw)} is not a key of table '{table.name}'"
        kind = _leaf_kind(value)
        if kind is None or (table.leaf != "any" and kind != table.leaf):
            return f"table '{table.name}' holds {_LEAF_WORDS[table.leaf]}, got {shown(value)}"
        entries[key] = value
    keys = (table.keys[0] | frozenset(entries), *table.keys[1:])
    return Table(table.name, entries, table.key_kinds, keys, table.leaf, table.default, table.domain)


# ---------------------------------------------------------------- reading


def table_of(rules: Rules, node: s.Node, scope: Scope) -> Table | None:
    """The table `node` names (a value's name, not shadowed by a local name), or None."""
    if not isinstance(node, s.Name) or node.id in scope.names:
        return None
    v = rules.values.get(node.id)
    return v.data if v is not None and v.kind == "table" and isinstance(v.data, Table) else None


def root_name(node: s.Node) -> s.Node:
    """What `a[k1][k2]` indexes at its root (`a`)."""
    while isinstance(node, s.Index):
        node = node.obj
    return node


def bare_name_error(name: str, pos: s.Pos) -> Any:
    return CompileError("E424", f"'{name}' is a table: read one entry with {name}[KEY]", pos)


def check_read(ch: Checker, node: s.Index, scope: Scope) -> c.TableRead | None:
    """The checked read `table[k1][k2]...`, or None when the indexed thing is not a table."""
    keys: list[s.Node] = []
    root: s.Node = node
    while isinstance(root, s.Index):
        keys.insert(0, root.key)
        root = root.obj
    if not isinstance(root, s.Name) or root.id in scope.names:
        return None
    v = ch.rules.values.get(root.id)
    if v is None or v.kind != "table":
        return None
    end = (node.pos[0], node.pos[1])
    if not isinstance(v.data, Table):  # its declaration was reported: no second error at each read
        return c.TableRead(node.pos, end, ANY, node, None, (), (False, None), root.id)
    table: Table = v.data
    if len(keys) != table.depth:
        form = table.name + "[KEY]" * table.depth
        raise CompileError("E424", f"table '{table.name}' is read with {table.depth} key(s), as {form}, not "
                           f"{len(keys)}", node.pos)
    checked, constant = [], []
    for level, key in enumerate(keys):
        k = ch.check(key, scope)
        want = _KEY_TYPES[table.key_kinds[level]]
        if k.type not in (ANY, want):
            raise CompileError("E424", f"the keys of table '{table.name}' are {table.key_kinds[level]}s, but this is "
                               f"{k.type.words()}", key.pos, "index it with a key the table has")
        checked.append(k)
        value = _constant(k)
        if value is not MISSING:
            if value not in table.keys[level] and table.default is MISSING:
                raise CompileError("E424", f"table '{table.name}' has no entry for {shown(value)}", key.pos,
                                   did_you_mean(str(value), [str(x) for x in table.keys[level]])
                                   or _ADD_HINT)
            constant.append(value)
    result = _LEAF_TYPES.get(table.leaf, ANY)
    end = (checked[-1].end[0], checked[-1].end[1] + 1) if checked else end
    if len(constant) == len(keys):
        hit = table.lookup(tuple(constant))
        if hit is MISSING:
            written = "][".join(shown(k) for k in constant)
            raise CompileError("E424", f"table '{table.name}' has no entry for {table.name}[{written}]", node.pos,
                               _ADD_HINT)
        return c.TableRead(node.pos, end, result, node, table, tuple(checked), (True, hit), root.id)
    return c.TableRead(node.pos, end, result, node, table, tuple(checked), (False, None), root.id)


def _constant(key: c.Node) -> Any:
    """A key fixed at link time: a number or a symbol written out, or a constant value; MISSING otherwise."""
    if isinstance(key, c.Literal):
        value: Any = key.value
    elif isinstance(key, c.Name) and key.ref.kind == "symbol":
        value = key.ref.name
    elif isinstance(key, c.Name) and key.ref.kind == "const":
        value = key.ref.decl.data
    else:
        return MISSING
    if type(value) is int or (type(value) is str and _CONST_NAME.match(value)):
        return value
    return MISSING
