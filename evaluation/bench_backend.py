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
* peak resident memory of the process and the KV cache of one session;
* ``--speed``: the decoding changes of the speed notes (``docs/speed.md``), each against what
  came before, interleaved in rounds in one process so that a busy machine slows all alike:
  milliseconds per forward pass (one token, one token with three drafted, and a chunk of 24 as
  when a step's new prompt tokens are fed) of the readable model on torch's default threads (as
  before) and on one thread, the decoding layout
  (:mod:`~neural_debugger.model_backend.decoding_llama`) with float32, float16 (the default)
  and int8 weights, as tokens per second against the bandwidth bound of their weights (and of
  float32's); and milliseconds per predicted state
  (the prompt already in the cache, as in a session) for the engine as before (readable model,
  default threads, no drafts) and with each change added, on a trajectory of the example
  programs, with the forward passes each took and whether it wrote the same states.

``python -m neural_debugger.evaluation.bench_backend`` prints a table and writes
``evaluation/results/backend_bench.json``; ``--speed --model FOLDER --out PATH`` runs only the
speed part on any model folder (a larger one with random weights measures speed alone).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import anyio
import numpy as np
import torch

from neural_debugger.model_backend.backend import BackendError, DecodeOptions
from neural_debugger.model_backend.decoding_llama import DecodingLlama
from neural_debugger.model_backend.draft import DRAFT_TOKENS
from neural_debugger.model_backend.llama import load_pretrained
from neural_debugger.model_backend.local import (
    LoadedModel,
    LocalEngine,
    LocalSession,
    decoding_model,
)
from neural_debugger.model_backend.quantize import PackedLinear
from neural_debugger.model_backend.session import DebugSession
from neural_debugger.paths import REPOSITORY, default_model_dir
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


# ---- the speed changes, each against what came before ----------------------------------------


@dataclass(frozen=True)
class Variant:
    """One way of running the engine: which model layout, weights, threads and drafts."""

    name: str
    model: str  # "readable" (llama.LlamaForCausalLM), "decoding", "int8" (decoding, int8)
    threads: int  # 0: torch's default
    draft: int


PROMPT_CHUNK = 24  # tokens a step typically feeds to bring the cache to its prompt
SPEED_VARIANTS = [
    Variant("before", "readable", 0, 0),
    Variant("+one thread", "readable", 1, 0),
    Variant("+drafts", "readable", 1, DRAFT_TOKENS),
    Variant("+decoding layout", "decoding", 1, DRAFT_TOKENS),
    Variant("+float16 weights", "fp16", 1, DRAFT_TOKENS),  # the default
    Variant("int8 instead", "int8", 1, DRAFT_TOKENS),
    Variant("+native step", "native", 1, DRAFT_TOKENS),
    Variant("native, 1 drafted", "native", 1, 1),
    Variant("native, no drafts", "native", 1, 0),
]


def _models(folder: Path) -> dict[str, torch.nn.Module]:
    readable = load_pretrained(folder)
    return {
        "readable": readable,
        "decoding": DecodingLlama(readable).eval(),
        "fp16": decoding_model(readable, "fp16", "torch").eval(),
        "int8": decoding_model(readable, "int8", "torch").eval(),
        "native": decoding_model(readable, "fp16", "native").eval(),
    }


def _weight_bytes(model: torch.nn.Module) -> int:
    """Bytes of weights one token reads: the parameters and the packed weights of float16 or
    int8 layers, the embedding table counted only as the output projection reads it (a lookup
    reads one row)."""
    total = 0
    counted = set()
    for name, param in model.named_parameters():
        if "embed_tokens" not in name:
            total += param.numel() * param.element_size()
            counted.add(id(param))
    total += sum(m.weight_bytes for m in model.modules() if isinstance(m, PackedLinear))
    head = getattr(model, "lm_head", None)
    if type(head) is torch.nn.Linear and id(head.weight) not in counted:  # the tied table
        total += head.weight.numel() * head.weight.element_size()
    return total


def forward_speed(models: dict[str, torch.nn.Module], rounds: int, bandwidth: float) -> dict:
    """Milliseconds per forward pass of each variant, interleaved in ``rounds`` rounds."""
    default_threads = torch.get_num_threads()
    cases = {(v.model, v.threads) for v in SPEED_VARIANTS}
    times: dict[str, list[float]] = {}
    prompt = torch.tensor([[5] * 300])
    with torch.no_grad():
        caches = {}
        for name, model in models.items():
            caches[name] = model.new_cache(512)
            model(prompt, caches[name], last_only=True)
        for _ in range(rounds):
            for name, threads in sorted(cases):
                torch.set_num_threads(threads or default_threads)
                for width in (1, 1 + DRAFT_TOKENS, PROMPT_CHUNK):
                    ids = torch.tensor([[7] * width])
                    model, cache = models[name], caches[name]
                    model(ids, cache, keep=width)
                    cache.truncate(300)
                    start = time.perf_counter()
                    for _ in range(10):
                        model(ids, cache, keep=width)
                        cache.truncate(300)
                    key = f"{name}, {threads or default_threads} thread(s), {width} token(s)"
                    times.setdefault(key, []).append((time.perf_counter() - start) * 100)
    torch.set_num_threads(default_threads)
    weights = {name: _weight_bytes(model) for name, model in models.items()}
    result = {}
    for key, values in times.items():
        name = key.split(",")[0]
        ms = statistics.median(values)
        result[key] = {
            "ms_median": ms,
            "ms_min": min(values),
            "tokens_per_s": 1000 / ms if key.endswith(" 1 token(s)") else None,
            "bound_tokens_per_s": bandwidth / weights[name],
            "weight_bytes": weights[name],
            "float32_bound_tokens_per_s": bandwidth / weights["decoding"],
        }
    return result


async def _trajectory(engine: LocalEngine, path: str, entry: str, steps: int) -> list:
    """``steps`` (history, action) pairs of a greedy session on an example program."""
    program = load_program(REPOSITORY / path, entry)
    session = await DebugSession.open(program, engine)
    items: list = []
    while len(items) < steps and not session.finished:
        action = Action(kind=ACTIONS[len(items) % len(ACTIONS)])
        history = session.history
        try:
            await session.step(action)
        except BackendError:
            break
        items.append((program.context, history, action))
    return items


def state_speed(folder: Path, models: dict[str, torch.nn.Module], steps: int, rounds: int) -> dict:
    """Milliseconds per predicted state (the prompt already cached) of each variant."""
    from neural_debugger.model_backend.local import load_model

    loaded = load_model(folder.resolve(), "cpu", "none")
    engine = LocalEngine(folder)
    items = []
    for path, entry in PROGRAMS:
        items += anyio.run(_trajectory, engine, path, entry, steps)
    default_threads = torch.get_num_threads()
    times: dict[str, list[float]] = {v.name: [] for v in SPEED_VARIANTS}
    calls: dict[str, int] = dict.fromkeys(times, 0)
    states: dict[str, list] = {v.name: [] for v in SPEED_VARIANTS}
    in_forward: dict[str, list[float]] = {v.name: [] for v in SPEED_VARIANTS}
    spent = [0.0]  # seconds inside the model's forward passes since the last reset
    for model in models.values():
        model.forward = _timed_forward(model.forward, spent)  # type: ignore[method-assign]
    for round_ in range(rounds):
        for code, history, action in items:
            for variant in SPEED_VARIANTS:
                model = models[variant.model]
                session = LocalSession(
                    LoadedModel(folder, model, loaded.vocab, loaded.window), code, variant.draft
                )
                session.threads = variant.threads or default_threads
                options = DecodeOptions()
                try:
                    session.predict_now(history, action, options)  # the prompt into the cache
                    spent[0] = 0.0
                    start = time.perf_counter()
                    prediction = session.predict_now(history, action, options)
                except BackendError:
                    continue
                times[variant.name].append((time.perf_counter() - start) * 1000)
                in_forward[variant.name].append(spent[0] * 1000)
                if round_ == 0:
                    calls[variant.name] += prediction.model_calls
                    states[variant.name].append(prediction.state)
    torch.set_num_threads(default_threads)
    for model in models.values():
        del model.forward  # the class's own again
    before = states[SPEED_VARIANTS[0].name]
    return {
        "items": len(items),
        "rounds": rounds,
        "by_variant": {
            v.name: {
                "model": v.model,
                "threads": v.threads or default_threads,
                "draft": v.draft,
                "ms_per_state_median": statistics.median(times[v.name]),
                "ms_per_state_mean": statistics.fmean(times[v.name]),
                "forward_passes": calls[v.name],
                "share_in_forward_passes": sum(in_forward[v.name]) / sum(times[v.name]),
                "same_states_as_before": sum(
                    a == b for a, b in zip(states[v.name], before, strict=False)
                ),
            }
            for v in SPEED_VARIANTS
            if times[v.name]
        },
    }


def _timed_forward(forward: Callable[..., torch.Tensor], spent: list[float]) -> Callable:
    """``forward``, adding the seconds it takes to ``spent[0]`` (how much of a predicted state
    is the model's forward passes, the rest being the decoder's own work)."""

    def timed(*args: object, **kwargs: object) -> torch.Tensor:
        start = time.perf_counter()
        try:
            return forward(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - start

    return timed


def run_speed(folder: Path, steps: int, rounds: int, states: bool) -> dict:
    models = _models(folder)
    bandwidth = _memory_bandwidth()
    result = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.1f} at the start",
        "model": str(
            folder.relative_to(REPOSITORY) if folder.is_relative_to(REPOSITORY) else folder.name
        ),
        "parameters": sum(p.numel() for p in models["readable"].parameters()),
        "memory_bandwidth_gb_s": bandwidth / 1e9,
        "forward": forward_speed(models, rounds, bandwidth),
    }
    if states:
        result["states"] = state_speed(folder, models, steps, max(1, rounds // 3))
    result["load_average_after"] = os.getloadavg()[0]
    return result


def format_speed(result: dict) -> str:
    lines = [
        f"{result['model']} ({result['parameters'] / 1e6:.1f}M parameters; {result['machine']}; "
        f"{result['memory_bandwidth_gb_s']:.1f} GB/s)",
        "  forward pass (median ms; tokens/s against the bandwidth bound of its weights):",
    ]
    for key, row in result["forward"].items():
        rate = row["tokens_per_s"]
        lines.append(
            f"    {key:<42} {row['ms_median']:7.2f} ms"
            + (
                f"  {rate:6.0f} tokens/s of {row['bound_tokens_per_s']:.0f} "
                f"({rate / row['bound_tokens_per_s']:.0%}; of float32's "
                f"{rate / row['float32_bound_tokens_per_s']:.0%})"
                if rate
                else ""
            )
        )
    if "states" in result:
        states = result["states"]
        lines.append(
            f"  per predicted state, {states['items']} states x {states['rounds']} round(s):"
        )
        for name, row in states["by_variant"].items():
            lines.append(
                f"    {name:<18} median {row['ms_per_state_median']:7.1f} ms, mean "
                f"{row['ms_per_state_mean']:7.1f} ms, {row['forward_passes']} forward passes "
                f"({row['share_in_forward_passes']:.0%} of the time), "
                f"same states {row['same_states_as_before']}/{states['items']}"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30, help="steps per program")
    parser.add_argument(
        "--speed", action="store_true", help="only the speed changes, each against the one before"
    )
    parser.add_argument("--model", type=Path, default=default_model_dir(), help="with --speed")
    parser.add_argument("--rounds", type=int, default=6, help="with --speed: interleaved rounds")
    parser.add_argument(
        "--no-states", action="store_true", help="with --speed: forward passes only"
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.speed:
        result = run_speed(args.model.resolve(), args.steps, args.rounds, not args.no_states)
        result["command"] = "python -m neural_debugger.evaluation.bench_backend --speed " + (
            f"--model {args.model} --steps {args.steps} --rounds {args.rounds}"
            + (" --no-states" if args.no_states else "")
        )
        print(format_speed(result))
        out = args.out or REPOSITORY / "evaluation" / "results" / "backend_speed.json"
    else:
        result = run(args.steps)
        print(format_table(result))
        out = args.out or REPOSITORY / "evaluation" / "results" / "backend_bench.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
