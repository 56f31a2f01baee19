"""`boardrules explain`: a pack's composed rules as a rulebook, in plain English.

The document is built from the linked rule set (declarations and effect trees, see prose.py) in rulebook
order: components, setup, game flow (events, who raises them and who listens), actions, triggers, procedures,
scoring, and the values the sources leave unknown. Every rule ends with its source reference and `file:line`.
A rule or value a module `replace`s is shown as a change against the base it replaces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from ..analysis.tree import walk
from ..diagnostics import Diagnostics, Span
from ..engine import effects as e
from ..engine.rules import Rules, ValueDecl
from ..language import checked as ck
from ..language.checked import Expr
from ..language.linker import Module
from ..language.pack import link
from .coverage import rule_bodies
from .prose import Line, Speaker, amount_words, by_players, cost_words, sentence, table_words, terms_words, words
from .prose_effects import Explainer
from .prose_watch import watch_words


@dataclass
class Entry:
    id: str  # section.name, unique in the document
    title: str
    lines: list[Line]
    span: Span | None
    source: str | None = None
    change: str | None = None  # "changed by MODULE" when a module replaces it
    before: list[Line] = field(default_factory=list)  # what the base said, for a replaced rule


@dataclass
class Section:
    id: str
    title: str
    entries: list[Entry] = field(default_factory=list)
    intro: str | None = None


@dataclass
class Document:
    title: str
    modules: list[str]
    sections: list[Section]
    rules: Rules


def _value_words(v: ValueDecl, sp: Speaker) -> str:
    if v.kind == "unknown":
        return f"unknown: {v.data}"
    if v.kind == "by_players":
        return by_players(v.data)
    if v.kind == "expr":
        return sp.formula(v.compiled, str(v.data))
    if v.kind == "table":
        return table_words(v.data)
    if isinstance(v.data, list):
        return ", ".join(words(str(x)) for x in v.data)
    if isinstance(v.data, bool) or v.data is None:  # said as the rules' own words, never Python's True
        return {True: "yes", False: "no", None: "none"}[v.data]
    return words(str(v.data)) if isinstance(v.data, str) else str(v.data)


def _span_of(node: Any) -> Span | None:
    return getattr(node, "span", None)


class Book:
    """Builds the Document of one composition of modules."""

    def __init__(self, modules: dict[str, Module], roots: list[str]) -> None:
        self.modules = modules
        self.rules = link(modules, roots, Diagnostics())
        self.x = Explainer(self.rules)
        self.replaced = self._replacements()

    # ---------------------------------------------------------------- replacements
    def _replacements(self) -> dict[str, tuple[str, str, Rules]]:
        """section.name -> (replacing module, declaring module, the declaring module linked alone)."""
        out: dict[str, tuple[str, str, Rules]] = {}
        based: dict[str, Rules] = {}
        for target, change in self.rules.replacements.items():
            owner = change.declared_in
            if owner not in based:
                based[owner] = link(self.modules, [owner], Diagnostics())
            out[target] = (change.module, owner, based[owner])
        return out

    def _change(self, key: str) -> tuple[str | None, Rules | None]:
        if key not in self.replaced:
            return None, None
        mid, owner, base = self.replaced[key]
        return f"changed by {mid} (the rule of {owner} it replaces is shown as 'before')", base

    # ---------------------------------------------------------------- sections
    def document(self) -> Document:
        r = self.rules
        titles = [r.module_info[m].title for m in r.modules]
        sections = [self.components(), self.steps("setup", "Setup", r.setup), self.flow(), self.actions(),
                    self.triggers(), self.procedures(), self.steps("scoring", "Scoring", r.scoring,
                                                                   "At the end of the game, for each player:"),
                    self.unknowns()]
        for sec in sections:
            if not sec.entries:
                sec.intro = "None in these modules."
        return Document(" + ".join(titles), list(r.modules), sections, r)

    def components(self) -> Section:
        r = self.rules
        declared = [info for info in r.module_info.values() if info.players is not None]
        intro = f"For {r.players_min} to {r.players_max} players."
        if len(declared) > 1:  # the last module in requires order sets the count; say who says what
            intro += " (" + "; ".join(f"{d.id}: {d.given('min', '?')} to {d.given('max', '?')}" for d in declared) + ")"
        sec = Section("components", "Components", intro=intro)
        groups: dict[str, list[Line]] = {}
        for say in COMPONENTS.values():
            entry, lines = say(self)
            groups.setdefault(entry, []).extend(lines)
        sec.entries += [Entry(f"components.{entry}", ENTRY_TITLES[entry], lines, None)
                        for entry, lines in groups.items() if lines]
        return sec

    def _sets(self) -> tuple[str, list[Line]]:
        return "sets", [Line(0, sentence(f"{words(n)}: {', '.join(words(i) for i in items)}"))
                        for n, items in self.rules.sets.items()]

    def _values(self) -> tuple[str, list[Line]]:
        lines = []
        for name, v in self.rules.values.items():
            text = f"{words(name)}: {_value_words(v, self.x.sp)}"
            change, base = self._change(f"values.{name}")
            if change is not None and base is not None and name in base.values:
                text += f" (instead of {_value_words(base.values[name], Speaker(base))}; {change.split(' (')[0]})"
            lines.append(Line(0, sentence(text), v.span, [("value", name)]))
        return "values", lines

    def _counters(self) -> tuple[str, list[Line]]:
        lines = []
        for c in self.rules.counters.values():
            who = "Each player has" if c.per == "player" else "The game has"
            keys = f" of each of {', '.join(words(k) for k in c.keys)}" if c.keys else ""
            initial = c.initial
            start = (f"unknown: {initial.note}" if hasattr(initial, "note") else
                     self.x.sp.value(initial) if isinstance(initial, str) else
                     ", ".join(f"{n} {words(k)}" for k, n in initial.items()) + " (others 0)"
                     if isinstance(initial, dict) else str(initial or 0))
            bounds = f", never below {c.min}" if c.min else ", without a floor" if c.min is None else ""
            bounds += f", at most {self.x.sp.value(c.max) if isinstance(c.max, str) else c.max}" if c.max is not None \
                else ""
            if c.key_limits:  # limits per key: say each key's own, after what the limits do with a change beyond them
                bounds = _absorbing_words(c, "; ") + "".join(
                    f"; {words(k)}" + (f" never below {low}" if low else "") + (" and" if low and high is not None
                                                                                 else "")
                    + (f" at most {high}" if high is not None else "") + ("" if low or high is not None
                                                                          else " without a floor")
                    for k, (low, high) in c.key_limits.items() if (low, high) != (0, None))
            else:
                bounds += _absorbing_words(c, " (")
            lines.append(Line(0, sentence(f"{who} {words(c.name)}{keys}, starting at {start}{bounds}"), c.span))
        return "pieces", lines

    def _kinds(self) -> tuple[str, list[Line]]:
        lines = []
        for kind, props in self.rules.kinds.items():
            said = ", ".join(f"{words(p)}" + ("" if t == "any" else f" ({t})") for p, t in props.items())
            lines.append(Line(0, sentence(f"a {words(kind)} piece" + (f" has {said}" if said else "")), None))
        return "pieces", lines

    def _zones(self) -> tuple[str, list[Line]]:
        lines = []
        for z in self.rules.zones.values():
            who = "Each player has" if z.per == "player" else "There is"
            shape = []
            if z.ordered:
                shape.append("in order")
            if z.slots is not None:
                shape.append(f"{self._size(z.slots)} slots")
            if z.capacity is not None:
                shape.append(f"room for {self._size(z.capacity)}")
            lines.append(Line(0, sentence(f"{who} a place called {words(z.name)}" +
                                          (f" ({', '.join(shape)})" if shape else "")), z.span))
        return "pieces", lines

    def _tracks(self) -> tuple[str, list[Line]]:
        lines = []
        for t in self.rules.tracks.values():
            icons = "; ".join(f"space {n}: {', '.join(words(i) for i in ic)}" for n, ic in sorted(t.icons.items()))
            whose = {m: "each player's" if m in self.rules.player_markers else "the" for m in t.markers}
            markers = ", ".join(f"{whose[m]} {words(m)} starts on space {p}" for m, p in t.markers.items())
            name = words(t.name)
            text = f"the {name}{'' if name.endswith(' track') else ' track'} has {self._size(t.spaces)} spaces"
            text += ", in a ring" if t.circular else ""
            text += "; paying with its markers moves them forward" if t.spend == "forward" else ""
            lines.append(Line(0, sentence(text + (f"; icons on {icons}" if icons else "") +
                                          (f"; {markers}" if markers else "")), t.span))
        return "pieces", lines

    def _dice(self) -> tuple[str, list[Line]]:
        return "pieces", [Line(0, sentence(f"{words(die)} is a {sides}-sided die"), None)
                          for die, sides in self.rules.dice.items()]

    def _events(self) -> tuple[str, list[Line]]:
        return "pieces", []  # an event is told in the game flow section, with who raises it and who listens

    def _costs(self) -> tuple[str, list[Line]]:
        lines = []
        for name, cost in self.rules.costs.items():
            text = f"the cost {words(name)} is {cost_words(self.x.sp, cost)}"
            change, base = self._change(f"costs.{name}")
            if change is not None and base is not None and name in base.costs:
                text += f" (instead of {cost_words(Speaker(base), base.costs[name])}; {change.split(' (')[0]})"
            lines.append(Line(0, sentence(text), cost.span))
        return "pieces", lines

    def _substitutes(self) -> tuple[str, list[Line]]:
        lines = []
        for sub in self.rules.substitutes:
            pay = amount_words(self.x.sp, str(sub.unit), sub.counter, sub.key)
            paid = terms_words(self.x.sp, sub.instead)
            if sub.counter in self.rules.markers:  # a cost's move of a marker, by the space
                spaces = "space" if sub.unit == 1 else f"{sub.unit} spaces"
                text = (f"the spaces a cost would move the {words(sub.counter)} marker past its track's end may be "
                        f"paid with {paid} for each {spaces}" if sub.shortfall else
                        f"a cost's move of the {words(sub.counter)} marker may be paid with {paid} for each {spaces} "
                        "instead")
            else:
                text = (f"the part of a cost's {words(sub.counter)} you lack may be paid with {paid} for each {pay}"
                        if sub.shortfall else f"any {pay} of a cost may be paid with {paid} instead")
            lines.append(Line(0, sentence(text), sub.span))
        return "substitutes", lines

    def _size(self, raw: Any) -> str:
        return self.x.sp.value(raw) if isinstance(raw, str) else str(raw)

    def _extended(self, key: str) -> list[Line]:
        """What modules' `extend` added to or dropped from the rule's one_of (the body already shows the result)."""
        out = []
        for change in self.rules.choice_changes:
            if ".".join(change.target.split(".")[:2]) != key:
                continue
            said = []
            if change.added is not None:
                said.append("adds " + ", ".join(words(o) for o in change.added))
            if change.dropped is not None:
                said.append("drops " + ", ".join(words(o) for o in change.dropped))
            if said:
                out.append(Line(0, sentence(f"the module {change.module} {' and '.join(said)} among the options"),
                                change.span))
        return out

    def _entry(self, key: str, title: str, head: list[Line], body: Any, span: Span, source: str | None) -> Entry:
        change, base = self._change(key)
        entry = Entry(key, title, [*head, *self._extended(key), *self.x.body(body)], span, source, change)
        if base is not None:
            old = {k: b for k, _, b in rule_bodies(base)}
            if key in old:
                entry.before = Explainer(base).body(old[key])
        return entry

    def steps(self, section: str, title: str, steps: list[Any], intro: str | None = None) -> Section:
        sec = Section(section, title, intro=intro)
        for st in steps:
            sec.entries.append(self._entry(f"{section}.{st.name}", sentence(words(st.name))[:-1], [], st.body,
                                           st.span, st.source))
        return sec

    def actions(self) -> Section:
        sec = Section("actions", "Actions")
        sp = self.x.sp
        for name, a in self.rules.actions.items():
            head = []
            if a.by == "game":
                head.append(Line(0, "The game takes this action, not a player."))
            if a.params:
                head.append(Line(0, sentence("you say " + " and ".join(f"which {words(p)}" for p, _ in a.params))))
            if a.guard_text:
                sp.refs = []
                head.append(Line(0, sentence(f"allowed only if {sp.formula(a.guard, a.guard_text)}"), a.span,
                                 list(sp.refs)))
            if a.cost is not None:
                sp.refs = []
                head.append(Line(0, sentence(f"cost: {cost_words(sp, a.cost)}"), a.cost.span, list(sp.refs)))
            sec.entries.append(self._entry(f"actions.{name}", a.title, head, a.body, a.span, a.source))
        return sec

    def triggers(self) -> Section:
        sec = Section("triggers", "Triggers", intro="Rules that run by themselves when an event happens.")
        sp = self.x.sp
        for event, ts in self.rules.triggers.items():
            for t in ts:
                head = [Line(0, sentence(f"when {words(event)} happens"), t.span, [("event", event)])]
                if t.guard_text:
                    sp.refs = []
                    head.append(Line(0, sentence(f"only if {sp.formula(t.guard, t.guard_text)}"), t.span,
                                     list(sp.refs)))
                sec.entries.append(self._entry(f"triggers.{t.name}", sentence(words(t.name))[:-1], head, t.body,
                                               t.span, t.source))
        for watched, ws in self.rules.watchers.items():
            what = words(watched.rpartition(" ")[2])
            for w in ws:
                if w.limit:
                    when = (f"when the cap of {what} absorbs part of a gain (the excess is the amount it absorbs)"
                            if w.limit == "overflow" else
                            f"when the floor of {what} absorbs part of a loss (the excess is the amount it absorbs)")
                else:
                    when = watch_words(watched, w, sp)
                head = [Line(0, sentence(when), w.span)]
                if w.guard_text:
                    sp.refs = []
                    head.append(Line(0, sentence(f"only if {sp.formula(w.guard, w.guard_text)}"), w.span,
                                     list(sp.refs)))
                sec.entries.append(self._entry(f"triggers.{w.name}", sentence(words(w.name))[:-1], head, w.body,
                                               w.span, w.source))
        return sec

    def procedures(self) -> Section:
        sec = Section("procedures", "Procedures", intro="Steps that other rules carry out by name.")
        for name, p in self.rules.procedures.items():
            params = f" (given {', '.join(words(n) for n, _ in p.params)})" if p.params else ""
            sec.entries.append(self._entry(f"procedures.{name}", sentence(words(name))[:-1] + params, [], p.body,
                                           p.span, p.source))
        return sec

    def flow(self) -> Section:
        """Events: which rules raise each one and which triggers listen to it."""
        sec = Section("flow", "Game flow",
                      intro="The events of the game; the end of each turn (turn end) is built in.")
        sec.entries += self.course()
        raised: dict[str, list[str]] = {}
        for rule, _, body in rule_bodies(self.rules):
            for line in self.x.body(body):
                for kind, name in line.refs:
                    if kind == "event" and rule not in raised.setdefault(name, []):
                        raised[name].append(rule)
        for event, params in self.rules.events.items():
            listeners = [f"triggers.{t.name}" for t in self.rules.triggers.get(event, [])]
            if event == "turn_end" and not listeners and event not in raised:
                continue
            lines = [Line(0, sentence(f"{words(event)} happens" +
                                      (f" for {', '.join(words(p) for p, _ in params)}" if params else "")))]
            lines.append(Line(0, "Raised by: " + (", ".join(raised.get(event, [])) or "the game itself") + ".",
                              refs=[("rule", r) for r in raised.get(event, [])]))
            lines.append(Line(0, "Heard by: " + (", ".join(listeners) or "no trigger") + ".",
                              refs=[("rule", r) for r in listeners]))
            sec.entries.append(Entry(f"events.{event}", words(event), lines, None))
        return sec

    def course(self) -> list[Entry]:
        """Rounds, phases, turns, the end and the ranking, when the rules declare a flow."""
        fl = self.rules.flow
        if fl is None:
            return []
        sp = self.x.sp
        head = [Line(0, "The game is played in rounds; each round goes through these phases in order.", fl.span)]
        if fl.first_player is not None:
            head.append(Line(0, sentence(f"the first start player is {sp.formula(fl.first_player)}")))
        if fl.end_text:
            later = {"turn": ", at the end of that turn", "round": ", at the end of that round",
                     "next_round": ", after one more round (that round is finished, then one more is played)"}
            after = later.get(str(fl.end_after), "")
            head.append(Line(0, sentence(f"the game ends when {sp.formula(fl.end_when, fl.end_text)}{after}")))
        if fl.ranking:
            head.append(Line(0, sentence("the players are ranked by " +
                                         ", then by ".join(sp.formula(key, text) for key, text in fl.ranking) +
                                         ", highest first")))
        out = [Entry("flow.rounds", "Rounds", head, fl.span)]
        for n, ph in enumerate(fl.phases, 1):
            lines: list[Line] = []
            if ph.guard is not None:
                lines.append(Line(0, sentence(f"only in a round where {sp.formula(ph.guard)}"), ph.span))
            lines += self.x.body(ph.before)
            if ph.turns is not None:
                start = sp.formula(ph.turns.first) if ph.turns.first is not None else "the start player"
                until = {"each_once": "each player has had one turn",
                         "all_passed": "every player has passed"}.get(ph.turns.until) or sp.formula(ph.turns.until_fn)
                per = (f"{ph.turns.per_turn} action(s) in a turn" if ph.turns.per_turn else
                       "actions until the player ends the turn or passes")
                lines.append(Line(0, sentence(f"the players take turns clockwise from {start}, until {until}; "
                                              f"{per}"), ph.turns.span))
                if ph.actions:
                    lines.append(Line(0, "In a turn: " + ", ".join(words(a) for a in ph.actions) + ".",
                                      refs=[("rule", f"actions.{a}") for a in ph.actions]))
            lines += self.x.body(ph.body)
            lines += self.x.body(ph.after)
            out.append(Entry(f"flow.{ph.name}", f"Phase {n}: {words(ph.name)}", lines, ph.span))
        if fl.final:
            out.append(Entry("flow.end", "The end of the game", self.x.body(fl.final), fl.span))
        return out

    def unknowns(self) -> Section:
        sec = Section("unknowns", "Unknown values",
                      intro="Values the sources leave open; a game that needs one stops with E601.")
        needed = self.needed_by()
        for name, note, span in self.rules.unknowns:
            where = needed.get(name.split(".")[-1], [])
            lines = [Line(0, sentence(f"unknown: {note}"), span)]
            lines.append(Line(0, "Needed by: " + (", ".join(where) or "no rule reads it directly") + ".",
                              refs=[("rule", r) for r in where]))
            sec.entries.append(Entry(f"unknown.{name}", words(name), lines, span))
        return sec

    def needed_by(self) -> dict[str, list[str]]:
        """name -> the rules that read it (values, counters, piece properties), as the linker resolved them."""
        out: dict[str, list[str]] = {}
        names = {n.split(".")[-1] for n, _, _ in self.rules.unknowns}
        for rule, cost, body in rule_bodies(self.rules):
            exprs: list[Expr | None] = [*_cost_exprs(cost), *(x for eff in walk(body) for x in _effect_exprs(eff))]
            if rule.startswith("actions."):
                exprs.append(self.rules.actions[rule.split(".", 1)[1]].guard)
            read = _names(exprs) | {n for eff in walk(body) for n in _named(eff)}
            for name in sorted(names & read, key=sorted(names).index):
                out.setdefault(name, []).append(rule)
        # a value read while the components are laid out (a counter's start, a zone's size)
        for c in self.rules.counters.values():
            if isinstance(c.initial, str) and c.initial in names:
                out.setdefault(c.initial, []).append(f"the starting {words(c.name)}")
            if hasattr(c.initial, "note"):
                out.setdefault(c.name, []).append(f"the starting {words(c.name)}")
        for z in self.rules.zones.values():
            for raw in (z.slots, z.capacity):
                if isinstance(raw, str) and raw in names:
                    out.setdefault(raw, []).append(f"the size of {words(z.name)}")
        for v in self.rules.values.values():
            if v.kind == "expr":
                for name in sorted(names & _names([v.compiled])):
                    out.setdefault(name, []).append(f"the value {words(v.name)}")
        return out


def _cost_exprs(cost: e.CostC | None) -> Iterator[Expr]:
    for alt in cost.alternatives if cost is not None else ():
        for first in alt:
            term: e.CostTermC | None = first
            while term is not None:
                yield from (x for x in (term.amount, term.key_fn) if x is not None)
                term = term.lacking


def _effect_exprs(eff: e.Effect) -> Iterator[Expr]:
    """The checked formulas an effect node holds itself (not those of the bodies inside it)."""
    for f in fields(eff):
        yield from _exprs_in(getattr(eff, f.name))


def _exprs_in(value: Any) -> Iterator[Expr]:
    if isinstance(value, Expr):
        yield value
    elif isinstance(value, e.CostC):
        yield from _cost_exprs(value)
    elif isinstance(value, tuple):
        for item in value:
            if not isinstance(item, e.Effect):
                yield from _exprs_in(item)


def _names(exprs: Sequence[Expr | None]) -> set[str]:
    """Every declared name the formulas read: names, attributes, tables and counters, by what they resolved to."""
    out: set[str] = set()
    for x in exprs:
        for node in ck.nodes(x.tree) if x is not None and x.tree is not None else ():
            if isinstance(node, ck.Name):
                out.add(node.ref.name)
            elif isinstance(node, ck.Attr):
                out.add(node.name)
            elif isinstance(node, ck.Cell | ck.CounterKey | ck.Keys) or (isinstance(node, ck.TableRead)
                                                                     and node.table is not None):
                out.add((node.table if isinstance(node, ck.TableRead) else node.counter).name)
    return out


def _named(eff: e.Effect) -> set[str]:
    """The counters and properties an effect writes by name (not through a formula)."""
    if isinstance(eff, e.SetCounterE):
        return {eff.counter}
    if isinstance(eff, e.SetPropE):
        return {eff.prop}
    if isinstance(eff, e.CreateE):
        return {p for p, _ in eff.props}
    return set()


def build(modules: dict[str, Module], roots: list[str]) -> Document:
    return Book(modules, roots).document()


# ---------------------------------------------------------------- text and markdown


def _where(span: Span | None) -> str:
    return f"{span.file}:{span.line}" if span else ""


def render_text(doc: Document, quote: bool = False) -> str:
    out = [doc.title, "=" * len(doc.title), f"Modules: {', '.join(doc.modules)}", ""]
    for n, sec in enumerate(doc.sections, 1):
        out += [f"{n}. {sec.title}", "-" * (len(sec.title) + len(str(n)) + 2)]
        if sec.intro:
            out += [sec.intro, ""]
        for entry in sec.entries:
            out.append(f"{entry.title}  [{entry.id}]")
            if entry.change:
                out.append(f"  ({entry.change})")
            if entry.before:
                out.append("  before:")
                out += [f"    {'  ' * line.depth}{line.text}" for line in entry.before]
                out.append("  now:")
            for line in entry.lines:
                out.append(f"  {'  ' * line.depth}{line.text}")
                if quote and line.span is not None and line.span.text:
                    out.append(f"  {'  ' * line.depth}    | {' '.join(line.span.text.split())}")
            tail = " - ".join(x for x in (entry.source and f"Source: {entry.source}", _where(entry.span)) if x)
            if tail:
                out.append(f"  {tail}")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def render_md(doc: Document, quote: bool = False) -> str:
    out = [f"# {doc.title}", "", f"Modules: {', '.join(f'`{m}`' for m in doc.modules)}", ""]
    for n, sec in enumerate(doc.sections, 1):
        out += [f"## {n}. {sec.title}", ""]
        if sec.intro:
            out += [sec.intro, ""]
        for entry in sec.entries:
            out += [f"### {entry.title}", "", f"`{entry.id}`" + (f" — *{entry.change}*" if entry.change else ""), ""]
            if entry.before:
                out += ["Before:", ""] + [f"{'  ' * line.depth}- ~~{line.text}~~" for line in entry.before]
                out += ["", "Now:", ""]
            for line in entry.lines:
                out.append(f"{'  ' * line.depth}- {line.text}")
                if quote and line.span is not None and line.span.text:
                    out.append(f"{'  ' * line.depth}  `{' '.join(line.span.text.split())}`")
            tail = " — ".join(x for x in (entry.source and f"Source: {entry.source}",
                                         f"`{_where(entry.span)}`" if entry.span else "") if x)
            out += ["", tail, ""] if tail else [""]
    return "\n".join(out).rstrip() + "\n"


def _absorbing_words(c: Any, lead: str) -> str:
    """What a counter's cap and floor do with a change beyond them, when they do not refuse it: in brackets after
    the one cap (lead " ("), or as a clause before the limits of each key (lead "; ")."""
    out, close = "", ")" if lead == " (" else ""
    if c.overflow == "discard":
        out += f"{lead}a gain above {'it' if close else 'a limit'} stops there{close}"
    elif c.overflow == "carry":
        out += f"{lead}the excess goes to {words(str(c.carry_to))}{close}"
    if c.underflow == "discard":
        out += "; a loss below its floor stops at the floor"
    return out


# Declaration kind -> what the components section says of that kind's declarations (and the entry it goes in),
# in the order the book lists them. tests/test_dispatch.py proves it covers every kind the linker declares.
COMPONENTS: dict[str, Callable[[Book], tuple[str, list[Line]]]] = {
    "sets": Book._sets,
    "values": Book._values,
    "counters": Book._counters,
    "pieces": Book._kinds,
    "zones": Book._zones,
    "tracks": Book._tracks,
    "dice": Book._dice,
    "costs": Book._costs,
    "events": Book._events,
    "substitutes": Book._substitutes,
}
ENTRY_TITLES = {"sets": "Kinds of things", "values": "Numbers and values",
                "pieces": "Counters, pieces, places, tracks and dice",
                "substitutes": "Other ways to pay"}
