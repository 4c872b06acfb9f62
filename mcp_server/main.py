"""``ndb mcp``: the MCP server over stdio (as agents start it), or streamable HTTP on loopback."""

from __future__ import annotations

import argparse
import sys

from neural_debugger.model_backend.api import add_engine_arguments

from .sessions import IDLE_TIMEOUT_S, MAX_PROGRAM_BYTES, MAX_SESSIONS, Limits

LOOPBACK = "127.0.0.1"


def add_parser(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "mcp",
        help="an MCP server (stdio) that lets coding agents debug with predicted stops",
        description="A Model Context Protocol server: sessions, steps (backwards too), "
        "breakpoints, values, edits and predicted inputs, all predicted without running the "
        "program. Speaks stdio unless --http is given.",
    )
    add_engine_arguments(p)
    p.add_argument(
        "--http",
        action="store_true",
        help=f"serve streamable HTTP on {LOOPBACK} (at /mcp) instead of stdio",
    )
    p.add_argument("--port", type=int, default=8765, help="the --http port (default 8765)")
    p.add_argument(
        "--max-sessions",
        type=int,
        default=MAX_SESSIONS,
        help=f"sessions held at once (default {MAX_SESSIONS})",
    )
    p.add_argument(
        "--idle-timeout",
        type=float,
        default=IDLE_TIMEOUT_S,
        metavar="SECONDS",
        help=f"end sessions unused this long (default {IDLE_TIMEOUT_S:g})",
    )
    p.add_argument(
        "--max-program-bytes",
        type=int,
        default=MAX_PROGRAM_BYTES,
        help=f"largest program read (default {MAX_PROGRAM_BYTES})",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import anyio

    from .server import build_server
    from .tools import Debugger

    try:
        limits = Limits(args.max_sessions, args.idle_timeout, args.max_program_bytes)
        if not 0 < args.port < 65536:
            raise ValueError(f"--port {args.port} is not a port number")
    except ValueError as err:
        print(f"ndb mcp: error: {err}", file=sys.stderr)
        return 2
    debugger = Debugger(limits, args.model)
    server = build_server(debugger)

    async def serve() -> None:
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(debugger.reap_forever)
                if args.http:
                    await server.run_streamable_http_async(host=LOOPBACK, port=args.port)
                else:
                    await server.run_stdio_async()
                tasks.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await debugger.aclose()

    anyio.run(serve)
    return 0
