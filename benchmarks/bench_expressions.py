"""boardrules' compiled expressions against the `rule-engine` library: the same expressions on the same data.

Eight expressions of the kinds rules use (arithmetic, comparisons, boolean logic, a conditional, min/max, a
filtered count of records, a sum and an any over keys), each evaluated by boardrules (compiled once against the
production benchmark pack, evaluated on a game's state) and by rule-engine (parsed once, evaluated on the same
data as plain dicts and lists). Both are checked to give the same value first. Each repeat times the two
interleaved; printed per expression: us per evaluation (medians) and the ratio rule-engine / boardrules (median
and min-max over repeats).

    pip install -e '.[bench]'      (rule-engine; the `test` extra includes it)
    python benchmarks/bench_expressions.py [--repeats 9] [--scale 1.0]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from timing import interleaved, ratios, show, show_ratio

from boardrules.engine.interpreter import Frame
from boardrules.engine.values import plain
from boardrules.game import Game
from boardrules.language.compiler import ExprCompiler, Scope
from boardrules.language.pack import load_rules
from boardrules.language.parser import parse
from boardrules.language.types import INT, SYMBOL

HERE = Path(__file__).resolve().parent

# (what it is, boardrules text, rule-engine text)
EXPRESSIONS: list[tuple[str, str, str]] = [
    ("arithmetic", "2 + me.sheds * 3 - me.stock[g]", "2 + sheds * 3 - stock[g]"),
    ("comparison", "made + room >= price[g] * 2", "made + room >= price[g] * 2"),
    ("boolean logic", "made > 1 and (room < 3 or not (g in goods))", "made > 1 and (room < 3 or not (g in goods))"),
    ("conditional", "made - room if room < made else made", "room < made ? made - room : made"),
    ("min/max", "max(0, min(made, room))", "$max([0, $min([made, room])])"),
    ("filter records, count", "count(street where it.owner == me and it.good == g)",
     "[s for s in stores if s['owner'] == me and s['good'] == g].length"),
    ("sum over keys", "sum([me.stock[k] for k in goods])", "$sum([stock[k] for k in goods])"),
    ("any over keys", "any([price[k] < 3 for k in goods])", "$any([price[k] < 3 for k in goods])"),
]


def boardrules_side() -> tuple[Frame, list[Callable[[Frame], Any]]]:
    rules = load_rules(HERE / "produce")
    game = Game(rules, 4, seed=1)
    game.setup()
    st = game.state
    for i, key in enumerate(k for k in st.counters if k.startswith("p1.stock[")):
        st.counters[key] = i % 3
    for i, key in enumerate(k for k in st.counters if k.startswith("price[")):
        st.counters[key] = 1 + i
    compiler = ExprCompiler(rules)
    scope = Scope({"g": SYMBOL, "made": INT, "room": INT})
    fns = [compiler.link(parse(text, "expr"), scope).fn for _, text, _ in EXPRESSIONS]
    frame = Frame(game._m, game._m.players[0], {"g": "grain", "made": 3, "room": 2})
    return frame, fns


def rule_engine_side(frame: Frame) -> tuple[dict[str, Any], list[Any]]:
    import rule_engine

    st = frame.g.state
    goods = list(frame.g.rules.sets["goods"])
    data = {
        "me": "p1", "g": frame.vars["g"], "made": frame.vars["made"], "room": frame.vars["room"], "goods": goods,
        "sheds": st.counters["p1.sheds"],
        "stock": {k: st.counters[f"p1.stock[{k}]"] for k in goods},
        "price": {k: st.counters[f"price[{k}]"] for k in goods},
        "stores": [{"owner": plain(st.pieces[p].props["owner"]), "good": st.pieces[p].props["good"]}
                   for p in st.zones["street"].contents],
    }
    context = rule_engine.Context(default_value=None)
    return data, [rule_engine.Rule(text, context=context) for _, _, text in EXPRESSIONS]


def per_eval(fn: Callable[[], Any], n: int, before: Callable[[], None] = lambda: None) -> Callable[[], float]:
    def timed() -> float:
        before()
        t0 = time.process_time()  # CPU time of this process: waiting for a busy core is not counted
        for _ in range(n):
            fn()
        return (time.process_time() - t0) * 1e6 / n

    return timed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the evaluations per timed batch")
    args = parser.parse_args(argv)
    try:
        import rule_engine  # noqa: F401
    except ImportError:
        print("rule-engine is not installed: pip install -e '.[bench]' (or pip install rule-engine); skipped")
        return 0
    frame, fns = boardrules_side()
    data, rules = rule_engine_side(frame)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {args.repeats} interleaved repeats; "
          f"{len(data['stores'])} records", flush=True)
    all_ratios = []
    for (what, text, _), fn, rule in zip(EXPRESSIONS, fns, rules, strict=True):
        ours, theirs = fn(frame), rule.evaluate(data)
        if (ours if isinstance(ours, bool) else int(ours)) != (theirs if isinstance(theirs, bool) else int(theirs)):
            raise SystemExit(f"{what}: boardrules gives {ours!r}, rule-engine {theirs!r}: not the same expression")
        n = max(1, int(4000 * args.scale))
        # filters charge the per-action work budget, which an action would reset: reset it per batch, untimed
        got = interleaved({"boardrules": per_eval(lambda fn=fn: fn(frame), n, frame.g.budget.reset),
                           "rule-engine": per_eval(lambda rule=rule: rule.evaluate(data), max(1, n // 10))},
                          args.repeats)
        r = ratios(got["rule-engine"], got["boardrules"])
        all_ratios.extend(r)
        print(f"{what:22} {text}\n  boardrules {show(got['boardrules'], ' us', 2)}\n"
              f"  rule-engine {show(got['rule-engine'], ' us', 2)}\n  rule-engine / boardrules: {show_ratio(r)}",
              flush=True)
    print(f"all expressions: rule-engine / boardrules {show_ratio(all_ratios)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
