"""The designer's lab part of `boardrules simulate` (sim_exit.py runs it): `--until-ci` chooses how many games to
play, `--out` writes the per-game rows and `--report` the HTML report with the balance section. What an output
needs is checked before any game is played (the path can be written, pyarrow or matplotlib is installed), as
sim_exit checks `--json`."""

from __future__ import annotations

import argparse
from typing import Any

from .sim_outputs import check_file
from .simulate import Setup


def prepare(args: argparse.Namespace) -> None:
    """Refuse an output that could not be written, before the games (BoardrulesError: E116 or E760)."""
    if args.out:
        check_file(args.out, "--out")
        if str(args.out).endswith(".parquet"):
            from .sim_rows import require_parquet

            require_parquet(args.out)
    if args.report:
        check_file(args.report, "--report")
        from . import plots

        plots.require()


def until_ci(setup: Setup, args: argparse.Namespace) -> dict[str, Any]:
    from .until_ci import simulate_until

    return simulate_until(setup, args.until_ci, args.games, args.seed, args.workers, args.backend, args.address,
                          args.max_games)


def write(report: dict[str, Any], setup: Setup, args: argparse.Namespace) -> None:
    """The rows and the report page (OSError when a disk fails meanwhile)."""
    if args.out:
        from . import sim_rows

        sim_rows.write(args.out, report["rows"])
    if args.report:
        from . import report_balance

        said = f"{setup.players} players, seed {args.seed}, bots {args.bots or 'random'}"
        report_balance.write(args.report, setup.pack, list(setup.modules or ()), report, said)


__all__ = ["prepare", "until_ci", "write"]
