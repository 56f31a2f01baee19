"""Static types of the expression language, as values.

A type is a name (int, bool, symbol, player, piece, zone, marker, track, die, family, chance, none, any) or a
list of an element type. `ANY` means "not known until run time" and fits everywhere. Declarations in a pack
(parameters, properties, event parameters) are written as words (`int`, `list`); `declared` turns a word into a
type.
"""

from __future__ import annotations

from ..dataclass_code import dataclass


@dataclass(frozen=True, slots=True)
class Type:
    name: str
    elem: Type | None = None  # the element type of a list

    @property
    def is_list(self) -> bool:
        return self.name == "list"

    @property
    def known(self) -> bool:
        return self.name != "any"

    def element(self) -> Type:
        """What iterating a value of this type gives: a list's elements, a zone's pieces, otherwise ANY."""
        if self.elem is not None:
            return self.elem
        return PIECE if self.name == "zone" else ANY

    def words(self) -> str:
        """The type in a designer's words, for messages."""
        if self.is_list:
            return "a list" if self.elem in (None, ANY) else f"a list of {_PLURAL.get(self.elem.name, 'values')}"
        return _WORDS.get(self.name, self.name)

    def __str__(self) -> str:
        return f"list:{self.elem}" if self.is_list else self.name


def list_of(elem: Type) -> Type:
    return Type("list", elem)


INT, BOOL, SYMBOL, PLAYER, PIECE = Type("int"), Type("bool"), Type("symbol"), Type("player"), Type("piece")
ZONE, MARKER, TRACK, DIE, FAMILY = Type("zone"), Type("marker"), Type("track"), Type("die"), Type("family")
CHANCE, NONE, ANY = Type("chance"), Type("none"), Type("any")

_WORDS = {"int": "a number", "bool": "true or false", "symbol": "a symbol", "player": "a player", "piece": "a piece",
          "zone": "a zone", "none": "none", "marker": "a track marker", "track": "a track", "die": "a die",
          "family": "a keyed counter", "chance": "chance", "any": "anything"}
_PLURAL = {"int": "numbers", "bool": "truth values", "symbol": "symbols", "player": "players", "piece": "pieces",
           "zone": "zones"}

# The words a pack may write for a parameter's or a property's type.
_DECLARED = {"int": INT, "bool": BOOL, "symbol": SYMBOL, "player": PLAYER, "piece": PIECE, "list": list_of(ANY)}


def declared(word: str) -> Type:
    """The type a pack's declaration word names; ANY for a word it does not know."""
    return _DECLARED.get(word, ANY)


def comparable(a: Type, b: Type) -> bool:
    """Whether `==` between values of these types can ever hold (none compares with everything)."""
    if ANY in (a, b) or NONE in (a, b):
        return True
    if a.is_list and b.is_list:
        return comparable(a.element(), b.element())
    return a.name == b.name


def member_of(item: Type, container: Type) -> bool:
    """Whether `item in container` can ever hold."""
    if not container.known or not item.known or item == NONE:
        return True
    if container == FAMILY:
        return item == SYMBOL
    if not container.is_list and container != ZONE:
        return False
    return comparable(item, container.element())
