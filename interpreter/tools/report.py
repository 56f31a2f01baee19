"""The pack report: one self-contained HTML page (inline CSS and script, nothing fetched).

It holds the explained rules (explain.py) with a table of contents; links from a rule to the events it raises,
from an event to the rules that raise it and the triggers that hear it, and from a rule to the procedures it
carries out; the `check` findings next to the rules they concern; the unknown values with the rules that need
them; and the coverage of the pack's scenarios coloured on every rule and line.

Coverage comes from running the pack's scenarios while the page is built (the same run `boardrules test
--coverage` makes), so the page never shows a stale file's figures.
"""

from __future__ import annotations

import html
from typing import Any

from ..analysis import unknowns
from ..diagnostics import Diagnostic, Diagnostics
from ..language.linker import Module
from ..language.pack import Pack, link
from . import coverage
from .explain import Document, Entry, build
from .prose import Line
from .scenario import ScenarioRunner

CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
nav{position:fixed;top:0;left:0;bottom:0;width:270px;overflow:auto;background:#f0f0f3;border-right:1px solid #ddd;
  padding:12px;font-size:13px;box-sizing:border-box}
nav ol{padding-left:18px;margin:4px 0}nav a{color:#234;text-decoration:none}nav a:hover{text-decoration:underline}
main{margin-left:270px;padding:16px 32px;max-width:980px}
h1{font-size:24px}h2{border-bottom:2px solid #ccd;padding-bottom:4px;margin-top:36px}
.entry{background:#fff;border:1px solid #ddd;border-left:6px solid #bbb;border-radius:4px;margin:14px 0;
  padding:8px 14px}
.entry.full{border-left-color:#2a8a3a}.entry.part{border-left-color:#d89a00}.entry.none{border-left-color:#c0392b}
.entry h3{margin:4px 0;font-size:17px}.id{color:#667;font:12px monospace;margin-left:8px}
.cov{float:right;font-size:12px;padding:2px 6px;border-radius:3px;background:#eee}
.full .cov{background:#dff3e2}.part .cov{background:#fff1cc}.none .cov{background:#f8d7d3}
.l{padding:1px 0 1px 6px;border-left:3px solid transparent}.l.ran{border-left-color:#7bc68a}
.l.missed{border-left-color:#e0786b;background:#fdf0ee}
.yaml{display:none;font:12px monospace;color:#555;margin-left:12px}.quote .yaml{display:block}
.src{color:#555;font-size:13px;margin-top:6px}.where{font:12px monospace;color:#667}
.finding{font:13px monospace;padding:4px 8px;margin:6px 0;border-radius:3px;white-space:pre-wrap}
.finding.error{background:#f8d7d3}.finding.warning{background:#fff1cc}
.before{color:#777;text-decoration:line-through}.change{color:#7a4b00;font-size:13px}
.legend span{margin-right:14px}.tools{margin:10px 0}
"""

SCRIPT = """
document.getElementById('quote').addEventListener('change', function (e) {
  document.body.classList.toggle('quote', e.target.checked);
});
document.getElementById('missed').addEventListener('change', function (e) {
  var only = e.target.checked;
  document.querySelectorAll('.entry').forEach(function (el) {
    el.style.display = only && !el.classList.contains('part') && !el.classList.contains('none') ? 'none' : '';
  });
});
"""

SECTIONS = ("components", "setup", "flow", "actions", "triggers", "procedures", "scoring", "unknowns")


def findings(modules: dict[str, Module], roots: list[str]) -> list[Diagnostic]:
    """What `check` says of this composition: each module with what it requires, then all together."""
    diags = Diagnostics()
    for mid in roots:
        rules = link(modules, [mid], diags)
        unknowns(rules, diags)
    link(modules, roots, diags)
    return diags.sorted()


def run_coverage(pack: Pack, modules: dict[str, Module]) -> tuple[set[Any], dict[str, coverage.RuleCoverage], str]:
    runner = ScenarioRunner(modules)
    runner.trace = set()
    passed = sum(runner.run_file(path).passed for path in pack.scenario_files)
    per_rule: dict[str, coverage.RuleCoverage] = {}
    for rules in coverage.measure(modules, runner.trace).values():
        for name, rc in rules.items():
            if name in per_rule:
                per_rule[name].points += rc.points
                per_rule[name].ran |= rc.ran
            else:
                per_rule[name] = rc
    return runner.trace, per_rule, f"{passed} of {len(pack.scenario_files)} scenarios pass"


class _Page:
    def __init__(self, doc: Document, ran: set[Any], per_rule: dict[str, coverage.RuleCoverage],
                 found: list[Diagnostic], summary: str) -> None:
        self.doc, self.ran, self.per_rule, self.summary = doc, ran, per_rule, summary
        self.ids = {e.id for sec in doc.sections for e in sec.entries} | {sec.id for sec in doc.sections}
        self.found = self._attach(found)

    def _attach(self, found: list[Diagnostic]) -> dict[str, list[Diagnostic]]:
        """Each finding goes to the entry at its place: the one declared on that line, else the last entry
        declared above it in the same file."""
        starts = sorted((e.span.file, e.span.line, e.id) for sec in self.doc.sections for e in sec.entries
                        if e.span is not None)
        out: dict[str, list[Diagnostic]] = {}
        for d in found:
            target = "other"
            if d.span is not None:
                exact = [i for f, line, i in starts if f == d.span.file and line == d.span.line]
                above = [i for f, line, i in starts if f == d.span.file and line <= d.span.line]
                target = (exact or above or ["other"])[-1] if not exact else exact[0]
                if exact and any(i.startswith("unknown.") for i in exact):
                    target = next(i for i in exact if i.startswith("unknown."))
            out.setdefault(target, []).append(d)
        return out

    def link(self, target: str, text: str) -> str:
        if target in self.ids:
            return f'<a href="#{html.escape(target)}">{html.escape(text)}</a>'
        return html.escape(text)

    def line(self, line: Line) -> str:
        text = html.escape(line.text)
        for kind, name in line.refs:
            target = {"event": f"events.{name}", "procedure": f"procedures.{name}", "rule": name,
                      "value": f"unknown.{name}"}[kind]
            if target in self.ids:
                shown = html.escape(name.replace("_", " ") if kind != "rule" else name)
                text = text.replace(shown, f'<a href="#{html.escape(target)}">{shown}</a>', 1)
        key = line.branch if line.branch is not None else line.span
        state = ""
        if key is not None and self.per_rule is not None and self._counted(key):
            state = " ran" if key in self.ran else " missed"
        yaml = (f'<span class="yaml">{html.escape(" ".join(line.span.text.split()))}</span>'
                if line.span is not None and line.span.text and line.branch is None else "")
        where = f' title="{html.escape(f"{line.span.file}:{line.span.line}")}"' if line.span else ""
        return f'<div class="l{state}" style="margin-left:{line.depth * 22}px"{where}>{text}{yaml}</div>'

    def _counted(self, key: Any) -> bool:
        return key in self._points

    @property
    def _points(self) -> set[Any]:
        if not hasattr(self, "_keys"):
            self._keys = {p.key for rc in self.per_rule.values() for p in rc.points}
        return self._keys

    def entry(self, e: Entry) -> str:
        rc = self.per_rule.get(e.id)
        cls, badge = "", ""
        if rc is not None and rc.points:
            run = sum(1 for p in rc.points if p.key in rc.ran)
            total = len(rc.points)
            cls = "full" if run == total else "none" if run == 0 else "part"
            lr, lt = rc.count("line")
            br, bt = rc.count("branch")
            badge = f'<span class="cov">lines {lr}/{lt}, branches {br}/{bt}</span>'
        out = [f'<div class="entry {cls}" id="{html.escape(e.id)}">{badge}',
               f'<h3>{html.escape(e.title)}<span class="id">{html.escape(e.id)}</span></h3>']
        if e.change:
            out.append(f'<div class="change">{html.escape(e.change)}</div>')
        if e.before:
            out.append('<div class="before">' + "".join(self.line(x) for x in e.before) + "</div>")
        out += [self.line(x) for x in e.lines]
        for d in self.found.get(e.id, []):
            out.append(f'<div class="finding {d.severity}">{html.escape(f"{d.span}: {d.severity} {d.code}: ")}'
                       f"{html.escape(d.message)}</div>")
        tail = []
        if e.source:
            tail.append(f"Source: {html.escape(e.source)}")
        if e.span is not None:
            tail.append(f'<span class="where">{html.escape(f"{e.span.file}:{e.span.line}")}</span>')
        if tail:
            out.append('<div class="src">' + " — ".join(tail) + "</div>")
        out.append("</div>")
        return "\n".join(out)

    def render(self) -> str:
        doc = self.doc
        toc = ["<nav><strong>Contents</strong><ol>"]
        body = [f"<h1>{html.escape(doc.title)}</h1>",
                f"<p>Modules: {html.escape(', '.join(doc.modules))}. Coverage: {html.escape(self.summary)}.</p>",
                '<p class="legend"><span style="color:#2a8a3a">&#9632; every line and branch run</span>'
                '<span style="color:#d89a00">&#9632; partly run</span>'
                '<span style="color:#c0392b">&#9632; never run</span></p>',
                '<div class="tools"><label><input type="checkbox" id="quote"> show the YAML of each line</label> '
                '<label><input type="checkbox" id="missed"> only rules not fully run</label></div>']
        for n, sec in enumerate(doc.sections, 1):
            toc.append(f'<li><a href="#{sec.id}">{html.escape(sec.title)}</a><ol>')
            toc += [f'<li><a href="#{html.escape(e.id)}">{html.escape(e.title)}</a></li>' for e in sec.entries]
            toc.append("</ol></li>")
            body.append(f'<section id="{sec.id}"><h2>{n}. {html.escape(sec.title)}</h2>')
            if sec.intro:
                body.append(f"<p>{html.escape(sec.intro)}</p>")
            body += [self.entry(e) for e in sec.entries]
            body.append("</section>")
        if self.found.get("other"):
            toc.append('<li><a href="#findings">Other findings</a></li>')
            body.append('<section id="findings"><h2>Other findings</h2>')
            body += [f'<div class="finding {d.severity}">{html.escape(f"{d.span}: {d.severity} {d.code}: {d.message}")}'
                     "</div>" for d in self.found["other"]]
            body.append("</section>")
        toc.append("</ol></nav>")
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{html.escape(doc.title)}</title><style>{CSS}</style></head><body>\n"
                + "\n".join(toc) + "\n<main>\n" + "\n".join(body) + "\n</main>\n"
                f"<script>{SCRIPT}</script>\n</body></html>\n")


def render(pack: Pack, modules: dict[str, Module], roots: list[str]) -> str:
    doc = build(modules, roots)
    ran, per_rule, summary = run_coverage(pack, modules)
    return _Page(doc, ran, per_rule, findings(modules, roots), summary).render()
