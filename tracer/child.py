"""Subprocess entry point: trace one program and stream its events to a file.

``python -m neural_debugger.tracer.child SPEC.json OUT.jsonl``. The parent
(:mod:`.run`) starts it with no stdin, ``PYTHONHASHSEED=0`` and a hard timeout. Events are
written as JSON lines and flushed one by one (no thread could flush while the program holds the
interpreter inside one long builtin call), so a run killed from outside still leaves every event
up to the line that hung; the last line is ``{"end": ...}`` when the run ended by itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import sys
from typing import IO

from .events import Trace, TraceEvent, TraceLimits
from .program import Program, ProgramError
from .record import TracerFailure, record


def _limit_memory(limit: int) -> None:
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _end_record(out: IO[str], trace: Trace | None, error: str | None = None) -> None:
    if error is not None:
        end = {"error": error}
    else:
        assert trace is not None
        end = {"exit": str(trace.exit), "reason": trace.exit_reason, "output": trace.output}
    out.write(json.dumps({"end": end}) + "\n")
    out.flush()


def main(argv: list[str]) -> int:
    spec_path, out_path = argv[1], argv[2]
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    limits = TraceLimits(**spec["limits"])
    program = Program(path=spec["path"], source=spec["source"], entry=spec["entry"])
    _limit_memory(limits.memory_bytes)
    out = open(out_path, "w", encoding="utf-8")  # noqa: SIM115 - closed by os._exit or below

    def on_event(event: TraceEvent) -> None:
        out.write(json.dumps(event.to_json(), ensure_ascii=False) + "\n")
        out.flush()

    def on_limit(trace: Trace) -> None:
        # The program may catch the interruption and go on untraced: end the process here.
        _end_record(out, trace)
        os._exit(0)

    try:
        trace = record(program, limits, on_event=on_event, on_limit=on_limit)
    except ProgramError as err:
        _end_record(out, None, str(err))
        return 0
    except TracerFailure as err:
        _end_record(out, None, f"tracer failure: {err}")
        return 0
    _end_record(out, trace)
    out.close()
    return 0


if __name__ == "__main__":
    code = main(sys.argv)
    sys.stdout.flush()
    os._exit(code)  # skip interpreter teardown: the program may have left threads or finalizers
