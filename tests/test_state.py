"""The journaled state store: every primitive operation, its exact rollback, and the lossless JSON form."""

from __future__ import annotations

import json

import pytest

from boardrules.diagnostics import BoardrulesError, Span
from boardrules.engine.state import State, ZoneRec
from boardrules.engine.values import Piece, Player, Ref, Unknown, Zone, encode

MASK = (1 << 64) - 1


def make_state(seed: int = 5) -> State:
    st = State(["p1", "p2"], seed)
    st.add_zone("p1.farm", ZoneRec(owner="p1"))
    st.add_zone("meadow", ZoneRec())
    st.add_zone("queue", ZoneRec(ordered=True, capacity=3))
    st.add_zone("stock", ZoneRec(ordered=True))
    st.add_zone("podium", ZoneRec(slots=3))
    st.add_zone("pens", ZoneRec(slots=2, slot_capacity=2))
    st.add_marker("pawn", "ring", 1)
    st.init_counter("p1.coins", 3)
    st.init_counter("p2.coins", 3)
    st.init_counter("price[wheat]", 2)
    return st


def filled_state() -> State:
    """A state with pieces a, b, c in p1.farm and q1, q2 in the queue."""
    st = make_state()
    for pid in ("a", "b", "c"):
        st.create_piece(pid, "worker", "p1.farm", None, {"age": 1})
    st.create_piece("q1", "crate", "queue", None, {})
    st.create_piece("q2", "crate", "queue", None, {})
    st.journal.clear()
    return st


def same(a: object, b: object) -> bool:
    """Equality through the JSON encoding (an Unknown refuses to be compared with ==)."""
    return type(a) is type(b) and encode(a) == encode(b)


def reference_rng(seed: int, n: int, count: int) -> list[int]:
    """xorshift64*, written independently of the store, to check its numbers."""
    x = (seed * 0x9E3779B97F4A7C15 + 1) & MASK
    out = []
    for _ in range(count):
        x ^= x >> 12
        x ^= (x << 25) & MASK
        x ^= x >> 27
        out.append((((x * 0x2545F4914F6CDD1D) & MASK) >> 11) % n)
    return out


# ---- the empty store ---------------------------------------------------------------------------------------


def test_new_state_vars_and_tables() -> None:
    st = State(["p1", "p2", "p3"], 5)
    assert st.players == ["p1", "p2", "p3"]
    assert st.vars["turn_player"] is None
    assert st.vars["turn"] == 1
    assert st.vars["rng"] == (5 * 0x9E3779B97F4A7C15 + 1) & MASK
    assert st.usage == {"action": {}, "turn": {}, "round": {}, "game": {}}
    assert (st.counters, st.zones, st.pieces, st.markers, st.deferred, st.id_counters, st.journal) == (
        {}, {}, {}, {}, [], {}, [])
    assert State(["p1"], 0).vars["rng"] == 1


def test_declarations_are_not_journaled() -> None:
    st = make_state()
    assert st.journal == []
    assert st.mark() == 0
    assert st.counters == {"p1.coins": 3, "p2.coins": 3, "price[wheat]": 2}
    assert st.markers["pawn"].track == "ring" and st.markers["pawn"].pos == 1 and st.markers["pawn"].last == []


# ---- counters ------------------------------------------------------------------------------------------------


def test_set_counter_existing_and_rollback() -> None:
    st = make_state()
    before = st.dumps()
    st.set_counter("p1.coins", 7)
    assert st.counters["p1.coins"] == 7
    assert len(st.journal) == 1
    assert st.journal[0] == ("counter", "p1.coins", 3, None)  # the inverse, then the rule that caused it
    st.rollback(0)
    assert st.counters["p1.coins"] == 3
    assert st.journal == []
    assert st.dumps() == before


def test_set_counter_new_key_rollback_removes_it() -> None:
    st = make_state()
    before = st.dumps()
    st.set_counter("p1.gems[red]", 2)
    st.set_counter("p1.gems[red]", 5)
    assert st.counters["p1.gems[red]"] == 5
    st.rollback(1)
    assert st.counters["p1.gems[red]"] == 2
    st.rollback(0)
    assert "p1.gems[red]" not in st.counters
    assert st.dumps() == before


