"""The JSON Schemas for modules and scenarios: well-formed, documented, closed, and matching the reference."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource

ROOT = Path(__file__).resolve().parent.parent
GRAMMAR = ROOT / "grammar"
DOCS = ROOT / "docs" / "language.md"

MODULE_SCHEMA = json.loads((GRAMMAR / "module.schema.json").read_text(encoding="utf-8"))
SCENARIO_SCHEMA = json.loads((GRAMMAR / "scenario.schema.json").read_text(encoding="utf-8"))
SCHEMAS = {"module": MODULE_SCHEMA, "scenario": SCENARIO_SCHEMA}
REGISTRY = Registry().with_resources(
    (s["$id"], Resource.from_contents(s)) for s in (MODULE_SCHEMA, SCENARIO_SCHEMA)
)


# ---- helpers ---------------------------------------------------------------------------------------------


class _Loader(yaml.SafeLoader):
    """YAML as the tests need it: only true/false are booleans (so `on:` and `yes` stay strings)."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def _json_keys(node: Any) -> Any:
    """Mapping keys as JSON has them: strings (YAML `{1: 2}` has an integer key)."""
    if isinstance(node, dict):
        return {str(k): _json_keys(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_json_keys(v) for v in node]
    return node


def load(text: str) -> Any:
    return _json_keys(yaml.load(text, Loader=_Loader))  # a SafeLoader subclass: safe


def validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(SCHEMAS[kind], registry=REGISTRY)


def errors(kind: str, doc: Any) -> list:
    return list(validator(kind).iter_errors(doc))


def walk(node: Any, pointer: str = "") -> Iterator[tuple[str, dict]]:
    """Every subschema with its JSON pointer."""
    if isinstance(node, dict):
        yield pointer, node
        for key, value in node.items():
            if key in ("properties", "patternProperties", "$defs"):
                for name, sub in value.items():
                    yield from walk(sub, f"{pointer}/{key}/{_escape(name)}")
            elif key in ("allOf", "anyOf", "oneOf", "prefixItems") and isinstance(value, list):
                for i, sub in enumerate(value):
                    yield from walk(sub, f"{pointer}/{key}/{i}")
            elif key in (
                "items",
                "additionalProperties",
                "unevaluatedProperties",
                "propertyNames",
                "if",
                "then",
                "else",
                "not",
                "contains",
            ) and isinstance(value, dict):
                yield from walk(value, f"{pointer}/{key}")


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _types(schema: dict) -> set[str]:
    t = schema.get("type", [])
    return {t} if isinstance(t, str) else set(t)


# ---- the schemas themselves ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["module", "scenario"])
def test_schema_is_valid_draft_2020_12(kind: str) -> None:
    schema = SCHEMAS[kind]
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"https://boardrules.dev/schema/{kind}.schema.json"
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("kind", ["module", "scenario"])
def test_every_property_has_a_description(kind: str) -> None:
    missing = [
        f"{pointer}/properties/{name}"
        for pointer, schema in walk(SCHEMAS[kind])
        for name, sub in schema.get("properties", {}).items()
        if not sub.get("description")
    ]
    defs = SCHEMAS[kind]["$defs"]
    missing += [f"/$defs/{name}" for name, sub in defs.items() if not sub.get("description")]
    assert not missing


@pytest.mark.parametrize("kind", ["module", "scenario"])
def test_every_object_is_closed(kind: str) -> None:
    open_objects = [
        pointer
        for pointer, schema in walk(SCHEMAS[kind])
        if "properties" in schema
        and schema.get("additionalProperties") is not False
        and schema.get("unevaluatedProperties") is not False
    ]
    assert not open_objects
    # An object schema without `properties` is a name -> thing mapping (typed additionalProperties) or a
    # dispatcher that sends each shape to a closed schema (allOf of if/then).
    loose = [
        pointer
        for pointer, schema in walk(SCHEMAS[kind])
        if _types(schema) & {"object"}
        and not ({"properties", "additionalProperties", "unevaluatedProperties", "allOf"} & schema.keys())
        and "else" not in schema
        and not pointer.endswith("/if")  # the condition of an if/then, not a shape
    ]
    assert not loose


@pytest.mark.parametrize("kind", ["module", "scenario"])
def test_examples_in_the_schema_are_valid(kind: str) -> None:
    schema = SCHEMAS[kind]
    bad = []
    for pointer, sub in walk(schema):
        if "examples" not in sub:
            continue
        check = Draft202012Validator({"$ref": f"{schema['$id']}#{pointer}"}, registry=REGISTRY)
        bad += [(pointer, ex) for ex in sub["examples"] if not check.is_valid(ex)]
    assert not bad


def test_schemas_use_no_game_specific_words() -> None:
    words = [
        "villager",
        "bread",
        "ship",
        "cardinal",
        "wedding",
        "clergy",
        "wig",
        "influence",
        "mass",
        "ceremony",
        "marriage",
        "marry",
    ]
    for path in (GRAMMAR / "module.schema.json", GRAMMAR / "scenario.schema.json"):
        text = path.read_text(encoding="utf-8").lower()
        assert not [w for w in words if re.search(rf"\b{w}", text)], path.name


# ---- modules ---------------------------------------------------------------------------------------------

GOOD_MODULE = """
module: harvest.market
title: Harvest market
requires: [harvest.base]
source: rules.txt
notes: [The ring is a plain counter.]
players: {min: 1, max: 4}
sets:
  colours: [red, green, blue]
values:
  start_workers: 3
  open_market: true
  first_colour: red
  goal: {by_players: {1: 10, 2: 12, 3: 14, 4: 16}}
  storage: {expr: "2 + me.coin", source: "rules.txt, Storage"}
  bonus_coins: {unknown: "not stated in the rules", source: "rules.txt, Bonus"}
  order: [red, green, 3]
counters:
  coin: {per: player, initial: 0, min: 0}
  token: {per: player, keys: colours, initial: 0}
  price: {per: game, keys: [red, green], initial: 5, min: 1, max: 9}
  supply: {per: game, initial: start_workers, max: goal}
  reserve: {per: game, initial: {unknown: "see the FAQ"}}
pieces:
  worker:
    properties:
      owner: {type: player}
      level: {type: int, default: 1}
      tired: {type: bool, default: false}
      colour: {type: symbol, default: red}
      partner: {type: piece}
      strength: {type: int, default: {unknown: "not printed"}}
  coin_chip: {}
zones:
  farm: {per: player}
  queue: {ordered: true, capacity: 5}
  field: {slots: 6, slot_capacity: 2}
  market: {}
  barn: {per: player, capacity: storage}
  shelf: {slots: start_workers, capacity: goal, note: one row}
tracks:
  ring:
    spaces: 8
    circular: true
    icons: {3: [bonus], 7: [scoring]}
    markers: {pawn: 1}
dice:
  d6: {sides: 6}
events:
  round_end: {params: {final: bool}}
  sold: {}
costs:
  harvest: "2 coin + 1 token[any]"
  rest: {cost: nothing, source: "rules.txt, Rest"}
procedures:
  tire:
    params: {w: piece}
    source: rules.txt, Tiredness
    do: ["w.tired = true"]
setup:
  workers:
    source: rules.txt, Setup
    do:
      - for: p in players
        do: ["create start_workers worker in p.farm with owner = p"]
actions:
  harvest:
    title: Harvest
    source: rules.txt, Harvest
    note: the d6 decides how far the pawn goes
    by: player
    params: {final: bool, picks: list}
    allowed_if: count(me.farm) > 0
    cost: harvest
    do:
      - choose w from me.farm
      - move w to field
      - roll d6 as r
      - advance pawn by r
      - for: icon in passed(pawn)
        do:
          - match: icon
            cases:
              bonus: ["me.coin += 1"]
              scoring: [score]
              3: ["me.coin += 3"]
            else: []
      - one_of:
          by: me
          options:
            sell: ["me.coin += 2", "emit sold()"]
            store: {if: count(queue) < 5, do: ["move w to queue"], source: "rules.txt, Storing"}
        source: rules.txt, Harvest 2
      - may:
          by: chance
          do: ["call tire(w)"]
        note: a tired worker rests next round
      - if: r == 6
        then: ["me.coin += 1"]
        else: ["me.coin -= 0"]
      - repeat: 2
        do: ["limit harvest to 1 per turn"]
      - if: true
        then: []
  tidy:
    by: game
    do: ["end round"]
triggers:
  tidy_up:
    on: round_end
    if: not final
    do: ["shuffle queue"]
  wake:
    on: turn_end
    do: ["me.coin += 1"]
scoring:
  coins:
    do: ["me.coin += count(me.farm)"]
replace:
  values.start_workers: 4
  values.goal: {by_players: {1: 8}}
  costs.plant: "1 coin or 1 token[red]"
  actions.plant: {do: ["me.coin += 1"]}
  procedures.rest: {do: []}
  setup.market: {do: ["create 2 worker in market"]}
  triggers.nap: {on: turn_end, do: ["me.coin += 1"]}
  scoring.tokens: {do: ["me.coin += 1"]}
"""

HARVEST_DO = ("actions", "harvest", "do")


def test_good_module_validates() -> None:
    doc = load(GOOD_MODULE)
    assert errors("module", doc) == []


def test_smallest_module_validates() -> None:
    assert errors("module", {"module": "tiny", "title": "Tiny"}) == []


def _set(path: tuple, value: Any) -> Callable[[dict], None]:
    def change(doc: dict) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return change


def _delete(path: tuple) -> Callable[[dict], None]:
    def change(doc: dict) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]

    return change


