"""Where a pack's rules can be mutated: the sites the linked rules hold, each placed in the YAML that writes it.

The sites come from the checked tree the linker makes (pack.link), never from a walk of the YAML: each effect node
(an effect written as a list item is removed), each checked expression's numbers and comparisons, each assignment's
`+=`/`-=`, each cost's alternatives, each guard, each `one_of` option, each declared number. A site's place (a
node's span, or a checked node's position inside its string) is then looked up in an index of the module's YAML
entries by where they start, and the mutant is the edit of the entry found there. The index knows positions only:
which entries are sites is the tree's to say.

Each module is linked with what it requires, so a rule another module replaces, or an option another module's
`extend:` drops, is still seen where it is written, and what an extension adds is seen in the extension. A rule
that does not link has no tree and gives no site.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any

from ..analysis.tree import every_effect, rule_bodies, walk
from ..diagnostics import Diagnostics, Span
from ..engine import effects as e
from ..engine.effects import CostC, CostTermC
from ..engine.rules import Rules, TriggerDef, ValueDecl, WatchDef
from ..language import checked as c
from ..language.checked import Expr
from ..language.linker import Module
from ..language.loader import YList, YMap, YStr
from ..language.pack import link
from ..language.parser import _parser
from ..language.places import Source, span_in

COMPARISONS = {"<": (">=", "<="), "<=": (">", "<"), ">": ("<=", ">="), ">=": ("<", ">"), "==": ("!=",),
               "!=": ("==",)}
SWAPS = {"+=": "-=", "-=": "+="}
Path_ = tuple[Any, ...]  # keys and indexes from a module's root to the mutated node


@dataclass(frozen=True)
class Mutant:
    module: str  # module id
    rule: str | None  # section.name of the rule it changes; None for a declaration (every scenario may notice)
    span: Span
    what: str
    path: Path_  # to the container holding the changed node
    op: str  # "set" (container[key] = arg), "drop" (delete container[key])
    key: Any
    arg: Any = None


# ---------------------------------------------------------------- finding mutants


def _quote(text: str) -> str:
    short = " ".join(text.split())
    return short if len(short) <= 60 else short[:57] + "..."


def _offsets(text: str) -> list[int]:
    starts, at = [], 0
    for line in text.split("\n"):
        starts.append(at)
        at += len(line) + 1
    return starts


Place = tuple[str, int, int]  # file, line, column


def _place(span: Span) -> Place:
    return (span.file, span.line, span.col)


@dataclass(frozen=True)
class _Slot:
    """One entry of a module's YAML: `container[key]` on `path`, where its value (and a mapping's key) is written."""

    path: Path_
    key: Any
    container: Any
    span: Span
    key_span: Span | None

    @property
    def value(self) -> Any:
        return self.container[self.key]


class _Places:
    """A module's YAML entries by the place they start: how a site of the linked tree is found in the YAML to edit.
    It knows positions only; which nodes are sites is the tree's to say."""

    def __init__(self, doc: Any) -> None:
        self.values: dict[Place, _Slot] = {}
        self.keys: dict[Place, _Slot] = {}
        self.named_keys: dict[str, list[_Slot]] = {}
        todo: list[tuple[Path_, Any]] = [((), doc)]
        while todo:  # an entry is indexed after the one holding it: at a shared place, the innermost wins
            path, node = todo.pop()
            if isinstance(node, YMap):
                entries = [(k, node.value_spans.get(k), node.key_spans.get(k)) for k in node]
            elif isinstance(node, YList):
                entries = [(i, s, None) for i, s in enumerate(node.item_spans[:len(node)])]
            else:
                continue
            for key, span, key_span in entries:
                value = node[key]
                if span is not None:
                    slot = _Slot(path, key, node, span, key_span)
                    self.values[_place(span)] = slot
                    # where the linker places a quoted or block string: its text's first character
                    self.values.setdefault(_place(span_in(span, (1, 1), getattr(value, "style", None))), slot)
                if key_span is not None:
                    named = _Slot(path, key, node, span or key_span, key_span)
                    self.keys[_place(key_span)] = named
                    self.named_keys.setdefault(str(key), []).append(named)
                todo.append(((*path, key), value))

    def at(self, span: Span) -> _Slot | None:
        return self.values.get(_place(span))

    def named(self, key: str, under: Path_) -> list[_Slot]:
        """The entries called `key` inside the node on `under`."""
        return [s for s in self.named_keys.get(key, []) if s.path[:len(under)] == under]


def _start(node: c.Node) -> c.Pos:
    """Where a checked node's text starts (an operator's node is placed at its operator)."""
    return min(n.pos for n in c.nodes(node))


