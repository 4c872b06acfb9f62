"""A started editor per test: ``ndb lsp`` in a subprocess, shut down cleanly afterwards."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from lsp_client import Editor


@pytest.fixture
async def editor() -> AsyncIterator[Callable[[dict[str, object]], Awaitable[Editor]]]:
    """Call it with the initializationOptions to start the server with."""
    started: list[Editor] = []

    async def start(options: dict[str, object]) -> Editor:
        editor = Editor()
        started.append(editor)
        await editor.start(options)
        return editor

    yield start
    for editor in started:
        await editor.stop()