def _rename(path: tuple, new: str) -> Callable[[dict], None]:
    def change(doc: dict) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[new] = node.pop(path[-1])

    return change


def _harvest_block(doc: dict, head: str) -> tuple[int, dict]:
    """The index and mapping of the first block of the harvest action with the key `head`."""
    for i, item in enumerate(doc["actions"]["harvest"]["do"]):
        if isinstance(item, dict) and head in item:
            return i, item
    raise AssertionError(head)


def _block_change(head: str, change: Callable[[dict], None]) -> Callable[[dict], None]:
    return lambda doc: change(_harvest_block(doc, head)[1])


def _block_path(head: str, *rest: Any) -> Callable[[dict], tuple]:
    return lambda doc: (*HARVEST_DO, _harvest_block(doc, head)[0], *rest)


BAD_MODULES = {
    # name: (change, where the error is)
    "misspelt requires": (_rename(("requires",), "requirs"), ()),
    "missing title": (_delete(("title",)), ()),
    "bad module id": (_set(("module",), "Harvest.Market"), ("module",)),
    "bad requires id": (_set(("requires",), ["harvest base"]), ("requires", 0)),
    "players out of range": (_set(("players", "max"), 12), ("players", "max")),
    "unknown key in players": (_set(("players", "most"), 4), ("players",)),
    "die sides as a word": (_set(("dice", "d6", "sides"), "six"), ("dice", "d6", "sides")),
    "die with one side": (_set(("dice", "d6", "sides"), 1), ("dice", "d6", "sides")),
    "bad per": (_set(("counters", "coin", "per"), "team"), ("counters", "coin", "per")),
    "counter without per": (_delete(("counters", "coin", "per")), ("counters", "coin")),
    "counter min as a word": (_set(("counters", "coin", "min"), "zero"), ("counters", "coin", "min")),
    "unknown key in a counter": (_set(("counters", "coin", "start"), 1), ("counters", "coin")),
    "capitalised name": (_rename(("values", "start_workers"), "StartWorkers"), ("values",)),
    "value is a formula without expr": (
        _set(("values", "start_workers"), "2 + me.coin"),
        ("values", "start_workers"),
    ),
    "value object misspelt": (_set(("values", "storage"), {"exp": "2"}), ("values", "storage")),
    "by_players for 10 players": (
        _set(("values", "goal", "by_players", "10"), 3),
        ("values", "goal", "by_players"),
    ),
    "unknown value with extra key": (_set(("values", "bonus_coins", "guess"), 2), ("values", "bonus_coins")),
    "set with a non-symbol": (_set(("sets", "colours"), ["red", "Dark Blue"]), ("sets", "colours", 1)),
    "piece property without type": (
        _set(("pieces", "worker", "properties", "level"), {"default": 1}),
        ("pieces", "worker", "properties", "level"),
    ),
    "piece property of type list": (
        _set(("pieces", "worker", "properties", "level", "type"), "list"),
        ("pieces", "worker", "properties", "level", "type"),
    ),
    "zone ordered as a word": (_set(("zones", "queue", "ordered"), "yes"), ("zones", "queue", "ordered")),
    "zone per round": (_set(("zones", "farm", "per"), "round"), ("zones", "farm", "per")),
    "zone with no slots": (_set(("zones", "field", "slots"), 0), ("zones", "field", "slots")),
    "unknown key in a zone": (_set(("zones", "field", "size"), 3), ("zones", "field")),
    "track icon at a word": (
        _set(("tracks", "ring", "icons", "three"), ["bonus"]),
        ("tracks", "ring", "icons"),
    ),
    "track without spaces": (_delete(("tracks", "ring", "spaces")), ("tracks", "ring")),
    "marker at a word": (
        _set(("tracks", "ring", "markers", "pawn"), "start"),
        ("tracks", "ring", "markers", "pawn"),
    ),
    "param of type float": (
        _set(("procedures", "tire", "params", "w"), "float"),
        ("procedures", "tire", "params", "w"),
    ),
    "procedure without do": (_delete(("procedures", "tire", "do")), ("procedures", "tire")),
    "cost object misspelt": (_set(("costs", "rest"), {"price": "nothing"}), ("costs", "rest")),
    "unknown key in an action": (
        _rename(("actions", "harvest", "allowed_if"), "allowd_if"),
        ("actions", "harvest"),
    ),
    "action by team": (_set(("actions", "harvest", "by"), "team"), ("actions", "harvest", "by")),
    "action do is a string": (_set((*HARVEST_DO,), "me.coin += 1"), HARVEST_DO),
    "effect is a number": (_set((*HARVEST_DO, 0), 3), (*HARVEST_DO, 0)),
    "empty effect line": (_set((*HARVEST_DO, 0), ""), (*HARVEST_DO, 0)),
    "trigger without on": (_delete(("triggers", "tidy_up", "on")), ("triggers", "tidy_up")),
    "unknown key in a trigger": (_set(("triggers", "tidy_up", "when"), "x"), ("triggers", "tidy_up")),
    "unknown key in a setup step": (_set(("setup", "workers", "then"), []), ("setup", "workers")),
    "unknown key in a scoring rule": (_set(("scoring", "coins", "per"), "player"), ("scoring", "coins")),
    "bad replace key": (_set(("replace", "rules.harvest"), {"do": []}), ("replace",)),
    "replace of a zone": (_set(("replace", "zones.farm"), {"per": "player"}), ("replace",)),
    "replace with a bad action": (
        _set(("replace", "actions.plant"), {"doo": []}),
        ("replace", "actions.plant"),
    ),
    "replace value with an action": (
        _set(("replace", "values.start_workers"), {"do": []}),
        ("replace", "values.start_workers"),
    ),
}

