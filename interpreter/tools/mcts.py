"""`mcts`: a Monte Carlo tree search bot on `Game.clone()`.

Budget: `iterations` simulations per decision (`--bots p1=mcts` uses 32; `p1=mcts:200` sets it). Each simulation
copies the game, walks the tree by UCB1 from the decision, adds one new node, then plays at most `rollout` random
decisions with `Game.play_random` (uniform over the legal options, each decision's pick proven alone, a move's
later answers planned by the proof of its pick: no decision of the rollout, nor the one after the new node, is
listed) and scores where it stopped: at the end of the game by `Game.returns()`, before it by the ranking of
the players' `bot_score` (or the ranking as it stands) the same way (+1 first of two, -1 last). Chance is sampled by its
probabilities (open loop: the tree keys a node by the answers that led to it, so one node averages the futures
chance gave it). The option visited most is played. A decision with one option costs nothing.

Work per decision is about `iterations x (tree depth + rollout)` applied decisions; the tree's decisions list their
options (every candidate proven), the rollout's prove about one each: on the second shipped pack, 2 players,
`mcts:8` takes about 17 ms a decision on one core, three times less than when the rollouts listed every decision.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from ..diagnostics import BoardrulesError
from ..game import CHANCE, Game, Option, Pending
from .position_score import score

ITERATIONS = 32
ROLLOUT = 4
EXPLORE = 1.4


@dataclass
class _Node:
    visits: dict[int, int] = field(default_factory=dict)
    total: dict[int, float] = field(default_factory=dict)
    children: dict[int, _Node] = field(default_factory=dict)

    def child(self, option: int) -> _Node:
        node = self.children.get(option)
        if node is None:
            node = self.children[option] = _Node()
        return node


class MCTS:
    """A bot: called with (game, pending, rng), answers with one of the pending decision's options."""

    def __init__(self, iterations: int = ITERATIONS, rollout: int = ROLLOUT, explore: float = EXPLORE) -> None:
        if iterations < 1 or rollout < 0:
            raise BoardrulesError("E509", f"mcts needs at least one iteration, got {iterations}")
        self.iterations, self.rollout, self.explore = iterations, rollout, explore

    def configured(self, arg: str) -> MCTS:
        """`mcts:N`: N iterations per decision."""
        try:
            return MCTS(int(arg), self.rollout, self.explore)
        except ValueError:
            raise BoardrulesError("E509", f"mcts:N takes a number of iterations, got {arg!r}") from None

    def __call__(self, game: Game, pending: Pending, rng: random.Random) -> Option:
        if len(pending.options) == 1:
            return pending.options[0]
        root = _Node()
        for _ in range(self.iterations):
            self._simulate(game, root, rng)
        best = max(pending.options, key=lambda o: (root.visits.get(o.id, 0), root.total.get(o.id, 0.0)))
        return best

    def _simulate(self, game: Game, root: _Node, rng: random.Random) -> None:
        g = game.clone()
        node = root
        path: list[tuple[_Node, str, int]] = []
        expanded = False
        try:
            while not g.is_terminal():
                p = g.pending()
                if p is None:
                    break
                if p.player == CHANCE:
                    pick = p.sample(rng).id
                elif expanded:
                    break  # the rollout plays on from the new node's next decision, without listing its options
                elif not p.options:
                    break
                elif len(p.options) == 1:
                    pick = p.options[0].id
                else:
                    untried = [o.id for o in p.options if o.id not in node.visits]
                    if untried:
                        pick = rng.choice(untried)
                        expanded = True
                    else:
                        pick = self._ucb(node, p, rng)
                    path.append((node, p.player, pick))
                g.apply(pick)
                node = node.child(pick)
            for _ in range(self.rollout):  # uniform random play, each move proven once (Game.play_random)
                if g.is_terminal() or g.play_random(rng) is None:
                    break
            reward = _rewards(g)
        except BoardrulesError:
            reward = {}  # a line of play that fails is worth nothing to anyone (the real game never takes it)
        for n, player, pick in path:
            n.visits[pick] = n.visits.get(pick, 0) + 1
            n.total[pick] = n.total.get(pick, 0.0) + reward.get(player, -1.0)

    def _ucb(self, node: _Node, pending: Pending, rng: random.Random) -> int:
        n = sum(node.visits.get(o.id, 0) for o in pending.options)
        log_n = math.log(max(n, 1))
        best, best_value = [], -math.inf
        for o in pending.options:
            v = node.visits[o.id]
            value = node.total[o.id] / v + self.explore * math.sqrt(log_n / v)
            if value > best_value:
                best, best_value = [o.id], value
            elif value == best_value:
                best.append(o.id)
        return rng.choice(best)


def _rewards(g: Game) -> dict[str, float]:
    """Each player's result in [-1, 1]: the game's returns at the end; before it the same from the pack's
    `bot_score` when it declares one, else from the ranking as it stands (all its keys, so ties on the first key
    are broken as the game would)."""
    players = g.players
    if g.is_terminal():
        return dict(zip(players, g.returns(), strict=True))
    if len(players) == 1:
        return {players[0]: math.tanh(score(g, players[0]) / 10)}
    if g.rules.bot_score is not None:
        ranks = {p: -score(g, p) for p in players}  # a higher score is a better (lower) rank
    else:
        ranks = {row["player"]: float(row["rank"]) for row in g.ranking()}
    return {p: (sum(ranks[q] > ranks[p] for q in players) - sum(ranks[q] < ranks[p] for q in players))
            / (len(players) - 1) for p in players}


mcts_bot = MCTS()

__all__ = ["ITERATIONS", "MCTS", "ROLLOUT", "mcts_bot"]
