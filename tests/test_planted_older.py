"""Planted designer mistakes in the older, core parts of the language (tests/planted_packs_older/*/): how many
`check` reports at the mistake's file and line with the expected code. The misses are named, so a new catch or a
lost one shows."""

from __future__ import annotations

import re
from pathlib import Path

from boardrules.analysis import check_pack
from boardrules.diagnostics import Diagnostics
from boardrules.language.pack import discover

PACKS = Path(__file__).parent / "planted_packs_older"
MARK = re.compile(r"#\s*expect:\s*([EW]\d{3})")
# Still missed, and why.
MISSES: dict[str, str] = {}


def _planted(pack: Path) -> tuple[str, int, str]:
    found = [(path.relative_to(pack).as_posix(), i, m.group(1))
             for path in sorted(pack.rglob("*.yaml"))
             for i, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if (m := MARK.search(text))]
    assert len(found) == 1, (pack.name, found)
    return found[0]


def _caught(pack: Path) -> bool:
    file, line, code = _planted(pack)
    diags = Diagnostics()
    for found in discover([pack], diags):
        check_pack(found, diags)
    assert not any(d.code == "E900" for d in diags.items), pack.name
    return any(d.code == code and d.span is not None and d.span.line == line
               and Path(d.span.file).as_posix().endswith(f"{pack.name}/{file}") for d in diags.items)


def test_planted_mistakes_are_caught_at_their_line() -> None:
    packs = sorted(p for p in PACKS.iterdir() if p.is_dir())
    assert len(packs) == 30
    missed = {pack.name for pack in packs if not _caught(pack)}
    assert missed == set(MISSES), missed
