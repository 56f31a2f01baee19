"""Rules read back as plain English: each effect node and each expression explains itself.

`EFFECTS` maps each effect node class to the function that says what it does, as `Line`s (a sentence, its
depth, the span it came from and the names it points at); `EXPRESSIONS` does the same for expression syntax.
Effect nodes keep their source text on their span, so the words come from the parsed text and the node's
structure, never from a description written beside the rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Span
from ..engine import effects as e
from ..engine.rules import Rules
from ..language import syntax as s
from ..language.parser import ParseError, parse


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
    """Says expressions in words, for one linked rule set (so value names can show what they hold)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.refs: list[tuple[str, str]] = []

    def expr(self, node: s.Node | None) -> str:
        if node is None:
            return ""
        return EXPRESSIONS[type(node)](self, node)

    def text(self, text: str | None, start: str = "expr") -> str:
        """An expression written as text, in words; the text itself when it does not parse."""
        if text is None:
            return ""
        try:
            node = parse(str(text), start)
            return cost_words(self, node) if isinstance(node, s.Cost) else self.expr(node)
        except ParseError:
            return f"`{text}`"

    def name(self, name: str) -> str:
        r = self.rules
        special = {"me": "you", "players": "the players", "player_count": "the number of players",
                   "turn_player": "the player whose turn it is", "turn_number": "the turn number",
                   "chance": "chance", "it": "it", "round_number": "the round number",
                   "start_player": "the start player", "game_over": "the game is over",
                   "final_round": "this is the final round"}
        if name in special:
            return special[name]
        if len(name) >= 2 and name[0] == "p" and name[1:].isdigit():
            return f"player {name[1:]}"
        v = r.values.get(name)
        if v is not None:
            self.refs.append(("value", name))
            if v.kind == "const" and isinstance(v.data, int | str) and not isinstance(v.data, bool):
                return f"{words(name)} ({v.data})"
            if v.kind == "unknown":
                return f"{words(name)} (unknown: {v.data})"
            if v.kind == "by_players":
                return f"{words(name)} ({by_players(v.data)})"
            if v.kind == "table":
                return words(name)
        if name in r.zones or name in r.counters or name in r.tracks or name in r.markers:
            return f"the {words(name)}"
        return words(name)

    def owner(self, node: s.Node) -> str:
        """How an object reads before one of its properties: `your`, `its`, `player 2's`."""
        if isinstance(node, s.Name) and node.id == "me":
            return "your"
        if isinstance(node, s.Name) and node.id == "it":
            return "its"
        return f"{operand(self, node, _ATOM)}'s"


def _literal(sp: Speaker, n: s.Literal) -> str:
    if n.value is None:
        return "nothing"
    if isinstance(n.value, bool):
        return "yes" if n.value else "no"
    return words(str(n.value)) if isinstance(n.value, str) else str(n.value)


def _attr(sp: Speaker, n: s.Attr) -> str:
    return f"{sp.owner(n.obj)} {words(n.name)}"


def _index(sp: Speaker, n: s.Index) -> str:
    root: s.Node = n
    keys: list[s.Node] = []
    while isinstance(root, s.Index):
        keys.insert(0, root.key)
        root = root.obj
    v = sp.rules.values.get(root.id) if isinstance(root, s.Name) else None
    if v is not None and v.kind == "table":
        sp.refs.append(("value", v.name))
        return f"the {words(v.name)} of {' and '.join(operand(sp, k, _ATOM) for k in keys)}"
    return f"{operand(sp, n.obj, _ATOM)} of {operand(sp, n.key, _ATOM)}"


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
    "keys": lambda a: f"the kinds of {a[0]}",
}


def _rank_by(sp: Speaker, n: s.Call) -> str:
    if len(n.args) not in (2, 3):
        return f"rank by of {' and '.join(sp.expr(a) for a in n.args)}"
    who = sp.expr(n.args[2]) if len(n.args) == 3 else "you"
    return (f"the place of {who} among {operand(sp, n.args[1], _ATOM)} by {operand(sp, n.args[0], _ATOM)}, "
            "highest first (equal share a place)")


def _call(sp: Speaker, n: s.Call) -> str:
    if n.fn == "rank_by":
        return _rank_by(sp, n)
    args = [sp.expr(a) for a in n.args]
    say = _CALLS.get(n.fn)
    return say(args) if say else f"{words(n.fn)} of {' and '.join(args)}"


