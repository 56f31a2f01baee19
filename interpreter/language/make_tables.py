"""Regenerate the parser's shipped tables after a grammar change:  python -m boardrules.language.make_tables

A module of its own because it needs both the parser (for the transformer whose methods the tables name) and the
tables module, which the parser imports.
"""

from __future__ import annotations

import importlib

from . import lalr_tables, regex_code
from .parser import lark_transformer
from .tables import LALR_FILE, TABLES_FILE, generate, grammar_text, lalr_source


def main() -> None:
    text = grammar_text()
    TABLES_FILE.write_text(generate(text), encoding="utf-8")
    LALR_FILE.write_text(lalr_source(text, lark_transformer()), encoding="utf-8")
    importlib.reload(lalr_tables)  # the lexers' patterns as just written
    regex_code.write()
    print(f"wrote {TABLES_FILE}, {LALR_FILE} and {regex_code.TABLE_FILE}")


if __name__ == "__main__":
    main()