def _exprs(eff: e.Effect) -> Iterator[Expr]:
    """The expressions an effect node holds (its nested bodies' are their own nodes')."""
    for f in fields(eff):
        value = getattr(eff, f.name)
        items = value if isinstance(value, tuple) else (value,)
        for item in items:
            for x in item if isinstance(item, tuple) else (item,):
                if isinstance(x, Expr):
                    yield x


class _Finder:
    """The mutants of the sites the linked trees hold, each an edit of the YAML entry written at the site's place."""

    def __init__(self, modules: dict[str, Module], only: list[str] | None) -> None:
        self.modules = {m.span.file: m for m in modules.values() if only is None or m.id in only}
        self.order = {m.id: i for i, m in enumerate(modules.values())}
        self.places: dict[str, _Places] = {}
        self.found: dict[tuple[Any, ...], Mutant] = {}
        self.rule: str | None = None

    def slot(self, span: Span | None) -> tuple[Module, _Slot] | None:
        if span is None or span.file not in self.modules:
            return None
        module = self.modules[span.file]
        if span.file not in self.places:
            self.places[span.file] = _Places(module.doc)
        found = self.places[span.file].at(span)
        return None if found is None else (module, found)

    def add(self, module: Module, span: Span, what: str, slot: _Slot, op: str, arg: Any = None) -> None:
        m = Mutant(module.id, self.rule, span, what, slot.path, op, slot.key, arg)
        self.found.setdefault((m.module, _place(span), what, m.path, m.key), m)

    def mutants(self) -> list[Mutant]:
        return sorted(self.found.values(), key=lambda m: (self.order[m.module], m.span.line, m.span.col))

    # ---------------------------------------------------------------- the tree
    def rules(self, rules: Rules) -> None:
        """Declarations first: a declared cost or value is no rule's, wherever a rule uses it."""
        self.rule = None
        for v in rules.values.values():
            self.value(v)
        for cost in rules.costs.values():
            self.cost(cost)
        for name, body in rule_bodies(rules).items():
            self.rule = None if name.startswith("flow.") else name
            self.body(body)
        for action in rules.actions.values():
            self.rule = action.rule
            self.guard(action.guard)
            if action.cost is not None:
                self.cost(action.cost)
        triggers: list[TriggerDef | WatchDef] = [t for ts in rules.triggers.values() for t in ts]
        for trigger in [*triggers, *(w for ws in rules.watchers.values() for w in ws)]:
            self.rule = f"triggers.{trigger.name}"
            self.guard(trigger.guard)
        self.rule = None
        if rules.flow is not None:
            for phase in rules.flow.phases:
                self.guard(phase.guard)
            self.expr(rules.flow.end_when)

    def body(self, body: e.Body) -> None:
        for eff in every_effect(body):
            self.line(eff)
            for x in _exprs(eff):
                self.expr(x)
            if isinstance(eff, e.SetCounterE | e.SetPropE | e.LetE) and eff.op in SWAPS:
                self.swap(eff.op, eff.value)
            elif isinstance(eff, e.PayE):
                self.cost(eff.cost)
            elif isinstance(eff, e.OneOfE):
                self.options(eff)

    def line(self, eff: e.Effect) -> None:
        """An effect written as an item of a list: that item removed."""
        found = self.slot(eff.span)
        if found is None or not isinstance(found[1].container, YList):
            return
        module, slot = found
        item = slot.value
        shown = item if isinstance(item, str) else self.head(eff, slot)
        self.add(module, slot.span, f"line removed: `{_quote(str(shown))}`", slot, "drop")

    def head(self, eff: e.Effect, slot: _Slot) -> str:
        """How a block is named where it is written: the entry holding its first expression or inner effect
        (`if: ...`, `one_of`), or its name (`step: ...`)."""
        item, path = slot.value, (*slot.path, slot.key)
        inner = [x.src.span for x in _exprs(eff) if x.src is not None] + [x.span for x in list(walk((eff,)))[1:]]
        key = next((k for k, v in item.items() if isinstance(v, str) and v == getattr(eff, "name", None)), None)
        for span in inner if key is None else ():
            found = self.slot(span)
            if found is not None and (*found[1].path, found[1].key)[:len(path)] == path:
                key = (*found[1].path, found[1].key)[len(path)]
                break
        if key is None:
            return ""
        return str(key) if isinstance(item[key], dict | list) else f"{key}: {item[key]}"

    def guard(self, x: Expr | None) -> None:
        """A guard (an action's, a trigger's, an option's, a phase's): its entry removed, and its tokens."""
        found = self.slot(x.src.span) if x is not None and x.src is not None else None
        if found is not None and found[1].key_span is not None:
            module, slot = found
            assert slot.key_span is not None
            self.add(module, slot.key_span, f"guard removed: `{slot.key}: {_quote(str(slot.value))}`", slot, "drop")
        self.expr(x)

    def options(self, eff: e.OneOfE) -> None:
        """Each option of a `one_of` written where the block is, dropped (when another is left)."""
        for _, guard, _ in eff.options:
            self.guard(guard)
        found = self.slot(eff.span)
        if found is None:
            return
        module, block = found
        labels = {label for label, _, _ in eff.options}
        places = self.places[block.span.file]
        for label, _, _ in eff.options:  # an option an extension adds is written in the extension: not here
            written = sorted(places.named(label, (*block.path, block.key)),
                             key=lambda s: (-len(labels & set(s.container)), len(s.path)))
            if written and len(written[0].container) > 1 and written[0].key_span is not None:
                self.add(module, written[0].key_span, f"option '{label}' dropped", written[0], "drop")

    def value(self, v: ValueDecl) -> None:
        """A declared number (plain, `value:` or each player count's) up and down by one; a formula's tokens."""
        if v.kind == "expr":
            self.expr(v.compiled)
            return
        found = self.slot_of_key(v.span)
        if found is None:
            return
        module, slot = found
        node = slot.value
        if v.kind == "const" and type(v.data) is int:
            if type(node) is int:
                self.number(module, slot, node)
            elif isinstance(node, YMap):
                inner = next((k for k, x in node.items() if type(x) is int and x == v.data), None)
                if inner is not None:
                    self.number(module, _Slot((*slot.path, slot.key), inner, node,
                                              node.value_spans.get(inner, slot.span), None), v.data)
        elif v.kind == "by_players" and isinstance(node, YMap):
            wanted = {str(n) for n in v.data}
            for k, table in node.items():
                if isinstance(table, YMap) and {str(n) for n in table} == wanted:
                    for n, x in table.items():
                        if type(x) is int:
                            self.number(module, _Slot((*slot.path, slot.key, k), n, table,
                                                      table.value_spans.get(n, slot.span), None), x)

    def slot_of_key(self, span: Span) -> tuple[Module, _Slot] | None:
        """The entry whose key is written at `span` (a declaration's name)."""
        if span.file not in self.modules:
            return None
        self.slot(span)  # indexes the file
        found = self.places[span.file].keys.get(_place(span))
        return None if found is None else (self.modules[span.file], found)

    def cost(self, cost: CostC, within: Source | None = None) -> None:
        """A cost's amounts; and with alternatives, each removed from the text that writes them (`within`: the
        text of the expression a `can_pay` cost is written in)."""
        texts = []
        for alt in cost.alternatives:
            for term in alt:
                inner: CostTermC | None = term
                while inner is not None:
                    texts.append(self.expr(inner.amount, within))
                    self.expr(inner.key_fn, within)
                    inner = inner.lacking
        found = next((t for t in texts if t is not None), None)
        if len(cost.alternatives) > 1 and found is not None and isinstance(found[1].value, str):
            self.alternatives(*found)

    def alternatives(self, module: Module, slot: _Slot) -> None:
        """One mutant per alternative of a cost with `or`, that alternative removed (with its `or`). The tree says
        the cost has alternatives; the grammar's lexer finds where the string at its place cuts them (a checked
        term knows where its amount starts, not where its parentheses or `[key]` end)."""
        text = slot.value
        src = str(text)
        tokens = _lex(src)
        starts = _offsets(src)

        def at(tok: Any) -> int:
            return starts[tok.line - 1] + tok.column - 1

        depth, cuts = 0, []
        lo, hi = 0, len(src)
        for tok in tokens:
            depth += (tok.type == "LPAR") - (tok.type == "RPAR")
            if tok.type == "PAY":
                lo = at(tok) + len(tok.value)
            elif tok.type == "OR" and depth == 0:
                cuts.append(at(tok))
            elif tok.type == "BY" and depth == 0:
                hi = at(tok)
        if not cuts:
            return
        bounds = [lo, *cuts, hi]
        source = Source(getattr(text, "span", slot.span), getattr(text, "style", None))
        for i in range(len(cuts) + 1):
            a, b = bounds[i], bounds[i + 1]
            alt = src[a:b].strip().removeprefix("or ").strip()
            rest = src[b:].lstrip().removeprefix("or ") if i == 0 else src[b:].lstrip()
            new = " ".join(x for x in (src[:a].rstrip(), rest.strip()) if x)
            where = a + len(src[a:b]) - len(src[a:b].lstrip())
            line = src[:where].count("\n") + 1
            self.add(module, source.at((line, where - starts[line - 1] + 1)),
                     f"cost alternative `{_quote(alt)}` removed from `{_quote(src)}`", slot, "set",
                     YStr(new, source.span, source.style))

    # ---------------------------------------------------------------- inside an expression
    def number(self, module: Module, slot: _Slot, value: int) -> None:
        for m in (value + 1, value - 1):
            if m >= 0:
                self.add(module, slot.span, f"{value} -> {m}", slot, "set", m)

    def expr(self, x: Expr | None, within: Source | None = None) -> tuple[Module, _Slot] | None:
        """The numbers and comparisons of a checked expression, edited in the string that writes it (`within`,
        when the expression is part of another's text); the entry of that string."""
        if x is None or x.tree is None:
            return None
        src = x.src if x.src is not None and x.src.span.file in self.modules else within
        found = self.slot(src.span) if src is not None else None
        if found is None or src is None:
            return None
        module, slot = found
        text = slot.value
        if type(text) is int:
            if isinstance(x.tree, c.Literal) and x.tree.value == text:
                self.number(module, slot, text)
            return found
        if not isinstance(text, str):
            return None
        edit = _Edit(self, module, slot, src)
        for node in c.nodes(x.tree):
            if isinstance(node, c.Literal) and type(node.value) is int:
                n = node.value
                if edit.written(node.pos, node.end) == str(n):
                    for m in (n + 1, n - 1):
                        if m >= 0:
                            edit.add(node.pos, node.end, str(m), f"{n} -> {m}")
            elif isinstance(node, c.Compare) and node.op in COMPARISONS:
                pos = edit.find(node.op, node.left.end, _start(node.right))
                if pos is not None:
                    for op in COMPARISONS[node.op]:
                        edit.add(pos, edit.after(pos, node.op), op, f"'{node.op}' -> '{op}'")
            elif isinstance(node, c.CanPay) and isinstance(node.cost, CostC):
                self.cost(node.cost, src)
        return found

    def swap(self, op: str, value: Expr) -> None:
        """`+=` turned into `-=` and back: the operator is the last word before the value."""
        if value.tree is None or value.src is None:
            return
        found = self.slot(value.src.span)
        if found is None or not isinstance(found[1].value, str):
            return
        edit = _Edit(self, *found, value.src)
        pos = edit.before(op, _start(value.tree))
        if pos is None and isinstance(value.tree, c.BinOp):  # a local's `x += v` holds x + v
            pos = edit.before(op, _start(value.tree.right))
        if pos is not None:
            edit.add(pos, edit.after(pos, op), SWAPS[op], f"'{op}' -> '{SWAPS[op]}'")


