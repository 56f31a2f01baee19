"""The generic state store: counters, pieces in zones, track markers, turn context and a seeded generator.

Every change goes through one of a few primitive operations, each of which appends its inverse to the journal
*before* it writes anything (a flat tuple: the operation, its arguments, and last the rule that caused it; a write
that changes nothing leaves no entry), and every inverse is safe to apply whether or not its write happened (or happened
only in part). Rolling the journal back to a mark therefore restores the state exactly, byte for byte in its
JSON, even when an operation fails half-way; that gives atomic actions and undo.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import BoardrulesError, Span
from .values import UNKNOWN_SIZE as UNKNOWN_SIZE  # where machine.py and older callers find it
from .values import decode, encode

_MASK64 = (1 << 64) - 1
_MISSING = object()
# JSON can carry any integer, but Python refuses to print one of more than 4,300 digits; refuse them where they are
# made, so a game can always be saved.
_SAVABLE = 10**4000




@dataclass
class ZoneRec:
    ordered: bool = False
    slots: int | str | None = None
    slot_capacity: int = 1
    capacity: int | str | None = None
    owner: str | None = None
    contents: list[str] = field(default_factory=list)


@dataclass
class PieceRec:
    kind: str
    zone: str
    slot: int | None = None
    props: dict[str, Any] = field(default_factory=dict)
    group: str | None = None
    order: int = 0  # creation order, which "every piece of a kind" follows; kept explicit so undo cannot lose it


@dataclass
class MarkerRec:
    track: str
    pos: int
    last: list[int] = field(default_factory=list)


def _by_order(item: tuple[str, PieceRec]) -> int:
    return item[1].order


@dataclass(slots=True)
class Redo:
    """What a run changed, taken when it finished (`State.capture`): the final value of every place it wrote,
    and its journal entries. Made again on the state it started from (`State.redo`), it leaves the state and the
    journal as the run left them, so undo and rollback work as after the run itself."""

    entries: list[tuple]
    counters: dict[str, Any]
    pieces: dict[str, PieceRec | None]  # None: not in the game at the end
    replaced: frozenset[str]  # pieces removed during the run: their old records stay with the journal
    zones: dict[str, list[str]]
    markers: dict[str, tuple[int, list[int]]]
    vars: dict[str, Any]
    usage: dict[str, dict[str, int]]
    deferred: Any  # _MISSING when the run did not change it
    id_counters: dict[str, Any]
    cause: Span | None


def _copy_piece(rec: PieceRec) -> PieceRec:
    return PieceRec(rec.kind, rec.zone, rec.slot, dict(rec.props), rec.group, rec.order)


class State:
    def __init__(self, players: list[str], seed: int) -> None:
        self.players = list(players)
        self.counters: dict[str, Any] = {}
        self.zones: dict[str, ZoneRec] = {}
        self.pieces: dict[str, PieceRec] = {}
        self.markers: dict[str, MarkerRec] = {}
        self.vars: dict[str, Any] = {
            "turn_player": None, "turn": 1, "serial": 0, "rng": (seed * 0x9E3779B97F4A7C15 + 1) & _MASK64
        }
        self.deferred: list[dict[str, Any]] = []
        self.usage: dict[str, dict[str, int]] = {"action": {}, "turn": {}, "round": {}, "game": {}}
        self.id_counters: dict[str, int] = {}
        self.journal: list[tuple] = []
        self.groups: dict[str, set[str]] = {}  # linked pieces: group -> piece ids (an index of PieceRec.group)
        self.cause: Span | None = None  # the rule now running, recorded with each change

    # ------------------------------------------------------------ journal
    def _log(self, *undo: Any) -> None:
        self.journal.append((*undo, self.cause))

    def mark(self) -> int:
        return len(self.journal)

    def rollback(self, mark: int) -> None:
        while len(self.journal) > mark:
            self._revert(self.journal.pop())

    def capture(self, mark: int) -> Redo:
        """The changes since `mark` as a Redo, read before they are rolled back (see Redo)."""
        entries = self.journal[mark:]
        counters, vars_, id_counters = self.counters, self.vars, self.id_counters
        c: dict[str, Any] = {}
        v: dict[str, Any] = {}
        ids: dict[str, Any] = {}
        touched: dict[str, None] = {}
        removed: set[str] = set()
        zones: dict[str, None] = {}
        markers: dict[str, tuple[int, list[int]]] = {}
        usage: dict[str, dict[str, int]] = {}
        deferred: Any = _MISSING
        for entry in entries:
            op = entry[0]
            if op == "counter":
                c[entry[1]] = counters.get(entry[1], _MISSING)
            elif op == "var":
                v[entry[1]] = vars_.get(entry[1], _MISSING)
            elif op in ("prop", "group"):
                touched[entry[1]] = None
            elif op in ("move", "create"):
                touched[entry[1]] = None
                zones[entry[2]] = None
            elif op == "remove":
                touched[entry[1]] = None
                removed.add(entry[1])
                zones[entry[2].zone] = None
            elif op == "marker":
                m = self.markers[entry[1]]
                markers[entry[1]] = (m.pos, list(m.last))
            elif op in ("usage", "usage_scope"):
                usage[entry[1]] = dict(self.usage[entry[1]])
            elif op == "deferred":
                deferred = list(self.deferred)
            elif op == "id_counter":
                ids[entry[1]] = id_counters.get(entry[1], _MISSING)
            else:  # pragma: no cover - a new operation must say what it writes
                raise AssertionError(f"no redo for journal operation {op}")
        pieces: dict[str, PieceRec | None] = {}
        for pid in touched:
            rec = self.pieces.get(pid)
            if rec is None:
                pieces[pid] = None
            else:
                pieces[pid] = _copy_piece(rec)
                zones[rec.zone] = None
        return Redo(entries, c, pieces, frozenset(removed), {z: list(self.zones[z].contents) for z in zones},
                    markers, v, usage, deferred, ids, self.cause)

    def redo(self, r: Redo) -> None:
        """Make the changes of a captured run again, on the state it started from (see Redo)."""
        for key, value in r.counters.items():
            if value is _MISSING:
                self.counters.pop(key, None)
            else:
                self.counters[key] = value
        for name, value in r.vars.items():
            if value is _MISSING:
                self.vars.pop(name, None)
            else:
                self.vars[name] = value
        for kind, n in r.id_counters.items():
            if n is _MISSING:
                self.id_counters.pop(kind, None)
            else:
                self.id_counters[kind] = n
        pieces = self.pieces
        for pid, final in r.pieces.items():
            rec = pieces.get(pid)
            if rec is not None:
                self._regroup(pid, rec.group, None)
            if final is None:
                pieces.pop(pid, None)
                continue
            if rec is None or pid in r.replaced:  # a fresh record: the journal keeps the removed one
                rec = pieces[pid] = _copy_piece(final)
            else:  # in place, so the pieces keep their order in the dict
                rec.kind, rec.zone, rec.slot, rec.group, rec.order = \
                    final.kind, final.zone, final.slot, final.group, final.order
                rec.props = dict(final.props)
            self._regroup(pid, None, rec.group)
        for z, contents in r.zones.items():
            self.zones[z].contents[:] = contents
        for name, (pos, last) in r.markers.items():
            m = self.markers[name]
            m.pos, m.last = pos, list(last)
        for scope, counts in r.usage.items():
            self.usage[scope] = dict(counts)
        if r.deferred is not _MISSING:
            self.deferred = list(r.deferred)
        self.journal.extend(r.entries)
        self.cause = r.cause

    def _revert(self, undo: tuple) -> None:
        op = undo[0]  # the last element is the cause, which undoing does not need
        if op == "counter":
            _, key, old, _ = undo
            if old is _MISSING:
                self.counters.pop(key, None)
            else:
                self.counters[key] = old
        elif op == "prop":
            _, pid, name, old, _ = undo
            props = self.pieces[pid].props
            if old is _MISSING:
                props.pop(name, None)
            else:
                props[name] = old
        elif op == "group":
            rec = self.pieces[undo[1]]
            self._regroup(undo[1], rec.group, undo[2])
            rec.group = undo[2]
        elif op == "move":
            _, pid, zone, index, slot, _ = undo
            rec = self.pieces[pid]
            for z in {rec.zone, zone}:  # the piece may have left its zone without reaching the new one
                if pid in self.zones[z].contents:
                    self.zones[z].contents.remove(pid)
            self.zones[zone].contents.insert(index, pid)
            rec.zone, rec.slot = zone, slot
        elif op == "create":
            _, pid, zone, _ = undo
            self.pieces.pop(pid, None)
            if pid in self.zones[zone].contents:
                self.zones[zone].contents.remove(pid)
        elif op == "remove":
            _, pid, rec, index, _ = undo
            if pid not in self.pieces:  # a copy: the entry's record must stay as removed if a redo replays it
                self._restore_piece(pid, _copy_piece(rec))
            if pid not in self.zones[rec.zone].contents:
                self.zones[rec.zone].contents.insert(index, pid)
        elif op == "marker":
            _, name, pos, last, _ = undo
            self.markers[name].pos, self.markers[name].last = pos, last
        elif op == "var":
            if undo[2] is _MISSING:
                self.vars.pop(undo[1], None)
            else:
                self.vars[undo[1]] = undo[2]
        elif op == "usage":
            _, scope, key, old, _ = undo
            if old is _MISSING:
                self.usage[scope].pop(key, None)
            else:
                self.usage[scope][key] = old
        elif op == "usage_scope":
            self.usage[undo[1]] = undo[2]
        elif op == "deferred":
            self.deferred = undo[1]
        elif op == "id_counter":
            if undo[2] is _MISSING:
                self.id_counters.pop(undo[1], None)
            else:
                self.id_counters[undo[1]] = undo[2]
        else:  # pragma: no cover - a new operation without an inverse is a programming error
            raise AssertionError(f"no inverse for journal operation {op}")

    def _regroup(self, pid: str, old: str | None, new: str | None) -> None:
        if old is not None:
            members = self.groups.get(old)
            if members is not None:
                members.discard(pid)
                if not members:
                    del self.groups[old]
        if new is not None:
            self.groups.setdefault(new, set()).add(pid)

    def _index_groups(self) -> None:
        self.groups = {}
        for pid, rec in self.pieces.items():
            if rec.group is not None:
                self.groups.setdefault(rec.group, set()).add(pid)

    def _restore_piece(self, pid: str, rec: PieceRec) -> None:
        """Put a removed piece back, in O(1): the dict's order is not creation order after this, so whatever
        follows creation order (of_kind, to_json) reads `PieceRec.order`, not the dict's order."""
        self.pieces[pid] = rec
        self._regroup(pid, None, rec.group)

    # ------------------------------------------------------------ declarations (before play; not journaled)
    def add_zone(self, key: str, rec: ZoneRec) -> None:
        self.zones[key] = rec

    def add_marker(self, name: str, track: str, pos: int) -> None:
        self.markers[name] = MarkerRec(track, pos)

    def init_counter(self, key: str, value: Any) -> None:
        self.counters[key] = value

    # ------------------------------------------------------------ primitive operations
    def set_counter(self, key: str, value: Any) -> None:
        counters = self.counters
        old = counters.get(key, _MISSING)
        if type(value) is int:
            if type(old) is int and old == value:
                return
            if not -_SAVABLE < value < _SAVABLE:
                self._savable(value)
        elif old is value:
            return
        self.journal.append(("counter", key, old, self.cause))
        counters[key] = value

    def set_prop(self, pid: str, name: str, value: Any) -> None:
        self._savable(value)
        props = self.pieces[pid].props
        old = props.get(name, _MISSING)
        if old is value or (type(value) is int and type(old) is int and old == value):
            return
        self.journal.append(("prop", pid, name, old, self.cause))
        props[name] = value

    def _savable(self, value: Any) -> None:
        if type(value) is int and not -_SAVABLE < value < _SAVABLE:
            raise BoardrulesError("E513", f"a number of {value.bit_length()} bits cannot be saved", self.cause,
                                  "numbers are bounded (see SECURITY.md)")

    def set_group(self, pid: str, group: str | None) -> None:
        rec = self.pieces[pid]
        self._log("group", pid, rec.group)
        self._regroup(pid, rec.group, group)
        rec.group = group

    def new_group(self) -> str:
        """A name for a new set of linked pieces, never used before in this game."""
        n = self.vars.get("groups", 0) + 1
        self.set_var("groups", n)
        return f"group_{n}"

    def new_id(self, kind: str) -> str:
        n = self.id_counters.get(kind, 0)
        while True:
            n += 1
            pid = f"{kind}_{n}"
            if pid not in self.pieces:
                break
        self._log("id_counter", kind, self.id_counters.get(kind, _MISSING))
        self.id_counters[kind] = n
        return pid

    def create_piece(self, pid: str, kind: str, zone: str, slot: int | None, props: dict[str, Any]) -> None:
        if pid in self.pieces:
            raise BoardrulesError("E510", f"a piece with id '{pid}' already exists", self.cause)
        self._check_room(zone, slot)
        for value in props.values():
            self._savable(value)
        order = self.vars["serial"]
        self.set_var("serial", order + 1)
        self._log("create", pid, zone)
        self.pieces[pid] = PieceRec(kind, zone, None, dict(props), None, order)
        self._place(pid, zone, slot)

    def remove_piece(self, pid: str) -> None:
        rec = self.pieces[pid]
        contents = self.zones[rec.zone].contents
        index = contents.index(pid)
        self._log("remove", pid, rec, index)
        del self.pieces[pid]
        contents.pop(index)
        self._regroup(pid, rec.group, None)

    def move_piece(self, pid: str, zone: str, slot: int | None) -> None:
        rec = self.pieces[pid]
        old_contents = self.zones[rec.zone].contents
        index = old_contents.index(pid)
        old_zone, old_slot = rec.zone, rec.slot
        if not (zone == old_zone and slot == old_slot and slot is not None):
            self._check_room(zone, slot, moving=pid)
        self._log("move", pid, old_zone, index, old_slot)
        old_contents.pop(index)
        self._place(pid, zone, slot)

    def _check_room(self, zone: str, slot: int | None, moving: str | None = None) -> None:
        z = self.zones[zone]
        if UNKNOWN_SIZE in (z.capacity, z.slots):
            raise BoardrulesError("E601", f"the size of zone '{zone}' is unknown, so a piece cannot be placed there",
                                  self.cause, "fill the value in the pack once it is known")
        if z.capacity is None and z.slots is None:  # most zones: nothing to check
            return
        others = [p for p in z.contents if p != moving]
        if isinstance(z.capacity, int) and len(others) >= z.capacity:
            raise BoardrulesError("E504", f"zone '{zone}' is full ({z.capacity} pieces)", self.cause)
        if isinstance(z.slots, int):
            if slot is None or not 1 <= slot <= z.slots:
                raise BoardrulesError("E504", f"zone '{zone}' has slots 1..{z.slots}; got {slot}", self.cause)
            if sum(1 for p in others if self.pieces[p].slot == slot) >= z.slot_capacity:
                raise BoardrulesError("E504", f"slot {slot} of zone '{zone}' is full", self.cause)

    def _place(self, pid: str, zone: str, slot: int | None) -> None:
        z = self.zones[zone]
        rec = self.pieces[pid]
        rec.zone = zone
        if z.slots is None and z.ordered and slot is not None:
            z.contents.insert(max(0, min(slot - 1, len(z.contents))), pid)
            rec.slot = None
        else:
            z.contents.append(pid)
            rec.slot = slot if z.slots is not None else None

    def set_marker(self, name: str, pos: int, last: list[int]) -> None:
        m = self.markers[name]
        self._log("marker", name, m.pos, m.last)
        m.pos, m.last = pos, last

    def set_var(self, name: str, value: Any) -> None:
        self._savable(value)
        old = self.vars.get(name, _MISSING)
        if old is value or (type(value) is int and type(old) is int and old == value):
            return
        self.journal.append(("var", name, old, self.cause))
        self.vars[name] = value

    def use(self, scope: str, key: str) -> int:
        """Count one use of a limit; returns the new count."""
        old = self.usage[scope].get(key, _MISSING)
        self._log("usage", scope, key, old)
        count = (0 if not isinstance(old, int) else old) + 1
        self.usage[scope][key] = count
        return count

    def clear_usage(self, scope: str) -> None:
        if self.usage[scope]:
            self._log("usage_scope", scope, self.usage[scope])
            self.usage[scope] = {}

    def set_deferred(self, items: list[dict[str, Any]]) -> None:
        self._log("deferred", self.deferred)
        self.deferred = items

    # ------------------------------------------------------------ seeded generator (xorshift64*)
    def random_below(self, n: int) -> int:
        """A uniform integer in [0, n), from the journaled generator, so replays and undo are exact."""
        x = self.vars["rng"] or 0x2545F4914F6CDD1D
        x ^= (x >> 12) & _MASK64
        x ^= (x << 25) & _MASK64
        x ^= (x >> 27) & _MASK64
        self.set_var("rng", x & _MASK64)
        return (((x * 0x2545F4914F6CDD1D) & _MASK64) >> 11) % n

    # ------------------------------------------------------------ reading
    def group_of(self, pid: str) -> list[str]:
        group = self.pieces[pid].group
        if group is None:
            return [pid]
        return sorted(self.groups[group], key=self.order_of)

    def group_members(self, group: str) -> set[str]:
        return self.groups.get(group, set())

    def order_of(self, pid: str) -> int:
        return self.pieces[pid].order

    def of_kind(self, kind: str) -> list[str]:
        return sorted((p for p, rec in self.pieces.items() if rec.kind == kind), key=self.order_of)

    def position_in_zone(self, pid: str) -> int | None:
        rec = self.pieces[pid]
        if rec.slot is not None:
            return rec.slot
        if self.zones[rec.zone].ordered:
            return self.zones[rec.zone].contents.index(pid) + 1
        return None

    def copy(self) -> State:
        """An independent copy of the state without its journal (a clone for search starts a new history)."""
        other = State.__new__(State)
        other.players = list(self.players)
        other.counters = dict(self.counters)
        other.zones = {k: ZoneRec(z.ordered, z.slots, z.slot_capacity, z.capacity, z.owner, list(z.contents))
                       for k, z in self.zones.items()}
        other.pieces = {k: PieceRec(p.kind, p.zone, p.slot, dict(p.props), p.group, p.order)
                        for k, p in self.pieces.items()}
        other.markers = {k: MarkerRec(m.track, m.pos, list(m.last)) for k, m in self.markers.items()}
        other.vars = {k: list(v) if isinstance(v, list) else v for k, v in self.vars.items()}
        other.deferred = [dict(d) for d in self.deferred]
        other.usage = {k: dict(v) for k, v in self.usage.items()}
        other.id_counters = dict(self.id_counters)
        other.journal = []
        other.cause = None
        other._index_groups()
        return other

    # ------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "counters": {k: encode(v) for k, v in self.counters.items()},
            "zones": {
                k: {
                    "ordered": z.ordered,
                    "slots": z.slots,
                    "slot_capacity": z.slot_capacity,
                    "capacity": z.capacity,
                    "owner": z.owner,
                    "contents": list(z.contents),
                }
                for k, z in self.zones.items()
            },
            "pieces": {
                k: {
                    "kind": p.kind,
                    "zone": p.zone,
                    "slot": p.slot,
                    "group": p.group,
                    "order": p.order,
                    "props": {n: encode(v) for n, v in p.props.items()},
                }
                for k, p in sorted(self.pieces.items(), key=_by_order)  # nearly sorted: about linear
            },
            "markers": {k: {"track": m.track, "pos": m.pos, "last": list(m.last)} for k, m in self.markers.items()},
            "vars": {k: encode(v) for k, v in self.vars.items()},
            "deferred": [dict(d) for d in self.deferred],
            "usage": {k: dict(v) for k, v in self.usage.items()},
            "id_counters": dict(self.id_counters),
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> State:
        st = cls(data["players"], 0)
        st.counters = {k: decode(v) for k, v in data["counters"].items()}
        st.zones = {
            k: ZoneRec(z["ordered"], z["slots"], z["slot_capacity"], z["capacity"], z["owner"], list(z["contents"]))
            for k, z in data["zones"].items()
        }
        st.pieces = {
            k: PieceRec(p["kind"], p["zone"], p["slot"], {n: decode(v) for n, v in p["props"].items()}, p["group"],
                        p["order"])
            for k, p in sorted(data["pieces"].items(), key=lambda kp: kp[1]["order"])
        }
        st.markers = {k: MarkerRec(m["track"], m["pos"], list(m["last"])) for k, m in data["markers"].items()}
        st.vars = {k: decode(v) for k, v in data["vars"].items()}
        st.deferred = [dict(d) for d in data["deferred"]]
        st.usage = {k: dict(v) for k, v in data["usage"].items()}
        st.id_counters = dict(data["id_counters"])
        st._index_groups()
        return st

    @classmethod
    def loads(cls, text: str) -> State:
        return cls.from_json(json.loads(text))
