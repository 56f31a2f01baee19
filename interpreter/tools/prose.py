"""Formulas read back as plain English, from the checked tree the linker made (language/checked.py).

`EXPRESSIONS` maps each checked node class to the function that says it; a name is said by what the linker
resolved it to (`NAMES`, one entry per kind of `checked.NAME_KINDS`), so the words are what the rules mean, not
a second reading of their text. Operators are said with brackets where the grouping of the tree needs them.
Costs are said from the checked cost (`CostC`). Effect nodes are said in prose_effects.py.

A formula the linker could not check (the pack has an error there) has no tree: it is quoted as written
(`Speaker.formula`), which is the only place the text of a rule stands in for its tree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Span
from ..engine import effects as e
from ..engine.rules import Rules
from ..language import checked as c
from ..language.value_tables import Table


@dataclass
class Line:
    depth: int
    text: str
    span: Span | None = None
    refs: list[tuple[str, str]] = field(default_factory=list)  # ("event" | "procedure" | "value", name)
    branch: Any = None  # the branch this line opens, as coverage records it: (span, branch)


def words(name: str) -> str:
    return name.replace("_", " ")


def by_players(table: dict[int, Any]) -> str:
    """A player-count table in words; one figure when every count has the same."""
    counts = sorted(table)
    if len({str(v) for v in table.values()}) == 1 and counts:
        return f"{table[counts[0]]} with {counts[0]} to {counts[-1]} players"
    return ", ".join(f"{table[n]} with {n}" for n in counts) + " players"


def table_words(table: Any) -> str:
    """A table of values in words: `red: 1, blue: -1 (any other: 0)`; a table of tables in brackets."""
    if table is None or not hasattr(table, "entries"):
        return "a table"

    def said(entries: dict[Any, Any]) -> str:
        return ", ".join(f"{words(str(k))}: {'(' + said(v) + ')' if isinstance(v, dict) else _entry(v)}"
                         for k, v in entries.items())

    default = getattr(table, "default", None)
    other = f" (any other: {_entry(default)})" if isinstance(default, int | str) else ""
    return "a table: " + said(table.entries) + other


def _entry(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return words(v) if isinstance(v, str) else str(v)


def sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", ":", "?", "!")) else text + "."


# ---------------------------------------------------------------- expressions


class Speaker:
    """Says checked expressions in words, for one linked rule set (so value names can show what they hold)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.refs: list[tuple[str, str]] = []

    def expr(self, node: c.Node | None) -> str:
        if node is None:
            return ""
        return EXPRESSIONS[type(node)](self, node)

    def formula(self, expr: c.Expr | None, text: str | None = None) -> str:
        """A linked formula in words; quoted as written (`text`) when the linker could not check it."""
        if expr is not None and expr.tree is not None:
            return self.expr(expr.tree)
        return f"`{text}`" if text is not None else ""

    def value(self, name: str) -> str:
        """A declared value by name: what it holds, where that is short (a constant, a count per players)."""
        v = self.rules.values.get(name)
        if v is None:
            return words(name)
        self.refs.append(("value", name))
        if v.kind == "const" and isinstance(v.data, int | str) and not isinstance(v.data, bool):
            return f"{words(name)} ({v.data})"
        if v.kind == "unknown":
            return f"{words(name)} (unknown: {v.data})"
        if v.kind == "by_players":
            return f"{words(name)} ({by_players(v.data)})"
        return words(name)

    def owner(self, node: c.Node) -> str:
        """How an object reads before one of its properties: `your`, `its`, `player 2's`."""
        if isinstance(node, c.Name) and node.ref.kind == "me":
            return "your"
        if isinstance(node, c.Name) and node.ref.name == "it" and node.ref.kind in ("local", "var"):
            return "its"
        return f"{operand(self, node, _ATOM)}'s"

    def whose(self, owner: c.Node | None, name: str) -> str:
        """A counter of a player (`your coins`) or of the game (`the market`)."""
        return f"{self.owner(owner)} {words(name)}" if owner is not None else f"the {words(name)}"


_FLOW_WORDS = {"players": "the players", "player_count": "the number of players",
               "turn_player": "the player whose turn it is", "turn_number": "the turn number", "chance": "chance",
               "round_number": "the round number", "start_player": "the start player",
               "game_over": "the game is over", "final_round": "this is the final round"}

