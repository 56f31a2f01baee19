"""The language server's parts without a client: the unsaved-buffer overlay, the focused link the quick check
uses, section-by-section validation, the pack index, completion contexts, hover, diagnostic ranges, and
`schema --write`."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import Diagnostic, Diagnostics, Span
from boardrules.language import valid_cache
from boardrules.language.loader import buffers, load_yaml_bytes
from boardrules.language.pack import discover, link, load_modules
from boardrules.lsp.complete import complete, context, formula_roles
from boardrules.lsp.formulas import formulas
from boardrules.lsp.formulas import uses as formula_uses
from boardrules.lsp.hover import code_text
from boardrules.lsp.workspace import Workspace
from boardrules.resources import rules_dir
from boardrules.tools.cli import main

BROKEN = Path(__file__).parent / "broken_packs"


@pytest.fixture()
def village(tmp_path: Path) -> Path:
    target = tmp_path / "village"
    shutil.copytree(rules_dir() / "village", target)
    return target


def _in_file(items: list[Diagnostic], file: str) -> list[tuple]:
    return sorted({(d.code, d.span.line, d.span.col, d.message, d.hint) for d in items
                   if d.span is not None and os.path.realpath(d.span.file) == os.path.realpath(file)})


# ---------------------------------------------------------------- the focused link


TYPOS = [
    ("village", "marriage.yaml", "tiles[", "tile["),
    ("village", "base.yaml", "me.time", "me.tme"),
    ("village", "base.yaml", "goods[", "good["),
    ("village", "marriage.yaml", "call ", "call x_"),
    ("village", "port.yaml", "emit treasure_deck_built", "emit treasure_deck_bilt"),
    ("lisboa", "base.yaml", "me.", "me.y"),
    ("lisboa", "state_actions.yaml", "defer church_scoring", "defer church_scorin"),
    ("village", "game.yaml", "round_number", "round_nb"),
]


@pytest.mark.parametrize(("pack", "file", "old", "new"), TYPOS)
def test_a_focused_link_finds_in_its_module_what_the_whole_link_finds(tmp_path: Path, pack: str, file: str,
                                                                       old: str, new: str) -> None:
    """The quick check builds only the edited module's rule bodies: in that module's file it must report exactly
    what linking the module with everything it requires reports, for every module of the pack."""
    root = tmp_path / pack
    shutil.copytree(rules_dir() / pack, root)
    path = root / file
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    [found] = discover([root], Diagnostics())
    modules = load_modules(found.module_files, Diagnostics())
    planted = 0
    for mid, m in modules.items():
        whole, focused = Diagnostics(), Diagnostics()
        link(modules, [mid], whole)
        link(modules, [mid], focused, focus={mid})
        assert _in_file(focused.items, m.file) == _in_file(whole.items, m.file), mid
        planted += len(_in_file(whole.items, m.file))
    assert planted > 0  # the typo was found somewhere


@pytest.mark.parametrize("name", sorted(p.name for p in BROKEN.iterdir() if p.is_dir()))
def test_a_focused_link_agrees_on_every_broken_pack(name: str) -> None:
    [found] = [p for p in discover([BROKEN / name], Diagnostics()) if p.module_files]
    modules = load_modules(found.module_files, Diagnostics())
    for mid, m in modules.items():
        whole, focused = Diagnostics(), Diagnostics()
        link(modules, [mid], whole)
        link(modules, [mid], focused, focus={mid})
        assert _in_file(focused.items, m.file) == _in_file(whole.items, m.file), mid


# ---------------------------------------------------------------- validation by section


MODULE = """module: m
title: M
counters:
  coins: {per: player}
values:
  limit: {value: 3}
actions:
  buy:
    do: [me.coins += 1]