BAD_BLOCKS = {
    # name: (block head, change to the block, path after the block's index)
    "misspelt then": ("if", _rename(("then",), "thn"), ()),
    "if without then": ("if", _delete(("then",)), ()),
    "else on a for": ("for", _set(("else",), []), ()),
    "for without in": ("for", _set(("for",), "icon"), ("for",)),
    "repeat without do": ("repeat", _delete(("do",)), ()),
    "repeat with extra key": ("repeat", _set(("times",), 2), ()),
    "match without cases": ("for", _delete(("do", 0, "cases")), ("do", 0)),
    "match case of two words": ("for", _set(("do", 0, "cases", "two words"), []), ("do", 0, "cases")),
    "match with extra key": ("for", _set(("do", 0, "default"), []), ("do", 0)),
    "one_of with extra key": ("one_of", _set(("one_of", "who"), "me"), ("one_of",)),
    "one_of without options": ("one_of", _delete(("one_of", "options")), ("one_of",)),
    "guarded option misspelt": (
        "one_of",
        _set(("one_of", "options", "store", "iff"), "true"),
        ("one_of", "options", "store"),
    ),
    "option is a string": (
        "one_of",
        _set(("one_of", "options", "sell"), "me.coin += 2"),
        ("one_of", "options", "sell"),
    ),
    "may with extra key": ("may", _set(("may", "optional"), True), ("may",)),
    "block with two heads": ("may", _set(("repeat",), 2), ()),
    "nested effect is a number": (
        "for",
        _set(("do", 0, "cases", "bonus", 0), 7),
        ("do", 0, "cases", "bonus", 0),
    ),
}


