"""Trace a program safely in a subprocess: the entry point for untrusted code.

The child runs with no standard input (``input()`` raises ``EOFError`` as it would with an empty
stdin), ``PYTHONHASHSEED=0`` (so set and dict reprs are the same on every run), an address-space
limit, and a hard wall-clock timeout for code that never gives control back to the tracer (a long
computation inside one builtin call). Whatever was recorded before the kill is kept and the trace
ends with the ``never`` exit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from .events import ExitKind, Trace, TraceEvent, TraceLimits
from .program import Program, ProgramError, load_program
from .record import TracerFailure


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def _read_events(out_path: Path) -> tuple[list[TraceEvent], dict | None]:
    events: list[TraceEvent] = []
    end = None
    if not out_path.exists():
        return events, end
    with out_path.open(encoding="utf-8") as f:
        for line in f:
            if not line.endswith("\n"):
                break  # a line cut by the kill
            data = json.loads(line)
            if "end" in data:
                end = data["end"]
                break
            events.append(TraceEvent.from_json(data))
    return events, end


def trace(program: Program, limits: TraceLimits | None = None) -> Trace:
    """Run ``program`` in a fresh tracing subprocess and return its trace."""
    limits = limits or TraceLimits()
    with tempfile.TemporaryDirectory(prefix="ndb-trace-") as tmp:
        spec_path = Path(tmp, "spec.json")
        out_path = Path(tmp, "events.jsonl")
        err_path = Path(tmp, "stderr.txt")
        spec = {
            "path": program.path,
            "source": program.source,
            "entry": program.entry,
            "limits": asdict(limits),
        }
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        cmd = [sys.executable, "-m", "neural_debugger.tracer.child", str(spec_path), str(out_path)]
        killed = False
        with err_path.open("w", encoding="utf-8") as err_file:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err_file,
                env=_child_env(),
                cwd=str(Path(program.path).parent) if Path(program.path).parent.exists() else None,
                start_new_session=True,
            )
            try:
                proc.wait(timeout=limits.hard_timeout_s)
            except subprocess.TimeoutExpired:
                killed = True
                proc.kill()
                proc.wait()
        events, end = _read_events(out_path)
        stderr_tail = err_path.read_text(encoding="utf-8", errors="replace")[-2000:]
    if end is not None and "error" in end:
        message = end["error"]
        if message.startswith("tracer failure"):
            raise TracerFailure(message)
        raise ProgramError(message)
    result = Trace(events=events)
    if end is not None:
        result.exit = ExitKind(end["exit"])
        result.exit_reason = end["reason"]
        result.output = end["output"]
    elif killed:
        result.exit = ExitKind.NEVER
        result.exit_reason = (
            f"killed after {limits.hard_timeout_s:g} s without returning control to the tracer "
            "(a long computation inside one builtin call?)"
        )
    else:
        raise TracerFailure(
            f"the tracing process died (exit code {proc.returncode}) before finishing: "
            f"{stderr_tail.strip() or 'no message'}"
        )
    return result


def trace_file(path: str | Path, entry: str | None = None, limits: TraceLimits | None = None):
    """Load ``path`` (checking it) and trace it in a subprocess; returns ``(program, trace)``."""
    program = load_program(path, entry)
    return program, trace(program, limits)
