"""The protocol glue: pygls over stdio, turning editor requests into calls on the workspace and the index.

Checks run on one worker thread, in the order they were asked for (the checker is not built to run twice at
once); the event loop stays free to answer navigation and completion from the last index. Each edit gets the
quick check of its file after a short pause, and the whole pack's `check` once the typing stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from ..diagnostics import Diagnostic
from .complete import complete
from .hover import code_text, declaration_text
from .index import RULES, Declaration, Index, Place, Use, real
from .workspace import PackState, Workspace, full_check, is_rule_file, pack_root

QUICK_DELAY = 0.02  # s: keystrokes already sent are taken in first, so a burst is checked once
FULL_DELAY = 0.5  # s of no typing before the whole pack is checked
SEVERITY = {"error": t.DiagnosticSeverity.Error, "warning": t.DiagnosticSeverity.Warning}
KINDS = {"variable": t.CompletionItemKind.Variable, "constant": t.CompletionItemKind.Constant,
         "module": t.CompletionItemKind.Module, "class": t.CompletionItemKind.Class,
         "property": t.CompletionItemKind.Property, "function": t.CompletionItemKind.Function,
         "event": t.CompletionItemKind.Event, "value": t.CompletionItemKind.Value, "enum": t.CompletionItemKind.Enum,
         "enum_member": t.CompletionItemKind.EnumMember, "struct": t.CompletionItemKind.Struct,
         "field": t.CompletionItemKind.Field, "keyword": t.CompletionItemKind.Keyword}
SYMBOLS = {"actions": t.SymbolKind.Function, "procedures": t.SymbolKind.Function, "triggers": t.SymbolKind.Event,
           "setup": t.SymbolKind.Constructor, "scoring": t.SymbolKind.Method, "phases": t.SymbolKind.Namespace,
           "counters": t.SymbolKind.Variable, "values": t.SymbolKind.Constant, "zones": t.SymbolKind.Array,
           "pieces": t.SymbolKind.Class, "events": t.SymbolKind.Event, "costs": t.SymbolKind.Number,
           "sets": t.SymbolKind.Enum, "tracks": t.SymbolKind.Struct, "dice": t.SymbolKind.Number,
           "substitutes": t.SymbolKind.Operator}
# A hint that names the right text: a misspelt name (did you mean), or a declaration every use spells otherwise.
FIX = re.compile(r"(?:did you mean|rename it to) '([A-Za-z_][\w.]*)'")
_WORD = re.compile(r"[A-Za-z0-9_]+")


def _lines(path: str, open_text: str | None) -> list[str]:
    if open_text is None:
        try:
            open_text = Path(path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
    return open_text.split("\n")


def diagnostic_range(d: Diagnostic, lines: list[str]) -> t.Range:
    """From the start to the end of the offending text: the span's own end when it has one, else the name the
    message quotes, a quoted string or bracket, a name, or the run of text at the start."""
    span = d.span
    assert span is not None
    line, col = span.line - 1, span.col - 1
    if span.end_line is not None and span.end_col is not None and (span.end_line, span.end_col) > (span.line,
                                                                                                    span.col):
        return t.Range(t.Position(line, col), t.Position(span.end_line - 1, span.end_col - 1))
    text = lines[line] if 0 <= line < len(lines) else ""
    end = col + 1
    quoted = re.findall(r"'([^']+)'", d.message)
    at = text[col:]
    named = next((q for q in quoted if re.match(rf"{re.escape(q)}(?![\w])", at)), None)
    if named is None:
        named = next((q for q in quoted if re.search(rf"(?<![\w]){re.escape(q)}(?![\w])", at)), None)
        if named is not None:
            col += re.search(rf"(?<![\w]){re.escape(named)}(?![\w])", at).start()  # type: ignore[union-attr]
    if named is not None:
        end = col + len(named)
    elif at[:1] in ("'", '"') and at.find(at[0], 1) > 0:
        end = col + at.find(at[0], 1) + 1
    elif at[:1] in ("[", "{"):
        depth = 0
        for i, ch in enumerate(at):
            depth += ch in "[{"
            depth -= ch in "]}"
            if depth == 0:
                end = col + i + 1
                break
        else:
            end = len(text)
    elif (w := _WORD.match(at)) is not None:
        end = col + w.end()
    elif at.strip():
        end = col + len(at.split()[0])
    return t.Range(t.Position(line, col), t.Position(line, max(end, col + 1)))


def to_lsp(d: Diagnostic, lines: list[str]) -> t.Diagnostic:
    message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    fix = FIX.search(d.hint or "")
    return t.Diagnostic(range=_in_units(diagnostic_range(d, lines), lines), message=message,
                        severity=SEVERITY.get(d.severity), code=d.code, source="boardrules",
                        data={"fix": fix.group(1)} if fix else None)


def units(line: str, col: int) -> int:
    """A column counted in characters (from 0) as the protocol counts it, in UTF-16 code units."""
    return col + sum(1 for ch in line[:col] if ord(ch) > 0xFFFF)


def points(line: str, character: int) -> int:
    """The protocol's UTF-16 column as a column in characters (from 0)."""
    n = 0
    for i, ch in enumerate(line):
        n += 2 if ord(ch) > 0xFFFF else 1
        if n > character:
            return i
    return len(line)