def _assert_fails_at(kind: str, doc: Any, path: tuple) -> None:
    found = errors(kind, doc)
    assert found, "expected the document to be rejected"
    assert tuple(best_match(found).absolute_path) == path, [e.message for e in found]
    assert all(tuple(e.absolute_path)[: len(path)] == path for e in found), [
        (tuple(e.absolute_path), e.message) for e in found
    ]


@pytest.mark.parametrize("name", sorted(BAD_MODULES))
def test_bad_module_fails_at_the_right_place(name: str) -> None:
    change, path = BAD_MODULES[name]
    doc = load(GOOD_MODULE)
    change(doc)
    _assert_fails_at("module", doc, path)


@pytest.mark.parametrize("name", sorted(BAD_BLOCKS))
def test_bad_structural_block_fails_at_the_right_place(name: str) -> None:
    head, change, rest = BAD_BLOCKS[name]
    doc = load(GOOD_MODULE)
    index, block = _harvest_block(doc, head)
    change(block)
    _assert_fails_at("module", doc, (*HARVEST_DO, index, *rest))


def test_block_without_a_known_head_fails() -> None:
    doc = load(GOOD_MODULE)
    doc["actions"]["harvest"]["do"].append({"then": ["me.coin += 1"]})
    _assert_fails_at("module", doc, (*HARVEST_DO, len(doc["actions"]["harvest"]["do"]) - 1))


