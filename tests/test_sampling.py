"""Sampling without proving everything, rule bugs the legal-move search reports, and the search's work bound.

`Pending.sample` draws candidates in random order and proves them until one completes: uniform over the legal
options (checked with a chi-square test where the legal set is known), about one proof per sample, and the same
pick whether or not `options` was read first."""

from __future__ import annotations

import io
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from boardrules.diagnostics import BoardrulesError
from boardrules.engine import moves
from boardrules.game import Game
from boardrules.tools import simulate as sim
from tests.conftest import link_texts

LOTTERY = """
module: lottery
title: Sampling test
players: {min: 2, max: 2}
values:
  secret: {unknown: "left open on purpose", type: int}
counters:
  points: {per: player, initial: 0}
actions:
  pick:
    title: Pick a number that is not a multiple of three
    params:
      n: {type: int, in: "1..10"}
    allowed_if: n % 3 != 0
    do:
      - choose x from 1..6
      - require x != 3
      - me.points += n
  broken:
    title: A rule bug (an unknown value)
    do:
      - me.points += secret
flow:
  first_player: p1
  phases:
    play:
      turns: {until: each_once}
      actions: [pick, broken]
  end:
    when: round_number > 3
  ranking: [me.points]
"""
LEGAL_N = [1, 2, 4, 5, 7, 8, 10]
_BUG_LINE = LOTTERY.splitlines().index("      - me.points += secret")
BUG_AT = f".yaml:{_BUG_LINE + 1}:9"  # where the planted rule bug is
CHI2_99_9 = {4: 18.467, 6: 22.458}  # chi-square critical values at p = 0.001, by degrees of freedom


def lottery(tmp_path: Path) -> Game:
    rules, diags = link_texts(tmp_path, LOTTERY)
    assert not diags.has_errors, [d.message for d in diags.items]
    game = Game(rules, 2, 1, flow=True, chance="step")
    game.setup()
    return game


def chi_square(counts: Counter[Any], cells: list[Any], n: int) -> float:
    expected = n / len(cells)
    return sum((counts[c] - expected) ** 2 / expected for c in cells)


def test_sample_is_uniform_over_the_legal_moves(tmp_path: Path) -> None:
    game = lottery(tmp_path)
    pending = game.pending()
    assert pending is not None and pending.kind == "move"
    n, counts = 3_500, Counter()
    for seed in range(n):
        value = pending.sample(random.Random(seed)).value
        assert value["action"] == "pick", value  # never the broken move, never an illegal pick
        counts[value["params"]["n"]] += 1
    assert set(counts) == set(LEGAL_N)
    assert chi_square(counts, LEGAL_N, n) < CHI2_99_9[len(LEGAL_N) - 1], counts
    assert [o.value["params"]["n"] for o in pending.options] == LEGAL_N  # the full list agrees


def test_sample_is_uniform_over_the_legal_answers_inside_a_move(tmp_path: Path) -> None:
    game = lottery(tmp_path)
    pending = game.pending()
    assert pending is not None
    inside = game.apply(pending.option({"action": "pick", "params": {"n": 1}}).id)
    assert inside is not None and inside.kind == "one"
    n, counts = 2_500, Counter()
    for seed in range(n):
        counts[inside.sample(random.Random(seed)).value] += 1
    legal = [1, 2, 4, 5, 6]
    assert set(counts) == set(legal)
    assert chi_square(counts, legal, n) < CHI2_99_9[len(legal) - 1], counts


def test_a_sample_proves_about_one_candidate_not_the_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = lottery(tmp_path)
    proofs: list[Any] = []
    real = moves.Search.can_finish

    def counted(self: moves.Search, activity: moves.Activity) -> bool:
        proofs.append(activity.params)
        return real(self, activity)

    monkeypatch.setattr(moves.Search, "can_finish", counted)
    pending = game.pending()  # proves candidates in order until one is legal (to know the turn is not skipped)
    assert pending is not None and len(proofs) == 1
    pending.sample(random.Random(3))
    assert len(proofs) < 6  # 11 candidates: a full listing proves all of them
    assert len(pending.options) == len(LEGAL_N)
    assert len(proofs) == 11  # each candidate proven once, whatever proved it first
    assert len(pending.options) == len(LEGAL_N)
    pending.sample(random.Random(4))
    assert len(proofs) == 11  # cached for this state


