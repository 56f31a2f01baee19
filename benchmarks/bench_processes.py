"""`boardrules check` and `boardrules test` on the shipped packs as whole processes, against bare imports.

The baseline is a process that only imports yaml, jsonschema and lark (what `check` cannot do without). Each
figure is the CPU time (user + system) of the child process, from os.wait4, so other work on the machine
changes it little. Each repeat runs every contender once, interleaved in rotating order:
  bare imports        python -c "import yaml, jsonschema, lark"
  check, cold         a fresh, empty cache directory (XDG_CACHE_HOME): the whole check, then the result stored
  check, repeated     the same command again with the cache filled by an earlier run: answered from the cache
  check, no cache     BOARDRULES_NO_CACHE=1: the whole check, nothing stored
  test, no cache      every scenario of the shipped packs, BOARDRULES_NO_CACHE=1 (reported per scenario too)
  test, warm          `test --no-cache` with the per-user caches filled: every scenario run, with files known
                      valid, parsed formulas and compiled code taken from the caches
  test, repeated      `test` again on unchanged packs: answered from the stored result, as `check` is
Ratios to bare imports are taken within each repeat; medians and min-max are printed. The children run without
PYTHONDONTWRITEBYTECODE, so boardrules' own modules are byte-compiled once, as an installed package's are.

    python benchmarks/bench_processes.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from timing import interleaved, ratios, show, show_ratio

ROOT = Path(__file__).resolve().parent.parent
PACKS = [str(ROOT / "rules" / "lisboa"), str(ROOT / "rules" / "village")]
BOARDRULES = [sys.executable, "-m", "boardrules.tools.cli"]


def cpu_ms(argv: list[str], env: dict[str, str], expect: int = 0) -> float:
    """CPU time of one child process, user + system, in ms; its exit status must be `expect`."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stderr.close()
    if proc.returncode != expect:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {err.decode(errors='replace')[-2000:]}")
    return (usage.ru_utime + usage.ru_stime) * 1000


def scenario_count() -> int:
    return sum(len(list((Path(p) / "scenarios").glob("*.yaml"))) for p in PACKS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--skip-test", action="store_true", help="leave out `boardrules test` (the slowest)")
    args = parser.parse_args(argv)
    # PYTHONDONTWRITEBYTECODE is dropped: an installed boardrules (`pip install .`) has its modules byte-compiled,
    # and an editable one in a checkout would otherwise compile every module from source in every process.
    dropped = ("BOARDRULES_NO_CACHE", "XDG_CACHE_HOME", "PYTHONDONTWRITEBYTECODE")
    base_env = {k: v for k, v in os.environ.items() if k not in dropped}
    work = Path(tempfile.mkdtemp(prefix="bench-processes-"))
    try:
        warm_env = {**base_env, "XDG_CACHE_HOME": str(work / "warm")}
        check = [*BOARDRULES, "check", *PACKS]
        cpu_ms(check, warm_env)  # fills the cache the repeated runs are answered from
        test = [*BOARDRULES, "test", *PACKS]
        if not args.skip_test:
            cpu_ms(test, warm_env)
        cold_dirs = iter(range(10**6))

        def cold() -> float:
            return cpu_ms(check, {**base_env, "XDG_CACHE_HOME": str(work / f"cold{next(cold_dirs)}")})

        contenders: dict[str, Callable[[], float]] = {
            "bare imports": lambda: cpu_ms([sys.executable, "-c", "import yaml, jsonschema, lark"], base_env),
            "check, cold": cold,
            "check, repeated": lambda: cpu_ms(check, warm_env),
            "check, no cache": lambda: cpu_ms(check, {**base_env, "BOARDRULES_NO_CACHE": "1"}),
        }
        if not args.skip_test:
            contenders["test, no cache"] = lambda: cpu_ms(test, {**base_env, "BOARDRULES_NO_CACHE": "1"})
            contenders["test, warm"] = lambda: cpu_ms([*test, "--no-cache"], warm_env)
            contenders["test, repeated"] = lambda: cpu_ms(test, warm_env)
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {args.repeats} interleaved repeats; "
              f"CPU time of each process (user + system), median (min-max, IQR)", flush=True)
        got = interleaved(contenders, args.repeats)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    bare = got["bare imports"]
    print(f"  bare imports (yaml, jsonschema, lark) {show(bare, ' ms', 0)}")
    tests = ("test, no cache", "test, warm", "test, repeated")
    for name in ("check, cold", "check, repeated", "check, no cache", *tests):
        if name in got:
            print(f"  {name:16} {show(got[name], ' ms', 0)}; / bare imports {show_ratio(ratios(got[name], bare))}")
    n = scenario_count()
    for name in tests:
        if name in got:
            per = [t / n for t in got[name]]
            print(f"  {name}: {n} scenarios, {show(per, ' ms', 2)} per scenario (whole process / scenarios)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