def test_entries_record_the_cause() -> None:
    st = make_state()
    span = Span("rules/x.yaml", 4, 7)
    st.cause = span
    st.set_counter("p1.coins", 1)
    st.cause = None
    st.set_counter("p1.coins", 2)
    assert [e[-1] for e in st.journal] == [span, None]


def test_a_write_that_changes_nothing_leaves_no_entry() -> None:
    st = make_state()
    st.set_counter("p1.coins", st.counters["p1.coins"])
    st.set_var("turn", st.vars["turn"])
    assert st.journal == []
    st.set_counter("p1.coins", st.counters["p1.coins"] + 1)
    assert len(st.journal) == 1


# ---- properties and groups ---------------------------------------------------------------------------------


def test_set_prop_new_and_existing_and_rollback() -> None:
    st = filled_state()
    before = st.dumps()
    st.set_prop("a", "age", 4)
    st.set_prop("a", "owner", Player("p1", 1))
    assert st.pieces["a"].props == {"age": 4, "owner": Player("p1", 1)}
    st.rollback(1)
    assert st.pieces["a"].props == {"age": 4}
    st.rollback(0)
    assert st.pieces["a"].props == {"age": 1}
    assert st.dumps() == before


def test_set_group_and_group_of_and_rollback() -> None:
    st = filled_state()
    before = st.dumps()
    assert st.group_of("a") == ["a"]
    st.set_group("a", "g")
    st.set_group("c", "g")
    assert st.group_of("a") == ["a", "c"]
    assert st.group_of("c") == ["a", "c"]
    assert st.group_of("b") == ["b"]
    st.set_group("a", None)
    assert st.group_of("c") == ["c"]
    st.rollback(0)
    assert [st.pieces[p].group for p in "abc"] == [None, None, None]
    assert st.dumps() == before


# ---- create / remove -----------------------------------------------------------------------------------------


def test_create_piece_records_and_copies_props() -> None:
    st = make_state()
    props = {"owner": Player("p1", 1)}
    st.create_piece("w1", "worker", "p1.farm", None, props)
    props["owner"] = None  # the store keeps its own copy
    rec = st.pieces["w1"]
    assert (rec.kind, rec.zone, rec.slot, rec.group, rec.props) == ("worker", "p1.farm", None, None,
                                                                   {"owner": Player("p1", 1)})
    assert st.zones["p1.farm"].contents == ["w1"]
    assert st.journal[-1][:-1] == ("create", "w1", "p1.farm")


def test_create_in_slot_and_ordered_zones() -> None:
    st = make_state()
    st.create_piece("s", "statue", "podium", 2, {})
    assert st.pieces["s"].slot == 2
    assert st.position_in_zone("s") == 2
    st.create_piece("x", "crate", "stock", None, {})
    st.create_piece("y", "crate", "stock", None, {})
    st.create_piece("z", "crate", "stock", 1, {})  # position 1 is the top
    assert st.zones["stock"].contents == ["z", "x", "y"]
    assert [st.position_in_zone(p) for p in ("z", "x", "y")] == [1, 2, 3]
    assert st.pieces["z"].slot is None  # an ordered zone keeps positions in its list, not in slot
    st.create_piece("w", "crate", "stock", 99, {})  # past the end: appended
    assert st.zones["stock"].contents == ["z", "x", "y", "w"]
    st.create_piece("m", "crate", "meadow", 3, {})  # an unordered zone ignores a position
    assert st.pieces["m"].slot is None
    assert st.position_in_zone("m") is None


def test_create_rollback_restores_exact_json() -> None:
    st = make_state()
    st.create_piece("keep", "crate", "stock", None, {})
    before = st.dumps()
    mark = st.mark()
    st.create_piece("a", "crate", "stock", 1, {"worth": 2})
    st.create_piece("b", "statue", "podium", 3, {})
    st.rollback(mark)
    assert "a" not in st.pieces and "b" not in st.pieces
    assert st.zones["stock"].contents == ["keep"]
    assert st.zones["podium"].contents == []
    assert st.dumps() == before


