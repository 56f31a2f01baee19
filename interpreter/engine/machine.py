"""The runtime of one game: the state store, the linked rules, and the services that running rules call.

Runners and compiled expressions reach it as `frame.g`, and only through the members that
`engine.services.Services` declares (tests/test_services.py). The public, documented object for programs is
`boardrules.game.Game`, which drives a Machine; nothing outside the engine should call a Machine directly.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ..diagnostics import BoardrulesError, Span, did_you_mean
from ..internal import internal_error
from . import ending, known, overflow, watch
from .budget import Budget, Limits
from .choices import Choices
from .costs import Payments
from .decisions import Decider, FirstOptionDecider
from .effects import Body
from .interpreter import Frame, run_body
from .moves import Activity, Search
from .rules import ActionDef, Rules
from .runtime import as_list, check_known, unknown_error
from .state import UNKNOWN_SIZE, State, ZoneRec
from .totality import Totality, for_players
from .values import Piece, Player, Ref, Unknown, UnknownCompared, Zone, decode, plain, shown

STEP_BUDGET = 10_000
MAX_DEPTH = 64
MAX_WORKS = 4_096  # actions' works kept for reuse (see action_work)
PARAM_CHECKS = {"int": int, "bool": bool, "symbol": str, "player": Player, "piece": Piece}
# The flow's place in the game, kept in the state so that saves, undo and replay carry it.
FLOW_VARS = {"round": 1, "start_player": "p1", "phase": -1, "passed": [], "turns_taken": [], "turn_moves": 0,
             "turn_over": False, "game_over": False, "phase_live": False}


def _check_whole(what: str, value: object) -> None:
    """An embedding program's player count or seed is a whole number (a bool counts: True is 1)."""
    if not isinstance(value, int):
        raise BoardrulesError("E509", f"the {what} is a whole number, got a {type(value).__name__}")


