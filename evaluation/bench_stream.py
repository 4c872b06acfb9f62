"""Benchmark: what making and packing streamed training data costs, per origin, in one run.

Why: on a lent GPU the trainer takes its data from an ``ndb data`` run beside it (``ndb train
--stream``). The device's cores are split between making programs (``GEN_WORKERS``) and packing
the shards they close (``PACK_WORKERS``), and every core left idle is fewer distinct rows: the
stage 6 trainer drew each streamed row about four times. This measures, on one machine and in
one run, the CPU time that making a trajectory takes for each origin of the mix, and the CPU
time that packing the same trajectories into rows takes (tokenizing, masking, cutting windows),
so the split follows from their ratio.

One-time set-up (the library harvest, the repository suites' harvest) is reported apart: a
stream pays it once, at its start.

``python -m neural_debugger.evaluation.bench_stream`` prints a table and writes
``evaluation/results/stream_bench.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
from pathlib import Path
from typing import Any

from neural_debugger.model_backend.tokenizer import PAD, load_tokenizer
from neural_debugger.paths import cruxeval_path
from neural_debugger.training.data import (
    CHUNK,
    REPO_SPARES,
    DataSpec,
    Job,
    _repo_candidates,
    _work,
    load_mix,
)
from neural_debugger.training.train import _pack_serial

from .runs import RESULTS

DEFAULT_MODEL = Path("models/ndb-small")
BLOCK_SIZE = 1024  # the stage configs' row length
HEADROOM = 1.25  # packers kept for a quarter more than the measured load: shards close in bursts


def _cpu() -> float:
    """CPU seconds of this process, all its threads (the tokenizer encodes on several)."""
    return time.process_time()


def _jobs(kind: str, spec: DataSpec, programs: int, crux: str | None, candidates=()) -> list[Job]:
    jobs, first, chunk = [], 0, 0
    while first < programs:
        n = min(CHUNK, programs - first)
        part = tuple(candidates[first * REPO_SPARES : (first + n) * REPO_SPARES])
        jobs.append(Job(spec, kind, chunk, first, n, crux, frozenset(), part))
        first, chunk = first + n, chunk + 1
    return jobs


def measure_origin(kind: str, programs: int, seed: int, crux: str | None) -> dict[str, Any]:
    """Make ``programs`` programs of one origin in this process, after a warm-up job that pays
    the origin's one-time set-up; CPU seconds and what came out."""
    spec = DataSpec(programs=programs, seed=seed, mix=((kind, 1.0),))
    setup_start = time.perf_counter()
    candidates: list = []
    if kind == "repo":
        candidates, _ = _repo_candidates(spec, programs + 5, crux, 1)
        warm = _jobs(kind, spec, 5, crux, candidates[-5 * REPO_SPARES :])
    else:
        warm = _jobs(kind, DataSpec(programs=5, seed=seed + 1, mix=((kind, 1.0),)), 5, crux)
    for job in warm:
        _work(job)
    setup = time.perf_counter() - setup_start
    start = _cpu()
    texts: list[str] = []
    made = 0
    for job in _jobs(kind, spec, programs, crux, candidates):
        records, stats = _work(job)
        texts += [record["text"] for record in records]
        made += stats.programs
    return {
        "programs": made,
        "trajectories": len(texts),
        "characters": sum(map(len, texts)),
        "make_cpu_s": _cpu() - start,
        "setup_wall_s": setup,
        "texts": texts,
    }


def measure_packing(texts: list[str], model: Path) -> float:
    """CPU seconds to pack ``texts`` into rows as a stream's pack worker does."""
    tokenizer = load_tokenizer(model)
    pad_id = tokenizer.token_to_id(PAD)
    _pack_serial(texts[:20], tokenizer, BLOCK_SIZE, 0, pad_id)  # warm the tokenizer
    start = _cpu()
    _pack_serial(texts, tokenizer, BLOCK_SIZE, 0, pad_id)
    return _cpu() - start


def split(cores: int, make_ms: float, pack_ms: float) -> dict[str, int]:
    """Generation and pack workers for a machine of ``cores``: one core is kept for the
    trainer and one for the data run's main process (it writes the shards)."""
    free = max(cores - 2, 2)
    pack = max(1, math.ceil(free * HEADROOM * pack_ms / (make_ms + pack_ms)))
    return {"cores": cores, "GEN_WORKERS": free - pack, "PACK_WORKERS": pack}


def run(programs: int, seed: int, origins: list[str], model: Path) -> dict[str, Any]:
    found = cruxeval_path()
    crux = str(found) if found.exists() else None
    mix = dict(load_mix())
    rows: dict[str, dict[str, Any]] = {}
    for kind in origins:
        measured = measure_origin(kind, programs, seed, crux)
        texts = measured.pop("texts")
        pack = measure_packing(texts, model)
        n = max(measured["trajectories"], 1)
        rows[kind] = {
            **measured,
            "pack_cpu_s": pack,
            "make_ms_per_trajectory": 1000 * measured["make_cpu_s"] / n,
            "pack_ms_per_trajectory": 1000 * pack / n,
            "share": mix.get(kind, 0.0),
        }
    weights = {k: r["share"] * r["trajectories"] / max(r["programs"], 1) for k, r in rows.items()}
    total = sum(weights.values()) or 1.0
    make_ms = sum(weights[k] * r["make_ms_per_trajectory"] for k, r in rows.items()) / total
    pack_ms = sum(weights[k] * r["pack_ms_per_trajectory"] for k, r in rows.items()) / total
    return {
        "programs_per_origin": programs,
        "seed": seed,
        "model": str(model),
        "block_size": BLOCK_SIZE,
        "origins": rows,
        "mix": {k: mix.get(k, 0.0) for k in rows},
        "mix_make_ms_per_trajectory": make_ms,
        "mix_pack_ms_per_trajectory": pack_ms,
        "make_to_pack": make_ms / pack_ms if pack_ms else None,
        "split_16_cores": split(16, make_ms, pack_ms),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=200, help="programs per origin")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument(
        "--origins",
        default=",".join(k for k, _ in load_mix()),
        help="comma-separated origins (default: every origin of training/mix.toml)",
    )
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="its tokenizer packs")
    parser.add_argument("--out", type=Path, default=RESULTS / "stream_bench.json")
    args = parser.parse_args(argv)
    origins = [o.strip() for o in args.origins.split(",") if o.strip()]
    result = run(args.programs, args.seed, origins, args.model)
    result["command"] = "python -m neural_debugger.evaluation.bench_stream" + (
        f" --programs {args.programs} --seed {args.seed} --origins {','.join(origins)}"
    )
    print(f"{'origin':<10} {'share':>6} {'traj':>6} {'make ms/traj':>13} {'pack ms/traj':>13}")
    for kind, row in result["origins"].items():
        print(
            f"{kind:<10} {row['share']:>6.2f} {row['trajectories']:>6} "
            f"{row['make_ms_per_trajectory']:>13.2f} {row['pack_ms_per_trajectory']:>13.2f}"
            f"   (set-up {row['setup_wall_s']:.0f} s)"
        )
    print(
        f"mix: making {result['mix_make_ms_per_trajectory']:.2f} ms, packing "
        f"{result['mix_pack_ms_per_trajectory']:.2f} ms a trajectory "
        f"(ratio {result['make_to_pack']:.1f}); on 16 cores: {result['split_16_cores']}"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
