"""Line breakpoints: which are verified, which conditions hold, and moving between them.

A breakpoint is verified when its line starts a statement of the launched program (the model can
only stop on such lines). Conditions, hit counts (``5``, ``>= 3``, ``% 2``) and log messages
(``total is {total}``) are checked when set (parsed by the safe evaluator) and evaluated over the
*predicted* variables of a stop, so they are only as right as the predictions they read. A log
point writes its message and goes on instead of stopping. Breakpoints may be set before a
launch; they are verified then.

The table also holds the exception filters a client set (``raised``, ``uncaught``); the stepping
rules apply them (:mod:`neural_debugger.model_backend.stepping`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from neural_debugger.model_backend.api import statement_lines
from neural_debugger.model_backend.backend import BackendError, DecodeOptions
from neural_debugger.model_backend.expressions import EvaluationError, parse, truthy
from neural_debugger.model_backend.session import DebugSession, Stop, resume
from neural_debugger.tracer.program import Program

from .messages import Breakpoint, Source, SourceBreakpoint

MAX_SKIPS = 200  # breakpoint hits whose condition is false, before giving up
_HIT = re.compile(r"^\s*(==|>=|>|<=|<|%)?\s*(\d+)\s*$")
_FIELD = re.compile(r"\{([^{}]+)\}")
Log = Callable[[str], Awaitable[None]]


def hit_rule(text: str) -> Callable[[int], bool]:
    """A hit condition as VS Code writes them: ``5`` (the 5th hit), ``>= 3``, ``% 2``..."""
    match = _HIT.match(text)
    if match is None:
        raise ValueError(f"hit count {text!r}: write N, == N, > N, >= N, < N, <= N or % N")
    op, n = match.group(1) or "==", int(match.group(2))
    if op == "%" and n == 0:
        raise ValueError("hit count % 0 never holds")
    rules: dict[str, Callable[[int], bool]] = {
        "==": lambda k: k == n,
        ">": lambda k: k > n,
        ">=": lambda k: k >= n,
        "<": lambda k: k < n,
        "<=": lambda k: k <= n,
        "%": lambda k: k % n == 0,
    }
    return rules[op]


def format_log(message: str, variables: dict[str, str]) -> str:
    """A log message with each ``{expression}`` evaluated over the predicted variables."""
    from neural_debugger.model_backend.expressions import Evaluator

    def field(match: re.Match[str]) -> str:
        try:
            return repr(Evaluator(variables).evaluate(match.group(1)))
        except (EvaluationError, ValueError) as err:
            return f"<{err}>"

    return _FIELD.sub(field, message)


@dataclass
class LineBreakpoint:
    id: int
    path: str
    line: int
    condition: str | None
    unsupported: str | None = None  # why a part of the request cannot be honoured
    verified: bool = False
    message: str | None = None
    hit_condition: str | None = None
    log_message: str | None = None
    hits: int = 0  # times reached with its condition holding, this launch

    def as_dap(self, line_base: int) -> Breakpoint:
        return Breakpoint(
            id=self.id,
            verified=self.verified,
            line=self.line - 1 + line_base,
            message=self.message,
            source=Source(name=os.path.basename(self.path), path=self.path),
        )


def same_file(a: str, b: str) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


class BreakpointTable:
    """The breakpoints of one client, by source file, as last set."""

    def __init__(self) -> None:
        self.filters: set[str] = set()
        self._by_path: dict[str, list[LineBreakpoint]] = {}
        self._next_id = 1
        self._program: Program | None = None
        self._lines: frozenset[int] = frozenset()

    def set(self, path: str, requested: list[SourceBreakpoint], line_base: int) -> list[Breakpoint]:
        """Replace the breakpoints of one file (``line_base`` is 1 or 0, as the client counts)."""
        made = []
        for asked in requested:
            bp = LineBreakpoint(self._next_id, path, asked.line + 1 - line_base, asked.condition)
            bp.hit_condition, bp.log_message = asked.hit_condition, asked.log_message
            if bp.hit_condition:
                try:
                    hit_rule(bp.hit_condition)
                except ValueError as err:
                    bp.unsupported = str(err)
            self._next_id += 1
            self._verify(bp)
            made.append(bp)
        self._by_path[os.path.realpath(path)] = made
        return [bp.as_dap(line_base) for bp in made]

    def attach(self, program: Program) -> list[LineBreakpoint]:
        """Verify every breakpoint against a newly launched program; those that changed."""
        self._program = program
        self._lines = statement_lines(program)
        changed = []
        for bps in self._by_path.values():
            for bp in bps:
                bp.hits = 0
                before = (bp.verified, bp.message)
                self._verify(bp)
                if (bp.verified, bp.message) != before:
                    changed.append(bp)
        return changed

    def _verify(self, bp: LineBreakpoint) -> None:
        bp.verified, bp.message = False, None
        if bp.unsupported:
            bp.message = bp.unsupported
        elif self._program is None:
            bp.message = "verified once the program is launched"
        elif not same_file(bp.path, self._program.path):
            bp.message = "not the launched program: only its lines can be stopped at"
        elif bp.line not in self._lines:
            bp.message = f"line {bp.line} does not start a statement"
        else:
            try:
                if bp.condition:
                    parse(bp.condition)
            except EvaluationError as err:
                bp.message = f"condition refused: {err}"
            else:
                bp.verified = True

    def active(self) -> dict[int, str | None]:
        """The launched program's verified breakpoints: line -> condition (or None)."""
        if self._program is None:
            return {}
        return {
            bp.line: bp.condition or None
            for bps in self._by_path.values()
            for bp in bps
            if bp.verified and same_file(bp.path, self._program.path)
        }

    def _at(self, stop: Stop, program: Program) -> LineBreakpoint | None:
        if not self.on_breakpoint(stop, program):
            return None
        return next(
            bp
            for bps in self._by_path.values()
            for bp in bps
            if bp.verified and bp.line == stop.line and same_file(bp.path, program.path)
        )

    def decide(self, stop: Stop, program: Program) -> tuple[bool, str | None]:
        """At a stop that reached a breakpoint: whether to stop there, and a log line to write.

        Counts the hit when the condition holds; a log point never stops.
        """
        bp = self._at(stop, program)
        if bp is None or self.hit(stop, program) is False:
            return False, None
        bp.hits += 1
        if bp.hit_condition and not hit_rule(bp.hit_condition)(bp.hits):
            return False, None
        if bp.log_message is not None:
            return False, format_log(bp.log_message, stop.locals or {})
        return True, None

    def on_breakpoint(self, stop: Stop, program: Program) -> bool:
        """Whether ``stop`` is on the line of an active breakpoint (condition aside)."""
        if stop.exited or stop.file is None or not same_file(stop.file, program.path):
            return False
        return stop.line in self.active()

    def ids_at(self, stop: Stop, program: Program) -> list[int]:
        """The ids of the verified breakpoints on a stop's line (for ``hitBreakpointIds``)."""
        if not self.on_breakpoint(stop, program):
            return []
        return [
            bp.id
            for bps in self._by_path.values()
            for bp in bps
            if bp.verified and bp.line == stop.line and same_file(bp.path, program.path)
        ]

    def hit(self, stop: Stop, program: Program) -> bool | str:
        """Whether ``stop`` is on an active breakpoint whose condition holds.

        A condition that cannot be evaluated at this stop counts as holding (the stop is shown,
        so the user sees why); the error text is returned instead of True then.
        """
        if not self.on_breakpoint(stop, program):
            return False
        condition = self.active()[stop.line]  # type: ignore[index]
        if not condition:
            return True
        try:
            return truthy(condition, stop.locals or {})
        except EvaluationError as err:
            return f"the condition {condition!r} could not be evaluated: {err}"


async def continue_to(
    session: DebugSession,
    table: BreakpointTable,
    options: DecodeOptions | None = None,
    log: Log | None = None,
) -> Stop:
    """Continue to the next breakpoint that stops (condition, hit count) or to the end.

    Each hit is one runtime :func:`resume`; a hit that does not stop (a false condition, a hit
    count not reached, a log point) is resumed again. Exception filters are the stepping rules'
    (:class:`neural_debugger.model_backend.stepping.Stepper`, which a DAP session continues
    with); this continue, an agent's, has none.
    """
    lines = set(table.active())
    for _ in range(MAX_SKIPS):
        stop = await resume(session, lines, options)
        if not table.on_breakpoint(stop, session.program):
            return stop  # the end, or a jump that landed elsewhere
        stops, message = table.decide(stop, session.program)
        if message is not None and log is not None:
            await log(message)
        if stops:
            return stop
    raise BackendError(f"no breakpoint stopped within {MAX_SKIPS} hits")


def reverse_to(session: DebugSession, table: BreakpointTable) -> Stop:
    """Back through the history to the previous stop on a breakpoint that holds (or the first)."""
    session.step_back()
    while len(session.stops) > 1 and table.hit(session.current, session.program) is False:
        session.step_back()
    return session.current
