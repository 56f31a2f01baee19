"""Run scenario files: set up a state, take actions with scripted answers, compare expectations."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..analysis.scenarios import ScenarioChecker
from ..diagnostics import BoardrulesError, Diagnostic, Diagnostics, Span, render_text
from ..engine.decisions import ScriptedDecider, WhoAnswers
from ..engine.rules import Rules
from ..engine.values import Piece, Player, UnknownCompared, plain, shown
from ..game import Game
from ..internal import INTERNAL, internal_error
from ..language import syntax as s
from ..language.checked import Expr
from ..language.compiler import Scope
from ..language.effect_builder import Builder, Text
from ..language.linker import Module
from ..language.loader import load_yaml_bytes, read_file
from ..language.pack import display, link
from ..language.parser import ParseError, parse
from ..language.valid_cache import validate_file
from .scenario_refusal import ExpectedError
from .scenario_setup import SetUpGames
from .scenario_state import check_state


@dataclass
class Result:
    file: str
    title: str
    failures: list[str] = field(default_factory=list)
    internal: bool = False  # boardrules itself failed (E900), not the rules
    diagnostics: list[Diagnostic] = field(default_factory=list)  # the failed expectations and steps, as data

    def fail(self, code: str, span: Span, message: str, detail: str = "") -> None:
        self.diagnostics.append(Diagnostic("error", code, message, span))
        self.failures.append(f"{span}: error {code}: {message}{detail}")

    @property
    def passed(self) -> bool:
        return not self.failures


class ScenarioRunner:
    def __init__(self, modules: dict[str, Module]) -> None:
        self.modules = modules
        self.covered: set[str] = set()  # rules any scenario of this runner ran
        self.trace: set[Any] | None = None  # when a set: every effect and branch the scenarios ran (see coverage)
        self._rules: dict[tuple[str, ...], tuple[Rules, list[Diagnostic]]] = {}
        self._set_up = SetUpGames()
        self._scenario_checker: ScenarioChecker | None = None

    def rules_for(self, roots: list[str], options: dict[str, tuple[Any, Span]] | None = None
                  ) -> tuple[Rules, list[Diagnostic]]:
        key = (*roots, repr(sorted((k, repr(v[0])) for k, v in (options or {}).items())))
        if key not in self._rules:
            diags = Diagnostics()
            rules = link(self.modules, list(roots), diags, options)
            self._rules[key] = (rules, [d for d in diags.sorted() if d.severity == "error"])
        return self._rules[key]

    def run_file(self, path: Path) -> Result:
        name = display(path)
        diags = Diagnostics()
        data = read_file(path, diags, name)
        doc = None if data is None else load_yaml_bytes(data, name, diags)
        result = Result(name, name)
        if data is not None and isinstance(doc, dict):
            validate_file(doc, data, "scenario", diags, name)
            result.title = str(doc.get("scenario", name))
        if not diags.has_errors and isinstance(doc, dict):
            # What the scenario names is checked as `boardrules check` checks it: one code, one place.
            self._checker(diags).check_doc(doc, name)
        if diags.has_errors or not isinstance(doc, dict):
            result.failures.append(render_text(diags.sorted()) or "not a scenario file")
            result.diagnostics += [d for d in diags.sorted() if d.severity == "error"]
            return result
        game = self._run(doc, result, name)
        if game is not None:
            self.covered |= game.covered
        return result

    def _checker(self, diags: Diagnostics) -> ScenarioChecker:
        """The runner's scenario checker (made once: it gathers the modules' option names), reporting to diags."""
        if self._scenario_checker is None:
            def linked(modules: dict[str, Module], roots: list[str], found: Diagnostics, options: Any) -> Rules:
                rules, errors = self.rules_for(roots, options)
                found.extend(errors)
                return rules

            self._scenario_checker = ScenarioChecker(self.modules, diags, linker=linked)
        self._scenario_checker.diags = diags
        return self._scenario_checker

    def uncovered(self) -> list[str]:
        """Rules of the pack (all its modules together) that no scenario run so far has reached."""
        rules, _ = self.rules_for(list(self.modules))
        return [name for name in rules.rule_names() if name not in self.covered]

    # ---------------------------------------------------------------- one scenario
    def _run(self, doc: dict, result: Result, file: str) -> Game | None:
        """Play one scenario, adding its failures to `result`; the game played, for coverage."""
        raw = doc.get("options", {}) or {}
        ospans = getattr(raw, "key_spans", {})
        options = {str(k): (v, ospans.get(k, Span(file, 1, 1))) for k, v in raw.items()}
        rules, errors = self.rules_for([str(m) for m in doc.get("modules", [])], options)
        if errors:
            result.failures.append("the modules do not link:\n" + render_text(errors))
            return None
        players, seed, flow = int(doc.get("players", 2)), int(doc.get("seed", 1)), bool(doc.get("flow", False))
        top = Span(file, 1, 1)
        vspans = getattr(doc, "value_spans", {})
        # A flow without its setup (E710), and steps after a setup that must fail (E713), were refused by the
        # scenario check before the run.
        setup_error = ExpectedError.of(doc.get("expect_error"))
        game: Game | None = None
        try:
            if doc.get("setup", True):
                game, set_up = self._set_up.start(rules, players, seed, flow, self.trace)
                needs_setup = not set_up
            else:
                game, needs_setup = Game(rules, players, seed, flow=flow), False
            game.driver().record_coverage(self.trace)
            if needs_setup:
                game.setup()
        except BoardrulesError as err:
            where = vspans.get("players", top) if game is None else top
            if setup_error is not None:
                self._setup_failed(err, setup_error, vspans.get("expect_error", top), result)
            else:
                result.failures.append(render_text([_placed(err.diagnostic, where)]))
            return game
        except Exception as exc:  # boardrules' own failure: reported, never a traceback
            cause = game.state.cause if game is not None else None
            internal = internal_error(exc, f"the scenario {file}", cause)
            result.failures.append(render_text([internal.diagnostic]))
            result.internal = True
            return game
        if setup_error is not None:
            result.fail("E702", vspans.get("expect_error", top),
                        f"the setup was expected to fail with {setup_error.code}, but it succeeded")
            return game
        try:
            self._play(game, doc, result, file)
        except BoardrulesError as err:
            result.failures.append(render_text([err.diagnostic]))
        except Exception as exc:  # one broken scenario must not stop the others, nor print a traceback
            internal = internal_error(exc, f"the scenario {file}", game.state.cause)
            result.failures.append(render_text([internal.diagnostic]))
        result.internal = any(f"error {INTERNAL}:" in failure for failure in result.failures)
        return game

    @staticmethod
    def _setup_failed(err: BoardrulesError, expected: ExpectedError, span: Span, result: Result) -> None:
        """The setup failed, as the scenario expects: with its code, and from the refusal it names."""
        shown_error = ":\n" + render_text([_placed(err.diagnostic, span)])
        if err.code != expected.code:
            result.fail("E702", span, f"the setup: expected error {expected.code}, got {err.code}", shown_error)
            return
        why = expected.mismatch(err.diagnostic)
        if why is not None:
            result.fail("E711", span, f"the setup failed with {err.code} as expected, but {why}", shown_error)

    def _play(self, game: Game, doc: dict, result: Result, file: str) -> None:
        if "state" in doc:
            base = getattr(doc, "value_spans", {}).get("state", Span(file, 1, 1))
            problems = check_state(game, doc["state"], base)
            if problems:
                result.failures.append(render_text(problems))
                return
            self._override(game, doc["state"], doc, file)
        for i, step in enumerate(doc.get("steps", []) or [], 1):
            span = _item_span(doc.get("steps"), i - 1, file)
            if not self._step(game, step, i, span, result):
                return
        expect = doc.get("expect", {}) or {}
        for key, wanted in expect.items():
            kspan = getattr(expect, "key_spans", {}).get(key, Span(file, 1, 1))
            self._expect(game, str(key), wanted, kspan, result)

    def _step(self, game: Game, step: dict, i: int, span: Span, result: Result) -> bool:
        if "end_round" in step:
            game.end_round()
            return True
        answers = [_answer(game, a) for a in step.get("answers", []) or []]
        rolls = [game.driver().from_plain(r) for r in step.get("rolls", []) or []]
        decider = ScriptedDecider(answers, rolls)
        expected = ExpectedError.of(step.get("expect_error"))
        what = f"end_turn {step['end_turn']}" if "end_turn" in step else str(step["action"])
        where = f"{span}: step {i} ({what})"
        before = game.state.dumps() if expected else None
        try:
            if "end_turn" in step:
                game.end_turn(str(step["end_turn"]), decider)
            else:
                game.act(step.get("player"), str(step["action"]), dict(step.get("params", {}) or {}), decider)
        except BoardrulesError as err:
            if expected is None:
                result.failures.append(f"{where} failed:\n" + render_text([_placed(err.diagnostic, span)]))
                return False
            shown_error = ":\n" + render_text([_placed(err.diagnostic, span)])
            if err.code != expected.code:
                result.fail("E702", span, f"step {i} ({what}): expected error {expected.code}, got {err.code}",
                            shown_error)
                return False
            why = expected.mismatch(err.diagnostic)
            if why is not None:
                result.fail("E711", span, f"step {i} ({what}): failed with {err.code} as expected, but {why}",
                            shown_error)
                return False
            if game.state.dumps() != before:
                result.failures.append(f"{where}: failed with {err.code} but changed the state")
                return False
            left = shown([*decider.answers, *decider.rolls])
            if left != "[]":
                # The refusal came before the step reached the answers it scripts: likely not the one meant.
                result.fail("E712", span, f"step {i} ({what}): failed with {err.code} as expected, but answers or "
                            f"rolls were never asked for: {left}", shown_error)
                return False
            return True
        left = shown([*decider.answers, *decider.rolls])  # as the scenario writes them: [{p2: $q4}, 3]
        if expected is not None:
            # Answers left over usually say why the error never came: the rule that should fail never asked.
            unused = f"; answers or rolls never asked for: {left}" if left != "[]" else ""
            result.fail("E702", span, f"step {i} ({what}): expected error {expected.code}, but it succeeded{unused}")
            return False
        if left != "[]":
            result.failures.append(f"{where}: answers or rolls never asked for: {left}")
            return False
        return True

    # ---------------------------------------------------------------- state overrides
    def _override(self, game: Game, spec: dict, doc: dict, file: str) -> None:
        st = game.state
        base = getattr(doc, "value_spans", {}).get("state", Span(file, 1, 1))
        for zone in spec.get("empty", []) or []:
            if str(zone) not in st.zones:
                raise BoardrulesError("E841", f"unknown zone '{zone}'", getattr(zone, "span", base))
            for pid in list(st.zones[str(zone)].contents):
                st.remove_piece(pid)
        builder = Builder(game.rules, Diagnostics())
        counters = spec.get("counters", {}) or {}
        for key, value in counters.items():
            kspan = getattr(counters, "key_spans", {}).get(key, base)
            self._set_counter(game, builder, str(key), value, kspan)
        for i, piece in enumerate(spec.get("pieces", []) or []):
            pspan = _item_span(spec.get("pieces"), i, file)
            self._add_piece(game, piece, pspan)
        for i, pair in enumerate(spec.get("links", []) or []):
            lspan = _item_span(spec.get("links"), i, file)
            ids = [str(p).removeprefix("$") for p in pair]
            missing = [p for p in ids if p not in st.pieces]
            if missing:
                raise BoardrulesError("E841", f"cannot link unknown piece(s) {shown(missing)}", lspan)
            group = st.pieces[ids[0]].group or st.new_group()
            for pid in ids:
                st.set_group(pid, group)
        for marker, pos in (spec.get("markers", {}) or {}).items():
            if marker not in st.markers:
                raise BoardrulesError("E841", f"unknown marker '{marker}'", base)
            st.set_marker(str(marker), int(pos), [])
        turn = spec.get("turn", {}) or {}
        if "player" in turn:
            st.set_var("turn_player", str(turn["player"]))

    def _set_counter(self, game: Game, builder: Builder, key: str, value: Any, span: Span) -> None:
        # The key was checked to be a counter reference (scenario_state.py); it is parsed as an expression and
        # assigned to, never pasted into an effect line.
        target = parse(key, "expr")
        assign = s.Assign((1, 1), target, "=", s.Literal((1, 1), int(value)))
        diags = Diagnostics()
        builder.diags = diags
        effect = builder.statement(assign, Scope({}, False), Text(key, span))
        if effect is None or diags.has_errors:
            d = diags.sorted()[0] if diags.items else None
            raise BoardrulesError("E841", f"cannot set counter '{key}': {d.message if d else 'not a counter'}", span)
        game.state.cause = span
        game.driver().lay_out((effect,))  # a scenario's starting state is not a change: no counter trigger runs

    def _add_piece(self, game: Game, spec: dict, span: Span) -> None:
        kind = str(spec["kind"])
        if kind not in game.rules.kinds:
            raise BoardrulesError("E841", f"unknown piece kind '{kind}'", span)
        zone = str(spec["zone"])
        if zone not in game.state.zones:
            raise BoardrulesError("E841", f"unknown zone '{zone}'", span)
        props = {}
        declared = game.rules.kinds[kind]
        for name, value in (spec.get("props", {}) or {}).items():
            if name not in declared:
                raise BoardrulesError("E841", f"'{kind}' has no property '{name}'", span)
            props[str(name)] = game.driver().from_plain(value, declared[name])
        game.state.cause = span
        game.state.create_piece(str(spec["id"]), kind, zone, spec.get("slot"), props)
        game.driver().laid_out()  # a piece given without a property may hold its unknown default

    # ---------------------------------------------------------------- expectations
    def _expect(self, game: Game, key: str, wanted: Any, span: Span, result: Result) -> None:
        builder = Builder(game.rules, Diagnostics())
        fn = builder.expression(key, span, Scope({}, False))
        if fn is None:
            result.failures.append(render_text(builder.diags.sorted()))
            return
        try:
            actual, reads = _evaluate_reading(game, fn)
        except BoardrulesError as err:
            result.fail(err.code, span, f"expect {key}: {err.diagnostic.message}")
            return
        except UnknownCompared as exc:
            result.fail("E601", span, f"expect {key}: compares '{exc.value.name}', which is unknown")
            return
        got = _normal(plain(actual))
        want = _normal(wanted)
        if got != want:
            cause = _provenance(game, reads, _property_read(game, key))
            by = f"\n    last changed by the rule at {cause}" if cause else ""
            if isinstance(got, str) and got in game.state.markers and type(want) is int:
                by += f"\n    hint: '{key}' is a track marker; its space is position({key})"
            result.fail("E701", span, f"expect {key}", f"\n    expected: {shown(want)}\n    actual:   {shown(got)}{by}")


def _placed(d: Diagnostic, span: Span) -> Diagnostic:
    """A diagnostic the engine could not place (an unknown action) is shown at the scenario step that caused it."""
    return d if d.span is not None else dataclasses.replace(d, span=span)


def _answer(game: Game, raw: Any) -> Any:
    if isinstance(raw, dict) and len(raw) == 1:
        (player, value), = raw.items()
        return WhoAnswers(str(player), game.driver().from_plain(value))
    return game.driver().from_plain(raw)


def _normal(value: Any) -> Any:
    if isinstance(value, list):
        return [_normal(v) for v in value]
    if isinstance(value, Player | Piece):
        return str(value)
    if isinstance(value, str) and value.lower() in ("yes", "no"):
        return value.lower() == "yes"
    return value


def _item_span(items: Any, index: int, file: str) -> Span:
    spans = getattr(items, "item_spans", None)
    if spans and index < len(spans):
        return spans[index]
    return Span(file, 1, 1)


class _Reads(dict):
    """A stand-in for one of the state's tables that notes every key looked up."""

    def __init__(self, table: dict) -> None:
        super().__init__(table)
        self.read: set[str] = set()

    def __getitem__(self, key: Any) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)


