"""The balance section of the HTML report (`simulate --report FILE`): the metrics of the simulated games with
their intervals, and four plots (win rate per seat, game length, score spread, rule firing) as inline SVG."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

from . import plots

CSS = """
#balance table{border-collapse:collapse;margin:8px 0 16px;background:#fff}
#balance td,#balance th{border:1px solid #ddd;padding:3px 8px;font-size:13px;text-align:left}
#balance th{background:#f0f0f3}#balance .plots{display:flex;flex-wrap:wrap;gap:12px}
#balance figure{margin:0;background:#fff;border:1px solid #ddd;padding:6px}
#balance svg.plot{max-width:100%;height:auto}
"""

_TEMPLATE = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True).from_string("""
{% macro pct(v) %}{{ '%.1f' % (v * 100) }} %{% endmacro %}
{% macro ci(c) %}{{ pct(c.rate) }} [{{ pct(c.low) }}, {{ pct(c.high) }}]{% endmacro %}
<style>{{ css }}</style>
<section id="balance"><h2>Balance</h2>
<p>{{ b.finished }} finished of {{ b.games }} simulated games ({{ setup }}); 95 % intervals (Wilson for rates,
normal approximation for means).</p>
<div class="plots">
{% for title, svg in plots %}<figure data-plot="{{ title }}">{{ svg }}</figure>
{% endfor %}
</div>
<h3>Seats</h3>
<table><tr><th>seat</th><th>wins</th><th>win rate [95 % interval]</th>
<th>score: mean [interval], median, 10-90 %</th></tr>
{% for seat, c in b.seats.items() %}{% set s = b.scores[seat] %}
<tr><td>{{ seat }}</td><td>{{ c.count }}</td><td>{{ ci(c) }}</td>
<td>{% if s.n %}{{ s.mean }} [{{ s.low }}, {{ s.high }}], {{ s.median }}, {{ s.p10 }}-{{ s.p90 }}{% endif %}</td></tr>
{% endfor %}
</table>
{% if b.first_player %}<p>First-player advantage: {{ '%+.1f' % (b.first_player.advantage * 100) }} points over
a fair {{ pct(b.first_player.fair) }}{% if b.first_player.significant %} (significant: outside
{{ b.first_player.seat }}'s interval){% endif %}.
Decisive games {{ ci(b.decisive) }}; draws {{ ci(b.draws) }}.</p>{% endif %}
<h3>Length and branching</h3>
<table><tr><th></th><th>median</th><th>10-90 %</th><th>min-max</th><th>mean [95 % interval]</th><th>sd</th></tr>
{% for label, s in [("moves", b.length.moves), ("decisions", b.length.decisions), ("winning margin", b.margin)] %}
{% if s.n %}<tr><td>{{ label }}</td><td>{{ s.median }}</td><td>{{ s.p10 }}-{{ s.p90 }}</td>
<td>{{ s.min }}-{{ s.max }}</td>
<td>{{ s.mean }} [{{ s.low }}, {{ s.high }}]</td><td>{{ s.sd }}</td></tr>{% endif %}
{% endfor %}
</table>
<table><tr><th>phase</th><th>move decisions</th><th>of them listed</th><th>mean moves to choose from</th></tr>
{% for phase, c in b.branching.items() %}<tr><td>{{ phase }}</td><td>{{ c.decisions }}</td>
<td>{{ c.listed }}</td><td>{{ c.mean }}</td></tr>
{% endfor %}
</table>
<h3>Rules</h3>
<table><tr><th>rule</th><th>games it ran in [95 %]</th><th>runs per game</th><th>winners' moves</th>
<th>losers' moves</th></tr>
{% for name, c in b.rules.items() %}
<tr><td>{% if name in ids %}<a href="#{{ name }}">{{ name }}</a>{% else %}{{ name }}{% endif %}</td>
<td>{{ ci(c) }}</td><td>{{ c.per_game }}</td>
<td>{% if c.winners %}{{ ci(c.winners) }}{% endif %}</td><td>{% if c.losers %}{{ ci(c.losers) }}{% endif %}</td></tr>
{% endfor %}
</table>
</section>
""")


def section(report: dict[str, Any], setup: str, ids: set[str] | frozenset[str] = frozenset()) -> Markup:
    """The balance section of a simulate report (with its rows); a rule links to its entry when `ids` has it."""
    b, rows = report["balance"], report["rows"]
    drawn = [("win rates", plots.win_rates(b)), ("game length", plots.lengths(rows)),
             ("score spread", plots.scores(rows)), ("rule firing", plots.rules(b))]
    return Markup(_TEMPLATE.render(b=b, plots=[(t, Markup(svg)) for t, svg in drawn], css=Markup(CSS), setup=setup,
                                   ids=ids))


def write(path: str | Path, pack_dir: str | Path, roots: list[str], report: dict[str, Any], setup: str) -> Path:
    """The pack report (report.py) with the balance section appended."""
    from ..diagnostics import Diagnostics
    from ..language.pack import discover, load_modules
    from .explain import build
    from .report import render

    plots.require()
    diags = Diagnostics()
    pack = next(p for p in discover([Path(pack_dir)], diags) if p.module_files)
    modules = load_modules(pack.module_files, diags)
    doc = build(modules, roots)
    ids = {e.id for sec in doc.sections for e in sec.entries}
    page = render(pack, modules, roots, section(report, setup, ids))
    out = Path(path)
    out.write_text(page, encoding="utf-8")
    return out


__all__ = ["section", "write"]
