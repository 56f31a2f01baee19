"""Compile a rule's whole body into one Python function, once it has run `rules.compile_after` times.

The interpreter (`engine.interpreter`) walks effect nodes one by one, calling a runner per node and a function per
expression. Here a body becomes Python source instead: each expression's source inline (no call per
expression), blocks as Python `if` and `for`, the step budget charged once per block, and the commonest
statements (let, counter changes, if, for, match, require, fail, call, a module's hooks around a rule) written
out. Every other kind of statement calls its runner from `RUNNERS`, so there is still one place that says what each
kind does, and the two ways of running agree by construction where they share code;
`tests/test_compiled_bodies.py` runs every scenario of the shipped and test packs both ways and compares the
results.

Each function is named after its rule's file and line (`rule_produce_yaml_27`), and its source is registered
with `linecache`, so a traceback or a profile shows the rule and the generated line; `source_of` gives the
source to `boardrules explain --python`. The registration lasts as long as some linked rules that made it live:
a process that loads many packs (a server, a test suite) does not keep the sources of the dead ones.
"""

from __future__ import annotations

import dataclasses
import linecache
import os
import re
import weakref
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..diagnostics import Span, source_line
from ..engine import effects as e
from ..engine.values import Player
from . import checked as c
from .compiler import ExprCompiler
from .emitter import PROLOGUE, Body, Gen, body_namespace, record
from .types import ANY, BOOL, INT, ZONE, Type

if TYPE_CHECKING:
    from ..engine.rules import Rules

Compiled = Callable[[Any], None]


class BodyCompiler:
    """Compiles the bodies of one linked rule set; `rules.compile_body` is its `__call__`."""

    def __init__(self, rules: Rules, exprs: ExprCompiler) -> None:
        self.rules = rules
        self.exprs = exprs
        self.sources: dict[int, tuple[e.Body, str]] = {}  # id(body) -> (the body, kept alive; its source)
        self.registered: set[str] = set()  # the linecache names this rule set registered
        weakref.finalize(rules, _unregister, self.registered)

    def __call__(self, body: e.Body) -> Compiled:
        fn, src = self.build(body)
        self.sources[id(body)] = (body, src)
        self.rules.compiled[id(body)] = fn
        return fn

    def source_of(self, body: e.Body) -> str:
        if id(body) not in self.sources:
            self(body)
        return self.sources[id(body)][1]

    def sources_of(self, body: e.Body) -> list[str]:
        """The body's function, then those of the bodies its statements run through their runners (a `may`,
        `one_of`, `while`, ... body is a function of its own), depth first."""
        out = [self.source_of(body)]
        for node in _run_by_runners(body):
            for value in _fields_of(node):
                if isinstance(value, tuple) and value and all(isinstance(x, e.Effect) for x in value):
                    out += self.sources_of(value)
                elif isinstance(value, tuple):  # one_of options hold (label, guard, body) tuples
                    for item in value:
                        if isinstance(item, tuple) and item and isinstance(item[-1], tuple) and all(
                                isinstance(x, e.Effect) for x in item[-1]) and item[-1]:
                            out += self.sources_of(item[-1])
        return out

    def build(self, body: e.Body) -> tuple[Compiled, str]:
        span = body[0].span if body else None
        name = _function_name(span)
        w = _Writer(self.exprs, self.rules)
        w.gen.me = "me"
        # A body whose statements are all written out here can keep its names in Python locals (still written
        # to f.vars too); a runner could change f.vars behind our back, so a body that calls one reads f.vars.
        w.use_locals = _all_written_out(body)
        w.block(body, 1)
        text = "\n".join(w.lines)
        prologue = [f"def {name}(f):"]
        used = {local for local, _ in PROLOGUE if re.search(rf"\b{local}\b", text)}
        used |= {"me"} if "mid" in used else set()
        used |= {"g"} if used & {"st", "MI"} else set()
        prologue += [f"    {local} = {value}" for local, value in PROLOGUE if local in used]
        w.lines = [*prologue, *w.lines]
        src = "\n".join(w.lines) + "\n"
        filename = f"<rule {_escaped(str(span.file))}:{span.line}>" if span is not None else "<rule>"
        globals_ = body_namespace(w.gen)
        globals_.update(_PLAIN=_PLAIN)
        exec(compile(src, filename, "exec"), globals_)
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        if filename not in self.registered:
            self.registered.add(filename)
            _REGISTERED[filename] += 1
        return globals_[name], src