@pytest.mark.parametrize(
    ("zone", "slot", "message"),
    [
        ("podium", None, "zone 'podium' has slots 1..3; got None"),
        ("podium", 0, "zone 'podium' has slots 1..3; got 0"),
        ("podium", 4, "zone 'podium' has slots 1..3; got 4"),
        ("podium", 1, "slot 1 of zone 'podium' is full"),
        ("queue", None, "zone 'queue' is full (3 pieces)"),
    ],
)
def test_create_without_room_is_e504_and_changes_nothing(zone: str, slot: int | None, message: str) -> None:
    st = make_state()
    st.create_piece("s1", "statue", "podium", 1, {})
    for pid in ("q1", "q2", "q3"):
        st.create_piece(pid, "crate", "queue", None, {})
    before, mark = st.dumps(), st.mark()
    with pytest.raises(BoardrulesError) as info:
        st.create_piece("new", "crate", zone, slot, {})
    assert info.value.code == "E504"
    assert info.value.diagnostic.message == message
    assert st.mark() == mark
    assert st.dumps() == before


def test_create_duplicate_id_is_e510() -> None:
    st = filled_state()
    before = st.dumps()
    with pytest.raises(BoardrulesError) as info:
        st.create_piece("a", "worker", "meadow", None, {})
    assert info.value.code == "E510"
    assert info.value.diagnostic.message == "a piece with id 'a' already exists"
    assert st.dumps() == before and st.journal == []


def test_slot_capacity_two_holds_two() -> None:
    st = make_state()
    st.create_piece("a", "w", "pens", 1, {})
    st.create_piece("b", "w", "pens", 1, {})
    with pytest.raises(BoardrulesError, match="slot 1 of zone 'pens' is full"):
        st.create_piece("c", "w", "pens", 1, {})
    st.create_piece("c", "w", "pens", 2, {})
    assert [(p, st.pieces[p].slot) for p in st.zones["pens"].contents] == [("a", 1), ("b", 1), ("c", 2)]


def test_remove_piece_and_rollback_restores_position() -> None:
    st = filled_state()
    st.set_prop("b", "age", 3)
    before = st.dumps()
    mark = st.mark()
    st.remove_piece("b")
    assert "b" not in st.pieces
    assert st.zones["p1.farm"].contents == ["a", "c"]
    assert st.journal[-1][:2] == ("remove", "b")
    st.remove_piece("q1")
    assert st.zones["queue"].contents == ["q2"]
    st.rollback(mark)
    assert st.zones["p1.farm"].contents == ["a", "b", "c"]
    assert st.zones["queue"].contents == ["q1", "q2"]
    rec = st.pieces["b"]
    assert (rec.kind, rec.zone, rec.slot, rec.props, rec.group) == ("worker", "p1.farm", None, {"age": 3}, None)
    assert st.dumps() == before


# ---- move ----------------------------------------------------------------------------------------------------


def test_move_between_unordered_zones_and_rollback() -> None:
    st = filled_state()
    before = st.dumps()
    st.move_piece("b", "meadow", None)
    assert st.zones["p1.farm"].contents == ["a", "c"]
    assert st.zones["meadow"].contents == ["b"]
    assert st.pieces["b"].zone == "meadow"
    assert st.journal[-1][:-1] == ("move", "b", "p1.farm", 1, None)
    st.rollback(0)
    assert st.zones["p1.farm"].contents == ["a", "b", "c"]
    assert st.zones["meadow"].contents == []
    assert st.dumps() == before


def test_move_into_ordered_zone_at_positions() -> None:
    st = filled_state()
    st.move_piece("a", "stock", None)
    st.move_piece("b", "stock", 1)  # top
    st.move_piece("c", "stock", 2)  # between
    assert st.zones["stock"].contents == ["b", "c", "a"]
    st.move_piece("q1", "stock", 0)  # before the top still means the top
    assert st.zones["stock"].contents == ["q1", "b", "c", "a"]
    st.move_piece("q2", "stock", 50)
    assert st.zones["stock"].contents == ["q1", "b", "c", "a", "q2"]
    assert [st.position_in_zone(p) for p in st.zones["stock"].contents] == [1, 2, 3, 4, 5]


