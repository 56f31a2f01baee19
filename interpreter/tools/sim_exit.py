"""`boardrules simulate` from its outputs' checks to its exit status, with each fault named and kept apart:

- 0: every game finished without an error;
- 1: a game failed or was lost (`E117`), or with `--strict` the legal-move search met a rule bug (`W520`); the
  report says which, and every other game is in it;
- 2: a bad command line, or an output path that cannot be written (`E116`, refused before any game is played);
- 4: the run could not be carried out or kept: Ray could not start (`E119`), or the finished report could not
  be written (`E116`; it is printed);
- 130: interrupted (Ctrl-C, `E118`): the games that finished are reported and written.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..adapters.ray_backend import NO_RAY
from ..diagnostics import BoardrulesError, Diagnostic, render_text
from . import sim_lab
from .sim_outputs import UNWRITABLE, check_dir, check_file, reason, write_atomic
from .sim_pool import LOST
from .simulate import Setup, dumps, render, simulate

EXIT_GAME_ERRORS, EXIT_USAGE, EXIT_ENVIRONMENT, EXIT_INTERRUPTED = 1, 2, 4, 130
INTERRUPTED = "E118"


def run(setup: Setup, args: argparse.Namespace) -> int:
    try:
        if args.json:
            check_file(args.json, "--json")
        if setup.failures is not None:
            check_dir(args.failures, "--failures")
        sim_lab.prepare(args)
    except BoardrulesError as err:
        print(render_text([err.diagnostic]))
        return EXIT_USAGE
    try:
        if args.until_ci is not None:
            report = sim_lab.until_ci(setup, args)
        else:
            report = simulate(setup, args.games, args.seed, args.workers, args.backend, args.address)
    except BoardrulesError as err:
        print(render_text([err.diagnostic]))
        return EXIT_ENVIRONMENT if err.diagnostic.code == NO_RAY else EXIT_GAME_ERRORS
    print(render(report), flush=True)  # first, so no later fault can lose it
    faults = _faults(report)
    if faults:
        print(render_text(faults), flush=True)
    status = EXIT_INTERRUPTED if report.get("interrupted") else EXIT_GAME_ERRORS if report["errors"] else 0
    if status == 0 and getattr(args, "strict", False) and report.get("search_problems"):
        status = EXIT_GAME_ERRORS  # --strict: a move the legal-move search dropped for a rule bug (W520) fails
    if args.json:
        try:
            write_atomic(Path(args.json), dumps(report) + "\n")
        except OSError as exc:
            print(render_text([Diagnostic("error", UNWRITABLE, f"--json {args.json}: the report could not be "
                                          f"written: {reason(exc)} (it is printed above)", None, None)]))
            return EXIT_INTERRUPTED if status == EXIT_INTERRUPTED else EXIT_ENVIRONMENT
    try:
        sim_lab.write(report, setup, args)
    except OSError as exc:
        print(render_text([Diagnostic("error", UNWRITABLE, f"--out or --report: could not be written: {reason(exc)}"
                                      " (the report is printed above)", None, None)]))
        return EXIT_INTERRUPTED if status == EXIT_INTERRUPTED else EXIT_ENVIRONMENT
    return status


def _faults(report: dict[str, Any]) -> list[Diagnostic]:
    """What went wrong around the games (not in their rules), one plain diagnostic each."""
    found = [Diagnostic("error", LOST, f"seed {e['seed']}: the game was lost: {e['message']}", None,
                        "every other game is in the report; play this seed alone (--games 1 --seed N) to see it")
             for e in report["errors"] if e.get("kind") == "lost"]
    stop = report.get("interrupted")
    if stop:
        found.append(Diagnostic("error", INTERRUPTED, f"interrupted: {stop['played']} of {stop['requested']} games "
                                "finished and are reported", None, None))
    return found
