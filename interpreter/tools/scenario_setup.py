"""Set up each scenario configuration once: scenarios on the same linked rules, player count, seed and flow start
from the same set-up game, so the runner sets it up once and starts each scenario from a copy.

The copy is the fresh game exactly: the state, the journal of the setup (a failed expectation names the setup
rule that last changed a value), the log, the rules the setup ran, and what the setup spent of the work budget
(a scenario's `state:` overrides run outside any transaction, on what is left of it). A configuration whose
setup fails or stops at a decision is not shared: each scenario then sets itself up and meets the same
failure where it always did. tests/test_scenario_setup.py proves the copies equal to fresh setups for every
shipped scenario.
"""

from __future__ import annotations

from typing import Any

from ..engine.rules import Rules
from ..game import Game

_Key = tuple[int, int, int, bool, int]


class SetUpGames:
    def __init__(self) -> None:
        # The template holds its rules and coverage trace, so the id()s in a key cannot be reused.
        self._templates: dict[_Key, Game | None] = {}

    def start(self, rules: Rules, players: int, seed: int, flow: bool, trace: set[Any] | None) -> tuple[Game, bool]:
        """A game for one scenario, and whether it is set up already. Raises as `Game(...)` does."""
        key = (id(rules), players, seed, flow, id(trace))
        if key not in self._templates:
            self._templates[key] = _template(rules, players, seed, flow, trace)
        template = self._templates[key]
        if template is None:
            return Game(rules, players, seed, flow=flow), False
        game = template.clone(journal=True)
        game.driver().record_coverage(trace)
        return game, True


def _template(rules: Rules, players: int, seed: int, flow: bool, trace: set[Any] | None) -> Game | None:
    try:
        game = Game(rules, players, seed, flow=flow)
        # The coverage trace is a set: what this setup adds, every copy's fresh setup would have added again.
        game.driver().record_coverage(trace)
        game.setup()
    except Exception:  # each scenario sets itself up and reports the failure at its own place
        return None
    if not game.at_rest():
        return None  # a setup waiting for an answer is not a starting point to share
    return game
