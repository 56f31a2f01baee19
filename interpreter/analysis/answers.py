"""What a scenario step's answers can be, from the decisions its action can ask (E841 for one that fits none).

A step's answers go to the decisions its action asks, in order: the cost's (an alternative, a key), `choose`,
`one_of`, `may`, and those of what the action calls, takes or triggers. Which decisions a run asks depends on the
state, so an answer is judged against all of them together: a player where no decision chooses a player, a number
where none chooses a number, a symbol or label that no choice lists. Where a choice's options are not known before
play (a filter, `keys(...)`, a value), every symbol passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine import effects as e
from ..engine.rules import ActionDef, Rules
from ..language import checked as c
from ..language.types import ANY, INT, PIECE, PLAYER, SYMBOL, ZONE, list_of
from .tree import Linked


@dataclass
class Asked:
    """What the decisions an action can ask accept, by kind of answer."""

    words: set[str] = field(default_factory=set)  # symbols and option labels
    any_word: bool = False  # a choice among symbols not known before play
    players: bool = False
    numbers: bool = False
    anything: bool = False  # a choice whose options' type is not known before play
    yes_no: bool = False  # a `may`

    def fits(self, answer: object, is_player: bool) -> bool:
        if self.anything:
            return True
        if isinstance(answer, int) and not isinstance(answer, bool):
            return self.numbers
        if is_player:
            return self.players
        return self.any_word or str(answer) in self.words

    def asks(self) -> bool:
        """Whether the action can ask any decision a scenario answers."""
        return bool(self.words) or self.any_word or self.players or self.numbers or self.anything or self.yes_no

    def wanted(self) -> str:
        kinds = sorted(self.words)[:8] + (["..."] if len(self.words) > 8 else [])
        kinds += ["a player"] if self.players else []
        kinds += ["a number"] if self.numbers else []
        kinds += ["yes or no"] if self.yes_no else []
        return ", ".join(kinds) if kinds else "nothing"


def asked(rules: Rules, linked: Linked, action: ActionDef) -> Asked:
    """The answers the decisions `action` can ask (with what it calls, takes and triggers) accept."""
    out = Asked()
    costs = [action.cost] if action.cost is not None else []
    for eff in linked.reach(action.body):
        if isinstance(eff, e.PayE):
            costs.append(eff.cost)
        elif isinstance(eff, e.TakeE) and eff.action in rules.actions:
            taken = rules.actions[eff.action].cost
            costs += [taken] if taken is not None else []
        elif isinstance(eff, e.ChooseE) and not _by_chance(eff.by):
            _choice(rules, eff, out)
        elif isinstance(eff, e.MayE) and not _by_chance(eff.by):
            out.yes_no = True
        elif isinstance(eff, e.OneOfE) and not _by_chance(eff.by):
            out.words.update(label for label, _, _ in eff.options)
    for cost in costs:
        _cost(rules, cost, out)
    return out


def _by_chance(by: Any) -> bool:
    tree = by.tree if by is not None else None
    return isinstance(tree, c.Name) and tree.ref.kind == "flow" and tree.ref.name == "chance"


def _choice(rules: Rules, eff: e.ChooseE, out: Asked) -> None:
    tree = eff.options.tree
    kind = tree.type if tree is not None else ANY
    if eff.optional:
        out.words.add("none")
    if isinstance(tree, c.Name) and tree.ref.kind == "set":
        out.words.update(tree.ref.decl)
    elif isinstance(tree, c.ListLit) and kind == list_of(SYMBOL) and all(
            isinstance(i, c.Name) and i.ref.kind == "symbol" for i in tree.items):
        out.words.update(i.ref.name for i in tree.items if isinstance(i, c.Name))
    elif kind == list_of(SYMBOL):
        out.any_word = True
    elif kind == list_of(PLAYER):
        out.players = True
    elif kind == list_of(INT):
        out.numbers = True
    elif kind not in (ZONE, list_of(PIECE)):  # pieces are answered as $id, which is not judged here
        out.anything = True


def _cost(rules: Rules, cost: e.CostC, out: Asked) -> None:
    if len(cost.alternatives) > 1:
        out.words.add("nothing")  # an alternative is answered as written; only `nothing` is one word
    for alt in cost.alternatives:
        for term in alt:
            for t in (term, term.lacking):
                if t is not None and t.key in ("any", "different"):
                    out.words.update(rules.counters[t.counter].keys or ())
    if rules.substitutes:
        out.any_word = True  # a substitute's `[any]` asks a key of its own counter
