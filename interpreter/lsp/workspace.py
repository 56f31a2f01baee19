"""The packs an editor has open: `check`'s own pipeline run over the editor's unsaved buffers.

Two passes, both `check`'s code:
- `quick(file)` as the designer types: reload only the files whose text changed (loaded modules are kept by
  content), link the edited module with what it requires (one link, not the pack's ten), and report that
  file's problems the way `check` words them.
- `full(root)` when the typing pauses: the whole `check` of the pack (every module alone and together, the
  analyses, the scenarios), exactly what `boardrules check` prints, for every file of the pack.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..analysis import check_pack, scenarios, unknowns
from ..analysis import modules as combos
from ..diagnostics import Diagnostic, Diagnostics
from ..engine.rules import Rules
from ..language.linker import Module
from ..language.loader import buffers, load_yaml_bytes, read_file
from ..language.pack import SCENARIO_DIR, Pack, discover, display, link, load_modules
from ..tools.explain import Document, build
from .index import Declaration, Index, Use, declarations, real, scenario_uses, uses
from .resolved import sections


@contextmanager
def _memory_only(on: bool) -> Iterator[None]:
    """An unsaved buffer's YAML and validation are not written to the per-user caches: each keystroke would
    add an entry no later run reads. (Only the checking thread uses the caches, so the switch is safe.)"""
    before = os.environ.get("BOARDRULES_NO_CACHE")
    if on:
        os.environ["BOARDRULES_NO_CACHE"] = "1"
    try:
        yield
    finally:
        if on and before is None:
            del os.environ["BOARDRULES_NO_CACHE"]
        elif on and before is not None:
            os.environ["BOARDRULES_NO_CACHE"] = before


def is_rule_file(path: str, text: str) -> bool:
    """Whether a YAML file is a module (a top-level `module:`) or a scenario (under `scenarios/`, with a
    `scenario:`, `modules:` or `steps:`): the server leaves any other YAML file alone."""
    if SCENARIO_DIR in Path(path).parts:
        return re.search(r"^(scenario|modules|steps)\s*:", text, re.M) is not None
    return re.search(r"^module\s*:", text, re.M) is not None


def pack_root(path: Path) -> Path:
    """The pack a file belongs to: its directory, or the directory above its `scenarios` folder."""
    parts = path.parent.parts
    if SCENARIO_DIR in parts:
        return Path(*parts[:parts.index(SCENARIO_DIR)])
    return path.parent


@dataclass
class Loaded:
    """One module file as last read: its bytes, its module (None when it did not load), its own problems."""

    data: bytes
    module: Module | None
    problems: list[Diagnostic]


@dataclass
class PackState:
    root: Path
    pack: Pack
    files: dict[str, Loaded] = field(default_factory=dict)  # real path -> the file as last loaded
    good: dict[str, Module] = field(default_factory=dict)  # real path -> its last module that loaded
    # real path -> (that module, its declarations, its uses), for the index
    facts: dict[str, tuple[Module, list[Declaration], list[Use]]] = field(default_factory=dict)
    stale: bool = True  # the index is older than the modules
    linked: dict[tuple[str, ...], Rules] = field(default_factory=dict)  # roots -> rules, for the modules as loaded
    index: Index = field(default_factory=lambda: Index({}, {}))  # as last built by Workspace.reindex
    rules: dict[str, Rules] = field(default_factory=dict)  # module id -> it linked with what it requires
    published: set[str] = field(default_factory=set)  # files last given diagnostics by the full check
    books: dict[str, Document] = field(default_factory=dict)  # module id -> its rules in prose (explain)
    scenario_uses: dict[str, list[Use]] = field(default_factory=dict)  # scenario file -> the names it uses


class Workspace:
    def __init__(self) -> None:
        self.texts: dict[str, bytes] = {}  # real path -> the editor's text of an open file
        self.packs: dict[Path, PackState] = {}

    # ---------------------------------------------------------------- buffers
    def open(self, path: str, text: str) -> None:
        self.texts[real(path)] = text.encode("utf-8")

    def close(self, path: str) -> None:
        self.texts.pop(real(path), None)

    def _buffers(self) -> dict[Path, bytes]:
        return {Path(p): data for p, data in self.texts.items()}

    # ---------------------------------------------------------------- packs
    def state(self, path: str, rediscover: bool = False) -> PackState:
        """The pack of a file; its files are looked for again when asked, or when this file is new to it."""
        root = Path(real(str(pack_root(Path(real(path))))))
        st = self.packs.get(root)
        if st is None:
            st = PackState(root, Pack(root))
            self.packs[root] = st
            rediscover = True
        known = {real(str(f)) for f in [*st.pack.module_files, *st.pack.scenario_files]}
        if not rediscover and real(path) in known:
            return st
        found = discover([root], Diagnostics())
        pack = next((p for p in found if Path(real(str(p.root))) == root), Pack(root))
        for p in self.texts:  # a new file not yet saved is still part of its pack
            if Path(real(str(pack_root(Path(p))))) == root and p.endswith((".yaml", ".yml")):
                target = pack.scenario_files if SCENARIO_DIR in Path(p).parts else pack.module_files
                if all(real(str(f)) != p for f in target):
                    target.append(Path(p))
        st.pack = pack
        return st

    def _text(self, path: Path) -> bytes | None:
        data = self.texts.get(real(str(path)))
        return data if data is not None else read_file(path, Diagnostics(), str(path))

    def refresh(self, st: PackState) -> dict[str, Module]:
        """Reload the module files whose text changed since the last pass; the rest are kept as loaded."""
        changed = False
        wanted = {real(str(p)) for p in st.pack.module_files}
        for gone in set(st.files) - wanted:
            del st.files[gone]
            st.good.pop(gone, None)
            changed = True
        for path in st.pack.module_files:
            key = real(str(path))
            data = self._text(path) or b""
            old = st.files.get(key)
            if old is not None and old.data == data:
                continue
            changed = True
            found = Diagnostics()
            with buffers({path: data}), _memory_only(key in self.texts):
                loaded = load_modules([path], found)
            module = next(iter(loaded.values()), None)
            st.files[key] = Loaded(data, module, found.items)
            if module is not None:
                st.good[key] = module
        modules = {ld.module.id: ld.module for ld in st.files.values() if ld.module is not None}
        if changed:
            st.linked.clear()
            st.rules.clear()
            st.books.clear()
            st.stale = True
        return modules

    def reindex(self, st: PackState) -> Index:
        """The pack index, rebuilt when a module changed. A module that stopped loading mid-edit stays in it
        as it last loaded, so completion and navigation keep working while the YAML is broken; only changed
        modules are walked again."""
        if st.stale:
            for key, module in st.good.items():
                if st.facts.get(key, (None,))[0] is not module:
                    linked = st.rules.get(module.id)  # what the linker resolved, when the module linked
                    st.facts[key] = (module, declarations(module), uses(module, sections(linked) if linked else None))
            for key in set(st.facts) - set(st.good):
                del st.facts[key]
            kept = {m.id: m for m in st.good.values()}
            st.index = Index(kept, {m.id: (ds, us) for m, ds, us in st.facts.values()}, st.scenario_uses)
            st.stale = False
        return st.index

    def rules_for(self, st: PackState, mid: str) -> Rules | None:
        """The module linked with what it requires (for completion by type), linked once per change."""
        modules = self.reindex(st).modules
        if mid not in st.rules and mid in modules:
            st.rules[mid] = link(modules, [mid], Diagnostics())
        return st.rules.get(mid)

    def book_for(self, st: PackState, mid: str) -> Document | None:
        """The module and what it requires read back in prose, as `boardrules explain` builds it."""
        modules = self.reindex(st).modules
        if mid not in st.books and mid in modules:
            st.books[mid] = build(modules, [mid])
        return st.books.get(mid)

    # ---------------------------------------------------------------- the two passes
    def quick(self, path: str) -> dict[str, list[Diagnostic]]:
        """The problems of one edited file, as `check` words them, from one link of its module."""
        st = self.state(path)
        key = real(path)
        modules = self.refresh(st)
        if SCENARIO_DIR in Path(key).parts:
            data = self._text(Path(key)) or b""
            doc = load_yaml_bytes(data, display(Path(key)), Diagnostics())
            st.scenario_uses[key] = scenario_uses(doc, data.decode("utf-8", errors="replace").split("\n"))
            st.stale = True
            mods = doc.get("modules") if isinstance(doc, dict) else None
            roots = tuple(str(m) for m in mods) if isinstance(mods, list) else ()
            if roots and roots not in st.linked and all(r in modules for r in roots):
                # Linked once for every scenario of these modules, until a module changes.
                linked = Diagnostics()
                rules = link(modules, list(roots), linked)
                if not linked.has_errors:
                    st.linked[roots] = rules
            found = Diagnostics()
            with buffers(self._buffers()):
                scenarios.check(modules, [Path(key)], found, st.linked)
            return {key: [d for d in found.items if d.span is None or real(d.span.file) == key]}
        loaded = st.files.get(key)
        if loaded is None:
            return {key: []}
        items = list(loaded.problems)
        if loaded.module is not None and not any(d.severity == "error" for d in items):
            mid = loaded.module.id
            found = Diagnostics()
            # Every declaration is in a focused link: completion by type reads these rules too.
            rules = st.rules[mid] = link(modules, [mid], found, focus={mid})
            declared = combos.declarations(modules)
            combos.not_required(found.items, 0, modules, mid, declared)
            unknowns(rules, found)
            # As check: which names the rules use is needed only to place an unknown name's error.
            unknown = any(d.code == "E401" for d in found.items)
            used = {use.name for use in self.reindex(st).uses} if unknown else set()
            items += combos.one_error_per_mistake(found.items, declared, used)
        mine = Diagnostics()
        mine.extend(d for d in items if d.span is not None and real(d.span.file) == key)
        return {key: mine.sorted()}

    def full(self, path: str) -> dict[str, list[Diagnostic]]:
        """`boardrules check` of the whole pack the file is in: every file's problems (an empty list clears)."""
        st = self.state(path, rediscover=True)
        self.refresh(st)
        found = Diagnostics()
        with buffers(self._buffers()):
            check_pack(st.pack, found)
        out: dict[str, list[Diagnostic]] = {p: [] for p in st.published}
        for p in [*st.pack.module_files, *st.pack.scenario_files]:
            if real(str(p)) in self.texts:
                out[real(str(p))] = []
        for d in found.sorted():
            if d.span is not None:
                out.setdefault(real(d.span.file), []).append(d)
        st.published = {p for p, items in out.items() if items}
        return out


_CHECKER: Workspace | None = None  # the full check's own workspace, in its own process


def full_check(path: str, texts: dict[str, bytes]) -> dict[str, list[Diagnostic]]:
    """`Workspace.full` in a process of its own (the server's checker process), with the editor's buffers:
    a long check of the whole pack never delays the quick pass of the next keystroke. The workspace lives as
    long as the process, so unchanged modules are not loaded again."""
    global _CHECKER
    if _CHECKER is None:
        _CHECKER = Workspace()
    _CHECKER.texts = dict(texts)
    return _CHECKER.full(path)
