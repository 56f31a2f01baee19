"""The bookkeeping every hand-written baseline does for one action, exactly as the engine does it.

An action taken with `Game.act` is one transaction over the journaled State store: a mark, every write through
State's primitives (so rollback and undo restore the state byte for byte), range checks on every counter write
(the pack's min and max, and the engine's bound on numbers), rollback on any error, then an entry in the undo
history and one in the game's log (the answers it was given, the chance results it asked for). A baseline that
skipped any of this would flatter the engine's rivals, not the engine; one that did more would flatter the engine.

Only this module knows how `Game` keeps its history and log, so a change there is one change here.
"""

from __future__ import annotations

from typing import Any

from boardrules.diagnostics import BoardrulesError
from boardrules.engine.budget import DEFAULT_LIMITS
from boardrules.engine.values import Unknown, plain
from boardrules.game import Game

MAX_INT = DEFAULT_LIMITS.max_int


def number_error(value: int) -> BoardrulesError:
    """The engine's error for a number beyond the per-action bound (engine/budget.py)."""
    return BoardrulesError("E513", f"work limit exceeded: a number with {value.bit_length()} bits")


def bounds(game: Game) -> dict[str, tuple[int | None, int | None]]:
    """Each counter's (min, max) as the pack declares them, for this number of players."""
    n = len(game.players)
    rules = game.rules
    return {c.name: (c.min, rules.resolve_int(c.max, n) if c.max is not None else None)
            for c in rules.counters.values()}


class Book:
    """One game's bookkeeping: the range-checked counter write, the start and the end of a transaction."""

    __slots__ = ("bounds", "cache", "game", "players")

    def __init__(self, game: Game) -> None:
        self.game = game
        self.bounds = bounds(game)
        self.players = {p.id: p for p in game._m.players}
        self.cache: dict[Any, Any] = {}  # what a tuned baseline computes once per game (keys, bounds)

    @property
    def state(self) -> Any:
        return self.game._m.state

    def set_counter(self, key: str, counter: str, value: int, code: str = "E508") -> None:
        """A counter write with the pack's range check (the packs benchmarked here refuse, never cap)."""
        if not -MAX_INT <= value <= MAX_INT:
            raise number_error(value)
        low, high = self.bounds[counter]
        if low is not None and value < low:
            raise BoardrulesError(code, f"not enough {counter}: {key} would be {value} (at least {low})")
        if high is not None and value > high:
            raise BoardrulesError(code, f"too much {counter}: {key} would be {value} (at most {high})")
        self.state.set_counter(key, value)

    def begin(self) -> int:
        """What the engine does before an action's own rules: the game-over check and the per-action limits."""
        st = self.state
        if st.vars.get("game_over"):
            raise BoardrulesError("E501", "the game is over: no action can be taken")
        mark = st.mark()
        st.clear_usage("action")
        return mark

    def commit(self, mark: int, kind: str, player: str | None, action: str | None, params: dict[str, Any],
               answers: list[Any], chance: list[Any]) -> None:
        """The undo history and the log entry of a finished action, in the forms Game keeps them."""
        game = self.game
        game._history.append((mark, len(game._log), None))
        game._log.append((kind, player, action, tuple((k, _frozen(plain(v))) for k, v in params.items()),
                          tuple(_frozen(plain(a)) for a in answers), tuple(_frozen(plain(c)) for c in chance)))
        game._trim()


