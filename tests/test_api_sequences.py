"""Any sequence of calls an embedding program makes keeps the game exact (hypothesis, stateful).

Random play (`play_random`, for all seats or some, with a `before` that reads the options or without), options
applied by id, options that are not legal, undo, reads (`pending`, `options`, `current_player`, `state`), copies
and saves, interleaved on a game of a shipped pack with 2 to 4 players, in either chance mode. After every call:
- a refused call (an id that is no option) left the state, the log and the pending decision as they were;
- at rest, the log replays to the state (`Game.replay`);
- a copy and a loaded save show the same state and log, and a save loads to the same save;
- a copy of the game and the game itself, given generators in the same state, play on alike (one call).
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from boardrules.diagnostics import BoardrulesError
from boardrules.engine.rules import Rules
from boardrules.game import CHANCE, Game
from boardrules.language.pack import load_rules

ROOT = Path(__file__).resolve().parent.parent


@cache
def rules(name: str) -> Rules:
    return load_rules(ROOT / "rules" / name, None, None)


class GameCalls(RuleBasedStateMachine):
    game: Game
    rng: random.Random
    name: str

    @initialize(name=st.sampled_from(["village", "lisboa"]), chance=st.sampled_from(["step", "auto"]),
                seed=st.integers(1, 10_000), players=st.integers(2, 4))
    def start(self, name: str, chance: str, seed: int, players: int) -> None:
        self.name = name
        self.game = Game(rules(name), players, seed, flow=True, chance=chance)
        self.game.setup()
        self.rng = random.Random(seed)
        self.players = players

    def _live(self) -> bool:
        return not self.game.is_terminal()

    @precondition(_live)
    @rule(steps=st.integers(1, 12))
    def play_random(self, steps: int) -> None:
        for _ in range(steps):
            if self.game.is_terminal():
                return
            assert self.game.play_random(self.rng) is not None

    @precondition(_live)
    @rule(seats=st.sets(st.integers(1, 4), max_size=3), look=st.booleans())
    def play_random_for_some_seats(self, seats: set[int], look: bool) -> None:
        """With `players`, only those seats' decisions and chance are played; `before` may read the options."""
        chosen = {f"p{i}" for i in seats if i <= self.players}
        seen: list[int] = []

        def before(pending: object, option: object) -> None:
            seen.append(len(pending.options))  # type: ignore[attr-defined]

        option = self.game.play_random(self.rng, chosen, before if look else None)
        if option is None:  # another seat's decision: left pending, nothing drawn
            pending = self.game.pending()
            assert pending is not None and pending.player != CHANCE and pending.player not in chosen
        elif look:
            assert seen and seen[-1] >= 1

    @precondition(_live)
    @rule(pick=st.integers(0, 10_000))
    def apply_an_option(self, pick: int) -> None:
        pending = self.game.pending()
        assert pending is not None
        if pending.player == CHANCE:
            option = pending.sample(self.rng)
        else:
            options = pending.options
            assert options, pending
            option = options[pick % len(options)]
        self.game.apply(option.id)

    @precondition(_live)
    @rule(pick=st.integers(0, 10_000), read_first=st.booleans())
    def apply_what_is_no_option(self, pick: int, read_first: bool) -> None:
        pending = self.game.pending()
        assert pending is not None
        legal = {o.id for o in pending.options} if read_first else None
        before = self.game.state.dumps(), list(self.game.log), pending.prompt
        # No id, and no option's value (an int that is no id is matched against values: `Pending.option`)
        bad: int | str = -(10**9) - pick if pick % 2 else f"no option {pick}"
        if legal is not None:
            illegal = [i for i in range(pending.id_bound) if i not in legal]
            if illegal:
                bad = illegal[pick % len(illegal)]
        with pytest.raises(BoardrulesError) as err:
            self.game.apply(bad)
        assert err.value.code in ("E505", "E509"), err.value.diagnostic
        after = self.game.pending()
        assert after is not None
        assert (self.game.state.dumps(), list(self.game.log), after.prompt) == before

    @rule()
    def undo(self) -> None:
        self.game.undo()

    @rule(how=st.sampled_from(["pending", "options", "player", "state"]))
    def read(self, how: str) -> None:
        if how == "pending":
            self.game.pending()
        elif how == "options":
            pending = self.game.pending()
            if pending is not None:
                _ = pending.options
        elif how == "player":
            self.game.current_player()
        else:
            _ = self.game.state.dumps()

    @rule()
    def copies_and_saves_agree(self) -> None:
        game = self.game
        copy = game.clone()
        text = game.serialize()
        loaded = Game.deserialize(text, rules(self.name))
        assert copy.state.dumps() == game.state.dumps() == loaded.state.dumps()
        assert copy.log == game.log == loaded.log
        assert loaded.serialize() == text
        if not game.is_terminal():  # one call on, alike
            seeded = [random.Random() for _ in range(3)]
            for r in seeded:
                r.setstate(self.rng.getstate())
            for g, r in zip((game, copy, loaded), seeded, strict=True):
                g.play_random(r)
            self.rng.setstate(seeded[0].getstate())
            assert copy.log == game.log == loaded.log
            assert copy.state.dumps() == game.state.dumps() == loaded.state.dumps()

    @invariant()
    def at_rest_the_log_replays_to_the_state(self) -> None:
        game = getattr(self, "game", None)
        if game is None or not game.at_rest():
            return
        replayed = Game.replay(rules(self.name), self.players, game.seed, game.log, chance=game.chance)
        assert replayed.state.dumps() == game.state.dumps()


GameCalls.TestCase.settings = settings(max_examples=25, stateful_step_count=30, deadline=None,
                                       suppress_health_check=[HealthCheck.too_slow])
test_any_sequence_of_calls_keeps_the_game_exact = GameCalls.TestCase
