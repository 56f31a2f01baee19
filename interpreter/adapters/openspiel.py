"""A rule pack as an OpenSpiel game (`pip install 'boardrules[openspiel]'`).

    from boardrules.adapters.openspiel import load
    game = load("path/to/pack", players=3)           # a pyspiel.Game, registered as a Python game
    state = game.new_initial_state()

Every decision of the step API is an OpenSpiel node: a player's decision has integer actions (the options'
stable ids), chance has outcomes with their probabilities (the game is played with chance="step"), and the
returns are the game's `returns()`. Observations (string and tensor) show each player what the pack's
`hidden:` declaration lets them see; a pack that declares nothing is a perfect-information game.
"""

from __future__ import annotations

import functools
import json
import random
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from .. import saves
from ..diagnostics import BoardrulesError
from ..engine.rules import Rules
from ..game import CHANCE, Game, Option, Pending
from ..language.pack import load_rules

MEASURE_GAMES = 20  # random games played to bound the action ids and the game length when none are declared
_RULES: dict[tuple[str, str, str], Rules] = {}
_BOUNDS: dict[tuple[Any, ...], tuple[int, int, int]] = {}
_PARAMS = {"pack": "", "players": 2, "options": "", "modules": "", "seed": 1, "max_actions": 0,
           "max_chance_outcomes": 0, "max_game_length": 0}


def load(pack: str | Path, players: int = 2, options: dict[str, Any] | None = None, modules: list[str] | None = None,
         seed: int = 1, max_actions: int = 0, max_chance_outcomes: int = 0, max_game_length: int = 0) -> Any:
    """The pack (its game module, or `modules`) as a pyspiel game for `players` players.

    The bounds OpenSpiel asks for (distinct actions, chance outcomes, game length) are measured on random
    games unless given; an id beyond a bound later raises a BoardrulesError that says which to declare."""
    pack = str(Path(pack).resolve())
    rules = _rules(pack, ",".join(modules or []), _encode(options))
    name = register(rules)
    params = {"pack": pack, "players": int(players), "options": _encode(options), "modules": ",".join(modules or []),
              "seed": int(seed), "max_actions": int(max_actions), "max_chance_outcomes": int(max_chance_outcomes),
              "max_game_length": int(max_game_length)}
    return pyspiel.load_game(name, params)


def register(rules: Rules) -> str:
    """Register the pack's game type with OpenSpiel (once per process); its short name."""
    name = "boardrules_" + re.sub(r"[^a-z0-9_]", "_", rules.modules[-1].lower())
    if name in pyspiel.registered_names():
        return name
    game_type = pyspiel.GameType(
        short_name=name, long_name=f"boardrules {', '.join(rules.modules)}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=(pyspiel.GameType.Information.IMPERFECT_INFORMATION if rules.hidden
                     else pyspiel.GameType.Information.PERFECT_INFORMATION),
        utility=pyspiel.GameType.Utility.ZERO_SUM, reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=rules.players_max, min_num_players=rules.players_min,
        provides_information_state_string=False, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True, parameter_specification=_PARAMS)

    class PackGame(BoardrulesGame):
        type_ = game_type

    pyspiel.register_game(game_type, PackGame)
    return name


def _encode(options: dict[str, Any] | None) -> str:
    """Options as one parameter string OpenSpiel's game strings can carry (no commas, brackets or '=')."""
    return quote(json.dumps(options or {}, sort_keys=True), safe="")


def _rules(pack: str, modules: str, options: str) -> Rules:
    key = (pack, modules, options)
    if key not in _RULES:
        _RULES[key] = load_rules(pack, modules.split(",") if modules else None, json.loads(unquote(options) or "{}"))
    return _RULES[key]


class _Box:
    """The boardrules game inside an OpenSpiel state: copied with `Game.clone`; in the pickle OpenSpiel's own
    `serialize_game_and_state` makes of every Python state, held as a save."""

    def __init__(self, key: tuple[str, str, str], game: Game) -> None:
        self.key, self.game = key, game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Box:
        return _Box(self.key, self.game.clone())

    def __getstate__(self) -> dict[str, Any]:
        return {"key": self.key, "save": self.game.serialize()}

    def __setstate__(self, data: dict[str, Any]) -> None:
        self.key = tuple(data["key"])
        self.game = Game.deserialize(data["save"], _rules(*self.key))


class BoardrulesGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no type stubs
    type_: Any = None

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**_PARAMS, **(params or {})}
        self.key = (str(p["pack"]), str(p["modules"]), str(p["options"]))
        self.rules = _rules(*self.key)
        self.players = int(p["players"])
        self.seed = int(p["seed"])
        self._proto = Game(self.rules, self.players, self.seed, flow=True, chance="step", undo_depth=0)
        self._proto.setup()
        actions, outcomes, length = _bounds(self, p)
        info = pyspiel.GameInfo(num_distinct_actions=actions, max_chance_outcomes=outcomes,
                                num_players=self.players, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
                                max_game_length=length)
        super().__init__(self.type_, info, p)
        self.layout = Layout(self.rules, self._proto)

    def new_initial_state(self) -> BoardrulesState:
        return BoardrulesState(self)

    def deserialize_state(self, text: str) -> BoardrulesState:
        """The state `state.serialize()` wrote: the game's own JSON save, never a pickle, checked as any save is
        (saves.py) and against this game's rules, players and chance mode; anything else is E512."""
        data = saves.parse(text)
        if (data["players"], data["chance"], data["flow"]) != (self.players, "step", True):
            raise saves.refuse(f"the state is of a game of {data['players']} players with chance "
                               f"'{data['chance']}'{'' if data['flow'] else ' and no flow'}; this game has "
                               f"{self.players} players with chance 'step'")
        state = BoardrulesState(self)
        state._box.game = Game.deserialize(text, self.rules)
        return state

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        return Observer(self)


def _bounds(game: BoardrulesGame, p: dict[str, Any]) -> tuple[int, int, int]:
    """Declared bounds, else measured on random games (each doubled for room): actions, outcomes, length."""
    declared = (int(p["max_actions"]), int(p["max_chance_outcomes"]), int(p["max_game_length"]))
    if all(declared):
        return declared
    key = (game.key, game.players, game.seed)
    if key not in _BOUNDS:
        actions = outcomes = length = 1
        for s in range(1, MEASURE_GAMES + 1):
            g, rng = game._proto.clone(), random.Random(s)
            tops: list[tuple[str, int]] = []
            seen = functools.partial(_bound_of, tops)
            while not g.is_terminal() and g.play_random(rng, None, seen):  # one proof a step, as rollouts play
                pass
            actions = max([actions, *(top for who, top in tops if who != CHANCE)])
            outcomes = max([outcomes, *(top for who, top in tops if who == CHANCE)])
            length = max(length, len(tops))
        _BOUNDS[key] = (2 * actions, 2 * outcomes, 4 * length)
    measured = _BOUNDS[key]
    return (int(p["max_actions"]) or measured[0], int(p["max_chance_outcomes"]) or measured[1],
            int(p["max_game_length"]) or measured[2])


def _bound_of(tops: list[tuple[str, int]], pending: Pending, option: Option) -> None:
    tops.append((pending.player, pending.id_bound))  # a bound on the decision's ids without proving any


class BoardrulesState(pyspiel.State):  # type: ignore[misc]  # pyspiel has no type stubs
    def __init__(self, game: BoardrulesGame) -> None:
        super().__init__(game)
        self._box = _Box(game.key, game._proto.clone())

    def serialize(self) -> str:
        """The game's own JSON save (`Game.serialize()`); `game.deserialize_state` reads it back. (OpenSpiel's
        C++ `serialize_game_and_state` does not come here: it pickles, see docs/embedding.md.)"""
        return self._box.game.serialize()

    @property
    def inner(self) -> Game:
        """The boardrules game behind this state (read it; change it only through OpenSpiel's calls)."""
        return self._box.game

    def current_player(self) -> int:
        g = self._box.game
        if g.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        pending = g.pending()
        if pending is None:
            return pyspiel.PlayerId.TERMINAL
        if pending.player == CHANCE:
            return pyspiel.PlayerId.CHANCE
        return int(pending.player[1:]) - 1

    def _legal_actions(self, player: int) -> list[int]:
        """The ids of every legal option: proven on the first call for this state, then read from the pending
        decision's cache (a `clone()` of the state keeps it); rollouts and `apply_action` never ask for them."""
        pending = self._box.game.pending()
        if pending is None or pending.player == CHANCE:
            return []
        ids = sorted(o.id for o in pending.options)
        bound = self.get_game().num_distinct_actions()
        if ids and ids[-1] >= bound:
            raise BoardrulesError("E509", f"option id {ids[-1]} is beyond the game's {bound} distinct actions",
                                  None, "pass a larger max_actions to boardrules.adapters.openspiel.load")
        return ids

    def chance_outcomes(self) -> list[tuple[int, float]]:
        pending = self._box.game.pending()
        assert pending is not None and pending.player == CHANCE
        return [(o.id, float(o.probability or 0)) for o in sorted(pending.options, key=lambda o: o.id)]

    def _apply_action(self, action: int) -> None:
        self._box.game.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        pending = self._box.game.pending()
        if pending is not None:
            try:
                return pending.option(int(action)).label  # proves this option alone (MCTSBot names its pick)
            except BoardrulesError:
                pass
        return f"option {action}"

    def is_terminal(self) -> bool:
        return self._box.game.is_terminal()

    def returns(self) -> list[float]:
        return list(self._box.game.returns())

    def __str__(self) -> str:
        return json.dumps(self._box.game.state.to_json(), sort_keys=True)


