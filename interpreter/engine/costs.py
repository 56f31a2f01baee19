"""Paying costs: checking what a player can pay, asking which alternative and which keys, and paying it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..diagnostics import BoardrulesError
from . import substitution
from .effects import CostC, CostTermC
from .interpreter import Frame
from .runtime import check_known, runtime_type_error
from .values import Player, plain

if TYPE_CHECKING:
    from .rules import Rules
    from .state import State


class Payments:
    """Mixed into Game: costs with fixed amounts, [any] and [different] keys, and `or` alternatives."""

    rules: Rules
    state: State
    coverage: set[Any] | None

    # Provided by the other parts of Game.
    choose: Callable[..., Any]
    set_counter: Callable[..., None]

    def _term_needs(self, term: CostTermC, f: Frame) -> tuple[int, str, Any]:
        amount = check_known(term.amount(f), f)
        if type(amount) is not int or amount < 0:
            raise runtime_type_error(f"a cost amount must be a number >= 0, got {amount!r}", f)
        owner = "" if term.per == "game" else f"{self._payer(f).id}."
        return amount, f"{owner}{term.counter}", term.key_fn(f) if term.key_fn else term.key

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

    def _alternative_payable(self, alt: tuple[CostTermC, ...], f: Frame) -> bool:
        fixed: dict[str, int] = {}
        flexible = []
        for term in alt:
            amount, base, key = self._term_needs(term, f)
            if key is None:
                fixed[base] = fixed.get(base, 0) + amount
            elif key in ("any", "different"):
                flexible.append((term, amount, base, key))
            else:
                k = f"{base}[{plain(key)}]"
                fixed[k] = fixed.get(k, 0) + amount
        low = {k: self._floor(k) for k in fixed}
        if any(self._have(k, f) - n < low[k] for k, n in fixed.items()):
            return False
        for term, amount, base, key in flexible:
            rest = [self._have(cell, f) - fixed.get(cell, 0) - low for _, cell, low in self._cells(base, term.counter)]
            if key == "any" and not any(r >= amount for r in rest):
                return False
            if key == "different" and sum(1 for r in rest if r >= 1) < amount:
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
            name = key.split(".", 1)[-1].split("[", 1)[0]
            low = self.rules.counters[name].min
            low = floors[key] = low if low is not None else -(10**9)
        return low

    def _payable(self, cost: CostC, f: Frame) -> bool:
        return any(self._alternative_payable(alt, f) for alt in substitution.alternatives(self, cost, f))

    def _label(self, alt: tuple[CostTermC, ...], f: Frame) -> str:
        parts = []
        for term in alt:
            amount, _, key = self._term_needs(term, f)
            parts.append(f"{amount} {term.counter}" + (f"[{plain(key)}]" if key is not None else ""))
        return " + ".join(parts) or "nothing"

    def pay(self, cost: CostC, f: Frame) -> None:
        payable = [alt for alt in substitution.alternatives(self, cost, f) if self._alternative_payable(alt, f)]
        if not payable:
            raise BoardrulesError("E502", f"cannot pay {cost.text}", cost.span,
                                  f"{self._payer(f).id} has " + self._holdings(cost, f))
        alt = payable[0]
        if len(payable) > 1:
            ways: dict[str, tuple[CostTermC, ...]] = {}
            for way in payable:  # one option per label (substitutions can reach one sum two ways)
                ways.setdefault(self._label(way, f), way)
            if len(ways) > 1:
                chosen = self.choose(self._payer(f), f"pay {cost.text}", list(ways), (), False, False)
                alt = ways[chosen]
        if self.coverage is not None and len(cost.alternatives) > 1:
            self.coverage.add((cost.span, cost.alternatives.index(alt)))
        for term in alt:
            amount, base, key = self._term_needs(term, f)
            if key is None:
                self.set_counter(base, term.counter, self.state.counters[base] - amount, "E502")
            elif key == "any":
                keys = [k for k, cell, low in self._cells(base, term.counter) if self._have(cell, f) - amount >= low]
                k = self.choose(self._payer(f), f"pay {amount} {term.counter} of any kind", keys, (), False, False)
                self.set_counter(f"{base}[{k}]", term.counter, self._have(f"{base}[{k}]", f) - amount, "E502")
            elif key == "different":
                keys = [k for k, cell, low in self._cells(base, term.counter) if self._have(cell, f) - 1 >= low]
                chosen = self.choose(self._payer(f), f"pay {amount} different {term.counter}", keys, (amount,),
                                     False, True)
                for k in chosen:
                    self.set_counter(f"{base}[{k}]", term.counter, self._have(f"{base}[{k}]", f) - 1, "E502")
            else:
                k = f"{base}[{plain(key)}]"
                self.set_counter(k, term.counter, self._have(k, f) - amount, "E502")

    def _holdings(self, cost: CostC, f: Frame) -> str:
        shown = []
        for alt in cost.alternatives:
            for term in alt:
                _, base, _ = self._term_needs(term, f)
                keys = self._keys(term.counter)
                if keys:
                    shown.append(f"{term.counter} " + ", ".join(f"{k}={self._have(f'{base}[{k}]', f)}" for k in keys))
                else:
                    shown.append(f"{term.counter}={self._have(base, f)}")
        return "; ".join(dict.fromkeys(shown))
