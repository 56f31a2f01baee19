"""Saves as hostile input: every save that is not one, does not fit the rules, or does not replay is refused with
E512 and a plain message, before anything is replayed; a save never makes boardrules read outside its pack."""

from __future__ import annotations

import copy
import json
import os
import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from boardrules import saves
from boardrules.diagnostics import BoardrulesError
from boardrules.engine.rules import Rules
from boardrules.game import Game
from boardrules.language.pack import load_rules
from boardrules.tools import cli
from boardrules.tools.simulate import replay_failure

ROOT = Path(__file__).resolve().parent.parent
PACKS = {"village": ROOT / "rules" / "village", "lisboa": ROOT / "rules" / "lisboa"}
REQUIRED = ["format", "pack", "modules", "fingerprint", "options", "players", "seed", "flow", "chance", "log",
            "open", "state"]


@cache
def rules(name: str, **options: Any) -> Rules:
    return load_rules(PACKS[name], None, options or None)


@cache
def save(name: str) -> str:
    game = Game.new(rules(name), players=2, seed=3)
    rng = random.Random(1)
    for _ in range(12):
        pending = game.pending()
        if pending is None or game.is_terminal():
            break
        game.apply(rng.choice(pending.options).id)
    return game.serialize()


def refused(text: str | bytes, pack: Rules | str | Path | None = None) -> str:
    with pytest.raises(BoardrulesError) as err:
        Game.deserialize(text, pack)
    assert err.value.code == "E512", err.value.diagnostic
    return err.value.diagnostic.message


def edited(name: str, change: Any) -> str:
    data = json.loads(save(name))
    change(data)
    return json.dumps(data)


def test_the_schema_is_valid_and_real_saves_of_both_packs_meet_it() -> None:
    for kind in ("save", "failure"):
        schema = json.loads((ROOT / "grammar" / f"{kind}.schema.json").read_text())
        Draft202012Validator.check_schema(schema)
        assert schema["$id"] == f"https://boardrules.dev/schema/{kind}.schema.json"
    for name in PACKS:
        assert saves.parse(save(name))["players"] == 2
        back = Game.deserialize(save(name), rules(name))
        assert back.serialize() == save(name)


@pytest.mark.parametrize("name", list(PACKS))
@pytest.mark.parametrize("key", REQUIRED)
def test_a_save_missing_any_part_is_refused_by_name(name: str, key: str) -> None:
    message = refused(edited(name, lambda d: d.pop(key)), rules(name))
    assert message == ("not a saved game of this version (format boardrules-game/2)" if key == "format"
                       else f"not a saved game: '{key}' is missing")


@pytest.mark.parametrize(("change", "words"), [
    (lambda d: d.update(players="two"), '"two" at players is not integer'),
    (lambda d: d.update(seed=1.5), "1.5 at seed is not integer"),
    (lambda d: d.update(chance="sometimes"), "chance"),
    (lambda d: d.update(log={"kind": "setup"}), "at log is not array"),
    (lambda d: d["log"].append({"kind": "move"}), "'action' is missing at log/"),
    (lambda d: d["log"].append({"kind": "move", "action": "x", "sneaky": 1}), "unexpected key 'sneaky'"),
    (lambda d: d.update(modules=[]), "modules"),
    (lambda d: d.update(open=[1]), "open"),
    (lambda d: d.update(log=[{"kind": "end_round"}] * 100_001), "log has more than 100000 items"),
])
def test_a_save_with_a_wrong_typed_part_is_refused_in_plain_words(change: Any, words: str) -> None:
    assert words in refused(edited("lisboa", change), rules("lisboa"))


