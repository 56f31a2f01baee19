"""`rank_by(KEY, PLAYERS)`: a player's place among players by any per-player number, highest first.

KEY is read once for each player of the list with that player as `it` (`rank_by(it.coins, players)`); the rank of
the acting player (or of the third argument's player) is 1 + the number of players in the list whose key is
greater than theirs, so equal players share the better place (1, 1, 3), as the flow's `rank(p)` does. A list of
numbers as the key compares number by number (later numbers break ties). Lowest first: negate the key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engine.runtime import as_list, check_known, runtime_type_error
from ..engine.values import Player, shown
from . import checked as c
from . import syntax as s
from .compile_error import CompileError
from .types import ANY, INT, PLAYER

if TYPE_CHECKING:
    from ..engine.interpreter import Frame
    from .checker import Checker, Scope


def group(f: Frame, group: Any, subject: Any) -> list[Any]:
    """The players ranked, then the one whose rank is asked (last): each key is read once, in this order."""
    players = as_list(group, f)
    for p in (*players, subject):
        if type(p) is not Player:
            check_known(p, f)
            raise runtime_type_error(f"rank_by ranks players, got {shown(p)}", f)
    return [*players, subject]


def _key(k: Any, f: Frame) -> Any:
    check_known(k, f)
    if type(k) is int:
        return k
    if type(k) is list and k and all(type(check_known(x, f)) is int for x in k):
        return k
    raise runtime_type_error(f"rank_by ranks by a number or a list of numbers, got {shown(k)}", f)


def rank(f: Frame, keys: list[Any]) -> int:
    *others, own = (_key(k, f) for k in keys)
    try:
        return 1 + sum(1 for k in others if k > own)
    except TypeError:  # a number against a list
        raise runtime_type_error("rank_by's key gives a number for some players and a list for others", f) from None


def check_rank_by(ch: Checker, node: s.Call, scope: Scope) -> c.RankBy:
    if not 2 <= len(node.args) <= 3:
        raise CompileError("E405", f"'rank_by' takes 2 or 3 argument(s), got {len(node.args)}", node.pos,
                           "rank_by(KEY, PLAYERS) or rank_by(KEY, PLAYERS, PLAYER)")
    key_node, group_node = node.args[0], node.args[1]
    group = ch.check(group_node, scope)
    gt = group.type
    subject = None
    if len(node.args) == 3:
        subject = ch.check(node.args[2], scope)
        if subject.type not in (PLAYER, ANY):
            raise CompileError("E425", f"rank_by's third argument is whose rank: a player, but this is "
                               f"{subject.type.words()}", node.args[2].pos)
    else:
        ch.who(None, node.pos, scope, "whose rank", "rank_by(KEY, PLAYERS, PLAYER)")
    if gt != ANY and not (gt.is_list and gt.element() in (PLAYER, ANY)):
        raise CompileError("E425", f"rank_by ranks players, but this is {gt.words()}", group_node.pos,
                           "rank among players, or a list of them (players where ...)")
    key = ch.check(key_node, scope.inner(False, {"it": PLAYER}))
    kt = key.type
    if kt != ANY and kt != INT and not (kt.is_list and kt.element() in (INT, ANY)):
        raise CompileError("E425", f"rank_by ranks by a number (or a list of numbers), but this is {kt.words()}",
                           key_node.pos, "write the number each player is ranked by, with the player as it: "
                           "rank_by(it.coins, players)")
    end = (subject or group).end
    return c.RankBy(node.pos, (end[0], end[1] + 1), INT, node, key, group, subject)
