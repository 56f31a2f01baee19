"""Game.from_json takes a state store from a program: anything that is not what Game.to_json wrote for these rules
is refused with E512 (never a traceback), and nothing is made from it."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import BoardrulesError
from boardrules.engine.rules import Rules
from boardrules.game import Game


@pytest.fixture(scope="module")
def saved(harvest_rules: Rules) -> dict[str, Any]:
    game = Game(harvest_rules, 2, 5)
    game.setup()
    return game.to_json()


def _refused(rules: Rules, data: Any) -> str:
    with pytest.raises(BoardrulesError) as caught:
        Game.from_json(rules, data)
    assert caught.value.diagnostic.code == "E512"
    return caught.value.diagnostic.message


def test_round_trip_keeps_the_state(harvest_rules: Rules, saved: dict[str, Any]) -> None:
    game = Game.from_json(harvest_rules, copy.deepcopy(saved))
    assert json.dumps(game.to_json(), sort_keys=True) == json.dumps(saved, sort_keys=True)


@pytest.mark.parametrize("data", [None, [], "state", {"modules": None}, {"state": 3}, {"state": {}}])
def test_not_a_saved_state(harvest_rules: Rules, data: Any) -> None:
    assert _refused(harvest_rules, data).startswith("not a saved state")


def test_modules_of_another_shape(harvest_rules: Rules, saved: dict[str, Any]) -> None:
    assert "modules" in _refused(harvest_rules, {**saved, "modules": 7})


def test_a_missing_part_is_named(harvest_rules: Rules, saved: dict[str, Any]) -> None:
    state = {k: v for k, v in saved["state"].items() if k != "zones"}
    assert _refused(harvest_rules, {**saved, "state": state}) == "not a saved state: 'zones' is missing at state"


def test_a_piece_its_zone_does_not_list(harvest_rules: Rules, saved: dict[str, Any]) -> None:
    data = copy.deepcopy(saved)
    piece = next(iter(data["state"]["pieces"]))
    for zone in data["state"]["zones"].values():
        if piece in zone["contents"]:
            zone["contents"].remove(piece)
    assert f"piece {piece!r}" in _refused(harvest_rules, data).replace('"', "'")


def test_a_counter_these_rules_do_not_have(harvest_rules: Rules, saved: dict[str, Any]) -> None:
    data = copy.deepcopy(saved)
    data["state"]["counters"]["nonesuch"] = 1
    assert "counter 'nonesuch' is not in these rules" in _refused(harvest_rules, data)
    data = copy.deepcopy(saved)
    gone = sorted(data["state"]["counters"])[0]
    del data["state"]["counters"][gone]
    assert f"counter {gone!r} is missing" in _refused(harvest_rules, data)


def test_another_player_count(harvest_rules: Rules, saved: dict[str, Any]) -> None:
    data = copy.deepcopy(saved)
    data["state"]["players"].append("p3")
    assert "is missing" in _refused(harvest_rules, data)


def test_a_deferred_event_the_rules_do_not_know(harvest_rules: Rules, saved: dict[str, Any]) -> None:
    data = copy.deepcopy(saved)
    data["state"]["deferred"] = [{"event": "nonesuch", "args": [], "until": "nonesuch", "me": None}]
    assert "deferred event 'nonesuch'" in _refused(harvest_rules, data)


def test_deeply_nested_values_are_refused(harvest_rules: Rules, saved: dict[str, Any]) -> None:
    data = copy.deepcopy(saved)
    value: Any = 1
    for _ in range(5000):
        value = {"list": [value]}
    data["state"]["vars"]["deep"] = value
    assert "nested too deeply" in _refused(harvest_rules, data)


_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5), st.floats(allow_nan=False))
_json = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                           max_size=3), max_leaves=8)


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(data, dict):
        for k, v in data.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += _paths(v, (*prefix, i))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data(), _json)
def test_any_one_part_replaced_gives_a_state_or_e512(harvest_rules: Rules, saved: dict[str, Any], data: st.DataObject,
                                                      junk: Any) -> None:
    """Replace any one part of a saved state with arbitrary JSON: the state is restored (and can be played on) or
    refused with E512."""
    bad = copy.deepcopy(saved)
    path = data.draw(st.sampled_from([p for p in _paths(bad["state"]) if p]))
    holder = bad["state"]
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = junk
    try:
        game = Game.from_json(harvest_rules, bad)
    except BoardrulesError as exc:
        assert exc.diagnostic.code == "E512"
        return
    game.to_json()


@pytest.mark.parametrize("value", ["3", 2.0, True, None, 10 ** 5000, {"player": "p1", "seat": 1}],
                         ids=["text", "float", "bool", "null", "huge", "player"])
def test_a_counter_holds_a_whole_number_of_bounded_size(harvest_rules: Rules, saved: dict[str, Any],
                                                        value: Any) -> None:
    data = copy.deepcopy(saved)
    data["state"]["counters"]["p1.coins"] = value
    assert _refused(harvest_rules, data).startswith("not a saved state")


@pytest.mark.parametrize("value", [10 ** 5000, float("inf"), float("nan")], ids=["huge", "inf", "nan"])
def test_numbers_anywhere_are_bounded(harvest_rules: Rules, saved: dict[str, Any], value: Any) -> None:
    data = copy.deepcopy(saved)
    data["state"]["vars"]["odd"] = {"list": [1, value]}
    assert _refused(harvest_rules, data).startswith("not a saved state")


def test_data_that_holds_itself(harvest_rules: Rules, saved: dict[str, Any]) -> None:
    data = copy.deepcopy(saved)
    loop: list[Any] = []
    loop.append({"list": loop})
    data["state"]["vars"]["odd"] = {"list": loop}
    assert _refused(harvest_rules, data) == ("not a saved state: a list or object appears in it twice "
                                                "(it is not a tree of JSON data)")
