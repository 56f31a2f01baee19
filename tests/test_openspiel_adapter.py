"""The OpenSpiel adapter: OpenSpiel's own random simulation test, observations, and its MCTS bot playing."""

from __future__ import annotations

from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")
np = pytest.importorskip("numpy")

from open_spiel.python.algorithms import mcts  # noqa: E402

from boardrules.adapters.openspiel import SampleRolloutEvaluator, load  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RELAY = ROOT / "tests" / "packs" / "relay"
LISBOA = ROOT / "rules" / "lisboa"
VILLAGE = ROOT / "rules" / "village"


def test_random_sim_test_passes_on_relay_with_serialization() -> None:
    game = load(RELAY, players=3, options={"prize": 4})
    assert game.num_players() == 3 and game.get_type().short_name == "boardrules_relay"
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION  # relay hides hands
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)


def test_random_sim_test_passes_on_lisboa_with_serialization() -> None:
    game = load(LISBOA, players=2)
    assert game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION  # declares nothing hidden
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_random_sim_test_passes_on_village_with_declared_bounds() -> None:
    # Declared bounds skip the measuring games (village's are long); measured here: 11 actions, 87 outcomes.
    game = load(VILLAGE, players=2, max_actions=64, max_chance_outcomes=256, max_game_length=4000)
    assert game.num_distinct_actions() == 64
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_decisions_chance_and_returns_follow_the_step_api() -> None:
    game = load(RELAY, players=2, options={"prize": 4})
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == [0, 1, 2, 3] and sum(p for _, p in outcomes) == pytest.approx(1.0)
    while state.is_chance_node():
        state.apply_action(outcomes[0][0])
        outcomes = state.chance_outcomes() if state.is_chance_node() else outcomes
    assert state.current_player() == 0
    labels = [state.action_to_string(0, a) for a in state.legal_actions()]
    assert labels == [o.label for o in state.inner.pending().options]
    assert state.legal_actions() == [o.id for o in state.inner.pending().options]  # the stable ids
    copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    assert str(copy) == str(state) and copy.history() == state.history()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(state.legal_actions()[0])
    assert state.returns() == state.inner.returns() and sum(state.returns()) == 0


def test_observations_show_each_player_what_the_pack_lets_them_see() -> None:
    game = load(RELAY, players=2, options={"prize": 4})
    state = game.new_initial_state()
    rng = np.random.RandomState(3)
    while not state.is_terminal() and not state.inner.state.zones["p2.hand"].contents:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            legal = state.legal_actions()
            rest = [a for a in legal if state.action_to_string(state.current_player(), a) == "rest"]
            state.apply_action(rest[0] if rest else legal[-1])
    assert state.inner.state.zones["p2.hand"].contents, "p2 never drew a card"
    mine, theirs = state.observation_string(1), state.observation_string(0)
    assert "p2.hand: card_" in mine and "p2.hand: 1 hidden" in theirs
    assert "deck: " in mine and "hidden" in mine.split("deck: ")[1].split("\n")[0]  # nobody sees the deck
    assert state.observation_tensor(0) != state.observation_tensor(1)
    assert len(state.observation_tensor(0)) == game.observation_tensor_size()


def _play(game: object, bot: object, rng: object) -> list[float]:
    state = game.new_initial_state()  # type: ignore[attr-defined]
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))  # type: ignore[attr-defined]
        elif state.current_player() == 0:
            state.apply_action(bot.step(state))  # type: ignore[attr-defined]
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))  # type: ignore[attr-defined]
    return state.returns()


VILLAGE_BOUNDS = {"max_actions": 64, "max_chance_outcomes": 256, "max_game_length": 4000}


@pytest.mark.parametrize(("pack", "options", "sims", "bounds"), [
    (RELAY, {"prize": 4}, 16, {}),
    (LISBOA, None, 3, {}),
    # A one-round Village (an option of its game module) is a whole game that ends in a few seconds.
    (VILLAGE, {"max_rounds": 1}, 2, VILLAGE_BOUNDS),
])
def test_openspiel_mcts_plays_a_whole_game_against_a_random_bot(pack: Path, options: dict | None, sims: int,
                                                                 bounds: dict) -> None:
    game = load(pack, players=2, options=options, **bounds)
    rng = np.random.RandomState(7)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=sims, evaluator=mcts.RandomRolloutEvaluator(1, rng),
                       random_state=rng)
    returns = _play(game, bot, rng)
    assert len(returns) == 2 and sum(returns) == 0