def _on(lines: list[str], line: int) -> str:
    return lines[line] if 0 <= line < len(lines) else ""


def _in_units(r: t.Range, lines: list[str]) -> t.Range:
    return t.Range(t.Position(r.start.line, units(_on(lines, r.start.line), r.start.character)),
                   t.Position(r.end.line, units(_on(lines, r.end.line), r.end.character)))


def _place_range(p: Place, lines: list[str]) -> t.Range:
    text = _on(lines, p.line - 1)
    return t.Range(t.Position(p.line - 1, units(text, p.col - 1)), t.Position(p.line - 1, units(text, p.end - 1)))


class BoardrulesServer:
    def __init__(self) -> None:
        self.ls = LanguageServer("boardrules", "0.1.0", text_document_sync_kind=t.TextDocumentSyncKind.Incremental)
        self.ws = Workspace()
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="boardrules-check")
        # The whole pack's check runs in a process of its own, started when first needed ("spawn": the
        # server has threads, which a fork would copy half-way).
        self.checker: ProcessPoolExecutor | None = None
        self.edits: dict[str, int] = {}  # file -> edits seen
        self.pack_edits: dict[Path, int] = {}
        self.full_tasks: dict[Path, asyncio.Task] = {}
        self.shown: dict[str, list[Diagnostic]] = {}  # file -> the diagnostics last published
        self._features()

    async def _run(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.worker, fn, *args)

    def _text(self, path: str) -> str | None:
        uri = from_fs_path(path)
        doc = self.ls.workspace.text_documents.get(uri) if uri else None
        return doc.source if doc is not None else None

    def _location(self, p: Place) -> t.Location:
        return t.Location(uri=from_fs_path(p.file) or p.file, range=_place_range(p, self._lines(p.file)))

    def _lines(self, path: str) -> list[str]:
        return _lines(path, self._text(path))

    def _column(self, path: str, pos: t.Position) -> int:
        """The request's column in characters, from 1."""
        return points(_on(self._lines(path), pos.line), pos.character) + 1

    def _publish(self, found: dict[str, list[Diagnostic]]) -> None:
        for path, items in found.items():
            lines = _lines(path, self._text(path))
            self.shown[path] = items
            uri = from_fs_path(path) or path
            self.ls.text_document_publish_diagnostics(t.PublishDiagnosticsParams(
                uri=uri, diagnostics=[to_lsp(d, lines) for d in items]))

    # ---------------------------------------------------------------- checking
    async def changed(self, uri: str) -> None:
        path = real(to_fs_path(uri) or uri)
        n = self.edits[path] = self.edits.get(path, 0) + 1
        root = Path(real(str(pack_root(Path(path)))))
        self.pack_edits[root] = self.pack_edits.get(root, 0) + 1
        await asyncio.sleep(QUICK_DELAY)
        if self.edits[path] != n:
            return
        text = self._text(path) or ""
        if not is_rule_file(path, text):  # an editor sends every YAML file: a workflow is none of ours
            if self.shown.pop(path, None):
                self._publish({path: []})
            return
        found = await self._run(self._quick, path, text)
        if self.edits[path] == n:
            self._publish(found)
        self._schedule_full(path, root)
        await self._run(self._reindex, path)  # after the diagnostics: navigation follows the edit

    def _quick(self, path: str, text: str) -> dict[str, list[Diagnostic]]:
        self.ws.open(path, text)
        return self.ws.quick(path)

    def _reindex(self, path: str) -> None:
        st = self.ws.packs.get(Path(real(str(pack_root(Path(path))))))
        if st is not None:
            self.ws.reindex(st)

    def _schedule_full(self, path: str, root: Path) -> None:
        old = self.full_tasks.get(root)
        if old is not None and not old.done():
            old.cancel()
        self.full_tasks[root] = asyncio.ensure_future(self._full(path, root, self.pack_edits.get(root, 0)))

    async def _full(self, path: str, root: Path, seen: int) -> None:
        await asyncio.sleep(FULL_DELAY)
        if self.checker is None:
            self.checker = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                               initializer=_second_place)
        texts = await self._run(lambda: dict(self.ws.texts))
        try:
            found = await asyncio.get_running_loop().run_in_executor(self.checker, full_check, path, texts)
        except BrokenProcessPool:  # the checker process died: the next full check starts a new one
            self.checker = None
            return
        if self.pack_edits.get(root, 0) == seen:  # a newer edit has its own full check coming
            self._publish(found)

    # ---------------------------------------------------------------- answers from the index
    def _at(self, uri: str, pos: t.Position) -> tuple[PackState | None, str, Use | Declaration | None]:
        path = real(to_fs_path(uri) or uri)
        st = self.ws.packs.get(Path(real(str(pack_root(Path(path))))))
        if st is None:
            return None, path, None
        return st, path, st.index.at(path, pos.line + 1, self._column(path, pos))

    def definition(self, params: t.DefinitionParams) -> list[t.Location] | None:
        st, _, target = self._at(params.text_document.uri, params.position)
        if st is None or target is None:
            return None
        return [self._location(d.place) for d in st.index.definitions(target)] or None

    def references(self, params: t.ReferenceParams) -> list[t.Location] | None:
        st, _, target = self._at(params.text_document.uri, params.position)
        if st is None or target is None:
            return None
        out = []
        for d in st.index.definitions(target):
            if params.context.include_declaration:
                out.append(self._location(d.place))
            out += [self._location(u.place) for u in st.index.references(d)]
        return out or None

    def hover(self, params: t.HoverParams) -> t.Hover | None:
        path = real(to_fs_path(params.text_document.uri) or params.text_document.uri)
        lines = _lines(path, self._text(path))
        line = _on(lines, params.position.line)
        col = points(line, params.position.character)
        word = next((m.group() for m in _WORD.finditer(line) if m.start() <= col <= m.end()), "")
        text = code_text(word)
        if text is None:
            text = self._name_hover(params)
        if text is None:  # over a problem: what its code means
            here = (params.position.line, col)
            for d in self.shown.get(path, []):
                r = diagnostic_range(d, lines)
                if (r.start.line, r.start.character) <= here <= (r.end.line, r.end.character):
                    text = code_text(d.code)
                    break
        return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=text)) if text else None

    def _name_hover(self, params: t.HoverParams) -> str | None:
        st, path, target = self._at(params.text_document.uri, params.position)
        if st is None or target is None:
            return None
        found = st.index.definitions(target)
        if not found:
            return None
        d = found[0]
        mid = st.index.module_of(path) or d.module
        rules = self.ws.rules_for(st, mid if mid in st.index.modules else d.module)
        book = self.ws.book_for(st, d.module) if d.section in RULES else None
        return declaration_text(d, rules, book) if rules is not None else None

    def symbols(self, params: t.DocumentSymbolParams) -> list[t.DocumentSymbol]:
        path = real(to_fs_path(params.text_document.uri) or params.text_document.uri)
        st = self.ws.packs.get(Path(real(str(pack_root(Path(path))))))
        if st is None:
            return []
        return outline(st.index, path, self._lines(path))

    def _linked(self, uri: str) -> bool:
        """Whether completion in this file can be answered without linking (its module's rules are at hand)."""
        path = real(to_fs_path(uri) or uri)
        st = self.ws.packs.get(Path(real(str(pack_root(Path(path))))))
        mid = st.index.module_of(path) if st is not None else None
        return st is not None and not st.stale and (mid is None or mid in st.rules)

    def completion(self, params: t.CompletionParams) -> t.CompletionList:
        path = real(to_fs_path(params.text_document.uri) or params.text_document.uri)
        st = self.ws.packs.get(Path(real(str(pack_root(Path(path))))))
        lines = _lines(path, self._text(path))
        if st is None:
            return t.CompletionList(is_incomplete=False, items=[])
        mid = st.index.module_of(path)
        rules = self.ws.rules_for(st, mid) if mid else None
        items = complete(st.index, rules, path, lines, params.position.line + 1, self._column(path, params.position))
        return t.CompletionList(is_incomplete=False, items=[
            t.CompletionItem(label=i.label, kind=KINDS.get(i.kind), detail=i.detail,
                             documentation=i.documentation, sort_text=f"{i.rank}{i.label}") for i in items])

    def code_actions(self, params: t.CodeActionParams) -> list[t.CodeAction]:
        out = []
        for d in params.context.diagnostics:
            fix = (d.data or {}).get("fix") if isinstance(d.data, dict) else None
            if fix is None:
                m = FIX.search(d.message)
                fix = m.group(1) if m else None
            if fix is None or d.source != "boardrules":
                continue
            edit = t.WorkspaceEdit(changes={params.text_document.uri: [t.TextEdit(range=d.range, new_text=fix)]})
            out.append(t.CodeAction(title=f"Change to '{fix}'", kind=t.CodeActionKind.QuickFix, diagnostics=[d],
                                    edit=edit, is_preferred=True))
        return out

    # ---------------------------------------------------------------- registration
    def _features(self) -> None:
        ls = self.ls

        @ls.feature(t.TEXT_DOCUMENT_DID_OPEN)
        async def did_open(params: t.DidOpenTextDocumentParams) -> None:
            await self.changed(params.text_document.uri)

        @ls.feature(t.TEXT_DOCUMENT_DID_CHANGE)
        async def did_change(params: t.DidChangeTextDocumentParams) -> None:
            await self.changed(params.text_document.uri)

        @ls.feature(t.TEXT_DOCUMENT_DID_SAVE)
        async def did_save(params: t.DidSaveTextDocumentParams) -> None:
            await self.changed(params.text_document.uri)

        @ls.feature(t.TEXT_DOCUMENT_DID_CLOSE)
        async def did_close(params: t.DidCloseTextDocumentParams) -> None:
            path = real(to_fs_path(params.text_document.uri) or params.text_document.uri)
            await self._run(self.ws.close, path)  # the file on disk counts again

        # Through the worker, like hover: queued behind the index rebuild an edit's diagnostics are followed by.
        @ls.feature(t.TEXT_DOCUMENT_DEFINITION)
        async def definition(params: t.DefinitionParams) -> list[t.Location] | None:
            return await self._run(self.definition, params)

        @ls.feature(t.TEXT_DOCUMENT_REFERENCES)
        async def references(params: t.ReferenceParams) -> list[t.Location] | None:
            return await self._run(self.references, params)

        @ls.feature(t.TEXT_DOCUMENT_HOVER)
        async def hover(params: t.HoverParams) -> t.Hover | None:
            return await self._run(self.hover, params)

        @ls.feature(t.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
        def symbols(params: t.DocumentSymbolParams) -> list[t.DocumentSymbol]:
            return self.symbols(params)

        @ls.feature(t.TEXT_DOCUMENT_COMPLETION, t.CompletionOptions(trigger_characters=[".", "[", " ", "("]))
        async def completion(params: t.CompletionParams) -> t.CompletionList:
            if self._linked(params.text_document.uri):  # answered at once, even while a full check runs
                return self.completion(params)
            return await self._run(self.completion, params)

        @ls.feature(t.TEXT_DOCUMENT_CODE_ACTION,
                    t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix]))
        def code_action(params: t.CodeActionParams) -> list[t.CodeAction]:
            return self.code_actions(params)


