"""The parser's tables ship inside the package; no pickle is read from or written to a shared cache."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from lark import Lark

from boardrules.language import lalr, parser, parser_tables, tables

LINES = [
    ("expr", "count(me.farm where it.age >= 2) + 1"), ("expr", "[x * 2 for x in 1..3 if x != 2]"),
    ("expr", "p1.gems[green] >= max(1, me.seat) and not (turn_player == me)"),
    ("effect", "create 2 worker in me.farm with age = 1 as made"), ("effect", "limit once[me] to 1 per turn"),
    ("effect", "choose w from me.farm where it.tired by p2 optional"), ("cost", "2 coins + 1 gems[any] or 3 grain"),
    ("for_head", "w in sorted(me.farm, it.age) desc"), ("effect", "c = 0x12"), ("expr", "1 +"), ("effect", "@"),
]


def outcome(p: object, text: str, start: str) -> str:
    try:
        return repr(p.parse(text, start=start))  # type: ignore[attr-defined]
    except Exception as exc:
        return type(exc).__name__


def test_the_shipped_tables_match_the_grammar() -> None:
    text = tables.grammar_text()
    assert tables.fingerprint(text) == parser_tables.FINGERPRINT, "run: python -m boardrules.language.make_tables"
    shipped = tables.load(text, parser.lark_transformer())
    built = Lark(text, transformer=parser.lark_transformer(), **tables.OPTIONS)
    for start, line in LINES:
        assert outcome(shipped, line, start) == outcome(built, line, start), line


def test_the_parser_is_loaded_from_the_tables_and_parses() -> None:
    p = parser._parser()
    assert p.source_path == "<deserialized>"
    assert parser.parse("count(me.farm where it.age >= 2) + 1", "expr") is not None


def test_an_edited_grammar_is_built_without_any_cache() -> None:
    p = tables.load(tables.grammar_text() + "\n// edited\n", None)
    assert p.options.cache is False and p.parse("1 + 2", start="expr") is not None


def test_check_neither_reads_nor_writes_a_pickle_in_the_temporary_directory(tmp_path: Path) -> None:
    planted = Path(tempfile.gettempdir())
    before = {p.name for p in planted.glob("*.lark*")} | {p.name for p in planted.glob("*lark_cache*")}
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    subprocess.run([sys.executable, "-m", "boardrules", "check"], env=env, capture_output=True, check=False,
                   timeout=60)
    assert list(tmp_path.iterdir()) == []
    after = {p.name for p in planted.glob("*.lark*")} | {p.name for p in planted.glob("*lark_cache*")}
    assert after <= before
    source = "".join(Path(m.__file__).read_text(encoding="utf-8") for m in (parser, tables, lalr))
    assert "cache=True" not in source and "import pickle" not in source
