"""An editor stand-in: pygls's language client driving ``ndb lsp`` over its stdin and stdout.

It declares what VS Code declares for the features under test (inlay hint and code lens refresh)
and records what the server pushes: published diagnostics per document version, and refresh
requests.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

from lsprotocol import types
from pygls.lsp.client import LanguageClient

SERVER = (sys.executable, "-m", "neural_debugger", "lsp", "--stdio")  # as VS Code starts it
WAIT = 30.0  # seconds for any one answer; the local model loads in a few
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bubble_sort.py"
ENTRY = "bubble_sort([3, 1, 2])"
T = TypeVar("T")


def annotated_example() -> str:
    """``examples/bubble_sort.py`` with ``# ndb: bubble_sort([3, 1, 2])`` above the function."""
    source = EXAMPLE.read_text()
    return source.replace("def bubble_sort(", f"# ndb: {ENTRY}\ndef bubble_sort(", 1)


def line_of(source: str, text: str) -> int:
    """The 0-based number of the first line that contains ``text``."""
    return next(i for i, line in enumerate(source.split("\n")) if text in line)


class Editor:
    """One server process and the documents opened in it."""

    def __init__(self) -> None:
        self.client = LanguageClient("ndb-lsp-tests", "0")
        self.published: list[types.PublishDiagnosticsParams] = []
        self.refreshes: list[str] = []
        self._news = asyncio.Condition()
        self.versions: dict[str, int] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        async def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            async with self._news:
                self.published.append(params)
                self._news.notify_all()

        @self.client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
        def on_hint_refresh(params: None) -> None:
            self.refreshes.append("inlayHint")

        @self.client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
        def on_lens_refresh(params: None) -> None:
            self.refreshes.append("codeLens")

    async def start(self, options: dict[str, object]) -> types.InitializeResult:
        await self.client.start_io(*SERVER)
        capabilities = types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                inlay_hint=types.InlayHintWorkspaceClientCapabilities(refresh_support=True),
                code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True),
            ),
            text_document=types.TextDocumentClientCapabilities(
                hover=types.HoverClientCapabilities(
                    content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]
                ),
            ),
        )
        result = await self._answer(
            self.client.initialize_async(
                types.InitializeParams(capabilities=capabilities, initialization_options=options)
            )
        )
        self.client.initialized(types.InitializedParams())
        return result

    async def stop(self) -> None:
        try:
            await self._answer(self.client.shutdown_async(None))
            self.client.exit(None)
            await asyncio.wait_for(self.client.stop(), WAIT)
        finally:
            server = self.client._server  # the process the client started
            if server is not None and server.returncode is None:
                server.kill()
                await server.wait()

    # ---- documents ---------------------------------------------------------------------

    def open(self, uri: str, text: str) -> None:
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=text
                )
            )
        )

    def replace(self, uri: str, line: int, start: int, end: int, text: str) -> int:
        """Replace characters ``start``..``end`` of 0-based ``line``; returns the new version."""
        self.versions[uri] += 1
        where = types.Range(
            start=types.Position(line=line, character=start),
            end=types.Position(line=line, character=end),
        )
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[types.TextDocumentContentChangePartial(range=where, text=text)],
            )
        )
        return self.versions[uri]

    async def diagnostics(self, uri: str, version: int) -> list[types.Diagnostic]:
        """The diagnostics published for ``version`` of the document (waits for them)."""

        def found() -> types.PublishDiagnosticsParams | None:
            return next((p for p in self.published if p.uri == uri and p.version == version), None)

        async with self._news:
            await asyncio.wait_for(self._news.wait_for(lambda: found() is not None), WAIT)
        published = found()
        assert published is not None
        return list(published.diagnostics)

    # ---- requests ----------------------------------------------------------------------

    async def inlay_hints(self, uri: str, lines: int) -> list[types.InlayHint]:
        span = types.Range(
            start=types.Position(line=0, character=0), end=types.Position(line=lines, character=0)
        )
        hints = await self._answer(
            self.client.text_document_inlay_hint_async(
                types.InlayHintParams(
                    text_document=types.TextDocumentIdentifier(uri=uri), range=span
                )
            )
        )
        return list(hints or [])

    async def hover(self, uri: str, line: int, character: int) -> types.Hover | None:
        return await self._answer(
            self.client.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    position=types.Position(line=line, character=character),
                )
            )
        )

    async def code_lenses(self, uri: str) -> list[types.CodeLens]:
        lenses = await self._answer(
            self.client.text_document_code_lens_async(
                types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
        )
        return list(lenses or [])

    async def _answer(self, request: Awaitable[T]) -> T:
        return await asyncio.wait_for(request, WAIT)
