"""Fixtures that start the real server: over a pipe (stdio) and over TCP."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from anyio.abc import Process
from launching import WAIT

from neural_debugger.evaluation.dap_client import NDB_DAP, DapClient, tcp_server


@pytest.fixture
async def stdio_server(tmp_path: Path) -> AsyncIterator[tuple[DapClient, Process]]:
    """``ndb dap`` as a subprocess, spoken to over its stdin and stdout."""
    dap = await DapClient.spawn(NDB_DAP, tmp_path / "stderr.txt", timeout=WAIT, keep_output=True)
    assert dap.process is not None
    try:
        yield dap, dap.process
    finally:
        await dap.aclose()


@pytest.fixture
def tcp_server_port(tmp_path: Path) -> Iterator[int]:
    """``ndb dap --port 0`` as a subprocess; yields the port it reports listening on."""
    with tcp_server(tmp_path / "stderr.txt") as (_, port):
        yield port


@pytest.fixture
async def connect(tcp_server_port: int) -> AsyncIterator[Callable[[], Awaitable[DapClient]]]:
    """Opens TCP connections to the server, each a client of its own; closes them after."""
    clients: list[DapClient] = []

    async def client() -> DapClient:
        clients.append(await DapClient.connect(tcp_server_port, timeout=WAIT, keep_output=True))
        return clients[-1]

    yield client
    for dap in clients:
        await dap.aclose()
