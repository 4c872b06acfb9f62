"""Benchmark: debug sessions at once on a vLLM server, beside the embedded engine.

At each level of concurrency (1, 4, 16, 64 sessions by default) that many debug sessions step
at once (greedy, the shipped model, the example programs with different inputs, so no two
sessions share their prompts), first through the vLLM engine (one completion request per
predicted state, the grammar in the server), then through the embedded engine in this
process (one worker thread per session, its KV cache kept). Per level: states per second (all
sessions together), the step latency a session sees (p50, p95), and for vLLM the server's own
counters over the level (completion requests, prompt tokens found in its prefix cache, the time
between two tokens of a request, engine steps and the tokens each one computes).

It also measures what the grammar costs per token (:func:`.choosing.shortlist`, the work the
logits processor does for each request at each step), for the projection to one GPU in
``docs/vllm.md``.

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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import torch

from neural_debugger.model_backend import choosing
from neural_debugger.model_backend.backend import BackendError, Engine
from neural_debugger.model_backend.grammar import Forced, StateWriter
from neural_debugger.model_backend.local import LocalEngine
from neural_debugger.model_backend.session import DebugSession
from neural_debugger.model_backend.vllm_engine import VllmEngine
from neural_debugger.paths import REPOSITORY
from neural_debugger.protocol import Action
from neural_debugger.tracer.program import load_program

from .bench_backend import ACTIONS
from .timing import percentile

LEVELS = (1, 4, 16, 64)
INPUTS = [
    ("examples/bubble_sort.py", "bubble_sort([{}])", 4),
    ("examples/running_total.py", "running_total([{}])", 4),
]
# server counters compared before and after each level (summed over their labels)
COUNTERS = (
    "request_success_total",
    "prefix_cache_hits_total",
    "prefix_cache_queries_total",
    "prompt_tokens_total",
    "generation_tokens_total",
    "inter_token_latency_seconds_sum",
    "inter_token_latency_seconds_count",
    "iteration_tokens_total_sum",
    "iteration_tokens_total_count",
)


def _program(k: int) -> tuple[str, str]:
    """Session ``k``'s program and entry: the examples, each with inputs of its own."""
    path, entry, size = INPUTS[k % len(INPUTS)]
    values = ", ".join(str((k * 7 + i * 13) % 19 - 4) for i in range(size))
    return path, entry.format(values)


async def _steps(engine: Engine, k: int, steps: int) -> list[dict[str, Any]]:
    """``steps`` timed steps of session ``k`` (a session the model ends starts over)."""
    path, entry = _program(k)
    program = load_program(REPOSITORY / path, entry)
    rows: list[dict[str, Any]] = []
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
                "session": k,
                "ms": (time.perf_counter() - start) * 1000,
                "generated": prediction.generated,
                "forced": prediction.forced,
            }
        )
    return rows


def _summary(rows: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    ms = [r["ms"] for r in rows]
    tokens = sum(r["generated"] + r["forced"] for r in rows)
    return {
        "steps": len(rows),
        "wall_s": seconds,
        "states_per_s": len(rows) / seconds,
        "p50_ms": statistics.median(ms),
        "p95_ms": percentile(ms, 0.95),
        "tokens_per_state": tokens / len(rows),
        "chosen_per_state": sum(r["generated"] for r in rows) / len(rows),
    }


async def _level(engine: Engine, sessions: int, steps: int) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []

    async def one(k: int) -> None:
        rows.extend(await _steps(engine, k, steps))

    start = time.perf_counter()
    async with anyio.create_task_group() as group:
        for k in range(sessions):
            group.start_soon(one, k)
    return {"sessions": sessions, **_summary(rows, time.perf_counter() - start)}


async def _vllm_level(engine: VllmEngine, sessions: int, steps: int) -> dict[str, Any]:
    url = engine.urls[0]
    before = await engine.counters(url)
    level = await _level(engine, sessions, steps)
    after = await engine.counters(url)
    delta = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in COUNTERS}
    gaps = delta["inter_token_latency_seconds_count"]
    between = delta["inter_token_latency_seconds_sum"]
    engine_steps = delta["iteration_tokens_total_count"]
    return {
        **level,
        "server": {
            "requests": delta["request_success_total"],
            "prompt_tokens": delta["prompt_tokens_total"],
            "prefix_cache_hits": delta["prefix_cache_hits_total"],
            "prefix_cache_queries": delta["prefix_cache_queries_total"],
            "generation_tokens": delta["generation_tokens_total"],
            # a request's wait between two of its tokens: one engine step under this load
            "ms_per_output_token": 1000 * between / gaps if gaps else None,
            "engine_steps": engine_steps,
            "tokens_per_engine_step": (
                delta["iteration_tokens_total_sum"] / engine_steps if engine_steps else None
            ),
        },
    }


