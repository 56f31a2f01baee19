"""Compile a rule's whole body into one Python function, the first time the body runs.

The interpreter (`engine.interpreter`) walks effect nodes one by one, calling a runner per node and a function per
expression. Here a body becomes Python source instead: each expression's source inline (no call per
expression), blocks as Python `if` and `for`, the step budget charged once per block, and the commonest
statements (let, counter changes, if, for, require, fail) written out. Every other kind of statement calls its
runner from `RUNNERS`, so there is still one place that says what each kind does, and the two ways of running
agree by construction where they share code; `tests/test_compiled_bodies.py` runs every scenario of the shipped
and test packs both ways and compares the results.

Each function is named after its rule's file and line (`rule_produce_yaml_27`), and its source is registered
with `linecache`, so a traceback or a profile shows the rule and the generated line; `source_of` gives the
source to `boardrules explain --python`.
"""

from __future__ import annotations

import linecache
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..diagnostics import Span
from ..engine import effects as e
from ..engine.interpreter import RUNNERS, counter_change, illegal
from .compiler import ExprCompiler, _Gen
from .types import ANY, BOOL, INT, Type

if TYPE_CHECKING:
    from ..engine.rules import Rules

Compiled = Callable[[Any], None]


class BodyCompiler:
    """Compiles the bodies of one linked rule set; `rules.compile_body` is its `__call__`."""

    def __init__(self, rules: Rules, exprs: ExprCompiler) -> None:
        self.rules = rules
        self.exprs = exprs
        self.sources: dict[int, tuple[e.Body, str]] = {}  # id(body) -> (the body, kept alive; its source)

    def __call__(self, body: e.Body) -> Compiled:
        fn, src = self.build(body)
        self.sources[id(body)] = (body, src)
        self.rules.compiled[id(body)] = fn
        return fn

    def source_of(self, body: e.Body) -> str:
        if id(body) not in self.sources:
            self(body)
        return self.sources[id(body)][1]

    def build(self, body: e.Body) -> tuple[Compiled, str]:
        span = body[0].span if body else None
        name = _function_name(span)
        w = _Writer(self.exprs)
        w.line(0, f"def {name}(f):")
        w.line(1, "g = f.g")
        w.line(1, "st = g.state")
        w.line(1, "V = f.vars")
        w.line(1, "MI = g.budget.limits.max_int")
        w.block(body, 1)
        src = "\n".join(w.lines) + "\n"
        filename = f"<rule {span.file}:{span.line}>" if span is not None else "<rule>"
        namespace = ExprCompiler.namespace(w.gen)
        # Integer fast paths test types; the generated code still sees no Python built-ins beyond the minimal set.
        namespace.update(_RUNNERS=RUNNERS, _illegal=illegal, _change=counter_change, _type=type, _int=int)
        exec(compile(src, filename, "exec"), namespace)
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        return namespace[name], src


def _function_name(span: Span | None) -> str:
    if span is None:
        return "rule_empty"
    stem = re.sub(r"\W", "_", Path(str(span.file)).name)
    return f"rule_{stem}_{span.line}"


class _Writer:
    """The source of one function being generated, and its constants."""

    def __init__(self, exprs: ExprCompiler) -> None:
        self.exprs = exprs
        self.gen = _Gen()
        self.lines: list[str] = []
        self.temps = 0

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def const(self, value: Any) -> str:
        return self.gen.const(value)

    def temp(self, prefix: str) -> str:
        self.temps += 1
        return f"{prefix}{self.temps}"

    def expr(self, fn: Any) -> tuple[str, Type]:
        """An expression's source inline, or a call of its function when it was not compiled from syntax."""
        try:
            got = self.exprs.source(fn, self.gen)
        except Exception:  # a source that cannot be rebuilt here runs as the function it already is
            got = None
        if got is None:
            return f"{self.const(fn)}(f)", ANY
        return got

    def truth(self, fn: Any) -> str:
        src, t = self.expr(fn)
        return src if t == BOOL else f"_truth(f, {src})"

    # ---------------------------------------------------------------- statements
    def block(self, body: e.Body, depth: int) -> None:
        if not body:
            self.line(depth, "pass")
            return
        # The interpreter charges a step before each statement; charging the block's statements at its start
        # keeps the same budget at a fraction of the cost (a block that would overrun stops before it starts).
        self.line(depth, f"g.steps += {len(body)}")
        self.line(depth, f"if g.steps > g.step_budget: raise g.loop_error({self.const(body[0].span)})")
        for node in body:
            self.line(depth, f"st.cause = {self.const(node.span)}")
            write = _WRITERS.get(type(node))
            if write is None:
                # Looked up when it runs: RUNNERS stays the one table of what each kind does.
                self.line(depth, f"_RUNNERS[{self.const(type(node))}]({self.const(node)}, f)")
            else:
                write(self, node, depth)

    def let(self, n: e.LetE, depth: int) -> None:
        src, t = self.expr(n.value)
        if t not in (ANY, INT):
            self.line(depth, f"V[{str(n.name)!r}] = {src}")
            return
        tmp = self.temp("value")
        self.line(depth, f"{tmp} = {src}")
        self.line(depth, f"if _type({tmp}) is _int and not -MI <= {tmp} <= MI: g.budget.number({tmp}, st.cause)")
        self.line(depth, f"V[{str(n.name)!r}] = {tmp}")

    def set_counter(self, n: e.SetCounterE, depth: int) -> None:
        key, value = self.temp("key"), self.temp("value")
        self.line(depth, f"{key} = {self.expr(n.key)[0]}")
        self.line(depth, f"{value} = {self.expr(n.value)[0]}")
        if n.op != "=":
            old = self.temp("old")
            sign = "+" if n.op == "+=" else "-"
            self.line(depth, f"{old} = st.counters[{key}]")
            self.line(depth, f"if _type({old}) is _int and _type({value}) is _int: {value} = {old} {sign} {value}")
            self.line(depth, f"else: {value} = _change(f, {old}, {value}, {n.op!r})")
        self.line(depth, f"g.set_counter({key}, {str(n.counter)!r}, {value})")

    def if_(self, n: e.IfE, depth: int) -> None:
        self.line(depth, f"if {self.truth(n.cond)}:")
        self.block(n.then, depth + 1)
        if n.other:
            self.line(depth, "else:")
            self.block(n.other, depth + 1)

    def for_(self, n: e.ForE, depth: int) -> None:
        item = self.temp("item")
        self.line(depth, f"for {item} in _as_list({self.expr(n.items)[0]}, f):")
        self.line(depth + 1, f"V[{str(n.var)!r}] = {item}")
        self.block(n.body, depth + 1)

    def require(self, n: e.RequireE, depth: int) -> None:
        self.line(depth, f"if not {self.truth(n.cond)}: raise _illegal({self.const(str(n.message))}, f)")

    def fail(self, n: e.FailE, depth: int) -> None:
        self.line(depth, f"raise _illegal({self.const(str(n.message))}, f)")

    def step(self, n: e.StepE, depth: int) -> None:
        self.block(n.body, depth)

_WRITERS: dict[type, Callable[[_Writer, Any, int], None]] = {
    e.LetE: _Writer.let,
    e.SetCounterE: _Writer.set_counter,
    e.IfE: _Writer.if_,
    e.ForE: _Writer.for_,
    e.RequireE: _Writer.require,
    e.FailE: _Writer.fail,
    e.StepE: _Writer.step,
}