def test_move_within_an_ordered_zone_and_rollback() -> None:
    st = filled_state()
    st.create_piece("q3", "crate", "queue", None, {})
    st.journal.clear()
    before = st.dumps()
    # the queue is full (capacity 3), but a piece already in it may change its place
    st.move_piece("q3", "queue", 1)
    assert st.zones["queue"].contents == ["q3", "q1", "q2"]
    st.move_piece("q3", "queue", None)
    assert st.zones["queue"].contents == ["q1", "q2", "q3"]
    st.move_piece("q1", "queue", 2)
    assert st.zones["queue"].contents == ["q2", "q1", "q3"]
    st.rollback(0)
    assert st.zones["queue"].contents == ["q1", "q2", "q3"]
    assert st.dumps() == before


def test_move_into_full_zone_is_e504_and_changes_nothing() -> None:
    st = filled_state()
    st.move_piece("a", "queue", None)
    before, mark = st.dumps(), st.mark()
    with pytest.raises(BoardrulesError) as info:
        st.move_piece("b", "queue", 1)
    assert info.value.code == "E504"
    assert info.value.diagnostic.message == "zone 'queue' is full (3 pieces)"
    assert st.dumps() == before and st.mark() == mark


def test_move_into_slots() -> None:
    st = filled_state()
    before = st.dumps()
    st.move_piece("a", "podium", 2)
    assert (st.pieces["a"].zone, st.pieces["a"].slot) == ("podium", 2)
    assert st.position_in_zone("a") == 2
    with pytest.raises(BoardrulesError, match="slot 2 of zone 'podium' is full"):
        st.move_piece("b", "podium", 2)
    with pytest.raises(BoardrulesError, match=r"zone 'podium' has slots 1\.\.3; got None"):
        st.move_piece("b", "podium", None)
    st.move_piece("a", "podium", 2)  # onto its own slot: no room needed
    st.move_piece("a", "podium", 3)
    assert st.pieces["a"].slot == 3
    st.move_piece("a", "meadow", 1)  # leaving a slot zone clears the slot
    assert st.pieces["a"].slot is None
    st.rollback(0)
    assert st.dumps() == before
    assert st.pieces["a"].slot is None and st.pieces["a"].zone == "p1.farm"


def test_move_undo_restores_old_slot() -> None:
    st = make_state()
    st.create_piece("s", "statue", "podium", 3, {})
    mark = st.mark()
    st.move_piece("s", "pens", 1)
    st.move_piece("s", "stock", None)
    st.rollback(mark)
    assert (st.pieces["s"].zone, st.pieces["s"].slot) == ("podium", 3)
    assert st.zones["pens"].contents == [] and st.zones["stock"].contents == []


# ---- markers, vars, usage, deferred --------------------------------------------------------------------------


def test_set_marker_and_rollback() -> None:
    st = make_state()
    before = st.dumps()
    st.set_marker("pawn", 4, [2, 3, 4])
    assert (st.markers["pawn"].pos, st.markers["pawn"].last) == (4, [2, 3, 4])
    st.set_marker("pawn", 6, [5, 6])
    st.rollback(1)
    assert (st.markers["pawn"].pos, st.markers["pawn"].last) == (4, [2, 3, 4])
    st.rollback(0)
    assert (st.markers["pawn"].pos, st.markers["pawn"].last) == (1, [])
    assert st.dumps() == before


def test_set_var_existing_and_rollback() -> None:
    st = make_state()
    before = st.dumps()
    st.set_var("turn", 2)
    st.set_var("turn_player", "p2")
    assert st.vars["turn"] == 2 and st.vars["turn_player"] == "p2"
    st.rollback(0)
    assert st.vars["turn"] == 1 and st.vars["turn_player"] is None
    assert st.dumps() == before


def test_set_var_new_name_rollback_removes_it() -> None:
    st = make_state()
    before = st.dumps()
    st.set_var("phase", "harvest")
    st.rollback(0)
    assert "phase" not in st.vars
    assert st.dumps() == before


