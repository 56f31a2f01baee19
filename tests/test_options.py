"""Options: one parser (the bounded YAML loader) and one checker (language/options.py), whichever way they come:
`--set`, an `--options` file, a scenario's `options:` or `Game.new(options=...)`."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import BoardrulesError, Diagnostics
from boardrules.engine.rules import Rules
from boardrules.language.pack import discover, link, load_modules, load_rules
from boardrules.tools.cli import main
from boardrules.tools.options_arg import read_options

PACK = """\
module: opts
title: options under test
players: {min: 1, max: 4}
sets:
  colours: [red, blue]
values:
  prize: {unknown: "open", type: int}
  colour: red
  row: [1, 2]
  flag: true
counters:
  tokens: {per: player, initial: 1, max: 9}
  gems: {per: game, keys: colours, initial: 0, min: 1}
pieces:
  card:
    properties:
      worth: {type: int, default: 0}
      shown: {type: bool}
      tint: {type: symbol}
      holder: {type: player}
      pair: {type: piece}
"""
NAMES = ["prize", "colour", "row", "flag", "tokens", "gems", "card.worth", "card.shown", "card.tint",
         "card.holder", "card.pair"]


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("opts")
    (root / "opts.yaml").write_text(PACK)
    return root


def _link(pack: Path, options: dict[str, Any]) -> tuple[Rules, list[str]]:
    diags = Diagnostics()
    found = discover([pack], diags)
    modules = load_modules(found[0].module_files, diags)
    rules = link(modules, ["opts"], diags, options)
    return rules, [f"{d.code} {d.message}" for d in diags.items if d.severity == "error"]


def _codes(errors: list[str]) -> list[str]:
    return [e.split()[0] for e in errors]


def _check(rules: Rules, name: str, value: Any) -> None:
    """An accepted option holds what its declaration allows, as plain data."""
    assert json.loads(json.dumps(value)) == value
    if name == "prize":
        assert type(value) is int and abs(value) <= 10**18
    elif name == "colour":
        assert value in rules.symbols
    elif name == "tokens":
        assert type(value) is int and 0 <= value <= 9
    elif name == "gems":
        given = value if isinstance(value, dict) else {"red": value, "blue": value}
        assert all(type(v) is int and 1 <= v <= 10**18 for v in given.values())
    elif name in ("card.holder", "card.pair"):
        assert value is None
    elif name == "card.worth":
        assert value is None or (type(value) is int and abs(value) <= 10**18)


scalars = st.one_of(
    st.integers(), st.integers(min_value=10**17, max_value=10**30), st.integers(min_value=-2, max_value=12),
    st.booleans(), st.none(), st.floats(allow_nan=False), st.sampled_from(["red", "blue", "p9", "c1", "x"]),
    st.text(st.characters(blacklist_categories=("Cs", "Cc", "Cn", "Co")), max_size=8),
)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.sampled_from(["red", "blue", "a"]), inner, max_size=3), max_leaves=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(NAMES), value=values)
@example(name="colour", value=float("inf")).via("found by hypothesis: JSON's Infinity is a YAML string")
@example(name="colour", value=1e308)
@example(name="prize", value=[float("-inf"), "é"])
def test_every_option_value_is_checked_the_same_way_from_python_and_from_yaml(pack: Path, name: str,
                                                                              value: Any) -> None:
    rules, errors = _link(pack, {name: (value, None)})
    assert "E900" not in _codes(errors)
    if not errors:
        _check(rules, name, rules.options[name])
    # The same value written as YAML text, given by --set and by an options file, is read by one loader and
    # checked by the same checker: the same verdict. (YAML text, not JSON: JSON's `Infinity` and `1e+308` are
    # strings to YAML, as they are to every rule file.)
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10**9)
    text = text.removesuffix("\n...\n").strip()
    diags = Diagnostics()
    given_by_set = read_options([f"{name}={text}"], [], diags)
    if diags.has_errors:  # refused by the loader already (a number too large)
        assert {d.code for d in diags.items} == set(_codes(errors)) == {"E104"}
        return
    _, set_errors = _link(pack, given_by_set)
    assert _codes(set_errors) == _codes(errors)


def test_game_new_refuses_what_no_yaml_could_say(pack: Path) -> None:
    deep: list[Any] = []
    for _ in range(3_000):
        deep = [deep]
    looped: list[Any] = []
    looped.append(looped)
    for value, code, words in [
        (10**29, "E104", "too large"), (-(10**5000), "E104", "too large"), (deep, "E104", "nested too deep"),
        (looped, "E104", "nested too deep"), (object(), "E402", "object is not a value"),
        ({1: 2}, "E402", "keys are names"), (list(range(20_000)), "E104", "too large"),
    ]:
        with pytest.raises(BoardrulesError) as err:
            load_rules(pack, ["opts"], {"prize": value})
        assert err.value.diagnostic.code == code and words in err.value.diagnostic.message
    with pytest.raises(BoardrulesError) as err:
        load_rules(pack, ["opts"], {3: 1})  # type: ignore[dict-item]
    assert err.value.diagnostic.code == "E408"


@pytest.mark.parametrize(("given", "code", "words"), [
    ("tokens=-5", "E402", "below the counter's minimum 0"),
    ("tokens=10", "E402", "above the counter's maximum 9"),
    ("gems={red: 0}", "E402", "'gems.red' is 0, below the counter's minimum 1"),
    ("prize=100000000000000000000000000000", "E104", "too large"),
    ("prize=" + "9" * 5_000, "E104", "too large (at most 10^18"),
    ("prize=0x" + "f" * 5_000, "E104", "too large"),
    ("prize=" + "[" * 3_000 + "]" * 3_000, "E104", "nesting is too deep"),
    ("card.holder=p9", "E402", "should be none (a player exists only once the game starts)"),
    ("card.pair={a: [1, 2]}", "E402", "should be none (a piece exists only once the game starts)"),
    ("card.worth=lots", "E402", "should be a whole number, got lots"),
])
def test_set_is_checked_like_an_options_file(capsys: pytest.CaptureFixture[str], pack: Path, tmp_path: Path,
                                             given: str, code: str, words: str) -> None:
    name, _, text = given.partition("=")
    file = tmp_path / "o.yaml"
    file.write_text(f"{name}: {text}\n")
    for argv in (["--set", given], ["--options", str(file)]):
        assert main(["check", str(pack), *argv]) == 1
        out = capsys.readouterr().out
        assert f"error {code}" in out and words in out, out
        assert "E900" not in out and max(len(line) for line in out.splitlines()) < 400


def test_a_billion_laughs_in_set_is_refused_quickly(capsys: pytest.CaptureFixture[str], pack: Path) -> None:
    bomb = "[" + ", ".join(f"&a{i} [" + ", ".join([f"*a{i - 1}" if i else "1"] * 10) + "]"
                           for i in range(10)) + "]"
    started = time.perf_counter()
    assert main(["check", str(pack), "--set", f"row={bomb}"]) == 1
    assert time.perf_counter() - started < 20  # unbounded, this would build 10^10 items
    out = capsys.readouterr().out
    assert "error E104: too many nodes" in out


def test_set_null_and_empty_give_none_and_a_good_value_passes(pack: Path) -> None:
    diags = Diagnostics()
    got = read_options(["card.tint=", "card.worth=null", "prize=7", "colour=blue", "gems={red: 2}"], [], diags)
    assert not diags.has_errors
    rules, errors = _link(pack, got)
    assert errors == []
    assert rules.options == {"card.tint": None, "card.worth": None, "prize": 7, "colour": "blue",
                             "gems": {"red": 2}}
    assert rules.counters["gems"].initial == {"red": 2, "blue": 0}
