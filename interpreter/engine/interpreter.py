"""Run effect nodes. `RUNNERS` is the one place that maps each effect kind to the function that runs it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..diagnostics import BoardrulesError, Span
from . import effects as e
from . import ending, overflow
from .frame import Frame
from .runtime import as_list, check_known, runtime_type_error
from .values import Piece, Player, Ref, Zone, encode, plain, shown

__all__ = ["RUNNERS", "Frame", "run_body"]


def run_body(body: e.Body, f: Frame) -> None:
    """Run a body: as the one Python function it compiles to, unless coverage is being recorded (the
    interpreter sees each node) or the rules were linked to be interpreted."""
    if not body:
        return
    g = f.g
    if g.coverage is None:
        rules = g.rules
        compiled = rules.compiled.get(id(body))
        if compiled is None and rules.compile_body is not None:
            seen = rules.runs.get(id(body))
            if seen is None:
                seen = rules.runs[id(body)] = [body, 0]  # the body is kept, so its id is not reused
            seen[1] += 1
            if seen[1] > rules.compile_after:
                compiled = rules.compile_body(body)
        if compiled is not None:
            compiled(f)
            return
    interpret(body, f)


def interpret(body: e.Body, f: Frame) -> None:
    g = f.g
    state = g.state
    ran = g.coverage  # None unless coverage is being recorded: one test per node when it is off
    for node in body:
        g.steps += 1
        if g.steps > g.step_budget:
            raise g.loop_error(node.span)
        state.cause = node.span
        if ran is not None:
            ran.add(node.span)
        RUNNERS[type(node)](node, f)


def illegal(message: str, f: Frame, code: str = "E501") -> BoardrulesError:
    return BoardrulesError(code, message, f.g.state.cause)


def _pieces(value: Any, f: Frame) -> list[Piece]:
    if value is None:
        raise runtime_type_error("expected a piece, got none (nothing there?)", f)
    items = [value] if type(value) is Piece else as_list(value, f)
    for p in items:
        if type(p) is not Piece:
            raise runtime_type_error(f"expected pieces, got {shown(p)}", f)
        if p.id not in f.g.state.pieces:
            raise runtime_type_error(f"the piece {p} is no longer in the game", f)
    return items


def _zone(value: Any, f: Frame) -> Zone:
    if type(value) is not Zone:
        check_known(value, f)
        raise runtime_type_error(f"expected a zone, got {shown(value)}", f)
    return value


def _int(value: Any, f: Frame, what: str) -> int:
    check_known(value, f)
    if type(value) is not int:
        raise runtime_type_error(f"{what} should be a number, got {shown(value)}", f)
    return value


# ---------------------------------------------------------------- simple statements


def run_let(n: e.LetE, f: Frame) -> None:
    value = n.value.fn(f)
    f.vars[n.name] = f.g.budget.number(value, n.span) if type(value) is int else value


def run_set_counter(n: e.SetCounterE, f: Frame) -> None:
    key = n.key.fn(f)
    value = n.value.fn(f)
    if n.op != "=":
        value = counter_change(f, f.g.state.counters[key], value, n.op)
    f.g.set_counter(key, n.counter, value)


def counter_change(f: Frame, old: Any, change: Any, op: str) -> Any:
    """`c += x` and `c -= x`: the new value, or what is wrong."""
    check_known(old, f)
    return old + _int(change, f, "the change") if op == "+=" else old - _int(change, f, "the change")


def run_set_prop(n: e.SetPropE, f: Frame) -> None:
    pieces: list[Any] = _pieces(n.piece.fn(f), f) or [None]
    (piece,) = pieces
    if piece is None:
        raise runtime_type_error(f"cannot set '{n.prop}' of nothing", f)
    value = n.value.fn(f)
    if n.op != "=":
        old = check_known(f.g.get_attr(piece, n.prop), f)
        if type(old) is not int:
            raise runtime_type_error(f"'{n.prop}' is not a number", f)
        value = old + _int(value, f, "the change") if n.op == "+=" else old - _int(value, f, "the change")
    if type(value) is int:
        f.g.budget.number(value, n.span)
    f.g.state.set_prop(piece.id, n.prop, value)


def run_pay(n: e.PayE, f: Frame) -> None:
    if n.by is None:
        f.g.pay(n.cost, f)
        return
    payer = n.by.fn(f)
    if type(payer) is not Player:
        raise runtime_type_error(f"a cost is paid by a player, got {shown(payer)}", f)
    # The cost's own names (me.x in an amount) then mean the payer, as they would in the payer's action.
    f.g.pay(n.cost, Frame(f.g, payer, f.vars))


def _move(n: e.MoveE, f: Frame) -> None:
    zone = _zone(n.to.fn(f), f)
    at = _int(n.at.fn(f), f, "the slot") if n.at else None
    state = f.g.state
    moved: set[str] = set()
    for piece in _pieces(n.what.fn(f), f):
        for pid in state.group_of(piece.id):
            if pid not in moved:
                moved.add(pid)
                dest = overflow.destination(f.g, zone.key, pid)
                if dest is None:  # a full zone that discards: the piece leaves the game
                    f.g.unlink(pid)
                    state.remove_piece(pid)
                else:
                    state.move_piece(pid, dest, at if dest == zone.key else None)


def _create(n: e.CreateE, f: Frame) -> None:
    count = _int(n.count.fn(f), f, "the number of pieces") if n.count else 1
    zone = _zone(n.zone.fn(f), f)
    at = _int(n.at.fn(f), f, "the slot") if n.at else None
    state = f.g.state
    f.g.budget.create(max(count, 0), n.span)
    created = []
    for _ in range(count):
        props = {name: x.fn(f) for name, x in n.props}
        dest = overflow.destination(f.g, zone.key, None)
        if dest is None:  # a full zone that discards: the piece is never made
            continue
        pid = str(props.pop("id")) if "id" in props else state.new_id(n.kind)
        state.create_piece(pid, n.kind, dest, at if dest == zone.key else None, props)
        created.append(Piece(pid))
    if n.bind:
        f.vars[n.bind] = created if n.count else (created[0] if created else None)


def _remove(n: e.RemoveE, f: Frame) -> None:
    for piece in _pieces(n.what.fn(f), f):
        f.g.unlink(piece.id)
        f.g.state.remove_piece(piece.id)


def run_link(n: e.LinkE, f: Frame) -> None:
    (a,) = _pieces(n.a.fn(f), f)
    (b,) = _pieces(n.b.fn(f), f)
    state = f.g.state
    group = state.pieces[a.id].group or state.pieces[b.id].group or state.new_group()
    for pid in {*state.group_of(a.id), *state.group_of(b.id)}:
        if state.pieces[pid].group != group:
            state.set_group(pid, group)


def run_unlink(n: e.UnlinkE, f: Frame) -> None:
    for piece in _pieces(n.what.fn(f), f):
        f.g.unlink(piece.id)


def run_choose(n: e.ChooseE, f: Frame) -> None:
    options = as_list(n.options.fn(f), f)
    who = n.by.fn(f) if n.by else f.me
    sizes: tuple[int, ...] = ()
    if n.count is not None:
        raw = n.count.fn(f)
        sizes = tuple(raw) if isinstance(raw, list) else (_int(raw, f, "the count"),)
    f.vars[n.var] = f.g.choose(who, n.prompt, options, sizes, n.optional, n.count is not None)


def run_roll(n: e.RollE, f: Frame) -> None:
    f.vars[n.var] = f.g.roll(n.sides, n.die)


def run_draw(n: e.DrawE, f: Frame) -> None:
    zone = _zone(n.zone.fn(f), f)
    piece = f.g.piece  # a bag holds many pieces: share their values instead of making one each per draw
    contents = [piece(p) for p in f.g.state.zones[zone.key].contents]
    f.vars[n.var] = f.g.choose("chance", f"draw from {zone}", contents, (), False, False) if contents else None


def run_shuffle(n: e.ShuffleE, f: Frame) -> None:
    f.g.shuffle(_zone(n.zone.fn(f), f).key)


def _refill(n: e.RefillE, f: Frame) -> None:
    zone, source = _zone(n.zone.fn(f), f), _zone(n.source.fn(f), f)
    state = f.g.state
    target = state.zones[zone.key]
    if type(target.capacity) is not int:
        if target.capacity is None:
            raise runtime_type_error(f"refill needs a zone with a capacity; '{zone}' has none", f)
        raise BoardrulesError("E601", f"the size of zone '{zone}' is unknown", f.g.state.cause)
    for _ in range(target.capacity - len(target.contents)):
        src = state.zones[source.key].contents
        if not src:
            break
        state.move_piece(src[0], zone.key, None)


def _watching_zones(run: Callable[[Any, Frame], None]) -> Callable[[Any, Frame], None]:
    """A statement that moves, creates or removes pieces, then the triggers on the watched zones it changed."""

    def runner(n: Any, f: Frame) -> None:
        g = f.g
        if not g.zone_watch:
            run(n, f)
            return
        before = g.zone_sizes()
        run(n, f)
        g.zones_changed(before)

    return runner


run_move = _watching_zones(_move)
run_create = _watching_zones(_create)
run_remove = _watching_zones(_remove)
run_refill = _watching_zones(_refill)


def _marker(value: Any, f: Frame) -> str:
    if type(value) is not Ref or value.kind != "marker":
        check_known(value, f)
        raise runtime_type_error(f"expected a track marker, got {shown(value)}", f)
    return value.name


def run_advance(n: e.AdvanceE, f: Frame) -> None:
    f.g.advance(_marker(n.marker.fn(f), f), _int(n.by.fn(f), f, "the number of spaces"))


def run_place(n: e.PlaceE, f: Frame) -> None:
    f.g.place(_marker(n.marker.fn(f), f), _int(n.at.fn(f), f, "the space"))


def run_emit(n: e.EmitE, f: Frame) -> None:
    f.g.emit(n.event, tuple(a.fn(f) for a in n.args), f.me)


def run_defer(n: e.DeferE, f: Frame) -> None:
    state = f.g.state
    item = {
        "event": n.event,
        "args": [encode(a.fn(f)) for a in n.args],
        "until": n.until,
        "me": f.me.id if f.me else None,
    }
    state.set_deferred([*state.deferred, item])


def acting(who: Any, f: Frame) -> Player:
    if type(who) is not Player:
        check_known(who, f)
        raise runtime_type_error(f"a block runs for a player, got {shown(who)}", f)
    return who


def run_call(n: e.CallE, f: Frame) -> None:
    proc = f.g.rules.procedures[n.proc]
    me = acting(n.as_player.fn(f), f) if n.as_player is not None else f.me
    call(f, proc.body, f"procedures.{n.proc}", n.span, me,
         {name: x.fn(f) for (name, _), x in zip(proc.params, n.args, strict=True)})


def call(f: Frame, body: e.Body, rule: str, span: Span | None, me: Player | None, variables: dict[str, Any]) -> None:
    """A procedure's body in a frame of its own, with its rule on the stack (compiled bodies call this too)."""
    g = f.g
    g.enter(rule, span)
    try:
        run_body(body, Frame(g, me, variables))
    finally:
        g.leave()


