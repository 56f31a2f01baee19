"""Lisboa's Build a Ship (rules/lisboa/state_actions.yaml), by hand.

    build_ship(way), allowed if the shipyard is not empty:
      take_state_action(shipbuilding, marquis, way); new_ship = first(shipyard)
      one of (only those whose condition holds):
        empty_top_slot:       pay hull different goods; choose a free top slot; the ship goes there
        discard_a_card_first: choose a top card; it goes to the discards; pay hull different goods; the ship
                              takes its slot
        replace_a_ship:       choose a top ship; pay the difference in hull for an upgrade, else the full hull;
                              its cargo is loaded on the new ship; it leaves the game; the ship takes its slot
      treasury += 1; me.influence += the Influence of all my top cards

The answers come as a list in the order the engine asks them (see cardinal.py).
"""

from __future__ import annotations

from typing import Any

from boardrules.diagnostics import BoardrulesError
from boardrules.engine.values import Piece, Player
from boardrules.game import Game

from .bookkeeping import Answers, Book, book_of, known, number, prop, unlink
from .lisboa_state_action import (
    GOODS,
    check_way,
    have,
    keys_of,
    take_state_action_as_read,
    take_state_action_tuned,
)

TOP_SLOTS = 5


def _pay_different(book: Book, ans: Answers, me: Player, amount: Any) -> None:
    """`pay (amount) goods[different]`: `amount` different goods types, one of each."""
    amount = known(amount)
    if type(amount) is not int or amount < 0:
        raise BoardrulesError("E510", f"a cost amount must be a number >= 0, got {amount!r}")
    if sum(1 for k in GOODS if have(book, f"{me.id}.goods[{k}]") - 0 >= 1) < amount:
        raise BoardrulesError("E502", "cannot pay the hull in different goods")
    keys = [k for k in GOODS if have(book, f"{me.id}.goods[{k}]") - 1 >= 0]
    for k in ans.subset(f"pay {amount} different goods", keys, (amount,)):
        book.set_counter(f"{me.id}.goods[{k}]", "goods", have(book, f"{me.id}.goods[{k}]") - 1, "E502")


def _pay_different_tuned(book: Book, ans: Answers, me: Player, amount: Any) -> None:
    """The same payment in one pass over the player's goods, keys built once."""
    amount = known(amount)
    if type(amount) is not int or amount < 0:
        raise BoardrulesError("E510", f"a cost amount must be a number >= 0, got {amount!r}")
    st = book.state
    counters = st.counters
    held = []
    for k, key in keys_of(me.id).goods:
        v = counters.get(key, 0)
        if type(v) is not int:
            v = have(book, key)  # an unknown stops the game; anything else counts as 0
        if v >= 1:
            held.append(k)
    if len(held) < amount:
        raise BoardrulesError("E502", "cannot pay the hull in different goods")
    chosen = held if len(held) == amount else ans.subset(f"pay {amount} different goods", held, (amount,))
    for k in chosen:
        key = f"{me.id}.goods[{k}]"
        st.set_counter(key, counters[key] - 1)  # each was at least 1: the range check (min 0) holds


def _move(book: Book, pid: str, zone: str, slot: int | None) -> None:
    st = book.state
    for p in st.group_of(pid):
        st.move_piece(p, zone, slot)


