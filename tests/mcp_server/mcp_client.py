"""The SDK's own MCP client against a real ``ndb mcp`` subprocess over stdio."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import TextContent

ROOT = Path(__file__).resolve().parents[2]
WAIT = 120  # seconds one tool call may take (the first loads the model)


class ToolFailed(Exception):
    """A tool call answered with is_error; the message is the tool's."""


class Agent:
    """A client session with one call that returns the structured result or raises."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session

    async def call(self, tool: str, /, **arguments: Any) -> dict[str, Any]:
        result = await self.session.call_tool(tool, arguments, read_timeout_seconds=WAIT)
        if result.is_error:
            text = " ".join(c.text for c in result.content if isinstance(c, TextContent))
            raise ToolFailed(text)
        assert isinstance(result.structured_content, dict), result
        return result.structured_content


@asynccontextmanager
async def mcp_server(*options: str, stderr: Path) -> AsyncIterator[Agent]:
    """``ndb mcp`` started by the SDK's stdio client, initialized, and stopped afterwards."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "neural_debugger", "mcp", *options],
        cwd=str(ROOT),
    )
    with stderr.open("w") as log:
        async with (
            stdio_client(params, errlog=log) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield Agent(session)
