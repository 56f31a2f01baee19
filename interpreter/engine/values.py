"""Runtime values that are not plain Python data: players, pieces, zones, markers, unknowns."""

from __future__ import annotations

import json

from ..dataclass_code import dataclass
from ..diagnostics import bare as _bare

# A zone size the source leaves open: moving a piece in stops the game (E601). Here, not in state.py, so `check`
# (the built-in functions) can name it without importing the store.
UNKNOWN_SIZE = "unknown"


class Player:
    """A seat in the game. There is one object per (id, seat) in a process, so equality is identity: players are
    compared in every filter, and `is` costs nothing where a Python `__eq__` would be a call."""

    __slots__ = ("id", "seat")
    _interned: dict[tuple[str, int], Player] = {}
    id: str  # "p1"
    seat: int  # 1-based

    def __new__(cls, id: str, seat: int) -> Player:
        key = (id, seat)
        p = cls._interned.get(key)
        if p is None:
            p = object.__new__(cls)
            object.__setattr__(p, "id", id)
            object.__setattr__(p, "seat", seat)
            p = cls._interned.setdefault(key, p)
        return p

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Player cannot be changed")

    def __reduce__(self) -> tuple[type[Player], tuple[str, int]]:
        return Player, (self.id, self.seat)  # unpickling and deepcopy give back the interned object

    def __repr__(self) -> str:
        return f"Player(id={self.id!r}, seat={self.seat!r})"

    def __str__(self) -> str:
        return self.id


# Pieces are compared in filters too, so their equality is written out rather than generated.
@dataclass(frozen=True, slots=True, eq=False)
class Piece:
    id: str

    def __eq__(self, other: object) -> bool:
        return type(other) is Piece and other.id == self.id

    def __hash__(self) -> int:
        return hash(("piece", self.id))

    def __str__(self) -> str:
        return f"${self.id}"


@dataclass(frozen=True, slots=True)
class Zone:
    key: str  # "p1.farm" or "queue"

    def __str__(self) -> str:
        return self.key


@dataclass(frozen=True, slots=True)
class Ref:
    """A declared thing used as a value: a marker, track, die or keyed counter family."""

    kind: str
    name: str

    def __str__(self) -> str:
        return self.name


class UnknownCompared(Exception):
    """Raised by comparing an Unknown: no rule may decide anything on a value the source leaves open."""

    def __init__(self, value: Unknown) -> None:
        super().__init__(value.name)
        self.value = value


@dataclass(frozen=True, slots=True, eq=False)
class Unknown:
    """A value the source text leaves open; storing it is fine, computing with it stops the game."""

    name: str
    note: str

    # Raising here lets every `==` in compiled rules stay a plain comparison on the fast path.
    def __eq__(self, other: object) -> bool:
        raise UnknownCompared(self)

    def __bool__(self) -> bool:
        raise UnknownCompared(self)

    def __hash__(self) -> int:
        return hash(("unknown", self.name))

    def __str__(self) -> str:
        return f"unknown {self.name}"


def plain(value: object) -> object:
    """The JSON-friendly, human-readable form of a runtime value (used for answers and expectations)."""
    if type(value) is str:  # most values asked for are symbols and keys: one test, not two isinstance
        return value
    if isinstance(value, Player | Piece | Zone | Ref | Unknown):
        return str(value)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def shown(value: object) -> str:
    """A value as a designer writes it, in YAML flow style (`{p2: $q4}`, `[1, red]`, `true`, `none`), for
    messages: never a Python repr. A string YAML would read as something else, or an empty one, is quoted; a
    value type of our own may say how it is written with a `shown()` method (a scripted answer for a player)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"  # as the rules write it
    if isinstance(value, str):
        return value if _bare(value) else json.dumps(value, ensure_ascii=False)  # a JSON string is YAML too
    if isinstance(value, Player | Piece | Zone | Ref | Unknown):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{shown(k)}: {shown(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=str) if isinstance(value, set | frozenset) else value
        return "[" + ", ".join(shown(v) for v in items) + "]"
    if isinstance(value, int) and value.bit_length() >= 200:
        # str() of a number past Python's digit limit raises, and would take quadratic time before it.
        return f"~10^{int(value.bit_length() * 0.30103)}"
    if isinstance(value, int | float):
        return str(value)
    shown_as = getattr(value, "shown", None)
    return shown_as() if callable(shown_as) else str(value)



def encode(value: object) -> object:
    """Lossless JSON encoding of a stored value."""
    if isinstance(value, Player):
        return {"player": value.id, "seat": value.seat}
    if isinstance(value, Piece):
        return {"piece": value.id}
    if isinstance(value, Zone):
        return {"zone": value.key}
    if isinstance(value, Ref):
        return {"ref": value.kind, "name": value.name}
    if isinstance(value, Unknown):
        return {"unknown": value.name, "note": value.note}
    if isinstance(value, list | tuple):
        return {"list": [encode(v) for v in value]}
    return value


def decode(data: object) -> object:
    if isinstance(data, dict):
        if "player" in data:
            return Player(data["player"], data["seat"])
        if "piece" in data:
            return Piece(data["piece"])
        if "zone" in data:
            return Zone(data["zone"])
        if "ref" in data:
            return Ref(data["ref"], data["name"])
        if "unknown" in data:
            return Unknown(data["unknown"], data["note"])
        if "list" in data:
            return [decode(v) for v in data["list"]]
    return data