"""


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["counters", "values", "actions"]), st.integers(min_value=0, max_value=3),
       st.sampled_from(["{per: sometimes}", "{per: sometimes, do: 1}", "[1, 2]"]))
def test_validating_by_section_reports_what_validating_the_whole_file_reports(section: str, shift: int,
                                                                              bad: str) -> None:
    """A section validated before is skipped only while its content is the same: a broken section is reported
    at its current place, however many lines moved above it, as the whole-file validator reports it."""
    from boardrules.language.validate import load_schema, validate

    good = MODULE.encode()
    valid_cache.validate_file(load_yaml_bytes(good, "m.yaml", Diagnostics()), good, "module", Diagnostics(),
                              "m.yaml")
    lines = MODULE.split("\n")
    at = lines.index(f"{section}:")
    broken = "\n".join(["# moved"] * shift + lines[:at + 1] + [f"  thing: {bad}"] + lines[at + 1:])
    data = broken.encode()
    doc = load_yaml_bytes(data, "m.yaml", Diagnostics())
    by_section, whole = Diagnostics(), Diagnostics()
    valid_cache._validate_sections(doc, by_section, "m.yaml")
    validate(doc, load_schema("module"), whole, "m.yaml")
    assert by_section.items == whole.items
    if section == "counters":  # a counter's `per` is one of two words: always an error, on the moved line
        assert whole.has_errors and whole.items[0].span.line == shift + at + 2


# ---------------------------------------------------------------- buffers and the workspace


def test_an_unsaved_buffer_stands_in_for_the_file_on_disk(village: Path) -> None:
    path = village / "marriage.yaml"
    text = path.read_text(encoding="utf-8")
    with buffers({path: text.replace('"2 time', '"2 tme').encode()}):
        modules = load_modules([path], Diagnostics())
    assert modules["village.marriage"].doc["costs"]["marriage_cost"]["cost"].startswith("2 tme")
    assert load_modules([path], Diagnostics())["village.marriage"].doc["costs"]["marriage_cost"]["cost"] \
        .startswith("2 time")  # outside the block, the disk again


def test_quick_and_full_checks_report_what_check_reports(village: Path) -> None:
    ws = Workspace()
    path = str(village / "marriage.yaml")
    text = Path(path).read_text(encoding="utf-8")
    ws.open(path, text.replace('"2 time', '"2 tme').replace("1 tiles[bread]", "1 tile[bread]"))
    quick = ws.quick(path)[os.path.realpath(path)]
    full = ws.full(path)[os.path.realpath(path)]
    # As check says it: one typo used twice is one error, at the first use the linker met, naming the other.
    again = f"'tile' is also used at {os.path.realpath(path)}:157:14"
    expected = [("E401", 142, 14, "unknown counter 'tme'", "did you mean 'time'?"),
                ("E401", 176, 49, "unknown counter 'tile'", f"did you mean 'tiles'?; {again}")]
    assert [(d.code, d.span.line, d.span.col, d.message, d.hint) for d in full if d.severity == "error"] == expected
    assert quick == full
    # Fixed in the buffer: both passes clear it, and the full pass says so for every file it reported on.
    ws.open(path, text)
    assert [d for d in ws.quick(path)[os.path.realpath(path)] if d.severity == "error"] == []
    assert all(d.severity != "error" for items in ws.full(path).values() for d in items)


def test_a_module_that_stops_loading_keeps_its_index(village: Path) -> None:
    ws = Workspace()
    path = str(village / "marriage.yaml")
    text = Path(path).read_text(encoding="utf-8")
    ws.open(path, text)
    ws.quick(path)
    ws.open(path, text.replace("costs:\n", "costs: [\n", 1))  # YAML broken mid-edit
    [problem] = [d for d in ws.quick(path)[os.path.realpath(path)] if d.severity == "error"]
    assert problem.code.startswith("E1")
    index = ws.reindex(ws.state(path))
    assert any(d.name == "marriage_cost" for d in index.decls)


def test_a_scenario_buffer_is_checked_against_the_modules(village: Path) -> None:
    ws = Workspace()
    scenario = next(p for p in sorted((village / "scenarios").glob("*.yaml")) if "[village.marriage]" in p.read_text())
    text = scenario.read_text(encoding="utf-8")
    assert "modules:" in text
    ws.open(str(scenario), re.sub(r"modules: \[([^\]]*)\]", "modules: [village.marriag]", text, count=1))
    [problem] = ws.quick(str(scenario))[os.path.realpath(scenario)]
    assert (problem.code, problem.message, problem.hint) == ("E841", "unknown module 'village.marriag'",
                                                            "did you mean 'village.marriage'?")


# ---------------------------------------------------------------- index, completion, hover


def test_the_index_knows_declarations_and_uses_across_modules(village: Path) -> None:
    ws = Workspace()
    path = str(village / "marriage.yaml")
    ws.open(path, Path(path).read_text(encoding="utf-8"))
    ws.quick(path)
    index = ws.reindex(ws.state(path))
    base = os.path.realpath(village / "base.yaml")
    [time] = [d for d in index.decls if d.name == "time" and d.section == "markers"]
    assert time.place.file == base and time.module == "village.base"
    users = {u.module for u in index.references(time)}
    assert {"village.base", "village.marriage"} <= users
    # A trigger's event, a phase's actions and requires are uses too.
    kinds = {u.kind for u in index.uses}
    assert {"on", "action", "module", "call", "emit", "pay", "read", "write"} <= kinds
    for use in index.uses:  # every use's place holds exactly its name
        line = Path(use.place.file).read_text(encoding="utf-8").split("\n")[use.place.line - 1]
        assert line[use.place.col - 1:use.place.end - 1] == use.name, use


@pytest.mark.parametrize(("line", "key", "text"), [
    ('    cost: "2 ti', "cost", "2 ti"),
    ("      - me.goods[", "do", "me.goods["),
    ("    if: count(me.", "if", "count(me."),
    ("    do: [round_turns = 0, ro", "do", "ro"),
])
def test_the_cursor_context(line: str, key: str, text: str) -> None:
    lines = ["actions:", "  a:", "    do:", line]
    assert context(lines, 4, len(line) + 1) == (key, text)


def test_completion_by_place(village: Path) -> None:
    ws = Workspace()
    path = str(village / "marriage.yaml")
    text = Path(path).read_text(encoding="utf-8")
    ws.open(path, text)
    ws.quick(path)
    st_ = ws.state(path)
    ws.reindex(st_)
    rules = ws.rules_for(st_, "village.marriage")

    def labels(line: str) -> set[str]:
        lines = [*text.split("\n"), "actions:", "  z:", "    do:", line]
        return {i.label for i in complete(st_.index, rules, os.path.realpath(path), lines, len(lines), len(line) + 1)}

    assert "take_rank_bonus" in labels("      - call ta")
    assert labels("      - call ta") <= {d.name for d in st_.index.decls if d.section == "procedures"}
    assert {"goods", "points"} <= labels("      - me.")
    def first(line: str) -> set[str]:
        lines = [*text.split("\n"), "actions:", "  z:", "    do:", line]
        items = complete(st_.index, rules, os.path.realpath(path), lines, len(lines), len(line) + 1)
        return {i.label for i in items if i.rank == min(i.rank for i in items)}

    assert first("    if: capacity(") == {d.name for d in st_.index.visible(os.path.realpath(path))
                                            if d.section == "zones"}
    assert "ceremony" in first("    if: count(") and "goods" in first("    if: count(")
    assert "points" not in first("    if: count(")
    assert first("    if: capacity(ceremony) > count(") == first("    if: count(")
    assert "me" in first("    if: rank(")
    assert first("      - me.goods[") == {"grain", "beer", "coins", "horse", "cow", "sheep"}
    assert first('    cost: "1 goods[') == {"grain", "beer", "coins", "horse", "cow", "sheep"}
    assert labels('    cost: "1 goods[') - first('    cost: "1 goods[') == {"any", "different"}
    payable = {d.name for d in st_.index.visible(os.path.realpath(path)) if d.section in ("counters", "markers")}
    assert {"goods", "time"} <= first('    cost: "4 goods[grain] lacking 2 ') <= payable  # what pays the part lacking
    assert "pay" in labels("      - p") and "count" in labels("      - p")
    assert labels("      - emit ") <= {d.name for d in st_.index.decls if d.section == "events"}
    assert first("      - end game ") == {"now", "after"}
    assert first("      - end game after ") == {"this", "next"}
    assert first("      - end game after this ") == {"turn", "round"}
    assert first("      - end game after next r") == {"round"}
    watched = {d.name for d in st_.index.visible(os.path.realpath(path))
               if d.section in ("counters", "markers", "zones")}
    assert labels("    on: {change: ") == watched and {"time", "ceremony"} <= watched


def test_hover_explains_codes_from_the_registry() -> None:
    assert code_text("E401").startswith("```text\nE401 (error")
    assert code_text("E999") is None and code_text("coins") is None


# ---------------------------------------------------------------- ranges


def test_a_diagnostic_range_covers_the_offending_text() -> None:
    from boardrules.lsp.server import diagnostic_range

    lines = ['    cost: "2 tme + 1 influence[any]"', "  x: {unknown: what}", "      - move a to somewhere"]
    r = diagnostic_range(Diagnostic("error", "E401", "unknown counter 'tme'", Span("f", 1, 14)), lines)
    assert (r.start.line, r.start.character, r.end.line, r.end.character) == (0, 13, 0, 16)
    r = diagnostic_range(Diagnostic("warning", "W601", "'x' is unknown", Span("f", 2, 6)), lines)
    assert (r.start.character, r.end.character) == (5, 20)
    # The span points at the statement; the range is the quoted name inside it.
    r = diagnostic_range(Diagnostic("error", "E401", "unknown zone 'somewhere'", Span("f", 3, 9)), lines)
    assert (r.start.character, r.end.character) == (18, 27)
    r = diagnostic_range(Diagnostic("error", "E301", "bad", Span("f", 3, 9, 3, 29)), lines)
    assert (r.start.character, r.end.character) == (8, 28)


# ---------------------------------------------------------------- schema --write


def test_schema_write_puts_the_schemas_beside_a_pack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--write", str(tmp_path / "pack")]) == 0
    out = capsys.readouterr().out
    assert "first line of a module file" in out and "$schema=module.schema.json" in out
    for kind in ("module", "scenario"):
        written = json.loads((tmp_path / "pack" / f"{kind}.schema.json").read_text(encoding="utf-8"))
        assert written == json.loads((rules_dir().parent / "grammar" / f"{kind}.schema.json").read_text())


@pytest.mark.slow
def test_the_benchmark_prints_each_module(capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    import bench_lsp

    bench_lsp.main(["--repeats", "1", "--modules", "solo"])
    out = capsys.readouterr().out
    assert "CPU ms per diagnostics update" in out
    assert re.search(r"^solo +\d+\.\d \[", out, re.M)


def test_a_scenario_names_actions_modules_and_counters_of_the_pack(village: Path) -> None:
    ws = Workspace()
    scenario = village / "scenarios" / "base_crafts_learn_then_produce.yaml"
    lines = scenario.read_text(encoding="utf-8").split("\n")
    ws.open(str(scenario), "\n".join(lines))
    assert ws.quick(str(scenario))[os.path.realpath(scenario)] == []
    index = ws.reindex(ws.state(str(scenario)))
    file = os.path.realpath(scenario)

    def target(needle: str, offset: int = 0) -> tuple[str, str]:
        n = next(i for i, line in enumerate(lines) if needle in line)
        use = index.at(file, n + 1, lines[n].index(needle) + 1 + offset)
        [d] = index.definitions(use)
        return d.section, os.path.basename(d.place.file)

    assert target("crafts_action") == ("actions", "base.yaml")
    assert target("village.marriage") == ("modules", "marriage.yaml")
    assert target("goods[grain]") == ("counters", "base.yaml")
    assert target("grain]", 0) == ("symbols", "base.yaml")
    assert target("kind: villager", 6) == ("pieces", "base.yaml")
    assert target("{p1.time: 5}", 4) == ("markers", "base.yaml")
    assert target("position(p1.time)", 12) == ("markers", "base.yaml")


def test_only_rule_files_are_checked() -> None:
    from boardrules.lsp.workspace import is_rule_file

    assert is_rule_file("/p/base.yaml", "# a comment\nmodule: p.base\ntitle: P\n")
    assert is_rule_file("/p/scenarios/a.yaml", "scenario: it works\nmodules: [p.base]\n")
    assert not is_rule_file("/p/.github/workflows/ci.yaml", "name: CI\non: [push]\njobs: {}\n")
    assert not is_rule_file("/p/scenarios/notes.yaml", "title: not a scenario\n")
    assert not is_rule_file("/p/compose.yaml", "services:\n  module: x\n")  # not at the top level


def test_hints_that_name_the_right_text_become_quick_fixes() -> None:
    from boardrules.lsp.server import to_lsp

    lines = ["  tyme: {per: player}", '    cost: "2 tme"']
    declared = Diagnostic("error", "E401", "'tyme' is declared here, but the rules say 'time' (12 times)",
                          Span("f", 1, 3), "rename it to 'time', or change the uses to 'tyme'; first use at f:9:1")
    d = to_lsp(declared, lines)
    assert d.data == {"fix": "time"} and (d.range.start.character, d.range.end.character) == (2, 6)
    typo = to_lsp(Diagnostic("error", "E401", "unknown counter 'tme'", Span("f", 2, 14), "did you mean 'time'?"),
                  lines)
    assert typo.data == {"fix": "time"} and (typo.range.start.character, typo.range.end.character) == (13, 16)
    assert to_lsp(Diagnostic("error", "E401", "unknown counter 'tme'", Span("f", 2, 14)), lines).data is None


@given(st.text(alphabet=st.sampled_from(["a", "_", " ", "\u00e9", "\u2014", "\U0001f3b2"]), max_size=12))
def test_columns_convert_to_the_protocols_units_and_back(line: str) -> None:
    """The protocol counts UTF-16 code units; a die emoji in a note is two of them."""
    from boardrules.lsp.server import points, units

    for col in range(len(line) + 1):
        assert points(line, units(line, col)) == col
    assert units(line, len(line)) == len(line.encode("utf-16-le")) // 2


def test_a_range_after_an_emoji_is_counted_in_utf16_units() -> None:
    from boardrules.lsp.server import to_lsp

    lines = ['    note: "\U0001f3b2"; cost: "2 tme"']
    d = to_lsp(Diagnostic("error", "E401", "unknown counter 'tme'", Span("f", 1, 25), "did you mean 'time'?"), lines)
    assert (d.range.start.character, d.range.end.character) == (25, 28)  # character 24, then one more unit


def test_lsp_without_pygls_says_how_to_install(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "boardrules.lsp.server", None)  # the import fails as without the extra
    assert main(["lsp"]) == 2
    assert "pip install 'boardrules[lsp]'" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["marriage.yaml", "game.yaml"])
def test_every_place_of_a_shipped_module_answers_without_failing(village: Path, name: str) -> None:
    """Completion, navigation and hover at every fifth column of every line: an answer or nothing, never an
    exception."""
    from boardrules.lsp.hover import declaration_text

    ws = Workspace()
    path = str(village / name)
    text = Path(path).read_text(encoding="utf-8")
    ws.open(path, text)
    ws.quick(path)
    st_ = ws.state(path)
    index = ws.reindex(st_)
    file = os.path.realpath(path)
    mid = index.module_of(file)
    rules = ws.rules_for(st_, mid)
    lines = text.split("\n")
    answered = 0
    for n, line in enumerate(lines, 1):
        for col in range(1, len(line) + 2, 5):
            complete(index, rules, file, lines, n, col)
            target = index.at(file, n, col)
            for d in index.definitions(target) if target is not None else []:
                assert declaration_text(d, rules, None).startswith(f"**{d.name}**")
                answered += 1
    assert answered > 100


def test_the_editor_reads_formulas_without_the_analyses_yaml_walk() -> None:
    # The language server has its own syntax index (lsp/formulas.py says why); it imports no YAML re-walk.
    for path in (Path(__file__).resolve().parent.parent / "interpreter" / "lsp").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert "analysis.walk" not in source and "analysis.refs" not in source, path.name
    # Which key holds which kind of formula comes from the module schema (for a line too short to parse).
    roles = formula_roles()
    assert {k: roles[k] for k in ("do", "then", "options", "cases", "instead")} == dict.fromkeys(
        ("do", "then", "options", "cases", "instead"), "effect")
    assert {roles[k] for k in ("if", "allowed_if", "match", "ranking", "first_player", "by", "until", "expr")} == {
        "expr"}
    assert roles["cost"] == roles["with"] == "cost"


def test_each_string_is_indexed_as_the_formula_it_parses_as(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(
        "module: m\ntitle: grow coins\ncounters:\n  coins: {per: player}\nevents:\n  fest: {}\n"
        "actions:\n  grow:\n    title: coins\n    allowed_if: me.coins < 3\n    cost: 2 coins\n"
        "    do: [me.coins += 1, emit fest(), {if: coins_left > 0, then: [call nowhere()]}]\n", encoding="utf-8")
    [module] = load_modules([tmp_path / "m.yaml"], Diagnostics()).values()
    found = {(rule, kind, name) for rule, tree, _ in formulas(module) for kind, name, _ in formula_uses(tree)
             if rule.startswith("actions.")}
    assert found == {("actions.grow", "read", "me"), ("actions.grow", "read", "coins"),
                     ("actions.grow", "pay", "coins"), ("actions.grow", "write", "coins"),
                     ("actions.grow", "emit", "fest"), ("actions.grow", "read", "coins_left"),
                     ("actions.grow", "call", "nowhere")}  # titles are prose: `coins` there is no use


def test_a_name_the_linker_resolved_leads_to_what_it_resolved_to(tmp_path: Path) -> None:
    # `c.reward` reads (and `c.reward = 0` writes) a card's property, `me.reward` the player's counter of the same
    # name: the syntax cannot tell them apart, the linked module's checked tree can (lsp/resolved.py).
    path = tmp_path / "m.yaml"
    path.write_text(
        "module: m\ntitle: M\ncounters:\n  reward: {per: player}\npieces:\n  card:\n    properties:\n"
        "      reward: {type: int, default: 0}\nzones:\n  hand: {per: player}\nactions:\n  cash:\n    title: Cash\n"
        "    do:\n      - for: c in me.hand\n        do: [me.reward += c.reward, c.reward = 0]\n", encoding="utf-8")
    ws = Workspace()
    ws.open(str(path), path.read_text(encoding="utf-8"))
    assert [d for d in ws.quick(str(path))[os.path.realpath(path)] if d.severity == "error"] == []
    index = ws.reindex(ws.state(str(path)))
    line = path.read_text(encoding="utf-8").split("\n").index("        do: [me.reward += c.reward, c.reward = 0]") + 1
    found = {}
    for use in index.uses:
        if use.name == "reward" and use.place.line == line:
            [target] = index.definitions(use)
            found[use.place.col] = (use.kind, target.section)
    assert sorted(found.values()) == [("read", "properties"), ("write", "counters"), ("write", "properties")]