def outline(index: Index, path: str, lines: list[str]) -> list[t.DocumentSymbol]:
    """The file's actions, procedures, triggers, setup and scoring steps, phases and other declarations, in
    file order; a piece kind's properties and a track's markers below it."""
    mine = [d for d in index.decls if d.place.file == path and d.section != "modules"]
    children: dict[tuple[str, str], list[t.DocumentSymbol]] = {}
    for d in mine:
        if d.section in ("properties", "markers") and d.parent:
            parent_section = "pieces" if d.section == "properties" else "tracks"
            r = _place_range(d.place, lines)
            children.setdefault((parent_section, d.parent), []).append(t.DocumentSymbol(
                name=d.name, kind=t.SymbolKind.Property, range=r, selection_range=r, detail=d.section[:-1]))
    out = []
    for d in sorted(mine, key=lambda d: (d.place.line, d.place.col)):
        if d.section not in SYMBOLS:
            continue
        r = _place_range(d.place, lines)
        out.append(t.DocumentSymbol(name=d.name, kind=SYMBOLS[d.section], range=r, selection_range=r,
                                    detail=d.section, children=children.get((d.section, d.name)) or None))
    return out


def _second_place() -> None:
    """The checker process yields the processor to the server: the next keystroke's quick pass comes first."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(10)


def main() -> int:
    server = BoardrulesServer()
    try:
        server.ls.start_io()
    finally:
        if server.checker is not None:
            server.checker.shutdown(wait=False, cancel_futures=True)
    return 0