_TABLES = ("counters", "pieces", "zones", "markers")


def _evaluate_reading(game: Game, fn: Expr) -> tuple[Any, dict[str, set[str]]]:
    """Evaluate an expectation, noting which counters, pieces, zones and markers it looked at."""
    st = game.state
    originals = {name: getattr(st, name) for name in _TABLES}
    spies = {name: _Reads(table) for name, table in originals.items()}
    for name, spy in spies.items():
        setattr(st, name, spy)
    try:
        return game.driver().evaluate(fn, fresh_budget=True), {name: spy.read for name, spy in spies.items()}
    finally:
        for name, table in originals.items():
            setattr(st, name, table)


def _property_read(game: Game, key: str) -> tuple[str, str] | None:
    """(piece id, property) when the expectation is just `$id.property`."""
    try:
        node = parse(key, "expr")
    except ParseError:
        return None
    if isinstance(node, s.Attr) and isinstance(node.obj, s.PieceRef) and node.name in game.rules.properties:
        return node.obj.id, node.name
    return None


def _provenance(game: Game, reads: dict[str, set[str]], prop: tuple[str, str] | None) -> Span | None:
    """The rule that last changed something an expectation read: a counter, a piece, a zone's contents, a marker."""
    st = game.state
    for entry in reversed(st.journal):
        op, *args, cause = entry
        if cause is None:
            continue
        if prop is not None:
            hit = (op == "prop" and tuple(args[:2]) == prop) or (op == "create" and args[0] == prop[0])
        elif op == "counter":
            hit = args[0] in reads["counters"]
        elif op == "marker":
            hit = args[0] in reads["markers"]
        elif op in ("move", "create", "prop", "group", "remove"):
            pid = args[0]
            zones = {st.pieces[pid].zone} if pid in st.pieces else set()
            if op == "move":
                zones.add(args[1])
            elif op == "remove":
                zones.add(args[1].zone)
            hit = pid in reads["pieces"] or bool(zones & reads["zones"])
        else:
            hit = False
        if hit:
            return cause
    return None