# How many live rule sets registered each linecache name (two loads of one pack register the same names).
_REGISTERED: Counter[str] = Counter()


def _unregister(names: set[str]) -> None:
    for name in names:
        _REGISTERED[name] -= 1
        if _REGISTERED[name] <= 0:
            del _REGISTERED[name]
            linecache.cache.pop(name, None)


def _where(span: Span) -> str:
    """file:line and the rule's own text, for a reader of the generated source (never code: a comment)."""
    text = (source_line(str(span.file), span.line) or "").strip()
    text = text if len(text) <= 80 else text[:77] + "..."
    return re.sub(r"[\x00-\x1f\x7f\u2028\u2029\x85]", " ",
                  f"{_escaped(os.path.basename(str(span.file)))}:{span.line}: {text}")


def _escaped(name: str) -> str:
    """A file name as Python source can hold it: a name that is not UTF-8 reaches us with lone surrogates
    (os.fsdecode), which compile() refuses; each becomes the `\\xNN` of its byte."""
    return re.sub("[\ud800-\udfff]", lambda m: f"\\x{ord(m.group()) & 0xFF:02x}", name)


def _function_name(span: Span | None) -> str:
    if span is None:
        return "rule_empty"
    stem = re.sub(r"[^A-Za-z0-9_]", "_", os.path.basename(str(span.file)))
    return f"rule_{stem}_{span.line}"


