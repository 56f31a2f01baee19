"""The linked rule set of one game: every declaration of the composed modules, and the runnable rules."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import field
from typing import TYPE_CHECKING, Any

from ..dataclass_code import dataclass
from ..diagnostics import BoardrulesError, Span
from .effects import Body, CostC
from .values import Unknown

if TYPE_CHECKING:
    from ..language.checked import Expr


@dataclass(frozen=True, slots=True)
class ModuleInfo:
    """What a linked module says of itself: its title and the player counts it gives, as written (`min`, `max`;
    None when it gives no `players:`). Several modules may each give counts: the last in requires order wins
    (Rules.players_min/max), and explain and the range analysis say or use what each gave."""

    id: str
    title: str
    players: tuple[tuple[str, Any], ...] | None
    span: Span

    def given(self, key: str, default: Any = None) -> Any:
        """The player count the module gives under `key` (min or max), as written; `default` when it gives none."""
        return dict(self.players or ()).get(key, default)


@dataclass(frozen=True, slots=True)
class Addition:
    """A symbol or a key one module's `extend:` adds to a set or a keyed counter another module declares, where
    it is written (each as written, also one already there)."""

    module: str
    section: str  # sets or counters
    name: str
    word: str
    span: Span


@dataclass(frozen=True, slots=True)
class Written:
    """One declaration as its module writes it, before `replace:` or `extend:` change it, with the place of each
    key it gives: what the checks of a pack's own words read (the input and output roles, a starting value, the
    numbers a source quotes). A piece's property is one (section `properties`), from its kind or an extension."""

    section: str
    name: str
    module: str
    span: Span  # of the name
    given: tuple[tuple[str, Any, Span | None], ...]  # (key, value as written, the value's place); () if no mapping

    def get(self, key: str, default: Any = None) -> Any:
        return next((value for k, value, _ in self.given if k == key), default)

    def has(self, key: str) -> bool:
        return any(k == key for k, _, _ in self.given)

    def at(self, key: str, fallback: Span) -> Span:
        """Where the value of `key` is written; `fallback` when it is not."""
        return next((span for k, _, span in self.given if k == key and span is not None), fallback)


@dataclass(frozen=True, slots=True)
class Replacement:
    """A declaration one module's `replace:` stands in for: what explain shows as changed (and as it was)."""

    target: str  # section.name
    module: str  # the replacing module (the last, when several do in requires order)
    declared_in: str  # the module that declares it
    span: Span  # of the target in `replace:`


@dataclass(frozen=True, slots=True)
class ChoiceChange:
    """What one module's `extend:` of a rule's `one_of` says it adds and drops (labels as written; None where it
    says nothing of the kind): explain says it beside the rule, whose body already holds the result."""

    module: str
    target: str  # section.rule or section.rule.step
    added: tuple[str, ...] | None
    dropped: tuple[str, ...] | None
    span: Span | None  # of the target in `extend:`


@dataclass
class CounterDecl:
    name: str
    per: str
    keys: tuple[str, ...] | None
    initial: Any  # an int, a value name, or None for 0
    min: int | None
    max: int | str | None  # a number or a value name
    span: Span
    overflow: str = "refuse"  # above max: refuse (E508), discard (stop at max), carry (the excess to carry_to)
    carry_to: str | None = None
    # below min: refuse (E508) or discard (stop at min: the floor absorbs the rest of the loss)
    underflow: str = "refuse"
    # A keyed counter's limits per key (min, max), when `min` or `max` is a mapping; `min`/`max` above are then
    # the widest of them (what holds for every key), which is what range analysis may rely on.
    key_limits: dict[str, tuple[int | None, int | str | None]] = field(default_factory=dict)

    def limits_of(self, key: str | None) -> tuple[int | None, int | str | None]:
        """The (min, max) of one cell: a key of a keyed counter, or None for the counter as a whole."""
        if key is not None and key in self.key_limits:
            return self.key_limits[key]
        return self.min, self.max