class Machine(Choices, Payments):
    # Node spans and (span, branch) pairs the rules ran, while a caller records coverage; None costs nothing.
    coverage: set[Any] | None = None
    # While a scenario lays out its starting state, counter changes start no triggers (engine/watch.py).
    quiet_counters: bool = False
    # Whether the dry run now running has reached the flow after its move's body (engine/moves.py).
    flow_ran: bool = False
    # Whether a dry run of the legal-move search is running (engine/moves.py, `probe`): its refusals are verdicts
    # that nobody reads as text, so the costly parts of their messages (a payer's holdings) are left out.
    dry: bool = False

    def __init__(self, rules: Rules, players: int, seed: int = 1, decider: Decider | None = None,
                 limits: Limits | None = None) -> None:
        _check_whole("player count", players)
        _check_whole("seed", seed)
        if not rules.players_min <= players <= rules.players_max:
            shown = players if abs(players) < 10**9 else f"a number of {players.bit_length()} bits"
            raise BoardrulesError(
                "E509", f"this game is for {rules.players_min} to {rules.players_max} players, not {shown}"
            )
        self.rules = rules
        self.players = [Player(f"p{i}", i) for i in range(1, players + 1)]
        self._by_id = {p.id: p for p in self.players}
        self.state = State([p.id for p in self.players], seed)
        self.state.vars.update({k: list(v) if isinstance(v, list) else v for k, v in FLOW_VARS.items()})
        self.decider: Decider = decider or FirstOptionDecider()
        self.flow_on = False  # whether the game follows rules.flow (turns, phases, the end); set by the driver
        self.steps = 0
        self.step_budget = STEP_BUDGET
        self.budget = Budget(limits) if limits is not None else Budget()
        self.stack: list[tuple[str, Span | None]] = []
        self.covered: set[str] = set()  # rules that have started running, as section.name (for coverage)
        # Dry runs of the legal-move search that failed for a reason other than a refusal (moves.REFUSALS), by
        # (code, where): rule bugs the search must not hide as illegal moves. Not part of the state.
        self.problems: dict[tuple[str, str], Any] = {}
        self.pieces_by_id: dict[str, Piece] = {}
        self._works: dict[tuple[Any, ...], tuple[ActionDef, dict[str, Any], Player | None]] = {}  # action_work
        # Which actions always finish (engine/totality.py): None turns the analysis off; see `analysis`.
        self.totality = for_players(rules, players)
        self._known: Any = None  # the state found to hold no unknown value (see `analysis`)
        self._unknown_at: tuple[Any, ...] = ()  # the state as it was when found to hold one
        # How often each answer (by the rule that asked) finished a proof: the search tries those first
        # (engine/moves.py). Only the cost of the search depends on it; copies of the game share it.
        self.answer_wins: dict[Any, int] = {}  # by (id of the rule's span, answer), and by rule once one has
        self.moves_made: dict[Any, Any] = {}  # lists of Move values by action and domains (moves._combinations)
        # By action: whether reading its moves before running them (drawn) lately refuted them (see
        # moves.Search._worth_reading); only the cost of the search depends on it, and copies of the game share it.
        self.read_refuted: dict[str, int] = {}
        n = len(self.players)
        self._bounds = {
            c.name: (c.min, rules.resolve_int(c.max, n) if c.max is not None else None) for c in rules.counters.values()
        }
        # Counters limited per key: (min, max) of each key, looked up by the cell's key.
        self._key_bounds = {
            c.name: {k: (low, rules.resolve_int(high, n)) for k, (low, high) in c.key_limits.items()}
            for c in rules.counters.values() if c.key_limits
        }
        self._lay_out()
        self.zone_watch = watch.watched_zones(self)  # see engine/watch.py: the zones triggers watch

    # ---------------------------------------------------------------- building the state
    def _lay_out(self) -> None:
        r, st, n = self.rules, self.state, len(self.players)
        for z in r.zones.values():
            rec: dict[str, Any] = dict(ordered=z.ordered, slots=self._size(z.slots, n),
                                       slot_capacity=z.slot_capacity, capacity=self._size(z.capacity, n))
            if z.per == "player":
                for p in self.players:
                    st.add_zone(f"{p.id}.{z.name}", ZoneRec(owner=p.id, **rec))
            else:
                st.add_zone(z.name, ZoneRec(**rec))
        for c in r.counters.values():
            owners = [f"{p.id}." for p in self.players] if c.per == "player" else [""]
            for owner in owners:
                for key in c.keys if c.keys is not None else (None,):
                    raw = c.initial.get(key, 0) if isinstance(c.initial, dict) else c.initial
                    st.init_counter(f"{owner}{c.name}" + (f"[{key}]" if key is not None else ""),
                                    self._initial(raw, n))
        for t in r.tracks.values():
            for marker, start in t.markers.items():
                if marker in r.player_markers:
                    for p in self.players:
                        st.add_marker(f"{p.id}.{marker}", t.name, int(start))
                else:
                    st.add_marker(marker, t.name, int(start))

    def _size(self, raw: Any, players: int) -> int | str | None:
        v = self.rules.values.get(raw) if isinstance(raw, str) else None
        if v is not None and (v.kind == "unknown" or (v.kind == "by_players" and players not in v.data)):
            return UNKNOWN_SIZE
        return self.rules.resolve_int(raw, players)

    def _initial(self, raw: Any, players: int) -> Any:
        if isinstance(raw, Unknown):
            return raw
        if isinstance(raw, str):
            v = self.rules.values.get(raw)
            if v is not None and v.kind == "unknown":
                return Unknown(raw, v.data)
            if v is not None and v.kind == "by_players" and players not in v.data:
                return Unknown(raw, f"the table has no entry for {players} players")
            return self.rules.resolve_int(raw, players) or 0
        return raw if isinstance(raw, int) else 0

    def run_setup(self) -> None:
        """The setup rules, in order (run inside a transaction by the driver)."""
        for step in self.rules.setup:
            self.covered.add(f"setup.{step.name}")
            self.budget.rule = f"setup.{step.name}"
            self.run_step(step.body, None, step.span)

    def analysis(self) -> Totality | None:
        """The totality analysis, when this game can no longer meet a value its pack leaves unknown (see
        engine/known.py): its state holds none (asked once per state object: no rule outside setup can bring one
        back, and a state laid out by hand says so with `forget_known`). None before, and when turned off."""
        total = self.totality
        if total is None or self._known is self.state:
            return total
        return known.usable(self, total)

    def forget_known(self) -> None:
        """The state was changed by hand (a scenario's starting state): whether it holds an unknown is asked again."""
        self._known = None
        self._unknown_at = ()

    def copy(self, journal: bool = False) -> Machine:
        """The same game on an independent copy of the state, with no journal (see Game.clone); with `journal`,
        also the journal, the rules that have run and what has been spent of the work budget."""
        other = Machine.__new__(Machine)
        other.__dict__.update(self.__dict__)
        other.state = self.state.copy()
        other._known = other.state if self._known is self.state else None  # a copy holds the same values
        other._unknown_at = ()
        other.budget = Budget(self.budget.limits)
        other.stack = []
        other.covered = set()
        other.problems = {}
        other._works = {}  # their work belongs to this machine
        if journal:
            # Journal entries are immutable records, so the copy may share them; the list itself is its own.
            other.state.journal = list(self.state.journal)
            other.state.cause = self.state.cause
            other.covered = set(self.covered)
            other.budget = copy.copy(self.budget)
        return other

    # ---------------------------------------------------------------- transactions
    def transaction(self, work: Callable[[], None]) -> int:
        """Run `work` atomically; returns the journal mark it started from. On any error the state is restored."""
        mark = len(self.state.journal)
        self.steps = 0
        if self.stack:
            self.stack.clear()
        budget = self.budget
        budget.work = budget.pieces = 0
        budget.rule = None
        try:
            work()
        except ending.EndNow:  # the game ended: what ran until then stands, the rest of the activity does not run
            pass
        except BoardrulesError:
            self.state.rollback(mark)
            raise
        except UnknownCompared as exc:
            self.state.rollback(mark)
            raise unknown_error(exc.value, Frame(self, None)) from None
        except RecursionError:
            self.state.rollback(mark)
            raise self.loop_error(self.state.cause) from None
        except Exception as exc:  # a bug in boardrules must still leave the state as it was, and say where
            self.state.rollback(mark)
            raise internal_error(exc, self.budget.rule, self.state.cause) from exc
        except BaseException:  # an interrupt, or a decision left open for the caller to answer
            self.state.rollback(mark)
            raise
        return mark

    def run_step(self, body: Any, me: Player | None, span: Span, variables: dict[str, Any] | None = None) -> None:
        self.state.cause = span
        run_body(body, Frame(self, me, variables or {}))

    def player(self, pid: str | None) -> Player | None:
        if pid is None:
            return None
        p = self._by_id.get(pid)
        if p is not None:
            return p
        raise BoardrulesError("E509", f"there is no player '{pid}' in a {len(self.players)}-player game")

    # ---------------------------------------------------------------- actions
    def action_work(self, player: str | None, action: str, params: dict[str, Any] | None,
                    head: Body | None = None) -> Callable[[], None]:
        """What taking an action does (guard, cost, body), checked for a known action and parameters first;
        with `head`, that start of the body instead of all of it (a proof: see engine.totality)."""
        # The same work every time for the same player, action and parameters: made once (a turn proves the same
        # candidates again and again; 1 and True are equal keys, so the types are part of the key).
        key: Any = (player, action, None if head is None else id(head))
        if params:
            try:
                for k, v in params.items():  # a tuple or two to add to: cheaper than a generator
                    key += (k, type(v), v)
                made = self._works.get(key)
            except TypeError:  # a parameter that is a list
                key, made = None, None
        else:
            made = self._works.get(key)
        if made is None:
            a = self.rules.actions.get(action)
            if a is None:
                raise BoardrulesError("E509", f"unknown action '{action}'", None,
                                      did_you_mean(action, self.rules.actions))
            me = self.player(player)
            if a.by == "player" and me is None:
                raise BoardrulesError("E509", f"action '{action}' is taken by a player: say which", a.span)
            made = (a, self.params(a.name, a.params, params or {}, a.span), me)
            # A piece named by its id is found in the state as it is now (Machine.from_plain): that is not kept.
            by_id = params and any(t == "piece" and isinstance(params.get(p), str) for p, t in a.params)
            if key is not None and not by_id:
                if len(self._works) >= MAX_WORKS:
                    self._works.clear()
                self._works[key] = made
        # What is kept holds no reference to the machine, and the function made here is not kept: a closure over
        # `self` kept in `self._works` would make every copied game (a rollout's) a cycle that only the cyclic
        # collector frees, with its whole state.
        a, variables, me = made

        def work() -> None:
            if self.state.vars.get("game_over"):
                raise BoardrulesError("E501", "the game is over: no action can be taken", a.span)
            self.budget.rule = a.rule
            if self.state.usage["action"]:
                self.state.clear_usage("action")
            self.run_action(a.name, variables, me, head)

        return work

    def run_action(self, name: str, variables: dict[str, Any], me: Player | None, head: Body | None = None) -> None:
        """An action's parameter domains, guard, cost and effects (what taking it means, on its own or inside
        another rule's `take`); with `head`, that start of its effects only (a proof: see engine.totality)."""
        a = self.rules.actions[name]
        self.covered.add(a.rule)
        f = self.allowed(a, variables, me)
        if a.cost is not None:
            self.state.cause = a.cost.span
            self.pay(a.cost, f)
        run_body(a.body if head is None else head, f)

    def allowed(self, a: ActionDef, variables: dict[str, Any], me: Player | None) -> Frame:
        """Check an action's parameters against their domains and its guard (reading the state, never writing
        it); the frame its cost and body run in."""
        self.state.cause = a.span
        f = Frame(self, me, dict(variables))
        for pname, domain in a.domains.items():  # a parameter outside its declared values is a wrong call
            allowed = as_list(domain.fn(f), f)
            if variables[pname] not in allowed:
                raise BoardrulesError("E509", f"parameter '{pname}' of '{a.name}' is {shown(variables[pname])}, "
                                      f"not one of {shown(allowed)}", a.span)
        if a.guard is not None and not check_known(a.guard.fn(f), f):
            raise BoardrulesError("E501", f"{a.title} is not allowed now: needs {a.guard_text}", a.refused_at)
        return f

    def take(self, name: str, params: dict[str, Any], me: Player | None) -> None:
        """`take ACTION(args) as p`: the action inside the running rule, as part of it."""
        self.enter(f"actions.{name}", self.state.cause)
        try:
            self.run_action(name, params, me)
        finally:
            self.leave()

    def can_take(self, name: str, params: dict[str, Any], me: Player) -> bool:
        """Whether `take` would find a complete legal way now: a dry run inside the running rule, taken back."""
        steps, stack, cause = self.steps, list(self.stack), self.state.cause
        budget = self.budget
        work, pieces, rule = budget.work, budget.pieces, budget.rule  # the dry runs reset them; the action goes on
        search = Search(self, chance_steps=False, work=max(budget.limits.work - work, 0))
        try:
            return search.can_finish(Activity("take", me.id, name, params))
        finally:
            self.steps, self.stack, self.state.cause = steps, stack, cause
            budget.work, budget.pieces, budget.rule = work + search.work_limit - search.work_left, pieces, rule

    def params(self, name: str, declared: tuple[tuple[str, str], ...], given: dict[str, Any],
               span: Span) -> dict[str, Any]:
        if not declared and not given:
            return {}
        names = [p for p, _ in declared]
        for key in given:
            if key not in names:
                raise BoardrulesError("E509", f"'{name}' has no parameter '{key}'", span, did_you_mean(key, names))
        out: dict[str, Any] = {}
        for pname, ptype in declared:
            if pname not in given:
                raise BoardrulesError("E509", f"'{name}' needs the parameter '{pname}' ({ptype})", span)
            value = self.from_plain(given[pname], ptype)
            want = PARAM_CHECKS.get(ptype)
            if want is not None and not (isinstance(value, want) and (want is bool or not isinstance(value, bool))):
                raise BoardrulesError("E509", f"parameter '{pname}' should be {ptype}, got {shown(given[pname])}", span)
            out[pname] = value
        return out

    def from_plain(self, value: Any, ptype: str = "any") -> Any:
        """Read a value written in a scenario or sent by an embedding engine (p2, $id, symbols, lists)."""
        if isinstance(value, list):
            return [self.from_plain(v) for v in value]
        if isinstance(value, str):
            if value.startswith("$"):
                return Piece(value[1:])
            if ptype in ("player", "any") and value[:1] == "p" and value[1:].isascii() and value[1:].isdigit():
                seat = int(value[1:])
                if 1 <= seat <= len(self.players):
                    return self.players[seat - 1]
            if ptype == "piece" and value in self.state.pieces:
                return Piece(value)
            return str(value)  # plain str: YAML strings carry positions we must not store
        return value

    # ---------------------------------------------------------------- turns
    def end_turn_here(self, me: Player | None) -> None:
        """Deferred events, then `turn_end` triggers; per-turn limits reset; play passes clockwise."""
        self.emit("turn_end", (me,), me)
        self.state.clear_usage("turn")
        self.state.set_var("turn", self.state.vars["turn"] + 1)
        if me is not None and not self.flow_on:  # with a flow, the flow picks who plays next
            self.state.set_var("turn_player", self.players[me.seat % len(self.players)].id)
        ending.turn_ended(self)

    def end_round_here(self) -> None:
        """`end round`: per-round limits reset; without a flow it is also where a round ends (with one, the flow's
        last phase is)."""
        self.state.clear_usage("round")
        if not self.flow_on:
            ending.round_ended(self)

    def end_game(self) -> None:
        """The game is over: the flow's final steps run once; every further action is illegal."""
        if self.state.vars.get("game_over"):
            return
        self.state.set_var("game_over", True)
        flow = self.rules.flow
        if flow is not None and flow.final:
            self.enter("flow.end", flow.span)
            try:
                self.run_step(flow.final, None, flow.span)
            finally:
                self.leave()

    # ---------------------------------------------------------------- services for the runners
    def loop_error(self, span: Span | None) -> BoardrulesError:
        chain = [name for name, _ in self.stack]
        seen: list[str] = []
        for name in chain:
            if name not in seen:
                seen.append(name)
        where = " -> ".join(seen) if seen else "the action itself"
        return BoardrulesError(
            "E507", f"step budget of {self.step_budget} exceeded; rules running: {where}", span,
            "a trigger or procedure keeps raising the event that runs it",
        )

    def enter(self, name: str, span: Span | None) -> None:
        """A trigger, procedure or scoring rule (`section.name`) starts running."""
        self.covered.add(name)
        self.stack.append((name, span))
        if len(self.stack) > MAX_DEPTH:
            raise self.loop_error(span)

    def leave(self) -> None:
        self.stack.pop()

    def piece(self, pid: str) -> Piece:
        """The one Piece value for an id (filters build many; sharing them saves the allocations)."""
        p = self.pieces_by_id.get(pid)
        if p is None:
            cache = self.pieces_by_id
            if len(cache) > 2 * len(self.state.pieces) + 1_024:  # pieces come and go: keep the live ones only
                live = self.state.pieces
                self.pieces_by_id = cache = {k: v for k, v in cache.items() if k in live}
            p = cache[pid] = Piece(pid)
        return p

    def set_counter(self, key: str, counter: str, value: Any, code: str = "E508") -> None:
        if type(value) is int:
            self.budget.number(value, self.state.cause)
            low, high = self._bounds[counter]
            if counter in self._key_bounds:
                low, high = self._key_bounds[counter][key[key.rindex("[") + 1:-1]]
            if (low is not None and value < low) or (high is not None and value > high):
                self._absorb(key, counter, value, low, high, code)
                return
        if counter in self.rules.watchers:
            old = self.state.counters.get(key)
            self.state.set_counter(key, value)
            watch.changed(self, counter, key, old, value)
        else:
            self.state.set_counter(key, value)

    def _absorb(self, key: str, counter: str, value: int, low: int | None, high: int | None, code: str) -> None:
        """A change beyond the counter's floor or cap: refused, or absorbed by it (the cap's excess carried on
        first); then the change triggers, then the triggers on what was absorbed (`on: {overflow: ...}`)."""
        c = self.rules.counters[counter]
        if low is not None and value < low:
            if c.underflow == "refuse":
                raise BoardrulesError(code, f"not enough {counter}: {key} would be {value} (at least {low})",
                                      self.state.cause)
            kept, tag = low, "underflow"
        else:
            assert high is not None
            if c.overflow == "refuse":
                raise BoardrulesError(code, f"too much {counter}: {key} would be {value} (at most {high})",
                                      self.state.cause)
            kept, tag = overflow.counter_value(self, key, counter, value, high), "overflow"
        old = self.state.counters.get(key)
        self.state.set_counter(key, kept)
        if counter in self.rules.watchers:
            watch.changed(self, counter, key, old, kept)
        if f"{tag} {counter}" in self.rules.watchers:
            watch.absorbed(self, tag, counter, key, old, kept, abs(value - kept))

    def family_key(self, family: Any, key: Any) -> str:
        if type(family) is not Ref or family.kind != "family":
            raise BoardrulesError("E510", f"expected a keyed counter, got {shown(family)}", self.state.cause)
        name = family.name.rsplit(".", 1)[-1]
        keys = self.rules.counters[name].keys or ()
        k = str(plain(key))
        if k not in keys:
            raise BoardrulesError("E510", f"'{k}' is not a key of '{name}' ({', '.join(keys)})", self.state.cause)
        return f"{family.name}[{k}]"

    def family_get(self, family: Any, key: Any) -> Any:
        return self.state.counters[self.family_key(family, key)]

    def zone_owner(self, zone: Any) -> Player | None:
        if type(zone) is not Zone:
            raise BoardrulesError("E510", f"expected a zone, got {shown(zone)}", self.state.cause)
        return self.player(self.state.zones[zone.key].owner)

    def piece_builtin(self, piece: Any, name: str) -> Any:
        if type(piece) is not Piece:
            if piece is None:
                return None
            raise BoardrulesError("E510", f"'.{name}' needs a piece, got {shown(piece)}", self.state.cause)
        rec = self.state.pieces.get(piece.id)
        if rec is None:
            raise BoardrulesError("E510", f"the piece {piece} is no longer in the game", self.state.cause)
        if name == "id":
            return piece.id
        if name == "kind":
            return rec.kind
        if name == "zone":
            return Zone(rec.zone)
        if name == "slot":
            return self.state.position_in_zone(piece.id)
        return [Piece(p) for p in self.state.group_of(piece.id) if p != piece.id]  # linked

    def get_attr(self, obj: Any, name: str) -> Any:
        """Attribute access when the type was not known at link time."""
        r = self.rules
        if type(obj) is Piece:
            if name in ("id", "kind", "zone", "slot", "linked"):
                return self.piece_builtin(obj, name)
            rec = self.state.pieces.get(obj.id)
            if rec is None:
                raise BoardrulesError("E510", f"the piece {obj} is no longer in the game", self.state.cause)
            return rec.props[name] if name in rec.props else r.prop_defaults.get((rec.kind, name))
        if type(obj) is Player:
            if name in r.counters and r.counters[name].per == "player":
                if r.counters[name].keys is not None:
                    return Ref("family", f"{obj.id}.{name}")
                return self.state.counters[f"{obj.id}.{name}"]
            if name in r.zones and r.zones[name].per == "player":
                return Zone(f"{obj.id}.{name}")
            if name == "seat":
                return obj.seat
            if name in r.player_markers:
                return Ref("marker", f"{obj.id}.{name}")
        if type(obj) is Zone and name == "owner":
            return self.zone_owner(obj)
        if type(obj) is Ref and obj.kind == "marker" and name == "position":
            return self.state.markers[obj.name].pos
        check_known(obj, Frame(self, None))
        raise BoardrulesError("E510", f"{shown(obj)} has no attribute '{name}'", self.state.cause)

    def unlink(self, pid: str) -> None:
        state = self.state
        group = state.pieces[pid].group
        if group is None:
            return
        state.set_group(pid, None)
        rest = list(state.group_members(group))  # order does not matter here
        if len(rest) == 1:
            state.set_group(rest[0], None)

    # ---------------------------------------------------------------- events
    def emit(self, event: str, args: tuple[Any, ...], me: Player | None) -> None:
        st = self.state
        waiting = [d for d in st.deferred if d["until"] == event] if st.deferred else None
        if waiting:
            st.set_deferred([d for d in st.deferred if d["until"] != event])
            for d in waiting:
                self.emit(d["event"], tuple(decode(a) for a in d["args"]), self.player(d["me"]))
        names = [p for p, _ in self.rules.events[event]]
        for trig in self.rules.triggers.get(event, ()):
            self.enter(f"triggers.{trig.name}", trig.span)
            try:
                st.cause = trig.span
                f = Frame(self, me, dict(zip(names, args, strict=True)))
                if trig.guard is None or check_known(trig.guard.fn(f), f):
                    run_body(trig.body, f)
            finally:
                self.leave()

    def score(self) -> None:
        for p in self.players:
            for rule in self.rules.scoring:
                self.enter(f"scoring.{rule.name}", rule.span)
                try:
                    self.run_step(rule.body, p, rule.span)
                finally:
                    self.leave()

    def zone_sizes(self) -> list[int]:
        return watch.zone_sizes(self)

    def zones_changed(self, before: list[int]) -> None:
        watch.zones_changed(self, before)

    # ---------------------------------------------------------------- tracks
    def track_spaces(self, marker: str) -> tuple[int, bool]:
        track = self.rules.tracks[self.state.markers[marker].track]
        spaces = self.rules.resolve_int(track.spaces, len(self.players))
        if spaces is None:
            raise BoardrulesError("E601", f"track '{track.name}' has an unknown number of spaces", self.state.cause)
        return spaces, track.circular

    def advance(self, marker: str, steps: int) -> None:
        if steps < 0:
            raise BoardrulesError("E510", f"cannot advance '{marker}' by {steps}", self.state.cause)
        self._walk(marker, steps, False)

    def marker_reach(self, marker: str) -> int | None:
        """How many spaces a payment can move a marker (its track's `spend` way); None on a circular track."""
        spaces, circular = self.track_spaces(marker)
        if circular:
            return None
        pos = self.state.markers[marker].pos
        return pos - 1 if self.rules.tracks[self.state.markers[marker].track].spend == "back" else spaces - pos

    def marker_room(self, marker: str, steps: int) -> bool:
        """Whether paying `steps` with a marker fits on its track: a straight track's end stops a payment."""
        reach = self.marker_reach(marker)
        return reach is None or steps <= reach

    def spend_marker(self, marker: str, steps: int) -> None:
        """Pay `steps` with a marker: it moves its track's `spend` way, entering each space as `advance` does."""
        self._walk(marker, steps, self.rules.tracks[self.state.markers[marker].track].spend == "back")

    def _walk(self, marker: str, steps: int, back: bool) -> None:
        spaces, circular = self.track_spaces(marker)
        way = "moving back" if back else "advancing"
        self.budget.spend(steps if circular else min(steps, spaces), f"{way} {marker} by {steps}", self.state.cause)
        pos = start = self.state.markers[marker].pos
        entered = []
        for _ in range(steps):
            if circular:
                pos = (pos - 2) % spaces + 1 if back else pos % spaces + 1
            elif back and pos > 1:
                pos -= 1
            elif not back and pos < spaces:
                pos += 1
            else:
                break
            entered.append(pos)
        self.state.set_marker(marker, pos, entered)
        if self.rules.watchers:
            watch.moved(self, marker, start, entered)

    def place(self, marker: str, at: int) -> None:
        spaces, _ = self.track_spaces(marker)
        if not 1 <= at <= spaces:
            raise BoardrulesError("E510", f"space {at} is not on the track (1..{spaces})", self.state.cause)
        start = self.state.markers[marker].pos
        self.state.set_marker(marker, at, [])
        if self.rules.watchers:
            watch.moved(self, marker, start, [])
