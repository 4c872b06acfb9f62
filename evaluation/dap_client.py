"""The one Python DAP client: server tests, benchmarks and cross-checks all speak through it.

It frames messages itself (nothing of the server's transport is reused), so a framing mistake
in the server cannot be hidden by the same mistake on this side. It talks to an adapter over a
subprocess's stdin and stdout (:meth:`DapClient.spawn`, how editors start ``ndb dap`` and
debugpy's adapter) or over TCP (:meth:`DapClient.connect`, ``ndb dap --port``).

Messages that arrive out of turn (events while a response is awaited, and the reverse) are kept
until asked for, so requests and events can be awaited in any order. Every wait is bounded, and
an adapter that goes away or writes something that is not a DAP message raises
:class:`DapError` saying so, never a hang or a bare ``KeyError``.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process

Message = dict[str, Any]

NDB_DAP = [sys.executable, "-m", "neural_debugger", "dap"]  # the adapter as an editor starts it
WAIT = 30.0  # default seconds any one awaited message may take
_CLOSED = (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError)


class DapError(Exception):
    """A request failed, an answer did not come in time, or the adapter went away or wrote
    something that is not a DAP message."""


class DapClient:
    """Speaks DAP over a pair of byte streams.

    ``timeout`` bounds each awaited message. ``output`` events (the program's prints) are
    dropped unless ``keep_output``: a long session would otherwise pile them up unread.
    """

    def __init__(
        self,
        send: ByteSendStream,
        receive: ByteReceiveStream,
        *,
        timeout: float = WAIT,
        keep_output: bool = False,
        process: Process | None = None,
    ) -> None:
        self.timeout = timeout
        self.keep_output = keep_output
        self.process = process  # the adapter's process when this client started it
        self._send = send
        self._receive = receive
        self._buffer = b""
        self._seq = 0
        self._pending: list[Message] = []

    # ---- opening and closing -------------------------------------------------------------------

    @classmethod
    async def spawn(
        cls,
        command: list[str],
        stderr: Path,
        *,
        timeout: float = WAIT,
        keep_output: bool = False,
        env: Mapping[str, str] | None = None,
    ) -> DapClient:
        """Start an adapter that speaks DAP on its stdin and stdout; its stderr goes to the
        file ``stderr`` (a file, so a full pipe can never block it)."""
        with stderr.open("wb") as log:
            process = await anyio.open_process(command, stderr=log, env=env)
        assert process.stdin is not None and process.stdout is not None
        return cls(
            process.stdin,
            process.stdout,
            timeout=timeout,
            keep_output=keep_output,
            process=process,
        )

    @classmethod
    async def connect(
        cls, port: int, *, host: str = "127.0.0.1", timeout: float = WAIT, keep_output: bool = False
    ) -> DapClient:
        """Connect to an adapter listening on TCP (``ndb dap --port``)."""
        stream = await anyio.connect_tcp(host, port)
        return cls(stream, stream, timeout=timeout, keep_output=keep_output)

    async def aclose(self) -> None:
        """Close the connection at once, saying nothing (as an editor that crashes does); a
        process this client started is given a few seconds to end, then killed."""
        with anyio.move_on_after(1):
            await self._send.aclose()
        if id(self._receive) != id(self._send):  # a socket is both; closed once
            with anyio.move_on_after(1):
                await self._receive.aclose()
        if self.process is None:
            return
        with anyio.move_on_after(5):
            await self.process.wait()
        if self.process.returncode is None:
            self.process.kill()
            with anyio.CancelScope(shield=True):
                await self.process.wait()

    async def close(self) -> None:
        """Ask the adapter to end the session (``disconnect``), then close as :meth:`aclose`."""
        with anyio.move_on_after(5):
            try:
                await self.send("disconnect", terminateDebuggee=True)
                await self.find(lambda m: m.get("command") == "disconnect", "disconnect")
            except (DapError, OSError, *_CLOSED):
                pass
        await self.aclose()

    async def __aenter__(self) -> DapClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.aclose()

    # ---- writing and reading -------------------------------------------------------------------

    async def raw(self, data: bytes) -> None:
        """Write bytes as they are (for tests of what the adapter does with malformed input)."""
        try:
            await self._send.send(data)
        except _CLOSED:
            raise DapError(f"the adapter closed its input{self._exit_note()}") from None

    async def send(self, command: str, **arguments: Any) -> int:
        """Send a request; its sequence number, to await the response by."""
        self._seq += 1
        message = {"seq": self._seq, "type": "request", "command": command}
        message["arguments"] = arguments
        body = json.dumps(message).encode()
        await self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return self._seq

    async def _more(self) -> None:
        try:
            self._buffer += await self._receive.receive()
        except _CLOSED:
            raise DapError(f"the adapter closed its output{self._exit_note()}") from None

    def _exit_note(self) -> str:
        if self.process is None or self.process.returncode is None:
            return ""
        return f" (it exited with code {self.process.returncode})"

    async def _read(self) -> Message:
        while b"\r\n\r\n" not in self._buffer:
            await self._more()
        header, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        fields = {}
        for line in header.split(b"\r\n"):
            name, colon, value = line.partition(b":")
            if colon:
                fields[name.strip().lower()] = value.strip()
        try:
            length = int(fields[b"content-length"])
        except (KeyError, ValueError):
            raise DapError(f"a header without a Content-Length: {header[:200]!r}") from None
        while len(self._buffer) < length:
            await self._more()
        body, self._buffer = self._buffer[:length], self._buffer[length:]
        try:
            message = json.loads(body)
        except ValueError:
            raise DapError(f"a message that is not JSON: {body[:200]!r}") from None
        if not isinstance(message, dict) or message.get("type") not in (
            "response",
            "event",
            "request",
        ):
            raise DapError(f"a message that is not DAP: {body[:200]!r}")
        return message

    async def find(self, wanted: Callable[[Message], bool], what: str) -> Message:
        """The first message (kept or new) for which ``wanted`` holds; ``what`` names it in
        the error when none comes within the timeout."""
        for message in self._pending:
            if wanted(message):
                self._pending.remove(message)
                return message
        try:
            with anyio.fail_after(self.timeout):
                while True:
                    message = await self._read()
                    if wanted(message):
                        return message
                    if message.get("event") == "output" and not self.keep_output:
                        continue
                    self._pending.append(message)
        except TimeoutError:
            raise DapError(f"no {what} within {self.timeout:g} s") from None

    # ---- requests and events -------------------------------------------------------------------

    async def answer(self, seq: int) -> Message:
        """The whole response to request ``seq``, whether it succeeded or not."""
        return await self.find(
            lambda m: m["type"] == "response" and m.get("request_seq") == seq,
            f"response to request {seq}",
        )

    async def response(self, seq: int, command: str) -> dict[str, Any]:
        """The body of the response to request ``seq`` (a ``command``); :class:`DapError` if
        it failed or answers another command."""
        found = await self.answer(seq)
        if found.get("command") != command:
            raise DapError(f"request {seq} ({command}) answered as {found.get('command')!r}")
        if not found.get("success"):
            raise DapError(f"{command} failed: {found.get('message')}")
        body = found.get("body") or {}
        if not isinstance(body, dict):
            raise DapError(f"{command} answered with a body that is not an object: {body!r}")
        return body

    async def request(self, command: str, **arguments: Any) -> dict[str, Any]:
        """Send a request and return its response's body; :class:`DapError` if it failed."""
        return await self.response(await self.send(command, **arguments), command)

    async def ask(self, command: str, **arguments: Any) -> Message:
        """Send a request and return the whole response, whether it succeeded or not."""
        return await self.answer(await self.send(command, **arguments))

    async def refused(self, command: str, **arguments: Any) -> str:
        """The message of an error response; :class:`DapError` if the request succeeded."""
        found = await self.ask(command, **arguments)
        if found.get("success"):
            raise DapError(f"{command} succeeded where a refusal was expected: {found}")
        return str(found.get("message"))

    async def event(self, *names: str) -> Message:
        """The next event with one of these names (a kept one first)."""
        return await self.find(
            lambda m: m["type"] == "event" and m.get("event") in names,
            " or ".join(names) + " event",
        )

    # ---- what an editor reads at a stop --------------------------------------------------------

    async def stopped(self) -> dict[str, Any]:
        """The next ``stopped`` event's body."""
        return (await self.event("stopped")).get("body") or {}

    async def top(self, thread: int = 1) -> dict[str, Any]:
        """The innermost frame of the current stop."""
        frames = (await self.request("stackTrace", threadId=thread)).get("stackFrames") or []
        if not frames:
            raise DapError("stackTrace answered with no frames")
        return dict(frames[0])

    async def locals(self, frame_id: int | None = None) -> dict[str, dict[str, Any]]:
        """The variables of a frame's Locals scope (the innermost frame's by default), by name."""
        frame_id = frame_id or (await self.top())["id"]
        scopes = (await self.request("scopes", frameId=frame_id)).get("scopes") or []
        scope = next((s for s in scopes if str(s.get("name", "")).startswith("Locals")), None)
        if scope is None:
            raise DapError(f"frame {frame_id} has no Locals scope: {scopes}")
        found = await self.request("variables", variablesReference=scope["variablesReference"])
        return {v["name"]: v for v in found.get("variables") or []}


@contextlib.asynccontextmanager
async def connected(
    port: int, *, timeout: float = WAIT, keep_output: bool = False
) -> AsyncIterator[DapClient]:
    """A TCP client for the length of a ``with`` block; its connection closed afterwards."""
    client = await DapClient.connect(port, timeout=timeout, keep_output=keep_output)
    async with client:
        yield client


# ---- ``ndb dap --port 0`` as a process -----------------------------------------------------------


@contextlib.contextmanager
def tcp_server(
    stderr: Path, *, wait: float = 60.0
) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``ndb dap --port 0`` as a subprocess, and the port it reports listening on; stopped
    afterwards (terminated, then killed). Its stderr goes to the file ``stderr``."""
    with stderr.open("wb") as log:
        command = [*NDB_DAP, "--port", "0"]
        process = subprocess.Popen(command, stderr=log, stdin=subprocess.DEVNULL)
        try:
            yield process, _reported_port(stderr, process, wait)
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _reported_port(log: Path, process: subprocess.Popen[bytes], wait: float) -> int:
    """The port from the server's "listening on HOST:PORT" line on standard error."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        for line in log.read_text(errors="replace").splitlines():
            if "listening on " in line:
                return int(line.rsplit(":", 1)[1])
        if process.poll() is not None:
            said = log.read_text(errors="replace")[-2000:]
            raise DapError(f"the server exited with code {process.returncode}: {said}")
        time.sleep(0.05)
    raise DapError(f"the server reported no port within {wait:g} s")
