"""`boardrules check` on the shipped packs: what the analyses and the scenario checks add to loading and linking.

The baseline (load every module, link each alone and all together, as check did before the analyses) is measured
in the same run; the figures are the best of several runs, in CPU time (the machine may be busy).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from boardrules.analysis import analyse, check_pack
from boardrules.analysis import scenarios as scenario_checks
from boardrules.diagnostics import Diagnostics
from boardrules.language.pack import discover, link, load_modules
from boardrules.resources import rules_dir

RUNS = 7


def best(fn: Callable[[], None]) -> float:
    times = []
    for _ in range(RUNS):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    packs = discover([rules_dir()], Diagnostics())
    loaded = [(pack, load_modules(pack.module_files, Diagnostics())) for pack in packs]
    linked = [(pack, modules, link(modules, list(modules), Diagnostics())) for pack, modules in loaded]

    def baseline() -> None:
        for pack in packs:
            diags = Diagnostics()
            modules = load_modules(pack.module_files, diags)
            for mid in modules:
                link(modules, [mid], diags)
            link(modules, list(modules), diags)

    def analyses_only() -> None:
        for _, modules, rules in linked:
            analyse(modules, rules, Diagnostics())

    def scenarios_only() -> None:
        for pack, modules, rules in linked:
            scenario_checks.check(modules, pack.scenario_files, Diagnostics(), {tuple(modules): rules})

    def full() -> None:
        for pack in packs:
            check_pack(pack, Diagnostics())

    base = best(baseline)
    whole = best(full)
    print(f"load and link (the old check): {base * 1000:.0f} ms")
    print(f"whole check_pack:              {whole * 1000:.0f} ms ({whole / base:.2f}x)")
    print(f"  the analyses alone:          {best(analyses_only) * 1000:.0f} ms")
    print(f"  the scenario checks alone:   {best(scenarios_only) * 1000:.0f} ms "
          f"({sum(len(p.scenario_files) for p in packs)} scenarios, loading their YAML included)")


if __name__ == "__main__":
    main()
