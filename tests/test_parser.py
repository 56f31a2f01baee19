"""The lark parser: every start symbol, operator precedence, node positions, errors, and the parse cache."""

from __future__ import annotations

import pytest

from boardrules.language import syntax as s
from boardrules.language.parser import START_SYMBOLS, ParseError, parse


def N(col: int, name: str) -> s.Name:
    return s.Name((1, col), name)


def L(col: int, value: object) -> s.Literal:
    return s.Literal((1, col), value)


def expr(text: str) -> s.Node:
    return parse(text, "expr")


def effect(text: str) -> s.Node:
    return parse(text, "effect")


def error(text: str, start: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse(text, start)
    return info.value


def test_start_symbols() -> None:
    assert START_SYMBOLS == ("expr", "effect", "cost", "for_head")


# ---- literals and atoms -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "node"),
    [
        ("42", L(1, 42)),
        ("007", L(1, 7)),
        ('"some text"', L(1, "some text")),
        ("'single'", L(1, "single")),
        ('""', L(1, "")),
        ("true", L(1, True)),
        ("false", L(1, False)),
        ("none", L(1, None)),
        ("green", N(1, "green")),
        ("_x9", N(1, "_x9")),
        ("camelCase", N(1, "camelCase")),
        ("$w1", s.PieceRef((1, 1), "w1")),
        ("$Crate_7", s.PieceRef((1, 1), "Crate_7")),
        ("  me", N(3, "me")),
        ("(((x)))", N(4, "x")),
    ],
)
def test_atoms(text: str, node: s.Node) -> None:
    assert expr(text) == node


def test_literal_types_are_exact() -> None:
    assert type(expr("1").value) is int
    assert expr("true").value is True
    assert expr("none").value is None
    assert type(expr("'1'").value) is str


def test_lists_and_calls() -> None:
    assert expr("[]") == s.ListLit((1, 1), ())
    assert expr("[1, a]") == s.ListLit((1, 2), (L(2, 1), N(5, "a")))
    assert expr("f()") == s.Call((1, 1), "f", ())
    assert expr("max(1, count(me.farm))") == s.Call(
        (1, 1), "max", (L(5, 1), s.Call((1, 8), "count", (s.Attr((1, 17), N(14, "me"), "farm"),)))
    )


def test_attribute_and_index_chains() -> None:
    assert expr("a.b.c") == s.Attr((1, 5), s.Attr((1, 3), N(1, "a"), "b"), "c")
    assert expr("me.influence[green]") == s.Index(
        (1, 4), s.Attr((1, 4), N(1, "me"), "influence"), N(14, "green")
    )
    assert expr("price[t]") == s.Index((1, 1), N(1, "price"), N(7, "t"))
    assert expr("$w1.zone") == s.Attr((1, 5), s.PieceRef((1, 1), "w1"), "zone")
    assert expr("xs[1][2]") == s.Index((1, 1), s.Index((1, 1), N(1, "xs"), L(4, 1)), L(7, 2))


# ---- precedence ----------------------------------------------------------------------------------------------


def test_multiplication_binds_tighter_than_addition() -> None:
    assert expr("a + b * c") == s.BinOp((1, 3), "+", N(1, "a"), s.BinOp((1, 7), "*", N(5, "b"), N(9, "c")))
    assert expr("a * b + c") == s.BinOp((1, 7), "+", s.BinOp((1, 3), "*", N(1, "a"), N(5, "b")), N(9, "c"))
    assert expr("(a + b) * c") == s.BinOp((1, 9), "*", s.BinOp((1, 4), "+", N(2, "a"), N(6, "b")), N(11, "c"))


def test_arithmetic_is_left_associative() -> None:
    assert expr("1 - 2 - 3") == s.BinOp((1, 7), "-", s.BinOp((1, 3), "-", L(1, 1), L(5, 2)), L(9, 3))
    assert expr("8 / 4 % 3") == s.BinOp((1, 7), "%", s.BinOp((1, 3), "/", L(1, 8), L(5, 4)), L(9, 3))


