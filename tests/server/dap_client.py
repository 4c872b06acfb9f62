"""A small DAP client for the server tests.

It frames messages itself (it does not reuse the server's transport), so a framing mistake in
the server cannot be hidden by the same mistake on this side.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bubble_sort.py"
ENTRY = "bubble_sort([3, 1, 2])"
SERVER = [sys.executable, "-m", "neural_debugger", "dap"]
WAIT = 30  # seconds any one message may take


class DapClient:
    """Speaks DAP over a pair of byte streams, keeping messages that arrive out of turn."""

    def __init__(self, send: ByteSendStream, receive: ByteReceiveStream) -> None:
        self._send = send
        self._receive = receive
        self._buffer = b""
        self._seq = 0
        self.pending: list[dict[str, Any]] = []

    async def raw(self, data: bytes) -> None:
        await self._send.send(data)

    async def send(self, command: str, **arguments: Any) -> int:
        self._seq += 1
        body = json.dumps({"seq": self._seq, "type": "request", "command": command,
                           "arguments": arguments}).encode()  # fmt: skip
        await self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return self._seq

    async def _read(self) -> dict[str, Any]:
        with anyio.fail_after(WAIT):
            while b"\r\n\r\n" not in self._buffer:
                self._buffer += await self._receive.receive()
            header, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
            fields = dict(line.split(b": ", 1) for line in header.split(b"\r\n"))
            length = int(fields[b"Content-Length"])
            while len(self._buffer) < length:
                self._buffer += await self._receive.receive()
        body, self._buffer = self._buffer[:length], self._buffer[length:]
        return json.loads(body)

    async def _find(self, wanted: Any) -> dict[str, Any]:
        for message in self.pending:
            if wanted(message):
                self.pending.remove(message)
                return message
        while True:
            message = await self._read()
            if wanted(message):
                return message
            self.pending.append(message)

    async def response(self, seq: int) -> dict[str, Any]:
        return await self._find(lambda m: m["type"] == "response" and m["request_seq"] == seq)

    async def event(self, name: str) -> dict[str, Any]:
        return await self._find(lambda m: m["type"] == "event" and m["event"] == name)

    async def next_event(self, *names: str) -> dict[str, Any]:
        """The next event with one of these names."""
        return await self._find(lambda m: m["type"] == "event" and m["event"] in names)

    async def request(self, command: str, **arguments: Any) -> dict[str, Any]:
        return await self.response(await self.send(command, **arguments))

    async def ok(self, command: str, **arguments: Any) -> dict[str, Any]:
        """The body of a successful response (the test fails on an error response)."""
        answer = await self.request(command, **arguments)
        assert answer["success"], answer
        assert answer["command"] == command
        return answer.get("body", {})

    async def refused(self, command: str, **arguments: Any) -> str:
        """The message of an error response (the test fails if the request succeeds)."""
        answer = await self.request(command, **arguments)
        assert not answer["success"], answer
        return answer["message"]

    async def stopped(self) -> dict[str, Any]:
        """The next stopped event's body."""
        return (await self.event("stopped"))["body"]

    async def top(self) -> dict[str, Any]:
        """The innermost frame of the current stop."""
        return (await self.ok("stackTrace", threadId=1))["stackFrames"][0]

    async def locals(self, frame_id: int | None = None) -> dict[str, dict[str, Any]]:
        """The variables of a frame's Locals scope, by name."""
        frame_id = frame_id or (await self.top())["id"]
        scopes = (await self.ok("scopes", frameId=frame_id))["scopes"]
        scope = next(s for s in scopes if s["name"].startswith("Locals"))
        found = await self.ok("variables", variablesReference=scope["variablesReference"])
        return {v["name"]: v for v in found["variables"]}

    async def start(self, *, breakpoints: tuple[int, ...] = (), **launch: Any) -> None:
        """initialize, launch bubble_sort (oracle unless told), breakpoints, configurationDone."""
        capabilities = await self.ok(
            "initialize",
            adapterID="ndb",
            supportsInvalidatedEvent=True,
            supportsProgressReporting=True,
        )
        assert capabilities["supportsStepBack"] is True
        arguments = {"program": str(EXAMPLE), "entry": ENTRY, "backend": "oracle", **launch}
        await self.ok("launch", **arguments)
        await self.event("initialized")
        if breakpoints:
            lines = [{"line": n} for n in breakpoints]
            await self.ok("setBreakpoints", source={"path": str(EXAMPLE)}, breakpoints=lines)
        await self.ok("configurationDone")


@contextlib.contextmanager
def tcp_server_process(log_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``ndb dap --port 0`` as a subprocess and the port it reports; stopped afterwards."""
    with log_path.open("wb") as log:
        process = subprocess.Popen([*SERVER, "--port", "0"], stderr=log)
        try:
            yield process, _reported_port(log_path, process)
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
