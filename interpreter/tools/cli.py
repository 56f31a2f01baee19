"""The `boardrules` command: check rule packs, run their scenarios, print the JSON Schema."""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..internal import EXIT_INTERNAL, INTERNAL, REPORT, describe
from ..resources import grammar_dir, installed_version

if TYPE_CHECKING:
    from ..language.linker import Module
    from ..language.pack import Pack

# Each command imports what it needs when it runs: a `check` answered from the cache imports almost nothing.

EPILOG = ("Without PATH, check and test use the packs of the git repository they run in (or the pack that is the "
          "working directory), else the rule packs shipped with boardrules.")
CHECK_EPILOG = EPILOG + (" Exit status: 0 when nothing failed (warnings allowed unless --strict), 1 when an error"
                         " was found (or a warning, with --strict), 2 on a usage error, 3 on an internal error.")


EXIT_NO_SCENARIOS = 5  # as pytest's "no tests collected"
TEST_EPILOG = EPILOG + (" Exit status: 0 when every scenario passed, 1 when one failed (or a pack has errors), 2 on a"
                        " usage error, 3 on an internal error, 5 when no scenario was found.")


def _paths(raw: list[str], changed: bool = False) -> list[Path]:
    from .pack_repo import default_paths, packs_of

    if changed:  # pre-commit's changed files: their packs
        return packs_of([Path(p) for p in raw])
    return [Path(p) for p in raw] if raw else default_paths()


def cmd_check(args: argparse.Namespace) -> int:
    if args.explain:
        from ..diagnostics_codes import CODES, explain

        text = explain(args.explain)
        if text is None:
            print(f"boardrules: unknown code {args.explain!r}; known codes: {', '.join(CODES)}", file=sys.stderr)
            return 2
        print(text, end="")
        return 0
    from . import check_cache

    paths = _paths(args.paths, args.changed)
    if args.changed and not paths:
        print("boardrules: no pack holds the changed files")
        return 0
    digest = None
    if not args.no_cache:
        inputs = {k: v for k, v in vars(args).items() if k != "run"}
        digest = check_cache.key(inputs, paths, [Path(o) for o in args.options], [grammar_dir()])
        hit = check_cache.load(digest) if digest else None
        if hit is not None:
            print(hit[0], end="")
            return hit[1]
    with check_cache.recording() as read:
        output, status = _check(args, paths)
    print(output, end="")
    if digest is not None and status in (0, 1) and digest.covers(read):
        check_cache.store(digest, output, status)
    return status


def _check(args: argparse.Namespace, paths: list[Path]) -> tuple[str, int]:
    with _collection_paused():  # from the imports on: they make many objects and no garbage
        return _checked(args, paths)


def _checked(args: argparse.Namespace, paths: list[Path]) -> tuple[str, int]:
    from ..analysis import check_pack
    from ..diagnostics import MAX_SHOWN, Diagnostics, render_json, render_text
    from ..language.pack import discover
    from .options_arg import read_options
    from .sarif import render_sarif

    diags = Diagnostics()
    options = read_options(args.set, args.options, diags)
    packs = discover(paths, diags)
    for pack in packs:
        if pack.module_files:
            check_pack(pack, diags, options)
    items = diags.sorted()
    errors = sum(1 for d in items if d.severity == "error")
    warnings = len(items) - errors
    lines = []
    if args.format == "json":
        lines.append(render_json(items))
    elif args.format == "sarif":
        lines.append(json.dumps(render_sarif(items), indent=2, ensure_ascii=False))
    else:
        if items:
            lines.append(render_text(items, MAX_SHOWN))
        modules = sum(len(p.module_files) for p in packs)
        lines.append(f"checked {modules} module file(s) in {len(packs)} pack(s): {errors} error(s), "
                     f"{warnings} warning(s)")
    output = "".join(line + "\n" for line in lines)
    if any(d.code == INTERNAL for d in items):
        return output, EXIT_INTERNAL
    # W601 lists the unknowns a pack documents on purpose: even --strict lets them pass.
    failing = errors + (sum(1 for d in items if d.severity == "warning" and d.code != "W601") if args.strict else 0)
    return output, 1 if failing else 0


# Set when main() runs as the command itself (not called by a program or a test): the process ends after it.
_ends_after = False