# Each kind of name (checked.NAME_KINDS) -> its words. tests/test_dispatch.py proves it covers every kind.
NAMES: dict[str, Callable[[Speaker, c.Ref], str]] = {
    "local": lambda sp, r: words(r.name),
    "var": lambda sp, r: words(r.name),
    "me": lambda sp, r: "you",
    "flow": lambda sp, r: _FLOW_WORDS.get(r.name, words(r.name)),
    "seat": lambda sp, r: f"player {r.name[1:]}",
    "const": lambda sp, r: sp.value(r.name),
    "value": lambda sp, r: sp.value(r.name),
    "counter": lambda sp, r: f"the {words(r.name)}",
    "family": lambda sp, r: f"the {words(r.name)}",
    "zone": lambda sp, r: f"the {words(r.name)}",
    "marker": lambda sp, r: f"the {words(r.name)}",
    "track": lambda sp, r: f"the {words(r.name)}",
    "die": lambda sp, r: words(r.name),
    "set": lambda sp, r: words(r.name),
    "symbol": lambda sp, r: words(r.name),
}


def _literal(sp: Speaker, n: c.Literal) -> str:
    if n.value is None:
        return "nothing"
    if isinstance(n.value, bool):
        return "yes" if n.value else "no"
    return words(str(n.value)) if isinstance(n.value, str) else str(n.value)


def _cell(sp: Speaker, n: c.Cell) -> str:
    return f"{sp.whose(n.owner, n.counter.name)} of {operand(sp, n.key, _ATOM)}"


def _table_name(sp: Speaker, table: Any, fallback: str) -> str:
    name = table.name if isinstance(table, Table) else fallback
    sp.refs.append(("value", name))
    return words(name)


def _table_read(sp: Speaker, n: c.TableRead) -> str:
    name = _table_name(sp, n.table, n.name)
    return f"the {name} of {' and '.join(operand(sp, k, _ATOM) for k in n.keys)}"


def _keys(sp: Speaker, n: c.Keys) -> str:
    of = _table_name(sp, n.counter, "") if isinstance(n.counter, Table) else f"the {words(n.counter.name)}"
    return f"the kinds of {of}"


_CALLS: dict[str, Callable[[list[str]], str]] = {
    "count": lambda a: f"the number of {a[0]}",
    "sum": lambda a: f"the total of {a[0]}",
    "min": lambda a: f"the smaller of {' and '.join(a)}" if len(a) > 1 else f"the smallest of {a[0]}",
    "max": lambda a: f"the larger of {' and '.join(a)}" if len(a) > 1 else f"the largest of {a[0]}",
    "abs": lambda a: f"the size of {a[0]}",
    "first": lambda a: f"the first of {a[0]}",
    "last": lambda a: f"the last of {a[0]}",
    "any": lambda a: f"any of {a[0]}",
    "all": lambda a: f"all of {a[0]}",
    "clockwise": lambda a: f"the players clockwise from {a[0]}",
    "next_player": lambda a: f"the player after {a[0]}",
    "slot": lambda a: f"what is in slot {a[1]} of {a[0]}",
    "occupied": lambda a: f"the occupied slots of {a[0]}",
    "free_slots": lambda a: f"the free slots of {a[0]}",
    "capacity": lambda a: f"the capacity of {a[0]}",
    "position": lambda a: f"the space of {a[0]}",
    "passed": lambda a: f"the icons {a[0]} reached or passed",
    "icons": lambda a: f"the icons on space {a[1]} of {a[0]}",
    "adjacent": lambda a: f"what lies next to {a[0]} in {a[1]}",
    "pieces": lambda a: f"every {a[0]}",
    "owner": lambda a: f"the owner of {a[0]}",
}


def _call(sp: Speaker, n: c.Call) -> str:
    args = [sp.expr(a) for a in n.args]
    say = _CALLS.get(n.fn)
    return say(args) if say else f"{words(n.fn)} of {' and '.join(args)}"


