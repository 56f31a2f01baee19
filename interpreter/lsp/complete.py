"""Completion inside rule strings: what fits at the cursor, from the pack index and the linked rules.

The place decides the kind of name: a cost names counters (and named costs), `call` a procedure, `emit` an
event, `me.` what each player has, `goods[` the counter's keys, `move ... to` a zone; elsewhere in a formula
every readable name, the built-in functions and the keywords. Only what the file's module can see (itself and
what it requires, as the linker composes them) is offered.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..engine.rules import Rules
from ..language.builtins import FUNCTIONS
from ..language.compiler import PIECE_BUILTINS
from ..resources import grammar_dir
from .index import Declaration, Index

STATEMENTS = ("let", "pay", "move", "create", "remove", "link", "unlink", "choose", "roll", "draw", "shuffle",
              "refill", "advance", "place", "emit", "defer", "call", "require", "fail", "limit", "end", "score",
              "proceed", "take", "pass")
KEYWORDS = ("and", "or", "not", "in", "if", "else", "where", "sorted", "by", "desc", "for", "true", "false", "none",
            "can_pay", "can")
BUILT_IN_NAMES = {"me": "the acting player", "players": "every player, in seating order",
                  "player_count": "how many players play", "turn_player": "whose turn it is",
                  "turn_number": "the turn's number", "round_number": "the round's number",
                  "start_player": "the round's start player", "chance": "a choice made by a die roll",
                  "game_over": "whether the game has ended",
                  "final_round": "whether a requested end (end game after ...) comes by the end of this round"}
# After `KEYWORD ... ` in an effect line, the sections a name there comes from.
AFTER = (
    (re.compile(r"^(call)\s+\w*$"), ("procedures",)),
    (re.compile(r"^(emit|defer)\s+\w*$"), ("events",)),
    (re.compile(r"^(take)\s+\w*$"), ("actions",)),
    (re.compile(r"^create\s+(\w+\s+)?\w*$"), ("pieces",)),
    (re.compile(r"^roll\s+\w*$"), ("dice",)),
    (re.compile(r"^(advance|place)\s+\w*$"), ("markers",)),
    (re.compile(r"\b(to|in|from)\s+\w*$"), ("zones",)),
    (re.compile(r"\bcan\(\s*\w*$"), ("actions",)),
    (re.compile(r"^defer\s.*\buntil\s+\w*$"), ("events",)),
)
# `end game [now | after this turn | after this round | after next round]`, word by word.
END_TIMES = (
    (re.compile(r"^end\s+game\s+\w*$"), (("now", "the game ends at once"),
                                           ("after", "the game ends after this turn, this round or the next round"))),
    (re.compile(r"^end\s+game\s+after\s+\w*$"), (("this", "this turn or this round"), ("next", "next round"))),
    (re.compile(r"^end\s+game\s+after\s+this\s+\w*$"), (("turn", "when this turn ends"),
                                                         ("round", "when this round ends"))),
    (re.compile(r"^end\s+game\s+after\s+next\s+\w*$"), (("round", "after one more round"),)),
)
KIND = {"counters": "variable", "values": "constant", "zones": "module", "pieces": "class", "properties": "property",
        "actions": "function", "procedures": "function", "events": "event", "costs": "value", "sets": "enum",
        "symbols": "enum_member", "tracks": "struct", "markers": "field", "dice": "value", "modules": "module",
        "phases": "module"}
VALUE_KEYS = ("initial", "max", "capacity", "slots", "spaces")


@dataclass(frozen=True)
class Item:
    label: str
    kind: str  # variable, constant, function, keyword, ... (the server maps it to the protocol's kinds)
    detail: str
    documentation: str | None = None
    rank: int = 1  # lower first


def context(lines: list[str], line: int, col: int) -> tuple[str | None, str]:
    """(the YAML key the cursor's value belongs to, the string's text up to the cursor). Lines and col from 1."""
    text = lines[line - 1][:col - 1] if 0 < line <= len(lines) else ""
    m = re.match(r"^(\s*)(?:-\s+)*([A-Za-z_][\w.]*)\s*:(?:\s+|$)(.*)$", text)
    if m:
        return m.group(2), _strip(m.group(3))
    item = re.match(r"^(\s*)-\s+(.*)$", text)
    indent = len(text) - len(text.lstrip())
    for above in range(line - 2, -1, -1):  # a list item or a continued block scalar: the key above says
        raw = lines[above]
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        ind = len(raw) - len(raw.lstrip())
        if ind < indent or (item and ind <= indent and not raw.lstrip().startswith("-")):
            k = re.match(r"^\s*(?:-\s+)*([A-Za-z_][\w.]*)\s*:", raw)
            if k:
                return k.group(1), _strip(item.group(2) if item else text.strip())
            if ind < indent:
                break
    return None, _strip(item.group(2) if item else text.strip())


def _strip(value: str) -> str:
    """The formula being typed in a YAML value: without quotes or a block indicator, and in a flow list
    `[a, b]` only the item after the last comma of the list itself."""
    value = value.lstrip()
    if value.startswith("["):
        depth, start = 0, 1
        for i, ch in enumerate(value):
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif ch == "," and depth == 1:
                start = i + 1
        value = value[start:].lstrip()
    value = re.sub(r"^[|>][-+]?\s*", "", value)
    return value[1:] if value[:1] in ('"', "'") else value


_FORMULA_DEFS = {"#/$defs/effects": "effect", "#/$defs/expression": "expr", "#/$defs/cost_string": "cost"}
# Keys whose formulas the module schema types as plain strings (a word or an expression): `by: chance`,
# `until: each_once`, a value's `expr:`.
_PLAIN_FORMULAS = {"by": "expr", "until": "expr", "expr": "expr"}


@cache
def formula_roles() -> dict[str, str]:
    """Each key whose value is a formula -> what it holds (effect, expr, cost), as the module schema says: a key
    whose schema is (a list of, a mapping to, or one of) effects, an expression or a cost. A half-typed line does
    not parse, so completion knows what is being written from its key."""
    schema = json.loads((grammar_dir() / "module.schema.json").read_text(encoding="utf-8"))
    defs = schema.get("$defs", {})

    def role(sub: Any, depth: int = 0) -> str | None:
        if not isinstance(sub, dict) or depth > 4:
            return None
        ref = sub.get("$ref")
        if ref in _FORMULA_DEFS:
            return _FORMULA_DEFS[ref]
        inner = [*sub.get("oneOf", ()), *sub.get("anyOf", ()), sub.get("then"), sub.get("items"),
                 sub.get("additionalProperties")]
        if isinstance(ref, str) and ref.startswith("#/$defs/") and depth < 2:
            inner.append(defs.get(ref.removeprefix("#/$defs/")))
        return next((r for r in (role(x, depth + 1) for x in inner) if r is not None), None)

    out: dict[str, str] = dict(_PLAIN_FORMULAS)
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, sub in (node.get("properties") or {}).items():
                found = role(sub)
                if found is not None:
                    out.setdefault(key, found)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


def _role(key: str | None, parents: list[str | None]) -> str | None:
    formula = formula_roles().get(key or "")
    if formula is not None:
        return formula
    if key == "on":
        return "event"
    if key == "change":  # on: {change: NAME}
        return "watched"
    if key == "requires" or key == "modules":
        return "module"
    if key in ("actions", "action"):
        return "action"
    if key in VALUE_KEYS:
        return "value"
    if key == "keys":
        return "set"
    return None


def complete(index: Index, rules: Rules | None, file: str, lines: list[str], line: int, col: int) -> list[Item]:
    key, before = context(lines, line, col)
    role = _role(key, [])
    if role == "event" and re.search(r"\bchange:\s*\w*$", before):  # on: {change: NAME}
        role = "watched"
    if role is None:
        return []
    prefix = re.search(r"[A-Za-z0-9_]*$", before)
    head = before[:len(before) - len(prefix.group() if prefix else "")]
    visible = index.visible(file)
    pick = _Picker(visible, rules)
    if role == "watched":
        return pick.sections(("counters", "markers", "zones"))
    if role in ("event", "module", "action", "value", "set"):
        section = {"event": "events", "module": "modules", "action": "actions", "value": "values", "set": "sets"}
        return pick.sections((section[role],))
    if head.endswith("."):
        return pick.attributes(re.search(r"(\w*)\.$", head).group(1))  # type: ignore[union-attr]
    if head.endswith("["):
        owner = re.search(r"(\w*)\[$", head)
        return pick.keys(owner.group(1) if owner else "", role == "cost")
    if role == "cost":
        amount = re.search(r"(^|[+(]|\bor|\blacking)\s*(\d+|\w+|\([^)]*\))\s+$", head)
        counters = pick.sections(("counters", "markers"), rank=0)  # a marker is paid by moving it
        return counters if amount else [*pick.sections(("costs",)), Item("nothing", "keyword", "costs nothing"),
                                         *[Item(i.label, i.kind, i.detail, i.documentation, 2) for i in counters]]
    if role == "effect":
        if not head.strip():
            return [*[Item(w, "keyword", "effect") for w in STATEMENTS], *pick.expression()]
        for pattern, said in END_TIMES:
            if pattern.search(head):
                return [Item(w, "keyword", doc, rank=0) for w, doc in said]
        for pattern, sections in AFTER:
            if pattern.search(head):
                return pick.sections(sections, rank=0)
        if re.match(r"^pay\s", head):
            return [*pick.sections(("costs",), rank=0), *pick.sections(("counters", "markers"))]
    elif re.search(r"\bcan\(\s*$", head):
        return pick.sections(("actions",), rank=0)
    return pick.argument(head) or pick.expression()


class _Picker:
    def __init__(self, visible: list[Declaration], rules: Rules | None) -> None:
        self.visible = visible
        self.rules = rules or Rules()

    def _item(self, d: Declaration, rank: int = 1) -> Item:
        note = d.node.get("note") if isinstance(d.node, dict) else None
        return Item(d.name, KIND.get(d.section, "text"), f"{describe(d, self.rules)} ({d.module})",
                    str(note) if note else None, rank)

    def sections(self, sections: tuple[str, ...], rank: int = 1) -> list[Item]:
        seen: set[str] = set()
        out = []
        for d in self.visible:
            if d.section in sections and d.name not in seen:
                seen.add(d.name)
                out.append(self._item(d, rank))
        return out

    def expression(self) -> list[Item]:
        r = self.rules
        per_player = {n for n, c in r.counters.items() if c.per == "player"}
        per_player |= {n for n, z in r.zones.items() if z.per == "player"} | set(r.player_markers)
        names = [i for i in self.sections(("values", "counters", "zones", "sets", "tracks", "markers", "dice",
                                           "symbols", "pieces"))
                 if i.label not in per_player]  # those are read through a player: me.coins
        out = [*names, *[Item(n, "variable", doc, rank=0 if n == "me" else 1) for n, doc in BUILT_IN_NAMES.items()]]
        out += [Item(n, "function", f"built-in function, {spec.min_args} to {spec.max_args} argument(s)")
                for n, spec in FUNCTIONS.items()]
        out += [Item(k, "keyword", "keyword", rank=3) for k in KEYWORDS]
        return out

    def argument(self, head: str) -> list[Item]:
        """Inside a built-in function's call, what its argument must be comes first (`position(` a marker,
        `capacity(` a zone, `count(` a list or a zone), then the rest of the expression names."""
        call = _open_call(head)
        if call is None or call[0] not in FUNCTIONS:
            return []
        kinds = FUNCTIONS[call[0]].args
        kind = kinds[min(call[1], len(kinds) - 1)]
        sections = ARGUMENT_SECTIONS.get(kind)
        if not sections:
            return []
        first = self.sections(sections, rank=0)
        if kind == "player":
            first += [Item(n, "variable", doc, rank=0) for n, doc in BUILT_IN_NAMES.items()
                      if n in ("me", "turn_player", "start_player")]
        shown = {i.label for i in first}
        return [*first, *[Item(i.label, i.kind, i.detail, i.documentation, 2) for i in self.expression()
                          if i.label not in shown]]

    def attributes(self, obj: str) -> list[Item]:
        """After `obj.`: what a player has when obj is a player, else a piece's properties (and, when the
        checker cannot tell, both)."""
        r = self.rules
        player = obj in ("me", "turn_player", "start_player") or bool(re.fullmatch(r"p[1-9]", obj))
        mine = [i for i in self.sections(("counters", "zones", "markers"), rank=0)
                if (i.label in r.counters and r.counters[i.label].per == "player")
                or (i.label in r.zones and r.zones[i.label].per == "player") or i.label in r.player_markers]
        if player:
            return mine
        props = self.sections(("properties",), rank=0)
        props += [Item(n, "property", f"every piece's {n} ({t.name})", rank=1) for n, t in PIECE_BUILTINS.items()]
        return [*props, *[Item(i.label, i.kind, i.detail, i.documentation, 2) for i in mine]]

    def keys(self, owner: str, cost: bool) -> list[Item]:
        counter = self.rules.counters.get(owner)
        out = [Item(k, "enum_member", f"a key of {owner}", rank=0) for k in (counter.keys or ())] if counter else []
        table = self.rules.values.get(owner)
        if table is not None and table.kind == "table" and hasattr(table.data, "keys"):
            out = [Item(str(k), "enum_member", f"a key of table {owner}", rank=0) for k in sorted(table.data.keys[0],
                                                                                                  key=str)]
        if cost:
            return [*out, Item("any", "keyword", "any one key, chosen when paying"),
                    Item("different", "keyword", "different keys, chosen when paying")]
        # A key may also be computed (me.goods[b.reward]): the rest of the expression names after the keys.
        return out + [Item(i.label, i.kind, i.detail, i.documentation, 2) for i in self.expression()]


# What a built-in's argument kind (builtins.Spec.args) can name.
ARGUMENT_SECTIONS = {"zone": ("zones",), "marker": ("markers",), "track": ("tracks",), "list": ("zones", "sets"),
                     "symbol": ("pieces", "symbols"), "number": ("values", "counters"),
                     "numbers": ("values", "counters"), "player": ()}


def _open_call(head: str) -> tuple[str, int] | None:
    """The function whose argument list the cursor is in, and which argument (from 0)."""
    depth, commas = 0, 0
    for i in range(len(head) - 1, -1, -1):
        ch = head[i]
        if ch in ")]":
            depth += 1
        elif ch in "([":
            if depth == 0:
                if ch == "[":
                    return None
                name = re.search(r"(\w+)\s*$", head[:i])
                return (name.group(1), commas) if name else None
            depth -= 1
        elif ch == "," and depth == 0:
            commas += 1
    return None


def describe(d: Declaration, rules: Rules) -> str:
    """A declaration's kind and type in a few words: `counter per player, keys goods`."""
    name = d.name
    if d.section == "counters" and name in rules.counters:
        c = rules.counters[name]
        keys = f", keyed ({', '.join(c.keys[:6])}{', ...' if len(c.keys) > 6 else ''})" if c.keys else ""
        return f"counter per {c.per}{keys}"
    if d.section == "values" and name in rules.values:
        v = rules.values[name]
        return f"value ({v.kind}, {rules.value_type(name)})"
    if d.section == "zones" and name in rules.zones:
        return f"zone per {rules.zones[name].per}"
    if d.section == "properties":
        return f"property of {d.parent} ({rules.properties.get(name, 'any')})"
    if d.section == "symbols":
        return f"symbol of {d.parent}"
    if d.section == "markers":
        return f"marker{' per player' if name in rules.player_markers else ''} on {d.parent}"
    if d.section in ("procedures", "events", "actions") and isinstance(d.node, dict):
        params = d.node.get("params")
        sig = ", ".join(str(p) for p in params) if isinstance(params, dict) else ""
        return f"{d.section[:-1]}({sig})"
    return d.section[:-1] if d.section.endswith("s") else d.section
