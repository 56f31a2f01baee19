"""The answers a decision accepts, in a stable order (option ids are positions in it), and which to try first."""

from __future__ import annotations

import itertools
from typing import Any

from ..diagnostics import BoardrulesError
from .decisions import Decision

MAX_SUBSETS = 4_096  # subsets a decision may offer as separate options


def first_answer(decision: Decision) -> Any:
    """The first of `answers_for(decision)`, without listing the others (a subset's may be many)."""
    if decision.kind == "yesno":
        return False
    options = list(decision.options)
    if decision.kind == "subset":
        sizes = sorted({k for k in decision.sizes if 0 <= k <= len(options)}) or [0]
        return options[:sizes[0]]
    if not options:
        return None
    return options[0]


def likeliest(decision: Decision, wins: dict[Any, int]) -> Any:
    """The answer that has finished the most proofs at the decision's rule (the first on a tie): a witness run
    takes it, since any complete way proves a move. A chance outcome, or a subset (its answers may be many),
    takes its first answer: which outcome finished a move says little about the next."""
    rule = id(decision.rule)  # the rule's own span object: cheaper to look up than the span's value
    if decision.kind == "subset" or decision.chooser == "chance" or rule not in wins:
        return first_answer(decision)
    answers = answers_for(decision)
    if not answers:
        return first_answer(decision)
    best, most = answers[0], -1
    for answer in answers:
        try:
            n = wins.get((rule, answer), 0)
        except TypeError:  # an answer that is a list
            return first_answer(decision)
        if n > most:
            best, most = answer, n
    return best


def answers_for(decision: Decision) -> list[Any]:
    """Every answer a decision accepts, in a stable order: its option ids are positions in this list."""
    if decision.kind == "yesno":
        return [False, True]
    options = list(decision.options)
    if decision.kind == "subset":
        sizes = sorted({k for k in decision.sizes if 0 <= k <= len(options)}) or [0]
        if decision.chooser == "chance":
            sizes = sizes[:1]
        out: list[Any] = []
        for k in sizes:
            for combo in itertools.combinations(options, k):
                out.append(list(combo))
                if len(out) > MAX_SUBSETS:
                    raise BoardrulesError("E511", f"'{decision.prompt}' has more than {MAX_SUBSETS} subsets to "
                                          "offer", decision.rule, "choose fewer items at a time")
        return out
    if decision.optional:
        return [*options, None]
    return options