def test_good_module_is_not_changed_by_validation() -> None:
    doc = load(GOOD_MODULE)
    before = copy.deepcopy(doc)
    errors("module", doc)
    assert doc == before


# ---- scenarios -------------------------------------------------------------------------------------------

GOOD_SCENARIO = """
# yaml-language-server: $schema=../../../grammar/scenario.schema.json
scenario: Harvest costs two coins and one token
source: 'rules.txt, "Harvest": "paying two coins and one token of any colour"'
note: checks the cost
modules: [harvest.market]
players: 3
seed: 7
setup: true
state:
  empty: [p1.farm, market]
  counters:                     # keys with [ ] cannot be flow-mapping keys in YAML
    p1.coin: 5
    p1.token[green]: 1
    supply: 2
  pieces:
    - {id: a, kind: worker, zone: p1.farm, props: {owner: p1, level: 2, tags: [red, 3]}}
    - {id: b, kind: worker, zone: field, slot: 3}
  markers: {pawn: 3}
  turn: {player: p1}
steps:
  - action: harvest
    player: p1
    params: {final: false}
    answers: [$a, 3, green, yes, [$a, $b], none]
    rolls: [4, $b, green]
    note: pays the cost
  - action: harvest
    player: p1
    answers: [$a, 2]
    expect_error: E501
  - end_turn: p1
  - end_round: true
expect:
  p1.coin: 3
  $a.zone: field
  count(p1.farm): 4
  p1.token[green]: 0
  first(p1.farm): null
  passed(pawn): [bonus, scoring]
  a.tired: true
"""


def test_good_scenario_validates() -> None:
    assert errors("scenario", load(GOOD_SCENARIO)) == []


def test_smallest_scenario_validates() -> None:
    assert errors("scenario", {"scenario": "s", "modules": ["tiny"], "players": 1}) == []


BAD_SCENARIOS = {
    "missing modules": (_delete(("modules",)), ()),
    "missing players": (_delete(("players",)), ()),
    "missing scenario": (_delete(("scenario",)), ()),
    "misspelt expect": (_rename(("expect",), "expects"), ()),
    "ten players": (_set(("players",), 10), ("players",)),
    "players as a word": (_set(("players",), "three"), ("players",)),
    "seed as a word": (_set(("seed",), "lucky"), ("seed",)),
    "setup as a word": (_set(("setup",), "always"), ("setup",)),
    "no modules": (_set(("modules",), []), ("modules",)),
    "bad module id": (_set(("modules",), ["Harvest"]), ("modules", 0)),
    "unknown key in state": (_set(("state", "zones"), {}), ("state",)),
    "counter as a word": (_set(("state", "counters", "p1.coin"), "five"), ("state", "counters", "p1.coin")),
    "piece without zone": (_delete(("state", "pieces", 0, "zone")), ("state", "pieces", 0)),
    "piece with extra key": (_set(("state", "pieces", 1, "owner"), "p1"), ("state", "pieces", 1)),
    "piece slot 0": (_set(("state", "pieces", 1, "slot"), 0), ("state", "pieces", 1, "slot")),
    "piece prop is a mapping": (
        _set(("state", "pieces", 0, "props", "level"), {"x": 1}),
        ("state", "pieces", 0, "props", "level"),
    ),
    "marker at a word": (_set(("state", "markers", "pawn"), "three"), ("state", "markers", "pawn")),
    "turn of a non-player": (_set(("state", "turn", "player"), "alice"), ("state", "turn", "player")),
    "unknown key in turn": (_set(("state", "turn", "round"), 2), ("state", "turn")),
    "step with unknown key": (_set(("steps", 0, "answer"), [1]), ("steps", 0)),
    "step without a head": (_set(("steps", 0), {"player": "p1"}), ("steps", 0)),
    "step with two heads": (_set(("steps", 2, "end_round"), True), ("steps", 2)),
    "bad error code": (_set(("steps", 1, "expect_error"), "501"), ("steps", 1, "expect_error")),
    "answers not a list": (_set(("steps", 0, "answers"), "$a"), ("steps", 0, "answers")),
    "param is a list": (_set(("steps", 0, "params", "final"), [1]), ("steps", 0, "params", "final")),
    "roll is a list": (_set(("steps", 0, "rolls", 0), [4]), ("steps", 0, "rolls", 0)),
    "end_turn of a non-player": (_set(("steps", 2, "end_turn"), "me"), ("steps", 2, "end_turn")),
    "end_round false": (_set(("steps", 3, "end_round"), False), ("steps", 3, "end_round")),
    "expect a mapping": (_set(("expect", "p1.coin"), {"at_least": 2}), ("expect", "p1.coin")),
}