@contextmanager
def _collection_paused() -> Iterator[None]:
    """Checking makes a great many objects and some reference cycles (about 90,000 objects for both shipped
    packs): the cyclic collector's passes over them cost a sixth of `check`, and one last pass over what the
    check left costs as much again. The collector is paused while a check runs (its imports too); when the
    process ends right after, what is left is frozen, not collected (a caller in the same process gets it collected)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if _ends_after:
            gc.freeze()
        if was:
            gc.enable()


def cmd_test(args: argparse.Namespace) -> int:
    from . import check_cache
    from .test_run import TestRun

    paths = _paths(args.paths, args.changed)
    if args.changed and not paths:
        print("boardrules: no pack holds the changed files")
        return 0
    digest = None
    if not args.no_cache and not TestRun.from_args(args).active:
        inputs = {k: v for k, v in vars(args).items() if k != "run"}
        digest = check_cache.key(inputs, paths, [], [grammar_dir()])
        hit = check_cache.load(digest, "test") if digest else None
        if hit is not None:
            output, status, errors = hit
            sys.stdout.write(output)
            sys.stderr.write(errors)
            return status
    printed = _Printed()
    with check_cache.recording() as read:
        status = _test(args, paths, printed)
    if digest is not None and status in (0, 1) and digest.covers(read):
        check_cache.store(digest, printed.out.getvalue(), status, "test", printed.err.getvalue())
    return status


class _Printed:
    """Prints as it goes, and keeps what it printed to each stream, for the result cache."""

    def __init__(self) -> None:
        self.out, self.err = io.StringIO(), io.StringIO()

    def print(self, text: str, to_stderr: bool = False) -> None:
        print(text, file=sys.stderr if to_stderr else sys.stdout)
        print(text, file=self.err if to_stderr else self.out)


def _test(args: argparse.Namespace, paths: list[Path], printed: _Printed) -> int:
    from ..diagnostics import MAX_SHOWN, Diagnostics, render_text
    from ..language.pack import discover, display, load_modules
    from . import coverage
    from .scenario import ScenarioRunner
    from .test_run import TestRun

    run = TestRun.from_args(args)
    lcov_tables: dict[str, dict] = {}
    diags = Diagnostics()
    packs = discover(paths, diags)
    passed = failed = internal = 0

    # With --coverage=json the JSON alone goes to stdout, so tools can read it.
    def say(text: str) -> None:
        printed.print(text, to_stderr=args.coverage == "json")

    covered: dict[str, list] = {}
    for d in diags.sorted():
        say(render_text([d]))
        failed += 1
    for pack in packs:
        if not pack.scenario_files or run.stopped():
            continue
        loaded = Diagnostics()
        modules = load_modules(pack.module_files, loaded)
        if loaded.has_errors:
            # Scenarios of rules that are not valid prove nothing: report the rules, run none of them.
            errors = [d for d in loaded.sorted() if d.severity == "error"]
            say(f"FAIL {display(pack.root)}: its modules have errors, so its {len(pack.scenario_files)} "
                "scenario(s) were not run")
            say("  " + render_text(errors, MAX_SHOWN).replace("\n", "\n  "))
            failed += len(pack.scenario_files)
            continue
        runner = ScenarioRunner(modules)
        runner.trace = set() if args.coverage or run.lcov else None
        for path in [p for p in pack.scenario_files if run.wanted(p)]:
            if run.stopped():
                break
            result = run.timed(display(pack.root), path, runner.run_file)
            if result.passed:
                passed += 1
                if args.verbose:
                    say(f"PASS {result.file}: {result.title}")
            else:
                failed += 1
                internal += result.internal
                say(f"FAIL {result.file}: {result.title}")
                for failure in result.failures:
                    say("  " + failure.replace("\n", "\n  "))
        if args.coverage:
            missed = runner.uncovered()
            total = len(runner.rules_for(list(runner.modules))[0].rule_names())
            say(f"coverage {display(pack.root)}: {total - len(missed)} of {total} rules run by a scenario")
            for name in missed:
                say(f"  never run: {name}")
            table = coverage.measure(modules, runner.trace or set())
            covered[display(pack.root)] = coverage.to_json(table)
            if args.coverage == "text":
                say(coverage.render_text(table, args.verbose))
        if run.lcov:
            lcov_tables[display(pack.root)] = coverage.measure(modules, runner.trace or set())
    run.finish(say, lcov_tables)
    if passed + failed == 0:
        # a CI step that names the wrong folder must not pass without running anything
        say(f"no scenario found in {', '.join(display(p) for p in paths)} (scenarios are the .yaml files under a "
            f"pack's scenarios/ directory)")
        return EXIT_NO_SCENARIOS
    say(f"{passed} passed, {failed} failed")
    if args.coverage == "json":
        printed.print(coverage.dumps(covered))
    return EXIT_INTERNAL if internal else 1 if failed else 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from ..diagnostics import BoardrulesError, Diagnostics, render_text
    from ..language.pack import discover, game_modules, link, load_modules
    from . import sim_exit
    from .bots import parse_bots
    from .options_arg import read_options
    from .simulate import Setup

    diags = Diagnostics()
    options = read_options(args.set, args.options, diags)
    packs = [p for p in discover([Path(args.pack)], diags) if p.module_files]
    if len(packs) != 1 and not diags.has_errors:
        diags.error("E105", f"{args.pack} is not one rule pack", None)
    rules = None
    if not diags.has_errors:
        modules = load_modules(packs[0].module_files, diags)
        roots = args.modules or game_modules(modules, diags, packs[0].root)
        if not diags.has_errors:
            rules = link(modules, roots, diags, options)
            if rules.flow is None and not diags.has_errors:
                diags.error("E509", f"modules {roots} declare no flow, so there is no whole game to play", None)
    if diags.has_errors or rules is None:
        print(render_text(diags.sorted()))
        return 1
    try:
        bots = parse_bots(args.bots, args.players)
        if args.branching_every < 0:
            raise BoardrulesError("E509", f"--branching-every takes 0 (never) or more, got {args.branching_every}")
        plain_options = tuple(sorted((k, v) for k, (v, _) in options.items()))
        setup = Setup(str(Path(args.pack).resolve()), tuple(roots), plain_options, args.players, args.chance,
                      tuple(sorted(bots.items())), args.max_steps,
                      None if args.no_save else str(Path(args.failures).resolve()), not args.no_check,
                      args.branching_every)
    except BoardrulesError as err:
        print(render_text([err.diagnostic]))
        return 1
    return sim_exit.run(setup, args)


def cmd_play(args: argparse.Namespace) -> int:
    import random

    from ..diagnostics import BoardrulesError, Diagnostics, render_text
    from .bots import parse_bots
    from .options_arg import read_options
    from .play import Session, read_line, start

    diags = Diagnostics()
    options = read_options(args.set, args.options, diags)
    if diags.has_errors:
        print(render_text(diags.sorted()))
        return 1
    try:
        game = start(args.pack, args.players, args.seed, {k: v for k, (v, _) in options.items()}, args.modules,
                     args.load)
        bots = parse_bots(args.bots, len(game.players))
    except BoardrulesError as err:
        print(render_text(getattr(err, "diagnostics", None) or [err.diagnostic]))
        return 1
    return Session(game, bots, random.Random(game.seed), read_line, lambda s: print(s, flush=True)).run()


def _add_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="give a value the pack leaves open (a value, a counter's start, kind.property); repeatable")
    p.add_argument("--options", action="append", default=[], metavar="FILE.yaml",
                   help="a YAML mapping of option name to value")


def _one_pack(raw: str) -> tuple[Pack | None, dict | None]:
    from ..diagnostics import Diagnostics, render_text
    from ..language.pack import discover, load_modules

    diags = Diagnostics()
    packs = [p for p in discover([Path(raw)], diags) if p.module_files]
    if diags.has_errors or len(packs) != 1:
        print(render_text(diags.sorted()) or f"boardrules: {raw} is not one rule pack", file=sys.stderr)
        return None, None
    modules = load_modules(packs[0].module_files, diags)
    if diags.has_errors:
        print(render_text(diags.sorted()), file=sys.stderr)
        return None, None
    return packs[0], modules


def cmd_explain(args: argparse.Namespace) -> int:
    from . import explain, report

    pack, modules = _one_pack(args.pack)
    if pack is None or modules is None:
        return 1
    roots = args.modules or list(modules)
    unknown = [m for m in roots if m not in modules]
    if unknown:
        print(f"boardrules: unknown module(s) {', '.join(unknown)}; the pack has {', '.join(modules)}", file=sys.stderr)
        return 1
    if args.python:
        return _explain_python(modules, roots, args.python)
    if args.format == "html":
        text = report.render(pack, modules, roots)
    else:
        doc = explain.build(modules, roots)
        text = explain.render_md(doc, args.quote) if args.format == "md" else explain.render_text(doc, args.quote)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _explain_python(modules: dict[str, Module], roots: list[str], rule: str) -> int:
    """The Python a rule's body compiles to (see language/body_compiler.py), for reading and profiling."""
    from ..diagnostics import Diagnostics, render_text
    from ..language.pack import link

    diags = Diagnostics()
    rules = link(modules, roots, diags)
    if diags.has_errors:
        print(render_text(diags.sorted()), file=sys.stderr)
        return 1
    body = rules.body_of(rule)
    if body is None or rules.compile_body is None:
        print(f"boardrules: no rule {rule!r}; the rules are {', '.join(rules.rule_names())}", file=sys.stderr)
        return 1
    sources = rules.compile_body.sources_of(body)  # type: ignore[attr-defined]
    sys.stdout.write(f"# {rule}: the Python its body runs as, named after its file and line\n")
    sys.stdout.write("\n".join(sources))
    return 0


