"""Parse the strings inside rule YAML with the lark grammar into immutable syntax nodes, once per text."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from . import parse_cache, tables
from . import syntax as s

if TYPE_CHECKING:
    from lark import Lark, Token  # the lark-free parser's lalr.Tok has the same fields

START_SYMBOLS = tables.START_SYMBOLS
MAX_TEXT = 2000  # characters in one formula (the longest shipped one has 136): parsing time stays bounded


class ParseError(Exception):
    """A string that does not parse: `pos` is (line, column) inside the string."""

    def __init__(self, message: str, pos: tuple[int, int], hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.hint = hint


# The transformer's methods get tokens (lark's Token or lalr.Tok: both str, with type, line and column) and
# the nodes and values its other methods made; no other string reaches them.


def _pos(item: Any) -> s.Pos:
    if isinstance(item, str):
        return (item.line or 1, item.column or 1)  # type: ignore[attr-defined]
    if isinstance(item, s.Node):
        return item.pos
    return (1, 1)


def _first_pos(*items: Any) -> s.Pos:
    for item in items:
        if isinstance(item, str | s.Node):
            return _pos(item)
    return (1, 1)


class _ToSyntax:
    """Builds syntax nodes straight from LALR reductions (no intermediate lark tree): each method gets the
    children of its rule as arguments (lark's v_args(inline=True), see lark_transformer)."""

    # ---- expressions
    def int_lit(self, tok: Token) -> s.Literal:
        return s.Literal(_pos(tok), int(tok))

    def str_lit(self, tok: Token) -> s.Literal:
        return s.Literal(_pos(tok), str(tok)[1:-1])

    def true_lit(self, tok: Token) -> s.Literal:
        return s.Literal(_pos(tok), True)

    def false_lit(self, tok: Token) -> s.Literal:
        return s.Literal(_pos(tok), False)

    def none_lit(self, tok: Token) -> s.Literal:
        return s.Literal(_pos(tok), None)

    def name(self, tok: Token) -> s.Name:
        return s.Name(_pos(tok), str(tok))

    def piece_ref(self, tok: Token) -> s.PieceRef:
        return s.PieceRef(_pos(tok), str(tok)[1:])

    def call(self, fn: Token, args: tuple[s.Node, ...] | None) -> s.Call:
        return s.Call(_pos(fn), str(fn), args or ())

    def args(self, *items: s.Node) -> tuple[s.Node, ...]:
        return tuple(items)

    def list_lit(self, args: tuple[s.Node, ...] | None) -> s.ListLit:
        items = args or ()
        return s.ListLit(_first_pos(*items), items)

    def comprehension(self, element: s.Node, var: Token, iterable: s.Node, cond: s.Node | None) -> s.Comprehension:
        return s.Comprehension(element.pos, element, str(var), iterable, cond)

    def attr(self, obj: s.Node, name: Token) -> s.Attr:
        # Point at the attribute itself: that is what a diagnostic about it is about.
        return s.Attr(_pos(name), obj, str(name))

    def index(self, obj: s.Node, key: s.Node) -> s.Index:
        return s.Index(obj.pos, obj, key)

    def binop(self, left: s.Node, op: Token, right: s.Node) -> s.BinOp:
        return s.BinOp(_pos(op), str(op), left, right)

    def neg(self, operand: s.Node) -> s.Neg:
        return s.Neg(operand.pos, operand)

    def compare(self, left: s.Node, op: Token, right: s.Node) -> s.Compare:
        return s.Compare(_pos(op), str(op), left, right)

    def in_(self, left: s.Node, right: s.Node) -> s.Compare:
        return s.Compare(left.pos, "in", left, right)

    def not_in(self, left: s.Node, right: s.Node) -> s.Compare:
        return s.Compare(left.pos, "notin", left, right)

    def and_(self, left: s.Node, right: s.Node) -> s.BoolOp:
        return s.BoolOp(left.pos, "and", left, right)

    def or_(self, left: s.Node, right: s.Node) -> s.BoolOp:
        return s.BoolOp(left.pos, "or", left, right)

    def not_(self, operand: s.Node) -> s.Not:
        return s.Not(operand.pos, operand)

    def cond(self, then: s.Node, test: s.Node, other: s.Node) -> s.Conditional:
        return s.Conditional(then.pos, then, test, other)

    def range(self, low: s.Node, high: s.Node) -> s.Range:
        return s.Range(low.pos, low, high)

    def where(self, items: s.Node, cond: s.Node) -> s.Where:
        return s.Where(items.pos, items, cond)

    def sorted_by(self, items: s.Node, key: s.Node, desc: Token | None) -> s.SortedBy:
        return s.SortedBy(items.pos, items, key, desc is not None)

    # ---- costs
    def amount_int(self, tok: Token) -> s.Literal:
        return s.Literal(_pos(tok), int(tok))

    def amount_name(self, tok: Token) -> s.Name:
        return s.Name(_pos(tok), str(tok))

    def amount_expr(self, expr: s.Node) -> s.Node:
        return expr

    def cost_term(self, amount: s.Node, counter: Token, key: Token | None, lacking: s.CostTerm | None = None
                  ) -> s.CostTerm:
        return s.CostTerm(_pos(counter), amount, str(counter), str(key) if key is not None else None, lacking)

    def lacking(self, amount: s.Node, counter: Token, key: Token | None) -> s.CostTerm:
        return s.CostTerm(_pos(counter), amount, str(counter), str(key) if key is not None else None)

    def cost_sum(self, *terms: s.CostTerm) -> s.CostSum:
        return s.CostSum(terms[0].pos, tuple(terms))

    def cost_nothing(self) -> s.CostSum:
        return s.CostSum((1, 1), ())

    def cost_ref(self, tok: Token) -> s.CostRef:
        return s.CostRef(_pos(tok), str(tok))

    def cost(self, *alternatives: s.CostSum | s.CostRef) -> s.Cost:
        return s.Cost(alternatives[0].pos, tuple(alternatives))

    # ---- effect lines
    def for_head(self, var: Token, iterable: s.Node) -> s.ForHead:
        return s.ForHead(_pos(var), str(var), iterable)

    def let(self, name: Token, value: s.Node) -> s.Let:
        return s.Let(_pos(name), str(name), value)

    def assign(self, target: s.Node, op: Token, value: s.Node) -> s.Assign:
        return s.Assign(target.pos, target, str(op), value)

    def pay(self, cost: s.Cost, by: s.Node | None) -> s.Pay:
        return s.Pay(cost.pos, cost, by)

    def move(self, what: s.Node, to: s.Node, at: s.Node | None) -> s.Move:
        return s.Move(what.pos, what, to, at)

    def count_atom(self, item: Token | s.Node) -> s.Node:
        if isinstance(item, str):
            return s.Literal(_pos(item), int(item)) if item.type == "INT" else s.Name(_pos(item), str(item))
        return item

    def with_item(self, name: Token, value: s.Node) -> tuple[str, s.Node]:
        return (str(name), value)

    def with_list(self, *items: tuple[str, s.Node]) -> tuple[tuple[str, s.Node], ...]:
        return tuple(items)

    def create(self, count: s.Node | None, kind: Token, zone: s.Node, at: s.Node | None, props: Any,
               bind: Token | None) -> s.Create:
        return s.Create(_pos(kind), count, str(kind), zone, at, props or (), str(bind) if bind else None)

    def remove(self, what: s.Node) -> s.Remove:
        return s.Remove(what.pos, what)

    def link(self, a: s.Node, b: s.Node) -> s.Link:
        return s.Link(a.pos, a, b)

    def unlink(self, what: s.Node) -> s.Unlink:
        return s.Unlink(what.pos, what)

    def choose_optional(self, _tok: Token) -> tuple[bool, None]:
        return (True, None)

    def choose_count(self, count: s.Node) -> tuple[bool, s.Node]:
        return (False, count)

    def choose(self, var: Token, options: s.Node, by: s.Node | None, mode: Any) -> s.Choose:
        optional, count = mode if mode else (False, None)
        return s.Choose(_pos(var), str(var), options, by, optional, count)

    def roll(self, die: Token, var: Token) -> s.Roll:
        return s.Roll(_pos(die), str(die), str(var))

    def draw(self, var: Token, zone: s.Node) -> s.Draw:
        return s.Draw(_pos(var), str(var), zone)

    def shuffle(self, zone: s.Node) -> s.Shuffle:
        return s.Shuffle(zone.pos, zone)

    def refill(self, zone: s.Node, source: s.Node) -> s.Refill:
        return s.Refill(zone.pos, zone, source)

    def advance(self, marker: s.Node, by: s.Node) -> s.Advance:
        return s.Advance(marker.pos, marker, by)

    def place(self, marker: s.Node, at: s.Node) -> s.Place:
        return s.Place(marker.pos, marker, at)

    def proceed(self) -> s.Proceed:
        return s.Proceed((1, 1))

    def can_take(self, action: Token, args: Any, by: s.Node | None) -> s.CanTake:
        return s.CanTake(_pos(action), str(action), tuple(args or ()), by)

    def take(self, action: Token, args: Any, as_player: s.Node | None) -> s.Take:
        return s.Take(_pos(action), str(action), tuple(args or ()), as_player)

    def can_pay(self, cost: s.Cost, by: s.Node | None) -> s.CanPay:
        return s.CanPay(cost.pos, cost, by)

    def emit(self, event: Token, args: Any) -> s.Emit:
        return s.Emit(_pos(event), str(event), args or ())

    def defer(self, event: Token, args: Any, until: Token | None) -> s.Defer:
        return s.Defer(_pos(event), str(event), args or (), str(until) if until else None)

    def call_proc(self, proc: Token, args: Any, as_player: s.Node | None = None) -> s.CallProc:
        return s.CallProc(_pos(proc), str(proc), args or (), as_player)

    def require(self, cond: s.Node, message: Token | None) -> s.Require:
        return s.Require(cond.pos, cond, str(message)[1:-1] if message else None)

    def fail(self, message: Token) -> s.Fail:
        return s.Fail(_pos(message), str(message)[1:-1])

    def limit(self, name: Token, key: s.Node | None, count: s.Node, scope: Token) -> s.Limit:
        return s.Limit(_pos(name), str(name), key, count, str(scope))

    def end(self, what: Token, time: str | None = None) -> s.End:
        return s.End(_pos(what), str(what), time)

    def end_now(self) -> str:
        return "now"

    def end_after(self, which: Token, what: Token) -> str:
        return f"{which} {what}"

    def score(self) -> s.Score:
        return s.Score((1, 1))

    def pass_turn(self) -> s.PassTurn:
        return s.PassTurn((1, 1))


def lark_transformer() -> Any:
    """_ToSyntax as lark's Transformer, its methods called with their children as arguments."""
    from lark import Transformer, v_args

    methods = {name: fn for name, fn in vars(_ToSyntax).items() if not name.startswith("__")}
    return v_args(inline=True)(type("_ToSyntax", (Transformer,), methods))()


@lru_cache(maxsize=1)
def _parser() -> Lark:
    # One tree-less LALR parser for all start symbols: the transformer runs during parsing. Its tables come
    # inside the package (tables.py); nothing is read from or written to a shared cache.
    return cast("Lark", tables.load(tables.grammar_text(), lark_transformer()))


@lru_cache(maxsize=1)
def _fast() -> Callable[[str, str], s.Node | None] | None:
    """The lark-free parser (lalr.py): a text's tree, or None where lark is to say what is wrong. None itself
    when its tables were not made from the grammar in use."""
    try:
        from . import lalr, lalr_tables
    except ImportError:  # while the tables are generated for the first time
        return None
    if tables.grammar_fingerprint(tables.grammar_text()) != lalr_tables.FINGERPRINT:
        return None
    rules = lalr.bind(_ToSyntax())

    def fast(text: str, start: str) -> s.Node | None:
        try:
            return cast(s.Node, lalr.parse(text, start, rules))
        except lalr.Unparsed:
            return None

    return fast


# How a hint names what the grammar expected; terminals written as plain strings show as themselves.
_EXPECTED_NAMES = {
    "NAME": "a name",
    "INT": "a number",
    "STRING": "a quoted string",
    "PIECE_ID": "a $piece id",
    "ASSIGN_OP": "'=', '+=' or '-='",
    "COMP_OP": "a comparison",
    "ADD_OP": "'+' or '-'",
    "MUL_OP": "'*', '/' or '%'",
    "SCOPE": "'action', 'turn', 'round' or 'game'",
    "END_WHAT": "'turn', 'round' or 'game'",
    "$END": "the end of the text",
}


def _describe_expected(expected: set[str]) -> str:
    terminals = {t.name: t for t in _parser().terminals}
    names = set()
    for name in expected:
        if name in _EXPECTED_NAMES:
            names.add(_EXPECTED_NAMES[name])
        elif name in terminals and terminals[name].pattern.type == "str":
            names.add(repr(terminals[name].pattern.value))
    ordered = sorted(names)
    if len(ordered) > 8:
        ordered = [*ordered[:8], "..."]
    return ", ".join(ordered) or "something else"


def _is_expression(text: str) -> bool:
    from lark.exceptions import LarkError

    try:
        _parser().parse(text, start="expr")
    except (LarkError, ValueError, RecursionError):
        return False
    return True


def _end_of(text: str) -> tuple[int, int]:
    return text.count("\n") + 1, len(text.rsplit("\n", 1)[-1]) + 1


@lru_cache(maxsize=65536)
def parse(text: str, start: str) -> s.Node:
    """Parse `text` from a start symbol (expr, effect, cost, for_head); cached by text."""
    if len(text) > MAX_TEXT:
        raise ParseError(f"{_what(start)} is too long ({len(text)} characters, at most {MAX_TEXT})", (1, 1),
                         "split it with let, or into values and procedures")
    try:
        return parse_cache.parse(text, start, lambda: _parse_afresh(text, start))
    except ValueError:  # int() of a number with thousands of digits
        raise ParseError(f"a number in this {_what(start)} is too long", (1, 1)) from None
    except RecursionError:
        raise ParseError(f"cannot parse {_what(start)}", (1, 1)) from None


def _parse_afresh(text: str, start: str) -> s.Node:
    """The text's tree from the lark-free parser; a text it stops at goes to lark, whose error is reported (the
    transformer runs during parsing, so either returns syntax nodes, not lark trees)."""
    fast = _fast()
    node = None if fast is None else fast(text, start)
    return _lark_parse(text, start) if node is None else node


def _lark_parse(text: str, start: str) -> s.Node:
    from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

    try:
        return cast(s.Node, _parser().parse(text, start=start))
    except UnexpectedToken as err:
        hint = f"expected {_describe_expected(set(err.expected))}" if err.expected else None
        if start == "effect" and _is_expression(text):
            hint = f"this is a condition, not an effect; to insist on it write: require {text.strip()}"
        if err.token.type == "$END":
            raise ParseError(f"{_what(start)} ends too early", _end_of(text), hint) from None
        pos = (err.line or 1, err.column or 1)
        raise ParseError(f"unexpected '{err.token}' in {_what(start)}", pos, hint) from None
    except UnexpectedCharacters as err:
        at = err.pos_in_stream or 0
        char = text[at] if at < len(text) else "?"
        raise ParseError(f"unexpected character '{char}' in {_what(start)}", (err.line, err.column)) from None
    except UnexpectedEOF as err:
        hint = f"expected {_describe_expected(set(err.expected))}"
        raise ParseError(f"{_what(start)} ends too early", _end_of(text), hint) from None
    except UnexpectedInput as err:  # any other lark input error
        raise ParseError(f"cannot parse {_what(start)}", (getattr(err, "line", 1), getattr(err, "column", 1))) from None
    except ValueError:  # int() of a number with thousands of digits
        raise ParseError(f"a number in this {_what(start)} is too long", (1, 1)) from None
    except (LarkError, RecursionError):
        raise ParseError(f"cannot parse {_what(start)}", (1, 1)) from None


def _what(start: str) -> str:
    return {"expr": "expression", "effect": "effect line", "cost": "cost", "for_head": "'for' head"}[start]
