"""`boardrules diff OLD NEW`: what a change to a pack did.

Three answers, from the cheapest: the rules added, removed and changed (compared as loaded YAML, by module and
name, so moving a rule or reformatting it is no change), shown with both sources side by side; the scenarios
whose outcome differs between the versions (every scenario of either pack is run on both); and, with
`--games N`, the balance metrics of both versions from the same seeds, with the differences a test finds
significant at the 5 % level marked (a two-proportion z-test for rates, a z-test of the difference of means for
lengths and scores).
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostics, source_line
from ..language.linker import Module
from ..language.pack import Pack
from ..language.ynodes import plain
from .metrics import proportion, two_proportion

META_KEYS = ("module", "title", "source", "notes")  # words about the module, not rules
NESTED = {("flow", "phases")}  # mappings whose entries are rules of their own (each phase)
ALPHA = 0.05


@dataclass(frozen=True)
class Item:
    """One declaration: `section.name` in a module, its value as plain data, and its source lines."""

    module: str
    name: str
    value: Any
    lines: tuple[str, ...]


@dataclass
class Changes:
    added: list[Item] = field(default_factory=list)
    removed: list[Item] = field(default_factory=list)
    changed: list[tuple[Item, Item]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)



def items(modules: dict[str, Module]) -> dict[tuple[str, str], Item]:
    """Every declaration of the modules, by (module, section.name)."""
    out: dict[tuple[str, str], Item] = {}
    for mid, m in modules.items():
        for section, body in m.doc.items():
            if section in META_KEYS:
                continue
            if isinstance(body, dict):
                for name, value in body.items():
                    if (section, name) in NESTED and isinstance(value, dict):
                        for sub, v in value.items():
                            _add(out, mid, f"{section}.{name}.{sub}", v, value, sub)
                    else:
                        _add(out, mid, f"{section}.{name}", value, body, name)
            else:
                _add(out, mid, section, body, m.doc, section)
    return out


def _add(out: dict[tuple[str, str], Item], mid: str, name: str, value: Any, parent: Any, key: str) -> None:
    out[(mid, name)] = Item(mid, name, plain(value), _source(parent, key))


def _source(parent: Any, key: str) -> tuple[str, ...]:
    """The lines of `key: value` in its file: from the key's line to the last line indented deeper than it."""
    span = getattr(parent, "key_spans", {}).get(key)
    if span is None:
        return ()
    first = source_line(span.file, span.line)
    if first is None:
        return ()
    lines = [first.rstrip()]
    n = span.line + 1
    while True:
        text = source_line(span.file, n)
        if text is None:
            break
        stripped = text.strip()
        indent = len(text) - len(text.lstrip())
        if stripped and not stripped.startswith("#") and indent < span.col:
            break
        lines.append(text.rstrip())
        n += 1
    while lines and not lines[-1].strip():
        lines.pop()
    cut = span.col - 1  # shown from the key's column, however deep the section nests it
    return tuple(x[cut:] if x[:cut].isspace() else x.lstrip() for x in lines)


def compare(old: dict[str, Module], new: dict[str, Module]) -> Changes:
    a, b = items(old), items(new)
    out = Changes()
    out.removed = [a[k] for k in sorted(a.keys() - b.keys())]
    out.added = [b[k] for k in sorted(b.keys() - a.keys())]
    out.changed = [(a[k], b[k]) for k in sorted(a.keys() & b.keys()) if a[k].value != b[k].value]
    return out