def test_unary_minus() -> None:
    assert expr("-a.b[1]") == s.Neg((1, 4), s.Index((1, 4), s.Attr((1, 4), N(2, "a"), "b"), L(6, 1)))
    assert expr("- -1") == s.Neg((1, 4), s.Neg((1, 4), L(4, 1)))
    assert expr("a - -b") == s.BinOp((1, 3), "-", N(1, "a"), s.Neg((1, 6), N(6, "b")))
    assert expr("-a * b") == s.BinOp((1, 4), "*", s.Neg((1, 2), N(2, "a")), N(6, "b"))


def test_not_binds_looser_than_comparison_and_tighter_than_and() -> None:
    assert expr("not a and b") == s.BoolOp((1, 5), "and", s.Not((1, 5), N(5, "a")), N(11, "b"))
    assert expr("not a == b") == s.Not((1, 7), s.Compare((1, 7), "==", N(5, "a"), N(10, "b")))
    assert expr("not not a") == s.Not((1, 9), s.Not((1, 9), N(9, "a")))


def test_and_binds_tighter_than_or() -> None:
    assert expr("a or b and c") == s.BoolOp(
        (1, 1), "or", N(1, "a"), s.BoolOp((1, 6), "and", N(6, "b"), N(12, "c"))
    )
    assert expr("a and b or c") == s.BoolOp(
        (1, 1), "or", s.BoolOp((1, 1), "and", N(1, "a"), N(7, "b")), N(12, "c")
    )


def test_conditional_expression() -> None:
    assert expr("x if c else y") == s.Conditional((1, 1), N(1, "x"), N(6, "c"), N(13, "y"))
    # right-associative, and the branches are whole or-tests
    assert expr("a if b else c if d else e") == s.Conditional(
        (1, 1), N(1, "a"), N(6, "b"), s.Conditional((1, 13), N(13, "c"), N(18, "d"), N(25, "e"))
    )
    assert expr("a or b if c and d else e") == s.Conditional(
        (1, 1),
        s.BoolOp((1, 1), "or", N(1, "a"), N(6, "b")),
        s.BoolOp((1, 11), "and", N(11, "c"), N(17, "d")),
        N(24, "e"),
    )


def test_comparisons() -> None:
    for op in ("==", "!=", "<", "<=", ">", ">="):
        assert expr(f"a {op} b + 1") == s.Compare(
            (1, 3), op, N(1, "a"), s.BinOp((1, 6 + len(op)), "+", N(4 + len(op), "b"), L(8 + len(op), 1))
        )
    assert expr("a in b") == s.Compare((1, 1), "in", N(1, "a"), N(6, "b"))
    assert expr("a not in b") == s.Compare((1, 1), "notin", N(1, "a"), N(10, "b"))
    assert expr("not a in b") == s.Not((1, 5), s.Compare((1, 5), "in", N(5, "a"), N(10, "b")))


def test_comparisons_do_not_chain() -> None:
    err = error("a == b == c", "expr")
    assert (err.message, err.pos) == ("unexpected '==' in expression", (1, 8))


def test_ranges() -> None:
    assert expr("1..4") == s.Range((1, 1), L(1, 1), L(4, 4))
    assert expr("a + 1 .. b * 2") == s.Range(
        (1, 3), s.BinOp((1, 3), "+", N(1, "a"), L(5, 1)), s.BinOp((1, 12), "*", N(10, "b"), L(14, 2))
    )
    assert expr("x in 1..3") == s.Compare((1, 1), "in", N(1, "x"), s.Range((1, 6), L(6, 1), L(9, 3)))
    err = error("1..2..3", "expr")
    assert (err.message, err.pos) == ("unexpected '..' in expression", (1, 5))


def test_where_and_sorted_by_apply_to_the_whole_left_side() -> None:
    tree = expr("me.farm where it.age == 1 sorted by it.age desc")
    farm = s.Attr((1, 4), N(1, "me"), "farm")
    cond = s.Compare((1, 22), "==", s.Attr((1, 18), N(15, "it"), "age"), L(25, 1))
    assert tree == s.SortedBy((1, 4), s.Where((1, 4), farm, cond), s.Attr((1, 40), N(37, "it"), "age"), True)
    assert expr("xs sorted by it.n") == s.SortedBy((1, 1), N(1, "xs"), s.Attr((1, 17), N(14, "it"), "n"), False)
    # the condition of `where` is a whole conditional expression, not just an or-test
    assert expr("xs where a if b else c") == s.Where(
        (1, 1), N(1, "xs"), s.Conditional((1, 10), N(10, "a"), N(15, "b"), N(22, "c"))
    )
    assert expr("xs where a or b") == s.Where((1, 1), N(1, "xs"), s.BoolOp((1, 10), "or", N(10, "a"), N(15, "b")))