def _rank_by(sp: Speaker, n: c.RankBy) -> str:
    who = sp.expr(n.subject) if n.subject is not None else "you"
    return (f"the place of {who} among {operand(sp, n.group, _ATOM)} by {operand(sp, n.key, _ATOM)}, "
            "highest first (equal share a place)")


def _list(sp: Speaker, n: c.ListLit) -> str:
    items = [sp.expr(i) for i in n.items]
    if not items:
        return "nothing"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _comprehension(sp: Speaker, n: c.Comprehension) -> str:
    where = f" where {sp.expr(n.cond)}" if n.cond else ""
    if isinstance(n.element, c.Name) and n.element.ref.name == n.var:
        return f"every {words(n.var)} in {sp.expr(n.iterable)}{where}"
    return f"{sp.expr(n.element)} for each {words(n.var)} in {sp.expr(n.iterable)}{where}"


_OPS = {"+": "plus", "-": "minus", "*": "times", "/": "divided by", "%": "modulo"}
_COMPARE = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than",
            ">=": "is at least", "in": "is one of", "notin": "is not one of"}

# How tightly each kind of expression binds, as in grammar/rules.lark (pipe < ternary < or < and < not <
# comparison < range < sum < term < unary < postfix). Words have no precedence of their own, so an operand that
# binds more loosely than its place in the grammar needs is said in brackets: "5 plus (g minus 2) times 4".
_PIPE, _TERNARY, _OR, _AND, _NOT, _COMPARISON, _RANGE, _SUM, _TERM, _UNARY, _ATOM = range(11)
_BINDING: dict[type, int] = {c.Where: _PIPE, c.SortedBy: _PIPE, c.Conditional: _TERNARY, c.Not: _NOT,
                             c.Compare: _COMPARISON, c.Range: _RANGE, c.Neg: _UNARY}


def binding(node: c.Node) -> int:
    if isinstance(node, c.BoolOp):
        return _OR if node.op == "or" else _AND
    if isinstance(node, c.BinOp):
        return _SUM if node.op in ("+", "-") else _TERM
    return _BINDING.get(type(node), _ATOM)


def operand(sp: Speaker, node: c.Node, needs: int) -> str:
    """An operand said in words, in brackets when it binds more loosely than its place needs."""
    said = sp.expr(node)
    return f"({said})" if binding(node) < needs else said


def _binop(sp: Speaker, n: c.BinOp) -> str:
    level = binding(n)  # left-associative: the left operand may bind as tightly as the operator, the right not
    return f"{operand(sp, n.left, level)} {_OPS.get(n.op, n.op)} {operand(sp, n.right, level + 1)}"


def _compare(sp: Speaker, n: c.Compare) -> str:
    right = n.right
    if (isinstance(n.left, c.Call) and n.left.fn == "count" and isinstance(right, c.Literal) and right.value == 0
            and n.op in ("==", "!=", ">")):
        return f"{sp.expr(n.left.args[0])} {'is empty' if n.op == '==' else 'is not empty'}"
    if n.op in ("==", "!=") and isinstance(right, c.Literal) and right.value is None:
        return f"{operand(sp, n.left, _RANGE)} {'exists' if n.op == '!=' else 'does not exist'}"
    return f"{operand(sp, n.left, _RANGE)} {_COMPARE.get(n.op, n.op)} {operand(sp, right, _RANGE)}"


def _boolop(sp: Speaker, n: c.BoolOp) -> str:
    level = binding(n)
    return f"{operand(sp, n.left, level)} {n.op} {operand(sp, n.right, level + 1)}"


def _conditional(sp: Speaker, n: c.Conditional) -> str:
    return (f"{operand(sp, n.then, _OR)} if {operand(sp, n.test, _OR)}, "
            f"otherwise {operand(sp, n.other, _TERNARY)}")


def _sorted_by(sp: Speaker, n: c.SortedBy) -> str:
    order = "descending" if n.descending else "ascending"
    return f"{operand(sp, n.items, _PIPE)} in {order} order of {operand(sp, n.key, _TERNARY)}"


def _can_pay(sp: Speaker, n: c.CanPay) -> str:
    who = sp.expr(n.payer) if n.payer is not None else "you"
    return f"{who} can pay {cost_words(sp, n.cost)}"