@pytest.mark.parametrize("name", sorted(BAD_SCENARIOS))
def test_bad_scenario_fails_at_the_right_place(name: str) -> None:
    change, path = BAD_SCENARIOS[name]
    doc = load(GOOD_SCENARIO)
    change(doc)
    _assert_fails_at("scenario", doc, path)


# ---- the reference's own examples ------------------------------------------------------------------------

_SECTIONS = {
    "sets",
    "values",
    "counters",
    "pieces",
    "zones",
    "tracks",
    "dice",
    "events",
    "costs",
    "procedures",
    "setup",
    "actions",
    "triggers",
    "scoring",
    "substitutes",
    "extend",
    "wrap",
}


def _doc_blocks() -> list[Any]:
    """The reference's YAML examples, parsed; one that is not valid YAML is kept as its text."""
    text = DOCS.read_text(encoding="utf-8")
    blocks: list[Any] = []
    for block in re.findall(r"```yaml\n(.*?)```", text, flags=re.S):
        try:
            blocks.append(load(block))
        except yaml.YAMLError:
            blocks.append(block)
    return blocks


def test_reference_section_examples_validate() -> None:
    checked = 0
    for block in _doc_blocks():
        # Section snippets; the overview (`sets: ...`) and `replace` (`{ ...a whole action... }`) elide.
        if isinstance(block, dict) and block.keys() <= _SECTIONS:
            assert errors("module", {"module": "doc.example", "title": "Example", **block}) == [], block
            checked += 1
    assert checked >= 14


def test_reference_structural_blocks_validate() -> None:
    lists = [b for b in _doc_blocks() if isinstance(b, list)]
    assert lists
    effects = Draft202012Validator({"$ref": f"{MODULE_SCHEMA['$id']}#/$defs/effects"}, registry=REGISTRY)
    for block in lists:
        assert list(effects.iter_errors(block)) == []


def test_reference_scenario_validates() -> None:
    blocks = _doc_blocks()
    unparsed = [b for b in blocks if isinstance(b, str) and b.lstrip("# \n").find("scenario:") >= 0]
    if unparsed:
        # A flow-mapping key such as `p1.x[green]` is not valid YAML ([ and ] end a flow scalar); the
        # reference's scenario example has one. Block style (one key a line) is fine.
        pytest.xfail("the scenario example in docs/language.md is not valid YAML")
    scenarios = [b for b in blocks if isinstance(b, dict) and "scenario" in b]
    assert len(scenarios) == 1
    assert errors("scenario", scenarios[0]) == []


def test_reference_scenario_validates_once_its_flow_keys_are_blocks() -> None:
    text = DOCS.read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", text, flags=re.S) if "\nscenario:" in f"\n{b}"]

    def as_block(match: re.Match[str]) -> str:
        indent, key, body = match.group(1), match.group(2), match.group(3)
        items = [item.strip() for item in body.split(",") if item.strip()]
        return f"{indent}{key}:\n" + "".join(f"{indent}  {item}\n" for item in items)

    fixed = re.sub(r"^( *)(counters): \{(.*?)\}\n", as_block, block, flags=re.M)
    assert errors("scenario", load(fixed)) == []
