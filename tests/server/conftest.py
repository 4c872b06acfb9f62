"""Fixtures that start the real server: over a pipe (stdio) and over TCP."""

from __future__ import annotations

import subprocess
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import anyio
import pytest
from anyio.abc import Process, SocketStream
from dap_client import SERVER, WAIT, DapClient


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
    log_path = tmp_path / "stderr.txt"
    with log_path.open("wb") as log:
        process = subprocess.Popen([*SERVER, "--port", "0"], stderr=log)
        try:
            yield _reported_port(log_path, process)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _reported_port(log_path: Path, process: subprocess.Popen[bytes]) -> int:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        for line in log_path.read_text().splitlines():
            if "listening on 127.0.0.1:" in line:
                return int(line.rsplit(":", 1)[1])
        assert process.poll() is None, log_path.read_text()
        time.sleep(0.05)
    raise AssertionError(f"the server reported no port: {log_path.read_text()}")


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
