"""What `boardrules test` offers CI services and a designer iterating, as pytest does: choose scenarios (`-k`,
`--lf`), stop at the first failure (`-x`), time each scenario (`--durations`), and write the results as JUnit XML
and the coverage as lcov.

The last failures are kept in `.boardrules_cache/lastfailed.json` in the working directory (like pytest's
`.pytest_cache`), keyed by scenario file; `BOARDRULES_NO_CACHE=1` turns that off too.
"""

from __future__ import annotations

import json
import os
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .coverage import RuleCoverage

LASTFAILED = Path(".boardrules_cache") / "lastfailed.json"


@dataclass
class Case:
    pack: str
    file: str
    title: str
    seconds: float
    failures: list[str]


@dataclass
class TestRun:
    """The selection, stopping and records of one `test` run."""

    keyword: str | None = None
    exitfirst: bool = False
    last_failed: bool = False
    durations: int | None = None
    junit: str | None = None
    lcov: str | None = None
    cases: list[Case] = field(default_factory=list)
    deselected: int = 0
    _failed_before: set[str] | None = None

    @classmethod
    def from_args(cls, args: Any) -> TestRun:
        return cls(getattr(args, "keyword", None), bool(getattr(args, "exitfirst", False)),
                   bool(getattr(args, "last_failed", False)), getattr(args, "durations", None),
                   getattr(args, "junit_xml", None), getattr(args, "lcov", None))

    @property
    def active(self) -> bool:
        """Whether this run needs running afresh (a cached answer would not write the files or time anything)."""
        return any((self.keyword, self.exitfirst, self.last_failed, self.durations is not None, self.junit,
                    self.lcov))

    def wanted(self, path: Path, title: str | None = None) -> bool:
        """Whether to run this scenario: `-k` matches its file path or title (case-insensitive substring, `not X`
        to exclude, `A or B` for either); `--lf` keeps those that failed last time (all when none did)."""
        key = _key(path)
        if self.last_failed:
            if self._failed_before is None:
                self._failed_before = _read_lastfailed()
            if self._failed_before and key not in self._failed_before:
                self.deselected += 1
                return False
        if self.keyword and not matches(self.keyword, f"{path.as_posix()} {title or ''}"):
            self.deselected += 1
            return False
        return True

    def stopped(self) -> bool:
        return self.exitfirst and any(c.failures for c in self.cases)

    def timed(self, pack: str, path: Path, run: Callable[[Path], Any]) -> Any:
        started = time.perf_counter()
        result = run(path)
        self.cases.append(Case(pack, _key(path), str(result.title), time.perf_counter() - started,
                               list(result.failures)))
        return result

    def finish(self, say: Callable[[str], None], coverage: dict[str, dict[str, dict[str, RuleCoverage]]]) -> None:
        """Durations, files, and the record of what failed (kept only for the scenarios this run ran)."""
        if self.durations is not None:
            slowest = sorted(self.cases, key=lambda c: -c.seconds)
            shown = slowest if self.durations == 0 else slowest[:self.durations]
            say(f"slowest {len(shown)} scenario(s):")
            for c in shown:
                say(f"  {c.seconds:8.3f}s  {c.file}")
        if self.deselected:
            say(f"{self.deselected} scenario(s) deselected")
        if self.junit:
            write_junit(Path(self.junit), self.cases)
        if self.lcov:
            write_lcov(Path(self.lcov), coverage)
        _write_lastfailed(self.cases)


def matches(expression: str, text: str) -> bool:
    """pytest's `-k` in small: `or` between alternatives, `and` between terms, `not` before a term."""
    text = text.lower()
    for alternative in expression.lower().split(" or "):
        ok = True
        for term in alternative.split(" and "):
            term = term.strip()
            negate = term.startswith("not ")
            term = term[4:].strip() if negate else term
            if (term in text) == negate:
                ok = False
                break
        if ok:
            return True
    return False


def _key(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def _read_lastfailed() -> set[str]:
    try:
        return set(json.loads(LASTFAILED.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return set()


def _write_lastfailed(cases: list[Case]) -> None:
    if os.environ.get("BOARDRULES_NO_CACHE"):  # every cache off (the test suite's setting): remember nothing
        return
    failed = _read_lastfailed() - {c.file for c in cases} | {c.file for c in cases if c.failures}
    try:
        LASTFAILED.parent.mkdir(exist_ok=True)
        LASTFAILED.write_text(json.dumps(sorted(failed), indent=1) + "\n", encoding="utf-8")
    except OSError:
        pass  # a read-only checkout still runs its scenarios; it only forgets what failed


def write_junit(path: Path, cases: list[Case]) -> None:
    """JUnit XML as CI services read it: one testsuite per pack, one testcase per scenario file."""
    root = ET.Element("testsuites", name="boardrules", tests=str(len(cases)),
                      failures=str(sum(1 for c in cases if c.failures)),
                      time=f"{sum(c.seconds for c in cases):.3f}")
    suites: dict[str, ET.Element] = {}
    for c in cases:
        suite = suites.get(c.pack)
        if suite is None:
            suite = suites[c.pack] = ET.SubElement(root, "testsuite", name=c.pack)
        case = ET.SubElement(suite, "testcase", classname=c.pack, name=c.title, file=c.file, time=f"{c.seconds:.3f}")
        if c.failures:
            first = c.failures[0].splitlines()[0] if c.failures[0] else "failed"
            ET.SubElement(case, "failure", message=first).text = "\n".join(c.failures)
    for suite in suites.values():
        mine = [c for c in cases if c.pack == suite.get("name")]
        suite.set("tests", str(len(mine)))
        suite.set("failures", str(sum(1 for c in mine if c.failures)))
        suite.set("time", f"{sum(c.seconds for c in mine):.3f}")
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def write_lcov(path: Path, coverage: dict[str, dict[str, dict[str, RuleCoverage]]]) -> None:
    """The line and branch coverage of the rule files as an lcov tracefile (coverage per pack, merged)."""
    lines: dict[str, dict[int, int]] = {}
    branches: dict[str, list[tuple[int, int, str, int]]] = {}
    for table in coverage.values():
        for file, rules in table.items():
            mine = lines.setdefault(file, {})
            for rc in rules.values():
                for p in rc.points:
                    hit = 1 if p.key in rc.ran else 0
                    if p.kind == "line":
                        mine[p.span.line] = max(mine.get(p.span.line, 0), hit)
                    else:
                        found = branches.setdefault(file, [])
                        found.append((p.span.line, len(found), p.what, hit))
    out = ["TN:boardrules"]
    for file in sorted(lines.keys() | branches.keys()):
        out.append(f"SF:{file}")
        found = branches.get(file, [])
        for line, n, _what, hit in found:
            out.append(f"BRDA:{line},0,{n},{hit}")
        out += [f"BRF:{len(found)}", f"BRH:{sum(1 for b in found if b[3])}"]
        mine = lines.get(file, {})
        out += [f"DA:{line},{hit}" for line, hit in sorted(mine.items())]
        out += [f"LF:{len(mine)}", f"LH:{sum(1 for h in mine.values() if h)}", "end_of_record"]
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


__all__ = ["TestRun", "matches", "write_junit", "write_lcov"]