class _Writer:
    """The source of one function being generated, and its constants."""

    def __init__(self, exprs: ExprCompiler, rules: Rules) -> None:
        self.exprs = exprs
        self.rules = rules
        self.gen = Gen()
        self.lines: list[str] = []
        self.temps = 0
        self.grouped: dict[int, tuple[str, c.Node, c.Node, list[c.Node], str]] = {}  # id(let) -> plan
        self.use_locals = False

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def const(self, value: Any) -> str:
        return self.gen.const(value)

    def temp(self, prefix: str) -> str:
        self.temps += 1
        return f"{prefix}{self.temps}"

    def expr(self, expr: c.Expr) -> tuple[str, Type]:
        """An expression's source inline, or a call of its function when it was not made from a checked tree."""
        got = self.exprs.source(expr, self.gen)
        if got is None:
            return f"{self.const(expr.fn)}(f)", ANY
        return got

    def truth(self, fn: Any) -> str:
        src, t = self.expr(fn)
        return src if t == BOOL else f"_truth(f, {src})"

    # ---------------------------------------------------------------- statements
    def bind(self, depth: int, name: str, value: str) -> None:
        """Bind a name the rule reads: in the frame's vars, and in a Python local for what follows in this block."""
        name = str(name)
        if self.use_locals and f"L_{name}".isidentifier() and name.isascii():
            local = self.gen.locals[name] = f"L_{name}"
            self.line(depth, Body.bind(name, value, local))
        else:
            self.line(depth, Body.bind(name, value, None))

    def block(self, body: e.Body, depth: int) -> None:
        outer = dict(self.gen.locals)  # what a block binds is not seen after it
        try:
            self._block(body, depth)
        finally:
            self.gen.locals = outer

    def _block(self, body: e.Body, depth: int) -> None:
        if not body:
            self.line(depth, "pass")
            return
        # The interpreter charges a step before each statement; charging the block's statements at its start
        # keeps the same budget at a fraction of the cost (a block that would overrun stops before it starts).
        for text in Body.charge_steps(len(body), self.const(body[0].span)):
            self.line(depth, text)
        for node in body:
            self.line(depth, f"{Body.cause(self.const(node.span))}  # {_where(node.span)}")
            write = _WRITERS.get(type(node))
            if write is None:
                self.line(depth, Body.run(self.const(type(node)), self.const(node)))
            else:
                write(self, node, depth)

    def let(self, n: e.LetE, depth: int) -> None:
        if id(n) in self.grouped:
            self.grouped_count(n, depth)
            return
        src, t = self.expr(n.value)
        if t not in (ANY, INT):
            self.bind(depth, n.name, src)
            return
        tmp = self.temp("value")
        self.line(depth, f"{tmp} = {src}")
        self.line(depth, Body.number(tmp))
        self.bind(depth, n.name, tmp)

    def set_counter(self, n: e.SetCounterE, depth: int) -> None:
        key, value = self.temp("key"), self.temp("value")
        self.line(depth, f"{key} = {self.expr(n.key)[0]}")
        src = self.expr(n.value)[0]
        self.line(depth, f"{value} = {src}")
        # A number written in the rule (`c = 0`, `c += 1`) is known here: its type and the counter's bounds are not
        # tested again at every run.
        literal = int(src) if re.fullmatch(r"-?[0-9]+", src) else None
        old = self.temp("old")
        if n.op != "=":
            sign = "+" if n.op == "+=" else "-"
            self.line(depth, f"{old} = {Body.counter(key)}")
            both = f"{old}.__class__ is _int" + (f" and {value}.__class__ is _int" if literal is None else "")
            self.line(depth, f"if {both}: {value} = {old} {sign} {value}")
            self.line(depth, f"else: {value} = _change(f, {old}, {value}, {n.op!r})")
        else:
            self.line(depth, f"{old} = {Body.counter_or_missing(key)}")
        c = self.rules.counters.get(n.counter)
        general = Body.set_counter(key, str(n.counter), value)
        if c is None or c.name in self.rules.watchers or c.key_limits or \
                not all(type(b) in (int, type(None)) for b in (c.min, c.max)):
            self.line(depth, general)
            return
        # The machine's range checks and the store's journal entry, written out for a number within range; the
        # general path for anything else (out of range, overflow rules, not a number).
        if literal is not None and n.op == "=":
            if (isinstance(c.min, int) and literal < c.min) or (isinstance(c.max, int) and literal > c.max):
                self.line(depth, general)
                return
            tests = [f"-MI <= {value} <= MI"]
        else:
            tests = [f"{value}.__class__ is _int", f"-MI <= {value} <= MI"]
            tests += [f"{value} >= {c.min}"] if c.min is not None else []
            tests += [f"{value} <= {c.max}"] if c.max is not None else []
        self.line(depth, f"if {' and '.join(tests)}:")
        self.line(depth + 1, f"if {old}.__class__ is not _int or {old} != {value}:")
        for text in Body.write_counter(key, old, value):
            self.line(depth + 2, text)
        self.line(depth, f"else: {general}")

    def if_(self, n: e.IfE, depth: int) -> None:
        self.line(depth, f"if {self.truth(n.cond)}:")
        self.block(n.then, depth + 1)
        if n.other:
            self.line(depth, "else:")
            self.block(n.other, depth + 1)

    def for_(self, n: e.ForE, depth: int) -> None:
        item = self.temp("item")
        for let, plan in _group_plans(n, self.rules):
            grp = self.temp("groups")
            self.grouped[id(let)] = (grp, *plan, item)
            self.line(depth, f"{grp} = None")
        self.line(depth, f"for {item} in _as_list({self.expr(n.items)[0]}, f):")
        outer = dict(self.gen.locals)
        self.bind(depth + 1, n.var, item)
        self.block(n.body, depth + 1)
        self.gen.locals = outer

    def grouped_count(self, n: e.LetE, depth: int) -> None:
        """`let x = count(Z where A and it.P == v)` inside `for v in ...`, where nothing in the loop moves or changes
        a piece: one pass over Z counts the pieces meeting A by their P, the first time it is needed, and each
        turn of the loop looks its v up. The budget is charged as the filter would be; a value that is not plain
        data (or an unknown) takes the filter as written."""
        grp, zone, keyed, rest, item = self.grouped[id(n)]
        emit = self.exprs.emitter
        self.line(depth, f"if {grp} is None:")
        used, self.gen.depth, self.gen.used = self.gen.used, 1, set()  # invariants become locals set before it
        zsrc = emit.src(zone, self.gen)
        tests = [emit.truth(cond, self.gen) for cond in rest]
        key = emit.src(keyed, self.gen)
        uses_piece, self.gen.used = "it" in self.gen.used, used
        hoisted, self.gen.hoisted, self.gen.depth = self.gen.hoisted, {}, 0
        for src, name in hoisted.items():
            self.line(depth + 1, f"{name} = {src}")
        pid, ids, size = self.temp("pid"), self.temp("ids"), self.temp("size")
        self.line(depth + 1, f"{grp} = {{}}")
        self.line(depth + 1, f"{ids} = _ids(f, {zsrc})")
        self.line(depth + 1, f"{size} = len({ids})")
        self.line(depth + 1, Body.refund_work(size))  # charged at each use below, as the filter would be
        records = self.temp("records")
        self.line(depth + 1, f"{records} = {Body.records()}")
        self.line(depth + 1, f"for {pid} in {ids}:")
        self.line(depth + 2, f"{record('it')} = {records}[{pid}]")
        if uses_piece:
            self.line(depth + 2, f"_v_it = {Body.piece(pid)}")
        body = depth + 2
        if tests:
            self.line(body, f"if {' and '.join(tests)}:")
            body += 1
        k = self.temp("k")
        self.line(body, f"{k} = {key}")
        self.line(body, f"if _isinstance({k}, _PLAIN): {grp}[{k}] = {grp}.get({k}, 0) + 1")
        self.line(body, f"else: {grp} = False; break")  # not plain data: every turn filters as written
        value = self.temp("value")
        self.line(depth, f"if {grp} is not False and _isinstance({item}, _PLAIN):")
        self.line(depth + 1, f"{value} = {grp}.get({item}, 0)")
        for text in Body.charge_work(f"{size} + {value}"):
            self.line(depth + 1, text)
        self.line(depth, "else:")
        self.line(depth + 1, f"{value} = {self.expr(n.value)[0]}")
        self.bind(depth, n.name, value)

    def require(self, n: e.RequireE, depth: int) -> None:
        self.line(depth, f"if not {self.truth(n.cond)}: {Body.refuse(self.const(str(n.message)))}")

    def fail(self, n: e.FailE, depth: int) -> None:
        self.line(depth, Body.refuse(self.const(str(n.message))))

    def step(self, n: e.StepE, depth: int) -> None:
        self.block(n.body, depth)

    def match(self, n: e.MatchE, depth: int) -> None:
        subject = self.temp("subject")
        self.line(depth, f"{subject} = _case_key(f, {self.expr(n.subject)[0]})")
        test = "if"
        for case, body in n.cases:  # the first case that matches, as run_match takes it
            self.line(depth, f"{test} {subject} == {self.const(str(case).lower())}:")
            self.block(body, depth + 1)
            test = "elif"
        if test == "if":
            self.block(n.other, depth)
        elif n.other:
            self.line(depth, "else:")
            self.block(n.other, depth + 1)

    def call(self, n: e.CallE, depth: int) -> None:
        proc = self.rules.procedures[n.proc]
        me = f"_acting({self.expr(n.as_player)[0]}, f)" if n.as_player is not None else "me"
        args = [f"{str(name)!r}: {self.expr(x)[0]}" for (name, _), x in zip(proc.params, n.args, strict=True)]
        # The player it runs for, the arguments in order, then the procedure in a frame of its own, as run_call
        # runs it.
        self.line(depth, f"_call(f, {self.const(proc.body)}, {self.const(f'procedures.{n.proc}')}, "
                         f"{self.const(n.span)}, {me}, {{{', '.join(args)}}})")

    def wrap(self, n: e.WrapE, depth: int) -> None:
        if n.instead is not None:  # `proceed` runs the wrapped body from inside it: run_wrap keeps that stack
            self.line(depth, Body.run(self.const(type(n)), self.const(n)))
            return
        for body in (n.before, n.inner, n.after):  # one after the other in the same frame, as run_wrap runs them
            self.block(body, depth)


