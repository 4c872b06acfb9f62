"""Benchmark: step latency of the embedded engine, incremental KV cache against re-encoding.

All figures come from one run on one machine, so their ratios are comparable:

* a 30-step debug session (greedy, the shipped model) on each example program; every step is
  timed as a session takes it (the cache keeps the code and history), then the same step is
  timed from scratch (a fresh cache: the code and history are encoded again), and whether both
  wrote the same state is counted (they can differ only where two tokens score the same within
  floating-point noise);
* decoding speed: one forward pass for one token on a warm cache, as tokens per second, against
  the machine's bound for this model (bytes of weights read per token / memory bandwidth,
  bandwidth measured here with a large array copy);
* peak resident memory of the process and the KV cache of one session.

``python -m neural_debugger.evaluation.bench_backend`` prints a table and writes
``evaluation/results/backend_bench.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import time
from pathlib import Path

import anyio
import numpy as np
import torch

from neural_debugger.model_backend.backend import BackendError, DecodeOptions
from neural_debugger.model_backend.local import LocalEngine, LocalSession
from neural_debugger.model_backend.session import DebugSession
from neural_debugger.paths import REPOSITORY
from neural_debugger.protocol import Action, ActionKind
from neural_debugger.tracer.program import load_program

from .timing import percentile

PROGRAMS = [
    ("examples/bubble_sort.py", "bubble_sort([5, 2, 9, 1])"),
    ("examples/running_total.py", "running_total([3, 1, 2, 7])"),
]
ACTIONS = [ActionKind.STEP_INTO, ActionKind.STEP_INTO, ActionKind.STEP_OVER]
DEBUGPY_MS = 176.0  # measured on this machine kind: debugpy, `next` to the new stop's variables


async def _session_steps(engine: LocalEngine, path: str, entry: str, steps: int) -> list[dict]:
    """Time ``steps`` steps as a session takes them, then each again from scratch."""
    program = load_program(REPOSITORY / path, entry)
    rows: list[dict] = []
    session = await DebugSession.open(program, engine)
    while len(rows) < steps:
        if session.finished:  # the model ended the run early: start over, keep counting
            session = await DebugSession.open(program, engine)
        action = Action(kind=ACTIONS[len(rows) % len(ACTIONS)])
        history = session.history
        start = time.perf_counter()
        try:
            stop = await session.step(action)
        except BackendError:
            session = await DebugSession.open(program, engine)
            continue
        incremental = time.perf_counter() - start
        fresh = LocalSession(engine.loaded, program.context)
        start = time.perf_counter()
        again = fresh.predict_now(history, action, DecodeOptions())
        scratch = time.perf_counter() - start
        prediction = stop.prediction
        assert prediction is not None
        rows.append(
            {
                "program": path,
                "incremental_ms": incremental * 1000,
                "scratch_ms": scratch * 1000,
                "prompt_tokens": len(fresh.ids) - prediction.generated,
                "generated": prediction.generated,
                "forced": prediction.forced,
                "variables": len(stop.locals or {}),
                "same_as_reencoded": again.state == stop.state,
            }
        )
    return rows


def _forward_tokens_per_second(engine: LocalEngine, repeats: int = 200) -> float:
    loaded = engine.loaded
    cache = loaded.model.new_cache(loaded.window)
    with torch.no_grad():
        loaded.model(torch.tensor([[1] * 300]), cache, last_only=True)
        for _ in range(20):  # warm up (first calls allocate and pick kernels)
            loaded.model(torch.tensor([[5]]), cache, last_only=True)
            cache.truncate(300)
        start = time.perf_counter()
        for _ in range(repeats):
            loaded.model(torch.tensor([[5]]), cache, last_only=True)
            cache.truncate(300)
    return repeats / (time.perf_counter() - start)


def _memory_bandwidth() -> float:
    """Bytes per second of a large copy (each byte read once and written once)."""
    source = np.ones(64 * 1024 * 1024, dtype=np.float32)  # 256 MiB
    target = np.empty_like(source)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        np.copyto(target, source)
        best = min(best, time.perf_counter() - start)
    return 2 * source.nbytes / best


def run(steps: int) -> dict:
    engine = LocalEngine()
    rows: list[dict] = []
    for path, entry in PROGRAMS:
        rows += anyio.run(_session_steps, engine, path, entry, steps)
    incremental = [r["incremental_ms"] for r in rows]
    scratch = [r["scratch_ms"] for r in rows]
    model = engine.loaded.model
    weight_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    bandwidth = _memory_bandwidth()
    tokens_per_s = _forward_tokens_per_second(engine)
    cache = model.new_cache(engine.loaded.window)
    cache_bytes = sum(t.numel() * t.element_size() for t in (*cache.keys, *cache.values))
    return {
        "machine": f"{platform.machine()}, {torch.get_num_threads()} torch threads",
        "steps": len(rows),
        "step_ms": {
            "incremental": {
                "median": statistics.median(incremental),
                "p95": percentile(incremental, 0.95),
            },
            "re_encoded": {"median": statistics.median(scratch), "p95": percentile(scratch, 0.95)},
            "speedup_median": statistics.median(scratch) / statistics.median(incremental),
            "same_state_as_reencoded": sum(r["same_as_reencoded"] for r in rows),
            "debugpy_median_for_scale": DEBUGPY_MS,
        },
        "tokens": {
            "prompt_median": statistics.median(r["prompt_tokens"] for r in rows),
            "generated_median": statistics.median(r["generated"] for r in rows),
            "forced_share": sum(r["forced"] for r in rows)
            / max(1, sum(r["forced"] + r["generated"] for r in rows)),
            "variables_median": statistics.median(r["variables"] for r in rows),
        },
        "decode": {
            "tokens_per_s": tokens_per_s,
            "bound_tokens_per_s": bandwidth / weight_bytes,
            "weight_bytes": weight_bytes,
            "memory_bandwidth_gb_s": bandwidth / 1e9,
        },
        "memory": {
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "kv_cache_per_session_mb": cache_bytes / 2**20,
        },
        "rows": rows,
    }


def format_table(result: dict) -> str:
    step, tokens, decode = result["step_ms"], result["tokens"], result["decode"]
    inc, enc = step["incremental"], step["re_encoded"]
    return "\n".join(
        [
            f"embedded engine, {result['steps']} steps ({result['machine']})",
            f"  step latency, incremental cache: median {inc['median']:.1f} ms, "
            f"p95 {inc['p95']:.1f} ms",
            f"  step latency, re-encoded:        median {enc['median']:.1f} ms, "
            f"p95 {enc['p95']:.1f} ms  ({step['speedup_median']:.1f}x slower); same state "
            f"{step['same_state_as_reencoded']}/{result['steps']}",
            f"  debugpy for scale:               median {step['debugpy_median_for_scale']:.0f} ms",
            f"  tokens per step: prompt {tokens['prompt_median']:.0f}, generated "
            f"{tokens['generated_median']:.0f}, forced share {tokens['forced_share']:.0%}, "
            f"variables {tokens['variables_median']:.0f}",
            f"  decode: {decode['tokens_per_s']:.0f} tokens/s; bound "
            f"{decode['bound_tokens_per_s']:.0f} tokens/s ({decode['weight_bytes'] / 1e6:.1f} MB "
            f"weights at {decode['memory_bandwidth_gb_s']:.1f} GB/s)",
            f"  memory: peak RSS {result['memory']['peak_rss_mb']:.0f} MB, KV cache per session "
            f"{result['memory']['kv_cache_per_session_mb']:.1f} MB",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30, help="steps per program")
    parser.add_argument(
        "--out", type=Path, default=REPOSITORY / "evaluation" / "results" / "backend_bench.json"
    )
    args = parser.parse_args()
    result = run(args.steps)
    print(format_table(result))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
