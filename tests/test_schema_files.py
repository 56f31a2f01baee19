"""Schema files copied beside a pack, and the schema lines that point at them."""

from __future__ import annotations

import json
from pathlib import Path

from boardrules.resources import grammar_dir
from boardrules.tools.schema_files import schema_line, write_schemas


def test_write_schemas_copies_both_schemas_byte_for_byte(tmp_path: Path) -> None:
    written = write_schemas(tmp_path / "schemas")
    assert [p.name for p in written] == ["module.schema.json", "scenario.schema.json"]
    for path in written:
        assert path.read_bytes() == (grammar_dir() / path.name).read_bytes()
        assert json.loads(path.read_text(encoding="utf-8"))["$schema"].startswith("https://json-schema.org/")


def test_write_schemas_replaces_a_stale_copy(tmp_path: Path) -> None:
    (tmp_path / "module.schema.json").write_text("{}", encoding="utf-8")
    write_schemas(tmp_path)
    assert (tmp_path / "module.schema.json").read_bytes() == (grammar_dir() / "module.schema.json").read_bytes()


def test_schema_line_is_relative_to_the_yaml_file(tmp_path: Path) -> None:
    schema = tmp_path / "schemas" / "scenario.schema.json"
    assert schema_line(tmp_path / "pack" / "scenarios" / "a.yaml", schema) == \
        "# yaml-language-server: $schema=../../schemas/scenario.schema.json"
    assert schema_line(tmp_path / "x.yaml", tmp_path / "module.schema.json") == \
        "# yaml-language-server: $schema=module.schema.json"