def test_comprehensions() -> None:
    assert expr("[s.hull for s in me.top if s.hull > 1]") == s.Comprehension(
        (1, 4),
        s.Attr((1, 4), N(2, "s"), "hull"),
        "s",
        s.Attr((1, 21), N(18, "me"), "top"),
        s.Compare((1, 35), ">", s.Attr((1, 30), N(28, "s"), "hull"), L(37, 1)),
    )
    assert expr("[k for k in keys(gems)]") == s.Comprehension(
        (1, 2), N(2, "k"), "k", s.Call((1, 13), "keys", (N(18, "gems"),)), None
    )
    assert expr("[x * 2 for x in 1..3]") == s.Comprehension(
        (1, 4), s.BinOp((1, 4), "*", N(2, "x"), L(6, 2)), "x", s.Range((1, 17), L(17, 1), L(20, 3)), None
    )


# ---- effect lines --------------------------------------------------------------------------------------------

EFFECTS: list[tuple[str, s.Node]] = [
    ("let n = 2", s.Let((1, 5), "n", L(9, 2))),
    ("me.time += 2", s.Assign((1, 4), s.Attr((1, 4), N(1, "me"), "time"), "+=", L(12, 2))),
    ("me.time -= x", s.Assign((1, 4), s.Attr((1, 4), N(1, "me"), "time"), "-=", N(12, "x"))),
    ("price[t] = 3", s.Assign((1, 1), s.Index((1, 1), N(1, "price"), N(7, "t")), "=", L(12, 3))),
    ("supply = supply - 1", s.Assign((1, 1), N(1, "supply"), "=", s.BinOp((1, 17), "-", N(10, "supply"), L(19, 1)))),
    ("pay 2 coins", s.Pay((1, 7), s.Cost((1, 7), (s.CostSum((1, 7), (s.CostTerm((1, 7), L(5, 2), "coins", None),)),)),
                          None)),
    ("pay wage by p2", s.Pay((1, 5), s.Cost((1, 5), (s.CostRef((1, 5), "wage"),)), N(13, "p2"))),
    ("move w to meadow", s.Move((1, 6), N(6, "w"), N(11, "meadow"), None)),
    ("move c to market at 1", s.Move((1, 6), N(6, "c"), N(11, "market"), L(21, 1))),
    ("create worker in me.farm",
     s.Create((1, 8), None, "worker", s.Attr((1, 21), N(18, "me"), "farm"), None, (), None)),
    ("create 2 crate in stock at 1 with colour = c, worth = 1 as made",
     s.Create((1, 10), L(8, 2), "crate", N(19, "stock"), L(28, 1),
              (("colour", N(44, "c")), ("worth", L(55, 1))), "made")),
    ("create start_workers worker in p.farm",
     s.Create((1, 22), N(8, "start_workers"), "worker", s.Attr((1, 34), N(32, "p"), "farm"), None, (), None)),
    ("create (n + 1) worker in farm",
     s.Create((1, 16), s.BinOp((1, 11), "+", N(9, "n"), L(13, 1)), "worker", N(26, "farm"), None, (), None)),
    ("remove w", s.Remove((1, 8), N(8, "w"))),
    ("link a, b", s.Link((1, 6), N(6, "a"), N(9, "b"))),
    ("unlink a", s.Unlink((1, 8), N(8, "a"))),
    ("choose x from xs", s.Choose((1, 8), "x", N(15, "xs"), None, False, None)),
    ("choose x from xs by p2 optional", s.Choose((1, 8), "x", N(15, "xs"), N(21, "p2"), True, None)),
    ("choose x from xs by chance count 2", s.Choose((1, 8), "x", N(15, "xs"), N(21, "chance"), False, L(34, 2))),
    ("choose ws from me.farm count 1..2",
     s.Choose((1, 8), "ws", s.Attr((1, 19), N(16, "me"), "farm"), None, False, s.Range((1, 30), L(30, 1), L(33, 2)))),
    ("roll d6 as r", s.Roll((1, 6), "d6", "r")),
    ("draw c from bag", s.Draw((1, 6), "c", N(13, "bag"))),
    ("shuffle stock", s.Shuffle((1, 9), N(9, "stock"))),
    ("refill market from stock", s.Refill((1, 8), N(8, "market"), N(20, "stock"))),
    ("advance pawn by r + 1", s.Advance((1, 9), N(9, "pawn"), s.BinOp((1, 19), "+", N(17, "r"), L(21, 1)))),
    ("place pawn at 4", s.Place((1, 7), N(7, "pawn"), L(15, 4))),
    ("emit festival()", s.Emit((1, 6), "festival", ())),
    ("emit harvested(n * 2, me)",
     s.Emit((1, 6), "harvested", (s.BinOp((1, 18), "*", N(16, "n"), L(20, 2)), N(23, "me")))),
    ("defer payday(me)", s.Defer((1, 7), "payday", (N(14, "me"),), None)),
    ("defer dividend(me) until market_day", s.Defer((1, 7), "dividend", (N(16, "me"),), "market_day")),
    ("call retire(w)", s.CallProc((1, 6), "retire", (N(13, "w"),))),
    ("call tidy()", s.CallProc((1, 6), "tidy", ())),
    ("require x > 1", s.Require((1, 11), s.Compare((1, 11), ">", N(9, "x"), L(13, 1)), None)),
    ('require ok else "not now"', s.Require((1, 9), N(9, "ok"), "not now")),
    ("require ok else 'single'", s.Require((1, 9), N(9, "ok"), "single")),
    ('fail "no"', s.Fail((1, 6), "no")),
    ("limit hire to 1 per turn", s.Limit((1, 7), "hire", None, L(15, 1), "turn")),
    ("limit rest[w] to 1 per game", s.Limit((1, 7), "rest", N(12, "w"), L(18, 1), "game")),
    ("limit x to n per action", s.Limit((1, 7), "x", None, N(12, "n"), "action")),
    ("limit x to 2 per round", s.Limit((1, 7), "x", None, L(12, 2), "round")),
    ("end turn", s.End((1, 5), "turn")),
    ("end round", s.End((1, 5), "round")),
    ("score", s.Score((1, 1))),
]