@dataclass
class ZoneDecl:
    name: str
    per: str
    ordered: bool
    slots: Any  # int, value name or None
    slot_capacity: int
    capacity: Any  # int, value name or None
    span: Span
    overflow: str = "refuse"  # a piece beyond capacity: refuse (E504), discard (out of the game), carry (carry_to)
    carry_to: str | None = None


@dataclass
class TrackDecl:
    name: str
    spaces: Any  # int or value name
    circular: bool
    icons: dict[int, tuple[str, ...]]
    markers: dict[str, int]
    span: Span
    spend: str = "back"  # which way paying with one of its markers moves it: back (toward 1) or forward


@dataclass
class ValueDecl:
    name: str
    kind: str  # const, by_players, expr, unknown
    data: Any
    span: Span
    source: str | None = None
    compiled: Expr | None = None
    type: str | None = None  # the declared type of an unknown value, which an option must match


@dataclass
class ActionDef:
    name: str
    title: str
    by: str  # player or game
    params: tuple[tuple[str, str], ...]
    guard: Expr | None
    guard_text: str | None
    cost: CostC | None
    body: Body
    span: Span
    source: str | None
    domains: dict[str, Expr] = field(default_factory=dict)  # parameter -> its values (a function of the frame)
    rule: str = field(init=False, repr=False)  # "actions.NAME": how coverage and messages name it
    # Where a refusal by the guard points: the action, with the guard's text, so a scenario can name the rule
    # that refused (`rule:`); made once, as the legal-move search meets many refusals.
    refused_at: Span | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.rule = f"actions.{self.name}"
        self.refused_at = dataclasses.replace(self.span, text=self.guard_text) if self.span is not None else None


@dataclass
class TriggerDef:
    name: str
    event: str
    guard: Expr | None
    body: Body
    span: Span
    guard_text: str | None = None
    source: str | None = None
    on_span: Span | None = None  # where its `on:` is written


@dataclass
class WatchDef:
    """A trigger on a counter's changes (`on: {change: c}`), optionally only when it reaches or passes marks."""

    name: str
    counter: str
    crosses: Expr | None  # -> one mark
    every: Expr | None  # -> each multiple of it is a mark
    guard: Expr | None
    body: Body
    span: Span
    down: bool = False  # marks are reached going down (a counter's direction: down)
    limit: str = ""  # "overflow" or "underflow": runs on what the counter's cap or floor absorbed, not on a change
    source: str | None = None
    guard_text: str | None = None
    on_spans: dict[str, Span] = field(default_factory=dict)  # where `on:` ("on") and each of its keys is written


@dataclass
class ProcDef:
    name: str
    params: tuple[tuple[str, str], ...]
    body: Body
    span: Span
    source: str | None = None


@dataclass
class StepDef:
    """A setup step or a scoring rule: a named body run by the game, not by a player's choice."""

    name: str
    body: Body
    span: Span
    source: str | None = None


@dataclass
class TurnsDef:
    """How the players take turns in a phase."""

    first: Expr | None  # who starts the phase; None: the start player
    until: str  # each_once | all_passed | expr
    until_fn: Expr | None  # for `until: EXPR`, checked after each turn
    per_turn: int | None  # actions in one turn; None: until the player ends the turn or passes
    span: Span


@dataclass
class PhaseDef:
    name: str
    guard: Expr | None  # `if:` the phase is skipped in a round where it is false
    turns: TurnsDef | None  # None: a phase the game runs by itself (`do:`)
    actions: tuple[str, ...]  # the actions players may take in this phase's turns
    before: Body
    body: Body
    after: Body
    span: Span


@dataclass
class FlowDef:
    """A game's course: rounds of phases, turns inside phases, an end condition, final steps and a ranking."""

    phases: list[PhaseDef]
    first_player: Expr | None
    end_when: Expr | None
    end_text: str | None
    final: Body
    ranking: tuple[tuple[Expr, str], ...]  # per-player keys with their text, highest first
    span: Span
    end_after: str | None = None  # once end_when holds, the game ends: None (now), turn, round or next_round


