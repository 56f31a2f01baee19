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
from . import syntax as s
from .compile_error import CompileError
from .types import ANY, INT, PLAYER, Type, list_of

if TYPE_CHECKING:
    from ..engine.interpreter import Frame
    from .compiler import ExprCompiler, Scope, _Gen


def _group(f: Frame, group: Any, subject: Any) -> list[Any]:
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


def _rank(f: Frame, keys: list[Any]) -> int:
    *others, own = (_key(k, f) for k in keys)
    try:
        return 1 + sum(1 for k in others if k > own)
    except TypeError:  # a number against a list
        raise runtime_type_error("rank_by's key gives a number for some players and a list for others", f) from None


def compile_rank_by(ec: ExprCompiler, node: s.Call, scope: Scope, gen: _Gen) -> tuple[str, Type]:

    if not 2 <= len(node.args) <= 3:
        raise CompileError("E405", f"'rank_by' takes 2 or 3 argument(s), got {len(node.args)}", node.pos,
                           "rank_by(KEY, PLAYERS) or rank_by(KEY, PLAYERS, PLAYER)")
    key_node, group_node = node.args[0], node.args[1]
    gen.in_iterable += 1  # what the ranking goes through, as a comprehension's iterable
    try:
        group, gt = ec._src(group_node, scope, gen)
        if len(node.args) == 3:
            subject, st = ec._src(node.args[2], scope, gen)
            if st not in (PLAYER, ANY):
                raise CompileError("E425", f"rank_by's third argument is whose rank: a player, but this is "
                                   f"{st.words()}", node.args[2].pos)
        else:
            subject = ec._who(None, node.pos, scope, gen, "whose rank", "rank_by(KEY, PLAYERS, PLAYER)")
    finally:
        gen.in_iterable -= 1
    if gt != ANY and not (gt.is_list and gt.element() in (PLAYER, ANY)):
        raise CompileError("E425", f"rank_by ranks players, but this is {gt.words()}", group_node.pos,
                           "rank among players, or a list of them (players where ...)")
    outer_used = gen.enter()
    key, kt = ec._src(key_node, scope.inner(False, {"it": PLAYER}), gen)
    if kt != ANY and kt != INT and not (kt.is_list and kt.element() in (INT, ANY)):
        raise CompileError("E425", f"rank_by ranks by a number (or a list of numbers), but this is {kt.words()}",
                           key_node.pos, "write the number each player is ranked by, with the player as it: "
                           "rank_by(it.coins, players)")
    items = f"{gen.const(_group)}(f, {group}, {subject})"
    keys = gen.leave(ec._loop("it", items, list_of(PLAYER), key, None, gen), "it", outer_used)
    return f"{gen.const(_rank)}(f, {keys})", INT
