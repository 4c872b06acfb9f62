"""``ndb dap``: the Debug Adapter Protocol server, over stdio (one client) or TCP (many).

Over stdio the protocol owns standard output, so everything else the process might print (a
library's warning, a stray ``print``) is sent to standard error instead. Over TCP each
connection gets its own adapter, sessions and breakpoints, while the engines (the loaded model)
are shared; the server listens on the loopback address unless told otherwise, and says on
standard error which port it listens on (useful with ``--port 0``).
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import traceback

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, SocketAttribute, SocketStream
from anyio.lowlevel import checkpoint

from .adapter import Adapter
from .launch import EnginePool
from .transport import MessageReader, MessageWriter


class PipeReceiveStream(ByteReceiveStream):
    """Bytes from a file descriptor (standard input), read when the event loop sees data.

    Waiting on the descriptor, rather than blocking a worker thread in ``read``, lets the server
    end cleanly while the client still holds the pipe open. Only pipes, sockets and terminals can
    be waited on; regular files and devices such as ``/dev/null`` never block, so they are read
    directly.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        mode = os.fstat(fd).st_mode
        self._pollable = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)

    async def receive(self, max_bytes: int = 65536) -> bytes:
        if self._pollable:
            await anyio.wait_readable(self._fd)
        else:
            await checkpoint()
        data = os.read(self._fd, max_bytes)
        if not data:
            raise anyio.EndOfStream
        return data

    async def aclose(self) -> None:
        return None


class PipeSendStream(ByteSendStream):
    """Bytes to a file descriptor (the saved standard output), written from a worker thread."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def send(self, item: bytes) -> None:
        await anyio.to_thread.run_sync(_write_all, self._fd, item)

    async def aclose(self) -> None:
        return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _claim_stdout() -> int:
    """A private copy of standard output for the protocol; fd 1 then points at stderr."""
    sys.stdout.flush()
    protocol = os.dup(1)
    os.dup2(2, 1)
    return protocol


async def serve_stdio() -> None:
    pool = EnginePool()
    protocol = _claim_stdout()
    try:
        reader = MessageReader(PipeReceiveStream(0))
        writer = MessageWriter(PipeSendStream(protocol))
        await Adapter(reader, writer, pool).serve()
    finally:
        await pool.aclose()
        os.close(protocol)


async def serve_tcp(host: str, port: int) -> None:
    pool = EnginePool()

    async def connection(stream: SocketStream) -> None:
        async with stream:
            try:
                await Adapter(MessageReader(stream), MessageWriter(stream), pool).serve()
            except Exception:  # one client's failure must not end the others' sessions
                traceback.print_exc(file=sys.stderr)

    listener = await anyio.create_tcp_listener(local_host=host, local_port=port)
    bound = listener.extra(SocketAttribute.local_port)
    print(f"ndb dap: listening on {host}:{bound}", file=sys.stderr, flush=True)
    try:
        await listener.serve(connection)
    finally:
        await pool.aclose()


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser(
        "dap",
        help="serve the Debug Adapter Protocol (for editors) over stdio or TCP",
        description="Serve the Debug Adapter Protocol: one client over stdio, or many over TCP.",
    )
    p.add_argument("--port", type=int, help="serve many clients over TCP on this port (0: any)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on with --port")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.port is None:
        anyio.run(serve_stdio)
    elif not 0 <= args.port <= 65535:
        print(f"ndb dap: error: --port {args.port} is not a port number", file=sys.stderr)
        return 2
    else:
        try:
            anyio.run(serve_tcp, args.host, args.port)
        except OSError as err:
            print(
                f"ndb dap: error: cannot listen on {args.host}:{args.port}: {err}", file=sys.stderr
            )
            return 2
    return 0
