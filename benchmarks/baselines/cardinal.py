"""Lisboa's Meet the Cardinal and Church scoring (rules/lisboa/state_actions.yaml), by hand.

    meet_the_cardinal(way), allowed if count(me.clergy) < 4:
      take_state_action(cardinal_meeting, king, way); choose steps from [1, 2]
      advance cardinal by steps; require a tile next to him; choose one; move it to me.clergy, face up
      for each icon reached or passed: treasury -> treasury += 1;
                                       influence -> if the Cardinal stands: lay him down, defer church_scoring(me)
    end of turn: the deferred Church scoring (from the mover clockwise, each player with Clergy tiles may discard
      1 or more: wigs on their backs, Influence of their top cards; then the Cardinal stands), then the turn's
      State actions and visits are forgotten, per-turn limits reset, play passes on.

The answers come as a list in the order the engine asks them (a ScriptedDecider's list), so both sides take the
same answers; decisions with one option are taken without asking, as in the engine.
"""

from __future__ import annotations

from typing import Any

from boardrules.diagnostics import BoardrulesError
from boardrules.engine.values import Piece, Player, decode, encode
from boardrules.game import Game

from .bookkeeping import Answers, Book, book_of, known, number, prop
from .lisboa_state_action import check_way, keys_of, take_state_action_as_read, take_state_action_tuned

CLERGY_SPACES = 4
CHURCH_SPACES = 8
ICONS = {3: ("treasury_icon",), 6: ("influence_icon",), 8: ("treasury_icon",)}
STATE_ACTIONS = ("shipbuilding", "production", "cardinal_meeting")
NOBLES = ("king", "marquis")


# ------------------------------------------------------------------------------------------------ as read

def meet_the_cardinal_as_read(game: Game, player: str, way: str, answers: list[Any] = ()) -> None:
    book = book_of(game)
    st = book.state
    me = book.players[player]
    ans = Answers(answers)
    mark = book.begin()
    try:
        check_way(way)
        if not len(st.zones[f"{player}.clergy"].contents) < CLERGY_SPACES:
            raise BoardrulesError("E501", "Meet the Cardinal is not allowed now: needs count(me.clergy) < "
                                  "clergy_spaces")
        take_state_action_as_read(book, ans, me, "cardinal_meeting", "king", way)
        steps = ans.pick("choose steps", [1, 2])
        move_the_cardinal_as_read(game, book, ans, me, steps)
    except BaseException:
        st.rollback(mark)
        raise
    book.commit(mark, "act", player, "meet_the_cardinal", {"way": way}, ans.used, ans.used_chance)


def _slot(book: Book, zone: str, n: int) -> list[Piece]:
    st = book.state
    return [Piece(p) for p in st.zones[zone].contents if st.pieces[p].slot == n]


def move_the_cardinal_as_read(game: Game, book: Book, ans: Answers, me: Player, steps: int) -> None:
    st = book.state
    pos = st.markers["cardinal"].pos
    entered = []
    for _ in range(steps):
        pos = pos % CHURCH_SPACES + 1
        entered.append(pos)
    st.set_marker("cardinal", pos, entered)
    here = st.markers["cardinal"].pos
    adjacent = _slot(book, "church_tiles", here) + _slot(book, "church_tiles", here % CHURCH_SPACES + 1)
    if not len(adjacent) > 0:
        raise BoardrulesError("E501", "no Clergy tile next to the Cardinal")
    tile = ans.pick("choose tile", adjacent)
    for pid in st.group_of(tile.id):
        st.move_piece(pid, f"{me.id}.clergy", None)
    st.set_prop(tile.id, "face_up", True)
    for icon in [icon for space in st.markers["cardinal"].last for icon in ICONS.get(space, ())]:
        if icon == "treasury_icon":
            book.set_counter("treasury", "treasury", known(st.counters["treasury"]) + 1)
        elif icon == "influence_icon" and known(st.counters["cardinal_down"]) == 0:
            book.set_counter("cardinal_down", "cardinal_down", 1)
            st.set_deferred([*st.deferred, {"event": "church_scoring", "args": [encode(me)], "until": "turn_end",
                                             "me": me.id}])


def end_turn_as_read(game: Game, player: str, answers: list[Any] = ()) -> None:
    """`end turn` in free play: deferred Church scoring, the turn_end trigger, the turn passes."""
    book = book_of(game)
    st = book.state
    me = book.players[player]
    ans = Answers(answers)
    mark = st.mark()
    try:
        waiting = [d for d in st.deferred if d["until"] == "turn_end"]
        if waiting:
            st.set_deferred([d for d in st.deferred if d["until"] != "turn_end"])
            for d in waiting:
                if d["event"] != "church_scoring":
                    raise AssertionError(f"this baseline knows only Church scoring, not {d['event']}")
                church_scoring_as_read(game, book, ans, decode(d["args"][0]))
        for p in book.players:  # forget_the_turn
            for a in STATE_ACTIONS:
                book.set_counter(f"{p}.took[{a}]", "took", 0)
            for n in NOBLES:
                book.set_counter(f"{p}.visiting[{n}]", "visiting", 0)
        st.clear_usage("turn")
        st.set_var("turn", st.vars["turn"] + 1)
        st.set_var("turn_player", game.players[me.seat % len(book.players)])
    except BaseException:
        st.rollback(mark)
        raise
    book.commit(mark, "end_turn", player, None, {}, ans.used, ans.used_chance)


