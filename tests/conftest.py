"""Shared helpers: build rule sets from inline module YAML, and the linked harvest test pack."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from boardrules.diagnostics import Diagnostic, Diagnostics
from boardrules.engine.rules import Rules
from boardrules.language.pack import discover, link, load_modules

# Tests change code and files under boardrules' feet (fault injection, monkeypatching): `check` must run afresh,
# never answer from the per-user result cache. tests/test_check_cache.py turns it on in a directory of its own.
os.environ["BOARDRULES_NO_CACHE"] = "1"

HARVEST = Path(__file__).parent / "packs" / "harvest"


def write_modules(directory: Path, *texts: str) -> list[Path]:
    """Write each module text (dedented) to its own file in `directory`; the files, in order."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, text in enumerate(texts):
        path = directory / f"m{i}.yaml"
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        paths.append(path)
    return paths


def link_texts(directory: Path, *texts: str, roots: list[str] | None = None) -> tuple[Rules, Diagnostics]:
    """Load and link inline modules; `roots` defaults to the module id of the last text."""
    diags = Diagnostics()
    modules = load_modules(write_modules(directory, *texts), diags)
    if roots is None:
        roots = [list(modules)[-1]] if modules else []
    return link(modules, roots, diags), diags


def build_rules(directory: Path, *texts: str, roots: list[str] | None = None) -> Rules:
    """Link inline modules and insist that nothing at all was reported."""
    rules, diags = link_texts(directory, *texts, roots=roots)
    assert diags.items == [], [f"{d.code} {d.message} @ {d.span}" for d in diags.items]
    return rules


def harvest_link(root: str = "harvest.plus") -> Rules:
    return pack_link(HARVEST, root)


def pack_link(path: Path, root: str) -> Rules:
    """The rules of one pack's module `root` and what it requires, linked without an error."""
    diags = Diagnostics()
    (pack,) = discover([path], diags)
    modules = load_modules(pack.module_files, diags)
    rules = link(modules, [root], diags)
    assert not diags.has_errors, [f"{d.code} {d.message}" for d in diags.items]
    return rules


# Rules run as the interpreter runs them, or compiled from their first run: tests that must hold both ways use BOTH.
def interpreted(rules: Rules) -> Rules:
    rules.compile_body = None
    rules.compiled.clear()
    return rules


def compiled(rules: Rules) -> Rules:
    rules.compile_after = 0
    return rules


BOTH = pytest.mark.parametrize("mode", [interpreted, compiled], ids=["interpreted", "compiled"])


@pytest.fixture(scope="session")
def harvest_rules() -> Rules:
    return harvest_link("harvest.plus")


@pytest.fixture
def build(tmp_path: Path):
    """build(*module_texts, roots=None) -> Rules, with no diagnostics allowed."""

    def _build(*texts: str, roots: list[str] | None = None) -> Rules:
        return build_rules(tmp_path, *texts, roots=roots)

    return _build


@pytest.fixture
def link_diags(tmp_path: Path):
    """link_diags(*module_texts, roots=None) -> (Rules, Diagnostics)."""

    def _link(*texts: str, roots: list[str] | None = None) -> tuple[Rules, Diagnostics]:
        return link_texts(tmp_path, *texts, roots=roots)

    return _link


# ---------------------------------------------------------------- every code emitted in this session
# tests/test_zz_codes.py compares these with the registry of codes (boardrules.diagnostics_codes).

EMITTED: set[str] = set()
COLLECTED_FILES: set[str] = set()
_diagnostic_init = Diagnostic.__init__


def _recording_init(self: Diagnostic, *args: object, **kwargs: object) -> None:
    _diagnostic_init(self, *args, **kwargs)
    EMITTED.add(self.code)


Diagnostic.__init__ = _recording_init  # type: ignore[method-assign]


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    # With -m or -k some tests do not run (-m "not slow"), so the codes only they emit would count as missing.
    if not config.option.markexpr and not config.option.keyword:
        COLLECTED_FILES.update(Path(str(item.fspath)).name for item in items)
    # The registry check reads what every other test emitted, so it runs last.
    items.sort(key=lambda item: Path(str(item.fspath)).name == "test_zz_codes.py")


# Under pytest-xdist each worker sees only the codes its own tests emitted: workers hand theirs to the controller,
# which checks the registry once every worker is done (tests/test_zz_codes.py does it in a single process).
_WORKERS_EMITTED: set[str] = set()
_WORKERS_COLLECTED: set[str] = set()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    out = getattr(node, "workeroutput", {})
    _WORKERS_EMITTED.update(out.get("emitted", ()))
    _WORKERS_COLLECTED.update(out.get("collected", ()))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["emitted"] = sorted(EMITTED)
        workeroutput["collected"] = sorted(COLLECTED_FILES)
        return
    if not _WORKERS_COLLECTED:
        return  # no workers: test_zz_codes checked it
    from boardrules.diagnostics_codes import CODES

    every_file = {p.name for p in Path(__file__).parent.glob("test_*.py")}
    missing = set(CODES) - _WORKERS_EMITTED
    if every_file <= _WORKERS_COLLECTED and missing:
        print(f"\nregistered codes no test emitted: {', '.join(sorted(missing))}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
