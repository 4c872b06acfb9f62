"""Record a real run in this process with ``sys.settrace``.

Only the program's own code is traced (its file and the entry wrapper): calls into the standard
library or installed packages are stepped over, as a debugger's ``justMyCode`` does, while the
program's functions called back from library code (``sorted(key=...)``, ``map``) are traced.

Every event keeps the frame's locals as bounded reprs (:mod:`.values`), so the state before each
line is known exactly. Limits on events and time end the run with the ``never`` exit.

This runs the program in the current process: use :func:`neural_debugger.tracer.run.trace` for
untrusted code (a subprocess with a hard timeout, a memory limit, no stdin and a fixed hash seed).
"""

from __future__ import annotations

import builtins
import io
import sys
import time
import traceback
from collections.abc import Callable
from types import FrameType
from typing import Any

from .events import ExitKind, Trace, TraceEvent, TraceLimits
from .program import ENTRY_FILE, Program, ProgramError
from .values import render_exception, render_locals, render_value


class TraceLimitReached(BaseException):
    """Raised inside the program when a limit is hit (a BaseException, like KeyboardInterrupt)."""


class TracerFailure(RuntimeError):
    """The tracer itself failed; the program is not to blame."""


class BoundedOutput(io.TextIOBase):
    """Stands in for stdout and stderr: keeps the first ``limit`` characters the program prints."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self._parts: list[str] = []
        self._room = limit
        self.dropped = 0
        self._mark = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        kept = text[: max(self._room, 0)]
        if kept:
            self._parts.append(kept)
            self._room -= len(kept)
        self.dropped += len(text) - len(kept)
        return len(text)

    def take_new(self) -> str:
        """What was written since the last call."""
        if self._mark == len(self._parts):
            return ""
        new = "".join(self._parts[self._mark :])
        self._mark = len(self._parts)
        return new

    def getvalue(self) -> str:
        text = "".join(self._parts)
        if self.dropped:
            text += f"\n[output cut: {self.dropped} more characters]\n"
        return text


def frame_line(frame: FrameType) -> int:
    """The frame's current line; a module frame's call event reports 0, shown as its first line."""
    return frame.f_lineno or frame.f_code.co_firstlineno


OnEvent = Callable[[TraceEvent], None]
OnLimit = Callable[[Trace], None]


class _Recorder:
    def __init__(
        self,
        program: Program,
        limits: TraceLimits,
        output: BoundedOutput,
        on_event: OnEvent | None,
        on_limit: OnLimit | None,
    ) -> None:
        self.program = program
        self.limits = limits
        self.output = output
        self.on_event = on_event
        self.on_limit = on_limit
        self.own_files = {program.path, ENTRY_FILE}
        self.trace = Trace()
        self.depth: dict[FrameType, int] = {}
        self.activation: dict[FrameType, int] = {}
        self.activations = 0
        self.deadline = time.perf_counter() + limits.max_seconds
        self.stopped: str | None = None
        self.failure: str | None = None

    def global_trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        """A call (the only event a global trace function sees): traced in the program's own
        files only, by :meth:`local_trace` from here on."""
        if frame.f_code.co_filename not in self.own_files:
            return None
        return self.local_trace(frame, event, arg)

    def local_trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        if self.stopped is not None:
            raise TraceLimitReached(self.stopped)
        try:
            if event == "call":
                self._enter(frame)
            self._record(frame, event, arg)
            if event == "return":
                self.depth.pop(frame, None)
                self.activation.pop(frame, None)
        except TraceLimitReached:
            raise
        except Exception:
            self._fail()
            return None
        return self.local_trace

    def _enter(self, frame: FrameType) -> None:
        """A new activation: its depth (one below its nearest traced caller) and its number."""
        depth = 0
        caller = frame.f_back
        while caller is not None:
            known = self.depth.get(caller)
            if known is not None:
                depth = known + 1
                break
            caller = caller.f_back
        self.depth[frame] = depth
        self.activations += 1
        self.activation[frame] = self.activations

    def _fail(self) -> None:
        self.failure = traceback.format_exc()
        sys.settrace(None)

    def _record(self, frame: FrameType, event: str, arg: Any) -> None:
        events = self.trace.events
        if len(events) >= self.limits.max_events:
            self._stop(f"stopped after {self.limits.max_events} events (the event limit)")
        if time.perf_counter() > self.deadline:
            self._stop(f"stopped after {self.limits.max_seconds:g} s (the time limit)")
        code = frame.f_code
        file = code.co_filename
        line = frame_line(frame)
        value = None
        if event == "return":
            value = render_value(arg)
        elif event == "exception":
            value = render_exception(arg[1] if arg[1] is not None else arg[0]())
        ev = TraceEvent(
            kind=event,
            file=file,
            line=line,
            src=self.program.source_line(file, line),
            function=code.co_qualname,
            depth=self.depth[frame],
            activation=self.activation[frame],
            locals=render_locals(frame.f_locals, module_level=code.co_name == "<module>"),
            value=value,
            output=self.output.take_new(),
        )
        events.append(ev)
        if self.on_event is not None:
            self.on_event(ev)

    def _stop(self, reason: str) -> None:
        self.stopped = reason
        self.trace.exit = ExitKind.NEVER
        self.trace.exit_reason = reason
        self.trace.output = self.output.getvalue()
        if self.on_limit is not None:
            self.on_limit(self.trace)
        raise TraceLimitReached(reason)


def _exit_for(exc: BaseException) -> tuple[ExitKind, str]:
    if isinstance(exc, SystemExit):
        code = exc.code
        if code is None or code == 0:
            return ExitKind.NORMAL, f"SystemExit({code!r})"
        return ExitKind.ERROR, f"SystemExit({render_value(code)})"
    return ExitKind.ERROR, render_exception(exc)


def record(
    program: Program,
    limits: TraceLimits | None = None,
    *,
    on_event: OnEvent | None = None,
    on_limit: OnLimit | None = None,
) -> Trace:
    """Run ``program`` under the tracer in this process and return its trace.

    ``on_event`` sees each event as it is recorded; ``on_limit`` is called when a limit stops the
    run (before the program is interrupted), so a subprocess can save the trace and exit.
    """
    limits = limits or TraceLimits()
    output = BoundedOutput(limits.max_output_chars)
    recorder = _Recorder(program, limits, output, on_event, on_limit)
    trace = recorder.trace
    module_globals: dict[str, Any] = {
        "__name__": program.module_name,
        "__file__": program.path,
        "__builtins__": builtins,
    }
    code = compile(program.source, program.path, "exec", dont_inherit=True)
    saved_streams = sys.stdout, sys.stderr
    saved_argv = sys.argv
    sys.stdout = sys.stderr = output
    sys.argv = [program.path]
    try:
        if program.entry is None:

            def target() -> object:
                return exec(code, module_globals)

        else:
            try:
                exec(code, module_globals)  # untraced: the module only defines the entry's function
            except BaseException as exc:
                raise ProgramError(
                    "the program raised while defining its functions, before the entry call: "
                    + render_exception(exc)
                ) from None
            namespace = dict(module_globals)  # the wrapper must not change the module's globals
            exec(compile(program.wrapper or "", ENTRY_FILE, "exec"), namespace)
            target = namespace[program.wrapper_name]
        sys.settrace(recorder.global_trace)
        try:
            target()
        finally:
            sys.settrace(None)
    except TraceLimitReached:
        pass
    except ProgramError:
        raise
    except BaseException as exc:
        trace.exit, trace.exit_reason = _exit_for(exc)
    finally:
        sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
    if recorder.failure is not None:
        raise TracerFailure(recorder.failure)
    if recorder.stopped is not None:
        trace.exit, trace.exit_reason = ExitKind.NEVER, recorder.stopped
    trace.output = output.getvalue()  # includes what was printed after the last event
    return trace
