"""From launch arguments to a debug session, through the runtime's session API.

A server keeps one :class:`EnginePool` (engines shared across its clients, see
:mod:`neural_debugger.model_backend.api`); every way a launch can fail becomes a
:class:`LaunchError` with the message the runtime gave (a syntax error, a missing file, a bad
entry call, a missing model).
"""

from __future__ import annotations

from pathlib import Path

from neural_debugger.model_backend.api import EnginePool, SessionError, decode_options
from neural_debugger.model_backend.api import open_session as open_api_session
from neural_debugger.model_backend.session import DebugSession

from .messages import LaunchArguments

__all__ = ["EnginePool", "LaunchError", "describe_backend", "open_session"]


class LaunchError(Exception):
    """A launch that cannot be done; the message is for the user."""


def _resolve(path: str, cwd: str | None) -> Path:
    candidate = Path(path).expanduser()
    if not candidate.is_absolute() and cwd:
        candidate = Path(cwd).expanduser() / candidate
    return candidate


def describe_backend(args: LaunchArguments) -> str:
    """One line for the debug console: what produces the stops of this session."""
    if args.backend == "oracle":
        return "oracle backend: the program is run for real and every stop is from that run"
    where = f"model {args.model}" if args.model else "the shipped model"
    via = "vLLM at " + ", ".join(args.vllm_urls) if args.backend == "vllm" else "embedded"
    return f"{args.backend} backend ({via}, {where}): every stop is predicted, nothing is run"


async def open_session(args: LaunchArguments, pool: EnginePool) -> DebugSession:
    """The debug session a launch asks for, at its first stop."""
    try:
        opened = await open_api_session(
            _resolve(args.program, args.cwd),
            entry=args.entry,
            backend=args.backend,
            model=_resolve(args.model, args.cwd) if args.model else None,
            vllm_urls=args.vllm_urls,
            inverse=args.inverse,
            options=decode_options(args),
            breakpoint_steps=args.breakpoint_steps,
            return_steps=args.return_steps,
            engines=pool,
        )
    except (SessionError, ValueError) as err:
        raise LaunchError(str(err)) from None
    return opened.session
