"""The session API: one way to open a debug session on a program, for every frontend.

The terminal debugger (``ndb debug``), the DAP server (``ndb dap``), the language server
(``ndb lsp``) and the MCP server (``ndb mcp``) all open sessions here, so a program is read,
checked and started the same way whichever of them asks::

    from neural_debugger.model_backend.api import open_session

    opened = await open_session("examples/bubble_sort.py", entry="bubble_sort([3, 1, 2])",
                                breakpoints=[9])
    stop = opened.session.current            # the first stop, known without predicting
    stop = await opened.session.step(...)    # then drive the DebugSession

``backend`` is ``local`` (the embedded model, the default), ``vllm`` (vLLM servers) or
``oracle`` (a real traced run: it EXECUTES the program, so a caller only passes it when the user
asked for it by name). Every way opening can fail (a missing file, a syntax error, a bad entry
call, a missing model folder, a breakpoint on a line no stop can be on) becomes one
:class:`SessionError` whose message is for the user.

Loading the embedded model takes about a second and its weights are large, so a long-lived
frontend (a server) passes an :class:`EnginePool`: one engine per configuration, shared by all
of its sessions (each session still has its own cache).
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import anyio

from neural_debugger.tracer.program import Program, ProgramError, load_program
from neural_debugger.tracer.record import TracerFailure

from .backend import BackendError, DecodeOptions, Engine
from .engines import BACKENDS, make_engine
from .session import (
    DebugSession,
    default_breakpoint_steps,
    default_return_steps,
    inverse_first_state,
)

EngineKey = tuple[str, str | None, tuple[str, ...]]


class SessionError(ValueError):
    """A session that cannot be opened; the message says why, in words for the user."""


class EnginePool:
    """One engine per (backend, model, vLLM servers), made on first use and shared from then on."""

    def __init__(self) -> None:
        self._engines: dict[EngineKey, Engine] = {}
        self._lock = anyio.Lock()

    async def get(self, backend: str, model: Path | None, urls: Sequence[str] = ()) -> Engine:
        key = (backend, str(model) if model else None, tuple(urls))
        async with self._lock:
            engine = self._engines.get(key)
            if engine is None:
                engine = await anyio.to_thread.run_sync(make_engine, backend, model, list(urls))
                self._engines[key] = engine
            return engine

    async def aclose(self) -> None:
        engines, self._engines = list(self._engines.values()), {}
        for engine in engines:
            await engine.aclose()


@dataclass
class OpenedSession:
    """A session at its first stop, with the breakpoints it was opened with (checked lines)."""

    session: DebugSession
    backend: str
    breakpoints: set[int] = field(default_factory=set)

    @property
    def program(self) -> Program:
        return self.session.program


def add_engine_arguments(
    parser: argparse.ArgumentParser, backends: Sequence[str] = (), backend_help: str = ""
) -> None:
    """``--backend`` (when ``backends`` are given; ``local`` by default) and ``--model``: how
    every frontend's command line names the engine its sessions open on."""
    if backends:
        parser.add_argument("--backend", choices=backends, default="local", help=backend_help)
    parser.add_argument("--model", type=Path, help="model folder (default: models/ndb-small)")


class DecodeSettings(Protocol):
    """What a frontend's settings (``ndb debug``'s flags, a DAP launch configuration) say about
    decoding; ``max_tokens`` is the token budget per state."""

    @property
    def temperature(self) -> float: ...
    @property
    def samples(self) -> int: ...
    @property
    def check(self) -> int: ...
    @property
    def seed(self) -> int | None: ...
    @property
    def max_tokens(self) -> int: ...


def decode_options(settings: DecodeSettings) -> DecodeOptions:
    """The :class:`DecodeOptions` a frontend's settings ask for."""
    return DecodeOptions(
        temperature=settings.temperature,
        samples=settings.samples,
        check=settings.check,
        seed=settings.seed,
        max_new_tokens=settings.max_tokens,
    )


def statement_lines(program: Program) -> frozenset[int]:
    """Lines on which a statement starts: the only lines a stop (and so a breakpoint) can be."""
    tree = ast.parse(program.source)
    return frozenset(node.lineno for node in ast.walk(tree) if isinstance(node, ast.stmt))


def check_breakpoints(program: Program, lines: Iterable[int]) -> set[int]:
    """The breakpoint lines, each checked to start a statement of ``program``."""
    starts = statement_lines(program)
    checked = set()
    for line in lines:
        if line not in starts:
            raise SessionError(f"breakpoint line {line} is not a statement line of the program")
        checked.add(line)
    return checked


async def open_session(
    program: str | Path,
    *,
    entry: str | None = None,
    breakpoints: Iterable[int] = (),
    backend: str = "local",
    model: Path | None = None,
    vllm_urls: Sequence[str] = (),
    inverse: str | None = None,
    options: DecodeOptions | None = None,
    breakpoint_steps: int | None = None,
    return_steps: int | None = None,
    engines: EnginePool | None = None,
    source: str | None = None,
) -> OpenedSession:
    """Open a debug session on the file ``program`` at its first stop.

    ``entry`` debugs one call (``"f([3, 1, 2])"``) instead of the script; ``inverse`` (a repr
    text) starts from ``entry`` returning that value and walks backwards to its inputs.
    ``breakpoint_steps`` is how many steps into a continue to one breakpoint takes before one
    jump (``None``: the backend's default); ``return_steps`` the same for a step out toward the
    frame's return. ``engines`` shares engines across sessions; without
    it a new engine is made for this session. ``source`` is the program's text when it is not
    the file's (an editor's unsaved buffer).
    """
    if backend not in BACKENDS:
        raise SessionError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    options = options or DecodeOptions()
    if options.check > 1 and backend != "local":
        raise SessionError("check (steps back checked forwards) needs the local backend")
    for name, steps in (("breakpoint_steps", breakpoint_steps), ("return_steps", return_steps)):
        if steps is not None and steps < 0:
            raise SessionError(f"{name} must be 0 (one jump) or more")
    try:
        loaded = load_program(program, entry, source=source)
        lines = check_breakpoints(loaded, breakpoints)
        first = None
        if inverse is not None and backend != "oracle":  # the oracle starts from the real return
            first = inverse_first_state(loaded, inverse)
        if engines is not None:
            engine = await engines.get(backend, model, vllm_urls)
        else:
            engine = await anyio.to_thread.run_sync(make_engine, backend, model, list(vllm_urls))
        session = await DebugSession.open(
            loaded,
            engine,
            inverse=inverse is not None,
            first=first,
            options=options,
            breakpoint_steps=(
                default_breakpoint_steps(backend) if breakpoint_steps is None else breakpoint_steps
            ),
            return_steps=default_return_steps(backend) if return_steps is None else return_steps,
        )
    except SessionError:
        raise
    except (ProgramError, TracerFailure, BackendError, ValueError, OSError) as err:
        raise SessionError(str(err)) from None
    return OpenedSession(session=session, backend=backend, breakpoints=lines)