@pytest.mark.parametrize(("text", "words"), [
    ('{"seed": Infinity}', "Infinity is not a number a save holds"),
    ('{"seed": NaN}', "NaN is not a number a save holds"),
    ('{"seed": -Infinity}', "-Infinity is not a number"),
    ('{"seed": 1e400}', "too large a number"),
    ('{"seed": ' + "9" * 5000 + "}", "a number of 5000 digits"),
    ("[" * 100_000 + "]" * 100_000, "nested 100000 levels deep"),
    ('{"a": ' * 5000 + "1" + "}" * 5000, "nested 5000 levels deep"),
    ('"[[[[" ' * 3, "not a saved game"),  # brackets inside strings are not nesting
    ("{not json", "not a saved game"),
    ("[]", "not a saved game of this version"),
    ('{"format": "boardrules-game/1"}', "this one is 'boardrules-game/1'"),
    (b"\xff\xfe\x00binary", "not UTF-8 text"),
])
def test_text_that_is_not_a_save_is_refused_before_anything_is_replayed(text: str | bytes, words: str) -> None:
    assert words in refused(text, rules("lisboa"))


def test_play_load_of_a_broken_missing_or_binary_file_is_a_clear_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = {"missing.json": None, "binary.json": bytes(range(256)) * 4, "two.json": edited(
        "lisboa", lambda d: d.update(players="two")).encode(), "dir.json": "dir"}
    for file, content in cases.items():
        if content == "dir":
            (tmp_path / file).mkdir()
        elif content is not None:
            (tmp_path / file).write_bytes(content)  # type: ignore[arg-type]
        status = cli.main(["play", str(PACKS["lisboa"]), "--load", str(tmp_path / file)])
        out = capsys.readouterr().out
        assert status == 1 and "error E512" in out and "E900" not in out, (file, out)
    assert "No such file" in _play_output(tmp_path / "missing.json", capsys)


