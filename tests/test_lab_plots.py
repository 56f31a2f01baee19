"""The balance section of the HTML report: metrics and four plots as inline SVG, looked at in headless Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from boardrules.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
ARTEFACTS = ROOT / "tests" / "artefacts"
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
SVG = "{http://www.w3.org/2000/svg}"

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("plots") / "relay.html"
    code = main(["simulate", str(ROOT / "tests" / "packs" / "relay"), "--games", "30", "--set", "prize=4",
                 "--no-save", "--report", str(out)])
    assert code == 0
    return out


def _svgs(html: str) -> list[ET.Element]:
    return [ET.fromstring(m) for m in re.findall(r"<svg class=\"plot\".*?</svg>", html, re.DOTALL)]


def test_the_report_holds_four_plots_that_are_not_empty(page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["'](https?:)?//""", html)  # nothing fetched
    plots = _svgs(html)
    assert [p.get("aria-label") for p in plots] == [
        "win rate per seat with 95 % intervals", "histogram of game lengths in moves",
        "box plot of final scores per seat", "firing rate of each rule with 95 % intervals"]
    for svg in plots:
        drawn = [e for e in svg.iter() if e.tag in (SVG + "path", SVG + "rect", SVG + "use")]
        assert len(drawn) > 10
    assert "actions.buy" in html and "Win rate per seat" in html
    assert re.search(r"<td>p1</td><td>\d+</td><td>[\d.]+ % \[[\d.]+ %, [\d.]+ %\]</td>", html)
    ids = set(re.findall(r'\bid="([^"]+)"', html))
    assert {h for h in re.findall(r'href="#([^"]*)"', html) if h not in ids} == set()


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)")
def test_the_plots_render_in_chromium(page: Path) -> None:
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"]
    dumped = subprocess.run([*base, "--dump-dom", page.resolve().as_uri()], capture_output=True, text=True,
                            timeout=120)
    assert dumped.returncode == 0 and "Uncaught" not in dumped.stderr
    assert len(re.findall(r'<svg class="plot"', dumped.stdout)) == 4
    ARTEFACTS.mkdir(exist_ok=True)
    shot = ARTEFACTS / "report_balance_relay.png"
    shot.unlink(missing_ok=True)
    taken = subprocess.run([*base, f"--screenshot={shot}", "--window-size=1280,1800", page.resolve().as_uri()],
                           capture_output=True, text=True, timeout=120)
    assert taken.returncode == 0 and shot.stat().st_size > 30_000, taken.stderr[-2000:]
    # the plots are drawn: many pixels have the bars' blue (a page whose plots failed has none)
    from matplotlib.image import imread

    pixels = imread(shot)[..., :3]
    blue = abs(pixels - [0x2a / 255, 0x6f / 255, 0xb0 / 255]).sum(axis=-1) < 0.05
    assert blue.sum() > 2_000


def test_without_matplotlib_the_report_is_a_diagnostic(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    import builtins

    real = builtins.__import__

    def no_matplotlib(name: str, *args: object, **kw: object) -> object:
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    code = main(["simulate", str(ROOT / "tests" / "packs" / "relay"), "--games", "2", "--set", "prize=4",
                 "--no-save", "--report", str(tmp_path / "r.html")])
    out = capsys.readouterr().out
    assert code == 2 and "error E760" in out and "games 2" not in out  # refused before any game is played
