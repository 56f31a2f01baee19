"""`boardrules lsp` driven end to end by a real LSP client (pytest-lsp) over stdio, on a copy of the shipped
Village pack: open a module, make a typo, get the diagnostic at its range, apply the quick fix, complete a
counter in a cost, jump to a declaration in another module, find references, hover, outline."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient

from boardrules.resources import rules_dir

WORK = Path(os.environ.get("BOARDRULES_LSP_TEST_DIR", "/tmp")) / f"boardrules-lsp-test-{os.getpid()}"


@pytest.fixture(scope="module")
def village() -> Path:
    """A copy of the shipped Village pack: the tests type into it."""
    target = WORK / "village"
    shutil.rmtree(WORK, ignore_errors=True)
    shutil.copytree(rules_dir() / "village", target)
    yield target
    shutil.rmtree(WORK, ignore_errors=True)


SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "boardrules", "lsp"])


@pytest_lsp.fixture(scope="module", loop_scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(t.InitializeParams(capabilities=t.ClientCapabilities()))
    yield
    await lsp_client.shutdown_session()


def uri(path: Path) -> str:
    return path.resolve().as_uri()


async def diagnostics_until(client: LanguageClient, target: str,
                            ready: Callable[[Sequence[t.Diagnostic]], bool], timeout: float = 60) -> list[t.Diagnostic]:
    """Wait for the server to publish diagnostics of `target` that satisfy `ready`."""
    async def wait() -> list[t.Diagnostic]:
        while True:
            got = client.diagnostics.get(target)
            if got is not None and ready(got):
                return list(got)
            await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return await asyncio.wait_for(wait(), timeout)


def open_file(client: LanguageClient, path: Path, text: str | None = None) -> str:
    text = path.read_text(encoding="utf-8") if text is None else text
    client.text_document_did_open(t.DidOpenTextDocumentParams(
        text_document=t.TextDocumentItem(uri=uri(path), language_id="yaml", version=1, text=text)))
    return text


def edit(client: LanguageClient, path: Path, version: int, line: int, start: int, end: int, new: str) -> None:
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri(path), version=version),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(t.Position(line, start), t.Position(line, end)), text=new)]))


def errors(items: Sequence[t.Diagnostic]) -> list[t.Diagnostic]:
    return [d for d in items if d.severity == t.DiagnosticSeverity.Error]


COST_LINE = 141  # marriage.yaml, 0-based: `    cost: "2 time + 1 influence[any]"`


@pytest.mark.asyncio(loop_scope="module")
async def test_typo_diagnostic_quick_fix_and_its_code(client: LanguageClient, village: Path) -> None:
    marriage = village / "marriage.yaml"
    text = open_file(client, marriage)
    assert text.split("\n")[COST_LINE] == '    cost: "2 time + 1 influence[any]"'
    await diagnostics_until(client, uri(marriage), lambda ds: not errors(ds))
    edit(client, marriage, 2, COST_LINE, 13, 17, "tme")  # unsaved: the file on disk still says `time`
    found = await diagnostics_until(client, uri(marriage), lambda ds: bool(errors(ds)))
    [typo] = errors(found)
    assert typo.code == "E401"
    assert typo.message == "unknown counter 'tme'\nhint: did you mean 'time'?"
    assert typo.range == t.Range(t.Position(COST_LINE, 13), t.Position(COST_LINE, 16))

    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri(marriage)), range=typo.range,
        context=t.CodeActionContext(diagnostics=[typo])))
    [fix] = actions
    assert fix.title == "Change to 'time'" and fix.kind == t.CodeActionKind.QuickFix
    [change] = fix.edit.changes[uri(marriage)]
    assert change.range == typo.range and change.new_text == "time"
    edit(client, marriage, 3, COST_LINE, 13, 16, change.new_text)
    await diagnostics_until(client, uri(marriage), lambda ds: not errors(ds))

    # Over the problem, the hover explains its code from the registry.
    edit(client, marriage, 4, COST_LINE, 13, 17, "tme")
    found = await diagnostics_until(client, uri(marriage), lambda ds: bool(errors(ds)))
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri(marriage)), position=t.Position(COST_LINE, 14)))
    assert hover is not None and "E401 (error" in hover.contents.value
    edit(client, marriage, 5, COST_LINE, 13, 16, "time")
    await diagnostics_until(client, uri(marriage), lambda ds: not errors(ds))


@pytest.mark.asyncio(loop_scope="module")
async def test_completion_of_a_counter_inside_a_cost(client: LanguageClient, village: Path) -> None:
    marriage = village / "marriage.yaml"
    open_file(client, marriage)
    await diagnostics_until(client, uri(marriage), lambda ds: True)
    result = await client.text_document_completion_async(t.CompletionParams(
        text_document=t.TextDocumentIdentifier(uri=uri(marriage)), position=t.Position(COST_LINE, 15)))
    labels = {item.label: item for item in result.items}
    # Counters and markers of marriage and of the base it requires; nothing that a cost cannot pay after an amount.
    assert {"time", "influence", "goods", "tiles", "points"} <= set(labels)
    assert labels["points"].kind == t.CompletionItemKind.Variable
    assert labels["points"].detail == "counter per player (village.base)"
    assert labels["time"].kind == t.CompletionItemKind.Field  # a marker: paying moves it
    assert labels["time"].detail == "marker per player on time_track (village.base)"
    assert "count" not in labels and "marry" not in labels and "bakery" not in labels
    # After `me.` in an effect line: what each player has.
    result = await client.text_document_completion_async(t.CompletionParams(
        text_document=t.TextDocumentIdentifier(uri=uri(marriage)), position=_after(marriage, "me.tiles[", 3)))
    mine = {item.label for item in result.items}
    assert {"tiles", "goods", "time", "farm"} <= mine and "ceremony" not in mine


def _after(path: Path, needle: str, offset: int) -> t.Position:
    for n, line in enumerate(path.read_text(encoding="utf-8").split("\n")):
        if needle in line:
            return t.Position(n, line.index(needle) + offset)
    raise AssertionError(needle)


def _line_of(path: Path, text: str) -> int:
    return path.read_text(encoding="utf-8").split("\n").index(text)


@pytest.mark.asyncio(loop_scope="module")
async def test_definition_and_references_across_modules(client: LanguageClient, village: Path) -> None:
    marriage, base = village / "marriage.yaml", village / "base.yaml"
    open_file(client, marriage)
    await diagnostics_until(client, uri(marriage), lambda ds: True)
    where = await client.text_document_definition_async(t.DefinitionParams(
        text_document=t.TextDocumentIdentifier(uri=uri(marriage)), position=t.Position(COST_LINE, 14)))
    declaration = "    markers: {time: {start: 1, per: player}}"
    declared, column = _line_of(base, declaration), declaration.index("time")
    assert [(loc.uri, loc.range) for loc in where] == [
        (uri(base), t.Range(t.Position(declared, column), t.Position(declared, column + 4)))]
    refs = await client.text_document_references_async(t.ReferenceParams(
        text_document=t.TextDocumentIdentifier(uri=uri(base)), position=t.Position(declared, column + 1),
        context=t.ReferenceContext(include_declaration=False)))
    places = {(loc.uri, loc.range.start.line, loc.range.start.character) for loc in refs}
    assert (uri(marriage), COST_LINE, 13) in places
    assert {u for u, _, _ in places} >= {uri(marriage), uri(base)}


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_reads_a_rule_back_and_a_name_declaration(client: LanguageClient, village: Path) -> None:
    marriage = village / "marriage.yaml"
    open_file(client, marriage)
    await diagnostics_until(client, uri(marriage), lambda ds: True)
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri(marriage)),
        position=t.Position(_line_of(marriage, "  marry:"), 3)))
    text = hover.contents.value
    assert text.startswith("**marry**: action(")
    assert "Source: 000_f75a952e222057f5.txt, \"Marriage action\"" in text
    assert "\n- " in text  # the rule in prose, one line a step
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri(marriage)), position=t.Position(COST_LINE, 14)))
    assert hover.contents.value.startswith("**time**: marker per player on time_track, declared in village.base")
    assert "Range: spaces 1 to time_track_spaces, starting on 1; a cost moves it forward" in hover.contents.value


@pytest.mark.asyncio(loop_scope="module")
async def test_outline_lists_actions_procedures_and_triggers(client: LanguageClient, village: Path) -> None:
    marriage = village / "marriage.yaml"
    open_file(client, marriage)
    await diagnostics_until(client, uri(marriage), lambda ds: True)
    symbols = await client.text_document_document_symbol_async(t.DocumentSymbolParams(
        text_document=t.TextDocumentIdentifier(uri=uri(marriage))))
    by_name = {s.name: s for s in symbols}
    assert by_name["marry"].kind == t.SymbolKind.Function and by_name["marry"].detail == "actions"
    assert by_name["take_rank_bonus"].detail == "procedures"
    assert any(s.detail == "triggers" for s in symbols)
    assert by_name["marriage_cost"].detail == "costs"
    game = village / "game.yaml"
    open_file(client, game)
    await diagnostics_until(client, uri(game), lambda ds: True)
    symbols = await client.text_document_document_symbol_async(t.DocumentSymbolParams(
        text_document=t.TextDocumentIdentifier(uri=uri(game))))
    assert {"cubes", "actions", "mass"} <= {s.name for s in symbols if s.detail == "phases"}


@pytest.mark.slow
@pytest.mark.asyncio(loop_scope="module")
async def test_the_whole_check_reports_what_an_edit_breaks_in_other_modules(client: LanguageClient,
                                                                           village: Path) -> None:
    """Renaming an event's parameter in village.base (unsaved) breaks a trigger of village.marriage that reads
    it: the full pass, run once the typing stops, reports it in the other file."""
    base, marriage = village / "base.yaml", village / "marriage.yaml"
    open_file(client, marriage)
    open_file(client, base)
    await diagnostics_until(client, uri(marriage), lambda ds: not errors(ds))
    line = _line_of(base, "  villager_died:") + 1
    assert base.read_text(encoding="utf-8").split("\n")[line] == "    params: {v: piece}"
    edit(client, base, 2, line, 13, 14, "dead")
    found = await diagnostics_until(client, uri(marriage), lambda ds: bool(errors(ds)))
    assert [(d.code, d.message.split(chr(10))[0]) for d in errors(found)] == [("E401", "unknown name 'v'")]
    edit(client, base, 3, line, 13, 17, "v")
    await diagnostics_until(client, uri(marriage), lambda ds: not errors(ds))