def cmd_mutate(args: argparse.Namespace) -> int:
    from .mutate import default_workers, mutate_pack

    pack, modules = _one_pack(args.pack)
    if pack is None or modules is None:
        return 1
    unknown = [m for m in args.modules or [] if m not in modules]
    if unknown:
        print(f"boardrules: unknown module(s) {', '.join(unknown)}; the pack has {', '.join(modules)}", file=sys.stderr)
        return 1
    try:
        report = mutate_pack(pack, args.modules, args.workers or default_workers(), args.seed, args.max,
                             progress=sys.stderr.isatty())
    except ValueError as err:
        print(f"boardrules: {err}", file=sys.stderr)
        return 1
    print(report.render())
    return 0


def cmd_lsp(args: argparse.Namespace) -> int:
    try:
        from ..lsp.server import main as serve
    except ImportError as err:
        print(f"boardrules: the language server needs pygls ({err}): pip install 'boardrules[lsp]'", file=sys.stderr)
        return 2
    return serve()


def cmd_schema(args: argparse.Namespace) -> int:
    if args.write:
        from .schema_files import schema_line, write_schemas

        try:
            written = write_schemas(Path(args.write))
        except OSError as err:
            print(f"boardrules: cannot write the schemas into {args.write}: {err.strerror or err}", file=sys.stderr)
            return 1
        for path in written:
            print(f"wrote {path}")
        example = Path(args.write) / "module.yaml"
        print(f"first line of a module file in {args.write}: {schema_line(example, written[0])}")
        return 0
    schema = json.loads((grammar_dir() / f"{args.kind}.schema.json").read_text(encoding="utf-8"))
    print(json.dumps(schema, indent=2, ensure_ascii=False))
    return 0


