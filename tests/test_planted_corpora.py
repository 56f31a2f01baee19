"""Corpora of planted designer mistakes, one mistake per pack (tests/planted_packs*/NAME/), its line marked
`# expect: CODE`: how many `check` reports at the mistake's file and line with that code. The misses are named per
corpus, so a new catch or a lost one shows.

- planted_packs: the newer constructs, written by people who knew the checker;
- planted_packs_blind, planted_packs_fresh: the newer constructs, each written from the docs and packs only,
  without reading the checker, then scored once before any fix (the first scores are in their READMEs);
- planted_packs_older: the older, core language, written the same blind way.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from boardrules.analysis import check_pack
from boardrules.diagnostics import Diagnostics
from boardrules.language.pack import discover

TESTS = Path(__file__).parent
MARK = re.compile(r"#\s*expect:\s*([EW]\d{3})")
# corpus -> (how many packs, the packs still missed and what check says instead)
CORPORA: dict[str, tuple[int, dict[str, str]]] = {
    "planted_packs": (26, {}),
    "planted_packs_blind": (25, {}),
    "planted_packs_fresh": (25, {
        "trigger_renown_loop": "E850 at base.yaml:109, the trigger's on: (where the docs say it is reported, and "
                               "where the other corpora mark it), not at the do: line that closes the loop",
    }),
    "planted_packs_older": (30, {}),
}


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


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_planted_mistakes_are_caught_at_their_line(corpus: str) -> None:
    count, misses = CORPORA[corpus]
    packs = sorted(p for p in (TESTS / corpus).iterdir() if p.is_dir())
    assert len(packs) == count
    missed = {pack.name for pack in packs if not _caught(pack)}
    assert missed == set(misses), missed
