"""How good a position is for a player, as the bots and the MCTS rollouts read it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.values import Unknown

if TYPE_CHECKING:
    from ..game import Game


def score(game: Game, player: str) -> float:
    """How good the game is now for `player`: the pack's `bot_score`, else its first ranking key, else 0."""
    rules = game.rules
    fn = rules.bot_score
    if fn is None and rules.flow is not None and rules.flow.ranking:
        fn = rules.flow.ranking[0][0]
    if fn is None:
        return 0.0
    value = game.driver().evaluate(fn, player)
    if isinstance(value, (Unknown, bool)) or not isinstance(value, int | float):
        return 0.0
    return float(value)