def _list(sp: Speaker, n: s.ListLit) -> str:
    items = [sp.expr(i) for i in n.items]
    if not items:
        return "nothing"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _comprehension(sp: Speaker, n: s.Comprehension) -> str:
    where = f" where {sp.expr(n.cond)}" if n.cond else ""
    if isinstance(n.element, s.Name) and n.element.id == n.var:
        return f"every {words(n.var)} in {sp.expr(n.iterable)}{where}"
    return f"{sp.expr(n.element)} for each {words(n.var)} in {sp.expr(n.iterable)}{where}"


_OPS = {"+": "plus", "-": "minus", "*": "times", "/": "divided by", "%": "modulo"}
_COMPARE = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than",
            ">=": "is at least", "in": "is one of", "notin": "is not one of"}

# How tightly each kind of expression binds, as in grammar/rules.lark (pipe < ternary < or < and < not <
# comparison < range < sum < term < unary < postfix). Words have no precedence of their own, so an operand that
# binds more loosely than its place in the grammar needs is said in brackets: "5 plus (g minus 2) times 4".
_PIPE, _TERNARY, _OR, _AND, _NOT, _COMPARISON, _RANGE, _SUM, _TERM, _UNARY, _ATOM = range(11)


def binding(node: s.Node) -> int:
    if isinstance(node, s.Where | s.SortedBy):
        return _PIPE
    if isinstance(node, s.Conditional):
        return _TERNARY
    if isinstance(node, s.BoolOp):
        return _OR if node.op == "or" else _AND
    if isinstance(node, s.Not):
        return _NOT
    if isinstance(node, s.Compare):
        return _COMPARISON
    if isinstance(node, s.Range):
        return _RANGE
    if isinstance(node, s.BinOp):
        return _SUM if node.op in ("+", "-") else _TERM
    if isinstance(node, s.Neg):
        return _UNARY
    return _ATOM


def operand(sp: Speaker, node: s.Node, needs: int) -> str:
    """An operand said in words, in brackets when it binds more loosely than its place needs."""
    said = sp.expr(node)
    return f"({said})" if binding(node) < needs else said


def _binop(sp: Speaker, n: s.BinOp) -> str:
    level = binding(n)  # left-associative: the left operand may bind as tightly as the operator, the right not
    return f"{operand(sp, n.left, level)} {_OPS.get(n.op, n.op)} {operand(sp, n.right, level + 1)}"


def _compare(sp: Speaker, n: s.Compare) -> str:
    right = n.right
    if (isinstance(n.left, s.Call) and n.left.fn == "count" and isinstance(right, s.Literal) and right.value == 0
            and n.op in ("==", "!=", ">")):
        return f"{sp.expr(n.left.args[0])} {'is empty' if n.op == '==' else 'is not empty'}"
    if n.op in ("==", "!=") and isinstance(right, s.Literal) and right.value is None:
        return f"{operand(sp, n.left, _RANGE)} {'exists' if n.op == '!=' else 'does not exist'}"
    return f"{operand(sp, n.left, _RANGE)} {_COMPARE.get(n.op, n.op)} {operand(sp, right, _RANGE)}"


def _boolop(sp: Speaker, n: s.BoolOp) -> str:
    level = binding(n)
    return f"{operand(sp, n.left, level)} {n.op} {operand(sp, n.right, level + 1)}"


def _not(sp: Speaker, n: s.Not) -> str:
    return f"not {operand(sp, n.operand, _NOT)}"


def _neg(sp: Speaker, n: s.Neg) -> str:
    return f"minus {operand(sp, n.operand, _UNARY)}"


def _conditional(sp: Speaker, n: s.Conditional) -> str:
    return (f"{operand(sp, n.then, _OR)} if {operand(sp, n.test, _OR)}, "
            f"otherwise {operand(sp, n.other, _TERNARY)}")


def _range(sp: Speaker, n: s.Range) -> str:
    return f"{operand(sp, n.low, _SUM)} to {operand(sp, n.high, _SUM)}"


def _where(sp: Speaker, n: s.Where) -> str:
    return f"{operand(sp, n.items, _PIPE)} where {operand(sp, n.cond, _TERNARY)}"