@contextmanager
def _timed_grammar(chosen: list[float], forced: list[float]) -> Iterator[None]:
    """Time every :func:`.choosing.shortlist` and :meth:`.StateWriter.forced` call the embedded
    engine makes meanwhile (the processor makes one of either per token)."""
    shortlist, forced_of = choosing.shortlist, StateWriter.forced

    def timed(logits: torch.Tensor, writer: StateWriter, wanted: int) -> torch.Tensor:
        start = time.perf_counter()
        try:
            return shortlist(logits, writer, wanted)
        finally:
            chosen.append(time.perf_counter() - start)

    def timed_forced(writer: StateWriter) -> Forced | None:
        start = time.perf_counter()
        try:
            return forced_of(writer)
        finally:
            forced.append(time.perf_counter() - start)

    choosing.shortlist = timed
    StateWriter.forced = timed_forced  # type: ignore[method-assign]
    try:
        yield
    finally:
        choosing.shortlist = shortlist
        StateWriter.forced = forced_of  # type: ignore[method-assign]


async def _grammar_cost(engine: LocalEngine, steps: int) -> dict[str, float]:
    """Microseconds the grammar takes per token, as the processor spends them: a chosen token's
    shortlist (it includes asking for forced tokens first), a forced token's look-up (one
    session on the embedded engine)."""
    chosen: list[float] = []
    forced: list[float] = []
    with _timed_grammar(chosen, forced):
        await _steps(engine, 0, steps)
    return {
        "chosen_tokens": len(chosen),
        "us_per_chosen_token": 1e6 * statistics.mean(chosen),
        "us_per_forced_lookup": 1e6 * statistics.mean(forced),
    }


async def _run(
    urls: list[str], model: Path | None, levels: list[int], steps: int
) -> dict[str, Any]:
    vllm = VllmEngine(urls, model)
    local = LocalEngine(model)
    load_before = os.getloadavg()  # other work on the machine skews every figure: say how much
    result: dict[str, Any] = {"vllm": [], "local": []}
    try:
        await _steps(vllm, 0, 2)  # warm up: the server's first requests compile
        await _steps(local, 0, 2)
        for sessions in levels:
            result["vllm"].append(await _vllm_level(vllm, sessions, steps))
            result["local"].append(await _level(local, sessions, steps))
        grammar = await _grammar_cost(local, 2 * steps)
    finally:
        await vllm.aclose()
    return {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "servers": urls,
        "load_average": {"before": load_before, "after": os.getloadavg()},
        "steps_per_session": steps,
        "levels": result,
        "grammar": grammar,
        # the keys docs/results.md reads: one session, and the most sessions at once
        "one_session": _legacy(result["vllm"][0]),
        "concurrent": _legacy(result["vllm"][-1]),
    }


def _legacy(level: dict[str, Any]) -> dict[str, Any]:
    tokens = level["tokens_per_state"] * level["states_per_s"]
    return {
        "sessions": level["sessions"],
        "median": level["p50_ms"],
        "p95": level["p95_ms"],
        "steps_per_s": level["states_per_s"],
        "tokens_per_s": tokens,
    }


def table(result: dict[str, Any]) -> str:
    """The bench as a Markdown table, one row per level."""
    lines = [
        "| sessions | vLLM states/s | vLLM p50 / p95 ms | cached prompt tokens | "
        "embedded states/s | embedded p50 / p95 ms |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    pairs = zip(result["levels"]["vllm"], result["levels"]["local"], strict=True)
    for v, e in pairs:
        server = v["server"]
        cached = server["prefix_cache_hits"] / max(server["prefix_cache_queries"], 1)
        lines.append(
            f"| {v['sessions']} | {v['states_per_s']:.1f} | {v['p50_ms']:.0f} / "
            f"{v['p95_ms']:.0f} | {cached:.0%} | {e['states_per_s']:.1f} | "
            f"{e['p50_ms']:.0f} / {e['p95_ms']:.0f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vllm-url", action="append", required=True, help="repeatable")
    parser.add_argument("--model", type=Path, default=None, help="default models/ndb-small")
    parser.add_argument(
        "--levels", default=",".join(map(str, LEVELS)), help="sessions at once, comma-separated"
    )
    parser.add_argument("--steps", type=int, default=4, help="steps per session per level")
    parser.add_argument(
        "--out",
        type=Path,
        default=REPOSITORY / "evaluation" / "results" / "backend_bench_vllm.json",
    )
    args = parser.parse_args(argv)
    levels = [int(n) for n in args.levels.split(",")]
    result = anyio.run(_run, args.vllm_url, args.model, levels, args.steps)
    print(table(result))
    grammar = result["grammar"]
    print(
        f"grammar: {grammar['us_per_chosen_token']:.0f} us per chosen token, "
        f"{grammar['us_per_forced_lookup']:.0f} us per forced look-up"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
