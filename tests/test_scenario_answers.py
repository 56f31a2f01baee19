"""A scenario step's answers are judged by `check` against the decisions its action can ask (E841 where an answer
fits none of them: a player where nothing chooses a player, a number where nothing chooses a number, a symbol no
choice lists), and left alone where the options are not known before play."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardrules.analysis import check_pack
from boardrules.diagnostics import Diagnostics
from boardrules.language.pack import discover

MODULE = """
module: t
title: Answers
players: {min: 2, max: 3}
sets:
  colours: [red, blue]
  moods: [calm, angry]
counters:
  coins: {per: player, initial: 5}
  gems: {per: player, keys: colours, initial: 2}
procedures:
  tip:
    params: {who: player}
    do: ["who.coins += 1"]
actions:
  pick:
    do:
      - choose c from colours
      - me.gems[c] += 1
  pay_any:
    cost: "1 gems[any]"
    do: ["me.coins += 1"]
  either:
    cost: "1 coins or nothing"
    do:
      - one_of:
          options:
            keep: []
            give: ["call tip(next_player(me))"]
  favour:
    do:
      - choose p from players
      - call tip(p)
  many:
    do:
      - choose n from 1..3
      - me.coins += n
  maybe:
    do:
      - may:
          do: ["me.coins += 1"]
  rest:
    do: ["me.coins += 1"]
  give:
    params: {to: player, all: bool, n: int}
    do: ["to.coins += n"]
  filtered:
    do:
      - choose c from keys(gems)
      - me.gems[c] += 1