def _sorted_by(sp: Speaker, n: s.SortedBy) -> str:
    order = "descending" if n.descending else "ascending"
    return f"{operand(sp, n.items, _PIPE)} in {order} order of {operand(sp, n.key, _TERNARY)}"


def _can_pay(sp: Speaker, n: s.CanPay) -> str:
    who = sp.expr(n.by) if n.by is not None else "you"
    return f"{who} can pay {cost_words(sp, n.cost)}"


def _can_take(sp: Speaker, n: s.CanTake) -> str:
    sp.refs.append(("rule", f"actions.{n.action}"))
    action = sp.rules.actions.get(n.action)
    who = sp.expr(n.by) if n.by is not None else "you"
    args = f" ({', '.join(sp.expr(a) for a in n.args)})" if n.args else ""
    return f"{who} could take the action '{action.title if action else words(n.action)}'{args} now"


EXPRESSIONS: dict[type, Callable[[Speaker, Any], str]] = {
    s.Literal: _literal,
    s.Name: lambda sp, n: sp.name(n.id),
    s.PieceRef: lambda sp, n: f"piece {n.id}",
    s.Attr: _attr,
    s.Index: _index,
    s.Call: _call,
    s.ListLit: _list,
    s.Comprehension: _comprehension,
    s.BinOp: _binop,
    s.Compare: _compare,
    s.BoolOp: _boolop,
    s.Not: _not,
    s.Neg: _neg,
    s.Conditional: _conditional,
    s.Range: _range,
    s.Where: _where,
    s.SortedBy: _sorted_by,
    s.CanPay: _can_pay,
    s.CanTake: _can_take,
}


# ---------------------------------------------------------------- costs


def cost_words(sp: Speaker, cost: s.Cost) -> str:
    alternatives = []
    for alt in cost.alternatives:
        if isinstance(alt, s.CostRef):
            named = sp.rules.costs.get(alt.name)
            alternatives.append(sp.text(named.text, "cost") if named else words(alt.name))
            continue
        terms = []
        for t in alt.terms:
            said = _term_words(sp, t)
            if t.lacking is not None:
                said += f" ({_term_words(sp, t.lacking)} for each one you lack)"
            terms.append(said)
        alternatives.append(" and ".join(terms) or "nothing")
    return " or ".join(alternatives)


def _term_words(sp: Speaker, t: s.CostTerm) -> str:
    amount = sp.expr(t.amount)
    if not isinstance(t.amount, s.Literal | s.Name | s.Attr):
        amount = f"({amount})"  # a formula, kept apart from the counter it counts
    what = words(t.counter)
    track = sp.rules.tracks.get(sp.rules.markers.get(t.counter, ""))
    if track is not None:
        way = "forward" if track.spend == "forward" else "back"
        # Said as what is paid, so it reads after "Pay" and after "the cost is" alike.
        return f"{amount} {what} (the {what} marker moves {amount} space{'' if amount == '1' else 's'} {way})"
    if t.key == "any":
        return f"{amount} {what} of any one kind"
    if t.key == "different":
        return f"{amount} {what} of different kinds"
    if t.key is not None:
        return f"{amount} {words(t.key)} {what}"
    return f"{amount} {what}"


# ---------------------------------------------------------------- effects


class Explainer:
    """Turns effect bodies into lines of English."""

    def __init__(self, rules: Rules) -> None:
        self.sp = Speaker(rules)

    def body(self, body: e.Body, depth: int = 0) -> list[Line]:
        out: list[Line] = []
        for node in body:
            out.extend(self.node(node, depth))
        return out

    def node(self, node: e.Effect, depth: int) -> list[Line]:
        self.sp.refs = []
        said = EFFECTS[type(node)](self, node, depth)
        if isinstance(said, str):
            return [Line(depth, sentence(said), node.span, list(self.sp.refs))]
        return said

    def syntax(self, node: e.Effect) -> Any:
        """The effect line a node was built from, parsed again (parsing is cached by text)."""
        try:
            return parse(node.span.text or "", "effect")
        except ParseError:
            return None

    def who(self, by: s.Node | None, verb: str, you_verb: str) -> str:
        if by is None:
            return f"you {you_verb}"
        if isinstance(by, s.Name) and by.id == "chance":
            return "chance " + verb
        return f"{self.sp.expr(by)} {verb}"

    def head(self, node: e.Effect, text: str, depth: int, refs: list[tuple[str, str]] | None = None) -> Line:
        return Line(depth, sentence(text), node.span, refs or list(self.sp.refs))


