"""The HTML pack report, opened in a real browser (headless Chromium)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from boardrules.tools.cli import main
from boardrules.tools.report import SECTIONS

ROOT = Path(__file__).resolve().parent.parent
ARTEFACTS = ROOT / "tests" / "artefacts"  # git-ignored: the screenshot a run leaves to look at
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


def _report(pack: str, tmp_path: Path) -> tuple[Path, str]:
    out = tmp_path / f"{pack}.html"
    assert main(["explain", str(ROOT / "rules" / pack), "--format", "html", "-o", str(out)]) == 0
    return out, out.read_text(encoding="utf-8")


def _chromium(*args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                           "--v=0", *args], capture_output=True, text=True, timeout=120)


def test_report_is_self_contained_with_links_sections_findings_and_coverage(tmp_path: Path) -> None:
    _, page = _report("lisboa", tmp_path)
    assert not re.search(r"""(src|href)=["'](https?:)?//""", page)  # nothing fetched from the network
    for section in SECTIONS:
        assert f'<section id="{section}">' in page
    # an action links to the event it raises; the event links to the trigger that hears it
    assert '<a href="#events.church_scoring">' in page
    assert '<a href="#triggers.church_scoring_at_turn_end">' in page
    assert "warning W601" in page  # check findings sit next to the unknown values they concern
    assert re.search(r'class="entry (full|part)" id="actions.build_ship"', page)  # coloured by coverage


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)")
@pytest.mark.parametrize("pack", ["lisboa", "village"])
def test_report_in_headless_chromium(pack: str, tmp_path: Path) -> None:
    path, _ = _report(pack, tmp_path)
    url = path.resolve().as_uri()
    dumped = _chromium("--dump-dom", url)
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    console = [ln for ln in dumped.stderr.splitlines() if "CONSOLE" in ln or "Uncaught" in ln]
    assert not console, console
    dom = dumped.stdout
    ids = set(re.findall(r'\bid="([^"]+)"', dom))
    broken = {h for h in re.findall(r'href="#([^"]*)"', dom) if h not in ids}
    assert not broken, f"broken internal links: {sorted(broken)}"
    for section in SECTIONS:
        assert section in ids, f"missing section {section}"
    ARTEFACTS.mkdir(exist_ok=True)
    shot = ARTEFACTS / f"report_{pack}.png"
    taken = _chromium(f"--screenshot={shot}", "--window-size=1280,1600", url)
    assert taken.returncode == 0 and shot.stat().st_size > 10_000, taken.stderr[-2000:]
