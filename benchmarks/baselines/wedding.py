"""Village's wedding (the Marriage expansion, rules/village/marriage.yaml: hold_wedding), by hand.

    roll the d4; an empty rank gets a pink villager (from the supply, else the one pink in the family houses,
      else the wedding aid decides: unknown, E601)
    repeat wedding_couples (1, or 2 at 4-5 players): the two highest ranks marry (linked); the higher spouse's
      owner chooses bakery or shop (chance chooses for a pink); the couple waits for step 2
    old couples leave the bakery and the shop for the family houses; new couples move in; the rest of the
      ceremony goes home (pinks to the supply; a villager may pay one influence for a bread or a tool); unpaired
      villagers on the Marriage board go home
    income per player: each own villager in a bakery couple earns two bread or bread and two grain; in a shop
      couple two tools or a tool and two influence (colours chosen); in the family houses a child is born

Player answers come as a list in the order the engine asks them, chance results (the die, a pink's building) as
a second list, as a ScriptedDecider takes them; an empty chance list lets the seeded generator decide.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from typing import Any

from boardrules.diagnostics import BoardrulesError
from boardrules.engine.values import Player
from boardrules.game import Game

from .bookkeeping import Answers, Book, book_of, known, match, prop, unlink

COLOURS = ("green", "brown", "orange", "pink")
BUILDINGS = ["bakery", "shop"]
COUPLES = {1: 1, 2: 1, 3: 1, 4: 2, 5: 2}
PINK = "pink_villager"


def _refused_if_final(book: Book) -> None:
    if not known(book.state.counters["final_mass_held"]) == 0:
        raise BoardrulesError("E501", "Wedding is not allowed now: needs final_mass_held == 0")


def _roll(book: Book, ans: Answers) -> int:
    r = ans.chance()
    if r is None:
        return book.state.random_below(4) + 1
    if type(r) is not int or not 1 <= r <= 4:
        raise BoardrulesError("E505", f"scripted roll {r!r} is not a result of d4 (1..4)")
    return r


def _chance_building(book: Book, ans: Answers) -> str:
    scripted = ans.chance()
    if scripted is None:
        return BUILDINGS[book.state.random_below(2)]
    return match(scripted, BUILDINGS, "choose building")


def _link(book: Book, a: str, b: str) -> None:
    st = book.state
    group = st.pieces[a].group or st.pieces[b].group or st.new_group()
    for pid in {*st.group_of(a), *st.group_of(b)}:
        if st.pieces[pid].group != group:
            st.set_group(pid, group)


def _pay_influence(book: Book, ans: Answers, o: Player) -> None:
    """`pay 1 influence[any] by o`."""
    st = book.state
    have = {k: known(st.counters.get(f"{o.id}.influence[{k}]", 0)) for k in COLOURS}
    keys = [k for k in COLOURS if type(have[k]) is int and have[k] - 1 >= 0]
    if not keys:
        raise BoardrulesError("E502", "cannot pay 1 influence[any]")
    k = ans.pick("pay 1 influence of any kind", keys)
    book.set_counter(f"{o.id}.influence[{k}]", "influence", have[k] - 1, "E502")


def _add(book: Book, owner: Player, counter: str, key: str, n: int) -> None:
    cell = f"{owner.id}.{counter}[{key}]"
    book.set_counter(cell, counter, known(book.state.counters[cell]) + n)


# ------------------------------------------------------------------------------------------------ as read

def hold_wedding_as_read(game: Game, answers: list[Any] = (), rolls: list[Any] = ()) -> None:
    book = book_of(game)
    st = book.state
    ans = Answers(answers, rolls)
    mark = book.begin()
    try:
        _refused_if_final(book)
        _wedding_roll(game, book, ans)
        _wedding_marry(game, book, ans)
        _wedding_move(game, book, ans)
        _wedding_income(game, book, ans)
    except BaseException:
        st.rollback(mark)
        raise
    book.commit(mark, "act", None, "hold_wedding", {}, ans.used, ans.used_chance)


def _contents(book: Book, zone: str) -> list[str]:
    return list(book.state.zones[zone].contents)


def _linked(book: Book, pid: str) -> bool:
    return len([p for p in book.state.group_of(pid) if p != pid]) > 0


def _move(book: Book, pieces: Iterable[str], zone: str, slot: int | None = None) -> None:
    st = book.state
    moved: set[str] = set()
    for piece in pieces:
        for pid in st.group_of(piece):
            if pid not in moved:
                moved.add(pid)
                st.move_piece(pid, zone, slot)


def _by_slot(book: Book, pieces: list[str]) -> list[str]:
    return sorted(pieces, key=lambda p: book.state.pieces[p].slot)


def _wedding_roll(game: Game, book: Book, ans: Answers) -> None:
    r = _roll(book, ans)
    if len([p for p in _contents(book, "ceremony") if book.state.pieces[p].slot == r]) == 0:
        if len(_contents(book, "pink_supply")) > 0:
            _move(book, [_contents(book, "pink_supply")[0]], "ceremony", r)
        else:
            spare = [p for p in _contents(book, "family_houses") if book.state.pieces[p].kind == PINK]
            if len(spare) == 1:
                unlink(book.state, spare[0])
                _move(book, [spare[0]], "ceremony", r)
            else:
                raise BoardrulesError("E601", "the game reached 'wedding_aid_pink_choice', a value the source "
                                      "leaves unknown")


def _wedding_marry(game: Game, book: Book, ans: Answers) -> None:
    st = book.state
    for _ in range(COUPLES[len(book.players)]):
        if len(_contents(book, "ceremony")) >= 2:
            high = _by_slot(book, _contents(book, "ceremony"))[0]
            low = _by_slot(book, [p for p in _contents(book, "ceremony") if p != high])[0]
            _link(book, high, low)
            if st.pieces[high].kind == PINK:
                building = _chance_building(book, ans)
            else:
                building = ans.pick("choose building", list(BUILDINGS))
            _move(book, [high], "new_bakery_couples" if building == "bakery" else "new_shop_couples")


def _wedding_move(game: Game, book: Book, ans: Answers) -> None:
    st = book.state
    _move(book, [p for p in _contents(book, "bakery_building") if _linked(book, p)], "family_houses")
    _move(book, [p for p in _contents(book, "shop_building") if _linked(book, p)], "family_houses")
    _move(book, _contents(book, "new_bakery_couples"), "bakery_building")
    _move(book, _contents(book, "new_shop_couples"), "shop_building")
    for v in _by_slot(book, _contents(book, "ceremony")):
        if st.pieces[v].kind == PINK:
            _move(book, [v], "pink_supply")
        else:
            _move(book, [v], f"{prop(game, v, 'owner').id}.farm")
            _unmarried_return_offer(game, book, ans, v)
    for zone in ("bakery_building", "shop_building", "family_houses"):
        for v in [p for p in _contents(book, zone) if not _linked(book, p)]:
            if st.pieces[v].kind == PINK:
                _move(book, [v], "pink_supply")
            else:
                _move(book, [v], f"{prop(game, v, 'owner').id}.farm")


def _unmarried_return_offer(game: Game, book: Book, ans: Answers, v: str) -> None:
    st = book.state
    o = prop(game, v, "owner")
    if len([k for k in COLOURS if known(st.counters[f"{o.id}.influence[{k}]"]) > 0]) > 0 \
            and ans.yes_no("may: an optional step"):
        _pay_influence(book, ans, o)
        _add(book, o, "tiles", ans.pick("one_of: bread | tool", ["bread", "tool"]), 1)


def _wedding_income(game: Game, book: Book, ans: Answers) -> None:
    def own_couples(zone: str, p: Player) -> list[str]:
        mine = [x for x in _contents(book, zone) if prop(game, x, "owner") == p and _linked(book, x)]
        return sorted(mine, key=lambda x: known(prop(game, x, "number")))

    for p in game._m.players:
        for _v in own_couples("bakery_building", p):
            if ans.pick("one_of: two_bread | bread_and_grain", ["two_bread", "bread_and_grain"]) == "two_bread":
                _add(book, p, "tiles", "bread", 2)
            else:
                _add(book, p, "tiles", "bread", 1)
                _add(book, p, "goods", "grain", 2)
        for _v in own_couples("shop_building", p):
            if ans.pick("one_of: two_tools | tool_and_influence", ["two_tools", "tool_and_influence"]) == "two_tools":
                _add(book, p, "tiles", "tool", 2)
            else:
                _add(book, p, "tiles", "tool", 1)
                _add(book, p, "influence", ans.pick("choose k1", list(COLOURS)), 1)
                _add(book, p, "influence", ans.pick("choose k2", list(COLOURS)), 1)
        for _v in own_couples("family_houses", p):
            unborn = sorted([x for x in _contents(book, "unborn") if prop(game, x, "owner") == p],
                            key=lambda x: known(prop(game, x, "number")))
            child = unborn[0] if unborn else None
            if child is not None:
                _move(book, [child], f"{p.id}.farm")


# ------------------------------------------------------------------------------------------------ tuned

class _Groups:
    """Linked pieces, found in one pass over the pieces instead of one pass per question: group -> members in
    creation order. Kept up to date by the tuned wedding's own links."""

    def __init__(self, book: Book) -> None:
        members: dict[str, list[str]] = {}
        for pid, rec in book.state.pieces.items():  # the store keeps pieces in creation order
            if rec.group is not None:
                members.setdefault(rec.group, []).append(pid)
        self.members = members
        self.pieces = book.state.pieces

    def of(self, pid: str) -> list[str]:
        group = self.pieces[pid].group
        return [pid] if group is None else self.members[group]

    def linked(self, pid: str) -> bool:
        group = self.pieces[pid].group
        return group is not None and len(self.members[group]) > 1


