"""Turn a rule's `do:` list (YAML strings and blocks) into effect nodes, resolving names as it goes."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import fields, replace
from typing import Any

from ..diagnostics import Diagnostics, Span, did_you_mean
from ..engine import effects as e
from ..engine.budget import CODE as BUDGET_CODE
from ..engine.budget import check_constant
from ..engine.rules import Rules
from . import syntax as s
from . import value_tables
from .checked import Expr
from .compile_error import CompileError
from .compiler import ExprCompiler, Scope
from .hooks import wrap_body
from .loader import YMap, YStr
from .marker_costs import marker_term
from .parser import ParseError, parse
from .places import Source, span_in
from .sections import BLOCK_KEYS
from .types import (
    ANY,
    FAMILY,
    INT,
    MARKER,
    NONE,
    PIECE,
    PLAYER,
    SYMBOL,
    ZONE,
    Type,
    comparable,
    declared,
    iterable,
    list_of,
    member_of,
)

_INIT_FIELDS: dict[type, tuple[str, ...]] = {}


def _replaced(node: Any, **changes: Any) -> Any:
    """dataclasses.replace(node, **changes) for an effect node (every field an __init__ argument, none an InitVar
    or ClassVar): the same call of its class, without replace's look at every field's kind (an effect line is
    built once per link, and replace was a twentieth of building them)."""
    names = _INIT_FIELDS.get(type(node))
    if names is None:
        plain = fields(node)  # only the fields that are neither ClassVar nor InitVar
        assert len(plain) == len(type(node).__dataclass_fields__) and all(f.init for f in plain), type(node)
        names = _INIT_FIELDS[type(node)] = tuple(f.name for f in plain)
    for name in names:
        if name not in changes:
            changes[name] = getattr(node, name)
    return type(node)(**changes)


class Text:
    """A string from YAML with the place it came from (a YStr, or any scalar with its parent's span)."""

    def __init__(self, value: object, fallback: Span):
        self.text = str(value).lower() if isinstance(value, bool) else str(value)
        self.span: Span = getattr(value, "span", None) or fallback
        self.style = getattr(value, "style", None) if isinstance(value, YStr) else None
        self._source: Source | None = None

    @property
    def source(self) -> Source:
        """Where the text is: what a linked formula keeps."""
        if self._source is None:
            self._source = Source(self.span, self.style)
        return self._source

    def at(self, pos: s.Pos) -> Span:
        return span_in(self.span, pos, self.style)

    def covering(self, start: Span | None = None) -> Span:
        """A span to the end of this text, carrying the text: what an effect node keeps. It starts at the text,
        or at `start` (a block starts where its mapping does)."""
        lines = self.text.rstrip().split("\n")
        first, end = start or self.at((1, 1)), self.at((len(lines), len(lines[-1]) + 1))
        return Span(first.file, first.line, first.col, end.line, end.col, self.text)


MAX_FORMULA_CHARS = 64_000  # per file; the shipped modules have at most about 20,000


class Builder:
    def __init__(self, rules: Rules, diags: Diagnostics) -> None:
        self.rules = rules
        self.diags = diags
        self.exprs = ExprCompiler(rules)
        self.exprs.cost_compiler = self._cost_in_expression
        # wrap: hooks by target (set by the linker), the rule being built (section.name), the named steps met,
        # the targets whose hooks were built, and whether an `instead` hook is being built (proceed is legal).
        self.hooks: dict[str, list[Any]] = {}
        self.rule: str | None = None
        self.steps_seen: set[str] = set()
        self.hooks_used: set[str] = set()
        self.instead_depth = 0
        self.game_over = False  # building the flow's `end.do`: the game is already over there
        self._seen: set[tuple[str, str]] = set()
        self._formula_chars: dict[str, int] = {}
        # What building leaves here, in order, so a unit shared from another link (shared_links) can leave it too:
        # each text parsed (with its start symbol and file), each named step, each hook target used.
        self.parse_log: list[tuple[str, str, str]] = []
        self.step_log: list[str] = []
        self.hook_log: list[str] = []
        self.names_view: Any = None  # shared_links' meanings of this link's names, made at its first unit
        self.built_names: set[str] = set()  # names of the costs, actions and procedures this link builds
        self._statements: dict[type, Callable[[Any, Scope, Text], e.Effect | None]] = {
            s.Let: self._let,
            s.Assign: self._assign,
            s.Pay: self._pay,
            s.Move: self._move,
            s.Create: self._create,
            s.Remove: lambda n, sc, t: e.RemoveE(t.at(n.pos), self._as(n.what, sc, t, _PIECES, "what is removed")),
            s.Link: self._link,
            s.Unlink: lambda n, sc, t: e.UnlinkE(t.at(n.pos), self._as(n.what, sc, t, _PIECES, "what is unlinked")),
            s.Choose: self._choose,
            s.Roll: self._roll,
            s.Draw: self._draw,
            s.Shuffle: lambda n, sc, t: e.ShuffleE(t.at(n.pos), self._as(n.zone, sc, t, {ZONE}, "what is shuffled")),
            s.Refill: self._refill,
            s.Advance: self._advance,
            s.Place: self._place,
            s.Emit: self._emit,
            s.Defer: self._defer,
            s.CallProc: self._call,
            s.Require: lambda n, sc, t: e.RequireE(
                t.at(n.pos), self._expr(n.cond, sc, t), n.message or f"requires {t.text.removeprefix('require ')}"
            ),
            s.Fail: lambda n, sc, t: e.FailE(t.at(n.pos), n.message),
            s.Limit: self._limit,
            s.End: self._end,
            s.Score: lambda n, sc, t: e.ScoreE(t.at(n.pos)),
            s.Proceed: self._proceed,
            s.PassTurn: lambda n, sc, t: e.PassE(t.at(n.pos)),
            s.Take: self._take,
        }

    # ---------------------------------------------------------------- helpers
    def error(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.diags.error(code, message, span, hint)

    def parse(self, text: Text, start: str) -> s.Node | None:
        self.parse_log.append((text.text, start, text.span.file))
        if (text.text, start) not in self._seen:
            # Parsing costs time per character of new text: a file may hold only so much formula text.
            self._seen.add((text.text, start))
            file = text.span.file
            used = self._formula_chars.get(file, 0) + len(text.text)
            self._formula_chars[file] = used
            if used > MAX_FORMULA_CHARS:
                if used - len(text.text) <= MAX_FORMULA_CHARS:
                    self.error("E104", f"too much formula text in one file (more than {MAX_FORMULA_CHARS:,} "
                               "characters of distinct expressions, costs and effect lines)", text.at((1, 1)),
                               "split the module into several files")
                return None
        try:
            return parse(text.text, start)
        except ParseError as err:
            self.error("E301", err.message, text.at(err.pos), err.hint)
            return None

    def replay_parses(self, parsed: list[tuple[str, str, str]]) -> bool:
        """Count formula text as parsing `parsed` here would (a shared unit's texts); False, counting nothing,
        when that would pass the per-file limit (a fresh build reports E104 there)."""
        seen, chars = self._seen, self._formula_chars
        new: dict[tuple[str, str], str] = {}
        for t, start, file in parsed:
            if (t, start) not in seen and (t, start) not in new:
                new[(t, start)] = file
        added: dict[str, int] = {}
        for (t, _), file in new.items():
            added[file] = added.get(file, 0) + len(t)
        if any(chars.get(file, 0) + n > MAX_FORMULA_CHARS for file, n in added.items()):
            return False
        seen.update(new)
        for file, n in added.items():
            chars[file] = chars.get(file, 0) + n
        self.parse_log.extend(parsed)
        return True

    def expression(self, value: object, fallback: Span, scope: Scope) -> Expr | None:
        """Parse and link an expression written as a YAML scalar; None (and a diagnostic) on failure."""
        text = Text(value, fallback)
        node = self.parse(text, "expr")
        if node is None:
            return None
        try:
            return self.exprs.link(node, scope).at(text.source)
        except CompileError as err:
            self.error(err.code, err.message, text.at(err.pos), err.hint)
            return None

    def _expr(self, node: s.Node, scope: Scope, text: Text) -> Expr:
        try:
            return self.exprs.link(node, scope).at(text.source)
        except CompileError as err:
            raise _Reported(err, text) from None

    def _typed(self, node: s.Node, scope: Scope, text: Text) -> tuple[Expr, Type]:
        try:
            linked = self.exprs.link(node, scope).at(text.source)
        except CompileError as err:
            raise _Reported(err, text) from None
        assert linked.tree is not None
        return linked, linked.tree.type

    def _as(self, node: s.Node, scope: Scope, text: Text, wanted: set[Type], what: str) -> Expr:
        """Link an expression whose static type must be one of `wanted` (or not known until run time)."""
        fn, t = self._typed(node, scope, text)
        if t != ANY and t not in wanted:
            words = " or ".join(sorted(w.words() for w in wanted))
            raise _Reported(CompileError("E402", f"{what} should be {words}, but it is {t.words()}", node.pos),
                            text)
        return fn

    def _number(self, expr: Expr | None, what: str, span: Span) -> Expr | None:
        """A block's expression that must be a number: None (and E402) when its static type says it is not."""
        kind = expr.tree.type if expr is not None and expr.tree is not None else ANY
        if kind not in (INT, ANY):
            self.error("E402", f"{what} should be a number, but it is {kind.words()}", span)
            return None
        return expr

    def domain(self, param: str, word: str, fn: Expr, span: Span) -> None:
        """E402 when a parameter's domain (`in:`) can hold no value of the parameter's type (`{type: int, in:
        colours}`): the action could never be taken with a value from it."""
        if fn.tree is not None and not iterable(fn.tree.type):
            self.error("E402", f"parameter '{param}' takes its values from its domain, which must be a list or a zone "
                       f"(a set, a range, a zone, a filter), but this is {fn.tree.type.words()}", span,
                       "name the values it may take: `in: goods`, `in: \"1..3\"`, `in: \"me.hand\"`")
        elif fn.tree is not None and not member_of(declared(word), fn.tree.type):
            self.error("E402", f"parameter '{param}' is {declared(word).words()}, but its domain gives "
                       f"{fn.tree.type.words()}", span, "give the parameter the type of its domain's values")

    def _bounded(self, value: object, limit: str, what: str, span: Span) -> None:
        """A constant that already exceeds a work limit is reported at check time (E513), not at play."""
        if type(value) is int:
            over = check_constant(limit, value, what)
            if over:
                self.error(BUDGET_CODE, over, span)

    def _lookup(self, table: dict[str, Any], name: str, what: str, pos: s.Pos, text: Text) -> None:
        if name not in table:
            raise _Reported(CompileError("E401", f"unknown {what} '{name}'", pos, did_you_mean(name, table)), text)

    # ---------------------------------------------------------------- bodies
    def body(self, items: object, fallback: Span, scope: Scope) -> e.Body:
        if isinstance(items, str | YMap):
            items = [items]
        if not isinstance(items, list):
            self.error("E201", "expected a list of effects", fallback)
            return ()
        spans = getattr(items, "item_spans", None)
        out: list[e.Effect] = []
        for i, item in enumerate(items):
            span = spans[i] if spans and i < len(spans) else fallback
            built = self.item(item, span, scope)
            if built is not None:
                out.append(built)
        return tuple(out)

    def statement(self, node: s.Node, scope: Scope, text: Text) -> e.Effect | None:
        """An effect from a statement node built in code (a scenario's counter override), not parsed from text."""
        try:
            return self._statements[type(node)](node, scope, text)
        except _Reported as rep:
            self.error(rep.err.code, rep.err.message, rep.text.at(rep.err.pos), rep.err.hint)
            return None

    def item(self, item: object, span: Span, scope: Scope) -> e.Effect | None:
        if isinstance(item, dict):
            return self.block(item, span, scope)
        if not isinstance(item, str):
            self.error("E201", "an effect is a string or a block (if, for, repeat, match, one_of, may)", span)
            return None
        text = Text(item, span)
        node = self.parse(text, "effect")
        if node is None:
            _bind_unknown(scope, _BINDS.findall(text.text))
            return None
        try:
            effect = self._statements[type(node)](node, scope, text)
            if effect is None:
                return None
            if "named_at" in type(effect).__dataclass_fields__:  # built at its name's place: keep it
                return _replaced(effect, span=text.covering(), named_at=effect.span)
            return _replaced(effect, span=text.covering())
        except _Reported as rep:
            self.error(rep.err.code, rep.err.message, rep.text.at(rep.err.pos), rep.err.hint)
            # The line's own name still exists for the lines after it: one mistake, one error.
            _bind_unknown(scope, [node.name if isinstance(node, s.Let) else getattr(node, "var", None),
                                  getattr(node, "bind", None)])
            return None

    def block(self, block: dict, span: Span, scope: Scope) -> e.Effect | None:
        kind = next((k for k in BLOCK_KEYS if k in block), None)
        vspan = getattr(block, "value_spans", {})
        if kind is None:
            self.error("E201", f"a block needs one of {', '.join(BLOCK_KEYS)}", span)
            return None
        here = vspan.get(kind, span)
        head = block[kind].get("by") if isinstance(block[kind], dict) else block[kind]  # the text a block keeps
        span = Text(head, here).covering(span) if head is not None and not isinstance(head, list) else span
        return BLOCKS[kind](self, block, here, span, scope)

    def _sub(self, block: dict, key: str, span: Span, inner: Scope) -> e.Body:
        """A body inside a block (`then`, `do`, ...), in a scope of its own."""
        return self.body(block.get(key, []), getattr(block, "value_spans", {}).get(key, span), inner)

    def _if_block(self, block: dict, here: Span, span: Span, scope: Scope) -> e.Effect | None:
        cond = self.expression(block["if"], here, scope)
        then, other = self._sub(block, "then", span, scope.child()), self._sub(block, "else", span, scope.child())
        return e.IfE(span, cond, then, other) if cond else None

    def _for_block(self, block: dict, here: Span, span: Span, scope: Scope) -> e.Effect | None:
        text = Text(block["for"], here)
        head = self.parse(text, "for_head")
        if not isinstance(head, s.ForHead):
            return None
        try:
            items, t = self._typed(head.iterable, scope, text)
            if t != NONE and not iterable(t):  # a name bound to none may hold a list by the time the loop runs
                msg = f"a loop goes through a list or a zone, but this is {t.words()}"
                raise _Reported(CompileError("E402", msg, head.iterable.pos), text)
            if head.var in scope.names:
                raise _Reported(_rebound(head.var, head.pos), text)
        except _Reported as rep:
            self.error(rep.err.code, rep.err.message, rep.text.at(rep.err.pos), rep.err.hint)
            return None
        body = self._sub(block, "do", span, scope.child({head.var: t.element()}))
        return e.ForE(span, head.var, items, body)

    def _while_block(self, block: dict, here: Span, span: Span, scope: Scope) -> e.Effect | None:
        cond = self.expression(block["while"], here, scope)
        body = self._sub(block, "do", span, scope.child())
        return e.WhileE(span, cond, body) if cond else None

    def _step_block(self, block: dict, here: Span, span: Span, scope: Scope) -> e.Effect | None:
        name = str(block["step"])
        target = f"{self.rule}.{name}"
        if target in self.steps_seen:
            self.error("E403", f"'{self.rule}' already has a step '{name}'", here)
        self.steps_seen.add(target)
        self.step_log.append(target)
        return e.StepE(span, name, wrap_body(self, target, self._sub(block, "do", span, scope.child()), scope))

    def _repeat_block(self, block: dict, here: Span, span: Span, scope: Scope) -> e.Effect | None:
        count = self._number(self.expression(block["repeat"], here, scope), "a repeat count", here)
        self._bounded(block["repeat"], "work", "this repeat count", here)
        body = self._sub(block, "do", span, scope.child())
        return e.RepeatE(span, count, body) if count else None

    def _match_block(self, block: dict, here: Span, span: Span, scope: Scope) -> e.Effect | None:
        subject = self.expression(block["match"], here, scope)
        cases_node = block.get("cases", {})
        cases = []
        if isinstance(cases_node, dict):
            cspans = getattr(cases_node, "value_spans", {})
            self._labels(block["match"], here, scope, cases_node)
            for key, val in cases_node.items():
                cases.append((str(key), self.body(val, cspans.get(key, span), scope.child())))
        other = self._sub(block, "else", span, scope.child())
        return e.MatchE(span, subject, tuple(cases), other) if subject else None

    def _one_of_block(self, block: dict, here: Span, span: Span, scope: Scope) -> e.Effect | None:
        spec = block["one_of"]
        if not isinstance(spec, dict) or not isinstance(spec.get("options"), dict):
            self.error("E201", "one_of needs 'options': a mapping of option name to effects", here)
            return None
        by = self.expression(spec["by"], here, scope) if "by" in spec else None
        options = []
        ospans = getattr(spec["options"], "value_spans", {})
        for label, opt in spec["options"].items():
            ospan = ospans.get(label, here)
            guard = None
            if isinstance(opt, dict) and "do" in opt:
                if "if" in opt:
                    guard = self.expression(opt["if"], getattr(opt, "value_spans", {}).get("if", ospan), scope)
                opt = opt["do"]
            options.append((str(label), guard, self.body(opt, ospan, scope.child())))
        return e.OneOfE(span, by, tuple(options))

    def _as_block(self, block: dict, here: Span, span: Span, scope: Scope) -> e.Effect | None:
        who = self.expression(block["as"], here, scope)
        if who is not None and who.tree is not None and who.tree.type not in (ANY, PLAYER):
            # `as: w` for a piece (meant `w.owner`) would stop every game that reaches it with E510.
            self.error("E402", f"the player the block runs for should be a player, but it is "
                       f"{who.tree.type.words()}", here, "name a player: `as: w.owner`, `as: next_player(me)`")
            who = None
        inner = scope.child()
        inner.has_me = True  # inside the block `me` is the player it runs for, even in a game rule
        body = self._sub(block, "do", span, inner)
        return e.AsE(span, who, body) if who else None

    def _may_block(self, block: dict, here: Span, span: Span, scope: Scope) -> e.Effect | None:
        spec = block["may"]
        if isinstance(spec, list):
            spec = {"do": spec}
        if not isinstance(spec, dict):
            self.error("E201", "may needs 'do': a list of effects", here)
            return None
        by = self.expression(spec["by"], here, scope) if "by" in spec else None
        body = self.body(spec.get("do", []), getattr(spec, "value_spans", {}).get("do", here), scope.child())
        return e.MayE(span, by, body)

    def _labels(self, subject: object, span: Span, scope: Scope, cases: dict) -> None:
        """A `match` on a symbol names declared symbols, and one on a number names numbers."""
        text = Text(subject, span)
        try:
            t = self.exprs.link(parse(text.text, "expr"), scope).type
        except (ParseError, CompileError):
            return  # reported where the subject is compiled
        kspans = getattr(cases, "key_spans", {})
        for key in cases:
            label = str(key).lower() if isinstance(key, bool) else str(key)
            number = label.lstrip("-").isdigit()
            if t == INT and not number:
                self.error("E402", f"this match is on a number, but '{label}' is not one", kspans.get(key, span))
            elif t == SYMBOL and label not in self.rules.symbols and not number:
                self.error("E401", f"'{label}' is not a declared symbol, so this case never matches",
                           kspans.get(key, span), did_you_mean(label, self.rules.symbols))

    # ---------------------------------------------------------------- statements
    def _bind(self, scope: Scope, name: str, typ: Type, pos: s.Pos, t: Text) -> None:
        """Bind a local name in this block; a name an enclosing block bound cannot be bound again (E403)."""
        if name in scope.outer:
            raise _Reported(_rebound(name, pos), t)
        scope.names[name] = typ

    def _let(self, n: s.Let, scope: Scope, t: Text) -> e.Effect:
        fn, typ = self._typed(n.value, scope, t)
        self._bind(scope, n.name, typ, n.pos, t)
        return e.LetE(t.at(n.pos), n.name, fn)

    def _proceed(self, n: s.Proceed, scope: Scope, t: Text) -> e.Effect:
        if not self.instead_depth:
            msg = "proceed runs the wrapped rule, so it belongs in a wrap's instead hook"
            raise _Reported(CompileError("E402", msg, n.pos), t)
        return e.ProceedE(t.at(n.pos))

    def _cost_in_expression(self, cost: s.Cost, scope: Scope) -> e.CostC:
        try:
            return self.cost(cost, scope, _EXPRESSION_TEXT, "can_pay")
        except _Reported as rep:
            raise rep.err from None

    def _assign(self, n: s.Assign, scope: Scope, t: Text) -> e.Effect:
        value, vt = self._typed(n.value, scope, t)
        if n.op != "=" and vt not in (INT, ANY):
            raise _Reported(CompileError("E402", f"'{n.op}' needs a number, but this is {vt}", n.value.pos), t)
        assign = ASSIGN_TO.get(type(n.target))
        if assign is None:
            raise _Reported(CompileError("E402", "only a counter or a piece property can be assigned", n.target.pos), t)
        return assign(self, n, value, vt, scope, t)

    def _assign_name(self, n: s.Assign, value: Expr, vt: Type, scope: Scope, t: Text) -> e.Effect:
        """`x = v`: a local name, the start player, or a game counter."""
        target = n.target
        assert isinstance(target, s.Name)
        r = self.rules
        if target.id in scope.names:
            return self._set_local(n, target.id, value, vt, scope, t)
        if target.id == "start_player" and "start_player" not in r.counters:
            if n.op != "=" or vt not in (PLAYER, ANY):
                raise _Reported(CompileError("E402", "start_player is set to a player: start_player = EXPR",
                                             n.value.pos), t)
            return e.SetStartPlayerE(t.at(n.pos), value)
        c = r.counters.get(target.id)
        if c is not None and c.per == "player":
            msg = f"each player has a counter '{target.id}': say whose (me.{target.id}, p.{target.id})"
            raise _Reported(CompileError("E401", msg, target.pos), t)
        if c is None or c.per != "game" or c.keys is not None:
            hint = did_you_mean(target.id, [k for k, v in r.counters.items() if v.per == "game"])
            raise _Reported(CompileError("E401", f"'{target.id}' is not a game counter", target.pos, hint), t)
        key = self.exprs.counter_key(c, None, target.pos, target)
        return self._counter_set(t.at(n.pos), key, target.id, n.op, value, vt, n, t)

    def _assign_index(self, n: s.Assign, value: Expr, vt: Type, scope: Scope, t: Text) -> e.Effect:
        """`c[k] = v`: a cell of a keyed counter."""
        target = n.target
        assert isinstance(target, s.Index)
        table = value_tables.table_of(self.rules, value_tables.root_name(target), scope)
        if table is not None:
            raise _Reported(CompileError("E424", f"'{table.name}' is a table of constants: a rule cannot change "
                                         "it", target.pos, "keep what changes in a keyed counter"), t)
        try:
            cell = self.exprs.counter_cell(target.obj, target.key, scope)
        except CompileError as err:
            raise _Reported(err, t) from None
        if cell is not None:
            return self._counter_set(t.at(n.pos), cell, _family_name(target.obj), n.op, value, vt, n, t)
        fam, ft = self._typed(target.obj, scope, t)
        key_fn = self._expr(target.key, scope, t)
        if ft not in (FAMILY, ANY):
            raise _Reported(CompileError("E402", "only a keyed counter can be set by [key]", target.pos), t)
        key = self.exprs.family_key(fam, key_fn, target)
        return self._counter_set(t.at(n.pos), key, _family_name(target.obj), n.op, value, vt, n, t)

    def _assign_attr(self, n: s.Assign, value: Expr, vt: Type, scope: Scope, t: Text) -> e.Effect:
        """`p.c = v`, `x.prop = v`: a player's counter or a piece's property."""
        target = n.target
        assert isinstance(target, s.Attr)
        r = self.rules
        obj, ot = self._typed(target.obj, scope, t)
        if ot == PLAYER:
            c = r.counters.get(target.name)
            if c is None or c.per != "player":
                hint = did_you_mean(target.name, r.player_counter_names())
                msg = f"a player has no counter '{target.name}'"
                raise _Reported(CompileError("E401", msg, target.pos, hint), t)
            if c.keys is not None:
                raise _Reported(CompileError("E402", f"'{target.name}' is keyed: write [key]", target.pos), t)
            key = self.exprs.counter_key(c, obj, target.pos, target)
            return self._counter_set(t.at(n.pos), key, target.name, n.op, value, vt, n, t)
        if ot in (PIECE, ANY):
            if target.name not in r.properties:
                hint = did_you_mean(target.name, r.properties)
                msg = f"no piece has a property '{target.name}'"
                raise _Reported(CompileError("E401", msg, target.pos, hint), t)
            ptype = declared(r.properties[target.name])
            if n.op == "=" and not _assignable(ptype, vt):
                msg = f"property '{target.name}' is {ptype}, but the value is {vt}"
                raise _Reported(CompileError("E402", msg, n.value.pos), t)
            return e.SetPropE(t.at(n.pos), obj, target.name, n.op, value)
        raise _Reported(CompileError("E402", "only a counter or a piece property can be assigned", target.pos), t)

    def _set_local(self, n: s.Assign, name: str, value: Expr, vt: Type, scope: Scope, t: Text) -> e.Effect:
        """`x = EXPR`, `x += EXPR` on a local name: changes the binding where it was made (an enclosing block's
        too), which is how a loop counts or a `while` learns to stop."""
        old = scope.names[name]
        if n.op != "=" and old not in (INT, ANY):
            raise _Reported(CompileError("E402", f"'{n.op}' needs a number, but '{name}' is {old}", n.target.pos), t)
        if n.op == "=" and not _assignable(old, vt) and old != NONE:
            msg = f"'{name}' holds {old.words()}, but the value is {vt.words()}"
            raise _Reported(CompileError("E402", msg, n.value.pos), t)
        if n.op == "=":
            return e.LetE(t.at(n.pos), name, value, "=")
        return e.LetE(t.at(n.pos), name, self.exprs.local_update(name, old, n.op[0], value, n).at(t.source), n.op)

    def _counter_set(self, span: Span, key: Expr, counter: str, op: str, value: Expr, vt: Type, n: s.Assign,
                     t: Text) -> e.Effect:
        if vt not in (INT, ANY):
            msg = f"counter '{counter}' holds numbers, but the value is {vt}"
            raise _Reported(CompileError("E402", msg, n.value.pos), t)
        return e.SetCounterE(span, key.at(t.source), counter, op, value)

    def _pay(self, n: s.Pay, scope: Scope, t: Text) -> e.Effect:
        by = self._expr(n.by, scope, t) if n.by else None
        return e.PayE(t.at(n.pos), self.cost(n.cost, scope, t, t.text.strip().removeprefix("pay ").strip()), by)

    def cost(self, cost: s.Cost, scope: Scope, t: Text, label: str | None = None) -> e.CostC:
        alternatives: list[tuple[e.CostTermC, ...]] = []
        named: list[str] = []
        for alt in cost.alternatives:
            if isinstance(alt, s.CostRef):
                self._lookup(self.rules.costs, alt.name, "cost", alt.pos, t)
                alternatives.extend(self.rules.costs[alt.name].alternatives)
                named.append(alt.name)
                continue
            terms = []
            for term in alt.terms:
                built = self._cost_term(term, scope, t)
                if term.lacking is not None:
                    if term.key == "different" or built.marker:
                        what = "a marker's spaces" if built.marker else "one each of several keys"
                        msg = f"{what} has no one part to lack: 'lacking' needs a counter with a fixed key or [any]"
                        raise _Reported(CompileError("E402", msg, term.lacking.pos), t)
                    built = replace(built, lacking=self._cost_term(term.lacking, scope, t))
                terms.append(built)
            alternatives.append(tuple(terms))
        return e.CostC(t.at(cost.pos), tuple(alternatives), label or t.text, tuple(named))

    def _cost_term(self, term: s.CostTerm, scope: Scope, t: Text) -> e.CostTermC:
        c = self.rules.counters.get(term.counter)
        if c is None:
            marker = marker_term(self.rules, term)
            if isinstance(marker, CompileError):
                raise _Reported(marker, t)
            return e.CostTermC(self._amount(term, scope, t), term.counter, marker, None, None, True,
                               pos=term.pos)
        amount = self._amount(term, scope, t)
        key_fn = None
        key = term.key
        if key is not None and c.keys is None:
            msg = f"counter '{c.name}' has no keys, so '[{key}]' does not apply"
            raise _Reported(CompileError("E402", msg, term.pos), t)
        if key is None and c.keys is not None:
            msg = f"counter '{c.name}' is keyed: write {c.name}[key], [any] or [different]"
            raise _Reported(CompileError("E402", msg, term.pos), t)
        if key is not None and key not in ("any", "different") and key not in (c.keys or ()):
            if key in scope.names:
                key_fn = self._expr(s.Name(term.pos, key), scope, t)
                key = None
            else:
                hint = did_you_mean(key, [*(c.keys or ()), "any", "different"])
                raise _Reported(CompileError("E401", f"'{key}' is not a key of '{c.name}'", term.pos, hint), t)
        return e.CostTermC(amount, c.name, c.per, key, key_fn, pos=term.pos)

    def _amount(self, term: s.CostTerm, scope: Scope, t: Text) -> Expr:
        return self._as(term.amount, scope, t, _NUMBER, "the amount of a cost")

    def _link(self, n: s.Link, scope: Scope, t: Text) -> e.Effect:
        a, b = (self._as(x, scope, t, _PIECE, "a linked thing") for x in (n.a, n.b))
        return e.LinkE(t.at(n.pos), a, b)

    def _move(self, n: s.Move, scope: Scope, t: Text) -> e.Effect:
        to, tt = self._typed(n.to, scope, t)
        if tt not in (ZONE, ANY):
            raise _Reported(CompileError("E402", f"pieces move to a zone, but this is {tt}", n.to.pos), t)
        what = self._as(n.what, scope, t, _PIECES, "what is moved")
        at = self._as(n.at, scope, t, _NUMBER, "the slot") if n.at else None
        return e.MoveE(t.at(n.pos), what, to, at)

    def _create(self, n: s.Create, scope: Scope, t: Text) -> e.Effect:
        self._lookup(self.rules.kinds, n.kind, "piece kind", n.pos, t)
        props = []
        for name, expr in n.props:
            if name != "id" and name not in self.rules.kinds[n.kind]:
                hint = did_you_mean(name, self.rules.kinds[n.kind])
                raise _Reported(CompileError("E401", f"'{n.kind}' has no property '{name}'", expr.pos, hint), t)
            fn, vt = self._typed(expr, scope, t)
            ptype = SYMBOL if name == "id" else declared(self.rules.kinds[n.kind][name])
            if not _assignable(ptype, vt):
                msg = f"property '{name}' is {ptype}, but the value is {vt}"
                raise _Reported(CompileError("E402", msg, expr.pos), t)
            props.append((name, fn))
        count = self._as(n.count, scope, t, _NUMBER, "the number of pieces") if n.count else None
        if isinstance(n.count, s.Literal):
            self._bounded(n.count.value, "pieces", "the number of pieces created", t.at(n.count.pos))
        zone, zt = self._typed(n.zone, scope, t)
        if zt not in (ZONE, ANY):
            raise _Reported(CompileError("E402", f"pieces are created in a zone, but this is {zt}", n.zone.pos), t)
        at = self._expr(n.at, scope, t) if n.at else None
        if n.bind:
            self._bind(scope, n.bind, list_of(PIECE) if n.count else PIECE, n.pos, t)
        return e.CreateE(t.at(n.pos), count, n.kind, zone, at, tuple(props), n.bind)

    def _choose(self, n: s.Choose, scope: Scope, t: Text) -> e.Effect:
        options, ot = self._typed(n.options, scope, t)
        if not iterable(ot):
            msg = f"a choice is made from a list or a zone, but this is {ot.words()}"
            raise _Reported(CompileError("E402", msg, n.options.pos), t)
        by = self._expr(n.by, scope, t) if n.by else None
        count = None
        if n.count is not None:  # a number, or a range of numbers N..M
            count = self._expr(n.count, scope, t) if isinstance(n.count, s.Range) else \
                self._as(n.count, scope, t, _NUMBER, "the number chosen")
        self._bind(scope, n.var, list_of(ot.element()) if n.count else ot.element(), n.pos, t)
        return e.ChooseE(t.at(n.pos), n.var, options, by, n.optional, count, t.text)

    def _roll(self, n: s.Roll, scope: Scope, t: Text) -> e.Effect:
        self._lookup(self.rules.dice, n.die, "die", n.pos, t)
        self._bind(scope, n.var, INT, n.pos, t)
        return e.RollE(t.at(n.pos), n.die, self.rules.dice[n.die], n.var)

    def _draw(self, n: s.Draw, scope: Scope, t: Text) -> e.Effect:
        zone = self._expr(n.zone, scope, t)
        self._bind(scope, n.var, PIECE, n.pos, t)
        return e.DrawE(t.at(n.pos), n.var, zone)

    def _refill(self, n: s.Refill, scope: Scope, t: Text) -> e.Effect:
        name = n.zone.id if isinstance(n.zone, s.Name) else n.zone.name if isinstance(n.zone, s.Attr) else None
        decl = self.rules.zones.get(name) if name and name not in scope.names else None
        if decl is not None and decl.capacity is None:
            msg = f"refill fills a zone up to its capacity, and '{name}' has none"
            raise _Reported(CompileError("E402", msg, n.zone.pos, f"give zones.{name} a capacity"), t)
        return e.RefillE(t.at(n.pos), self._expr(n.zone, scope, t), self._expr(n.source, scope, t))

    def _marker(self, node: s.Node, scope: Scope, t: Text) -> Any:
        if isinstance(node, s.Name) and node.id not in scope.names and node.id not in self.rules.global_names():
            self._lookup(self.rules.markers, node.id, "marker", node.pos, t)
            if node.id in self.rules.player_markers:
                msg = f"each player has a marker '{node.id}': say whose (me.{node.id}, p.{node.id})"
                raise _Reported(CompileError("E402", msg, node.pos), t)
        return self._as(node, scope, t, {MARKER}, "what moves on a track")

    def _advance(self, n: s.Advance, scope: Scope, t: Text) -> e.Effect:
        marker = self._marker(n.marker, scope, t)
        return e.AdvanceE(t.at(n.pos), marker, self._as(n.by, scope, t, _NUMBER, "the number of spaces"))

    def _place(self, n: s.Place, scope: Scope, t: Text) -> e.Effect:
        marker = self._marker(n.marker, scope, t)
        return e.PlaceE(t.at(n.pos), marker, self._as(n.at, scope, t, _NUMBER, "the space"))

    def _event_args(self, event: str, args: tuple[s.Node, ...], pos: s.Pos, scope: Scope, t: Text) -> tuple:
        self._lookup(self.rules.events, event, "event", pos, t)
        params = self.rules.events[event]
        if len(args) != len(params):
            msg = f"event '{event}' takes {len(params)} argument(s), got {len(args)}"
            raise _Reported(CompileError("E405", msg, pos), t)
        return self._args(f"event '{event}'", params, args, scope, t)

    def _args(self, what: str, params: tuple[tuple[str, str], ...], args: tuple[s.Node, ...], scope: Scope,
              t: Text) -> tuple:
        """Compiled arguments, each checked against its parameter's declared type."""
        out = []
        for (name, word), arg in zip(params, args, strict=True):
            fn, at = self._typed(arg, scope, t)
            want = declared(word)
            if not comparable(want, at):
                msg = f"parameter '{name}' of {what} is {want.words()}, but this is {at.words()}"
                raise _Reported(CompileError("E402", msg, arg.pos), t)
            out.append(fn)
        return tuple(out)

    def _emit(self, n: s.Emit, scope: Scope, t: Text) -> e.Effect:
        return e.EmitE(t.at(n.pos), n.event, self._event_args(n.event, n.args, n.pos, scope, t))

    def _defer(self, n: s.Defer, scope: Scope, t: Text) -> e.Effect:
        args = self._event_args(n.event, n.args, n.pos, scope, t)
        until = n.until or "turn_end"
        self._lookup(self.rules.events, until, "event", n.pos, t)
        return e.DeferE(t.at(n.pos), n.event, args, until)

    def _call(self, n: s.CallProc, scope: Scope, t: Text) -> e.Effect:
        self._lookup(self.rules.procedures, n.proc, "procedure", n.pos, t)
        params = self.rules.procedures[n.proc].params
        if len(n.args) != len(params):
            msg = f"procedure '{n.proc}' takes {len(params)} argument(s), got {len(n.args)}"
            raise _Reported(CompileError("E405", msg, n.pos), t)
        as_player = self._as(n.as_player, scope, t, {PLAYER}, "the player it runs for") if n.as_player else None
        return e.CallE(t.at(n.pos), n.proc, self._args(f"procedure '{n.proc}'", params, n.args, scope, t), as_player)

    def _take(self, n: s.Take, scope: Scope, t: Text) -> e.Effect:
        self._lookup(self.rules.actions, n.action, "action", n.pos, t)
        params = self.rules.actions[n.action].params
        if len(n.args) != len(params):
            msg = f"action '{n.action}' takes {len(params)} argument(s), got {len(n.args)}"
            raise _Reported(CompileError("E405", msg, n.pos), t)
        if n.as_player is None and not scope.has_me and self.rules.actions[n.action].by == "player":
            msg = f"'{n.action}' is taken by a player, and no player is acting here"
            raise _Reported(CompileError("E401", msg, n.pos, f"write take {n.action}(...) as PLAYER"), t)
        who = self._as(n.as_player, scope, t, {PLAYER}, "the player who takes it") if n.as_player else None
        return e.TakeE(t.at(n.pos), n.action, self._args(f"action '{n.action}'", params, n.args, scope, t), who)

    def _end(self, n: s.End, scope: Scope, t: Text) -> e.Effect:
        if n.time is not None and n.what != "game":
            msg = f"'{n.time}' says when the game ends: write it after 'end game', not 'end {n.what}'"
            raise _Reported(CompileError("E420", msg, n.pos, "end turn and end round take nothing after them"), t)
        at = END_TIMES.get(n.time or "now")
        if at is None:
            msg = f"'end game after {n.time}' is not a time the game can end"
            hint = "write end game now, end game after this turn, after this round or after next round"
            raise _Reported(CompileError("E420", msg, n.pos, hint), t)
        if n.what == "game" and self.game_over:
            msg = "the game is already over in the flow's end.do: there is no end to ask for"
            raise _Reported(CompileError("E421", msg, n.pos, "end.do runs once the game has ended; remove the line"),
                            t)
        return e.EndE(t.at(n.pos), n.what, at)

    def _limit(self, n: s.Limit, scope: Scope, t: Text) -> e.Effect:
        key = self._expr(n.key, scope, t) if n.key else None
        return e.LimitE(t.at(n.pos), n.name, key, self._as(n.count, scope, t, _NUMBER, "a limit's count"), n.scope)


# `end game [now | after this turn | after this round | after next round]`, as EndE.at says it.
END_TIMES = {"now": "now", "this turn": "turn", "this round": "round", "next round": "next_round"}
_PIECE = {PIECE}
_PIECES = {PIECE, list_of(PIECE), list_of(ANY), ZONE}
_NUMBER = {INT}


# The names a line binds (let x, choose x, draw x, roll ... as x, create ... as x), read from its text when it
# does not parse.
_BINDS = re.compile(r"^\s*(?:let|choose|draw)\s+([A-Za-z_]\w*)|\bas\s+([A-Za-z_]\w*)\s*$")


def _bind_unknown(scope: Scope, names: list) -> None:
    for name in names:
        for n in (name if isinstance(name, tuple) else (name,)):
            if n and n not in scope.names:
                scope.names[n] = ANY


_EXPRESSION_TEXT = Text("can_pay", Span("<expression>", 1, 1))


def _rebound(name: str, pos: s.Pos) -> CompileError:
    return CompileError("E403", f"'{name}' is already bound outside this block", pos,
                        "a block's names are its own: pick another name, or set the outer one before the block")


class _Reported(Exception):
    def __init__(self, err: CompileError, text: Text):
        self.err, self.text = err, text


def _family_name(node: s.Node) -> str:
    if isinstance(node, s.Attr):
        return node.name
    if isinstance(node, s.Name):
        return node.id
    return "?"


def _assignable(ptype: Type, vt: Type) -> bool:
    if vt in (ANY, NONE) or ptype in (ANY, vt):
        return True
    return ptype.is_list and vt.is_list


# Each block kind (sections.BLOCK_KEYS) -> what builds it. tests/test_dispatch.py proves it covers every kind.
BLOCKS: dict[str, Callable[[Builder, dict, Span, Span, Scope], e.Effect | None]] = {
    "if": Builder._if_block,
    "for": Builder._for_block,
    "repeat": Builder._repeat_block,
    "match": Builder._match_block,
    "one_of": Builder._one_of_block,
    "may": Builder._may_block,
    "as": Builder._as_block,
    "while": Builder._while_block,
    "step": Builder._step_block,
}


# Each kind of assignment target -> what builds the assignment. Anything else cannot be assigned (E402).
ASSIGN_TO: dict[type, Callable[[Builder, s.Assign, Expr, Type, Scope, Text], e.Effect]] = {
    s.Name: Builder._assign_name,
    s.Index: Builder._assign_index,
    s.Attr: Builder._assign_attr,
}
