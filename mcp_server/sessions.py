"""The sessions one MCP server holds, within its limits.

An agent may open several sessions at once and forget to end them, so the server bounds how
many it holds, ends those left idle too long (they hold a model cache each), and refuses
programs larger than it will read. Each session has a lock: an agent's parallel calls on one
session are taken in turn, never interleaved.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field

import anyio

from neural_debugger.model_backend.api import OpenedSession
from neural_debugger.model_backend.session import DebugSession
from neural_debugger.server.breakpoints import BreakpointTable
from neural_debugger.server.variables import Inspector

MAX_SESSIONS = 8
IDLE_TIMEOUT_S = 900.0
MAX_PROGRAM_BYTES = 100_000


class SessionLimitError(Exception):
    """A request the server's limits refuse, or about a session it does not hold."""


@dataclass(frozen=True)
class Limits:
    max_sessions: int = MAX_SESSIONS
    idle_timeout_s: float = IDLE_TIMEOUT_S
    max_program_bytes: int = MAX_PROGRAM_BYTES

    def __post_init__(self) -> None:
        if self.max_sessions < 1 or self.idle_timeout_s <= 0 or self.max_program_bytes < 1:
            raise ValueError("limits must be positive")


@dataclass
class LiveSession:
    """One agent session: the runtime session, its inspector (values as the DAP server shows
    them), its breakpoints (with conditions) and when it was last used."""

    id: str
    opened: OpenedSession
    inspector: Inspector
    breakpoints: BreakpointTable
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    last_used: float = field(default_factory=time.monotonic)

    @property
    def session(self) -> DebugSession:
        return self.opened.session

    @property
    def predicted(self) -> bool:
        return self.opened.backend != "oracle"


class Sessions:
    """The live sessions by id."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._live: dict[str, LiveSession] = {}
        self._expired: set[str] = set()

    def __len__(self) -> int:
        return len(self._live)

    def room(self) -> None:
        """Raise unless one more session fits."""
        self.expire()
        if len(self._live) >= self.limits.max_sessions:
            raise SessionLimitError(
                f"this server already holds {self.limits.max_sessions} sessions (its limit): "
                "end one with end_session first"
            )

    def add(self, opened: OpenedSession, breakpoints: BreakpointTable) -> LiveSession:
        self.room()
        session_id = secrets.token_hex(4)
        while session_id in self._live:
            session_id = secrets.token_hex(4)
        live = LiveSession(session_id, opened, Inspector(opened.session), breakpoints)
        self._live[session_id] = live
        return live

    def get(self, session_id: str) -> LiveSession:
        self.expire()
        live = self._live.get(session_id)
        if live is None:
            if session_id in self._expired:
                raise SessionLimitError(
                    f"session {session_id!r} was ended after {self.limits.idle_timeout_s:g} s "
                    "idle; start a new one"
                )
            raise SessionLimitError(
                f"unknown session {session_id!r}; start_session returns the id to use"
            )
        live.last_used = time.monotonic()
        return live

    def remove(self, session_id: str) -> LiveSession:
        live = self.get(session_id)
        del self._live[session_id]
        return live

    def expire(self) -> list[LiveSession]:
        """End the sessions idle longer than the limit (not those in the middle of a call)."""
        now = time.monotonic()
        idle = [
            live
            for live in self._live.values()
            if now - live.last_used > self.limits.idle_timeout_s and not live.lock.locked()
        ]
        for live in idle:
            del self._live[live.id]
            self._expired.add(live.id)
        return idle

    def all(self) -> list[LiveSession]:
        return list(self._live.values())
