"""The analyses read the linked tree: no module of `boardrules check`'s analyses walks the YAML or parses rule text
again, and a name is judged by what the linker resolved it to."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import pytest
from conftest import build_rules, write_modules

from boardrules.analysis import check_pack
from boardrules.analysis.scenarios import ScenarioChecker, option_labels
from boardrules.analysis.tree import every_effect
from boardrules.analysis.uses import Index
from boardrules.diagnostics import Diagnostics
from boardrules.engine.effects import OneOfE
from boardrules.engine.rules import Rules
from boardrules.language import checked as c
from boardrules.language.pack import Pack, load_modules

PACKAGE = Path(__file__).resolve().parents[1] / "interpreter"
ANALYSIS = PACKAGE / "analysis"
# What reading rule text again takes: the parser, the syntax nodes, the YAML strings' Text, the editor's YAML walk.
FORBIDDEN = {"language.parser", "language.syntax", "language.effect_builder", "analysis.walk",
             "analysis.refs", "walk", "refs"}
# A scenario's own expectations and answers are not rules: scenarios.py parses those (and builds a scenario's
# counter overrides), never a module's formulas.
SCENARIO_TEXT = {"scenarios.py"}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = (node.module or "").removeprefix("boardrules.")
            found.add(base)
            found.update(f"{base}.{alias.name}" if base else alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_no_analysis_walks_the_yaml_or_parses_rule_text() -> None:
    modules = sorted(ANALYSIS.glob("*.py"))
    assert not {"walk.py", "refs.py"} & {p.name for p in modules}
    for path in modules:
        if path.name in SCENARIO_TEXT:
            continue
        imported = {name.lstrip(".") for name in _imports(path)}
        assert not imported & FORBIDDEN, (path.name, imported & FORBIDDEN)
        calls = {n.func.id for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert "parse" not in calls, path.name


def _attributes(path: Path) -> set[str]:
    return {n.attr for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Attribute)}


def test_totality_judges_names_by_the_checked_tree() -> None:
    """The search's analyses (what always finishes, the unknowns it must not meet, which answers are independent)
    read what each name denotes off the checked nodes: no syntax node, no side table of what the linker
    resolved."""
    # known.py: whether a rule can still read a value left unknown; independence.py: what a statement may read
    for name in ("totality.py", "known.py", "independence.py"):
        path = PACKAGE / "engine" / name
        assert not {name.lstrip(".") for name in _imports(path)} & FORBIDDEN, path
        assert not _attributes(path) & {"syntax", "denotes", "denote", "denoted"}, path


# What reads modules' YAML documents after loading, outside the loader and the linker: analysis/modules.py checks
# modules before they link together (two modules giving one fact, the "declared in X: add X to requires" hint);
# diff compares two versions of a pack's sources; mutate writes mutants of them, indexing a module's YAML by place
# (mutation_sites) to edit the entry at a site the linked tree gives. (report.py's `doc` is the explain
# Document.) Everything else reads the linked rules, where the linker keeps what the checks of a pack's own words
# and explain need (Rules.module_info, .written, .additions, .replacements, .choice_changes).
DOC_READERS = {"analysis/modules.py", "tools/diff.py", "tools/mutate.py", "tools/mutation_sites.py", "tools/report.py"}


def test_no_later_phase_reads_a_module_document_but_those_listed() -> None:
    readers = {path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py")
               if not path.relative_to(PACKAGE).as_posix().startswith(("language/", "lsp/"))
               and "doc" in _attributes(path)}
    assert readers <= DOC_READERS, readers - DOC_READERS


def _schema_keys(node: object, out: set[str]) -> set[str]:
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "properties" and isinstance(v, dict):
                out.update(v)
            _schema_keys(v, out)
    elif isinstance(node, list):
        for x in node:
            _schema_keys(x, out)
    return out


def _doc_readers(path: Path) -> set[str]:
    """The functions of a module that read a module's `doc`."""
    return {f.name for f in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(f, ast.FunctionDef)
            and any(isinstance(n, ast.Attribute) and n.attr == "doc" for n in ast.walk(f))}


