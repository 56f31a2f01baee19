"""Every number position of a rule file and a scenario against the documented limits (SECURITY.md: integers at
most 10^18 in size, at most 4 300 digits in an expression): a number too large, too long for Python to convert,
infinite or not a number is a rule diagnostic, never E900."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardrules.tools.cli import main

MODULE = """\
module: m
title: numbers
players: {{min: 1, max: {players_max}}}
values:
  v: {value}
counters:
  coins: {{per: player, initial: {initial}, max: {counter_max}, output: true}}
zones:
  hand: {{per: player, capacity: {capacity}}}
dice:
  d: {{sides: {sides}}}
tracks:
  lane: {{spaces: {spaces}, markers: {{walker: 1}}}}
actions:
  a:
    title: A
    params:
      n: {{type: int, in: "1..{range_top}"}}
    do:
      - "me.coins += {literal}"
      - repeat: {repeat}
        do: ["me.coins += 0"]
      - choose x from [1, 2]
      - roll d as r
      - me.coins += x
"""
SCENARIO = """\
scenario: s
source: s
modules: [m]
players: {players}
seed: {seed}
state:
  counters:
    p1.coins: {state_coins}
  markers:
    walker: {marker}
steps:
  - {{action: a, player: p1, params: {{n: {param}}}, answers: [{answer}], rolls: [{roll}]}}
  - {{action: a, player: p1, params: {{n: 1}}, answers: [{{p1: {answer}}}], rolls: [1]}}
expect:
  p1.coins: {expect}
"""
GOOD = {"players_max": 2, "value": 1, "initial": 0, "counter_max": 100, "capacity": 3, "sides": 6, "spaces": 5,
        "range_top": 3, "literal": 1, "repeat": 2, "players": 2, "seed": 1, "state_coins": 0, "marker": 1,
        "param": 1, "answer": 1, "roll": 1, "expect": 4}
HUGE = [
    "9" * 5_000, "-" + "9" * 5_000, "9" * 4_300, "1" + "0" * 19, "-" + "1" + "0" * 19, "0x" + "f" * 4_000,
    "0o" + "7" * 4_000, "0b" + "1" * 4_000, "1_" * 2_000 + "1", ":".join(["59"] * 1_000), ".inf", "-.inf", ".nan",
    "1.0e400", "1" + "0" * 18, "(" * 100 + "1" + ")" * 100,
]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("numbers")


def _write(folder: Path, fields: dict[str, object]) -> None:
    (folder / "scenarios").mkdir(parents=True, exist_ok=True)
    (folder / "m.yaml").write_text(MODULE.format(**fields))
    (folder / "scenarios" / "s.yaml").write_text(SCENARIO.format(**fields))


def test_the_template_is_a_passing_pack(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    _write(root / "good", GOOD)
    assert main(["check", str(root / "good")]) == 0, capsys.readouterr().out
    assert main(["test", str(root / "good")]) == 0, capsys.readouterr().out


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(position=st.sampled_from(sorted(GOOD)), number=st.sampled_from(HUGE))
def test_a_huge_number_anywhere_is_a_diagnostic(capsys: pytest.CaptureFixture[str], root: Path, position: str,
                                                number: str) -> None:
    folder = root / f"{position}-{HUGE.index(number)}"
    _write(folder, {**GOOD, position: number})
    for command in ("check", "test"):
        code = main([command, str(folder)])
        out = capsys.readouterr().out
        assert code in (0, 1), out[-2000:]
        assert "E900" not in out and "Traceback" not in out, out[-2000:]
        if command == "check":  # a diagnostic shows a number cut (a failed expectation shows it whole)
            assert max(map(len, out.splitlines()), default=0) < 1_000, out[-2000:]


def test_the_terminal_menu_takes_any_typed_number(tmp_path: Path) -> None:
    import random

    from boardrules.game import Game
    from boardrules.tools.play import Session

    game = Game.new(Path(__file__).parent / "packs" / "relay", 2, seed=1, options={"prize": 4})
    typed = iter(["9" * 5_000, "\u00b2", "0", "-1", "99", f"s {tmp_path / 'a-file' / 'under'}", "q"])
    (tmp_path / "a-file").write_text("x")
    shown: list[str] = []
    assert Session(game, {}, random.Random(1), lambda _: next(typed), shown.append).run() == 0
    assert sum(1 for line in shown if line.startswith("? ")) == 5  # each number refused with the help line
    assert any(line.startswith(f"cannot save to {tmp_path / 'a-file' / 'under'}: Not a directory") for line in shown)


@pytest.mark.parametrize(("players", "seed", "words"), [
    (10**5000, 1, "this game is for 2 to 4 players, not a number of 16610 bits"),
    ("2", 1, "the player count is a whole number, got a str"),
    (2.0, 1, "the player count is a whole number, got a float"),
    (2, 1.5, "the seed is a whole number, got a float"),
    (2, "x", "the seed is a whole number, got a str"),
], ids=["huge", "str", "float", "float-seed", "str-seed"])
def test_the_api_refuses_a_player_count_or_seed_that_is_not_a_whole_number(players: object, seed: object,
                                                                           words: str) -> None:
    from boardrules.diagnostics import BoardrulesError
    from boardrules.game import Game

    with pytest.raises(BoardrulesError) as err:
        Game.new(Path(__file__).parent / "packs" / "relay", players, seed, options={"prize": 4})  # type: ignore[arg-type]
    assert err.value.diagnostic.code == "E509" and err.value.diagnostic.message == words


def test_a_huge_seed_is_a_seed() -> None:
    from boardrules.game import Game

    game = Game.new(Path(__file__).parent / "packs" / "relay", 2, 10**5000, options={"prize": 4})
    assert game.pending() is not None


def test_a_huge_option_id_is_refused_with_a_short_message() -> None:
    from boardrules.diagnostics import BoardrulesError
    from boardrules.game import Game

    game = Game.new(Path(__file__).parent / "packs" / "relay", 2, 1, options={"prize": 4}, chance="auto")
    for value, shown in [(10**5000, "~10^5000"), ((10**5000,), "[~10^5000]")]:
        with pytest.raises(BoardrulesError) as err:
            game.apply(value)
        assert err.value.diagnostic.code == "E505"
        assert err.value.diagnostic.message.startswith(f"{shown} is not an option of")