UNPICKLED: list[str] = []


def _record(what: str) -> None:
    UNPICKLED.append(what)


class _Payload:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (_record, ("ran",))


def test_a_state_serializes_as_the_games_json_save_and_a_pickle_is_refused() -> None:
    import base64
    import json
    import pickle

    from boardrules.diagnostics import BoardrulesError
    from boardrules.saves import SAVE_FORMAT

    game = load(RELAY, players=2, options={"prize": 4})
    state = game.new_initial_state()
    rng = np.random.RandomState(5)
    for _ in range(12):
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    text = state.serialize()
    assert json.loads(text)["format"] == SAVE_FORMAT and text == state.inner.serialize()
    back = game.deserialize_state(text)
    assert str(back) == str(state) and back.current_player() == state.current_player()
    assert back.legal_actions() == state.legal_actions() and back.inner.log == state.inner.log
    for s in (state, back):
        s.apply_action(s.legal_actions()[0] if not s.is_chance_node() else s.chance_outcomes()[0][0])
    assert str(back) == str(state)
    # What OpenSpiel's generic serialization of a Python state holds: a base64 pickle of the state's attributes.
    crafted = pickle.dumps({"_box": _Payload()})
    for attack in ("history=\nmove_number=0\n__dict__=" + base64.b64encode(crafted).decode(),
                   base64.b64encode(crafted).decode(), crafted.decode("latin-1")):
        with pytest.raises(BoardrulesError) as err:
            game.deserialize_state(attack)
        assert err.value.code == "E512" and "not a saved game" in err.value.diagnostic.message
    assert UNPICKLED == []
    three = load(RELAY, players=3, options={"prize": 4})
    with pytest.raises(BoardrulesError) as err:
        three.deserialize_state(text)
    assert err.value.code == "E512" and "2 players" in err.value.diagnostic.message


def _count(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """[proofs, options applied] of every boardrules game from now on."""
    from boardrules.game import Game

    count = [0, 0]
    prove, apply = Game._prove, Game._apply

    def proved(self: Game, pending: object, i: int) -> bool:
        count[0] += 1
        return prove(self, pending, i)  # type: ignore[arg-type]

    def applied(self: Game, option: object) -> None:
        count[1] += 1
        apply(self, option)

    monkeypatch.setattr(Game, "_prove", proved)
    monkeypatch.setattr(Game, "_apply", applied)
    return count


def test_legal_actions_are_proven_when_asked_once_per_state(monkeypatch: pytest.MonkeyPatch) -> None:
    game = load(LISBOA, players=2)
    state = game.new_initial_state()
    fresh = state.clone()
    count = _count(monkeypatch)
    assert state.current_player() == 0  # the first move decision: pending() proves that one move is legal
    assert count[0] <= 1
    candidates = state.inner.pending().id_bound
    legal = state.legal_actions()
    listed = count[0]
    assert len(legal) < candidates and listed == candidates  # every candidate proven once, no more
    assert state.legal_actions() == legal and state.clone().legal_actions() == legal
    assert count[0] == listed  # cached for the state, and a copy of the state keeps the cache
    count[0] = 0
    fresh.apply_action(legal[0])  # never listed: the option applied, and one move of the next decision
    assert count == [2, 1]


def test_the_sample_rollout_evaluator_pays_about_one_proof_a_step(monkeypatch: pytest.MonkeyPatch) -> None:
    game = load(LISBOA, players=2)
    state = game.new_initial_state()
    count = _count(monkeypatch)
    per_step = {}
    for name, evaluator in (("sample", SampleRolloutEvaluator(1, np.random.RandomState(1))),
                            ("random", mcts.RandomRolloutEvaluator(1, np.random.RandomState(1)))):
        count[:] = [0, 0]
        for _ in range(3):
            evaluator.evaluate(state)
        per_step[name] = count[0] / count[1]
    # each step draws candidates in random order until one is legal (and a move's proof plans its later answers);
    # OpenSpiel's own evaluator lists every legal action at every step (Lisboa: about 27 candidate moves a turn)
    assert per_step["sample"] < 2 and per_step["random"] > 10, per_step
