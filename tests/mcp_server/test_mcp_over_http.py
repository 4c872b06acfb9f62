"""``ndb mcp --http``: the same tools over streamable HTTP, on the loopback interface only."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_client import ROOT, Agent

STARTUP_S = 60


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        assert process.poll() is None, "the server exited before listening"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"ndb mcp --http did not listen on port {port} within {STARTUP_S} s")


async def test_tools_over_streamable_http_on_loopback(tmp_path: Path, programs) -> None:
    port = free_port()
    with (tmp_path / "server.stderr.txt").open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "neural_debugger", "mcp", "--http", "--port", str(port)],
            cwd=ROOT,
            stdout=log,
            stderr=log,
        )
        try:
            wait_listening(port, process)
            async with (
                streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                agent = Agent(session)
                listed = await session.list_tools()
                assert "start_session" in {tool.name for tool in listed.tools}
                first = await agent.call(
                    "start_session",
                    program=str(programs["shift"]),
                    entry="shift(2)",
                    backend="oracle",
                    allow_execution=True,
                )
                stop = first
                for _ in range(4):  # the wrapper's line, the call, shift's lines 2 and 3
                    stop = await agent.call("step", session_id=first["session_id"], action="into")
                assert (stop["frame"], stop["line"], stop["locals"]) == (
                    "shift",
                    3,
                    {
                        "x": "2",
                        "y": "3",
                    },
                )
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_http_refuses_a_port_out_of_range() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "neural_debugger", "mcp", "--http", "--port", "70000"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert out.returncode == 2 and "not a port number" in out.stderr