class SampleRolloutEvaluator(mcts.Evaluator):  # type: ignore[misc]
    """OpenSpiel's random-rollout evaluator for MCTS, played on the boardrules game directly: each step of a
    rollout plays one random option with `Game.play_random` (about one proof, which also shows that a turn has a move)
    instead of listing every legal action.

    The rollout's moves are uniform over the legal options, as with `RandomRolloutEvaluator`; `prior` is the
    same uniform prior over the legal actions (listed, as MCTS expands a node)."""

    def __init__(self, n_rollouts: int = 1, random_state: np.random.RandomState | None = None,
                 max_length: int | None = None) -> None:
        self.n_rollouts = n_rollouts
        self.max_length = max_length
        self._random_state = random_state or np.random.RandomState()

    def evaluate(self, state: BoardrulesState) -> np.ndarray:
        total = np.zeros(state.num_players())
        for _ in range(self.n_rollouts):
            game = state.inner.clone()
            rng = random.Random(int(self._random_state.randint(2**31 - 1)))
            length = 0
            while not game.is_terminal():
                if game.play_random(rng) is None:  # a proof fewer per move decision than pending().sample(rng)
                    break
                length += 1
                if self.max_length is not None and length >= self.max_length:
                    break
            total += np.array(game.returns())
        return total / self.n_rollouts

    def prior(self, state: BoardrulesState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]


class Layout:
    """The fixed places of an observation tensor: counters, zones (size and pieces per kind), markers, flow."""

    def __init__(self, rules: Rules, game: Game) -> None:
        st = game.state
        self.rules = rules
        self.players = game.players
        self.counters = sorted(st.counters)
        self.zones = sorted(st.zones)
        self.kinds = sorted(rules.kinds)
        self.markers = sorted(st.markers)
        self.size = len(self.counters) + len(self.zones) * (1 + len(self.kinds)) + len(self.markers) + 2 + \
            len(self.players) + 1

    def hidden_from(self, name: str, player: str) -> bool:
        """Whether `player` cannot see the counter or zone `name` (p2.hand, deck, coin[red]...)."""
        owner, _, base = name.rpartition(".")
        whom = self.rules.hidden.get(base.partition("[")[0])
        return whom == "all" or (whom == "others" and owner != player)


class Observer:
    """What one player sees: counters and zone contents unless hidden from them, zone sizes, markers, the flow."""

    def __init__(self, game: BoardrulesGame) -> None:
        self.layout = game.layout
        self.tensor = np.zeros(self.layout.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: BoardrulesState, player: int) -> None:
        lay, g = self.layout, state.inner
        st, me = g.state, f"p{player + 1}"
        t = self.tensor
        t.fill(0)
        i = 0
        for key in lay.counters:
            value = st.counters.get(key)
            if type(value) is int and not lay.hidden_from(key, me):
                t[i] = value
            i += 1
        for name in lay.zones:
            zone = st.zones.get(name)
            contents = zone.contents if zone is not None else []
            t[i] = len(contents)
            if not lay.hidden_from(name, me):
                for pid in contents:
                    t[i + 1 + lay.kinds.index(st.pieces[pid].kind)] += 1
            i += 1 + len(lay.kinds)
        for name in lay.markers:
            t[i] = st.markers[name].pos if name in st.markers else 0
            i += 1
        t[i] = st.vars.get("round") or 0
        t[i + 1] = st.vars.get("phase") if type(st.vars.get("phase")) is int else 0
        i += 2
        who = state.current_player()
        if 0 <= who < len(lay.players):
            t[i + who] = 1
        elif who == pyspiel.PlayerId.CHANCE:
            t[i + len(lay.players)] = 1

    def string_from(self, state: BoardrulesState, player: int) -> str:
        lay, g = self.layout, state.inner
        st, me = g.state, f"p{player + 1}"
        parts = [f"to act: {state.current_player()}", f"round {st.vars.get('round')} phase {st.vars.get('phase')}"]
        parts += [f"{k}={'?' if lay.hidden_from(k, me) else st.counters.get(k)}" for k in lay.counters]
        for name in lay.zones:
            contents = st.zones[name].contents if name in st.zones else []
            if lay.hidden_from(name, me):
                parts.append(f"{name}: {len(contents)} hidden")
            else:
                parts.append(f"{name}: " + " ".join(_piece(st, pid) for pid in contents))
        parts += [f"{m}@{st.markers[m].pos}" for m in lay.markers if m in st.markers]
        return "\n".join(parts)


def _piece(st: Any, pid: str) -> str:
    rec = st.pieces[pid]
    props = ",".join(f"{k}={v}" for k, v in sorted(rec.props.items()))
    return f"{pid}({props})" if props else pid
