"""The designer's lab commands of `boardrules` (diff, init, view); cli.py registers them."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def cmd_diff(args: argparse.Namespace) -> int:
    from ..diagnostics import BoardrulesError, Diagnostics, render_text
    from ..language.pack import game_modules, link
    from . import diff
    from .options_arg import read_options
    from .simulate import Setup, simulate

    diags = Diagnostics()
    options = read_options(args.set, args.options, diags)
    old_pack, old = diff.load(Path(args.old), diags)
    new_pack, new = diff.load(Path(args.new), diags)
    if diags.has_errors or old_pack is None or new_pack is None or old is None or new is None:
        print(render_text(diags.sorted()))
        return 2
    changes = diff.compare(old, new)
    scen = None if args.no_scenarios else diff.scenarios(old_pack, old, new_pack, new)
    rows = None
    result: dict[str, Any] = {
        "added": [{"module": i.module, "name": i.name, "source": list(i.lines)} for i in changes.added],
        "removed": [{"module": i.module, "name": i.name, "source": list(i.lines)} for i in changes.removed],
        "changed": [{"module": a.module, "name": a.name, "old": list(a.lines), "new": list(b.lines)}
                    for a, b in changes.changed],
        "scenarios": None if scen is None else [s.__dict__ | {"failures": list(s.failures)} for s in scen],
    }
    if args.games:
        balances = []
        plain_options = tuple(sorted((k, v) for k, (v, _) in options.items()))
        for pack, modules in ((old_pack, old), (new_pack, new)):
            roots = args.modules or game_modules(modules, diags, pack.root)
            rules = None if diags.has_errors else link(modules, roots, diags, dict(options))
            if diags.has_errors or rules is None or rules.flow is None:
                if not diags.has_errors:
                    diags.error("E509", f"{pack.root} declares no flow, so there is no whole game to play", None)
                print(render_text(diags.sorted()))
                return 2
            setup = Setup(str(pack.root.resolve()), tuple(roots), plain_options, args.players, failures=None)
            try:
                balances.append(simulate(setup, args.games, args.seed, args.workers)["balance"])
            except BoardrulesError as err:
                print(render_text([err.diagnostic]))
                return 2
        rows = diff.compare_balance(*balances)
        result["balance"] = {"games": args.games, "seed": args.seed, "old": balances[0], "new": balances[1],
                             "compared": rows}
    sys.stdout.write(diff.render(changes, scen, rows, args.old, args.new, args.games))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    different = bool(changes) or bool(scen) or any(r["significant"] for r in rows or [])
    return 1 if different else 0


def cmd_init(args: argparse.Namespace) -> int:
    from ..resources import installed_version
    from .init_pack import init

    try:
        written = init(Path(args.directory), installed_version())
    except (FileExistsError, OSError) as err:
        print(f"boardrules: {err}", file=sys.stderr)
        return 1
    for path in written:
        print(f"wrote {path}")
    print(f"next: cd {args.directory} && boardrules check && boardrules test")
    return 0


def cmd_view(args: argparse.Namespace) -> int:
    from ..diagnostics import BoardrulesError, render_text
    from .view import view

    source = Path(args.file)
    try:
        page = view(source)
    except BoardrulesError as err:
        print(render_text(getattr(err, "diagnostics", None) or [err.diagnostic]))
        return 1
    out = Path(args.output) if args.output else source.with_suffix(".html")
    out.write_text(page, encoding="utf-8")
    print(f"wrote {out}")
    return 0


def add_commands(sub: Any, add_options: Any) -> None:
    """Register the lab's commands on the `boardrules` parser's subparsers."""
    d = sub.add_parser("diff", help="what a change to a pack did: rules, scenarios, and balance",
                       description="Compare two versions of a pack: rules added, removed and changed (with both "
                       "sources side by side), scenarios whose outcome changed, and with --games the balance "
                       "of both from the same seeds, significant differences marked. Exit status: 0 no "
                       "difference, 1 different, 2 trouble (like diff).")
    d.add_argument("old", metavar="OLD", help="the pack before the change (a directory)")
    d.add_argument("new", metavar="NEW", help="the pack after it")
    d.add_argument("--games", type=int, default=0, metavar="N", help="simulate N games of each from the same seeds")
    d.add_argument("--players", type=int, default=2, help="players per simulated game (default 2)")
    d.add_argument("--seed", type=int, default=1, help="the first game's seed (default 1)")
    d.add_argument("--workers", type=int, default=1, metavar="K", help="processes to simulate on (default 1)")
    d.add_argument("--modules", nargs="+", metavar="MODULE", help="the modules to play (default: the game module)")
    d.add_argument("--no-scenarios", action="store_true", help="do not run the scenarios")
    d.add_argument("--json", metavar="OUT", help="also write the differences as JSON to OUT")
    add_options(d)
    d.set_defaults(run=cmd_diff)
    i = sub.add_parser("init", help="write a starter pack: a module, a scenario, a README and the schemas",
                       description="Write a starter pack into DIR (new or empty): a module with a whole small "
                       "game, a scenario, a README, the JSON Schemas beside it (the YAML files' schema lines "
                       "point at them, so editors complete outside this repository) and a .gitignore.")
    i.add_argument("directory", metavar="DIR", help="the folder to create")
    i.set_defaults(run=cmd_init)
    v = sub.add_parser("view", help="an HTML page to watch a saved game or a simulate failure, decision by decision",
                       description="Write a self-contained HTML page of a game saved by `play` (s FILE) or of "
                       "a failure log of `simulate`: zones with pieces and properties, counters per player, the "
                       "pending decision with its options and rule line, and a slider through every decision.")
    v.add_argument("file", metavar="SAVE_OR_LOG", help="a saved game or a simulate failure log (JSON)")
    v.add_argument("-o", "--output", metavar="FILE", help="where to write the page (default: beside it, .html)")
    v.set_defaults(run=cmd_view)


__all__ = ["add_commands", "cmd_diff", "cmd_init", "cmd_view"]