def hold_wedding_tuned(game: Game, answers: list[Any] = (), rolls: list[Any] = ()) -> None:
    book = book_of(game)
    st = book.state
    ans = Answers(answers, rolls)
    mark = book.begin()
    try:
        _refused_if_final(book)
        zones, pieces = st.zones, st.pieces
        move_piece = st.move_piece
        # step 1: the roll
        r = _roll(book, ans)
        ceremony = zones["ceremony"].contents
        if not any(pieces[p].slot == r for p in ceremony):
            supply = zones["pink_supply"].contents
            if supply:
                pid = supply[0]
                for q in st.group_of(pid) if pieces[pid].group is not None else (pid,):
                    move_piece(q, "ceremony", r)
            else:
                _wedding_roll_spare(book, r)
        # step 1: the couples
        for _ in range(COUPLES[len(book.players)]):
            if len(ceremony) < 2:
                break
            high, low = sorted(ceremony, key=lambda p: pieces[p].slot)[:2]
            if pieces[high].group is None and pieces[low].group is None:  # the usual case: a new couple
                group = st.new_group()
                st.set_group(high, group)
                st.set_group(low, group)
                couple = sorted((high, low), key=lambda p: pieces[p].order)
            else:
                _link(book, high, low)
                couple = st.group_of(high)
            building = (_chance_building(book, ans) if pieces[high].kind == PINK
                        else ans.pick("choose building", BUILDINGS))
            target = "new_bakery_couples" if building == "bakery" else "new_shop_couples"
            for q in couple:
                move_piece(q, target, None)
        groups = _Groups(book)  # no links are made from here on

        def move(pid: str, zone: str, moved: set[str]) -> None:
            for q in groups.of(pid):
                if q not in moved:
                    moved.add(q)
                    move_piece(q, zone, None)

        # step 2: moving
        for zone in ("bakery_building", "shop_building"):
            moved: set[str] = set()
            for pid in [p for p in zones[zone].contents if groups.linked(p)]:
                move(pid, "family_houses", moved)
        for source, target in (("new_bakery_couples", "bakery_building"), ("new_shop_couples", "shop_building")):
            moved = set()
            for pid in list(zones[source].contents):
                move(pid, target, moved)
        for v in sorted(ceremony, key=lambda p: pieces[p].slot):
            if pieces[v].kind == PINK:
                move(v, "pink_supply", set())
            else:
                owner = pieces[v].props["owner"]
                move(v, f"{owner.id}.farm", set())
                counters = st.counters
                if any(known(counters[f"{owner.id}.influence[{k}]"]) > 0 for k in COLOURS) \
                        and ans.yes_no("may: an optional step"):
                    _pay_influence(book, ans, owner)
                    _add(book, owner, "tiles", ans.pick("one_of: bread | tool", ["bread", "tool"]), 1)
        for zone in ("bakery_building", "shop_building", "family_houses"):
            for v in [p for p in zones[zone].contents if not groups.linked(p)]:
                rec = pieces[v]
                move(v, "pink_supply" if rec.kind == PINK else f"{rec.props['owner'].id}.farm", set())
        # step 3: income, from one pass over each building
        income: dict[str, dict[str, list[tuple[Any, str]]]] = {p: {} for p in book.players}
        for zone in ("bakery_building", "shop_building", "family_houses"):
            for x in zones[zone].contents:
                rec = pieces[x]
                owner = rec.props.get("owner")
                if owner is not None and groups.linked(x):
                    number = known(prop(game, x, "number"))
                    income[owner.id].setdefault(zone, []).append((number, x))
        for p in game._m.players:
            mine = income[p.id]
            for _ in sorted(mine.get("bakery_building", ()), key=lambda nx: nx[0]):
                if ans.pick("one_of: two_bread | bread_and_grain", ["two_bread", "bread_and_grain"]) == "two_bread":
                    _add(book, p, "tiles", "bread", 2)
                else:
                    _add(book, p, "tiles", "bread", 1)
                    _add(book, p, "goods", "grain", 2)
            for _ in sorted(mine.get("shop_building", ()), key=lambda nx: nx[0]):
                if ans.pick("one_of: two_tools | tool_and_influence",
                            ["two_tools", "tool_and_influence"]) == "two_tools":
                    _add(book, p, "tiles", "tool", 2)
                else:
                    _add(book, p, "tiles", "tool", 1)
                    _add(book, p, "influence", ans.pick("choose k1", list(COLOURS)), 1)
                    _add(book, p, "influence", ans.pick("choose k2", list(COLOURS)), 1)
            births = len(mine.get("family_houses", ()))
            if births:
                unborn = []
                for i, x in enumerate(zones["unborn"].contents):
                    props = pieces[x].props
                    if props.get("owner") == p:
                        unborn.append((known(props["number"] if "number" in props else prop(game, x, "number")), i, x))
                for _, _, child in heapq.nsmallest(births, unborn):
                    move(child, f"{p.id}.farm", set())
    except BaseException:
        st.rollback(mark)
        raise
    book.commit(mark, "act", None, "hold_wedding", {}, ans.used, ans.used_chance)


def _wedding_roll_spare(book: Book, r: int) -> None:
    st = book.state
    spare = [p for p in st.zones["family_houses"].contents if st.pieces[p].kind == PINK]
    if len(spare) != 1:
        raise BoardrulesError("E601", "the game reached 'wedding_aid_pink_choice', a value the source leaves unknown")
    unlink(st, spare[0])
    st.move_piece(spare[0], "ceremony", r)
