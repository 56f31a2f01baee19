"""Decisions: every choice a player or chance makes, as plain data, and the deciders that answer them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..diagnostics import Span
from .values import plain, shown


@dataclass(frozen=True)
class Decision:
    chooser: str  # a player id, or "chance"
    prompt: str  # the rule text that asks
    options: Sequence[Any]  # runtime values: a tuple, or a range for a die or a shuffle step
    kind: str = "one"  # one | subset | yesno | order (a shuffle's pick of the piece for one position)
    sizes: tuple[int, ...] = ()  # allowed subset sizes
    optional: bool = False
    rule: Span | None = None

    def plain_options(self) -> list[object]:
        return [plain(o) for o in self.options]

    def describe(self) -> str:
        what = {"one": "one of", "subset": "a subset of", "yesno": "yes or no", "order": "one of"}[self.kind]
        where = f" ({self.rule})" if self.rule else ""
        opts = "" if self.kind == "yesno" else f" {shown(self.plain_options())}"
        return f"{self.chooser} chooses {what}{opts} for '{self.prompt}'{where}"


@dataclass(frozen=True)
class WhoAnswers:
    """A scripted answer that also says which player must be the one asked ({p2: bakery} in a scenario)."""

    player: str
    value: object

    def shown(self) -> str:
        """As the scenario writes it: {p2: $q4}."""
        return shown({self.player: self.value})


class WrongChooser(Exception):
    def __init__(self, decision: Decision, expected: str) -> None:
        super().__init__(expected)
        self.decision = decision
        self.expected = expected


class Decider(Protocol):
    def decide(self, decision: Decision) -> object:
        """Answer a player's decision with one of its options (plain or runtime form)."""

    def chance(self, decision: Decision) -> object | None:
        """A scripted result for a chance decision (a die or a random pick), or None to use the seeded generator."""


class ScriptedDecider:
    """Answers from a list, in order; chance results from a second list. Used by scenarios and tests."""

    def __init__(self, answers: Sequence[object] = (), rolls: Sequence[object] = ()) -> None:
        self.answers = list(answers)
        self.rolls = list(rolls)
        self.asked: list[Decision] = []

    def decide(self, decision: Decision) -> object:
        self.asked.append(decision)
        if not self.answers:
            raise LookupError(decision)
        answer = self.answers.pop(0)
        if isinstance(answer, WhoAnswers):
            if answer.player != decision.chooser:
                raise WrongChooser(decision, answer.player)
            return answer.value
        return answer

    def chance(self, decision: Decision) -> object | None:
        if decision.kind == "order":  # scenarios script dice and draws, never the steps of a shuffle
            return None
        return self.rolls.pop(0) if self.rolls else None


class FirstOptionDecider:
    """Takes the first option every time (the smallest allowed subset; 'no' to optional steps)."""

    def decide(self, decision: Decision) -> object:
        if decision.kind == "yesno":
            return False
        if decision.kind == "subset":
            return list(decision.options[: min(decision.sizes or (0,))])
        return decision.options[0] if decision.options else None

    def chance(self, decision: Decision) -> object | None:
        return None