def test_the_pick_does_not_depend_on_what_was_proven_before(tmp_path: Path) -> None:
    fresh, listed = lottery(tmp_path), lottery(tmp_path)
    listed_pending = listed.pending()
    assert listed_pending is not None
    assert listed_pending.options  # everything proven first
    for seed in range(20):
        a = fresh.pending().sample(random.Random(seed))  # type: ignore[union-attr]
        b = listed_pending.sample(random.Random(seed))
        assert a == b


def test_a_clone_keeps_what_was_proven_and_a_stale_pending_refuses(tmp_path: Path) -> None:
    game = lottery(tmp_path)
    pending = game.pending()
    assert pending is not None
    options = pending.options
    copy = game.clone()
    assert copy.pending() == pending and copy.pending().options == options  # type: ignore[union-attr]
    inside = game.apply(options[0].id)  # the move's own decision: nothing proven yet
    assert inside is not None
    game.apply(inside.sample(random.Random(1)).id)
    with pytest.raises(BoardrulesError) as err:
        _ = inside.options  # the game moved on: proofs now would be about another state
    assert err.value.code == "E509" and "no longer the pending decision" in err.value.diagnostic.message


# ---------------------------------------------------------------- rule bugs are reported, not hidden (W520)
def test_a_move_that_fails_for_a_rule_bug_is_reported_at_its_rule(tmp_path: Path) -> None:
    game = lottery(tmp_path)
    pending = game.pending()
    assert pending is not None
    assert all(o.value["action"] != "broken" for o in pending.options)  # still not playable
    problems = game.problems
    assert len(problems) == 1
    (p,) = problems
    assert p["code"] == "E601" and p["count"] == 1 and "secret" in p["message"]
    assert p["where"].endswith(BUG_AT), p  # the line `me.points += secret`
    assert pending.options  # proven once: not counted again
    assert game.problems[0]["count"] == 1


def test_refusals_are_not_problems(tmp_path: Path) -> None:
    game = lottery(tmp_path)
    pending = game.pending()
    assert pending is not None
    assert len(pending.options) == len(LEGAL_N)  # n = 3, 6, 9 fail their guard: illegal, not a bug
    inside = game.apply(pending.option({"action": "pick", "params": {"n": 2}}).id)
    assert inside is not None
    assert len(inside.options) == 5  # x = 3 fails its `require`: illegal, not a bug
    assert [p["code"] for p in game.problems] == ["E601"]  # only the planted bug


def test_simulate_reports_the_rule_and_strict_fails(tmp_path: Path) -> None:
    pack = tmp_path / "lottery"
    pack.mkdir()
    (pack / "lottery.yaml").write_text(LOTTERY)
    setup = sim.Setup(str(pack), None, (), 2, check=False)
    report = sim.simulate(setup, 6, 1, progress=False)
    assert report["finished"] == 6
    (p,) = report["search_problems"]  # met whenever a sample tried the broken move before a legal one
    assert p["code"] == "E601" and 1 <= p["games"] <= p["count"] and p["where"].endswith(BUG_AT)
    text = sim.render(report)
    assert f"{p['where']}: warning W520:" in text
    assert '"search_problems"' in sim.dumps(report)
    from boardrules.tools.cli import main

    assert main(["simulate", str(pack), "--games", "6", "--no-save"]) == 0
    assert main(["simulate", str(pack), "--games", "6", "--no-save", "--strict"]) == 1


# ---------------------------------------------------------------- the search is bounded by work (E513)
WIDE = """
module: wide
title: Search bombs
players: {min: 2, max: 2}
counters:
  points: {per: player, initial: 0}
actions:
  wide:
    title: Many moves, each with a wide choice that always fails
    params:
      k: {type: int, in: "1..9999"}
    do:
      - choose x from 1..200
      - require x > 200
  deep:
    title: A deep run of wide choices that always fails
    do:
      - repeat: 200000
        do: ["choose x from 1..2000"]
      - require false
  rest:
    title: Rest
    do: ["me.points += 1"]
flow:
  first_player: p1
  phases:
    play:
      turns: {until: each_once}
      actions: [ACTIONS]
  end:
    when: round_number > 2
  ranking: [me.points]
"""