def run_require(n: e.RequireE, f: Frame) -> None:
    if not check_known(n.cond.fn(f), f):
        raise illegal(n.message, f)


def run_fail(n: e.FailE, f: Frame) -> None:
    raise illegal(n.message, f)


def run_limit(n: e.LimitE, f: Frame) -> None:
    key = n.name if n.key is None else f"{n.name}[{plain(n.key.fn(f))}]"
    allowed = _int(n.count.fn(f), f, "the limit")
    if f.g.state.use(n.scope, key) > allowed:
        raise illegal(f"limit reached: {key} at most {allowed} per {n.scope}", f, "E503")


def run_end(n: e.EndE, f: Frame) -> None:
    g = f.g
    if n.what == "game":
        ending.request(g, n.at)
    elif n.what == "round":
        g.end_round_here()
    elif g.flow_on:  # the flow ends the turn once the action is over, and picks who plays next
        g.state.set_var("turn_over", True)
    else:
        g.end_turn_here(f.me)


def run_pass(n: e.PassE, f: Frame) -> None:
    me = acting(f.me, f)
    state = f.g.state
    if me.id not in state.vars["passed"]:
        state.set_var("passed", [*state.vars["passed"], me.id])
    if f.g.flow_on:
        state.set_var("turn_over", True)


