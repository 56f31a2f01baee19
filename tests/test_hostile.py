"""The hostile corpus (tests/hostile/README.md): every case through `check` or `test` in one child process that
may use at most 1 GiB of address space, each case stopped after 3 seconds. Every case must give located
diagnostics with exactly its expected codes, and never a traceback or an internal error."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

HOSTILE = Path(__file__).parent / "hostile"
CHECK_CASES = sorted((HOSTILE / "check").glob("*.yaml"))
RUNTIME_CASES = sorted((HOSTILE / "runtime" / "scenarios").glob("*.yaml"))
SECONDS = 10.0  # a runaway bound, not a speed test: generous so that a loaded machine does not fail it
MEMORY = 1 << 30

# Runs in the child: each case with an interval timer, its output captured, one JSON line per case.
DRIVER = r"""
import contextlib, io, json, re, resource, signal, sys, time
resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
from boardrules.tools.cli import main

class Late(BaseException):
    pass

def late(signum, frame):
    raise Late()

signal.signal(signal.SIGALRM, late)
for kind, path in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, SECONDS)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["check", "--format", "json", path] if kind == "check" else ["test", path])
        crash = None
    except Late:
        code, crash = None, "took longer than the limit"
    except BaseException as exc:
        code, crash = None, f"{type(exc).__name__}: {exc}"[:500]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    print(json.dumps({"path": path, "exit": code, "crash": crash, "seconds": time.perf_counter() - start,
                      "stdout": out.getvalue(), "stderr": err.getvalue()[-2000:]}), flush=True)
""".replace("MEMORY", str(MEMORY)).replace("SECONDS", str(SECONDS))


def expected(path: Path) -> str:
    first = path.read_bytes().split(b"\n", 1)[0].decode("utf-8", "replace")
    assert first.startswith("# expect: "), f"{path} must start with '# expect: ...'"
    return first.removeprefix("# expect: ").strip()


@pytest.fixture(scope="module")
def outcomes() -> dict[str, dict]:
    cases = [("check", str(p)) for p in CHECK_CASES] + [("test", str(p)) for p in RUNTIME_CASES]
    cases.append(("check", str(HOSTILE / "runtime" / "hostile.yaml")))
    done = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(cases)], capture_output=True, text=True,
                          timeout=SECONDS * len(cases) + 60, check=False)
    results = {}
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            results[row["path"]] = row
    assert len(results) == len(cases), done.stdout[-2000:] + done.stderr[-2000:]
    return results


def test_the_corpus_is_there() -> None:
    assert len(CHECK_CASES) >= 30 and len(RUNTIME_CASES) >= 15


def bounded(row: dict) -> None:
    assert row["crash"] is None, row["crash"]
    assert row["seconds"] < SECONDS
    assert "Traceback" not in row["stdout"] + row["stderr"]
    assert "E900" not in row["stdout"] + row["stderr"], row["stdout"][-1000:]


@pytest.mark.parametrize("path", CHECK_CASES, ids=lambda p: p.stem)
def test_check_case(outcomes: dict[str, dict], path: Path) -> None:
    row = outcomes[str(path)]
    bounded(row)
    diagnostics = json.loads(row["stdout"])
    errors = [d for d in diagnostics if d["severity"] == "error"]
    want = expected(path)
    assert " ".join(sorted({d["code"] for d in errors})) or want == "none"
    assert (" ".join(sorted({d["code"] for d in errors})) or "none") == want, errors[:5]
    for d in errors:
        assert d["file"] and d["line"] >= 1 and d["column"] >= 1, d
    assert row["exit"] == (0 if want == "none" else 1)


@pytest.mark.parametrize("path", RUNTIME_CASES, ids=lambda p: p.stem)
def test_runtime_case(outcomes: dict[str, dict], path: Path) -> None:
    row = outcomes[str(path)]
    bounded(row)
    want = expected(path)
    if want == "pass":
        assert row["exit"] == 0 and "1 passed, 0 failed" in row["stdout"], row["stdout"][-2000:]
        return
    found = re.findall(r"[^\s:]+:(\d+):(\d+): error (E\d+)", row["stdout"])
    assert found, row["stdout"][-2000:]
    assert " ".join(sorted({code for _, _, code in found})) == want, row["stdout"][-2000:]
    assert row["exit"] == 1 and "0 passed, 1 failed" in row["stdout"]


def test_the_hostile_pack_itself_checks_cleanly(outcomes: dict[str, dict]) -> None:
    row = outcomes[str(HOSTILE / "runtime" / "hostile.yaml")]
    bounded(row)
    assert row["exit"] == 0 and [d for d in json.loads(row["stdout"]) if d["severity"] == "error"] == []
