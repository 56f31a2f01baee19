"""The JSON Schemas of rule files, copied beside a pack so its `# yaml-language-server: $schema=` lines work
outside this repository (an editor resolves the line relative to the YAML file, and the installed copy moves
with every upgrade)."""

from __future__ import annotations

import os
from pathlib import Path

from ..resources import grammar_dir

SCHEMA_KINDS = ("module", "scenario")


def schema_name(kind: str) -> str:
    return f"{kind}.schema.json"


def write_schemas(directory: Path) -> list[Path]:
    """Write `module.schema.json` and `scenario.schema.json` into `directory` (made if missing); the paths
    written, in that order. A file already there is replaced, so re-running after an upgrade refreshes it."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for kind in SCHEMA_KINDS:
        target = directory / schema_name(kind)
        target.write_bytes((grammar_dir() / schema_name(kind)).read_bytes())
        written.append(target)
    return written


def schema_line(yaml_file: Path, schema: Path) -> str:
    """The first line of a rule file that points an editor at `schema`, relative to the file."""
    relative = Path(os.path.relpath(Path(schema).resolve(), Path(yaml_file).resolve().parent)).as_posix()
    return f"# yaml-language-server: $schema={relative}"


__all__ = ["SCHEMA_KINDS", "schema_line", "schema_name", "write_schemas"]