def church_scoring_as_read(game: Game, book: Book, ans: Answers, mover: Player) -> None:
    st = book.state
    players = game._m.players
    for p in players[mover.seat - 1:] + players[: mover.seat - 1]:
        if len(st.zones[f"{p.id}.clergy"].contents) > 0 and ans.yes_no("may: an optional step"):
            clergy = [Piece(t) for t in st.zones[f"{p.id}.clergy"].contents]
            tiles = ans.subset("choose tiles", clergy, tuple(range(1, len(clergy) + 1)))
            wigs = sum([number(prop(game, t.id, "wigs")) for t in tiles])
            book.set_counter(f"{p.id}.wigs", "wigs", known(st.counters[f"{p.id}.wigs"]) + wigs)
            for t in tiles:
                st.remove_piece(t.id)  # Clergy tiles are never linked, so there is nothing to unlink
            influence = sum([number(prop(game, c, "influence")) for c in st.zones[f"{p.id}.top"].contents])
            book.set_counter(f"{p.id}.influence", "influence", known(st.counters[f"{p.id}.influence"]) + influence)
    book.set_counter("cardinal_down", "cardinal_down", 0)


# ------------------------------------------------------------------------------------------------ tuned

def meet_the_cardinal_tuned(game: Game, player: str, way: str, answers: list[Any] = ()) -> None:
    book = book_of(game)
    st = book.state
    me = book.players[player]
    ans = Answers(answers)
    mark = book.begin()
    try:
        if way not in ("trade", "visit", "follow"):
            check_way(way)
        if len(st.zones[f"{player}.clergy"].contents) >= CLERGY_SPACES:
            raise BoardrulesError("E501", "Meet the Cardinal is not allowed now")
        take_state_action_tuned(book, ans, me, "cardinal_meeting", "king", way)
        steps = ans.pick("choose steps", [1, 2])
        marker = st.markers["cardinal"]
        pos = marker.pos
        entered = []
        for _ in range(steps):
            pos = pos % CHURCH_SPACES + 1
            entered.append(pos)
        st.set_marker("cardinal", pos, entered)
        after = pos % CHURCH_SPACES + 1
        pieces = st.pieces
        adjacent = [p for p in st.zones["church_tiles"].contents if pieces[p].slot == pos]
        adjacent += [p for p in st.zones["church_tiles"].contents if pieces[p].slot == after]
        if not adjacent:
            raise BoardrulesError("E501", "no Clergy tile next to the Cardinal")
        tid = adjacent[0] if len(adjacent) == 1 else ans.pick("choose tile", [Piece(p) for p in adjacent]).id
        if pieces[tid].group is None:
            st.move_piece(tid, f"{player}.clergy", None)
        else:
            for pid in st.group_of(tid):
                st.move_piece(pid, f"{player}.clergy", None)
        st.set_prop(tid, "face_up", True)
        counters = st.counters
        for space in entered:
            icons = ICONS.get(space)
            if icons is None:
                continue
            if icons[0] == "treasury_icon":
                book.set_counter("treasury", "treasury", known(counters["treasury"]) + 1)
            elif known(counters["cardinal_down"]) == 0:
                st.set_counter("cardinal_down", 1)  # 0 -> 1 is within the counter's 0..1
                st.set_deferred([*st.deferred, {"event": "church_scoring", "args": [encode(me)],
                                                 "until": "turn_end", "me": player}])
    except BaseException:
        st.rollback(mark)
        raise
    book.commit(mark, "act", player, "meet_the_cardinal", {"way": way}, ans.used, ans.used_chance)


def end_turn_tuned(game: Game, player: str, answers: list[Any] = ()) -> None:
    book = book_of(game)
    st = book.state
    me = book.players[player]
    ans = Answers(answers)
    mark = st.mark()
    try:
        deferred = st.deferred
        if deferred:
            waiting = [d for d in deferred if d["until"] == "turn_end"]
            if waiting:
                st.set_deferred([d for d in deferred if d["until"] != "turn_end"])
                for d in waiting:
                    if d["event"] != "church_scoring":
                        raise AssertionError(f"this baseline knows only Church scoring, not {d['event']}")
                    church_scoring_tuned(game, book, ans, d["me"])
        counters = st.counters
        set_counter = st.set_counter
        for p in book.players:  # forget_the_turn: writes of 0 are within every range; unchanged ones are skipped
            keys = keys_of(p)
            for key in (*keys.took.values(), *keys.visiting.values()):
                if counters[key] != 0:
                    set_counter(key, 0)
        st.clear_usage("turn")
        st.set_var("turn", st.vars["turn"] + 1)
        st.set_var("turn_player", game.players[me.seat % len(book.players)])
    except BaseException:
        st.rollback(mark)
        raise
    book.commit(mark, "end_turn", player, None, {}, ans.used, ans.used_chance)


def church_scoring_tuned(game: Game, book: Book, ans: Answers, mover: str) -> None:
    st = book.state
    zones, counters = st.zones, st.counters
    order = list(book.players)
    seat = order.index(mover)
    for pid in order[seat:] + order[:seat]:
        clergy = zones[f"{pid}.clergy"].contents
        if not clergy or not ans.yes_no("may: an optional step"):
            continue
        if len(clergy) == 1:
            tiles = list(clergy)
        else:
            tiles = [t.id for t in ans.subset("choose tiles", [Piece(t) for t in clergy],
                                              tuple(range(1, len(clergy) + 1)))]
        wigs = 0
        for t in tiles:
            wigs += number(prop(game, t, "wigs"))
        book.set_counter(f"{pid}.wigs", "wigs", known(counters[f"{pid}.wigs"]) + wigs)
        for t in tiles:
            st.remove_piece(t)
        influence = 0
        for c in zones[f"{pid}.top"].contents:
            influence += number(prop(game, c, "influence"))
        book.set_counter(f"{pid}.influence", "influence", known(counters[f"{pid}.influence"]) + influence)
    book.set_counter("cardinal_down", "cardinal_down", 0)