def test_use_counts_and_rollback() -> None:
    st = make_state()
    before = st.dumps()
    assert st.use("turn", "hire") == 1
    assert st.use("turn", "hire") == 2
    assert st.use("game", "rest[$a]") == 1
    assert st.usage["turn"] == {"hire": 2}
    assert st.usage["game"] == {"rest[$a]": 1}
    st.rollback(1)
    assert st.usage["turn"] == {"hire": 1} and st.usage["game"] == {}
    st.rollback(0)
    assert st.usage["turn"] == {}
    assert st.dumps() == before


def test_clear_usage_and_rollback() -> None:
    st = make_state()
    st.use("round", "share")
    st.use("round", "share")
    st.use("turn", "x")
    before = st.dumps()
    mark = st.mark()
    st.clear_usage("action")  # already empty: nothing to journal
    assert st.mark() == mark
    st.clear_usage("round")
    assert st.usage["round"] == {} and st.usage["turn"] == {"x": 1}
    assert st.mark() == mark + 1
    assert st.use("round", "share") == 1
    st.rollback(mark)
    assert st.usage["round"] == {"share": 2}
    assert st.dumps() == before


def test_set_deferred_and_rollback() -> None:
    st = make_state()
    before = st.dumps()
    one = {"event": "payday", "args": [{"player": "p1", "seat": 1}], "until": "turn_end", "me": "p1"}
    st.set_deferred([one])
    st.set_deferred([one, {"event": "dividend", "args": [], "until": "market_day", "me": None}])
    assert [d["event"] for d in st.deferred] == ["payday", "dividend"]
    st.rollback(1)
    assert st.deferred == [one]
    st.rollback(0)
    assert st.deferred == []
    assert st.dumps() == before


# ---- ids and chance ------------------------------------------------------------------------------------------


def test_new_id_counts_and_skips_taken_ids() -> None:
    st = make_state()
    assert st.new_id("worker") == "worker_1"
    assert st.id_counters == {"worker": 1}
    st.create_piece("worker_2", "worker", "meadow", None, {})  # taken by an explicit id
    assert st.new_id("worker") == "worker_3"
    assert st.id_counters == {"worker": 3}
    assert st.new_id("crate") == "crate_1"


def test_new_id_rollback_for_a_known_kind() -> None:
    st = make_state()
    st.new_id("worker")
    before = st.dumps()
    mark = st.mark()
    assert st.new_id("worker") == "worker_2"
    st.rollback(mark)
    assert st.id_counters == {"worker": 1}
    assert st.new_id("worker") == "worker_2"
    st.rollback(mark)
    assert st.dumps() == before


def test_new_id_rollback_for_a_new_kind() -> None:
    st = make_state()
    before = st.dumps()
    st.new_id("worker")
    st.rollback(0)
    assert st.id_counters == {}
    assert st.dumps() == before


def test_random_below_matches_xorshift_reference() -> None:
    st = State(["p1"], 5)
    got = [st.random_below(100) for _ in range(8)]
    assert got == reference_rng(5, 100, 8)
    assert got[:5] == [58, 36, 17, 66, 47]
    assert len(st.journal) == 8 and all(e[:2] == ("var", "rng") for e in st.journal)


@pytest.mark.parametrize("n", [1, 2, 6, 7, 1000])
def test_random_below_stays_in_range(n: int) -> None:
    st = State(["p1"], 11)
    values = [st.random_below(n) for _ in range(200)]
    assert all(0 <= v < n for v in values)
    if n > 1:
        assert len(set(values)) > 1


def test_random_below_is_reproducible_and_rolls_back() -> None:
    a, b, c = State(["p1"], 42), State(["p1"], 42), State(["p1"], 43)
    seq_a = [a.random_below(1000) for _ in range(10)]
    assert seq_a == [b.random_below(1000) for _ in range(10)]
    assert seq_a != [c.random_below(1000) for _ in range(10)]
    mark = a.mark()
    later = [a.random_below(1000) for _ in range(3)]
    a.rollback(mark)
    assert [a.random_below(1000) for _ in range(3)] == later  # undo rewinds the generator too


# ---- many operations, one rollback ---------------------------------------------------------------------------


