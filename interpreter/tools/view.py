"""`boardrules view SAVE_OR_LOG`: one self-contained HTML page to watch a game decision by decision.

The game (a `play` save, checked by `Game.deserialize`, or a `simulate` failure log) is played again through the
step API from its seed and log, and the state is recorded after every decision as a patch of what changed. The
page holds that data as JSON and a small script: a slider (and the log beside it) steps through every decision,
showing the zones with their pieces and properties, the counters per player, the flow, and the pending decision
with its options, the one taken and the rule line that asked. Nothing is fetched.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

from ..diagnostics import BoardrulesError
from ..engine.rules import Rules
from ..game import CHANCE, Game, Option, Pending
from ..saves import FAILURE_FORMAT, SAVE_FORMAT
from .game_files import save_text

_FLOW_VARS = ("round", "phase", "turn_player", "start_player", "game_over")


@dataclass
class Watched:
    """A game to show: its rules and how it was played, and what the file says happened at its end."""

    rules: Rules
    players: int
    seed: int
    log: list[dict[str, Any]]
    title: str
    failure: dict[str, Any] | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    ranking: list[dict[str, Any]] | None = None  # at the end of a finished game


def read(path: Path) -> Watched:
    """A save or a failure log (through `Game.deserialize`, which checks it); anything else is E761."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BoardrulesError("E761", f"cannot read {path} as a saved game or a simulate failure log: {exc}") from None
    kind = data.get("format") if isinstance(data, dict) else None
    if kind not in (SAVE_FORMAT, FAILURE_FORMAT):
        raise BoardrulesError("E761", f"{path} is neither a saved game ({SAVE_FORMAT}) nor a simulate failure log "
                              f"({FAILURE_FORMAT})", None, "view a file written by `play` (s FILE) or by `simulate`")
    game = Game.deserialize(save_text(path))
    log = game.log
    opened = json.loads(game.serialize()).get("open")
    if opened:  # a move half made: its answers so far are decisions too
        log = [*log, opened]
    if kind == FAILURE_FORMAT:
        failure = {k: data.get(k) for k in ("kind", "rule", "where", "message")}
        return Watched(game.rules, len(game.players), game.seed, log, f"{Path(path).name}: a failed simulated game",
                       failure)
    return Watched(game.rules, len(game.players), game.seed, log, f"{Path(path).name}: a saved game")


def flat(game: Game) -> dict[str, Any]:
    """The state as key -> plain value, so two states differ by a small patch."""
    st = game.state.to_json()
    out: dict[str, Any] = {}
    for name, value in st["counters"].items():
        out[f"c:{name}"] = value
    for name, zone in st["zones"].items():
        out[f"z:{name}"] = zone["contents"]
    for pid, piece in st["pieces"].items():
        out[f"p:{pid}"] = {"kind": piece["kind"], "zone": piece["zone"], "slot": piece.get("slot"),
                           "props": piece.get("props") or {}}
    for name, marker in st["markers"].items():
        out[f"m:{name}"] = marker
    for name in _FLOW_VARS:
        value = st["vars"].get(name)
        if name == "phase" and isinstance(value, int) and game.rules.flow is not None:
            phases = game.rules.flow.phases
            value = phases[value].name if 0 <= value < len(phases) else None
        out[f"v:{name}"] = value
    return out


