"""Messages show values as the designer writes them (`{p2: $q4}`, `[red, blue]`, `none`), never a Python repr."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import Diagnostics
from boardrules.engine.decisions import WhoAnswers
from boardrules.engine.values import Piece, Player, Ref, Zone, shown
from boardrules.language.pack import load_modules
from boardrules.tools.scenario import ScenarioRunner

ROOT = Path(__file__).resolve().parent.parent
PAYMENTS = ROOT / "tests" / "packs" / "payments"
REPR = re.compile(r"\b(Piece|Player|Zone|Ref|Unknown|WhoAnswers)\(|\bTrue\b|\bFalse\b|\bNone\b|'")


def _run(tmp_path: Path, steps: str) -> str:
    path = tmp_path / "s.yaml"
    path.write_text("scenario: s\nmodules: [payments]\nplayers: 2\nsetup: false\nstate:\n  pieces:\n"
                    "    - {id: q4, kind: token, zone: pool}\nsteps:\n" + steps, encoding="utf-8")
    runner = ScenarioRunner(load_modules(sorted(PAYMENTS.glob("*.yaml")), Diagnostics()))
    result = runner.run_file(path)
    assert not result.passed and not result.internal
    return "\n".join(result.failures)


def test_answers_never_asked_for_are_shown_as_the_scenario_writes_them(tmp_path: Path) -> None:
    text = _run(tmp_path, "  - {action: both, player: p1, answers: [{p2: $q4}, 3, red]}\n")
    assert "answers or rolls never asked for: [{p2: $q4}, 3, red]" in text
    assert not REPR.search(text.split("never asked for:", 1)[1]), text


def test_a_decision_lists_its_options_as_written(tmp_path: Path) -> None:
    text = _run(tmp_path, "  - {action: either, player: p1}\n")  # both ways fit, and no answer is scripted
    assert "p1 chooses one of [2 a + 2 b, 2 a + 2 c] for 'pay (me.a) a + (me.a) b or (me.a) a + (me.a) c'" in text


def test_a_wrong_answer_names_the_answer_and_the_options_as_written(tmp_path: Path) -> None:
    text = _run(tmp_path, "  - {action: either, player: p1, answers: [\"2 a\"]}\n")
    assert "answer 2 a is not among the options [2 a + 2 b, 2 a + 2 c]" in text


_SCALARS = st.one_of(st.integers(-10**6, 10**6), st.booleans(),
                     st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=12))
_PLAIN = st.recursive(_SCALARS, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(st.text("abcxyz_", min_size=1, max_size=4), kids, max_size=3)),
    max_leaves=10)


@settings(max_examples=300, deadline=None)
@given(_PLAIN)
def test_plain_data_is_shown_as_yaml_that_reads_back_the_same(value: object) -> None:
    assert yaml.safe_load(shown(value)) == value


_RUNTIME = st.recursive(
    st.one_of(st.builds(Piece, st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True)),
              st.integers(1, 4).map(lambda n: Player(f"p{n}", n)), st.just(Zone("p1.farm")), st.just(Ref("die", "d6")),
              st.booleans(), st.none(), st.integers(0, 9), st.sampled_from(["red", "", "a b", "3", "yes"])),
    lambda kids: st.one_of(st.lists(kids, max_size=3), st.builds(WhoAnswers, st.just("p2"), kids)), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(_RUNTIME)
def test_runtime_values_never_show_a_python_repr(value: object) -> None:
    assert not REPR.search(shown(value).replace('"', "")), shown(value)


def test_no_message_of_the_engine_or_the_scenario_runner_formats_a_repr() -> None:
    # `!r` in an f-string shows a Python repr (Piece(id='q4'), 'red', True); values go through shown().
    files = [*(ROOT / "interpreter" / "engine").glob("*.py"), *(ROOT / "interpreter" / "tools").glob("scenario*.py"),
             ROOT / "interpreter" / "game.py", ROOT / "interpreter" / "analysis" / "scenarios.py",
             *(ROOT / "interpreter" / "language" / f for f in ("builtins.py", "options.py", "linker.py", "extend.py",
                                                                 "watch.py", "effect_builder.py"))]
    found = [f"{p.name}:{i}" for p in files for i, line in enumerate(p.read_text().splitlines(), 1)
             if "!r}" in line and "def __repr__" not in p.read_text().splitlines()[i - 2]]
    assert found == []