def _stmt(fn: Callable[[Explainer, Any, Any], str]) -> Callable[[Explainer, e.Effect, int], str]:
    def say(x: Explainer, node: e.Effect, depth: int) -> str:
        st = x.syntax(node)
        return fn(x, node, st) if st is not None else f"`{node.span.text}`"
    return say


def _let(x: Explainer, n: e.LetE, st: s.Let | s.Assign) -> str:
    if isinstance(st, s.Assign):  # a local name set again
        return _assign(x, n, st)
    return f"let {words(st.name)} be {x.sp.expr(st.value)}"


def _assign(x: Explainer, n: Any, st: s.Assign) -> str:
    target, value = x.sp.expr(st.target), x.sp.expr(st.value)
    if st.op == "+=":
        return f"add {value} to {target}"
    if st.op == "-=":
        return f"take {value} from {target}"
    return f"set {target} to {value}"


def _pay(x: Explainer, n: e.PayE, st: s.Pay) -> str:
    cost = cost_words(x.sp, st.cost)
    return f"{x.sp.expr(st.by)} pays {cost}" if st.by is not None else f"pay {cost}"


def _move(x: Explainer, n: e.MoveE, st: s.Move) -> str:
    at = f", in slot {x.sp.expr(st.at)}" if st.at is not None else ""
    return f"move {x.sp.expr(st.what)} to {x.sp.expr(st.to)}{at}"


def _create(x: Explainer, n: e.CreateE, st: s.Create) -> str:
    count = f"{x.sp.expr(st.count)} new" if st.count is not None else "a new"
    kind = words(st.kind) + ("s" if st.count is not None and not st.kind.endswith("s") else "")
    at = f", in slot {x.sp.expr(st.at)}" if st.at is not None else ""
    props = ", ".join(f"{words(k)} {x.sp.expr(v)}" for k, v in st.props)
    props = f" with {props}" if props else ""
    bind = f" (call {'them' if st.count is not None else 'it'} {words(st.bind)})" if st.bind else ""
    return f"put {count} {kind} into {x.sp.expr(st.zone)}{at}{props}{bind}"


def _choose(x: Explainer, n: e.ChooseE, st: s.Choose) -> str:
    who = x.who(st.by, "picks", "choose") if not (isinstance(st.by, s.Name) and st.by.id == "chance") \
        else "chance picks"
    if st.optional:
        who = who.replace("you choose", "you may choose").replace(" picks", " may pick")
    count = f" ({x.sp.expr(st.count)} of them)" if st.count is not None else ""
    options = x.sp.expr(st.options)
    if isinstance(st.options, s.ListLit) and len(st.options.items) > 1:
        options = "either " + options.rsplit(" and ", 1)[0] + " or " + options.rsplit(" and ", 1)[1]
    return f"{who} {words(st.var)}{count} from {options}"


def _roll(x: Explainer, n: e.RollE, st: s.Roll) -> str:
    return f"roll the {words(n.die)} (a {n.sides}-sided die); call the result {words(n.var)}"


def _draw(x: Explainer, n: e.DrawE, st: s.Draw) -> str:
    return f"draw {words(st.var)} at random from {x.sp.expr(st.zone)}"


def _refill(x: Explainer, n: e.RefillE, st: s.Refill) -> str:
    return f"refill {x.sp.expr(st.zone)} up to its capacity from {x.sp.expr(st.source)}"


def _marker(x: Explainer, marker: Any) -> str:
    return f"the {words(marker)}" if isinstance(marker, str) else x.sp.expr(marker)


def _advance(x: Explainer, n: e.AdvanceE, st: s.Advance) -> str:
    return f"advance {_marker(x, st.marker)} by {x.sp.expr(st.by)} space(s)"


def _place(x: Explainer, n: e.PlaceE, st: s.Place) -> str:
    return f"place {_marker(x, st.marker)} on space {x.sp.expr(st.at)}"


def _args(x: Explainer, names: list[str], args: tuple[s.Node, ...]) -> str:
    said = []
    for p, a in zip(names, args, strict=False):
        value = x.sp.expr(a)
        said.append(value if not p or value == words(p) else f"{words(p)} {value}")
    return f" ({', '.join(said)})" if said else ""