def test_mutate_finds_its_sites_in_the_linked_tree_not_by_walking_the_yaml() -> None:
    """mutate takes its sites from the linked rules (effect nodes, checked expressions, costs, guards, options,
    values) and reads a module's YAML only to edit the entry written at a site's place: it holds no list of
    sections or block keys, names no key a module may write, and reads `doc` only to index it by place
    (`_Finder.slot`) and to apply an edit (`apply`)."""
    mutate, sites = PACKAGE / "tools" / "mutate.py", PACKAGE / "tools" / "mutation_sites.py"
    for path in (mutate, sites):
        imported = {name.lstrip(".") for name in _imports(path)}
        assert not {n for n in imported if n.startswith(("language.sections", "sections"))}, path.name
        assert not imported & {"language.syntax", "language.effect_builder"}, path.name
    assert {"analysis.tree.every_effect", "analysis.tree.rule_bodies", "language.checked"} <= {
        name.lstrip(".") for name in _imports(sites)}
    keys = _schema_keys(json.loads((PACKAGE.parent / "grammar" / "module.schema.json").read_text()), set())
    # Words the tree or the mutant itself uses that a module may also write as a key: a declared value's kind
    # (ValueDecl.kind) and a mutant's edit (Mutant.op).
    allowed = {"by_players", "expr", "drop"}
    for path in (mutate, sites):
        words = {n.value for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        assert not (words & keys) - allowed, (path.name, (words & keys) - allowed)
    # run_mutant reads a scenario's document (Scenario.doc), not a module's
    assert _doc_readers(sites) == {"slot"} and _doc_readers(mutate) == {"apply", "run_mutant"}


def test_the_rules_keep_no_side_table_of_what_names_denote() -> None:
    """What a name denotes lives on its checked node (Name.ref.kind, Attr.kind); the editor reads it there too
    (lsp/resolved.py)."""
    assert not {"denote", "denotes", "denoted"} & ({f.name for f in dataclasses.fields(Rules)} | set(dir(Rules)))
    for path in PACKAGE.rglob("*.py"):
        if path.name != "dataclass_table.py":
            assert not _attributes(path) & {"denote", "denotes", "denoted"}, path


def test_every_node_field_of_a_checked_kind_is_walked() -> None:
    """checked.nodes skips a kind's plain fields by name: no field that holds a node may be among them."""
    kinds = [k for k in vars(c).values() if isinstance(k, type) and issubclass(k, c.Node) and k is not c.Node]
    names = {k.__name__ for k in kinds} | {"Node"}
    for kind in kinds:
        for f in dataclasses.fields(kind):
            if f.name in ("syntax",):
                continue
            if any(name in str(f.type) for name in names):
                assert f.name not in c._NOT_CHILDREN, (kind.__name__, f.name)


def test_a_property_named_like_a_counter_is_used_as_the_linker_resolved_it(tmp_path: Path) -> None:
    rules = build_rules(tmp_path, """
        module: t
        title: Names
        counters:
          gold: {per: player}
        pieces:
          coin: {properties: {gold: {type: int, default: 0}}}
        zones:
          purse: {per: player}
        actions:
          a:
            do:
              - for: c in me.purse
                do: ["c.gold += 1"]
              - me.gold += count(me.purse)
        """)
    ix = Index(rules)
    uses = sorted((r.kind, r.name, r.section) for r in ix.refs if r.name in ("gold", "purse"))
    assert uses == [("increase", "gold", "counters"), ("increase", "gold", "properties"),
                    ("read", "purse", "zones"), ("read", "purse", "zones"),
                    ("write", "gold", "counters"), ("write", "gold", "properties")]
    # Each use is placed where it is written, from the linked tree alone.
    (purse_read, *_) = [r for r in ix.refs if r.name == "purse"]
    assert (purse_read.span().line, purse_read.span().col) == (13, 22)  # `purse` in `for: c in me.purse`


PROPERTY_SIGN = """
module: t
title: Ages
counters:
  points: {per: player, output: true}
  shame: {per: game, output: true}
pieces:
  tree: {properties: {age: {type: int, default: 1}}}
zones:
  grove: {per: player}
actions:
  grow:
    do:
      - create tree in me.grove
      - for: t in me.grove
        do: ["t.age += 1"]
      - me.points += sum([t.age for t in me.grove])
triggers:
  disgrace:
    on: {change: points, crosses: 0, direction: down}
    do: ["shame += 1"]
"""


@pytest.mark.parametrize(("change", "fires"), [("t.age += 1", True), ("t.age -= 1", False), ("t.age = 0", True),
                                               ("t.age = me.points", True), ("t.age = me.points - 5", False),
                                               ("t.age = me.points + shame", True)])
def test_a_sum_of_a_property_no_rule_makes_negative_never_moves_a_counter_down(
        tmp_path: Path, change: str, fires: bool) -> None:
    diags = Diagnostics()
    check_pack(Pack(tmp_path, write_modules(tmp_path, PROPERTY_SIGN.replace("t.age += 1", change))), diags)
    w858 = [d for d in diags.items if d.code == "W858"]
    assert bool(w858) == fires, [d.message for d in diags.items]


@pytest.mark.parametrize(("score", "fires"), [("me.points += 1", True), ("for: p in players", False),
                                              ("emit scored()", False)])
def test_another_players_step_proves_nothing_about_a_counter_it_changes_only_for_itself(
        tmp_path: Path, score: str, fires: bool) -> None:
    """p1 scoring changes p1's points; an expectation on p2's points is already true before the steps, unless the
    action reaches other players (a loop over them, a trigger that runs for whoever it names)."""
    step = {"me.points += 1": "['me.points += 1']", "for: p in players": "[{for: p in players, do: ['p.points += 1']}]",
            "emit scored()": "['emit scored()']"}[score]
    write_modules(tmp_path, f"""
module: t
title: T
players: {{min: 1, max: 4}}
counters:
  points: {{per: player, output: true}}
events:
  scored: {{}}
actions:
  score: {{do: {step}}}
triggers:
  all_score:
    on: scored
    do: ["for p in players: p.points += 1"]
""".replace('do: ["for p in players: p.points += 1"]', "do: [{for: p in players, do: ['p.points += 1']}]"))
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    (scenarios / "s.yaml").write_text("scenario: S\nmodules: [t]\nplayers: 2\nsteps:\n  - {action: score, player: p1}\n"
                                      "expect:\n  p2.points: 0\n", encoding="utf-8")
    diags = Diagnostics()
    check_pack(Pack(tmp_path, sorted(tmp_path.glob("*.yaml")), sorted(scenarios.glob("*.yaml"))), diags)
    assert [d.code for d in diags.items if d.code == "W863"] == (["W863"] if fires else []), \
        [d.message for d in diags.items]


def test_the_linked_rules_say_what_each_module_gives_of_itself(tmp_path: Path) -> None:
    """Title and player counts as each module writes them, in requires order: what explain and the range analysis
    read instead of the module's YAML (the last module's counts are the game's)."""
    rules = build_rules(tmp_path, "module: a\ntitle: Base\nplayers: {min: 2, max: 4}\n",
                        "module: b\ntitle: More\nrequires: [a]\nplayers: {max: 5}\n",
                        "module: c\ntitle: Quiet\nrequires: [b]\n")
    info = rules.module_info
    assert [(m.id, m.title, m.players) for m in info.values()] == [
        ("a", "Base", (("min", 2), ("max", 4))), ("b", "More", (("max", 5),)), ("c", "Quiet", None)]
    assert (info["b"].given("min", "?"), info["b"].given("max"), rules.players_min, rules.players_max) == ("?", 5, 2, 5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        info["a"].title = "x"  # type: ignore[misc]


def test_the_options_a_scenario_may_answer_are_read_off_the_linked_modules() -> None:
    """limits.more adds `star` and drops `coins`, limits.last drops `star` and `grain` and adds a `grain` of its own:
    every label some module writes stays answerable (a scenario may test that answering one its modules do not
    offer is refused when it runs), though the rules of all modules together offer only three."""
    pack = Path(__file__).resolve().parent / "packs" / "limits"
    modules = load_modules(sorted(pack.glob("*.yaml")), Diagnostics())
    checker = ScenarioChecker(modules, Diagnostics())
    assert checker.labels("s.yaml") == {"grain", "coins", "gems", "star", "rest"}
    whole = checker._link({"modules": list(modules)}, "s.yaml")
    assert whole is not None and option_labels(whole) == {"grain", "coins", "gems", "star", "rest"}
    [harvest] = [x for x in every_effect(whole.actions["harvest"].body) if isinstance(x, OneOfE)]
    assert {label for label, _, _ in harvest.options} == {"gems", "rest", "grain"}


# Outside the linker, only these read the syntax a checked node was checked from: the editor, to lead its own
# syntax index to what the linker resolved; and a checked negation made from a checked node (it keeps its source).
SYNTAX_READERS = {"lsp/resolved.py", "analysis/points.py"}


def test_no_phase_after_linking_reads_the_syntax_a_node_was_checked_from() -> None:
    for path in PACKAGE.rglob("*.py"):
        where = path.relative_to(PACKAGE).as_posix()
        if where.startswith("language/") or where in SYNTAX_READERS or path.name == "dataclass_table.py":
            continue
        assert "syntax" not in _attributes(path), where


def test_the_linked_rules_keep_each_declaration_as_its_module_writes_it(tmp_path: Path) -> None:
    """Before `extend:` changes it (a range check reads the counter as declared), with the place of each value;
    a property an extension adds to a kind is declared by that extension."""
    rules = build_rules(tmp_path, """
        module: a
        title: A
        counters:
          gold: {per: player, initial: 2, output: true}
        pieces:
          coin: {properties: {worth: {type: int, default: 1}}}
        """, """
        module: b
        title: B
        requires: [a]
        extend:
          counters.gold: {max: 9}
          pieces.coin: {properties: {shiny: {type: bool, default: false}}}
        """)
    a, b = rules.written["a"], rules.written["b"]
    gold = next(w for w in a if w.name == "gold")
    assert (gold.section, gold.module, gold.get("initial"), gold.get("output"), gold.has("max")) == (
        "counters", "a", 2, True, False)
    assert rules.counters["gold"].max == 9  # what the linked declaration says
    assert (gold.at("initial", gold.span).line, gold.at("max", gold.span)) == (5, gold.span)
    assert [(w.section, w.name, w.get("default")) for w in a if w.section == "properties"] == [
        ("properties", "worth", 1)]
    assert [(w.section, w.name, w.module, w.get("default")) for w in b] == [("properties", "shiny", "b", False)]


def test_the_linked_rules_say_what_replace_and_extend_changed(tmp_path: Path) -> None:
    """What explain says beside a rule another module changed, kept by the linker (not read again from YAML)."""
    rules = build_rules(tmp_path, """
        module: a
        title: A
        counters:
          gold: {per: player, output: true}
        actions:
          dig: {do: [{one_of: {options: {deep: ["me.gold += 2"], wide: ["me.gold += 1"]}}}]}
          rest: {do: ["me.gold += 1"]}
        """, """
        module: b
        title: B
        requires: [a]
        replace:
          actions.rest: {do: ["me.gold += 3"]}
        extend:
          actions.dig: {one_of: {options: {far: ["me.gold += 4"]}, drop: [wide]}}
        """)
    [rest] = rules.replacements.values()
    assert (rest.target, rest.module, rest.declared_in) == ("actions.rest", "b", "a")
    [dig] = rules.choice_changes
    assert (dig.module, dig.target, dig.added, dig.dropped) == ("b", "actions.dig", ("far",), ("wide",))
    assert dig.span is not None and (dig.span.line, dig.span.col) == (8, 3)  # `actions.dig:` under extend
