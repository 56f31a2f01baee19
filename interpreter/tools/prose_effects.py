"""Rule bodies read back as plain English: each linked effect node says what it does.

`EFFECTS` maps each effect class (engine/effects.py) to the function that says it, as `Line`s (a sentence, its
depth, the span it came from and the names it points at). The words come from the node's fields and the checked
trees it holds (prose.py), never from its source text parsed again, so explain says what the linker resolved.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine import effects as e
from ..engine.rules import Rules
from ..language import checked as c
from .prose import Line, Speaker, cost_words, sentence, words


class Explainer:
    """Turns effect bodies into lines of English."""

    def __init__(self, rules: Rules) -> None:
        self.sp = Speaker(rules)

    def body(self, body: e.Body, depth: int = 0) -> list[Line]:
        out: list[Line] = []
        for node in body:
            out.extend(self.node(node, depth))
        return out

    def node(self, node: e.Effect, depth: int) -> list[Line]:
        self.sp.refs = []
        said = EFFECTS[type(node)](self, node, depth)
        if isinstance(said, str):
            return [Line(depth, sentence(said), node.span, list(self.sp.refs))]
        return said

    def x(self, expr: c.Expr | None) -> str:
        return self.sp.formula(expr)

    def who(self, by: c.Expr | None, you: str, verb: str) -> str:
        """Who acts: `you choose`, `chance picks`, `player 2 picks`."""
        if by is None:
            return f"you {you}"
        return f"{self.x(by)} {verb}"

    def head(self, node: e.Effect, text: str, depth: int) -> Line:
        return Line(depth, sentence(text), node.span, list(self.sp.refs))


def _is_chance(by: c.Expr | None) -> bool:
    tree = by.tree if by is not None else None
    return isinstance(tree, c.Name) and tree.ref.kind == "flow" and tree.ref.name == "chance"


def _let(x: Explainer, n: e.LetE, depth: int) -> str:
    if n.op == "let":
        return f"let {words(n.name)} be {x.x(n.value)}"
    value = n.value
    if n.op != "=" and isinstance(value.tree, c.BinOp):  # `x += v` is kept as x = x + v: say v
        value = c.Expr(value.tree.right, value.fn)
    return _changed(n.op, words(n.name), x.x(value))


def _changed(op: str, target: str, value: str) -> str:
    if op == "+=":
        return f"add {value} to {target}"
    if op == "-=":
        return f"take {value} from {target}"
    return f"set {target} to {value}"


def _create(x: Explainer, n: e.CreateE, depth: int) -> str:
    count = f"{x.x(n.count)} new" if n.count is not None else "a new"
    kind = words(n.kind) + ("s" if n.count is not None and not n.kind.endswith("s") else "")
    at = f", in slot {x.x(n.at)}" if n.at is not None else ""
    props = ", ".join(f"{words(k)} {x.x(v)}" for k, v in n.props)
    props = f" with {props}" if props else ""
    bind = f" (call {'them' if n.count is not None else 'it'} {words(n.bind)})" if n.bind else ""
    return f"put {count} {kind} into {x.x(n.zone)}{at}{props}{bind}"


def _choose(x: Explainer, n: e.ChooseE, depth: int) -> str:
    who = "chance picks" if _is_chance(n.by) else x.who(n.by, "choose", "picks")
    if n.optional:
        who = who.replace("you choose", "you may choose").replace(" picks", " may pick")
    count = f" ({x.x(n.count)} of them)" if n.count is not None else ""
    options = x.x(n.options)
    if isinstance(n.options.tree, c.ListLit) and len(n.options.tree.items) > 1:
        options = "either " + options.rsplit(" and ", 1)[0] + " or " + options.rsplit(" and ", 1)[1]
    return f"{who} {words(n.var)}{count} from {options}"


def _args(x: Explainer, names: list[str], args: tuple[c.Expr, ...]) -> str:
    said = []
    for p, a in zip(names, args, strict=False):
        value = x.x(a)
        said.append(value if not p or value == words(p) else f"{words(p)} {value}")
    return f" ({', '.join(said)})" if said else ""


def _emit(x: Explainer, n: e.EmitE, depth: int) -> str:
    x.sp.refs.append(("event", n.event))
    params = [p for p, _ in x.sp.rules.events.get(n.event, ())]
    return f"the event {words(n.event)} happens{_args(x, params, n.args)}"


def _defer(x: Explainer, n: e.DeferE, depth: int) -> str:
    x.sp.refs.append(("event", n.event))
    params = [p for p, _ in x.sp.rules.events.get(n.event, ())]
    when = "at the end of the turn" if n.until == "turn_end" else f"when {words(n.until)} happens"
    return f"{when}, the event {words(n.event)} happens{_args(x, params, n.args)}"


def _call_proc(x: Explainer, n: e.CallE, depth: int) -> str:
    x.sp.refs.append(("procedure", n.proc))
    proc = x.sp.rules.procedures.get(n.proc)
    params = [p for p, _ in proc.params] if proc else []
    who = f" for {x.x(n.as_player)}" if n.as_player is not None else ""
    return f"carry out {words(n.proc)}{_args(x, params, n.args)}{who}"


def _take(x: Explainer, n: e.TakeE, depth: int) -> str:
    x.sp.refs.append(("rule", f"actions.{n.action}"))
    action = x.sp.rules.actions.get(n.action)
    params = [p for p, _ in action.params] if action else []
    title = action.title if action else words(n.action)
    who = f" as {x.x(n.as_player)}" if n.as_player is not None else ""
    return f"take the action '{title}'{_args(x, params, n.args)}{who}, with its condition and cost"


def _require(x: Explainer, n: e.RequireE, depth: int) -> str:
    # a message the rule wrote; the one the linker makes from the line itself says nothing more
    written = n.message and n.message != f"requires {(n.span.text or '').strip().removeprefix('require ')}"
    otherwise = f" (otherwise: {n.message})" if written else ""
    return f"this needs {x.x(n.cond)}{otherwise}"


def _limit(x: Explainer, n: e.LimitE, depth: int) -> str:
    key = f" for each {x.x(n.key)}" if n.key is not None else ""
    return f"at most {x.x(n.count)} {words(n.name)}{key} per {n.scope}"


def _if(x: Explainer, n: e.IfE, depth: int) -> list[Line]:
    out = [x.head(n, f"if {x.x(n.cond)}:", depth)]
    out += x.body(n.then, depth + 1) or [Line(depth + 1, "Nothing happens.")]
    if n.other:
        out.append(Line(depth, "Otherwise:", n.span, branch=(n.span, "else")))
        out += x.body(n.other, depth + 1)
    return out


def _match(x: Explainer, n: e.MatchE, depth: int) -> list[Line]:
    out = [x.head(n, f"depending on {x.x(n.subject)}:", depth)]
    for case, body in n.cases:
        out.append(Line(depth + 1, f"If it is {words(str(case))}:", n.span, branch=(n.span, case)))
        out += x.body(body, depth + 2) or [Line(depth + 2, "Nothing happens.")]
    if n.other:
        out.append(Line(depth + 1, "Otherwise:", n.span, branch=(n.span, "else")))
        out += x.body(n.other, depth + 2)
    return out


def _one_of(x: Explainer, n: e.OneOfE, depth: int) -> list[Line]:
    who = "chance decides" if _is_chance(n.by) else x.who(n.by, "choose", "chooses")
    out = [x.head(n, f"{who} one of these:", depth)]
    for label, guard, body in n.options:
        x.sp.refs = []
        only = f" (only if {x.x(guard)})" if guard is not None else ""
        out.append(Line(depth + 1, f"{sentence(words(label))[:-1]}{only}:", n.span, list(x.sp.refs),
                        (n.span, label)))
        out += x.body(body, depth + 2)
    return out


def _wrap(x: Explainer, n: e.WrapE, depth: int) -> list[Line]:
    out: list[Line] = []
    if n.before:
        out += [Line(depth, f"First ({n.module} adds):", n.span), *x.body(n.before, depth + 1)]
    if n.instead is not None:
        out += [Line(depth, f"Instead ({n.module} changes it):", n.span), *x.body(n.instead, depth + 1)]
        out += [Line(depth, "where 'carry on' means:", n.span), *x.body(n.inner, depth + 1)]
    else:
        out += x.body(n.inner, depth)
    if n.after:
        out += [Line(depth, f"Then ({n.module} adds):", n.span), *x.body(n.after, depth + 1)]
    return out


def _block(head: Callable[[Explainer, Any], str]) -> Callable[[Explainer, Any, int], list[Line]]:
    """A block effect: its head, then its body one level deeper."""
    def say(x: Explainer, n: Any, depth: int) -> list[Line]:
        return [x.head(n, head(x, n), depth), *x.body(n.body, depth + 1)]
    return say


_END_WORDS = {"now": "the game ends now (the rest of this is not done)",
              "turn": "the game ends at the end of this turn",
              "round": "the game ends at the end of this round",
              "next_round": "the game ends after one more round (this round is finished, then one more is played)"}

# Each effect class -> what it says. tests/test_dispatch.py proves it covers every effect class.
EFFECTS: dict[type, Callable[[Explainer, Any, int], str | list[Line]]] = {
    e.LetE: _let,
    e.SetCounterE: lambda x, n, d: _changed(n.op, x.x(n.key), x.x(n.value)),
    e.SetPropE: lambda x, n, d: _changed(n.op, f"{x.sp.owner(n.piece.tree)} {words(n.prop)}"
                                         if n.piece.tree is not None else words(n.prop), x.x(n.value)),
    e.PayE: lambda x, n, d: (f"{x.x(n.by)} pays {cost_words(x.sp, n.cost)}" if n.by is not None
                             else f"pay {cost_words(x.sp, n.cost)}"),
    e.MoveE: lambda x, n, d: (f"move {x.x(n.what)} to {x.x(n.to)}"
                              + (f", in slot {x.x(n.at)}" if n.at is not None else "")),
    e.CreateE: _create,
    e.RemoveE: lambda x, n, d: f"remove {x.x(n.what)} from the game",
    e.LinkE: lambda x, n, d: f"link {x.x(n.a)} and {x.x(n.b)}: they move together",
    e.UnlinkE: lambda x, n, d: f"unlink {x.x(n.what)}",
    e.ChooseE: _choose,
    e.RollE: lambda x, n, d: f"roll the {words(n.die)} (a {n.sides}-sided die); call the result {words(n.var)}",
    e.DrawE: lambda x, n, d: f"draw {words(n.var)} at random from {x.x(n.zone)}",
    e.ShuffleE: lambda x, n, d: f"shuffle {x.x(n.zone)}",
    e.RefillE: lambda x, n, d: f"refill {x.x(n.zone)} up to its capacity from {x.x(n.source)}",
    e.AdvanceE: lambda x, n, d: f"advance {x.x(n.marker)} by {x.x(n.by)} space(s)",
    e.PlaceE: lambda x, n, d: f"place {x.x(n.marker)} on space {x.x(n.at)}",
    e.EmitE: _emit,
    e.DeferE: _defer,
    e.CallE: _call_proc,
    e.RequireE: _require,
    e.FailE: lambda x, n, d: f"this cannot be done: {n.message}",
    e.LimitE: _limit,
    e.EndE: lambda x, n, d: _END_WORDS[n.at] if n.what == "game" else f"end the {n.what}",
    e.ScoreE: lambda x, n, d: "score the game",
    e.PassE: lambda x, n, d: "pass: your turn ends, and you take no more turns in this phase",
    e.SetStartPlayerE: lambda x, n, d: f"the start player is now {x.x(n.value)}",
    e.AsE: _block(lambda x, n: f"as {x.x(n.who)}, acting for them:"),
    e.TakeE: _take,
    e.WhileE: _block(lambda x, n: f"as long as {x.x(n.cond)}:"),
    e.StepE: _block(lambda x, n: f"step '{words(n.name)}':"),
    e.WrapE: _wrap,
    e.ProceedE: lambda x, n, d: "carry on with the rule as it stands",
    e.IfE: _if,
    e.ForE: _block(lambda x, n: f"for each {words(n.var)} in {x.x(n.items)}:"),
    e.RepeatE: _block(lambda x, n: f"repeat {x.x(n.count)} time(s):"),
    e.MatchE: _match,
    e.OneOfE: _one_of,
    e.MayE: _block(lambda x, n: f"{x.x(n.by)} may:" if n.by is not None else "you may:"),
}