def patch(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    changed = {k: v for k, v in after.items() if before.get(k, _MISSING) != v}
    return {"set": changed, "del": sorted(before.keys() - after.keys())}


_MISSING = object()


def _decision(p: Pending, chosen: Option | None) -> dict[str, Any]:
    return {"player": p.player, "kind": p.kind, "prompt": p.prompt, "rule": p.rule, "source": p.source,
            "options": [o.label for o in p.options], "chosen": None if chosen is None else chosen.label}


def walk(w: Watched) -> Watched:
    """Play the log again decision by decision, recording the state after each (E761 if it does not replay)."""
    setup = w.log[0] if w.log and w.log[0].get("kind") == "setup" else {}
    if not setup.get("flow"):
        raise BoardrulesError("E761", "view shows games played with the pack's flow; this one was free play")
    game = Game(w.rules, w.players, w.seed, flow=True, chance=str(setup.get("chance_mode", "step")))
    game.setup()
    entries = [e for e in w.log[1:] if e.get("kind") in ("move", "skip")]
    answers = list(setup.get("answers", []))
    state = flat(game)
    steps: list[dict[str, Any]] = [{"patch": {"set": state, "del": []}, "decision": None}]
    while not game.is_terminal():
        p = game.pending()
        if p is None:
            break
        if p.kind == "move":
            while entries and entries[0].get("kind") == "skip":
                entries.pop(0)  # a turn the game passed by itself, asking nothing
            if not entries:
                break  # the log ends here: this is the decision the game waits for
            entry = entries.pop(0)
            want = {"action": entry.get("action"), "params": entry.get("params", {})}
            answers = list(entry.get("answers", []))
        else:
            if not answers and entries and entries[0].get("kind") == "skip":
                answers = list(entries.pop(0).get("answers", []))  # a passed turn that asked (chance, say)
            if not answers:
                break
            want = answers.pop(0)
        chosen = next((o for o in p.options if o.value == want), None)
        if chosen is None:
            raise BoardrulesError("E761", f"the log does not replay: {want!r} is not an option of '{p.prompt}'")
        steps[-1]["decision"] = _decision(p, chosen)
        game.apply(chosen.id)
        now = flat(game)
        steps.append({"patch": patch(state, now), "decision": None})
        state = now
    end = game.pending() if not game.is_terminal() else None
    if end is not None:
        steps[-1]["decision"] = _decision(end, None)
    w.steps = steps
    w.ranking = game.ranking() if game.is_terminal() else None
    return w


def render(w: Watched) -> str:
    data = {"title": w.title, "players": [f"p{i}" for i in range(1, w.players + 1)], "seed": w.seed,
            "modules": w.rules.modules, "failure": w.failure, "steps": w.steps,
            "ranking": w.ranking, "chance": CHANCE}
    # JSON inside <script>: "<" escaped so no text in it can close the element
    payload = json.dumps(data, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c")
    return TEMPLATE.render(title=w.title, data=Markup(payload), css=Markup(CSS), script=Markup(SCRIPT))


def view(path: Path) -> str:
    return render(walk(read(path)))


CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{position:sticky;top:0;background:#fff;border-bottom:1px solid #ddd;padding:10px 18px;z-index:1}
h1{font-size:18px;margin:0 0 6px}#slider{width:70%}#pos{font:13px monospace;margin-left:8px}
.wrap{display:flex;gap:16px;padding:12px 18px}.col{flex:1;min-width:0}.log{width:340px;flex:none}
table{border-collapse:collapse;margin:6px 0 14px;background:#fff}td,th{border:1px solid #ddd;padding:3px 8px;
  text-align:left;font-size:13px}th{background:#f0f0f3}.changed{background:#fff1cc}
.piece{display:inline-block;border:1px solid #ccd;border-radius:3px;padding:0 5px;margin:1px;background:#fff;
  font-size:12px}.piece small{color:#667}.decision{background:#fff;border:1px solid #ddd;border-left:5px solid
  #2a6fb0;padding:8px 12px;margin-bottom:12px}.decision .rule{font:12px monospace;color:#555}
.decision li.chosen{font-weight:bold;color:#2a6fb0}.failure{background:#f8d7d3;padding:8px 12px;margin:8px 0}
.log ol{font-size:12px;padding-left:28px;max-height:75vh;overflow:auto}.log li{cursor:pointer}
.log li.here{background:#dbe8f6}
"""

SCRIPT = r"""
var D = JSON.parse(document.getElementById('game').textContent);
var slider = document.getElementById('slider');
slider.max = D.steps.length - 1;
var cache = {i: -1, s: {}};
function stateAt(k) {
  if (k < cache.i) cache = {i: -1, s: {}};
  var s = cache.s;
  for (var i = cache.i + 1; i <= k; i++) {
    var p = D.steps[i].patch;
    for (var key in p.set) s[key] = p.set[key];
    p.del.forEach(function (key) { delete s[key]; });
  }
  cache = {i: k, s: s};
  return s;
}
function el(tag, attrs, text) {
  var e = document.createElement(tag);
  for (var a in attrs || {}) e.setAttribute(a, attrs[a]);
  if (text !== undefined) e.textContent = text;
  return e;
}
function show(v) { return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v); }
function render(k) {
  var s = stateAt(k), changed = k > 0 ? D.steps[k].patch.set : {};
  document.getElementById('pos').textContent = 'decision ' + k + ' of ' + (D.steps.length - 1);
  var flow = document.getElementById('flow'); flow.textContent = '';
  ['round', 'phase', 'turn_player', 'start_player', 'game_over'].forEach(function (v) {
    var x = s['v:' + v];
    if (x !== null && x !== undefined) flow.appendChild(el('span', {'data-key': 'v:' + v}, v + ' ' + show(x) + '   '));
  });
  var counters = document.getElementById('counters'); counters.textContent = '';
  var names = {}, shared = [];
  Object.keys(s).forEach(function (key) {
    if (key.slice(0, 2) !== 'c:') return;
    var name = key.slice(2), dot = name.indexOf('.');
    if (dot > 0 && D.players.indexOf(name.slice(0, dot)) >= 0) names[name.slice(dot + 1)] = true;
    else shared.push(name);
  });
  var head = el('tr'); head.appendChild(el('th', {}, 'counter'));
  D.players.forEach(function (p) { head.appendChild(el('th', {}, p)); });
  counters.appendChild(head);
  Object.keys(names).sort().forEach(function (n) {
    var tr = el('tr'); tr.appendChild(el('td', {}, n));
    D.players.forEach(function (p) {
      var key = 'c:' + p + '.' + n;
      tr.appendChild(el('td', {'class': key in changed ? 'changed' : '', 'data-key': key}, show(s[key])));
    });
    counters.appendChild(tr);
  });
  shared.sort().forEach(function (n) {
    var tr = el('tr'); tr.appendChild(el('td', {}, n));
    var td = el('td', {colspan: D.players.length, 'class': ('c:' + n) in changed ? 'changed' : '',
                       'data-key': 'c:' + n}, show(s['c:' + n]));
    tr.appendChild(td); counters.appendChild(tr);
  });
  var zones = document.getElementById('zones'); zones.textContent = '';
  Object.keys(s).filter(function (k2) { return k2.slice(0, 2) === 'z:'; }).sort().forEach(function (key) {
    var tr = el('tr', {'class': key in changed ? 'changed' : ''});
    tr.appendChild(el('td', {}, key.slice(2)));
    var td = el('td', {'data-key': key});
    (s[key] || []).forEach(function (pid) {
      var p = s['p:' + pid] || {kind: '?', props: {}};
      var span = el('span', {'class': 'piece' + (('p:' + pid) in changed ? ' changed' : ''), title: pid}, p.kind + ' ');
      span.appendChild(el('small', {}, pid + (Object.keys(p.props).length ? ' ' + show(p.props) : '')));
      td.appendChild(span);
    });
    if (!(s[key] || []).length) td.textContent = 'empty';
    tr.appendChild(td); zones.appendChild(tr);
  });
  var box = document.getElementById('decision'); box.textContent = '';
  var d = D.steps[k].decision;
  if (d) {
    box.appendChild(el('div', {}, (d.player === D.chance ? 'chance' : d.player) + ' decides: ' + d.prompt));
    if (d.rule) box.appendChild(el('div', {'class': 'rule'}, 'rule ' + d.rule + (d.source ? ':  ' + d.source : '')));
    var ol = el('ol');
    d.options.forEach(function (o) { ol.appendChild(el('li', {'class': o === d.chosen ? 'chosen' : ''}, o)); });
    box.appendChild(ol);
    if (d.chosen === null) box.appendChild(el('div', {}, 'the game stops here, waiting for this decision'));
  } else {
    box.appendChild(el('div', {}, D.ranking ? 'game over: ' + D.ranking.map(function (r) {
      return r.rank + '. ' + r.player + ' ' + show(r.keys); }).join(', ') : 'no decision pending'));
  }
  document.querySelectorAll('.log li').forEach(function (li, i) {
    li.className = i === k ? 'here' : '';
    if (i === k && li.scrollIntoView) li.scrollIntoView({block: 'nearest'});
  });
}
var log = document.getElementById('log');
D.steps.forEach(function (st, i) {
  var d = st.decision;
  var said = d ? (d.chosen === null ? '(waiting) ' + d.prompt : d.chosen) : 'end';
  var li = el('li', d && d.rule ? {title: 'asked by ' + d.rule} : {},
              d ? (d.player === D.chance ? 'chance' : d.player) + ': ' + said : said);
  li.addEventListener('click', function () { slider.value = i; render(i); });
  log.appendChild(li);
});
slider.addEventListener('input', function () { render(+slider.value); });
document.addEventListener('keydown', function (e) {
  if (e.key === 'ArrowRight') { slider.value = Math.min(+slider.value + 1, +slider.max); render(+slider.value); }
  if (e.key === 'ArrowLeft') { slider.value = Math.max(+slider.value - 1, 0); render(+slider.value); }
});
var m = /step=(\d+)/.exec(location.hash);
slider.value = m ? Math.min(+m[1], +slider.max) : 0;
slider.dispatchEvent(new Event('input'));
"""

TEMPLATE = Environment(autoescape=True).from_string("""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title><style>{{ css }}</style></head><body>
<header><h1>{{ title }}</h1>
<input type="range" id="slider" min="0" value="0" step="1" aria-label="decision"><span id="pos"></span>
<div id="flow"></div></header>
<div class="wrap"><div class="col">
<div id="failure-box"></div>
<h2>Decision</h2><div class="decision" id="decision"></div>
<h2>Counters</h2><table id="counters"></table>
<h2>Zones</h2><table id="zones"></table>
</div><div class="log"><h2>Log</h2><ol id="log" start="0"></ol></div></div>
<script type="application/json" id="game">{{ data }}</script>
<script>{{ script }}
if (D.failure) {
  var f = document.getElementById('failure-box');
  f.className = 'failure';
  f.textContent = 'the game failed (' + D.failure.kind + ') at ' + (D.failure.where || D.failure.rule) + ': ' +
    D.failure.message;
}
</script>
</body></html>
""")


__all__ = ["Watched", "flat", "patch", "read", "render", "view", "walk"]