def test_rollback_of_a_mixed_sequence_restores_exact_json() -> None:
    st = filled_state()
    st.set_counter("p1.coins", 10)
    outer_json, outer = st.dumps(), st.mark()
    st.set_counter("p1.coins", 9)
    st.create_piece(st.new_id("crate"), "crate", "stock", 1, {"colour": "jade"})
    st.move_piece("a", "podium", 1)
    st.set_group("b", "g1")
    st.set_group("c", "g1")
    inner_json, inner = st.dumps(), st.mark()
    st.remove_piece("q1")
    st.set_prop("b", "partner", Piece("c"))
    st.set_marker("pawn", 3, [2, 3])
    st.set_var("turn", 5)
    st.use("turn", "hire")
    st.clear_usage("turn")
    st.set_deferred([{"event": "e", "args": [], "until": "turn_end", "me": None}])
    st.random_below(6)
    st.move_piece("b", "queue", 1)
    st.rollback(inner)
    assert st.dumps() == inner_json
    st.rollback(outer)
    assert st.dumps() == outer_json


# ---- JSON --------------------------------------------------------------------------------------------------


def rich_state() -> State:
    st = filled_state()
    st.set_counter("p1.coins", Unknown("prize_coins", "never said"))
    st.set_counter("p2.coins", 0)
    st.set_prop("a", "owner", Player("p1", 1))
    st.set_prop("a", "partner", Piece("b"))
    st.set_prop("a", "home", Zone("p1.farm"))
    st.set_prop("a", "crop", "wheat")
    st.set_prop("a", "tired", True)
    st.set_prop("a", "mood", None)
    st.set_prop("b", "friends", [Player("p2", 2), Piece("c"), [Zone("meadow"), 3]])
    st.set_prop("b", "track", Ref("track", "ring"))
    st.set_prop("c", "age", Unknown("c.age", "unclear"))
    st.set_group("a", "group_a")
    st.set_group("b", "group_a")
    st.move_piece("c", "podium", 2)
    st.set_marker("pawn", 3, [2, 3])
    st.set_var("turn_player", "p1")
    st.use("game", "rest[$a]")
    st.set_deferred([{"event": "payday", "args": [{"player": "p1", "seat": 1}], "until": "turn_end", "me": "p1"}])
    st.new_id("crate")
    st.random_below(10)
    return st


def test_json_round_trip_is_lossless() -> None:
    st = rich_state()
    text = st.dumps()
    back = State.loads(text)
    assert back.dumps() == text
    assert back.journal == []
    assert same(back.counters["p1.coins"], Unknown("prize_coins", "never said"))
    props = back.pieces["a"].props
    assert props == {"age": 1, "owner": Player("p1", 1), "partner": Piece("b"), "home": Zone("p1.farm"),
                     "crop": "wheat", "tired": True, "mood": None}
    assert type(props["owner"]) is Player and type(props["partner"]) is Piece and type(props["home"]) is Zone
    assert back.pieces["b"].props["friends"] == [Player("p2", 2), Piece("c"), [Zone("meadow"), 3]]
    assert back.pieces["b"].props["track"] == Ref("track", "ring")
    assert same(back.pieces["c"].props["age"], Unknown("c.age", "unclear"))
    assert (back.pieces["c"].zone, back.pieces["c"].slot) == ("podium", 2)
    assert back.group_of("a") == ["a", "b"]
    assert back.zones["queue"] == ZoneRec(True, None, 1, 3, None, ["q1", "q2"])
    assert back.zones["p1.farm"].owner == "p1"
    assert (back.markers["pawn"].pos, back.markers["pawn"].last) == (3, [2, 3])
    assert back.vars == st.vars
    assert back.pieces["a"].props["owner"].seat == 1 and back.pieces["b"].props["friends"][0].seat == 2
    assert back.usage == st.usage and back.deferred == st.deferred and back.id_counters == {"crate": 1}
    # the generator continues where it was
    assert [back.random_below(50) for _ in range(5)] == [st.random_below(50) for _ in range(5)]


