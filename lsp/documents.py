"""One prediction task per open document: started after a quiet spell, replaced on each edit.

Every edit cancels the document's task and starts a new one that first waits ``debounce`` seconds,
so typing does not start a prediction per keystroke, and a cancelled prediction stops at its next
token (the engines stop a worker thread when its awaiting task is cancelled). A request (inlay
hints, hover, lenses) waits for the task of the latest text, so it never answers from an older
version of the document; a request cancelled by the client leaves the task running.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .predict import DocumentPrediction

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Snapshot:
    """One version of a document's text, and the file path it is predicted under."""

    uri: str
    version: int | None
    path: str
    source: str


Work = Callable[[Snapshot], Awaitable[DocumentPrediction]]
Done = Callable[[DocumentPrediction], None]


class Documents:
    """The latest prediction task and result of each open document."""

    def __init__(self, work: Work, debounce: float, done: Done) -> None:
        self.work = work
        self.debounce = debounce
        self.done = done
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._results: dict[str, DocumentPrediction] = {}

    def update(self, snapshot: Snapshot) -> None:
        """The document has new text: drop what was being predicted and start again."""
        self._cancel(snapshot.uri)
        self._results.pop(snapshot.uri, None)
        self._tasks[snapshot.uri] = asyncio.create_task(self._predict(snapshot))

    def close(self, uri: str) -> None:
        self._cancel(uri)
        self._results.pop(uri, None)

    async def result(self, uri: str) -> DocumentPrediction | None:
        """The prediction for the document's latest text (None: closed, or it failed)."""
        while (task := self._tasks.get(uri)) is not None and not task.done():
            await asyncio.wait({task})  # a newer edit may replace it meanwhile: look again
        return self._results.get(uri)

    async def aclose(self) -> None:
        for uri in list(self._tasks):
            self._cancel(uri)

    def _cancel(self, uri: str) -> None:
        task = self._tasks.pop(uri, None)
        if task is not None:
            task.cancel()

    async def _predict(self, snapshot: Snapshot) -> None:
        await asyncio.sleep(self.debounce)
        try:
            prediction = await self.work(snapshot)
            self._results[snapshot.uri] = prediction
            self.done(prediction)
        except Exception:  # a bug must not take the server down; the log says what it was
            log.exception("predicting %s failed", snapshot.uri)