def _frozen(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


class Answers:
    """The answers of one action, taken in order as a scripted decider gives them; remembers those used (the log).

    `pick` checks an answer against the options as the engine does (plain value, case-insensitive symbol), so a
    wrong answer is refused with the engine's code (E505), and a missing one with E506."""

    __slots__ = ("given", "rolls", "used", "used_chance")

    def __init__(self, given: list[Any] | tuple[Any, ...] = (), rolls: list[Any] | tuple[Any, ...] = ()) -> None:
        self.given = list(given)
        self.rolls = list(rolls)
        self.used: list[Any] = []
        self.used_chance: list[Any] = []

    def next(self, what: str) -> Any:
        if not self.given:
            raise BoardrulesError("E506", f"no answer scripted for: {what}")
        answer = self.given.pop(0)
        self.used.append(answer)
        return answer

    def pick(self, what: str, options: list[Any]) -> Any:
        """One of `options`: taken without asking when there is only one, else the next answer matched."""
        if not options:
            raise BoardrulesError("E501", f"nothing to choose from for '{what}'")
        if len(options) == 1:
            return options[0]
        return match(self.next(what), options, what)

    def subset(self, what: str, options: list[Any], sizes: tuple[int, ...]) -> list[Any]:
        """Distinct options, as many as one of `sizes` (all of them, without asking, when that is the only way)."""
        possible = [k for k in sizes if 0 <= k <= len(options)]
        if not possible:
            raise BoardrulesError("E501", f"cannot choose {sizes} from {len(options)} option(s): '{what}'")
        if len(options) in possible and len(possible) == 1:
            return list(options)
        answer = self.next(what)
        items = [a for a in (answer if isinstance(answer, list) else [answer]) if plain(a) not in ("none", None)]
        chosen: list[Any] = []
        for a in items:
            opt = match(a, options, what)
            if opt in chosen:
                raise BoardrulesError("E505", f"{plain(a)!r} is chosen twice for '{what}'")
            chosen.append(opt)
        if len(chosen) not in possible:
            raise BoardrulesError("E505", f"choose {possible} item(s) for '{what}', not {len(chosen)}")
        return chosen

    def yes_no(self, what: str) -> bool:
        answer = self.next(what)
        if isinstance(answer, str):
            answer = {"yes": True, "no": False, "true": True, "false": False}.get(answer.lower(), answer)
        if answer not in (True, False):
            raise BoardrulesError("E505", f"answer {answer!r} should be yes or no for '{what}'")
        return bool(answer)

    def chance(self) -> Any:
        """The next scripted chance result, or None (then the seeded generator decides); logged either way."""
        result = self.rolls.pop(0) if self.rolls else None
        self.used_chance.append(result)
        return result


def known(value: Any) -> Any:
    """A value the pack leaves unknown stops the game when a rule computes with it (E601), as in the engine."""
    if type(value) is Unknown:
        raise BoardrulesError("E601", f"the game reached '{value.name}', a value the source leaves unknown")
    return value


def number(value: Any) -> int:
    """An element of a sum or a count: known, and a number (E510 otherwise)."""
    if type(value) is not int:
        known(value)
        raise BoardrulesError("E510", f"expected numbers, got {value!r}")
    return value


def prop(game: Game, pid: str, name: str) -> Any:
    """A piece's property, or the pack's default for its kind."""
    rec = game._m.state.pieces[pid]
    props = rec.props
    return props[name] if name in props else game.rules.prop_defaults.get((rec.kind, name))


def unlink(state: Any, pid: str) -> None:
    """Take a piece out of its set of linked pieces; a set left with one piece is no set (as the engine does)."""
    group = state.pieces[pid].group
    if group is None:
        return
    state.set_group(pid, None)
    rest = [p for p, rec in state.pieces.items() if rec.group == group]
    if len(rest) == 1:
        state.set_group(rest[0], None)


def book_of(game: Game) -> Book:
    """The Book of a game, made once (what a hand-written program keeps beside its game)."""
    book = game.__dict__.get("_baseline_book")
    if book is None:
        book = game.__dict__["_baseline_book"] = Book(game)
    return book


def match(answer: Any, options: list[Any], what: str) -> Any:
    if answer in options:
        return answer
    want = plain(answer)
    if isinstance(want, str):
        want = want.lower()
    for option in options:
        p = plain(option)
        if p == want or (isinstance(p, str) and p.lower() == want) or str(p) == str(want):
            return option
    raise BoardrulesError("E505", f"answer {plain(answer)!r} is not among the options for '{what}'")