_WRITERS: dict[type, Callable[[_Writer, Any, int], None]] = {
    e.LetE: _Writer.let,
    e.SetCounterE: _Writer.set_counter,
    e.IfE: _Writer.if_,
    e.ForE: _Writer.for_,
    e.RequireE: _Writer.require,
    e.FailE: _Writer.fail,
    e.StepE: _Writer.step,
    e.MatchE: _Writer.match,
    e.WrapE: _Writer.wrap,
    e.CallE: _Writer.call,
}


def _fields_of(node: e.Effect) -> list[Any]:
    return [getattr(node, f.name) for f in dataclasses.fields(node)]


_BLOCKS = ("then", "other", "body", "before", "inner", "after")  # the blocks written-out statements hold


def _run_by_runners(body: e.Body) -> list[e.Effect]:
    """The statements of a body (inside written-out blocks too) that run through RUNNERS."""
    out = []
    for node in body:
        if type(node) not in _WRITERS or (type(node) is e.WrapE and node.instead is not None):
            out.append(node)
            continue
        blocks: list[e.Body] = [getattr(node, name, ()) for name in _BLOCKS]
        blocks += [b for _, b in getattr(node, "cases", ())]
        for block in blocks:
            out += _run_by_runners(block)
    return out


def _all_written_out(body: e.Body) -> bool:
    return not _run_by_runners(body)


_PLAIN = (str, int, Player, type(None))  # values whose == is their dict key equality
_PURE = (e.LetE, e.IfE, e.RequireE, e.FailE, e.StepE, e.ForE, e.SetCounterE)


