"""The language server: one small handler per LSP feature, all answered from predictions.

Opening or editing a document (re)starts its prediction (see :mod:`.documents`); when it is done,
the server publishes the document's diagnostics and asks the client to refresh its inlay hints
and code lenses (where the client supports that). Hint, hover and lens requests wait for the
prediction of the document's latest text. Builders work in code points; positions are converted
to the client's encoding (UTF-16 unless negotiated otherwise) here, at the edge.
"""

from __future__ import annotations

import logging

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace.position_codec import PositionCodec

from neural_debugger import __version__

from .diagnostics import diagnostics
from .documents import Documents, Snapshot
from .hover import hover
from .inlay import inlay_hints
from .lens import code_lenses
from .options import Options, OptionsError
from .predict import DocumentPrediction, Predictor

log = logging.getLogger(__name__)
UNTITLED = "untitled.py"  # the path a document without a file is predicted under


class NeuralLanguageServer(LanguageServer):
    """A language server whose answers come from predicted sessions of annotated calls."""

    def __init__(self, defaults: Options) -> None:
        super().__init__("ndb-lsp", __version__)
        self.defaults = defaults
        self.predictor = Predictor(defaults)
        self.documents = Documents(self._work, defaults.debounce, self._publish)

    def configure(self, raw: object) -> None:
        """Apply the client's initialization options; bad ones fail every prediction visibly."""
        try:
            options = self.defaults.updated(raw)
            self.predictor = Predictor(options)
        except OptionsError as err:
            options = self.defaults
            self.predictor = Predictor(options, problem=f"bad initializationOptions: {err}")
        self.documents.debounce = options.debounce

    def track(self, uri: str) -> None:
        """Predict the document's current text (after the debounce)."""
        document = self.workspace.get_text_document(uri)
        path = to_fs_path(uri) if uri.startswith("file:") else None
        self.documents.update(Snapshot(uri, document.version, path or UNTITLED, document.source))

    async def _work(self, snapshot: Snapshot) -> DocumentPrediction:
        return await self.predictor.predict_document(
            snapshot.uri, snapshot.version, snapshot.path, snapshot.source
        )

    def _publish(self, prediction: DocumentPrediction) -> None:
        lines = prediction.analysis.lines
        found = diagnostics(prediction)
        for diagnostic in found:
            diagnostic.range = self.codec.range_to_client_units(lines, diagnostic.range)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=prediction.uri, diagnostics=found, version=prediction.version
            )
        )
        workspace = self.client_capabilities.workspace
        if workspace is not None and workspace.inlay_hint and workspace.inlay_hint.refresh_support:
            self.workspace_inlay_hint_refresh(None)
        if workspace is not None and workspace.code_lens and workspace.code_lens.refresh_support:
            self.workspace_code_lens_refresh(None)

    @property
    def codec(self) -> PositionCodec:
        return self.workspace.position_codec


def build_server(defaults: Options) -> NeuralLanguageServer:
    """The server with its features registered (the command line gives the defaults)."""
    server = NeuralLanguageServer(defaults)

    @server.feature(types.INITIALIZE)
    def initialize(ls: NeuralLanguageServer, params: types.InitializeParams) -> None:
        ls.configure(params.initialization_options)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: NeuralLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.track(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: NeuralLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.track(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: NeuralLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.documents.close(params.text_document.uri)
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    async def inlay_hint(
        ls: NeuralLanguageServer, params: types.InlayHintParams
    ) -> list[types.InlayHint]:
        prediction = await ls.documents.result(params.text_document.uri)
        if prediction is None:
            return []
        span = params.range
        return inlay_hints(prediction, span.start.line, span.end.line, ls.codec.client_num_units)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: NeuralLanguageServer, params: types.HoverParams) -> types.Hover | None:
        prediction = await ls.documents.result(params.text_document.uri)
        if prediction is None:
            return None
        lines = prediction.analysis.lines
        at = ls.codec.position_from_client_units(lines, params.position)
        answer = hover(prediction, at.line, at.character)
        if answer is not None and answer.range is not None:
            answer.range = ls.codec.range_to_client_units(lines, answer.range)
        return answer

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    async def code_lens(
        ls: NeuralLanguageServer, params: types.CodeLensParams
    ) -> list[types.CodeLens]:
        prediction = await ls.documents.result(params.text_document.uri)
        if prediction is None:
            return []
        lines = prediction.analysis.lines
        lenses = code_lenses(prediction)
        for lens in lenses:
            lens.range = ls.codec.range_to_client_units(lines, lens.range)
        return lenses

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: NeuralLanguageServer, params: None) -> None:
        await ls.documents.aclose()
        await ls.predictor.aclose()

    return server