def test_json_encoding_of_runtime_values() -> None:
    data = json.loads(rich_state().dumps())
    assert data["counters"]["p1.coins"] == {"unknown": "prize_coins", "note": "never said"}
    props = data["pieces"]["a"]["props"]
    assert props["owner"] == {"player": "p1", "seat": 1}
    assert props["partner"] == {"piece": "b"}
    assert props["home"] == {"zone": "p1.farm"}
    assert data["pieces"]["b"]["props"]["friends"] == {
        "list": [{"player": "p2", "seat": 2}, {"piece": "c"}, {"list": [{"zone": "meadow"}, 3]}]}
    assert data["pieces"]["b"]["props"]["track"] == {"ref": "track", "name": "ring"}
    assert data["zones"]["podium"] == {"ordered": False, "slots": 3, "slot_capacity": 1, "capacity": None,
                                       "owner": None, "contents": ["c"]}


def test_loaded_state_keeps_journaling() -> None:
    st = State.loads(rich_state().dumps())
    before = st.dumps()
    st.move_piece("a", "meadow", None)
    st.set_counter("p2.coins", 4)
    st.remove_piece("q2")
    st.rollback(0)
    assert st.dumps() == before


def test_json_round_trip_of_an_empty_state() -> None:
    st = State(["p1"], 3)
    assert State.loads(st.dumps()).dumps() == st.dumps()
    assert State.from_json(st.to_json()).to_json() == st.to_json()


def test_json_round_trip_keeps_creation_order() -> None:
    # dumps() sorts keys, so w_10 comes before w_2 in the text; creation order must survive anyway
    st = make_state()
    for _ in range(12):
        st.create_piece(st.new_id("w"), "w", "meadow", None, {})
    st.set_group("w_12", "g")
    st.set_group("w_2", "g")
    st.set_group("w_10", "g")
    back = State.loads(st.dumps())
    assert back.of_kind("w") == [f"w_{i}" for i in range(1, 13)]
    assert back.group_of("w_12") == ["w_2", "w_10", "w_12"]
    back.create_piece(back.new_id("w"), "w", "meadow", None, {})
    assert back.of_kind("w")[-1] == "w_13"


def test_rollback_of_remove_keeps_creation_order() -> None:
    st = filled_state()
    st.set_group("a", "g")
    st.set_group("c", "g")
    mark = st.mark()
    st.remove_piece("a")
    st.rollback(mark)
    assert st.of_kind("worker") == ["a", "b", "c"]
    assert st.group_of("c") == ["a", "c"]


# ---- exact saves -----------------------------------------------------------------------------------------------


def exact(st: State) -> str:
    return json.dumps(st.to_json())  # no sort_keys: the order of pieces must come back too


def test_rollback_of_removals_gives_a_byte_identical_save() -> None:
    st = filled_state()
    before = exact(st)
    mark = st.mark()
    st.remove_piece("a")
    st.remove_piece("q1")
    st.remove_piece("b")
    st.rollback(mark)
    assert list(st.to_json()["pieces"]) == ["a", "b", "c", "q1", "q2"]  # creation order, however restored
    assert sorted(st.pieces) == ["a", "b", "c", "q1", "q2"]
    assert exact(st) == before


def test_rollback_is_safe_when_a_write_never_happened() -> None:
    st = filled_state()
    before = exact(st)
    mark = st.mark()
    # Journal entries whose writes were interrupted: nothing was written, or the piece was only half placed.
    st._log("var", "groups", state_missing())
    st._log("counter", "p2.gems", state_missing())
    st._log("create", "ghost", "meadow")
    st._log("remove", "c", st.pieces["c"], 2)
    st.zones["p1.farm"].contents.remove("b")  # a move that took b out but never put it anywhere
    st._log("move", "b", "p1.farm", 1, None)
    st.rollback(mark)
    assert exact(st) == before


def test_numbers_that_cannot_be_saved_are_refused_where_they_are_made() -> None:
    st = filled_state()
    before = exact(st)
    for attempt in (lambda: st.set_counter("p1.coins", 10**5000), lambda: st.set_prop("a", "age", -(10**5000)),
                    lambda: st.set_var("x", 10**4001),
                    lambda: st.create_piece("z", "worker", "meadow", None, {"age": 10**4500})):
        with pytest.raises(BoardrulesError) as info:
            attempt()
        assert info.value.code == "E513"
    assert exact(st) == before
    json.loads(st.dumps())


def state_missing() -> object:
    from boardrules.engine import state as state_module

    return state_module._MISSING