class _VersionAction(argparse.Action):
    """--version, looked up only when asked (reading the installed metadata takes a noticeable time)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        print(f"boardrules {installed_version()}")
        parser.exit()


class _Reparse(Exception):
    """A command line the one-command parser cannot take: the whole parser words its error."""


class _OneCommand(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _Reparse(message)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with `command` ("check"), one that knows that command only and raises _Reparse
    where the whole parser would report an error (its usage lists every command)."""
    parser = (_OneCommand if command else argparse.ArgumentParser)(prog="boardrules",
                                                                   description="Board-game rules as data.")
    parser.add_argument("--version", action=_VersionAction, nargs=0, help="print boardrules' version and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_check(sub)
    if command is None:
        _add_commands(sub)
    return parser


def _add_check(sub: Any) -> None:
    check = sub.add_parser("check", help="check rule packs: YAML, schema, grammar, names and types",
                           description="Load, validate and link rule packs; report every problem.",
                           epilog=CHECK_EPILOG)
    check.add_argument("paths", nargs="*", metavar="PATH", help="pack directories, directories of packs, or files")
    check.add_argument("--format", choices=["text", "json", "sarif"], default="text",
                       help="output format (default text; sarif is SARIF 2.1.0 for code hosts)")
    check.add_argument("--no-cache", action="store_true",
                       help="check afresh; by default an unchanged run is answered from a per-user cache")
    check.add_argument("--strict", action="store_true",
                       help="warnings fail too (exit status 1), except W601 (documented unknowns)")
    check.add_argument("--explain", metavar="CODE", help="explain a diagnostic code, with a wrong and a right example")
    check.add_argument("--changed", action="store_true",
                       help="the paths are changed files (as pre-commit passes them): check the packs holding them")
    _add_options(check)
    check.set_defaults(run=cmd_check)


def _add_commands(sub: Any) -> None:
    """Every command but check."""
    test = sub.add_parser("test", help="run scenario files",
                          description="Run scenarios (files under a pack's scenarios/ directory).",
                          epilog=TEST_EPILOG)
    test.add_argument("paths", nargs="*", metavar="PATH", help="packs, scenario directories or scenario files")
    test.add_argument("-v", "--verbose", action="store_true", help="also list the scenarios that pass")
    test.add_argument("--no-cache", action="store_true",
                      help="run every scenario afresh; by default an unchanged run is answered from a per-user cache")
    # A flag, never an option that takes the next word: `test --coverage PACK` must read PACK as a path.
    test.add_argument("--coverage", action="store_const", const="text",
                      help="report the rules, effect lines and branches (if sides, match cases, options, cost "
                           "alternatives) the scenarios ran, per module and rule")
    test.add_argument("--coverage-format", choices=["text", "json"], dest="coverage",
                      help="the same report as text or as JSON for tools (implies --coverage); "
                           "--coverage=json is short for it")
    test.add_argument("--changed", action="store_true",
                      help="the paths are changed files (as pre-commit passes them): test the packs holding them")
    test.add_argument("-k", dest="keyword", metavar="EXPR",
                      help="run only scenarios whose file path matches EXPR (substrings; 'not X', 'A or B', "
                           "'A and B', as pytest -k)")
    test.add_argument("-x", "--exitfirst", action="store_true", help="stop at the first failing scenario")
    test.add_argument("--lf", "--last-failed", dest="last_failed", action="store_true",
                      help="run only the scenarios that failed last time (all if none did); kept in "
                           ".boardrules_cache/ in the working directory")
    test.add_argument("--durations", type=int, metavar="N", help="list the N slowest scenarios (0: all)")
    test.add_argument("--junit-xml", metavar="FILE", help="write the results as JUnit XML for CI services")
    test.add_argument("--lcov", metavar="FILE", help="write the rules' line and branch coverage as lcov")
    test.set_defaults(run=cmd_test)
    explain = sub.add_parser("explain", help="the composed rules of a pack in plain English",
                             description="Render a pack's composed rules as a rulebook: components, setup, game "
                                         "flow, actions, triggers, procedures, scoring and unknown values.")
    explain.add_argument("pack", nargs="?", metavar="PACK", help="a pack directory")
    explain.add_argument("--modules", nargs="+", metavar="MODULE", help="modules to compose (default: all)")
    explain.add_argument("--format", choices=["text", "md", "html"], default="text",
                         help="text, markdown, or the HTML pack report (default text)")
    explain.add_argument("--quote", action="store_true", help="quote the YAML of each effect under its sentence")
    explain.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    explain.add_argument("--python", metavar="RULE",
                         help="show the Python source RULE (actions.NAME, triggers.NAME, ... or NAME) compiles to")
    explain.set_defaults(run=cmd_explain)
    mutate = sub.add_parser("mutate", help="mutation testing: do the scenarios notice a changed rule?",
                            description="Change one thing at a time in a pack's rules, run the scenarios against "
                                        "each change, and list the changes no scenario noticed.")
    mutate.add_argument("pack", nargs="?", metavar="PACK", help="a pack directory with scenarios")
    mutate.add_argument("--modules", nargs="+", metavar="MODULE", help="mutate only these modules")
    mutate.add_argument("--workers", type=int, default=0, help="worker processes (default: one per core)")
    mutate.add_argument("--seed", type=int, default=1, help="seed for picking mutants with --max (default 1)")
    mutate.add_argument("--max", type=int, default=None, metavar="N", help="run at most N mutants")
    mutate.set_defaults(run=cmd_mutate)
    sim = sub.add_parser("simulate", help="play whole games with bots, checking invariants",
                         description="Play whole games of a pack (its game module, or --modules) with bots "
                         "(random by default), check invariants after every step, and report games finished, "
                         "errors, length, scores, wins, and how often each action and rule fired.")
    sim.add_argument("pack", nargs="?", metavar="PACK", help="a pack directory")
    sim.add_argument("--modules", nargs="+", metavar="MODULE", help="the modules to play (default: the game module)")
    sim.add_argument("--players", type=int, default=2, help="players per game (default 2)")
    sim.add_argument("--games", type=int, default=10, help="how many games (default 10)")
    sim.add_argument("--seed", type=int, default=1, help="the first game's seed; game i uses seed + i (default 1)")
    sim.add_argument("--chance", choices=["step", "auto"], default="step",
                     help="chance as decisions sampled by their probabilities (step), or by the game (auto)")
    sim.add_argument("--json", metavar="OUT", help="also write the report as JSON to OUT")
    sim.add_argument("--out", metavar="FILE",
                     help="write one row per game to FILE: JSON Lines, or Parquet for FILE.parquet (needs pyarrow)")
    sim.add_argument("--report", metavar="FILE.html",
                     help="write the pack's HTML report with a balance section: the metrics and their plots "
                          "(needs matplotlib: pip install 'boardrules[report]')")
    sim.add_argument("--until-ci", type=float, metavar="W",
                     help="play --games, then double the games until every seat's 95%% win-rate interval is "
                          "narrower than W (e.g. 0.05)")
    sim.add_argument("--max-games", type=int, default=100_000, metavar="N",
                     help="with --until-ci, stop after N games even if the intervals are wider (default 100000)")
    sim.add_argument("--workers", type=int, default=1, metavar="K",
                     help="processes to play on (default 1); the report is the same whatever K")
    sim.add_argument("--bots", metavar="SEAT=BOT,...", help="bots per seat, e.g. p2=random,p3=greedy (default random)")
    sim.add_argument("--max-steps", type=int, default=100_000, metavar="N",
                     help="decisions after which a game counts as one that never ends (default 100000)")
    sim.add_argument("--failures", default="boardrules-failures", metavar="DIR",
                     help="where the replayable logs of failed games go (default ./boardrules-failures)")
    sim.add_argument("--no-save", action="store_true", help="do not save the logs of failed games")
    sim.add_argument("--no-check", action="store_true", help="do not check invariants after every step")
    sim.add_argument("--branching-every", type=int, default=10, metavar="N",
                     help="measure the branching factor on every Nth move decision of a phase, from the first "
                          "(listing a decision's moves proves each; 1: every decision, 0: none; default 10)")
    sim.add_argument("--backend", choices=["process", "ray"], default="process",
                     help="run the games on local processes, or as Ray tasks (pip install 'boardrules[ray]')")
    sim.add_argument("--address", metavar="ADDR", help="the Ray cluster to join (default: start a local one)")
    sim.add_argument("--strict", action="store_true",
                     help="exit 1 when the legal-move search met a rule bug (W520), not only on errors")
    _add_options(sim)
    sim.set_defaults(run=cmd_simulate)
    play = sub.add_parser("play", help="play a whole game in the terminal, against bots or people",
                          description="Play a whole game of a pack: each decision is a numbered menu with who "
                          "decides and the rule that asks; u undoes, s FILE saves, q quits.")
    play.add_argument("pack", nargs="?", metavar="PACK", help="a pack directory")
    play.add_argument("--modules", nargs="+", metavar="MODULE", help="the modules to play (default: the game module)")
    play.add_argument("--players", type=int, default=2, help="players (default 2)")
    play.add_argument("--seed", type=int, default=1, help="the game's seed, also the bots' and chance's (default 1)")
    play.add_argument("--bots", metavar="SEAT=BOT,...", help="seats played by bots, e.g. p2=random,p3=greedy")
    play.add_argument("--load", metavar="FILE", help="resume a game saved with s FILE")
    _add_options(play)
    play.set_defaults(run=cmd_play)
    lsp = sub.add_parser("lsp", help="a language server for editors (Language Server Protocol over stdio)",
                         description="Serve diagnostics, completion, definitions, references, hover and outlines "
                                     "of rule packs to an editor over stdio (needs: pip install 'boardrules[lsp]'; "
                                     "see docs/editors.md).")
    lsp.set_defaults(run=cmd_lsp)
    schema = sub.add_parser("schema", help="print the JSON Schema of rule files",
                            description="Print the JSON Schema (Draft 2020-12) of module or scenario files, of "
                                        "saved games or of the failure files of simulate.")
    schema.add_argument("kind", nargs="?", choices=["module", "scenario", "save", "failure"], default="module",
                        help="which schema (default module)")
    schema.add_argument("--write", metavar="DIR",
                        help="write module.schema.json and scenario.schema.json into DIR (beside a pack), so the "
                             "files' `$schema` lines work outside this repository")
    schema.set_defaults(run=cmd_schema)
    from .lab_cli import add_commands

    add_commands(sub, _add_options)


def _with_formats(argv: list[str]) -> list[str]:
    """`--coverage=json` is `--coverage-format=json`: the `=` form carries the format, so the bare flag never
    needs a value and never swallows the path after it (argparse cannot give one option both forms)."""
    return ["--coverage-format" + a.removeprefix("--coverage") if a.startswith("--coverage=") else a for a in argv]


def _check_args(words: list[str]) -> argparse.Namespace | None:
    """`check`'s arguments read by a parser of that command alone (building every command's parser was a fiftieth
    of an uncached check); None for another command, or for a line the whole parser must report on."""
    if words[:1] != ["check"]:
        return None
    plain = _plain_check(words)
    if plain is not None:
        return plain
    try:
        return build_parser("check").parse_args(words)
    except _Reparse:
        return None


_CHECK_FLAGS = {"--no-cache": "no_cache", "--strict": "strict"}
_FORMATS = ("text", "json", "sarif")


def _plain_check(words: list[str]) -> argparse.Namespace | None:
    """The usual `check` line, paths and the flags --no-cache, --strict and --format written out in full, read
    as the parser reads it without building one (its message catalogue and terminal size look-ups were a
    hundredth of an uncached check); None for any other line."""
    args: dict[str, Any] = {"version": None, "command": "check", "paths": [], "format": "text", "no_cache": False,
                            "strict": False, "explain": None, "changed": False, "set": [], "options": [],
                            "run": cmd_check}
    paths_ended = False  # the parser takes the paths as one run of words, with options before or after it
    i = 1
    while i < len(words):
        word = words[i]
        if word.startswith("-"):
            paths_ended = bool(args["paths"])
            if word in _CHECK_FLAGS:
                args[_CHECK_FLAGS[word]] = True
            elif word == "--format" and i + 1 < len(words) and words[i + 1] in _FORMATS:
                i += 1
                args["format"] = words[i]
            elif word.startswith("--format=") and word[len("--format="):] in _FORMATS:
                args["format"] = word[len("--format="):]
            else:
                return None
        elif paths_ended:
            return None
        else:
            args["paths"].append(word)
        i += 1
    return argparse.Namespace(**args)


def _pack_after_modules(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """`--modules a b PACK`: argparse gives PACK to --modules, which takes one or more words; the last word is
    the pack when it is a path (a module id never holds a '/' and is no file), so a path is never an option's."""
    if "pack" not in vars(args) or args.pack is not None:
        return
    modules = getattr(args, "modules", None) or []
    if modules and (os.sep in modules[-1] or "/" in modules[-1] or Path(modules[-1]).exists()):
        args.pack = modules.pop()
        args.modules = modules or None
    if args.pack is None:
        parser.error(f"{args.command} needs a PACK (a pack directory)")


def _leave(status: int) -> int:
    pool = sys.modules.get("boardrules.tools.sim_pool")  # only a run that used worker processes has imported it
    return pool.leave(status) if pool is not None else status


def main(argv: list[str] | None = None) -> int:
    global _ends_after
    _ends_after = argv is None
    for stream in (sys.stdout, sys.stderr):
        # A rule file may hold text no terminal can show (a lone surrogate): show it escaped, never fail on it.
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    words = _with_formats(sys.argv[1:] if argv is None else argv)
    args = _check_args(words)
    if args is None:
        parser = build_parser()
        args = parser.parse_args(words)
        _pack_after_modules(args, parser)
    try:
        return _leave(args.run(args))
    except KeyboardInterrupt:
        return _leave(130)
    except BrokenPipeError:
        # The reader went away (`boardrules check | head -1`): stop quietly, and keep Python from complaining
        # again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except Exception as exc:  # the last guard: a bug in boardrules is reported, never a traceback
        print(f"boardrules: error {INTERNAL}: internal error while running '{args.command}': {describe(exc)}\n"
              f"  hint: {REPORT}", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
