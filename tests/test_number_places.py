"""Every place of a rule that wants a number (a cost's amount, a repeat count, how many pieces are created, chosen or
allowed by a limit, a counter key's kind, a sum's items, a start or a size named by a value) refuses a value of
another type at link time (E402), at its line, instead of failing when the rule runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import link_texts

BASE = """
module: t.base
title: Number places
players: {min: 1, max: 4}
sets:
  colours: [red, blue]
values:
  three: 3
  pale: blue
  flag: true
counters:
  coins: {per: player, initial: 9}
  gems: {per: player, keys: colours}
pieces:
  worker:
    properties:
      tint: {type: symbol, default: red}
zones:
  farm: {per: player}
actions:
  a:
    params: {c: {type: symbol, in: colours}, n: {type: int, in: "1..2"}}
    cost: "AMOUNT coins"
    do:
      - repeat: REPEAT
        do: ["me.coins += 0"]
      - create CREATE worker in me.farm
      - choose xs from me.farm count CHOSEN
      - limit a to LIMIT per turn
      - me.gems[KEY] += 1
      - me.coins += sum(SUMMED)
"""
PLACES = {
    "AMOUNT": "the amount of a cost should be a number",
    "REPEAT": "a repeat count should be a number",
    "CREATE": "the number of pieces should be a number",
    "CHOSEN": "the number chosen should be a number",
    "LIMIT": "a limit's count should be a number",
}
RIGHT = {"AMOUNT": "(n)", "REPEAT": "n", "CREATE": "n", "CHOSEN": "1..n", "LIMIT": "three", "KEY": "c",
         "SUMMED": "[n, three]"}
WRONG = {"a symbol": "c", "true or false": "flag", "a player": "me"}


def _text(place: str, wrong: str | None) -> str:
    text = BASE
    for key, right in RIGHT.items():
        value = wrong if key == place else right
        text = text.replace(key, f"({value})" if key == "AMOUNT" and key == place else value, 1)
    return text


def _errors(tmp_path: Path, text: str) -> list[tuple[str, str]]:
    _, diags = link_texts(tmp_path, text)
    return [(d.code, d.message) for d in diags.sorted() if d.severity == "error"]


def test_every_place_links_with_numbers(tmp_path: Path) -> None:
    assert _errors(tmp_path, _text("", None)) == []


@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("words", sorted(WRONG))
def test_a_number_place_refuses_another_type(tmp_path: Path, place: str, words: str) -> None:
    assert _errors(tmp_path, _text(place, WRONG[words])) == [("E402", f"{PLACES[place]}, but it is {words}")]


@pytest.mark.parametrize(("key", "words"), [("three", "a number"), ("me", "a player"), ("flag", "true or false")])
def test_a_counter_key_of_another_type(tmp_path: Path, key: str, words: str) -> None:
    assert _errors(tmp_path, _text("KEY", key)) == [
        ("E402", f"the keys of 'gems' are symbols (red, blue), but this is {words}")]


def test_a_sum_of_symbols(tmp_path: Path) -> None:
    assert _errors(tmp_path, _text("SUMMED", "[w.tint for w in me.farm]")) == [
        ("E402", "argument 1 of 'sum' should be a list of numbers, but it is a list of symbols")]


@pytest.mark.parametrize("iterable", ["three", "flag", "me", "c"])
def test_a_loop_over_one_value(tmp_path: Path, iterable: str) -> None:
    errors = _errors(tmp_path, _text("", None).replace("      - repeat: n\n", f"      - for: x in {iterable}\n"))
    assert len(errors) == 1 and errors[0][0] == "E402"
    assert errors[0][1].startswith("a loop goes through a list or a zone, but this is")


@pytest.mark.parametrize(("decl", "message"), [
    ("coins: {per: player, initial: pale}", "'pale' is not a number fixed before play"),
    ("coins: {per: player, initial: flag}", "'flag' is not a number fixed before play"),
])
def test_a_start_named_by_a_value_that_is_no_number(tmp_path: Path, decl: str, message: str) -> None:
    assert ("E402", message) in _errors(tmp_path, _text("", None).replace("coins: {per: player, initial: 9}", decl))


@pytest.mark.parametrize("value", ["pale", "flag"])
def test_a_size_named_by_a_value_that_is_no_number(tmp_path: Path, value: str) -> None:
    text = _text("", None).replace("farm: {per: player}", f"farm: {{per: player, capacity: {value}}}")
    assert ("E402", f"'{value}' is not a number, but a size is a number") in _errors(tmp_path, text)
