"""Lisboa's `take_state_action` procedure (rules/lisboa/base.yaml), by hand: how every State action is paid for.

    match way:
      trade:  pay 1 goods[any]
      visit:  require me.visiting[noble] > 0; me.visiting[noble] = 0
      follow: require me.took[action] == 0; require another player took it; pay follow (unknown: E601)
    me.took[action] += 1

Shared by the Build a Ship and Meet the Cardinal baselines; written once as read and once tuned.
"""

from __future__ import annotations

from boardrules.diagnostics import BoardrulesError
from boardrules.engine.values import Player

from .bookkeeping import Answers, Book, known

WAYS = ("trade", "visit", "follow")
GOODS = ("type_a", "type_b", "type_c", "type_d", "gold")


def check_way(way: str) -> None:
    """The action's parameter domain (`way: {in: ways}`), checked as the engine does before the guard."""
    if way not in WAYS:
        raise BoardrulesError("E509", f"parameter 'way' is {way!r}, not one of {list(WAYS)}")


def have(book: Book, key: str) -> int:
    """What a cost sees of a counter: an unknown stops the game, anything else that is not a number is 0."""
    v = known(book.state.counters.get(key, 0))
    return v if type(v) is int else 0


def take_state_action_as_read(book: Book, ans: Answers, me: Player, action: str, noble: str, way: str) -> None:
    st = book.state
    if way == "trade":
        payable = [k for k in GOODS if have(book, f"{me.id}.goods[{k}]") - 0 >= 1]
        if not payable:
            raise BoardrulesError("E502", "cannot pay 1 goods[any]")
        keys = [k for k in GOODS if have(book, f"{me.id}.goods[{k}]") - 1 >= 0]
        k = ans.pick("pay 1 goods of any kind", keys)
        book.set_counter(f"{me.id}.goods[{k}]", "goods", have(book, f"{me.id}.goods[{k}]") - 1, "E502")
    elif way == "visit":
        if not known(st.counters[f"{me.id}.visiting[{noble}]"]) > 0:
            raise BoardrulesError("E501", "you are not visiting the Noble of this State action")
        book.set_counter(f"{me.id}.visiting[{noble}]", "visiting", 0)
    elif way == "follow":
        if not known(st.counters[f"{me.id}.took[{action}]"]) == 0:
            raise BoardrulesError("E501", "you already took this State action this turn")
        if not any([known(st.counters[f"{p}.took[{action}]"]) > 0 for p in book.players if p != me.id]):
            raise BoardrulesError("E501", "nobody took this State action this turn, there is nothing to follow")
        raise BoardrulesError("E601", "the game reached 'follow_price', a value the source leaves unknown")
    else:
        raise BoardrulesError("E501", "a State action is taken by trade, visit or follow")
    book.set_counter(f"{me.id}.took[{action}]", "took", known(st.counters[f"{me.id}.took[{action}]"]) + 1)


class _Keys:
    """Counter keys of one player, built once."""

    def __init__(self, pid: str) -> None:
        self.goods = tuple((k, f"{pid}.goods[{k}]") for k in GOODS)
        self.visiting = {n: f"{pid}.visiting[{n}]" for n in ("king", "marquis")}
        self.took = {a: f"{pid}.took[{a}]" for a in ("shipbuilding", "production", "cardinal_meeting")}


_KEYS: dict[str, _Keys] = {}


def keys_of(pid: str) -> _Keys:
    keys = _KEYS.get(pid)
    if keys is None:
        keys = _KEYS[pid] = _Keys(pid)
    return keys


def take_state_action_tuned(book: Book, ans: Answers, me: Player, action: str, noble: str, way: str) -> None:
    st = book.state
    counters = st.counters
    keys = keys_of(me.id)
    if way == "trade":
        options = []
        for k, key in keys.goods:
            v = counters.get(key, 0)
            if type(v) is not int:
                v = have(book, key)
            if v >= 1:
                options.append(k)
        if not options:
            raise BoardrulesError("E502", "cannot pay 1 goods[any]")
        k = options[0] if len(options) == 1 else ans.pick("pay 1 goods of any kind", options)
        key = f"{me.id}.goods[{k}]"
        st.set_counter(key, counters[key] - 1)  # >= 0 by the check above: the range check holds
    elif way == "visit":
        key = keys.visiting[noble]
        if not known(counters[key]) > 0:
            raise BoardrulesError("E501", "you are not visiting the Noble of this State action")
        st.set_counter(key, 0)
    else:  # follow: the price is unknown, so it can only fail; no time is spent here
        take_state_action_as_read(book, ans, me, action, noble, way)
    key = keys.took[action]
    book.set_counter(key, "took", known(counters[key]) + 1)