def build_ship_as_read(game: Game, player: str, way: str, answers: list[Any] = ()) -> None:
    book = book_of(game)
    st = book.state
    me = book.players[player]
    ans = Answers(answers)
    mark = book.begin()
    try:
        check_way(way)
        if not len(st.zones["shipyard"].contents) > 0:
            raise BoardrulesError("E501", "Build a Ship is not allowed now: needs count(shipyard) > 0")
        take_state_action_as_read(book, ans, me, "shipbuilding", "marquis", way)
        new_ship = st.zones["shipyard"].contents[0]
        top = f"{player}.top"

        def free_slots() -> list[int]:
            taken = [st.pieces[p].slot for p in st.zones[top].contents]
            return [n for n in range(1, TOP_SLOTS + 1) if taken.count(n) < 1]

        def top_of_kind(kind: str) -> list[Piece]:
            return [Piece(p) for p in st.zones[top].contents if st.pieces[p].kind == kind]

        options = []
        if len(free_slots()) > 0:
            options.append("empty_top_slot")
        if len(top_of_kind("card")) > 0:
            options.append("discard_a_card_first")
        if len(top_of_kind("ship")) > 0:
            options.append("replace_a_ship")
        way_to_build = ans.pick("one_of: " + " | ".join(options), options)
        if way_to_build == "empty_top_slot":
            _pay_different(book, ans, me, prop(game, new_ship, "hull"))
            n = ans.pick("choose n", free_slots())
            _move(book, new_ship, top, n)
        elif way_to_build == "discard_a_card_first":
            old_card = ans.pick("choose old_card", top_of_kind("card")).id
            n = st.pieces[old_card].slot
            _move(book, old_card, "discards", None)
            _pay_different(book, ans, me, prop(game, new_ship, "hull"))
            _move(book, new_ship, top, n)
        else:
            old_ship = ans.pick("choose old_ship", top_of_kind("ship")).id
            old_hull, new_hull = known(prop(game, old_ship, "hull")), known(prop(game, new_ship, "hull"))
            _pay_different(book, ans, me, new_hull - old_hull if old_hull < new_hull else new_hull)
            n = st.pieces[old_ship].slot
            for c in [p for p in st.zones[f"{player}.dock"].contents if prop(game, p, "ship") == Piece(old_ship)]:
                st.set_prop(c, "ship", Piece(new_ship))
            unlink(st, old_ship)
            st.remove_piece(old_ship)
            _move(book, new_ship, top, n)
        book.set_counter("treasury", "treasury", known(st.counters["treasury"]) + 1)
        influence = sum([number(prop(game, c, "influence")) for c in st.zones[top].contents])
        book.set_counter(f"{player}.influence", "influence", known(st.counters[f"{player}.influence"]) + influence)
    except BaseException:
        st.rollback(mark)
        raise
    book.commit(mark, "act", player, "build_ship", {"way": way}, ans.used, ans.used_chance)


def build_ship_tuned(game: Game, player: str, way: str, answers: list[Any] = ()) -> None:
    book = book_of(game)
    st = book.state
    me = book.players[player]
    ans = Answers(answers)
    mark = book.begin()
    try:
        if way not in ("trade", "visit", "follow"):
            check_way(way)
        shipyard = st.zones["shipyard"].contents
        if not shipyard:
            raise BoardrulesError("E501", "Build a Ship is not allowed now: needs count(shipyard) > 0")
        take_state_action_tuned(book, ans, me, "shipbuilding", "marquis", way)
        new_ship = shipyard[0]
        pieces = st.pieces
        top = f"{player}.top"
        # one pass over the top slots: which slots are taken, which cards and ships lie there
        taken, cards, ships = set(), [], []
        for p in st.zones[top].contents:
            rec = pieces[p]
            taken.add(rec.slot)
            if rec.kind == "card":
                cards.append(p)
            elif rec.kind == "ship":
                ships.append(p)
        free = [n for n in range(1, TOP_SLOTS + 1) if n not in taken]
        options = [label for label, ok in (("empty_top_slot", free), ("discard_a_card_first", cards),
                                           ("replace_a_ship", ships)) if ok]
        chosen = options[0] if len(options) == 1 else ans.pick("one_of: " + " | ".join(options), options)
        new_hull = prop(game, new_ship, "hull")
        if chosen == "empty_top_slot":
            _pay_different_tuned(book, ans, me, new_hull)
            n = free[0] if len(free) == 1 else ans.pick("choose n", free)
        elif chosen == "discard_a_card_first":
            old_card = cards[0] if len(cards) == 1 else ans.pick("choose old_card", [Piece(c) for c in cards]).id
            n = pieces[old_card].slot
            _move(book, old_card, "discards", None)
            _pay_different_tuned(book, ans, me, new_hull)
        else:
            old_ship = ships[0] if len(ships) == 1 else ans.pick("choose old_ship", [Piece(s) for s in ships]).id
            old_hull = known(prop(game, old_ship, "hull"))
            known(new_hull)
            _pay_different_tuned(book, ans, me, new_hull - old_hull if old_hull < new_hull else new_hull)
            n = pieces[old_ship].slot
            old = Piece(old_ship)
            new = None
            for c in st.zones[f"{player}.dock"].contents:
                if prop(game, c, "ship") == old:
                    st.set_prop(c, "ship", new or (new := Piece(new_ship)))
            unlink(st, old_ship)
            st.remove_piece(old_ship)
        _move(book, new_ship, top, n)
        counters = st.counters
        book.set_counter("treasury", "treasury", known(counters["treasury"]) + 1)
        influence = 0
        for c in st.zones[top].contents:
            influence += number(prop(game, c, "influence"))
        key = f"{player}.influence"
        book.set_counter(key, "influence", known(counters[key]) + influence)
    except BaseException:
        st.rollback(mark)
        raise
    book.commit(mark, "act", player, "build_ship", {"way": way}, ans.used, ans.used_chance)