def side_by_side(left: tuple[str, ...], right: tuple[str, ...], width: int = 58) -> list[str]:
    """Two sources in columns, aligned by difflib; the gutter says `|` changed, `<` only old, `>` only new."""
    rows: list[tuple[str, str, str]] = []
    matcher = difflib.SequenceMatcher(a=left, b=right, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            rows += [(x, " ", y) for x, y in zip(left[i1:i2], right[j1:j2], strict=True)]
        else:
            for x, y in zip_longest(left[i1:i2], right[j1:j2]):
                rows.append((x or "", "|" if x is not None and y is not None else "<" if y is None else ">", y or ""))

    def cut(s: str) -> str:
        s = s.expandtabs(4)
        return s if len(s) <= width else s[:width - 1] + "…"

    return [f"{cut(x).ljust(width)} {mark} {cut(y)}".rstrip() for x, mark, y in rows]


# ---------------------------------------------------------------- scenarios


@dataclass(frozen=True)
class ScenarioChange:
    file: str  # relative to its pack
    old: str  # "pass" or "fail"
    new: str
    failures: tuple[str, ...]  # what the new version says (or the old, when it is the one failing)


def scenarios(old_pack: Pack, old: dict[str, Module], new_pack: Pack, new: dict[str, Module]) -> list[ScenarioChange]:
    """Scenarios of either pack, each run on both versions; those whose outcome or failures differ."""
    from .scenario import ScenarioRunner

    files: dict[str, Path] = {}
    for pack in (old_pack, new_pack):  # the new pack's copy of a scenario wins
        files.update({p.relative_to(pack.root).as_posix(): p for p in pack.scenario_files})
    runners = ScenarioRunner(old), ScenarioRunner(new)
    out = []
    for rel, path in sorted(files.items()):
        results = [r.run_file(path) for r in runners]
        said = [tuple(_stripped(f, path) for f in res.failures) for res in results]
        if results[0].passed != results[1].passed or said[0] != said[1]:
            failing = said[1] or said[0]
            old_said, new_said = ("pass" if r.passed else "fail" for r in results)
            out.append(ScenarioChange(rel, old_said, new_said, failing))
    return out


def _stripped(failure: str, path: Path) -> str:
    return failure.replace(str(path), Path(path).name)


# ---------------------------------------------------------------- balance of both versions


def mean_difference(a: dict[str, Any], b: dict[str, Any]) -> tuple[float, float] | None:
    """(difference of means, two-sided p) of two metrics.spread results, by a z-test; None without data."""
    if not a.get("n") or not b.get("n") or a["n"] < 2 or b["n"] < 2:
        return None
    se = math.sqrt(a["sd"] ** 2 / a["n"] + b["sd"] ** 2 / b["n"])
    d = b["mean"] - a["mean"]
    if se == 0:
        return d, 1.0 if d == 0 else 0.0
    from statistics import NormalDist

    return d, 2 * (1 - NormalDist().cdf(abs(d / se)))


def compare_balance(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per metric: old and new value with their intervals, the p-value and whether it is significant."""
    rows: list[dict[str, Any]] = []

    def rate(name: str, a: dict[str, Any], b: dict[str, Any]) -> None:
        _, p = two_proportion(a["count"], a["of"], b["count"], b["of"])
        rows.append({"metric": name, "old": a["rate"], "old_ci": [a["low"], a["high"]], "new": b["rate"],
                     "new_ci": [b["low"], b["high"]], "p": round(p, 4), "significant": p < ALPHA, "test": "z2"})

    def mean(name: str, a: dict[str, Any], b: dict[str, Any]) -> None:
        found = mean_difference(a, b)
        if found is None:
            return
        _, p = found
        rows.append({"metric": name, "old": a["mean"], "old_ci": [a["low"], a["high"]], "new": b["mean"],
                     "new_ci": [b["low"], b["high"]], "p": round(p, 4), "significant": p < ALPHA, "test": "z"})

    for seat in old["seats"]:
        if seat in new["seats"]:
            rate(f"win rate {seat}", old["seats"][seat], new["seats"][seat])
    rate("draws", old["draws"], new["draws"])
    mean("moves per game", old["length"]["moves"], new["length"]["moves"])
    mean("decisions per game", old["length"]["decisions"], new["length"]["decisions"])
    for seat in old["scores"]:
        if seat in new["scores"]:
            mean(f"score {seat}", old["scores"][seat], new["scores"][seat])
    for name in sorted(old["rules"].keys() | new["rules"].keys()):
        a = old["rules"].get(name) or proportion(0, old["games"])  # never ran in these games
        b = new["rules"].get(name) or proportion(0, new["games"])
        rate(f"fires {name}", a, b)
    return rows


# ---------------------------------------------------------------- text


def render(changes: Changes, scenario_changes: list[ScenarioChange] | None, balance: list[dict[str, Any]] | None,
           old_label: str, new_label: str, games: int = 0) -> str:
    out = [f"--- {old_label}", f"+++ {new_label}"]
    if not changes:
        out.append("rules: no change")
    for item in changes.added:
        out += [f"added {item.module}: {item.name}", *(f"  + {x}" for x in item.lines)]
    for item in changes.removed:
        out += [f"removed {item.module}: {item.name}", *(f"  - {x}" for x in item.lines)]
    for a, b in changes.changed:
        out.append(f"changed {a.module}: {a.name}")
        out += ["  " + x for x in side_by_side(a.lines, b.lines)]
    if scenario_changes is not None:
        if not scenario_changes:
            out.append("scenarios: every outcome is the same")
        for s in scenario_changes:
            out.append(f"scenario {s.file}: {s.old} -> {s.new}")
            out += ["    " + f.replace("\n", "\n    ") for f in s.failures[:3]]
    if balance is not None:
        out.append(f"balance over {games} games from the same seeds (* significant at 5 %; 95 % intervals):")
        width = max((len(r["metric"]) for r in balance), default=0)
        for r in balance:
            if r["test"] == "z2":
                old = f"{r['old']:.1%} [{r['old_ci'][0]:.1%}, {r['old_ci'][1]:.1%}]"
                new = f"{r['new']:.1%} [{r['new_ci'][0]:.1%}, {r['new_ci'][1]:.1%}]"
            else:
                old = f"{r['old']} [{r['old_ci'][0]}, {r['old_ci'][1]}]"
                new = f"{r['new']} [{r['new_ci'][0]}, {r['new_ci'][1]}]"
            mark = "*" if r["significant"] else " "
            out.append(f"{mark} {r['metric'].ljust(width)}  {old}  ->  {new}  (p {r['p']:.3f})")
    return "\n".join(out) + "\n"


def load(path: Path, diags: Diagnostics) -> tuple[Pack | None, dict[str, Module] | None]:
    from ..language.pack import discover, load_modules

    packs = [p for p in discover([path], diags) if p.module_files]
    if len(packs) != 1:
        if not diags.has_errors:
            diags.error("E105", f"{path} is not one rule pack", None)
        return None, None
    modules = load_modules(packs[0].module_files, diags)
    return packs[0], modules


__all__ = ["Changes", "Item", "compare", "compare_balance", "items", "render", "scenarios", "side_by_side"]
