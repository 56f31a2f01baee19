"""The language server as a designer types: how long a diagnostics update of one Village module takes.

Each repeat makes a new edit in the module's buffer (a different cost amount and a comment, so nothing is
answered from a cache by its text) and times, in CPU time of this process:
- quick: what the server runs after each keystroke pause (`Workspace.quick`: reload the edited file, link its
  module with what it requires, building only its own rule bodies), the figure the 150 ms target is about;
- then the index: `Workspace.reindex`, which the server runs right after publishing (navigation and
  completion follow the edit), not part of the diagnostics' delay;
- full: `Workspace.full`, the whole pack's `check` the server runs once the typing stops;
- relink: the edited file reloaded and its module linked with every rule body built (what quick would cost
  without the focused link), for comparison.

With --server N, also the wall-clock time from an edit sent to `boardrules lsp` over stdio to its diagnostics
received (pygls's client), which adds the server's 20 ms pause and the protocol to the quick pass.

Usage: .venv/bin/python benchmarks/bench_lsp.py [--repeats 15] [--modules marriage base] [--server 10]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from timing import interleaved, spread

from boardrules.diagnostics import Diagnostics
from boardrules.language.loader import buffers
from boardrules.language.pack import link, load_modules
from boardrules.lsp.workspace import Workspace
from boardrules.resources import rules_dir

EDITS = {  # module file -> (text to find, a template of the edit; {n} changes every time)
    "marriage.yaml": ('cost: "2 time + 1 influence[any]"', 'cost: "{n} time + 1 influence[any]"  # {n}'),
    "base.yaml": ("  time_track:\n", "  time_track: # {n}\n"),
    "game.yaml": ("  cubes:\n", "  cubes: # {n}\n"),
    "solo.yaml": ("module: village.solo\n", "module: village.solo  # {n}\n"),
}


def cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def measure(path: Path, repeats: int) -> dict[str, list[float]]:
    """quick, relink and full of one module file, each repeat after a new edit."""
    text = path.read_text(encoding="utf-8")
    old, template = EDITS[path.name]
    assert old in text, path.name
    ws = Workspace()
    ws.open(str(path), text)
    ws.quick(str(path))  # the first pass loads every module and the grammar
    ws.full(str(path))
    counter = iter(range(1, 10**9))

    def edited() -> str:
        n = next(counter)
        return text.replace(old, template.format(n=n % 9 + 1 if "cost" in old else n))

    def quick() -> float:
        ws.open(str(path), edited())
        return cpu(lambda: ws.quick(str(path)))

    def reindex() -> float:
        ws.open(str(path), edited())
        ws.quick(str(path))
        return cpu(lambda: ws.reindex(ws.state(str(path))))

    def full() -> float:
        ws.open(str(path), edited())
        return cpu(lambda: ws.full(str(path)))

    def relink() -> float:
        data = edited().encode()

        def run() -> None:
            st = ws.state(str(path))
            with buffers({path: data}):
                module = next(iter(load_modules([path], Diagnostics()).values()))
            modules = {ld.module.id: ld.module for ld in st.files.values() if ld.module is not None}
            modules[module.id] = module
            link(modules, [module.id], Diagnostics())
        return cpu(run)

    return interleaved({"quick": quick, "reindex": reindex, "relink": relink, "full": full}, repeats)


async def through_the_server(path: Path, edits: int) -> list[float]:
    """Wall-clock seconds from sending an edit to `boardrules lsp` over stdio to receiving its diagnostics,
    the server's 20 ms pause for a burst of keystrokes included; each edit after the previous one settled."""
    from lsprotocol import types as t
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("bench", "1")
    arrived = asyncio.Event()

    @client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: t.PublishDiagnosticsParams) -> None:
        if params.uri == path.resolve().as_uri():
            arrived.set()

    await client.start_io(sys.executable, "-m", "boardrules", "lsp")
    await client.initialize_async(t.InitializeParams(capabilities=t.ClientCapabilities()))
    client.initialized(t.InitializedParams())
    text = path.read_text(encoding="utf-8")
    old, template = EDITS[path.name]
    uri = path.resolve().as_uri()
    client.text_document_did_open(t.DidOpenTextDocumentParams(
        text_document=t.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)))
    await asyncio.sleep(SETTLE * 3)
    out = []
    for n in range(1, edits + 1):
        arrived.clear()
        start = time.perf_counter()
        client.text_document_did_change(t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=n + 1),
            content_changes=[t.TextDocumentContentChangeWholeDocument(
                text=text.replace(old, template.format(n=n % 9 + 1)))]))
        await arrived.wait()
        out.append(time.perf_counter() - start)
        await asyncio.sleep(SETTLE)  # the full check of the pack runs and publishes before the next edit
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return out


SETTLE = 2.5  # s


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--modules", nargs="+", default=["marriage", "base", "game", "solo"])
    parser.add_argument("--server", type=int, default=0, metavar="EDITS",
                        help="also time EDITS edits through the server process, edit to diagnostics")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-lsp-"))
    try:
        pack = work / "village"
        shutil.copytree(rules_dir() / "village", pack)
        print(f"Village pack, CPU ms per diagnostics update after an edit (median [min-max] of {args.repeats})")
        print(f"{'module':10} {'quick':>18} {'then the index':>18} {'relink (all bodies)':>20} {'full check':>20}")
        for name in args.modules:
            out = measure(pack / f"{name}.yaml", args.repeats)
            cells = []
            for key in ("quick", "reindex", "relink", "full"):
                med, low, high, _, _ = spread(out[key])
                cells.append(f"{med * 1000:7.1f} [{low * 1000:.0f}-{high * 1000:.0f}]")
            print(f"{name:10} {cells[0]:>18} {cells[1]:>18} {cells[2]:>20} {cells[3]:>20}", flush=True)
        if args.server:
            waits = asyncio.run(through_the_server(pack / "marriage.yaml", args.server))
            med, low, high, _, _ = spread(waits)
            print(f"through `boardrules lsp` over stdio, edit of marriage.yaml to its diagnostics (wall clock, "
                  f"{args.server} edits): {med * 1000:.0f} ms [{low * 1000:.0f}-{high * 1000:.0f}]")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
