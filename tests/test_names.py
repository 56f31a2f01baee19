"""Every identifier position against every name the generated code or the interpreter might use for itself.

A rule may call its variables, counters, zones, parameters and events anything the schema allows. Names drawn
from Python's keywords and built-ins, dunder names, and every parameter name of boardrules' own functions (found
by introspection) go into each position; `check` must accept the pack or refuse it with a rule diagnostic, and a
pack it accepts must run as written. The bug this holds down: a `for` variable named `self` once reached a
`**kwargs` call inside the compiler (E900).
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import keyword
import pkgutil
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import boardrules
from boardrules.language.builtins import FUNCTIONS
from boardrules.tools.cli import main

_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")  # what the schema and the grammar allow


def _internal_names() -> set[str]:
    """Parameter names of every function and method in boardrules, and the names its generated code binds."""
    names: set[str] = set()
    for info in pkgutil.walk_packages(boardrules.__path__, "boardrules."):
        if info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra (ray, open_spiel) that is not installed
            continue
        names.update(vars(module))
        for obj in list(vars(module).values()):
            members = [obj, *vars(obj).values()] if inspect.isclass(obj) else [obj]
            for member in members:
                member = getattr(member, "__func__", member)
                if inspect.isfunction(member) or inspect.ismethod(member):
                    try:
                        names.update(inspect.signature(member).parameters)
                    except (TypeError, ValueError):
                        continue
    from boardrules.language import emitter

    names.update(emitter._BASE_NS)
    return names


def _grammar_words() -> set[str]:
    text = (Path(boardrules.__file__).parent.parent / "grammar" / "rules.lark").read_text()
    return set(re.findall(r'"([a-z_]+)"', text))


def _pool() -> list[str]:
    dunders = ["__class__", "__init__", "__dict__", "__builtins__", "__import__", "__name__", "__globals__"]
    pool = set(keyword.kwlist) | set(dir(builtins)) | set(dunders) | _internal_names()
    return sorted(n for n in pool if _NAME.match(n))


POOL = _pool()
# Names the rules language itself gives a meaning to: a pack may be refused for using them, never crash.
RESERVED = _grammar_words() | set(FUNCTIONS) | {
    "me", "players", "player_count", "chance", "turn_player", "turn_number", "round_number", "start_player",
    "game_over", "none", "true", "false", "it", "coins", "hand", "card", "d6", "a", "worth", "token",
    "id", "kind", "zone", "slot", "linked"}  # what every piece has built in

BASE = """\
module: names
title: names in every position
players: {min: 1, max: 2}
counters:
  coins: {per: player, initial: 3, output: true}
zones:
  hand: {per: player}
pieces:
  card:
    properties:
      worth: {type: int, default: 0}
dice:
  d6: {sides: 6}
"""
# Each position: extra module text (with X for the name) and the scenario's step; the action always ends with
# p1 holding 9 coins.
POSITIONS: dict[str, tuple[str, str]] = {
    "for variable": ("""
actions:
  a:
    title: A
    do:
      - for: X in 1..3
        do: ["me.coins += X"]
""", "{action: a, player: p1}"),
    "comprehension variable": ("""
actions:
  a:
    title: A
    do: ["me.coins += sum([X for X in 1..3 if X > 0])"]
""", "{action: a, player: p1}"),
    "let": ("""
actions:
  a:
    title: A
    do: ["let X = 6", "me.coins += X"]
""", "{action: a, player: p1}"),
    "choose": ("""
actions:
  a:
    title: A
    do: ["choose X from [5, 6]", "me.coins += X"]
""", "{action: a, player: p1, answers: [6]}"),
    "roll": ("""
actions:
  a:
    title: A
    do: ["roll d6 as X", "me.coins += X"]
""", "{action: a, player: p1, rolls: [6]}"),
    "create as": ("""
actions:
  a:
    title: A
    do: ["create card in me.hand with worth = 6 as X", "me.coins += X.worth"]
""", "{action: a, player: p1}"),
    "action parameter": ("""
actions:
  a:
    title: A
    params:
      X: {type: int, in: "5..6"}
    do: ["me.coins += X"]
""", "{action: a, player: p1, params: {X: 6}}"),
    "action name": ("""
actions:
  X:
    title: A
    do: ["me.coins += 6"]
""", "{action: X, player: p1}"),
    "procedure and its parameter": ("""
procedures:
  X:
    params: {X: int}
    do: ["me.coins += X"]
actions:
  a:
    title: A
    do: ["call X(6)"]
""", "{action: a, player: p1}"),
    "event and its parameter": ("""
events:
  X: {params: {X: int}}
triggers:
  t:
    "on": X
    do: ["me.coins += X"]
actions:
  a:
    title: A
    do: ["emit X(6)"]
""", "{action: a, player: p1}"),
    "value": ("""
