"""The HTML report is built from a tree: every text escaped once, every link a well-formed node (issue 18.13)."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from boardrules.diagnostics import Span
from boardrules.tools.explain import Document, Entry, Section
from boardrules.tools.prose import Line
from boardrules.tools.report import _Page, segments

ROOT = Path(__file__).resolve().parent.parent


class _Reader(HTMLParser):
    """Text per element with class "l", the anchors, and whether an anchor ever opened inside another."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth_a = 0
        self.nested = False
        self.hrefs: list[str] = []
        self.ids: set[str] = set()
        self.lines: list[str] = []
        self.titles: list[str] = []
        self._in_line = 0
        self._in_h3 = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"] or "")
        if tag == "a":
            self.nested |= self.depth_a > 0
            self.depth_a += 1
            self.hrefs.append(a.get("href") or "")
        if tag == "div" and (a.get("class") or "").split()[:1] == ["l"]:
            self._in_line = 1
            self.lines.append("")
        elif tag == "div" and self._in_line:
            self._in_line += 1
        if tag == "span" and a.get("class") in ("id", "yaml"):
            self._skip = True
        if tag == "h3":
            self._in_h3 = True
            self.titles.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self.depth_a -= 1
        if tag == "div" and self._in_line:
            self._in_line -= 1
        if tag == "span":
            self._skip = False
        if tag == "h3":
            self._in_h3 = False

    def handle_data(self, data: str) -> None:
        if getattr(self, "_skip", False):
            return
        if self._in_line:
            self.lines[-1] += data
        if self._in_h3:
            self.titles[-1] += data


def _page(text: str, refs: list[tuple[str, str]], title: str = "T") -> str:
    span = Span("<p>&.yaml", 3, 1)
    targets = [Entry(f"unknown.{n}", n, [Line(0, n)], None) for _, n in refs]
    entry = Entry("actions.x", title, [Line(0, text, span, refs)], span, source='"a" <b>&lt;</b>')
    doc = Document(title, ["m"], [Section("actions", "Actions", [entry]), Section("unknowns", "U", targets)],
                   None)  # type: ignore[arg-type]
    return _Page(doc, set(), {}, [], "0 of 0 <i>").render()


def test_the_old_failure_names_that_are_also_markup() -> None:
    # text replacement made `C<a <a href="#unknown.href">` here: a name equal to markup inserted before it
    page = _page("Cost: a a and href & <b>bold</b>", [("value", "a"), ("value", "href")], title="<script>x</script>")
    r = _Reader()
    r.feed(page)
    assert not r.nested and r.hrefs.count("#unknown.a") >= 1 and "#unknown.href" in r.hrefs
    assert r.lines[0] == "Cost: a a and href & <b>bold</b>"  # escaped once: the text reads back as written
    assert r.titles[0] == "<script>x</script>"
    assert "<script>x</script>" not in page and "&amp;amp;" not in page
    assert "&lt;b&gt;&amp;lt;&lt;/b&gt;" in page  # the source, with its own entity, escaped once
    assert all(h[1:] in r.ids for h in r.hrefs if h.startswith("#"))


names = st.text(alphabet="ab<>&\"' _", min_size=1, max_size=6).filter(lambda s: s.strip() == s and s.strip())


@given(st.text(alphabet="ab<>&\"' _.-", max_size=40), st.lists(names, max_size=4, unique=True))
def test_any_text_with_any_links_reads_back_exactly(text: str, links: list[str]) -> None:
    page = _page(text, [("value", n) for n in links])
    r = _Reader()
    r.feed(page)
    assert not r.nested
    assert r.lines[0] == text
    assert all(h[1:] in r.ids for h in r.hrefs if h.startswith("#"))


@given(st.text(alphabet="ab _", max_size=30), st.lists(st.text(alphabet="ab ", min_size=1, max_size=3), max_size=4))
def test_segments_keep_the_text_and_link_whole_words(text: str, shown: list[str]) -> None:
    segs = segments(text, [(s, f"t{i}") for i, s in enumerate(shown)])
    assert "".join(s.text for s in segs) == text
    for s in segs:
        if s.href is not None:
            assert s.text == shown[int(s.href[1:])]
    assert len({s.href for s in segs if s.href}) == sum(1 for s in segs if s.href)  # each link at most once


def test_the_lisboa_report_has_no_nested_or_broken_links(tmp_path: Path) -> None:
    from boardrules.tools.cli import main

    out = tmp_path / "r.html"
    assert main(["explain", str(ROOT / "rules" / "lisboa"), "--format", "html", "-o", str(out)]) == 0
    r = _Reader()
    r.feed(out.read_text(encoding="utf-8"))
    assert not r.nested and len(r.hrefs) > 50
    assert {h for h in r.hrefs if h[1:] not in r.ids} == set()
    assert not any("<a" in line or "&lt;a" in line for line in r.lines)