@dataclass
class InvariantDef:
    """A property every step of a game must keep (checked by `simulate`), per game or per player."""

    name: str  # module.name
    per: str  # game | player
    check: Expr
    text: str
    span: Span


@dataclass
class Rules:
    modules: list[str] = field(default_factory=list)
    module_info: dict[str, ModuleInfo] = field(default_factory=dict)  # by module id, in requires order
    additions: list[Addition] = field(default_factory=list)  # what extensions add to sets and keyed counters
    written: dict[str, tuple[Written, ...]] = field(default_factory=dict)  # by module: its declarations as written
    replacements: dict[str, Replacement] = field(default_factory=dict)  # by target (section.name)
    choice_changes: list[ChoiceChange] = field(default_factory=list)  # in requires order
    players_min: int = 1
    players_max: int = 9
    sets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    symbols: set[str] = field(default_factory=set)
    values: dict[str, ValueDecl] = field(default_factory=dict)
    counters: dict[str, CounterDecl] = field(default_factory=dict)
    kinds: dict[str, dict[str, str]] = field(default_factory=dict)
    properties: dict[str, str] = field(default_factory=dict)  # every property name -> its type
    prop_defaults: dict[tuple[str, str], Any] = field(default_factory=dict)
    zones: dict[str, ZoneDecl] = field(default_factory=dict)
    tracks: dict[str, TrackDecl] = field(default_factory=dict)
    markers: dict[str, str] = field(default_factory=dict)  # marker -> track
    player_markers: set[str] = field(default_factory=set)  # markers each player has one of (me.pawn)
    dice: dict[str, int] = field(default_factory=dict)
    events: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    costs: dict[str, CostC] = field(default_factory=dict)
    procedures: dict[str, ProcDef] = field(default_factory=dict)
    setup: list[StepDef] = field(default_factory=list)
    actions: dict[str, ActionDef] = field(default_factory=dict)
    triggers: dict[str, list[TriggerDef]] = field(default_factory=dict)
    watchers: dict[str, list[WatchDef]] = field(default_factory=dict)  # counter -> triggers on its changes
    substitutes: list[Any] = field(default_factory=list)  # payment substitutions (engine.substitution)
    scoring: list[StepDef] = field(default_factory=list)
    flow: FlowDef | None = None
    options: dict[str, Any] = field(default_factory=dict)  # option name -> the plain value it was given
    fingerprint: dict[str, str] = field(default_factory=dict)  # module -> a hash of its content
    pack: str | None = None  # the directory the rules were loaded from, when they were
    unknowns: list[tuple[str, str, Span]] = field(default_factory=list)
    invariants: list[InvariantDef] = field(default_factory=list)
    bot_score: Expr | None = None  # per player (`me`): what the greedy bot maximises
    hidden: dict[str, str] = field(default_factory=dict)  # zone or counter -> "others" | "all"
    conserved: set[str] = field(default_factory=set)  # piece kinds whose count never changes after setup
    # Rule bodies run as one compiled Python function each (language.body_compiler), kept by id of the body.
    # A body is interpreted node by node its first `compile_after` runs (compiling costs more than a few runs:
    # most bodies in a scenario run once), then compiled; with compile_body None it is always interpreted.
    compile_body: Callable[[Body], Callable[[Any], None]] | None = field(default=None, repr=False, compare=False)
    compiled: dict[int, Callable[[Any], None]] = field(default_factory=dict, repr=False, compare=False)
    compile_after: int = field(default=2, repr=False, compare=False)
    runs: dict[int, list[Any]] = field(default_factory=dict, repr=False, compare=False)  # id -> [body, runs]
    # Made as costs are paid (costs.py): a counter cell's minimum, and (owner prefix, counter) -> its cells
    floors: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    cost_cells: dict[tuple[str, str], tuple[tuple[str, str, int], ...]] = field(
        default_factory=dict, repr=False, compare=False)

    # Which bodies always finish (engine.totality), worked out on first use by a game of these rules.
    totality: Any = field(default=None, repr=False, compare=False)
    # What each action's body statements read and change (engine.independence), by action, worked out on first use.
    independence: Any = field(default=None, repr=False, compare=False)

    def rule_names(self) -> list[str]:
        """Every runnable rule as section.name: what coverage is measured against."""
        names = [f"setup.{s.name}" for s in self.setup] + [f"actions.{a}" for a in self.actions]
        names += [f"triggers.{t.name}" for ts in self.triggers.values() for t in ts]
        names += [f"triggers.{w.name}" for ws in self.watchers.values() for w in ws]
        names += [f"procedures.{p}" for p in self.procedures] + [f"scoring.{s.name}" for s in self.scoring]
        return names

    def body_of(self, rule: str) -> Body | None:
        """The body of a rule named section.name (as rule_names gives them), or by its bare name."""
        bodies: dict[str, Body] = {f"setup.{s.name}": s.body for s in self.setup}
        bodies |= {f"actions.{n}": a.body for n, a in self.actions.items()}
        bodies |= {f"triggers.{t.name}": t.body for ts in self.triggers.values() for t in ts}
        bodies |= {f"triggers.{w.name}": w.body for ws in self.watchers.values() for w in ws}
        bodies |= {f"procedures.{n}": p.body for n, p in self.procedures.items()}
        bodies |= {f"scoring.{s.name}": s.body for s in self.scoring}
        if rule in bodies:
            return bodies[rule]
        found = [body for name, body in bodies.items() if name.split(".", 1)[1] == rule]
        return found[0] if len(found) == 1 else None

    # ------------------------------------------------------------ names
    def global_names(self) -> list[str]:
        names = ["me", "players", "player_count", "chance", "turn_player", "turn_number", "round_number",
                 "start_player", "game_over", "final_round"]
        names += list(self.values) + [m for m in self.markers if m not in self.player_markers]
        names += list(self.tracks) + list(self.dice)
        names += list(self.sets) + sorted(self.symbols) + list(self.kinds)
        names += [n for n, c in self.counters.items() if c.per == "game"]
        names += [n for n, z in self.zones.items() if z.per == "game"]
        return names

    def player_counter_names(self) -> list[str]:
        return [n for n, c in self.counters.items() if c.per == "player"]

    def player_zone_names(self) -> list[str]:
        return [n for n, z in self.zones.items() if z.per == "player"]

    # ------------------------------------------------------------ values
    def value_type(self, name: str) -> str:
        """The declaration word (int, bool, symbol, list, any) of what a value holds."""
        v = self.values[name]
        sample = v.data
        if v.kind == "by_players":
            sample = next(iter(v.data.values()), None)
        elif v.kind == "table":
            return str(getattr(v.data, "leaf", "any"))
        elif v.kind != "const":
            return "any"
        if isinstance(sample, bool):
            return "bool"
        if isinstance(sample, int):
            return "int"
        if isinstance(sample, list):
            return "list"
        return "symbol"

    def value_reader(self, name: str) -> Callable[[Any], Any]:
        v = self.values[name]
        if v.kind == "const":
            data = v.data
            return lambda f: data
        if v.kind == "unknown":
            unknown = Unknown(name, v.data)
            return lambda f: unknown
        if v.kind == "by_players":
            table = v.data

            def by_players(f: Any) -> Any:
                n = len(f.g.players)
                if n not in table:
                    raise BoardrulesError(
                        "E601", f"value '{name}' has no entry for {n} players", v.span, "add the player count"
                    )
                return table[n]

            return by_players
        # expr: compiled on first use by the linker (see linker.compile_value_exprs)
        return lambda f: v.compiled.fn(f)  # type: ignore[union-attr]

    def resolve_int(self, raw: Any, players: int) -> int | None:
        """An int written as a number or as a value name (counts, capacities), for a given player count."""
        if raw is None or isinstance(raw, int):
            return raw
        v = self.values.get(raw)
        if v is None:
            return None
        if v.kind == "const" and isinstance(v.data, int):
            return v.data
        if v.kind == "by_players":
            return v.data.get(players)
        return None