values:
  X: 6
actions:
  a:
    title: A
    do: ["me.coins += X"]
""", "{action: a, player: p1}"),
    "counter": ("""
counters:
  X: {per: player, initial: 6}
actions:
  a:
    title: A
    do: ["me.coins += me.X"]
""", "{action: a, player: p1}"),
    "zone and piece property": ("""
zones:
  X: {per: player}
pieces:
  token:
    properties:
      X: {type: int, default: 6}
actions:
  a:
    title: A
    do: ["create token in me.X", "me.coins += sum([t.X for t in me.X])"]
""", "{action: a, player: p1}"),
    "piece kind": ("""
pieces:
  X:
    properties:
      worth: {type: int, default: 6}
actions:
  a:
    title: A
    do: ["create X in me.hand", "me.coins += sum([t.worth for t in me.hand])"]
""", "{action: a, player: p1}"),
    "set": ("""
sets:
  X: [one_sym]
actions:
  a:
    title: A
    do:
      - for: s in X
        do: ["me.coins += 6"]
""", "{action: a, player: p1}"),
    "die": ("""
dice:
  X: {sides: 6}
actions:
  a:
    title: A
    do: ["roll X as r", "me.coins += r"]
""", "{action: a, player: p1, rolls: [6]}"),
    "limit": ("""
actions:
  a:
    title: A
    do: ["limit X to 1 per turn", "me.coins += 6"]
""", "{action: a, player: p1}"),
    "draw": ("""
actions:
  a:
    title: A
    do: ["create card in me.hand with worth = 6", "draw X from me.hand", "me.coins += X.worth"]
""", "{action: a, player: p1, rolls: [\"$card_1\"]}"),
    "cost": ("""
costs:
  X: "1 coins"
actions:
  a:
    title: A
    cost: X
    do: ["me.coins += 7"]
""", "{action: a, player: p1}"),
}


@pytest.fixture(scope="module")
def packs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("names")


def _run(capsys: pytest.CaptureFixture[str], root: Path, position: str, name: str) -> tuple[int, str, int, str]:
    text, step = POSITIONS[position]
    folder = root / f"{list(POSITIONS).index(position)}_{name}"
    (folder / "scenarios").mkdir(parents=True, exist_ok=True)
    module = yaml.safe_load(BASE)
    for section, entries in yaml.safe_load(text).items():
        module.setdefault(section, {}).update(entries)
    # Merged before the name goes in: YAML would read a key `null` or `on` as something else than a name.
    (folder / "names.yaml").write_text(yaml.safe_dump(module, sort_keys=False).replace("X", name))
    (folder / "scenarios" / "s.yaml").write_text(
        f"scenario: s\nsource: s\nmodules: [names]\nplayers: 1\nsteps:\n  - {step.replace('X', name)}\n"
        f"expect:\n  p1.coins: 9\n")
    checked = main(["check", str(folder)])
    check_out = capsys.readouterr().out
    tested = main(["test", str(folder)])
    return checked, check_out, tested, capsys.readouterr().out


def test_a_property_cannot_take_the_name_of_a_built_in_attribute(capsys: pytest.CaptureFixture[str],
                                                                 packs: Path) -> None:
    for name in ("id", "kind", "zone", "slot", "linked"):
        checked, check_out, _, _ = _run(capsys, packs, "zone and piece property", name)
        assert checked == 1 and f"error E409: 'token' cannot have a property '{name}': every piece has a " \
            f"built-in '{name}'" in check_out, check_out


def test_the_pool_holds_the_names_that_once_broke_the_compiler() -> None:
    assert {"self", "from_zone", "extra", "class", "lambda", "__class__", "f", "g"} <= set(POOL)
    assert len(POOL) > 300


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(position=st.sampled_from(sorted(POSITIONS)), name=st.sampled_from(POOL))
def test_any_name_in_any_position_checks_and_runs(capsys: pytest.CaptureFixture[str], packs: Path,
                                                  position: str, name: str) -> None:
    checked, check_out, tested, test_out = _run(capsys, packs, position, name)
    assert "E900" not in check_out + test_out and "Traceback" not in check_out + test_out
    if name in RESERVED:
        assert checked in (0, 1) and tested in (0, 1)
        return
    assert checked == 0, check_out
    assert tested == 0 and "1 passed" in test_out, test_out


@pytest.mark.parametrize("position", sorted(POSITIONS))
@pytest.mark.parametrize("name", ["self", "from_zone", "extra", "lambda", "__class__", "f"])
def test_the_names_of_the_report(capsys: pytest.CaptureFixture[str], packs: Path, position: str,
                                 name: str) -> None:
    checked, check_out, tested, test_out = _run(capsys, packs, position, name)
    assert checked == 0, check_out
    assert tested == 0 and "1 passed" in test_out, test_out
