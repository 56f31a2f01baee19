"""Find rule packs on disk, load and validate their modules, and link them: the `check` pipeline."""

from __future__ import annotations

import os
from dataclasses import field
from pathlib import Path
from typing import Any

from ..dataclass_code import dataclass
from ..diagnostics import BoardrulesError, Diagnostics, Span
from ..engine.rules import Rules
from .effect_builder import MAX_FORMULA_CHARS
from .linker import Linker, Module
from .loader import load_yaml_bytes, read_file
from .options import OPTION_SPAN
from .valid_cache import validate_file

SCENARIO_DIR = "scenarios"
LINK_ALONE_MAX = 64  # packs with more modules link alone only those no other module requires


@dataclass
class Pack:
    root: Path
    module_files: list[Path] = field(default_factory=list)
    scenario_files: list[Path] = field(default_factory=list)


def display(path: Path, dirs: dict[str, str] | None = None) -> str:
    """Paths in diagnostics: relative to the working directory when possible, so they are short and clickable.
    (Worked on strings: Path objects made this a tenth of loading a scenario file.) A caller naming many files
    at once passes `dirs`, where the real paths of their directories are kept meanwhile: each realpath asks the
    file system about every component of the path."""
    if dirs is None:
        real, cwd = os.path.realpath(path), os.path.realpath(os.getcwd())
    else:
        real, cwd = _realpath(os.fspath(path), dirs), _real_dir(os.getcwd(), dirs)
    if real == cwd:
        return "."
    inside = cwd if cwd.endswith(os.sep) else cwd + os.sep
    return real[len(inside):] if real.startswith(inside) else str(path)


def _realpath(path: str, dirs: dict[str, str]) -> str:
    """os.path.realpath of a file: its directory's real path, then its name unless that is a symbolic link."""
    head, tail = os.path.split(path)
    if tail in ("", os.curdir, os.pardir) or os.path.islink(path):
        return os.path.realpath(path)
    return os.path.join(_real_dir(os.path.join(os.getcwd(), head) if head else os.getcwd(), dirs), tail)


def _real_dir(directory: str, dirs: dict[str, str]) -> str:
    real = dirs.get(directory)
    if real is None:
        real = dirs[directory] = os.path.realpath(directory)
    return real


def _real(path: Path) -> Path:
    """Path.resolve raises on a loop of symbolic links; realpath gives up quietly (the loader then reports it)."""
    return Path(os.path.realpath(path))


def _is_scenario(path: Path) -> bool:
    return SCENARIO_DIR in path.parts


def _scenario_pack(directory: Path) -> Path | None:
    """The pack whose scenarios/ directory holds `directory` (or is it), or None. A directory of that name above
    one that holds no module files is just a folder (`~/scenarios/mypack` is a pack, not scenarios)."""
    absolute = Path(os.path.abspath(directory))
    for folder in [absolute, *absolute.parents]:
        if folder.name == SCENARIO_DIR and any(folder.parent.glob("*.yaml")):
            return folder.parent
    return None


def discover(paths: list[Path], diags: Diagnostics) -> list[Pack]:
    """Each directory holding module files is a pack; a directory of packs (like rules/) is searched below."""
    packs: dict[Path, Pack] = {}

    def pack_for(root: Path) -> Pack:
        return packs.setdefault(_real(root), Pack(root))

    for path in paths:
        if not path.exists():
            looping = path.is_symlink()
            reason = "a loop of symbolic links" if looping else "no such file or directory"
            diags.error("E105", f"{reason}: {path}", Span(str(path), 1, 1))
            continue
        scenarios_of = None if path.is_file() else _scenario_pack(path)
        if scenarios_of is not None:
            # a pack's scenarios/ directory, or a directory inside it: its files are that pack's scenarios
            pack_for(scenarios_of).scenario_files.extend(path.rglob("*.yaml"))
            continue
        if path.is_file():
            root = path.parent
            while _is_scenario(root) and root.name != SCENARIO_DIR:
                root = root.parent
            if root.name == SCENARIO_DIR:
                pack_for(root.parent).scenario_files.append(path)
            else:
                pack_for(root).module_files.append(path)
            continue
        for yaml_file in sorted(path.rglob("*.yaml")):
            rel = yaml_file.relative_to(path)
            if SCENARIO_DIR in rel.parts[:-1]:
                idx = rel.parts.index(SCENARIO_DIR)
                pack_for(path.joinpath(*rel.parts[:idx])).scenario_files.append(yaml_file)
            else:
                pack_for(yaml_file.parent).module_files.append(yaml_file)
    for pack in packs.values():
        # scenarios named alone still run (and are checked) against their pack's modules
        pack.module_files = sorted(set(pack.module_files or pack.root.glob("*.yaml")))
        pack.scenario_files = sorted(set(pack.scenario_files))
    return sorted(packs.values(), key=lambda p: str(p.root))