@pytest.mark.parametrize(("text", "node"), EFFECTS, ids=[t for t, _ in EFFECTS])
def test_effect_lines(text: str, node: s.Node) -> None:
    assert effect(text) == node


def test_keywords_need_a_word_boundary() -> None:
    # `letx` is a name, so this is an assignment to a game counter called letx
    assert effect("letx = 1") == s.Assign((1, 1), N(1, "letx"), "=", L(8, 1))


def test_choose_modes_exclude_each_other() -> None:
    err = error("choose x from y optional count 2", "effect")
    assert (err.message, err.pos) == ("unexpected 'count' in effect line", (1, 26))


# ---- costs and for heads --------------------------------------------------------------------------------------


def test_costs() -> None:
    term = s.CostTerm
    assert parse("2 time + 1 influence[any] or 1 grain", "cost") == s.Cost(
        (1, 3),
        (
            s.CostSum((1, 3), (term((1, 3), L(1, 2), "time", None), term((1, 12), L(10, 1), "influence", "any"))),
            s.CostSum((1, 32), (term((1, 32), L(30, 1), "grain", None),)),
        ),
    )
    assert parse("nothing", "cost") == s.Cost((1, 1), (s.CostSum((1, 1), ()),))
    assert parse("marry", "cost") == s.Cost((1, 1), (s.CostRef((1, 1), "marry"),))
    assert parse("3 goods[different]", "cost") == s.Cost(
        (1, 3), (s.CostSum((1, 3), (term((1, 3), L(1, 3), "goods", "different"),)),)
    )
    assert parse("(hull - 1) goods[different]", "cost") == s.Cost(
        (1, 12),
        (s.CostSum((1, 12), (term((1, 12), s.BinOp((1, 7), "-", N(2, "hull"), L(9, 1)), "goods", "different"),)),),
    )
    assert parse("sow_yield grain + 1 gems[ruby]", "cost") == s.Cost(
        (1, 11),
        (s.CostSum((1, 11), (term((1, 11), N(1, "sow_yield"), "grain", None),
                             term((1, 21), L(19, 1), "gems", "ruby"))),),
    )
    assert parse("feed or 2 coins", "cost") == s.Cost(
        (1, 1), (s.CostRef((1, 1), "feed"), s.CostSum((1, 11), (term((1, 11), L(9, 2), "coins", None),)))
    )


