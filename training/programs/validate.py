"""Run a candidate program and decide whether it is a usable training program.

Why: the generator only guarantees validity by construction as far as its bookkeeping goes;
the run decides. A candidate is kept only if, traced by the project's own tracer
(:func:`neural_debugger.tracer.record.record` with ``TraceLimits(max_events=600,
max_seconds=1.0)``), it ends the way it was meant to (normally, or with an uncaught exception
for the few programs meant to fail), executes between 5 and 400 line events and prints only a
few lines.

Before that, a cheap guard run with a plain ``sys.settrace`` hook stops any candidate whose
values grow out of bounds (a string doubled in a loop, an int squared over and over), whose
recursion goes deeper than 8 or that runs too long: those would make the real tracer slow or
could exhaust memory inside a single line, which the tracer's limits cannot interrupt. The
guard run also lowers the process's address-space limit to what it maps plus
``GUARD_MEMORY_BYTES``: one statement that builds a huge value (``list(range(n))`` with an ``n``
of hundreds of millions) then fails at once with ``MemoryError`` instead of taking seconds and
gigabytes before any line event could see it.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import resource
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from types import FrameType
from typing import Any

from neural_debugger.tracer.events import ExitKind, TraceLimits
from neural_debugger.tracer.program import ProgramError, load_program
from neural_debugger.tracer.record import record

PROGRAM_PATH = "program.py"
MIN_LINES = 5
MAX_LINES = 400
MAX_OUTPUT_LINES = 6
MAX_RECURSION = 9  # frames of one function on the stack: a recursion depth of 8
RECORD_LIMITS = TraceLimits(max_events=600, max_seconds=1.0)

_MAX_LEN = 500
_MAX_INT_BITS = 256
_GUARD_SECONDS = 0.5
_SIZED = (str, list, dict, set, tuple, frozenset, bytes)
# Address space a guard run may add: a drill needs a few MiB; a runaway value fails at this size
# in well under a second (under a worker's own limit alone it took 17 s and 11 GB here).
GUARD_MEMORY_BYTES = 256 * 2**20


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str
    line_events: int = 0
    exit: str = ""
    output: str = ""


class _Abort(BaseException):
    """Stops a guard run (a BaseException, so the program's ``except Exception`` misses it)."""


class _Guard:
    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.lines = 0
        self.active: dict[Any, int] = {}
        self.deadline = time.perf_counter() + _GUARD_SECONDS

    def global_trace(self, frame: FrameType, event: str, arg: object) -> Any:
        if frame.f_code.co_filename != self.filename:
            return None
        code = frame.f_code
        depth = self.active.get(code, 0) + 1
        self.active[code] = depth
        if depth > MAX_RECURSION:
            raise _Abort("recursion deeper than 8")
        return self.local_trace

    def local_trace(self, frame: FrameType, event: str, arg: object) -> Any:
        if event == "line":
            self.lines += 1
            if self.lines > MAX_LINES:
                raise _Abort(f"more than {MAX_LINES} line events")
            if time.perf_counter() > self.deadline:
                raise _Abort("too slow")
            for value in frame.f_locals.values():
                if isinstance(value, int) and not isinstance(value, bool):
                    if value.bit_length() > _MAX_INT_BITS:
                        raise _Abort("int too large")
                elif isinstance(value, _SIZED) and len(value) > _MAX_LEN:
                    raise _Abort("value too large")
        elif event == "return":
            self.active[frame.f_code] -= 1
        elif event == "exception" and issubclass(arg[0], MemoryError):  # type: ignore[index]
            raise _Abort("value too large")  # even where the program catches it
        return self.local_trace


def _mapped_bytes() -> int | None:
    """The address space this process maps now (Linux), or None where it cannot be read."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return None


@contextlib.contextmanager
def _address_space_cap(extra: int) -> Iterator[None]:
    """Lower the soft address-space limit to the mapped size plus ``extra`` while the block
    runs (never above a lower limit already set), then restore it."""
    mapped = _mapped_bytes()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = None if mapped is None else mapped + extra
    if cap is not None and hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    if cap is None or (soft != resource.RLIM_INFINITY and soft <= cap):
        yield
        return
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def guard_run(source: str, entry: str | None) -> str | None:
    """Run the program with size, depth and time guards; the reason it failed, or None."""
    try:
        code = compile(source, PROGRAM_PATH, "exec", dont_inherit=True)
    except SyntaxError as err:
        return f"syntax error: {err}"
    namespace: dict[str, Any] = {
        "__name__": "__main__" if entry is None else "program",
        "__builtins__": builtins,
    }
    guard = _Guard(PROGRAM_PATH)
    out = io.StringIO()
    saved = sys.stdout, sys.stderr, sys.gettrace()
    sys.stdout = sys.stderr = out
    try:
        with _address_space_cap(GUARD_MEMORY_BYTES):
            if entry is None:
                sys.settrace(guard.global_trace)
                exec(code, namespace)
            else:
                exec(code, namespace)
                call = compile(entry, PROGRAM_PATH, "eval")
                sys.settrace(guard.global_trace)
                eval(call, namespace)
    except _Abort as abort:
        return str(abort)
    except RecursionError:
        return "recursion error"
    except MemoryError:
        return "value too large"
    except Exception:
        pass  # whether an error was meant is decided on the real trace
    finally:
        sys.settrace(saved[2])
        sys.stdout, sys.stderr = saved[0], saved[1]
    return None


def check_program(
    source: str, entry: str | None, *, expect_error: bool = False, min_lines: int = MIN_LINES
) -> Verdict:
    """Trace the program with the project's tracer and judge the run (``min_lines``: fewer
    line events reject it; short builtin drills pass a lower bound)."""
    if "<|" in source or "|>" in source or (entry and ("<|" in entry or "|>" in entry)):
        return Verdict(False, "special token delimiters in the source")
    failure = guard_run(source, entry)
    if failure is not None:
        return Verdict(False, f"guard: {failure}")
    try:
        program = load_program(PROGRAM_PATH, entry=entry, source=source)
        trace = record(program, RECORD_LIMITS)
    except ProgramError as err:
        return Verdict(False, f"program error: {err}")
    lines = sum(1 for ev in trace.events if ev.kind == "line")
    exit_kind = str(trace.exit)
    if trace.exit == ExitKind.NEVER:
        return Verdict(False, f"limit: {trace.exit_reason}", lines, exit_kind)
    wanted = ExitKind.ERROR if expect_error else ExitKind.NORMAL
    if trace.exit != wanted:
        return Verdict(False, f"exit {exit_kind}: {trace.exit_reason}", lines, exit_kind)
    if not min_lines <= lines <= MAX_LINES:
        return Verdict(False, f"{lines} line events", lines, exit_kind)
    if trace.output.count("\n") > MAX_OUTPUT_LINES:
        return Verdict(False, "prints too much", lines, exit_kind)
    return Verdict(True, "ok", lines, exit_kind, trace.output)
