"""Paying costs: checking what a player can pay, asking which alternative and which keys, and paying it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..diagnostics import BoardrulesError
from . import substitution
from .effects import CostC, CostTermC
from .interpreter import Frame
from .runtime import check_known, runtime_type_error
from .substitution import Due, Way
from .values import Player, plain, shown

if TYPE_CHECKING:
    from .rules import Rules
    from .state import State


class Payments:
    """Mixed into Game: costs with fixed amounts, [any] and [different] keys, and `or` alternatives.

    Every amount and key of a cost (its alternatives and the ways substitutions add) is worked out once, in the
    state before anything is paid, so `(me.a) a + (me.a) b` pays me.a of each, not me.a and then what is left."""

    rules: Rules
    state: State
    coverage: set[Any] | None
    dry: bool  # a dry run of the legal-move search: a refusal is a verdict, its hint never read

    # Provided by the other parts of Game.
    choose: Callable[..., Any]
    set_counter: Callable[..., None]
    marker_room: Callable[[str, int], bool]
    spend_marker: Callable[[str, int], None]

    def due(self, term: CostTermC, f: Frame) -> Due:
        amount = term.amount.fn(f)
        if type(amount) is not int or amount < 0:
            check_known(amount, f)
            raise runtime_type_error(f"a cost amount must be a number >= 0, got {shown(amount)}", f)
        counter = term.counter
        base = counter if term.per == "game" else f"{self._payer(f).id}.{counter}"
        if term.marker:
            return Due(counter, base, amount, None, True)
        # Positional, and no `lacking` unless the term has one: a due is made per term per pay.
        key = term.key_fn.fn(f) if term.key_fn else term.key
        if term.lacking is None:
            return Due(counter, base, amount, key)
        return Due(counter, base, amount, key, False, self.due(term.lacking, f))

    def _payer(self, f: Frame) -> Player:
        if f.me is None:
            raise runtime_type_error("a cost is paid by the acting player, and there is none", f)
        return f.me

    def _keys(self, counter: str) -> tuple[str, ...]:
        return self.rules.counters[counter].keys or ()

    def _have(self, key: str, f: Frame) -> int:
        """What the payer holds; a counter the source leaves unknown cannot pay for anything (E601)."""
        v = self.state.counters.get(key, 0)
        if type(v) is int:
            return v
        check_known(v, f)
        return 0

    def _way_payable(self, way: Way, f: Frame) -> bool:
        if len(way.dues) == 1:  # most ways are one term: nothing to add up (as the general case below decides)
            d = way.dues[0]
            if d.marker:
                return self.marker_room(d.base, d.amount)
            key = d.key
            if key is None:
                cell = d.base
            elif key in ("any", "different"):
                rest = [self._have(cell, f) - low for _, cell, low in self._cells(d.base, d.counter)]
                if key == "any":
                    return bool(rest) and max(rest) >= d.amount
                return sum(1 for r in rest if r >= 1) >= d.amount
            else:
                cell = f"{d.base}[{plain(key)}]"
            floor = self._floor(cell)
            return self._have(cell, f) - d.amount >= floor
        fixed: dict[str, int] = {}
        flexible = []
        moves: dict[str, int] = {}
        for d in way.dues:
            if d.marker:
                moves[d.base] = moves.get(d.base, 0) + d.amount
            elif d.key is None:
                fixed[d.base] = fixed.get(d.base, 0) + d.amount
            elif d.key in ("any", "different"):
                flexible.append(d)
            else:
                k = f"{d.base}[{plain(d.key)}]"
                fixed[k] = fixed.get(k, 0) + d.amount
        if any(not self.marker_room(m, n) for m, n in moves.items()):
            return False
        low = {k: self._floor(k) for k in fixed}
        if any(self._have(k, f) - n < low[k] for k, n in fixed.items()):
            return False
        for d in flexible:
            rest = [self._have(cell, f) - fixed.get(cell, 0) - low for _, cell, low in self._cells(d.base, d.counter)]
            if d.key == "any" and not any(r >= d.amount for r in rest):
                return False
            if d.key == "different" and sum(1 for r in rest if r >= 1) < d.amount:
                return False
        return True

    def _cells(self, base: str, counter: str) -> tuple[tuple[str, str, int], ...]:
        """(key, the cell's state key, its minimum) for every key of a keyed counter, made once per rule set."""
        cells = self.rules.cost_cells.get((base, counter))
        if cells is None:
            cells = self.rules.cost_cells[(base, counter)] = tuple(
                (k, f"{base}[{k}]", self._floor(f"{base}[{k}]")) for k in self._keys(counter))
        return cells

    def _floor(self, key: str) -> int:
        floors = self.rules.floors
        low = floors.get(key)
        if low is None:
            name, _, cell = key.split(".", 1)[-1].partition("[")
            low = self.rules.counters[name].limits_of(cell[:-1] or None)[0]
            low = floors[key] = low if low is not None else -(10**9)
        return low

    def payable(self, cost: CostC, f: Frame) -> bool:
        return any(self._way_payable(way, f) for way in substitution.ways(self, cost, f))

    def pay(self, cost: CostC, f: Frame) -> None:
        found = substitution.ways(self, cost, f)
        if len(found) == 1:  # the commonest cost: one way, no choice among those payable
            payable = found if self._way_payable(found[0], f) else []
        else:
            payable = [way for way in found if self._way_payable(way, f)]
        if not payable:
            raise BoardrulesError("E502", f"cannot pay {cost.text}", cost.span,
                                  None if self.dry else f"{self._payer(f).id} has " + self._holdings(cost, f))
        way = payable[0]
        if len(payable) > 1:
            ways: dict[str, Way] = {}
            for w in payable:  # one option per label (substitutions can reach one sum two ways)
                ways.setdefault(w.label(), w)
            if len(ways) > 1:
                chosen = self.choose(self._payer(f), f"pay {cost.text}", list(ways), (), False, False)
                way = ways[chosen]
        if self.coverage is not None and len(cost.alternatives) > 1:
            self.coverage.add((cost.span, way.alternative))
        for d in way.dues:
            if d.marker:
                self.spend_marker(d.base, d.amount)
            elif d.key is None:
                self.set_counter(d.base, d.counter, self.state.counters[d.base] - d.amount, "E502")
            elif d.key == "any":
                keys = [k for k, cell, low in self._cells(d.base, d.counter) if self._have(cell, f) - d.amount >= low]
                k = self.choose(self._payer(f), f"pay {d.amount} {d.counter} of any kind", keys, (), False, False)
                self.set_counter(f"{d.base}[{k}]", d.counter, self._have(f"{d.base}[{k}]", f) - d.amount, "E502")
            elif d.key == "different":
                keys = [k for k, cell, low in self._cells(d.base, d.counter) if self._have(cell, f) - 1 >= low]
                chosen = self.choose(self._payer(f), f"pay {d.amount} different {d.counter}", keys, (d.amount,),
                                     False, True)
                for k in chosen:
                    self.set_counter(f"{d.base}[{k}]", d.counter, self._have(f"{d.base}[{k}]", f) - 1, "E502")
            else:
                k = f"{d.base}[{plain(d.key)}]"
                self.set_counter(k, d.counter, self._have(k, f) - d.amount, "E502")

    def _holdings(self, cost: CostC, f: Frame) -> str:
        shown = []
        for alt in cost.alternatives:
            for term in alt:
                base = term.counter if term.per == "game" else f"{self._payer(f).id}.{term.counter}"
                if term.marker:
                    shown.append(f"{term.counter} on space {self.state.markers[base].pos}")
                    continue
                keys = self._keys(term.counter)
                if keys:
                    shown.append(f"{term.counter} " + ", ".join(f"{k}={self._have(f'{base}[{k}]', f)}" for k in keys))
                else:
                    shown.append(f"{term.counter}={self._have(base, f)}")
        return "; ".join(dict.fromkeys(shown))