def test_cost_errors() -> None:
    err = error("2 coins[", "cost")
    assert (err.message, err.hint, err.pos) == ("cost ends too early", "expected a name", (1, 9))
    err = error("coins 2", "cost")
    assert (err.message, err.pos) == ("unexpected '2' in cost", (1, 7))
    err = error("1 + 2 coins", "cost")
    assert (err.message, err.pos) == ("unexpected '+' in cost", (1, 3))


def test_for_heads() -> None:
    assert parse("p in clockwise(me)", "for_head") == s.ForHead(
        (1, 1), "p", s.Call((1, 6), "clockwise", (N(16, "me"),))
    )
    assert parse("w in me.farm where it.tired", "for_head") == s.ForHead(
        (1, 1), "w", s.Where((1, 9), s.Attr((1, 9), N(6, "me"), "farm"), s.Attr((1, 23), N(20, "it"), "tired"))
    )
    assert parse("i in 1..3", "for_head") == s.ForHead((1, 1), "i", s.Range((1, 6), L(6, 1), L(9, 3)))
    err = error("p in players extra", "for_head")
    assert (err.message, err.pos) == ("unexpected 'extra' in 'for' head", (1, 14))


def test_the_same_text_from_different_start_symbols() -> None:
    assert parse("nothing", "expr") == N(1, "nothing")
    assert parse("nothing", "cost") == s.Cost((1, 1), (s.CostSum((1, 1), ()),))
    assert parse("score", "expr") == N(1, "score")  # a keyword of effect lines is a plain name in an expression
    assert parse("x in y", "expr") == s.Compare((1, 1), "in", N(1, "x"), N(6, "y"))
    assert parse("x in y", "for_head") == s.ForHead((1, 1), "x", N(6, "y"))


# ---- nodes are immutable ---------------------------------------------------------------------------------------


def test_nodes_are_frozen_and_hashable() -> None:
    node = expr("a + b")
    with pytest.raises(AttributeError):
        node.op = "-"  # type: ignore[misc]
    assert {expr("a + b"), expr("a + b")} == {node}


# ---- positions ----------------------------------------------------------------------------------------------


def test_positions_point_at_what_a_diagnostic_is_about() -> None:
    # an attribute points at its name, a binary operator at the operator, a call at the function name
    assert expr("me.tiem").pos == (1, 4)
    assert expr("a  *  b").pos == (1, 4)
    assert expr("x + foo(1)").right.pos == (1, 5)
    assert effect("create 2 wrker in farm").pos == (1, 10)
    assert effect("advance pwan by 1").pos == (1, 9)
    assert effect("call retyre(w)").pos == (1, 6)
    assert effect("roll d7 as r").pos == (1, 6)
    assert parse("2 tiem", "cost").alternatives[0].terms[0].pos == (1, 3)


def test_whitespace_is_ignored_between_tokens() -> None:
    assert expr("\ta\t+  b ") == s.BinOp((1, 4), "+", N(2, "a"), N(7, "b"))