def _can_take(sp: Speaker, n: c.CanTake) -> str:
    sp.refs.append(("rule", f"actions.{n.action}"))
    action = sp.rules.actions.get(n.action)
    who = sp.expr(n.who) if n.who is not None else "you"
    args = f" ({', '.join(sp.expr(a) for _, a in n.args)})" if n.args else ""
    return f"{who} could take the action '{action.title if action else words(n.action)}'{args} now"


# Each checked node class -> its words. tests/test_dispatch.py proves it covers every class in checked.py.
EXPRESSIONS: dict[type, Callable[[Speaker, Any], str]] = {
    c.Literal: _literal,
    c.Name: lambda sp, n: NAMES[n.ref.kind](sp, n.ref),
    c.PieceLit: lambda sp, n: f"piece {n.id}",
    c.Attr: lambda sp, n: f"{sp.owner(n.obj)} {words(n.name)}",
    c.Cell: _cell,
    c.CounterKey: lambda sp, n: sp.whose(n.owner, n.counter.name),
    c.FamilyKey: lambda sp, n: f"{operand(sp, n.family, _ATOM)} of {operand(sp, n.key, _ATOM)}",
    c.Index: lambda sp, n: (_cell(sp, n.cell) if n.cell is not None
                            else f"{operand(sp, n.obj, _ATOM)} of {operand(sp, n.key, _ATOM)}"),
    c.Keys: _keys,
    c.Call: _call,
    c.ListLit: _list,
    c.Comprehension: _comprehension,
    c.Where: lambda sp, n: f"{operand(sp, n.items, _PIPE)} where {operand(sp, n.cond, _TERNARY)}",
    c.SortedBy: _sorted_by,
    c.BinOp: _binop,
    c.Compare: _compare,
    c.BoolOp: _boolop,
    c.Not: lambda sp, n: f"not {operand(sp, n.operand, _NOT)}",
    c.Neg: lambda sp, n: f"minus {operand(sp, n.operand, _UNARY)}",
    c.Conditional: _conditional,
    c.Range: lambda sp, n: f"{operand(sp, n.low, _SUM)} to {operand(sp, n.high, _SUM)}",
    c.CanPay: _can_pay,
    c.CanTake: _can_take,
    c.TableRead: _table_read,
    c.RankBy: _rank_by,
}


# ---------------------------------------------------------------- costs


def cost_words(sp: Speaker, cost: e.CostC) -> str:
    """A checked cost in words; quoted as written when the linker could not check it (it has no ways to pay)."""
    if not cost.alternatives:
        return f"`{cost.text}`"
    return " or ".join(terms_words(sp, alt) for alt in cost.alternatives)


def terms_words(sp: Speaker, terms: tuple[e.CostTermC, ...]) -> str:
    said = []
    for t in terms:
        text = term_words(sp, t)
        if t.lacking is not None:
            text += f" ({term_words(sp, t.lacking)} for each one you lack)"
        said.append(text)
    return " and ".join(said) or "nothing"


def term_words(sp: Speaker, t: e.CostTermC) -> str:
    amount = sp.formula(t.amount)
    tree = t.amount.tree
    if tree is not None and not isinstance(tree, c.Literal | c.Name | c.Attr):
        amount = f"({amount})"  # a formula, kept apart from the counter it counts
    return amount_words(sp, amount, t.counter, t.key, t.key_fn)


def amount_words(sp: Speaker, amount: str, counter: str, key: str | None, key_fn: c.Expr | None = None) -> str:
    """`amount` of a counter (of one key, any key, different keys) or spaces of a marker, in words."""
    what = words(counter)
    track = sp.rules.tracks.get(sp.rules.markers.get(counter, ""))
    if track is not None:
        way = "forward" if track.spend == "forward" else "back"
        # Said as what is paid, so it reads after "Pay" and after "the cost is" alike.
        return f"{amount} {what} (the {what} marker moves {amount} space{'' if amount == '1' else 's'} {way})"
    if key == "any":
        return f"{amount} {what} of any one kind"
    if key == "different":
        return f"{amount} {what} of different kinds"
    if key is not None:
        return f"{amount} {words(key)} {what}"
    if key_fn is not None:
        return f"{amount} {sp.formula(key_fn)} {what}"
    return f"{amount} {what}"