@pytest.mark.parametrize("action", ["wide", "deep"])
def test_a_search_bomb_stops_with_a_located_e513(tmp_path: Path, action: str) -> None:
    rules, diags = link_texts(tmp_path, WIDE.replace("ACTIONS", f"{action}, rest"))
    assert not diags.has_errors, [d.message for d in diags.items]
    game = Game(rules, 2, 1, flow=True, chance="step")
    game.setup()
    before = game.state.dumps()
    start = time.process_time()
    with pytest.raises(BoardrulesError) as err:
        _ = game.pending().options  # type: ignore[union-attr]
    assert time.process_time() - start < 30
    d = err.value.diagnostic
    assert d.code == "E513" and "legal-move search" in d.message and f"'{action}'" in d.message
    assert d.span is not None and d.span.line > 0
    assert game.state.dumps() == before
    start = time.process_time()
    with pytest.raises(BoardrulesError) as err:
        game.legal_actions()
    assert err.value.code == "E513" and time.process_time() - start < 30


def test_check_warns_about_actions_too_large_to_search(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from boardrules.tools.cli import main

    (tmp_path / "wide.yaml").write_text(WIDE.replace("ACTIONS", "wide, deep, rest"))
    main(["check", str(tmp_path)])
    out = capsys.readouterr().out
    warned = [line for line in out.splitlines() if "warning W521" in line]
    assert len(warned) == 2, out
    assert "'wide' has about 9,999 parameter combinations and about 200 ways" in warned[0]
    assert "'deep'" in warned[1] and "10^" in warned[1]
    assert "'rest'" not in out


def test_progress_is_drawn_at_once_and_while_a_game_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr(sim.sys, "stderr", out)
    bar = sim.Progress(10, True)
    assert "0/10 games" in out.getvalue()  # before any game finished
    bar.drawn -= 1  # a second has passed
    bar.step()
    assert "1 decisions" in out.getvalue()
    bar.advance(1)
    bar.close()
    assert "1/10 games" in out.getvalue()


def test_the_sample_rollout_evaluator_plays_legal_rollouts_for_mcts() -> None:
    np = pytest.importorskip("numpy")
    from open_spiel.python.algorithms import mcts

    from boardrules.adapters.openspiel import SampleRolloutEvaluator, load

    relay = Path(__file__).parent / "packs" / "relay"
    game = load(relay, players=2, options={"prize": 4})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    evaluator = SampleRolloutEvaluator(2, np.random.RandomState(1))
    values = evaluator.evaluate(state)
    assert values.shape == (2,) and abs(float(values.sum())) < 1e-9 and all(-1 <= v <= 1 for v in values)
    prior = evaluator.prior(state)
    assert sorted(a for a, _ in prior) == state.legal_actions() and abs(sum(p for _, p in prior) - 1) < 1e-9
    bot = mcts.MCTSBot(game, 2.0, 12, evaluator, random_state=np.random.RandomState(1))
    assert bot.step(state) in state.legal_actions()


BAG = """
module: bag
title: Rounds that start with a shuffle of a big bag
players: {min: 2, max: 2}
counters:
  points: {per: player, initial: 0}
pieces:
  cube: {}
zones:
  bag: {ordered: true}
setup:
  fill:
    do:
      - for: v in 1..60
        do: ["create cube in bag"]
actions:
  rest:
    title: Rest
    do: ["me.points += 1"]
  work:
    title: Work
    do: ["me.points += 2"]
flow:
  first_player: p1
  phases:
    refill:
      do: ["shuffle bag"]
    play:
      turns: {until: each_once}
      actions: [rest, work]
  end:
    when: round_number > 3
  ranking: [me.points]
"""


def test_with_chance_stepped_a_proof_walks_a_shuffle_in_one_run(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    rules, diags = link_texts(tmp_path, BAG)
    assert not diags.has_errors, [d.message for d in diags.items]
    game = Game(rules, 2, 1, flow=True, chance="step")
    game._m.totality = None  # these moves and the flow always finish: with the analysis no run proves them at all
    game.setup()
    rng = random.Random(1)
    while (pending := game.pending()) is not None and pending.kind != "move":
        game.apply(pending.sample(rng).id)  # the first round's 59 shuffle steps
    game.apply(pending.sample(rng).id)  # p1 moves; p2's move ends the round, and the next one shuffles 60 cubes
    runs: list[int] = []
    real = moves.probe

    def counted(*args: Any, **kwargs: Any) -> moves.Probe:
        runs.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(moves, "probe", counted)
    pending = game.pending()
    assert pending is not None and pending.kind == "move" and pending.player == "p2"
    assert len(pending.options) == 2
    # One run per move through the next round's shuffle (stepping it would take 60 runs each); the first move
    # was proven when `apply` showed this decision.
    assert len(runs) == 1
    nxt = game.apply(pending.options[0].id)
    assert nxt is not None and nxt.player == "chance" and nxt.prompt.startswith("shuffle bag")