class _Edit:
    """Changes to one YAML string at places inside its text (a checked node's (line, column))."""

    def __init__(self, finder: _Finder, module: Module, slot: _Slot, src: Source) -> None:
        self.finder, self.module, self.slot, self.src = finder, module, slot, src
        self.value = slot.value
        self.text = str(self.value)
        self.starts = _offsets(self.text)

    def offset(self, pos: c.Pos) -> int:
        line, col = pos
        return self.starts[line - 1] + col - 1 if line <= len(self.starts) else len(self.text)

    def pos(self, offset: int) -> c.Pos:
        line = self.text.count("\n", 0, offset) + 1
        return (line, offset - self.starts[line - 1] + 1)

    def written(self, start: c.Pos, end: c.Pos) -> str:
        return self.text[self.offset(start):self.offset(end)]

    def find(self, word: str, start: c.Pos, end: c.Pos) -> c.Pos | None:
        at = self.text.find(word, self.offset(start), self.offset(end))
        return None if at < 0 else self.pos(at)

    def before(self, word: str, end: c.Pos) -> c.Pos | None:
        head = self.text[:self.offset(end)].rstrip(" \t\n(")  # the value may start with a parenthesis
        return self.pos(len(head) - len(word)) if head.endswith(word) else None

    def after(self, pos: c.Pos, word: str) -> c.Pos:
        return self.pos(self.offset(pos) + len(word))

    def add(self, start: c.Pos, end: c.Pos, new: str, what: str) -> None:
        a, b = self.offset(start), self.offset(end)
        changed = YStr(self.text[:a] + new + self.text[b:], getattr(self.value, "span", self.slot.span),
                       getattr(self.value, "style", None))
        self.finder.add(self.module, self.src.at(start), f"{what} in `{_quote(self.text)}`", self.slot, "set",
                        changed)


def _lex(text: str) -> list[Any]:
    try:
        return list(_parser().lex(text))
    except Exception:  # a string the lexer cannot read has nothing to cut; check reports it
        return []


def find_mutants(modules: dict[str, Module], only: list[str] | None = None) -> list[Mutant]:
    """The mutants of every site the linked rules hold in the modules (`only` these). Each module is linked with
    what it requires: all a module writes (its rules, what it replaces, its hooks and extensions) is in that
    tree, with the rules of its own that another module replaces or an extension changes as it wrote them."""
    finder = _Finder(modules, only)
    for mid in modules if only is None else [m for m in only if m in modules]:
        finder.rules(link(modules, [mid], Diagnostics()))
    return finder.mutants()