def run_set_start_player(n: e.SetStartPlayerE, f: Frame) -> None:
    f.g.state.set_var("start_player", acting(n.value.fn(f), f).id)


def run_take(n: e.TakeE, f: Frame) -> None:
    who = acting(n.as_player.fn(f), f) if n.as_player is not None else f.me  # none for an action of the game
    params = f.g.rules.actions[n.action].params
    f.g.take(n.action, {name: x.fn(f) for (name, _), x in zip(params, n.args, strict=True)}, who)


def run_as(n: e.AsE, f: Frame) -> None:
    run_body(n.body, Frame(f.g, acting(n.who.fn(f), f), f.vars))


def run_score(n: e.ScoreE, f: Frame) -> None:
    f.g.score()


# ---------------------------------------------------------------- blocks


def run_if(n: e.IfE, f: Frame) -> None:
    taken = bool(check_known(n.cond.fn(f), f))
    if f.g.coverage is not None:
        f.g.coverage.add((n.span, "then" if taken else "else"))
    run_body(n.then if taken else n.other, f)


def run_for(n: e.ForE, f: Frame) -> None:
    for item in as_list(n.items.fn(f), f):
        f.vars[n.var] = item
        run_body(n.body, f)


def run_repeat(n: e.RepeatE, f: Frame) -> None:
    count = _int(n.count.fn(f), f, "the repeat count")
    f.g.budget.spend(max(count, 0), "repeat", n.span)
    for _ in range(count):
        run_body(n.body, f)


