"""Predicted sessions of annotated calls: one engine per server, results cached by text.

Each valid annotation of a document that compiles gets a session of its call that steps into
until the call returns or the step budget runs out. The engine (the embedded model by default)
is made once, on first use, in a worker thread, since loading the model takes seconds; each
prediction already runs in a worker thread, so the server keeps answering meanwhile. Results are
cached by ``(path, source, entry)``: reopening a document or undoing an edit costs nothing.
Sessions run one at a time (``_turn``), since they compete for the same CPU.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass

from neural_debugger.model_backend.api import EnginePool, SessionError, open_session
from neural_debugger.model_backend.backend import BackendError
from neural_debugger.model_backend.session import Stop
from neural_debugger.protocol import Action, ActionKind
from neural_debugger.tracer.program import ProgramError
from neural_debugger.tracer.record import TracerFailure

from .analysis import Analysis, analyze
from .options import Options

CACHE_SIZE = 64
STEP_INTO = Action(kind=ActionKind.STEP_INTO)
# What a prediction can fail with that is the program's or the backend's doing, not a bug here.
PREDICTION_ERRORS = (BackendError, ProgramError, TracerFailure, ValueError, OSError)


@dataclass(frozen=True)
class PredictedRun:
    """The stops one annotation's predicted session went through.

    ``finished``: the session reached the program's exit within ``max_steps``. ``error``: why it
    stopped early or never started (the stops before it are kept).
    """

    entry: str
    path: str
    max_steps: int
    stops: tuple[Stop, ...] = ()
    finished: bool = False
    error: str | None = None


@dataclass(frozen=True)
class DocumentPrediction:
    """One version of a document: what its text says and what was predicted for it.

    ``runs`` has one entry per annotation, ``None`` where nothing was predicted (an invalid
    annotation, or a document with a syntax error).
    """

    uri: str
    version: int | None
    analysis: Analysis
    runs: tuple[PredictedRun | None, ...]
    backend: str


class Predictor:
    """Predicts annotated calls through the session API, one engine (pooled) for all of them.

    ``problem`` (bad settings) makes every prediction fail with that message, so the editor shows
    it at each annotation instead of predicting with settings the user did not ask for.
    """

    def __init__(self, options: Options, problem: str | None = None) -> None:
        self.options = options
        self._engines = EnginePool()
        self._problem = problem
        self._turn = asyncio.Lock()
        self._cache: OrderedDict[tuple[str, str, str], PredictedRun] = OrderedDict()

    async def predict_document(
        self, uri: str, version: int | None, path: str, source: str
    ) -> DocumentPrediction:
        """Analyse ``source`` and predict each valid annotation's call (none on a syntax error)."""
        analysis = analyze(source)
        runs: list[PredictedRun | None] = []
        for annotation in analysis.annotations:
            if analysis.syntax_error is not None or not annotation.valid:
                runs.append(None)
            else:
                runs.append(await self.predict(path, source, annotation.entry))
        return DocumentPrediction(uri, version, analysis, tuple(runs), self.options.backend)

    async def predict(self, path: str, source: str, entry: str) -> PredictedRun:
        """The predicted session of ``entry`` over ``source`` (cached)."""
        key = (path, source, entry)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        async with self._turn:
            run = await self._run(path, source, entry)
        self._cache[key] = run
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return run

    async def _run(self, path: str, source: str, entry: str) -> PredictedRun:
        limit = self.options.max_steps
        try:
            if self._problem is not None:
                raise SessionError(self._problem)
            opened = await open_session(
                path,
                entry=entry,
                source=source,
                backend=self.options.backend,
                model=self.options.model,
                engines=self._engines,
            )
        except (SessionError, *PREDICTION_ERRORS) as err:
            return PredictedRun(entry, path, limit, error=str(err))
        session = opened.session
        error = None
        try:
            while not session.finished and len(session.stops) <= limit:
                await session.step(STEP_INTO)
        except PREDICTION_ERRORS as err:
            error = str(err)
        # Not on cancellation: an abandoned worker thread may still be finishing its token.
        await session.backend.aclose()
        return PredictedRun(entry, path, limit, tuple(session.stops), session.finished, error)

    async def aclose(self) -> None:
        await self._engines.aclose()
