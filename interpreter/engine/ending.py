"""When the game ends: now, or at the end of this turn, of this round, or of the next round.

`end game` (or `end game now`) ends the game at once: the flow's `end.do` runs, and the rest of the running activity
(the action, the trigger chain, the flow's steps) does not run. `EndNow` carries that out: the transaction that runs
the activity catches it and keeps every change made so far, while a dry run (the legal-move search, `can(...)`) takes
it back like anything else it tried. The later times are requests kept in the state, so undo, saves and replays carry
them; the earliest one requested wins. A turn ends where the game emits `turn_end` (the flow closing a turn, or the
statement `end turn`), a round where the flow's last phase ends, or (without a flow) at the statement `end round`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .services import Services

TURN = "end_after_turn"  # state var: true while the game is to end when the turn in progress ends
ROUNDS = "end_after_rounds"  # state var: how many round ends are still to come before the game ends (1: this one)
ROUNDS_FOR = {"round": 1, "next_round": 2}


class EndNow(BaseException):
    """The game is over: stop the running activity; its transaction keeps the changes made so far."""


def now(m: Services) -> None:
    """End the game at once (its `end.do` runs) and stop the running activity. Inside `end.do`, or once the game is
    over, nothing more happens."""
    if m.state.vars.get("game_over"):
        return
    m.end_game()
    raise EndNow


def request(m: Services, at: str) -> None:
    """`end game` at `at` (now, turn, round, next_round): the earliest of all the requests is the one that counts."""
    vars_ = m.state.vars
    if vars_.get("game_over"):
        return
    if at == "now":
        now(m)
    elif at == "turn":
        m.state.set_var(TURN, True)
    else:
        want, have = ROUNDS_FOR[at], vars_.get(ROUNDS)
        if have is None or want < have:
            m.state.set_var(ROUNDS, want)


def turn_ended(m: Services) -> None:
    """A turn has ended (after its `turn_end` triggers): the game ends here if that was asked for."""
    if m.state.vars.get(TURN):
        now(m)


def round_ended(m: Services) -> None:
    """A round has ended (after its last phase): the game ends here, or one round end sooner is left."""
    left = m.state.vars.get(ROUNDS)
    if left is None:
        return
    if left <= 1:
        now(m)
    else:
        m.state.set_var(ROUNDS, left - 1)


def final_round(vars_: dict) -> bool:
    """Whether a requested end comes by the end of the current round (`final_round` in the language)."""
    return bool(vars_.get(TURN)) or vars_.get(ROUNDS) == 1
