"""Check a scenario's `state:` overrides against the linked rules before any of them is applied.

The schema checks their shape; this checks what only the rules know, as strictly as a rule file is checked:
counter keys are counter references (a name, `p1.name`, `name[key]` or `p1.name[key]`, never an effect that
would be run), property values have their property's type, pieces go to zones and slots that exist, markers sit
on their track, links name pieces, and the turn goes to a seat the game has. Every problem is a diagnostic at
its place in the scenario file, and all of them are reported together. A name the modules do not have is E841,
the code `boardrules check` gives it (analysis/scenarios.py runs first, in `check` and in `test`; this adds what
only a game in its starting state can tell: pieces setup made, slots, tracks, the values' types).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..diagnostics import Diagnostic, Diagnostics, Span, did_you_mean
from ..engine.values import shown
from ..language import syntax as s
from ..language.parser import ParseError, parse

if TYPE_CHECKING:
    from ..game import Game

_TYPES = {"int": "a number", "bool": "true or false", "symbol": "a symbol", "player": "a player (p1, p2, ...)",
          "piece": "a piece id"}


def check_state(game: Game, spec: Any, base: Span) -> list[Diagnostic]:
    """Every problem of the `state:` block `spec`; empty when it can be applied."""
    diags = Diagnostics()
    if not isinstance(spec, dict):
        return []
    _Checker(game, diags, base).run(spec)
    return diags.sorted()


def _key_span(table: Any, key: Any, fallback: Span) -> Span:
    return getattr(table, "key_spans", {}).get(key, fallback)


def _value_span(table: Any, key: Any, fallback: Span) -> Span:
    return getattr(table, "value_spans", {}).get(key, fallback)


def _item_span(items: Any, index: int, fallback: Span) -> Span:
    spans = getattr(items, "item_spans", None)
    return spans[index] if spans and index < len(spans) else fallback


class _Checker:
    def __init__(self, game: Game, diags: Diagnostics, base: Span) -> None:
        self.game = game
        self.rules = game.rules
        self.state = game.state
        self.diags = diags
        self.base = base
        self.new_ids: set[str] = set()
        self.gone: set[str] = set()  # pieces of the zones `empty` clears

    def run(self, spec: dict) -> None:
        empty = spec.get("empty")
        for zone in empty if isinstance(empty, list) else []:
            if str(zone) in self.state.zones:
                self.gone.update(self.state.zones[str(zone)].contents)
        self.counters(spec.get("counters"), _value_span(spec, "counters", self.base))
        self.pieces(spec.get("pieces"), _value_span(spec, "pieces", self.base))
        self.links(spec.get("links"), _value_span(spec, "links", self.base))
        self.markers(spec.get("markers"), _value_span(spec, "markers", self.base))
        turn = spec.get("turn")
        if isinstance(turn, dict) and "player" in turn:
            self.seat(turn["player"], _value_span(turn, "player", self.base))

    # ---------------------------------------------------------------- counters
    def counters(self, table: Any, span: Span) -> None:
        if not isinstance(table, dict):
            return
        for key, value in table.items():
            kspan = _key_span(table, key, span)
            if self.counter_key(str(key), kspan) and not (type(value) is int or type(value) is bool):
                self.diags.error("E402", f"counter '{key}' holds a number, not {shown(value)}",
                                 _value_span(table, key, kspan))

    def counter_key(self, key: str, span: Span) -> bool:
        """True when `key` is a reference to one counter cell the rules declare."""
        try:
            node = parse(key, "expr")
        except ParseError as err:
            self.diags.error("E841", f"'{_short(key)}' is not a counter: {err.message}", span,
                             "write a counter as name, p1.name, name[key] or p1.name[key]")
            return False
        key_node = None
        if isinstance(node, s.Index):
            key_node, node = node.key, node.obj
        owner = None
        if isinstance(node, s.Attr) and isinstance(node.obj, s.Name):
            owner, name = node.obj.id, node.name
        elif isinstance(node, s.Name):
            name = node.id
        else:
            self.diags.error("E841", f"'{_short(key)}' is not a counter", span,
                             "write a counter as name, p1.name, name[key] or p1.name[key]")
            return False
        counter = self.rules.counters.get(name)
        if counter is None and name in self.rules.markers:
            where = f"{owner}.{name}" if owner is not None else name
            self.diags.error("E841", f"'{name}' is a track marker, not a counter", span,
                             f"give its space under markers: (markers: {{{where}: SPACE}})")
            return False
        if counter is None:
            self.diags.error("E841", f"unknown counter '{name}'", span, did_you_mean(name, self.rules.counters))
            return False
        if owner is not None and not self.is_seat(owner):
            self.diags.error("E841", f"'{owner}' is not a player of this {len(self.game.players)}-player game",
                             span)
            return False
        if (owner is None) != (counter.per == "game"):
            want = "without a player (name)" if counter.per == "game" else "with a player (p1.name)"
            self.diags.error("E841", f"counter '{name}' is per {counter.per}: write it {want}", span)
            return False
        if (key_node is None) != (counter.keys is None):
            self.diags.error("E841", f"counter '{name}' {'has' if counter.keys else 'has no'} keys", span)
            return False
        if key_node is not None:
            k = key_node.id if isinstance(key_node, s.Name) else None
            if k not in (counter.keys or ()):
                self.diags.error("E841", f"'{_short(key)}' names no key of '{name}' ({', '.join(counter.keys or ())})",
                                 span)
                return False
        return True

    # ---------------------------------------------------------------- pieces
    def pieces(self, items: Any, span: Span) -> None:
        if not isinstance(items, list):
            return
        for i, piece in enumerate(items):
            if isinstance(piece, dict):
                self.piece(piece, _item_span(items, i, span))

    def piece(self, spec: dict, span: Span) -> None:
        pid, kind, zone = str(spec.get("id", "")), str(spec.get("kind", "")), str(spec.get("zone", ""))
        if self.exists(pid) or pid in self.new_ids:
            self.diags.error("E403", f"a piece with id '{pid}' already exists", _value_span(spec, "id", span))
        self.new_ids.add(pid)
        declared = self.rules.kinds.get(kind)
        if declared is None:
            self.diags.error("E841", f"unknown piece kind '{kind}'", _value_span(spec, "kind", span),
                             did_you_mean(kind, self.rules.kinds))
        rec = self.state.zones.get(zone)
        if rec is None:
            self.diags.error("E841", f"unknown zone '{zone}'", _value_span(spec, "zone", span),
                             did_you_mean(zone, self.state.zones))
        elif "slot" in spec:
            slot = spec["slot"]
            top = rec.slots  # in an ordered zone the slot is a position, put at the end when past it
            if top is None and not rec.ordered:
                self.diags.error("E402", f"zone '{zone}' has no slots or order, so a piece there has no slot",
                                 _value_span(spec, "slot", span))
            elif type(top) is int and not (type(slot) is int and 1 <= slot <= top):
                self.diags.error("E402", f"slot {shown(slot)} is not a slot of zone '{zone}' (1..{top})",
                                 _value_span(spec, "slot", span))
        props = spec.get("props")
        if declared is None or not isinstance(props, dict):
            return
        for name, value in props.items():
            pspan = _value_span(props, name, span)
            if name not in declared:
                self.diags.error("E841", f"'{kind}' has no property '{name}'", _key_span(props, name, span),
                                 did_you_mean(str(name), declared))
            elif not self.fits(value, declared[name]):
                self.diags.error("E402", f"property '{name}' is {_TYPES.get(declared[name], declared[name])}, "
                                 f"not {shown(value)}", pspan)

    def fits(self, value: Any, ptype: str) -> bool:
        if ptype == "int":
            return type(value) is int
        if ptype == "bool":
            return type(value) is bool
        if ptype == "player":
            return isinstance(value, str) and self.is_seat(value)
        if ptype == "piece":
            return isinstance(value, str) and (self.exists(value.removeprefix("$"))
                                               or value.removeprefix("$") in self.new_ids)
        if ptype == "symbol":
            return isinstance(value, str) and not isinstance(value, bool)
        return True  # a type the checker does not know yet is left to the rules

    # ---------------------------------------------------------------- links, markers, turn
    def links(self, groups: Any, span: Span) -> None:
        if not isinstance(groups, list):
            return
        for i, group in enumerate(groups):
            if not isinstance(group, list):
                continue
            gspan = _item_span(groups, i, span)
            for j, pid in enumerate(group):
                name = str(pid).removeprefix("$")
                if not self.exists(name) and name not in self.new_ids:
                    self.diags.error("E841", f"cannot link unknown piece '{name}'", _item_span(group, j, gspan))

    def markers(self, table: Any, span: Span) -> None:
        if not isinstance(table, dict):
            return
        for marker, pos in table.items():
            kspan = _key_span(table, marker, span)
            if marker not in self.state.markers:
                self.diags.error("E841", f"unknown marker '{marker}'", kspan, did_you_mean(str(marker),
                                                                                          self.state.markers))
                continue
            track = self.rules.tracks[self.state.markers[marker].track]
            spaces = self.rules.resolve_int(track.spaces, len(self.game.players))
            if type(spaces) is int and not (type(pos) is int and 1 <= pos <= spaces):
                self.diags.error("E402", f"space {shown(pos)} is not on track '{track.name}' (1..{spaces})",
                                 _value_span(table, marker, kspan))

    def seat(self, value: Any, span: Span) -> None:
        if not (isinstance(value, str) and self.is_seat(value)):
            self.diags.error("E841", f"'{value}' is not a player of this {len(self.game.players)}-player game", span)

    def exists(self, pid: str) -> bool:
        return pid in self.state.pieces and pid not in self.gone

    def is_seat(self, name: str) -> bool:
        return name in self.game.players


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."
