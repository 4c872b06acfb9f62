"""Fixtures that start the real server: over a pipe (stdio) and over TCP."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import anyio
import pytest
from anyio.abc import Process, SocketStream
from dap_client import SERVER, DapClient, tcp_server_process


@pytest.fixture
async def stdio_server(tmp_path: Path) -> AsyncIterator[tuple[DapClient, Process]]:
    """``ndb dap`` as a subprocess, spoken to over its stdin and stdout."""
    with (tmp_path / "stderr.txt").open("wb") as log:
        process = await anyio.open_process(SERVER, stderr=log)
        assert process.stdin is not None and process.stdout is not None
        try:
            yield DapClient(process.stdin, process.stdout), process
        finally:
            await process.stdin.aclose()
            with anyio.move_on_after(10):
                await process.wait()
            if process.returncode is None:
                process.kill()
                await process.wait()


@pytest.fixture
def tcp_server(tmp_path: Path) -> Iterator[int]:
    """``ndb dap --port 0`` as a subprocess; yields the port it reports listening on."""
    with tcp_server_process(tmp_path / "stderr.txt") as (_, port):
        yield port


@pytest.fixture
async def connect(tcp_server: int) -> AsyncIterator[Callable[[], Awaitable[DapClient]]]:
    """Opens TCP connections to the server, each a client of its own; closes them after."""
    streams: list[SocketStream] = []

    async def client() -> DapClient:
        stream = await anyio.connect_tcp("127.0.0.1", tcp_server)
        streams.append(stream)
        return DapClient(stream, stream)

    yield client
    for stream in streams:
        await stream.aclose()
