"""Balance metrics of simulated games, each with its uncertainty, computed from the per-game rows alone.

Definitions (docs/embedding.md, "Balance metrics"):
- a seat *wins* a game when it ranks first, alone or tied; its win rate is over finished games, with a 95 %
  Wilson score interval;
- *first-player advantage* is p1's win rate minus the mean win rate of all seats (0 for a fair seat order);
  it is marked significant when that mean lies outside p1's interval;
- a game is *decisive* when one player ranks first alone, a *draw* when two or more share first place;
- lengths and scores are spread as min, 10th percentile, median, 90th percentile, max, mean with a 95 %
  interval of the mean (normal approximation), and standard deviation;
- the *branching factor* of a phase is the mean number of moves a player could choose from there, over the
  move decisions whose moves were listed (`simulate` lists every 10th of a phase, `--branching-every N`);
- a rule's *firing rate* is the share of games in which it ran at least once (Wilson interval); its share in
  winners' and losers' games is the share of winning and of losing seats in whose own moves it ran (rules that
  run in setup or between moves belong to no seat, and have none).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from typing import Any

Z95 = statistics.NormalDist().inv_cdf(0.975)


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion k/n; (0, 1) when there is nothing to go on."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # at k = 0 or k = n the bound is exactly 0 or 1; rounding must not leave it a hair inside
    return (0.0 if k == 0 else max(0.0, centre - half)), (1.0 if k == n else min(1.0, centre + half))


def proportion(k: int, n: int) -> dict[str, Any]:
    low, high = wilson(k, n)
    return {"count": k, "of": n, "rate": round(k / n, 4) if n else 0.0, "low": round(low, 4), "high": round(high, 4)}


def two_proportion(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """(z, two-sided p) of the pooled two-proportion z-test that k1/n1 and k2/n2 come from one rate."""
    if n1 <= 0 or n2 <= 0:
        return 0.0, 1.0
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 0.0, 1.0
    z = (k1 / n1 - k2 / n2) / se
    return z, 2 * (1 - statistics.NormalDist().cdf(abs(z)))


def spread(values: Iterable[float]) -> dict[str, Any]:
    """Where values lie, and the 95 % interval of their mean."""
    xs = sorted(float(v) for v in values)
    n = len(xs)
    if n == 0:
        return {"n": 0}
    mean = statistics.fmean(xs)
    sd = statistics.stdev(xs) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n) if n > 1 else 0.0
    return {"n": n, "min": _num(xs[0]), "p10": _num(_quantile(xs, 0.1)), "median": _num(_quantile(xs, 0.5)),
            "p90": _num(_quantile(xs, 0.9)), "max": _num(xs[-1]), "mean": round(mean, 3), "sd": round(sd, 3),
            "low": round(mean - half, 3), "high": round(mean + half, 3)}


def _quantile(xs: list[float], q: float) -> float:
    """Linear interpolation between the closest ranks (numpy's default)."""
    pos = q * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _num(x: float) -> float | int:
    return int(x) if float(x).is_integer() else round(x, 3)


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def balance(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The balance metrics of these games (rows as sim_rows.row makes them)."""
    finished = [r for r in rows if r["finished"]]
    n = len(finished)
    seats = list(rows[0]["bots"]) if rows else []
    seat_rates = {s: proportion(sum(s in r["winners"] for r in finished), n) for s in seats}
    out: dict[str, Any] = {"games": len(rows), "finished": n, "confidence": 0.95, "seats": seat_rates}
    if seats:
        p1 = seat_rates[seats[0]]
        fair = statistics.fmean(v["rate"] for v in seat_rates.values())
        out["first_player"] = {"seat": seats[0], "rate": p1["rate"], "low": p1["low"], "high": p1["high"],
                               "fair": round(fair, 4), "advantage": round(p1["rate"] - fair, 4),
                               "significant": n > 0 and not p1["low"] <= fair <= p1["high"]}
    decisive = sum(len(r["winners"]) == 1 for r in finished)
    out["decisive"] = proportion(decisive, n)
    out["draws"] = proportion(sum(len(r["winners"]) > 1 for r in finished), n)
    margins = []
    for r in finished:
        scores = [v for v in r["scores"].values() if _number(v)]
        if len(r["winners"]) == 1 and len(scores) == len(r["scores"]) >= 2:
            top = sorted(scores, reverse=True)
            margins.append(top[0] - top[1])
    out["margin"] = spread(margins)
    out["length"] = {"moves": spread(r["moves"] for r in finished),
                     "decisions": spread(r["decisions"] for r in finished)}
    out["scores"] = {s: spread(r["scores"][s] for r in finished if _number(r["scores"][s])) for s in seats}
    out["branching"] = _branching(rows)
    out["rules"] = _rules(rows, finished, seats)
    out["widest"] = round(max((v["high"] - v["low"] for v in seat_rates.values()), default=1.0), 4)
    return out


def _branching(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per phase: move decisions, those whose options were listed, and the mean number of options of those
    (rows written before `listed` existed listed every decision)."""
    total: dict[str, list[int]] = {}
    for r in rows:
        for phase, cell in r["branching"].items():
            t = total.setdefault(phase, [0, 0, 0])
            t[0] += cell["decisions"]
            t[1] += cell.get("listed", cell["decisions"])
            t[2] += cell["options"]
    return {p: {"decisions": d, "listed": n, "mean": round(o / n, 3) if n else 0.0}
            for p, (d, n, o) in sorted(total.items())}


def _rules(rows: list[dict[str, Any]], finished: list[dict[str, Any]], seats: list[str]) -> dict[str, Any]:
    names = sorted({name for r in rows for name in r["rules"]})
    won = [(r, s) for r in finished for s in seats if s in r["winners"]]
    lost = [(r, s) for r in finished for s in seats if s not in r["winners"]]
    out = {}
    for name in names:
        games = sum(1 for r in rows if r["rules"].get(name))
        cell = proportion(games, len(rows))
        cell["per_game"] = round(sum(r["rules"].get(name, 0) for r in rows) / len(rows), 3) if rows else 0.0
        owned = any(name in c for r in rows for c in r["rules_by_seat"].values())
        if owned:
            cell["winners"] = proportion(sum(1 for r, s in won if r["rules_by_seat"][s].get(name)), len(won))
            cell["losers"] = proportion(sum(1 for r, s in lost if r["rules_by_seat"][s].get(name)), len(lost))
        out[name] = cell
    return out


def render(b: dict[str, Any]) -> list[str]:
    """The metrics as text lines for simulate's report."""
    pct = "{:.1%}".format
    lines = [f"balance ({b['finished']} finished games, 95 % intervals):"]
    lines.append("  win rate per seat: " + ", ".join(
        f"{s} {pct(v['rate'])} [{pct(v['low'])}, {pct(v['high'])}]" for s, v in b["seats"].items()))
    if "first_player" in b:
        f = b["first_player"]
        mark = " (significant)" if f["significant"] else ""
        lines.append(f"  first-player advantage: {f['advantage']:+.1%} over a fair {pct(f['fair'])}{mark}")
    d, t = b["decisive"], b["draws"]
    lines.append(f"  decisive games: {pct(d['rate'])} [{pct(d['low'])}, {pct(d['high'])}]; "
                 f"draws: {pct(t['rate'])} [{pct(t['low'])}, {pct(t['high'])}]")
    for label, s in (("moves", b["length"]["moves"]), ("decisions", b["length"]["decisions"]),
                     ("winning margin", b["margin"])):
        if s.get("n"):
            lines.append(f"  {label}: median {s['median']}, 10-90 % {s['p10']}-{s['p90']}, mean {s['mean']} "
                         f"[{s['low']}, {s['high']}], sd {s['sd']}")
    if b["branching"]:
        lines.append("  branching factor (moves to choose from; move decisions listed of all): " + ", ".join(
            f"{p} {v['mean']} ({v['listed']} of {v['decisions']})"
            for p, v in b["branching"].items()))
    lines.append("  rule: games fired [interval], per game; seats whose moves ran it, winners vs losers")
    width = max((len(k) for k in b["rules"]), default=0)
    for name, c in b["rules"].items():
        text = f"    {name.ljust(width)}  {pct(c['rate'])} [{pct(c['low'])}, {pct(c['high'])}], {c['per_game']}"
        if "winners" in c:
            text += f"; {pct(c['winners']['rate'])} vs {pct(c['losers']['rate'])}"
        lines.append(text)
    return lines


__all__ = ["balance", "proportion", "render", "spread", "two_proportion", "wilson"]
