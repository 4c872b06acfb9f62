"""From launch arguments to a debug session, with engines shared across a server's clients.

Loading the embedded model costs about a second and its weights are large, so a server keeps one
engine per (backend, model, vLLM servers) and every session of every client opens on it; each
session still has its own cache. Every way a launch can fail becomes a :class:`LaunchError` with
the message the runtime gave (a syntax error, a missing file, a bad entry call, a missing model).
"""

from __future__ import annotations

from pathlib import Path

import anyio

from neural_debugger.model_backend.backend import BackendError, DecodeOptions, Engine
from neural_debugger.model_backend.engines import make_engine
from neural_debugger.model_backend.session import (
    DebugSession,
    default_breakpoint_steps,
    inverse_first_state,
)
from neural_debugger.tracer.program import ProgramError, load_program
from neural_debugger.tracer.record import TracerFailure

from .messages import LaunchArguments

EngineKey = tuple[str, str | None, tuple[str, ...]]


class LaunchError(Exception):
    """A launch that cannot be done; the message is for the user."""


class EnginePool:
    """One engine per configuration, made on first use and shared from then on."""

    def __init__(self) -> None:
        self._engines: dict[EngineKey, Engine] = {}
        self._lock = anyio.Lock()

    async def get(self, backend: str, model: Path | None, urls: list[str]) -> Engine:
        key = (backend, str(model) if model else None, tuple(urls))
        async with self._lock:
            engine = self._engines.get(key)
            if engine is None:
                engine = await anyio.to_thread.run_sync(make_engine, backend, model, urls)
                self._engines[key] = engine
            return engine

    async def aclose(self) -> None:
        engines, self._engines = list(self._engines.values()), {}
        for engine in engines:
            await engine.aclose()


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
    if args.check > 1 and args.backend != "local":
        raise LaunchError("check (steps back checked forwards) needs the local backend")
    try:
        program = load_program(_resolve(args.program, args.cwd), args.entry)
        options = DecodeOptions(
            temperature=args.temperature,
            samples=args.samples,
            check=args.check,
            seed=args.seed,
            max_new_tokens=args.max_tokens,
        )
        inverse = args.inverse is not None
        first = None
        if inverse and args.backend != "oracle":  # the oracle starts from the real return
            first = inverse_first_state(program, args.inverse or "")
        model = _resolve(args.model, args.cwd) if args.model else None
        engine = await pool.get(args.backend, model, args.vllm_urls)
        return await DebugSession.open(
            program,
            engine,
            inverse=inverse,
            first=first,
            options=options,
            breakpoint_steps=(
                default_breakpoint_steps(args.backend)
                if args.breakpoint_steps is None
                else args.breakpoint_steps
            ),
        )
    except (ProgramError, TracerFailure, BackendError, ValueError, OSError) as err:
        raise LaunchError(str(err)) from None
