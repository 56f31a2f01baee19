"""The pack report: one self-contained HTML page (inline CSS and script, nothing fetched).

It holds the explained rules (explain.py) with a table of contents; links from a rule to the events it raises,
from an event to the rules that raise it and the triggers that hear it, and from a rule to the procedures it
carries out; the `check` findings next to the rules they concern; the unknown values with the rules that need
them; and the coverage of the pack's scenarios coloured on every rule and line.

Coverage comes from running the pack's scenarios while the page is built (the same run `boardrules test
--coverage` makes), so the page never shows a stale file's figures.

The page is a Jinja2 template with autoescape over a tree of plain values: every text is escaped exactly once,
where it is printed, and a link is a node of its own (a line is split into text and link segments), never a
string substituted into text that already holds markup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

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


@dataclass(frozen=True)
class Segment:
    text: str
    href: str | None = None  # an id on the page


@dataclass(frozen=True)
class ViewLine:
    depth: int
    segments: list[Segment]
    state: str  # "", "ran" or "missed"
    yaml: str | None
    where: str | None


def segments(text: str, links: list[tuple[str, str]]) -> list[Segment]:
    """`text` cut into plain and linked segments: each (shown, target) links the first whole-word occurrence of
    `shown` in text not already linked."""
    out = [Segment(text)]
    for shown, target in links:
        if not shown:
            continue
        pattern = re.compile(r"(?<!\w)" + re.escape(shown) + r"(?!\w)")
        for i, seg in enumerate(out):
            found = pattern.search(seg.text) if seg.href is None else None
            if found is None:
                continue
            parts = [Segment(seg.text[:found.start()]), Segment(found.group(), target), Segment(seg.text[found.end():])]
            out[i:i + 1] = [p for p in parts if p.text]
            break
    return out


class _Page:
    def __init__(self, doc: Document, ran: set[Any], per_rule: dict[str, coverage.RuleCoverage],
                 found: list[Diagnostic], summary: str) -> None:
        self.doc, self.ran, self.per_rule, self.summary = doc, ran, per_rule, summary
        self.ids = {e.id for sec in doc.sections for e in sec.entries} | {sec.id for sec in doc.sections}
        self.found = self._attach(found)
        self._points = {p.key for rc in per_rule.values() for p in rc.points}

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

    def line(self, line: Line) -> ViewLine:
        links = []
        for kind, name in line.refs:
            target = {"event": f"events.{name}", "procedure": f"procedures.{name}", "rule": name,
                      "value": f"unknown.{name}"}[kind]
            if target in self.ids:
                bare = name.split(".", 1)[1] if kind == "rule" and "." in name else name
                shown = name if kind == "rule" and name in line.text else bare.replace("_", " ")
                links.append((shown, target))
        key = line.branch if line.branch is not None else line.span
        state = ("ran" if key in self.ran else "missed") if key is not None and key in self._points else ""
        yaml = (" ".join(line.span.text.split()) if line.span is not None and line.span.text and line.branch is None
                else None)
        where = f"{line.span.file}:{line.span.line}" if line.span else None
        return ViewLine(line.depth, segments(line.text, links), state, yaml, where)

    def entry(self, e: Entry) -> dict[str, Any]:
        rc = self.per_rule.get(e.id)
        cls, badge = "", None
        if rc is not None and rc.points:
            run = sum(1 for p in rc.points if p.key in rc.ran)
            total = len(rc.points)
            cls = "full" if run == total else "none" if run == 0 else "part"
            lr, lt = rc.count("line")
            br, bt = rc.count("branch")
            badge = f"lines {lr}/{lt}, branches {br}/{bt}"
        return {"id": e.id, "title": e.title, "cls": cls, "badge": badge, "change": e.change,
                "before": [self.line(x) for x in e.before], "lines": [self.line(x) for x in e.lines],
                "findings": self.found.get(e.id, []), "source": e.source,
                "where": f"{e.span.file}:{e.span.line}" if e.span is not None else None}

    def render(self, extra: Markup | str = "") -> str:
        doc = self.doc
        sections = [{"id": sec.id, "title": sec.title, "intro": sec.intro,
                     "entries": [self.entry(e) for e in sec.entries]} for sec in doc.sections]
        return TEMPLATE.render(title=doc.title, modules=", ".join(doc.modules), summary=self.summary,
                               sections=sections, other=self.found.get("other", []), css=Markup(CSS),
                               script=Markup(SCRIPT), extra=extra)


_ENV = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)

_LINE = """{% macro line(l) -%}
<div class="l{{ ' ' ~ l.state if l.state }}" style="margin-left:{{ l.depth * 22 }}px"
{%- if l.where %} title="{{ l.where }}"{% endif %}>
{%- for s in l.segments %}{% if s.href %}<a href="#{{ s.href }}">{{ s.text }}</a>{% else %}{{ s.text }}{% endif %}
{%- endfor %}{% if l.yaml %}<span class="yaml">{{ l.yaml }}</span>{% endif %}</div>
{%- endmacro %}"""

TEMPLATE = _ENV.from_string(_LINE + """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title><style>{{ css }}</style></head><body>
<nav><strong>Contents</strong><ol>
{% if extra %}<li><a href="#balance">Balance</a></li>{% endif %}
{% for sec in sections %}
<li><a href="#{{ sec.id }}">{{ sec.title }}</a><ol>
{% for e in sec.entries %}
<li><a href="#{{ e.id }}">{{ e.title }}</a></li>
{% endfor %}
</ol></li>
{% endfor %}
{% if other %}<li><a href="#findings">Other findings</a></li>{% endif %}
</ol></nav>
<main>
<h1>{{ title }}</h1>
<p>Modules: {{ modules }}. Coverage: {{ summary }}.</p>
<p class="legend"><span style="color:#2a8a3a">&#9632; every line and branch run</span>\
<span style="color:#d89a00">&#9632; partly run</span><span style="color:#c0392b">&#9632; never run</span></p>
<div class="tools"><label><input type="checkbox" id="quote"> show the YAML of each line</label> \
<label><input type="checkbox" id="missed"> only rules not fully run</label></div>
{{ extra }}
{% for sec in sections %}
<section id="{{ sec.id }}"><h2>{{ loop.index }}. {{ sec.title }}</h2>
{% if sec.intro %}<p>{{ sec.intro }}</p>{% endif %}
{% for e in sec.entries %}
<div class="entry {{ e.cls }}" id="{{ e.id }}">{% if e.badge %}<span class="cov">{{ e.badge }}</span>{% endif %}
<h3>{{ e.title }}<span class="id">{{ e.id }}</span></h3>
{% if e.change %}<div class="change">{{ e.change }}</div>{% endif %}
{% if e.before %}<div class="before">{% for l in e.before %}{{ line(l) }}{% endfor %}</div>{% endif %}
{% for l in e.lines %}
{{ line(l) }}
{% endfor %}
{% for d in e.findings %}
<div class="finding {{ d.severity }}">{{ d.span }}: {{ d.severity }} {{ d.code }}: {{ d.message }}</div>
{% endfor %}
{% if e.source or e.where %}<div class="src">{% if e.source %}Source: {{ e.source }}{% endif %}\
{% if e.source and e.where %} — {% endif %}{% if e.where %}<span class="where">{{ e.where }}</span>{% endif %}</div>
{% endif %}
</div>
{% endfor %}
</section>
{% endfor %}
{% if other %}
<section id="findings"><h2>Other findings</h2>
{% for d in other %}
<div class="finding {{ d.severity }}">{{ d.span }}: {{ d.severity }} {{ d.code }}: {{ d.message }}</div>
{% endfor %}
</section>
{% endif %}
</main>
<script>{{ script }}</script>
</body></html>
""")


def render(pack: Pack, modules: dict[str, Module], roots: list[str], extra: Markup | str = "") -> str:
    """The page; `extra` is markup shown before the rules (the balance section of a simulation,
    report_balance.py)."""
    doc = build(modules, roots)
    ran, per_rule, summary = run_coverage(pack, modules)
    return _Page(doc, ran, per_rule, findings(modules, roots), summary).render(extra)