# ---- errors -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "start", "message", "pos"),
    [
        ("a + )", "expr", "unexpected ')' in expression", (1, 5)),
        ("a)", "expr", "unexpected ')' in expression", (1, 2)),
        ("f(a,)", "expr", "unexpected ')' in expression", (1, 5)),
        ("[a,]", "expr", "unexpected ']' in expression", (1, 4)),
        ("abc def", "expr", "unexpected 'def' in expression", (1, 5)),
        ("a # b", "expr", "unexpected character '#' in expression", (1, 3)),
        ('"abc', "expr", "unexpected character '\"' in expression", (1, 1)),
        ("$", "expr", "unexpected character '$' in expression", (1, 1)),
        ("AB", "expr", "unexpected character 'A' in expression", (1, 1)),
        ("é", "expr", "unexpected character 'é' in expression", (1, 1)),
        ("a\n+\n", "expr", "expression ends too early", (3, 1)),  # line breaks are spaces
        ("a  \r\nb", "expr", "unexpected 'b' in expression", (2, 1)),
        ("", "expr", "expression ends too early", (1, 1)),
        ("", "effect", "effect line ends too early", (1, 1)),
        ("  ", "cost", "cost ends too early", (1, 3)),
        ("end match", "effect", "unexpected 'match' in effect line", (1, 5)),
        ("limit x to 1 per century", "effect", "unexpected 'century' in effect line", (1, 18)),
        ("let = 3", "effect", "unexpected '=' in effect line", (1, 5)),
        ("score now", "effect", "unexpected 'now' in effect line", (1, 7)),
        ("x = = 1", "effect", "unexpected '=' in effect line", (1, 5)),
        ("me.time ++ 1", "effect", "unexpected '+' in effect line", (1, 9)),
        ("p of players", "for_head", "unexpected 'of' in 'for' head", (1, 3)),
    ],
)
def test_parse_errors(text: str, start: str, message: str, pos: tuple[int, int]) -> None:
    err = error(text, start)
    assert err.message == message
    assert str(err) == message
    assert err.pos == pos


def test_errors_carry_a_hint_of_what_was_expected() -> None:
    assert error("(a", "expr").hint == "expected ')'"
    assert error("let = 3", "effect").hint == "expected a name"
    hint = error("a + )", "expr").hint
    assert hint is not None and hint.startswith("expected ")
    assert "a name" in hint and "a number" in hint and "a quoted string" in hint and "a $piece id" in hint
    long = error("", "effect").hint
    assert long is not None and long.endswith(", ...")  # at most eight choices are listed
    assert long.count(",") == 8
    assert error("a # b", "expr").hint is None


@pytest.mark.parametrize(("text", "start"), [("1 coins or", "cost"), ("move a to", "effect"), ("a + ", "expr")])
def test_end_of_text_error_points_past_the_text(text: str, start: str) -> None:
    err = error(text, start)
    assert err.message.endswith("ends too early")
    assert err.pos == (1, len(text) + 1)


def test_hint_names_the_words_the_user_can_write() -> None:
    hint = error("end match", "effect").hint
    assert hint is not None and "'turn'" in hint and "'round'" in hint and "'game'" in hint


@pytest.mark.parametrize(("text", "start"), [("1" * 5000, "expr"), ("1" * 5000 + " coins", "cost")],
                         ids=["expr", "cost"])
def test_huge_integer_literal_is_a_parse_error(text: str, start: str) -> None:
    with pytest.raises(ParseError):
        parse(text, start)


def test_deep_nesting_parses_without_recursion_errors() -> None:
    assert isinstance(expr("(" * 990 + "1" + ")" * 990), s.Literal)
    assert isinstance(expr("-" * 1990 + "1"), s.Neg)
    assert isinstance(expr("not " * 490 + "x"), s.Not)


def test_a_formula_longer_than_the_limit_is_a_parse_error() -> None:
    from boardrules.language.parser import MAX_TEXT, ParseError, parse

    assert isinstance(parse("1" + " + 1" * ((MAX_TEXT - 1) // 4), "expr"), s.BinOp)
    with pytest.raises(ParseError) as info:
        parse("1" + " + 1" * (MAX_TEXT // 4), "expr")
    assert "too long" in info.value.message


# ---- cache --------------------------------------------------------------------------------------------------


def test_parse_is_cached_by_text_and_start() -> None:
    text = "count(me.farm where it.age >= 2) + 1"
    first = expr(text)
    assert expr(text) is first
    assert effect("me.points += 1") is effect("me.points += 1")
    assert parse("1 grain or 2 coins", "cost") is parse("1 grain or 2 coins", "cost")
    assert parse("x in y", "expr") is not parse("x in y", "for_head")
    assert expr(text + " ") is not first and expr(text + " ") == s.BinOp(
        first.pos, first.op, first.left, first.right
    )


def test_errors_are_raised_again_for_the_same_text() -> None:
    a = error("a +", "expr")
    b = error("a +", "expr")
    assert (a.message, a.pos) == (b.message, b.pos)
