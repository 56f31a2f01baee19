"""`boardrules explain`: the composed rules read back in plain English, each with its source and place."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import Diagnostics
from boardrules.engine.rules import Rules
from boardrules.language import checked as c
from boardrules.language import syntax as s
from boardrules.language.pack import link, load_modules
from boardrules.language.parser import parse
from boardrules.language.types import ANY
from boardrules.tools import explain
from boardrules.tools.cli import main
from boardrules.tools.prose import Speaker

ROOT = Path(__file__).resolve().parent.parent
HARVEST = ROOT / "tests" / "packs" / "harvest"


def _doc(*roots: str) -> explain.Document:
    modules = load_modules(sorted(HARVEST.glob("*.yaml")), Diagnostics())
    return explain.build(modules, list(roots) or list(modules))


def test_effect_nodes_keep_their_source_text_and_end() -> None:
    modules = load_modules(sorted(HARVEST.glob("*.yaml")), Diagnostics())
    rules = link(modules, ["harvest.plus"], Diagnostics())
    (line,) = [n for n in rules.procedures["retire_worker"].body if n.span.text == "o.points += 2"]
    source = Path(line.span.file).read_text().splitlines()[line.span.line - 1]
    # The span runs from the first to one past the last character of the effect line, on its line.
    assert source[line.span.col - 1:line.span.end_col - 1] == "o.points += 2"
    assert line.span.end_line == line.span.line


def test_rulebook_order_and_every_rule_ends_with_source_and_place() -> None:
    doc = _doc()
    assert [s.id for s in doc.sections][:2] == ["components", "setup"]
    order = [s.id for s in doc.sections]
    assert order.index("actions") < order.index("triggers") < order.index("procedures")
    text = explain.render_text(doc)
    for sec in doc.sections:
        for e in sec.entries:
            if e.span is not None and not e.id.startswith("unknown."):
                assert re.search(rf"\[{re.escape(e.id)}\]\n(?:.*\n)*?  .*{re.escape(e.span.file)}:{e.span.line}\n",
                                 text), e.id


def test_sentences_come_from_the_effects() -> None:
    text = explain.render_text(_doc())
    # `cost: "1 coins or 1 grain"` replaced in plus, `o.points += 2`, a guard and a trigger
    assert "The cost hire cost is 1 coins or 1 grain (instead of 2 coins; changed by harvest.plus)." in text
    assert "Add 2 to o's points." in text
    assert "When festival happens." in text
    assert "Start workers: 3 (instead of 2; changed by harvest.plus)." in text
    assert "Gifts allowed: yes." in text  # a true value in the rules' words, not Python's True


def test_a_replaced_rule_shows_what_it_said_before() -> None:
    doc = _doc()
    retire = next(e for s in doc.sections for e in s.entries if e.id == "procedures.retire_worker")
    assert retire.change and "harvest.plus" in retire.change
    assert retire.before and retire.lines
    assert [x.text for x in retire.before] != [x.text for x in retire.lines]


def test_unknown_values_read_as_unknown_with_their_note(tmp_path: Path) -> None:
    pack = tmp_path / "p"
    pack.mkdir()
    (pack / "m.yaml").write_text(
        "module: m\ntitle: M\nvalues:\n  size: {unknown: check the card}\ncounters:\n  coins: {per: player}\n"
        "actions:\n  grow:\n    title: Grow\n    source: here\n    do: ['me.coins += size']\n", encoding="utf-8")
    modules = load_modules([pack / "m.yaml"], Diagnostics())
    text = explain.render_text(explain.build(modules, ["m"]))
    assert "Add size (unknown: check the card) to your coins." in text
    assert "Needed by: actions.grow." in text


@pytest.mark.parametrize("fmt", ["text", "md"])
def test_cli_writes_the_rulebook(fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"rules.{fmt}"
    assert main(["explain", str(HARVEST), "--format", fmt, "--quote", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "Hire a worker" in text and "o.points += 2" in text  # --quote shows the YAML under its sentence
    if fmt == "md":
        assert text.startswith("# ") and "## 4. Actions" in text


def test_cli_explains_the_shipped_packs(capsys: pytest.CaptureFixture[str]) -> None:
    for pack in ("village", "lisboa"):
        assert main(["explain", str(ROOT / "rules" / pack)]) == 0
    out = capsys.readouterr().out
    assert "Meet the Cardinal" in out and "unknown: " in out
    assert "`" not in out.replace("'", "")  # every line parsed and said in words, none left as raw text


def test_cli_rejects_an_unknown_module(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(HARVEST), "--modules", "harvest.nope"]) == 1
    assert "harvest.nope" in capsys.readouterr().err


# ---------------------------------------------------------------- the prose keeps every expression's meaning

_NAMES = ["a", "b", "c", "g", "i", "n"]
_BACK = [("divided by", "/"), ("is not one of", "not in"), ("is one of", "in"), ("is less than", "<"),
         ("is at most", "<="), ("is more than", ">"), ("is at least", ">="), ("is not", "!="), ("is", "=="),
         ("plus", "+"), ("minus", "-"), ("times", "*"), ("modulo", "%"), ("otherwise", "else"), ("to", ".."),
         ("yes", "true"), ("no", "false")]


def _formula_of(prose: str) -> str:
    """The prose read back word for word as a formula: only the brackets the prose says carry the grouping."""
    prose = prose.replace(", otherwise ", " otherwise ")
    for words, op in _BACK:
        prose = re.sub(rf"(?<![\w.]){re.escape(words)}(?![\w.])", op, prose)
    return prose


def _shape(node: object) -> object:
    if isinstance(node, s.Node):
        return (type(node).__name__, *(_shape(getattr(node, f.name)) for f in dataclasses.fields(node)
                                       if f.name != "pos"))
    if isinstance(node, tuple):
        return tuple(_shape(x) for x in node)
    return node


def _checked_shape(node: object) -> object:
    """A checked tree's shape in the syntax classes' terms: a name by what it is called."""
    if isinstance(node, c.Name):
        return ("Name", node.ref.name)
    if isinstance(node, c.Node):
        return (type(node).__name__, *(_checked_shape(getattr(node, f.name)) for f in dataclasses.fields(node)
                                       if f.name not in ("pos", "end", "type", "syntax")))
    if isinstance(node, tuple):
        return tuple(_checked_shape(x) for x in node)
    return node


def _trees() -> st.SearchStrategy[c.Node]:
    p = (0, 0)

    def made(cls: type, *args: object) -> c.Node:
        return cls(p, p, ANY, s.Literal(p, None), *args)

    leaves = st.one_of(st.integers(0, 20).map(lambda v: made(c.Literal, v)),
                       st.booleans().map(lambda v: made(c.Literal, v)),
                       st.sampled_from(_NAMES).map(lambda v: made(c.Name, c.Ref("var", v))))

    def grow(kids: st.SearchStrategy[c.Node]) -> st.SearchStrategy[c.Node]:
        return st.one_of(
            st.builds(lambda o, a, b: made(c.BinOp, o, a, b), st.sampled_from("+-*/%"), kids, kids),
            st.builds(lambda o, a, b: made(c.Compare, o, a, b),
                      st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "notin"]), kids, kids),
            st.builds(lambda o, a, b: made(c.BoolOp, o, a, b), st.sampled_from(["and", "or"]), kids, kids),
            st.builds(lambda a: made(c.Not, a), kids),
            st.builds(lambda a: made(c.Neg, a), kids),
            st.builds(lambda a, b, d: made(c.Conditional, a, b, d), kids, kids, kids),
            st.builds(lambda a, b: made(c.Range, a, b), kids, kids),
            st.builds(lambda a, b: made(c.Where, a, b), kids, kids),
        )

    return st.recursive(leaves, grow, max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(_trees())
def test_the_prose_of_any_checked_tree_reads_back_to_the_same_tree(tree: c.Node) -> None:
    said = Speaker(Rules()).expr(tree)
    assert _shape(parse(_formula_of(said), "expr")) == _checked_shape(tree), said


# Formulas whose grouping the words must keep, linked by the real linker and said by explain.
_GROUPED = {
    "me.pts += (a + b) * c": "Add (a plus b) times c to your pts.",
    "me.pts += a + b * c": "Add a plus b times c to your pts.",
    "me.pts += a - (b - c)": "Add a minus (b minus c) to your pts.",
    "require not (a > 1 and b > 1)": "This needs not (a is more than 1 and b is more than 1).",
    "require not a > 1 or b > 1": "This needs not a is more than 1 or b is more than 1.",
    "me.pts += (a if b > 0 else c) if c > 0 else (b if a > 0 else c)":
        "Add (a if b is more than 0, otherwise c) if c is more than 0, otherwise b if a is more than 0, "
        "otherwise c to your pts.",
    "me.pts += -(a + b)": "Add minus (a plus b) to your pts.",
}


def test_explain_keeps_the_grouping_the_linker_resolved(tmp_path: Path) -> None:
    pack = tmp_path / "p"
    pack.mkdir()
    lines = "".join(f"      - {formula!r}\n" for formula in _GROUPED)
    (pack / "m.yaml").write_text(
        "module: m\ntitle: M\ncounters:\n  pts: {per: player, min: null}\nactions:\n  grow:\n    title: Grow\n"
        f"    params: {{a: int, b: int, c: int}}\n    do:\n{lines}", encoding="utf-8")
    modules = load_modules([pack / "m.yaml"], Diagnostics())
    diags = Diagnostics()
    rules = link(modules, ["m"], diags)
    assert not diags.has_errors, diags.items
    said = [x.text for x in explain.Explainer(rules).body(rules.actions["grow"].body)]
    assert said == list(_GROUPED.values())
    for formula, prose in _GROUPED.items():  # and the words read back to the tree the linker checked
        tree = parse(formula, "effect")
        value = tree.value if isinstance(tree, s.Assign) else tree.cond
        words = prose.removeprefix("Add ").removeprefix("This needs ").removesuffix(" to your pts.").rstrip(".")
        assert _shape(parse(_formula_of(words), "expr")) == _shape(value), formula


def test_the_markdown_keeps_the_grouping_and_the_formula_beside_the_prose(tmp_path: Path) -> None:
    pack = tmp_path / "p"
    pack.mkdir()
    (pack / "m.yaml").write_text(
        "module: m\ntitle: M\ncounters:\n  pts: {per: player}\nactions:\n  grow:\n    title: Grow\n"
        "    params: {g: int, i: int}\n    do: ['me.pts += 5 + (g - 2) * 4 + i']\n", encoding="utf-8")
    out = tmp_path / "rules.md"
    assert main(["explain", str(pack), "--format", "md", "--quote", "-o", str(out)]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    at = lines.index("- Add 5 plus (g minus 2) times 4 plus i to your pts.")
    formula = lines[at + 1].strip().strip("`")
    assert formula == "me.pts += 5 + (g - 2) * 4 + i"
    value = parse(formula, "effect").value
    assert _shape(parse(_formula_of("5 plus (g minus 2) times 4 plus i"), "expr")) == _shape(value)


def test_a_formula_the_linker_could_not_check_is_quoted_as_written(tmp_path: Path) -> None:
    """explain still reads a pack that fails to link: what linked is said in words, what did not is quoted."""
    pack = tmp_path / "p"
    pack.mkdir()
    (pack / "m.yaml").write_text(
        "module: m\ntitle: M\ncounters:\n  coins: {per: player}\nvalues:\n  big: {expr: 'coins + bredd'}\n"
        "actions:\n  grow:\n    title: Grow\n    allowed_if: me.coins > nope\n    cost: 2 coins or 3 nothing\n"
        "    do: [me.coins += 1, me.coins += bredd * 2]\n", encoding="utf-8")
    text = explain.render_text(explain.build(load_modules([pack / "m.yaml"], Diagnostics()), ["m"]))
    assert "Big: `coins + bredd`." in text
    assert "Allowed only if `me.coins > nope`." in text
    assert "Add 1 to your coins." in text  # the line that linked, in words; the one that did not is left out
    assert "bredd * 2" not in text