def case_key(f: Frame, subject: Any) -> str:
    """What a `match` compares its cases with (each case as `str(case).lower()`)."""
    if type(subject) is str:  # the commonest subject, a symbol: its own plain form
        return subject.lower()
    return str(plain(check_known(subject, f))).lower()


def run_match(n: e.MatchE, f: Frame) -> None:
    subject = case_key(f, n.subject.fn(f))
    for case, body in n.cases:
        if str(case).lower() == subject:
            if f.g.coverage is not None:
                f.g.coverage.add((n.span, case))
            run_body(body, f)
            return
    if f.g.coverage is not None:
        f.g.coverage.add((n.span, "else"))
    run_body(n.other, f)


def run_one_of(n: e.OneOfE, f: Frame) -> None:
    open_options = [(label, body) for label, guard, body in n.options if guard is None or check_known(guard.fn(f), f)]
    who = n.by.fn(f) if n.by else f.me
    labels = [label for label, _ in open_options]
    label = f.g.choose(who, "one_of: " + " | ".join(labels), labels, (), False, False)
    if f.g.coverage is not None:
        f.g.coverage.add((n.span, label))
    run_body(dict(open_options)[label], f)


def run_may(n: e.MayE, f: Frame) -> None:
    who = n.by.fn(f) if n.by else f.me
    taken = f.g.yes_no(who, "may: an optional step")
    if f.g.coverage is not None:
        f.g.coverage.add((n.span, "yes" if taken else "no"))
    if taken:
        run_body(n.body, f)


def run_while(n: e.WhileE, f: Frame) -> None:
    g = f.g
    while check_known(n.cond.fn(f), f):
        # Each turn of the loop costs a step, so a loop whose body does nothing still meets the budget (E507).
        g.steps += 1
        if g.steps > g.step_budget:
            raise g.loop_error(n.span)
        run_body(n.body, f)


def run_step(n: e.StepE, f: Frame) -> None:
    run_body(n.body, f)


_PROCEED = "\0proceed"  # not a name the language can write: the bodies `proceed` runs, innermost last


def run_wrap(n: e.WrapE, f: Frame) -> None:
    run_body(n.before, f)
    if n.instead is None:
        run_body(n.inner, f)
    else:
        stack = f.vars.setdefault(_PROCEED, [])
        stack.append(n.inner)
        try:
            run_body(n.instead, f)
        finally:
            stack.pop()
    run_body(n.after, f)


def run_proceed(n: e.ProceedE, f: Frame) -> None:
    stack: list[e.Body] = f.vars[_PROCEED]
    inner = stack.pop()  # the linker allows proceed only inside an instead hook, so there is one
    try:
        run_body(inner, f)
    finally:
        stack.append(inner)


RUNNERS: dict[type, Callable[[Any, Frame], None]] = {
    e.LetE: run_let,
    e.SetCounterE: run_set_counter,
    e.SetPropE: run_set_prop,
    e.PayE: run_pay,
    e.MoveE: run_move,
    e.CreateE: run_create,
    e.RemoveE: run_remove,
    e.LinkE: run_link,
    e.UnlinkE: run_unlink,
    e.ChooseE: run_choose,
    e.RollE: run_roll,
    e.DrawE: run_draw,
    e.ShuffleE: run_shuffle,
    e.RefillE: run_refill,
    e.AdvanceE: run_advance,
    e.PlaceE: run_place,
    e.EmitE: run_emit,
    e.DeferE: run_defer,
    e.CallE: run_call,
    e.RequireE: run_require,
    e.FailE: run_fail,
    e.LimitE: run_limit,
    e.EndE: run_end,
    e.ScoreE: run_score,
    e.PassE: run_pass,
    e.SetStartPlayerE: run_set_start_player,
    e.AsE: run_as,
    e.TakeE: run_take,
    e.IfE: run_if,
    e.ForE: run_for,
    e.RepeatE: run_repeat,
    e.MatchE: run_match,
    e.OneOfE: run_one_of,
    e.MayE: run_may,
    e.WhileE: run_while,
    e.StepE: run_step,
    e.WrapE: run_wrap,
    e.ProceedE: run_proceed,
}