def _group_plans(loop: e.ForE, rules: Rules) -> list[tuple[e.Effect, tuple[c.Node, c.Node, list[c.Node]]]]:
    """The lets of a loop's body that `_Writer.grouped_count` can compute in one pass (see there): for each, the
    zone, the property its pieces are counted by, and the other conditions."""
    bound = {loop.var}
    if loop.var == "it" or not _leaves_pieces_alone(loop.body, rules, bound):
        return []
    plans: list[tuple[e.Effect, tuple[c.Node, c.Node, list[c.Node]]]] = []
    for node in loop.body:
        call = node.value.tree if isinstance(node, e.LetE) else None
        if not (isinstance(call, c.Call) and call.fn == "count" and len(call.args) == 1
                and isinstance(call.args[0], c.Where)):
            continue
        where = call.args[0]
        conjuncts = _conjuncts(where.cond)
        keyed = _keyed_on(conjuncts[-1], loop.var)
        if keyed is None or where.items.type != ZONE:
            continue
        rest = conjuncts[:-1]
        if not all(_invariant(x, bound, piece_ok=True) for x in rest):
            continue
        if not _invariant(where.items, bound, piece_ok=False):
            continue
        plans.append((node, (where.items, keyed, rest)))
    return plans


def _leaves_pieces_alone(body: e.Body, rules: Rules, bound: set[str]) -> bool:
    """Whether running the body can change no piece: only lets, counters nobody watches, and blocks of them."""
    for node in body:
        if not isinstance(node, _PURE):
            return False
        if isinstance(node, e.SetCounterE):
            c = rules.counters.get(node.counter)
            # A change of a counter runs only its own triggers (zones' and markers' are not its business).
            watched = any(key in rules.watchers for key in (c.name, f"overflow {c.name}", f"underflow {c.name}")) \
                if c is not None else True
            if c is None or watched or c.overflow == "carry":
                return False
        if isinstance(node, e.LetE):
            bound.add(node.name)
        if isinstance(node, e.IfE) and not (_leaves_pieces_alone(node.then, rules, bound)
                                             and _leaves_pieces_alone(node.other, rules, bound)):
            return False
        if isinstance(node, e.ForE):
            bound.add(node.var)
            if not _leaves_pieces_alone(node.body, rules, bound):
                return False
        if isinstance(node, e.StepE) and not _leaves_pieces_alone(node.body, rules, bound):
            return False
    return True


def _conjuncts(node: c.Node) -> list[c.Node]:
    if isinstance(node, c.BoolOp) and node.op == "and":
        return [*_conjuncts(node.left), *_conjuncts(node.right)]
    return [node]


def _is_it(node: c.Node) -> bool:
    return isinstance(node, c.Name) and node.ref.kind == "local" and node.ref.name == "it"


def _keyed_on(node: c.Node, var: str) -> c.Attr | None:
    """`it.P` when the node is `it.P == var` or `var == it.P` for a declared property P of a piece of a zone."""
    if not (isinstance(node, c.Compare) and node.op == "=="):
        return None
    for a, b in ((node.left, node.right), (node.right, node.left)):
        if (isinstance(a, c.Attr) and _is_it(a.obj) and a.kind == "property" and isinstance(b, c.Name)
                and b.ref.kind == "var" and b.ref.name == var):
            return a
    return None


def _invariant(node: c.Node, bound: set[str], piece_ok: bool) -> bool:
    """Whether the node reads only what the loop cannot change: the piece being filtered (its declared
    properties), the acting player, names bound before the loop, literals, symbols and zones."""
    if isinstance(node, c.Literal):
        return True
    if isinstance(node, c.Name):
        kind = node.ref.kind
        if kind == "local":
            return piece_ok and node.ref.name == "it"
        if kind == "var":
            return node.ref.name not in bound
        return kind in ("me", "symbol", "zone")
    if isinstance(node, c.Attr):
        if _is_it(node.obj):
            return piece_ok and node.kind == "property"
        return node.kind == "zone" and _invariant(node.obj, bound, False)
    if isinstance(node, c.Compare):
        return node.op in ("==", "!=") and all(_invariant(x, bound, piece_ok) for x in (node.left, node.right))
    if isinstance(node, c.BoolOp):
        return all(_invariant(x, bound, piece_ok) for x in (node.left, node.right))
    if isinstance(node, c.Not):
        return _invariant(node.operand, bound, piece_ok)
    return False
