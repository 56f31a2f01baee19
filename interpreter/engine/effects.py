"""Effect nodes: the linked, ready-to-run form of a rule's `do:` list.

Each node is immutable, carries the span of the YAML it came from (and a statement that names something, where
that name is written: `named_at`), and holds its expressions as `Expr`: the
checked tree (what every later phase reads) with the function emitted from it (`expr.fn(frame)` runs it).
`interpreter.RUNNERS` maps each node class to the function that runs it.
"""

from __future__ import annotations

from ..dataclass_code import dataclass
from ..diagnostics import Span
from ..language.checked import Expr

Fn = Expr
Body = tuple["Effect", ...]


@dataclass(frozen=True, slots=True)
class Effect:
    span: Span


@dataclass(frozen=True, slots=True)
class LetE(Effect):
    name: str
    value: Fn
    op: str = "let"  # `let x = v` binds; `x = v`, `x += v`, `x -= v` change a bound name (value is then x + v)


@dataclass(frozen=True, slots=True)
class SetCounterE(Effect):
    key: Fn  # -> the counter's state key
    counter: str  # the declared counter, for its range
    op: str
    value: Fn


@dataclass(frozen=True, slots=True)
class SetPropE(Effect):
    piece: Fn
    prop: str
    op: str
    value: Fn


@dataclass(frozen=True, slots=True)
class CostTermC:
    amount: Fn
    counter: str
    per: str  # player or game
    key: str | None  # None, "any", "different", or a fixed key
    key_fn: Fn | None  # a key computed from a local name
    marker: bool = False  # `counter` names a track marker: paying moves it (its track's `spend` way)
    lacking: CostTermC | None = None  # `lacking N c each`: what is paid for each unit the payer lacks
    pos: tuple[int, int] = (1, 1)  # where the counter's word is in the text `amount.src` places

    def span(self, fallback: Span) -> Span:
        """Where the term is written (its counter's word)."""
        return self.amount.src.at(self.pos) if self.amount.src is not None else fallback


@dataclass(frozen=True, slots=True)
class CostC:
    span: Span
    alternatives: tuple[tuple[CostTermC, ...], ...]
    text: str
    named: tuple[str, ...] = ()  # the declared costs (costs.NAME) it pays, whose terms it holds


@dataclass(frozen=True, slots=True)
class PayE(Effect):
    cost: CostC
    by: Fn | None  # the payer, when not the acting player


@dataclass(frozen=True, slots=True)
class MoveE(Effect):
    what: Fn
    to: Fn
    at: Fn | None


@dataclass(frozen=True, slots=True)
class CreateE(Effect):
    count: Fn | None
    kind: str
    zone: Fn
    at: Fn | None
    props: tuple[tuple[str, Fn], ...]
    bind: str | None
    named_at: Span | None = None  # where its kind's word is written


@dataclass(frozen=True, slots=True)
class RemoveE(Effect):
    what: Fn


@dataclass(frozen=True, slots=True)
class LinkE(Effect):
    a: Fn
    b: Fn


@dataclass(frozen=True, slots=True)
class UnlinkE(Effect):
    what: Fn


@dataclass(frozen=True, slots=True)
class ChooseE(Effect):
    var: str
    options: Fn
    by: Fn | None
    optional: bool
    count: Fn | None  # -> int or list of allowed sizes
    prompt: str


@dataclass(frozen=True, slots=True)
class RollE(Effect):
    die: str
    sides: int
    var: str


@dataclass(frozen=True, slots=True)
class DrawE(Effect):
    var: str
    zone: Fn


@dataclass(frozen=True, slots=True)
class ShuffleE(Effect):
    zone: Fn


@dataclass(frozen=True, slots=True)
class RefillE(Effect):
    zone: Fn
    source: Fn


@dataclass(frozen=True, slots=True)
class AdvanceE(Effect):
    marker: Fn  # -> a marker (Ref); a player's marker is keyed by the player
    by: Fn


@dataclass(frozen=True, slots=True)
class PlaceE(Effect):
    marker: Fn
    at: Fn


@dataclass(frozen=True, slots=True)
class EmitE(Effect):
    event: str
    args: tuple[Fn, ...]
    named_at: Span | None = None  # where the event's name is written


@dataclass(frozen=True, slots=True)
class DeferE(Effect):
    event: str
    args: tuple[Fn, ...]
    until: str
    named_at: Span | None = None  # where the event's name is written


@dataclass(frozen=True, slots=True)
class CallE(Effect):
    proc: str
    args: tuple[Fn, ...]
    as_player: Fn | None = None  # the player the procedure runs for, when not the caller's `me`
    named_at: Span | None = None  # where the procedure's name is written


@dataclass(frozen=True, slots=True)
class RequireE(Effect):
    cond: Fn
    message: str


@dataclass(frozen=True, slots=True)
class FailE(Effect):
    message: str


@dataclass(frozen=True, slots=True)
class LimitE(Effect):
    name: str
    key: Fn | None
    count: Fn
    scope: str
    named_at: Span | None = None  # where the limit's name is written


@dataclass(frozen=True, slots=True)
class EndE(Effect):
    what: str  # turn / round / game
    at: str = "now"  # when `end game` ends it: now, turn (this turn), round (this round), next_round


@dataclass(frozen=True, slots=True)
class ScoreE(Effect):
    pass


@dataclass(frozen=True, slots=True)
class SetStartPlayerE(Effect):
    value: Fn


@dataclass(frozen=True, slots=True)
class TakeE(Effect):
    """An action taken inside a rule, by the acting player or another: guard, cost, then its effects."""

    action: str
    args: tuple[Fn, ...]
    as_player: Fn | None
    named_at: Span | None = None  # where the action's name is written


@dataclass(frozen=True, slots=True)
class PassE(Effect):
    """The acting player passes: their turn ends and the phase's turns skip them until it ends."""


@dataclass(frozen=True, slots=True)
class AsE(Effect):
    """Run a block for another player: `me`, costs and default deciders inside are that player's."""

    who: Fn
    body: Body


@dataclass(frozen=True, slots=True)
class IfE(Effect):
    cond: Fn
    then: Body
    other: Body


@dataclass(frozen=True, slots=True)
class ForE(Effect):
    var: str
    items: Fn
    body: Body


@dataclass(frozen=True, slots=True)
class RepeatE(Effect):
    count: Fn
    body: Body


@dataclass(frozen=True, slots=True)
class MatchE(Effect):
    subject: Fn
    cases: tuple[tuple[object, Body], ...]
    other: Body


@dataclass(frozen=True, slots=True)
class OneOfE(Effect):
    by: Fn | None
    options: tuple[tuple[str, Fn | None, Body], ...]


@dataclass(frozen=True, slots=True)
class MayE(Effect):
    by: Fn | None
    body: Body


@dataclass(frozen=True, slots=True)
class WhileE(Effect):
    cond: Fn
    body: Body


@dataclass(frozen=True, slots=True)
class StepE(Effect):
    """A named step of a rule (`step: name`), which a module may wrap as section.rule.name."""

    name: str
    body: Body


@dataclass(frozen=True, slots=True)
class WrapE(Effect):
    """One module's hooks around a rule or a step: before, then `instead` (or the wrapped body), then after."""

    target: str
    module: str
    before: Body
    instead: Body | None
    after: Body
    inner: Body
    instead_span: Span | None = None  # the `instead:` key, where a hook that drops the rule is reported


@dataclass(frozen=True, slots=True)
class ProceedE(Effect):
    pass