def _emit(x: Explainer, n: e.EmitE, st: s.Emit) -> str:
    x.sp.refs.append(("event", n.event))
    params = [p for p, _ in x.sp.rules.events.get(n.event, ())]
    return f"the event {words(n.event)} happens{_args(x, params, st.args)}"


def _defer(x: Explainer, n: e.DeferE, st: s.Defer) -> str:
    x.sp.refs.append(("event", n.event))
    params = [p for p, _ in x.sp.rules.events.get(n.event, ())]
    when = "at the end of the turn" if n.until == "turn_end" else f"when {words(n.until)} happens"
    return f"{when}, the event {words(n.event)} happens{_args(x, params, st.args)}"


def _call_proc(x: Explainer, n: e.CallE, st: s.CallProc) -> str:
    x.sp.refs.append(("procedure", n.proc))
    proc = x.sp.rules.procedures.get(n.proc)
    params = [p for p, _ in proc.params] if proc else []
    who = f" for {x.sp.expr(st.as_player)}" if st.as_player is not None else ""
    return f"carry out {words(n.proc)}{_args(x, params, st.args)}{who}"


def _require(x: Explainer, n: e.RequireE, st: s.Require) -> str:
    otherwise = f" (otherwise: {st.message})" if st.message else ""
    return f"this needs {x.sp.expr(st.cond)}{otherwise}"


def _limit(x: Explainer, n: e.LimitE, st: s.Limit) -> str:
    key = f" for each {x.sp.expr(st.key)}" if st.key is not None else ""
    return f"at most {x.sp.expr(st.count)} {words(st.name)}{key} per {st.scope}"


def _if(x: Explainer, n: e.IfE, depth: int) -> list[Line]:
    out = [x.head(n, f"if {x.sp.text(n.span.text)}:", depth)]
    out += x.body(n.then, depth + 1) or [Line(depth + 1, "Nothing happens.")]
    if n.other:
        out.append(Line(depth, "Otherwise:", n.span, branch=(n.span, "else")))
        out += x.body(n.other, depth + 1)
    return out


def _for(x: Explainer, n: e.ForE, depth: int) -> list[Line]:
    try:
        head = parse(n.span.text or "", "for_head")
        assert isinstance(head, s.ForHead)
        said = f"for each {words(head.var)} in {x.sp.expr(head.iterable)}:"
    except ParseError:
        said = f"for each `{n.span.text}`:"
    return [x.head(n, said, depth), *x.body(n.body, depth + 1)]


def _repeat(x: Explainer, n: e.RepeatE, depth: int) -> list[Line]:
    return [x.head(n, f"repeat {x.sp.text(n.span.text)} time(s):", depth), *x.body(n.body, depth + 1)]


def _match(x: Explainer, n: e.MatchE, depth: int) -> list[Line]:
    out = [x.head(n, f"depending on {x.sp.text(n.span.text)}:", depth)]
    for case, body in n.cases:
        out.append(Line(depth + 1, f"If it is {words(str(case))}:", n.span, branch=(n.span, case)))
        out += x.body(body, depth + 2) or [Line(depth + 2, "Nothing happens.")]
    if n.other:
        out.append(Line(depth + 1, "Otherwise:", n.span, branch=(n.span, "else")))
        out += x.body(n.other, depth + 2)
    return out


def _one_of(x: Explainer, n: e.OneOfE, depth: int) -> list[Line]:
    by = x.sp.text(n.span.text) if n.span.text else None
    who = "chance decides" if by == "chance" else f"{by} chooses" if by else "you choose"
    out = [x.head(n, f"{who} one of these:", depth)]
    guards = n.guard_texts or (None,) * len(n.options)
    for (label, _, body), guard in zip(n.options, guards, strict=False):
        x.sp.refs = []
        only = f" (only if {x.sp.text(guard)})" if guard else ""
        out.append(Line(depth + 1, f"{sentence(words(label))[:-1]}{only}:", n.span, list(x.sp.refs),
                        (n.span, label)))
        out += x.body(body, depth + 2)
    return out


def _as(x: Explainer, n: e.AsE, depth: int) -> list[Line]:
    return [x.head(n, f"as {x.sp.text(n.span.text)}, acting for them:", depth), *x.body(n.body, depth + 1)]


