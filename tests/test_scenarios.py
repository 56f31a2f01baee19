"""Every scenario file in the repository runs as a pytest test, so `pytest` proves each rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardrules.diagnostics import Diagnostics
from boardrules.language.pack import discover, load_modules
from boardrules.tools.scenario import ScenarioRunner

ROOT = Path(__file__).resolve().parent.parent
PACK_DIRS = [ROOT / "rules", ROOT / "examples", ROOT / "tests" / "packs" / "harvest",
             ROOT / "tests" / "packs" / "payments"]

_runners: dict[Path, ScenarioRunner] = {}


def _cases() -> list[tuple[Path, Path]]:
    packs = discover([p for p in PACK_DIRS if p.exists()], Diagnostics())
    return [(pack.root, f) for pack in packs for f in pack.scenario_files]


def _runner(root: Path) -> ScenarioRunner:
    if root not in _runners:
        _runners[root] = ScenarioRunner(load_modules(sorted(root.glob("*.yaml")), Diagnostics()))
    return _runners[root]


@pytest.mark.parametrize(("root", "path"), _cases(), ids=lambda v: str(v.relative_to(ROOT)) if v else "")
def test_scenario(root: Path, path: Path) -> None:
    result = _runner(root).run_file(path)
    assert result.passed, "\n".join(result.failures)


def test_every_pack_has_scenarios() -> None:
    roots = {root for root, _ in _cases()}
    assert {ROOT / "rules" / "village", ROOT / "rules" / "lisboa", ROOT / "examples" / "market"} <= roots
