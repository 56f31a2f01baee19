"""Properties over random input: state JSON is lossless and rollback exact, failed actions change nothing, the
parser raises only ParseError, and load + validate + link report problems instead of raising."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import HARVEST
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import BoardrulesError, Diagnostics, Span
from boardrules.engine.decisions import ScriptedDecider
from boardrules.engine.rules import Rules
from boardrules.engine.state import State, ZoneRec
from boardrules.engine.values import Piece, Player, Ref, Unknown, Zone
from boardrules.game import Game
from boardrules.internal import INTERNAL
from boardrules.language.linker import Module
from boardrules.language.loader import load_yaml_text
from boardrules.language.pack import link
from boardrules.language.parser import START_SYMBOLS, ParseError, parse
from boardrules.language.validate import load_schema, validate

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---- (a) primitive state operations: JSON round trip and rollback ------------------------------------------

PIECE_IDS = ["a", "b", "c", "d", "e", "worker_1", "worker_2"]
ZONES = ["p1.farm", "meadow", "queue", "stock", "podium", "pens"]

runtime_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**12), 10**12),
        st.text(max_size=8),
        st.builds(Player, st.sampled_from(["p1", "p2"]), st.integers(1, 2)),
        st.builds(Piece, st.sampled_from(PIECE_IDS)),
        st.builds(Zone, st.sampled_from(ZONES)),
        st.builds(Unknown, st.text(max_size=6), st.text(max_size=10)),
        st.builds(Ref, st.sampled_from(["marker", "track", "die", "family"]), st.text(max_size=6)),
    ),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=6,
)

operations = st.one_of(
    st.tuples(st.just("counter"), st.sampled_from(["p1.coins", "p2.coins", "supply", "p1.gems[red]"]),
              runtime_values),
    st.tuples(st.just("prop"), st.sampled_from(PIECE_IDS), st.sampled_from(["age", "owner", "mark"]),
              runtime_values),
    st.tuples(st.just("create"), st.sampled_from([*PIECE_IDS, None]), st.sampled_from(["worker", "crate"]),
              st.sampled_from(ZONES), st.one_of(st.none(), st.integers(0, 4)),
              st.dictionaries(st.sampled_from(["age", "owner"]), runtime_values, max_size=2)),
    st.tuples(st.just("remove"), st.sampled_from(PIECE_IDS)),
    st.tuples(st.just("move"), st.sampled_from(PIECE_IDS), st.sampled_from(ZONES),
              st.one_of(st.none(), st.integers(0, 4))),
    st.tuples(st.just("group"), st.sampled_from(PIECE_IDS), st.sampled_from([None, "g1", "g2"])),
    st.tuples(st.just("marker"), st.integers(1, 8), st.lists(st.integers(1, 8), max_size=3)),
    st.tuples(st.just("var"), st.sampled_from(["turn", "turn_player", "phase"]), runtime_values),
    st.tuples(st.just("use"), st.sampled_from(["action", "turn", "round", "game"]), st.sampled_from(["x", "y[$a]"])),
    st.tuples(st.just("clear"), st.sampled_from(["action", "turn", "round", "game"])),
    st.tuples(st.just("deferred"), st.lists(st.sampled_from(["payday", "market"]), max_size=2)),
    st.tuples(st.just("random"), st.integers(1, 20)),
    st.tuples(st.just("mark")),
)


def fresh_state(seed: int) -> State:
    st_ = State(["p1", "p2"], seed)
    st_.add_zone("p1.farm", ZoneRec(owner="p1"))
    st_.add_zone("meadow", ZoneRec())
    st_.add_zone("queue", ZoneRec(ordered=True, capacity=2))
    st_.add_zone("stock", ZoneRec(ordered=True))
    st_.add_zone("podium", ZoneRec(slots=2))
    st_.add_zone("pens", ZoneRec(slots=2, slot_capacity=2))
    st_.add_marker("pawn", "ring", 1)
    st_.init_counter("p1.coins", 3)
    return st_


def apply(state: State, op: tuple) -> None:
    """Apply one operation; operations on missing pieces are skipped, refused ones must change nothing."""
    kind = op[0]
    if kind in ("prop", "remove", "move", "group") and op[1] not in state.pieces:
        return
    before = state.dumps()
    mark = state.mark()
    try:
        if kind == "counter":
            state.set_counter(op[1], op[2])
        elif kind == "prop":
            state.set_prop(op[1], op[2], op[3])
        elif kind == "create":
            pid = op[1] if op[1] is not None else state.new_id(op[2])
            state.create_piece(pid, op[2], op[3], op[4], op[5])
        elif kind == "remove":
            state.remove_piece(op[1])
        elif kind == "move":
            state.move_piece(op[1], op[2], op[3])
        elif kind == "group":
            state.set_group(op[1], op[2])
        elif kind == "marker":
            state.set_marker("pawn", op[1], op[2])
        elif kind == "var":
            state.set_var(op[1], op[2])
        elif kind == "use":
            state.use(op[1], op[2])
        elif kind == "clear":
            state.clear_usage(op[1])
        elif kind == "deferred":
            state.set_deferred([{"event": e, "args": [], "until": "turn_end", "me": "p1"} for e in op[1]])
        elif kind == "random":
            assert 0 <= state.random_below(op[1]) < op[1]
    except BoardrulesError as err:
        assert err.code in ("E504", "E510")
        if op[0] == "create" and op[1] is None:
            state.rollback(mark)  # the new id was taken before the refused create
        assert state.dumps() == before


@SETTINGS
@given(st.integers(0, 2**32), st.lists(operations, max_size=40))
def test_state_json_round_trip_is_lossless(seed: int, ops: list[tuple]) -> None:
    state = fresh_state(seed)
    for op in ops:
        apply(state, op)
    text = state.dumps()
    back = State.loads(text)
    assert back.dumps() == text
    assert State.from_json(json.loads(json.dumps(state.to_json()))).dumps() == text
    assert {k: back.of_kind(k) for k in ("worker", "crate")} == {k: state.of_kind(k) for k in ("worker", "crate")}
    assert [back.random_below(97) for _ in range(3)] == [state.random_below(97) for _ in range(3)]


@SETTINGS
@given(st.integers(0, 2**32), st.lists(operations, max_size=40))
def test_state_rollback_restores_every_mark(seed: int, ops: list[tuple]) -> None:
    state = fresh_state(seed)
    snapshots = [(state.mark(), state.dumps(), {k: state.of_kind(k) for k in ("worker", "crate")})]
    for op in ops:
        if op[0] == "mark":
            snapshots.append((state.mark(), state.dumps(), {k: state.of_kind(k) for k in ("worker", "crate")}))
        else:
            apply(state, op)
    assert state.groups == _groups_of(state)
    for mark, text, order in reversed(snapshots):
        state.rollback(mark)
        assert state.dumps() == text
        assert {k: state.of_kind(k) for k in ("worker", "crate")} == order
        assert state.groups == _groups_of(state)  # the index of linked pieces follows every undo
    assert state.journal == []


def _groups_of(state: State) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for pid, rec in state.pieces.items():
        if rec.group is not None:
            out.setdefault(rec.group, set()).add(pid)
    return out


# ---- (b) random actions on the harvest pack: a refused action changes nothing -------------------------------

ANSWERS = st.one_of(
    st.sampled_from([
        "$worker_1", "$worker_2", "$worker_4", "$worker_7", "$crate_1", "$crate_3", "$crate_8", "$statue", "$nope",
        "p1", "p2", "p3", "p9", "amber", "jade", "ruby", "wheat", "pink", "cash", "fame", "yes", "no", "none",
        "1 coins", "1 grain", "2 coins", "", "$",
    ]),
    st.none(),
    st.booleans(),
    st.integers(-2, 12),
    st.lists(st.sampled_from(["$worker_1", "$worker_2", "$worker_3", "amber", "jade", "ruby", "x"]), max_size=3),
    st.text(max_size=4),
)
ROLLS = st.one_of(st.integers(-1, 8), st.sampled_from(["amber", "$crate_1", "$worker_1", "cash", "yes"]))
PARAM_VALUES = st.one_of(st.integers(0, 4), st.integers(-2, 9), st.integers(1, 8),
                         st.sampled_from(["x", "p2", "$worker_1", "3", ""]), st.none(), st.booleans(),
                         st.lists(st.integers(0, 3), max_size=2))


@st.composite
def steps(draw: Any, rules: Rules) -> list[tuple]:
    names = sorted(rules.actions)
    out = []
    for _ in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from(["act"] * 8 + ["end_turn", "undo", "round"]))
        if kind == "act":
            name = draw(st.sampled_from([*names, "no_such_action"]))
            action = rules.actions.get(name)
            params: dict[str, Any] = {}
            if action is not None:
                params = {p: draw(PARAM_VALUES) for p, _ in action.params}
                if draw(st.integers(0, 19)) == 0:
                    params["extra"] = 1
            player = draw(st.sampled_from([None, "p1", "p2", "p3", "p5"]))
            if action is not None and draw(st.integers(0, 3)) > 0:
                player = None if action.by == "game" else "p1"
            answers = draw(st.lists(ANSWERS, max_size=4))
            rolls = draw(st.lists(ROLLS, max_size=3))
            out.append(("act", player, name, params, answers, rolls))
        elif kind == "end_turn":
            out.append(("end_turn", draw(st.sampled_from(["p1", "p2", "p7"])), draw(st.lists(ANSWERS, max_size=2))))
        else:
            out.append((kind,))
    return out


@pytest.fixture(scope="module")
def harvest(harvest_rules: Rules) -> Rules:
    return harvest_rules


@SETTINGS
@given(data=st.data(), players=st.integers(1, 4), seed=st.integers(0, 1000))
def test_refused_actions_leave_the_state_exactly_as_before(harvest: Rules, data: Any, players: int,
                                                           seed: int) -> None:
    game = Game(harvest, players, seed)
    game.setup()
    for step in data.draw(steps(harvest)):
        before = game.state.dumps()
        if step[0] == "act":
            _, player, name, params, answers, rolls = step
            try:
                game.act(player, name, params, ScriptedDecider(answers, rolls))
            except BoardrulesError as err:
                event(f"refused {err.code}")
                assert err.code.startswith("E5") or err.code == "E601", err.code
                assert game.state.dumps() == before, (name, err.code, err.diagnostic.message)
                continue
            event("taken")
            # a successful action undoes exactly, and replays to the same state with the same script
            after = game.state.dumps()
            assert game.undo() is True
            assert game.state.dumps() == before
            game.act(player, name, params, ScriptedDecider(answers, rolls))
            assert game.state.dumps() == after
        elif step[0] == "end_turn":
            try:
                game.end_turn(step[1], ScriptedDecider(step[2]))
            except BoardrulesError as err:
                assert err.code != INTERNAL, err.diagnostic
                assert game.state.dumps() == before
        elif step[0] == "round":
            game.end_round()
        else:
            undone = game.undo()
            assert undone or game.state.dumps() == before


@SETTINGS
@given(data=st.data(), seed=st.integers(0, 1000))
def test_saved_games_continue_identically(harvest: Rules, data: Any, seed: int) -> None:
    game = Game(harvest, 2, seed)
    game.setup()
    plan = data.draw(steps(harvest))
    cut = data.draw(st.integers(0, len(plan)))
    copy: Game | None = None
    for i, step in enumerate([*plan, ("noop",)]):
        if i == cut:
            copy = Game.from_json(harvest, json.loads(json.dumps(game.to_json(), sort_keys=True)))
        for g in (game, copy) if copy is not None else (game,):
            if step[0] == "act":
                _, player, name, params, answers, rolls = step
                try:
                    g.act(player, name, params, ScriptedDecider(answers, rolls))
                except BoardrulesError as err:
                    assert err.code != INTERNAL, err.diagnostic
            elif step[0] == "end_turn":
                try:
                    g.end_turn(step[1], ScriptedDecider(step[2]))
                except BoardrulesError as err:
                    assert err.code != INTERNAL, err.diagnostic
            elif step[0] == "round":
                g.end_round()
    assert copy is not None
    assert copy.state.dumps() == game.state.dumps()


# ---- (c) the parser raises only ParseError ---------------------------------------------------------------

VALID_LINES = [
    "let n = count(me.farm where it.age >= 2) + 1",
    "me.coins += 2 * price[wheat]",
    "price[t] = max(1, price[t] - amount)",
    "pay 1 gems[any] + (me.sheds + 1) coins or 2 grain",
    "move w to podium at first(free_slots(podium))",
    "create 2 crate in stock at 1 with colour = c, worth = 1 as made",
    "choose ws from me.farm where not it.tired count 1..2",
    "choose c from colours by chance optional",
    "limit rest[w] to 1 per game",
    "defer dividend(me) until market_day",
    'require w.age >= 3 and w.owner == me else "too young"',
    "emit harvested(n * sow_yield)",
    "for_head: p in clockwise(me)",
    "[s.hull for s in me.top if s.hull > 1] sorted by it desc",
    "x if $w1.zone == meadow else -y",
    "a not in 1..4 or b in [1, 2, 'x']",
    "1 grain or nothing",
    "end turn",
]
PIECES_OF_SYNTAX = [
    *"()[]{}.,:;=+-*/%<>!$'\"#_ \t\n",
    "..", "==", "!=", "<=", " if ", " else ", " for ", " in ", " not ", " and ", " or ", " where ", " sorted by ",
    " desc", " at ", " to ", " by ", " per ", " as ", " with ", " count ", "optional", "none", "true", "0", "99",
]


@st.composite
def mutated_lines(draw: Any) -> str:
    text = draw(st.sampled_from(VALID_LINES))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "cut"]))
        piece = draw(st.one_of(st.sampled_from(PIECES_OF_SYNTAX), st.text(max_size=2)))
        if op == "insert":
            text = text[:i] + piece + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + 1:]
        elif op == "replace":
            text = text[:i] + piece + text[i + 1:]
        else:
            text = text[:i]
    return text


def parses_or_parse_error(text: str, start: str) -> None:
    try:
        node = parse(text, start)
    except ParseError as err:
        line, col = err.pos
        assert line >= 1 and col >= 1
        assert err.message and str(err) == err.message
        return
    assert parse(text, start) is node


@SETTINGS
@given(st.text(max_size=60), st.sampled_from(START_SYMBOLS))
def test_parser_random_text_raises_only_parse_error(text: str, start: str) -> None:
    parses_or_parse_error(text, start)


@settings(max_examples=150, deadline=None)
@given(mutated_lines(), st.sampled_from(START_SYMBOLS))
def test_parser_mutated_lines_raise_only_parse_error(text: str, start: str) -> None:
    parses_or_parse_error(text, start)


@pytest.mark.parametrize("text", VALID_LINES)
def test_the_lines_that_get_mutated_are_valid(text: str) -> None:
    start = "for_head" if text.startswith("for_head: ") else "expr"
    text = text.removeprefix("for_head: ")
    for candidate in (start, "effect", "cost"):
        try:
            parse(text, candidate)
            return
        except ParseError:
            continue
    pytest.fail(f"{text!r} parses from no start symbol")


# ---- (d) load + validate + link never raise ------------------------------------------------------------------

SCHEMA = load_schema("module")
BASE_TEXT = (HARVEST / "base.yaml").read_text(encoding="utf-8")
PLUS_TEXT = (HARVEST / "plus.yaml").read_text(encoding="utf-8")
BASE_MUTABLE = BASE_TEXT


def load_validate_link(text: str, extra: dict[str, Module] | None = None) -> Diagnostics:
    diags = Diagnostics()
    doc = load_yaml_text(text, "pack/m.yaml", diags)
    validate(doc, SCHEMA, diags, "pack/m.yaml")
    modules = dict(extra or {})
    if isinstance(doc, dict) and isinstance(doc.get("module"), str):
        reqs = doc.get("requires", [])
        requires = [str(r) for r in reqs] if isinstance(reqs, list) else []
        modules[doc["module"]] = Module(doc["module"], "pack/m.yaml", doc, requires, Span("pack/m.yaml", 1, 1))
    link(modules, list(modules), diags)
    for d in diags.items:
        assert d.severity in ("error", "warning") and d.code[:1] in ("E", "W")
        assert d.code != INTERNAL, d
    return diags


def base_module() -> dict[str, Module]:
    diags = Diagnostics()
    doc = load_yaml_text(BASE_TEXT, "pack/base.yaml", diags)
    assert not diags.items
    return {"harvest.base": Module("harvest.base", "pack/base.yaml", doc, [], Span("pack/base.yaml", 1, 1))}


def test_unmutated_modules_link_cleanly() -> None:
    assert load_validate_link(BASE_TEXT).items == []
    assert load_validate_link(PLUS_TEXT, base_module()).items == []


@SETTINGS
@given(st.text(max_size=200))
def test_random_text_gives_diagnostics_only(text: str) -> None:
    load_validate_link(text)


@st.composite
def mutated_modules(draw: Any) -> tuple[str, bool]:
    plus = draw(st.booleans())
    text = PLUS_TEXT if plus else BASE_MUTABLE
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 5))):
        op = draw(st.sampled_from(["char", "char", "delete_line", "swap_lines", "dup_line", "indent"]))
        i = draw(st.integers(0, len(lines) - 1))
        if op == "char":
            line = lines[i]
            j = draw(st.integers(0, len(line)))
            chars = st.sampled_from(list(":-[]{},'\"#&*!|> 0123456789abcxyz_.$()"))
            piece = draw(st.one_of(chars, st.text(max_size=2)))
            lines[i] = line[:j] + piece + line[j + draw(st.integers(0, 2)):]
        elif op == "delete_line" and len(lines) > 1:
            del lines[i]
        elif op == "swap_lines":
            k = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[k] = lines[k], lines[i]
        elif op == "dup_line":
            lines.insert(i, lines[i])
        elif op == "indent":
            lines[i] = draw(st.sampled_from(["  ", "", "    "])) + lines[i].lstrip()
    return "\n".join(lines), plus


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_modules())
def test_mutated_modules_give_diagnostics_only(case: tuple[str, bool]) -> None:
    text, plus = case
    load_validate_link(text, base_module() if plus else None)


SECTIONS = ["sets", "values", "counters", "pieces", "zones", "tracks", "dice", "events", "costs", "procedures",
            "setup", "actions", "triggers", "scoring", "replace", "requires", "notes", "source"]
WORDS = ["player", "game", "int", "bool", "piece", "symbol", "do", "if", "then", "else", "for", "cost", "params",
         "keys", "initial", "min", "max", "per", "slots", "capacity", "ordered", "spaces", "circular", "icons",
         "markers", "sides", "on", "by", "by_players", "expr", "unknown", "options", "one_of", "may", "match",
         "cases", "repeat", "properties", "type", "default", "allowed_if", "title", "colours", "coins",
         "me.coins += 1", "1 coins", "2 coins or 1 grain", "p in players", "count(me.farm) > 0", "turn_end", "x",
         "values.v", "actions.a", "m", "nothing", "$w", "end turn", "score", "emit e()", "limit a to 1 per game"]
# Non-ASCII digits ('²') and slot_capacity are in: they once crashed link through int().
KEYS = st.one_of(st.sampled_from([*WORDS[:48], "slot_capacity", "players", "min", "²"]),
                 st.text(alphabet=string.ascii_lowercase + string.digits + "_.²", min_size=1, max_size=6))
YAML_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.sampled_from(WORDS),
              st.text(alphabet=string.printable, max_size=10)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=10,
)


@st.composite
def random_modules(draw: Any) -> str:
    doc: dict[str, Any] = {"module": "m", "title": "M"}
    for section in draw(st.lists(st.sampled_from(SECTIONS), max_size=4, unique=True)):
        if draw(st.booleans()):
            doc[section] = draw(st.dictionaries(KEYS, YAML_VALUES, max_size=3))
        else:
            doc[section] = draw(YAML_VALUES)
    return yaml.safe_dump(doc, allow_unicode=True)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_modules())
def test_randomly_shaped_modules_give_diagnostics_only(text: str) -> None:
    load_validate_link(text)


def test_harvest_pack_is_where_the_fixture_expects(tmp_path: Path) -> None:
    assert (HARVEST / "base.yaml").is_file() and (HARVEST / "plus.yaml").is_file()


# ---- (e) scenario files, however broken, give failures, never exceptions --------------------------------------

SCENARIO_TEXTS = sorted((HARVEST / "scenarios").glob("*.yaml"))


@st.composite
def mutated_scenario(draw: Any) -> str:
    text = SCENARIO_TEXTS[draw(st.integers(0, len(SCENARIO_TEXTS) - 1))].read_text(encoding="utf-8")
    lines = text.splitlines()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        choice = draw(st.integers(0, 3))
        if choice == 0:
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        elif choice == 1:
            lines[i] += draw(st.sampled_from([" x", ": 3", "[", "$zz", " -1", ", none", "]"]))
        elif choice == 2:
            extra = ["  - {action: nope}", "  p9.coins: 1", "expect: 3", "  - end_turn: p1"]
            lines.insert(i, draw(st.sampled_from(extra)))
        else:
            del lines[i]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def harvest_runner() -> Any:
    from boardrules.language.pack import load_modules
    from boardrules.tools.scenario import ScenarioRunner

    return ScenarioRunner(load_modules(sorted(HARVEST.glob("*.yaml")), Diagnostics()))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=mutated_scenario())
def test_broken_scenarios_fail_cleanly(harvest_runner: Any, tmp_path_factory: Any, text: str) -> None:
    path = tmp_path_factory.mktemp("scenario") / "s.yaml"
    path.write_text(text, encoding="utf-8")
    result = harvest_runner.run_file(path)  # must not raise
    assert all(isinstance(f, str) and f for f in result.failures)
    assert not result.internal, result.failures