def _play_output(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    cli.main(["play", str(PACKS["lisboa"]), "--load", str(path)])
    return capsys.readouterr().out


# ---- the pack a save names ----------------------------------------------------------------------------------


@pytest.mark.parametrize("named", ["/", str(ROOT / "rules"), str(ROOT), "/nonexistent/pack", "", "a\0b"])
def test_a_save_never_makes_boardrules_search_outside_the_pack_it_names(
        named: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_search(*args: object, **kwargs: object) -> None:
        raise AssertionError("searched a directory tree")

    text = edited("lisboa", lambda d: d.update(pack=named))  # made first: loading the pack to save is no search
    monkeypatch.setattr(Path, "rglob", no_search)
    monkeypatch.setattr(os, "walk", no_search)
    assert "pass the pack" in (refused(text) + _hint(text))


def _hint(text: str) -> str:
    with pytest.raises(BoardrulesError) as err:
        Game.deserialize(text)
    return err.value.diagnostic.hint or ""


def test_a_failure_file_naming_the_root_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = json.loads(save("lisboa"))
    failure = {"format": "boardrules-failure/1", "kind": "error", "pack": "/", "modules": data["modules"],
               "options": {}, "players": 2, "seed": 3, "log": data["log"]}
    path = tmp_path / "failure.json"
    path.write_text(json.dumps(failure))
    monkeypatch.setattr(Path, "rglob", lambda *a, **k: (_ for _ in ()).throw(AssertionError("searched")))
    with pytest.raises(BoardrulesError) as err:
        replay_failure(path)
    assert err.value.code == "E512" and "not a pack directory" in err.value.diagnostic.message
    failure["pack"] = str(PACKS["lisboa"])
    path.write_text(json.dumps(failure))
    assert len(replay_failure(path).log) == len(data["log"])
    for broken in ({**failure, "players": "two"}, {**failure, "log": [{"kind": "move"}]}):
        path.write_text(json.dumps(broken))
        with pytest.raises(BoardrulesError) as err:
            replay_failure(path)
        assert err.value.code == "E512"


def test_the_pack_a_save_names_is_read_shallowly_and_still_loads() -> None:
    back = Game.deserialize(save("lisboa"))  # no pack given: the save's own directory
    assert back.state.dumps() == Game.deserialize(save("lisboa"), rules("lisboa")).state.dumps()


# ---- the fingerprint ----------------------------------------------------------------------------------------


def test_the_fingerprint_covers_rules_options_players_chance_and_flow() -> None:
    fp = json.loads(save("village"))["fingerprint"]
    assert set(fp) == {"modules", "options", "players", "chance", "flow"}
    assert fp["players"] == 2 and fp["chance"] == "step" and fp["flow"] is True and fp["options"] == {}
    assert sorted(fp["modules"]) == sorted(rules("village").modules)


def test_a_save_without_its_fingerprint_is_refused() -> None:
    assert "'fingerprint' is missing" in refused(edited("village", lambda d: d.pop("fingerprint")), rules("village"))


def test_an_option_added_to_a_save_is_named() -> None:
    text = edited("village", lambda d: d["options"].update(max_rounds=4))
    message = refused(text)  # loaded from the save's own pack, with the save's options
    assert "the save was made with option max_rounds unset; this game sets it to 4" in message
    message = refused(save("village"), rules("village", max_rounds=4))  # rules linked with another option
    assert "the save was made with option max_rounds unset; this game sets it to 4" in message


def test_a_save_of_other_players_chance_or_flow_is_named() -> None:
    assert "made for 2 players; this game has 3" in refused(edited("lisboa", lambda d: d.update(players=3)),
                                                            rules("lisboa"))
    assert "made with chance 'step'; this game has 'auto'" in refused(
        edited("lisboa", lambda d: d.update(chance="auto")), rules("lisboa"))
    assert "made with the flow; this game is played without it" in refused(
        edited("lisboa", lambda d: d.update(flow=False)), rules("lisboa"))


def test_a_save_of_another_pack_or_changed_rules_is_e512(tmp_path: Path) -> None:
    assert "the save is of modules lisboa.base" in refused(save("lisboa"), rules("village"))
    message = refused(save("lisboa"), PACKS["village"])
    assert "lisboa" in message and "do not load" in message
    changed = tmp_path / "lisboa"
    changed.mkdir()
    for f in PACKS["lisboa"].glob("*.yaml"):
        (changed / f.name).write_bytes(f.read_bytes())
    first = changed / "base.yaml"
    first.write_text(first.read_text().replace("title:", "title: Edited", 1))
    text = edited("lisboa", lambda d: d.update(pack=str(changed)))
    assert "module lisboa.base changed" in refused(text)


# ---- any edit at all -----------------------------------------------------------------------------------------


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:6]):
            out += _paths(v, (*here, i))
    return out


_JUNK = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(allow_nan=False),
                  st.text(max_size=8), st.lists(st.integers(0, 3), max_size=3),
                  st.dictionaries(st.text(max_size=4), st.integers(0, 3), max_size=2),
                  st.sampled_from(["$cube_1", "p1", "p9", "move", "setup", "reseed", "step", "auto", "lisboa.base"]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from([*sorted(PACKS), "village with a plan"]), data=st.data())
def test_any_edit_of_a_real_save_is_loaded_or_refused_with_a_code(name: str, data: st.DataObject) -> None:
    original = json.loads(planned_save() if name == "village with a plan" else save(name))
    name = name.split()[0]
    doc = copy.deepcopy(original)
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        path = data.draw(st.sampled_from(paths))
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        action = data.draw(st.sampled_from(["delete", "replace", "wrap"]))
        if action == "delete":
            del parent[path[-1]]
        elif action == "replace":
            parent[path[-1]] = data.draw(_JUNK)
        else:
            parent[path[-1]] = [parent[path[-1]]]
    try:
        game = Game.deserialize(json.dumps(doc), rules(name))
    except BoardrulesError as err:
        assert err.code == "E512", err.diagnostic
        assert "Traceback" not in err.diagnostic.message
    else:
        assert game.state.to_json() == doc["state"]


def test_the_schema_command_prints_the_save_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["schema", "save"]) == 0
    assert json.loads(capsys.readouterr().out)["properties"]["format"] == {
        "const": saves.SAVE_FORMAT, "description": "the version of this format"}