def load_modules(files: list[Path], diags: Diagnostics) -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for path in files:
        name = display(path)
        data = read_file(path, diags, name)
        doc = None if data is None else load_yaml_bytes(data, name, diags)
        if doc is None or data is None:
            continue
        if not isinstance(doc, dict):
            diags.error("E105", "a module file holds a mapping (module:, title:, ...)", Span(name, 1, 1))
            continue
        validate_file(doc, data, "module", diags, name)
        if _too_much_formula_text(doc, diags, name):
            continue
        mid = doc.get("module")
        if not isinstance(mid, str):
            continue
        span = getattr(doc, "value_spans", {}).get("module", Span(name, 1, 1))
        if mid in modules:
            diags.error("E403", f"module '{mid}' is already defined in {modules[mid].file}", span)
            continue
        reqs = doc.get("requires", [])
        requires = [str(r) for r in reqs] if isinstance(reqs, list) else []
        modules[mid] = Module(mid, name, doc, requires, span)
    return modules


# Keys whose strings are prose, not formulas: they are never parsed.
PROSE_KEYS = frozenset({"title", "source", "note", "notes", "description", "message", "hint", "scenario"})


def _too_much_formula_text(doc: object, diags: Diagnostics, name: str) -> bool:
    """Parsing costs time per character (about 20 us a token), and the linker and the analyses parse every
    formula: a file may hold only so many characters of them (the largest shipped module has about 20,000)."""
    total, seen = 0, set()
    stack: list[tuple[object, str | None]] = [(doc, None)]
    while stack:
        node, key = stack.pop()
        if isinstance(node, dict):
            stack.extend((v, str(k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, key) for v in node)
        elif isinstance(node, str) and key not in PROSE_KEYS and node not in seen:
            seen.add(node)  # parsing is cached by text: a repeated formula costs once
            total += len(node)
    if total <= MAX_FORMULA_CHARS:
        return False
    diags.error("E104", f"too much formula text in one file ({total:,} characters of distinct strings, at most "
                f"{MAX_FORMULA_CHARS:,})", Span(name, 1, 1), "split the module into several files")
    return True


def link(modules: dict[str, Module], roots: list[str], diags: Diagnostics,
         options: dict[str, tuple[Any, Span]] | None = None, focus: set[str] | None = None) -> Rules:
    return Linker(diags).link(modules, roots, options, focus)


def load_rules(pack: str | Path, modules: list[str] | None = None, options: dict[str, Any] | None = None, *,
               shallow: bool = False) -> Rules:
    """Load, validate and link a pack directory (all its modules, or these and what they require); `shallow`
    reads only the module files directly in it (a directory a save names is never searched below).

    Raises BoardrulesError with the first error; every diagnostic of the run is on its `diagnostics`."""
    root = Path(pack)
    diags = Diagnostics()
    found = [Pack(root, sorted(root.glob("*.yaml")))] if shallow else discover([root], diags)
    files = [f for p in found for f in p.module_files]
    loaded = load_modules(files, diags) if not diags.has_errors else {}
    spans = {name: (value, OPTION_SPAN) for name, value in (options or {}).items()}
    roots = list(modules) if modules else game_modules(loaded, diags, root)
    rules = link(loaded, roots, diags, spans) if loaded and not diags.has_errors else Rules()
    if not loaded and not diags.has_errors:
        diags.error("E105", f"no rule modules found in {root}", Span(str(root), 1, 1))
    errors = [d for d in diags.sorted() if d.severity == "error"]
    if errors:
        err = BoardrulesError(errors[0].code, errors[0].message, errors[0].span, errors[0].hint)
        err.diagnostics = errors
        raise err
    rules.pack = str(root.resolve())
    # No gc.freeze() here: frozen rules are never collected once their games end (0.65-1.4 MiB kept per load),
    # and freezing them saved no measurable time in whole games.
    return rules


def game_modules(modules: dict[str, Module], diags: Diagnostics, root: Path) -> list[str]:
    """The module a whole game starts from when none is named: the one module with a flow that no other
    module requires (a pack's game module); without any flow, every module of the pack."""
    required = {r for m in modules.values() for r in m.requires}
    games = [mid for mid, m in modules.items() if isinstance(m.doc.get("flow"), dict) and mid not in required]
    if len(games) > 1:
        diags.error("E509", f"{root} has several games: {', '.join(sorted(games))}", Span(str(root), 1, 1),
                    "name the modules to play")
    return games if games else list(modules)
