"""The production rule of benchmarks/produce/produce.yaml, by hand, on the engine's own store.

    for g in goods:
        let made = count(street where it.owner == me and it.good == g)
        let room = 2 + me.sheds - me.stock[g]
        let kept = max(0, min(made, room))
        if kept > 0: me.stock[g] += kept; price[g] = max(1, price[g] - 1)

`produce_as_read` follows the rule line by line (a filtered count of the zone per goods type); `produce_tuned`
counts the player's stores of every type in one pass over the zone, with the counter keys built once per game.
Both do the engine's bookkeeping (bookkeeping.py): one transaction, journaled writes, range checks, history, log.
"""

from __future__ import annotations

from boardrules.game import Game

from .bookkeeping import MAX_INT, Book, book_of, number_error

GOODS = ("cloth", "wine", "grain", "tools", "spice")


def _let(value: int) -> int:
    """A `let` bounds its number as the engine does."""
    if not -MAX_INT <= value <= MAX_INT:
        raise number_error(value)
    return value


def produce_as_read(game: Game, player: str = "p1") -> None:
    book = book_of(game)
    st = book.state
    me = book.players[player]
    mark = book.begin()
    try:
        for g in GOODS:
            made = _let(sum(1 for pid in st.zones["street"].contents
                            if st.pieces[pid].props.get("owner") == me and st.pieces[pid].props.get("good") == g))
            room = _let(2 + st.counters[f"{player}.sheds"] - st.counters[f"{player}.stock[{g}]"])
            kept = _let(max(0, min(made, room)))
            if kept > 0:
                book.set_counter(f"{player}.stock[{g}]", "stock", st.counters[f"{player}.stock[{g}]"] + kept)
                book.set_counter(f"price[{g}]", "price", max(1, st.counters[f"price[{g}]"] - 1))
    except BaseException:
        st.rollback(mark)
        raise
    book.commit(mark, "act", player, "produce", {}, [], [])


class _Keys:
    """What the tuned version computes once per game and player: counter keys and the range-check bounds."""

    def __init__(self, book: Book, player: str) -> None:
        self.index = {g: i for i, g in enumerate(GOODS)}
        self.stock = tuple(f"{player}.stock[{g}]" for g in GOODS)
        self.price = tuple(f"price[{g}]" for g in GOODS)
        self.sheds = f"{player}.sheds"
        self.stock_bounds = book.bounds["stock"]
        self.price_bounds = book.bounds["price"]


def _keys(book: Book, player: str) -> _Keys:
    keys = book.cache.get(("produce", player))
    if keys is None:
        keys = book.cache[("produce", player)] = _Keys(book, player)
    return keys


def produce_tuned(game: Game, player: str = "p1") -> None:
    book = book_of(game)
    keys = _keys(book, player)
    st = book.state
    me = book.players[player]
    mark = book.begin()
    try:
        counters, pieces, index = st.counters, st.pieces, keys.index
        made = [0] * len(GOODS)
        for pid in st.zones["street"].contents:  # one pass: this player's stores of every type
            props = pieces[pid].props
            owner = props.get("owner")
            if owner is me or owner == me:
                i = index.get(props.get("good"))
                if i is not None:
                    made[i] += 1
        sheds = counters[keys.sheds]
        set_counter = st.set_counter
        stock_low, stock_high = keys.stock_bounds
        price_low, price_high = keys.price_bounds
        for i in range(len(GOODS)):
            skey = keys.stock[i]
            stock = counters[skey]
            room = 2 + sheds - stock
            if not -MAX_INT <= room <= MAX_INT:
                raise number_error(room)
            kept = made[i] if made[i] < room else room
            if kept > 0:
                new = stock + kept
                if (stock_low is not None and new < stock_low) or (stock_high is not None and new > stock_high) \
                        or not -MAX_INT <= new <= MAX_INT:
                    book.set_counter(skey, "stock", new)  # raises the engine's error
                set_counter(skey, new)
                pkey = keys.price[i]
                price = counters[pkey] - 1
                if price < 1:
                    price = 1
                if (price_low is not None and price < price_low) or (price_high is not None and price > price_high):
                    book.set_counter(pkey, "price", price)
                set_counter(pkey, price)
    except BaseException:
        st.rollback(mark)
        raise
    book.commit(mark, "act", player, "produce", {}, [], [])


def sell_all(game: Game, player: str = "p1") -> None:
    """The companion action the benchmark alternates with produce, so stock never fills up (as it reads)."""
    book = book_of(game)
    st = book.state
    mark = book.begin()
    try:
        for g in GOODS:
            book.set_counter(f"{player}.stock[{g}]", "stock", 0)
    except BaseException:
        st.rollback(mark)
        raise
    book.commit(mark, "act", player, "sell_all", {}, [], [])


def sell_all_tuned(game: Game, player: str = "p1") -> None:
    """sell_all with its keys built once; a warehouse already empty is not written (0 is within every range)."""
    book = book_of(game)
    keys = _keys(book, player)
    st = book.state
    mark = book.begin()
    try:
        counters, set_counter = st.counters, st.set_counter
        low, high = keys.stock_bounds
        if (low is not None and low > 0) or (high is not None and high < 0):
            for key in keys.stock:
                book.set_counter(key, "stock", 0)  # raises the engine's error
        for key in keys.stock:
            if counters[key] != 0:
                set_counter(key, 0)
    except BaseException:
        st.rollback(mark)
        raise
    book.commit(mark, "act", player, "sell_all", {}, [], [])