def _take(x: Explainer, n: e.TakeE, st: s.Take) -> str:
    x.sp.refs.append(("rule", f"actions.{n.action}"))
    action = x.sp.rules.actions.get(n.action)
    params = [p for p, _ in action.params] if action else []
    title = action.title if action else words(n.action)
    who = f" as {x.sp.expr(st.as_player)}" if st.as_player is not None else ""
    return f"take the action '{title}'{_args(x, params, st.args)}{who}, with its condition and cost"


def _while(x: Explainer, n: e.WhileE, depth: int) -> list[Line]:
    return [x.head(n, f"as long as {x.sp.text(n.span.text)}:", depth), *x.body(n.body, depth + 1)]


def _step(x: Explainer, n: e.StepE, depth: int) -> list[Line]:
    return [x.head(n, f"step '{words(n.name)}':", depth), *x.body(n.body, depth + 1)]


def _wrap(x: Explainer, n: e.WrapE, depth: int) -> list[Line]:
    out: list[Line] = []
    if n.before:
        out += [Line(depth, f"First ({n.module} adds):", n.span), *x.body(n.before, depth + 1)]
    if n.instead is not None:
        out += [Line(depth, f"Instead ({n.module} changes it):", n.span), *x.body(n.instead, depth + 1)]
        out += [Line(depth, "where 'carry on' means:", n.span), *x.body(n.inner, depth + 1)]
    else:
        out += x.body(n.inner, depth)
    if n.after:
        out += [Line(depth, f"Then ({n.module} adds):", n.span), *x.body(n.after, depth + 1)]
    return out


def _may(x: Explainer, n: e.MayE, depth: int) -> list[Line]:
    who = f"{x.sp.text(n.span.text)} may" if n.span.text else "you may"
    return [x.head(n, f"{who}:", depth), *x.body(n.body, depth + 1)]


_END_WORDS = {"now": "the game ends now (the rest of this is not done)",
              "turn": "the game ends at the end of this turn",
              "round": "the game ends at the end of this round",
              "next_round": "the game ends after one more round (this round is finished, then one more is played)"}
EFFECTS: dict[type, Callable[[Explainer, Any, int], str | list[Line]]] = {
    e.LetE: _stmt(_let),
    e.SetCounterE: _stmt(_assign),
    e.SetPropE: _stmt(_assign),
    e.PayE: _stmt(_pay),
    e.MoveE: _stmt(_move),
    e.CreateE: _stmt(_create),
    e.RemoveE: _stmt(lambda x, n, st: f"remove {x.sp.expr(st.what)} from the game"),
    e.LinkE: _stmt(lambda x, n, st: f"link {x.sp.expr(st.a)} and {x.sp.expr(st.b)}: they move together"),
    e.UnlinkE: _stmt(lambda x, n, st: f"unlink {x.sp.expr(st.what)}"),
    e.ChooseE: _stmt(_choose),
    e.RollE: _stmt(_roll),
    e.DrawE: _stmt(_draw),
    e.ShuffleE: _stmt(lambda x, n, st: f"shuffle {x.sp.expr(st.zone)}"),
    e.RefillE: _stmt(_refill),
    e.AdvanceE: _stmt(_advance),
    e.PlaceE: _stmt(_place),
    e.EmitE: _stmt(_emit),
    e.DeferE: _stmt(_defer),
    e.CallE: _stmt(_call_proc),
    e.RequireE: _stmt(_require),
    e.FailE: lambda x, n, d: f"this cannot be done: {n.message}",
    e.LimitE: _stmt(_limit),
    e.EndE: lambda x, n, d: _END_WORDS[n.at] if n.what == "game" else f"end the {n.what}",
    e.ScoreE: lambda x, n, d: "score the game",
    e.PassE: lambda x, n, d: "pass: your turn ends, and you take no more turns in this phase",
    e.SetStartPlayerE: _stmt(lambda x, n, st: f"the start player is now {x.sp.expr(st.value)}"),
    e.AsE: _as,
    e.TakeE: _stmt(_take),
    e.WhileE: _while,
    e.StepE: _step,
    e.WrapE: _wrap,
    e.ProceedE: lambda x, n, d: "carry on with the rule as it stands",
    e.IfE: _if,
    e.ForE: _for,
    e.RepeatE: _repeat,
    e.MatchE: _match,
    e.OneOfE: _one_of,
    e.MayE: _may,
}
