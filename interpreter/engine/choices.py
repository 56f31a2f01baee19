"""How decisions are put to players and to chance, and how their answers are checked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..diagnostics import BoardrulesError
from .budget import Budget
from .decisions import Decider, Decision, WrongChooser
from .interpreter import Frame
from .runtime import runtime_type_error
from .values import Player, plain, shown

if TYPE_CHECKING:
    from .state import State


class Choices:
    """Mixed into Game: choose, yes/no, dice, random picks and shuffles, all through the Decider."""

    decider: Decider
    state: State
    budget: Budget

    def _ask(self, decision: Decision) -> Any:
        try:
            answer = self.decider.decide(decision)
        except LookupError:
            raise BoardrulesError("E506", f"no answer scripted for: {decision.describe()}", decision.rule) from None
        except WrongChooser as wrong:
            raise BoardrulesError(
                "E505", f"the answer is for {wrong.expected}, but {decision.describe()}", decision.rule
            ) from None
        return answer

    def _match(self, decision: Decision, answer: Any) -> Any:
        options = decision.options
        if answer in options:
            return answer
        want = plain(answer)
        if isinstance(want, str):
            want = want.lower()
        for option in options:
            p = plain(option)
            if p == want or (isinstance(p, str) and p.lower() == want) or str(p) == str(want):
                return option
        raise BoardrulesError(
            "E505", f"answer {shown(answer)} is not among the options {shown(decision.plain_options())} "
            f"for '{decision.prompt}'", decision.rule,
        )

    def choose(self, who: Any, prompt: str, options: list[Any], sizes: tuple[int, ...], optional: bool,
               subset: bool) -> Any:
        span = self.state.cause
        kind = "subset" if subset else "one"
        if who == "chance":
            decision = Decision("chance", prompt, tuple(options), kind, sizes, optional, span)
            return self._chance_pick(decision)
        if type(who) is not Player:
            raise runtime_type_error(f"a decision needs a player or chance to decide, got {shown(who)}",
                                     Frame(self, None))  # type: ignore[arg-type]  # always a Machine
        decision = Decision(who.id, prompt, tuple(options), kind, sizes, optional, span)
        if subset:
            possible = [k for k in sizes if 0 <= k <= len(options)]
            if not possible:
                raise BoardrulesError("E501", f"cannot choose {sizes} from {len(options)} option(s): '{prompt}'", span)
            if len(options) in possible and len(possible) == 1:
                return list(options)
            answer = self._ask(decision)
            items = answer if isinstance(answer, list) else [answer]
            if any(plain(a) in ("none", None) for a in items):
                items = [a for a in items if plain(a) not in ("none", None)]
            chosen = []
            for a in items:
                opt = self._match(decision, a)
                if opt in chosen:
                    raise BoardrulesError("E505", f"{shown(a)} is chosen twice for '{prompt}'", span)
                chosen.append(opt)
            if len(chosen) not in possible:
                raise BoardrulesError("E505", f"choose {possible} item(s) for '{prompt}', not {len(chosen)}", span)
            return chosen
        if not options:
            if optional:
                return None
            raise BoardrulesError("E501", f"nothing to choose from for '{prompt}'", span)
        if len(options) == 1 and not optional:
            return options[0]
        answer = self._ask(decision)
        if optional and plain(answer) in (None, "none"):
            return None
        return self._match(decision, answer)

    def yes_no(self, who: Any, prompt: str) -> bool:
        span = self.state.cause
        if who == "chance":
            return self._chance_pick(Decision("chance", prompt, (True, False), "yesno", rule=span))
        if type(who) is not Player:
            raise runtime_type_error(f"a decision needs a player or chance to decide, got {shown(who)}",
                                     Frame(self, None))  # type: ignore[arg-type]  # always a Machine
        answer = self._ask(Decision(who.id, prompt, (True, False), "yesno", rule=span))
        if isinstance(answer, str):
            answer = {"yes": True, "no": False, "true": True, "false": False}.get(answer.lower(), answer)
        if answer not in (True, False):
            raise BoardrulesError("E505", f"answer {shown(answer)} should be yes or no for '{prompt}'", span)
        return bool(answer)

    def _chance_pick(self, decision: Decision) -> Any:
        scripted = self.decider.chance(decision)
        options = list(decision.options)
        if decision.kind == "subset":
            if scripted is not None:
                return [self._match(decision, s) for s in (scripted if isinstance(scripted, list) else [scripted])]
            k = min(decision.sizes) if decision.sizes else 0
            pool = list(options)
            picked = []
            for _ in range(min(k, len(pool))):
                picked.append(pool.pop(self.state.random_below(len(pool))))
            return picked
        if not options:
            return None
        if scripted is not None:
            return self._match(decision, scripted)
        return options[self.state.random_below(len(options))]

    def roll(self, sides: int, die: str) -> int:
        self.budget.range(sides, f"the die {die}", self.state.cause)
        decision = Decision("chance", f"roll {die}", range(1, sides + 1), rule=self.state.cause)
        scripted = self.decider.chance(decision)
        if scripted is not None:
            if type(scripted) is not int or not 1 <= scripted <= sides:
                raise BoardrulesError("E505", f"scripted roll {shown(scripted)} is not a result of {die} (1..{sides})",
                                      self.state.cause)
            return scripted
        return self.state.random_below(sides) + 1

    def shuffle(self, zone: str) -> None:
        """Fisher-Yates, one chance decision per position, so a shuffle can be stepped through like a die."""
        contents = list(self.state.zones[zone].contents)
        self.budget.spend(len(contents), f"shuffling {zone}", self.state.cause)
        for i in range(len(contents) - 1, 0, -1):
            decision = Decision("chance", f"shuffle {zone}: which piece goes to position {i + 1}",
                                range(i + 1), "order", rule=self.state.cause)  # a range: O(1) to make
            scripted = self.decider.chance(decision)
            j = self._match(decision, scripted) if scripted is not None else self.state.random_below(i + 1)
            contents[i], contents[j] = contents[j], contents[i]
        for pid in contents:  # re-append in the new order, each move journaled
            self.state.move_piece(pid, zone, None)


class StopForAnswer(BaseException):
    """Carries a decision out of a running action to the caller (see Game.begin); not an error."""

    def __init__(self, decision: Decision) -> None:
        super().__init__(decision.prompt)
        self.decision = decision


class Prefix:
    """Answers from a list, then stops the action at the first decision it has no answer for."""

    def __init__(self, answers: list[Any]) -> None:
        self.answers = answers

    def decide(self, decision: Decision) -> object:
        if not self.answers:
            raise StopForAnswer(decision)
        return self.answers.pop(0)

    def chance(self, decision: Decision) -> object | None:
        return None


class Recorder:
    """Passes decisions to a decider and keeps what was answered, so the action can be replayed."""

    def __init__(self, inner: Decider) -> None:
        self.inner = inner
        self.answers: list[object] = []
        self.chance_results: list[object] = []

    def decide(self, decision: Decision) -> object:
        answer = self.inner.decide(decision)
        self.answers.append(plain(answer))
        return answer

    def chance(self, decision: Decision) -> object | None:
        result = self.inner.chance(decision)
        self.chance_results.append(plain(result))
        return result
