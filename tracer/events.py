"""What a real run leaves behind: one event per ``sys.settrace`` callback in the program's code.

Plain dataclasses (no pydantic) so that the tracing subprocess starts fast; each event keeps the
real file, line and stack depth that the language itself leaves out.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class ExitKind(StrEnum):
    NORMAL = "normal"  # the program (or entry call) finished
    ERROR = "error"  # an exception escaped the top frame
    NEVER = "never"  # stopped by a limit: runaway loop, recursion, too many events, too slow


@dataclass(frozen=True)
class TraceLimits:
    """Bounds on one run; hitting any ends the trace with the ``never`` exit.

    ``max_events`` and ``max_seconds`` are enforced by the tracer between events;
    ``hard_timeout_s`` by the parent process, for code stuck inside one builtin call (no events).
    """

    max_events: int = 10_000
    max_seconds: float = 5.0
    hard_timeout_s: float = 20.0
    max_output_chars: int = 100_000
    memory_bytes: int = 4 * 1024**3


@dataclass(slots=True)
class TraceEvent:
    """One traced event of the program's own code."""

    kind: str  # "call" | "line" | "return" | "exception"
    file: str
    line: int
    src: str
    function: str  # qualified name of the code object
    depth: int  # number of traced frames below this one on the stack (top frame: 0)
    activation: int  # identifies one run of a frame from its call event to its return event
    locals: dict[str, str]
    value: str | None = None  # return value or exception repr
    output: str = ""  # what the program printed just before this event

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TraceEvent:
        return cls(**data)


@dataclass
class Trace:
    """A recorded run: events in order, and how it ended."""

    events: list[TraceEvent] = field(default_factory=list)
    exit: ExitKind = ExitKind.NORMAL
    exit_reason: str | None = None  # the uncaught exception, or which limit stopped the run
    output: str = ""  # everything the program printed (bounded)

    @property
    def event_count(self) -> int:
        return len(self.events)
