"""What must hold after every step of a game: counters within their declared range, zones within their
capacity, conserved piece kinds keeping their count, and the designer's `invariants:` of the pack."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ..diagnostics import BoardrulesError
from ..engine.rules import Rules
from ..game import Game


@dataclass(frozen=True)
class Violation:
    rule: str  # the invariant's name, or counters.NAME / zones.NAME / pieces.KIND for a built-in one
    where: str | None  # file:line:col of its declaration
    message: str


class Checker:
    """Checks one game's committed state; built once per game (the conserved counts are taken after setup)."""

    def __init__(self, rules: Rules, players: int) -> None:
        self.rules = rules
        self.bounds: dict[str, tuple[int | None, int | None]] = {
            name: (c.min, rules.resolve_int(c.max, players)) for name, c in rules.counters.items()}
        self.conserved: Counter[str] | None = None

    def check(self, game: Game) -> Violation | None:
        st = game.state
        rules = self.rules
        for key, value in st.counters.items():
            if type(value) is not int:
                continue
            name = key.rpartition(".")[2].partition("[")[0]
            low, high = self.bounds.get(name, (None, None))
            decl = rules.counters.get(name)
            if decl is not None and decl.key_limits:
                low, raw_high = decl.limits_of(key[key.rindex("[") + 1:-1])
                high = rules.resolve_int(raw_high, len(game.players))
            if (low is not None and value < low) or (high is not None and value > high):
                decl = rules.counters[name]
                return Violation(f"counters.{name}", str(decl.span), f"counter {key} is {value}, outside "
                                 f"{low if low is not None else '-inf'}..{high if high is not None else 'inf'}")
        for zname, z in st.zones.items():
            if type(z.capacity) is int and len(z.contents) > z.capacity:
                return self._zone(zname, f"zone {zname} holds {len(z.contents)} pieces, its capacity is {z.capacity}")
            if type(z.slots) is int:
                used = Counter(st.pieces[p].slot for p in z.contents)
                over = [s for s, n in used.items() if n > z.slot_capacity]
                if over:
                    return self._zone(zname, f"slot {over[0]} of zone {zname} holds {used[over[0]]} pieces, "
                                      f"its capacity is {z.slot_capacity}")
        if rules.conserved and game.log:  # the counts are fixed once setup is done
            counts = Counter(p.kind for p in st.pieces.values() if p.kind in rules.conserved)
            if self.conserved is None:
                self.conserved = counts
            elif counts != self.conserved:
                kind = next(k for k in sorted(rules.conserved) if counts[k] != self.conserved[k])
                return Violation(f"pieces.{kind}", None, f"there are {counts[kind]} pieces of kind {kind}, "
                                 f"{self.conserved[kind]} after setup (the kind is conserved)")
        driver = game.driver()
        for inv in rules.invariants:
            for me in (game.players if inv.per == "player" else [None]):
                try:
                    ok = driver.evaluate(inv.check, me)
                except BoardrulesError as err:
                    return Violation(inv.name, str(inv.span), f"'{inv.text}' could not be evaluated: "
                                     f"{err.diagnostic.message}")
                if ok is not True:
                    who = f" for {me}" if me is not None else ""
                    return Violation(inv.name, str(inv.span), f"'{inv.text}' does not hold{who}")
        return None

    def _zone(self, name: str, message: str) -> Violation:
        decl = self.rules.zones.get(name.rpartition(".")[2])
        return Violation(f"zones.{name.rpartition('.')[2]}", str(decl.span) if decl else None, message)


def describe(v: Violation) -> dict[str, Any]:
    return {"rule": v.rule, "where": v.where, "message": v.message}
