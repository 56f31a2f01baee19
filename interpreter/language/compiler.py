"""Link an expression: check its syntax into a checked tree (`checker`), then emit a function from that tree
(`emitter`), once per expression and scope.

`ExprCompiler` is what the effect builder and the declarations use; it hands back an `Expr` (the checked tree
with its function). Positions inside a YAML string become file positions here (`span_in`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import checked as c
from . import deferred
from . import syntax as s
from .checker import PIECE_BUILTINS, Checker, Scope
from .compile_error import CompileError
from .emitter import Emitter, Gen
from .places import span_in
from .types import Type

if TYPE_CHECKING:
    from ..engine.interpreter import Frame
    from ..engine.rules import Rules

Fn = Callable[["Frame"], Any]

__all__ = ["PIECE_BUILTINS", "CompileError", "ExprCompiler", "Fn", "Scope", "span_in"]


class ExprCompiler:
    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.checker = Checker(rules)
        self.emitter = Emitter(rules)
        # Parsing is cached by text, so equal texts (a YAML alias used thousands of times) give the same node:
        # link each (node, scope) once. The node is kept in the value so its id cannot be reused while cached.
        self._linked: dict[tuple, tuple[s.Node, c.Expr | CompileError]] = {}

    @property
    def cost_compiler(self) -> Callable[[s.Cost, Scope], Any] | None:
        return self.checker.cost_checker

    @cost_compiler.setter
    def cost_compiler(self, fn: Callable[[s.Cost, Scope], Any] | None) -> None:
        self.checker.cost_checker = fn

    def link(self, node: s.Node, scope: Scope) -> c.Expr:
        """The checked tree of `node` in `scope` with its function; raises CompileError."""
        key = (id(node), scope.key())
        hit = self._linked.get(key)
        if hit is None:
            try:
                tree = self._check(node, scope)
                result: c.Expr | CompileError = c.Expr(tree, self._emit(tree, node))
            except CompileError as err:
                result = err
            hit = self._linked[key] = (node, result)
        if isinstance(hit[1], CompileError):
            raise hit[1]
        return hit[1]

    def _check(self, node: s.Node, scope: Scope) -> c.Node:
        try:
            return self.checker.check(node, scope)
        except (RecursionError, MemoryError):
            raise _too_deep(node) from None

    def _emit(self, tree: c.Node, node: s.Node) -> Fn:
        if self.emitter.defer and deferred.shallow(node):
            # Nothing runs this link: even the source waits for the first call (within bounds it always succeeds).
            return deferred.Deferred(self.emitter.function, tree)
        try:
            return self.emitter.function(tree)
        except (RecursionError, MemoryError, SyntaxError) as exc:
            if isinstance(exc, SyntaxError) and "nested" not in str(exc):
                raise
            raise _too_deep(node) from None

    def resolve(self, node: s.Node, scope: Scope) -> Type:
        """Resolve names and check types (raising CompileError) without generating code: for static checks."""
        return self._check(node, scope).type

    def counter_cell(self, family: s.Node, key_node: s.Node, scope: Scope) -> c.Expr | None:
        """The state key of one cell of a keyed counter (`p1.stock[wine]`, `price[wine]`), when the counter is
        known at link time; None otherwise."""
        cell = self.checker.cell(family, key_node, scope)
        if cell is None:
            return None
        return c.Expr(cell, self.emitter.function(cell))

    def counter_key(self, counter: Any, owner: c.Expr | None, pos: s.Pos, syntax: s.Node) -> c.Expr:
        """The state key of a counter that has no keys: a game counter's, or the one of `owner` (a player)."""
        tree = c.CounterKey(pos, pos, Type("symbol"), syntax, counter, owner.tree if owner is not None else None)
        return c.Expr(tree, self.emitter.function(tree))

    def family_key(self, family: c.Expr, key: c.Expr, syntax: s.Node) -> c.Expr:
        """The state key of `family[key]` for a keyed counter known only at run time."""
        assert family.tree is not None and key.tree is not None
        tree = c.FamilyKey(syntax.pos, key.tree.end, Type("symbol"), syntax, family.tree, key.tree)
        return c.Expr(tree, self.emitter.function(tree))

    def local_update(self, name: str, old: Type, op: str, value: c.Expr, syntax: s.Assign) -> c.Expr:
        """The new value of a local name changed by `x += v` or `x -= v`: `x + v`, `x - v`."""
        assert value.tree is not None
        target = syntax.target
        local = c.Name(target.pos, (target.pos[0], target.pos[1] + len(name)), old, target, c.Ref("var", name))
        tree = c.BinOp(syntax.pos, value.tree.end, Type("int"), syntax, op, local, value.tree)
        return c.Expr(tree, self.emitter.function(tree))

    def source(self, expr: c.Expr, gen: Gen) -> tuple[str, Type] | None:
        """The Python source of a linked expression, with its constants in `gen` (for a rule body compiled as one
        function); None for a function not made from an expression."""
        if expr.tree is None:
            return None
        return self.emitter.src(expr.tree, gen), expr.tree.type


def _too_deep(node: s.Node) -> CompileError:
    return CompileError("E301", "expression is nested too deeply", node.pos,
                        "split it with let, or into a value or a procedure")
