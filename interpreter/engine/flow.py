"""The course of a game: rounds of phases, turns inside phases, passing, the end and the ranking.

The flow keeps its place in state variables (round, phase, turn_player, passed, ...) changed only through
journaled operations, so a flow step is undone, saved and replayed like any rule. `settle` is the one entry
point: after setup and after every move it runs whatever the game does by itself until a player must choose a
move or the game is over.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..diagnostics import BoardrulesError
from . import ending
from .interpreter import Frame
from .runtime import check_known
from .values import Player, shown

if TYPE_CHECKING:
    from ..language.checked import Expr
    from .machine import Machine
    from .rules import FlowDef, PhaseDef
    from .services import Services

MAX_FLOW_STEPS = 10_000  # phases entered without a single move: a flow that can never reach a turn


def start(m: Machine) -> None:
    """After setup: the start player, then the first phase of round 1."""
    flow = _flow(m)
    if flow.first_player is not None:
        m.state.set_var("start_player", _player_id(m, flow.first_player.fn(Frame(m, None)), "first_player"))
    _enter(m, 0)
    settle(m)


def after_move(m: Machine) -> None:
    m.state.set_var("turn_moves", m.state.vars["turn_moves"] + 1)
    settle(m)


def skip_turn(m: Machine) -> None:
    """The turn player has no legal move: they pass in a phase that waits for all to pass, else the turn ends."""
    phase = current_phase(m)
    pid = m.state.vars["turn_player"]
    if phase is not None and phase.turns is not None and phase.turns.until == "all_passed":
        m.state.set_var("passed", [*m.state.vars["passed"], pid])
    m.state.set_var("turn_over", True)
    settle(m)


def settle(m: Machine) -> None:
    flow = _flow(m)
    end_when = flow.end_when
    for _ in range(MAX_FLOW_STEPS):
        v = m.state.vars
        if v["game_over"]:
            return
        if end_when is not None and _holds(m, end_when):
            if flow.end_after is None:
                m.end_game()
                return
            ending.request(m, flow.end_after)
        phase = flow.phases[v["phase"]]
        if v.get(ending.TURN) and (phase.turns is None or not v["phase_live"]):
            ending.now(m)  # the end of "this turn" asked for where no turn is running: the game ends here
        if phase.turns is None or not v["phase_live"]:
            _advance(m)
            continue
        if v["turn_over"] or (phase.turns.per_turn is not None and v["turn_moves"] >= phase.turns.per_turn):
            _close_turn(m)
            if not _phase_done(m, phase):
                _next_turn(m, phase)
            continue
        if _phase_done(m, phase):
            _advance(m)
            continue
        return
    raise BoardrulesError("E507", f"the flow ran {MAX_FLOW_STEPS} phases without a move", flow.span,
                          "a phase with turns must be reachable, or the end condition must hold")


def current_phase(m: Machine) -> PhaseDef | None:
    flow = m.rules.flow
    i = m.state.vars.get("phase", -1)
    return flow.phases[i] if flow is not None and 0 <= i < len(flow.phases) else None


def can_move(m: Machine, player: str | None, action: str) -> str | None:
    """Why this player may not take this action now under the flow, or None when the flow allows it."""
    v = m.state.vars
    if v["game_over"]:
        return "the game is over"
    phase = current_phase(m)
    if phase is None or phase.turns is None or not v["phase_live"]:
        return "no player's turn is running"
    if player != v["turn_player"]:
        return f"it is {v['turn_player']}'s turn, not {player}'s"
    if action not in phase.actions:
        return f"'{action}' is not an action of the phase '{phase.name}'"
    return None


def ranking(m: Services) -> list[tuple[int, str, tuple[object, ...]]]:
    """(rank, player, keys) in rank order; equal keys share a rank (1, 1, 3)."""
    flow = _flow(m)
    rows = []
    for p in m.players:
        f = Frame(m, p)
        keys = tuple(check_known(key.fn(f), f) for key, _ in flow.ranking)
        rows.append((keys, p))
    rows.sort(key=lambda kp: kp[0], reverse=True)
    out: list[tuple[int, str, tuple[object, ...]]] = []
    for i, (keys, p) in enumerate(rows):
        rank = out[-1][0] if out and out[-1][2] == keys else i + 1
        out.append((rank, p.id, keys))
    return out


# ---------------------------------------------------------------- inside the flow
def _flow(m: Services) -> FlowDef:
    flow = m.rules.flow
    if flow is None:
        raise BoardrulesError("E509", "these rules declare no flow: take actions one by one with act()")
    return flow


def _player_id(m: Machine, value: object, what: str) -> str:
    if type(value) is not Player:
        check_known(value, Frame(m, None))
        raise BoardrulesError("E510", f"{what} should be a player, got {shown(value)}", m.state.cause)
    return value.id


def _enter(m: Machine, index: int) -> None:
    flow = _flow(m)
    phase = flow.phases[index]
    st = m.state
    for name, value in (("phase", index), ("passed", []), ("turns_taken", []), ("turn_over", False),
                        ("turn_moves", 0), ("phase_live", False)):
        if st.vars.get(name) != value:
            st.set_var(name, value)
    m.enter(f"flow.{phase.name}", phase.span)
    try:
        f = Frame(m, None)
        st.cause = phase.span
        if phase.guard is not None and not check_known(phase.guard.fn(f), f):
            return
        m.run_step(phase.before, None, phase.span)
        if phase.turns is None:
            m.run_step(phase.body, None, phase.span)
            return
        first = phase.turns.first.fn(Frame(m, None)) if phase.turns.first is not None else None
        pid = _player_id(m, first, "turns.from") if first is not None else st.vars["start_player"]
        st.set_var("turn_player", pid)
        st.set_var("phase_live", True)
    finally:
        m.leave()


def _advance(m: Machine) -> None:
    """Leave the current phase (its `after` steps) and enter the next, starting a new round after the last."""
    flow = _flow(m)
    st = m.state
    index = st.vars["phase"]
    phase = flow.phases[index]
    if st.vars["phase_live"] or phase.turns is None:
        m.run_step(phase.after, None, phase.span)
    index += 1
    if index == len(flow.phases):
        index = 0
        st.clear_usage("round")
        ending.round_ended(m)  # before the round number goes up: the game ended in the round it was in
        st.set_var("round", st.vars["round"] + 1)
    _enter(m, index)


def _close_turn(m: Machine) -> None:
    st = m.state
    pid = st.vars["turn_player"]
    m.end_turn_here(m.player(pid))
    if pid not in st.vars["turns_taken"]:
        st.set_var("turns_taken", [*st.vars["turns_taken"], pid])
    st.set_var("turn_over", False)
    st.set_var("turn_moves", 0)


def _holds(m: Machine, cond: Expr) -> bool:
    f = Frame(m, None)
    return bool(check_known(cond.fn(f), f))


def _phase_done(m: Machine, phase: PhaseDef) -> bool:
    v = m.state.vars
    passed = v["passed"]
    if len(passed) >= len(m.players) and all(p.id in passed for p in m.players):  # short lists: most turns
        return True
    turns = phase.turns
    assert turns is not None
    if turns.until == "each_once":
        taken = v["turns_taken"]
        return all(p.id in taken or p.id in passed for p in m.players)
    if turns.until == "expr" and turns.until_fn is not None:
        return _holds(m, turns.until_fn)
    return False


def _next_turn(m: Machine, phase: PhaseDef) -> None:
    """Play passes clockwise to the next player who has not passed (nor, for each_once, had a turn)."""
    v = m.state.vars
    seat = m.player(v["turn_player"]).seat  # type: ignore[union-attr]
    done = set(v["passed"]) | (set(v["turns_taken"]) if phase.turns and phase.turns.until == "each_once" else set())
    n = len(m.players)
    for step in range(1, n + 1):
        p = m.players[(seat - 1 + step) % n]
        if p.id not in done:
            m.state.set_var("turn_player", p.id)
            return