_ENTRY_VALUES = st.one_of(_JUNK, st.sampled_from(["setup", "move", "skip", "act", "end_turn", "end_round", "reseed",
                                                  "x" * 201, True, 0, [], {}]))


@settings(max_examples=400, deadline=None)
@given(entry=st.one_of(
    st.dictionaries(st.sampled_from(["kind", "player", "action", "params", "answers", "chance", "seed", "flow",
                                     "chance_mode", "end_turn", "other"]), _ENTRY_VALUES, max_size=6),
    _JUNK))
def test_the_fast_log_check_agrees_with_the_schema(entry: Any) -> None:
    assert saves._entry_ok(entry) == saves._validator("entry").is_valid(entry), entry


def test_a_bad_entry_deep_in_a_long_log_is_placed() -> None:
    data = json.loads(save("lisboa"))
    data["log"] = data["log"] * (20_000 // len(data["log"]) + 1)
    data["log"][15_000] = {"kind": "move", "player": "p1"}
    with pytest.raises(BoardrulesError) as err:
        saves.parse(json.dumps(data))
    assert err.value.diagnostic.message == "not a saved game: 'action' is missing at log/15000"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_edit_of_a_failure_file_is_replayed_or_refused_with_a_code(data: st.DataObject) -> None:
    import tempfile

    original = json.loads(save("lisboa"))
    doc: dict[str, Any] = {"format": "boardrules-failure/1", "kind": "error", "rule": "x", "where": None,
                           "message": "m", "pack": str(PACKS["lisboa"]), "modules": original["modules"],
                           "options": {}, "players": 2, "seed": 3, "bots": {}, "steps": 1, "pending": None,
                           "log": original["log"]}
    paths = [p for p in _paths(doc) if p]
    path = data.draw(st.sampled_from(paths))
    parent: Any = doc
    for step in path[:-1]:
        parent = parent[step]
    if data.draw(st.booleans()):
        del parent[path[-1]]
    else:
        parent[path[-1]] = data.draw(_JUNK)
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "failure.json"
        file.write_text(json.dumps(doc))
        try:
            replay_failure(file, rules("lisboa"))
        except BoardrulesError as err:
            assert err.code == "E512", err.diagnostic


@cache
def planned_save() -> str:
    """A Village save in the middle of a move whose later answers play_random drew and proved (its `plan`)."""
    game = Game(rules("village"), 3, seed=1, flow=True, chance="auto")
    game.setup()
    rng = random.Random(1)
    while game._plan() is None:
        game.play_random(rng)
    return game.serialize()


def test_a_save_keeps_the_plan_of_the_open_move_and_loads_it() -> None:
    data = json.loads(planned_save())
    assert data["open"] is not None and data["plan"]["answers"] and data["plan"]["drawn"] >= 0
    assert saves.parse(planned_save()) == data  # the schema allows it
    loaded = Game.deserialize(planned_save(), rules("village"))
    assert loaded._plan() == data["plan"] and loaded.serialize() == planned_save()


@pytest.mark.parametrize(("change", "words"), [
    (lambda d: d["plan"]["answers"].__setitem__(0, "no such answer"), "does not fit the open activity"),
    (lambda d: d["plan"]["answers"].extend(["one", "too many"]), "does not fit the open activity"),
    (lambda d: d["plan"].__setitem__("drawn", 10**6), "the saved plan is drawn from answer"),
    (lambda d: d.__setitem__("open", None), "the save has a plan but no open activity"),
    (lambda d: d["plan"].__setitem__("answers", []), "plan/answers"),
    (lambda d: d["plan"].__setitem__("drawn", -1), "plan/drawn"),
    (lambda d: d["plan"].__setitem__("more", 1), "more"),
])
def test_a_plan_that_does_not_fit_is_refused(change: Any, words: str) -> None:
    data = json.loads(planned_save())
    change(data)
    assert words in refused(json.dumps(data), rules("village"))
