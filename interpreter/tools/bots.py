"""Players that are programs: `random`, `greedy` (one ply on the score the pack declares), `mcts` (mcts.py), and
any bot another package registers in the entry-point group `boardrules.bots`.

A bot answers a `Pending` decision of the step API with one of its options: a callable
`bot(game, pending, rng) -> Option`. `NAME:ARG` configures a bot that has a `configured(arg)` method
(`mcts:200`). All bots of a game draw from one seeded generator, so a game with the same seed and the same bots
is the same game.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from ..diagnostics import BoardrulesError
from ..game import CHANCE, Game, Option, Pending
from .position_score import score

BOT_NAMES = ("random", "greedy", "mcts")
ENTRY_POINT_GROUP = "boardrules.bots"
LOOKAHEAD_STEPS = 200  # decisions played after a greedy bot's trial option before it scores the result


def chance_option(pending: Pending, rng: random.Random) -> Option:
    """A chance outcome drawn by its probability."""
    return pending.sample(rng)


def random_bot(game: Game, pending: Pending, rng: random.Random) -> Option:
    """Uniform over the legal options, proving candidates only until one can be carried out. (`play_next` does
    not call it: seats played by the random bot play through `Game.play_random`.)"""
    return pending.sample(rng)


def play_next(game: Game, bots: dict[str, str], rng: random.Random, default: str | None = "random",
              seen: Callable[[Pending, Option], None] | None = None) -> Option | None:
    """Let chance or the bot of the seat that decides next answer, and apply the answer; return it, or None
    when nothing is pending or the decision is a seat's without a bot (`default` None: a person's).

    Seats whose bot is `random` (and chance) play through `Game.play_random`: a move's proof draws its later
    answers too, so they are played without proving anything again (same distribution as `random_bot`, other
    seeded games). Every other bot is called as `bot(game, pending, rng)`. `seen(pending, option)` is called
    before each answer is applied (listing `pending.options` there changes nothing in the game)."""
    randoms = [seat for seat in game.players if bots.get(seat, default) == "random"]
    option = game.play_random(rng, randoms, seen)
    if option is not None:
        return option
    pending = game.pending()
    name = bots.get(pending.player, default) if pending is not None and pending.player != CHANCE else None
    if pending is None or name is None:  # (play_random answers chance)
        return None
    option = bot(name)(game, pending, rng)
    if seen is not None:
        seen(pending, option)
    game.apply(option.id)
    return option


def greedy_bot(game: Game, pending: Pending, rng: random.Random) -> Option:
    """Try each option on a copy, play on (own later choices: the first option; chance: sampled) until another
    player decides, the player's next move, or the end; keep the option with the best score (ties at random)."""
    if len(pending.options) == 1:
        return pending.options[0]
    me = pending.player
    best: list[Option] = []
    best_score = float("-inf")
    for option in pending.options:
        trial = game.clone()
        try:
            nxt = trial.apply(option.id)
            for _ in range(LOOKAHEAD_STEPS):
                if nxt is None or trial.is_terminal() or (nxt.player not in (me, CHANCE)) or \
                        (nxt.player == me and nxt.kind == "move"):
                    break
                pick = chance_option(nxt, rng) if nxt.player == CHANCE else nxt.first()
                if pick is None:
                    break
                nxt = trial.apply(pick.id)
            value = score(trial, me)
        except BoardrulesError:
            value = float("-inf")
        if value > best_score:
            best, best_score = [option], value
        elif value == best_score:
            best.append(option)
    return rng.choice(best or list(pending.options))


BOTS: dict[str, Callable[[Game, Pending, random.Random], Option]] = {"random": random_bot, "greedy": greedy_bot}


def parse_bots(text: str | None, players: int) -> dict[str, str]:
    """`p2=random,p3=greedy` -> {"p2": "random", "p3": "greedy"}; a mistake raises BoardrulesError (E509)."""
    out: dict[str, str] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        seat, eq, name = item.strip().partition("=")
        seats = [f"p{i}" for i in range(1, players + 1)]
        if not eq or seat not in seats:
            raise BoardrulesError("E509", f"--bots takes SEAT=BOT with SEAT one of {', '.join(seats)}, got {item!r}")
        bot(name)  # an unknown or misconfigured bot is refused here, before any game starts
        out[seat] = name
    return out


def choose(game: Game, pending: Pending, bots: dict[str, str], rng: random.Random, default: str = "random") -> Any:
    """The option a bot (or chance) picks for this decision: seats without a bot play `default`."""
    if pending.player == CHANCE:
        return chance_option(pending, rng)
    return bot(bots.get(pending.player, default))(game, pending, rng)


def names() -> list[str]:
    """The bots there are: built in, then those other packages register."""
    from importlib.metadata import entry_points

    return [*BOT_NAMES, *sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)} - set(BOT_NAMES))]


@functools.cache
def bot(name: str) -> Callable[[Game, Pending, random.Random], Option]:
    """The bot called `name` (`NAME` or `NAME:ARG`); an unknown one raises BoardrulesError (E509)."""
    base, colon, arg = name.partition(":")
    found: Any = BOTS.get(base)
    if found is None and base == "mcts":
        from .mcts import mcts_bot

        found = mcts_bot
    if found is None:
        from importlib.metadata import entry_points

        plugged = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == base]
        if not plugged:
            raise BoardrulesError("E509", f"unknown bot {base!r}; the bots are {', '.join(names())}")
        try:
            found = plugged[0].load()
        except Exception as exc:  # a broken plug-in is the plug-in's fault: say which
            raise BoardrulesError("E509", f"the bot {base!r} ({plugged[0].value}) cannot be loaded: {exc}") from None
    if colon:
        if not hasattr(found, "configured"):
            raise BoardrulesError("E509", f"the bot {base!r} takes no setting (got {name!r})")
        found = found.configured(arg)
    if not callable(found):
        raise BoardrulesError("E509", f"the bot {base!r} is not callable as bot(game, pending, rng)")
    return found