"""


def _errors(tmp_path: Path, steps: str, module: str = MODULE, setup: bool = True) -> list[tuple[str, int, str]]:
    (tmp_path / "t.yaml").write_text(module, encoding="utf-8")
    (tmp_path / "scenarios").mkdir(exist_ok=True)
    start = "setup: true\n" if setup else ""
    (tmp_path / "scenarios" / "s.yaml").write_text(
        f"scenario: answers\nmodules: [t]\nplayers: 2\n{start}steps:\n{steps}", encoding="utf-8")
    diags = Diagnostics()
    for found in discover([tmp_path], diags):
        check_pack(found, diags)
    return [(d.code, d.span.line if d.span else 0, d.message) for d in diags.sorted() if d.severity == "error"]


@pytest.mark.parametrize("step", [
    "{action: pick, player: p1, answers: [blue]}",
    "{action: pay_any, player: p1, answers: [red]}",
    "{action: either, player: p1, answers: [nothing, give]}",
    "{action: either, player: p1, answers: ['1 coins', keep]}",
    "{action: favour, player: p1, answers: [p2]}",
    "{action: favour, player: p1, answers: [{p1: p2}]}",
    "{action: many, player: p1, answers: [2]}",
    "{action: maybe, player: p1, answers: [yes]}",
    "{action: filtered, player: p1, answers: [red]}",
    "{action: pick, player: p1, answers: [p2], expect_error: E505}",
    "{action: maybe, player: p1, answers: [yes]}\n  - {action: pick, player: p1, answers: [red]}",
    "{action: rest, player: p1, answers: [red]}",  # asks nothing: `test` lists the answers left over when it runs
])
def test_answers_that_fit_a_decision(tmp_path: Path, step: str) -> None:
    assert _errors(tmp_path, f"  - {step}\n") == []


@pytest.mark.parametrize(("step", "wanted"), [
    ("{action: pick, player: p1, answers: [p2]}", "the answer p2 fits no decision 'pick' can ask (it asks for: "
                                                    "blue, red)"),
    ("{action: pick, player: p1, answers: [calm]}", "the answer calm fits no decision 'pick' can ask (it asks for: "
                                                      "blue, red)"),
    ("{action: favour, player: p1, answers: [3]}", "the answer 3 fits no decision 'favour' can ask (it asks for: "
                                                     "a player)"),
    ("{action: many, player: p1, answers: [red]}", "the answer red fits no decision 'many' can ask (it asks for: "
                                                     "a number)"),
    ("{action: maybe, player: p1, answers: [keep]}", "the answer keep fits no decision 'maybe' can ask (it asks "
                                                       "for: yes or no)"),
    ("{action: either, player: p1, answers: [nothing, red]}", "the answer red fits no decision 'either' can ask "
                                                                "(it asks for: give, keep, nothing)"),
])
def test_an_answer_that_fits_no_decision(tmp_path: Path, step: str, wanted: str) -> None:
    assert _errors(tmp_path, f"  - {step}\n") == [("E841", 6, wanted)]


def test_a_flow_scenario_is_left_alone(tmp_path: Path) -> None:
    # With a flow the phases a move ends may ask with the step's answers, so nothing is judged.
    errors = _errors(tmp_path, "  - {action: pick, player: p1, answers: [p2]}\n")
    assert errors and errors[0][0] == "E841"
    text = (tmp_path / "scenarios" / "s.yaml").read_text(encoding="utf-8").replace("setup: true", "flow: true")
    (tmp_path / "scenarios" / "s.yaml").write_text(text, encoding="utf-8")
    diags = Diagnostics()
    for found in discover([tmp_path], diags):
        check_pack(found, diags)
    assert not [d for d in diags.items if "fits no decision" in d.message]


@pytest.mark.parametrize(("step", "wanted"), [
    ("{action: give, player: p1, params: {to: p2, all: false}}", "'give' needs the parameter 'n' (int)"),
    ("{action: give, player: p1}", "'give' needs the parameters 'to' (player), 'all' (bool), 'n' (int)"),
    ("{action: give, player: p1, params: {to: p2, al: false, n: 1}}", "'give' has no parameter 'al'"),
    ("{action: give, player: p1, params: {to: p3, all: false, n: 1}}", "there is no player 'p3' in a 2-player game"),
    ("{action: give, player: p1, params: {to: p2, all: 1, n: 1}}", "parameter 'all' of 'give' is true or false, "
                                                                    "not 1"),
    ("{action: rest}", "action 'rest' is taken by a player: say which"),
])
def test_a_step_missing_or_mistyping_what_its_action_needs(tmp_path: Path, step: str, wanted: str) -> None:
    assert [m for _, _, m in _errors(tmp_path, f"  - {step}\n")] == [wanted]


def test_a_step_testing_the_refusal_is_left_alone(tmp_path: Path) -> None:
    assert _errors(tmp_path, "  - {action: give, player: p1, expect_error: E509}\n") == []
    assert _errors(tmp_path, "  - {action: give, player: p1, params: {to: p2, all: true, n: 1}}\n") == []


@pytest.mark.parametrize(("tail", "line"), [
    ("expect:\n  p1.gems: 2\n", 8),
    ("state:\n  counters:\n    p1.gems: 2\n", 9),
])
def test_a_keyed_counter_without_its_key(tmp_path: Path, tail: str, line: int) -> None:
    errors = _errors(tmp_path, "  - {action: pick, player: p1, answers: [red]}\n" + tail)
    assert errors == [("E841", line, "'p1.gems' is a keyed counter: name one key")]


def test_yes_to_an_action_with_no_may(tmp_path: Path) -> None:
    assert _errors(tmp_path, "  - {action: pick, player: p1, answers: [red, yes]}\n") == [
        ("E841", 6, "the answer true fits no decision 'pick' can ask: it has no `may` (it asks for: blue, red)")]


def test_a_keyed_counter_counted_in_an_expectation(tmp_path: Path) -> None:
    errors = _errors(tmp_path, "  - {action: pick, player: p1, answers: [red]}\nexpect:\n  p1.gems[red]: 3\n"
                               "  count(p1.gems): 1\n")
    assert errors == [("E841", 9, "argument 1 of 'count' should be a list or a zone, but it is a keyed counter")]


def test_a_state_giving_two_pieces_one_id(tmp_path: Path) -> None:
    steps = ("  - {action: pick, player: p1, answers: [red]}\nstate:\n  pieces:\n    - {id: a, kind: pawn, zone: "
             "p1.yard}\n    - {id: a, kind: pawn, zone: p2.yard}\nexpect:\n  p1.yard: 1\n  count(p2.yard): 1\n")
    module = MODULE + "pieces:\n  pawn: {}\nzones:\n  yard: {per: player}\n"
    assert _errors(tmp_path, steps, module, setup=False) == [
        ("E403", 9, "a piece with id 'a' already exists"),
        ("E841", 11, "'p1.yard' is a zone, and a zone is never a number")]
