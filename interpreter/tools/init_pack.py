"""`boardrules init DIR`: a starter pack a designer can check, test, simulate and grow from.

It writes a module with a whole (tiny) game, a scenario, a README saying what to run, the JSON Schemas beside
the pack (schema_files.py) with the schema lines pointing at them, so editor completion works outside this
repository, and a .gitignore for boardrules' cache.
"""

from __future__ import annotations

import re
from pathlib import Path

from .schema_files import schema_line, write_schemas

MODULE = """\
{schema}
module: {name}
title: {title}, a starter pack
source: where the rules come from (a rulebook, its page or section)
notes:
  - A two-to-four player race written by `boardrules init`; replace it with your game.
players: {{min: 2, max: 4}}

counters:
  points: {{per: player, initial: 0}}

actions:
  gain:
    title: Gain a point
    allowed_if: me.points < 5
    do:
      - me.points += 1
  stop:
    title: Stop for this round
    do:
      - pass

flow:
  first_player: p1
  phases:
    play:
      turns: {{until: all_passed}}
      actions: [gain, stop]
  end:
    when: round_number > 3
  ranking: [me.points]
"""

SCENARIO = """\
{schema}
scenario: Gaining a point adds one to the player's points
source: {name}.yaml, actions.gain
modules: [{name}]
players: 2
flow: true
steps:
  - {{action: gain, player: p1}}
  - {{action: stop, player: p2}}
expect:
  p1.points: 1
  p2.points: 0
"""

README = """\
# {title}

A rule pack for [boardrules](https://pypi.org/project/boardrules/): the game's rules as YAML.

- `{name}.yaml`: the rules (components, actions, the flow of a game, the ranking).
- `scenarios/`: small games with expected results; each proves a rule does what the rulebook says.
- `schemas/`: the JSON Schemas your editor completes from (the first line of each YAML file points at them);
  `boardrules init` wrote them: refresh them after upgrading boardrules with `boardrules schema --write schemas`
  (or run `boardrules init` in an empty folder and copy them).

Run, from this folder:

    boardrules check                      # every mistake at once, with file, line and column
    boardrules test                       # the scenarios (-k NAME, -x, --lf, --junit-xml FILE, --lcov FILE)
    boardrules explain . --format html -o rules.html
    boardrules simulate . --games 200 --out games.jsonl
    boardrules play . --bots p2=greedy

To check and test the packs a commit changes, add to `.pre-commit-config.yaml`:

    repos:
      - repo: https://github.com/boardrules/boardrules
        rev: v{version}
        hooks:
          - id: boardrules-check
          - id: boardrules-test
"""


def module_name(directory: Path) -> str:
    """A module id from the folder's name: lower case, words joined by underscores."""
    name = re.sub(r"[^a-z0-9]+", "_", directory.resolve().name.lower()).strip("_")
    return name if name and name[0].isalpha() else f"game_{name}" if name else "game"


def init(directory: Path, version: str) -> list[Path]:
    """Write the starter pack into `directory` (made if missing; it must be empty); the files written."""
    directory = Path(directory)
    if directory.exists() and any(directory.iterdir()):
        raise FileExistsError(f"{directory} is not empty: boardrules init writes into a new or empty folder")
    directory.mkdir(parents=True, exist_ok=True)
    name = module_name(directory)
    title = name.replace("_", " ").capitalize()
    schemas = write_schemas(directory / "schemas")
    module, scenario = directory / f"{name}.yaml", directory / "scenarios" / f"{name}_gain_a_point.yaml"
    scenario.parent.mkdir()
    module.write_text(MODULE.format(schema=schema_line(module, schemas[0]), name=name, title=title),
                      encoding="utf-8")
    scenario.write_text(SCENARIO.format(schema=schema_line(scenario, schemas[1]), name=name), encoding="utf-8")
    readme = directory / "README.md"
    readme.write_text(README.format(title=title, name=name, version=version), encoding="utf-8")
    ignore = directory / ".gitignore"
    ignore.write_text(".boardrules_cache/\nboardrules-failures/\n", encoding="utf-8")
    return [module, scenario, readme, *schemas, ignore]


__all__ = ["init", "module_name"]
