"""Static types are values: equality, lists, words for messages, and which comparisons can ever hold."""

from __future__ import annotations

from boardrules.language.types import (
    ANY,
    BOOL,
    FAMILY,
    INT,
    NONE,
    PIECE,
    PLAYER,
    SYMBOL,
    ZONE,
    comparable,
    declared,
    list_of,
    member_of,
)


def test_types_are_values() -> None:
    assert list_of(PIECE) == list_of(PIECE) and hash(list_of(PIECE)) == hash(list_of(PIECE))
    assert list_of(PIECE) != list_of(INT)
    assert str(list_of(PIECE)) == "list:piece"
    assert list_of(PLAYER).words() == "a list of players" and list_of(ANY).words() == "a list"
    assert ZONE.element() == PIECE and list_of(INT).element() == INT and INT.element() == ANY
    assert declared("list") == list_of(ANY) and declared("int") == INT and declared("nonsense") == ANY


def test_which_comparisons_can_hold() -> None:
    assert comparable(INT, INT) and comparable(INT, ANY) and comparable(PIECE, NONE)
    assert not comparable(INT, SYMBOL) and not comparable(PLAYER, PIECE) and not comparable(BOOL, INT)
    assert comparable(list_of(INT), list_of(ANY)) and not comparable(list_of(INT), list_of(SYMBOL))
    assert member_of(PIECE, ZONE) and member_of(SYMBOL, list_of(SYMBOL)) and member_of(SYMBOL, FAMILY)
    assert not member_of(INT, list_of(SYMBOL)) and not member_of(PIECE, INT)
